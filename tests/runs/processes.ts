import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { CLI_SCRIPT } from "../support/testBuild.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface Proc {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of the pattern in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
}

/** Starts `ariadne ARGS` (or another script under the root) as a real child process. */
export function start(args: string[], env: Record<string, string>, script = CLI_SCRIPT): Proc {
  const child = spawn(process.execPath, [...(script.endsWith(".mjs") ? [] : ["--import", "tsx"]), script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ARIADNE_DEBUG: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    text += d.toString();
    listeners.forEach((l) => l());
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  let done = false;
  void exited.then(() => {
    done = true;
    listeners.forEach((l) => l());
  });
  return {
    child,
    output: () => text,
    exited,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = text.match(pattern);
          if (m) {
            listeners.delete(check);
            resolve(m);
          } else if (done) {
            listeners.delete(check);
            reject(new Error(`process exited before printing ${pattern}:\n${text}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Runs `ariadne ARGS` to its end. */
export async function ariadne(args: string[], env: Record<string, string>): Promise<{ code: number | string; output: string }> {
  const p = start(args, env);
  const code = await p.exited;
  return { code, output: p.output() };
}
