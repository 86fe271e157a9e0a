import { z } from "zod";

export const Confidence = z.enum(["high", "medium", "low"]);
export type Confidence = z.infer<typeof Confidence>;

export const ExecutionState = z.enum(["completed", "partial", "not_executed", "unknown_effects"]);
export type ExecutionState = z.infer<typeof ExecutionState>;

export const SUMMARY_MAX = 1200;

// References are trimmed so a stray space does not turn a real id into an unknown one.
const ref = z.string().trim().min(1);

/** Where the runtime found a quote: the text blob it is in and its character (Unicode code point) offsets there. */
export const QuoteSourceSchema = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  charStart: z.number().int().nonnegative(),
  charEnd: z.number().int().nonnegative(),
});

export const QuoteSchema = z.object({
  toolUseId: ref.describe("tool_use id of your own successful tool call whose output shows the quoted text."),
  text: z
    .string()
    .min(1)
    .describe("The quoted text, copied character for character from that tool output: same words, punctuation, spaces and line breaks; no ellipsis, no paraphrase."),
  page: z.number().int().positive().optional().describe('The PDF page the text is on, from its "[page N]" marker; leave out for other sources.'),
  source: QuoteSourceSchema.optional().describe("Set by the runtime when it accepts the handoff (the blob and offsets where it found the text); leave out."),
});

export const EvidenceSchema = z.object({
  toolResults: z
    .array(ref)
    .describe('tool_use ids of your own successful tool calls that support the claim, e.g. "toolu_01A". Never citation markers.'),
  citations: z
    .array(ref)
    .describe("Citation markers copied from your tool outputs, e.g. [[corpus:adiv-prospectus#p12]]. Never tool_use ids."),
  quotes: z
    .array(QuoteSchema)
    .optional()
    .describe("The exact text your claim rests on, quoted from your tool outputs; each must occur verbatim in the source that tool call read."),
});

/** A finding as the model writes it. */
const ModelFindingSchema = z.object({
  claim: z.string().trim().min(1).describe("One claim you established, stated with its conditions."),
  evidence: EvidenceSchema,
  confidence: Confidence,
});

/**
 * A finding as recorded: `gathered` is set by the runtime alone, on a tool result a stopped Child gathered and
 * never summarised (gatheredFindings): unverified material, which Main can cite only as such and the
 * checker never counts as observed. It is not in the model's tool schema.
 */
export const FindingSchema = ModelFindingSchema.extend({ gathered: z.literal(true).optional() });

export const MeasurementBasisSchema = z.object({
  sources: z.array(z.string()).describe("Documents or datasets relied on."),
  dates: z.array(z.string()).describe("As-of, publication and effective dates that matter."),
  units: z.array(z.string()).describe("Units and currencies of the figures."),
  scope: z.string().describe("What the findings cover and what they do not (share class, period, holdings coverage)."),
});

export const ArtifactRefSchema = z.object({
  id: z.string().min(1),
  path: z.string().min(1),
  sha256: z.string().min(1),
});

/**
 * What a Child hands back: a compressed work product, not its transcript. The
 * process is shortened; the evidence, basis and caveats that decide whether a
 * finding can be used are not.
 */
export const HandoffSchema = z.object({
  summary: z.string().max(SUMMARY_MAX).describe("Which question was addressed and what was learned; short."),
  findings: z.array(FindingSchema),
  measurementBasis: MeasurementBasisSchema,
  artifacts: z
    .array(ArtifactRefSchema)
    .describe("Only artifacts a tool of yours really produced, with the id, path and sha256 it reported."),
  gaps: z.array(z.string()).describe("What you could not establish, and why."),
  executionState: ExecutionState.describe(
    "completed; partial (some of the task done); not_executed (nothing usable done); unknown_effects (an effectful step may or may not have happened).",
  ),
  confidence: Confidence,
  caveats: z.array(z.string()),
});

/** The handoff tool's input as the model sees it: findings without the runtime's `gathered` mark. */
export const ModelHandoffSchema = HandoffSchema.extend({ findings: z.array(ModelFindingSchema) });

export type Handoff = z.output<typeof HandoffSchema>;
export type Finding = z.output<typeof FindingSchema>;
export type Quote = z.output<typeof QuoteSchema>;
export type QuoteSource = z.output<typeof QuoteSourceSchema>;
