import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { WireBehaviour } from "./wireBehaviours.ts";
import { errorBody, formatSse, toSseEvents, toWireMessage, type SseEvent } from "./wireEvents.ts";

/** The parsed JSON body of a POST /v1/messages, as the client sent it. */
export interface WireRequestBody {
  model: string;
  max_tokens: number;
  messages: unknown[];
  system?: unknown;
  tools?: unknown[];
  stream?: boolean;
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or undefined when the body was not JSON. */
  body: WireRequestBody | undefined;
}

/** Chooses a behaviour for a request the queue has nothing for; `index` counts from 0. May answer later (e.g. from a scripted model). */
export type WireHandler = (body: WireRequestBody, index: number) => WireBehaviour | Promise<WireBehaviour>;

export interface WireServerOptions {
  behaviours?: WireBehaviour[];
  handler?: WireHandler;
}

export interface AnthropicWireServer {
  /** Base URL for the SDK, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Queued behaviours are used first, one per request. */
  enqueue(...behaviours: WireBehaviour[]): void;
  /** Used once the queue is empty; without one an unqueued request gets a 400. */
  setHandler(handler: WireHandler | undefined): void;
  /** Queued behaviours not yet used. */
  pending(): number;
  /** Stops listening and drops every open connection, stalled ones included. */
  close(): Promise<void>;
}

/**
 * A local stand-in for the Anthropic Messages API, speaking its wire format
 * (SSE and JSON), scripted per request. Listens on loopback only.
 *
 * @example
 * const server = await startAnthropicWireServer({ behaviours: [overloaded(), reply("hi")] });
 * const model = new AnthropicModel({ apiKey: "test", baseURL: server.url, initialRetryDelayMs: 1 });
 */
export async function startAnthropicWireServer(options: WireServerOptions = {}): Promise<AnthropicWireServer> {
  const queue = [...(options.behaviours ?? [])];
  let handler = options.handler;
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();

  const server = createServer(async (req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    const raw = await readBody(req);
    const body = parseJson(raw);
    const index = requests.length;
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: { ...req.headers }, body });
    const requestId = `req_wire_${index + 1}`;
    const fail = (status: number, type: string, message: string) => sendError(res, status, type, message, requestId);

    if (req.method !== "POST" || (req.url ?? "").split("?")[0] !== "/v1/messages") {
      return fail(404, "not_found_error", `wire server only serves POST /v1/messages, not ${req.method} ${req.url}`);
    }
    if (!req.headers["x-api-key"] && !req.headers.authorization) {
      return fail(401, "authentication_error", "an x-api-key or authorization header is required");
    }
    const invalid = validate(body);
    if (invalid || !body) return fail(400, "invalid_request_error", invalid ?? "body is not JSON");
    try {
      const behaviour = queue.shift() ?? (await handler?.(body, index));
      if (!behaviour) {
        return fail(400, "invalid_request_error", `wire server has no behaviour for request #${index + 1}; enqueue one or set a handler`);
      }
      // Scripted search blocks are only sent where Anthropic would send real ones: to a request offering its search tool.
      if ("reply" in behaviour && behaviour.reply.content.some((b) => b.type === "server_tool_use") && !offersServerSearch(body)) {
        return fail(400, "invalid_request_error", `wire server: the scripted reply to request #${index + 1} searches server-side, but the request offers no web_search_* server tool`);
      }
      await perform(res, behaviour, body, index + 1, requestId);
    } catch (e) {
      // A throwing handler is a bug in the test: say so on the wire rather than crash the process.
      if (res.headersSent) res.destroy();
      else fail(500, "api_error", `wire server handler threw: ${e instanceof Error ? e.message : String(e)}`);
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...behaviours) => void queue.push(...behaviours),
    setHandler: (next) => void (handler = next),
    pending: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

async function perform(
  res: ServerResponse,
  behaviour: WireBehaviour,
  body: WireRequestBody,
  requestNumber: number,
  requestId: string,
): Promise<void> {
  if (behaviour.kind === "httpError") {
    const { status, errorType, message, headers, details } = behaviour;
    res.writeHead(status, { "content-type": "application/json", "request-id": requestId, ...headers });
    return void res.end(JSON.stringify(errorBody(errorType, message, requestId, details)));
  }
  if (!body.stream) {
    if (behaviour.kind === "noMessageStop" || behaviour.kind === "errorEvent") {
      return sendError(res, 400, "invalid_request_error", `behaviour ${behaviour.kind} needs stream: true`, requestId);
    }
    const json = JSON.stringify(toWireMessage(behaviour.reply, body.model, requestNumber));
    if (behaviour.kind === "reply") {
      res.writeHead(200, { "content-type": "application/json", "request-id": requestId });
      return void res.end(json);
    }
    // cutStream / stall: half a body, then drop or hold the connection.
    res.writeHead(200, { "content-type": "application/json", "request-id": requestId, "content-length": Buffer.byteLength(json) });
    await write(res, json.slice(0, json.length >> 1));
    if (behaviour.kind === "cutStream") res.destroy();
    return;
  }

  const events = toSseEvents(behaviour.reply, body.model, requestNumber);
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "request-id": requestId });
  const send = async (list: SseEvent[]) => {
    for (const e of list) await write(res, formatSse(e));
  };
  switch (behaviour.kind) {
    case "reply":
      await send(events);
      return void res.end();
    case "noMessageStop":
      await send(events.filter((e) => e.event !== "message_stop"));
      return void res.end();
    case "errorEvent":
      await send(events.slice(0, behaviour.afterEvents));
      await send([{ event: "error", data: errorBody(behaviour.errorType, behaviour.message, requestId) }]);
      return void res.end();
    case "cutStream":
      await send(events.slice(0, behaviour.afterEvents));
      // No terminating chunk: the client sees the connection drop mid-body.
      return void res.destroy();
    case "stall":
      await send(events.slice(0, behaviour.afterEvents));
      return;
  }
}

function sendError(res: ServerResponse, status: number, errorType: string, message: string, requestId: string): void {
  res.writeHead(status, { "content-type": "application/json", "request-id": requestId });
  res.end(JSON.stringify(errorBody(errorType, message, requestId)));
}

function validate(body: WireRequestBody | undefined): string | undefined {
  if (!body) return undefined;
  if (typeof body.model !== "string" || !body.model) return "model: Field required";
  if (typeof body.max_tokens !== "number" || body.max_tokens < 1) return "max_tokens: Field required";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: at least one message is required";
  return unansweredSearch(body.messages);
}

const offersServerSearch = (body: WireRequestBody) => (body.tools ?? []).some((t) => /^web_search_\d+$/.test(String((t as { type?: unknown }).type)));

/** As Anthropic checks: a server_tool_use sent back needs its web_search_tool_result in the same assistant message. */
function unansweredSearch(messages: unknown[]): string | undefined {
  for (const [i, m] of messages.entries()) {
    const content = (m as { role?: string; content?: unknown }).content;
    if ((m as { role?: string }).role !== "assistant" || !Array.isArray(content)) continue;
    const answered = new Set(content.filter((b) => b?.type === "web_search_tool_result").map((b) => b.tool_use_id));
    const open = content.find((b) => b?.type === "server_tool_use" && !answered.has(b.id));
    if (open) return `messages.${i}: server_tool_use ${open.id} has no web_search_tool_result block after it`;
  }
  return undefined;
}

/** Resolves once the chunk is flushed, or the client has gone. */
const write = (res: ServerResponse, chunk: string) =>
  new Promise<void>((resolve) => {
    res.once("close", resolve);
    res.write(chunk, () => {
      res.off("close", resolve);
      resolve();
    });
  });

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(raw: string): WireRequestBody | undefined {
  try {
    return JSON.parse(raw) as WireRequestBody;
  } catch {
    return undefined;
  }
}
