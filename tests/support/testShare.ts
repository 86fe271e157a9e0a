import { test } from "node:test";

/**
 * `npm test` runs the Node suites on two Node lines (the machine's and 24). The
 * process-heavy matrices (crash points, killed workers, restarted clusters) are
 * dealt out between the two lines instead of run on both: `ARIADNE_TEST_SHARE=k/n`
 * makes this process take the k-th of every n cases, so the lines together run
 * each case once. Unset, a process takes every case (a file run by hand, the
 * soak, which arms every crash point anyway).
 */
export interface TestShare {
  k: number;
  n: number;
}

export function testShare(raw = process.env.ARIADNE_TEST_SHARE): TestShare {
  if (!raw) return { k: 1, n: 1 };
  const m = /^(\d+)\/(\d+)$/.exec(raw);
  const k = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!m || n < 1 || k < 1 || k > n) throw new Error(`ARIADNE_TEST_SHARE must be k/n with 1 <= k <= n, got "${raw}"`);
  return { k, n };
}

/**
 * The cases this process takes: the k-th of every n, in order. `offset` rotates
 * the deal, so the lanes of one matrix (seeds) each give every line a part.
 */
export function shareOf<T>(cases: readonly T[], offset = 0, share: TestShare = testShare()): T[] {
  return cases.filter((_, i) => (i + offset) % share.n === share.k - 1);
}

/** Appended to a suite's title, so a report says which part of a matrix ran where. */
export function shareNote(share: TestShare = testShare()): string {
  return share.n === 1 ? "" : ` (share ${share.k}/${share.n}: the other Node line runs the rest)`;
}

/**
 * `register` (test or describe) narrowed to this process's share of the calls
 * made through it, in declaration order; `offset` rotates the deal, so a file of
 * one heavy suite can go to the second line. A suite not taken is not declared
 * at all: its before hooks (a recorded run, a cluster) do not run either.
 */
export function dealt<F extends (...args: never[]) => unknown>(register: F, offset = 0, share: TestShare = testShare()): F {
  let declared = 0;
  return ((...args: Parameters<F>) => ((declared++ + offset) % share.n === share.k - 1 ? register(...args) : Promise.resolve())) as F;
}

/** A `test` that registers only this process's share of the tests declared through it: for a file of a few heavy end-to-end tests. */
export function sharedTest(offset = 0, share: TestShare = testShare()): typeof test {
  return dealt(test, offset, share);
}
