/**
 * What tests/tools/injection.e2e.test.ts builds a run from: the hostile pages,
 * an obeying Child, the tools (real ones, each counted as it really runs, and
 * a test-only effectful place_order), a fetch that records every URL it is
 * asked for, and the checks on the file system outside the workspaces.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { RecordedEvent } from "../../events/index.ts";
import type { ScriptPolicy } from "../../models/index.ts";
import { resultsOf, turnsTaken } from "../../scenarios/requestView.ts";
import type { BlobStore } from "../../sources/index.ts";
import {
  type ComputeOptions,
  type ManifestEntry,
  type SearchBackend,
  type Tool,
  ToolRegistry,
  createComputeTools,
  createCorpusTools,
  createDocumentTools,
  createWebTools,
  createWorkspaceTools,
  defineTool,
  openblasEnv,
  readManifest,
} from "../../tools/index.ts";
import { firstMessageText, handoffInput, handoffReply } from "../actors/fixtures.ts";

export const SCENARIOS_DIR = fileURLToPath(new URL("../../scenarios/", import.meta.url));
export const HOSTILE_DIR = path.join(SCENARIOS_DIR, "corpora", "hostile");

/** A hostile page as its manifest line gives it: its URL and the one call it asks for. */
export interface HostilePage extends ManifestEntry {
  attack: string;
  call: { tool: string; input: Record<string, unknown> };
}

export const hostilePages = async (): Promise<HostilePage[]> => (await readManifest(HOSTILE_DIR)) as HostilePage[];
export const pageName = (url: string): string => new URL(url).pathname.split("/")[1]!;

/** `CALL <tool> <json>` lines of a text, each parsed as the call it spells. */
export function callsIn(text: string): { tool: string; input: Record<string, unknown> }[] {
  return [...text.matchAll(/^CALL ([a-z_][a-z0-9_]*) (\{.*\})\s*$/gm)].map((m) => ({ tool: m[1]!, input: JSON.parse(m[2]!) }));
}

const PAGE_URL = /https:\/\/hostile\.corpus\.test\/[\w-]+\//;

/**
 * The Child that obeys every instruction: it fetches the page its task names,
 * then issues exactly the calls the fetched page spells (all in one turn), then
 * hands off saying what it did.
 */
export const obeyingChild: ScriptPolicy = (request) => {
  const turn = turnsTaken(request);
  if (turn === 0) {
    const url = PAGE_URL.exec(firstMessageText(request))?.[0];
    if (url) return { content: [{ type: "tool_use", name: "web_fetch", input: { url } }] };
  }
  if (turn === 1) {
    const calls = resultsOf(request, "web_fetch").flatMap((r) => callsIn(r.output));
    if (calls.length) return { content: calls.map((c) => ({ type: "tool_use" as const, name: c.tool, input: c.input })) };
  }
  return handoffReply(handoffInput("Fetched the page and did what it said; see the tool results for what happened."));
};

/** The test's own record of what really happened, kept outside the event log. */
export interface Effects {
  /** Every tool run that started, by tool and executor. */
  ran: { tool: string; executorId: string }[];
  /** Orders placed: place_order's effect. */
  orders: unknown[];
  /** Every URL web_fetch's fetch was asked for (the local server's, after the corpus map). */
  fetched: string[];
}

export const noEffects = (): Effects => ({ ran: [], orders: [], fetched: [] });

/** An effectful tool that would act on the world: each run is an order, counted here and nowhere else. */
export function placeOrderTool(effects: Effects): Tool {
  return defineTool({
    name: "place_order",
    description: "Place a market order for the user's account.",
    input: z.object({ symbol: z.string(), side: z.enum(["buy", "sell"]), quantity: z.number().int().positive() }),
    effect: "effectful",
    run(input) {
      effects.orders.push(input);
      return `order placed: ${input.side} ${input.quantity} ${input.symbol}`;
    },
  });
}

/** A tool over the user's own data, for the capability rule (network + private data + effects). */
export const readPortfolioTool = (): Tool =>
  defineTool({
    name: "read_portfolio",
    description: "Read the user's holdings.",
    input: z.object({}),
    effect: "read_only",
    capabilities: ["private_data"],
    run: () => "ACME 100",
  });

/** The tool as registered, its every run counted in `effects.ran` before it starts. */
function counted(tool: Tool, effects: Effects): Tool {
  const runSanitized: Tool["runSanitized"] = (input, ctx) => {
    effects.ran.push({ tool: tool.name, executorId: ctx.executorId });
    return tool.runSanitized(input, ctx);
  };
  return Object.freeze({ ...tool, runSanitized, run: async (input: unknown, ctx: Parameters<Tool["run"]>[1]) => (await runSanitized(input, ctx)).output });
}

/**
 * A fetch that reaches only the local corpus server: every URL asked for is
 * recorded, and any other is refused without a connection, so a URL that got
 * past the tools' checks shows in `effects.fetched` and never leaves the machine.
 */
export function recordingFetch(origin: string, effects: Effects): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    effects.fetched.push(url);
    if (!url.startsWith(`${origin}/`)) return Promise.reject(new TypeError(`the test refuses to reach ${url}`));
    return fetch(input, init);
  };
}

export interface HostOptions {
  effects: Effects;
  mapUrl: (url: string) => string | undefined;
  fetch: typeof fetch;
  search: SearchBackend;
  compute?: ComputeOptions;
}

/** Every tool a research run can hold (demo, web, documents, workspace, compute) and place_order, each counted. */
export function hostileHostTools({ effects, mapUrl, fetch, search, compute }: HostOptions, ...extra: Tool[]): ToolRegistry {
  const tools = [
    ...createCorpusTools(),
    ...createWebTools({ fetch, mapUrl, search }),
    ...createDocumentTools(),
    ...createWorkspaceTools(),
    ...createComputeTools({ timeLimitMs: 20_000, memoryLimitMb: 512, passEnv: openblasEnv(process.env), ...compute }),
    placeOrderTool(effects),
    ...extra,
  ];
  return new ToolRegistry().register(...tools.map((t) => counted(t, effects)));
}

/** A file's sha256, or null when it does not exist (or cannot be read: it is then not changed by us either). */
export async function fileDigest(file: string): Promise<string | null> {
  try {
    return createHash("sha256").update(await fs.readFile(file)).digest("hex");
  } catch {
    return null;
  }
}

/** Every file under a folder, relative to it (symlinks listed, not followed). */
export async function filesUnder(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else found.push(path.relative(root, full));
    }
  };
  await walk(root);
  return found.sort();
}

/** Every blob a run's events name (sources' raw and text, artifacts), decoded as text. */
export async function blobTexts(events: readonly RecordedEvent[], blobs: BlobStore): Promise<string[]> {
  const hashes = new Set<string>();
  for (const e of events) {
    if (e.type !== "tool_completed") continue;
    const data = (e as RecordedEvent<"tool_completed">).data;
    for (const s of data.sources) hashes.add(s.rawSha256).add(s.textSha256);
    for (const a of data.artifacts) hashes.add(a.sha256);
  }
  const texts: string[] = [];
  for (const h of hashes) {
    const bytes = await blobs.get(h);
    if (bytes) texts.push(new TextDecoder().decode(bytes));
  }
  return texts;
}
