import { createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { type BundleVerification, verifyBundle } from "../bundle/verifyBundle.ts";
import { refetchSources } from "../bundle/refetchSources.ts";
import type { AddressPolicy } from "../tools/web/checkAddress.ts";
import { AriadneError } from "../core/errors.ts";
import { VERIFY_EXIT } from "../events/describeVerification.ts";

export interface VerifyBundleCommandOptions {
  dir: string;
  /** --key PUB: the publisher's public key file (ARIADNE_SIGNING_PUBLIC_KEY and the default are not used for a bundle: the key must be chosen). */
  keyPath?: string;
  claim?: string;
  root?: string;
  /** Fetch each web source again and compare its bytes with the recorded hash (the only network use). */
  refetch?: boolean;
  /** Which addresses --refetch may reach (the host's ARIADNE_ALLOW_LOOPBACK / ARIADNE_ALLOW_PRIVATE); by default only the open web. */
  policy?: AddressPolicy;
  json: boolean;
  out: (line: string) => void;
}

/**
 * `ariadne verify DIR`: an exported bundle, from its files alone (no database,
 * no network). Exit 0 intact and authenticated (--key or --root), 1 not intact
 * with the first problem named, 4 when the structure is intact but no key or
 * root was given to authenticate it.
 */
export async function verifyBundleCommand(options: VerifyBundleCommandOptions): Promise<number> {
  if (options.root !== undefined && !/^[0-9a-f]{64}$/.test(options.root)) throw new AriadneError("USAGE", 400, "--root: a root hash is 64 lowercase hex characters, as printed with the run's answer");
  const publicKey = options.keyPath === undefined ? null : readPublicKey(options.keyPath);
  const result = verifyBundle(options.dir, { publicKey, publicKeyPath: options.keyPath, claim: options.claim, expectedRoot: options.root });
  const refetched = options.refetch ? await refetchSources(result.events, options.policy) : null;
  const { events: _, ...report } = result;
  const authenticated = result.signature.state === "valid" || options.root !== undefined;
  if (options.json) options.out(JSON.stringify({ ...report, authenticated, firstProblem: result.problems[0] ?? null, ...(refetched && { refetched }) }));
  else {
    for (const line of describe(result, authenticated)) options.out(line);
    for (const r of refetched ?? []) options.out(`refetched ${r.url}: ${r.state}${r.detail ? ` (${r.detail})` : ""}`);
  }
  return !result.ok ? VERIFY_EXIT.notIntact : authenticated ? VERIFY_EXIT.intact : VERIFY_EXIT.notAuthenticated;
}

function describe(r: BundleVerification, authenticated: boolean): string[] {
  const lines: string[] = [];
  const counts = `run ${r.runId} · ${r.counts.streams} streams, ${r.counts.events} events, ${r.counts.blobs} blobs, ${r.counts.files} files · root hash ${r.rootHash}`;
  if (r.ok && authenticated) lines.push(`bundle ${r.dir}: intact · ${counts}`);
  else if (r.ok) {
    lines.push(
      `bundle ${r.dir}: structure intact, authenticity not checked: pass --key with the publisher's public key (or --root with the hash printed with the answer)`,
      `checked: ${counts} (every file against the manifest, every chain, the references, the seal, that every executor ended and every handoff was consumed, blobs, quotes, derived files)`,
      "not checked: who wrote it; whoever changed the bundle could have re-chained it, recomputed the seal and re-signed the manifest with a key of their own",
    );
  } else {
    const more = r.problems.length > 1 ? ` (and ${r.problems.length - 1} more problem${r.problems.length > 2 ? "s" : ""})` : "";
    lines.push(`bundle ${r.dir}: NOT intact: ${r.problems[0]}${more}`);
  }
  if (r.signature.state === "valid") lines.push(`manifest signed by key ${r.signature.keyId}: signature verified`);
  for (const note of r.notes) lines.push(note);
  if (r.claim) lines.push(`claim ${r.claim.id} (${r.claim.basis}): ${r.claim.text}`, ...r.claim.chain.map((c) => `  ${c}`));
  return lines;
}

function readPublicKey(path: string) {
  let pem: string;
  try {
    pem = readFileSync(path, "utf8");
  } catch (e) {
    throw new AriadneError("USAGE", 400, `--key ${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType !== "ed25519") throw new Error(`its type is ${key.asymmetricKeyType}, not Ed25519`);
    return key;
  } catch (e) {
    throw new AriadneError("USAGE", 400, `--key ${path}: not an Ed25519 public key (${(e as Error).message})`);
  }
}
