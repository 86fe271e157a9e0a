import { type ExecutorProgress, type LiveRunState, executorNames, executorsInOrder, runStatus } from "../../projections/index.ts";
import { terminalText } from "../../core/sanitizeText.ts";
import { fitWidth } from "./fitWidth.ts";

/** Everything a frame is drawn from: the fold of the run's events, plus the clock and the terminal's size. */
export interface LiveFrameInput {
  state: LiveRunState;
  /** Now, in ms since the epoch: elapsed times are measured to it while the run works. */
  now: number;
  /** Which spinner frame to show. */
  tick: number;
  /** Terminal columns and rows: every line is cut to fit, and the frame to the screen (cursor-up cannot reach above it). */
  width: number;
  height: number;
  color: boolean;
  /** What the log cannot say: a queued run waiting for a worker, with since when (ms since the epoch). */
  waiting?: { text: string; since: number } | null;
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const CODES = { green: 32, red: 31, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;
type Paint = (style: keyof typeof CODES, text: string) => string;

/**
 * One frame of the live run view, as lines: the run's state and elapsed time, its
 * token budget as a bar, and the executor tree (state, turn, tool in flight,
 * tokens). Pure: the same input gives the same lines, each at most `width - 1`
 * columns (a full-width line would wrap on some terminals and break the redraw).
 */
export function renderLiveView(input: LiveFrameInput): string[] {
  const { state, now, color } = input;
  const paint: Paint = (style, text) => (color ? `\x1b[${CODES[style]}m${text}\x1b[0m` : text);
  const spin = SPINNER[input.tick % SPINNER.length]!;
  const status = runStatus(state.run.lifecycle);
  const over = status !== "running" && status !== "submitted";
  const end = over && state.lastAt ? Date.parse(state.lastAt) : now;
  const elapsed = state.startedAt ? seconds(end - Date.parse(state.startedAt)) : "0s";
  const mark = over ? (status === "settled" ? paint("green", "✔") : paint("red", "✖")) : paint("cyan", spin);
  const { runId, events } = state.run.lifecycle;
  const said = events === 0 ? "reading the log" : status;
  const lines = [`${mark} run${runId ? ` ${runId}` : ""} · ${paint(STATUS_STYLE[said] ?? "cyan", said)} · ${elapsed} · ${events} events`];
  if (input.waiting && !over) lines.push(`${paint("cyan", spin)} ${input.waiting.text} · ${seconds(now - input.waiting.since)}`);
  lines.push(budgetLine(state, input.width, paint));
  const tree = treeLines(state, now, spin, paint);
  // Room for the frame below the cursor: one row is kept free for the cursor itself.
  const room = Math.max(1, input.height - 1 - lines.length);
  if (tree.length > room) lines.push(...tree.slice(0, room - 1), paint("dim", `… ${tree.length - room + 1} more executor lines (the terminal is too short)`));
  else lines.push(...tree);
  // Names, tools and reasons come from the log: only the view's own colour codes reach the terminal.
  return lines.map((line) => fitWidth(terminalText(line, PAINTED), Math.max(10, input.width - 1)));
}

const PAINTED = /\x1b\[(?:0|1|2|31|32|33|36)m/;

const STATUS_STYLE: Record<string, keyof typeof CODES> = { settled: "green", failed: "red", cancelled: "yellow", interrupted: "yellow", submitted: "dim" };

/** The run's tokens (spent and still reserved) against its cap, as a bar; the cost beside it when capped. */
function budgetLine(state: LiveRunState, width: number, paint: Paint): string {
  const { spent, reserved, caps } = state.run.budget.run;
  const used = spent.tokens + reserved.tokens;
  const cost = caps.costMicros === null ? "" : ` · $${(spent.costMicros / 1e6).toFixed(2)} of $${(caps.costMicros / 1e6).toFixed(2)}`;
  if (caps.tokens === null) return `budget ${compact(used)} tokens (no run cap known)${cost}`;
  const share = caps.tokens > 0 ? used / caps.tokens : 1;
  const text = ` ${Math.floor(share * 100)}% · ${compact(used)} of ${compact(caps.tokens)} tokens${cost}`;
  const barWidth = Math.max(5, Math.min(30, width - 1 - "budget [] ".length - text.length));
  const filled = Math.min(barWidth, Math.round(share * barWidth));
  const style = share >= 0.8 ? "red" : share >= 0.5 ? "yellow" : "green";
  return `budget [${paint(style, "█".repeat(filled))}${paint("dim", "░".repeat(barWidth - filled))}]${text}`;
}

/** The executor tree, depth first in admission order, with guides (├─ └─ │) before each Child. */
function treeLines(state: LiveRunState, now: number, spin: string, paint: Paint): string[] {
  const progress = state.run.progress;
  const names = executorNames(progress);
  const all = executorsInOrder(progress);
  const lines: string[] = [];
  const walk = (x: ExecutorProgress, prefix: string, guide: string) => {
    lines.push(`${prefix}${guide}${paint("bold", names.get(x.executorId) ?? x.executorId.slice(0, 8))}  ${executorLine(state, x, now, spin, paint)}`);
    const children = all.filter((c) => c.parentExecutorId === x.executorId);
    const inner = prefix + (guide === "" ? "" : guide === "└─ " ? "   " : "│  ");
    children.forEach((c, i) => walk(c, inner, i === children.length - 1 ? "└─ " : "├─ "));
  };
  for (const root of all.filter((x) => !x.parentExecutorId || !progress.executors[x.parentExecutorId])) walk(root, "", "");
  return lines;
}

/** State (with what it waits on and for how long), turn against its limit, tokens (~: estimated), tool calls. */
function executorLine(state: LiveRunState, x: ExecutorProgress, now: number, spin: string, paint: Paint): string {
  const limits = state.run.budget.executors[x.executorId]?.limits;
  const turn = `turn ${x.turn}${limits?.turns ? `/${limits.turns}` : ""}`;
  const tokens = `${x.usage.estimated ? "~" : ""}${compact(x.usage.inputTokens)}+${compact(x.usage.outputTokens)} tok`;
  const tools = `${x.toolCalls} tool call${x.toolCalls === 1 ? "" : "s"}`;
  return [stateText(state, x, now, spin, paint), turn, tokens, tools].join(paint("dim", " · "));
}

function stateText(state: LiveRunState, x: ExecutorProgress, now: number, spin: string, paint: Paint): string {
  const since = (iso: string) => seconds(now - Date.parse(iso));
  const working = (text: string) => paint("cyan", `${spin} ${text}`);
  switch (x.status) {
    case "admitted":
      return working("starting");
    case "awaitingModel":
      return working(`model call ${since(x.lastEvent.recordedAt)}`);
    case "runningTools": {
      const open = state.tools[x.executorId] ?? [];
      return working(open.length ? `${open.map((c) => c.tool).join(", ")} ${since(open[0]!.since)}` : "tools");
    }
    case "waitingForChildren": {
      const waiting = Object.values(state.run.progress.executors).filter((c) => c.parentExecutorId === x.executorId && !c.terminal).length;
      // Its delegate calls are recorded before their Children are admitted.
      return working(waiting === 0 ? "waiting for Children" : `waiting for ${waiting} Child${waiting === 1 ? "" : "ren"}`);
    }
    case "handingOff":
      return working("handing off");
    case "settled":
      return paint("green", settledAs(x.outcome));
    case "cancelled":
      return paint("yellow", `cancelled${x.outcome?.reason ? `: ${x.outcome.reason}` : ""}`);
    case "failed":
      return paint("red", `failed${x.outcome?.reason ? `: ${x.outcome.reason}` : ""}`);
  }
}

/** 950, 14.2k, 1.5M. */
export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/** 4s, 2m05s. */
function seconds(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/** What a settled executor finished with, in the tree's words. */
function settledAs(outcome: ExecutorProgress["outcome"]): string {
  if (outcome?.kind === "handoff") return outcome.forced ? "handed off (forced partial)" : "handed off";
  if (outcome?.kind === "check") return outcome.forced ? "checked (incomplete)" : "checked";
  return "answered";
}
