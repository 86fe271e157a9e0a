import { z } from "zod";
import type { SourceRecord } from "../../sources/types.ts";
import { defineTool, type Tool, type ToolContext } from "../defineTool.ts";
import { ToolError } from "../toolErrors.ts";
import { describeWindow, windowText } from "../documents/windowText.ts";
import { listWorkspaceFiles } from "./listWorkspaceFiles.ts";
import { publishArtifact } from "./publishArtifact.ts";
import { readWorkspaceBytes } from "./readWorkspaceBytes.ts";
import { sha256Hex } from "./sha256Hex.ts";
import { writeWorkspaceFile } from "./writeWorkspaceFile.ts";

const filePath = z.string().min(1).max(1024).describe('A path relative to your workspace, e.g. "data/table.csv". No absolute paths, no "..".');

// A NUL in the first bytes is the usual sign of a binary file; showing it as text only wastes the context.
const looksBinary = (bytes: Uint8Array) => bytes.subarray(0, 8192).includes(0);

/** The executor's own folder: read_file, write_file, list_files, publish_artifact. */
export function createWorkspaceTools(): Tool[] {
  const readTool = defineTool({
    name: "read_file",
    description:
      "Read a text file from your workspace (the files you or your compute runs wrote). Long files come in windows of 40,000 characters: call again with the next_offset shown. For PDFs, HTML or CSV files use document_read.",
    input: z.object({
      path: filePath,
      offset: z.number().int().min(0).optional().describe("Character offset to start from (the next_offset of a previous read); default 0."),
    }),
    effect: "read_only",
    async run({ path, offset }, ctx) {
      const { file, bytes } = await readWorkspaceBytes(ctx, path);
      const sha256 = sha256Hex(bytes);
      if (looksBinary(bytes)) {
        throw new ToolError(`"${file.relative}" is binary (${bytes.byteLength} bytes, sha256 ${sha256}). Use document_read with {"path": "${file.relative}"} for a PDF, or compute to process other binary files.`);
      }
      const text = new TextDecoder().decode(bytes);
      const window = windowText(text, offset ?? 0);
      const output = `file: ${file.relative} · ${bytes.byteLength} bytes · sha256 ${sha256}\n${describeWindow(window, "read_file")}\n\n${window.text}`;
      const source = await workspaceSource(ctx, file.relative, bytes, text);
      return source ? { output, sources: [source] } : output;
    },
  });

  const writeTool = defineTool({
    name: "write_file",
    description:
      "Write a text file in your workspace, replacing it if it exists (folders are created). Writing the same content again changes nothing. To hand the file to your parent, publish_artifact it.",
    input: z.object({
      path: filePath,
      content: z.string().max(5_000_000).describe("The whole file content (UTF-8 text)."),
    }),
    effect: "idempotent",
    async run({ path, content }, ctx) {
      const bytes = new TextEncoder().encode(content);
      const file = await writeWorkspaceFile(ctx, path, bytes);
      return `wrote ${file.relative}: ${bytes.byteLength} bytes, sha256 ${sha256Hex(bytes)}`;
    },
  });

  const listTool = defineTool({
    name: "list_files",
    description: "List the files and folders in your workspace (or one folder of it), with sizes. Symbolic links are listed but never followed.",
    input: z.object({
      path: z.string().max(1024).optional().describe('A folder relative to your workspace; omit for the whole workspace.'),
    }),
    effect: "read_only",
    async run({ path }, ctx) {
      const listing = await listWorkspaceFiles(ctx, path ?? ".");
      if (listing.entries.length === 0) return `${listing.path === "." ? "your workspace" : `"${listing.path}"`} is empty. write_file or compute create files here.`;
      return JSON.stringify(listing);
    },
  });

  const publishTool = defineTool({
    name: "publish_artifact",
    description:
      "Publish a workspace file as an artifact: its bytes are stored and it gets an id, path and sha256 that your parent can open (document_read with {sha256}). List it under artifacts in your handoff with exactly these values.",
    input: z.object({ path: filePath }),
    effect: "idempotent",
    async run({ path }, ctx) {
      const artifact = await publishArtifact(ctx, path);
      return { output: JSON.stringify({ artifact }), artifacts: [artifact] };
    },
  });

  return [readTool, writeTool, listTool, publishTool];
}

/** What read_file read, as a source, when the run keeps blobs: a quote from the file can then be checked. */
async function workspaceSource(ctx: ToolContext, path: string, bytes: Uint8Array, text: string): Promise<SourceRecord | null> {
  if (!ctx.blobs) return null;
  const rawSha256 = await ctx.blobs.put(bytes);
  const textSha256 = await ctx.blobs.put(new TextEncoder().encode(text));
  return {
    kind: "workspace_file",
    url: `workspace:${path}`,
    contentType: "text/plain; charset=utf-8",
    fetchedAt: (ctx.now?.() ?? new Date()).toISOString(),
    rawSha256,
    textSha256,
    bytes: bytes.byteLength,
  };
}
