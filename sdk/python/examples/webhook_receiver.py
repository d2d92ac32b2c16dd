"""Receives Trawl's bulk job webhooks and accepts only authentic, recent ones.

    TRAWL_WEBHOOK_SECRET=$(trawl webhooks secret --email you@example.com) python3 webhook_receiver.py 8000

Point a job's callback_url at this server. A delivery whose signature does
not verify gets 400; a verified one 200 (answer quickly: Trawl waits 30 s).
"""

import http.server
import os
import sys

from trawl import WebhookVerificationError, parse_webhook

SECRET = os.environ.get("TRAWL_WEBHOOK_SECRET", "")


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            event = parse_webhook(SECRET, dict(self.headers), body)
        except WebhookVerificationError as e:
            print(f"refused: {e}", file=sys.stderr, flush=True)
            self.send_response(400)
            self.end_headers()
            return
        if event.completion is not None:
            c = event.completion
            print(f"job {c.get('job_id')}: {c['success_count']} of {c['processed_count']} pages extracted", flush=True)
        elif event.failure is not None:
            print(f"job {event.failure['job_id']} failed: {event.failure['error']}", flush=True)
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def main() -> int:
    if not SECRET:
        print("set TRAWL_WEBHOOK_SECRET", file=sys.stderr)
        return 2
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    server = http.server.HTTPServer(("127.0.0.1", port), Receiver)
    print(f"listening on http://127.0.0.1:{port}/", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
