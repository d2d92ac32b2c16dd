"""Verification of the webhooks Trawl posts when a bulk job ends.

Each delivery carries ``X-Trawl-Signature: t=<unix seconds>,v1=<hex>``, where
the hex is the HMAC-SHA256 of ``"<t>.<body>"`` under the account's webhook
secret (``trawl webhooks secret --email E``, or the dashboard). Verify the
raw body as received, before parsing it, and refuse deliveries signed more
than five minutes away from now: a replayed request carries an old ``t``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Any, List, Literal, Mapping, Optional, Union, cast, get_args

from .errors import WebhookVerificationError
from .types import BulkCompletion, BulkFailure, CrawlPageEvent, CrawlPageFailed, CrawlStarted, CrawlStatus, MonitorCheckReport

__all__ = [
    "EVENT_HEADER",
    "SIGNATURE_HEADER",
    "TOLERANCE",
    "WebhookEvent",
    "parse_webhook",
    "sign",
    "verify_signature",
]

SIGNATURE_HEADER = "X-Trawl-Signature"
EVENT_HEADER = "X-Trawl-Webhook"
TOLERANCE = 300.0
"""Seconds a signature's timestamp may be away from now (five minutes)."""

EventName = Literal[
    "content-all-results",
    "content-bulk-failure",
    "crawl-started",
    "crawl-page",
    "crawl-page-failed",
    "crawl-completed",
    "monitor-check",
]
_EVENTS = get_args(EventName)

Payload = Union[BulkCompletion, BulkFailure, CrawlStarted, CrawlPageEvent, CrawlPageFailed, CrawlStatus, MonitorCheckReport]


def _bytes(body: Union[bytes, bytearray, memoryview, str]) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else bytes(body)


def _mac(secret: str, timestamp: str, body: bytes) -> str:
    return hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()


def sign(secret: str, body: Union[bytes, str], timestamp: Optional[int] = None) -> str:
    """The ``X-Trawl-Signature`` value Trawl sends for body at timestamp (now by default)."""
    t = str(int(time.time()) if timestamp is None else timestamp)
    return f"t={t},v1={_mac(secret, t, _bytes(body))}"


def verify_signature(
    secret: str,
    header: Optional[str],
    body: Union[bytes, bytearray, memoryview, str],
    *,
    tolerance: float = TOLERANCE,
    now: Optional[float] = None,
) -> int:
    """Checks a delivery's ``X-Trawl-Signature`` against its raw body.

    Returns the signature's timestamp; raises ``WebhookVerificationError``
    when the header is missing or malformed, no ``v1`` signature matches, or
    the timestamp is more than ``tolerance`` seconds away from ``now``."""
    if not secret:
        raise WebhookVerificationError("no webhook secret given")
    if not header:
        raise WebhookVerificationError(f"no {SIGNATURE_HEADER} header")
    ts: Optional[str] = None
    sigs: List[str] = []
    for part in header.split(","):
        k, _, v = part.strip().partition("=")
        if k == "t":
            ts = v
        elif k == "v1":
            sigs.append(v)
    if ts is None or not ts.isdigit():
        raise WebhookVerificationError("the signature has no timestamp")
    if not sigs:
        raise WebhookVerificationError("the signature has no v1 value")
    t = int(ts)
    current = time.time() if now is None else now
    if abs(current - t) > tolerance:
        raise WebhookVerificationError(f"the signature is {abs(current - t):.0f} s old or early; at most {tolerance:.0f} s allowed")
    want = _mac(secret, ts, _bytes(body))
    # Compare every candidate in constant time; a rotated secret may add one.
    if not any(hmac.compare_digest(want, s) for s in sigs):
        raise WebhookVerificationError("the signature does not match the body")
    return t


@dataclass(frozen=True)
class WebhookEvent:
    """A verified delivery: ``payload`` is a ``BulkCompletion`` for
    ``content-all-results``, a ``BulkFailure`` for ``content-bulk-failure``,
    and for a crawl's events a ``CrawlStarted`` (``crawl-started``), a
    ``CrawlPageEvent`` (``crawl-page``), a ``CrawlPageFailed``
    (``crawl-page-failed``) or its ``CrawlStatus`` (``crawl-completed``),
    and a ``MonitorCheckReport`` for a monitor's ``monitor-check``."""

    event: EventName
    payload: Payload
    timestamp: int

    @property
    def completion(self) -> Optional[BulkCompletion]:
        return cast(BulkCompletion, self.payload) if self.event == "content-all-results" else None

    @property
    def failure(self) -> Optional[BulkFailure]:
        return cast(BulkFailure, self.payload) if self.event == "content-bulk-failure" else None


def parse_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: Union[bytes, bytearray, memoryview, str],
    *,
    tolerance: float = TOLERANCE,
    now: Optional[float] = None,
) -> WebhookEvent:
    """Verifies a delivery (headers as received, raw body) and decodes it."""

    def header(name: str) -> Optional[str]:
        for k, v in headers.items():
            if k.lower() == name.lower():
                return v
        return None

    t = verify_signature(secret, header(SIGNATURE_HEADER), body, tolerance=tolerance, now=now)
    event = header(EVENT_HEADER)
    if event not in _EVENTS:
        raise WebhookVerificationError(f"unknown {EVENT_HEADER}: {event!r}")
    try:
        payload: Any = json.loads(_bytes(body).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise WebhookVerificationError("the body is not JSON") from e
    if not isinstance(payload, dict):
        raise WebhookVerificationError("the body is not a JSON object")
    return WebhookEvent(event=cast(EventName, event), payload=cast(Payload, payload), timestamp=t)
