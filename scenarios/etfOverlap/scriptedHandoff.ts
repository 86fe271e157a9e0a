import type { ScriptedReply } from "../../models/index.ts";

export interface Basis {
  sources: string[];
  dates: string[];
  units: string[];
  scope: string;
}

export const emptyBasis: Basis = { sources: [], dates: [], units: [], scope: "" };

export function use(name: string, input: unknown): ScriptedReply {
  return { content: [{ type: "tool_use", name, input }] };
}

/** A Child's handoff; its summary starts with `[profile]`, which Main uses to tell the three apart. */
export function handoff(
  profile: string,
  h: { summary: string; findings: unknown[]; basis: Basis; gaps: string[]; artifacts?: { id: string; path: string; sha256: string }[] },
): ScriptedReply {
  return use("handoff", {
    summary: `[${profile}] (scripted) ${h.summary}`,
    findings: h.findings,
    measurementBasis: h.basis,
    artifacts: h.artifacts ?? [],
    gaps: h.gaps,
    executionState: h.findings.length ? "completed" : "partial",
    confidence: h.findings.length ? "medium" : "low",
    caveats: ["Produced by a scripted model over a synthetic corpus of fetched pages and files."],
  });
}

export const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** The quoted text of a web_fetch (<untrusted_source>) or document_read (<untrusted-document>) result. */
export function quotedText(output: string): string {
  const open = /<untrusted[-_](?:source|document)\b[^>]*>/.exec(output);
  const end = output.search(/<\/untrusted[-_](?:source|document)>/);
  return open && end > open.index ? output.slice(open.index + open[0].length, end) : "";
}
