"""The examples run as a user would run them: as scripts, with the SDK on
PYTHONPATH, against the server named by TRAWL_API_URL (the webhook receiver
against signed deliveries posted here)."""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request
from typing import Dict, List

from trawl import sign

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def run_env(extra: Dict[str, str]) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def needs_server() -> None:
    if not (os.environ.get("TRAWL_API_URL") and os.environ.get("TRAWL_API_KEY")):
        if os.environ.get("TRAWL_SDK_REQUIRE_SERVER"):
            raise AssertionError("TRAWL_API_URL and TRAWL_API_KEY are not set")
        raise unittest.SkipTest("TRAWL_API_URL and TRAWL_API_KEY are not set")


def example(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args], env=run_env({}), capture_output=True, text=True, timeout=120
    )


class AgainstTheServer(unittest.TestCase):
    def test_first_call(self) -> None:
        needs_server()
        url = os.environ["TRAWL_TEST_ARTICLE_URL"]
        out = example("first_call.py", url)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("Three ways to keep cool", out.stdout)
        self.assertRegex(out.stderr, r"2 credits charged, \d+ remaining")
        failed = example("first_call.py", os.environ["TRAWL_TEST_CAPTCHA_URL"])
        self.assertEqual(failed.returncode, 1)
        self.assertIn("reason captcha, retryable False", failed.stderr)

    def test_bulk_wait(self) -> None:
        needs_server()
        urls: List[str] = os.environ["TRAWL_TEST_BULK_URLS"].split(",")
        out = example("bulk_wait.py", *urls)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn(f"completed: {len(urls)}/{len(urls)} processed, 0 failed", out.stdout)
        self.assertEqual(out.stdout.count("succeeded 200 http "), len(urls), out.stdout)

    def test_transactions(self) -> None:
        needs_server()
        out = example("transactions.py")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r"^balance [\d,]+ of 90000")
        self.assertGreater(len(out.stdout.splitlines()), 1)


class WebhookReceiver(unittest.TestCase):
    def test_accepts_signed_refuses_tampered(self) -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        secret = "whsec_example"
        proc = subprocess.Popen(
            [sys.executable, str(EXAMPLES / "webhook_receiver.py"), str(port)],
            env=run_env({"TRAWL_WEBHOOK_SECRET": secret}),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.kill)
        assert proc.stdout is not None
        self.assertIn("listening", proc.stdout.readline())
        body = json.dumps(
            {"job_id": "job_1", "processed_count": 2, "success_count": 2, "failed_count": 0, "results": [],
             "user": {"id": 1, "email": "e"}, "processing_completed_at": "2026-11-22T02:40:12Z"}
        ).encode()

        def post(data: bytes, signature: str) -> int:
            req = urllib.request.Request(
                f"http://127.0.0.1:{port}/", data=data, method="POST",
                headers={"X-Trawl-Signature": signature, "X-Trawl-Webhook": "content-all-results",
                         "Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(req, timeout=10) as res:
                    return int(res.status)
            except urllib.error.HTTPError as e:
                return e.code

        now = int(time.time())
        self.assertEqual(post(body, sign(secret, body, now)), 200)
        self.assertIn("job job_1: 2 of 2 pages extracted", proc.stdout.readline())
        self.assertEqual(post(body.replace(b'"success_count": 2', b'"success_count": 3'), sign(secret, body, now)), 400)
        self.assertEqual(post(body, sign(secret, body, now - 3600)), 400)
        self.assertEqual(post(body, sign("whsec_other", body, now)), 400)


if __name__ == "__main__":
    unittest.main()
