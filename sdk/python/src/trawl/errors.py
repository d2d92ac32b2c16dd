"""Errors raised by the Trawl client."""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any, Dict, List, Mapping, Optional

__all__ = ["TrawlError", "TrawlConnectionError", "WebhookVerificationError", "header", "header_int", "parse_retry_after"]


def header_int(headers: Mapping[str, str], name: str) -> Optional[int]:
    """The integer value of a header, None when it is absent or not an integer."""
    raw = header(headers, name)
    if raw is None:
        return None
    try:
        return int(raw.strip())
    except ValueError:
        return None


def header(headers: Mapping[str, str], name: str) -> Optional[str]:
    """A header's value, whatever the case of its name."""
    value = headers.get(name)
    if value is not None:
        return value
    lower = name.lower()
    for k, v in headers.items():
        if k.lower() == lower:
            return v
    return None


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds to wait from a Retry-After header (delay-seconds or an HTTP date)."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class TrawlError(Exception):
    """An answer the API refused or could not give.

    ``status`` is the HTTP status (0 when the server could not be reached),
    ``message`` what went wrong in words, ``reason`` the stable code of a 503
    (``captcha``, ``timeout``, ``llm_failed``... see ``trawl.types.Reason``;
    None on other answers) and ``retryable`` whether the same request may
    succeed later. The client has already retried a retryable error as the
    API's retry policy asks before raising it.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        reason: Optional[str] = None,
        retryable: bool = False,
        errors: Optional[Dict[str, List[str]]] = None,
        required: Optional[int] = None,
        balance: Optional[int] = None,
        retry_after: Optional[float] = None,
        request_id: Optional[str] = None,
        credits_charged: Optional[int] = None,
        credits_remaining: Optional[int] = None,
        body: Any = None,
    ) -> None:
        super().__init__(f"trawl: {status} {message}" if status else f"trawl: {message}")
        self.status = status
        self.message = message
        self.reason = reason
        self.retryable = retryable
        self.errors: Dict[str, List[str]] = errors or {}
        self.required = required
        self.balance = balance
        self.retry_after = retry_after
        self.request_id = request_id
        self.credits_charged = credits_charged
        self.credits_remaining = credits_remaining
        self.body = body

    @classmethod
    def from_response(cls, status: int, headers: Mapping[str, str], raw: bytes) -> "TrawlError":
        """Builds the error of a non-2xx answer from its status, headers and body."""
        body: Any = None
        try:
            body = json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, ValueError):
            body = None
        fields: Dict[str, Any] = body if isinstance(body, dict) else {}
        message = fields.get("message") or fields.get("error") or ""
        if not isinstance(message, str) or not message:
            message = _status_text(status)
        # 429 and 5xx are worth retrying; 401, 402, 403, 404, 409 and 422 are not.
        retryable = status == 429 or status >= 500
        if status == 503 and isinstance(fields.get("retryable"), bool):
            retryable = fields["retryable"]  # the server knows whether waiting helps
        reason = fields.get("reason")
        errors = fields.get("errors")
        return cls(
            status,
            message,
            reason=reason if isinstance(reason, str) and reason else None,
            retryable=retryable,
            errors=errors if isinstance(errors, dict) else None,
            required=_int_or_none(fields.get("required")),
            balance=_int_or_none(fields.get("balance")),
            retry_after=parse_retry_after(header(headers, "Retry-After")),
            request_id=header(headers, "X-Request-Id"),
            credits_charged=header_int(headers, "X-Credits-Charged"),
            credits_remaining=header_int(headers, "X-Credits-Remaining"),
            body=body,
        )


class TrawlConnectionError(TrawlError):
    """The server could not be reached or broke the connection (status 0)."""

    def __init__(self, message: str, cause: Optional[BaseException] = None) -> None:
        super().__init__(0, message, retryable=True)
        self.__cause__ = cause


class WebhookVerificationError(ValueError):
    """A webhook delivery whose signature is missing, wrong or too old."""


def _int_or_none(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _status_text(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return f"HTTP {status}"
