/** What the runtime recorded for one executor; the only ground truth a handoff is checked against. */
export interface HandoffFacts {
  /** tool_use ids with a recorded successful completion for this executor. */
  toolResultIds: ReadonlySet<string>;
  /** Artifacts this executor really produced, by id. */
  artifacts: ReadonlyMap<string, { path: string; sha256: string }>;
  /** Citation markers that appeared in this executor's tool outputs. */
  citationsSeen: ReadonlySet<string>;
}
