import type { ScriptedReply } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import { exchanges, resultsOf } from "../requestView.ts";
import { handoff, quoteOf, quotedText, use } from "../etfOverlap/scriptedHandoff.ts";
import { BRIEFING_DATE, BRIEFING_FILE, SECTIONS } from "./briefingPlan.ts";
import { type FindingEntry, parseFindingsFile } from "./findingsFile.ts";

/** The findings files the writer's task names: `<section id>: <path> sha256 <hex>`, one a line. */
function findingsFilesOf(request: ModelRequest): { section: string; sha256: string }[] {
  const first = request.messages[0];
  const text = typeof first?.content === "string" ? first.content : (first?.content ?? []).map((b) => ("text" in b ? b.text : "")).join("\n");
  return [...text.matchAll(/^(\w+): \S+ sha256 ([0-9a-f]{64})$/gm)].map(([, section, sha256]) => ({ section: section!, sha256: sha256! }));
}

/**
 * The writer: read the three findings files (published artifacts, opened by
 * sha256), write briefing.md with every finding under its section and a
 * numbered source list, publish it, hand off one finding per briefing item.
 */
export function writerPolicy(request: ModelRequest): ScriptedReply {
  const files = findingsFilesOf(request);
  const reads = exchanges(request).filter((x) => x.use.name === "document_read");
  if (reads.length === 0) {
    if (files.length === 0) return handoff("writer", { summary: "No findings files were named.", findings: [], basis: { sources: [], dates: [], units: [], scope: "" }, gaps: ["The task named no findings file."] });
    return { content: files.map((f) => ({ type: "tool_use" as const, name: "document_read", input: { sha256: f.sha256 } })) };
  }
  const read = reads.flatMap((x) => {
    const sha256 = (x.use.input as { sha256: string }).sha256;
    const section = files.find((f) => f.sha256 === sha256)?.section;
    const text = x.result && !x.result.is_error ? quotedText(x.result.content) : "";
    return text && section ? [{ id: x.use.id, section, text, entries: parseFindingsFile(text.replace(/^\(Content of the document[^\n]*\n/, "")) }] : [];
  });
  const items = SECTIONS.flatMap((s) => read.filter((r) => r.section === s.id).flatMap((r) => r.entries.map((entry) => ({ section: s, id: r.id, text: r.text, entry }))));
  const sources = [...new Map(items.map(({ entry }) => [entry.url, entry.retrievedAt])).entries()];
  if (!exchanges(request).some((x) => x.use.name === "write_file")) return use("write_file", { path: BRIEFING_FILE, content: briefing(items.map((i) => ({ section: i.section.title, entry: i.entry })), sources) });
  if (!exchanges(request).some((x) => x.use.name === "publish_artifact")) return use("publish_artifact", { path: BRIEFING_FILE });
  const [published] = resultsOf(request, "publish_artifact");
  const artifact = published ? (JSON.parse(published.output) as { artifact: { id: string; path: string; sha256: string } }).artifact : null;
  return handoff("writer", {
    summary: `The morning briefing of ${BRIEFING_DATE} in ${BRIEFING_FILE}: ${items.length} items from ${sources.length} sources.`,
    findings: items.map(({ section, id, text, entry }) => ({
      claim: `${section.title}: ${entry.claim} (source: ${entry.url})`,
      // The finding's block in the findings file it came from, quoted as the file has it.
      evidence: { toolResults: [id], citations: [], quotes: quoteOf(id, text, `Claim: ${entry.claim}`) },
      confidence: entry.confidence,
    })),
    basis: { sources: sources.map(([url]) => url), dates: [BRIEFING_DATE], units: [], scope: "The three findings files handed over; nothing else was read." },
    artifacts: artifact ? [{ id: artifact.id, path: artifact.path, sha256: artifact.sha256 }] : [],
    gaps: SECTIONS.filter((s) => !read.some((r) => r.section === s.id)).map((s) => `The ${s.title} findings could not be read.`),
  });
}

/** briefing.md: labelled machine-generated, each item numbered to its source, the sources listed with when they were read. */
function briefing(items: { section: string; entry: FindingEntry }[], sources: [string, string][]): string {
  const number = new Map(sources.map(([url], i) => [url, i + 1]));
  const sections = [...new Set(items.map((i) => i.section))].map((title) =>
    [`## ${title}`, ...items.filter((i) => i.section === title).map((i) => `- ${i.entry.claim} Evidence: ${i.entry.evidence} [${number.get(i.entry.url)}]`)].join("\n"),
  );
  return `${[
    `# Morning briefing, ${BRIEFING_DATE}`,
    "Machine-generated first draft for analyst review: research and summary only, no trade recommendations, price targets or position advice.",
    ...sections,
    ["## Sources", ...sources.map(([url, at], i) => `[${i + 1}] ${url} (retrieved ${at})`)].join("\n"),
  ].join("\n\n")}\n`;
}
