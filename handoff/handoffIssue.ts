import type { IssueDetail } from "../core/errors.ts";

export type HandoffIssueKind =
  | "schema"
  | "misplaced_reference"
  | "unknown_tool_result"
  | "unseen_citation"
  | "not_a_citation"
  | "unproduced_artifact"
  | "artifact_mismatch"
  | "quote_unknown_tool_result"
  | "quote_not_in_source"
  | "quote_wrong_page"
  | "quote_unchecked"
  | "discovery_only";

export interface HandoffIssue extends IssueDetail {
  kind: HandoffIssueKind;
  /** The offending reference or artifact id, when there is one. */
  ref?: string;
}

/** A reference that checked out and must survive the repair. */
export interface KeptReference {
  path: (string | number)[];
  ref: string;
}
