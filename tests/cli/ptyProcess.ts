import { spawn } from "node:child_process";
import { CLI_SCRIPT } from "../support/testBuild.ts";
import { ROOT } from "./ariadneProcess.ts";

export interface PtyProc {
  /** Everything the terminal received so far (stdout and stderr share it, as on a screen). */
  output(): string;
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** The CLI's exit code (script -e passes it on). */
  exited: Promise<number | null>;
  /** Typed at the terminal: "\x03" is Ctrl-C, which the terminal turns into SIGINT for the CLI. */
  type(text: string): void;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * `ariadne ARGS` on a real pseudo-terminal of COLUMNS x ROWS, through util-linux
 * `script`: stdout is a TTY there, as for a person at a terminal.
 */
export function ariadneInPty(args: string[], env: Record<string, string>, size = { columns: 100, rows: 40 }): PtyProc {
  const base = { ...process.env };
  for (const key of ["ARIADNE_DEBUG", "DATABASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "NO_COLOR", "TERM"]) delete base[key];
  const command = `stty cols ${size.columns} rows ${size.rows}; exec ${[process.execPath, CLI_SCRIPT, ...args].map(quote).join(" ")}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: ROOT, env: { ...base, TERM: "xterm-256color", ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let text = "";
  let done = false;
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    text += d.toString();
    listeners.forEach((l) => l());
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  child.stdin!.on("error", () => undefined);
  void exited.then(() => {
    done = true;
    listeners.forEach((l) => l());
  });
  return {
    output: () => text,
    exited,
    type: (text) => void child.stdin!.write(text),
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = text.match(pattern);
          if (m || done) listeners.delete(check);
          if (m) resolve(m);
          else if (done) reject(new Error(`exited before printing ${pattern}:\n${JSON.stringify(text.slice(-3000))}`));
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** The frame left on screen: what was drawn after the last erase (cursor up, erase below), up to the first line after it. */
export const lastFrame = (output: string): string => output.slice(output.lastIndexOf("\x1b[J") + 3);

/** The text without colour codes. */
export const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, "").replace(/\r\n/g, "\n");
