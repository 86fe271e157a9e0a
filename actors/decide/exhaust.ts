import { type GatheredResult, type Handoff, addressesAgents, gatheredFindings, markUnknownEffects, partialHandoff, validateHandoff } from "../../handoff/index.ts";
import { DELEGATE_TOOL } from "../../tools/index.ts";
import { AnswerSchema } from "../request/answer.ts";
import type { ExecutorState, Stop } from "../fold/executorState.ts";
import type { RoleRecord } from "../request/roles.ts";
import { type Draft, LIMIT_LABELS } from "./draft.ts";
import { handoffFacts, heldHandoffs, unknownEffectsOf } from "./finish.ts";

/**
 * The caveat a stopped executor's partial result carries: which limit, and how
 * far it got ("stopped at the tool call limit (25 of 25) after 7 turns").
 */
export function stopCaveat(s: ExecutorState, stop: Stop): string {
  const turns = `${s.turn} turn${s.turn === 1 ? "" : "s"}`;
  switch (stop.limit) {
    case null:
      return stop.reason;
    case "executor_tool_calls":
      return `stopped at the tool call limit (${s.toolCalls} of ${s.limits.maxToolCalls}) after ${turns}`;
    case "executor_turns":
      return `stopped at the turn limit (${s.turn} of ${s.limits.maxTurns}) after ${s.toolCalls} tool call${s.toolCalls === 1 ? "" : "s"}`;
    default:
      return `stopped at the ${LIMIT_LABELS[stop.limit] ?? stop.limit} after ${turns} and ${s.toolCalls} tool calls: ${stop.reason}`;
  }
}

/** The input of the last handoff the model tried, or undefined when it never tried. */
export function lastHandoffAttempt(s: Pick<ExecutorState, "messages">): unknown {
  const last = [...s.messages]
    .reverse()
    .flatMap((m) => (m.role === "assistant" ? m.content : []))
    .find((b) => b.type === "tool_use" && b.name === "handoff");
  return last?.type === "tool_use" ? last.input : undefined;
}

/** The last handoff the model tried, salvaged to what is valid; null when it never tried. */
function salvageLastAttempt(s: ExecutorState, blobTexts?: ReadonlyMap<string, string>): Handoff | null {
  const last = lastHandoffAttempt(s);
  if (last === undefined) return null;
  const verdict = validateHandoff(last, handoffFacts(s, blobTexts));
  return verdict.ok ? verdict.handoff : verdict.salvage;
}

/** The strings of a raw handoff attempt's gaps and caveats: where a Child says what it left out. */
function statedExclusions(attempt: unknown): string[] {
  const raw = (attempt ?? {}) as { gaps?: unknown; caveats?: unknown };
  return [raw.gaps, raw.caveats].flatMap((list) => (Array.isArray(list) ? list.filter((x): x is string => typeof x === "string") : []));
}

/** A gathered result left out, and why. */
interface LeftOut {
  result: GatheredResult;
  why: string;
}

/**
 * The successful tool results no finding of `salvage` cites, in the order they
 * came (the latest result of a reused tool use id), with the input that asked
 * for each and the blobs it stored. A background delegation's "working" note is
 * not a result. Left out: a result whose source the Child itself excluded (its
 * last handoff attempt names the URL in its gaps or caveats) and a result whose
 * text addresses instructions to AI assistants (a hostile page): neither is
 * handed on as material, gathered or not.
 */
function uncitedResults(s: ExecutorState, salvage: Handoff | null): { kept: GatheredResult[]; leftOut: LeftOut[] } {
  const cited = new Set(salvage?.findings.flatMap((f) => f.evidence.toolResults) ?? []);
  const excluded = [...statedExclusions(lastHandoffAttempt(s)), ...(salvage ? [...salvage.gaps, ...salvage.caveats] : [])].join("\n");
  const inputs = new Map<string, unknown>();
  const results = new Map<string, GatheredResult>();
  for (const m of s.messages) {
    if (typeof m.content === "string") continue;
    for (const b of m.content) {
      if (b.type === "tool_use") inputs.set(b.id, b.input);
      if (b.type !== "tool_result" || b.is_error) continue;
      const recorded = s.toolResults[b.tool_use_id];
      if (!recorded || recorded.tool === DELEGATE_TOOL || cited.has(b.tool_use_id)) continue;
      results.delete(b.tool_use_id);
      results.set(b.tool_use_id, { toolUseId: b.tool_use_id, tool: recorded.tool, input: inputs.get(b.tool_use_id), output: b.content, blobs: recorded.quotable ?? [] });
    }
  }
  const kept: GatheredResult[] = [];
  const leftOut: LeftOut[] = [];
  for (const r of results.values()) {
    const urls = [...(r.blobs ?? []).map((b) => b.label.replace(/^source /, "")), ...(typeof (r.input as { url?: unknown })?.url === "string" ? [(r.input as { url: string }).url] : [])];
    const named = urls.find((u) => /^[a-z]+:/.test(u) && excluded.includes(u));
    const hostile = addressesAgents(r.output);
    if (named) leftOut.push({ result: r, why: `${named}: the Child excluded it` });
    else if (hostile) leftOut.push({ result: r, why: `${urls.find((u) => /^[a-z]+:/.test(u)) ?? `${r.tool} ${r.toolUseId}`}: its text ${hostile === "addresses AI assistants" ? "addresses instructions to AI assistants" : hostile}` });
    else kept.push(r);
  }
  return { kept, leftOut };
}

/**
 * Exhaustion is not a crash: a Child stopped by a limit (or out of repairs)
 * hands off what it has, partial and low confidence, with a caveat naming the
 * stop. Tool results it gathered but never cited are not dropped: each becomes
 * gathered, unverified material (gatheredFindings), except those it excluded or
 * that address instructions to AI assistants, which are named in a gap and left out.
 */
export function exhaustWithHandoff(s: ExecutorState, stop: Stop, blobTexts?: ReadonlyMap<string, string>): Draft[] {
  const caveat = stopCaveat(s, stop);
  const salvage = salvageLastAttempt(s, blobTexts);
  const { kept, leftOut } = uncitedResults(s, salvage);
  const gathered = gatheredFindings(kept);
  const leftOutGap = leftOut.length
    ? [`${leftOut.length} gathered tool result(s) left out, not handed on: ${leftOut.map((l) => l.why).join("; ")}.`]
    : [];
  const withGathered: Handoff | null =
    gathered.length === 0
      ? salvage
      : salvage
        ? { ...salvage, findings: [...salvage.findings, ...gathered] }
        : {
            summary: `Stopped before writing a handoff (${caveat}); ${gathered.length} tool result(s) were gathered but not summarised: each is unverified material (a finding marked gathered) showing an excerpt of its output.`,
            findings: gathered,
            measurementBasis: { sources: [], dates: [], units: [], scope: "raw tool output gathered before the stop, not checked against the task" },
            artifacts: [],
            gaps: ["The gathered tool results were not summarised or checked against the task: cite them only as unverified."],
            executionState: "partial",
            confidence: "low",
            caveats: [],
          };
  const built = partialHandoff(withGathered, caveat);
  const handoff = { ...built, gaps: [...built.gaps, ...leftOutGap] };
  const caveats = stop.limit === null ? handoff.caveats : [...handoff.caveats, caveat];
  const marked = markUnknownEffects({ ...handoff, confidence: "low", caveats }, unknownEffectsOf(s));
  return [
    { type: "handoff_committed", data: { handoff: marked, repairs: s.repairs, forced: true } },
    { type: "settled", data: { outcome: "handed_off" } },
  ];
}

/**
 * Main stopped by a limit settles with a partial answer built from the
 * handoffs it holds, marked as such, instead of failing and hiding its Children's work.
 */
export function exhaustWithAnswer(s: ExecutorState, stop: Stop): Draft[] {
  const caveat = stopCaveat(s, stop);
  const held = Object.entries(heldHandoffs(s)) as [string, { findings?: { claim: string; gathered?: boolean }[]; summary?: string }][];
  type Claim = { text: string; basis: "observed" | "not_collected"; citations: { executor: string; finding: number }[] };
  // Gathered material no Child summarised is cited as unverified (not collected), never as observed.
  const claims = held.flatMap(([executor, h]): Claim[] =>
    h.findings?.length
      ? h.findings.map((f, finding) =>
          f.gathered
            ? { text: `Unverified: ${f.claim}`, basis: "not_collected" as const, citations: [{ executor, finding }] }
            : { text: f.claim, basis: "observed" as const, citations: [{ executor, finding }] },
        )
      : [{ text: `Nothing usable came back from ${executor}: ${h.summary ?? "no summary"}`, basis: "not_collected" as const, citations: [] }],
  );
  const answer = AnswerSchema.parse({
    summary: `Partial answer: ${caveat}. Built only from the ${held.length} handoff(s) received; it was not integrated by the model.`.slice(0, 2000),
    sections: [
      {
        heading: "What the handoffs received established",
        claims: claims.length ? claims : [{ text: "No handoff arrived before the stop.", basis: "not_collected", citations: [] }],
      },
    ],
  });
  return [{ type: "settled", data: { outcome: "answered", answer, partial: true } }];
}

/**
 * The Checker stopped by a limit or the budget before it submitted: no verdicts, and why. The host
 * records the run's check as incomplete from it, never as passed.
 */
export function exhaustWithCheck(s: ExecutorState, stop: Stop): Draft[] {
  return [
    { type: "check_submitted", data: { verdicts: [], forced: true, reason: stopCaveat(s, stop) } },
    { type: "settled", data: { outcome: "checked" } },
  ];
}

/**
 * A single agent stopped: its own work committed as a Child's would be (what
 * it gathered, partial), then a partial answer citing those findings by its own id.
 */
export function exhaustWithOwnEvidence(s: ExecutorState, stop: Stop, blobTexts?: ReadonlyMap<string, string>): Draft[] {
  const [committed] = exhaustWithHandoff(s, stop, blobTexts);
  const handoff = (committed as Extract<Draft, { type: "handoff_committed" }>).data.handoff;
  const holding = { ...s, children: { [s.executorId]: { toolUseId: s.executorId, consumed: true, handoff } } };
  return [committed!, ...exhaustWithAnswer(holding, stop)];
}

/** Stopped by a limit or out of repairs: the partial result the role settles with. */
export function exhaust(role: Pick<RoleRecord, "resultName" | "ownEvidence">, s: ExecutorState, stop: Stop, blobTexts?: ReadonlyMap<string, string>): Draft[] {
  if (role.resultName === "check") return exhaustWithCheck(s, stop);
  if (role.ownEvidence) return exhaustWithOwnEvidence(s, stop, blobTexts);
  return role.resultName === "answer" ? exhaustWithAnswer(s, stop) : exhaustWithHandoff(s, stop, blobTexts);
}
