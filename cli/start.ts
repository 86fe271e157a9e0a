import { forcedExitCode, main } from "./main.ts";

// `ariadne show RUN | head` closes the pipe early: stop quietly rather than crash with a stack.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});
const code = await main(process.argv.slice(2));
process.exitCode = code;
// PGlite's runtime resets process.exitCode when it fails to start; the command's own code wins, unless the
// command exited at once since (a second Ctrl-C or SIGTERM: 130).
process.on("exit", () => {
  process.exitCode = forcedExitCode() ?? code;
});
