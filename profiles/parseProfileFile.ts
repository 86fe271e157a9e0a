import { ProfileFormatError } from "./profileErrors.ts";

export interface ProfileHeader {
  id: string;
  version: string;
  title: string;
  requestedTools: string[];
  summary: string;
}

const FIELDS = ["id", "version", "title", "requested_tools", "summary"] as const;
type Field = (typeof FIELDS)[number];

const ID = /^[a-z][a-z0-9-]*$/;
const VERSION = /^\d+(\.\d+){0,2}$/;
const TOOL_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * Splits a profile file into its header and method text. Deliberately strict: a
 * profile is trusted method material frozen into execution identity, so any
 * ambiguity (unknown or repeated keys, blank values) is an error, not a guess.
 */
export function parseProfileFile(file: string, text: string): { header: ProfileHeader; body: string } {
  function fail(problem: string): never {
    throw new ProfileFormatError(file, problem);
  }
  const lines = text.split(/\r?\n/);
  if (lines[0] !== "---") fail('must start with a "---" header line');
  const close = lines.indexOf("---", 1);
  if (close === -1) fail('header is not closed by a "---" line');

  const values = new Map<Field, string>();
  for (const [i, line] of lines.slice(1, close).entries()) {
    const m = /^([a-z_]+):\s*(.*?)\s*$/.exec(line);
    if (!m) fail(`header line ${i + 2} is not "key: value": ${JSON.stringify(line)}`);
    const key = m[1] as Field;
    const value = m[2] ?? "";
    if (!FIELDS.includes(key)) fail(`unknown header field "${key}" (allowed: ${FIELDS.join(", ")})`);
    if (values.has(key)) fail(`header field "${key}" appears twice`);
    if (value === "") fail(`header field "${key}" is blank`);
    values.set(key, value);
  }
  const field = (f: Field): string => values.get(f) ?? fail(`missing header field "${f}"`);
  for (const f of FIELDS) field(f);

  const id = field("id");
  if (!ID.test(id)) fail(`header field "id" must match ${ID}, got "${id}"`);
  const version = field("version");
  if (!VERSION.test(version)) fail(`header field "version" must look like 1, 1.2 or 1.2.3, got "${version}"`);

  const body = lines.slice(close + 1).join("\n").trim();
  if (body === "") fail("has no method text after the header");

  return {
    header: {
      id,
      version,
      title: field("title"),
      requestedTools: parseToolList(field("requested_tools"), fail),
      summary: field("summary"),
    },
    body,
  };
}

function parseToolList(raw: string, fail: (problem: string) => never): string[] {
  const m = /^\[(.*)\]$/.exec(raw);
  if (!m) return fail(`header field "requested_tools" must be a bracketed list such as [read_document, quote_passage], got "${raw}"`);
  const inner = (m[1] ?? "").trim();
  if (inner === "") return [];
  const names = inner.split(",").map((s) => s.trim());
  for (const n of names) if (!TOOL_NAME.test(n)) fail(`requested tool "${n}" is not a valid tool name`);
  if (new Set(names).size !== names.length) fail(`header field "requested_tools" lists a tool twice`);
  return names;
}
