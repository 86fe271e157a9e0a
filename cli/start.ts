import { exitNow } from "./exitNow.ts";

// `ariadne show RUN | head` closes the pipe early: stop quietly rather than crash with a stack. Any other
// failed write (a full disk or /dev/full, ENOSPC; a read-only file) is the command's failure: one line, exit 1.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  process.stderr.write(`ariadne: cannot write the output: ${e.message}${e.code && !e.message.includes(e.code) ? ` (${e.code})` : ""}\n`);
  exitNow(1);
});
const argv = process.argv.slice(2);
// `verify DIR` is answered by an entry that loads no store or driver: a bundle is checked from its files alone.
// Both entries are imported dynamically, so neither is loaded (nor, in a bundled build, its chunks) unless used.
const bundleCode = argv[0] === "verify" ? await (await import("./verifyBundleMain.ts")).verifyBundleMain(argv.slice(1)) : null;
const { forcedExitCode } = await import("./exitNow.ts");
const code = bundleCode ?? (await (await import("./main.ts")).main(argv));
process.exitCode = code;
// PGlite's runtime resets process.exitCode when it fails to start; the command's own code wins, unless the
// command exited at once since (a second Ctrl-C or SIGTERM: 130).
process.on("exit", () => {
  process.exitCode = forcedExitCode() ?? code;
});
