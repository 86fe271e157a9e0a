import { createHash } from "node:crypto";

/** The page's one stylesheet, inlined; the policy allows it by its hash, nothing else. */
export const PAGE_STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:1rem 1.5rem 3rem}
code,.hash{font:12px ui-monospace,monospace;word-break:break-all}
.verdict{padding:.8rem 1.5rem;color:#fff}
.verdict.ok{background:#1f6f43}.verdict.bad{background:#a32020}
.verdict h1{font-size:1.2rem;margin:0 0 .3rem}.verdict p{margin:.15rem 0}
.answer h2{font-size:1.05rem;margin:1.2rem 0 .4rem}
details.claim{background:#fff;border:1px solid #d6dae0;border-radius:6px;margin:.4rem 0;padding:.3rem .7rem}
details.claim>summary{cursor:pointer;list-style:none}
details.claim[open]{border-color:#6b7a90}
.badge{display:inline-block;font-size:12px;border-radius:10px;padding:0 .5rem;margin-right:.4rem;color:#fff}
.badge-supported{background:#1f6f43}.badge-number_mismatch{background:#b4530a}.badge-source_changed{background:#8a4b9c}.badge-no_evidence{background:#a32020}.badge-judgment{background:#4b5a75}
.cid{font-weight:600;margin-right:.4rem}.why{color:#5b6473;font-size:13px;margin-left:.4rem}
.finding{border-left:3px solid #c5ccd6;margin:.6rem 0;padding-left:.8rem}
.excerpt{background:#fbfaf4;border:1px solid #e4dfc8;padding:.5rem .7rem;margin:.4rem 0;white-space:pre-wrap}
mark.quote{background:#ffe27a;padding:0 1px}
.mismatch{color:#a32020;font-weight:600}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.3rem 0;font-size:13px}
dl.facts dt{color:#5b6473}dl.facts dd{margin:0}
.problems{color:#a32020}
.lane{background:#fff;border:1px solid #d6dae0;border-radius:6px;margin:.4rem 0;padding:.3rem .7rem}
.lane h3{font-size:13px;margin:.1rem 0 .3rem}
.lane ol{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}
.item{font-size:12px;border-radius:4px;padding:0 .35rem;border:1px solid #c5ccd6}
.item-turn{background:#e5efff}.item-tool{background:#eaf6ec}.item-handoff{background:#fff0d6}.item-reminder{background:#f6e8ff}
.item-review{background:#e6f7f7}.item-cancel{background:#ffe1e1}.item-budget{background:#f1f1f1}.item-lifecycle{background:#fff}
.pos{color:#7a8494;margin-right:.2rem}
`;

/**
 * What a page with the run's check verdict and flag badges adds: the check line beside the chain status and a
 * colour per flag kind. A page whose run has no check of that kind (recorded before flags had kinds) keeps the
 * stylesheet above alone, so its audit.html, re-derived from the same events, stays byte for byte what it was.
 */
export const CHECK_STYLE = `.badge-flagged{background:#a32020}.flag{background:#b4530a}.flag-advice{background:#7a1f5c}.flag-source_changed{background:#8a4b9c}.flag-quote{background:#9c3d10}.flag-artifact{background:#6b4f12}
.check{display:inline-block;font-weight:bold;border-radius:10px;padding:.1rem .6rem;margin:0 0 .4rem;background:#fff;color:#1f6f43}.check-flagged,.check-unsupported,.check-incomplete{background:#a32020;color:#fff}
`;

/** The stylesheet of a page: with the check's styles when it shows them. */
export const pageStyle = (withCheck: boolean): string => (withCheck ? PAGE_STYLE + CHECK_STYLE : PAGE_STYLE);

/** The Content-Security-Policy of a page with that stylesheet: nothing loads, only the inlined stylesheet applies. */
export const pagePolicy = (style: string): string => `default-src 'none'; style-src 'sha256-${createHash("sha256").update(style, "utf8").digest("base64")}'; base-uri 'none'; form-action 'none'`;

/** The policy of a page without the check's styles. */
export const PAGE_POLICY = pagePolicy(PAGE_STYLE);
