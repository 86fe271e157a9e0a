import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import zlib from "node:zlib";
import { ToolError } from "../toolErrors.ts";
import { type AddressPolicy, canonicalHost, refusedIp, resolveChecked } from "./checkAddress.ts";

/**
 * A GET that connects only to an address the policy allowed: the host is
 * resolved once, every answer checked, and the socket opened to a checked
 * answer (the `lookup` hook of node:http), so DNS rebinding between the check
 * and the connection cannot reach another address. A literal IP is checked
 * as written. Redirects are not followed (the caller checks each hop).
 * The body is decompressed as fetch would.
 */
export function fetchPinned(policy: AddressPolicy): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const host = canonicalHost(url.hostname);
    if (isIP(host)) {
      const refused = refusedIp(url.hostname, host, policy);
      if (refused) throw new ToolError(`Refused to fetch ${url.href}: ${refused}. Fetch a public http(s) URL instead.`);
    }
    let refusal: ToolError | undefined;
    const lookup: LookupFunction = (hostname, options, callback) => {
      resolveChecked(hostname, policy).then((resolved) => {
        if (!resolved.ok) {
          refusal = new ToolError(`Refused to fetch ${url.href}: ${resolved.reason}. Fetch a public http(s) URL instead.`);
          return (callback as (e: Error) => void)(refusal);
        }
        const answers = resolved.addresses.map((address) => ({ address, family: isIP(address) }));
        if ((options as { all?: boolean }).all) (callback as (e: null, a: typeof answers) => void)(null, answers);
        else callback(null, answers[0]!.address, answers[0]!.family);
      }, (error: Error) => (callback as (e: Error) => void)(error));
    };
    const headers: Record<string, string> = { "accept-encoding": "gzip, deflate, br" };
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const request = (url.protocol === "https:" ? https : http).request;
    return await new Promise<Response>((resolve, reject) => {
      const req = request(url, { method: init.method ?? "GET", headers, lookup, agent: false, signal: init.signal ?? undefined }, (res) => {
        const status = res.statusCode ?? 0;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const noBody = init.method === "HEAD" || status === 204 || status === 205 || status === 304;
        let body: Readable = res;
        const encoding = (res.headers["content-encoding"] ?? "").toLowerCase();
        const decoder = encoding === "gzip" || encoding === "x-gzip" ? zlib.createGunzip() : encoding === "deflate" ? zlib.createInflate() : encoding === "br" ? zlib.createBrotliDecompress() : null;
        if (decoder && !noBody) {
          body = res.pipe(decoder);
          res.on("error", (e) => decoder.destroy(e));
          // The declared length is of the compressed bytes; the size limit counts what is read.
          responseHeaders.delete("content-length");
          responseHeaders.delete("content-encoding");
        }
        if (noBody) res.resume();
        resolve(new Response(noBody ? null : (Readable.toWeb(body) as ReadableStream<Uint8Array>), { status: status < 200 || status > 599 ? 502 : status, headers: responseHeaders }));
      });
      req.on("error", (error) => reject(refusal ?? error));
      req.end();
    });
  }) as typeof fetch;
}
