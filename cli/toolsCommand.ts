import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { type RunToolOptions, realToolNames, runTools } from "../runs/runTools.ts";
import { realWebOptions } from "../runs/realWebOptions.ts";
import { createMemoryBlobStore } from "../sources/index.ts";
import { type WebToolOptions, corpusSearchBackend, corpusUrlMap, parseToolInput, serveCorpus } from "../tools/index.ts";
import type { AriadneConfig } from "./config.ts";
import { parseCommand } from "./parseCommand.ts";

// The repository's scenario corpora (hostile and briefing pages) are served beside the shared corpus.
const SCENARIOS_DIR = fileURLToPath(new URL("../scenarios/", import.meta.url));

export const TOOLS_USAGE = `usage: ariadne tools list [--json]
       ariadne tools run TOOL --input JSON [--corpus DIR] [--allow-loopback] [--allow-private] [--json]

list   the tools a real question's run is offered: name, effect class, description (--json: with input
       schemas); the demo corpus tools only the offline scenarios get are left out
run    runs one tool once, outside any run: no model, no database. It gets a scratch workspace in a
       temporary folder (removed afterwards), an in-memory blob store and the system clock, and every
       URL counts as reachable (inside a run, web_fetch fetches only URLs the executor has seen).
       Prints the result as the model would see it, then the sources it recorded (kind, URL, sha256
       of the raw bytes and of the text) and how many links it showed. Exit 0 when the tool
       succeeded, 1 when it failed (its message is what the model would be told), 2 on bad usage.

options:
  --input JSON       the tool's input, a JSON object (e.g. '{"url": "https://example.com/"}')
  --corpus DIR       serve the shared test corpus from DIR (e.g. ../shared/corpus) on a local server
                     and map its hosts to it: https://pages.corpus.test/<name>/ to DIR/web/<name>/source.html,
                     https://docs.corpus.test/<file> to DIR/pdf/<file>, https://data.corpus.test/<file> to
                     DIR/data/<file>, and the scenario corpora: https://hostile.corpus.test/<name>/ and
                     https://briefing.corpus.test/<name>/ to scenarios/corpora/…; web_search then searches a local
                     index of the corpus pages. Without it, web_fetch uses the network and web_search the
                     configured provider (ARIADNE_SEARXNG_URL, BRAVE_SEARCH_API_KEY; ARIADNE_SEARCH picks one).
  --allow-loopback   let web_fetch fetch from this machine (127.0.0.1, ::1, localhost); refused by default
  --allow-private    let web_fetch fetch from private networks (10/8, 172.16/12, 192.168/16, …); refused by default
  --json             one JSON object: {tool, ok, output, sources, artifacts, links, sanitized} (list: an array)`;

/** `ariadne tools list` and `ariadne tools run TOOL --input JSON`; bad usage is one line on stderr and exit 2. */
export async function toolsCommand(argv: string[], out: (line: string) => void, config?: AriadneConfig): Promise<number> {
  try {
    return await tools(argv, out, config);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`ariadne: ${e.message}\n\n${TOOLS_USAGE}`);
    return 2;
  }
}

class UsageError extends Error {}

async function tools(argv: string[], out: (line: string) => void, config?: AriadneConfig): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      input: { type: "string" },
      corpus: { type: "string" },
      "allow-loopback": { type: "boolean", default: false },
      "allow-private": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
    TOOLS_USAGE,
  );
  if (values.help) return (out(TOOLS_USAGE), 0);
  const [action, name, ...extra] = positionals;
  if (action === "list" && !name) return list(out, values.json);
  if (action !== "run" || !name || extra.length) throw usage(`expected "tools list" or "tools run TOOL --input JSON"`);
  if (values.input === undefined) throw usage(`tools run needs --input JSON, the tool's input object`);
  let input: unknown;
  try {
    input = JSON.parse(values.input);
  } catch (e) {
    throw usage(`--input is not JSON: ${(e as Error).message}`);
  }
  const corpus = values.corpus === undefined ? undefined : await serveCorpus(withSlash(resolve(values.corpus)), { scenariosDir: SCENARIOS_DIR });
  try {
    const configured = config ? await realWebOptions({ search: config.search, web: config.web }, config.corpusDir) : {};
    const web: WebToolOptions = {
      ...configured,
      allowLoopback: values["allow-loopback"] || !!config?.web.allowLoopback,
      allowPrivate: values["allow-private"] || !!config?.web.allowPrivate,
      ...(corpus && { mapUrl: corpusUrlMap(corpus.origin, corpus.hosts), search: corpusSearchBackend(withSlash(resolve(values.corpus!))) }),
    };
    return await runOne(name, input, { web, compute: { passEnv: config?.openblas } }, values.json, out);
  } finally {
    await corpus?.close();
  }
}

function list(out: (line: string) => void, json: boolean): number {
  const registry = runTools();
  const tools = realToolNames(registry).map((n) => registry.get(n)!);
  if (json) out(JSON.stringify(tools.map((t) => ({ name: t.name, effect: t.effect, description: t.description, input_schema: t.spec.input_schema }))));
  else for (const t of tools) out(`${t.name.padEnd(16)} ${t.effect.padEnd(11)} ${t.description.split(/(?<=\.)\s/)[0]}`);
  return 0;
}

async function runOne(name: string, input: unknown, options: RunToolOptions, json: boolean, out: (line: string) => void): Promise<number> {
  const registry = runTools(options);
  const tool = registry.get(name);
  if (!tool) throw usage(`no tool "${name}"; tools: ${registry.names().join(", ")}`);
  const parsed = parseToolInput(tool, input);
  if (!parsed.ok) throw usage(parsed.message);
  const workspaceDir = await mkdtemp(join(tmpdir(), "ariadne-tools-"));
  const abort = new AbortController();
  const stop = () => abort.abort(new Error("interrupted"));
  process.once("SIGINT", stop);
  try {
    const ctx = {
      runId: `tools-run-${randomUUID()}`,
      executorId: "cli",
      signal: abort.signal,
      idempotencyKey: randomUUID(),
      blobs: createMemoryBlobStore(),
      workspaceDir,
      now: () => new Date(),
    };
    const result = await tool.runSanitized(parsed.value, ctx).then(
      (r) => ({ ok: true as const, ...r }),
      (e: unknown) => ({ ok: false as const, output: `${name} failed: ${(e as Error).message ?? String(e)}` }),
    );
    if (json) {
      out(JSON.stringify({ tool: name, ...result, sources: "sources" in result ? (result.sources ?? []) : [], artifacts: "artifacts" in result ? (result.artifacts ?? []) : [] }));
      return result.ok ? 0 : 1;
    }
    out(result.output);
    if (result.ok) {
      const sources = result.sources ?? [];
      out("");
      out(`sources (${sources.length}):`);
      for (const s of sources) out(`  - ${s.kind} ${s.url}${s.finalUrl && s.finalUrl !== s.url ? ` -> ${s.finalUrl}` : ""} · ${s.contentType || "?"} · ${s.bytes} bytes · raw ${s.rawSha256} · text ${s.textSha256}`);
      for (const a of result.artifacts ?? []) out(`  - artifact ${a.id} ${a.path} · ${a.bytes} bytes · ${a.sha256}`);
      out(`links: ${result.links?.length ?? 0}`);
    }
    return result.ok ? 0 : 1;
  } finally {
    process.off("SIGINT", stop);
    await rm(workspaceDir, { recursive: true, force: true });
  }
}

const usage = (message: string) => new UsageError(message);
const withSlash = (dir: string) => (dir.endsWith("/") ? dir : `${dir}/`);
