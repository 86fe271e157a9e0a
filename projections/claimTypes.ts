/**
 * A run's claims, each followed to the bytes behind it: plain JSON, so the CLI,
 * the HTTP API and an exported bundle (claims.jsonl) serialise it as it is.
 */
import type { SourceRecord } from "../sources/types.ts";

/** Where an event sits in the log, and its chain hash. */
export interface EventRef {
  eventId: string;
  streamId: string;
  streamVersion: number;
  globalPosition: number;
  hash: string;
}

/** A source a tool read, as its `tool_completed` recorded it (its kind moved to `sourceKind`). */
export type SourceRef = { kind: "source"; sourceKind: SourceRecord["kind"] } & Omit<SourceRecord, "kind">;

/** A file a tool wrote, as its `tool_completed` recorded it. */
export interface ArtifactRef {
  kind: "artifact";
  id: string;
  path: string;
  sha256: string;
  bytes?: number;
}

/** One tool call of the Child: the intent before the effect, the outcome after it, and what it read and wrote. */
export interface ToolCallChain {
  toolUseId: string;
  tool: string;
  input: unknown;
  /** The Child's turn that asked for it. */
  turn: number | null;
  intent: EventRef | null;
  outcome: (EventRef & { type: string }) | null;
  sources: SourceRef[];
  artifacts: ArtifactRef[];
}

/** A quote of a finding's evidence, followed to the blob the runtime found it in. */
export interface QuoteChain {
  text: string;
  page: number | null;
  /** The text blob and the character (Unicode code point) offsets the quote sits at; null for a quote recorded without them. */
  blob: { sha256: string; charStart: number; charEnd: number } | null;
  toolUseId: string;
  call: ToolCallChain | null;
  /** The source (or artifact) of that call whose text the blob is. */
  source: SourceRef | ArtifactRef | null;
}

/** The model turn whose handoff call wrote the finding, and the reminders its request carried. */
export interface TurnChain {
  executorId: string;
  /** The executor's own turn number. */
  turn: number;
  model: string;
  provider: string;
  scripted: boolean;
  requestDigest: string;
  /** The provider's id of the response (null for scripted turns, which have none, and turns recorded before it was kept). */
  responseId: string | null;
  usage: { inputTokens: number; outputTokens: number };
  event: EventRef;
  reminders: { reminderId: string; text: string }[];
}

/** A finding a claim cites, with everything behind it. */
export interface FindingChain {
  executorId: string;
  finding: number;
  /** The finding as the Child committed it; null when the cited handoff or finding is not in the log. */
  claim: string | null;
  confidence: string | null;
  /**
   * A tool result a stopped Child gathered and never summarised, which the runtime handed on as unverified
   * material (handoff/gatheredFindings.ts): a claim resting on it alone is not observed.
   */
  gathered?: true;
  child: { executorId: string; role: string | null; profile: { id: string; version: string; sha256: string } | null; admission: EventRef | null };
  handoff: (EventRef & { forced: boolean }) | null;
  /** null when no model turn wrote it (a partial handoff the runtime built from gathered tool results). */
  turn: TurnChain | null;
  quotes: QuoteChain[];
  /** Every tool call the finding's evidence names (toolResults and quotes). */
  toolCalls: ToolCallChain[];
  citations: string[];
  /** What could not be followed (a finding missing, a call without outcome). */
  problems: string[];
}

export interface ClaimChain {
  /** c1, c2, … in the answer's order. */
  id: string;
  section: string;
  sectionIndex: number;
  claimIndex: number;
  text: string;
  basis: "observed" | "judgment" | "not_collected";
  /** For judgment and not_collected claims: that they rest on no evidence, and why. */
  noEvidence: string | null;
  findings: FindingChain[];
}

export interface RunClaims {
  runId: string;
  /** Main's answer event; null while the run has no answer. */
  answer: (EventRef & { executorId: string; partial: boolean }) | null;
  claims: ClaimChain[];
}
