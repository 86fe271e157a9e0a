import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { networkInterfaces } from "node:os";
import { ToolError, corpusUrlMap, fetchLimited, refusedAddress, serveCorpus, type CorpusServer } from "../../tools/index.ts";
import { addressKind } from "../../tools/web/checkAddress.ts";
import { corpusDir } from "../support/corpus.ts";
import { type TestWebServer, startWebServer } from "./webTestServer.ts";

/** Every spelling a model (or a page it read) could use for an address that is not the open web, and the kind it is. */
const REFUSED: [spelling: string, kind: "loopback" | "private"][] = [
  ["127.0.0.1", "loopback"],
  ["127.1", "loopback"],
  ["127.0.1", "loopback"],
  ["2130706433", "loopback"],
  ["0x7f000001", "loopback"],
  ["0x7f.0.0.1", "loopback"],
  ["0x7f.1", "loopback"],
  ["0177.0.0.1", "loopback"],
  ["017700000001", "loopback"],
  ["127.255.255.254", "loopback"],
  ["localhost", "loopback"],
  ["LOCALHOST.", "loopback"],
  ["api.localhost", "loopback"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::ffff:127.0.0.1", "loopback"],
  ["[::ffff:127.0.0.1]", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["0:0:0:0:0:ffff:127.0.0.1", "loopback"],
  ["0000:0000:0000:0000:0000:ffff:7f00:0001", "loopback"],
  ["::127.0.0.1", "loopback"],
  ["::7f00:1", "loopback"],
  ["::ffff:0:127.0.0.1", "loopback"],
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::7f00:1", "loopback"],
  ["2002:7f00:1::", "loopback"],
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"],
  ["0.0.0.0", "private"],
  ["0", "private"],
  ["::", "private"],
  ["10.0.0.1", "private"],
  ["012.0.0.1", "private"],
  ["167772161", "private"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:a00:1", "private"],
  ["169.254.169.254", "private"],
  ["0xa9fea9fe", "private"],
  ["::ffff:169.254.169.254", "private"],
  ["::ffff:a9fe:a9fe", "private"],
  ["64:ff9b::169.254.169.254", "private"],
  ["64:ff9b::a9fe:a9fe", "private"],
  ["::169.254.169.254", "private"],
  ["2002:a9fe:a9fe::1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["::ffff:192.168.1.1", "private"],
  ["100.64.0.1", "private"],
  ["192.0.0.8", "private"],
  ["198.18.0.1", "private"],
  ["224.0.0.1", "private"],
  ["255.255.255.255", "private"],
  ["fc00::1", "private"],
  ["fd12:3456::1", "private"],
  ["fe80::1", "private"],
  ["FE80::abcd", "private"],
  ["fec0::1", "private"],
  ["ff02::1", "private"],
  ["64:ff9b:1::a00:1", "private"],
  ["2001:db8::1", "private"],
];

const ALLOWED = ["93.184.216.34", "8.8.8.8", "1.1.1.1", "::ffff:8.8.8.8", "64:ff9b::808:808", "2606:4700:4700::1111", "172.32.0.1", "100.128.0.1", "2002:808:808::1"];

describe("the address policy", () => {
  test(`refuses ${REFUSED.length} spellings of loopback and private addresses, naming why`, async () => {
    assert.ok(REFUSED.length >= 40);
    for (const [spelling, kind] of REFUSED) {
      const reason = await refusedAddress(spelling, {});
      assert.match(reason ?? "", kind === "loopback" ? /is this machine/ : /private network/, `${spelling} should be refused as ${kind}`);
    }
  });

  test("allows public addresses, including public IPv4 inside IPv6 forms", async () => {
    for (const spelling of ALLOWED) assert.equal(await refusedAddress(spelling, {}), null, spelling);
  });

  test("loopback spellings pass with allowLoopback, private ones with allowPrivate, and not the other way round", async () => {
    for (const [spelling, kind] of REFUSED) {
      assert.equal(await refusedAddress(spelling, kind === "loopback" ? { allowLoopback: true } : { allowPrivate: true }), null, spelling);
      assert.notEqual(await refusedAddress(spelling, kind === "loopback" ? { allowPrivate: true } : { allowLoopback: true }), null, spelling);
    }
  });

  test("the machine's own interface addresses are this machine, however spelled", () => {
    const own = Object.values(networkInterfaces()).flatMap((list) => list ?? []).filter((a) => a.family === "IPv4" && !a.internal);
    for (const a of own) {
      assert.equal(addressKind(a.address), "loopback", a.address);
      assert.equal(addressKind(`::ffff:${a.address}`), "loopback", `::ffff:${a.address}`);
    }
  });

  test("a public name with any refused answer is refused; a name that does not resolve is left to the fetch", async () => {
    const resolve = async (host: string) => (host === "rebind.example" ? ["93.184.216.34", "10.0.0.5"] : host === "meta.example" ? ["::ffff:169.254.169.254"] : []);
    assert.match((await refusedAddress("rebind.example", { resolve })) ?? "", /rebind\.example is on a private network \(10\.0\.0\.5\)/);
    assert.match((await refusedAddress("meta.example", { resolve })) ?? "", /private network/);
    assert.equal(await refusedAddress("nothing.example", { resolve }), null);
  });
});

describe("fetches under the address policy", () => {
  let web: TestWebServer;
  let corpus: CorpusServer;
  before(async () => {
    web = await startWebServer({
      "/secret": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("internal service"),
      "/hop": (_req, res) => res.writeHead(302, { location: `http://[::ffff:7f00:1]:${new URL(web.origin).port}/secret` }).end(),
    });
    corpus = await serveCorpus(corpusDir());
  });
  after(async () => {
    await web?.close();
    await corpus?.close();
  });
  const port = () => new URL(web.origin).port;

  test("IPv4-mapped and numeric spellings of a local service are refused before any request", async () => {
    for (const host of ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]", "2130706433", "0x7f.1", "0177.0.0.1", "127.1"]) {
      await assert.rejects(fetchLimited(`http://${host}:${port()}/secret`, {}), (e: Error) => e instanceof ToolError && /is this machine/.test(e.message), host);
    }
    assert.equal(web.hits.get("/secret") ?? 0, 0, "nothing reached the local service");
    const allowed = await fetchLimited(`http://[::ffff:127.0.0.1]:${port()}/secret`, { allowLoopback: true });
    assert.equal(new TextDecoder().decode(allowed.bytes), "internal service", "the same spelling is reachable when loopback is allowed: the refusal above is the policy's");
  });

  test("a redirect from an allowed host to a refused address is refused", async () => {
    // The corpus host is mapped to a local server by trusted configuration; its redirect is not.
    const hitsBefore = web.hits.get("/secret") ?? 0;
    const mapUrl = (url: string) => (url.startsWith("https://hop.corpus.test/") ? `${web.origin}/hop` : corpusUrlMap(corpus.origin)(url));
    await assert.rejects(fetchLimited("https://hop.corpus.test/x", { mapUrl }), /Refused to fetch http:\/\/\[::ffff:7f00:1\]:\d+\/secret: .* is this machine/);
    assert.equal(web.hits.get("/secret") ?? 0, hitsBefore);
  });

  test("a name is resolved once and the connection made to the address checked (no second answer to differ)", async () => {
    const answers = ["127.0.0.1", "10.0.0.1"];
    const asked: string[] = [];
    const resolve = async (host: string) => (asked.push(host), [answers.shift()!]);
    const fetched = await fetchLimited(`http://service.example:${port()}/secret`, { allowLoopback: true, resolve });
    assert.equal(new TextDecoder().decode(fetched.bytes), "internal service");
    assert.deepEqual(asked, ["service.example"], "one resolution, the checked one, made the connection");
    await assert.rejects(fetchLimited(`http://service.example:${port()}/secret`, { allowLoopback: true, resolve }), /service\.example is on a private network \(10\.0\.0\.1\)/);
  });

  test("a public name resolving to this machine is refused at connect time", async () => {
    const resolve = async () => ["::ffff:127.0.0.1"];
    const before = web.hits.get("/secret") ?? 0;
    await assert.rejects(fetchLimited(`http://innocent.example:${port()}/secret`, { resolve }), /innocent\.example is this machine/);
    assert.equal(web.hits.get("/secret") ?? 0, before);
  });
});
