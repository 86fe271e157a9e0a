/** A blob a quote of one tool call may come from: a source's extracted text, or an artifact the call produced. */
export interface QuotableBlob {
  sha256: string;
  /** What the blob is, for the model and the auditor ("source https://…", "artifact overlap.json"). */
  label: string;
}

/** What the runtime recorded for one executor; the only ground truth a handoff is checked against. */
export interface HandoffFacts {
  /** tool_use ids with a recorded successful completion for this executor. */
  toolResultIds: ReadonlySet<string>;
  /** Artifacts this executor really produced, by id. */
  artifacts: ReadonlyMap<string, { path: string; sha256: string }>;
  /** Citation markers that appeared in this executor's tool outputs. */
  citationsSeen: ReadonlySet<string>;
  /** By tool_use id: the blobs a quote citing that call may come from, in the order they are searched. */
  quotable?: ReadonlyMap<string, readonly QuotableBlob[]>;
  /** tool_use ids of searches (web_search): discovery only, so a finding resting on them alone is refused. */
  discoveryOnly?: ReadonlySet<string>;
  /** Ids of the searches Anthropic ran inside the executor's model calls (server_tool_use): no tool result of ours, discovery only. */
  serverSearches?: ReadonlySet<string>;
  /** The text of those blobs, read by the runner for the quotes of the handoff being checked; a blob absent here cannot be checked. */
  blobTexts?: ReadonlyMap<string, string>;
}
