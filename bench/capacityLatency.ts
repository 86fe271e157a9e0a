import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { CallOptions, Model, ModelRequest, ModelResponse } from "../models/index.ts";
import { sleep } from "../models/sleep.ts";

/** z of the 99th percentile of the standard normal. */
const Z99 = 2.3263478740408408;

/**
 * A seedable log-normal draw fixed by its median and 99th percentile (heavy
 * tailed: a model call's latency, a reply's token count). Box-Muller on a
 * xoroshiro128+ stream, so one seed gives the same draws on every machine.
 */
export function logNormal({ median, p99, seed }: { median: number; p99: number; seed: number }): () => number {
  if (!(median > 0) || !(p99 > median)) throw new Error(`logNormal: needs 0 < median < p99, got median ${median}, p99 ${p99}`);
  const rng = xoroshiro128plus(seed);
  const mu = Math.log(median);
  const sigma = Math.log(p99 / median) / Z99;
  return () => {
    const u = 1 - uniformFloat64(rng); // (0, 1]: log(u) is finite
    const v = uniformFloat64(rng);
    return Math.exp(mu + sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
  };
}

/**
 * Wraps a model so each call first waits a drawn latency, and marks when each
 * call starts and its reply returns: the runtime's own overhead per turn is
 * the time from one reply of an executor to its next call.
 */
export class DrawnLatencyModel implements Model {
  readonly provider: string;
  readonly scripted: boolean;
  /** Per executor turn: reply returned -> next call made (ms). */
  readonly overheadsMs: number[] = [];
  /** When each overhead sample was taken (performance.now(), ms), in the same order. */
  readonly overheadsAtMs: number[] = [];
  /** Latencies waited, ms (after the time scale). */
  readonly latenciesMs: number[] = [];
  /** Calls waiting on their latency now, and the most at once. */
  waiting = 0;
  peakWaiting = 0;
  private readonly returned = new Map<string, number>();

  constructor(
    private readonly inner: Model,
    private readonly drawLatencyMs: () => number,
    /** Which executor made the call; null for one whose gaps are not the runtime's (Main waits on its Children). */
    private readonly executorKey: (request: ModelRequest) => string | null,
  ) {
    this.provider = inner.provider;
    this.scripted = inner.scripted;
  }

  async complete(request: ModelRequest, options: CallOptions = {}): Promise<ModelResponse> {
    const key = this.executorKey(request);
    const last = key === null ? undefined : this.returned.get(key);
    if (last !== undefined) {
      const now = performance.now();
      this.overheadsMs.push(now - last);
      this.overheadsAtMs.push(now);
    }
    const latency = this.drawLatencyMs();
    this.latenciesMs.push(latency);
    this.waiting++;
    this.peakWaiting = Math.max(this.peakWaiting, this.waiting);
    try {
      await sleep(latency, options.signal);
    } finally {
      this.waiting--;
    }
    const response = await this.inner.complete(request, options);
    if (key !== null) this.returned.set(key, performance.now());
    return response;
  }
}

/** The model's latency: log-normal by median and p99 (real seconds), then multiplied by timeScale; seeded. */
export interface LatencySpec {
  medianMs: number;
  p99Ms: number;
  /** Every drawn latency is multiplied by this (0 < s <= 1), so a bench of minute-long tails runs in minutes. */
  timeScale: number;
  seed: number;
}

export const DEFAULT_LATENCY: LatencySpec = { medianMs: 5000, p99Ms: 60000, timeScale: 0.1, seed: 34 };

/** `--median-ms=`, `--p99-ms=`, `--time-scale=`, `--seed=` (each optional; DEFAULT_LATENCY otherwise). */
export function latencyOptions(argv: readonly string[]): LatencySpec {
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const number = (name: string, fallback: number, ok: (n: number) => boolean, what: string) => {
    const text = flag(name);
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isFinite(n) || !ok(n)) throw new Error(`capacity: --${name} must be ${what}, not "${text}"`);
    return n;
  };
  const medianMs = number("median-ms", DEFAULT_LATENCY.medianMs, (n) => n > 0, "a positive number of ms");
  const p99Ms = number("p99-ms", DEFAULT_LATENCY.p99Ms, (n) => n > medianMs, `a number of ms above the median (${medianMs})`);
  const timeScale = number("time-scale", DEFAULT_LATENCY.timeScale, (n) => n > 0 && n <= 1, "a number in (0, 1]");
  const seed = number("seed", DEFAULT_LATENCY.seed, Number.isInteger, "an integer");
  return { medianMs, p99Ms, timeScale, seed };
}

/** The flags latencyOptions reads back (a worker process gets its parent's spec, with its own seed). */
export function latencyFlags(spec: LatencySpec): string[] {
  return [`--median-ms=${spec.medianMs}`, `--p99-ms=${spec.p99Ms}`, `--time-scale=${spec.timeScale}`, `--seed=${spec.seed}`];
}

/** A seeded draw of scaled latencies (ms) for one process. */
export function drawLatency(spec: LatencySpec): () => number {
  const draw = logNormal({ median: spec.medianMs, p99: spec.p99Ms, seed: spec.seed });
  return () => draw() * spec.timeScale;
}

export function describeLatency(spec: LatencySpec): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
  return (
    `model latency log-normal, median ${s(spec.medianMs)}, p99 ${s(spec.p99Ms)} (seed ${spec.seed}), time scale ${spec.timeScale}: ` +
    `waits of median ${s(spec.medianMs * spec.timeScale)}, p99 ${s(spec.p99Ms * spec.timeScale)}`
  );
}
