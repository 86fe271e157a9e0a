import { type KeyObject, sign } from "node:crypto";
import { canonicalJson } from "../core/canonicalJson.ts";
import { keyFingerprint } from "../core/keyFingerprint.ts";

/** What a signed run_sealed carries: whose key, and its Ed25519 signature of sealMessage. */
export interface SealSignature {
  /** sha256 of the signing key's raw public key, hex (core/keyFingerprint.ts). */
  keyId: string;
  algorithm: "ed25519";
  /** base64 */
  signature: string;
}

/**
 * The bytes a seal's signature covers: the run and its root hash, as RFC 8785
 * JSON with a purpose, so a signature made for anything else never passes.
 */
export function sealMessage(runId: string, rootHash: string): Buffer {
  return Buffer.from(canonicalJson({ purpose: "ariadne run_sealed v1", rootHash, runId })!, "utf8");
}

/**
 * Signs a run's root hash with a key the database does not hold: whoever can
 * rewrite the log (a superuser with the triggers off) can recompute a seal but
 * not sign one, so a verifier holding the public key finds the forgery.
 */
export function signSeal(privateKey: KeyObject, runId: string, rootHash: string): SealSignature {
  return { keyId: keyFingerprint(privateKey), algorithm: "ed25519", signature: sign(null, sealMessage(runId, rootHash), privateKey).toString("base64") };
}
