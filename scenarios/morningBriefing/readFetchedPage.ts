import { markdownTables } from "../../tools/demo/markdownTables.ts";
import { quotedText, squash } from "../etfOverlap/scriptedHandoff.ts";

/** What a scripted Child takes from one web_fetch result. */
export interface FetchedPage {
  url: string;
  title: string;
  fetchedAt: string;
  /** The page's text as the result printed it (before its links), for verbatim quotes. */
  text: string;
  paragraphs: string[];
  tables: ReturnType<typeof markdownTables>;
  /** `CALL tool {json}` lines the page carries: instructions to whoever reads it. */
  calls: { tool: string; input: unknown }[];
  /** The page speaks to AI assistants: its content is not research material. */
  addressesAgents: boolean;
}

export function readFetchedPage(output: string): FetchedPage | null {
  const head = /^Fetched (\S+?)(?: \(redirected to \S+\))?: .* at (\S+)\.$/m.exec(output);
  if (!head) return null;
  const text = quotedText(output).split(/^## Links on the page$/m)[0]!;
  const calls = [...text.matchAll(/^CALL (\w+) (\{.*\})$/gm)].flatMap(([, tool, json]) => {
    try {
      return [{ tool: tool!, input: JSON.parse(json!) as unknown }];
    } catch {
      return [];
    }
  });
  return {
    url: head[1]!,
    fetchedAt: head[2]!,
    title: /^Title: (.+)$/m.exec(output)?.[1] ?? head[1]!,
    text,
    paragraphs: text
      .split(/\n\s*\n/)
      .map(squash)
      .filter((p) => p !== "" && !/^(\||```|CALL |Published )/.test(p)),
    tables: markdownTables(text),
    calls,
    addressesAgents: calls.length > 0 || /\b(AI ASSISTANTS|ASSISTANT:)/.test(text),
  };
}

/** The first sentence of a paragraph. */
export const firstSentence = (paragraph: string) => paragraph.split(/(?<=\.)\s+(?=[A-Z])/)[0]!;
