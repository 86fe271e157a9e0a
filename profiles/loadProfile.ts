import { createHash } from "node:crypto";
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
  const { file, bytes, sha256 } = await readProfileBytes(id, dir);
  return toProfile(file, id, bytes, sha256);
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
  const { file, bytes, sha256 } = await readProfileBytes(binding.id, dir);
  if (sha256 !== binding.sha256) {
    let version: string | null = null;
    try {
      version = toProfile(file, binding.id, bytes, sha256).version;
    } catch {
      // The changed file may not even parse; the hash mismatch is the error to report.
    }
    throw new ProfileChangedError(binding, { version, sha256 });
  }
  return toProfile(file, binding.id, bytes, sha256);
}

async function readProfileBytes(id: string, dir: string) {
  if (!PROFILE_ID.test(id)) throw new UnknownProfileError(id, await profileIds(dir));
  const file = join(dir, `${id}.md`);
  try {
    const bytes = await readFile(file);
    return { file, bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new UnknownProfileError(id, await profileIds(dir));
    throw e;
  }
}

function toProfile(file: string, id: string, bytes: Uint8Array, sha256: string): Profile {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ProfileFormatError(file, "is not valid UTF-8");
  }
  const { header, body } = parseProfileFile(file, text);
  if (header.id !== id) throw new ProfileFormatError(file, `header id "${header.id}" does not match the file name "${id}.md"`);
  return { ...header, content: body, sha256 };
}

async function profileIds(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  return names
    .filter((n) => n.endsWith(".md"))
    .map((n) => n.slice(0, -3))
    .filter((id) => PROFILE_ID.test(id))
    .sort();
}
