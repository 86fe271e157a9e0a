import type { SealSignatureCheck } from "./checkSealSignature.ts";
import { describeProblem } from "./runProblems.ts";
import type { RunVerification } from "./verifyRun.ts";

/** `ariadne verify RUN`'s exit codes: intact and authenticated; a problem found; the structure intact but nothing authenticates it. */
export const VERIFY_EXIT = { intact: 0, notIntact: 1, notAuthenticated: 4 } as const;

/**
 * What a verification proved, in lines and an exit code. "intact" is said
 * only when something outside the database vouches for the run: the seal's
 * signature checked against a public key, or the root hash kept from the
 * answer. Otherwise the structure (chains, references, seal, blobs, quotes, the
 * run's end) is intact but a superuser could have rewritten it and recomputed
 * an unsigned seal: said so, with exit 4.
 */
export function describeVerification(result: RunVerification, rootGiven: boolean): { lines: string[]; exit: number; authenticated: boolean } {
  if (!result.ok) {
    const more = result.problems.length > 1 ? ` (and ${result.problems.length - 1} more problem${result.problems.length > 2 ? "s" : ""})` : "";
    return { lines: [`run ${result.runId}: NOT intact: ${describeProblem(result.problems[0]!)}${more}`], exit: VERIFY_EXIT.notIntact, authenticated: false };
  }
  const counts = `${result.streams.length} streams, ${result.events} events`;
  const seal = result.sealed ? `sealed, root hash ${result.rootHash}` : `not sealed (root hash now ${result.rootHash})`;
  const signed = result.signature?.state === "valid";
  const by = [signed ? `seal signature verified (key ${(result.signature as { keyId: string }).keyId})` : "", rootGiven ? "root hash as expected" : ""].filter(Boolean);
  const signatureLine = result.signature ? [describeSignature(result.signature)] : [];
  if (by.length) return { lines: [`run ${result.runId}: intact · ${counts} · ${seal} · ${by.join(", ")}`, ...signatureLine], exit: VERIFY_EXIT.intact, authenticated: true };
  return {
    lines: [
      `run ${result.runId}: structure intact, authenticity not checked: pass --key PUBKEY_FILE (or set ARIADNE_SIGNING_PUBLIC_KEY), or --root with the hash printed with the answer`,
      `checked: ${counts} (every chain, the references between streams, ${result.sealed ? "the seal against the heads, that every executor ended and every handoff was consumed" : "no seal yet"}, blobs and quotes) · ${seal}`,
      `not checked: who wrote it; whoever can rewrite the database can re-chain the streams and recompute ${result.sealed ? "the seal" : "a seal"}`,
      ...signatureLine,
    ],
    exit: VERIFY_EXIT.notAuthenticated,
    authenticated: false,
  };
}

/** The seal's signature in one line; an unchecked or unsigned seal says what it does not prove. */
function describeSignature(check: SealSignatureCheck): string {
  switch (check.state) {
    case "valid":
      return `seal signed by key ${check.keyId}: signature verified`;
    case "unchecked":
      return `seal signed by key ${check.keyId}: NOT checked, no public key configured (--key PUBKEY_FILE or ARIADNE_SIGNING_PUBLIC_KEY)`;
    case "unsigned":
      return "seal unsigned: nothing shows who wrote it (it was sealed without a signing key, or a forger recomputed it without one); configure the public key (ARIADNE_SIGNING_PUBLIC_KEY) to refuse unsigned seals";
    case "invalid":
      return `seal signature: ${check.reason}`;
  }
}
