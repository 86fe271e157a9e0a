/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { canonicalJson } from "../core/canonicalJson.ts";
import type { FindingChain, QuoteChain, SourceRef, ToolCallChain } from "../projections/claimTypes.ts";
import type { AuditClaim, AuditPageData } from "./auditData.ts";
import type { CheckSummary } from "./checkerBadges.ts";
import { BADGE_LABELS, FLAG_LABELS } from "./claimBadge.ts";
import type { Excerpt } from "./excerpt.ts";
import { pagePolicy, pageStyle } from "./pageStyle.ts";
import type { Lane } from "./timeline.ts";
import type { Verdict } from "./verdict.ts";

/**
 * The audit page, one self-contained HTML document: no script (a claim opens
 * as a <details>), one inlined stylesheet allowed by its hash, nothing fetched.
 * The same string is served at GET /v1/runs/{id}/audit and written as audit.html.
 */
export function renderAuditPage(data: AuditPageData): string {
  const html = (<Page data={data} />).toString();
  // Every component here is synchronous; a promise would mean one was not.
  if (typeof html !== "string") throw new Error("the audit page rendered asynchronously");
  return `<!DOCTYPE html>\n${html}\n`;
}

/** The Content-Security-Policy the page declares in its <meta>: a route serving it sends the same as a header. */
export const auditPagePolicy = (data: Pick<AuditPageData, "check">): string => pagePolicy(pageStyle(data.check !== null));

function Page({ data }: { data: AuditPageData }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="Content-Security-Policy" content={auditPagePolicy(data)} />
        <meta name="referrer" content="no-referrer" />
        <title>{`Audit of run ${data.runId}`}</title>
        <style dangerouslySetInnerHTML={{ __html: pageStyle(data.check !== null) }} />
      </head>
      <body>
        <Banner runId={data.runId} verdict={data.verdict} check={data.check} />
        <main>
          <section class="answer">
            <h2>Question</h2>
            <p id="question">{data.question}</p>
            <h2>Answer{data.partial ? " (partial)" : ""}</h2>
            {data.answered ? <p id="summary">{data.summary}</p> : <p>The run has no answer.</p>}
            <Claims claims={data.claims} />
          </section>
          <section class="timeline">
            <h2>Timeline</h2>
            {data.lanes.map((lane) => <LaneView lane={lane} />)}
          </section>
        </main>
      </body>
    </html>
  );
}

function Banner({ runId, verdict, check }: { runId: string; verdict: Verdict; check: CheckSummary | null }) {
  return (
    <header class={`verdict ${verdict.intact ? "ok" : "bad"}`} id="verdict" data-intact={String(verdict.intact)}>
      <h1>{verdict.intact ? "Chain intact" : "Chain NOT intact"}</h1>
      {check ? <CheckBadge check={check} /> : null}
      {verdict.problem ? <p>{verdict.problem}</p> : null}
      <p>
        Run <code>{runId}</code> · root hash <code id="root-hash">{verdict.rootHash ?? "none (not sealed)"}</code>
      </p>
      <p>
        Signing key: <code id="key-id">{verdict.keyId ?? "none: the seal is unsigned"}</code>
      </p>
      <p>Checked: {verdict.checked}</p>
    </header>
  );
}

/** The run's check verdict, beside the chain status: a chain can be intact and its answer still flagged. */
function CheckBadge({ check }: { check: CheckSummary }) {
  const text = `check: ${check.verdict}${check.flagged ? ` (${check.flagged} of ${check.claims} claims flagged)` : ""}${check.reason ? ` · ${check.reason}` : ""}`;
  return (
    <p class={`check check-${check.verdict}`} id="check-verdict" data-verdict={check.verdict}>
      {text}
    </p>
  );
}

function Claims({ claims }: { claims: AuditClaim[] }) {
  const sections: { heading: string; claims: AuditClaim[] }[] = [];
  for (const c of claims) {
    const last = sections.at(-1);
    if (last && last.heading === c.chain.section && sections.length - 1 === c.chain.sectionIndex) last.claims.push(c);
    else sections.push({ heading: c.chain.section, claims: [c] });
  }
  return (
    <div>
      {sections.map((s) => (
        <div class="section">
          <h2>{s.heading}</h2>
          {s.claims.map((c) => (
            <ClaimView claim={c} />
          ))}
        </div>
      ))}
    </div>
  );
}

function ClaimView({ claim }: { claim: AuditClaim }) {
  const { chain, badge } = claim;
  return (
    <details class="claim" id={chain.id} data-claim={chain.id} data-badge={badge.badge} data-flags={badge.flags ? badge.flags.join(" ") : undefined}>
      <summary>
        <span class={`badge badge-${badge.badge}`}>{BADGE_LABELS[badge.badge]}</span>
        {(badge.flags ?? []).map((f) => (
          <span class={`badge flag flag-${f}`} data-flag={f}>
            {FLAG_LABELS[f]}
          </span>
        ))}
        <span class="cid">{chain.id}</span>
        <span class="text">{chain.text}</span>
        <span class="why">{badge.why}</span>
      </summary>
      <div class="chain">
        <p>
          Basis: {chain.basis.replace("_", " ")}
          {chain.noEvidence ? ` · ${chain.noEvidence}` : ""}
        </p>
        {chain.findings.length === 0 ? <p>Cites no finding.</p> : null}
        {chain.findings.map((f, i) => (
          <FindingView finding={f} excerpts={claim.excerpts[i] ?? []} />
        ))}
      </div>
    </details>
  );
}

function FindingView({ finding: f, excerpts }: { finding: FindingChain; excerpts: (Excerpt | string)[] }) {
  return (
    <div class="finding">
      <p>
        Finding {f.finding + 1} of <code>{f.executorId}</code>: {f.claim ?? "(not in the log)"}
        {f.confidence ? ` · confidence ${f.confidence}` : ""}
      </p>
      <dl class="facts">
        <dt>Child</dt>
        <dd>
          {f.child.role ?? "unknown"}
          {f.child.profile ? ` · profile ${f.child.profile.id} v${f.child.profile.version} ` : " · no profile"}
          {f.child.profile ? <code>{f.child.profile.sha256}</code> : null}
        </dd>
        <dt>Handoff</dt>
        <dd>{f.handoff ? <EventLine e={f.handoff} extra={f.handoff.forced ? " (forced)" : ""} /> : "none"}</dd>
        <dt>Model turn</dt>
        <dd>
          {f.turn ? (
            <span class="turn">
              turn {f.turn.turn} of <code>{f.turn.executorId}</code> · {f.turn.model} ({f.turn.provider}
              {f.turn.scripted ? ", scripted" : ""}) · <span class="tokens">{`${f.turn.usage.inputTokens} in / ${f.turn.usage.outputTokens} out tokens`}</span> · request{" "}
              <code>{f.turn.requestDigest}</code>
              {f.turn.responseId ? <> · response <code>{f.turn.responseId}</code></> : null}
              {f.turn.reminders.length ? ` · reminders: ${f.turn.reminders.map((r) => r.text).join(" | ")}` : ""}
            </span>
          ) : (
            "no model turn wrote it (built by the runtime)"
          )}
        </dd>
      </dl>
      {f.quotes.map((q, i) => (
        <QuoteView quote={q} excerpt={excerpts[i] ?? "not shown"} />
      ))}
      {f.toolCalls.map((t) => (
        <ToolView call={t} />
      ))}
      {f.problems.length ? (
        <ul class="problems">
          {f.problems.map((p) => (
            <li>{p}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function QuoteView({ quote: q, excerpt }: { quote: QuoteChain; excerpt: Excerpt | string }) {
  const where = q.page !== null ? `page ${q.page}` : "";
  const offsets = q.blob ? `characters ${q.blob.charStart}-${q.blob.charEnd}` : "";
  return (
    <div class="quote-chain">
      <p>
        Quote from <code>{q.toolUseId}</code>
        {[where, offsets].filter(Boolean).length ? ` · ${[where, offsets].filter(Boolean).join(" · ")}` : ""}
      </p>
      {typeof excerpt === "string" ? (
        <p class="mismatch">{`The quote "${q.text}" cannot be shown in context: ${excerpt}`}</p>
      ) : (
        <>
          {excerpt.matches ? null : <p class="mismatch">{`The blob's text at these offsets is not the recorded quote "${q.text}"`}</p>}
          <blockquote class="excerpt">
            {excerpt.clippedStart ? "…" : ""}
            {excerpt.before}
            <mark class="quote">{excerpt.quote}</mark>
            {excerpt.after}
            {excerpt.clippedEnd ? "…" : ""}
          </blockquote>
        </>
      )}
      <dl class="facts">
        {q.blob ? (
          <>
            <dt>Text blob</dt>
            <dd>
              <code>{q.blob.sha256}</code>
            </dd>
          </>
        ) : null}
        {q.source ? <SourceFacts source={q.source} /> : null}
      </dl>
    </div>
  );
}

function SourceFacts({ source: s }: { source: NonNullable<QuoteChain["source"]> }) {
  if (s.kind === "artifact") {
    return (
      <>
        <dt>Artifact</dt>
        <dd>
          {s.path} <code>{s.sha256}</code>
        </dd>
      </>
    );
  }
  return <SourceRows source={s} />;
}

function SourceRows({ source: s }: { source: SourceRef }) {
  return (
    <>
      <dt>Source</dt>
      <dd class="source-url">
        {s.url}
        {s.finalUrl && s.finalUrl !== s.url ? ` → ${s.finalUrl}` : ""}
        {s.status !== undefined ? ` · ${s.status}` : ""} · {s.contentType}
      </dd>
      <dt>Fetched at</dt>
      <dd class="fetched-at">{s.fetchedAt}</dd>
      <dt>Raw sha256</dt>
      <dd>
        <code>{s.rawSha256}</code>
      </dd>
      <dt>Text sha256</dt>
      <dd>
        <code>{s.textSha256}</code>
      </dd>
    </>
  );
}

function ToolView({ call: t }: { call: ToolCallChain }) {
  return (
    <dl class="facts tool">
      <dt>Tool call</dt>
      <dd>
        {t.tool} <code>{t.toolUseId}</code>
        {t.turn !== null ? ` · turn ${t.turn}` : ""} · input <code>{clip(canonicalJson(t.input) ?? "null", 300)}</code>
      </dd>
      <dt>Intent</dt>
      <dd>{t.intent ? <EventLine e={t.intent} /> : "not in the log"}</dd>
      <dt>Outcome</dt>
      <dd>{t.outcome ? <EventLine e={t.outcome} extra={` ${t.outcome.type}`} /> : "none recorded"}</dd>
      {t.sources.map((s) => (
        <SourceRows source={s} />
      ))}
    </dl>
  );
}

function EventLine({ e, extra = "" }: { e: { eventId: string; streamVersion: number; globalPosition: number; hash: string }; extra?: string }) {
  return (
    <span>
      {`event ${e.eventId} (v${e.streamVersion}, position ${e.globalPosition})${extra} · hash `}
      <code>{e.hash}</code>
    </span>
  );
}

function LaneView({ lane }: { lane: Lane }) {
  return (
    <div class="lane" data-stream={lane.streamId}>
      <h3>{lane.label}</h3>
      <ol>
        {lane.items.map((i) => (
          <li class={`item item-${i.kind}`} title={i.detail}>
            <span class="pos">{i.position}</span>
            {i.label}
          </li>
        ))}
      </ol>
    </div>
  );
}

const clip = (s: string, n: number) => (Array.from(s).length > n ? `${Array.from(s).slice(0, n).join("")}…` : s);
