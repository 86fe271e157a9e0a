import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Profile, assertBindingMatches, profileFromBytes } from "./loadProfile.ts";
import { ProfileChangedError, type ProfileBinding, UnknownProfileError } from "./profileErrors.ts";

/**
 * FROZEN. Every profile file Ariadne shipped before an executor's admission
 * recorded its bound profile's bytes in the log (issue 28), each named by the
 * sha256 of its bytes, as git history holds them (profiles/ and profiles/roles/).
 * An admission recorded before then names its profile by that hash alone; when
 * the file on disk has changed since, the version it was bound to is found
 * here by its hash. Never edit or add to this folder: admissions since record
 * the bytes themselves (executor_admitted.offered and the profile's blob).
 */
const SHIPPED = fileURLToPath(new URL("./shippedBefore28/", import.meta.url));

/**
 * The profile an admission recorded before issue 28 was bound to: the file if
 * it still hashes to the binding, else the version Ariadne shipped with that
 * hash. A binding neither resolves (a profile of the user's own, changed or
 * removed since) is refused as the file's change or absence, as before.
 */
export async function boundProfileBefore28(binding: ProfileBinding, dir?: string): Promise<Profile> {
  try {
    return await assertBindingMatches(binding, dir);
  } catch (changed) {
    if (!(changed instanceof ProfileChangedError || changed instanceof UnknownProfileError)) throw changed;
    const shipped = await shippedBytes(binding.sha256);
    if (!shipped) throw changed;
    return profileFromBytes(`${SHIPPED}${binding.sha256}.md`, binding.id, shipped);
  }
}

async function shippedBytes(sha256: string): Promise<Uint8Array | null> {
  if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
  try {
    const bytes = await readFile(join(SHIPPED, `${sha256}.md`));
    // Named by their hash: a copy that no longer hashes to its name is not the version bound.
    return createHash("sha256").update(bytes).digest("hex") === sha256 ? bytes : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}
