import { NotFoundError } from "../core/errors.ts";
import type { EventStore, RecordedEvent } from "../events/index.ts";
import { type ClaimProvenanceState, type ExecutorFacts, claimProvenance } from "./claimProvenance.ts";
import type { ClaimChain, FindingChain, QuoteChain, RunClaims, ToolCallChain, TurnChain } from "./claimTypes.ts";
import { foldAll } from "./projection.ts";
import { readKnownRun } from "../events/readKnownRun.ts";

type Basis = ClaimChain["basis"];

const NO_EVIDENCE: Record<Exclude<Basis, "observed">, string> = {
  judgment: "a judgment: Main's reasoning on goals or assumptions, not evidence observed in the run; any finding it cites is context, not proof",
  not_collected: "not collected: the evidence was missing, so nothing was observed for it",
};

/**
 * Every claim of the run's answer, each followed claim -> finding -> evidence
 * (quotes, tool calls) -> sources, with the Child, its profile binding, its
 * handoff and the model turn that wrote the finding. Pure over the folded state.
 */
export function runClaims(runId: string, state: ClaimProvenanceState): RunClaims {
  const main = Object.entries(state.executors).find(([, f]) => f.role === "main" && f.answer);
  if (!main) return { runId, answer: null, claims: [] };
  const [mainId, facts] = main;
  const { answer: body, ...answerEvent } = facts.answer!;
  const sections = Array.isArray(body.sections) ? (body.sections as { heading?: unknown; claims?: unknown }[]) : [];
  const claims: ClaimChain[] = [];
  sections.forEach((section, sectionIndex) => {
    const list = Array.isArray(section.claims) ? (section.claims as { text?: unknown; basis?: unknown; citations?: unknown }[]) : [];
    list.forEach((claim, claimIndex) => {
      const basis = (["observed", "judgment", "not_collected"].includes(String(claim.basis)) ? claim.basis : "not_collected") as Basis;
      const citations = Array.isArray(claim.citations) ? (claim.citations as { executor: string; finding: number }[]) : [];
      claims.push({
        id: `c${claims.length + 1}`,
        section: String(section.heading ?? ""),
        sectionIndex,
        claimIndex,
        text: String(claim.text ?? ""),
        basis,
        noEvidence: basis === "observed" ? null : NO_EVIDENCE[basis],
        findings: citations.map((c) => findingChain(state, c.executor, c.finding)),
      });
    });
  });
  return { runId, answer: { ...answerEvent, executorId: mainId, partial: facts.answer!.partial }, claims };
}

function findingChain(state: ClaimProvenanceState, executorId: string, index: number): FindingChain {
  const child = state.executors[executorId];
  const problems: string[] = [];
  const handoff = child?.handoff ?? null;
  const findings = Array.isArray(handoff?.handoff.findings) ? (handoff.handoff.findings as Record<string, unknown>[]) : [];
  const finding = findings[index];
  if (!child) problems.push(`no stream of executor ${executorId} is in the run`);
  else if (!handoff) problems.push(`executor ${executorId} committed no handoff`);
  else if (!finding) problems.push(`the handoff of ${executorId} has no finding ${index}`);
  const evidence = (finding?.evidence ?? {}) as { toolResults?: unknown; citations?: unknown; quotes?: unknown };
  const quotes = (Array.isArray(evidence.quotes) ? evidence.quotes : []).map((q) => quoteChain(child, q as RawQuote, problems));
  const cited = [...new Set([...strings(evidence.toolResults), ...quotes.map((q) => q.toolUseId)])];
  const toolCalls = cited.flatMap((id) => {
    const call = child?.calls[id];
    if (!call) problems.push(`tool call ${id} is not in the log of ${executorId}`);
    return call ? [call] : [];
  });
  return {
    executorId,
    finding: index,
    claim: typeof finding?.claim === "string" ? finding.claim : null,
    confidence: typeof finding?.confidence === "string" ? finding.confidence : null,
    // Only when set: a run without gathered material folds to the claims it always did.
    ...(finding?.gathered === true && { gathered: true as const }),
    child: { executorId, role: child?.role ?? null, profile: child?.profile ?? null, admission: child?.admission ?? null },
    handoff: handoff ? { eventId: handoff.eventId, streamId: handoff.streamId, streamVersion: handoff.streamVersion, globalPosition: handoff.globalPosition, hash: handoff.hash, forced: handoff.forced } : null,
    turn: child && handoff?.turn ? turnChain(child, handoff.turn) : null,
    quotes,
    toolCalls,
    citations: strings(evidence.citations),
    problems,
  };
}

interface RawQuote {
  toolUseId?: unknown;
  text?: unknown;
  page?: unknown;
  source?: { sha256?: unknown; charStart?: unknown; charEnd?: unknown };
}

function quoteChain(child: ExecutorFacts | undefined, q: RawQuote, problems: string[]): QuoteChain {
  const toolUseId = String(q.toolUseId ?? "");
  const call: ToolCallChain | null = child?.calls[toolUseId] ?? null;
  const s = q.source;
  const blob = s && typeof s.sha256 === "string" && typeof s.charStart === "number" && typeof s.charEnd === "number" ? { sha256: s.sha256, charStart: s.charStart, charEnd: s.charEnd } : null;
  const source = blob && call ? (call.sources.find((x) => x.textSha256 === blob.sha256) ?? call.artifacts.find((a) => a.sha256 === blob.sha256) ?? null) : null;
  if (!blob) problems.push(`a quote of ${toolUseId} has no recorded blob and offsets`);
  else if (!source) problems.push(`the blob ${blob.sha256} of a quote is not one tool call ${toolUseId} read or wrote`);
  return { text: String(q.text ?? ""), page: typeof q.page === "number" ? q.page : null, blob, toolUseId, call, source };
}

function turnChain(f: ExecutorFacts, turn: number): TurnChain | null {
  const t = f.turns[turn];
  if (!t) return null;
  const { toolUses: _uses, ...rest } = t;
  return { ...rest, reminders: (f.delivered[turn] ?? []).map((reminderId) => ({ reminderId, text: f.reminderTexts[reminderId] ?? "" })) };
}

const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((v): v is string => typeof v === "string") : []);

/** A run's claims from its events alone, folded from zero: pure, so a bundle's verifier derives the same chains with no store. */
export function claimsOfEvents(runId: string, events: Iterable<RecordedEvent>): RunClaims {
  return runClaims(runId, foldAll(claimProvenance, events));
}

/** A run's claims folded from zero from its events; an unknown run is a NotFoundError naming it. */
export async function projectClaims(store: Pick<EventStore, "readRun">, runId: string): Promise<RunClaims> {
  const events = await readKnownRun(store, runId);
  return claimsOfEvents(runId, events);
}

/** One claim by id (c1, c2, …); a NotFoundError naming the ids there are. */
export function claimById(claims: RunClaims, claimId: string): ClaimChain {
  const found = claims.claims.find((c) => c.id === claimId);
  if (found) return found;
  const ids = claims.claims.map((c) => c.id);
  throw new NotFoundError(
    ids.length ? `run ${claims.runId} has no claim ${claimId}: its claims are ${ids[0]}…${ids.at(-1)}` : `run ${claims.runId} has no answer, so no claim ${claimId}`,
  );
}
