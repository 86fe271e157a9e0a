/**
 * `npm ci` / `npm install` run this (the `prepare` script; `npm run build` too):
 * the command line built into dist/ (build/cli.ts), so `ariadne` runs on plain
 * Node without a TypeScript loader, and the embedded store's template made
 * (db/pgliteTemplate.ts), so the first `ariadne run` copies a data directory
 * instead of running initdb inside its own process.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_SETTINGS } from "../db/openDatabase.ts";
import { pgliteTemplate } from "../db/pgliteTemplate.ts";
import { buildCli } from "./cli.ts";

const started = performance.now();
const { entry, inputs } = await buildCli();
console.log(`ariadne: the command line built into ${entry} from ${inputs} sources in ${Math.round(performance.now() - started)} ms`);
const templateStarted = performance.now();
const template = await pgliteTemplate([...PGlite.defaultStartParams, ...PGLITE_SETTINGS]);
console.log(`ariadne: the embedded store's template is ${template} (${Math.round(performance.now() - templateStarted)} ms)`);
