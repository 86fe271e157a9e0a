import type { KeyObject } from "node:crypto";
import { type OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import { ValidationError } from "../core/errors.ts";
import { verifyRun } from "../events/verifyRun.ts";
import { describeVerification } from "../events/describeVerification.ts";
import { runVersionNote } from "../actors/index.ts";

export interface VerifyOptions extends OpenOptions {
  runId: string | undefined;
  /** The root hash printed with the run's answer, if the user kept it. */
  root?: string;
  /** The public key seals are checked against (`--key`, ARIADNE_SIGNING_PUBLIC_KEY or the default; null: none configured). */
  publicKey?: KeyObject | null;
  json: boolean;
  out: (line: string) => void;
}

/**
 * `ariadne verify RUN [--root HASH] [--key PUBKEY_FILE]`: every stream of the
 * run, the references between them and its seal, and the seal's signature
 * against the public key. Exit 0 when intact and authenticated (signature or
 * --root); 1 with the first bad event named (and the rest counted), or with
 * one line when the store is damaged; 4 when the structure is intact but
 * nothing outside the database vouches for it (events/describeVerification.ts).
 */
export async function verifyCommand(options: VerifyOptions): Promise<number> {
  if (!options.runId) throw new ValidationError("verify", [{ path: ["RUN"], message: "the run id to verify is required (it is printed with each run's answer)" }]);
  if (options.root !== undefined && !/^[0-9a-f]{64}$/.test(options.root)) {
    throw new ValidationError("verify", [{ path: ["--root"], message: "a root hash is 64 lowercase hex characters, as printed with the run's answer" }]);
  }
  const { database, store, close } = await openStore({ ...options, readOnly: true });
  try {
    const result = await verifyRun(database, options.runId, { expectedRoot: options.root, publicKey: options.publicKey });
    const said = describeVerification(result, options.root !== undefined);
    // The log's hashes do not depend on the request code; a run recorded under another one is said to be, not refused.
    const requestCode = result.problems.length === 0 ? runVersionNote(await store.readRun(options.runId)) : null;
    if (options.json) options.out(JSON.stringify({ ...result, authenticated: said.authenticated, firstBad: result.problems[0] ?? null, requestCode }));
    else for (const line of [...said.lines, ...(requestCode ? [`request code: ${requestCode}`] : [])]) options.out(line);
    return said.exit;
  } finally {
    await close();
  }
}
