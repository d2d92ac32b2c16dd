import { test } from "node:test";
import assert from "node:assert/strict";
import { Trawl, TrawlError, type BulkJob, type BulkResult, type CrawlPage, type CrawlStatus, type Engine, type Reason, type RetryInfo, type Transaction } from "@trawlhq/trawl";
import { json, serve, type Handler, type TestServer } from "./server.js";

const TOKEN = "trawl_" + "a".repeat(40);

async function withServer(handler: Handler, fn: (s: TestServer) => Promise<void>): Promise<void> {
  const s = await serve(handler);
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

/** A client that retries quickly and records each planned wait. */
function client(s: TestServer, waits: RetryInfo[] = [], extra: Partial<ConstructorParameters<typeof Trawl>[0]> = {}): Trawl {
  return new Trawl({ baseUrl: s.url + "/", token: TOKEN, backoffMs: 5, maxWaitMs: 30, onRetry: (i) => waits.push(i), ...extra });
}

const content = {
  url: "https://example.com/post",
  success: true,
  statusCode: 200,
  errorMessage: null,
  html: "<article><p>Tides</p></article>",
  markdown: "Tides",
  metadata: { title: "Post", description: "", keywords: "", author: "", language: "en", favicon: "", ogImage: "", ogImageWidth: "", ogImageHeight: "", ogTitle: "", ogType: "" },
};

async function rejects(p: Promise<unknown>): Promise<TrawlError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof TrawlError, `want a TrawlError, got ${String(err)}`);
    return err;
  }
  assert.fail("the call succeeded");
}

test("an answer carries its body, the credits headers, the rate limit and the request id", async () => {
  await withServer(
    (_req, res) =>
      json(res, 200, { ...content, later_field: 1 }, {
        "X-Credits-Charged": "2",
        "X-Credits-Remaining": "89998",
        "RateLimit-Limit": "180",
        "RateLimit-Remaining": "179",
        "RateLimit-Reset": "60",
        "X-Monthly-Quota-Warning": "low balance",
        "X-Request-Id": "req-1",
      }),
    async (s) => {
      const a = await client(s).content("https://example.com/post", { render: "never" });
      assert.equal(a.status, 200);
      assert.equal(a.data.markdown, "Tides");
      assert.equal(a.data.metadata.language, "en");
      assert.deepEqual(a.credits, { charged: 2, remaining: 89998 });
      assert.deepEqual(a.rateLimit, { limit: 180, remaining: 179, reset: 60 });
      assert.deepEqual(a.warnings, { rateLimit: null, monthlyQuota: "low balance" });
      assert.equal(a.requestId, "req-1");
      assert.equal(a.replayed, false);
      const req = s.seen[0]!;
      assert.equal(req.method, "GET");
      assert.equal(req.path, "/v1/content");
      assert.equal(req.query.get("url"), "https://example.com/post");
      assert.equal(req.query.get("render"), "never");
      assert.equal(req.headers.authorization, `Bearer ${TOKEN}`);
      assert.match(String(req.headers["idempotency-key"]), /^trawl-ts-[0-9a-f-]{36}$/);
    },
  );
});

test("free calls carry no Idempotency-Key and answer null credits", async () => {
  await withServer(
    (_req, res) => json(res, 200, { id: 1, name: "Local", email: "local@localhost", email_verified_at: null, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" }),
    async (s) => {
      const a = await client(s).user();
      assert.equal(a.data.email, "local@localhost");
      assert.deepEqual(a.credits, { charged: null, remaining: null });
      assert.equal(a.rateLimit, null);
      assert.equal(s.seen[0]!.headers["idempotency-key"], undefined);
      assert.equal(s.seen[0]!.path, "/user");
    },
  );
});

test("search parameters and domain lists reach the query; bodies are JSON", async () => {
  await withServer(
    (req, res) => {
      if (req.path === "/v1/prompt") return json(res, 200, { response: "Two." });
      json(res, 200, { search_information: { query_displayed: "tide pools", total_results: 1, time_taken: 0.1 }, organic_results: [], related_questions: [], related_searches: [] });
    },
    async (s) => {
      const t = client(s);
      await t.searchContent({ q: "tide pools", engine: "bing", maxContent: 3, whitelistDomains: ["*.example.com", "example.org"], blacklistDomains: ["bad.example.com"] });
      const q = s.seen[0]!.query;
      assert.equal(s.seen[0]!.path, "/v1/serp/content");
      assert.equal(q.get("q"), "tide pools");
      assert.equal(q.get("engine"), "bing");
      assert.equal(q.get("max_content"), "3");
      assert.deepEqual(q.getAll("whitelist_domains[]"), ["*.example.com", "example.org"]);
      assert.deepEqual(q.getAll("blacklist_domains[]"), ["bad.example.com"]);
      assert.equal(q.has("loc"), false);
      const p = await t.prompt("How many tides a day?", { url: "https://example.com/tides" });
      assert.equal(p.data.response, "Two.");
      assert.equal(s.seen[1]!.method, "POST");
      assert.equal(s.seen[1]!.headers["content-type"], "application/json");
      assert.deepEqual(JSON.parse(s.seen[1]!.body), { prompt: "How many tides a day?", url: "https://example.com/tides" });
    },
  );
});

test("a retryable 503 is retried with doubling backoff, under one Idempotency-Key, until the attempts run out", async () => {
  await withServer(
    (_req, res) =>
      json(res, 503, { message: "The site did not answer in time.", reason: "timeout", retryable: true }, { "X-Credits-Charged": "0", "X-Credits-Remaining": "500" }),
    async (s) => {
      const waits: RetryInfo[] = [];
      const err = await rejects(client(s, waits, { maxWaitMs: 1000 }).scrape("https://example.com/"));
      assert.equal(err.status, 503);
      assert.equal(err.reason, "timeout");
      assert.equal(err.retryable, true);
      assert.equal(err.message, "The site did not answer in time.");
      assert.deepEqual(err.credits, { charged: 0, remaining: 500 });
      assert.equal(err.attempts, 5);
      assert.equal(s.seen.length, 5);
      assert.deepEqual(waits.map((w) => w.waitMs), [5, 10, 20, 40]);
      const keys = new Set(s.seen.map((r) => r.headers["idempotency-key"]));
      assert.equal(keys.size, 1, "every attempt carries the same key");
    },
  );
});

test("backoff is capped by maxWaitMs", async () => {
  await withServer(
    (_req, res) => json(res, 500, { message: "Internal Server Error" }),
    async (s) => {
      const waits: RetryInfo[] = [];
      await rejects(client(s, waits, { backoffMs: 10, maxWaitMs: 25 }).credits());
      assert.deepEqual(waits.map((w) => w.waitMs), [10, 20, 25, 25]);
    },
  );
});

test("a 503 that will not go away is not retried", async () => {
  await withServer(
    (_req, res) => json(res, 503, { message: "The site answered with a captcha.", reason: "captcha", retryable: false }, { "X-Credits-Charged": "0", "X-Credits-Remaining": "98" }),
    async (s) => {
      const waits: RetryInfo[] = [];
      const err = await rejects(client(s, waits).content("https://example.com/"));
      assert.equal(err.reason, "captcha");
      assert.equal(err.retryable, false);
      assert.equal(err.attempts, 1);
      assert.deepEqual(err.credits, { charged: 0, remaining: 98 });
      assert.equal(s.seen.length, 1);
      assert.equal(waits.length, 0);
    },
  );
});

test("429 waits Retry-After, not the backoff, then succeeds", async () => {
  let calls = 0;
  await withServer(
    (_req, res) => {
      if (++calls < 3) return json(res, 429, { message: "Too Many Requests" }, { "Retry-After": "1" });
      json(res, 200, content, { "X-Credits-Charged": "2", "X-Credits-Remaining": "10" });
    },
    async (s) => {
      const waits: RetryInfo[] = [];
      const a = await client(s, waits, { backoffMs: 1, maxWaitMs: 1500 }).content("https://example.com/");
      assert.equal(a.data.url, "https://example.com/post");
      assert.deepEqual(waits.map((w) => w.waitMs), [1000, 1000]);
      assert.equal(waits[0]!.error.status, 429);
      assert.equal(waits[0]!.error.retryAfterMs, 1000);
      assert.equal(s.seen.length, 3);
    },
  );
});

test("401, 402, 404 and 422 are not retried and say what is wrong", async () => {
  const answers: Record<string, [number, unknown]> = {
    "/user": [401, { message: "Unauthenticated." }],
    "/v1/content": [402, { message: "Insufficient Credits", required: 2, balance: 1 }],
    "/v1/credits": [404, { error: "Account not found." }],
    "/v1/map": [422, { message: "The limit must be between 1 and 1000.", errors: { limit: ["The limit must be between 1 and 1000."] } }],
  };
  await withServer(
    (req, res) => {
      const [status, body] = answers[req.path]!;
      json(res, status, body, { "X-Request-Id": "r-" + status });
    },
    async (s) => {
      const waits: RetryInfo[] = [];
      const t = client(s, waits);
      const e401 = await rejects(t.user());
      assert.equal(e401.status, 401);
      assert.equal(e401.message, "Unauthenticated.");
      assert.equal(e401.retryable, false);
      assert.equal(e401.requestId, "r-401");
      const e402 = await rejects(t.content("https://example.com/"));
      assert.equal(e402.status, 402);
      assert.equal(e402.required, 2);
      assert.equal(e402.balance, 1);
      const e404 = await rejects(t.credits());
      assert.equal(e404.status, 404);
      assert.equal(e404.message, "Account not found.");
      const e422 = await rejects(t.map("https://example.com/", { limit: 5000 }));
      assert.equal(e422.status, 422);
      assert.deepEqual(e422.errors, { limit: ["The limit must be between 1 and 1000."] });
      assert.equal(e422.reason, null);
      assert.equal(s.seen.length, 4);
      assert.equal(waits.length, 0);
    },
  );
});

test("a 502 with an HTML body is retried and reported by its status", async () => {
  await withServer(
    (_req, res) => {
      res.writeHead(502, { "Content-Type": "text/html" });
      res.end("<html><body>Bad gateway</body></html>");
    },
    async (s) => {
      const err = await rejects(client(s, [], { attempts: 2 }).credits());
      assert.equal(err.status, 502);
      assert.equal(err.message, "Bad Gateway");
      assert.equal(err.retryable, true);
      assert.equal(err.attempts, 2);
      assert.equal(err.body, "<html><body>Bad gateway</body></html>");
    },
  );
});

test("a 409 (the same key still being answered) is retried and the stored answer returned", async () => {
  let calls = 0;
  await withServer(
    (_req, res) => {
      if (++calls === 1) return json(res, 409, { message: "A request with this Idempotency-Key is still in progress." });
      json(res, 200, content, { "Idempotent-Replayed": "true", "X-Credits-Charged": "0", "X-Credits-Remaining": "98" });
    },
    async (s) => {
      const a = await client(s).content("https://example.com/", { idempotencyKey: "order-42" });
      assert.equal(a.replayed, true);
      assert.deepEqual(a.credits, { charged: 0, remaining: 98 });
      assert.deepEqual(s.seen.map((r) => r.headers["idempotency-key"]), ["order-42", "order-42"]);
    },
  );
});

test("a lost connection is retried, and reported with status 0 once the attempts run out", async () => {
  let calls = 0;
  await withServer(
    (_req, res) => {
      calls++;
      res.socket?.destroy();
    },
    async (s) => {
      const waits: RetryInfo[] = [];
      const err = await rejects(client(s, waits, { attempts: 3 }).credits());
      assert.equal(err.status, 0);
      assert.equal(err.retryable, true);
      assert.equal(err.attempts, 3);
      assert.ok(err.cause !== undefined);
      assert.equal(calls, 3);
      assert.deepEqual(waits.map((w) => w.waitMs), [5, 10]);
    },
  );
});

test("an attempt that takes longer than timeoutMs is abandoned and retried", async () => {
  let calls = 0;
  await withServer(
    (_req, res) => {
      if (++calls === 1) return; // never answers
      json(res, 200, { balance: 1, formatted_balance: "1", limit: 1, used: 0, status: {} });
    },
    async (s) => {
      const started = Date.now();
      const a = await client(s, [], { timeoutMs: 100 }).credits();
      assert.equal(a.data.balance, 1);
      assert.equal(calls, 2);
      assert.ok(Date.now() - started < 2000);
    },
  );
});

test("aborting the signal stops a call while it waits between attempts", async () => {
  await withServer(
    (_req, res) => json(res, 503, { message: "busy", reason: "busy", retryable: true }, { "Retry-After": "30" }),
    async (s) => {
      const ctl = new AbortController();
      const t = new Trawl({ baseUrl: s.url, token: TOKEN, onRetry: () => setTimeout(() => ctl.abort(new Error("stop")), 20) });
      const started = Date.now();
      await assert.rejects(t.content("https://example.com/", { signal: ctl.signal }), /stop/);
      assert.ok(Date.now() - started < 2000, "the 30 s wait was cut short");
      assert.equal(s.seen.length, 1);
    },
  );
});

function tx(id: number): Transaction {
  return { id, service_type: "content", service_name: "Content", credits: 2, balance_after: 1000 - id, created_at: "2026-01-01T00:00:00Z", metadata: {} };
}

test("transactions() walks every page, newest first, without repeating events pushed down by new ones", async () => {
  // Events 1..7, newest first, three per page. After page 1 is read, two
  // new events (8, 9) arrive and shift everything down by two.
  let events = [7, 6, 5, 4, 3, 2, 1];
  await withServer(
    (req, res) => {
      const page = Number(req.query.get("page"));
      const per = Number(req.query.get("per_page"));
      const data = events.slice((page - 1) * per, page * per).map(tx);
      const last = Math.max(1, Math.ceil(events.length / per));
      json(res, 200, { data, current_page: page, last_page: last, per_page: per, total: events.length, from: null, to: null, links: { first: "", last: "", prev: null, next: null } });
      if (page === 1) events = [9, 8, ...events];
    },
    async (s) => {
      const ids: number[] = [];
      for await (const t of client(s).transactions({ perPage: 3 })) ids.push(t.id);
      assert.deepEqual(ids, [7, 6, 5, 4, 3, 2, 1]);
      assert.deepEqual(s.seen.map((r) => r.query.get("page")), ["1", "2", "3"]);
    },
  );
});

test("transactions() stops when the loop stops", async () => {
  await withServer(
    (req, res) => {
      const page = Number(req.query.get("page"));
      json(res, 200, { data: [tx(100 - page * 2), tx(99 - page * 2)], current_page: page, last_page: 50, per_page: 2, total: 100, from: null, to: null, links: { first: "", last: "", prev: null, next: null } });
    },
    async (s) => {
      let n = 0;
      for await (const _ of client(s).transactions({ perPage: 2 })) if (++n === 3) break;
      assert.equal(s.seen.length, 2);
    },
  );
});

function job(status: BulkJob["status"], processed: number): BulkJob {
  return { job_id: "job_1", status, url_source: "urls", delivery_method: "webhook", urls_count: 4, processed_count: processed, success_count: processed, failed_count: 0, queued_at: "2026-01-01T00:00:00Z", results: [], deliveries: [] };
}

test("waitForBulkJob polls until the job ends and reports each change of progress", async () => {
  const states = [job("queued", 0), job("queued", 0), job("processing", 1), job("processing", 1), job("processing", 3), job("completed", 4)];
  let poll = 0;
  await withServer(
    (_req, res) => json(res, 200, states[Math.min(poll++, states.length - 1)]),
    async (s) => {
      const seen: string[] = [];
      const a = await client(s).waitForBulkJob("job_1", { intervalMs: 5, onProgress: (j) => seen.push(`${j.status}:${j.processed_count}`) });
      assert.equal(a.data.status, "completed");
      assert.deepEqual(seen, ["queued:0", "processing:1", "processing:3", "completed:4"]);
      assert.equal(s.seen.length, 6);
      assert.equal(s.seen[0]!.path, "/v1/content/bulk/job_1");
    },
  );
});

test("waitForBulkJob gives up after timeoutMs", async () => {
  await withServer(
    (_req, res) => json(res, 200, job("processing", 2)),
    async (s) => {
      // The first poll of a fresh process can take a few hundred ms on a busy
      // machine; the time left after it must still allow further polls.
      const started = Date.now();
      const err = await rejects(client(s).waitForBulkJob("job_1", { intervalMs: 20, timeoutMs: 1500 }));
      assert.ok(Date.now() - started >= 1500, "it waited the whole timeoutMs");
      assert.equal(err.status, 0);
      assert.match(err.message, /still processing \(2 of 4 URLs\)/);
      assert.ok(s.seen.length >= 2);
    },
  );
});

test("runBulkJob creates the job once and waits for it", async () => {
  let polls = 0;
  await withServer(
    (req, res) => {
      if (req.method === "POST") {
        return json(res, 202, { message: "queued", job_id: "job 1/x", urls_count: 4, url_source: "urls", delivery_method: "webhook", estimated_completion_time: "about 10 seconds", status: "queued", queued_at: "2026-01-01T00:00:00Z" });
      }
      json(res, 200, ++polls < 2 ? job("processing", 2) : job("completed", 4));
    },
    async (s) => {
      const a = await client(s).runBulkJob({ urls: ["https://example.com/a"], callback_url: "https://hooks.example.com/trawl" }, { intervalMs: 5 });
      assert.equal(a.data.status, "completed");
      assert.equal(s.seen[0]!.path, "/v1/content/bulk");
      assert.deepEqual(JSON.parse(s.seen[0]!.body), { urls: ["https://example.com/a"], callback_url: "https://hooks.example.com/trawl" });
      assert.ok(s.seen[0]!.headers["idempotency-key"]);
      assert.equal(s.seen[1]!.path, "/v1/content/bulk/job%201%2Fx");
    },
  );
});

test("createBulkJob sends render, and the job's results carry engine, reason and retryable", async () => {
  const results: BulkResult[] = [
    { url: "https://example.com/a", status: "succeeded", success: true, statusCode: 200, error: null, engine: "http" },
    { url: "https://example.com/gone", status: "failed", success: false, statusCode: 404, error: "The page was not found.", reason: "page_not_found", retryable: false },
    { url: "https://example.com/slow", status: "failed", success: false, statusCode: 0, error: "The site did not answer in time.", reason: "timeout", retryable: true },
  ];
  await withServer(
    (req, res) => {
      if (req.method === "POST") {
        return json(res, 202, { message: "queued", job_id: "job_r", urls_count: 3, url_source: "urls", delivery_method: "email", estimated_completion_time: "about 10 seconds", status: "queued", queued_at: "2026-01-01T00:00:00Z" });
      }
      json(res, 200, { ...job("completed", 3), render: "never", success_count: 1, failed_count: 2, results });
    },
    async (s) => {
      const urls = results.map((r) => r.url);
      const a = await client(s).runBulkJob({ urls, email: true, render: "never" }, { intervalMs: 5 });
      assert.deepEqual(JSON.parse(s.seen[0]!.body), { urls, email: true, render: "never" });
      assert.equal(a.data.render, "never");
      const retry = a.data.results.filter((r) => r.status === "failed" && r.retryable).map((r) => r.url);
      assert.deepEqual(retry, ["https://example.com/slow"]);
      const reasons: (Reason | undefined)[] = a.data.results.map((r) => r.reason);
      assert.deepEqual(reasons, [undefined, "page_not_found", "timeout"]);
      const engines: (Engine | undefined)[] = a.data.results.map((r) => r.engine);
      assert.deepEqual(engines, ["http", undefined, undefined]);
    },
  );
});

function crawlStatus(status: CrawlStatus["status"], succeeded: number): CrawlStatus {
  return {
    crawl_id: "crawl 1/x",
    status,
    url: "https://example.com/",
    limit: 10,
    max_depth: 2,
    discovered: 3,
    queued: 0,
    in_flight: status === "running" ? 1 : 0,
    succeeded,
    failed: 0,
    skipped: { robots: 1, filter: 0, scope: 0, depth: 0, duplicate: 0, limit: 0 },
    credits_charged: 2 * succeeded,
    queued_at: "2026-01-01T00:00:00Z",
    started_at: "2026-01-01T00:00:01Z",
    completed_at: status === "running" ? null : "2026-01-01T00:00:05Z",
    error: null,
  };
}

test("crawls: created once with its body, read, listed page by page with the cursor, cancelled", async () => {
  const pages: CrawlPage[] = [
    { ...content, url: "https://example.com/", depth: 0, parent: "" },
    { ...content, url: "https://example.com/post", depth: 1, parent: "https://example.com/" },
  ];
  await withServer(
    (req, res) => {
      if (req.method === "POST") {
        return json(res, 202, { crawl_id: "crawl 1/x", status: "queued", url: "https://example.com/", limit: 10, max_depth: 2, queued_at: "2026-01-01T00:00:00Z" }, { "X-Credits-Charged": "0" });
      }
      if (req.method === "DELETE") return json(res, 200, crawlStatus("cancelled", 2));
      if (req.path.endsWith("/pages")) {
        const first = req.query.get("cursor") === null;
        return json(res, 200, { crawl_id: "crawl 1/x", pages: first ? [pages[0]] : [pages[1]], next_cursor: first ? "c1" : null });
      }
      if (req.path === "/v1/crawl/missing") return json(res, 404, { error: "Crawl not found." });
      json(res, 200, crawlStatus("running", 1));
    },
    async (s) => {
      const c = client(s);
      const body = { url: "https://example.com/", limit: 10, max_depth: 2, include: ["/blog/**"], scope: "domain" as const, sitemap: "skip" as const, render: "never" as const };
      const ack = await c.createCrawl(body);
      assert.equal(ack.status, 202);
      assert.equal(ack.data.crawl_id, "crawl 1/x");
      assert.equal(s.seen[0]!.method, "POST");
      assert.equal(s.seen[0]!.path, "/v1/crawl");
      assert.deepEqual(JSON.parse(s.seen[0]!.body), body);
      assert.match(String(s.seen[0]!.headers["idempotency-key"]), /^trawl-ts-/);

      const st = await c.crawl(ack.data.crawl_id);
      assert.equal(st.data.status, "running");
      assert.equal(st.data.skipped.robots, 1);
      assert.equal(s.seen[1]!.method, "GET");
      assert.equal(s.seen[1]!.path, "/v1/crawl/crawl%201%2Fx");
      assert.equal(s.seen[1]!.headers["idempotency-key"], undefined);

      const urls: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const p = await c.crawlPages(ack.data.crawl_id, { perPage: 1, ...(cursor === undefined ? {} : { cursor }) });
        urls.push(...p.data.pages.map((pg) => `${pg.depth}:${pg.url}<${pg.parent}`));
        if (p.data.next_cursor === null) break;
        cursor = p.data.next_cursor;
      }
      assert.deepEqual(urls, ["0:https://example.com/<", "1:https://example.com/post<https://example.com/"]);
      assert.equal(s.seen[2]!.path, "/v1/crawl/crawl%201%2Fx/pages");
      assert.equal(s.seen[2]!.query.get("per_page"), "1");
      assert.equal(s.seen[2]!.query.get("cursor"), null);
      assert.equal(s.seen[3]!.query.get("cursor"), "c1");

      const cancelled = await c.cancelCrawl(ack.data.crawl_id);
      assert.equal(cancelled.data.status, "cancelled");
      assert.equal(cancelled.data.credits_charged, 4);
      assert.equal(s.seen[4]!.method, "DELETE");
      assert.equal(s.seen[4]!.path, "/v1/crawl/crawl%201%2Fx");
      assert.equal(s.seen[4]!.body, "");

      const missing = await rejects(c.crawl("missing"));
      assert.equal(missing.status, 404);
      assert.equal(missing.message, "Crawl not found.");
      assert.equal(missing.retryable, false);
      assert.equal(s.seen.length, 6, "a 404 is not retried");

      const loose = (o: object) => o as never;
      await assert.rejects(c.crawlPages("crawl_1", loose({ per_page: 5 })), /no option "per_page"; it takes signal, idempotencyKey, cursor, perPage/);
      assert.equal(s.seen.length, 6);
    },
  );
});

test("the constructor refuses a base URL that is not http(s) and a missing token", () => {
  assert.throws(() => new Trawl({ baseUrl: "", token: TOKEN }), /baseUrl/);
  assert.throws(() => new Trawl({ baseUrl: "127.0.0.1:8080", token: TOKEN }), /baseUrl/);
  const saved = process.env.TRAWL_API_KEY;
  delete process.env.TRAWL_API_KEY;
  try {
    assert.throws(() => new Trawl({ baseUrl: "http://127.0.0.1:1", token: "" }), /TRAWL_API_KEY/);
    assert.throws(() => new Trawl({ baseUrl: "http://127.0.0.1:1" }), /TRAWL_API_KEY/);
  } finally {
    if (saved !== undefined) process.env.TRAWL_API_KEY = saved;
  }
});

test("an option the client does not know is an error, not ignored", async () => {
  // Options as plain JavaScript would pass them, past the types.
  const loose = (o: object) => o as never;
  assert.throws(() => new Trawl(loose({ baseUrl: "http://127.0.0.1:1", token: TOKEN, retries: 3 })), /no option "retries"; it takes .*attempts/);
  await withServer(
    (_req, res) => json(res, 200, content),
    async (s) => {
      const c = client(s);
      await assert.rejects(c.content("https://example.com/post", loose({ format: "html" })), /GET \/v1\/content has no option "format"; it takes signal, idempotencyKey, render/);
      await assert.rejects(c.credits(loose({ render: "never" })), /no option "render"/);
      await assert.rejects(c.map("https://example.com/", loose({ limt: 5 })), /no option "limt"; it takes signal, idempotencyKey, limit/);
      await assert.rejects(c.waitForBulkJob("job_1", loose({ interval: 5 })), /waitForBulkJob\(\) has no option "interval"/);
      await assert.rejects(c.transactions(loose({ per_page: 5 })).next(), /transactions\(\) has no option "per_page"/);
      assert.equal(s.seen.length, 0, "a call with an unknown option reached the server");
      // Known options still work.
      const a = await c.content("https://example.com/post", { render: "never", idempotencyKey: "k1" });
      assert.equal(a.data.markdown, "Tides");
    },
  );
});

test("TRAWL_API_URL and TRAWL_API_KEY are the defaults", async () => {
  await withServer(
    (_req, res) => json(res, 200, { balance: 5, formatted_balance: "5", limit: 6000, used: 5995, status: {} }),
    async (s) => {
      const saved = { url: process.env.TRAWL_API_URL, key: process.env.TRAWL_API_KEY };
      process.env.TRAWL_API_URL = s.url + "/";
      process.env.TRAWL_API_KEY = "trawl_" + "e".repeat(40);
      try {
        const a = await new Trawl().credits();
        assert.equal(a.data.balance, 5);
        assert.equal(s.seen[0]!.headers.authorization, "Bearer trawl_" + "e".repeat(40));
        assert.equal(s.seen[0]!.path, "/v1/credits");
      } finally {
        for (const [k, v] of [["TRAWL_API_URL", saved.url], ["TRAWL_API_KEY", saved.key]] as const) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
      }
    },
  );
});

test("a base URL with a path prefix keeps it", async () => {
  await withServer(
    (_req, res) => json(res, 200, { response: "ok" }),
    async (s) => {
      await new Trawl({ baseUrl: s.url + "/trawl/", token: TOKEN }).prompt("hi");
      assert.equal(s.seen[0]!.path, "/trawl/v1/prompt");
    },
  );
});

test("an answer says whether it came from the page cache (X-Trawl-Cache)", async () => {
  let n = 0;
  await withServer(
    (_req, res) => {
      n++;
      const headers: Record<string, string> = n === 1 ? { "X-Trawl-Cache": "hit" } : n === 2 ? { "X-Trawl-Cache": "miss" } : {};
      json(res, 200, { ...content, cache: { hit: n === 1, cached_at: "2026-06-15T12:00:00Z", age: 600 }, change: { status: "same", previous_at: "2026-06-15T11:00:00Z" } }, headers);
    },
    async (s) => {
      const c = client(s);
      const hit = await c.content("https://example.com/post", { maxAge: 3600, changes: true, tag: "daily" });
      assert.equal(hit.cache, "hit");
      assert.equal(hit.data.cache?.age, 600);
      assert.equal(hit.data.change?.status, "same");
      const q = s.seen[0]!.query;
      assert.equal(q.get("max_age"), "3600");
      assert.equal(q.get("changes"), "true");
      assert.equal(q.get("tag"), "daily");
      assert.equal((await c.search({ q: "tides", maxAge: 60, store: false })).cache, "miss");
      assert.equal(s.seen[1]!.query.get("max_age"), "60");
      assert.equal(s.seen[1]!.query.get("store"), "false");
      assert.equal((await c.user()).cache, null);
    },
  );
});

test("monitors: create, list, read, pause and delete", async () => {
  const monitor = {
    id: "mon_0123456789abcdef01234567",
    name: "Pricing",
    urls: ["https://example.com/pricing"],
    crawl: null,
    schedule: "0 */6 * * *",
    callback_url: "https://hooks.example.org/trawl",
    email: false,
    changes_only: true,
    status: "active",
    paused_reason: null,
    next_run_at: "2026-06-15T18:00:00.000000Z",
    created_at: "2026-06-15T12:00:00.000000Z",
    updated_at: "2026-06-15T12:00:00.000000Z",
  } as const;
  await withServer(
    (req, res) => {
      if (req.method === "DELETE") {
        res.writeHead(204).end();
        return;
      }
      if (req.method === "GET" && req.path === "/v1/monitors") {
        json(res, 200, { data: [monitor], current_page: 1, last_page: 1, per_page: 20, total: 1, from: 1, to: 1, links: {} });
        return;
      }
      const paused = req.method === "PATCH" ? { status: "paused", paused_reason: "Paused by its owner.", next_run_at: null } : {};
      json(res, req.method === "POST" ? 201 : 200, { ...monitor, ...paused });
    },
    async (s) => {
      const c = client(s);
      const created = await c.createMonitor({ urls: ["https://example.com/pricing"], schedule: "0 */6 * * *", callback_url: "https://hooks.example.org/trawl" });
      assert.equal(created.status, 201);
      assert.equal(created.data.id, monitor.id);
      assert.deepEqual(JSON.parse(s.seen[0]!.body), { urls: ["https://example.com/pricing"], schedule: "0 */6 * * *", callback_url: "https://hooks.example.org/trawl" });
      assert.equal(s.seen[0]!.headers["idempotency-key"], undefined);
      const list = await c.monitors(1, 50);
      assert.equal(list.data.data[0]!.schedule, "0 */6 * * *");
      assert.equal(s.seen[1]!.query.get("per_page"), "50");
      await c.monitor(monitor.id);
      assert.equal(s.seen[2]!.path, `/v1/monitors/${monitor.id}`);
      const paused = await c.updateMonitor(monitor.id, { status: "paused" });
      assert.equal(paused.data.status, "paused");
      assert.equal(paused.data.next_run_at, null);
      assert.equal(s.seen[3]!.method, "PATCH");
      assert.deepEqual(JSON.parse(s.seen[3]!.body), { status: "paused" });
      const gone = await c.deleteMonitor(monitor.id);
      assert.equal(gone.status, 204);
      assert.equal(gone.data, null);
    },
  );
});
