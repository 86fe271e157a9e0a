import { CONCURRENCY, PORT, SERVE_CAP, TRIALS } from "../bounds.ts";
import type { Command } from "../command.ts";
import { isDirectory } from "../isDirectory.ts";
import { sealPublicKey, sealSigningKey } from "../sealKeys.ts";
import { UsageError } from "../usage.ts";
import { VERIFY_FLAGS } from "../verifyFlags.ts";
import { JSON_FLAG } from "./commonFlags.ts";
import { commaList, httpAccess } from "../httpAccess.ts";

/** `ariadne migrate`: pending migrations, applied. */
export const migrate: Command = {
  name: "migrate",
  summary: "apply pending migrations to DATABASE_URL, or to the embedded store",
  description: "Applies the pending migrations (every command that opens the store applies them too) and prints where.",
  positionals: { min: 0, max: 0, problem: "migrate takes no arguments" },
  run: async ({ storeOptions, out }) => {
    const { openStore } = await import("../../events/openStore.ts");
    const { database, close } = await openStore(storeOptions);
    out(`migrations applied: ${database.location}`);
    await close();
    return 0;
  },
};

/** `ariadne verify RUN` and `ariadne verify DIR` (the bundle, with no store: cli/verifyBundleMain.ts answers it first). */
export const verify: Command = {
  name: "verify",
  args: "RUN|DIR",
  summary: "check a run's streams, the links between them and its seal; or an exported bundle offline, with no database",
  description: `RUN: checks every stream of a run, the links between them, its seal (and the seal's signature,
against the public key: --key, ARIADNE_SIGNING_PUBLIC_KEY or .ariadne/keys/seal.pub), its source blobs
and every quote of a handoff against its blob. --root HASH checks the run against a root hash you kept.

DIR (an existing directory): checks an exported bundle from its files alone, with no database: the
signature (only against --key), every file against the manifest, the chains, the seal and root hash,
blobs, quotes, claims (--claim C prints one claim's chain) and derived files; --refetch fetches each
web source again and reports it unchanged, changed, unreachable or refused (a bundle's URLs meet
web_fetch's address policy: loopback and private addresses only with ARIADNE_ALLOW_LOOPBACK/PRIVATE).

A seal it cannot authenticate is never called intact: without a public key (or --root) it says
"structure intact, authenticity not checked: pass --key", and what it checked and what it could not.
A sealed run must also be over: every executor ended, every committed handoff consumed.

Exit 0 intact and authenticated (the seal's or manifest's signature checked, or --root matched), 1 not
intact (the first problem named), 2 bad usage, 4 structure intact but authenticity not checked.`,
  flags: VERIFY_FLAGS,
  positionals: { min: 0, max: 1, problem: (count) => `verify takes one run id or bundle directory, got ${count}` },
  run: async ({ flags, positionals, storeOptions, config, out }) => {
    const target = positionals[0];
    const v = { root: flags.string("root"), key: flags.string("key"), claim: flags.string("claim"), refetch: flags.bool("refetch"), json: flags.bool("json") };
    // An existing directory is a bundle: verified from its files, with no store opened.
    if (target !== undefined && isDirectory(target)) {
      // Only a key given on the command line: a bundle is checked against the publisher's key, chosen by whoever verifies.
      return (await import("../verifyBundleCommand.ts")).verifyBundleCommand({ dir: target, keyPath: v.key, claim: v.claim, root: v.root, refetch: v.refetch, json: v.json, out, policy: { allowLoopback: config.web.allowLoopback, allowPrivate: config.web.allowPrivate } });
    }
    // A path is never a run id: say the bundle is missing rather than look for a run by that name.
    if (target !== undefined && /[\\/]/.test(target)) throw new UsageError(`verify: ${target} is not a directory, so not a bundle (and a run id holds no "/")`);
    if (v.claim !== undefined || v.refetch) throw new UsageError(`--claim and --refetch verify a bundle directory, and ${target ? `"${target}" is not one` : "none was given"}`);
    return (await import("../verifyCommand.ts")).verifyCommand({ ...storeOptions, runId: target, root: v.root, publicKey: sealPublicKey(config.sealKeys, v.key), json: v.json, out });
  },
};

/** `ariadne export RUN DIR`: a settled run as a signed bundle. */
export const exportRun: Command = {
  name: "export",
  args: "RUN DIR",
  summary: "write a settled run as a bundle signed with the seal key (ARIADNE_SIGNING_KEY)",
  description: `Verifies a settled, sealed run and writes it as a folder anyone can check without Ariadne's database:
its events, blobs, a manifest signed with the seal key (ARIADNE_SIGNING_KEY or .ariadne/keys/seal.key),
and derived files (answer.md, claims.jsonl, transcripts, check-report.md, audit.html). DIR must not exist
or be empty. Verify it anywhere with ariadne verify DIR --key PUBKEY_FILE.`,
  flags: [JSON_FLAG],
  positionals: { min: 2, max: 2, problem: "export takes a run id and a directory: ariadne export RUN DIR" },
  run: async ({ flags, positionals, storeOptions, config, out }) =>
    (await import("../exportCommand.ts")).exportCommand({ ...storeOptions, runId: positionals[0], dir: positionals[1], signingKey: sealSigningKey(config.sealKeys), json: flags.bool("json"), out }),
};

/** CORS origins and trusted proxies: the flag, else the variable; a bad value is bad usage, one line. */
function serveAccess(cors: string | undefined, proxies: string | undefined, fromEnv: { corsOrigins: string[]; trustedProxies: string[] }) {
  const access = httpAccess(commaList(cors) ?? fromEnv.corsOrigins, commaList(proxies) ?? fromEnv.trustedProxies);
  if (typeof access === "string") throw new UsageError(access);
  return access;
}

/** `ariadne serve`: the HTTP API, with a worker. */
export const serve: Command = {
  name: "serve",
  summary: "the HTTP API",
  description: `Serves the HTTP API on the configured store, with a worker that executes submitted runs under
leases (unless --no-workers). SIGTERM or Ctrl-C stops it gracefully: live streams end, the worker's runs
are released through their leases once their tool calls in flight record.`,
  flags: [
    { name: "port", arg: "PORT", ...PORT, default: 8787, help: "the port to listen on (0: any free port)" },
    { name: "host", type: "string", arg: "HOST", default: "127.0.0.1", help: "the address to listen on" },
    { name: "no-workers", type: "boolean", help: "serve the API only; runs are hosted by ariadne worker elsewhere" },
    { name: "concurrency", arg: "N", ...CONCURRENCY, expects: "a positive integer", shownDefault: "4", help: "runs the server's worker hosts at once" },
    { name: "no-auth", type: "boolean", help: "every caller is an admin of tenant \"default\"; never beyond loopback" },
    { name: "cors-origin", type: "string", arg: "ORIGIN,...", env: "ARIADNE_CORS_ORIGINS", shownDefault: "none: CORS off", help: "browser origins allowed to call the API (https://app.example.com); the preflight is answered before auth" },
    { name: "trusted-proxy", type: "string", arg: "ADDRESS|CIDR,...", env: "ARIADNE_TRUSTED_PROXIES", shownDefault: "none", help: "reverse proxies whose X-Forwarded-For names the client (the failed-login limit counts per client)" },
    { name: "streams-per-key", arg: "N", ...SERVE_CAP, env: "ARIADNE_STREAMS_PER_KEY", shownDefault: "20", help: "live event streams one API key may hold at once" },
    { name: "streams-per-tenant", arg: "N", ...SERVE_CAP, env: "ARIADNE_STREAMS_PER_TENANT", shownDefault: "100", help: "live event streams one tenant may hold at once" },
    { name: "queued-per-key", arg: "N", ...SERVE_CAP, env: "ARIADNE_QUEUED_PER_KEY", shownDefault: "50", help: "queued runs (submitted, not yet taken) one API key may have" },
    { name: "queued-per-tenant", arg: "N", ...SERVE_CAP, env: "ARIADNE_QUEUED_PER_TENANT", shownDefault: "200", help: "queued runs one tenant may have" },
  ],
  positionals: { min: 0, max: 0, problem: "serve takes no arguments" },
  run: async ({ flags, storeOptions, config, out }) =>
    (await import("../serve.ts")).serve({
      ...storeOptions,
      ...serveAccess(flags.string("cors-origin"), flags.string("trusted-proxy"), config.http),
      port: flags.number("port")!,
      host: flags.string("host")!,
      workers: !flags.bool("no-workers"),
      auth: !flags.bool("no-auth"),
      concurrency: flags.number("concurrency"),
      // The flag, else the variable, else the app's default (http/middleware/limits.ts).
      limits: {
        streamsPerKey: flags.number("streams-per-key") ?? config.serveCaps.streamsPerKey,
        streamsPerTenant: flags.number("streams-per-tenant") ?? config.serveCaps.streamsPerTenant,
        queuedRunsPerKey: flags.number("queued-per-key") ?? config.serveCaps.queuedRunsPerKey,
        queuedRunsPerTenant: flags.number("queued-per-tenant") ?? config.serveCaps.queuedRunsPerTenant,
      },
      config,
      out,
    }),
};

/** `ariadne eval [SUITE]`: a suite of cases run and scored. */
export const evaluate: Command = {
  name: "eval",
  args: "[SUITE]",
  summary: "run a suite of cases and score each answer; no SUITE: the shipped offline suite; last line \"N passed, N failed\"",
  description: `Runs a suite's cases and scores each run from its log and the checker. SUITE is a folder of cases,
one folder each with a case.json (question, scenario or corpus lookup, expected and forbidden
items); with none, the shipped offline suite (eval/suites/offline: corpus lookups over the
repository's corpus/ and the three scenarios). Each case is run in this process on the configured store, one
after another; its runs stay in the store (ariadne audit RUN, report RUN).`,
  flags: [
    { name: "baseline", type: "string", arg: "FILE", help: "a stored --json result: exit 1 when a case's support rate, number faithfulness, citation validity, coverage or (gold) accuracy drops below the baseline's by more than the margin, its supported claims by more than 2%, or a baseline case is not scored" },
    { ...JSON_FLAG, help: "print the result as one JSON object (then the last line)" },
    { name: "lane", type: "choice", arg: "LANE", choices: ["scripted", "replay", "live", "baseline"], shownDefault: "scripted; baseline with --suite", help: "which model answers (see lanes below)" },
    { name: "record", type: "boolean", help: "refresh the replay lane's recordings from the configured model (with --lane replay)" },
    { name: "single-agent", type: "boolean", help: "also run each case as a single agent holding every tool, and print delegating against single agent; not with --lane replay" },
    { name: "trials", arg: "K", ...TRIALS, default: 3, help: "trials of each case on the live lane (a case passes when all K pass)", invalid: (raw) => `--trials takes a positive integer, got "${raw}"` },
    { name: "corpus", type: "string", arg: "DIR", shownDefault: "ARIADNE_CORPUS_DIR, else the repository's corpus/", help: "the corpus the cases read" },
    { name: "out", type: "string", arg: "FILE", help: "also write the JSON result to FILE (e.g. a new baseline)" },
    { name: "suite", type: "string", arg: "FILE.jsonl", help: "a gold suite: one JSON case a line, graded against its answers (see gold suites below); runs --lane baseline (default) or live" },
  ],
  positionals: { min: 0, max: 1, problem: "eval takes at most one suite folder" },
  notes: `lanes:
  scripted   (default) the cases' scripted models: offline, no API key, exact metrics
  replay     the model's responses recorded beside each case (replay.jsonl), keyed by the sha256 of
             the canonical request (the digest each turn event records); a request not recorded fails
             the case, naming the nearest recorded request and where it differs. --record refreshes
             them: every request goes to the configured model (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
  live       the configured model, K trials a case (--trials), each judged by the model on a rubric
             (factual accuracy, citation accuracy, completeness, source quality, tool efficiency); a
             failed verdict is judged twice more and the majority kept

metrics (per case of a SUITE folder): coverage (expected items in the answer's supported claims; a
phrase in a not_collected, judgment or flagged claim counts for nothing), claim support rate (supported of the
observed claims), citation validity (citations whose finding and tool calls are in the log; must be
100%), fabricated citations (must be 0), number faithfulness (numbers found in the cited texts),
advice violations, Main's peak and total input tokens, tokens and cost per answer and per supported
claim (* estimated: scripted tokens), wasted Child tokens (Children the answer does not cite),
duplicate fetches, wall time. A case fails on a missing answer, coverage below its minCoverage, a
forbidden item, a number its cited sources do not state, a gap not named, an artifact not published, a
citation not valid or fabricated, or advice. The table's last column says what a case measures:
"plumbing" when the script that wrote the answer gave its expected phrases too (the scenarios, the
scripted lane), so it shows the runtime carried them.

gold suites (--suite FILE.jsonl): one JSON case a line,
  {"id", "question", "answer", "answer_type": "number|text|list|set", "tolerance", "evidence": [URL, …],
   "corpus": DIR, "note"}
DIR (relative to the file) in the corpus's layout (web/manifest.jsonl, pdf/manifest.jsonl, data/); a bad
line exits 2 naming the line and the field. Each case is answered over its corpus by
  baseline   (default) the baseline researcher: a scripted policy, no language model, no API key
  live       the configured model (ANTHROPIC_API_KEY)
and graded: accuracy (the summary and supported claims state the gold number within tolerance, hold
the gold text, every item of a set, a list's items in order), evidence recall (gold evidence URLs
among the cited sources), support (cited quotes verbatim in the stored text they cite), tokens, cost,
wall time; a case passes when correct and the run's own checks hold.

Prints a Markdown table of the scores, then \`N passed, N failed\` as its last line. Exit 0 when every
case passed and the baseline holds, 1 otherwise, 2 on bad usage.`,
  run: async (invocation) => (await import("../evalCommand.ts")).evalCommand(invocation),
};
