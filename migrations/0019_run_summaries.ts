import { type Kysely, sql } from "kysely";

/**
 * A run's API view, kept once it can no longer change under a live owner
 * (issue 33, item 7), so a page of `GET /v1/runs` is one query that returns
 * each run's view as stored instead of reading and folding every run's events.
 *
 * A summary is written by the reader (http/runs/runPage.ts), never by an
 * append: the first page or read that folds a run whose row is queued,
 * interrupted or final stores the view it built. It is used while it is still
 * true: the row's status is the one it was built at, no live process holds the
 * run, no event of the run lies after `last_position`, and `view_version` is
 * the code's (a changed view shape refolds). Runs recorded before this
 * migration have no summary: the page folds them from their events, as it did
 * before, and stores theirs then; the view needs the TypeScript fold, so SQL
 * here cannot backfill it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE ariadne_run_summaries (
      run_id text PRIMARY KEY REFERENCES ariadne_runs (run_id) ON DELETE CASCADE,
      status text NOT NULL,
      last_position bigint NOT NULL,
      view_version integer NOT NULL,
      view jsonb NOT NULL
    )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS ariadne_run_summaries`.execute(db);
}
