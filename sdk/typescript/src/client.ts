import { randomUUID } from "node:crypto";
import { TrawlError, type Answer, type AnswerMeta, type CreditHeaders, type RateLimit } from "./errors.js";
import type {
  Affordability,
  BulkAck,
  BulkJob,
  BulkRequest,
  Checkout,
  Content,
  ContentRequest,
  CostPreview,
  CrawlAck,
  CrawlPages,
  CrawlRequest,
  CrawlStatus,
  CreditStatus,
  Credits,
  ExtractRequest,
  Extracted,
  FailureReason,
  Monitor,
  MonitorPage,
  MonitorPatch,
  MonitorRequest,
  PromptAnswer,
  Render,
  Scraped,
  SearchContentParams,
  SearchParams,
  SearchResults,
  ServiceType,
  SiteMap,
  Transaction,
  TransactionPage,
  User,
} from "./types.js";

export interface TrawlOptions {
  /** Where Trawl answers, e.g. https://trawl.example.com (a path prefix is kept); default: TRAWL_API_URL, else http://127.0.0.1:8080. */
  baseUrl?: string;
  /** The API token (trawl_...); default: TRAWL_API_KEY. Keep it on the server. */
  token?: string;
  /** Attempts per call in all (default 5; 1 turns retries off). */
  attempts?: number;
  /** The first wait after a 5xx or a lost connection, doubled each time (default 1000 ms: 1 s, 2 s, 4 s, 8 s). */
  backoffMs?: number;
  /** The longest single wait, Retry-After included (default 60000 ms). */
  maxWaitMs?: number;
  /** How long one attempt may take, answer read included (default 300000 ms). */
  timeoutMs?: number;
  /** The fetch to use (default: the global fetch of Node 18+). */
  fetch?: typeof globalThis.fetch;
  /** Called before each wait between attempts, e.g. to log it. */
  onRetry?: (info: RetryInfo) => void;
}

/** A retry about to happen. */
export interface RetryInfo {
  /** The attempt that failed (1 is the first). */
  attempt: number;
  /** How long the client waits before the next one. */
  waitMs: number;
  error: TrawlError;
}

/** Per-call options. */
export interface CallOptions {
  /** Cancels the call, waits between attempts included. */
  signal?: AbortSignal;
  /** The Idempotency-Key of a billed call (default: a fresh one per call, the same on each of its attempts). */
  idempotencyKey?: string;
}

export interface PageOptions extends CallOptions {
  /** How the page is read (the server's default is auto). */
  render?: Render;
  /** The oldest cached response accepted, in seconds (0 to 30 days; the server's default 0 fetches the page). */
  maxAge?: number;
  /** false keeps the fetched response out of the page cache. */
  store?: boolean;
}

export interface ContentOptions extends PageOptions {
  /** true compares the answer with the previous one for the page (the change field). */
  changes?: boolean;
  /** Keeps separate change snapshots of one page under separate labels. */
  tag?: string;
}

export interface ContentOptions extends PageOptions {
  /** Added to the answer: links, images, screenshot or screenshot_full (markdown and html are always there). */
  formats?: string[];
  /** desktop (default) or mobile. */
  device?: "desktop" | "mobile";
  /** A language tag such as de-DE: Accept-Language, navigator.language and the time zone. */
  locale?: string;
  /** The ISO 3166-1 alpha-2 code of a proxy in the server's pool. */
  country?: string;
}

export interface WaitOptions {
  /** Time between polls (default 1000 ms). */
  intervalMs?: number;
  /** Give up (with a TrawlError of status 0) after this long; default: wait as long as it takes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with the job whenever its status or processed count changes, and once at the end. */
  onProgress?: (job: BulkJob) => void;
}

export interface TransactionsOptions {
  /** Transactions per page fetched, 1 to 100 (the server's default is 20). */
  perPage?: number;
  signal?: AbortSignal;
}

/** The names of each options object, so a name the client does not know (a typo, another SDK's name) is an error, not ignored. */
const TRAWL_OPTIONS = ["baseUrl", "token", "attempts", "backoffMs", "maxWaitMs", "timeoutMs", "fetch", "onRetry"] as const satisfies readonly (keyof TrawlOptions)[];
const CALL_OPTIONS = ["signal", "idempotencyKey"] as const satisfies readonly (keyof CallOptions)[];
const WAIT_OPTIONS = ["intervalMs", "timeoutMs", "signal", "onProgress"] as const satisfies readonly (keyof WaitOptions)[];
const TRANSACTIONS_OPTIONS = ["perPage", "signal"] as const satisfies readonly (keyof TransactionsOptions)[];

/** Throws a TypeError naming the first option of opts that is not one of names. */
function checkOptions(where: string, opts: object | undefined, names: readonly string[]): void {
  for (const key of Object.keys(opts ?? {})) {
    if (!names.includes(key)) throw new TypeError(`Trawl: ${where} has no option ${JSON.stringify(key)}; it takes ${names.join(", ")}`);
  }
}

type Method = "GET" | "POST" | "PATCH" | "DELETE";
type Query = Record<string, string | number | string[] | undefined>;

interface Request {
  method: Method;
  path: string;
  query?: Query;
  body?: unknown;
  /** Billed calls carry an Idempotency-Key, so a retry is never charged twice. */
  billed?: boolean;
  /** The call's options beyond CallOptions (render, limit, url, cursor, perPage). */
  takes?: readonly string[];
}

const DONE_STATES = new Set(["completed", "failed"]);

/**
 * A client of one Trawl server with one token. Every call resolves to an
 * Answer (the body in data, the credits charged and remaining, the rate
 * limit and the request id beside it) or rejects with a TrawlError.
 *
 * Calls follow the API's retry policy: after Retry-After on 429, with
 * exponential backoff on 5xx and lost connections, never on 401, 402, 403,
 * 404 or 422, nor on a 503 whose body says it is not retryable.
 */
export class Trawl {
  readonly #base: string;
  readonly #token: string;
  readonly #attempts: number;
  readonly #backoffMs: number;
  readonly #maxWaitMs: number;
  readonly #timeoutMs: number;
  readonly #fetch: typeof globalThis.fetch;
  readonly #onRetry: ((info: RetryInfo) => void) | undefined;

  constructor(opts: TrawlOptions = {}) {
    checkOptions("new Trawl()", opts, TRAWL_OPTIONS);
    const env = globalThis.process?.env ?? {};
    const base = opts.baseUrl ?? env.TRAWL_API_URL ?? "http://127.0.0.1:8080";
    const token = opts.token ?? env.TRAWL_API_KEY;
    if (!/^https?:\/\/[^/]/.test(base)) throw new TypeError("Trawl: baseUrl must be an http or https URL");
    if (!token) throw new TypeError("Trawl: no token: pass token or set TRAWL_API_KEY");
    const f = opts.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("Trawl: no fetch: use Node 18 or later, or pass one");
    this.#base = base.replace(/\/+$/, "");
    this.#token = token;
    this.#attempts = Math.max(1, Math.floor(opts.attempts ?? 5));
    this.#backoffMs = Math.max(0, opts.backoffMs ?? 1000);
    this.#maxWaitMs = Math.max(0, opts.maxWaitMs ?? 60_000);
    this.#timeoutMs = Math.max(1, opts.timeoutMs ?? 300_000);
    this.#fetch = f;
    this.#onRetry = opts.onRetry;
  }

  // --- Account and credits (free) ---

  /** The account of the token; verifies the token. */
  user(opts?: CallOptions): Promise<Answer<User>> {
    return this.#call({ method: "GET", path: "/user" }, opts);
  }

  /** Balance, limit, used and the credit status. */
  credits(opts?: CallOptions): Promise<Answer<Credits>> {
    return this.#call({ method: "GET", path: "/v1/credits" }, opts);
  }

  /** The credit status object. */
  usageStats(opts?: CallOptions): Promise<Answer<CreditStatus>> {
    return this.#call({ method: "GET", path: "/v1/credits/usage-stats" }, opts);
  }

  /** One page of credit events, newest first. */
  transactionPage(page = 1, perPage?: number, opts?: CallOptions): Promise<Answer<TransactionPage>> {
    return this.#call({ method: "GET", path: "/v1/credits/transactions", query: { page, per_page: perPage } }, opts);
  }

  /**
   * Every credit event, newest first, fetching pages as the loop asks:
   *
   *     for await (const tx of trawl.transactions({ perPage: 100 })) { ... }
   *
   * Events recorded while the loop runs push older ones onto later pages;
   * they are not yielded twice (nor are the new ones yielded).
   */
  async *transactions(opts: TransactionsOptions = {}): AsyncGenerator<Transaction, void, undefined> {
    checkOptions("transactions()", opts, TRANSACTIONS_OPTIONS);
    const call: CallOptions = opts.signal ? { signal: opts.signal } : {};
    let oldest: number | undefined;
    for (let page = 1; ; page++) {
      const { data } = await this.transactionPage(page, opts.perPage, call);
      for (const tx of data.data) {
        if (oldest !== undefined && tx.id >= oldest) continue;
        oldest = tx.id;
        yield tx;
      }
      if (data.data.length === 0 || data.current_page >= data.last_page) return;
    }
  }

  /** The price of quantity calls of a service, and whether the balance covers it. */
  previewCost(serviceType: ServiceType, quantity = 1, opts?: CallOptions): Promise<Answer<CostPreview>> {
    return this.#call({ method: "POST", path: "/v1/credits/preview-cost", body: { service_type: serviceType, quantity } }, opts);
  }

  /** Whether the balance covers quantity calls of a service. */
  canAfford(serviceType: ServiceType, quantity = 1, opts?: CallOptions): Promise<Answer<Affordability>> {
    return this.#call({ method: "POST", path: "/v1/credits/can-afford", body: { service_type: serviceType, quantity } }, opts);
  }

  /** A hosted checkout for 100 to 10,000 top-up credits, added once it is paid. */
  purchase(credits: number, opts?: CallOptions): Promise<Answer<Checkout>> {
    return this.#call({ method: "POST", path: "/v1/credits/purchase", body: { credits } }, opts);
  }

  // --- Pages (billed) ---

  /** The raw HTML of a page (1 credit). */
  scrape(url: string, opts?: PageOptions): Promise<Answer<Scraped>> {
    const query: Query = { url, render: opts?.render, ...cacheQuery(opts) };
    return this.#call({ method: "GET", path: "/v1/scrape", query, billed: true, takes: ["render", "maxAge", "store"] }, opts);
  }

  /** The main content of a page as clean HTML and Markdown with its metadata (2 credits). */
  content(url: string, opts?: ContentOptions): Promise<Answer<Content>> {
    const query: Query = {
      url,
      render: opts?.render,
      formats: opts?.formats?.join(","),
      device: opts?.device,
      locale: opts?.locale,
      country: opts?.country,
      ...cacheQuery(opts),
      changes: opts?.changes === undefined ? undefined : String(opts.changes),
      tag: opts?.tag,
    };
    return this.#call(
      { method: "GET", path: "/v1/content", query, billed: true, takes: ["render", "formats", "device", "locale", "country", "maxAge", "store", "changes", "tag"] },
      opts,
    );
  }

  /**
   * The main content of a page with formats (links, images, a screenshot),
   * actions run before the read, device, locale, headers and cookies for the
   * target's host, and a proxy country (2 credits; screenshots and actions add nothing).
   */
  contentWith(request: ContentRequest, opts?: CallOptions): Promise<Answer<Content>> {
    return this.#call({ method: "POST", path: "/v1/content", body: request, billed: true }, opts);
  }

  /**
   * A domain's URLs from its sitemaps (3 credits; free when none is found).
   * With includeLinks, when the sitemaps are missing or short, also the URLs
   * a shallow link crawl from url finds (robots.txt obeyed); sources then
   * includes "links".
   */
  map(url: string, opts?: CallOptions & { limit?: number; includeLinks?: boolean }): Promise<Answer<SiteMap>> {
    const includeLinks = opts?.includeLinks ? "true" : undefined;
    return this.#call(
      { method: "GET", path: "/v1/map", query: { url, limit: opts?.limit, include_links: includeLinks }, billed: true, takes: ["limit", "includeLinks"] },
      opts,
    );
  }

  // --- Search (billed) ---

  /** Search results from one engine (5 credits). */
  search(params: SearchParams, opts?: CallOptions): Promise<Answer<SearchResults>> {
    return this.#call({ method: "GET", path: "/v1/serp", query: searchQuery(params), billed: true }, opts);
  }

  /** Search results with the content of the top results (5 credits, plus 2 per page extracted). */
  searchContent(params: SearchContentParams, opts?: CallOptions): Promise<Answer<SearchResults>> {
    const query: Query = {
      ...searchQuery(params),
      max_content: params.maxContent,
      render: params.render,
      "whitelist_domains[]": params.whitelistDomains,
      "blacklist_domains[]": params.blacklistDomains,
      formats: params.formats?.join(","),
      device: params.device,
      locale: params.locale,
      country: params.country,
    };
    return this.#call({ method: "GET", path: "/v1/serp/content", query, billed: true }, opts);
  }

  // --- Prompt and extraction (billed) ---

  /** A language model's answer, grounded on a page when url is given (10 credits). */
  prompt(prompt: string, opts?: CallOptions & { render?: Render; url?: string }): Promise<Answer<PromptAnswer>> {
    const body = { prompt, url: opts?.url, render: opts?.render };
    return this.#call({ method: "POST", path: "/v1/prompt", body, billed: true, takes: ["url", "render"] }, opts);
  }

  /** Data from a page shaped by a JSON Schema and validated against it (10 credits; free when it does not validate). */
  extract(request: ExtractRequest, opts?: CallOptions): Promise<Answer<Extracted>> {
    return this.#call({ method: "POST", path: "/v1/extract", body: request, billed: true }, opts);
  }

  // --- Bulk jobs ---

  /**
   * Queues up to 100 URLs (or a sitemap's) for extraction, delivered by email
   * and/or a signed webhook (2 credits per URL extracted). With sync and 10
   * URLs or fewer the job runs inside the call. render (auto, the server's
   * default, always or never) reads every URL the way content() would; each
   * of the job's results then says which engine read it, and a failed one
   * its reason and whether it is retryable.
   */
  createBulkJob(request: BulkRequest, opts?: CallOptions): Promise<Answer<BulkAck>> {
    return this.#call({ method: "POST", path: "/v1/content/bulk", body: request, billed: true }, opts);
  }

  /** A job's state, progress and per-URL outcome (free). */
  bulkJob(jobId: string, opts?: CallOptions): Promise<Answer<BulkJob>> {
    return this.#call({ method: "GET", path: `/v1/content/bulk/${encodeURIComponent(jobId)}` }, opts);
  }

  /**
   * Polls a job until it is completed or failed and resolves to its last
   * state (a failed job resolves too: check data.status). onProgress hears
   * of each change on the way.
   */
  async waitForBulkJob(jobId: string, opts: WaitOptions = {}): Promise<Answer<BulkJob>> {
    checkOptions("waitForBulkJob()", opts, WAIT_OPTIONS);
    const interval = Math.max(0, opts.intervalMs ?? 1000);
    const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
    const call: CallOptions = opts.signal ? { signal: opts.signal } : {};
    let last = "";
    for (;;) {
      const answer = await this.bulkJob(jobId, call);
      const job = answer.data;
      const seen = `${job.status}/${job.processed_count}`;
      const done = DONE_STATES.has(job.status);
      if (seen !== last || done) {
        last = seen;
        opts.onProgress?.(job);
      }
      if (done) return answer;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new TrawlError({
          message: `bulk job ${jobId} is still ${job.status} (${job.processed_count} of ${job.urls_count} URLs) after ${opts.timeoutMs} ms`,
          meta: { ...metaOf(answer), status: 0 },
          retryable: true,
          body: job,
        });
      }
      await sleep(Math.min(interval, left), opts.signal);
    }
  }

  /** Creates a job and waits for its end: createBulkJob, then waitForBulkJob. */
  async runBulkJob(request: BulkRequest, opts: WaitOptions & { idempotencyKey?: string } = {}): Promise<Answer<BulkJob>> {
    checkOptions("runBulkJob()", opts, [...WAIT_OPTIONS, "idempotencyKey"]);
    const { idempotencyKey: _, ...wait } = opts;
    const create: CallOptions = {};
    if (opts.signal) create.signal = opts.signal;
    if (opts.idempotencyKey) create.idempotencyKey = opts.idempotencyKey;
    const ack = await this.createBulkJob(request, create);
    return this.waitForBulkJob(ack.data.job_id, wait);
  }

  // --- Crawls ---

  /**
   * Crawls a site from a start URL within limit pages, max_depth link hops,
   * include and exclude patterns and a scope, obeying robots.txt (2 credits
   * per page extracted; the cost of limit pages is held at submission and
   * the rest released at the end).
   */
  createCrawl(request: CrawlRequest, opts?: CallOptions): Promise<Answer<CrawlAck>> {
    return this.#call({ method: "POST", path: "/v1/crawl", body: request, billed: true }, opts);
  }

  /** A crawl's state and counts (free; never waits). */
  crawl(crawlId: string, opts?: CallOptions): Promise<Answer<CrawlStatus>> {
    return this.#call({ method: "GET", path: `/v1/crawl/${encodeURIComponent(crawlId)}` }, opts);
  }

  /**
   * One page of a crawl's extracted pages, in the order they finished (free).
   * Pass the answer's next_cursor as cursor for the next; it is null once the
   * crawl is over and every page was listed. perPage is 1 to 100 (the
   * server's default is 20).
   */
  crawlPages(crawlId: string, opts?: CallOptions & { cursor?: string; perPage?: number }): Promise<Answer<CrawlPages>> {
    const query: Query = { cursor: opts?.cursor, per_page: opts?.perPage };
    return this.#call({ method: "GET", path: `/v1/crawl/${encodeURIComponent(crawlId)}/pages`, query, takes: ["cursor", "perPage"] }, opts);
  }

  /** Cancels a crawl: the pages in flight finish, nothing new starts, the rest of the hold is released. Answers the crawl as it stands. */
  cancelCrawl(crawlId: string, opts?: CallOptions): Promise<Answer<CrawlStatus>> {
    return this.#call({ method: "DELETE", path: `/v1/crawl/${encodeURIComponent(crawlId)}` }, opts);
  }

  // --- Monitors (free; each check is charged 2 credits per page it reads) ---

  /**
   * Watches pages (urls, or a crawl) on a cron schedule (at most every 5
   * minutes): each check compares them with the previous check and reports
   * by signed webhook (callback_url) and/or email.
   */
  createMonitor(request: MonitorRequest, opts?: CallOptions): Promise<Answer<Monitor>> {
    return this.#call({ method: "POST", path: "/v1/monitors", body: request }, opts);
  }

  /** A page of the account's monitors, newest first; perPage 1 to 100 (the server's default is 20). */
  monitors(page = 1, perPage?: number, opts?: CallOptions): Promise<Answer<MonitorPage>> {
    return this.#call({ method: "GET", path: "/v1/monitors", query: { page, per_page: perPage } }, opts);
  }

  /** A monitor with its latest checks, newest first. */
  monitor(monitorId: string, opts?: CallOptions): Promise<Answer<Monitor>> {
    return this.#call({ method: "GET", path: `/v1/monitors/${encodeURIComponent(monitorId)}` }, opts);
  }

  /** Pauses (status "paused") or resumes ("active") a monitor, or changes its schedule, name, delivery or changes_only. */
  updateMonitor(monitorId: string, patch: MonitorPatch, opts?: CallOptions): Promise<Answer<Monitor>> {
    return this.#call({ method: "PATCH", path: `/v1/monitors/${encodeURIComponent(monitorId)}`, body: patch }, opts);
  }

  /** Deletes a monitor and its checks; a check already running finishes and reports nothing. */
  deleteMonitor(monitorId: string, opts?: CallOptions): Promise<Answer<null>> {
    return this.#call({ method: "DELETE", path: `/v1/monitors/${encodeURIComponent(monitorId)}` }, opts);
  }

  // --- The transport ---

  async #call<T>(req: Request, opts: CallOptions = {}): Promise<Answer<T>> {
    checkOptions(`the call ${req.method} ${req.path}`, opts, [...CALL_OPTIONS, ...(req.takes ?? [])]);
    let url = this.#base + req.path;
    const qs = encodeQuery(req.query);
    if (qs) url += "?" + qs;
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.#token}`,
      Accept: "application/json",
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers["Content-Type"] = "application/json";
    }
    if (req.billed || opts.idempotencyKey) {
      headers["Idempotency-Key"] = opts.idempotencyKey ?? `trawl-ts-${randomUUID()}`;
    }
    let backoff = this.#backoffMs;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#attempt<T>(url, req.method, headers, body, attempt, opts.signal);
      if (!(outcome instanceof TrawlError)) return outcome;
      if (!outcome.retryable || attempt >= this.#attempts) throw outcome;
      let wait: number;
      if (outcome.retryAfterMs !== null) {
        wait = outcome.retryAfterMs;
      } else {
        wait = backoff;
        backoff *= 2;
      }
      wait = Math.min(wait, this.#maxWaitMs);
      this.#onRetry?.({ attempt, waitMs: wait, error: outcome });
      await sleep(wait, opts.signal);
    }
  }

  /** One attempt: the answer, or the TrawlError it amounts to. Rethrows only when the caller cancelled. */
  async #attempt<T>(
    url: string,
    method: Method,
    headers: Record<string, string>,
    body: string | undefined,
    attempt: number,
    signal: AbortSignal | undefined,
  ): Promise<Answer<T> | TrawlError> {
    signal?.throwIfAborted();
    const ctl = new AbortController();
    const timeout = new Error(`no answer within ${this.#timeoutMs} ms`);
    const timer = setTimeout(() => ctl.abort(timeout), this.#timeoutMs);
    const cancel = () => ctl.abort(signal?.reason);
    signal?.addEventListener("abort", cancel, { once: true });
    try {
      const init: RequestInit = { method, headers, signal: ctl.signal };
      if (body !== undefined) init.body = body;
      let res: Response;
      let text: string;
      try {
        res = await this.#fetch(url, init);
        text = await res.text();
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        const cause = ctl.signal.aborted ? timeout : err;
        return new TrawlError({
          message: `no answer from Trawl: ${cause instanceof Error ? cause.message : String(cause)}`,
          meta: emptyMeta(),
          retryable: true,
          attempts: attempt,
          cause,
        });
      }
      const meta = readMeta(res);
      let parsed: unknown;
      let parseFailed = false;
      try {
        parsed = text === "" ? null : JSON.parse(text);
      } catch {
        parseFailed = true;
      }
      if (res.ok) {
        if (parseFailed) {
          return new TrawlError({ message: `Trawl answered ${res.status} with a body that is not JSON`, meta, retryable: false, body: text, attempts: attempt });
        }
        return { ...meta, data: parsed as T };
      }
      return errorOf(res, meta, parseFailed ? text : parsed, attempt);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
    }
  }
}

function searchQuery(p: SearchParams): Query {
  return { q: p.q, loc: p.loc, hl: p.hl, gl: p.gl, engine: p.engine, ...cacheQuery(p) };
}

function cacheQuery(o: { maxAge?: number; store?: boolean } | undefined): Query {
  return { max_age: o?.maxAge, store: o?.store === undefined ? undefined : String(o.store) };
}

function encodeQuery(query: Query | undefined): string {
  if (!query) return "";
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) qs.append(k, item);
    else qs.set(k, String(v));
  }
  return qs.toString();
}

function intHeader(res: Response, name: string): number | null {
  const v = res.headers.get(name);
  if (v === null || !/^-?\d+$/.test(v.trim())) return null;
  return Number(v.trim());
}

function emptyMeta(): AnswerMeta {
  return {
    status: 0,
    credits: { charged: null, remaining: null },
    rateLimit: null,
    warnings: { rateLimit: null, monthlyQuota: null },
    requestId: null,
    replayed: false,
    cache: null,
  };
}

function metaOf(a: AnswerMeta): AnswerMeta {
  return { status: a.status, credits: a.credits, rateLimit: a.rateLimit, warnings: a.warnings, requestId: a.requestId, replayed: a.replayed, cache: a.cache };
}

function readMeta(res: Response): AnswerMeta {
  const credits: CreditHeaders = { charged: intHeader(res, "X-Credits-Charged"), remaining: intHeader(res, "X-Credits-Remaining") };
  const limit = intHeader(res, "RateLimit-Limit");
  const remaining = intHeader(res, "RateLimit-Remaining");
  const rateLimit: RateLimit | null =
    limit === null || remaining === null ? null : { limit, remaining, reset: intHeader(res, "RateLimit-Reset") };
  return {
    status: res.status,
    credits,
    rateLimit,
    warnings: { rateLimit: res.headers.get("X-RateLimit-Warning"), monthlyQuota: res.headers.get("X-Monthly-Quota-Warning") },
    requestId: res.headers.get("X-Request-Id"),
    replayed: res.headers.get("Idempotent-Replayed") === "true",
    cache: cacheHeader(res.headers.get("X-Trawl-Cache")),
  };
}

/** The X-Trawl-Cache value; null when absent or not one Trawl sends. */
function cacheHeader(v: string | null): "hit" | "miss" | null {
  return v === "hit" || v === "miss" ? v : null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function fieldErrors(v: unknown): Record<string, string[]> | null {
  if (!isRecord(v)) return null;
  const out: Record<string, string[]> = {};
  for (const [k, msgs] of Object.entries(v)) {
    out[k] = Array.isArray(msgs) ? msgs.map(String) : [String(msgs)];
  }
  return out;
}

/** The error an answer that is not a 2xx amounts to. */
function errorOf(res: Response, meta: AnswerMeta, body: unknown, attempt: number): TrawlError {
  const b = isRecord(body) ? body : {};
  const message =
    (typeof b.message === "string" && b.message) || (typeof b.error === "string" && b.error) || res.statusText || `HTTP ${res.status}`;
  // 429, 409 (the same Idempotency-Key is still being answered) and 5xx may
  // succeed later; a 503 says for itself whether waiting helps.
  let retryable = res.status === 429 || res.status === 409 || res.status >= 500;
  if (res.status === 503 && typeof b.retryable === "boolean") retryable = b.retryable;
  const after = res.headers.get("Retry-After");
  const retryAfterMs = after !== null && /^\d+$/.test(after.trim()) ? Number(after.trim()) * 1000 : null;
  return new TrawlError({
    message,
    meta,
    reason: typeof b.reason === "string" ? (b.reason as FailureReason) : null,
    retryable,
    errors: fieldErrors(b.errors),
    required: num(b.required),
    balance: num(b.balance),
    retryAfterMs,
    body,
    attempts: attempt,
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
