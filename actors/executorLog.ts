import { randomId } from "../core/clock.ts";
import { type Draft, type EventStore, type NewEvent, type RecordedEvent, appendWithRetry } from "../events/index.ts";
import { checkedAhead } from "../events/validateEvents.ts";
import { ExecutorActor, type ExecutorActorOptions } from "./fold/executorActor.ts";
import { type ExecutorStatus, type Folded, admitted, foldEvent } from "./fold/executorMachine.ts";
import type { ExecutorState } from "./fold/executorState.ts";
import { sortDrafts, withHeldOutcome } from "./heldCalls.ts";

/** Appends retried after a version conflict before giving up (each retry first folds what the other writer wrote). */
const MAX_CONFLICTS = 50;

/**
 * One executor's side of the log: its live fold, its one write queue, and the
 * read-only calls it holds (their intents and outcomes, heldCalls.ts). Appends go through the queue one at a time and are folded
 * once written; a version conflict folds what the other writer wrote (an inbox
 * fact) first. `absorbed` is told of every event folded, its own or another's.
 */
export class ExecutorLog {
  /** The live executor: an XState actor of the executor machine, sent each event once it is recorded. */
  readonly fold: ExecutorActor;
  /** The write queue's tail: settles with nothing, so it keeps no append's events (the last append's would stay reachable while the executor waits). */
  private writes: Promise<void> = Promise.resolve();
  /**
   * Intents and outcomes of read-only calls, folded ahead and appended first
   * in this executor's next append, whatever it records (an intent whose
   * outcome came first as one row with it): a call that may run again after a
   * crash needs no commit of its own. Each carries the id it will be stored with.
   */
  private held: readonly NewEvent[] = [];
  /** The held events the append under way is sending: an outcome is no longer merged into an intent among them. */
  private sending: readonly NewEvent[] = [];
  /** The fold with the held outcomes applied, for the snapshot and held list it was made from. */
  private ahead: { from: Folded; held: readonly NewEvent[]; folded: Folded } | null = null;

  constructor(
    private readonly store: EventStore,
    events: readonly RecordedEvent[],
    options: Pick<ExecutorActorOptions, "inspect">,
    private readonly absorbed: (events: readonly RecordedEvent[]) => void,
  ) {
    this.fold = new ExecutorActor(events, options);
  }

  /** The folded state, with any held outcomes applied (as it will be once they are appended). */
  get state(): ExecutorState {
    return this.holding ? admitted(this.foldedAhead()) : this.fold.state;
  }

  /** The machine's status, held outcomes applied. */
  get status(): ExecutorStatus {
    return this.holding ? this.foldedAhead().status : this.fold.status;
  }

  /** Outcomes are held (a final executor holds none: what it held was never recorded, as after a crash). */
  private get holding(): boolean {
    return this.held.length > 0 && !this.fold.done;
  }

  /** The live fold with the held outcomes folded on, through the one fold. */
  private foldedAhead(): Folded {
    const from = this.fold.folded;
    if (this.ahead?.from === from && this.ahead.held === this.held) return this.ahead.folded;
    let folded = from;
    let version = this.fold.state.version;
    for (const e of this.held) folded = foldEvent(folded, heldAsRecorded(e, this.fold.state.streamId, ++version));
    this.ahead = { from, held: this.held, folded };
    return folded;
  }

  /**
   * Holds the outcome of a read-only call: folded now, appended with this
   * executor's next append, as one row with its intent when that is still
   * held (heldCalls.ts). Invalid drafts throw here, as an append would.
   */
  hold(drafts: readonly Draft[]): void {
    const s = this.state;
    let held = this.held;
    // Held as stored (the fold sees the payload its append will write), and validated once.
    for (const outcome of this.asHeld(s, drafts, s.lastEventId)) held = withHeldOutcome(held, outcome, this.sending);
    this.held = held;
  }

  /** Drafts as held events: each named now with the store's kind of id (a UUID), whatever ids this runtime gives executors. */
  private asHeld(s: ExecutorState, drafts: readonly Draft[], cause: string | null): NewEvent[] {
    return drafts.map((d) => ({ ...asEvent(s, d, cause), eventId: randomId() }) as NewEvent);
  }

  /** Another writer appended to this executor's stream: fold it now, so a cancel request aborts what is in flight at once. */
  poke(): Promise<void> {
    const next = this.writes.then(() => this.catchUp());
    this.writes = next.then(settled, settled);
    return next;
  }

  /**
   * Appends through the one write queue, held outcomes first, then folds what was written. On a
   * version conflict it folds what the other writer wrote, then records on top ("retry": what it
   * records happened) or writes nothing ("redecide": null, the caller decides again).
   */
  append(drafts: readonly Draft[], onConflict: "retry" | "redecide"): Promise<RecordedEvent[] | null> {
    const next = this.writes.then(async () => {
      const { now, later, joining } = sortDrafts(this.held, drafts);
      if (joining.length) this.hold(joining);
      else if (now.length === 0) {
        // Nothing else to append (a turn's calls decided again after a rebuild, all read-only): no round trip.
        this.hold(later);
        return [];
      }
      let sent: readonly NewEvent[] = [];
      let appended;
      try {
        appended = await appendWithRetry(
          this.store,
          this.state.streamId,
          async (attempt) => {
            // Someone else wrote first (an inbox fact): fold it, then record on top what happened
            // (an effect's result), or, for a pure decision, write nothing and decide again.
            if (attempt > 1) {
              await this.catchUp();
              if (onConflict === "redecide") return null;
            }
            const s = this.fold.state;
            // Held outcomes go first, as if each had been appended when it was held.
            sent = this.sending = this.held;
            const after = sent.at(-1)?.eventId ?? s.lastEventId;
            const events = now.map((d) => asEvent(s, d, after));
            return { expectedVersion: s.version, events: [...sent, ...events] };
          },
          { maxAttempts: MAX_CONFLICTS + 1 },
        );
      } finally {
        this.sending = [];
      }
      if (appended) {
        this.held = this.held.filter((e) => !sent.includes(e));
        this.absorb(appended.events);
        if (later.length) this.held = [...checkedAhead(this.asHeld(this.fold.state, later, appended.events.at(-1)!.eventId)), ...this.held];
      }
      // What was asked for: the held events sent first are not the caller's.
      return appended?.events.slice(sent.length) ?? null;
    });
    this.writes = next.then(settled, settled);
    return next;
  }

  private async catchUp(): Promise<void> {
    if (this.fold.done) return;
    const s = this.fold.state;
    this.absorb(await this.store.readStream(s.streamId, { fromVersion: s.version + 1 }));
  }

  private absorb(events: readonly RecordedEvent[]): void {
    for (const e of events) this.fold.apply(e);
    this.absorbed(events);
  }
}

const settled = (): void => {};

/** A draft as this executor appends it: its run and executor, caused by `cause` unless it names its own. */
export function asEvent(s: ExecutorState, d: Draft, cause: string | null): NewEvent {
  return { type: d.type, data: d.data, metadata: { runId: s.runId, executorId: s.executorId, causationId: d.causationId ?? cause } } as NewEvent;
}

/** A held event as the fold sees it: its place in the stream is the one its append will give it. */
function heldAsRecorded(e: NewEvent, streamId: string, streamVersion: number): RecordedEvent {
  const m = e.metadata;
  return {
    type: e.type,
    data: e.data,
    schemaVersion: 0,
    eventId: e.eventId!,
    streamId,
    streamVersion,
    globalPosition: Number.NaN,
    recordedAt: new Date(),
    metadata: { runId: m.runId, executorId: m.executorId, causationId: m.causationId ?? null, correlationId: m.correlationId ?? m.runId },
    prevHash: "",
    hash: "",
  } as RecordedEvent;
}
