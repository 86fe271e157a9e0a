import type { ModelSettings } from "../models/index.ts";
// Leaf modules, not the rooms' indexes: every command reads the configuration, and most never host a run.
import type { HostSettings } from "../runs/runtimeFactory.ts";
import { DEFAULT_LEASE_MS } from "../runs/workerOptionProblem.ts";
import { openblasEnv } from "../tools/compute/computeOptions.ts";

/**
 * The process's configuration, read from the environment once, here and
 * nowhere else (tests/core/configReadOnce.test.ts checks): the command line
 * and the server pass these values down, typed.
 */
export interface AriadneConfig {
  /** DATABASE_URL; undefined means the embedded PGlite store. */
  databaseUrl: string | undefined;
  /** ARIADNE_DEBUG: print stack traces. */
  debug: boolean;
  /** ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ARIADNE_MODEL_*: the configured model, if any. */
  model: ModelSettings;
  /** ARIADNE_LEASE_MS: lease time to live for runs this process hosts. */
  leaseMs: number;
  /** ARIADNE_SCRIPTED_LATENCY_MS: delay of each scripted reply (demos, interrupt tests). */
  scriptedLatencyMs: number | undefined;
  /** ARIADNE_CRASH_AT: a crash point to arm (fault tests only). */
  crashAt: string | undefined;
  /** ARIADNE_SIGNING_KEY, ARIADNE_SIGNING_PUBLIC_KEY: the seal's key files (cli/sealKeys.ts). */
  sealKeys: SealKeySettings;
  /** OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE: passed into compute's sandbox (some OpenBLAS builds need them to compute correctly). */
  openblas: Record<string, string>;
  /** ARIADNE_WORKSPACES: where executors' working folders live; unset means beside the store (runs/workspaceRootFor.ts). */
  workspaceRoot: string | undefined;
  /** NO_COLOR (set and not empty): no colour in the live view; TERM=dumb: no live view (no cursor movement). */
  terminal: { noColor: boolean; dumb: boolean };
  /** OpenTelemetry (cli/installTelemetry.ts). */
  telemetry: TelemetrySettings;
  /** ARIADNE_CORPUS_DIR: the shared corpus eval cases read; unset means ../shared/corpus beside the repository. */
  corpusDir: string | undefined;
  /** ARIADNE_MODEL=baseline: questions are answered by the scripted baseline researcher, not the configured model (as --model baseline). */
  researcher: string | undefined;
}

export interface TelemetrySettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: set, the SDK and the OTLP/HTTP exporters are installed; unset, nothing is. */
  otlpEndpoint: string | undefined;
  /** OTEL_SERVICE_NAME; default "ariadne". */
  serviceName: string;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: spans carry messages, tool arguments and results. */
  captureContent: boolean;
  /** TRACEPARENT: the trace a run submitted from the command line joins. */
  traceparent: string | undefined;
  /** Running under Deno: its built-in OpenTelemetry (OTEL_DENO=true) serves the API; no SDK is installed. */
  deno: boolean;
}

export interface SealKeySettings {
  ARIADNE_SIGNING_KEY?: string;
  ARIADNE_SIGNING_PUBLIC_KEY?: string;
}

type Environment = Record<string, string | undefined>;

/** Reads the configuration from an environment (the process's by default). Empty values count as unset. */
export function readConfig(env: Environment = process.env): AriadneConfig {
  const set = (name: string) => (env[name] === undefined || env[name] === "" ? undefined : env[name]);
  return {
    databaseUrl: set("DATABASE_URL"),
    debug: !!set("ARIADNE_DEBUG"),
    model: {
      ANTHROPIC_API_KEY: set("ANTHROPIC_API_KEY"),
      ANTHROPIC_BASE_URL: set("ANTHROPIC_BASE_URL"),
      ARIADNE_MODEL_MAIN: set("ARIADNE_MODEL_MAIN"),
      ARIADNE_MODEL_CHILD: set("ARIADNE_MODEL_CHILD"),
      ARIADNE_MODEL_REVIEWER: set("ARIADNE_MODEL_REVIEWER"),
      ARIADNE_MODEL_CHECKER: set("ARIADNE_MODEL_CHECKER"),
      ARIADNE_MODEL_IDLE_TIMEOUT_MS: set("ARIADNE_MODEL_IDLE_TIMEOUT_MS"),
    },
    leaseMs: Number(set("ARIADNE_LEASE_MS") ?? DEFAULT_LEASE_MS) || DEFAULT_LEASE_MS,
    scriptedLatencyMs: milliseconds(set("ARIADNE_SCRIPTED_LATENCY_MS")),
    crashAt: set("ARIADNE_CRASH_AT"),
    sealKeys: { ARIADNE_SIGNING_KEY: set("ARIADNE_SIGNING_KEY"), ARIADNE_SIGNING_PUBLIC_KEY: set("ARIADNE_SIGNING_PUBLIC_KEY") },
    openblas: openblasEnv(env),
    workspaceRoot: set("ARIADNE_WORKSPACES"),
    terminal: { noColor: !!set("NO_COLOR"), dumb: set("TERM") === "dumb" },
    telemetry: {
      otlpEndpoint: set("OTEL_EXPORTER_OTLP_ENDPOINT") ?? set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
      serviceName: set("OTEL_SERVICE_NAME") ?? "ariadne",
      captureContent: set("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")?.toLowerCase() === "true",
      traceparent: set("TRACEPARENT"),
      deno: "Deno" in globalThis && set("OTEL_DENO")?.toLowerCase() === "true",
    },
    corpusDir: set("ARIADNE_CORPUS_DIR"),
    researcher: set("ARIADNE_MODEL"),
  };
}

/** What a run's host needs of the configuration (runs/runtimeFactory.ts). */
export const hostSettings = (config: AriadneConfig): HostSettings => ({
  model: config.model,
  scriptedLatencyMs: config.scriptedLatencyMs,
  compute: { passEnv: config.openblas },
  workspaceRoot: config.workspaceRoot,
  corpusDir: config.corpusDir,
});

/** A model is configured: a question can be asked. */
export const modelConfigured = (config: AriadneConfig): boolean => !!config.model.ANTHROPIC_API_KEY;

/** Where the store is: DATABASE_URL, else the embedded store in --data-dir. */
export const storeOptionsOf = (config: AriadneConfig, dataDir: unknown) => ({
  url: config.databaseUrl,
  dataDir: typeof dataDir === "string" ? dataDir : undefined,
});

/** A delay in milliseconds; anything that is not a positive number means none (as before this file read it). */
const milliseconds = (raw: string | undefined): number | undefined => Number(raw ?? 0) || undefined;
