import type { IdGenerator } from "../core/clock.ts";
import type { Database } from "../db/openDatabase.ts";
import { claimReminderKeys, unclaimReminderKeys } from "../db/runReminders.ts";
import type { ExecutorView } from "./executorView.ts";
import type { Draft } from "./port.ts";
import type { Reminder } from "./remindRules.ts";
import type { RunFacts, RunInfo } from "./runFacts.ts";

/** Appends drafts to another executor's stream (retrying on a version conflict); it folds them at its next step. */
export type Post = (executorId: string, drafts: Draft[]) => Promise<unknown>;

/**
 * Raises the facts not raised before in the run, as `reminder_raised`: the
 * drafts to return when the governed executor is Main, otherwise posted to
 * Main and [] returned. A key is claimed in the ledger first, so the same fact
 * is raised once whoever notices it; a failed post gives the keys back.
 */
export async function raiseReminders(
  deps: { db: Database; post: Post; newId: IdGenerator; facts: RunFacts },
  state: ExecutorView,
  run: RunInfo,
  candidates: readonly Reminder[],
): Promise<Draft[]> {
  const fresh = candidates.filter((c) => !run.raised.has(c.key));
  if (fresh.length === 0) return [];
  const claimed = await claimReminderKeys(deps.db, run.runId, fresh.map((c) => c.key));
  for (const c of fresh) run.raised.add(c.key);
  const drafts: Draft[] = fresh
    .filter((c) => claimed.has(c.key))
    .map((c) => ({ type: "reminder_raised", data: { reminderId: deps.newId(), key: c.key, text: c.text, facts: c.facts } }));
  if (drafts.length === 0 || state.role === "main") return drafts;
  const keys = [...claimed];
  try {
    await deps.post(await deps.facts.mainOf(run, state), drafts);
  } catch {
    // Not recorded, so not raised: free the keys for a later attempt.
    await unclaimReminderKeys(deps.db, run.runId, keys).catch(() => {});
    for (const k of keys) run.raised.delete(k);
  }
  return [];
}
