import { type KeyObject, createHash, createPublicKey } from "node:crypto";

/** An Ed25519 public key's SPKI DER is a fixed 12-byte header, then the 32 raw bytes. */
const ED25519_SPKI_HEADER = 12;

/** The raw 32 bytes of an Ed25519 public key (given the public or the private key). */
export function rawPublicKey(key: KeyObject): Buffer {
  const pub = key.type === "private" ? createPublicKey(key) : key;
  if (pub.asymmetricKeyType !== "ed25519") throw new Error(`expected an Ed25519 key, got ${pub.asymmetricKeyType ?? key.type}`);
  return (pub.export({ type: "spki", format: "der" }) as Buffer).subarray(ED25519_SPKI_HEADER);
}

/** A signing key's id: sha256 of its raw public key, hex. Printed by `ariadne keys signing create`, recorded with each signed seal. */
export function keyFingerprint(key: KeyObject): string {
  return createHash("sha256").update(rawPublicKey(key)).digest("hex");
}
