"""A page's main content as Markdown, and what it cost.

    TRAWL_API_URL=http://127.0.0.1:8080 TRAWL_API_KEY=trawl_... python3 first_call.py https://example.com/blog/post
"""

import sys

from trawl import Client, TrawlError


def main() -> int:
    url = sys.argv[1] if len(sys.argv) > 1 else "https://example.com/"
    client = Client.from_env()
    try:
        page = client.content(url)
    except TrawlError as e:
        # reason is a stable code (captcha, timeout, ...); retryable says whether waiting may help.
        print(f"{e.status} {e.message} (reason {e.reason}, retryable {e.retryable})", file=sys.stderr)
        return 1
    print(page.data["metadata"]["title"])
    print(page.data["markdown"])
    print(f"-- {page.credits_charged} credits charged, {page.credits_remaining} remaining", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
