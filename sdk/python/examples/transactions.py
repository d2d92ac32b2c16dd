"""Lists every credit event, newest first, page by page.

    python3 transactions.py
"""

import sys

from trawl import Client


def main() -> int:
    client = Client.from_env()
    balance = client.credits()
    print(f"balance {balance.data['formatted_balance']} of {balance.data['limit']}")
    for tx in client.iter_transactions(per_page=100):
        meta = tx["metadata"]
        what = meta.get("url") or meta.get("query") or meta.get("job_id") or ""
        print(f"{tx['created_at']}  {tx['service_type']:8} {tx['credits']:>6}  {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
