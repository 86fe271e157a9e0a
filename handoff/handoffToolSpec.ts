import { z } from "zod";
import type { ToolSpec } from "../models/types.ts";
import { canonicalJson, rememberCanonical } from "../core/canonicalJson.ts";
import type { HandoffFacts } from "./handoffFacts.ts";
import { ModelHandoffSchema } from "./handoffSchema.ts";

/** The handoff tool's input schema, derived from the zod schema so the two cannot drift. */
export const handoffInputSchema: Record<string, unknown> = (() => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(ModelHandoffSchema, { io: "input" }) as Record<string, unknown>;
  return rest;
})();

export const HANDOFF_TOOL = "handoff";

export const handoffToolSpec: ToolSpec = {
  name: HANDOFF_TOOL,
  description:
    "Hand your work back to the executor that delegated it. Call once, when done or when you cannot go further. " +
    "Evidence has two kinds of reference, each in its own field: toolResults holds tool_use ids of your successful tool calls; " +
    "citations holds citation markers such as [[corpus:doc#p3]] copied from tool outputs. " +
    "quotes holds the exact text a claim rests on: the tool_use id of the call whose output shows it and the text copied verbatim; each is checked against what that call read. " +
    "List only artifacts a tool really produced. Name gaps honestly; partial findings are useful.",
  input_schema: handoffInputSchema,
};

type Node = { properties: Record<string, Node>; items: Node; description?: string } & Record<string, unknown>;

/** Exactly these strings, or (when there are none) an empty list; the rest of `base` (its description) kept. */
function onlyThese(base: Node, list: string[]): Record<string, unknown> {
  const { items: _items, ...rest } = base;
  return list.length ? { ...rest, items: { type: "string", enum: list } } : { maxItems: 0, ...rest, items: { type: "string" } };
}

/**
 * canonicalJson(build(base, list)) from texts written once per node and
 * builder: the empty list's, and the text around a one-string list's string,
 * where the list's strings go (an array keeps its order).
 */
function listText(build: (base: Node, list: string[]) => unknown, base: Node, list: string[]): string {
  let byNode = listTexts.get(build);
  if (!byNode) listTexts.set(build, (byNode = new Map()));
  let texts = byNode.get(base);
  if (!texts) {
    const marker = canonicalJson("\u0000marker\u0000")!;
    const one = canonicalJson(build(base, ["\u0000marker\u0000"]))!;
    const at = one.indexOf(marker);
    texts = { empty: canonicalJson(build(base, []))!, before: one.slice(0, at), after: one.slice(at + marker.length) };
    byNode.set(base, texts);
  }
  if (list.length === 0) return texts.empty;
  let strings = canonicalJson(list[0])!;
  for (let i = 1; i < list.length; i++) strings += `,${canonicalJson(list[i])}`;
  return texts.before + strings + texts.after;
}

const listTexts = new Map<(base: Node, list: string[]) => unknown, Map<Node, { empty: string; before: string; after: string }>>();

/** Quotes whose toolUseId is one of these ids, or (when there are none) an empty list. */
function onlyQuotesOf(base: Node, ids: string[]): Record<string, unknown> {
  if (ids.length === 0) return { ...base, maxItems: 0 };
  const toolUseId = base.items.properties.toolUseId;
  const narrowed = { type: "string", enum: ids, ...(toolUseId.description ? { description: toolUseId.description } : {}) };
  return { ...base, items: { ...base.items, properties: { ...base.items.properties, toolUseId: narrowed } } };
}

/** Exactly these artifacts, each field a const, or (when there are none) an empty list. */
function onlyProduced(base: Node, artifacts: HandoffFacts["artifacts"]): Record<string, unknown> {
  const produced = [...artifacts].map(([id, a]) => ({
    type: "object",
    properties: { id: { type: "string", const: id }, path: { type: "string", const: a.path }, sha256: { type: "string", const: a.sha256 } },
    required: ["id", "path", "sha256"],
  }));
  if (produced.length === 0) return { maxItems: 0, ...base };
  return { ...base, items: produced.length === 1 ? produced[0] : { anyOf: produced } };
}

/**
 * The handoff tool as validateHandoff will accept it, given what this executor
 * really did: evidence names its own successful tool calls and the markers its
 * tools printed; artifacts are the ones it produced. Set into the schema derived
 * from zod as plain JSON, because deriving schemas with zod costs about a
 * millisecond and this runs for every turn; tests/actors/toolSchemas.test.ts
 * checks the result against the same narrowing written in zod. Its canonical
 * text (hashed into every request digest) is filled into a template written once.
 */
export function handoffToolSpecFor(facts: HandoffFacts): ToolSpec {
  const base = handoffInputSchema as Node;
  const evidence = base.properties.findings.items.properties.evidence;
  const toolResultIds = [...facts.toolResultIds];
  const citationsSeen = [...facts.citationsSeen];
  const narrowed = {
    toolResults: onlyThese(evidence.properties.toolResults, toolResultIds),
    citations: onlyThese(evidence.properties.citations, citationsSeen),
    quotes: onlyQuotesOf(evidence.properties.quotes, toolResultIds),
    artifacts: onlyProduced(base.properties.artifacts, facts.artifacts),
  };
  const texts: Record<Narrowed, string> = {
    toolResults: listText(onlyThese, evidence.properties.toolResults, toolResultIds),
    citations: listText(onlyThese, evidence.properties.citations, citationsSeen),
    quotes: listText(onlyQuotesOf, evidence.properties.quotes, toolResultIds),
    artifacts: facts.artifacts.size ? canonicalJson(narrowed.artifacts)! : (noArtifactsText ??= canonicalJson(narrowed.artifacts)!),
  };
  return rememberCanonical(assemble(narrowed), template.map((part, i) => (i % 2 ? texts[part as Narrowed] : part)).join(""));
}

/** The artifacts node when none were produced: always the same. */
let noArtifactsText: string | undefined;

type Narrowed = "toolResults" | "citations" | "quotes" | "artifacts";

/** The spec with the four narrowed nodes set in; every other part shared with handoffToolSpec. */
function assemble(narrowed: Record<Narrowed, unknown>): ToolSpec {
  const base = handoffInputSchema as Node;
  const finding = base.properties.findings.items;
  const evidence = finding.properties.evidence;
  const narrowedEvidence = {
    ...evidence,
    properties: { ...evidence.properties, toolResults: narrowed.toolResults, citations: narrowed.citations, quotes: narrowed.quotes },
  };
  const findings = { ...base.properties.findings, items: { ...finding, properties: { ...finding.properties, evidence: narrowedEvidence } } };
  return { ...handoffToolSpec, input_schema: { ...base, properties: { ...base.properties, findings, artifacts: narrowed.artifacts } } };
}

/**
 * The canonical text of the narrowed spec, split around its four narrowed
 * nodes: literal text at even places, the name of the node whose canonical
 * text goes there at odd ones. Found by writing the spec with a marker string
 * in each node's place.
 */
const template: string[] = (() => {
  const names: Narrowed[] = ["toolResults", "citations", "quotes", "artifacts"];
  const marker = (name: Narrowed) => `\u0000narrowed:${name}\u0000`;
  const text = canonicalJson(assemble({ toolResults: marker("toolResults"), citations: marker("citations"), quotes: marker("quotes"), artifacts: marker("artifacts") }))!;
  const places = names
    .map((name) => {
      const written = canonicalJson(marker(name))!;
      const at = text.indexOf(written);
      if (at < 0 || text.lastIndexOf(written) !== at) throw new Error(`the handoff spec template must hold ${name} once`);
      return { name, at, end: at + written.length };
    })
    .sort((a, b) => a.at - b.at);
  const parts: string[] = [];
  let from = 0;
  for (const p of places) {
    parts.push(text.slice(from, p.at), p.name);
    from = p.end;
  }
  parts.push(text.slice(from));
  return parts;
})();
