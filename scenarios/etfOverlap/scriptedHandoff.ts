export { type Basis, emptyBasis, handoff, quoteOf, quotedText, squash, use, verbatim } from "../../models/scriptedReplies.ts";
