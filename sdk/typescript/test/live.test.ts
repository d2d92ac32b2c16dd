// The client against a running Trawl server. e2e/sdk_typescript_test.go
// starts the real binary with a fixture site and sets TRAWL_SDK_LIVE_*;
// without them these tests are skipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { Trawl, TrawlError, isWebhookAuthentic, parseWebhook, type BulkJob, type BulkResult, type Render, type RetryInfo } from "@trawlhq/trawl";

const env = process.env;
const live = env.TRAWL_SDK_LIVE_URL;
const skip = live ? false : "TRAWL_SDK_LIVE_URL is not set (e2e/sdk_typescript_test.go sets it)";

function need(name: string): string {
  const v = env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

async function rejects(p: Promise<unknown>): Promise<TrawlError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof TrawlError, `want a TrawlError, got ${String(err)}`);
    return err;
  }
  assert.fail("the call succeeded");
}

interface Delivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Listens where the server's resolve override sends hooks.test and hands over the first delivery. */
function receiveOneWebhook(port: number): { delivery: Promise<Delivery>; close: () => void } {
  let deliver!: (d: Delivery) => void;
  const delivery = new Promise<Delivery>((resolve) => (deliver = resolve));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(200).end();
      deliver({ headers: req.headers, body: Buffer.concat(chunks) });
    });
  });
  server.listen(port, "127.0.0.1");
  return {
    delivery,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

test("the client against the real server", { skip, timeout: 120_000 }, async (t) => {
  const base = need("TRAWL_SDK_LIVE_URL");
  const token = need("TRAWL_SDK_LIVE_TOKEN");
  const site = need("TRAWL_SDK_LIVE_SITE");
  const hookPort = Number(need("TRAWL_SDK_LIVE_HOOK_PORT"));
  const secret = need("TRAWL_SDK_LIVE_HOOK_SECRET");
  const waits: RetryInfo[] = [];
  const trawl = new Trawl({ baseUrl: base, token, backoffMs: 50, maxWaitMs: 200, onRetry: (i) => waits.push(i) });
  const page = (i: number) => `http://${site}/blog/2026/post-${i}`;
  let balance = 90_000;

  await t.test("free calls: the account and the balance, no credits headers", async () => {
    const user = await trawl.user();
    assert.equal(user.data.email, "local@localhost");
    assert.deepEqual(user.credits, { charged: null, remaining: null });
    assert.match(user.requestId ?? "", /.+/);
    const credits = await trawl.credits();
    assert.equal(credits.data.balance, balance);
    assert.equal(credits.data.formatted_balance, "90,000");
    assert.equal(credits.data.status.is_low, false);
  });

  await t.test("content is charged 2 credits, and a replay under the same key is free", async () => {
    const a = await trawl.content(page(1), { idempotencyKey: "sdk-ts-live-1", render: "never" });
    assert.equal(a.status, 200);
    assert.match(a.data.markdown, /Story number 1 begins here/);
    assert.equal(a.data.metadata.title, "Post 1");
    assert.equal(a.data.engine, "http");
    balance -= 2;
    assert.deepEqual(a.credits, { charged: 2, remaining: balance });
    assert.equal(a.replayed, false);
    assert.ok(a.rateLimit && a.rateLimit.limit > 0 && a.rateLimit.remaining < a.rateLimit.limit);
    const again = await trawl.content(page(1), { idempotencyKey: "sdk-ts-live-1", render: "never" });
    assert.equal(again.replayed, true);
    assert.deepEqual(again.credits, { charged: 0, remaining: balance });
    assert.equal(again.data.markdown, a.data.markdown);
  });

  await t.test("a 422 names the field and is not retried", async () => {
    const err = await rejects(trawl.content("http://127.0.0.1/admin"));
    assert.equal(err.status, 422);
    assert.equal(err.retryable, false);
    assert.equal(err.attempts, 1);
    assert.ok(err.errors?.url?.length, `errors: ${JSON.stringify(err.errors)}`);
    assert.match(err.requestId ?? "", /.+/);
  });

  await t.test("a page that does not exist is a free 503 page_not_found, not retried", async () => {
    const before = waits.length;
    const err = await rejects(trawl.content(`http://${site}/no-such-page`));
    assert.equal(err.status, 503);
    assert.equal(err.reason, "page_not_found");
    assert.equal(err.retryable, false);
    assert.equal(err.attempts, 1);
    assert.deepEqual(err.credits, { charged: 0, remaining: balance });
    assert.equal(waits.length, before);
  });

  await t.test("map reads the sitemap for 3 credits", async () => {
    const m = await trawl.map(`http://${site}/`, { limit: 5 });
    assert.equal(m.data.total, 12);
    assert.equal(m.data.urls.length, 5);
    assert.equal(m.data.truncated, true);
    assert.deepEqual(m.data.sources, ["sitemap"]);
    balance -= 3;
    assert.deepEqual(m.credits, { charged: 3, remaining: balance });
  });

  await t.test("previews price calls without charging", async () => {
    const p = await trawl.previewCost("content", 12);
    assert.equal(p.data.total_cost, 24);
    assert.equal(p.data.current_balance, balance);
    const c = await trawl.canAfford("prompt", 100);
    assert.equal(c.data.can_afford, true);
    assert.equal(c.data.preview.total_cost, 1000);
  });

  await t.test("a prompt the model fails once: a retryable 503, retried, then answered and charged once", async () => {
    const before = waits.length;
    const a = await trawl.prompt("What keeps pools cool?", { url: page(1), render: "never" });
    assert.match(a.data.response, /\[e2e-model\] You asked: What keeps pools cool\?/);
    const retries = waits.slice(before);
    assert.equal(retries.length, 1, "one retry");
    assert.equal(retries[0]!.error.status, 503);
    assert.equal(retries[0]!.error.reason, "llm_failed");
    assert.equal(retries[0]!.error.retryable, true);
    assert.deepEqual(retries[0]!.error.credits, { charged: 0, remaining: balance });
    balance -= 10;
    assert.deepEqual(a.credits, { charged: 10, remaining: balance });
  });

  await t.test("scrape returns the raw page for 1 credit", async () => {
    const a = await trawl.scrape(page(2), { render: "never" });
    assert.equal(a.status, 200);
    assert.equal(a.data.statusCode, 200);
    assert.equal(a.data.url, page(2));
    assert.match(a.data.contentType, /^text\/html/);
    assert.match(a.data.html, /<footer>© Fixture<\/footer>/, "the whole page, not only its main content");
    assert.equal(a.data.engine, "http");
    balance -= 1;
    assert.deepEqual(a.credits, { charged: 1, remaining: balance });
  });

  await t.test("extract shapes the page by a JSON Schema for 10 credits", async () => {
    const schema = { type: "object", properties: { title: { type: "string" }, story: { type: "integer" } }, required: ["title", "story"] };
    const a = await trawl.extract({ url: page(4), schema, render: "never" });
    assert.equal(a.data.url, page(4));
    assert.deepEqual(a.data.data, { title: "Post 4", story: 4 }, "the model read the page it was given");
    balance -= 10;
    assert.deepEqual(a.credits, { charged: 10, remaining: balance });
    // An answer that does not validate against the schema (twice) is a free, retryable 503.
    const once = new Trawl({ baseUrl: base, token, attempts: 1 });
    const err = await rejects(once.extract({ url: page(4), schema: { type: "object", properties: { title: { type: "integer" } }, required: ["title"] }, render: "never" }));
    assert.deepEqual([err.status, err.reason, err.retryable, err.attempts], [503, "llm_failed", true, 1]);
    assert.match(err.message, /title/);
    assert.deepEqual(err.credits, { charged: 0, remaining: balance });
  });

  await t.test("search with content: the whitelist reaches the server", async () => {
    const r = await trawl.searchContent({ q: "tide pools", whitelistDomains: [site], maxContent: 2, render: "never" });
    const [first, second] = r.data.organic_results;
    assert.equal(r.data.organic_results.length, 2);
    assert.equal(first?.link, page(1));
    assert.match(first?.content?.markdown ?? "", /Story number 1/);
    assert.equal(second?.content, undefined, "a result outside the whitelist is not fetched");
    balance -= 5 + 2;
    assert.deepEqual(r.credits, { charged: 7, remaining: balance });
  });

  await t.test("a bulk job: progress while it runs, then a signed webhook that verifies", async () => {
    const hook = receiveOneWebhook(hookPort);
    try {
      const urls = Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? `http://${site}/news/${i}/` : page(i)));
      const progress: BulkJob[] = [];
      const done = await trawl.runBulkJob({ urls, callback_url: `http://hooks.test:${hookPort}/trawl` }, { intervalMs: 20, timeoutMs: 60_000, onProgress: (j) => progress.push(j) });
      assert.equal(done.data.status, "completed");
      assert.equal(done.data.success_count, 12);
      assert.ok(progress.length >= 1);
      assert.equal(progress.at(-1)?.status, "completed");
      for (let i = 1; i < progress.length; i++) {
        assert.ok(progress[i]!.processed_count >= progress[i - 1]!.processed_count, "progress never goes back");
      }
      balance -= 24;

      const { headers, body } = await Promise.race([
        hook.delivery,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no webhook delivery in 30 s")), 30_000).unref()),
      ]);
      assert.equal(headers["user-agent"], "Trawl-API/1.0");
      const ev = parseWebhook({ secret, headers, body });
      assert.equal(ev.type, "content-all-results");
      if (ev.type !== "content-all-results") return;
      assert.equal(ev.payload.job_id, done.data.job_id);
      assert.equal(ev.payload.success_count, 12);
      assert.equal(ev.payload.results.length, 12);
      assert.match(ev.payload.results.find((r) => r.url === page(1))?.content?.markdown ?? "", /Story number 1/);
      // Any change to the bytes, or another secret, and it does not verify.
      const signature = String(headers["x-trawl-signature"]);
      assert.ok(isWebhookAuthentic({ secret, body, signature }));
      assert.ok(!isWebhookAuthentic({ secret, body: Buffer.concat([body, Buffer.from(" ")]), signature }));
      assert.ok(!isWebhookAuthentic({ secret: secret + "x", body, signature }));
    } finally {
      hook.close();
    }
  });

  await t.test("a bulk job read without a browser: engine http per page, a failed URL's reason and retryable", async () => {
    const bad = await rejects(trawl.createBulkJob({ urls: [page(5)], email: true, render: "sometimes" as Render }));
    assert.equal(bad.status, 422);
    assert.ok(bad.errors?.render?.length, `errors: ${JSON.stringify(bad.errors)}`);
    const missing = `http://${site}/no-such-page`;
    const urls = [page(5), page(7), missing];
    const done = await trawl.runBulkJob({ urls, email: true, render: "never" }, { intervalMs: 20, timeoutMs: 60_000 });
    const job = done.data;
    assert.equal(job.status, "completed");
    assert.equal(job.render, "never");
    assert.deepEqual([job.success_count, job.failed_count], [2, 1]);
    const byUrl = new Map<string, BulkResult>(job.results.map((r) => [r.url, r]));
    assert.deepEqual([...byUrl.keys()].sort(), [...urls].sort());
    for (const u of [page(5), page(7)]) {
      const r = byUrl.get(u)!;
      assert.deepEqual([r.status, r.success, r.engine], ["succeeded", true, "http"], JSON.stringify(r));
      assert.equal(r.reason, undefined);
      assert.equal(r.retryable, undefined);
    }
    const failed = byUrl.get(missing)!;
    assert.deepEqual([failed.status, failed.success], ["failed", false], JSON.stringify(failed));
    assert.equal(failed.reason, "page_not_found");
    assert.equal(failed.retryable, false);
    assert.ok(failed.error);
    assert.notEqual(failed.engine, "browser", "render never reads no page in a browser");
    balance -= 4; // the failed URL is free
    assert.equal((await trawl.credits()).data.balance, balance);
  });

  await t.test("transactions: every charge once, newest first, across pages", async () => {
    const first = await trawl.transactionPage(1, 5);
    assert.equal(first.data.total, 20, "1 content, 1 map, 1 prompt, 1 scrape, 1 extract, 1 search, 12 + 2 bulk pages");
    assert.equal(first.data.last_page, 4);
    const seen: number[] = [];
    let charged = 0;
    for await (const tx of trawl.transactions({ perPage: 5 })) {
      seen.push(tx.id);
      charged += tx.credits;
    }
    assert.equal(seen.length, 20);
    assert.deepEqual([...seen].sort((a, b) => b - a), seen, "newest first");
    assert.equal(new Set(seen).size, seen.length);
    assert.equal(charged, 90_000 - balance);
    const credits = await trawl.credits();
    assert.equal(credits.data.balance, balance);
    const stats = await trawl.usageStats();
    assert.deepEqual(stats.credits, { charged: null, remaining: null }, "free: no credits headers");
    assert.deepEqual([stats.data.balance, stats.data.limit, stats.data.used], [balance, 90_000, 90_000 - balance]);
    assert.deepEqual(stats.data, credits.data.status);
  });

  await t.test("a wrong token is a 401, not retried", async () => {
    const stranger = new Trawl({ baseUrl: base, token: "trawl_" + "x".repeat(40) });
    const err = await rejects(stranger.credits());
    assert.equal(err.status, 401);
    assert.equal(err.retryable, false);
    assert.equal(err.attempts, 1);
  });

  await t.test("past the per-minute limit: 429 with Retry-After, retryable", async () => {
    const basic = new Trawl({ baseUrl: base, token: need("TRAWL_SDK_LIVE_BASIC_TOKEN"), attempts: 1 });
    let limited: TrawlError | undefined;
    for (let i = 0; i < 20 && !limited; i++) {
      try {
        await basic.content(page(1), { render: "never" });
      } catch (err) {
        if (err instanceof TrawlError && err.status === 429) limited = err;
        else throw err;
      }
    }
    assert.ok(limited, "the basic plan's 15 a minute was never reached");
    assert.equal(limited.retryable, true);
    assert.ok(limited.retryAfterMs !== null && limited.retryAfterMs > 0 && limited.retryAfterMs <= 60_000);
    assert.equal(limited.credits.charged, 0);
  });
});
