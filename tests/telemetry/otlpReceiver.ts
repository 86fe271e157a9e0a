import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A span as OTLP/JSON carries it (the fields the tests read). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  links: { spanId: string }[];
  status?: { code?: number };
}

/**
 * A local OTLP/HTTP receiver: decodes the JSON bodies the OTLP/HTTP exporters
 * post to /v1/traces and /v1/metrics and keeps what they carried.
 */
export async function startOtlpReceiver() {
  const spans: OtlpSpan[] = [];
  const metricNames: string[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d) => (body += d));
    req.on("end", () => {
      paths.push(`${req.url} ${req.headers["content-type"]}`);
      const json = JSON.parse(body || "{}");
      for (const rs of json.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ ...s, attributes: attributesOf(s.attributes), links: s.links ?? [] });
      for (const rm of json.resourceMetrics ?? []) for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) metricNames.push(m.name);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    metricNames,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** OTLP/JSON's key-value list onto a plain object (stringValue, intValue as text, boolValue, arrayValue). */
function attributesOf(list: { key: string; value: Record<string, unknown> }[] = []): Record<string, unknown> {
  const valueOf = (v: Record<string, any>): unknown =>
    "stringValue" in v ? v.stringValue : "intValue" in v ? Number(v.intValue) : "boolValue" in v ? v.boolValue : "doubleValue" in v ? v.doubleValue : "arrayValue" in v ? (v.arrayValue.values ?? []).map(valueOf) : undefined;
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
}
