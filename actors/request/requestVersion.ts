import { createHash } from "node:crypto";
import { canonicalJson } from "../../core/canonicalJson.ts";
import type { RecordedEvent, TaskSpec } from "../../events/index.ts";
import type { ToolSpec } from "../../models/types.ts";
import { admittedState, evolve } from "../fold/executorState.ts";
import { buildRequest } from "./buildRequest.ts";
import { delegateToolSpec } from "./delegation.ts";
import { renderAdvice, renderBackgroundHandoff, renderChildEnded, renderConsumedHandoff, renderReminder } from "./prompts.ts";
import { urlsInTask } from "./reachableUrls.ts";
import { ROLES, type Role, roleFor } from "./roles.ts";

/**
 * The version of the request code: a hash of everything that shapes what a
 * model is sent (prompts, roles, tool specs of the terminal tools and
 * delegate, request building), taken over a specimen of each, so it changes
 * exactly when what a model would be sent changes, whatever the build (tsx,
 * a bundle, Deno). Recorded at admission (executor_admitted.requestVersion);
 * a transcript, resume or verify under another version says so. The specs of
 * the hosted tools (tools/) are the host's configuration, not request code.
 */
export function requestVersion(): string {
  return (version ??= createHash("sha256").update(canonicalJson(specimen())!, "utf8").digest("hex").slice(0, 16));
}
let version: string | undefined;

const TASK: TaskSpec = { question: "Q? See https://example.test/a.", context: "C, https://example.test/b", doneWhen: "D" };
const PROFILE = "# Specimen method\n\nDo the work.";
const HANDOFF = { summary: "s", findings: [{ claim: "c" }] };
const ENDED = { outcome: "cancelled", reason: "r" };
const DELEGATE = delegateToolSpec([{ id: "specimen", summary: "A specimen profile." }], ["web_fetch"]);

/** Every template on fixed inputs, and the request each role would send from a specimen conversation. */
function specimen() {
  const roles = [...(Object.keys(ROLES) as Role[]).map((role) => ({ role })), { role: "main" as const, singleAgent: true }];
  return {
    roles: roles.map((admitted) => {
      const r = roleFor(admitted);
      return {
        ...admitted,
        system: [r.system(null), r.system(PROFILE)],
        task: r.renderTask(TASK),
        terminal: [r.terminalTool, r.terminalSpec],
        nudge: r.nudge,
        onRefusal: r.onRefusal,
        request: specimenRequest(admitted, [DELEGATE, r.terminalSpec]),
      };
    }),
    texts: [
      renderReminder("R"),
      renderAdvice("A"),
      renderChildEnded("x", ENDED, false),
      renderChildEnded("x", ENDED, true),
      renderConsumedHandoff("x", HANDOFF),
      renderBackgroundHandoff("x", HANDOFF),
    ],
    urls: urlsInTask(TASK),
  };
}

/** The request of a specimen executor after a turn that ended without a tool call (the nudge follows it). */
function specimenRequest(admitted: { role: Role; singleAgent?: boolean }, tools: ToolSpec[]) {
  const r = roleFor(admitted);
  const at = (streamVersion: number, type: string, data: unknown) =>
    ({ type, data, streamVersion, eventId: `e${streamVersion}`, streamId: "executor-x", metadata: { runId: "run", executorId: "x", causationId: null, correlationId: "run" } }) as RecordedEvent;
  const admission = at(1, "executor_admitted", {
    ...admitted,
    parentExecutorId: null,
    parentToolUseId: null,
    depth: 0,
    task: TASK,
    profile: null,
    grantedTools: ["delegate"],
    refusedTools: [],
    model: "specimen",
    limits: r.defaultLimits,
    rendered: { task: r.renderTask(TASK), nudge: r.nudge, reachable: urlsInTask(TASK) },
    requestVersion: null,
    offered: null,
  });
  const turn = at(2, "turn", { turn: 1, response: { content: [{ type: "text", text: "t" }], stopReason: "end_turn" } });
  return buildRequest(evolve(admittedState(admission as RecordedEvent<"executor_admitted">), turn), { system: r.system(PROFILE), tools, maxTokens: 1 });
}
