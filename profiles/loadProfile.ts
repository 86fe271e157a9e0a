import { createHash } from "node:crypto";
import { type Stats, statSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { parseProfileFile } from "./parseProfileFile.ts";
import { ProfileChangedError, ProfileFormatError, UnknownProfileError, type ProfileBinding } from "./profileErrors.ts";

export interface Profile {
  id: string;
  version: string;
  title: string;
  summary: string;
  /** Tools the method asks for. A request, never a grant: the runtime decides. */
  requestedTools: string[];
  /** The method text after the header, as given to the executor. */
  content: string;
  /** Hex sha256 of the exact file bytes, header included. */
  sha256: string;
  /** The exact file bytes (stored as a blob under `sha256` when an executor is bound to them). */
  bytes: Uint8Array;
}

/** Bindings are persisted in events, so they are parsed when read back. */
export const ProfileBindingSchema = z.object({
  id: z.string().min(1),
  version: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/** The profiles ship beside this module; tests pass a temp copy instead. */
export const DEFAULT_PROFILE_DIR = fileURLToPath(new URL(".", import.meta.url));

/**
 * Profiles of roles the runtime starts itself (the Checker), kept out of the Specialty Profiles a
 * delegation may name; bound into the executor's identity the same way.
 */
export const ROLE_PROFILE_DIR = fileURLToPath(new URL("./roles/", import.meta.url));

const PROFILE_ID = /^[a-z][a-z0-9-]*$/;

export async function loadProfile(id: string, dir: string = DEFAULT_PROFILE_DIR): Promise<Profile> {
  return parsed(await readProfileBytes(id, dir), id);
}

/** Every profile in the directory, sorted by id. */
export async function listProfiles(dir: string = DEFAULT_PROFILE_DIR): Promise<Profile[]> {
  const ids = await profileIds(dir);
  return Promise.all(ids.map((id) => loadProfile(id, dir)));
}

export function profileBinding(p: Profile): ProfileBinding {
  return { id: p.id, version: p.version, sha256: p.sha256 };
}

/**
 * Re-reads the bound profile and returns it only if its bytes still hash to the
 * binding. The hash is checked before parsing, so an edit that also breaks the
 * header still reports as a change rather than a format problem.
 */
export async function assertBindingMatches(binding: ProfileBinding, dir: string = DEFAULT_PROFILE_DIR): Promise<Profile> {
  const read = await readProfileBytes(binding.id, dir);
  const { file, bytes, sha256 } = read;
  if (sha256 !== binding.sha256) {
    let version: string | null = null;
    try {
      version = toProfile(file, binding.id, bytes, sha256).version;
    } catch {
      // The changed file may not even parse; the hash mismatch is the error to report.
    }
    throw new ProfileChangedError(binding, { version, sha256 });
  }
  return parsed(read, binding.id);
}

interface ProfileBytes {
  file: string;
  bytes: Uint8Array;
  sha256: string;
  /** The profile these bytes parse to, once parsed. */
  profile?: Profile;
}

function parsed(read: ProfileBytes, id: string): Profile {
  // Shared by every caller from now on, so frozen.
  if (!read.profile) {
    const p = toProfile(read.file, id, read.bytes, read.sha256);
    Object.freeze(p.requestedTools);
    read.profile = Object.freeze(p);
  }
  return read.profile;
}

/**
 * Files read before, by path, with the stat they were read under: every
 * executor's admission and rebuild reads its profile, and a stat is a fraction
 * of open, read, hash and close. An edit changes the file's ctime (which no
 * tool can set back), so a changed profile is read again and still refused.
 * Some platforms give ctime in whole seconds (Deno's node:fs), so a file changed
 * in the last RACY_MS is never kept: an edit within the same second as the one
 * before it could leave its stat as it was (git's "racy clean" rule).
 */
const readBefore = new Map<string, { signature: string; bytes: ProfileBytes }>();
const listed = new Map<string, { signature: string; ids: string[] }>();

const RACY_MS = 2_000;

/** The stat as a signature, or null while the file is too newly changed to be kept by it. */
function signatureOf(s: Stats): string | null {
  if (Date.now() - s.ctimeMs < RACY_MS) return null;
  return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
}
/** Synchronous: a stat of a local file takes microseconds, and the promise around an async one cost ten times that. */
const stat = (path: string) => statSync(path);

async function readProfileBytes(id: string, dir: string): Promise<ProfileBytes> {
  if (!PROFILE_ID.test(id)) throw new UnknownProfileError(id, await profileIds(dir));
  const file = join(dir, `${id}.md`);
  try {
    const signature = signatureOf(stat(file));
    const known = readBefore.get(file);
    if (signature !== null && known?.signature === signature) return known.bytes;
    const bytes = await readFile(file);
    const entry = { file, bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
    // Kept only if the file did not change while it was read.
    if (signature !== null && signatureOf(stat(file)) === signature) readBefore.set(file, { signature, bytes: entry });
    return entry;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new UnknownProfileError(id, await profileIds(dir));
    throw e;
  }
}

/** A profile from file bytes read elsewhere (a frozen copy named by its hash), checked as a file is. */
export const profileFromBytes = (file: string, id: string, bytes: Uint8Array): Profile =>
  toProfile(file, id, bytes, createHash("sha256").update(bytes).digest("hex"));

function toProfile(file: string, id: string, bytes: Uint8Array, sha256: string): Profile {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ProfileFormatError(file, "is not valid UTF-8");
  }
  const { header, body } = parseProfileFile(file, text);
  if (header.id !== id) throw new ProfileFormatError(file, `header id "${header.id}" does not match the file name "${id}.md"`);
  return { ...header, content: body, sha256, bytes };
}

/** The profile ids in a directory, listed again when the directory changed (a file added, removed or renamed). */
async function profileIds(dir: string): Promise<string[]> {
  const signature = signatureOf(stat(dir));
  const known = listed.get(dir);
  if (signature !== null && known?.signature === signature) return known.ids;
  const names = await readdir(dir);
  const ids = names
    .filter((n) => n.endsWith(".md"))
    .map((n) => n.slice(0, -3))
    .filter((id) => PROFILE_ID.test(id))
    .sort();
  if (signature !== null && signatureOf(stat(dir)) === signature) listed.set(dir, { signature, ids });
  return ids;
}
