import type { KeyObject } from "node:crypto";
import { type OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import type { SealSignatureCheck } from "../events/checkSealSignature.ts";
import { ValidationError } from "../core/errors.ts";
import { describeProblem, verifyRun } from "../events/verifyRun.ts";

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
 * against the public key. Exit 0 when intact; 1 with the first bad event named
 * (and the rest counted), or with one line when the store is damaged.
 */
export async function verifyCommand(options: VerifyOptions): Promise<number> {
  if (!options.runId) throw new ValidationError("verify", [{ path: ["RUN"], message: "the run id to verify is required (it is printed with each run's answer)" }]);
  if (options.root !== undefined && !/^[0-9a-f]{64}$/.test(options.root)) {
    throw new ValidationError("verify", [{ path: ["--root"], message: "a root hash is 64 lowercase hex characters, as printed with the run's answer" }]);
  }
  const { database, close } = await openStore({ ...options, readOnly: true });
  try {
    const result = await verifyRun(database, options.runId, { expectedRoot: options.root, publicKey: options.publicKey });
    if (options.json) {
      options.out(JSON.stringify({ ...result, firstBad: result.problems[0] ?? null }));
    } else if (result.ok) {
      const seal = result.sealed ? `sealed, root hash ${result.rootHash}` : `not sealed (root hash now ${result.rootHash})`;
      options.out(`run ${result.runId}: intact · ${result.streams.length} streams, ${result.events} events · ${seal}`);
      if (result.signature) options.out(describeSignature(result.signature));
    } else {
      const more = result.problems.length > 1 ? ` (and ${result.problems.length - 1} more problem${result.problems.length > 2 ? "s" : ""})` : "";
      options.out(`run ${result.runId}: NOT intact: ${describeProblem(result.problems[0])}${more}`);
    }
    return result.ok ? 0 : 1;
  } finally {
    await close();
  }
}

/** The seal's signature in one line; an unchecked or unsigned seal says what it does not prove. */
function describeSignature(check: SealSignatureCheck): string {
  switch (check.state) {
    case "valid":
      return `seal signed by key ${check.keyId}: signature verified`;
    case "unchecked":
      return `seal signed by key ${check.keyId}: NOT checked, no public key configured (--key PUBKEY_FILE or ARIADNE_SIGNING_PUBLIC_KEY)`;
    case "unsigned":
      return "seal unsigned: no signing key was configured when it was written, so whoever can rewrite the log could have recomputed it (ariadne keys signing create)";
    case "invalid":
      return `seal signature: ${check.reason}`;
  }
}
