import { constants, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ArtifactRecord, SourceRecord } from "../../sources/types.ts";
import type { ToolContext } from "../defineTool.ts";
import { ToolError } from "../toolErrors.ts";
import { requireBlobs, storeArtifact } from "../workspace/publishArtifact.ts";
import { workspaceRoot } from "../workspace/resolveWorkspacePath.ts";
import { sha256Hex } from "../workspace/sha256Hex.ts";
import { writeWorkspaceFile } from "../workspace/writeWorkspaceFile.ts";
import { COMPUTE_DEFAULTS, type ComputeLanguage, type ComputeOptions } from "./computeOptions.ts";
import { findDenoBinary } from "./findDenoBinary.ts";
import { runSandboxed, type SandboxOutcome } from "./runSandboxed.ts";
import { SANDBOX_INPUTS, sandboxArgs } from "./sandboxArgs.ts";
import { changedFiles, snapshotFiles, type FileState } from "./snapshotFiles.ts";
import { limitsHitBy } from "./limitsHit.ts";
import { chownTree, sandboxUid } from "./sandboxUid.ts";
import { ENTER_FAILED } from "./memoryCgroup.ts";
import { usageUnder } from "./watchSandbox.ts";
import { stageInputs, type ComputeInput } from "./stageInputs.ts";

export interface ComputeRequest {
  language: ComputeLanguage;
  code: string;
  inputs?: ComputeInput[];
}

export type ComputeStatus = "ok" | "error" | "time_limit" | "memory_limit" | "process_limit" | "disk_limit" | "cancelled";

export interface ComputeReport {
  status: ComputeStatus;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  limits: { time_ms: number; memory_mb: number; output_bytes: number; processes: number; workspace_write_mb: number; workspace_files: number; tmp_mb: number; tmp_files: number; open_files: number };
  /** Each limit the run hit, said in words; empty when none. */
  limits_hit: string[];
  /** What the watch saw of the run: the most processes and resident memory of its tree at once, the workspace's growth. */
  usage: { peak_processes: number; peak_memory_mb: number; workspace_written_mb: number };
  stdout: string;
  stdout_bytes: number;
  stdout_truncated: boolean;
  stderr: string;
  stderr_bytes: number;
  stderr_truncated: boolean;
  /** Where the run's record lives in the workspace: the code, stdout.txt and stderr.txt. */
  record: { folder: string; code_sha256: string; stdout_sha256: string; stderr_sha256: string };
  files_written: { path: string; sha256: string; bytes: number; artifact_id: string }[];
  files_not_published: { path: string; reason: string }[];
  inputs: { name: string; path: string; sha256: string }[];
}

export interface ComputeOutcome {
  report: ComputeReport;
  /** The code, stdout, stderr and every file the run wrote, each stored as a blob. */
  artifacts: ArtifactRecord[];
  /** The inputs the run read, and the stdout it printed (what the model is shown). */
  sources: SourceRecord[];
}

const EXTENSION: Record<ComputeLanguage, string> = { python: "py", typescript: "ts", javascript: "js" };
const RECORDS = ".compute";

function notRun(reason: string): ToolError {
  return new ToolError(`compute did not run: ${reason}. No code was executed and there is no result; report this as a gap in your handoff and do not estimate the numbers.`);
}

async function executable(file: string | null | undefined, what: string): Promise<string> {
  if (!file) throw notRun(`${what} is not installed`);
  try {
    await fs.access(file, constants.X_OK);
  } catch {
    throw notRun(`${what} is not installed at ${file}`);
  }
  return file;
}

/**
 * Runs the Child's code in the sandbox over its workspace and records it: the
 * code, stdout and stderr are written to `.compute/<call>/` and stored as
 * blobs, and every file the run wrote is published, so a number in a table
 * can be followed to the code that printed it and the inputs it read.
 */
export async function runCompute(request: ComputeRequest, ctx: ToolContext, options: ComputeOptions = {}): Promise<ComputeOutcome> {
  // Field by field, so an option passed as undefined keeps its default.
  const d = COMPUTE_DEFAULTS;
  const o = {
    bwrapPath: options.bwrapPath ?? d.bwrapPath,
    pythonPath: options.pythonPath ?? d.pythonPath,
    timeLimitMs: options.timeLimitMs ?? d.timeLimitMs,
    memoryLimitMb: options.memoryLimitMb ?? d.memoryLimitMb,
    memoryCgroup: options.memoryCgroup ?? d.memoryCgroup,
    maxProcesses: options.maxProcesses ?? d.maxProcesses,
    maxWorkspaceWriteMb: options.maxWorkspaceWriteMb ?? d.maxWorkspaceWriteMb,
    maxWorkspaceFiles: options.maxWorkspaceFiles ?? d.maxWorkspaceFiles,
    maxTmpMb: options.maxTmpMb ?? d.maxTmpMb,
    maxTmpFiles: options.maxTmpFiles ?? d.maxTmpFiles,
    maxOpenFiles: options.maxOpenFiles ?? d.maxOpenFiles,
    outputCapBytes: options.outputCapBytes ?? d.outputCapBytes,
    maxPublishedFiles: options.maxPublishedFiles ?? d.maxPublishedFiles,
    maxPublishedBytes: options.maxPublishedBytes ?? d.maxPublishedBytes,
    scratchDir: options.scratchDir,
    passEnv: options.passEnv,
  };
  const blobs = requireBlobs(ctx, "compute");
  const bwrapPath = await executable(o.bwrapPath, "bubblewrap (the sandbox)");
  const prlimitPath = await executable(options.prlimitPath ?? d.prlimitPath, "prlimit (util-linux, which sets the sandbox's limits)");
  const uid = sandboxUid();
  const setprivPath = uid === null ? d.setprivPath : await executable(options.setprivPath ?? d.setprivPath, "setpriv (util-linux, which drops the sandbox to a uid of its own)");
  const pythonPath = request.language === "python" ? await executable(o.pythonPath, "Python") : o.pythonPath;
  const denoPath = request.language === "python" ? null : await executable(options.denoPath ?? findDenoBinary(), "Deno (which runs TypeScript and JavaScript)");
  const root = await workspaceRoot(ctx);
  const fetchedAt = (ctx.now?.() ?? new Date()).toISOString();

  // One record folder per call: a re-run of the same call after a crash rewrites the same files.
  const folder = `${RECORDS}/${sha256Hex(ctx.idempotencyKey).slice(0, 16)}`;
  const programPath = `${folder}/main.${EXTENSION[request.language]}`;
  const code = new TextEncoder().encode(request.code);
  await writeWorkspaceFile(ctx, programPath, code);

  const scratch = await fs.mkdtemp(path.join(o.scratchDir ?? os.tmpdir(), "ariadne-compute-"));
  let outcome: SandboxOutcome;
  let inputSources: SourceRecord[];
  let before: Awaited<ReturnType<typeof snapshotFiles>>;
  try {
    const inputsDir = path.join(scratch, "inputs");
    await fs.mkdir(inputsDir);
    inputSources = await stageInputs(blobs, request.inputs ?? [], inputsDir, fetchedAt);
    before = await snapshotFiles(root, [RECORDS]);
    const MB = 1024 * 1024;
    const argv = sandboxArgs(request.language, {
      bwrapPath, pythonPath, denoPath, workspace: root, inputs: inputsDir, programPath, memoryLimitMb: o.memoryLimitMb, passEnv: o.passEnv ?? {},
      prlimitPath, setprivPath, maxProcesses: o.maxProcesses, maxOpenFiles: o.maxOpenFiles, maxFileBytes: o.maxWorkspaceWriteMb * MB, tmpBytes: o.maxTmpMb * MB, uid,
    });
    if (uid !== null) await chownTree(root, uid, uid);
    const usage = await usageUnder(root);
    const watch = {
      memoryBytes: o.memoryLimitMb * MB,
      workspace: root,
      workspaceBytes: o.maxWorkspaceWriteMb * MB,
      workspaceBase: usage.bytes,
      workspaceEntries: o.maxWorkspaceFiles,
      workspaceEntriesBase: usage.entries,
      tmpEntries: o.maxTmpFiles,
    };
    try {
      outcome = await runSandboxed(argv, { timeLimitMs: o.timeLimitMs, outputCapBytes: o.outputCapBytes, signal: ctx.signal, watch, memoryCgroup: o.memoryCgroup });
    } finally {
      if (uid !== null) await chownTree(root, process.getuid!(), process.getgid!());
    }
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
  if (outcome.spawnError) throw notRun(`the sandbox could not be started (${outcome.spawnError})`);
  // bubblewrap reports its own failures (namespaces not allowed, a bind that fails) as "bwrap: …", exit 1, before any code ran.
  if (outcome.exitCode === 1 && /^bwrap: /.test(outcome.stderr.text)) throw notRun(`the sandbox could not be set up (${outcome.stderr.text.trim()})`);
  if (outcome.exitCode === 125 && outcome.stderr.text.includes(ENTER_FAILED)) throw notRun(`the sandbox could not be set up (${outcome.stderr.text.trim()})`);

  const hit = limitsHitBy(outcome, request.language, o);
  const limitsHit = hit.lines;
  // What a run that filled the workspace wrote is removed, so the disk that holds the store is not left full.
  if (hit.disk === "workspace") for (const file of changedFiles(before, await snapshotFiles(root, [RECORDS]))) await fs.rm(path.join(root, file), { force: true });
  const status: ComputeStatus = outcome.aborted ? "cancelled" : outcome.timedOut ? "time_limit" : hit.memory ? "memory_limit" : hit.processes ? "process_limit" : hit.disk ? "disk_limit" : outcome.exitCode === 0 ? "ok" : "error";

  const artifacts: ArtifactRecord[] = [await storeArtifact(ctx, programPath, code)];
  const stdoutBytes = new TextEncoder().encode(outcome.stdout.text);
  const stderrBytes = new TextEncoder().encode(outcome.stderr.text);
  for (const [name, bytes] of [["stdout.txt", stdoutBytes], ["stderr.txt", stderrBytes]] as const) {
    await writeWorkspaceFile(ctx, `${folder}/${name}`, bytes);
    artifacts.push(await storeArtifact(ctx, `${folder}/${name}`, bytes));
  }
  const stdoutSource: SourceRecord = {
    kind: "workspace_file",
    url: `workspace:${folder}/stdout.txt`,
    contentType: "text/plain; charset=utf-8",
    fetchedAt,
    rawSha256: artifacts[1]!.sha256,
    textSha256: artifacts[1]!.sha256,
    bytes: stdoutBytes.byteLength,
  };

  const { written, skipped } = await publishWritten(ctx, root, before, o.maxPublishedFiles, o.maxPublishedBytes);
  artifacts.push(...written);
  const report: ComputeReport = {
    status,
    exit_code: outcome.exitCode,
    signal: outcome.signal,
    duration_ms: outcome.durationMs,
    limits: { time_ms: o.timeLimitMs, memory_mb: o.memoryLimitMb, output_bytes: o.outputCapBytes, processes: o.maxProcesses, workspace_write_mb: o.maxWorkspaceWriteMb, workspace_files: o.maxWorkspaceFiles, tmp_mb: o.maxTmpMb, tmp_files: o.maxTmpFiles, open_files: o.maxOpenFiles },
    limits_hit: limitsHit,
    usage: {
      peak_processes: outcome.watch?.peakProcesses ?? 0,
      peak_memory_mb: Math.round((outcome.watch?.peakRssBytes ?? 0) / 1024 / 1024),
      workspace_written_mb: Math.round((outcome.watch?.workspaceGrowth ?? 0) / 1024 / 1024),
    },
    stdout: outcome.stdout.text,
    stdout_bytes: outcome.stdout.bytes,
    stdout_truncated: outcome.stdout.truncated,
    stderr: outcome.stderr.text,
    stderr_bytes: outcome.stderr.bytes,
    stderr_truncated: outcome.stderr.truncated,
    record: { folder, code_sha256: artifacts[0]!.sha256, stdout_sha256: artifacts[1]!.sha256, stderr_sha256: artifacts[2]!.sha256 },
    files_written: written.map((a) => ({ path: a.path, sha256: a.sha256, bytes: a.bytes, artifact_id: a.id })),
    files_not_published: listedAtMost(skipped, NOT_PUBLISHED_LISTED),
    inputs: (request.inputs ?? []).map((i) => ({ name: i.name, path: `${SANDBOX_INPUTS}/${i.name}`, sha256: i.sha256.trim().toLowerCase() })),
  };
  return { report, artifacts, sources: [...inputSources, stdoutSource] };
}

/** Files not published the report names one by one; a run that wrote thousands gets a count, not a list the model must read. */
const NOT_PUBLISHED_LISTED = 20;

function listedAtMost(skipped: { path: string; reason: string }[], most: number): { path: string; reason: string }[] {
  if (skipped.length <= most) return skipped;
  return [...skipped.slice(0, most), { path: "…", reason: `${skipped.length - most} more files not published, not listed` }];
}

/** Publishes the files the run created or changed (outside .compute/), within the count and size caps. */
async function publishWritten(ctx: ToolContext, root: string, before: Map<string, FileState>, maxFiles: number, maxBytes: number) {
  const after = await snapshotFiles(root, [RECORDS]);
  const written: ArtifactRecord[] = [];
  const skipped: { path: string; reason: string }[] = [];
  for (const file of changedFiles(before, after)) {
    const state = after.get(file)!;
    if (state.link) skipped.push({ path: file, reason: "a symbolic link; links are never followed or published" });
    else if (state.size > maxBytes) skipped.push({ path: file, reason: `${state.size} bytes, over the ${maxBytes} published per file` });
    else if (written.length >= maxFiles) skipped.push({ path: file, reason: `over the ${maxFiles} files published per run; publish_artifact it if it matters` });
    else {
      const handle = await fs.open(path.join(root, file), constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        written.push(await storeArtifact(ctx, file, new Uint8Array(await handle.readFile())));
      } finally {
        await handle.close();
      }
    }
  }
  return { written, skipped };
}
