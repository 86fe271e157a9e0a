import type { ModelSettings } from "../models/index.ts";
// Leaf modules, not the rooms' indexes: every command reads the configuration, and most never host a run.
import type { HostSettings } from "../runs/host/runtimeFactory.ts";
import { type ComputeLimits, openblasEnv } from "../tools/compute/computeOptions.ts";
import { type SearchChoice, type SearchSettings, chooseSearchProvider } from "../tools/web/searchProvider.ts";
import { COMPUTE_MB, COMPUTE_OPEN_FILES, COMPUTE_PROCESSES, COMPUTE_TIME_MS, COMPUTE_WORKSPACE_FILES, DATABASE_WAIT_MS, DEFAULT_LEASE_MS, FETCH_INTERVAL_MS, LEASE_MS, MODEL_IDLE_TIMEOUT_MS, SCRIPTED_LATENCY_MS, SERVE_CAP } from "./bounds.ts";
import { DEFAULT_DATABASE_WAIT_MS } from "../core/connectionLoss.ts";
import { type Flag, checkedNumber } from "./flags.ts";

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
  /** ARIADNE_COMPUTE_TIME_MS, _MEMORY_MB, _PROCESSES, _WORKSPACE_MB, _WORKSPACE_FILES, _TMP_MB, _TMP_FILES, _OPEN_FILES: compute's limits (unset: tools/compute's defaults). */
  computeLimits: ComputeLimits;
  /** ARIADNE_WORKSPACES: where executors' working folders live; unset means beside the store (runs/host/workspaceRootFor.ts). */
  workspaceRoot: string | undefined;
  /** NO_COLOR (set and not empty): no colour in the live view; TERM=dumb: no live view (no cursor movement). */
  terminal: { noColor: boolean; dumb: boolean };
  /** OpenTelemetry (cli/installTelemetry.ts). */
  telemetry: TelemetrySettings;
  /** ARIADNE_CORPUS_DIR: the corpus offline scenarios and eval cases read; unset means the repository's corpus/. */
  corpusDir: string | undefined;
  /** ARIADNE_MODEL=baseline: questions are answered by the scripted baseline researcher, not the configured model (as --model baseline). */
  researcher: string | undefined;
  /** ARIADNE_SEARCH, ARIADNE_SEARXNG_URL, BRAVE_SEARCH_API_KEY, ARIADNE_BRAVE_URL, ARIADNE_ANTHROPIC_SEARCH_*: where web_search looks (searchChoice picks one). */
  search: SearchSettings;
  /** How the web tools reach the web. */
  web: WebSettings;
  /** ARIADNE_CORS_ORIGINS, ARIADNE_TRUSTED_PROXIES: comma-separated; `serve --cors-origin` / `--trusted-proxy` replace them. */
  http: { corsOrigins: string[]; trustedProxies: string[] };
  /** ARIADNE_DATABASE_WAIT_MS: how long a command waits for an unreachable PostgreSQL before giving up (default 60 s). */
  databaseWaitMs: number;
  /** ARIADNE_STREAMS_PER_KEY, ARIADNE_STREAMS_PER_TENANT, ARIADNE_QUEUED_PER_KEY, ARIADNE_QUEUED_PER_TENANT: `serve`'s caps (its flags win). */
  serveCaps: { streamsPerKey?: number; streamsPerTenant?: number; queuedRunsPerKey?: number; queuedRunsPerTenant?: number };
}

export interface WebSettings {
  /** ARIADNE_CONTACT: a URL or mailto: sent in the User-Agent, so a site's operator can reach whoever runs this host. */
  contact: string | undefined;
  /** ARIADNE_ALLOW_LOOPBACK=1: web_fetch and the search provider may reach this machine (a SearXNG on localhost, tests). */
  allowLoopback: boolean;
  /** ARIADNE_ALLOW_PRIVATE=1: and private networks (an intranet SearXNG). */
  allowPrivate: boolean;
  /** ARIADNE_FETCH_INTERVAL_MS: the least time between two requests to one host (default 1000). */
  hostIntervalMs: number | undefined;
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

const commaList = (value: string | undefined): string[] => (value ?? "").split(",").map((v) => v.trim()).filter(Boolean);

/**
 * The numeric variables, with the bounds of the flags they stand for (cli/bounds.ts): a value outside them,
 * or not a number, is refused as a flag would be (one line naming the variable and the bound, exit 2).
 */
export const NUMERIC_ENV: readonly (Pick<Flag, "type" | "min" | "max" | "unit"> & { name: string; help: string })[] = [
  { name: "ARIADNE_LEASE_MS", ...LEASE_MS, help: "lease time to live of the runs this process hosts (`worker --lease-ms` wins)" },
  { name: "ARIADNE_MODEL_IDLE_TIMEOUT_MS", ...MODEL_IDLE_TIMEOUT_MS, help: "silence on a model stream that counts as dead (`run --model-idle-timeout` wins)" },
  { name: "ARIADNE_SCRIPTED_LATENCY_MS", ...SCRIPTED_LATENCY_MS, help: "delay of each scripted reply" },
  { name: "ARIADNE_DATABASE_WAIT_MS", ...DATABASE_WAIT_MS, help: "how long a command waits for an unreachable PostgreSQL before giving up (default 60000; a worker or server waits at start however long)" },
  { name: "ARIADNE_STREAMS_PER_KEY", ...SERVE_CAP, help: "live event streams one API key may hold at once (default 20; `serve --streams-per-key` wins)" },
  { name: "ARIADNE_STREAMS_PER_TENANT", ...SERVE_CAP, help: "live event streams one tenant may hold at once (default 100; `serve --streams-per-tenant` wins)" },
  { name: "ARIADNE_QUEUED_PER_KEY", ...SERVE_CAP, help: "queued runs one API key may have (default 50; `serve --queued-per-key` wins)" },
  { name: "ARIADNE_QUEUED_PER_TENANT", ...SERVE_CAP, help: "queued runs one tenant may have (default 200; `serve --queued-per-tenant` wins)" },
  { name: "ARIADNE_FETCH_INTERVAL_MS", ...FETCH_INTERVAL_MS, help: "the least time between the starts of two requests to one web host (default 1000)" },
  { name: "ARIADNE_COMPUTE_TIME_MS", ...COMPUTE_TIME_MS, help: "compute's wall-clock limit per call (default 60000)" },
  { name: "ARIADNE_COMPUTE_MEMORY_MB", ...COMPUTE_MB, help: "compute's memory for the whole run, all its processes together (default 1024)" },
  { name: "ARIADNE_COMPUTE_PROCESSES", ...COMPUTE_PROCESSES, help: "compute's processes and threads at once (default 64)" },
  { name: "ARIADNE_COMPUTE_WORKSPACE_MB", ...COMPUTE_MB, help: "what one compute call may write to the workspace, and its largest file (default 256)" },
  { name: "ARIADNE_COMPUTE_WORKSPACE_FILES", ...COMPUTE_WORKSPACE_FILES, help: "files and folders one compute call may make in the workspace (default 10000)" },
  { name: "ARIADNE_COMPUTE_TMP_MB", ...COMPUTE_MB, help: "the size of compute's private /tmp, held in memory (default 256)" },
  { name: "ARIADNE_COMPUTE_TMP_FILES", ...COMPUTE_WORKSPACE_FILES, help: "files and folders one compute call may make in its private /tmp (default 10000)" },
  { name: "ARIADNE_COMPUTE_OPEN_FILES", ...COMPUTE_OPEN_FILES, help: "compute's open files per process (default 256)" },
];

/**
 * Reads the configuration from an environment (the process's by default). Empty values count as unset.
 * A numeric variable out of its bounds throws a UsageError of one line naming it.
 */
export function readConfig(env: Environment = process.env): AriadneConfig {
  const set = (name: string) => (env[name] === undefined || env[name] === "" ? undefined : env[name]);
  const numbers = new Map(NUMERIC_ENV.map((v) => [v.name, set(v.name) === undefined ? undefined : checkedNumber(v.name, set(v.name)!, v)]));
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
    leaseMs: numbers.get("ARIADNE_LEASE_MS") ?? DEFAULT_LEASE_MS,
    // 0 means no delay.
    scriptedLatencyMs: numbers.get("ARIADNE_SCRIPTED_LATENCY_MS") || undefined,
    crashAt: set("ARIADNE_CRASH_AT"),
    sealKeys: { ARIADNE_SIGNING_KEY: set("ARIADNE_SIGNING_KEY"), ARIADNE_SIGNING_PUBLIC_KEY: set("ARIADNE_SIGNING_PUBLIC_KEY") },
    openblas: openblasEnv(env),
    computeLimits: definedOnly({
      timeLimitMs: numbers.get("ARIADNE_COMPUTE_TIME_MS"),
      memoryLimitMb: numbers.get("ARIADNE_COMPUTE_MEMORY_MB"),
      maxProcesses: numbers.get("ARIADNE_COMPUTE_PROCESSES"),
      maxWorkspaceWriteMb: numbers.get("ARIADNE_COMPUTE_WORKSPACE_MB"),
      maxWorkspaceFiles: numbers.get("ARIADNE_COMPUTE_WORKSPACE_FILES"),
      maxTmpMb: numbers.get("ARIADNE_COMPUTE_TMP_MB"),
      maxTmpFiles: numbers.get("ARIADNE_COMPUTE_TMP_FILES"),
      maxOpenFiles: numbers.get("ARIADNE_COMPUTE_OPEN_FILES"),
    }),
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
    search: {
      ARIADNE_SEARCH: set("ARIADNE_SEARCH"),
      ARIADNE_SEARXNG_URL: set("ARIADNE_SEARXNG_URL"),
      BRAVE_SEARCH_API_KEY: set("BRAVE_SEARCH_API_KEY"),
      ARIADNE_BRAVE_URL: set("ARIADNE_BRAVE_URL"),
      ARIADNE_ANTHROPIC_SEARCH_MAX_USES: set("ARIADNE_ANTHROPIC_SEARCH_MAX_USES"),
      ARIADNE_ANTHROPIC_SEARCH_ALLOWED_DOMAINS: set("ARIADNE_ANTHROPIC_SEARCH_ALLOWED_DOMAINS"),
      ARIADNE_ANTHROPIC_SEARCH_BLOCKED_DOMAINS: set("ARIADNE_ANTHROPIC_SEARCH_BLOCKED_DOMAINS"),
      ARIADNE_ANTHROPIC_SEARCH_LOCATION: set("ARIADNE_ANTHROPIC_SEARCH_LOCATION"),
      anthropicKeySet: !!set("ANTHROPIC_API_KEY"),
    },
    web: {
      contact: set("ARIADNE_CONTACT"),
      allowLoopback: flag(set("ARIADNE_ALLOW_LOOPBACK")),
      allowPrivate: flag(set("ARIADNE_ALLOW_PRIVATE")),
      hostIntervalMs: numbers.get("ARIADNE_FETCH_INTERVAL_MS"),
    },
    http: { corsOrigins: commaList(set("ARIADNE_CORS_ORIGINS")), trustedProxies: commaList(set("ARIADNE_TRUSTED_PROXIES")) },
    databaseWaitMs: numbers.get("ARIADNE_DATABASE_WAIT_MS") ?? DEFAULT_DATABASE_WAIT_MS,
    serveCaps: {
      streamsPerKey: numbers.get("ARIADNE_STREAMS_PER_KEY"),
      streamsPerTenant: numbers.get("ARIADNE_STREAMS_PER_TENANT"),
      queuedRunsPerKey: numbers.get("ARIADNE_QUEUED_PER_KEY"),
      queuedRunsPerTenant: numbers.get("ARIADNE_QUEUED_PER_TENANT"),
    },
  };
}

/** The search provider this host uses, chosen once from the configuration (tools/web/searchProvider.ts). */
export const searchChoice = (config: AriadneConfig): SearchChoice => chooseSearchProvider(config.search);

/** The fields that are set: an unset limit is left out, so the tool's default applies. */
const definedOnly = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

const flag = (raw: string | undefined): boolean => raw !== undefined && !/^(0|false|no)$/i.test(raw);

/** What a run's host needs of the configuration (runs/host/runtimeFactory.ts). */
export const hostSettings = (config: AriadneConfig): HostSettings => ({
  model: config.model,
  scriptedLatencyMs: config.scriptedLatencyMs,
  compute: { passEnv: config.openblas, ...config.computeLimits },
  workspaceRoot: config.workspaceRoot,
  search: config.search,
  web: config.web,
  corpusDir: config.corpusDir,
});

/** A model is configured: a question can be asked. */
export const modelConfigured = (config: AriadneConfig): boolean => !!config.model.ANTHROPIC_API_KEY;

/** Where the store is: DATABASE_URL, else the embedded store in --data-dir. */
export const storeOptionsOf = (config: AriadneConfig, dataDir: unknown) => ({
  url: config.databaseUrl,
  dataDir: typeof dataDir === "string" ? dataDir : undefined,
  wait: { ms: config.databaseWaitMs },
});
