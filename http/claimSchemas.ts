import { z } from "@hono/zod-openapi";
import type { ClaimChain, RunClaims } from "../projections/index.ts";
import type { SourceKind } from "../sources/types.ts";
import { RunIdParams } from "./schemas.ts";

/** The zod schemas of projections/claimTypes.ts, for the OpenAPI document; the checks at the end keep the two in step. */

export const ClaimParams = RunIdParams.extend({
  cid: z
    .string()
    .regex(/^c[1-9][0-9]{0,5}$/, "a claim id is c1, c2, … (the claims of the answer in order)")
    .openapi({ param: { name: "cid", in: "path" }, example: "c1" }),
});

const EventRef = z
  .object({ eventId: z.string(), streamId: z.string(), streamVersion: z.number().int(), globalPosition: z.number().int(), hash: z.string() })
  .openapi("EventRef", { description: "Where an event sits in the log, and its chain hash" });

/**
 * A reference or null, as `anyOf [Ref, null]` (the two never overlap, so as exact as oneOf): `.nullable()` on a registered
 * schema renders `allOf [Ref, {type: [object, null]}]`, which no null meets (the
 * Ref is an object), so a generated client would type the field non-null.
 */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

const SourceRef = z
  .object({
    kind: z.literal("source"),
    sourceKind: z.enum(["web_page", "search_results", "document", "data", "workspace_file"] satisfies SourceKind[]),
    url: z.string(),
    normalizedUrl: z.string().optional(),
    finalUrl: z.string().optional(),
    status: z.number().int().optional(),
    contentType: z.string(),
    fetchedAt: z.string(),
    rawSha256: z.string(),
    textSha256: z.string(),
    bytes: z.number().int(),
  })
  .openapi("ClaimSource", { description: "A source the tool call read, as its tool_completed recorded it" });

const ArtifactRef = z
  .object({ kind: z.literal("artifact"), id: z.string(), path: z.string(), sha256: z.string(), bytes: z.number().int().optional() })
  .openapi("ClaimArtifact");

const ToolCallChain = z
  .object({
    toolUseId: z.string(),
    tool: z.string(),
    input: z.unknown(),
    turn: z.number().int().nullable(),
    intent: orNull(EventRef),
    outcome: orNull(EventRef.extend({ type: z.string() })),
    sources: z.array(SourceRef),
    artifacts: z.array(ArtifactRef),
  })
  .openapi("ClaimToolCall");

const QuoteChain = z
  .object({
    text: z.string(),
    page: z.number().int().nullable(),
    blob: z
      .object({ sha256: z.string(), charStart: z.number().int(), charEnd: z.number().int() })
      .nullable()
      .openapi({ description: "The text blob the quote is in, and its character (Unicode code point) offsets there" }),
    toolUseId: z.string(),
    call: orNull(ToolCallChain),
    source: orNull(z.union([SourceRef, ArtifactRef])),
  })
  .openapi("ClaimQuote");

const TurnChain = z
  .object({
    executorId: z.string(),
    turn: z.number().int(),
    model: z.string(),
    provider: z.string(),
    scripted: z.boolean(),
    requestDigest: z.string(),
    responseId: z.string().nullable(),
    usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int() }),
    event: EventRef,
    reminders: z.array(z.object({ reminderId: z.string(), text: z.string() })),
  })
  .openapi("ClaimTurn", { description: "The model turn whose handoff call wrote the finding, and the reminders delivered into it" });

const FindingChain = z
  .object({
    executorId: z.string(),
    finding: z.number().int(),
    claim: z.string().nullable(),
    confidence: z.string().nullable(),
    gathered: z.literal(true).optional().openapi({ description: "Material a stopped Child gathered and never summarised: a claim resting on it alone is not observed" }),
    child: z.object({
      executorId: z.string(),
      role: z.string().nullable(),
      profile: z.object({ id: z.string(), version: z.string(), sha256: z.string() }).nullable(),
      admission: orNull(EventRef),
    }),
    handoff: orNull(EventRef.extend({ forced: z.boolean() })),
    turn: orNull(TurnChain),
    quotes: z.array(QuoteChain),
    toolCalls: z.array(ToolCallChain),
    citations: z.array(z.string()),
    problems: z.array(z.string()).openapi({ description: "What could not be followed in the log; empty when the chain is whole" }),
  })
  .openapi("ClaimFinding");

export const ClaimSchema = z
  .object({
    id: z.string(),
    section: z.string(),
    sectionIndex: z.number().int(),
    claimIndex: z.number().int(),
    text: z.string(),
    basis: z.enum(["observed", "judgment", "not_collected"]),
    noEvidence: z.string().nullable().openapi({ description: "For judgment and not_collected claims: that they rest on no evidence" }),
    findings: z.array(FindingChain),
  })
  .openapi("Claim");

const AnswerRef = orNull(EventRef.extend({ executorId: z.string(), partial: z.boolean() }));

export const RunClaimsSchema = z.object({ runId: z.string(), answer: AnswerRef, claims: z.array(ClaimSchema) }).openapi("RunClaims");

export const OneClaimSchema = z.object({ runId: z.string(), answer: AnswerRef, claim: ClaimSchema }).openapi("RunClaim");

// Compile-time: the projection's output is what these schemas describe, both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _claims: Same<z.infer<typeof RunClaimsSchema>, RunClaims> = true;
const _claim: Same<z.infer<typeof ClaimSchema>, ClaimChain> = true;
void _claims;
void _claim;
