"""Trawl's Python SDK: typed calls to the Trawl web data API.

    from trawl import Client
    client = Client("http://127.0.0.1:8080", "trawl_...")
    page = client.content("https://example.com/blog/post")
    print(page.data["markdown"], page.credits_charged, page.credits_remaining)

Standard library only. See README.md beside this package.
"""

from .client import OPERATIONS, VERSION, Client, Operation, Result
from .errors import TrawlConnectionError, TrawlError, WebhookVerificationError
from .webhook import WebhookEvent, parse_webhook, sign, verify_signature

__version__ = VERSION

__all__ = [
    "OPERATIONS",
    "Client",
    "Operation",
    "Result",
    "TrawlConnectionError",
    "TrawlError",
    "VERSION",
    "WebhookEvent",
    "WebhookVerificationError",
    "parse_webhook",
    "sign",
    "verify_signature",
]
