import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { createWorkspaceTools, openArtifact, parseToolInput, workspaceDirFor, type Tool, type ToolContext } from "../../tools/index.ts";
import type { ToolOutput } from "../../tools/defineTool.ts";
import { MemoryBlobStore } from "../support/memoryBlobStore.ts";

const root = await fs.mkdtemp(path.join(os.tmpdir(), "ariadne-ws-"));
after(() => fs.rm(root, { recursive: true, force: true }));

const tools = new Map(createWorkspaceTools().map((t) => [t.name, t]));
const blobs = new MemoryBlobStore();

function contextFor(executorId: string): ToolContext {
  return {
    runId: "run-1",
    executorId,
    signal: new AbortController().signal,
    idempotencyKey: `intent-${executorId}`,
    blobs,
    workspaceDir: workspaceDirFor(root, "run-1", executorId),
    now: () => new Date("2026-03-01T12:00:00Z"),
  };
}
const alice = contextFor("child-a");
const bob = contextFor("child-b");

async function call(name: string, input: unknown, ctx = alice): Promise<ToolOutput> {
  const tool = tools.get(name) as Tool;
  const parsed = parseToolInput(tool, input);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.message);
  return tool.runSanitized(parsed.value, ctx);
}

test("workspaceDirFor puts each executor in <root>/<runId>/<executorId> and refuses ids that are not one plain segment", () => {
  assert.equal(alice.workspaceDir, path.join(root, "run-1", "child-a"));
  assert.throws(() => workspaceDirFor(root, "run-1", ".."), /cannot name a workspace folder/);
  assert.throws(() => workspaceDirFor(root, "run/1", "x"), /cannot name a workspace folder/);
});

test("write_file then read_file and list_files round-trip inside the workspace", async () => {
  const wrote = await call("write_file", { path: "notes/a.md", content: "# Notes\nline two\n" });
  assert.match(wrote.output, /^wrote notes\/a\.md: 17 bytes, sha256 [0-9a-f]{64}$/);
  const read = await call("read_file", { path: "notes/a.md" });
  assert.match(read.output, /^file: notes\/a\.md · 17 bytes/);
  assert.match(read.output, /truncated: false/);
  assert.ok(read.output.endsWith("# Notes\nline two\n"));
  assert.equal(read.sources?.[0]?.kind, "workspace_file");
  assert.equal(read.sources?.[0]?.url, "workspace:notes/a.md");
  assert.equal(read.sources?.[0]?.fetchedAt, "2026-03-01T12:00:00.000Z");
  assert.equal(await blobs.text(read.sources![0]!.textSha256), "# Notes\nline two\n");
  const listing = JSON.parse((await call("list_files", {})).output);
  assert.deepEqual(listing.entries, [
    { path: "notes", type: "folder" },
    { path: "notes/a.md", type: "file", bytes: 17 },
  ]);
});

test("read_file pages a long file in 40,000-character windows", async () => {
  await call("write_file", { path: "long.txt", content: "x".repeat(90_000) });
  const first = await call("read_file", { path: "long.txt" });
  assert.match(first.output, /chars 0-40000 of total_chars 90000; truncated: true; next_offset: 40000/);
  const last = await call("read_file", { path: "long.txt", offset: 80_000 });
  assert.match(last.output, /chars 80000-90000 of total_chars 90000; truncated: false/);
  await assert.rejects(call("read_file", { path: "long.txt", offset: 90_000 }), /past the end/);
});

test("traversal, absolute paths and backslashes are refused with what to do instead", async () => {
  await assert.rejects(call("read_file", { path: "../child-b/secret.txt" }), /contains "\.\.": paths may not leave your workspace/);
  await assert.rejects(call("read_file", { path: "notes/../../x" }), /contains "\.\."/);
  await assert.rejects(call("read_file", { path: "/etc/passwd" }), /is absolute; paths are relative to your workspace/);
  await assert.rejects(call("write_file", { path: "/tmp/x", content: "x" }), /is absolute/);
  await assert.rejects(call("write_file", { path: "..\\x", content: "x" }), /backslashes/);
  await assert.rejects(call("list_files", { path: ".." }), /contains "\.\."/);
  await assert.rejects(call("read_file", { path: "missing.txt" }), /There is no "missing\.txt" in your workspace\. Call list_files/);
});

test("another executor's files are not readable, even through a symlink planted in the workspace", async () => {
  await call("write_file", { path: "secret.txt", content: "bob's" }, bob);
  const ws = alice.workspaceDir!;
  await fs.symlink(path.join(bob.workspaceDir!, "secret.txt"), path.join(ws, "to-bob.txt"));
  await fs.symlink(bob.workspaceDir!, path.join(ws, "bob-dir"));
  await fs.symlink("/etc", path.join(ws, "etc"));
  await assert.rejects(call("read_file", { path: "to-bob.txt" }), /symbolic link that points outside your workspace/);
  await assert.rejects(call("read_file", { path: "bob-dir/secret.txt" }), /points outside your workspace/);
  await assert.rejects(call("read_file", { path: "etc/hostname" }), /points outside your workspace/);
  await assert.rejects(call("list_files", { path: "bob-dir" }), /points outside your workspace/);
  await assert.rejects(call("publish_artifact", { path: "to-bob.txt" }), /points outside your workspace/);
  // Writing through the links is refused too: to the link itself and into the linked folder.
  await assert.rejects(call("write_file", { path: "to-bob.txt", content: "overwritten" }), /symbolic link; it was not followed/);
  await assert.rejects(call("write_file", { path: "bob-dir/planted.txt", content: "x" }), /points outside your workspace/);
  assert.equal(await fs.readFile(path.join(bob.workspaceDir!, "secret.txt"), "utf8"), "bob's");
  await assert.rejects(fs.access(path.join(bob.workspaceDir!, "planted.txt")));
  // The listing shows the links as links, without following them.
  const listing = JSON.parse((await call("list_files", {})).output);
  assert.deepEqual(
    listing.entries.filter((e: { type: string }) => e.type === "symlink").map((e: { path: string }) => e.path),
    ["bob-dir", "etc", "to-bob.txt"],
  );
});

test("a symlink that stays inside the workspace is followed", async () => {
  await call("write_file", { path: "data/inner.txt", content: "inside" });
  await fs.symlink("data/inner.txt", path.join(alice.workspaceDir!, "alias.txt"));
  assert.ok((await call("read_file", { path: "alias.txt" })).output.endsWith("inside"));
});

test("publish_artifact stores the bytes and returns an artifact a parent opens by sha256", async () => {
  await call("write_file", { path: "out/table.csv", content: "a,b\n1,2\n" });
  const published = await call("publish_artifact", { path: "out/table.csv" });
  const artifact = published.artifacts?.[0];
  assert.ok(artifact);
  assert.equal(artifact.path, "out/table.csv");
  assert.equal(artifact.bytes, 8);
  assert.match(artifact.id, /^art-[0-9a-f]{20}$/);
  assert.deepEqual(JSON.parse(published.output), { artifact });
  assert.equal(new TextDecoder().decode(await openArtifact(blobs, artifact.sha256)), "a,b\n1,2\n");
  // The same file published again is the same artifact (a replay reports what the first run did).
  assert.deepEqual((await call("publish_artifact", { path: "out/table.csv" })).artifacts, [artifact]);
  await assert.rejects(openArtifact(blobs, "0".repeat(64)), /No stored blob has sha256/);
  await assert.rejects(openArtifact(blobs, "abc"), /not a sha256/);
});

test("binary files are not dumped as text, and a call without a workspace says so", async () => {
  await fs.writeFile(path.join(alice.workspaceDir!, "blob.bin"), new Uint8Array([1, 0, 2, 0]));
  await assert.rejects(call("read_file", { path: "blob.bin" }), /is binary .* Use document_read/);
  const bare: ToolContext = { runId: "r", executorId: "e", signal: new AbortController().signal, idempotencyKey: "k" };
  await assert.rejects(call("list_files", {}, bare), /This call has no workspace/);
});

test("effects: reading and listing are read_only, writing and publishing idempotent", () => {
  assert.deepEqual(
    Object.fromEntries([...tools.values()].map((t) => [t.name, t.effect])),
    { read_file: "read_only", write_file: "idempotent", list_files: "read_only", publish_artifact: "idempotent" },
  );
});
