import { z } from "@hono/zod-openapi";
import { REVIEWER_MODES, RUN_STATES } from "./runs/runsPort.ts";
import { UNSTORABLE_TEXT, isStorableText } from "../core/sanitizeText.ts";
import { METADATA_BOUNDS } from "../runs/index.ts";
import { RESERVED_METADATA_KEYS, refuseReservedKeys } from "../runs/runMetadata.ts";
import { AnswerSchema } from "../actors/index.ts";
import { HandoffSchema } from "../handoff/index.ts";
import { currentSchemaVersion, eventTypes, payloadSchema } from "../events/index.ts";
import type { Outcome } from "../actors/fold/executorState.ts";

/** Every kind an executor's outcome takes (actors/fold/executorState.ts); the compiler refuses a kind missing here. */
const OUTCOME_KINDS = ["handoff", "answer", "cancelled", "failed", "check"] as const satisfies readonly Outcome["kind"][];
type MissingKind = Exclude<Outcome["kind"], (typeof OUTCOME_KINDS)[number]>;
const _everyOutcomeKind: [MissingKind] extends [never] ? true : MissingKind = true;


/** Ids are UUIDs today; anything outside this alphabet is refused before it reaches SQL. */
const Id = z.string().min(1).max(128).regex(/^[A-Za-z0-9_-]+$/, "an id is letters, digits, '-' or '_'");

export const RunIdParams = z.object({ id: Id.openapi({ param: { name: "id", in: "path" }, example: "7d0c1c9e-0b5e-4d8f-9f57-2f1c6a0f2d11" }) });
export const ExecutorParams = RunIdParams.extend({ eid: Id.openapi({ param: { name: "eid", in: "path" } }) });

const RoleCaps = z.strictObject({
  maxTurns: z.number().int().positive().optional(),
  maxToolCalls: z.number().int().positive().optional(),
});

/** Free text a client sends, refused (400, with its path) when the log could not store it. */
const Text = () => z.string().refine(isStorableText, UNSTORABLE_TEXT);

/**
 * A string map; its bounds are checked by runs/planRun (the command line's check too), so a map over
 * them is a 422 naming `body.metadata.<key>`, not a 400. The document states them all the same.
 */
const MetadataMap = z.preprocess(refuseReservedKeys, z.record(z.string(), z.string())).openapi("Metadata", {
  description:
    `Your own string map, stored with the run, returned with it and filterable in the list (\`metadata[key]=value\`): at most ${METADATA_BOUNDS.maxKeys} keys, ` +
    `each 1-${METADATA_BOUNDS.maxKeyLength} of letters, digits, \`_\`, \`-\`, \`.\`, \`:\` (not ${RESERVED_METADATA_KEYS.map((k) => `\`${k}\``).join(", ")}); values at most ${METADATA_BOUNDS.maxValueLength} characters. Over a bound: 422.`,
  maxProperties: METADATA_BOUNDS.maxKeys,
  example: { customer: "acme", ticket: "T-1234" },
});

export const SubmitRunBody = z
  .strictObject({
    /** Required unless `offline` or `scenario` asks for a scripted scenario (runs/chooseRun.ts decides). */
    question: Text().trim().min(1).max(20_000).optional(),
    offline: z.boolean().optional().openapi({ description: "Run the scripted offline scenario (no model is called); leave `question` out" }),
    scenario: Text().min(1).max(100).optional().openapi({ description: "Which scripted offline scenario (default etf-overlap); implies offline" }),
    context: Text().max(100_000).optional(),
    allowedProfiles: z.array(Text().min(1).max(100)).min(1).max(50).optional(),
    caps: z.strictObject({ main: RoleCaps.optional(), child: RoleCaps.optional(), maxDepth: z.number().int().min(0).optional() }).optional(),
    reviewer: z.enum(REVIEWER_MODES).optional(),
    models: z.strictObject({ main: Text().min(1).max(200).optional(), child: Text().min(1).max(200).optional(), reviewer: Text().min(1).max(200).optional() }).optional(),
    metadata: MetadataMap.optional(),
    singleAgent: z.boolean().optional().openapi({ description: "One executor with every tool but delegate and no Children (the control for what isolation buys); not with allowedProfiles, reviewer, Child caps or maxDepth" }),
    stream: z.boolean().optional().openapi({ description: "Answer with the run's events as SSE on this response (as `Accept: text/event-stream` does)" }),
  })
  .openapi("SubmitRun", {
    example: { question: "Compare ADIV's overlap with my portfolio and verify its fees.", caps: { main: { maxTurns: 8 } }, reviewer: "off" },
  });

export const IdempotencyHeaders = z.object({
  "idempotency-key": z.string().min(1).max(255).optional().openapi({ param: { name: "idempotency-key", in: "header" }, description: "Same key and body: the same run. Same key, another body: 409." }),
  traceparent: z
    .string()
    .max(512)
    .optional()
    .openapi({ param: { name: "traceparent", in: "header" }, description: "W3C trace context: the run's spans join this trace, under this span. Invalid: ignored (the run starts its own trace)." }),
});

/** Most seconds a request may wait for its run to stop (`?wait=`). */
export const MAX_WAIT_SECONDS = 60;

export const WaitQuery = z.object({
  wait: z.coerce
    .number()
    .min(0)
    .max(MAX_WAIT_SECONDS)
    .optional()
    .openapi({ description: `Block until the run stops (settled, failed, cancelled) or this many seconds pass (at most ${MAX_WAIT_SECONDS}); then answer with the run as it is` }),
});

const Instant = z.iso.datetime({ offset: true });

export const ListRunsQuery = z.object({
  state: z.enum(RUN_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(500).optional().openapi({ description: "`next_cursor` of the previous page (with the same filters and order)" }),
  order: z.enum(["asc", "desc"]).default("desc").openapi({ description: "By creation time: desc newest first (default), asc oldest first" }),
  created_after: Instant.optional().openapi({ description: "Only runs created after this instant (RFC 3339; compared to the millisecond, as `createdAt` shows it: exclusive)" }),
  created_before: Instant.optional().openapi({ description: "Only runs created before this instant (exclusive)" }),
  // Parsed by the route from `metadata[key]=value` pairs (a deepObject); here for the document.
  metadata: z
    .record(z.string(), z.string())
    .optional()
    .openapi({ param: { name: "metadata", in: "query", style: "deepObject", explode: true }, description: "Only runs whose metadata holds every pair given as `metadata[key]=value`" }),
});

export const TypesQuery = z.object({
  types: z
    .string()
    .max(2000)
    .optional()
    .openapi({
      description:
        "Comma-separated event types to send (others are skipped; `end` always comes). `answer.delta` adds Main's reply as it streams (SSE only; not recorded, no id). An unknown type is a 422 naming it.",
      example: "turn,handoff_committed,settled,answer.delta",
    }),
});

export const EventsQuery = TypesQuery.extend({
  after: z.coerce.number().int().min(0).default(0).openapi({ description: "Global position of the last event seen; 0 for the start" }),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
});

export const LastEventIdHeader = z.object({
  "last-event-id": z.string().regex(/^\d{1,15}$/, "Last-Event-ID is the global position of an event").optional().openapi({ param: { name: "last-event-id", in: "header" } }),
});

/** An executor and, recursively, the executors it delegated to (a $ref to itself in the document). */
const ExecutorNode = z
  .object({
    id: z.string(),
    role: z.enum(["main", "child", "reviewer", "checker"]),
    profile: z.string().nullable(),
    status: z.enum(["running", "settled", "failed", "cancelled"]),
    question: z.string(),
    turns: z.number().int(),
    toolCalls: z.number().int(),
    get children(): z.ZodArray<typeof ExecutorNode> {
      return z.array(ExecutorNode);
    },
  })
  .openapi("ExecutorNode");

/**
 * Names a schema from another room (built with plain zod) in the document. Under Node that zod is the
 * one @hono/zod-openapi extended; under Deno it may be another instance, without `.openapi`, so the
 * extended method is borrowed.
 */
function named<T extends z.ZodType>(schema: T, id: string): T {
  const openapi = (schema as unknown as { openapi?: unknown }).openapi ?? (z.ZodType.prototype as unknown as { openapi: unknown }).openapi;
  return (openapi as (this: T, id: string) => T).call(schema, id);
}

/** Main's structured answer (actors/request/answer.ts); `partial` answers built from the handoffs held when a limit stopped Main have the same shape. */
export const Answer = named(AnswerSchema as unknown as z.ZodType<z.output<typeof AnswerSchema>>, "Answer");

/** A Child's committed handoff (handoff/handoffSchema.ts), with where it was recorded. */
export const HandoffSchemaOut = z
  .object({
    executorId: z.string(),
    eventId: z.string(),
    position: z.number().int().openapi({ description: "Global position of the handoff_committed event" }),
    handoff: named(HandoffSchema as unknown as z.ZodType<z.output<typeof HandoffSchema>>, "Handoff"),
    repairs: z.number().int(),
    forced: z.boolean().openapi({ description: "The runtime built a partial handoff after repairs ran out" }),
  })
  .openapi("CommittedHandoff");

const Block = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({ type: z.literal("tool_result"), tool_use_id: z.string(), content: z.string(), is_error: z.boolean().optional() }),
]);

export const TranscriptSchema = z
  .object({
    executorId: z.string(),
    runId: z.string(),
    role: z.enum(["main", "child", "reviewer", "checker"]),
    turns: z.array(
      z.object({
        turn: z.number().int(),
        request: z.object({
          model: z.string(),
          system: z.string(),
          messages: z.array(z.object({ role: z.enum(["user", "assistant"]), content: z.union([z.string(), z.array(Block)]) })),
          tools: z.array(z.object({ name: z.string(), description: z.string(), input_schema: z.record(z.string(), z.unknown()) })),
          maxTokens: z.number().int(),
        }),
        digestMatches: z.boolean().openapi({ description: "The rebuilt request has the digest recorded with the turn: it is exactly what was sent" }),
        response: z.object({ content: z.array(Block), stopReason: z.string() }),
        model: z.string(),
        scripted: z.boolean(),
        usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int() }),
      }),
    ),
    toolEvents: z.array(z.record(z.string(), z.unknown())).openapi({ description: "Every recorded tool outcome (completed, failed, unknown, consumed handoffs), as stored" }),
    outcome: z
      .object({
        kind: z.enum(OUTCOME_KINDS),
        reason: z.string().optional(),
        answer: z.record(z.string(), z.unknown()).optional(),
        handoff: z.record(z.string(), z.unknown()).optional(),
        check: z.record(z.string(), z.unknown()).optional().openapi({ description: "A Checker's submitted check (kind check)" }),
        eventId: z.string().optional(),
      })
      .passthrough()
      .nullable(),
  })
  .openapi("Transcript");

const UnknownEffect = z
  .object({ executorId: z.string(), toolUseId: z.string(), tool: z.string() })
  .openapi("UnknownEffect", { description: "One tool call of unknown outcome: the executor that made it, its tool use id, and the tool" });

const Amounts = z.object({ tokens: z.number(), costMicros: z.number() });

export const RunSchema = z
  .object({
    id: z.string(),
    tenant: z.string(),
    state: z.enum(RUN_STATES),
    question: z.string(),
    mainExecutorId: z.string(),
    createdAt: z.string(),
    scripted: z.boolean(),
    budget: z
      .object({
        turns: z.number(),
        toolCalls: z.number(),
        inputTokens: z.number(),
        outputTokens: z.number(),
        spent: Amounts,
        reserved: Amounts,
        caps: z.object({ tokens: z.number().nullable(), costMicros: z.number().nullable() }),
        left: z.object({ tokens: z.number().nullable(), costMicros: z.number().nullable() }),
        reminders: z.array(z.object({ key: z.string(), text: z.string(), status: z.string() })),
      })
      .openapi({ description: "Turns, tool calls and tokens of every executor; the run's shared budget (cost in millionths of a USD) and its Remind facts" }),
    executors: ExecutorNode,
    answer: Answer.nullable(),
    reason: z.string().nullable(),
    unknownEffects: z.array(UnknownEffect).openapi({
      description:
        "Tool calls whose outcome is unknown: started, but the process stopped (or a cancel hit them) before their outcome was recorded. They were not run again; check by hand whether each took effect before relying on the answer. Empty when none.",
    }),
    lastPosition: z.number(),
    metadata: z.record(z.string(), z.string()),
    links: z.record(z.string(), z.string()),
  })
  .openapi("Run");

export const RunListSchema = z
  .object({
    data: z.array(RunSchema),
    has_more: z.boolean().openapi({ description: "Another page follows" }),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` (with the same filters and order) for the next page; null on the last" }),
    order: z.enum(["asc", "desc"]),
  })
  .openapi("RunList");

const EventFields = {
  position: z.number().openapi({ description: "Global position in the log; the SSE id" }),
  id: z.string(),
  schemaVersion: z.number(),
  streamId: z.string(),
  streamVersion: z.number(),
  executorId: z.string(),
  causationId: z.string().nullable(),
  recordedAt: z.string(),
  prevHash: z.string(),
  hash: z.string(),
};

/** One schema per event type, its `data` the catalogue's current payload (events/catalogue.ts): a client narrows on `type`. */
const typedEvents = eventTypes.map((type) =>
  z.object({ ...EventFields, type: z.literal(type), data: payloadSchema(type, currentSchemaVersion(type)) as z.ZodType }).openapi(`Event_${type}`),
);

export const EventSchema = z
  .discriminatedUnion("type", typedEvents as unknown as [(typeof typedEvents)[number], ...(typeof typedEvents)[number][]])
  .openapi("Event", { description: "A recorded event; `data` by `type`" });

/** A piece of Main's reply as it streams (`answer.delta`, SSE only, no id). */
export const AnswerDeltaSchema = z
  .object({
    executorId: z.string(),
    call: z.number().int().openapi({ description: "Main's nth model call in its host; a retried call streams again under the same number" }),
    scripted: z.boolean().openapi({ description: "From a scripted model: each block arrives whole, as one delta" }),
    type: z.enum(["text", "answer_json"]),
    text: z.string().optional().openapi({ description: "type text: text Main wrote" }),
    partialJson: z.string().optional().openapi({ description: "type answer_json: the next piece of the answer tool's input JSON (the Answer)" }),
  })
  .openapi("AnswerDelta");

export const EventPageSchema = z.object({ events: z.array(EventSchema), next: z.number().nullable() }).openapi("EventPage");

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number(),
    detail: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    requestId: z.string().optional().openapi({ description: "The request's id (also X-Request-Id), to quote when reporting a problem" }),
  })
  .openapi("Problem");

export const VerifySchema = z
  .object({
    runId: z.string(),
    ok: z.boolean(),
    events: z.number(),
    rootHash: z.string().openapi({ description: "Root hash over the executor streams' heads as they are now" }),
    sealed: z.object({ eventId: z.string(), rootHash: z.string() }).nullable().openapi({ description: "The run's last seal, once its host sealed it" }),
    streams: z.array(z.record(z.string(), z.unknown())),
    problems: z.array(z.record(z.string(), z.unknown())).openapi({ description: "Empty when the run is intact; else the first entry is the first bad event" }),
  })
  .openapi("RunVerification");

export const AnyObject = z.record(z.string(), z.unknown());
