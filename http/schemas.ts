import { z } from "@hono/zod-openapi";
import { REVIEWER_MODES, RUN_STATES } from "./runs/runsPort.ts";
import { UNSTORABLE_TEXT, isStorableText } from "../core/sanitizeText.ts";

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
  })
  .openapi("SubmitRun", {
    example: { question: "Compare ADIV's overlap with my portfolio and verify its fees.", caps: { main: { maxTurns: 8 } }, reviewer: "off" },
  });

export const IdempotencyHeaders = z.object({
  "idempotency-key": z.string().min(1).max(255).optional().openapi({ param: { name: "idempotency-key", in: "header" }, description: "Same key and body: the same run. Same key, another body: 409." }),
});

export const ListRunsQuery = z.object({
  state: z.enum(RUN_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(500).optional(),
});

export const EventsQuery = z.object({
  after: z.coerce.number().int().min(0).default(0).openapi({ description: "Global position of the last event seen; 0 for the start" }),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
});

export const LastEventIdHeader = z.object({
  "last-event-id": z.string().regex(/^\d{1,15}$/, "Last-Event-ID is the global position of an event").optional().openapi({ param: { name: "last-event-id", in: "header" } }),
});

const ExecutorNode = z
  .object({
    id: z.string(),
    role: z.enum(["main", "child", "reviewer"]),
    profile: z.string().nullable(),
    status: z.enum(["running", "settled", "failed", "cancelled"]),
    question: z.string(),
    turns: z.number().int(),
    toolCalls: z.number().int(),
    children: z.array(z.record(z.string(), z.unknown())).openapi({ description: "Executor nodes this one delegated to (same shape)" }),
  })
  .openapi("ExecutorNode");

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
    answer: z.record(z.string(), z.unknown()).nullable(),
    reason: z.string().nullable(),
    unknownEffects: z.array(UnknownEffect).openapi({
      description:
        "Tool calls whose outcome is unknown: started, but the process stopped (or a cancel hit them) before their outcome was recorded. They were not run again; check by hand whether each took effect before relying on the answer. Empty when none.",
    }),
    lastPosition: z.number(),
    links: z.record(z.string(), z.string()),
  })
  .openapi("Run");

export const RunListSchema = z.object({ runs: z.array(RunSchema), next: z.string().nullable() }).openapi("RunList");

export const EventSchema = z
  .object({
    position: z.number(),
    id: z.string(),
    type: z.string(),
    schemaVersion: z.number(),
    streamId: z.string(),
    streamVersion: z.number(),
    executorId: z.string(),
    causationId: z.string().nullable(),
    recordedAt: z.string(),
    data: z.unknown(),
    prevHash: z.string(),
    hash: z.string(),
  })
  .openapi("Event");

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
