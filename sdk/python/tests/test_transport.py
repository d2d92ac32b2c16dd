"""The retry policy, error mapping and credit headers, against a local HTTP
server that answers what each test scripts."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
import unittest
from typing import Any, Dict, List, Optional, Tuple

from trawl import Client, TrawlConnectionError, TrawlError

Answer = Tuple[int, Dict[str, str], Any]


class Scripted:
    """An HTTP server answering each request with the next scripted answer
    and recording what it received."""

    def __init__(self) -> None:
        self.answers: List[Answer] = []
        self.requests: List[Dict[str, Any]] = []
        # delay_first: seconds the first request waits before its answer.
        self.delay_first = 0.0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def handle_one(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                outer.requests.append(
                    {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
                )
                status, headers, payload = outer.answers.pop(0) if outer.answers else (500, {}, {"message": "unscripted"})
                if len(outer.requests) == 1 and outer.delay_first:
                    time.sleep(outer.delay_first)
                raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PATCH = do_DELETE = handle_one

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


CONTENT = {
    "url": "https://example.com/",
    "success": True,
    "statusCode": 200,
    "errorMessage": None,
    "html": "<p>Hi</p>",
    "markdown": "Hi",
    "metadata": {},
}


class RetryPolicy(unittest.TestCase):
    def setUp(self) -> None:
        self.srv = Scripted()
        self.addCleanup(self.srv.close)
        self.slept: List[float] = []
        self.client = Client(self.srv.url, "trawl_test", sleep=self.slept.append)

    def test_429_waits_retry_after_and_keeps_the_idempotency_key(self) -> None:
        self.srv.answers = [
            (429, {"Retry-After": "7"}, {"message": "Too Many Requests"}),
            (200, {"X-Credits-Charged": "2", "X-Credits-Remaining": "98", "X-Request-Id": "r1"}, CONTENT),
        ]
        r = self.client.content("https://example.com/")
        self.assertEqual(r.data["markdown"], "Hi")
        self.assertEqual((r.status, r.credits_charged, r.credits_remaining, r.request_id), (200, 2, 98, "r1"))
        self.assertEqual(self.slept, [7.0])
        keys = [q["headers"].get("Idempotency-Key") for q in self.srv.requests]
        self.assertEqual(len(keys), 2)
        self.assertTrue(keys[0] and keys[0].startswith("trawl-py-"), keys)
        self.assertEqual(keys[0], keys[1], "a retry must carry the same Idempotency-Key")
        self.assertEqual(self.srv.requests[0]["headers"]["Authorization"], "Bearer trawl_test")
        self.assertEqual(self.srv.requests[0]["path"], "/v1/content?url=https%3A%2F%2Fexample.com%2F")

    def test_503_with_retry_after_waits_for_it(self) -> None:
        self.srv.answers = [
            (503, {"Retry-After": "2"}, {"message": "busy", "reason": "busy", "retryable": True}),
            (200, {}, {"response": "ok"}),
        ]
        self.assertEqual(self.client.prompt("hi").data["response"], "ok")
        self.assertEqual(self.slept, [2.0])

    def test_5xx_backs_off_exponentially_then_gives_up(self) -> None:
        self.srv.answers = [
            (503, {"X-Credits-Charged": "0", "X-Credits-Remaining": "50"}, {"message": "site down", "reason": "timeout", "retryable": True})
        ] * 5
        with self.assertRaises(TrawlError) as ctx:
            self.client.scrape("https://example.com/")
        e = ctx.exception
        self.assertEqual((e.status, e.reason, e.retryable, e.message), (503, "timeout", True, "site down"))
        self.assertEqual((e.credits_charged, e.credits_remaining), (0, 50))
        self.assertEqual(self.slept, [1.0, 2.0, 4.0, 8.0])
        self.assertEqual(len(self.srv.requests), 5)

    def test_500_then_success(self) -> None:
        self.srv.answers = [(500, {}, {"message": "Server Error"}), (502, {}, b"bad gateway"), (200, {}, {"response": "ok"})]
        self.assertEqual(self.client.prompt("hi").data["response"], "ok")
        self.assertEqual(self.slept, [1.0, 2.0])

    def test_wait_is_capped(self) -> None:
        client = Client(self.srv.url, "trawl_test", sleep=self.slept.append, max_wait=3)
        self.srv.answers = [(429, {"Retry-After": "120"}, {"message": "Too Many Requests"}), (200, {}, {"response": "ok"})]
        client.prompt("hi")
        self.assertEqual(self.slept, [3.0])

    def test_attempts_option(self) -> None:
        client = Client(self.srv.url, "trawl_test", sleep=self.slept.append, attempts=2, backoff=0.5)
        self.srv.answers = [(503, {}, {"message": "x", "reason": "unavailable", "retryable": True})] * 3
        with self.assertRaises(TrawlError):
            client.credits()
        self.assertEqual((len(self.srv.requests), self.slept), (2, [0.5]))

    def test_unknown_option_is_an_error(self) -> None:
        # retries is another client's name for attempts: refused, not ignored.
        with self.assertRaises(TypeError):
            Client(self.srv.url, "trawl_test", retries=2)  # type: ignore[call-arg]
        with self.assertRaises(TypeError):
            Client(self.srv.url, "trawl_test").content("https://example.com/", format="html")  # type: ignore[call-arg]
        self.assertEqual(self.srv.requests, [])

    def test_never_retried(self) -> None:
        cases = [
            (401, {"message": "Unauthenticated."}),
            (402, {"message": "Insufficient Credits", "required": 2, "balance": 1}),
            (403, {"message": "Forbidden"}),
            (404, {"error": "Not found.", "message": "Not found."}),
            (409, {"message": "A request with this Idempotency-Key is still in progress."}),
            (422, {"message": "The url field is required.", "errors": {"url": ["The url field is required."]}}),
            (503, {"message": "captcha", "reason": "captcha", "retryable": False}),
        ]
        for status, body in cases:
            with self.subTest(status=status):
                self.srv.requests.clear()
                self.slept.clear()
                self.srv.answers = [(status, {"X-Request-Id": "rq"}, body), (200, {}, CONTENT)]
                with self.assertRaises(TrawlError) as ctx:
                    self.client.content("https://example.com/")
                e = ctx.exception
                self.assertEqual((e.status, e.retryable, e.request_id), (status, False, "rq"))
                self.assertEqual(len(self.srv.requests), 1, f"{status} was retried")
                self.assertEqual(self.slept, [])
                self.srv.answers.clear()

    def test_error_fields(self) -> None:
        self.srv.answers = [(402, {}, {"message": "Insufficient Credits", "required": 10, "balance": 3})]
        with self.assertRaises(TrawlError) as ctx:
            self.client.prompt("hi")
        self.assertEqual((ctx.exception.required, ctx.exception.balance, ctx.exception.reason), (10, 3, None))
        self.srv.answers = [(422, {}, {"message": "bad", "errors": {"url": ["The url must be http or https."]}})]
        with self.assertRaises(TrawlError) as ctx:
            self.client.scrape("ftp://x")
        self.assertEqual(ctx.exception.errors, {"url": ["The url must be http or https."]})
        self.assertEqual(str(ctx.exception), "trawl: 422 bad")
        self.srv.answers = [(404, {}, {"error": "Job not found."})]
        with self.assertRaises(TrawlError) as ctx:
            self.client.bulk_job("job_x/../y")
        self.assertEqual(ctx.exception.message, "Job not found.")
        self.assertEqual(self.srv.requests[-1]["path"], "/v1/content/bulk/job_x%2F..%2Fy")

    def test_non_json_error(self) -> None:
        self.srv.answers = [(413, {}, b"<html>too big</html>")]
        with self.assertRaises(TrawlError) as ctx:
            self.client.prompt("x" * 10)
        self.assertEqual((ctx.exception.status, ctx.exception.message), (413, "Request Entity Too Large"))

    def test_free_calls_carry_no_key_and_replays_show(self) -> None:
        self.srv.answers = [(200, {"Idempotent-Replayed": "true", "X-Credits-Charged": "0"}, {"balance": 1}), (200, {}, {})]
        r = self.client.credits()
        self.assertTrue(r.replayed)
        self.assertNotIn("Idempotency-Key", self.srv.requests[0]["headers"])
        self.assertIsNone(self.client.usage_stats().credits_charged)

    def test_redirect_is_not_followed(self) -> None:
        self.srv.answers = [(302, {"Location": "http://elsewhere.invalid/"}, {"message": "moved"})]
        with self.assertRaises(TrawlError) as ctx:
            self.client.user()
        self.assertEqual(ctx.exception.status, 302)
        self.assertEqual(len(self.srv.requests), 1)

    def test_unreachable_server_is_retried_then_raised(self) -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()  # nothing listens there now
        client = Client(f"http://127.0.0.1:{port}", "trawl_test", sleep=self.slept.append, attempts=3)
        with self.assertRaises(TrawlConnectionError) as ctx:
            client.user()
        self.assertEqual((ctx.exception.status, ctx.exception.retryable), (0, True))
        self.assertEqual(self.slept, [1.0, 2.0])

    def test_409_after_a_lost_answer_waits_for_that_attempt(self) -> None:
        # The first attempt times out on the client while the server runs it;
        # the retry, with the same key, is told the call is in progress (409),
        # and the next one gets the stored answer.
        client = Client(self.srv.url, "trawl_test", sleep=self.slept.append, timeout=0.3)
        self.srv.delay_first = 1.0
        self.srv.answers = [
            (200, {}, {"response": "late"}),
            (409, {}, {"message": "A request with this Idempotency-Key is still in progress."}),
            (200, {"Idempotent-Replayed": "true", "X-Credits-Charged": "0"}, {"response": "stored"}),
        ]
        r = client.prompt("hi")
        self.assertEqual((r.data["response"], r.replayed), ("stored", True))
        self.assertEqual(self.slept, [1.0, 2.0])
        keys = {q["headers"].get("Idempotency-Key") for q in self.srv.requests}
        self.assertEqual(len(keys), 1)

    def test_409_without_a_lost_answer_is_not_retried(self) -> None:
        self.srv.answers = [(409, {}, {"message": "in progress"}), (200, {}, {"response": "ok"})]
        with self.assertRaises(TrawlError) as ctx:
            self.client.prompt("hi")
        self.assertEqual((ctx.exception.status, ctx.exception.retryable, len(self.srv.requests)), (409, False, 1))

    def test_request_bodies(self) -> None:
        self.srv.answers = [(202, {}, {"job_id": "job_1"}), (200, {}, {"data": {}, "url": "u"})]
        r = self.client.create_bulk_job(["https://a.example/"], email=True, callback_url="https://h.example/", render="never")
        self.assertEqual(r.status, 202)
        self.assertEqual(
            json.loads(self.srv.requests[0]["body"]),
            {"urls": ["https://a.example/"], "email": True, "callback_url": "https://h.example/", "render": "never"},
        )
        self.assertEqual(self.srv.requests[0]["headers"]["Content-Type"], "application/json")
        self.client.extract("https://a.example/", {"type": "object"}, prompt="p")
        self.assertEqual(
            json.loads(self.srv.requests[1]["body"]), {"url": "https://a.example/", "schema": {"type": "object"}, "prompt": "p"}
        )

    def test_bulk_page_options(self) -> None:
        self.srv.answers = [(202, {}, {"job_id": "job_1"})]
        self.client.create_bulk_job(
            ["https://a.example/"], email=True, page_options={"formats": ["links"], "headers": {"X-Team": "docs"}}
        )
        self.assertEqual(
            json.loads(self.srv.requests[0]["body"]),
            {"urls": ["https://a.example/"], "email": True, "formats": ["links"], "headers": {"X-Team": "docs"}},
        )

    def test_cache_and_changes(self) -> None:
        page = dict(CONTENT, cache={"hit": True, "cached_at": "2026-06-15T12:00:00Z", "age": 600}, change={"status": "same", "previous_at": None})
        self.srv.answers = [(200, {"X-Trawl-Cache": "hit"}, page), (200, {}, {}), (202, {}, {"job_id": "j"}), (202, {}, {"crawl_id": "c"}), (200, {}, {"data": {}, "url": "u"})]
        r = self.client.content("https://a.example/", max_age=3600, store=False, changes=True, tag="daily")
        self.assertEqual((r.cache, r.data["cache"]["age"], r.data["change"]["status"]), ("hit", 600, "same"))
        self.assertEqual(self.srv.requests[0]["path"], "/v1/content?url=https%3A%2F%2Fa.example%2F&max_age=3600&store=false&changes=true&tag=daily")
        self.assertIsNone(self.client.credits().cache)
        self.client.create_bulk_job(["https://a.example/"], email=True, max_age=60, changes=True, tag="t")
        self.assertEqual(
            json.loads(self.srv.requests[2]["body"]), {"urls": ["https://a.example/"], "email": True, "max_age": 60, "changes": True, "tag": "t"}
        )
        self.client.create_crawl("https://a.example/", store=False, changes=True)
        self.assertEqual(json.loads(self.srv.requests[3]["body"]), {"url": "https://a.example/", "store": False, "changes": True})
        self.client.extract("https://a.example/", {"type": "object"}, changes=True, tag="w")
        self.assertEqual(
            json.loads(self.srv.requests[4]["body"]), {"url": "https://a.example/", "schema": {"type": "object"}, "changes": True, "tag": "w"}
        )

    def test_monitors(self) -> None:
        mid = "mon_0123456789abcdef01234567"
        mon: dict[str, object] = {"id": mid, "name": "", "urls": ["https://a.example/"], "crawl": None, "schedule": "@daily",
               "callback_url": None, "email": True, "changes_only": True, "status": "active", "paused_reason": None,
               "next_run_at": "2026-06-16T00:00:00.000000Z", "created_at": "2026-06-15T12:00:00.000000Z", "updated_at": "2026-06-15T12:00:00.000000Z"}
        paused = dict(mon, status="paused", paused_reason="Paused by its owner.", next_run_at=None)
        page = {"data": [mon], "current_page": 1, "last_page": 1, "per_page": 5, "total": 1, "from": 1, "to": 1, "links": {}}
        self.srv.answers = [(201, {}, mon), (200, {}, page), (200, {}, dict(mon, checks=[])), (200, {}, paused), (204, {}, b"")]
        r = self.client.create_monitor("@daily", urls=["https://a.example/"], email=True)
        self.assertEqual((r.status, r.data["id"]), (201, mid))
        self.assertEqual(json.loads(self.srv.requests[0]["body"]), {"schedule": "@daily", "urls": ["https://a.example/"], "email": True})
        self.assertNotIn("Idempotency-Key", self.srv.requests[0]["headers"])
        self.assertEqual(self.client.monitors(per_page=5).data["total"], 1)
        self.assertEqual(self.srv.requests[1]["path"], "/v1/monitors?per_page=5")
        self.assertEqual(self.client.monitor(mid).data.get("checks"), [])
        r = self.client.update_monitor(mid, status="paused")
        self.assertEqual((r.data["status"], r.data["next_run_at"]), ("paused", None))
        self.assertEqual((self.srv.requests[3]["method"], json.loads(self.srv.requests[3]["body"])), ("PATCH", {"status": "paused"}))
        self.assertEqual(self.client.delete_monitor(mid).status, 204)
        self.assertEqual((self.srv.requests[4]["method"], self.srv.requests[4]["path"]), ("DELETE", "/v1/monitors/" + mid))

    def test_search_content_query(self) -> None:
        self.srv.answers = [(200, {}, {})]
        self.client.search_content("tide pools", engine="bing", max_content=2, whitelist=["a.test", "b.test"], blacklist=["c.test"])
        self.assertEqual(
            self.srv.requests[0]["path"],
            "/v1/serp/content?q=tide+pools&engine=bing&max_content=2&whitelist_domains%5B%5D=a.test"
            "&whitelist_domains%5B%5D=b.test&blacklist_domains%5B%5D=c.test",
        )


class Pagination(unittest.TestCase):
    def test_iterates_every_page_once_each_event_once(self) -> None:
        srv = Scripted()
        self.addCleanup(srv.close)

        def page(n: int, ids: List[int], last: int) -> Answer:
            data = [{"id": i, "service_type": "content", "service_name": "Content", "credits": 2, "balance_after": 0,
                     "created_at": "", "metadata": {}} for i in ids]
            return (200, {}, {"data": data, "current_page": n, "last_page": last, "per_page": 2, "total": 5,
                              "from": None, "to": None, "links": {}})

        # A new event arrives after the first page: 4 shows up again on page 2.
        srv.answers = [page(1, [5, 4], 3), page(2, [4, 3], 3), page(3, [2, 1], 3)]
        ids = [t["id"] for t in Client(srv.url, "k").iter_transactions(per_page=2)]
        self.assertEqual(ids, [5, 4, 3, 2, 1])
        self.assertEqual([q["path"] for q in srv.requests],
                         [f"/v1/credits/transactions?page={n}&per_page=2" for n in (1, 2, 3)])


class Crawl(unittest.TestCase):
    def test_calls(self) -> None:
        srv = Scripted()
        self.addCleanup(srv.close)
        status = {"crawl_id": "crawl_1", "status": "cancelled", "url": "https://a.example/", "limit": 5, "max_depth": 1,
                  "discovered": 3, "queued": 0, "in_flight": 0, "succeeded": 1, "failed": 0,
                  "skipped": {"robots": 1, "filter": 0, "scope": 1, "depth": 0, "duplicate": 0, "limit": 0},
                  "credits_charged": 2, "queued_at": "", "started_at": "", "completed_at": "", "error": None}
        page = dict(CONTENT, depth=1, parent="https://example.com/")
        srv.answers = [
            (202, {"X-Credits-Charged": "0", "X-Credits-Remaining": "90"},
             {"crawl_id": "crawl_1", "status": "queued", "url": "https://a.example/", "limit": 5, "max_depth": 1,
              "queued_at": ""}),
            (200, {}, {"crawl_id": "crawl_1", "pages": [page], "next_cursor": "c2"}),
            (200, {}, {"crawl_id": "crawl_1", "pages": [], "next_cursor": None}),
            (200, {}, status),
            (200, {}, status),
        ]
        client = Client(srv.url, "k")
        ack = client.create_crawl("https://a.example/", limit=5, max_depth=1, include=["/blog/**"], exclude=["*.pdf"],
                                  scope="domain", sitemap="skip", ignore_query_params=["session"], render="never",
                                  callback_url="https://h.example/", email=False)
        self.assertEqual((ack.status, ack.data["crawl_id"], ack.credits_remaining), (202, "crawl_1", 90))
        first = client.crawl_pages("crawl_1", per_page=1)
        self.assertEqual((first.data["pages"][0]["depth"], first.data["next_cursor"]), (1, "c2"))
        cursor = first.data["next_cursor"]
        assert cursor is not None
        self.assertIsNone(client.crawl_pages("crawl_1", cursor=cursor).data["next_cursor"])
        self.assertEqual(client.crawl("crawl_1").data["skipped"]["scope"], 1)
        self.assertEqual(client.cancel_crawl("crawl/1").data["status"], "cancelled")

        sent = [(q["method"], q["path"]) for q in srv.requests]
        self.assertEqual(sent, [
            ("POST", "/v1/crawl"),
            ("GET", "/v1/crawl/crawl_1/pages?per_page=1"),
            ("GET", "/v1/crawl/crawl_1/pages?cursor=c2"),
            ("GET", "/v1/crawl/crawl_1"),
            ("DELETE", "/v1/crawl/crawl%2F1"),
        ])
        self.assertEqual(json.loads(srv.requests[0]["body"]), {
            "url": "https://a.example/", "limit": 5, "max_depth": 1, "include": ["/blog/**"], "exclude": ["*.pdf"],
            "scope": "domain", "sitemap": "skip", "ignore_query_params": ["session"], "render": "never",
            "callback_url": "https://h.example/", "email": False,
        })
        # The submission is billed (it holds credits), so it carries a key; the rest are free.
        self.assertTrue(srv.requests[0]["headers"].get("Idempotency-Key"))
        self.assertEqual([q["headers"].get("Idempotency-Key") for q in srv.requests[1:]], [None] * 4)


class BulkWait(unittest.TestCase):
    def test_progress_is_reported_on_change(self) -> None:
        srv = Scripted()
        self.addCleanup(srv.close)

        def job(status: str, done: int) -> Answer:
            return (200, {}, {"job_id": "job_1", "status": status, "urls_count": 3, "processed_count": done,
                              "success_count": done, "failed_count": 0, "deliveries": [], "results": []})

        srv.answers = [job("queued", 0), job("processing", 1), job("processing", 1), job("processing", 3), job("completed", 3)]
        slept: List[float] = []
        seen: List[Tuple[str, int]] = []
        r = Client(srv.url, "k", sleep=slept.append).wait_bulk_job(
            "job_1", on_progress=lambda j: seen.append((j["status"], j["processed_count"])), poll_interval=0.25
        )
        self.assertEqual(r.data["status"], "completed")
        self.assertEqual(seen, [("queued", 0), ("processing", 1), ("processing", 3), ("completed", 3)])
        self.assertEqual(slept, [0.25] * 4)

    def test_timeout(self) -> None:
        srv = Scripted()
        self.addCleanup(srv.close)
        srv.answers = [(200, {}, {"job_id": "j", "status": "processing", "urls_count": 3, "processed_count": 0,
                                  "success_count": 0, "failed_count": 0, "deliveries": [], "results": []})] * 50
        with self.assertRaises(TimeoutError):
            Client(srv.url, "k").wait_bulk_job("j", poll_interval=0.05, timeout=0.2)


if __name__ == "__main__":
    unittest.main()
