#!/usr/bin/env node
// `ariadne` runs from its build (dist/, made at `npm ci` by build/prepare.ts) on plain Node: no TypeScript
// loader, about 50 MB less memory and a third of the CPU at start. When a source it was built from has
// changed since (a developer's edit, a checkout), or there is no build, it runs the sources through tsx.
import { readFileSync, statSync } from "node:fs";
import { setV8FlagsFor } from "./v8Flags.mjs";
import { lowerV8ThreadsFor } from "./v8Threads.mjs";

setV8FlagsFor(process.argv[2]); // why each flag: cli/v8Flags.mjs
lowerV8ThreadsFor(process.argv[2]); // hosts: V8's background threads yield to the JavaScript thread (cli/v8Threads.mjs)

const root = new URL("../", import.meta.url);

/** dist/cli/start.mjs if it was built from the sources as they are now, else null. */
function freshBuild() {
  let record;
  try {
    record = JSON.parse(readFileSync(new URL("dist/inputs.json", root), "utf8"));
  } catch {
    return null;
  }
  for (const input of record.inputs) {
    try {
      if (statSync(new URL(input, root)).mtimeMs > record.builtAt) return null;
    } catch {
      return null;
    }
  }
  return new URL("dist/cli/start.mjs", root).href;
}

const built = freshBuild();
if (built) {
  await import(built);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("./start.ts");
}
