/** The code a command exited with at once (a second Ctrl-C or SIGTERM), which nothing may overwrite on the way out. */
let forced: number | null = null;

/** Exits now with `code`; cli/start.ts keeps it, where it otherwise restores the command's own code on exit. */
export function exitNow(code: number): never {
  forced = code;
  return process.exit(code);
}

export const forcedExitCode = (): number | null => forced;
