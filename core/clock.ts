/** Time and identity are passed in, so tests and replays are deterministic. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; for tests. */
export function manualClock(start = new Date("2026-01-01T00:00:00.000Z")) {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
  };
}

export type IdGenerator = () => string;

export const randomId: IdGenerator = () => crypto.randomUUID();
