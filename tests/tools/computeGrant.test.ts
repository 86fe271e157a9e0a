import assert from "node:assert/strict";
import { test } from "node:test";
import { computeGrant, type ToolEffect } from "../../tools/index.ts";

const catalog: Record<string, ToolEffect> = {
  search_corpus: "read_only",
  read_document: "read_only",
  quote_passage: "read_only",
  compute_overlap: "read_only",
  write_file: "idempotent",
  send_email: "effectful",
  delegate: "effectful",
};
const everything = Object.keys(catalog);

test("Main with no specific request holds everything the root allows, delegate included", () => {
  const { granted, refused } = computeGrant({ parentGrant: null, rootAllowed: everything, catalog, isChild: false, depth: 0 });
  assert.deepEqual(granted.sort(), [...everything].sort());
  assert.deepEqual(refused, []);
});

test("granted tools are the intersection of requested, parent-held and root-allowed", () => {
  const { granted, refused } = computeGrant({
    requested: ["read_document", "quote_passage", "write_file", "send_email", "no_such_tool"],
    parentGrant: ["read_document", "quote_passage", "send_email"],
    rootAllowed: ["read_document", "quote_passage", "write_file"],
    catalog,
    isChild: true,
    depth: 1,
  });
  assert.deepEqual(granted, ["read_document", "quote_passage"]);
  assert.deepEqual(
    refused.map((r) => [r.name, r.reason]),
    [
      ["write_file", "not_held_by_parent"],
      ["send_email", "not_allowed_by_root"],
      ["no_such_tool", "unknown_tool"],
    ],
  );
  for (const r of refused) assert.ok(r.detail.includes(r.name));
});

test("a Child that asks for nothing specific gets only the read-only tools its parent holds", () => {
  for (const requested of [undefined, []]) {
    const { granted, refused } = computeGrant({
      requested,
      parentGrant: ["search_corpus", "read_document", "write_file", "send_email", "delegate"],
      rootAllowed: everything,
      catalog,
      isChild: true,
      depth: 1,
    });
    assert.deepEqual(granted, ["search_corpus", "read_document"]);
    assert.deepEqual(refused, []);
  }
});

test("delegate is refused to a Child at depth 1 under the default maxDepth", () => {
  const { granted, refused } = computeGrant({
    requested: ["delegate", "read_document"],
    parentGrant: everything,
    rootAllowed: everything,
    catalog,
    isChild: true,
    depth: 1,
  });
  assert.deepEqual(granted, ["read_document"]);
  assert.equal(refused.length, 1);
  assert.equal(refused[0]?.name, "delegate");
  assert.equal(refused[0]?.reason, "delegation_depth");
  assert.match(refused[0]?.detail ?? "", /depth 1.*maxDepth 1/);
});

test("delegate is granted to a Child at depth 1 when maxDepth is 2, and refused at depth 2", () => {
  const at = (depth: number) =>
    computeGrant({ requested: ["delegate"], parentGrant: everything, rootAllowed: everything, catalog, isChild: true, depth, maxDepth: 2 });
  assert.deepEqual(at(1).granted, ["delegate"]);
  assert.deepEqual(at(2).granted, []);
  assert.equal(at(2).refused[0]?.reason, "delegation_depth");
});

test("a profile cannot widen a grant: requesting a tool the parent lacks is refused", () => {
  const { granted, refused } = computeGrant({
    requested: ["compute_overlap"],
    parentGrant: ["read_document"],
    rootAllowed: everything,
    catalog,
    isChild: true,
    depth: 1,
  });
  assert.deepEqual(granted, []);
  assert.equal(refused[0]?.reason, "not_held_by_parent");
});

test("no executor is granted network, private data and effects at once: the effectful tools are refused with the reason", () => {
  const catalog: Record<string, ToolEffect> = { web_fetch: "read_only", read_portfolio: "read_only", place_order: "effectful", write_file: "idempotent" };
  const capabilities = { web_fetch: ["network"], read_portfolio: ["private_data"], place_order: ["effects"], write_file: [] } as const;
  const grant = computeGrant({
    requested: ["web_fetch", "read_portfolio", "place_order", "write_file"],
    parentGrant: Object.keys(catalog),
    rootAllowed: Object.keys(catalog),
    catalog,
    capabilities,
    isChild: true,
    depth: 1,
  });
  assert.deepEqual(grant.granted, ["web_fetch", "read_portfolio", "write_file"]);
  assert.deepEqual(grant.refused.map((r) => [r.name, r.reason]), [["place_order", "capability_triad"]]);
  assert.match(grant.conflict ?? "", /network \(web_fetch\), private_data \(read_portfolio\), effects \(place_order\)/);

  // Any two classes are fine.
  const two = computeGrant({ requested: ["web_fetch", "place_order"], parentGrant: null, rootAllowed: Object.keys(catalog), catalog, capabilities, isChild: false, depth: 0 });
  assert.deepEqual(two.granted, ["web_fetch", "place_order"]);
  assert.equal(two.conflict, undefined);
  // Main's default grant is held to the rule too.
  const main = computeGrant({ parentGrant: null, rootAllowed: Object.keys(catalog), catalog, capabilities, isChild: false, depth: 0 });
  assert.ok(!main.granted.includes("place_order") && main.conflict);
});

test("a tool's capability classes: declared ones, plus effects for every effectful tool", async () => {
  const { capabilitiesOf } = await import("../../tools/index.ts");
  assert.deepEqual(capabilitiesOf(["network"], "read_only"), ["network"]);
  assert.deepEqual(capabilitiesOf(undefined, "effectful"), ["effects"]);
  assert.deepEqual(capabilitiesOf(["private_data", "network"], "effectful"), ["network", "private_data", "effects"]);
});
