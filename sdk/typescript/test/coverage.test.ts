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
  type BulkCompletionResult,
  type BulkJob,
  type BulkRequest,
  type BulkResult,
  type Checkout,
  type CrawlRequest,
  type Extracted,
  type ExtractRequest,
  type JSONSchema,
  type PromptAnswer,
  type Reason,
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
  postContent: "contentWith",
  map: "map",
  search: "search",
  searchContent: "searchContent",
  prompt: "prompt",
  extract: "extract",
  createBulkContentJob: "createBulkJob",
  getBulkContentJob: "bulkJob",
  createCrawl: "createCrawl",
  getCrawl: "crawl",
  listCrawlPages: "crawlPages",
  cancelCrawl: "cancelCrawl",
  createMonitor: "createMonitor",
  listMonitors: "monitors",
  getMonitor: "monitor",
  updateMonitor: "updateMonitor",
  deleteMonitor: "deleteMonitor",
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
const derived: { [K in "Affordability" | "BulkRequest" | "Checkout" | "CrawlRequest" | "Extracted" | "ExtractRequest" | "PromptAnswer" | "Scraped" | "ServiceType" | "SiteMap"]: true } = {
  Affordability: true satisfies Defined<Affordability>,
  BulkRequest: true satisfies Defined<BulkRequest>,
  Checkout: true satisfies Defined<Checkout>,
  CrawlRequest: true satisfies Defined<CrawlRequest>,
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

// The query parameters and body fields each method sends, as the methods
// build them from their arguments. A parameter or field the document adds
// (or drops) fails the build of these tests until the method follows.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type QueryOf<Op extends keyof operations> = keyof NonNullable<operations[Op]["parameters"]["query"]>;
type BodyOf<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { "application/json": infer B } } } ? keyof B : never;
const sent: Record<string, true> = {
  listTransactions: true satisfies Same<QueryOf<"listTransactions">, "page" | "per_page">,
  scrape: true satisfies Same<QueryOf<"scrape">, "url" | "render" | "max_age" | "store">,
  getContent: true satisfies Same<QueryOf<"getContent">, "url" | "render" | "formats" | "device" | "locale" | "country" | "max_age" | "store" | "changes" | "tag">,
  map: true satisfies Same<QueryOf<"map">, "url" | "limit" | "include_links">,
  listCrawlPages: true satisfies Same<QueryOf<"listCrawlPages">, "cursor" | "per_page">,
  search: true satisfies Same<QueryOf<"search">, "q" | "loc" | "hl" | "gl" | "engine" | "max_age" | "store">,
  searchContent: true satisfies Same<
    QueryOf<"searchContent">,
    "q" | "loc" | "hl" | "gl" | "engine" | "max_content" | "whitelist_domains" | "whitelist_domains[]" | "blacklist_domains" | "blacklist_domains[]" | "render" | "max_age" | "store" | "formats" | "device" | "locale" | "country"
  >,
  previewCost: true satisfies Same<BodyOf<"previewCost">, "service_type" | "quantity">,
  canAfford: true satisfies Same<BodyOf<"canAfford">, "service_type" | "quantity">,
  purchaseCredits: true satisfies Same<BodyOf<"purchaseCredits">, "credits">,
  prompt: true satisfies Same<BodyOf<"prompt">, "prompt" | "url" | "render">,
  // extract, createBulkContentJob and createCrawl take the document's body as it is.
  extract: true satisfies Same<keyof ExtractRequest, BodyOf<"extract">>,
  createBulkContentJob: true satisfies Same<keyof BulkRequest, BodyOf<"createBulkContentJob">>,
  createCrawl: true satisfies Same<keyof CrawlRequest, BodyOf<"createCrawl">>,
};

test("each method sends the query parameters and body fields of its operation", () => {
  assert.equal(Object.keys(sent).length, 14);
});

// The friendly names of bulk results keep the fields callers branch on: a
// document that drops or renames one fails the build of these tests.
type Has<T, K extends PropertyKey> = K extends keyof T ? true : false;
const bulkFields: { [K in "request.render" | "job.render" | "result.engine" | "result.reason" | "result.retryable" | "completion.engine" | "completion.reason" | "completion.retryable"]: true } = {
  "request.render": true satisfies Has<BulkRequest, "render">,
  "job.render": true satisfies Has<BulkJob, "render">,
  "result.engine": true satisfies Has<BulkResult, "engine">,
  "result.reason": true satisfies Has<BulkResult, "reason">,
  "result.retryable": true satisfies Has<BulkResult, "retryable">,
  "completion.engine": true satisfies Has<BulkCompletionResult, "engine">,
  "completion.reason": true satisfies Has<BulkCompletionResult, "reason">,
  "completion.retryable": true satisfies Has<BulkCompletionResult, "retryable">,
};

// The document types schema as any JSON Schema (an object with any keywords,
// or its JSON text), so the generated request type takes one as it is.
const extractSchema: true = true satisfies Has<operations["extract"]["requestBody"]["content"]["application/json"], "schema">;
const anySchema: ExtractRequest["schema"] = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
const schemaText: ExtractRequest["schema"] = JSON.stringify(anySchema);
const asJSONSchema: JSONSchema = anySchema;

test("bulk requests and results carry render, engine, reason and retryable", () => {
  assert.equal(Object.values(bulkFields).every(Boolean), true);
  // A failed URL's reason is the same code as a 503's.
  const reason: Reason = "page_not_found" satisfies NonNullable<BulkResult["reason"]>;
  assert.equal(reason, "page_not_found");
  assert.equal(extractSchema, true);
  assert.equal(typeof anySchema, "object");
  assert.equal(typeof schemaText, "string");
  assert.equal(asJSONSchema, anySchema);
});
