// Every operation of the OpenAPI document that a token calls has a method.
// The map below is checked by the compiler against the generated types: an
// operation added to the document (and regenerated into src/schema.ts)
// without a method here fails the build of these tests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Trawl, type operations } from "@trawlhq/trawl";

/** Operations that are not the token's API: pages for a browser, signed links, probes, this document. */
type NotForClients = "checkoutPage" | "checkoutPay" | "downloadFile" | "healthz" | "readyz" | "openapi" | "docs";

const methodOf: { [Op in Exclude<keyof operations, NotForClients>]: keyof Trawl } = {
  getUser: "user",
  getCredits: "credits",
  getUsageStats: "usageStats",
  listTransactions: "transactionPage",
  previewCost: "previewCost",
  canAfford: "canAfford",
  purchaseCredits: "purchase",
  scrape: "scrape",
  getContent: "content",
  map: "map",
  search: "search",
  searchContent: "searchContent",
  prompt: "prompt",
  extract: "extract",
  createBulkContentJob: "createBulkJob",
  getBulkContentJob: "bulkJob",

};

test("every operation a token calls has a method", () => {
  const trawl = new Trawl({ baseUrl: "http://127.0.0.1:1", token: "trawl_" + "0".repeat(40) });
  for (const [op, method] of Object.entries(methodOf)) {
    assert.equal(typeof trawl[method], "function", `${op}: Trawl.${method}`);
  }
});
