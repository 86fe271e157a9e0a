import { ScriptedModel, type ScriptPolicy, type ScriptedReply } from "../models/index.ts";
import { resultsOf, turnsTaken } from "./requestView.ts";

const CHECK_TOOLS = ["check_numbers", "reread_sources", "check_advice", "find_unevidenced_claims"];

type Verdict = "supported" | "flagged" | "no_evidence";
interface Outputs {
  numbers?: { claims: { claim_id: string; unsupported_numbers: string[]; flagged: boolean }[] };
  sources?: { sources: { url: string; state: string; claims: string[] }[] };
  advice?: { advice: { where: string; rule: string }[] };
  unevidenced?: { claims: { claim_id: string; why?: string }[] };
}

const last = <T>(request: Parameters<ScriptPolicy>[0], tool: string): T | undefined => {
  const out = resultsOf(request, tool).at(-1)?.output;
  return out === undefined ? undefined : (JSON.parse(out) as T);
};

/** A verdict per claim read off the check tools' outputs, with the output each rests on. */
function verdictsFrom(o: Outputs): { claim_id: string; verdict: Verdict; note?: string }[] {
  return (o.numbers?.claims ?? []).map((c) => {
    const why: string[] = [];
    if (c.flagged) why.push(`check_numbers: ${c.unsupported_numbers.join(", ")} in no cited text`);
    for (const s of o.sources?.sources ?? []) {
      if (s.claims.includes(c.claim_id) && (s.state === "no_longer_supports" || s.state === "unreachable")) why.push(`reread_sources: ${s.url} ${s.state}`);
    }
    for (const a of o.advice?.advice ?? []) if (a.where === c.claim_id) why.push(`check_advice: ${a.rule}`);
    if (why.length) return { claim_id: c.claim_id, verdict: "flagged", note: `(scripted) ${why.join("; ")}` };
    const bare = o.unevidenced?.claims.find((u) => u.claim_id === c.claim_id);
    return bare ? { claim_id: c.claim_id, verdict: "no_evidence", note: `(scripted) find_unevidenced_claims: ${bare.why ?? "no evidence"}` } : { claim_id: c.claim_id, verdict: "supported" };
  });
}

/**
 * The offline Checker: runs the four check tools in one turn, then submits the
 * verdicts their outputs give. Only the judgment is scripted (it follows the
 * tools exactly); the tools and the runtime around it are real, and every
 * response is labelled scripted.
 */
export const scriptedCheckerPolicy: ScriptPolicy = (request): ScriptedReply => {
  if (turnsTaken(request) === 0) {
    return {
      content: [
        { type: "text", text: "(scripted) Running every check tool on the drafted answer." },
        ...CHECK_TOOLS.map((name) => ({ type: "tool_use" as const, name, input: {} })),
      ],
    };
  }
  const verdicts = verdictsFrom({
    numbers: last(request, "check_numbers"),
    sources: last(request, "reread_sources"),
    advice: last(request, "check_advice"),
    unevidenced: last(request, "find_unevidenced_claims"),
  });
  return { content: [{ type: "tool_use", name: "submit_check", input: { verdicts } }] };
};

export function scriptedCheckerModel(options: { latencyMs?: number } = {}): ScriptedModel {
  return new ScriptedModel({ name: "checker", policy: scriptedCheckerPolicy, latencyMs: options.latencyMs });
}
