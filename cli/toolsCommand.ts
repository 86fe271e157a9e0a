import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { type RunToolOptions, realToolNames, runTools } from "../runs/host/runTools.ts";
import { realWebOptions } from "../runs/host/realWebOptions.ts";
import { createMemoryBlobStore } from "../sources/index.ts";
import { type WebToolOptions, corpusSearchBackend, corpusUrlMap, parseToolInput, serveCorpus } from "../tools/index.ts";
import type { Invocation } from "./command.ts";
import { UsageError } from "./usage.ts";

// The repository's scenario corpora (hostile and briefing pages) are served beside the corpus.
const SCENARIOS_DIR = fileURLToPath(new URL("../scenarios/", import.meta.url));

/** `ariadne tools list`. */
export async function toolsList({ flags, out }: Invocation): Promise<number> {
  return list(out, flags.bool("json"));
}

/** `ariadne tools run TOOL --input JSON`: bad usage (no input, not JSON, no such tool) is one line, exit 2. */
export async function toolsRun({ flags, positionals, out, config }: Invocation): Promise<number> {
  const [name] = positionals as [string];
  const rawInput = flags.string("input");
  if (rawInput === undefined) throw usage(`tools run needs --input JSON, the tool's input object`);
  let input: unknown;
  try {
    input = JSON.parse(rawInput);
  } catch (e) {
    throw usage(`--input is not JSON: ${(e as Error).message}`);
  }
  const corpusDir = flags.string("corpus");
  const corpus = corpusDir === undefined ? undefined : await serveCorpus(withSlash(resolve(corpusDir)), { scenariosDir: SCENARIOS_DIR });
  try {
    // Without --corpus, the host's configured provider, User-Agent and pacing, as a real run has them.
    const configured = await realWebOptions({ search: config.search, web: config.web }, config.corpusDir);
    const web: WebToolOptions = {
      ...configured,
      allowLoopback: flags.bool("allow-loopback") || config.web.allowLoopback,
      allowPrivate: flags.bool("allow-private") || config.web.allowPrivate,
      ...(corpus && { mapUrl: corpusUrlMap(corpus.origin, corpus.hosts), search: corpusSearchBackend(withSlash(resolve(corpusDir!))) }),
    };
    return await runOne(name, input, { web, compute: { passEnv: config.openblas, ...config.computeLimits } }, flags.bool("json"), out);
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
