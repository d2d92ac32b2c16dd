import { test } from "node:test";
import assert from "node:assert/strict";
import { parseWebhook, parseWebhookRequest, isWebhookAuthentic, signWebhook, verifyWebhookSignature, WebhookVerificationError } from "@trawlhq/trawl";

// A delivery signed by Trawl's own signer (core/bulk.Sign), so the check
// agrees with the server byte for byte.
const SECRET = "whsec_0123456789abcdef";
const BODY = '{"job_id":"job_1","processed_count":1}';
const SIGNED_AT = 1767225600;
const HEADER = "t=1767225600,v1=5a0fb85f80701fe968ae9910ec10cca900b81b7f13624830ce26949c919f1d4f";
const AT = new Date(SIGNED_AT * 1000 + 30_000);

test("a delivery signed by Trawl verifies, as a string or as bytes", () => {
  assert.equal(verifyWebhookSignature({ secret: SECRET, body: BODY, signature: HEADER, now: AT }).getTime(), SIGNED_AT * 1000);
  assert.ok(isWebhookAuthentic({ secret: SECRET, body: new TextEncoder().encode(BODY), signature: HEADER, now: AT }));
  assert.ok(isWebhookAuthentic({ secret: SECRET, body: Buffer.from(BODY), signature: HEADER, now: AT }));
  assert.equal(signWebhook(SECRET, BODY, SIGNED_AT), HEADER);
});

test("a changed body, another secret or a changed signature does not verify", () => {
  const now = AT;
  assert.ok(!isWebhookAuthentic({ secret: SECRET, body: BODY.replace("1}", "2}"), signature: HEADER, now }));
  assert.ok(!isWebhookAuthentic({ secret: SECRET, body: BODY + "\n", signature: HEADER, now }));
  assert.ok(!isWebhookAuthentic({ secret: "whsec_other", body: BODY, signature: HEADER, now }));
  assert.ok(!isWebhookAuthentic({ secret: SECRET, body: BODY, signature: HEADER.replace("5a0f", "5a0e"), now }));
  // The timestamp is signed too: moving it breaks the signature.
  assert.ok(!isWebhookAuthentic({ secret: SECRET, body: BODY, signature: HEADER.replace("t=1767225600", "t=1767225601"), now }));
});

test("old and future deliveries are refused unless the tolerance allows them", () => {
  const late = new Date(SIGNED_AT * 1000 + 301_000);
  const early = new Date(SIGNED_AT * 1000 - 301_000);
  assert.throws(() => verifyWebhookSignature({ secret: SECRET, body: BODY, signature: HEADER, now: late }), /too long ago/);
  assert.throws(() => verifyWebhookSignature({ secret: SECRET, body: BODY, signature: HEADER, now: early }), /too long ago/);
  assert.ok(isWebhookAuthentic({ secret: SECRET, body: BODY, signature: HEADER, now: late, toleranceSeconds: 600 }));
  assert.ok(isWebhookAuthentic({ secret: SECRET, body: BODY, signature: HEADER, now: new Date(0), toleranceSeconds: 0 }));
  // By default the check is against the clock.
  assert.ok(!isWebhookAuthentic({ secret: SECRET, body: BODY, signature: HEADER }));
  const fresh = signWebhook(SECRET, BODY, Math.floor(Date.now() / 1000));
  assert.ok(isWebhookAuthentic({ secret: SECRET, body: BODY, signature: fresh }));
});

test("malformed headers are refused with WebhookVerificationError", () => {
  for (const bad of [undefined, null, "", "t=1767225600", "v1=5a0f", "t=abc,v1=" + "0".repeat(64), "t=1767225600,v1=zz", "garbage"]) {
    assert.throws(() => verifyWebhookSignature({ secret: SECRET, body: BODY, signature: bad, now: AT }), WebhookVerificationError, String(bad));
  }
});

test("one matching v1 among several is enough", () => {
  const two = `t=${SIGNED_AT},v1=${"0".repeat(64)},v1=${HEADER.split("v1=")[1]}`;
  assert.ok(isWebhookAuthentic({ secret: SECRET, body: BODY, signature: two, now: AT }));
});

test("parseWebhook returns the event and payload from fetch Headers or node headers", () => {
  const body = JSON.stringify({ job_id: "job_1", processed_count: 2, success_count: 1, failed_count: 1, results: [], user: { id: 1, email: "a@example.com" }, processing_completed_at: "2026-01-01T00:00:00Z" });
  const t = Math.floor(AT.getTime() / 1000);
  const sig = signWebhook(SECRET, body, t);
  const ev = parseWebhook({ secret: SECRET, body, now: AT, headers: new Headers({ "X-Trawl-Webhook": "content-all-results", "X-Trawl-Signature": sig }) });
  assert.equal(ev.type, "content-all-results");
  if (ev.type === "content-all-results") assert.equal(ev.payload.success_count, 1);
  const failure = JSON.stringify({ job_id: "job_2", status: "failed", error: "The sitemap could not be read.", failed_at: "2026-01-01T00:00:00Z", user: { id: 1, email: "a@example.com" } });
  const ev2 = parseWebhook({ secret: SECRET, body: Buffer.from(failure), now: AT, headers: { "x-trawl-webhook": "content-bulk-failure", "x-trawl-signature": signWebhook(SECRET, failure, t) } });
  assert.equal(ev2.type, "content-bulk-failure");
  if (ev2.type === "content-bulk-failure") assert.equal(ev2.payload.error, "The sitemap could not be read.");
  const failed = JSON.stringify({ crawl_id: "crawl_1", url: "http://a.test/gone", reason: "page_not_found", error: "Not found.", status_code: 404, depth: 1, parent: "http://a.test/" });
  const ev3 = parseWebhook({ secret: SECRET, body: failed, now: AT, headers: { "x-trawl-webhook": "crawl-page-failed", "x-trawl-signature": signWebhook(SECRET, failed, t) } });
  assert.equal(ev3.type, "crawl-page-failed");
  if (ev3.type === "crawl-page-failed") assert.equal(ev3.payload.reason, "page_not_found");
  assert.throws(() => parseWebhook({ secret: SECRET, body, now: AT, headers: { "x-trawl-webhook": "something-else", "x-trawl-signature": sig } }), /no known event/);
  assert.throws(() => parseWebhook({ secret: SECRET, body, now: AT, headers: { "x-trawl-webhook": "content-all-results" } }), /missing or malformed/);
  const notJSON = "not json";
  assert.throws(() => parseWebhook({ secret: SECRET, body: notJSON, now: AT, headers: { "x-trawl-webhook": "content-all-results", "x-trawl-signature": signWebhook(SECRET, notJSON, t) } }), /not JSON/);
});

test("parseWebhookRequest reads a fetch Request's bytes and verifies them", async () => {
  const body = JSON.stringify({ job_id: "job_3", status: "failed", error: "The sitemap could not be read.", failed_at: "2026-01-01T00:00:00Z", user: { id: 1, email: "a@example.com" } });
  const t = Math.floor(AT.getTime() / 1000);
  const request = (b: string) =>
    new Request("http://hooks.example.com/trawl", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Trawl-Webhook": "content-bulk-failure", "X-Trawl-Signature": signWebhook(SECRET, body, t) },
      body: b,
    });
  const ev = await parseWebhookRequest(request(body), SECRET, { now: AT });
  assert.equal(ev.type, "content-bulk-failure");
  assert.equal(ev.payload.job_id, "job_3");
  await assert.rejects(parseWebhookRequest(request(body.replace("job_3", "job_4")), SECRET, { now: AT }), WebhookVerificationError);
});
