import { AriadneError } from "../core/errors.ts";
import { executorStreamId } from "../events/streamIds.ts";
import type { RecordedEvent } from "../events/types.ts";
import type { Handoff } from "../handoff/handoffSchema.ts";
import type { Answer } from "../actors/answer.ts";
import { answerClaims } from "./claimIds.ts";
import { sha256Of } from "./manifest.ts";

const mainOf = (events: readonly RecordedEvent[]) => events.find((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted" && e.data.role === "main");

/** Main's settled answer, if it answered. */
export function mainAnswer(events: readonly RecordedEvent[]): Partial<Answer> | undefined {
  const main = mainOf(events);
  const settled = main && events.find((e): e is RecordedEvent<"settled"> => e.type === "settled" && e.metadata.executorId === main.metadata.executorId);
  return settled?.data.answer as Partial<Answer> | undefined;
}

/** One claim followed down: each step a line, and what broke, if anything. */
export interface ClaimCheck {
  id: string;
  text: string;
  basis: string;
  chain: string[];
  problems: string[];
}

/**
 * `verify DIR --claim C`: the claim of Main's answer, each finding it cites as
 * Main received it, each tool result that finding names in the Child's own
 * stream, each source that result read, down to a blob whose bytes hash to the
 * recorded sha256. An unknown claim id is bad usage.
 */
export function checkClaim(claimId: string, events: readonly RecordedEvent[], blob: (sha256: string) => Uint8Array | null): ClaimCheck {
  const main = mainOf(events);
  const claims = answerClaims(mainAnswer(events));
  const found = claims.find((c) => c.id === claimId);
  if (!found) throw new AriadneError("USAGE", 400, `--claim ${claimId}: the answer has no such claim (${claims.length ? `its claims are ${claims[0].id} to ${claims.at(-1)!.id}` : "it has no claims"}; see answer.md)`);
  const { claim } = found;
  const check: ClaimCheck = { id: claimId, text: claim.text, basis: claim.basis, chain: [], problems: [] };
  if (claim.basis !== "observed") {
    check.chain.push(`${claimId} is ${claim.basis.replace("_", " ")}: it rests on no evidence, and says so`);
    return check;
  }
  if ((claim.citations ?? []).length === 0) check.problems.push(`claim ${claimId} is observed but cites no finding`);
  for (const cite of claim.citations ?? []) {
    const consumed = events.find((e): e is RecordedEvent<"handoff_consumed"> => e.type === "handoff_consumed" && e.metadata.executorId === main!.metadata.executorId && e.data.childExecutorId === cite.executor);
    const finding = (consumed?.data.handoff as Partial<Handoff> | undefined)?.findings?.[cite.finding];
    if (!finding) {
      check.problems.push(`claim ${claimId} cites finding ${cite.finding + 1} of ${cite.executor}, which no handoff Main received holds`);
      continue;
    }
    check.chain.push(`finding ${cite.finding + 1} of ${cite.executor} (handoff event ${consumed!.data.handoffEventId}): ${finding.claim}`);
    const childStream = events.filter((e) => e.streamId === executorStreamId(cite.executor));
    for (const toolUseId of finding.evidence?.toolResults ?? []) {
      const done = childStream.find((e): e is RecordedEvent<"tool_completed"> => e.type === "tool_completed" && e.data.toolUseId === toolUseId);
      if (!done) {
        check.problems.push(`claim ${claimId}: finding ${cite.finding + 1} of ${cite.executor} names tool result ${toolUseId}, which that Child's stream does not hold as completed`);
        continue;
      }
      check.chain.push(`  tool ${done.data.tool} ${toolUseId} (event ${done.eventId}, hash ${done.hash})`);
      for (const s of done.data.sources ?? []) {
        for (const [sha256, what] of [[s.rawSha256, "raw bytes"], [s.textSha256, "text"]] as const) {
          const bytes = blob(sha256);
          if (!bytes) check.problems.push(`claim ${claimId}: the ${what} of source ${s.url} (blob ${sha256}) is missing`);
          else if (sha256Of(bytes) !== sha256) check.problems.push(`claim ${claimId}: the ${what} of source ${s.url} (blob ${sha256}) no longer hash to ${sha256}`);
        }
        check.chain.push(`    source ${s.url} retrieved at ${s.fetchedAt}: raw ${s.rawSha256}, text ${s.textSha256}`);
      }
    }
  }
  return check;
}
