import type { ComputeLanguage } from "./computeOptions.ts";
import type { SandboxOutcome } from "./runSandboxed.ts";

const OUT_OF_MEMORY: Record<ComputeLanguage, RegExp> = {
  python: /MemoryError|Unable to allocate|Cannot allocate memory|std::bad_alloc|out of memory/,
  typescript: /Reached heap limit|heap out of memory|Fatal JavaScript out of memory/,
  javascript: /Reached heap limit|heap out of memory|Fatal JavaScript out of memory/,
};
/** A fork or a thread refused (RLIMIT_NPROC): EAGAIN, as each runtime says it. */
const NO_PROCESS = /Resource temporarily unavailable|BlockingIOError|fork: retry|Cannot fork|can't start new thread|EAGAIN|WouldBlock/;
const FILE_TOO_LARGE = /File too large|EFBIG/;
const NO_SPACE = /No space left on device|ENOSPC|StorageFull/;
const NO_FILES = /Too many open files|EMFILE/;

export interface LimitsHit {
  /** Each limit the run hit, in words, for limits_hit. */
  lines: string[];
  memory: boolean;
  processes: boolean;
  disk: "workspace" | "tmp" | null;
}

/** Which limits stopped or hurt the run, from how it ended, what it printed and what the watch saw. */
export function limitsHitBy(
  outcome: SandboxOutcome,
  language: ComputeLanguage,
  o: { timeLimitMs: number; memoryLimitMb: number; maxProcesses: number; maxWorkspaceWriteMb: number; maxWorkspaceFiles: number; maxTmpMb: number; maxTmpFiles: number; maxOpenFiles: number; outputCapBytes: number },
): LimitsHit {
  const lines: string[] = [];
  const stderr = outcome.stderr.text;
  const watched = outcome.watch;
  const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
  if (outcome.timedOut) lines.push(`time limit: the run passed ${o.timeLimitMs} ms and its process group was killed; results are incomplete`);
  const memory = !outcome.timedOut && (watched?.stoppedBy === "memory" || OUT_OF_MEMORY[language].test(stderr));
  if (memory) {
    const seen = watched?.stoppedBy === "memory" ? ` (its processes together held ${mb(watched.peakRssBytes)} MB when it was killed)` : "";
    lines.push(`memory limit: the run ran out of its ${o.memoryLimitMb} MB${seen}; results are incomplete`);
  }
  const processes = NO_PROCESS.test(stderr);
  if (processes) lines.push(`process limit: the run reached its ${o.maxProcesses} processes (threads count too) and a fork or thread was refused; use fewer processes`);
  // RLIMIT_FSIZE (EFBIG, or SIGXFSZ where it is not ignored) bounds a file anywhere: it is the workspace's only when the
  // workspace grew by the limit; otherwise the file was in /tmp, whose default size is the same.
  const fileTooLarge = FILE_TOO_LARGE.test(stderr) || outcome.signal === "SIGXFSZ";
  const workspaceFull = watched === undefined || watched.workspaceGrowth >= o.maxWorkspaceWriteMb * 1024 * 1024;
  const tooManyFiles = watched?.stoppedBy === "files";
  if (tooManyFiles) lines.push(`workspace limit: the run made more than ${o.maxWorkspaceFiles} files and folders in the workspace and was stopped; the files it made were removed. Write fewer, larger files`);
  const workspace = tooManyFiles || watched?.stoppedBy === "workspace" || (fileTooLarge && workspaceFull);
  if (workspace && !tooManyFiles) lines.push(`workspace limit: the run wrote more than ${o.maxWorkspaceWriteMb} MB to the workspace and was stopped; the files it wrote were removed. Write less, or summarise before writing`);
  const tmpInodes = watched?.stoppedBy === "tmpFiles";
  if (tmpInodes) lines.push(`/tmp limit: the run made more than ${o.maxTmpFiles} files and folders in /tmp and was stopped; write fewer, larger files`);
  const tmpFull = !workspace && !tmpInodes && NO_SPACE.test(stderr);
  const tmpFile = !workspace && !tmpInodes && !tmpFull && fileTooLarge;
  if (tmpFull) lines.push(`/tmp limit: the private /tmp (${o.maxTmpMb} MB, held in memory) is full; write less there`);
  if (tmpFile) lines.push(`/tmp limit: a file outside the workspace (in /tmp, or in memory) reached ${o.maxWorkspaceWriteMb} MB, the largest file a run may write; write less there`);
  const tmp = tmpInodes || tmpFull || tmpFile;
  if (NO_FILES.test(stderr)) lines.push(`open files limit: a process of the run had ${o.maxOpenFiles} files open and was refused another; close files when done with them`);
  if (!memory && outcome.signal === "SIGKILL" && !outcome.timedOut && !outcome.aborted && !workspace && !tmpInodes) lines.push("the run was killed (SIGKILL), possibly for using too much memory");
  for (const [name, stream] of [["stdout", outcome.stdout], ["stderr", outcome.stderr]] as const) {
    if (stream.truncated) lines.push(`output cap: ${name} had ${stream.bytes} bytes; only the first ${o.outputCapBytes} are shown and kept. Print less, or write the full output to a file.`);
  }
  return { lines, memory, processes, disk: workspace ? "workspace" : tmp ? "tmp" : null };
}
