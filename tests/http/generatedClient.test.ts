import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import openapiTS from "openapi-typescript";
import { createApp } from "../../http/app.ts";
import type { AppDeps } from "../../http/deps.ts";

/*
 * Issue 18, the contract: a client generated from /openapi.json with
 * openapi-typescript is typed end to end. A small program (submit, stream,
 * read the answer) must type-check against it, with the project's tsc and
 * with `deno check`; the same program with a misspelt answer field, a wrong
 * event field or an untyped executor tree must not.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
// The document needs no database: it is built from the routes' schemas.
const app = createApp({ auth: "keys", database: {}, runs: {}, reads: {}, hub: {}, log: () => {} } as unknown as AppDeps);

const PROGRAM = `import type { components, paths } from "./api.d.ts";

type SubmitRun = paths["/v1/runs"]["post"]["requestBody"]["content"]["application/json"];
type Run = paths["/v1/runs"]["post"]["responses"][201]["content"]["application/json"];
type RunList = paths["/v1/runs"]["get"]["responses"][200]["content"]["application/json"];
type Event = components["schemas"]["Event"];
type AnswerDelta = components["schemas"]["AnswerDelta"];
type ExecutorNode = components["schemas"]["ExecutorNode"];

const base = "http://127.0.0.1:8787";
const headers = { authorization: "Bearer ariadne_x", "content-type": "application/json" };

export async function submit(question: string): Promise<Run> {
  const body: SubmitRun = { question, caps: { main: { maxTurns: 8 } }, metadata: { customer: "acme" }, reviewer: "off" };
  const res = await fetch(base + "/v1/runs?wait=30", { method: "POST", headers, body: JSON.stringify(body) });
  return (await res.json()) as Run;
}

export async function* stream(question: string): AsyncGenerator<Event | AnswerDelta> {
  const res = await fetch(base + "/v1/runs?types=turn,settled,answer.delta", {
    method: "POST",
    headers: { ...headers, accept: "text/event-stream" },
    body: JSON.stringify({ question, stream: true } satisfies SubmitRun),
  });
  const text = await res.text();
  for (const block of text.split("\\n\\n")) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (!data || event === "run" || event === "end") continue;
    yield JSON.parse(data) as Event | AnswerDelta;
  }
}

function depth(node: ExecutorNode): number {
  return 1 + Math.max(0, ...node.children.map(depth));
}

export async function main(): Promise<string> {
  let written = "";
  for await (const e of stream("Should I add ADIV?")) {
    if ("position" in e) {
      if (e.type === "turn") written += String(e.data.turn);
      if (e.type === "settled" && e.data.outcome === "answered") written += "done";
    } else if (e.type === "text") written += e.text ?? "";
  }
  const run = await submit("Should I add ADIV?");
  const list: RunList = await (await fetch(base + "/v1/runs?metadata[customer]=acme&order=asc", { headers })).json();
  const first: Run | undefined = list.data[0];
  const claims = run.answer?.sections.flatMap((s) => s.claims.map((c) => c.basis + ": " + c.text)) ?? [];
  return [run.state, run.answer?.summary ?? "", ...claims, String(depth(run.executors)), String(list.has_more), first?.metadata.customer ?? "", written].join("\\n");
}
`;

/** Each line breaks the program in a way only a typed contract catches. */
const BROKEN: [string, string][] = [
  ["a misspelt answer field", "run.answer?.summary ?? \"\"", "run.answer?.summry ?? \"\""],
  ["a field of another event type", "written += String(e.data.turn)", "written += String(e.data.outcome)"],
  ["an executor tree that is not recursive", "node.children.map(depth)", "node.children.map((c) => c.children.length + c.nope)"],
  ["an unknown body field", "reviewer: \"off\" };", "reviewer: \"off\", bogus: 1 };"],
].map(([what, from, to]) => [what!, PROGRAM.replace(from!, to!)]);

const TSCONFIG = { compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", lib: ["es2022", "dom", "dom.asynciterable"], skipLibCheck: false, types: [] } };

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "ariadne-client-"));
  const document = await (await app.request("http://127.0.0.1:8787/openapi.json")).json();
  await writeFile(join(dir, "api.d.ts"), await openapiTS(document as Parameters<typeof openapiTS>[0]));
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
});
after(() => rm(dir, { recursive: true, force: true }));

async function tsc(program: string): Promise<{ ok: boolean; out: string }> {
  await writeFile(join(dir, "client.ts"), program);
  try {
    await run(join(root, "node_modules/.bin/tsc"), ["-p", dir], { cwd: dir, timeout: 120_000 });
    return { ok: true, out: "" };
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    return { ok: false, out: `${stdout ?? ""}${stderr ?? ""}` };
  }
}

async function denoCheck(program: string): Promise<{ ok: boolean; out: string }> {
  await writeFile(join(dir, "client.ts"), program);
  try {
    await run(join(root, "node_modules/.bin/deno"), ["check", "--quiet", join(dir, "client.ts")], { cwd: dir, timeout: 180_000, env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" } });
    return { ok: true, out: "" };
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    return { ok: false, out: `${stdout ?? ""}${stderr ?? ""}` };
  }
}

test("the document: an operationId on every route, servers, open routes with security: []", async () => {
  const doc = (await (await app.request("http://127.0.0.1:8787/openapi.json")).json()) as {
    servers: { url: string }[];
    security: unknown[];
    paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>>;
    components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
  };
  assert.deepEqual(doc.servers.map((s) => s.url), ["http://127.0.0.1:8787"]);
  assert.deepEqual(doc.security, [{ bearer: [] }]);
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ at: `${method} ${path}`, ...op })));
  assert.ok(ops.length >= 11);
  assert.deepEqual(ops.filter((o) => !o.operationId).map((o) => o.at), [], "every route has an operationId");
  assert.equal(new Set(ops.map((o) => o.operationId)).size, ops.length, "operationIds are unique");
  for (const open of ["get /healthz", "get /readyz"]) assert.deepEqual(ops.find((o) => o.at === open)?.security, [], open);
  assert.deepEqual(doc.components.schemas.ExecutorNode?.properties?.children, { type: "array", items: { $ref: "#/components/schemas/ExecutorNode" } });
  for (const name of ["Answer", "Handoff", "Transcript", "AnswerDelta", "Event_turn", "Event_settled", "Event_handoff_committed"]) assert.ok(doc.components.schemas[name], name);
});

test("a client generated with openapi-typescript type-checks a submit / stream / answer program with tsc, and catches misuse", { timeout: 600_000 }, async () => {
  const good = await tsc(PROGRAM);
  assert.ok(good.ok, good.out);
  for (const [what, program] of BROKEN) {
    const bad = await tsc(program);
    assert.ok(!bad.ok, `tsc accepted ${what}`);
    assert.match(bad.out, /error TS/, what);
  }
});

test("the same program type-checks under deno check, and a misspelt answer field does not", { timeout: 600_000 }, async () => {
  const good = await denoCheck(PROGRAM);
  assert.ok(good.ok, good.out);
  const bad = await denoCheck(BROKEN[0]![1]);
  assert.ok(!bad.ok, "deno check accepted a misspelt answer field");
  assert.match(bad.out, /summry/);
});
