import { type OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import { type ClaimChain, type FindingChain, type QuoteChain, type ToolCallChain, claimById, projectClaims } from "../projections/index.ts";

/** `ariadne audit RUN [CLAIM_ID]`: every claim's provenance, read from the log only. */
export async function auditCommand(options: OpenOptions & { runId: string; claimId?: string; json: boolean; out: (line: string) => void }): Promise<number> {
  const { store, close } = await openStore({ ...options, readOnly: true });
  try {
    const claims = await projectClaims(store, options.runId);
    const chosen = options.claimId ? [claimById(claims, options.claimId)] : claims.claims;
    if (options.json) options.out(JSON.stringify(options.claimId ? { runId: claims.runId, answer: claims.answer, claim: chosen[0] } : claims));
    else {
      options.out(claims.answer ? `run ${claims.runId}: ${claims.claims.length} claims in the answer (event ${claims.answer.eventId}${claims.answer.partial ? ", partial" : ""})` : `run ${claims.runId}: no answer recorded, so no claims`);
      for (const c of chosen) for (const line of renderClaim(c)) options.out(line);
    }
    return chosen.some((c) => c.findings.some((f) => f.problems.length > 0)) ? 1 : 0;
  } finally {
    await close();
  }
}

export function renderClaim(c: ClaimChain): string[] {
  const lines = ["", `${c.id} ${c.basis} · ${c.section}: ${c.text}`];
  if (c.noEvidence) lines.push(`  no evidence: ${c.noEvidence}`);
  else if (c.findings.length === 0) lines.push("  no evidence: it cites no finding");
  for (const f of c.findings) lines.push(...renderFinding(f));
  return lines;
}

function renderFinding(f: FindingChain): string[] {
  const profile = f.child.profile ? `${f.child.profile.id} v${f.child.profile.version} sha256 ${f.child.profile.sha256}` : "no profile";
  const lines = [`  finding ${f.finding} of ${f.child.role ?? "executor"} ${f.executorId} (${profile}): ${f.claim ?? "(not in the log)"}`];
  if (f.handoff) lines.push(`    handoff ${f.handoff.forced ? "(forced, built by the runtime) " : ""}${at(f.handoff)}`);
  if (f.turn) {
    const t = f.turn;
    lines.push(
      `    written by turn ${t.turn}: model ${t.model} (${t.provider}${t.scripted && t.provider !== "scripted" ? ", scripted" : ""}) · request digest ${t.requestDigest} · response id ${t.responseId ?? "not recorded"} · ${t.usage.inputTokens}+${t.usage.outputTokens} tokens · ${at(t.event)}`,
      `    reminders delivered into it: ${t.reminders.length ? t.reminders.map((r) => `${r.reminderId} "${r.text}"`).join("; ") : "none"}`,
    );
  } else lines.push("    written by no model turn (a partial handoff the runtime built)");
  for (const q of f.quotes) lines.push(...renderQuote(q));
  const quoted = new Set(f.quotes.map((q) => q.toolUseId));
  for (const call of f.toolCalls.filter((c) => !quoted.has(c.toolUseId))) lines.push(...renderCall(call, "    "));
  if (f.quotes.length === 0) lines.push("    no quote: the finding cites tool results only");
  for (const p of f.problems) lines.push(`    NOT FOLLOWED: ${p}`);
  return lines;
}

function renderQuote(q: QuoteChain): string[] {
  const where = q.blob ? `characters ${q.blob.charStart}-${q.blob.charEnd}${q.page === null ? "" : `, page ${q.page}`} of text blob ${q.blob.sha256}` : "no recorded location";
  return [`    quote ${JSON.stringify(q.text)}`, `      at ${where}`, ...(q.call ? renderCall(q.call, "      ") : [`      tool call ${q.toolUseId}: not in the log`])];
}

function renderCall(c: ToolCallChain, indent: string): string[] {
  const lines = [
    `${indent}tool call ${c.tool} ${c.toolUseId} ${JSON.stringify(c.input)}${c.turn === null ? "" : ` (turn ${c.turn})`}`,
    `${indent}  intent ${c.intent ? at(c.intent) : "not recorded"}`,
    `${indent}  outcome ${c.outcome ? `${c.outcome.type} ${at(c.outcome)}` : "not recorded"}`,
  ];
  for (const s of c.sources) {
    const final = s.finalUrl && s.finalUrl !== s.url ? ` (final ${s.finalUrl})` : "";
    lines.push(`${indent}  source ${s.sourceKind} ${s.url}${final} · HTTP ${s.status ?? "-"} · ${s.contentType} · fetched ${s.fetchedAt} · raw sha256 ${s.rawSha256} · text sha256 ${s.textSha256}`);
  }
  for (const a of c.artifacts) lines.push(`${indent}  artifact ${a.id} ${a.path} · sha256 ${a.sha256}`);
  return lines;
}

const at = (e: { streamId: string; streamVersion: number; globalPosition: number; hash: string; eventId: string }) =>
  `event ${e.eventId} (${e.streamId} v${e.streamVersion}, position ${e.globalPosition}, hash ${e.hash})`;
