import { Buffer } from "node:buffer";
import { type KeyObject, sign, verify } from "node:crypto";
import { keyFingerprint } from "../core/keyFingerprint.ts";

/** The payload type of an in-toto Statement in a DSSE envelope (in-toto attestation framework, envelope spec). */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

/** A DSSE envelope (github.com/secure-systems-lab/dsse, envelope.md): payload and signatures in base64. */
export interface DsseEnvelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

/**
 * DSSE's pre-authentication encoding: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body,
 * lengths as ASCII decimal byte counts. The signature covers these bytes, never the JSON
 * envelope, so the payload type cannot be swapped under a valid signature.
 */
export function pae(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `, "utf8"), type, Buffer.from(` ${payload.length} `, "utf8"), payload]);
}

/** Signs a payload with Ed25519; `keyid` is the key's fingerprint (sha256 of the raw public key), a hint only. */
export function signEnvelope(payloadType: string, payload: Uint8Array, privateKey: KeyObject): DsseEnvelope {
  const sig = sign(null, pae(payloadType, payload), privateKey);
  return { payloadType, payload: Buffer.from(payload).toString("base64"), signatures: [{ keyid: keyFingerprint(privateKey), sig: sig.toString("base64") }] };
}

export type EnvelopeCheck =
  | { state: "valid"; keyId: string; payload: Buffer }
  | { state: "unchecked"; keyIds: string[]; payload: Buffer }
  | { state: "invalid"; reason: string };

/**
 * The envelope's shape, then (with a public key) whether one of its signatures
 * verifies with that key. The keyid is only a hint: a signature counts when it
 * verifies, whatever keyid it claims.
 */
export function checkEnvelope(raw: unknown, publicKey: KeyObject | null): EnvelopeCheck {
  const env = raw as Partial<DsseEnvelope> | null;
  if (!env || typeof env !== "object" || typeof env.payloadType !== "string" || typeof env.payload !== "string" || !Array.isArray(env.signatures)) {
    return { state: "invalid", reason: "manifest.sig.json is not a DSSE envelope (payloadType, payload, signatures)" };
  }
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) return { state: "invalid", reason: `manifest.sig.json carries ${env.payloadType}, not an in-toto statement (${IN_TOTO_PAYLOAD_TYPE})` };
  const payload = Buffer.from(env.payload, "base64");
  const signatures = env.signatures.filter((s): s is { keyid: string; sig: string } => typeof s?.sig === "string");
  if (signatures.length === 0) return { state: "invalid", reason: "manifest.sig.json holds no signature" };
  if (!publicKey) return { state: "unchecked", keyIds: signatures.map((s) => String(s.keyid ?? "")), payload };
  const expected = keyFingerprint(publicKey);
  const message = pae(env.payloadType, payload);
  if (signatures.some((s) => verify(null, message, publicKey, Buffer.from(s.sig, "base64")))) return { state: "valid", keyId: expected, payload };
  const claimed = signatures.map((s) => s.keyid).join(", ");
  const reason = signatures.some((s) => s.keyid === expected)
    ? `the manifest's signature does not verify with key ${expected}: the signed statement was changed after it was signed`
    : `the manifest is signed by key ${claimed}, not by the given key ${expected}`;
  return { state: "invalid", reason };
}
