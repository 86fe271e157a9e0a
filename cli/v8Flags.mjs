// The V8 flags `ariadne` sets on itself (cli/bin.mjs), one list, so the benches measure what ships.
//
// Every process:
// - The old generation's limit after a full collection grows by up to 4x what is live; a worker's 50 runs
//   held 18 MB reachable under a 60 MB heap. Growing by 1.5x at most: 135 -> 90 MB for those runs
//   (`npm run bench -- rss`, with the young generation below), CPU within the noise (2.4-3.2 s either way).
// Commands (seconds to minutes) but not hosts (worker, serve: hours):
// - V8's young generation, left to double up to 2 x 16 MB, was a quarter of `ariadne run`'s peak RSS on
//   PostgreSQL (138 -> 118-126 MB kept at its first size). A host keeps V8's growth: set here, before anything
//   loads, the flag holds the young generation at 2 x 1 MB under any load, and a worker carrying 2,000
//   executors allocates fast. The capacity bench's later steps were collected 12x as often as its first for the
//   same turns (8,200 against 700 scavenges in 400 s, 11-12 s of pauses) and their p99 was 112-185 against 58 ms:
//   what a young generation a twelfth the size does (`npm run bench -- capacity` prints its size now).
// - The embedded store's PGlite is 10 MB of WebAssembly, compiled at once by Liftoff, then again by TurboFan
//   on a background thread: that second compilation held 40-80 MB more and took CPU a command never won back
//   (`ariadne run` on a fresh store 300 -> 218 MB, 4.4 -> 2.1 s of CPU). A host runs long enough to win it.
import { setFlagsFromString } from "node:v8";

export const EVERY_PROCESS_FLAGS = ["--heap-growing-percent=50"];
export const COMMAND_FLAGS = ["--semi-space-growth-factor=1", "--liftoff-only"];
export const HOSTS = ["worker", "serve"];

/** The flags for `ariadne <command>`. */
export function v8FlagsFor(command) {
  return HOSTS.includes(command ?? "") ? EVERY_PROCESS_FLAGS : [...EVERY_PROCESS_FLAGS, ...COMMAND_FLAGS];
}

/** The flags for `command` that `nodeArgs` (node's own arguments and NODE_OPTIONS) do not already name: one given to node wins. */
export function flagsToSet(command, nodeArgs) {
  const nameOf = (flag) => flag.split("=")[0].replaceAll("_", "-");
  const given = new Set(nodeArgs.map(nameOf));
  return v8FlagsFor(command).filter((flag) => !given.has(nameOf(flag)));
}

/** Node's own arguments: those it was started with and NODE_OPTIONS. */
export function nodeArgs() {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/).filter(Boolean)];
}

/** Sets them on this process (before PGlite's WebAssembly is compiled, for --liftoff-only to hold). */
export function setV8FlagsFor(command) {
  for (const flag of flagsToSet(command, nodeArgs())) setFlagsFromString(flag);
}
