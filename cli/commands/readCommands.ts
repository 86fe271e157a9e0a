import type { Command } from "../command.ts";
import { hostSettings } from "../config.ts";
import { JSON_FLAG } from "./commonFlags.ts";

/** `ariadne show RUN`: a recorded run from the log. */
export const show: Command = {
  name: "show",
  args: "RUN",
  summary: "a recorded run: executor tree, handoffs, answer",
  description: `Prints a recorded run from the log: its executor tree (role, profile, state, turns, tokens),
every Child's handoff whole, Main's answer, and any tool call whose outcome is unknown (never run
again: check it by hand). --json prints the same as one JSON object.`,
  flags: [JSON_FLAG],
  positionals: { min: 1, max: 1, problem: "show takes exactly one id" },
  run: async ({ flags, positionals, storeOptions, out }) =>
    (await import("../showRun.ts")).showRun({ ...storeOptions, runId: positionals[0]!, json: flags.bool("json"), out }),
};

/** `ariadne transcript EXECUTOR_ID`: an executor's requests and responses rebuilt from the log. */
export const transcript: Command = {
  name: "transcript",
  args: "EXECUTOR_ID",
  summary: "an executor's requests and responses rebuilt from the log, digests checked",
  description: `Prints an executor's transcript rebuilt from the log: every request it sent to its model and
every response, each request checked against the sha256 digest recorded with its turn.
Exit 1 when a rebuilt request does not match its digest. Executor ids: ariadne show RUN.`,
  flags: [JSON_FLAG],
  positionals: { min: 1, max: 1, problem: "transcript takes exactly one id" },
  run: async ({ flags, positionals, storeOptions, out }) =>
    (await import("../showTranscript.ts")).showTranscript({ ...storeOptions, executorId: positionals[0]!, json: flags.bool("json"), out }),
};

/** `ariadne audit RUN [CLAIM_ID]`: each claim followed to the bytes behind it. */
export const audit: Command = {
  name: "audit",
  args: "RUN [CLAIM_ID]",
  summary: "each claim of the answer followed to its finding, model turn, quotes, tool calls and sources",
  description: `Follows each claim of a run's answer (or the one CLAIM_ID: c1, c2, … in the answer's order) to what
it rests on, from the log: the Child's finding it cites (the Child, its profile binding, its
handoff event), the model turn that wrote it (model, request digest, tokens, reminders delivered
into it), each quote (its text, character offsets and page in the stored text blob), the tool call
behind it (intent and outcome events: position, hash) and the source it read (URL, final URL, HTTP
status, fetched at, raw and text sha256). Judgment and not-collected claims say they have no
evidence. --json prints the chains as one JSON object. Exit 1 when a cited finding, quote or tool
call cannot be followed in the log.`,
  flags: [JSON_FLAG],
  positionals: { min: 1, max: 2, problem: "audit takes a run id and at most one claim id" },
  run: async ({ flags, positionals, storeOptions, out }) =>
    (await import("../auditCommand.ts")).auditCommand({ ...storeOptions, runId: positionals[0]!, claimId: positionals[1], json: flags.bool("json"), out }),
};

/** `ariadne report RUN`: what a run spent. */
export const report: Command = {
  name: "report",
  args: "RUN",
  summary: "what a run spent, per run and per executor: turns, tool calls, tokens, cost, time",
  description: `What a run spent, from its log: per run and per executor, turns, tool calls, tokens (input, output,
cache when recorded), cost priced by the price table (estimated when the tokens were: scripted
turns), time waiting on the model, wall time from the events' timestamps, web fetches (from the
network, from the run's page cache, duplicates avoided), what each limit left, and Main's context
(its largest request) against what its Children read (the isolation dividend). --json prints the
report as one JSON object. Exit 1 when the run is not in the store.`,
  flags: [JSON_FLAG],
  positionals: { min: 1, max: 1, problem: "report takes exactly one run id" },
  run: async ({ flags, positionals, storeOptions, out }) =>
    (await import("../reportCommand.ts")).reportCommand({ ...storeOptions, runId: positionals[0]!, json: flags.bool("json"), out }),
};

/** `ariadne check RUN`: the deterministic checker, after the seal. */
export const check: Command = {
  name: "check",
  args: "RUN",
  summary: "the checker: quotes, numbers beside their subject, pages, artifacts, sources read again, advice",
  description: `Checks a settled run's answer: every phrase a claim quotes must be found (under one normalisation
of whitespace, quotes and Unicode) in a blob the claim cites; every number of each claim must stand
in a cited text beside the claim's subject (same sentence, list item or table row; 1,200 = 1200 =
1.2k; 12% = 0.12; 45 bps = 0.45%; a rounded figure matches), or be derived from cited figures (a
difference, sum, ratio or percentage change, shown with its formula); a page a claim names must be
one its quotes are on; each value of a published CSV or JSON artifact must come from what it was
derived from; each cited source is read again and compared with the recorded one (unchanged, changed
but still supporting, no longer supporting); buy/sell recommendations, price targets and position
advice are flagged; claims without evidence (judgment, not collected, no quote, or only gathered
material) are marked. The verdicts are recorded as a check_completed event in the run's stream and
written to FILE (default check-report.md). Exit 0 supported (every observed claim supported, nothing
flagged), 1 flagged, 3 unsupported (nothing flagged, but an observed claim has no evidence, none is
observed, or the answer is partial), 2 bad usage.`,
  flags: [{ name: "out", type: "string", arg: "FILE", help: "where the report is written", default: "check-report.md" }, JSON_FLAG],
  positionals: { min: 1, max: 1, problem: "check takes exactly one run id" },
  run: async ({ flags, positionals, storeOptions, config, out }) =>
    (await import("../checkCommand.ts")).checkCommand({ ...storeOptions, runId: positionals[0]!, outFile: flags.string("out"), json: flags.bool("json"), settings: hostSettings(config), out }),
};
