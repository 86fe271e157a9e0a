// V8's background threads yield to the JavaScript thread in a host (`ariadne worker`, `ariadne serve`).
//
// Node starts a pool of V8 platform threads (4 unless --v8-pool-size says otherwise) that mark and sweep the
// heap concurrently and compile. Where the worker has one core (pinned, or a container's quota of one CPU),
// a concurrent mark puts four of them beside the JavaScript thread, which then gets a fifth of the core while
// Children's replies wait. Capacity bench, one worker pinned to a core, 1,350 live executors (2026-12-07, no
// steal): runtime overhead p99 77.3 ms at node's priority, 21.5 / 15.0 / 13.4 ms with V8's threads at nice 19.
// Full pauses grow (the JavaScript thread finishes more of the marking; longest 48 -> 72-100 ms), the tail shrinks.
// With spare cores nothing changes: a thread at nice 19 still gets an idle core. Linux only; elsewhere, and
// where the threads cannot be told apart, nothing is changed.
import { readFileSync, readdirSync } from "node:fs";
import { setPriority } from "node:os";
import { HOSTS, nodeArgs } from "./v8Flags.mjs";

/** The nice value V8's platform threads get: the lowest priority there is. */
export const V8_THREAD_NICE = 19;
/** Node's V8 platform pool when --v8-pool-size does not say. */
const DEFAULT_POOL_SIZE = 4;

/**
 * This process's threads in the order they were started (start time, then thread id): `{ tid, name }`.
 * The stat line's fields after the command name (which may hold spaces) count from its ") ". A thread
 * that ends between the listing and its reading is left out.
 */
export function threadsInStartOrder(taskDir = "/proc/self/task") {
  const threads = readdirSync(taskDir).flatMap((tid) => {
    try {
      const stat = readFileSync(`${taskDir}/${tid}/stat`, "utf8");
      const startTime = Number(stat.slice(stat.lastIndexOf(") ") + 2).split(" ")[19]);
      return [{ tid: Number(tid), name: readFileSync(`${taskDir}/${tid}/comm`, "utf8").trim(), startTime }];
    } catch {
      return [];
    }
  });
  return threads.sort((a, b) => a.startTime - b.startTime || a.tid - b.tid).map(({ tid, name }) => ({ tid, name }));
}

/** The V8 platform pool's size that node's own arguments ask for: --v8-pool-size=N, else node's default. */
export function poolSizeOf(args) {
  const given = args.map((a) => /^--v8[-_]pool[-_]size=(\d+)$/.exec(a)).find(Boolean);
  return given ? Number(given[1]) : DEFAULT_POOL_SIZE;
}

/**
 * V8's platform threads among `threads` (in start order, the JavaScript thread first). Node 22 and later
 * name them V8Worker. Node 20 names no thread: its platform starts, before anything else, a delayed-task
 * thread and then the pool, so they are the pool's size of threads after the first two. A pool of 0 is
 * sized by node itself, so unnamed threads are then not guessed at.
 */
export function v8PlatformThreads(threads, poolSize) {
  if (threads.some((t) => t.name === "V8Worker")) return threads.filter((t) => t.name === "V8Worker").map((t) => t.tid);
  if (threads.some((t) => t.name !== threads[0]?.name) || poolSize === 0) return [];
  return threads.slice(2, 2 + poolSize).map((t) => t.tid);
}

/**
 * For a host command on Linux under Node: V8's platform threads at nice 19. Returns the threads changed
 * (none for other commands, runtimes and systems). Call it first thing, before any other thread starts.
 * A scheduling hint, never a reason not to start: a thread the system will not renice is left as it is.
 */
export function lowerV8ThreadsFor(command) {
  if (!HOSTS.includes(command ?? "") || process.platform !== "linux" || typeof globalThis.Deno !== "undefined") return [];
  const lowered = (tid) => {
    try {
      setPriority(tid, V8_THREAD_NICE);
      return true;
    } catch {
      return false;
    }
  };
  return v8PlatformThreads(threadsInStartOrder(), poolSizeOf(nodeArgs())).filter(lowered);
}
