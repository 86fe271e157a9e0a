/** Building blocks of scripted replies: a tool call, a Child's handoff, quotes copied verbatim from a tool's output. */
import type { ScriptedReply } from "./scriptedModel.ts";

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

/**
 * The span of `text` that reads as `squashed` once its whitespace is squashed,
 * exactly as `text` has it (line breaks and runs of spaces kept): what a quote
 * must carry, since the runtime checks quotes verbatim against the stored text.
 */
export function verbatim(text: string, squashed: string): string | undefined {
  const words = squash(squashed).split(" ").filter(Boolean);
  if (words.length === 0) return undefined;
  const pattern = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+"));
  return pattern.exec(text)?.[0];
}

/** A quote of a tool call's output, for evidence.quotes; none when the text is not there verbatim. */
export function quoteOf(toolUseId: string, output: string, squashed: string, page?: number): { toolUseId: string; text: string; page?: number }[] {
  const text = verbatim(output, squashed);
  return text ? [{ toolUseId, text, ...(page === undefined ? {} : { page }) }] : [];
}

/** The quoted text of a web_fetch (<untrusted_source>) or document_read (<untrusted-document>) result. */
export function quotedText(output: string): string {
  const open = /<untrusted[-_](?:source|document)\b[^>]*>/.exec(output);
  const end = output.search(/<\/untrusted[-_](?:source|document)>/);
  return open && end > open.index ? output.slice(open.index + open[0].length, end) : "";
}
