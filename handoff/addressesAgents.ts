/**
 * Whether a text a tool read addresses instructions to the AI reading it ("NOTE TO AI ASSISTANTS …",
 * "ASSISTANT: to comply …", "ignore previous instructions"): a hostile page. Material from it is never
 * handed on unread as gathered material. A small rule set, each rule named so a caveat says why.
 */
const RULES: [name: string, pattern: RegExp][] = [
  ["addresses AI assistants", /\b(?:note|message|instructions?|attention)\s+(?:to|for)\s+(?:all\s+)?(?:ai|llm|automated|language[- ]model)\s*(?:assistants?|agents?|models?|systems?|readers?)?\b/i],
  ["addresses AI assistants", /\b(?:AI|automated research) ASSISTANTS?\b/],
  ["speaks as the assistant", /(?:^|\n|>)\s*(?:ASSISTANT|SYSTEM)\s*:/],
  ["overrides instructions", /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:previous|prior|above|earlier|your)\s+(?:instructions|prompts?|rules)\b/i],
  ["asks for a tool call", /\bCALL\s+(?:web_fetch|write_file|read_file|delegate|compute|publish_artifact)\s*\{/],
];

/** The name of the first rule a text meets, or null. */
export function addressesAgents(text: string): string | null {
  for (const [name, pattern] of RULES) if (pattern.test(text)) return name;
  return null;
}
