// Every operation of the OpenAPI document that a token calls has a method.
// The map below is checked by the compiler against the generated types: an
// operation added to the document (and regenerated into src/schema.ts)
// without a method here fails the build of these tests.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Trawl,
  type operations,
  type Affordability,
  type BulkRequest,
  type Checkout,
  type Extracted,
  type ExtractRequest,
  type PromptAnswer,
  type Scraped,
  type ServiceType,
  type SiteMap,
} from "@trawlhq/trawl";

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

// The names derived from operations (not from components) must not collapse
// to never when the document changes shape.
type Defined<T> = [T] extends [never] ? false : true;
const derived: { [K in "Affordability" | "BulkRequest" | "Checkout" | "Extracted" | "ExtractRequest" | "PromptAnswer" | "Scraped" | "ServiceType" | "SiteMap"]: true } = {
  Affordability: true satisfies Defined<Affordability>,
  BulkRequest: true satisfies Defined<BulkRequest>,
  Checkout: true satisfies Defined<Checkout>,
  Extracted: true satisfies Defined<Extracted>,
  ExtractRequest: true satisfies Defined<ExtractRequest>,
  PromptAnswer: true satisfies Defined<PromptAnswer>,
  Scraped: true satisfies Defined<Scraped>,
  ServiceType: true satisfies Defined<ServiceType>,
  SiteMap: true satisfies Defined<SiteMap>,
};

test("the types derived from operations are defined", () => {
  assert.equal(Object.values(derived).every(Boolean), true);
});
