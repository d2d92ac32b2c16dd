// Names for the shapes of the API, taken from the types generated from the
// OpenAPI document (schema.ts), so a change to the document shows up here
// as a compile error rather than as a wrong field at run time.
import type { components, operations, webhooks } from "./schema.js";

type Schemas = components["schemas"];

export type User = Schemas["User"];
export type Credits = Schemas["Credits"];
export type CreditStatus = Schemas["CreditStatus"];
export type Transaction = Schemas["Transaction"];
export type TransactionPage = Schemas["TransactionPage"];
export type CostPreview = Schemas["CostPreview"];
export type Content = Schemas["Content"];
/** The body of POST /v1/content: the page with its formats, actions (at most 50) and page options. */
export type ContentRequest = Schemas["ContentRequest"];
/** One step run in the page before it is read. */
export type Action = Schemas["Action"];
/** A PNG behind a signed link that expires. */
export type Screenshot = Schemas["Screenshot"];
export type Metadata = Schemas["Metadata"];
export type SearchResults = Schemas["SearchResults"];
export type OrganicResult = Schemas["OrganicResult"];
export type BulkAck = Schemas["BulkAck"];
export type BulkJob = Schemas["BulkJob"];
/**
 * The outcome of one URL of a bulk job (BulkJob["results"]): engine says how
 * its page was read when it was; a failed one carries reason, the code a
 * single-URL call would have answered with its 503, and retryable, whether
 * reading it again may succeed.
 */
export type BulkResult = BulkJob["results"][number];
export type BulkCompletion = Schemas["BulkCompletion"];
/** One URL of a finished job as the content-all-results webhook delivers it, with the same engine, reason and retryable. */
export type BulkCompletionResult = BulkCompletion["results"][number];
export type BulkFailure = Schemas["BulkFailure"];
export type CrawlAck = Schemas["CrawlAck"];
/** A crawl's state (queued, running, completed, cancelled or failed) and counts, skipped ones by reason. */
export type CrawlStatus = Schemas["CrawlStatus"];
/** An extracted page of a crawl: a Content object with its depth and parent (the page its URL was found on). */
export type CrawlPage = Schemas["CrawlPage"];
export type CrawlPages = Schemas["CrawlPages"];
type WebhookBody<E extends keyof webhooks> = NonNullable<webhooks[E]["post"]["requestBody"]>["content"]["application/json"];
/** The crawl-started webhook payload: always a crawl's first event. */
export type CrawlStarted = WebhookBody<"crawl-started">;
/** The crawl-page webhook payload: an extracted page, listed by crawlPages before the event is sent. */
export type CrawlPageEvent = WebhookBody<"crawl-page">;
/** The crawl-page-failed webhook payload: a page that could not be extracted (free). */
export type CrawlPageFailed = WebhookBody<"crawl-page-failed">;
/** How a page is read: auto (the server's default), always or never rendered in a browser. */
export type Render = Schemas["Render"];
/** How a page was read: http or browser. */
export type Engine = Schemas["Engine"];
/**
 * Why a call or a bulk job's URL failed, as a stable code (blocked, captcha,
 * page_not_found, timeout, llm_failed, ...). New codes may be added; treat
 * an unknown one as unavailable.
 */
export type Reason = Schemas["Reason"];
/** The stable code of a 503 answer; the same codes as Reason. */
export type FailureReason = Reason;
export type Failure = Schemas["Failure"];

type JSONBody<Op> = Op extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type OKBody<Op, Status extends number = 200> = Op extends {
  responses: { [S in Status]: { content: { "application/json": infer B } } };
}
  ? B
  : never;

/** The page of GET /v1/scrape. */
export type Scraped = OKBody<operations["scrape"]>;
/** The URLs of GET /v1/map. */
export type SiteMap = OKBody<operations["map"]>;
/** The answer of GET /v1/credits/can-afford. */
export type Affordability = OKBody<operations["canAfford"]>;
/** The hosted checkout of POST /v1/credits/purchase. */
export type Checkout = OKBody<operations["purchaseCredits"]>;
/** The answer of POST /v1/prompt. */
export type PromptAnswer = OKBody<operations["prompt"]>;
/** The answer of POST /v1/extract. */
export type Extracted = OKBody<operations["extract"]>;

/** The body of POST /v1/content/bulk. */
export type BulkRequest = JSONBody<operations["createBulkContentJob"]>;
/** The body of POST /v1/crawl. */
export type CrawlRequest = JSONBody<operations["createCrawl"]>;
/** Fields the server defaults may be left out of a request (the generated component types make them required). */
type Defaulted<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
/** A monitor's crawl: a crawl's fields but delivery and change tracking, which are the monitor's. */
export type MonitorCrawl = Defaulted<Schemas["MonitorCrawl"], "limit" | "max_depth" | "store">;
/** The body of POST /v1/monitors: urls or a crawl, a cron schedule, and callback_url and/or email. */
export type MonitorRequest = Defaulted<Omit<Schemas["MonitorRequest"], "crawl">, "email" | "changes_only"> & { crawl?: MonitorCrawl };
/** The body of PATCH /v1/monitors/{id}: only the fields given change. */
export type MonitorPatch = JSONBody<operations["updateMonitor"]>;
/** A monitor: its schedule, status (with paused_reason), next_run_at, and on monitor() its latest checks. */
export type Monitor = Schemas["Monitor"];
/** One check of a monitor. */
export type MonitorCheck = Schemas["MonitorCheck"];
/** A page of the account's monitors. */
export type MonitorPage = Schemas["MonitorPage"];
/** The monitor-check webhook payload: one per check (with changes_only, none when nothing changed). */
export type MonitorCheckReport = Schemas["MonitorCheckReport"];
/** A JSON Schema as an object (any keywords), or its JSON text. */
export type JSONSchema = string | Record<string, unknown>;
/** The body of POST /v1/extract; its schema is any JSON Schema, as an object or its JSON text. */
export type ExtractRequest = JSONBody<operations["extract"]>;
/** The service types the cost previews price. */
export type ServiceType = JSONBody<operations["previewCost"]>["service_type"];

type SearchQuery = NonNullable<operations["search"]["parameters"]["query"]>;
type SearchContentQuery = NonNullable<operations["searchContent"]["parameters"]["query"]>;

/** A search: the query, and where and in which language to run it. */
export interface SearchParams {
  q: SearchQuery["q"];
  loc?: SearchQuery["loc"];
  hl?: SearchQuery["hl"];
  gl?: SearchQuery["gl"];
  /** google (default), bing or duckduckgo. */
  engine?: SearchQuery["engine"];
  /** The oldest cached results (and pages) accepted, in seconds (0 to 30 days; the server's default 0 searches). */
  maxAge?: SearchQuery["max_age"];
  /** false keeps the results out of the page cache. */
  store?: SearchQuery["store"];
}

/** A search whose top results are extracted too. */
export interface SearchContentParams extends SearchParams {
  /** How many organic results to extract, 1 to 50 (the server's default is 10). */
  maxContent?: SearchContentQuery["max_content"];
  /** Only extract results on these domains (`example.com` covers its subdomains, `*.example.com` the apex too). */
  whitelistDomains?: string[];
  /** Never extract results on these domains; wins over the whitelist. */
  blacklistDomains?: string[];
  render?: Render;
  /** Added to each page read: links, images, screenshot or screenshot_full. */
  formats?: string[];
  /** Each page is read as desktop (default) or mobile. */
  device?: "desktop" | "mobile";
  /** A language tag such as de-DE for each page read. */
  locale?: string;
  /** The ISO 3166-1 alpha-2 code of a proxy in the server's pool. */
  country?: string;
}
