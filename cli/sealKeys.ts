import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { makeDirs } from "../core/makeDirs.ts";
import { join } from "node:path";
import { ConfigError } from "../core/errors.ts";
import { keyFingerprint } from "../core/keyFingerprint.ts";
import type { SealKeySettings } from "./config.ts";

/**
 * Where `ariadne keys signing create` puts the seal's key pair by default,
 * beside the embedded store's `.ariadne/data` and never in the database:
 * whoever can rewrite the log must not hold the key.
 */
export const DEFAULT_KEYS_DIR = ".ariadne/keys";
const PRIVATE_FILE = "seal.key";
const PUBLIC_FILE = "seal.pub";

/** Makes an Ed25519 key pair: the private key readable by its owner only (0600), the public key beside it. */
export function createSealKeyPair(dir = DEFAULT_KEYS_DIR): { privatePath: string; publicPath: string; publicPem: string; fingerprint: string } {
  const privatePath = join(dir, PRIVATE_FILE);
  const publicPath = join(dir, PUBLIC_FILE);
  if (existsSync(privatePath)) throw new ConfigError(`${privatePath} exists already; seals it signed would no longer verify with a new key (move it away first)`);
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const publicPem = publicKey.export({ type: "spki", format: "pem" }) as string;
  makeDirs(dir, { mode: 0o700 });
  writeFileSync(privatePath, privateKey.export({ type: "pkcs8", format: "pem" }) as string, { mode: 0o600, flag: "wx" });
  writeFileSync(publicPath, publicPem, { mode: 0o644 });
  return { privatePath, publicPath, publicPem, fingerprint: keyFingerprint(publicKey) };
}

/**
 * The key seals are signed with: ARIADNE_SIGNING_KEY (a private key file, which
 * must exist), else the default one if it was created; none means seals are unsigned.
 */
export function sealSigningKey(env: SealKeySettings): KeyObject | undefined {
  const path = env.ARIADNE_SIGNING_KEY || join(DEFAULT_KEYS_DIR, PRIVATE_FILE);
  if (!env.ARIADNE_SIGNING_KEY && !existsSync(path)) return undefined;
  return readKey(path, "ARIADNE_SIGNING_KEY", (pem) => createPrivateKey(pem));
}

/**
 * The public key seals are checked against: `--key FILE`, else
 * ARIADNE_SIGNING_PUBLIC_KEY, else the default one if it was created; null
 * when none is configured (seals are then reported, not checked).
 */
export function sealPublicKey(env: SealKeySettings, flag?: string): KeyObject | null {
  const path = flag || env.ARIADNE_SIGNING_PUBLIC_KEY || join(DEFAULT_KEYS_DIR, PUBLIC_FILE);
  if (!flag && !env.ARIADNE_SIGNING_PUBLIC_KEY && !existsSync(path)) return null;
  return readKey(path, flag ? "--key" : "ARIADNE_SIGNING_PUBLIC_KEY", (pem) => createPublicKey(pem));
}

function readKey(path: string, from: string, parse: (pem: string) => KeyObject): KeyObject {
  let key: KeyObject;
  try {
    key = parse(readFileSync(path, "utf8"));
  } catch (cause) {
    throw new ConfigError(`cannot read the seal key ${path} (${from}): ${(cause as Error).message}`, { cause });
  }
  if (key.asymmetricKeyType !== "ed25519") throw new ConfigError(`the seal key ${path} (${from}) is ${key.asymmetricKeyType}, not Ed25519`);
  return key;
}
