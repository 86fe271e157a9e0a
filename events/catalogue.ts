import { z } from "zod";
import { adviceBlockBefore28, consumedBlocksBefore28, nudgeBefore28, taskTextBefore28, urlsInTaskBefore28 } from "./textsBefore28.ts";

/**
 * The catalogue of everything that can happen in an Ariadne run. Each event
 * type has versioned payload schemas; `current` is what new events are written
 * with, older versions stay parseable and are upcast on read.
 */

const Id = z.string().min(1).max(200);
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "expected a lowercase hex sha256");
const Role = z.enum(["main", "child", "reviewer", "checker"]);
const CancelledBy = z.enum(["parent", "operator", "run_settled", "governance"]);
const Effect = z.enum(["read_only", "idempotent", "effectful"]);

export const ProfileBinding = z.object({ id: Id, version: z.string().min(1), sha256: Sha256 });
export type ProfileBinding = z.infer<typeof ProfileBinding>;

export const TaskSpec = z.object({
  question: z.string().min(1),
  context: z.string(),
  doneWhen: z.string(),
});
export type TaskSpec = z.infer<typeof TaskSpec>;

const TextBlock = z.object({ type: z.literal("text"), text: z.string() });
const ToolUseBlock = z.object({ type: z.literal("tool_use"), id: Id, name: z.string().min(1), input: z.unknown() });
/** Anthropic's server-side web search (ARIADNE_SEARCH=anthropic), kept whole so a rebuilt request sends it back as it came. */
const ServerToolUseBlock = z.object({ type: z.literal("server_tool_use"), id: Id, name: z.literal("web_search"), input: z.unknown() });
const WebSearchResult = z.object({ type: z.literal("web_search_result"), url: z.string(), title: z.string(), encrypted_content: z.string(), page_age: z.string().nullable() });
const WebSearchToolResultBlock = z.object({
  type: z.literal("web_search_tool_result"),
  tool_use_id: Id,
  content: z.union([z.array(WebSearchResult), z.object({ type: z.literal("web_search_tool_result_error"), error_code: z.string() })]),
});
export const AssistantBlock = z.discriminatedUnion("type", [TextBlock, ToolUseBlock, ServerToolUseBlock, WebSearchToolResultBlock]);

const Usage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Prompt cache tokens, when the provider reported them (optional: turns recorded before caching fold as they are). */
  cacheCreationInputTokens: z.number().int().nonnegative().optional(),
  cacheReadInputTokens: z.number().int().nonnegative().optional(),
  /** Server-side web searches the call ran, billed per search (absent: none, or a turn recorded before they were kept). */
  webSearchRequests: z.number().int().nonnegative().optional(),
});
const Amount = z.object({
  tokens: z.number().int().nonnegative().optional(),
  toolCalls: z.number().int().nonnegative().optional(),
  turns: z.number().int().nonnegative().optional(),
  /** Input and output tokens apart (tokens is their sum), and the cost in millionths of a USD by the price table. */
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  costMicros: z.number().int().nonnegative().optional(),
});

/** The limits governance enforces (governance/port.ts LimitName). */
const LimitName = z.enum([
  "run_tokens",
  "run_cost",
  "run_wall_clock",
  "executor_tokens",
  "executor_turns",
  "executor_tool_calls",
  "executor_wall_clock",
  "delegation_depth",
  "delegation_fan_out",
  "run_fetches",
  "run_fetch_bytes",
  "run_searches",
]);

const Limits = z.object({
  maxTurns: z.number().int().positive(),
  maxToolCalls: z.number().int().positive(),
  maxHandoffRepairs: z.number().int().nonnegative(),
  /** Failed model calls in a row before the executor finishes with what it has. */
  maxFailedModelCalls: z.number().int().positive().default(3),
});

/** sources/types.ts SourceRecord, as the log records it (tool_completed v2). */
const SourceRecord = z.object({
  kind: z.enum(["web_page", "search_results", "document", "data", "workspace_file"]),
  url: z.string().min(1),
  normalizedUrl: z.string().optional(),
  finalUrl: z.string().optional(),
  status: z.number().int().optional(),
  contentType: z.string(),
  fetchedAt: z.string(),
  rawSha256: Sha256,
  textSha256: Sha256,
  bytes: z.number().int().nonnegative(),
});

/** sources/types.ts ArtifactRecord: a file a tool produced, its bytes a blob. */
const ArtifactRecord = z.object({ id: Id, path: z.string(), sha256: Sha256, bytes: z.number().int().nonnegative() });

/** tool_completed v2: what the result was built from (sources, each stored as blobs), artifacts with their size, and the URLs it showed. */
const ToolCompletedV2 = z.object({
  toolUseId: Id,
  tool: z.string(),
  output: z.string(),
  artifacts: z.array(ArtifactRecord).default([]),
  sources: z.array(SourceRecord).default([]),
  /** URLs the result showed the model (search hits, a page's links): the executor may fetch them next. */
  links: z.array(z.string()).optional(),
  /** What the tool layer replaced in `output` because the log cannot hold it, e.g. "U+0000 x1 in output". */
  sanitized: z.array(z.string()).optional(),
});

const ToolFailedV1 = z.object({
  toolUseId: Id,
  tool: z.string(),
  /** not_reachable: a fetch of a URL the executor has not seen (not in its task, a search result or a page's links). */
  reason: z.enum(["not_granted", "invalid_input", "error", "governance", "rejected_result", "cancelled", "not_reachable"]),
  message: z.string(),
  /** For a governance refusal: the limit that stopped the call (the executor then finishes with what it has). */
  limit: z.string().optional(),
});

/**
 * The intent of a read-only call, recorded in its outcome's event instead of a
 * tool_called of its own (actors/heldCalls.ts): the outcome was known before
 * anything else had to be appended. The outcome's event id is the intent's.
 * Only read-only calls: one that may change something keeps its intent before
 * its effect.
 */
const CallIntent = z.object({ turn: z.number().int().positive(), input: z.unknown(), effect: z.literal("read_only") });

const ExecutorAdmittedV1 = z.object({
      role: Role,
      parentExecutorId: Id.nullable(),
      /** The parent's delegate call that created this executor. */
      parentToolUseId: Id.nullable(),
      depth: z.number().int().nonnegative(),
      task: TaskSpec,
      /** Frozen method binding: redispatch and recovery must reuse exactly this. */
      profile: ProfileBinding.nullable(),
      grantedTools: z.array(z.string()),
      refusedTools: z.array(z.object({ name: z.string(), reason: z.string() })),
      model: z.string().min(1),
      limits: Limits,
      /** Main of a single-agent run (`--single-agent`): it holds every tool but delegate and cites its own tool results. */
      singleAgent: z.literal(true).optional(),
    });

/** executor_admitted v2: the texts its model is shown, as rendered at admission (issue 28). */
const ExecutorAdmittedV2 = ExecutorAdmittedV1.extend({
  /**
   * What this executor's model is shown of its admission, as rendered when it was admitted
   * (issue 28): its task as the first user message, the nudge after a turn that ends without
   * its terminal tool, and the URLs its task names (what it may fetch before it sees more).
   */
  rendered: z.object({ task: z.string(), nudge: z.string(), reachable: z.array(z.string()) }),
  /**
   * The version of the request code it was admitted under (actors/request/requestVersion.ts):
   * a hash of everything that shapes a request. Null on an event upcast from v1 (written before
   * the version was recorded).
   */
  requestVersion: z.string().nullable(),
});

const HandoffConsumedV1 = z.object({
  childExecutorId: Id,
  toolUseId: Id,
  handoffEventId: Id,
  /** The handoff exactly as the parent received it, so the parent's stream alone rebuilds its context. */
  handoff: z.record(z.string(), z.unknown()),
  /** The chain hash of the Child's handoff event: run verification checks the Child's stream against it. */
  handoffHash: Sha256.optional(),
  /** Set when the Child ended without a handoff of its own (cancelled, failed, or could not be rebuilt). */
  childEnded: z.object({ outcome: z.enum(["cancelled", "failed"]), reason: z.string() }).optional(),
});

const ReviewDeliveredV1 = z.object({
  reviewId: Id,
  delivered: z.boolean(),
  turn: z.number().int().positive().nullable(),
  /** Advisory mode: the review's findings as advice text (renderReview); what Main saw is `rendered` (v2). */
  advice: z.string().optional(),
});

/** Payload schemas, by event type then schema version. */
export const payloadSchemas = {
  executor_admitted: {
    1: ExecutorAdmittedV1,
    2: ExecutorAdmittedV2,
    3: ExecutorAdmittedV2.extend({
      /**
       * What its model was offered, as offered: the sha256 of a blob (the run's blob table) holding
       * the canonical JSON of its system prompt and the specs of every tool it was offered (name,
       * description, input schema; hosted tools, delegate and its terminal tool alike) and the server
       * tools its model sends in place of one, before the per-turn narrowing (actors/request/offeredSpecs.ts). Content-addressed, so a spec set is
       * stored once however many executors are offered it. With it, the bound profile's file bytes
       * are stored as a blob under `profile.sha256`. Null on an event upcast from v1 or v2 (written
       * before either was recorded): their requests are rebuilt from the host's tools and profiles.
       */
      offered: Sha256.nullable(),
    }),
  },
  turn: {
    1: z.object({
      /** This executor's own turn number (1-based); never a run-global counter. */
      turn: z.number().int().positive(),
      request: z.object({
        model: z.string(),
        messageCount: z.number().int().nonnegative(),
        toolNames: z.array(z.string()),
        /** sha256 of the canonical request, so a rebuilt transcript can be proven identical. */
        digest: Sha256,
      }),
      response: z.object({ content: z.array(AssistantBlock), stopReason: z.string() }),
      usage: Usage,
      model: z.string(),
      /** The provider's id of the response (Anthropic's message id); absent for scripted turns and turns recorded before it was kept. */
      responseId: z.string().optional(),
      provider: z.string(),
      scripted: z.boolean(),
      latencyMs: z.number().nonnegative(),
      /** What the model adapter replaced because the log cannot hold it, e.g. "U+0000 x2 in content[0].text". */
      sanitized: z.array(z.string()).optional(),
      /**
       * The server-side searches of the response (its web_search_tool_result blocks), each result list
       * stored as an untrusted `search_results` source: discovery only, never cited.
       */
      searches: z
        .array(
          z.object({
            toolUseId: Id,
            query: z.string(),
            /** The stored result list; absent when the search failed. */
            source: SourceRecord.optional(),
            /** A failed search: its error code and what it means, as the run reports it. */
            error: z.object({ code: z.string(), note: z.string() }).optional(),
          }),
        )
        .optional(),
    }),
  },
  turn_failed: {
    1: z.object({
      turn: z.number().int().positive(),
      attempt: z.number().int().positive(),
      kind: z.string(),
      message: z.string(),
      retryable: z.boolean(),
    }),
  },
  tool_called: {
    1: z.object({
      turn: z.number().int().positive(),
      toolUseId: Id,
      tool: z.string().min(1),
      input: z.unknown(),
      effect: Effect,
      /** Set for `delegate`: the child this call admits, chosen before the effect. */
      childExecutorId: Id.optional(),
    }),
  },
  tool_completed: {
    1: z.object({
      toolUseId: Id,
      tool: z.string(),
      output: z.string(),
      artifacts: z.array(z.object({ id: Id, path: z.string(), sha256: Sha256 })).default([]),
      /** What the tool layer replaced in `output` because the log cannot hold it, e.g. "U+0000 x1 in output". */
      sanitized: z.array(z.string()).optional(),
    }),
    /** v2: what the result was built from (sources, each stored as blobs), artifacts with their size, and the URLs it showed. */
    2: ToolCompletedV2,
    /** v3: a read-only call's intent may ride with its outcome (one row, no tool_called before it). */
    3: ToolCompletedV2.extend({ intent: CallIntent.optional() }),
  },
  tool_failed: {
    1: ToolFailedV1,
    /** v2: a read-only call's intent may ride with its outcome (one row, no tool_called before it). */
    2: ToolFailedV1.extend({ intent: CallIntent.optional() }),
  },
  effect_unknown: {
    1: z.object({ toolUseId: Id, tool: z.string(), effect: Effect, note: z.string() }),
  },
  handoff_committed: {
    1: z.object({
      /** Validated against the handoff contract by the runtime before it is written. */
      handoff: z.record(z.string(), z.unknown()),
      repairs: z.number().int().nonnegative(),
      /** True when the runtime built a partial handoff after repairs ran out. */
      forced: z.boolean(),
    }),
  },
  handoff_consumed: {
    1: HandoffConsumedV1,
    2: HandoffConsumedV1.extend({
      /**
       * The block the parent's model was shown, as rendered when it was recorded: the delegate call's
       * tool result (`result`, a foreground Child) or a text block with a later request (`text`, a
       * background Child); a Child that ended without a handoff is its child-ended notice. An event
       * upcast from v1 carries both, rendered by the frozen v1 templates; the fold takes the one the
       * delegation's mode asks for.
       */
      rendered: z.object({ result: z.string().optional(), text: z.string().optional() }).refine((r) => r.result !== undefined || r.text !== undefined, "result or text"),
    }),
  },
  budget_reserved: {
    1: z.object({
      reservationId: Id,
      purpose: z.enum(["model", "tool"]),
      amount: Amount,
      /** The model the reservation was priced for. */
      model: z.string().min(1).optional(),
    }),
  },
  budget_refused: {
    1: z.object({
      purpose: z.enum(["model", "tool"]),
      limit: LimitName,
      reason: z.string().min(1),
      /** What was asked for (a model call's worst case), when it was an amount. */
      requested: Amount.optional(),
      /** The tool use refused, for a tool call. */
      toolUseId: Id.optional(),
    }),
  },
  budget_settled: {
    1: z.object({ reservationId: Id, actual: Amount }),
  },
  reminder_raised: {
    1: z.object({
      reminderId: Id,
      /** Identical facts share a key, so they are not raised twice. */
      key: z.string().min(1),
      text: z.string().min(1),
      facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    }),
  },
  reminder_delivered: {
    1: z.object({ reminderId: Id, turn: z.number().int().positive() }),
    2: z.object({
      reminderId: Id,
      turn: z.number().int().positive(),
      /**
       * The reminder's text block as the model was shown it, rendered when it was delivered. Null
       * only on an event upcast from v1, which names its reminder alone: the fold then renders the
       * reminder's raised text with the frozen v1 template (events/textsBefore28.ts).
       */
      rendered: z.string().nullable(),
    }),
  },
  review_requested: {
    1: z.object({ reviewId: Id, mode: z.enum(["shadow", "advisory"]), reviewerExecutorId: Id, subject: z.string() }),
  },
  review_delivered: {
    1: ReviewDeliveredV1,
    2: ReviewDeliveredV1.extend({
      /** Advisory mode: the advice's text block as Main's model was shown it (marked as advice), rendered when it was delivered. */
      rendered: z.string().optional(),
    }),
  },
  /** A request from outside the executor (operator, parent, governance) that it stop; folded at its next step. */
  cancel_requested: {
    1: z.object({ reason: z.string().min(1), by: CancelledBy, scope: z.enum(["run", "executor"]) }),
  },
  cancelled: {
    1: z.object({
      reason: z.string().min(1),
      by: CancelledBy,
      /** What was in flight when the request arrived: tool calls (aborted, or unknown), Children, a model call. */
      inFlight: z
        .array(z.object({ kind: z.enum(["tool", "child", "model"]), toolUseId: Id.optional(), tool: z.string().optional(), childExecutorId: Id.optional() }))
        .optional(),
    }),
  },
  settled: {
    1: z.object({
      /** checked: a Checker's, after its check_submitted. */
      outcome: z.enum(["answered", "handed_off", "checked"]),
      /** Main's structured answer; absent for a Child, whose result is its handoff. */
      answer: z.record(z.string(), z.unknown()).optional(),
      /** Main stopped by a limit, or no Child it delegated handed anything back: the answer is built from the handoffs it held. */
      partial: z.boolean().optional(),
    }),
  },
  check_submitted: {
    /**
     * In a Checker's stream, before it settles: its per-claim verdicts on Main's answer, given after its check
     * tools ran (their outputs are its tool_completed events). `forced`: a limit or the budget stopped it first,
     * so the check is incomplete (`reason` says which); the host then records the run's check as incomplete.
     */
    1: z.object({
      verdicts: z.array(z.object({ claimId: Id, verdict: z.enum(["supported", "flagged", "no_evidence"]), note: z.string().optional() })),
      forced: z.boolean(),
      reason: z.string().optional(),
    }),
  },
  failed: {
    1: z.object({ reason: z.string().min(1), kind: z.string() }),
  },
  run_sealed: {
    /** In the run's stream (run-<runId>), once the run settles: a root hash over every executor stream's head. */
    1: z.object({
      /** sha256 of the RFC 8785 JSON of `heads` (sorted by streamId): see events/rootHash.ts. */
      rootHash: Sha256,
      heads: z.array(z.object({ streamId: Id, version: z.number().int().positive(), hash: Sha256 })).min(1),
      /** Ed25519 over the run id and root hash (events/signSeal.ts) by a key the database does not hold; absent when unsigned. */
      signature: z.object({ keyId: Sha256, algorithm: z.literal("ed25519"), signature: z.string().min(1) }).optional(),
    }),
  },
  /** Run-level facts live in the stream run-<runId>, with metadata.executorId = Main's executor id. */
  run_submitted: {
    1: z.object({
      question: z.string().min(1),
      /** How the run is to be hosted (e.g. the scripted offline scenario); read back by workers. */
      options: z.record(z.string(), z.unknown()),
    }),
  },
  run_interrupted: {
    1: z.object({
      reason: z.string().min(1),
      /** operator: Ctrl-C or SIGTERM on run/resume; error: the host could not go on (configuration, damaged log). */
      by: z.enum(["operator", "error"]),
      /** Tool calls whose intent was recorded but whose outcome was not when the wait ran out. */
      inFlight: z.array(Id),
    }),
  },
  run_resumed: {
    /**
     * In the run's stream: a host took over a run another host had (a crash, an
     * interrupt, a lost lease). `downSince` is when the run's last event before
     * this one was recorded: from then until this event the run had no host, and
     * wall clocks do not count that time (governance/hostedTime.ts).
     */
    1: z.object({ downSince: z.string().datetime({ offset: true }) }),
  },
  check_completed: {
    /**
     * In the run's stream: the checker's verdicts on the settled answer (checker/checkAnswer.ts). The host records
     * one, from the run's Checker executor, after Main answers and before the seal; `ariadne check RUN` records
     * another, after the seal (which covers the executor streams only), when asked to look again.
     */
    1: z.object({
      answerEventId: Id,
      /**
       * supported: every observed claim is supported and nothing is flagged; flagged: something is (a quote not
       * found, a number not beside its subject, a page, advice, an artifact value, a source that changed);
       * unsupported: nothing is flagged but an observed claim has no evidence (or rests on unverified material
       * only), no claim is observed, or the answer is partial;
       * incomplete: the Checker stopped (a limit, the budget, a failure) before it gave its verdicts, so the
       * claims are not checked (never passed by default).
       */
      verdict: z.enum(["supported", "flagged", "unsupported", "incomplete"]),
      /** Why the verdict is not `supported` when nothing is flagged (an observed claim without evidence, a partial answer). */
      verdictReason: z.string().optional(),
      /**
       * The Checker executor whose verdicts these are (absent for `ariadne check RUN`, which is the
       * deterministic checker alone): its model, and whether it finished (`reason` when it did not).
       */
      checker: z.object({ executorId: Id.nullable(), model: z.string().min(1), state: z.enum(["completed", "incomplete"]), reason: z.string().optional() }).optional(),
      claims: z.array(
        z.object({
          claimId: Id,
          basis: z.enum(["observed", "judgment", "not_collected"]),
          verdict: z.enum(["supported", "flagged", "no_evidence"]),
          /** Why it is flagged or marked, one line each (a number no source states, a source that changed, no quotes). */
          notes: z.array(z.string()),
          /** Numbers the claim states, and those no cited source text or artifact states. */
          numbers: z.array(z.string()),
          unsupportedNumbers: z.array(z.string()),
          /** Keys into `sources` of what the claim's findings cite. */
          sources: z.array(z.number().int().nonnegative()),
          /** Each flag with its kind, for badges and reports (absent on checks recorded before kinds were kept). */
          flags: z.array(z.object({ kind: z.enum(["quote", "number", "page", "advice", "artifact", "source_changed"]), detail: z.string() })).optional(),
          /** Figures computed from cited ones (a difference, sum, ratio or percentage change), with their formula. */
          derived: z.array(z.object({ number: z.string(), formula: z.string() })).optional(),
          /** The phrases the claim quotes, and whether each was found in a blob it cites. */
          quotes: z.array(z.object({ text: z.string(), found: z.boolean() })).optional(),
        }),
      ),
      /** The answer's summary and headings, checked against every source the answer cites. */
      summary: z.object({ numbers: z.array(z.string()), unsupportedNumbers: z.array(z.string()), unfoundQuotes: z.array(z.string()).optional() }),
      /** The CSV and JSON artifacts the run published, each value held against what it was derived from. */
      artifacts: z
        .array(z.object({ id: z.string(), path: z.string(), sha256: Sha256, verdict: z.enum(["supported", "flagged"]), values: z.number().int().nonnegative(), notes: z.array(z.string()) }))
        .optional(),
      advice: z.array(z.object({ where: z.string().min(1), sentence: z.string().min(1), rule: z.string().min(1) })),
      sources: z.array(
        z.object({
          url: z.string().min(1),
          kind: z.string().min(1),
          recordedRawSha256: Sha256,
          /** unchanged; changed (still_supports: every quote and number it gave still occurs in the new text); no_longer_supports; unreachable; not_reread (search results, which always move). */
          state: z.enum(["unchanged", "still_supports", "no_longer_supports", "unreachable", "not_reread"]),
          currentRawSha256: Sha256.nullable(),
          detail: z.string().optional(),
          rereadAt: z.string(),
        }),
      ),
    }),
  },
  recovered: {
    1: z.object({
      fromVersion: z.number().int().nonnegative(),
      /** Effectful calls in flight at the crash: recorded effect_unknown, never run again. */
      unknownEffects: z.array(Id),
      /** read_only and idempotent calls in flight at the crash: run again (an idempotent one with its intent's key). */
      rerun: z.array(Id).default([]),
    }),
  },
} as const;

export type EventType = keyof typeof payloadSchemas;
export const eventTypes = Object.keys(payloadSchemas) as EventType[];

type Versions<T extends EventType> = (typeof payloadSchemas)[T];
/** The highest version's schema (add a branch when a type reaches version 4). */
type Latest<T extends EventType> = 3 extends keyof Versions<T>
  ? Versions<T>[3 & keyof Versions<T>]
  : 2 extends keyof Versions<T>
    ? Versions<T>[2 & keyof Versions<T>]
    : Versions<T>[1 & keyof Versions<T>];

/** The data of an event type at its current schema version. */
export type EventData<T extends EventType> = z.output<Latest<T>>;
export type EventDataInput<T extends EventType> = z.input<Latest<T>>;

export function currentSchemaVersion(type: EventType): number {
  return currentVersions.get(type)!;
}

/** Asked for every event validated, so found once. */
const currentVersions = new Map(eventTypes.map((t) => [t, Math.max(...Object.keys(payloadSchemas[t]).map(Number))]));

export function payloadSchema(type: EventType, version: number): z.ZodType | undefined {
  return (payloadSchemas[type] as Record<number, z.ZodType>)[version];
}

export const isEventType = (t: string): t is EventType => Object.hasOwn(payloadSchemas, t);

/**
 * Upcasts older payloads to the current version: tool_completed v1 had no
 * sources (v1 tools read nothing outside the run that was kept). Its artifacts
 * never had a producer (the runtime wrote [] for every v1 outcome), so they are
 * carried over as they are; only their id, path and sha256 are read.
 * executor_admitted before v3 did not record what its model was offered:
 * `offered` is null, and its requests are rebuilt from the host's tools and
 * profiles as they were before (actors/request/requestContext.ts).
 */
export function upcast(type: EventType, fromVersion: number, data: unknown): unknown {
  if (type === "tool_completed" && fromVersion === 1) return { ...(data as object), sources: [] };
  if (type === "executor_admitted" && fromVersion < 3) return { ...(fromVersion === 1 ? (upcastTextsBefore28(type, data) as object) : (data as object)), offered: null };
  if (fromVersion === 1) return upcastTextsBefore28(type, data);
  return data;
}

/**
 * Events written before they carried what the model was shown (issue 28) get
 * it rendered by the frozen copy of the templates of the time
 * (events/textsBefore28.ts), never by today's: executor_admitted its task
 * text, nudge and reachable URLs; handoff_consumed its block both ways;
 * review_delivered its advice block. reminder_delivered v1 names only its
 * reminder: `rendered` is null and the fold renders the raised text with the
 * same frozen template.
 */
function upcastTextsBefore28(type: EventType, data: unknown): unknown {
  switch (type) {
    case "executor_admitted": {
      const d = data as z.output<typeof ExecutorAdmittedV1>;
      return { ...d, rendered: { task: taskTextBefore28(d.role, d.task), nudge: nudgeBefore28(d.role), reachable: urlsInTaskBefore28(d.task) }, requestVersion: null };
    }
    case "handoff_consumed":
      return { ...(data as object), rendered: consumedBlocksBefore28(data as z.output<typeof HandoffConsumedV1>) };
    case "reminder_delivered":
      return { ...(data as object), rendered: null };
    case "review_delivered": {
      const d = data as z.output<typeof ReviewDeliveredV1>;
      return d.advice === undefined ? d : { ...d, rendered: adviceBlockBefore28(d.advice) };
    }
    default:
      return data;
  }
}
