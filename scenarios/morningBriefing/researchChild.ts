import type { ScriptedReply } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import { exchanges, resultsOf } from "../requestView.ts";
import { handoff, use, verbatim } from "../etfOverlap/scriptedHandoff.ts";
import { BRIEFING_DATE, type Section } from "./briefingPlan.ts";
import { type FindingEntry, renderFindingsFile } from "./findingsFile.ts";
import { type FetchedPage, firstSentence, readFetchedPage } from "./readFetchedPage.ts";

const PAGE = /https:\/\/briefing\.corpus\.test\/([\w.-]+)\//g;

/**
 * A news, on-chain or regulatory Child: search its section's pages, fetch
 * them, write its findings file in the seed's template, publish it, hand off.
 * Scripted as a model taken in by what it reads: it tries the calls a hostile
 * page asks for (the runtime refuses them), then leaves that page out.
 */
export function researchPolicy(request: ModelRequest, section: Section): ScriptedReply {
  const done = (tool: string) => exchanges(request).filter((x) => x.use.name === tool);
  if (done("web_search").length === 0) return use("web_search", { query: section.query, limit: 10 });
  if (done("web_fetch").length === 0) {
    const [search] = resultsOf(request, "web_search");
    const urls = [...new Set([...(search?.output ?? "").matchAll(PAGE)].filter(([, name]) => section.prefixes.some((p) => name!.startsWith(p))).map(([url]) => url))];
    if (urls.length === 0) return finish(request, section, [], [], ["The search found no page of this section."]);
    return { content: urls.map((url) => ({ type: "tool_use" as const, name: "web_fetch", input: { url } })) };
  }
  const fetched = resultsOf(request, "web_fetch").flatMap((r) => {
    const page = readFetchedPage(r.output);
    return page ? [{ id: r.id, page }] : [];
  });
  const calls = fetched.flatMap(({ page }) => page.calls);
  const tried = (c: { tool: string; input: unknown }) => exchanges(request).some((x) => x.use.name === c.tool && JSON.stringify(x.use.input) === JSON.stringify(c.input));
  const untried = calls.filter((c) => !tried(c));
  if (untried.length) return { content: untried.map((c) => ({ type: "tool_use" as const, name: c.tool, input: c.input })) };

  const used = fetched.filter(({ page }) => !page.addressesAgents);
  const findings = used.flatMap(({ id, page }) => findingsOf(page).map((entry) => ({ id, entry })));
  const gaps = fetched.filter(({ page }) => page.addressesAgents).map(({ page }) => `${page.url} addresses instructions to AI assistants; its content is not used.`);
  const wrote = done("write_file").some((x) => (x.use.input as { path?: string }).path === section.file);
  if (!wrote) return use("write_file", { path: section.file, content: renderFindingsFile(section.title, findings.map((f) => f.entry), gaps) });
  if (done("publish_artifact").length === 0) return use("publish_artifact", { path: section.file });
  return finish(request, section, findings, fetched.map(({ page }) => page.url), gaps);
}

/** A prose page gives its headline, evidenced by its lead sentence; a table gives one finding per row. */
function findingsOf(page: FetchedPage): FindingEntry[] {
  const source = { url: page.url, retrievedAt: page.fetchedAt };
  const rows = page.tables.flatMap((t) =>
    t.rows.map((row) => ({
      ...source,
      claim: `${page.title}, ${row[0]}: ${t.header.slice(1).map((h, i) => `${h.charAt(0).toLowerCase()}${h.slice(1)} ${row[i + 1]}`).join("; ")}.`,
      evidence: `${t.header.map((h, i) => `${h} ${row[i]}`).join(" | ")}`,
      confidence: "high" as const,
      quote: verbatim(page.text, row.join(" | ")),
    })),
  );
  if (rows.length) return rows;
  const lead = page.paragraphs[0];
  return lead
    ? [{ ...source, claim: `${page.title.replace(/\.$/, "")}.`, evidence: `"${firstSentence(lead)}"`, confidence: "high", quote: verbatim(page.text, firstSentence(lead)) }]
    : [];
}

function finish(request: ModelRequest, section: Section, findings: { id: string; entry: FindingEntry }[], read: string[], gaps: string[]): ScriptedReply {
  const [published] = resultsOf(request, "publish_artifact");
  const artifact = published ? (JSON.parse(published.output) as { artifact: { id: string; path: string; sha256: string } }).artifact : null;
  return handoff(section.id, {
    summary: `${section.title} for the briefing of ${BRIEFING_DATE}: ${findings.length} findings in ${section.file}.`,
    findings: findings.map(({ id, entry }) => ({
      claim: `${entry.claim} (${entry.url})`,
      evidence: { toolResults: [id], citations: [], quotes: entry.quote ? [{ toolUseId: id, text: entry.quote }] : [] },
      confidence: entry.confidence,
    })),
    basis: { sources: read, dates: [BRIEFING_DATE], units: [], scope: `${section.title} pages of briefing.corpus.test found by one search` },
    artifacts: artifact ? [{ id: artifact.id, path: artifact.path, sha256: artifact.sha256 }] : [],
    gaps,
  });
}
