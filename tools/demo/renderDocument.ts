import { ToolError } from "../toolErrors.ts";
import { citationMarker, type CorpusDocument } from "./corpusDocument.ts";

/**
 * The document as the model reads it: every section opens with its own citation
 * marker, so whatever the model cites has appeared in a tool output.
 */
export function renderDocument(doc: CorpusDocument, sectionId?: string): string {
  const sections = sectionId === undefined ? doc.sections : doc.sections.filter((s) => s.id === sectionId);
  if (sections.length === 0) {
    throw new ToolError(
      `Document "${doc.id}" has no section "${sectionId}". Sections: ${doc.sections.map((s) => s.id).join(", ")}.`,
    );
  }
  const head = [
    `${doc.title} ${citationMarker(doc.id)}`,
    `As of: ${doc.asOf ?? "not stated"}`,
    `Sections: ${doc.sections.map((s) => s.id).join(", ")}`,
  ];
  const body = sections.map((s) => `${citationMarker(doc.id, s.id)} ${s.heading}\n${s.text}`);
  return [head.join("\n"), ...body].join("\n\n");
}
