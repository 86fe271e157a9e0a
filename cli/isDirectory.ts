import { statSync } from "node:fs";

/** Whether a command-line argument names an existing directory (`verify DIR` versus `verify RUN`). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
