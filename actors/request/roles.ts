import type { EventData, TaskSpec } from "../../events/index.ts";
import { HANDOFF_TOOL, handoffToolSpec } from "../../handoff/index.ts";
import type { ToolSpec } from "../../models/types.ts";
import { ROLE_PROFILE_DIR } from "../../profiles/index.ts";
import { ANSWER_TOOL, answerToolSpec } from "./answer.ts";
import { SUBMIT_CHECK_TOOL, submitCheckSpec } from "./checkSubmission.ts";
import { evidencedAnswerToolSpec } from "./evidencedAnswer.ts";
import { MAIN_SYSTEM, SINGLE_AGENT_SYSTEM, NUDGE_TO_ANSWER, NUDGE_TO_CHECK, NUDGE_TO_HAND_OFF, checkerSystem, childSystem, renderDelegatedTask, renderQuestion } from "./prompts.ts";

export type Role = EventData<"executor_admitted">["role"];
export type Limits = EventData<"executor_admitted">["limits"];

/**
 * What makes Main, a Child, a Reviewer and the Checker different, as data: how the task is
 * put, the system prompt, the terminal tool, the nudge, its default limits and
 * whether it may be reviewed. What it finishes with (`resultName`) picks its
 * finishing rule and what a limit leaves it with (actors/decide/finish.ts,
 * exhaust.ts). No other module branches on the role.
 */
export interface RoleRecord {
  name: Role;
  system(profileContent: string | null): string;
  renderTask(task: TaskSpec): string;
  terminalTool: string;
  terminalSpec: ToolSpec;
  /** The user message that follows a turn ending without the terminal tool. */
  nudge: string;
  /** Told to the model when governance refuses a call. */
  onRefusal: string;
  /** What it finishes with; also what it is called in messages ("answer not accepted ..."). */
  resultName: "answer" | "handoff" | "check";
  defaultLimits: Limits;
  /** Whether a Reviewer may be started on this executor's consumed findings (per the run's reviewer mode). */
  reviewable: boolean;
  /**
   * Tools this role holds and no other role may be granted (the Checker's check tools); absent: the
   * grant follows the profile and the parent's grant (tools/computeGrant.ts).
   */
  ownTools?: readonly string[];
  /** The role's own profile (profiles/roles/), bound at admission like a Child's; absent: the delegation names one. */
  profile?: { id: string; dir: string };
  /** Finishes citing its own tool results (a single agent's evidenced answer) rather than Children's findings. */
  ownEvidence: boolean;
}

const main: RoleRecord = {
  name: "main",
  system: () => MAIN_SYSTEM,
  renderTask: renderQuestion,
  terminalTool: ANSWER_TOOL,
  terminalSpec: answerToolSpec,
  nudge: NUDGE_TO_ANSWER,
  onRefusal: "Answer with what you have.",
  resultName: "answer",
  defaultLimits: { maxTurns: 12, maxToolCalls: 40, maxHandoffRepairs: 2, maxFailedModelCalls: 3 },
  reviewable: true,
  ownEvidence: false,
};

const child: RoleRecord = {
  name: "child",
  system: childSystem,
  renderTask: renderDelegatedTask,
  terminalTool: HANDOFF_TOOL,
  terminalSpec: handoffToolSpec,
  nudge: NUDGE_TO_HAND_OFF,
  onRefusal: "Hand off what you have; note the rest as gaps.",
  resultName: "handoff",
  defaultLimits: { maxTurns: 12, maxToolCalls: 25, maxHandoffRepairs: 2, maxFailedModelCalls: 3 },
  reviewable: false,
  ownEvidence: false,
};

/** A Reviewer is a Child with the reviewer profile: it hands off advice, never approves or vetoes. */
const reviewer: RoleRecord = { ...child, name: "reviewer", defaultLimits: { ...child.defaultLimits, maxTurns: 8, maxToolCalls: 15 } };

/** The check tools (runs/check/checkerTools.ts): deterministic, their outputs recorded, held by the Checker only. */
export const CHECK_TOOLS = ["check_numbers", "reread_sources", "check_advice", "find_unevidenced_claims"] as const;

/**
 * The Checker: started by the host on Main's answer before the run is sealed, with the checker profile;
 * it runs the check tools and submits a verdict per claim (actors/request/checkSubmission.ts).
 */
const checker: RoleRecord = {
  name: "checker",
  system: checkerSystem,
  renderTask: renderDelegatedTask,
  terminalTool: SUBMIT_CHECK_TOOL,
  terminalSpec: submitCheckSpec,
  nudge: NUDGE_TO_CHECK,
  onRefusal: "Submit your verdicts with what the tools have shown; the host records an unfinished check as incomplete.",
  resultName: "check",
  defaultLimits: { maxTurns: 6, maxToolCalls: 8, maxHandoffRepairs: 2, maxFailedModelCalls: 3 },
  reviewable: false,
  ownTools: CHECK_TOOLS,
  profile: { id: "checker", dir: ROLE_PROFILE_DIR },
  ownEvidence: false,
};

export const ROLES: Record<Role, RoleRecord> = { main, child, reviewer, checker };

/** Tools some role holds as its own: never in another role's grant. */
export const OWNED_TOOLS: ReadonlySet<string> = new Set(Object.values(ROLES).flatMap((r) => r.ownTools ?? []));

export const roleOf = (role: Role): RoleRecord => ROLES[role];

/**
 * Main of a single-agent run (`--single-agent`, the control an evaluation
 * compares isolation against): one executor with every tool but delegate,
 * which answers with the evidence it gathered itself. Not reviewable: a
 * Reviewer reads findings Main consumed, and it consumes none.
 */
const singleAgentMain: RoleRecord = {
  ...main,
  // It does its Children's work too: as many turns and tool calls as the configured caps allow Main (governance/config.ts).
  defaultLimits: { ...main.defaultLimits, maxTurns: 40, maxToolCalls: 80 },
  system: () => SINGLE_AGENT_SYSTEM,
  terminalSpec: evidencedAnswerToolSpec,
  reviewable: false,
  ownEvidence: true,
};

/** The record an admitted executor acts by: its role's, or the single agent's for Main of a single-agent run. */
export const roleFor = (admitted: { role: Role; singleAgent?: boolean }): RoleRecord =>
  admitted.role === "main" && admitted.singleAgent ? singleAgentMain : ROLES[admitted.role];
