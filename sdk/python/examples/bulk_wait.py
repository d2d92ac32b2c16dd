"""Extracts several pages in one bulk job and waits for it, printing progress.
Each URL's line says which engine read it (http or browser) or, when it
failed, its reason code and whether retrying it may help. The results are
also emailed to the account as a ZIP of HTML and Markdown with a
manifest.json.

    python3 bulk_wait.py https://example.com/a https://example.com/b
"""

import sys

from trawl import Client
from trawl.types import BulkJob


def progress(job: BulkJob) -> None:
    print(f"{job['status']}: {job['processed_count']}/{job['urls_count']} processed, {job['failed_count']} failed", flush=True)


def main() -> int:
    urls = sys.argv[1:]
    if not urls:
        print("usage: bulk_wait.py URL...", file=sys.stderr)
        return 2
    client = Client.from_env()
    ack = client.create_bulk_job(urls, email=True)
    print(f"job {ack.data['job_id']}: {ack.data['urls_count']} URLs queued")
    job = client.wait_bulk_job(ack.data["job_id"], on_progress=progress, poll_interval=0.5, timeout=600).data
    for r in job["results"]:
        line = f"{r['status']:9} {r['statusCode']} {r.get('engine', '-'):7} {r['url']}"
        if r["error"]:
            # reason is the stable code; retryable says whether another job may read it.
            again = "worth retrying" if r.get("retryable") else "not worth retrying"
            line += f"  ({r.get('reason', 'unavailable')}: {r['error']}; {again})"
        print(line)
    return 0 if job["status"] == "completed" else 1


if __name__ == "__main__":
    sys.exit(main())
