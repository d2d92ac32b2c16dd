"""Webhook signature verification: valid, tampered, stale and malformed
deliveries, checked against the scheme Trawl signs with (HMAC-SHA256 of
"<t>.<body>" under the account's secret)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import unittest

from trawl import WebhookVerificationError, parse_webhook, sign, verify_signature

SECRET = "whsec_0123456789abcdef"
BODY = json.dumps(
    {
        "job_id": "job_1",
        "processed_count": 1,
        "success_count": 1,
        "failed_count": 0,
        "results": [{"url": "https://example.com/", "success": True, "content": None, "error": None}],
        "user": {"id": 1, "email": "local@localhost"},
        "processing_completed_at": "2026-11-22T02:40:12.420000Z",
    }
).encode()


def signature(body: bytes, t: int, secret: str = SECRET) -> str:
    """Computed here independently of the SDK, as the server does."""
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


class Verify(unittest.TestCase):
    def test_valid(self) -> None:
        now = int(time.time())
        self.assertEqual(verify_signature(SECRET, signature(BODY, now), BODY), now)
        self.assertEqual(verify_signature(SECRET, signature(BODY, now), BODY.decode()), now)
        self.assertEqual(sign(SECRET, BODY, now), signature(BODY, now))

    def test_tampered_body(self) -> None:
        now = int(time.time())
        tampered = BODY.replace(b'"success_count": 1', b'"success_count": 9')
        self.assertNotEqual(tampered, BODY)
        with self.assertRaisesRegex(WebhookVerificationError, "does not match"):
            verify_signature(SECRET, signature(BODY, now), tampered)

    def test_tampered_signature_or_timestamp(self) -> None:
        now = int(time.time())
        good = signature(BODY, now)
        flipped = good[:-1] + ("0" if good[-1] != "0" else "1")
        moved = good.replace(f"t={now}", f"t={now - 1}")
        for header in (flipped, moved):
            with self.subTest(header=header), self.assertRaises(WebhookVerificationError):
                verify_signature(SECRET, header, BODY)

    def test_wrong_secret(self) -> None:
        now = int(time.time())
        with self.assertRaises(WebhookVerificationError):
            verify_signature("whsec_other", signature(BODY, now), BODY)

    def test_stale_and_future_timestamps(self) -> None:
        now = 1_800_000_000
        for t in (now - 301, now + 301, now - 86400):
            with self.subTest(t=t), self.assertRaisesRegex(WebhookVerificationError, "old or early"):
                verify_signature(SECRET, signature(BODY, t), BODY, now=now)
        self.assertEqual(verify_signature(SECRET, signature(BODY, now - 299), BODY, now=now), now - 299)
        self.assertEqual(verify_signature(SECRET, signature(BODY, now - 3000), BODY, now=now, tolerance=3600), now - 3000)

    def test_malformed(self) -> None:
        now = int(time.time())
        mac = signature(BODY, now).split("v1=")[1]
        for header in (None, "", "v1=" + mac, f"t={now}", f"t=soon,v1={mac}", "garbage"):
            with self.subTest(header=header), self.assertRaises(WebhookVerificationError):
                verify_signature(SECRET, header, BODY)
        with self.assertRaises(WebhookVerificationError):
            verify_signature("", signature(BODY, now), BODY)

    def test_several_signatures(self) -> None:
        now = int(time.time())
        good = signature(BODY, now).split("v1=")[1]
        self.assertEqual(verify_signature(SECRET, f"t={now},v1={'0' * 64},v1={good}", BODY), now)


class Parse(unittest.TestCase):
    def test_completion(self) -> None:
        now = int(time.time())
        ev = parse_webhook(SECRET, {"x-trawl-signature": signature(BODY, now), "X-Trawl-Webhook": "content-all-results"}, BODY)
        self.assertEqual((ev.event, ev.timestamp), ("content-all-results", now))
        assert ev.completion is not None
        self.assertEqual(ev.completion["success_count"], 1)
        self.assertIsNone(ev.failure)

    def test_failure(self) -> None:
        body = json.dumps({"job_id": "j", "status": "failed", "error": "x", "failed_at": "", "user": {"id": 1, "email": "e"}})
        now = int(time.time())
        ev = parse_webhook(SECRET, {"X-Trawl-Signature": signature(body.encode(), now), "X-Trawl-Webhook": "content-bulk-failure"}, body)
        assert ev.failure is not None
        self.assertEqual(ev.failure["error"], "x")

    def test_crawl_events(self) -> None:
        now = int(time.time())
        for event, payload in [
            ("crawl-started", {"crawl_id": "crawl_1", "status": "running", "url": "http://a.test/", "limit": 5, "max_depth": 3, "started_at": ""}),
            ("crawl-page", {"crawl_id": "crawl_1", "page": {"url": "http://a.test/", "depth": 0, "parent": ""}}),
            ("crawl-page-failed", {"crawl_id": "crawl_1", "url": "http://a.test/gone", "reason": "page_not_found", "error": "x", "status_code": 404, "depth": 1, "parent": "http://a.test/"}),
            ("crawl-completed", {"crawl_id": "crawl_1", "status": "completed", "succeeded": 1}),
        ]:
            body = json.dumps(payload)
            ev = parse_webhook(SECRET, {"X-Trawl-Signature": signature(body.encode(), now), "X-Trawl-Webhook": event}, body)
            self.assertEqual((ev.event, ev.payload["crawl_id"]), (event, "crawl_1"))  # type: ignore[typeddict-item]
            self.assertIsNone(ev.completion)
            self.assertIsNone(ev.failure)

    def test_refused(self) -> None:
        now = int(time.time())
        cases = [
            {"X-Trawl-Webhook": "content-all-results"},
            {"X-Trawl-Signature": signature(BODY, now), "X-Trawl-Webhook": "something-else"},
            {"X-Trawl-Signature": signature(BODY, now - 600), "X-Trawl-Webhook": "content-all-results"},
        ]
        for headers in cases:
            with self.subTest(headers=headers), self.assertRaises(WebhookVerificationError):
                parse_webhook(SECRET, headers, BODY)
        with self.assertRaisesRegex(WebhookVerificationError, "not JSON"):
            parse_webhook(SECRET, {"X-Trawl-Signature": signature(b"nope", now), "X-Trawl-Webhook": "content-all-results"}, b"nope")


if __name__ == "__main__":
    unittest.main()
