import { Buffer } from "node:buffer";
import type { RecordedEvent } from "../events/types.ts";
import { claimsOfEvents } from "../projections/claimChains.ts";
import type { ClaimChain, RunClaims } from "../projections/claimTypes.ts";
import { type ClaimBadge, claimBadge } from "./claimBadge.ts";
import { type CheckSummary, checkSummary, checkerBadges } from "./checkerBadges.ts";
import { type Excerpt, excerptOf } from "./excerpt.ts";
import { type Lane, timelineOf } from "./timeline.ts";
import type { Verdict } from "./verdict.ts";

/** What the audit page is rendered from: the run's events, its blobs and what its log was checked to be. */
export interface AuditInput {
  runId: string;
  events: readonly RecordedEvent[];
  blob(sha256: string): Uint8Array | null;
  verdict: Verdict;
  /** The checker's verdict per claim id; by default the run's last check_completed (checkerBadges), else badges come from the chains. */
  checked?: ReadonlyMap<string, ClaimBadge>;
  /** The claims already folded from these events (claimsOfEvents), so a reader that fetched their blobs first folds once. */
  claims?: RunClaims;
}

/** The text blobs the page cuts excerpts from (not every quoted blob of the log: those of the answer's claims): a reader whose blobs are far (a database) fetches these first. */
export const excerptBlobs = (claims: RunClaims): string[] => [
  ...new Set(claims.claims.flatMap((c) => c.findings.flatMap((f) => f.quotes.flatMap((q) => (q.blob ? [q.blob.sha256] : []))))),
];

export interface AuditClaim {
  chain: ClaimChain;
  badge: ClaimBadge;
  /** For each finding, for each of its quotes: the quote in its blob's text, or why it cannot be shown. */
  excerpts: (Excerpt | string)[][];
}

export interface AuditPageData {
  runId: string;
  question: string;
  summary: string;
  partial: boolean;
  answered: boolean;
  verdict: Verdict;
  /** The run's last check (check_completed), shown beside the chain status; null when it was never checked. */
  check: CheckSummary | null;
  claims: AuditClaim[];
  lanes: Lane[];
}

/** The texts of the blobs a claim's quotes were found in, each once. */
function quotedTexts(chain: ClaimChain, textOf: (sha256: string) => string | null): string[] {
  const shas = new Set(chain.findings.flatMap((f) => f.quotes.flatMap((q) => (q.blob ? [q.blob.sha256] : []))));
  return [...shas].flatMap((sha) => textOf(sha) ?? []);
}

/** Everything the page shows, from the input alone: the same input gives the same page, byte for byte. */
export function auditPageData(input: AuditInput): AuditPageData {
  const claims = input.claims ?? claimsOfEvents(input.runId, input.events);
  const checked = input.checked ?? checkerBadges(input.events);
  const main = input.events.find((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted" && e.data.role === "main");
  const settled = main && input.events.find((e): e is RecordedEvent<"settled"> => e.type === "settled" && e.metadata.executorId === main.metadata.executorId);
  const texts = new Map<string, string | null>();
  const textOf = (sha256: string) => {
    if (!texts.has(sha256)) {
      const bytes = input.blob(sha256);
      texts.set(sha256, bytes ? Buffer.from(bytes).toString("utf8") : null);
    }
    return texts.get(sha256)!;
  };
  return {
    runId: input.runId,
    question: main?.data.task.question ?? "",
    summary: typeof settled?.data.answer?.summary === "string" ? settled.data.answer.summary : "",
    partial: claims.answer?.partial ?? false,
    answered: claims.answer !== null,
    verdict: input.verdict,
    check: checkSummary(input.events),
    claims: claims.claims.map((chain) => ({
      chain,
      badge: claimBadge(chain, quotedTexts(chain, textOf), checked?.get(chain.id)),
      excerpts: chain.findings.map((f) =>
        f.quotes.map((q) => {
          if (!q.blob) return "recorded without its blob and offsets";
          const text = textOf(q.blob.sha256);
          if (text === null) return `its text blob ${q.blob.sha256} is not in the run's blobs`;
          return excerptOf(text, q.text, q.blob.charStart, q.blob.charEnd) ?? `offsets ${q.blob.charStart}-${q.blob.charEnd} fall outside its text blob`;
        }),
      ),
    })),
    lanes: timelineOf(input.events),
  };
}
