import { AriadneError, NotFoundError } from "../core/errors.ts";
import type { RecordedEvent } from "../events/types.ts";
import { claimById } from "../projections/claimChains.ts";
import type { ClaimChain, RunClaims, ToolCallChain } from "../projections/claimTypes.ts";
import { sha256Of } from "./manifest.ts";

/** One claim followed down: each step a line, and what broke, if anything. */
export interface ClaimCheck {
  id: string;
  text: string;
  basis: string;
  chain: string[];
  problems: string[];
}

/** `--claim C`: the claim by its projection id (c1, c2, …); an unknown one is bad usage, naming the ids there are. */
export function claimFor(claims: RunClaims, claimId: string): ClaimChain {
  try {
    return claimById(claims, claimId);
  } catch (e) {
    if (e instanceof NotFoundError) throw new AriadneError("USAGE", 400, `--claim ${claimId}: ${e.message} (see answer.md or claims.jsonl)`);
    throw e;
  }
}

/**
 * The Children whose handoff Main consumed: a claim may rest only on findings Main received. A single agent
 * (admitted so) rests on the evidence it committed in its own stream, so it counts as having received its own.
 */
export function receivedBy(claims: RunClaims, events: readonly RecordedEvent[]): Set<string> {
  const main = claims.answer?.executorId;
  const received = new Set(events.flatMap((e) => (e.type === "handoff_consumed" && e.metadata.executorId === main ? [(e as RecordedEvent<"handoff_consumed">).data.childExecutorId] : [])));
  const ownStream = events.filter((e) => e.metadata.executorId === main);
  const single = ownStream.some((e) => e.type === "executor_admitted" && (e as RecordedEvent<"executor_admitted">).data.singleAgent === true);
  if (main && single && ownStream.some((e) => e.type === "handoff_committed")) received.add(main);
  return received;
}

/**
 * A claim's chain as the claim provenance projection follows it (finding ->
 * the Child's handoff and the turn that wrote it -> quotes and tool calls ->
 * sources), checked down to blobs whose bytes hash to the recorded sha256:
 * what the projection could not follow, a finding Main never received, a tool
 * call that did not complete, a blob missing or changed. Quoted text against
 * its blob is checked for every handoff apart (events/quoteProblemsIn.ts).
 */
export function checkClaim(claim: ClaimChain, received: ReadonlySet<string>, blob: (sha256: string) => Uint8Array | null): ClaimCheck {
  const check: ClaimCheck = { id: claim.id, text: claim.text, basis: claim.basis, chain: [], problems: [] };
  const problem = (p: string) => check.problems.push(`claim ${claim.id}: ${p}`);
  if (claim.noEvidence !== null) {
    check.chain.push(`${claim.id} rests on no evidence, and says so: ${claim.noEvidence}`);
    return check;
  }
  if (claim.findings.length === 0) problem("observed, but cites no finding");
  for (const f of claim.findings) {
    const name = `finding ${f.finding + 1} of ${f.executorId}`;
    for (const p of f.problems) problem(p);
    if (!received.has(f.executorId)) problem(`cites ${name}, whose handoff Main never received`);
    if (f.claim === null) continue;
    check.chain.push(`${name} (handoff event ${f.handoff?.eventId}): ${f.claim}`);
    if (f.turn) check.chain.push(`  written in turn ${f.turn.turn} by ${f.turn.model} (event ${f.turn.event.eventId}, request ${f.turn.requestDigest})`);
    for (const q of f.quotes) check.chain.push(`  quote ${JSON.stringify(q.text)} at characters ${q.blob ? `${q.blob.charStart}-${q.blob.charEnd} of blob ${q.blob.sha256}` : "unrecorded"} (${q.toolUseId})`);
    for (const call of f.toolCalls) followCall(call, name, check, problem, blob);
  }
  return check;
}

function followCall(call: ToolCallChain, name: string, check: ClaimCheck, problem: (p: string) => void, blob: (sha256: string) => Uint8Array | null) {
  if (call.outcome?.type !== "tool_completed") {
    problem(`${name} names tool call ${call.toolUseId}, which did not complete (${call.outcome?.type ?? "no outcome recorded"})`);
    return;
  }
  check.chain.push(`  tool ${call.tool} ${call.toolUseId} (event ${call.outcome.eventId}, hash ${call.outcome.hash})`);
  const hashesRight = (sha256: string, what: string) => {
    const bytes = blob(sha256);
    if (!bytes) problem(`${what} (blob ${sha256}) is missing`);
    else if (sha256Of(bytes) !== sha256) problem(`${what} (blob ${sha256}) no longer hashes to ${sha256}`);
  };
  for (const s of call.sources) {
    hashesRight(s.rawSha256, `the raw bytes of source ${s.url}`);
    hashesRight(s.textSha256, `the text of source ${s.url}`);
    check.chain.push(`    source ${s.url} retrieved at ${s.fetchedAt}: raw ${s.rawSha256}, text ${s.textSha256}`);
  }
  for (const a of call.artifacts) {
    hashesRight(a.sha256, `artifact ${a.id} (${a.path})`);
    check.chain.push(`    artifact ${a.id} ${a.path}: ${a.sha256}`);
  }
}
