import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { copyFile, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  assertBindingMatches,
  DEFAULT_PROFILE_DIR,
  listProfiles,
  loadProfile,
  profileBinding,
  ProfileBindingSchema,
  ProfileChangedError,
  UnknownProfileError,
} from "../../profiles/index.ts";

const SHIPPED = ["allocation", "compute-analyst", "diversification", "document-reader", "general", "reviewer", "tail-risk", "web-explorer"];

async function tempCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ariadne-profiles-"));
  for (const f of await readdir(DEFAULT_PROFILE_DIR)) {
    if (f.endsWith(".md")) await copyFile(join(DEFAULT_PROFILE_DIR, f), join(dir, f));
  }
  return dir;
}

test("every shipped profile loads, and its sha256 is over the exact file bytes", async () => {
  const profiles = await listProfiles();
  assert.deepEqual(profiles.map((p) => p.id), SHIPPED);
  for (const p of profiles) {
    const bytes = await readFile(join(DEFAULT_PROFILE_DIR, `${p.id}.md`));
    assert.equal(p.sha256, createHash("sha256").update(bytes).digest("hex"));
    assert.match(p.version, /^\d/);
    assert.ok(p.title.length > 0 && p.summary.length > 0);
    assert.ok(!p.content.startsWith("---"), "content is the method text, without the header");
    assert.ok(p.content.length > 500, `${p.id} has real method text`);
  }
});

test("investment perspectives are schools of analysis that request no tools of their own", async () => {
  for (const id of ["allocation", "tail-risk", "diversification"]) {
    const p = await loadProfile(id);
    assert.deepEqual(p.requestedTools, []);
    assert.match(p.content, /method, not the person/);
    assert.match(p.content, /grants no tools of\s+its\s+own/);
  }
});

test("the reviewer advises and never approves or vetoes", async () => {
  const p = await loadProfile("reviewer");
  assert.match(p.content, /do not approve/);
  assert.match(p.content, /do not block it/);
});

test("a binding freezes id, version and hash, and round-trips through its schema", async () => {
  const p = await loadProfile("general");
  const binding = profileBinding(p);
  assert.deepEqual(binding, { id: "general", version: p.version, sha256: p.sha256 });
  assert.deepEqual(ProfileBindingSchema.parse(JSON.parse(JSON.stringify(binding))), binding);
  const again = await assertBindingMatches(binding);
  assert.equal(again.content, p.content);
});

test("editing the bound profile file makes assertBindingMatches throw ProfileChangedError", async () => {
  const dir = await tempCopy();
  try {
    const binding = profileBinding(await loadProfile("tail-risk", dir));
    const file = join(dir, "tail-risk.md");
    await writeFile(file, `${await readFile(file, "utf8")}\nA silently added instruction.\n`);

    await assert.rejects(assertBindingMatches(binding, dir), (e: unknown) => {
      assert.ok(e instanceof ProfileChangedError);
      assert.equal(e.code, "PROFILE_CHANGED");
      assert.equal(e.status, 409);
      assert.match(e.message, /tail-risk/);
      return true;
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("profiles read before are read again once changed: an edit of the same size with its mtime put back, a file added", async () => {
  const dir = await tempCopy();
  try {
    const file = join(dir, "general.md");
    // A whole-second mtime, so putting it back restores it exactly.
    const mtime = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    await utimes(file, mtime, mtime);
    const fresh = await loadProfile("general", dir);
    assert.notEqual(await loadProfile("general", dir), fresh, "a file changed in the last two seconds is not kept (ctime may be whole seconds)");
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const before = await loadProfile("general", dir);
    assert.equal(await loadProfile("general", dir), before, "unchanged, it is the profile read before");
    const text = await readFile(file, "utf8");
    const i = text.lastIndexOf("a");
    await writeFile(file, `${text.slice(0, i)}e${text.slice(i + 1)}`);
    await utimes(file, mtime, mtime);
    assert.notEqual((await loadProfile("general", dir)).sha256, before.sha256);
    await assert.rejects(assertBindingMatches(profileBinding(before), dir), ProfileChangedError);

    assert.equal((await listProfiles(dir)).some((p) => p.id === "added"), false);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    assert.equal((await listProfiles(dir)).some((p) => p.id === "added"), false);
    await writeFile(join(dir, "added.md"), text.replace(/^id: general$/m, "id: added"));
    assert.equal((await listProfiles(dir)).some((p) => p.id === "added"), true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a change that also breaks the header still reports as a profile change", async () => {
  const dir = await tempCopy();
  try {
    const binding = profileBinding(await loadProfile("general", dir));
    await writeFile(join(dir, "general.md"), "not a profile any more\n");
    await assert.rejects(assertBindingMatches(binding, dir), ProfileChangedError);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("an unknown id is UnknownProfileError (404) listing the known profiles", async () => {
  for (const id of ["no-such-profile", "../core/errors"]) {
    await assert.rejects(loadProfile(id), (e: unknown) => {
      assert.ok(e instanceof UnknownProfileError);
      assert.equal(e.status, 404);
      assert.match(e.message, /known profiles: allocation, compute-analyst/);
      return true;
    });
  }
});
