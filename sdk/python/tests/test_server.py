"""Every method of the client against a running Trawl server.

Runs when TRAWL_API_URL and TRAWL_API_KEY name a server and a token (the Go
test e2e/sdk_python_test.go starts the real binary with fixture sites, a
fake search engine and a fake model, and sets these); otherwise it is
skipped, or fails when TRAWL_SDK_REQUIRE_SERVER is set. The fixtures come
in through the environment:

    TRAWL_TEST_ARTICLE_URL   an article page            TRAWL_TEST_SITE_URL  a site with a sitemap
    TRAWL_TEST_CAPTCHA_URL   a bot-challenge page       TRAWL_TEST_MISSING_URL  a page answering 404
    TRAWL_TEST_BULK_URLS     comma-separated pages      TRAWL_TEST_SEARCH_DOMAIN  the article's host
    TRAWL_TEST_PROMPT_ANSWER what the model answers     TRAWL_TEST_EXTRACT_ANSWER  its JSON for a schema
    TRAWL_TEST_WEBHOOK_LISTEN / _URL / _SECRET  where to receive a job's webhook, its public URL, the secret
    TRAWL_TEST_BASIC_KEY     a Basic-plan token (per-minute limits)   TRAWL_TEST_NOPLAN_KEY  a token without a plan
"""

from __future__ import annotations

import http.server
import json
import os
import queue
import threading
import time
import unittest
from typing import Any, Dict, List, Tuple, cast

from trawl import Client, TrawlError, WebhookVerificationError, parse_webhook, verify_signature
from trawl.types import BulkJob

BASE = os.environ.get("TRAWL_API_URL", "")
KEY = os.environ.get("TRAWL_API_KEY", "")


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        if os.environ.get("TRAWL_SDK_REQUIRE_SERVER"):
            raise AssertionError(f"{name} is not set")
        raise unittest.SkipTest(f"{name} is not set")
    return value


def setUpModule() -> None:
    if not (BASE and KEY):
        if os.environ.get("TRAWL_SDK_REQUIRE_SERVER"):
            raise RuntimeError("TRAWL_SDK_REQUIRE_SERVER is set but TRAWL_API_URL or TRAWL_API_KEY is not")
        raise unittest.SkipTest("TRAWL_API_URL and TRAWL_API_KEY are not set: no server to test against")


class Server(unittest.TestCase):
    client: Client

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = Client(BASE, KEY, backoff=0.2)

    def balance(self) -> int:
        return self.client.credits().data["balance"]

    def assertCharged(self, r: Any, credits: int, before: int) -> None:
        self.assertEqual(r.credits_charged, credits)
        self.assertEqual(r.credits_remaining, before - credits)
        self.assertEqual(self.balance(), before - credits)

    def test_account_and_credits(self) -> None:
        user = self.client.user()
        self.assertEqual(user.status, 200)
        self.assertEqual(user.data["email"], "local@localhost")
        self.assertIsNone(user.credits_charged, "free endpoints send no credit headers")
        credits = self.client.credits().data
        self.assertEqual(credits["limit"], 90000)
        self.assertEqual(credits["status"]["balance"], credits["balance"])
        stats = self.client.usage_stats().data
        self.assertEqual(stats["limit"], 90000)
        self.assertIsInstance(stats["percentage_used"], (int, float))

    def test_cost_preview_and_purchase(self) -> None:
        p = self.client.preview_cost("content", 3).data
        self.assertEqual((p["service_type"], p["credit_cost_per_request"], p["total_cost"]), ("content", 2, 6))
        self.assertEqual(p["remaining_after"], p["current_balance"] - 6)
        a = self.client.can_afford("prompt", 2).data
        self.assertTrue(a["can_afford"])
        self.assertEqual(a["preview"]["total_cost"], 20)
        checkout = self.client.purchase(100).data
        self.assertTrue(checkout["checkout_url"].endswith("/checkout/" + checkout["session_id"]), checkout)

    def test_scrape(self) -> None:
        url = env("TRAWL_TEST_ARTICLE_URL")
        before = self.balance()
        r = self.client.scrape(url, render="never")
        self.assertEqual((r.data["statusCode"], r.data["url"]), (200, url))
        self.assertIn("Three ways to keep cool", r.data["html"])
        self.assertEqual(r.data.get("engine"), "http")
        self.assertCharged(r, 1, before)

    def test_content(self) -> None:
        before = self.balance()
        r = self.client.content(env("TRAWL_TEST_ARTICLE_URL"))
        self.assertTrue(r.data["success"])
        self.assertIn("## Three ways to keep cool", r.data["markdown"])
        self.assertTrue(r.data["metadata"]["title"])
        self.assertCharged(r, 2, before)
        self.assertTrue(r.request_id)

    def test_map(self) -> None:
        before = self.balance()
        r = self.client.map(env("TRAWL_TEST_SITE_URL"), limit=100)
        self.assertIn(env("TRAWL_TEST_ARTICLE_URL"), r.data["urls"])
        self.assertEqual(r.data["total"], len(r.data["urls"]))
        self.assertCharged(r, 3, before)

    def test_search(self) -> None:
        before = self.balance()
        r = self.client.search("tide pools", engine="google", hl="en", gl="us")
        links = [o["link"] for o in r.data["organic_results"]]
        self.assertIn(env("TRAWL_TEST_ARTICLE_URL"), links)
        self.assertEqual(r.data["organic_results"][0]["position"], 1)
        self.assertCharged(r, 5, before)

    def test_search_content(self) -> None:
        before = self.balance()
        r = self.client.search_content("tide pools", max_content=1, whitelist=[env("TRAWL_TEST_SEARCH_DOMAIN")])
        with_content = [o for o in r.data["organic_results"] if "content" in o]
        self.assertEqual(len(with_content), 1, r.data)
        self.assertIn("Three ways to keep cool", with_content[0]["content"]["markdown"])
        self.assertCharged(r, 5 + 2, before)

    def test_prompt(self) -> None:
        before = self.balance()
        r = self.client.prompt("What keeps pools cool?", url=env("TRAWL_TEST_ARTICLE_URL"))
        self.assertEqual(r.data["response"], env("TRAWL_TEST_PROMPT_ANSWER"))
        self.assertCharged(r, 10, before)

    def test_extract(self) -> None:
        before = self.balance()
        schema = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string", "minLength": 1}}}
        r = self.client.extract(env("TRAWL_TEST_ARTICLE_URL"), schema, prompt="The article's title.")
        self.assertEqual(r.data["data"], json.loads(env("TRAWL_TEST_EXTRACT_ANSWER")))
        self.assertEqual(r.data["url"], env("TRAWL_TEST_ARTICLE_URL"))
        self.assertCharged(r, 10, before)
        with self.assertRaises(TrawlError) as ctx:
            self.client.extract(env("TRAWL_TEST_ARTICLE_URL"), {"type": 7})
        self.assertEqual((ctx.exception.status, list(ctx.exception.errors)), (422, ["schema"]))

    def test_failures_are_mapped_and_free(self) -> None:
        before = self.balance()
        # A 503 the server marks not retryable comes back at once, with its reason.
        start = time.monotonic()
        with self.assertRaises(TrawlError) as ctx:
            self.client.content(env("TRAWL_TEST_CAPTCHA_URL"))
        e = ctx.exception
        self.assertEqual((e.status, e.reason, e.retryable), (503, "captcha", False))
        self.assertIn("challenge", e.message)
        self.assertEqual((e.credits_charged, e.credits_remaining), (0, before))
        self.assertLess(time.monotonic() - start, 5, "a non-retryable 503 was retried")
        with self.assertRaises(TrawlError) as ctx:
            Client(BASE, KEY, attempts=1).content(env("TRAWL_TEST_MISSING_URL"))
        self.assertEqual((ctx.exception.status, ctx.exception.reason, ctx.exception.retryable), (503, "page_not_found", False))
        with self.assertRaises(TrawlError) as ctx:
            self.client.scrape("ftp://example.com/")
        self.assertEqual((ctx.exception.status, ctx.exception.retryable), (422, False))
        self.assertIn("url", ctx.exception.errors)
        self.assertIsNone(ctx.exception.reason)
        with self.assertRaises(TrawlError) as ctx:
            self.client.bulk_job("job_does_not_exist")
        self.assertEqual(ctx.exception.status, 404)
        with self.assertRaises(TrawlError) as ctx:
            Client(BASE, "trawl_" + "0" * 40).user()
        self.assertEqual((ctx.exception.status, ctx.exception.message, ctx.exception.retryable), (401, "Unauthenticated.", False))
        self.assertEqual(self.balance(), before)

    def test_plan_required(self) -> None:
        with self.assertRaises(TrawlError) as ctx:
            Client(BASE, env("TRAWL_TEST_NOPLAN_KEY")).content(env("TRAWL_TEST_ARTICLE_URL"))
        self.assertEqual((ctx.exception.status, ctx.exception.message, ctx.exception.retryable), (402, "Plan Required", False))

    def test_rate_limit_is_retried_after_retry_after(self) -> None:
        # Basic allows 15 scrapes a minute; the 16th is a 429 with Retry-After.
        slept: List[float] = []
        client = Client(BASE, env("TRAWL_TEST_BASIC_KEY"), attempts=3, sleep=slept.append)
        url = env("TRAWL_TEST_ARTICLE_URL")
        with self.assertRaises(TrawlError) as ctx:
            for _ in range(16):
                client.scrape(url, render="never")
        e = ctx.exception
        self.assertEqual((e.status, e.retryable), (429, True))
        self.assertIsNotNone(e.retry_after)
        assert e.retry_after is not None
        self.assertTrue(0 < e.retry_after <= 60, e.retry_after)
        # Each refused attempt waited for the server's Retry-After, then tried again.
        self.assertEqual(len(slept), 2, slept)
        self.assertTrue(all(0 < s <= 60 for s in slept), slept)
        self.assertEqual(client.credits().data["used"], 15, "refused calls are not charged")

    def test_transactions_pagination(self) -> None:
        url = env("TRAWL_TEST_ARTICLE_URL")
        for _ in range(5):
            self.client.scrape(url, render="never")
        first = self.client.transactions(page=1, per_page=2).data
        self.assertGreaterEqual(first["total"], 5)
        self.assertEqual(first["last_page"], (first["total"] + 1) // 2)
        pages = list(self.client.transaction_pages(per_page=2))
        self.assertEqual([p.data["current_page"] for p in pages], list(range(1, first["last_page"] + 1)))
        events = list(self.client.iter_transactions(per_page=2))
        self.assertEqual(len(events), first["total"])
        ids = [t["id"] for t in events]
        self.assertEqual(len(set(ids)), len(ids))
        stamps = [t["created_at"] for t in events]
        self.assertEqual(stamps, sorted(stamps, reverse=True), "newest first")
        self.assertEqual(events[0]["service_type"], first["data"][0]["service_type"])
        with self.assertRaises(TrawlError) as ctx:
            self.client.transactions(per_page=101)
        self.assertEqual(ctx.exception.status, 422)

    def test_bulk_job_read_without_a_browser_with_a_failed_url(self) -> None:
        urls = env("TRAWL_TEST_BULK_URLS").split(",")[:2]
        missing = env("TRAWL_TEST_MISSING_URL")
        with self.assertRaises(TrawlError) as ctx:
            self.client.create_bulk_job(urls, email=True, render=cast(Any, "sometimes"))
        self.assertEqual(ctx.exception.status, 422)
        self.assertIn("render", ctx.exception.errors)
        before = self.balance()
        ack = self.client.create_bulk_job(urls + [missing], email=True, render="never")
        self.assertEqual((ack.status, ack.data["urls_count"]), (202, 3))
        job = self.client.wait_bulk_job(ack.data["job_id"], poll_interval=0.05, timeout=60).data
        self.assertEqual((job["status"], job["success_count"], job["failed_count"]), ("completed", 2, 1), job)
        self.assertEqual(job.get("render"), "never")
        by_url = {r["url"]: r for r in job["results"]}
        self.assertEqual(sorted(by_url), sorted(urls + [missing]))
        for u in urls:
            ok = by_url[u]
            self.assertEqual((ok["status"], ok["success"], ok.get("engine")), ("succeeded", True, "http"), ok)
            self.assertNotIn("reason", ok)
            self.assertNotIn("retryable", ok)
        failed = by_url[missing]
        self.assertEqual((failed["status"], failed["success"]), ("failed", False), failed)
        self.assertEqual((failed.get("reason"), failed.get("retryable")), ("page_not_found", False), failed)
        self.assertTrue(failed["error"], failed)
        self.assertNotEqual(failed.get("engine"), "browser", "render never reads no page in a browser")
        self.assertEqual(self.balance(), before - 2 * len(urls), "the failed URL is free")

    def test_bulk_job_with_progress_and_signed_webhook(self) -> None:
        urls = env("TRAWL_TEST_BULK_URLS").split(",")
        listen = env("TRAWL_TEST_WEBHOOK_LISTEN")
        secret = env("TRAWL_TEST_WEBHOOK_SECRET")
        deliveries: "queue.Queue[Tuple[Dict[str, str], bytes]]" = queue.Queue()

        class Hook(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                deliveries.put((dict(self.headers), body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        host, port = listen.rsplit(":", 1)
        hook = http.server.ThreadingHTTPServer((host, int(port)), Hook)
        threading.Thread(target=hook.serve_forever, args=(0.05,), daemon=True).start()
        self.addCleanup(hook.server_close)
        self.addCleanup(hook.shutdown)

        before = self.balance()
        ack = self.client.create_bulk_job(urls, callback_url=env("TRAWL_TEST_WEBHOOK_URL"))
        self.assertEqual(ack.status, 202)
        self.assertEqual((ack.data["urls_count"], ack.data["status"]), (len(urls), "queued"))
        self.assertEqual(ack.credits_charged, 0, "nothing is charged before a page is extracted")
        progress: List[BulkJob] = []
        job = self.client.wait_bulk_job(ack.data["job_id"], on_progress=progress.append, poll_interval=0.05, timeout=60).data
        self.assertEqual((job["status"], job["success_count"], job["failed_count"]), ("completed", len(urls), 0))
        self.assertGreaterEqual(len(progress), 2)
        self.assertEqual(progress[-1]["status"], "completed")
        counts = [p["processed_count"] for p in progress]
        self.assertEqual(counts, sorted(counts))
        self.assertEqual(self.balance(), before - 2 * len(urls))

        headers, body = deliveries.get(timeout=30)
        event = parse_webhook(secret, headers, body)
        self.assertEqual(event.event, "content-all-results")
        assert event.completion is not None
        self.assertEqual(event.completion.get("job_id"), ack.data["job_id"])
        self.assertEqual(sorted(r["url"] for r in event.completion["results"]), sorted(urls))
        self.assertTrue(all(r["success"] for r in event.completion["results"]))
        # The same delivery, tampered with or under another secret, is refused.
        tampered = body.replace(b'"success":true', b'"success":false', 1)
        self.assertNotEqual(tampered, body)
        with self.assertRaises(WebhookVerificationError):
            verify_signature(secret, headers.get("X-Trawl-Signature"), tampered)
        with self.assertRaises(WebhookVerificationError):
            verify_signature(secret + "x", headers.get("X-Trawl-Signature"), body)
        with self.assertRaises(WebhookVerificationError):
            verify_signature(secret, headers.get("X-Trawl-Signature"), body, now=time.time() + 600)
        job = self.client.bulk_job(ack.data["job_id"]).data
        hooks = [d for d in job["deliveries"] if d["channel"] == "webhook"]
        self.assertEqual([d.get("status_code") for d in hooks], [200])


if __name__ == "__main__":
    unittest.main()
