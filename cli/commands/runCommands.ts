import type { ReviewMode } from "../../actors/index.ts";
import { scenarioNames } from "../../scenarios/index.ts";
import { CONCURRENCY, DEFAULT_LEASE_MS, LEASE_MS, POLL_MS, WAIT_MS } from "../bounds.ts";
import { askedCapsFromFlags, capFlags } from "../capFlags.ts";
import type { Command } from "../command.ts";
import { UsageError } from "../usage.ts";
import type { Flag } from "../flags.ts";
import { JSON_FLAG } from "./commonFlags.ts";

const SINGLE_AGENT: Flag = {
  name: "single-agent",
  type: "boolean",
  help: "run: one executor with every tool but delegate and no Children, citing its own tool results (the control for what isolation buys; recorded with the run); not with --reviewer, Child caps or delegation caps",
};

/** `ariadne run [QUESTION]`: one research run, hosted in this process. */
export const run: Command = {
  name: "run",
  args: "[QUESTION]",
  summary: "a research run with the configured model (ANTHROPIC_API_KEY); with no QUESTION, or --scenario NAME, a scripted offline scenario",
  description: `Records a research run and hosts it in this process: Main answers the question, delegating to
Children, and every step is recorded before it takes effect. A question needs ANTHROPIC_API_KEY; with no
question (or --scenario NAME) a scripted offline scenario runs, and says so. Prints \`run <id>\` first, then
each step (on a terminal the executor tree drawn in place; NO_COLOR: no colours), then the answer, the
checker's verdict and the root hash. Exit 0 answered, 3 a partial answer, 1 failed or cancelled, 2 bad usage,
130 interrupted (ariadne resume RUN finishes it).`,
  flags: [
    { ...JSON_FLAG, help: "print one JSON object (run id, outcome, answer, handoffs, root hash, unknownEffects); progress on stderr" },
    { name: "scenario", type: "string", arg: "NAME", help: `run a scripted offline scenario instead of a question: ${scenarioNames().join(", ")} (the default with no question)` },
    {
      name: "reviewer",
      type: "choice",
      arg: "MODE",
      choices: ["off", "shadow", "advisory"],
      default: "off",
      help: "shadow: reviews spend the budget, Main never sees them; advisory: a review's findings reach Main once, marked as advice; never approval or veto",
    },
    SINGLE_AGENT,
    {
      name: "model",
      type: "choice",
      arg: "WHICH",
      choices: ["configured", "baseline"],
      env: "ARIADNE_MODEL",
      shownDefault: "ARIADNE_MODEL, else configured",
      help: "baseline: the question is answered by the baseline researcher, a scripted policy (no language model, no key) that searches the corpus (ARIADNE_CORPUS_DIR), reads and quotes; labelled scripted, its tokens estimated",
    },
    {
      name: "model-idle-timeout",
      type: "number",
      arg: "SECONDS",
      above: 0,
      max: 3600,
      unit: " s",
      shownDefault: "60",
      env: "ARIADNE_MODEL_IDLE_TIMEOUT_MS (in ms)",
      help: "silence on a model stream that counts as a dead connection",
      invalid: (raw) => `--model-idle-timeout takes a positive number of seconds, got "${raw}"`,
    },
    ...capFlags(),
  ],
  run: async ({ flags, positionals, storeOptions, config, out, terminal }) => {
    const caps = askedCapsFromFlags(flags.record());
    const seconds = flags.number("model-idle-timeout");
    // An empty or blank question given is refused by runResearch, never taken for "no question".
    const { runResearch } = await import("../runResearch.ts");
    return runResearch({
      ...storeOptions,
      config,
      question: positionals.length ? positionals.join(" ") : undefined,
      scenario: flags.string("scenario"),
      json: flags.bool("json"),
      out,
      modelIdleTimeoutMs: seconds === undefined ? undefined : Math.max(1, Math.round(seconds * 1000)),
      caps,
      reviewer: flags.string("reviewer") as ReviewMode,
      terminal,
      singleAgent: flags.bool("single-agent"),
      baseline: researcherOf(flags.string("model"), config.researcher) === "baseline",
    });
  },
};

/** `ariadne submit [QUESTION]`: a run recorded for workers. */
export const submit: Command = {
  name: "submit",
  args: "[QUESTION]",
  summary: "record a run for workers and print its id",
  description: `Records a run for workers (ariadne worker) and prints its id; nothing runs here.
A question needs ANTHROPIC_API_KEY; with --offline, or with no question and no key,
the run is the scripted offline scenario.`,
  flags: [
    { name: "offline", type: "boolean", help: "the scripted offline scenario, whatever the environment" },
    { ...SINGLE_AGENT, help: "one executor with every tool but delegate and no Children (as for ariadne run)" },
    { ...JSON_FLAG, help: 'print {"runId": ..., "mainExecutorId": ...}' },
    ...capFlags(),
  ],
  run: async (invocation) => (await import("../submitCommand.ts")).submitCommand(invocation),
};

/** `ariadne worker`: hosts submitted runs and takes over dead owners' runs. */
export const worker: Command = {
  name: "worker",
  summary: "execute submitted runs; take over runs whose owner died",
  description: `Executes submitted runs and takes over runs whose owner's lease ran out, each
under a lease renewed by heartbeat. Several workers may serve one PostgreSQL
database. SIGTERM or Ctrl-C: tool calls in flight record their outcome, then the
worker's runs are released for another worker at once. With
OTEL_EXPORTER_OTLP_ENDPOINT set, the store's spans are exported over OTLP/HTTP
(one exporter on a store at a time; the others wait their turn).`,
  flags: [
    { name: "concurrency", arg: "N", ...CONCURRENCY, shownDefault: "4", help: "runs hosted at once" },
    { name: "lease-ms", arg: "MS", ...LEASE_MS, env: "ARIADNE_LEASE_MS", shownDefault: String(DEFAULT_LEASE_MS), help: "lease time to live" },
    { name: "poll-ms", arg: "MS", ...POLL_MS, shownDefault: "1000", help: "how often to look for expired leases" },
    { name: "idle-exit-ms", arg: "MS", ...WAIT_MS, shownDefault: "run until stopped", help: "exit after nothing to do for this long" },
  ],
  positionals: { min: 0, max: 0, problem: "worker takes no arguments" },
  run: async (invocation) => (await import("../workerCommand.ts")).workerCommand(invocation),
};

/** `ariadne resume RUN`: finish a crashed or interrupted run here. */
export const resume: Command = {
  name: "resume",
  args: "RUN",
  summary: "finish a crashed or interrupted run in this process",
  description: `Finishes a crashed or interrupted run in this process: its streams are verified,
every live executor is rebuilt from the log (no model or tool call is repeated to
do so) and the run goes on from there. A tool call whose intent was recorded but
whose outcome was not is never run again blindly. A run held by a live owner is
waited for until its lease runs out (--wait-ms, default the lease time).`,
  flags: [
    { ...JSON_FLAG, help: "print one JSON object with the outcome" },
    { name: "wait-ms", arg: "MS", ...WAIT_MS, shownDefault: "the lease time (ARIADNE_LEASE_MS, else 15000)", help: "how long to wait for another owner's lease" },
  ],
  positionals: { min: 1, max: 1, problem: "resume takes exactly one run id" },
  run: async (invocation) => (await import("../resumeCommand.ts")).resumeCommand(invocation),
};

/** `ariadne status RUN`: state, lease and executor tree; --follow until it stops. */
export const status: Command = {
  name: "status",
  args: "RUN",
  summary: "a run's state and executor tree (--json for scripts; --follow: until it stops, drawn in place on a terminal)",
  description: `Prints a run's state (submitted, running, settled, failed, cancelled, interrupted),
its lease and its executor tree. --json prints one object for scripts:
{runId, state, question, lease: {owner, epoch, expiresInMs, expiresAt, heartbeatAgeMs, ownerGone},
executors: {executorId, role, profile, task, state, turns, unknownEffects, children}, events}.

--follow follows the run, wherever it is hosted (this host, a worker, a server), until it
stops (settled, failed, cancelled, or interrupted and waiting for ariadne resume), then prints
the status as above. On a terminal the executor tree is drawn in place (state, turn, tool in
flight, tokens, the run's budget bar; a queued run shows how long it has waited for a worker)
and ends with the answer; otherwise a line per step, as ariadne run prints them; with --json
only the final object. Exit code as without --follow: 0 once the run stops, whatever its state;
1 for an unknown run; 130 when Ctrl-C stops the following (the run goes on).`,
  flags: [
    { ...JSON_FLAG, help: "one JSON object" },
    { name: "follow", type: "boolean", help: "follow the run until it stops" },
  ],
  positionals: { min: 1, max: 1, problem: "status takes exactly one run id" },
  run: async (invocation) => (await import("../statusCommand.ts")).statusCommand(invocation),
};

/** `ariadne cancel RUN`: a run, or one executor and its descendants. */
export const cancel: Command = {
  name: "cancel",
  args: "RUN",
  summary: "cancel a run, or one executor with --executor ID",
  description: `Cancels a run, or one executor of it and the executors it delegated to.
Cancelled executors stop at their next step; their work stays in the log.`,
  flags: [
    { name: "executor", type: "string", arg: "ID", help: "cancel this executor (and its descendants) only" },
    { name: "reason", type: "string", arg: "TEXT", default: "cancelled by the operator", help: "recorded with the cancellation" },
  ],
  positionals: { min: 1, max: 1, problem: "cancel takes exactly one run id" },
  run: async (invocation) => (await import("../cancelCommand.ts")).cancelCommand(invocation),
};

/** --model, else ARIADNE_MODEL, else the configured model; a variable naming neither is bad usage (the flag's choices are checked by the table). */
function researcherOf(flag: string | undefined, env: string | undefined): "configured" | "baseline" {
  const chosen = flag ?? env ?? "configured";
  if (chosen !== "configured" && chosen !== "baseline") throw new UsageError(`ARIADNE_MODEL takes baseline or configured, got "${chosen}"`);
  return chosen;
}
