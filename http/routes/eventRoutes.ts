import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { START } from "../../events/index.ts";
import { requireAction, visibleRun } from "../access.ts";
import type { AppDeps, AppEnv, Guards } from "../deps.ts";
import { finishedRunReplays } from "../live/finishedRunReplays.ts";
import { END_OF_LOG, checkpointAt, readRunEvents } from "../../events/readRunEvents.ts";
import { FINAL_STATES } from "../runs/runsPort.ts";
import { eventFilter } from "../live/eventFilter.ts";
import { openSlot, runStreamResponse } from "../live/runStreamResponse.ts";
import { HttpProblem } from "../problem.ts";
import { renderEvent } from "../renderEvent.ts";
import { EventPageSchema, EventsQuery, LastEventIdHeader, RunIdParams } from "../schemas.ts";
import { errors } from "./responses.ts";

const runEvents = createRoute({
  operationId: "listRunEvents",
  method: "get",
  path: "/v1/runs/{id}/events",
  tags: ["runs"],
  summary: "A run's events: a JSON page, or with `Accept: text/event-stream` a live SSE stream",
  description:
    "SSE: `id` is the event's global position, `event` its type; reconnect with `Last-Event-ID` to resume with no gap and no duplicate. " +
    "Comments (`: heartbeat`) keep idle connections open; an `end` event follows the last event of a stopped run.",
  request: { params: RunIdParams, query: EventsQuery, headers: LastEventIdHeader },
  responses: {
    200: {
      description: "Events in log order",
      content: { "application/json": { schema: EventPageSchema }, "text/event-stream": { schema: z.string() } },
    },
    ...errors(400, 401, 404, 500, 422, 429),
  },
});
// 429 on an SSE request also when the key or tenant holds too many live streams (the problem names the cap).

export function eventRoutes(deps: AppDeps, app: OpenAPIHono<AppEnv>, guards: Guards): void {
  const replays = finishedRunReplays(deps.database);
  app.openapi(runEvents, async (c) => {
    requireAction(c, "read");
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const run = await visibleRun(deps, c, id);
    const lastEventId = c.req.valid("header")["last-event-id"];
    const after = lastEventId !== undefined ? Number(lastEventId) : query.after;
    const badPosition = () =>
      new HttpProblem(400, "BAD_POSITION", `${lastEventId !== undefined ? "Last-Event-ID" : "after"} ${after} is not the position of an event of run ${id}`);
    const sse = (c.req.header("accept") ?? "").includes("text/event-stream");
    const filter = eventFilter(query.types);
    // A finished run's stream never changes: sent from memory, the same bytes the log would give (unfiltered only).
    const replay = sse && !filter.types && FINAL_STATES.includes(run.state) ? await replays.of(id) : null;
    if (replay) {
      const bytes = replay.after(after);
      if (!bytes) throw badPosition();
      return streamSSE(c, async (stream) => {
        await stream.write(bytes);
      }) as never;
    }
    const from = after === 0 ? START : await checkpointAt(deps.database, after, id);
    if (!from) throw badPosition();
    if (sse) return runStreamResponse(c, deps, openSlot(c, guards), { runId: id, from, filter }) as never;
    // A stopped run appends nothing more, so its page need not wait behind other transactions in the cluster.
    const stopped = FINAL_STATES.includes(run.state);
    const page = await readRunEvents(deps.database, id, from, { limit: query.limit, upTo: stopped ? END_OF_LOG : undefined });
    const next = page.events.length === query.limit ? page.events.at(-1)!.globalPosition : null;
    const events = filter.types ? page.events.filter((e) => filter.types!.has(e.type)) : page.events;
    return c.json({ events: events.map(renderEvent), next }, 200);
  });
}
