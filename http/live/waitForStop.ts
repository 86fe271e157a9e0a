import { isConnectionError } from "../../core/connectionLoss.ts";
import { FINAL_EVENT_TYPES } from "../../events/index.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { FINAL_STATES, type RunView } from "../runs/runsPort.ts";
import type { EventHub } from "./eventHub.ts";

/** After these the run may have stopped: Main's end, the run's seal, a whole-run cancel of a queued run. */
const STOPPING = new Set([...FINAL_EVENT_TYPES, "run_sealed", "cancel_requested"]);

/** Looks after a stopping event: the row is finished just after the seal is appended, so a few looks close the gap. */
const FOLLOW_UP_MS = [20, 50, 100, 200, 400, 800, 1_000, 1_000, 1_000];
/**
 * After the seal nothing is left to append: the run's row only has to be marked finished, which a busy host can
 * take longer to write than the looks above; then one look a second until it is, or the time runs out.
 */
const AFTER_SEAL_MS = 1_000;
/** While the database is unreachable the run is read again this often (the hub catches up once it answers). */
const UNREACHABLE_MS = 1_000;

export interface WaitOptions {
  hub: EventHub;
  runId: string;
  /** Reads the run as the caller may see it (null: gone from the caller's view). */
  read: () => Promise<RunView | null>;
  /** How long to wait at most. */
  ms: number;
  /** The client went away, or the server is shutting down. */
  signal?: AbortSignal;
}

/**
 * Waits until a run stops (settled, failed, cancelled) or the time runs out,
 * then answers with the run as it is. No polling while the run works: the
 * wait listens to the run's events on the server's one store subscription
 * (the live event hub that SSE streams use) and reads the run again only after
 * an event that may stop it, a few times over a couple of seconds (the row is
 * finished just after the seal is recorded).
 */
export async function waitForStop(o: WaitOptions): Promise<RunView | null> {
  let wake: (() => void) | null = null;
  let stopping = false;
  let sealed = false;
  const attachment = o.hub.attach(o.runId, (event: RecordedEvent) => {
    if (!STOPPING.has(event.type)) return;
    stopping = true;
    if (event.type === "run_sealed") sealed = true;
    wake?.();
  });
  const deadline = Date.now() + o.ms;
  const onAbort = () => wake?.();
  o.signal?.addEventListener("abort", onAbort);
  // A read that fails for a lost connection keeps the run as last read and looks again soon; with
  // nothing read yet, the wait waits too, and its last look answers (or fails as the request would).
  let unreachable = false;
  const read = async (last: RunView | null | undefined, final: boolean): Promise<RunView | null | undefined> => {
    try {
      const run = await o.read();
      unreachable = false;
      return run;
    } catch (e) {
      if (!isConnectionError(e) || (final && last === undefined)) throw e;
      unreachable = true;
      return last;
    }
  };
  try {
    // Attached before this read: an event after it reaches the listener.
    let run = await read(undefined, false);
    let followUps = 0;
    while (run !== null && (run === undefined || !FINAL_STATES.includes(run.state)) && !o.signal?.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const delay = unreachable ? UNREACHABLE_MS : stopping ? (FOLLOW_UP_MS[followUps] ?? (sealed ? AFTER_SEAL_MS : undefined)) : undefined;
      if (stopping && delay === undefined) {
        // Looked enough after that event; back to waiting for the next one.
        stopping = false;
        followUps = 0;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, delay ?? left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
      if (delay !== undefined && !unreachable) followUps++;
      if (o.signal?.aborted) break;
      run = await read(run, Date.now() >= deadline);
    }
    return run === undefined ? await o.read() : run;
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
    attachment.detach();
  }
}
