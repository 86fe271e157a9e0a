import type { InFlight } from "./decide/index.ts";

/**
 * An executor's long effects (a model call, a tool run, waiting for Children)
 * and how a cancel reaches them: the effects under way, the AbortSignal they
 * are given (which also wakes every wait), and the count of waits the inbox
 * watch keeps an eye on. The runner trips it when a cancel request is folded.
 */
export class EffectWaits {
  private readonly abort = new AbortController();
  /** Effects under way in this process, so a cancel can name them. */
  readonly inFlight = new Map<string, InFlight>();
  /** What was in flight when the cancel tripped it. */
  inFlightAtCancel: InFlight[] = [];
  /** Long effects under way: a cancel from another process must reach them. */
  private waits = 0;
  /** The newest version of its stream the inbox watch heard of while the runner was busy between waits (Infinity: unknown). */
  private heard = 0;

  constructor(
    /** The version of the stream the runner has folded. */
    private readonly folded: () => number,
    /** Folds what other writers appended since. */
    private readonly catchUp: () => Promise<void>,
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get tripped(): boolean {
    return this.abort.signal.aborted;
  }

  /** True while a long effect is under way. */
  get waiting(): boolean {
    return this.waits > 0;
  }

  /** The inbox watch heard the stream reach `version` while the runner was busy: it catches up before its next long wait if it is behind. */
  noticed(version: number): void {
    this.heard = Math.max(this.heard, version);
  }

  /** Aborts every effect in flight (tools see the signal) and wakes any wait; once. */
  trip(reason: string): void {
    if (this.abort.signal.aborted) return;
    this.inFlightAtCancel = [...this.inFlight.values()];
    this.abort.abort(new Error(reason));
  }

  /** The effect's value, or null as soon as a cancel trips the runner. */
  untilInterrupted<T>(effect: Promise<T>): Promise<T | null> {
    return this.raceTrip(effect, () => null);
  }

  /** Runs a long effect, counted as a wait. */
  async during<T>(effect: Promise<T>): Promise<T> {
    if (this.heard > this.folded()) void this.catchUp().catch(() => {});
    this.heard = 0;
    this.waits++;
    try {
      return await effect;
    } finally {
      this.waits--;
    }
  }

  /** A model call or tool run that a cancel ends even if it ignores its AbortSignal; its outcome is then reported as unknown where it matters. */
  abortable<T>(effect: Promise<T>): Promise<T> {
    effect.catch(() => {});
    return this.during(
      this.raceTrip(effect, (): never => {
        throw this.abort.signal.reason ?? new Error("cancelled");
      }),
    );
  }

  /**
   * `effect`, or `tripped()` once a cancel trips the runner first. The abort
   * listener goes when either settles: a race against one promise that lives as
   * long as the executor (as this was) kept every turn's model reply and tool
   * output reachable from it until the executor ended.
   */
  private raceTrip<T, U>(effect: Promise<T>, tripped: () => U): Promise<T | U> {
    const signal = this.abort.signal;
    if (signal.aborted) return Promise.resolve().then(tripped);
    return new Promise<T | U>((resolve, reject) => {
      const onTrip = () => {
        try {
          resolve(tripped());
        } catch (error) {
          reject(error);
        }
      };
      signal.addEventListener("abort", onTrip, { once: true });
      effect.then(
        (value) => {
          signal.removeEventListener("abort", onTrip);
          resolve(value);
        },
        (error) => {
          signal.removeEventListener("abort", onTrip);
          reject(error);
        },
      );
    });
  }
}
