import { ToolDefinitionError } from "../toolErrors.ts";

export interface CorpusSection {
  /** Stable anchor used in citation markers: "fees", "p12". */
  id: string;
  heading: string;
  text: string;
}

export interface CorpusDocument {
  id: string;
  title: string;
  asOf: string | null;
  sections: CorpusSection[];
}

const HEADING = /^## \[([a-z0-9][a-z0-9-]*)\] (.+)$/;
const AS_OF = /^As of: (\d{4}-\d{2}-\d{2})$/m;

/** The marker a passage is cited by; the same form the handoff accepts. */
export function citationMarker(docId: string, sectionId?: string): string {
  return sectionId ? `[[corpus:${docId}#${sectionId}]]` : `[[corpus:${docId}]]`;
}

/**
 * Corpus files are markdown with a "# Title" line and "## [anchor] Heading"
 * sections; text before the first section is the "intro" section. Anchors are
 * explicit so citations stay stable when headings are reworded.
 */
export function parseCorpusDocument(id: string, text: string): CorpusDocument {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const title = /^# (.+)$/.exec(lines[0] ?? "")?.[1];
  if (!title) throw new ToolDefinitionError(`corpus document ${id} must start with a "# Title" line`);

  const sections: CorpusSection[] = [];
  let current: CorpusSection = { id: "intro", heading: "Introduction", text: "" };
  const body: string[] = [];
  const flush = () => {
    current.text = body.join("\n").trim();
    if (current.text !== "" || current.id !== "intro") sections.push(current);
    body.length = 0;
  };
  for (const line of lines.slice(1)) {
    if (line.startsWith("## ")) {
      const m = HEADING.exec(line);
      if (!m) throw new ToolDefinitionError(`corpus document ${id}: section heading without [anchor]: ${line}`);
      flush();
      current = { id: m[1]!, heading: m[2]!, text: "" };
      if (sections.some((s) => s.id === current.id)) {
        throw new ToolDefinitionError(`corpus document ${id}: section anchor "${current.id}" repeats`);
      }
    } else {
      body.push(line);
    }
  }
  flush();
  return { id, title, asOf: AS_OF.exec(text)?.[1] ?? null, sections };
}
