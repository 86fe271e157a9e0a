import type { ScriptedReply } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import { resultsOf, turnsTaken } from "../requestView.ts";
import { PROSPECTUS_URL } from "./corpusUrls.ts";
import { handoff, quoteOf, quotedText, squash, use } from "./scriptedHandoff.ts";

/** The principal risks quoted, and the prospectus pages that hold them. */
const RISKS = [
  { name: "Dividend concentration risk", page: 2 },
  { name: "Securities lending risk", page: 3 },
] as const;
const RISK_PAGES = "2-3";

/** Document reader: fetch the prospectus PDF (stored as a blob), read its risk pages, quote the main risks with their footnotes, hand off. */
export function risksPolicy(request: ModelRequest): ScriptedReply {
  const step = turnsTaken(request);
  if (step === 0) return use("web_fetch", { url: PROSPECTUS_URL });
  const [fetched] = resultsOf(request, "web_fetch");
  const sha256 = fetched && /stored as blob sha256 ([0-9a-f]{64})/.exec(fetched.output)?.[1];
  if (step === 1 && sha256) return use("document_read", { sha256, pages: RISK_PAGES });
  const [read] = resultsOf(request, "document_read");
  const pages = read ? pagesOf(quotedText(read.output)) : new Map<number, string>();
  const findings = RISKS.flatMap((risk) => {
    const found = passage(pages.get(risk.page) ?? "", risk.name);
    if (!found || !read || !fetched) return [];
    // A footnote marker is quoted with its note: "(5)" alone would hide who the lending agent is.
    const notes = found.footnotes.map((f) => `Footnote ${f.marker}: "${f.text}"`);
    return [
      {
        claim: [`The prospectus discloses on page ${risk.page}: "${found.text}"`, ...notes].join(" "),
        // The passage and each note quoted from the page's text as document_read printed it.
        evidence: {
          toolResults: [read.id, fetched.id],
          citations: [],
          quotes: [found.text, ...found.footnotes.map((f) => `${f.marker} ${f.text}`)].flatMap((q) => quoteOf(read.id, quotedText(read.output), q, risk.page)),
        },
        confidence: "high" as const,
      },
    ];
  });
  return handoff("document-reader", {
    summary: "Principal risks of ADIV as disclosed on pages 2-3 of the prospectus excerpt (PDF), quoted with their footnotes.",
    findings,
    basis: { sources: [`${PROSPECTUS_URL}${sha256 ? ` (stored blob sha256 ${sha256})` : ""}`], dates: ["2026-02-01"], units: [], scope: "Principal risk pages 2 and 3 of the prospectus excerpt only" },
    gaps: findings.length < RISKS.length ? ["A principal risk passage could not be quoted from the prospectus."] : ["Prospectus pages other than the principal-risk pages were not read."],
  });
}

/** document_read's text split at its "[page N]" markers. */
function pagesOf(text: string): Map<number, string> {
  // split with a capture group: [before, n1, text1, n2, text2, ...]
  const parts = text.split(/^\[page (\d+)\]$/m);
  const pages = new Map<number, string>();
  for (let i = 1; i + 1 < parts.length; i += 2) pages.set(Number(parts[i]), parts[i + 1]!.trim());
  return pages;
}

/**
 * The paragraph of a page that starts with `name`: its lines up to the next
 * risk heading or footnote; and the notes its "(n)" markers point to.
 */
function passage(page: string, name: string): { text: string; footnotes: { marker: string; text: string }[] } | null {
  const lines = page.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`${name}:`));
  if (start < 0) return null;
  const rest = lines.slice(start + 1);
  const stop = rest.findIndex((l) => /^[A-Z][\w -]* risk:|^\(\d+\) /.test(l));
  const text = squash([lines[start], ...(stop < 0 ? rest : rest.slice(0, stop))].join(" "));
  const footnotes = [...text.matchAll(/\((\d+)\)/g)].flatMap(([marker]) => {
    const note = lines.find((l) => l.startsWith(`${marker} `));
    return note ? [{ marker, text: squash(note.slice(marker.length)) }] : [];
  });
  return { text, footnotes };
}
