import { type KeyObject, verify } from "node:crypto";
import { keyFingerprint } from "../core/keyFingerprint.ts";
import { type SealSignature, sealMessage } from "./signSeal.ts";

/** What can be said of a seal's signature. `unchecked`: signed, but no public key was given to check it with. */
export type SealSignatureCheck =
  | { state: "unsigned" }
  | { state: "unchecked"; keyId: string }
  | { state: "valid"; keyId: string }
  | { state: "invalid"; keyId: string | null; reason: string };

/** Checks a seal's signature against the configured public key (none: it can only be reported, not checked). */
export function checkSealSignature(
  seal: { runId: string; rootHash: string; signature?: SealSignature },
  publicKey: KeyObject | null,
): SealSignatureCheck {
  const s = seal.signature;
  if (!publicKey) return s ? { state: "unchecked", keyId: s.keyId } : { state: "unsigned" };
  const expected = keyFingerprint(publicKey);
  if (!s) return { state: "invalid", keyId: null, reason: `the seal is not signed, but seals are checked against key ${expected}: it was written without the signing key` };
  if (s.keyId !== expected) return { state: "invalid", keyId: s.keyId, reason: `the seal is signed by key ${s.keyId}, not by the configured key ${expected}` };
  const ok = s.algorithm === "ed25519" && verify(null, sealMessage(seal.runId, seal.rootHash), publicKey, Buffer.from(s.signature, "base64"));
  return ok ? { state: "valid", keyId: s.keyId } : { state: "invalid", keyId: s.keyId, reason: `the seal's signature does not verify with key ${expected}: the seal was changed after it was signed` };
}
