import { isAriadneError } from "../core/errors.ts";
import { CAP_FLAG_OPTIONS, askedCapsFromFlags, capFlagsUsage } from "./capFlags.ts";
import { isDirectory } from "./isDirectory.ts";
import { sealPublicKey, sealSigningKey } from "./sealKeys.ts";
import { type AriadneConfig, hostSettings, readConfig } from "./config.ts";
import { armCrashPoint } from "../core/crashPoint.ts";
import { scenarioNames } from "../scenarios/index.ts";
import { parseUsage } from "./usage.ts";
import { type LiveTerminal, liveTerminalOf } from "./live/liveTerminal.ts";
export { forcedExitCode } from "./exitNow.ts";

// Each command's module is imported when that command runs: `status` or `verify` then loads the store
// and no more (not the runtime, the tools' HTML and PDF readers, the model SDK or the HTTP app).
type LifecycleCommand = (argv: string[], out: (line: string) => void, config: AriadneConfig, terminal: LiveTerminal | null) => Promise<number>;

/** Commands that parse their own arguments (each has --help). */
const RUN_LIFECYCLE: Record<string, () => Promise<LifecycleCommand>> = {
  submit: async () => (await import("./submitCommand.ts")).submitCommand,
  worker: async () => (await import("./workerCommand.ts")).workerCommand,
  resume: async () => (await import("./resumeCommand.ts")).resumeCommand,
  status: async () => (await import("./statusCommand.ts")).statusCommand,
  cancel: async () => (await import("./cancelCommand.ts")).cancelCommand,
  tools: async () => (await import("./toolsCommand.ts")).toolsCommand,
  eval: async () => (await import("./evalCommand.ts")).evalCommand,
};

const USAGE = `usage: ariadne <command> [options]

commands:
  migrate            apply pending migrations to DATABASE_URL, or to the embedded store
  run [QUESTION]     a research run with the configured model (ANTHROPIC_API_KEY); with no QUESTION,
                     or --scenario NAME, a scripted offline scenario; on a terminal its executor tree is
                     drawn in place as it works (NO_COLOR: no colours)
  show RUN           a recorded run: executor tree, handoffs, answer
  transcript EXECUTOR_ID
                     an executor's requests and responses rebuilt from the log, digests checked
  verify RUN         check every stream of a run, the links between them and its seal (--root HASH, --key PUBKEY_FILE)
  verify DIR         check an exported bundle offline: signature (--key PUB), files, chains, seal, blobs, derived files
                     [--claim C] [--refetch] [--json]; no database
  export RUN DIR     write a settled run as a bundle signed with the seal key (ARIADNE_SIGNING_KEY)
  audit RUN [CLAIM_ID]
                     each claim of the answer followed to its finding, model turn, quotes, tool calls and sources
  report RUN         what a run spent, per run and per executor: turns, tool calls, tokens, cost, time,
                     fetches, what each limit left, Main's context against its Children's [--json]
  check RUN          the checker: numbers against cited sources, sources read again, advice language
                     [--out FILE] (default check-report.md) [--json]; exit 1 when something is flagged
  submit [QUESTION]  record a run for workers and print its id
  worker             execute submitted runs; take over runs whose owner died
  resume RUN         finish a crashed or interrupted run in this process
  status RUN         a run's state and executor tree (--json for scripts; --follow: until it stops,
                     drawn in place on a terminal)
  cancel RUN         cancel a run, or one executor with --executor ID
  serve              the HTTP API [--port 8787] [--host 127.0.0.1] [--no-workers] [--concurrency N] [--no-auth]
  keys create        an API key: --role client|auditor|admin --tenant T (printed once)
  keys revoke ID     revoke an API key
  tools list         the tools runs are hosted with (name, effect, description)
  tools run TOOL --input JSON [--corpus DIR] [--allow-loopback] [--json]
                     run one tool once outside any run (no model, no database); prints its result as
                     the model would see it and the sources it recorded
  eval [SUITE]       run a suite of cases and score each answer (coverage, support, citations, numbers,
                     advice, Main's context, cost, waste) [--baseline FILE] [--json] [--lane scripted|replay|live]
                     [--record] [--trials K]; no SUITE: the shipped offline suite; last line "N passed, N failed"
  keys signing create [--out DIR]
                     the Ed25519 key pair run seals are signed with (default .ariadne/keys)

options:
  --data-dir DIR     embedded store directory when DATABASE_URL is unset (default .ariadne/data)
  --json             print a machine-readable result
  --reviewer MODE    off (default), shadow (reviews spend the budget, Main never sees them) or advisory
                     (a review's findings reach Main once, marked as advice); never approval or veto
  --scenario NAME    run a scripted offline scenario instead of a question: ${scenarioNames().join(", ")}
                     (the default with no question)
  --model baseline   run: the question is answered by the baseline researcher, a scripted policy (no language model,
                     no API key) that searches the corpus (ARIADNE_CORPUS_DIR), fetches the top results and quotes
                     them; labelled scripted, its tokens estimated. --model configured (default): the configured model
  --single-agent     run: one executor with every tool but delegate and no Children, citing its own tool
                     results (the control for what isolation buys; recorded with the run); not with --reviewer,
                     Child caps or delegation caps
  --model-idle-timeout SECONDS
                     silence on a model stream that counts as a dead connection (default 60)
  -h, --help         show this help

run caps (lower than the configured maximum, never higher):
${capFlagsUsage()}

environment:
  DATABASE_URL       postgres://user@host:port/db; unset means the embedded PGlite store
  ARIADNE_DEBUG=1    print stack traces on errors
  ARIADNE_CORPUS_DIR the shared corpus eval cases and the baseline researcher read (default ../shared/corpus beside
                     the repository)
  ARIADNE_MODEL      baseline: as --model baseline (the flag wins)
  ARIADNE_MODEL_IDLE_TIMEOUT_MS
                     as --model-idle-timeout, in milliseconds (the flag wins)`;

/** Each command's own --help, from its module. */
const COMMAND_USAGE: Record<string, () => Promise<string>> = {
  show: async () => (await import("./showRun.ts")).SHOW_USAGE,
  transcript: async () => (await import("./showTranscript.ts")).TRANSCRIPT_USAGE,
  audit: async () => (await import("./auditCommand.ts")).AUDIT_USAGE,
  check: async () => (await import("./checkCommand.ts")).CHECK_USAGE,
  report: async () => (await import("./reportCommand.ts")).REPORT_USAGE,
};

/**
 * The CLI's entry: returns the exit code instead of exiting, so it can be tested in-process.
 * `terminal`: where live views draw (run, status --follow); by default stdout when it is a terminal
 * and the output goes there, else none (plain lines).
 */
export async function main(
  argv: string[],
  out: (line: string) => void = console.log,
  config: AriadneConfig = readConfig(),
  terminal: LiveTerminal | null = out === console.log ? liveTerminalOf(process.stdout, config) : null,
): Promise<number> {
  armCrashPoint(config.crashAt);
  const reportError = (e: unknown) => report(e, config.debug);
  const lifecycle = RUN_LIFECYCLE[argv[0]];
  if (lifecycle) return lifecycle().then((command) => command(argv.slice(1), out, config, terminal)).catch(reportError);
  let parsed;
  try {
    parsed = parseUsage(
      argv,
      {
        "data-dir": { type: "string" },
        json: { type: "boolean", default: false },
        "model-idle-timeout": { type: "string" },
        model: { type: "string" },
        root: { type: "string" },
        reviewer: { type: "string" },
        scenario: { type: "string" },
        "single-agent": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
        ...CAP_FLAG_OPTIONS,
        port: { type: "string", default: "8787" },
        host: { type: "string", default: "127.0.0.1" },
        "no-workers": { type: "boolean", default: false },
        concurrency: { type: "string" },
        "no-auth": { type: "boolean", default: false },
        role: { type: "string" },
        tenant: { type: "string" },
        out: { type: "string" },
        key: { type: "string" },
        claim: { type: "string" },
        refetch: { type: "boolean", default: false },
      },
      argv.find((a) => !a.startsWith("-")) ?? null,
    );
  } catch (e) {
    return reportError(e);
  }
  const reviewer = parsed.values.reviewer ?? "off";
  if (reviewer !== "off" && reviewer !== "shadow" && reviewer !== "advisory") {
    console.error(`ariadne: --reviewer takes off, shadow or advisory, got "${reviewer}"`);
    return 2;
  }
  // --model baseline (or ARIADNE_MODEL=baseline; the flag wins): the scripted baseline researcher answers instead of the configured model.
  const researcher = parsed.values.model ?? config.researcher ?? "configured";
  if (researcher !== "configured" && researcher !== "baseline") {
    console.error(`ariadne: ${parsed.values.model === undefined ? "ARIADNE_MODEL" : "--model"} takes baseline or configured, got "${researcher}"`);
    return 2;
  }
  const modelIdleTimeoutMs = secondsToMs(parsed.values["model-idle-timeout"]);
  if (modelIdleTimeoutMs === null) {
    console.error(`ariadne: --model-idle-timeout takes a positive number of seconds, got "${parsed.values["model-idle-timeout"]}"`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  const commandUsage = await COMMAND_USAGE[command ?? ""]?.();
  if (parsed.values.help && commandUsage) {
    out(commandUsage);
    return 0;
  }
  if (parsed.values.help || !command) {
    out(USAGE);
    return command || parsed.values.help ? 0 : 2;
  }
  const storeOptions = { url: config.databaseUrl, dataDir: parsed.values["data-dir"] };
  try {
    switch (command) {
      case "migrate": {
        const { openStore } = await import("../events/openStore.ts");
        const { database, close } = await openStore(storeOptions);
        out(`migrations applied: ${database.location}`);
        await close();
        return 0;
      }
      case "run": {
        const caps = askedCapsFromFlags(parsed.values);
        // An empty or blank question given is refused by runResearch, never taken for "no question".
        const { runResearch } = await import("./runResearch.ts");
        return await runResearch({ ...storeOptions, config, question: rest.length ? rest.join(" ") : undefined, scenario: parsed.values.scenario, json: parsed.values.json, out, modelIdleTimeoutMs, caps, reviewer, terminal, singleAgent: parsed.values["single-agent"], baseline: researcher === "baseline" });
      }
      case "show":
      case "transcript": {
        if (rest.length !== 1) {
          console.error(`ariadne: ${command} takes exactly one id\n\n${commandUsage}`);
          return 2;
        }
        const json = parsed.values.json;
        return command === "show"
          ? await (await import("./showRun.ts")).showRun({ ...storeOptions, runId: rest[0]!, json, out })
          : await (await import("./showTranscript.ts")).showTranscript({ ...storeOptions, executorId: rest[0]!, json, out });
      }
      case "audit":
        if (rest.length < 1 || rest.length > 2) {
          console.error(`ariadne: audit takes a run id and at most one claim id\n\n${commandUsage}`);
          return 2;
        }
        return await (await import("./auditCommand.ts")).auditCommand({ ...storeOptions, runId: rest[0]!, claimId: rest[1], json: parsed.values.json, out });
      case "report":
        if (rest.length !== 1) {
          console.error(`ariadne: report takes exactly one run id\n\n${commandUsage}`);
          return 2;
        }
        return await (await import("./reportCommand.ts")).reportCommand({ ...storeOptions, runId: rest[0]!, json: parsed.values.json, out });
      case "check":
        if (rest.length !== 1) {
          console.error(`ariadne: check takes exactly one run id\n\n${commandUsage}`);
          return 2;
        }
        return await (await import("./checkCommand.ts")).checkCommand({ ...storeOptions, runId: rest[0]!, outFile: parsed.values.out, json: parsed.values.json, settings: hostSettings(config), out });
      case "verify": {
        const target = rest[0];
        if (rest.length > 1) {
          console.error(`ariadne: verify takes one run id or bundle directory, got ${rest.length}`);
          return 2;
        }
        // An existing directory is a bundle: verified from its files, with no store opened.
        if (target !== undefined && isDirectory(target)) {
          // Only a key given on the command line: a bundle is checked against the publisher's key, chosen by whoever verifies.
          return await (await import("./verifyBundleCommand.ts")).verifyBundleCommand({ dir: target, keyPath: parsed.values.key, claim: parsed.values.claim, root: parsed.values.root, refetch: parsed.values.refetch, json: parsed.values.json, out });
        }
        // A path is never a run id: say the bundle is missing rather than look for a run by that name.
        if (target !== undefined && /[\\/]/.test(target)) {
          console.error(`ariadne: verify: ${target} is not a directory, so not a bundle (and a run id holds no "/")`);
          return 2;
        }
        if (parsed.values.claim !== undefined || parsed.values.refetch) {
          console.error(`ariadne: --claim and --refetch verify a bundle directory, and ${target ? `"${target}" is not one` : "none was given"}`);
          return 2;
        }
        return await (await import("./verifyCommand.ts")).verifyCommand({ ...storeOptions, runId: rest[0], root: parsed.values.root, publicKey: sealPublicKey(config.sealKeys, parsed.values.key), json: parsed.values.json, out });
      }
      case "export":
        if (rest.length !== 2) {
          console.error("ariadne: export takes a run id and a directory: ariadne export RUN DIR");
          return 2;
        }
        return await (await import("./exportCommand.ts")).exportCommand({ ...storeOptions, runId: rest[0], dir: rest[1], signingKey: sealSigningKey(config.sealKeys), json: parsed.values.json, out });
      case "serve": {
        const port = Number(parsed.values.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) {
          console.error(`ariadne: --port must be a port number (got "${parsed.values.port}")`);
          return 2;
        }
        const concurrency = parsed.values.concurrency === undefined ? undefined : Number(parsed.values.concurrency);
        if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
          console.error(`ariadne: --concurrency must be a positive integer (got "${parsed.values.concurrency}")`);
          return 2;
        }
        const flags = { port, host: parsed.values.host!, workers: !parsed.values["no-workers"], auth: !parsed.values["no-auth"], concurrency };
        return await (await import("./serve.ts")).serve({ ...storeOptions, ...flags, config, out });
      }
      case "keys":
        return await (await import("./keys.ts")).keys(rest, { ...storeOptions, role: parsed.values.role, tenant: parsed.values.tenant, outDir: parsed.values.out, out });
      default:
        console.error(`ariadne: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (e) {
    return reportError(e);
  }
}

/** Seconds as given on the command line to milliseconds; undefined when absent, null when not a positive number. */
function secondsToMs(raw: string | undefined): number | undefined | null {
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  return raw.trim() !== "" && Number.isFinite(seconds) && seconds > 0 ? Math.max(1, Math.round(seconds * 1000)) : null;
}

/** Errors that mean the command was asked for something it cannot do as given: exit 2. */
const USAGE_ERRORS = new Set(["USAGE", "VALIDATION", "RUN_REQUEST", "MODEL_NOT_CONFIGURED"]);

/** One clear line by default; the stack only when asked for. Bad usage exits 2, anything else 1. */
function report(e: unknown, debug: boolean): number {
  if (debug) console.error(e);
  else console.error(`ariadne: ${isAriadneError(e) ? e.message : (e as Error)?.message ?? String(e)}`);
  return isAriadneError(e) && USAGE_ERRORS.has(e.code) ? 2 : 1;
}
