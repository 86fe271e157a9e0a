import { requestDigest } from "../../actors/request/buildRequest.ts";
import { AriadneError } from "../../core/errors.ts";
import type { CallOptions, Model, ModelRequest, ModelResponse } from "../../models/types.ts";
import { type Difference, nearestDifference } from "./nearestDifference.ts";
import type { Recording } from "./recordings.ts";
import { replayKey, respondAs } from "./replayKey.ts";

/** A request no recording answers: the replay cannot go on without the real model (`--record`). */
export class ReplayMissError extends AriadneError {
  constructor(readonly key: string, readonly nearest: Difference | null) {
    super(
      "REPLAY_MISS",
      500,
      `no recorded response for request ${key}` +
        (nearest
          ? `; the nearest recorded request ${nearest.key} differs at ${nearest.path}: recorded ${nearest.recorded}, now ${nearest.now}`
          : "; nothing is recorded for this case") +
        ". Run `ariadne eval --lane replay --record` against the real model to refresh the recordings.",
    );
  }
}

/**
 * The replay lane's model: answers each request with the response recorded
 * for its replay key (the sha256 of the canonical request with the run's ids
 * and times normalised: eval/replay/replayKey.ts), the recorded ids it holds
 * turned into this run's. With `record`, every request goes to the real model and its
 * response is kept (a refresh: `recorded()` then holds exactly what this run
 * asked); without, a request not recorded is a ReplayMissError naming the
 * nearest recorded request's difference (also kept in `misses()`).
 */
export function replayModel(recordings: readonly Recording[], record?: Model): Model & { recorded(): Recording[]; misses(): ReplayMissError[] } {
  // Keyed by today's normalisation of each recorded request, so a figure newly treated as measured matches old recordings.
  const byKey = new Map(recordings.map((r) => [replayKey(r.request), r]));
  const used = new Map<string, Recording>();
  const misses: ReplayMissError[] = [];
  return {
    provider: record ? `record:${record.provider}` : "replay",
    scripted: false,
    async complete(request: ModelRequest, options?: CallOptions): Promise<ModelResponse> {
      const key = replayKey(request);
      const found = byKey.get(key);
      if (found && !record) {
        used.set(key, found);
        return respondAs(found.response, found.request, request);
      }
      if (!record) {
        // Kept as well as thrown: the runtime records a failed turn, the eval fails the case with this message.
        const miss = new ReplayMissError(key, nearestDifference(request, [...byKey.values()]));
        misses.push(miss);
        throw miss;
      }
      const response = await record.complete(request, options);
      const made = { key, digest: requestDigest(request), request: structuredClone(request), response: structuredClone(response) };
      byKey.set(key, made);
      used.set(key, made);
      return response;
    },
    recorded: () => [...used.values()],
    misses: () => [...misses],
  };
}
