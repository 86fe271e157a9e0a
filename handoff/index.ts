export { extractCitationMarkers, isCitationMarker } from "./citationMarkers.ts";
export {
  classifyArtifact,
  classifyReference,
  type ArtifactVerdict,
  type RefField,
  type RefVerdict,
} from "./classifyReference.ts";
export type { HandoffFacts, QuotableBlob } from "./handoffFacts.ts";
export { locateQuote, textAtCodePoints, type QuoteVerdict } from "./locateQuote.ts";
export { findQuote, normaliseQuote, normaliseWithOffsets, sameQuote } from "./normaliseQuote.ts";
export {
  ArtifactRefSchema,
  Confidence,
  EvidenceSchema,
  ExecutionState,
  FindingSchema,
  HandoffSchema,
  MeasurementBasisSchema,
  QuoteSchema,
  QuoteSourceSchema,
  type Quote,
  type QuoteSource,
  SUMMARY_MAX,
  type Finding,
  type Handoff,
} from "./handoffSchema.ts";
export { addressesAgents } from "./addressesAgents.ts";
export { EXCERPT_CHARS, type GatheredResult, gatheredFindings } from "./gatheredFindings.ts";
export { HANDOFF_TOOL, handoffInputSchema, handoffToolSpec, handoffToolSpecFor } from "./handoffToolSpec.ts";
export { markUnknownEffects, type UnknownEffect } from "./markUnknownEffects.ts";
export { partialHandoff } from "./partialHandoff.ts";
export { repairFeedback } from "./repairFeedback.ts";
export { reviewReferences, type HandoffIssue, type HandoffIssueKind, type KeptReference } from "./reviewReferences.ts";
export { salvageHandoff } from "./salvageHandoff.ts";
export { validateHandoff, type HandoffVerdict } from "./validateHandoff.ts";
