import { type CheckInput, rawIsText } from "../../checker/checkAnswer.ts";
import { publishedArtifacts } from "../../checker/publishedArtifacts.ts";
import { AriadneError } from "../../core/errors.ts";
import type { EventStore, RecordedEvent } from "../../events/index.ts";
import { readKnownRun } from "../../events/readKnownRun.ts";
import { claimsOfEvents } from "../../projections/claimChains.ts";
import type { RunClaims } from "../../projections/claimTypes.ts";
import type { BlobStore } from "../../sources/index.ts";

/** Every blob whose text a claim's numbers may be read from: quotes' blobs, sources' text, artifacts. */
export function textShas(claims: RunClaims): Set<string> {
  const shas = new Set<string>();
  for (const c of claims.claims) {
    for (const f of c.findings) {
      for (const t of f.toolCalls) {
        for (const s of t.sources) {
          shas.add(s.textSha256);
          if (rawIsText(s)) shas.add(s.rawSha256);
        }
        for (const a of t.artifacts) shas.add(a.sha256);
      }
      for (const q of f.quotes) {
        if (q.blob) shas.add(q.blob.sha256);
        if (q.source?.kind === "source") shas.add(q.source.textSha256);
        else if (q.source) shas.add(q.source.sha256);
      }
    }
  }
  return shas;
}

/** The stored texts of the given blobs, by sha256; a blob the store lacks is left out. */
export async function readTexts(blobs: Pick<BlobStore, "get">, shas: Iterable<string>): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const sha of shas) {
    const bytes = await blobs.get(sha);
    if (bytes) texts.set(sha, new TextDecoder().decode(bytes));
  }
  return texts;
}

/** What the checker reads of a run with an answer: its claim chains, the answer's text around them and the stored texts they cite. */
export type AnswerToCheck = Omit<CheckInput, "rereads"> & { claims: RunClaims & { answer: NonNullable<RunClaims["answer"]> } };

/**
 * The answer a run settled with, and everything the checker compares it with
 * that the log and its blobs hold (not the sources read again: rereadSources).
 * Both the Checker's tools and `ariadne check RUN` start here.
 */
export async function answerToCheck(store: EventStore, blobs: BlobStore, runId: string): Promise<AnswerToCheck> {
  const events = await readKnownRun(store, runId);
  const claims = claimsOfEvents(runId, events);
  const settled = claims.answer && events.find((e): e is RecordedEvent<"settled"> => e.eventId === claims.answer!.eventId);
  if (!claims.answer || !settled) throw new AriadneError("NO_ANSWER", 409, `run ${runId} has no answer to check: it has not settled with one`);
  const body = (settled.data.answer ?? {}) as { summary?: unknown; sections?: { heading?: unknown }[] };
  const published = publishedArtifacts(events);
  const texts = await readTexts(blobs, [...textShas(claims), ...published.flatMap((a) => [a.sha256, ...a.derivedFrom])]);
  return {
    artifacts: published.map((a) => ({ id: a.id, path: a.path, sha256: a.sha256, text: texts.get(a.sha256) ?? null, derivedFrom: a.derivedFrom.flatMap((sha) => texts.get(sha) ?? []) })),
    claims: claims as AnswerToCheck["claims"],
    summary: typeof body.summary === "string" ? body.summary : "",
    headings: Array.isArray(body.sections) ? body.sections.map((s) => String(s.heading ?? "")) : [],
    texts,
  };
}
