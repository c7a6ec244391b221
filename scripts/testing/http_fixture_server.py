#!/usr/bin/env python3
"""A loopback HTTP server for pipeline tests: serves a directory with ETag / Last-Modified and
conditional requests, and simulates failures.

  /<file>            the file, with ETag = "sha256-prefix" and Last-Modified; 304 on If-None-Match match
  /status/<code>     answers with that status
  /slow/<seconds>    waits, then answers 200 (for client timeouts)
  /flaky/<n>/<file>  answers 503 n times, then serves <file>
  /endless           200 with a body that never ends (no Content-Length; 1 MB writes until the client hangs up)
  /trickle/<seconds> 200 with a declared 1 MB body sent one byte every 0.2 s for that long
  /big/<bytes>       200 with a body of that many bytes and its Content-Length
  /gzipbomb/<MB>     200, Content-Encoding: gzip, a small body that inflates to MB megabytes of zeros
  /__stats           JSON: requests seen per path and how many were conditional

Binds 127.0.0.1 on a free port and prints the port on the first line of stdout.
"""

import hashlib
import http.server
import json
import os
import sys
import threading
import time
import zlib
from email.utils import formatdate

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
stats = {"requests": {}, "conditional": 0, "notModified": 0}
flaky_counts = {}
lock = threading.Lock()


bombs = {}


def gzip_bomb(megabytes):
    """A gzip body that inflates to `megabytes` MB of zeros (made once per size: it takes seconds)."""
    with lock:
        if megabytes not in bombs:
            z = zlib.compressobj(9, zlib.DEFLATED, 31)
            chunk = b"\0" * (1 << 20)
            bombs[megabytes] = b"".join(z.compress(chunk) for _ in range(megabytes)) + z.flush()
        return bombs[megabytes]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, code, body=b"", headers=None):
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?")[0]
        with lock:
            stats["requests"][path] = stats["requests"].get(path, 0) + 1
            if self.headers.get("If-None-Match"):
                stats["conditional"] += 1
        if path == "/__stats":
            return self.send(200, json.dumps(stats).encode(), {"Content-Type": "application/json"})
        parts = path.strip("/").split("/")
        if parts[0] == "status" and len(parts) == 2:
            return self.send(int(parts[1]), b"simulated failure\n")
        if parts[0] == "slow" and len(parts) == 2:
            time.sleep(float(parts[1]))
            return self.send(200, b"[]")
        if parts[0] == "endless" and len(parts) == 1:
            return self.stream(None, lambda: b"x" * (1 << 20))
        if parts[0] == "trickle" and len(parts) == 2:
            end = time.time() + float(parts[1])

            def byte():
                if time.time() > end:
                    return None
                time.sleep(0.2)
                return b"x"

            return self.stream({"Content-Length": str(1 << 20)}, byte)
        if parts[0] == "big" and len(parts) == 2:
            return self.send(200, b"x" * int(parts[1]))
        if parts[0] == "gzipbomb" and len(parts) == 2:
            return self.send(
                200, gzip_bomb(int(parts[1])), {"Content-Encoding": "gzip", "Content-Type": "application/json"}
            )
        if parts[0] == "flaky" and len(parts) >= 3:
            with lock:
                seen = flaky_counts.get(path, 0)
                flaky_counts[path] = seen + 1
            if seen < int(parts[1]):
                return self.send(503, b"try again\n")
            parts = parts[2:]
        file = os.path.realpath(os.path.join(ROOT, *parts))
        if not file.startswith(os.path.realpath(ROOT)) or not os.path.isfile(file):
            return self.send(404, b"not found\n")
        body = open(file, "rb").read()
        etag = '"%s"' % hashlib.sha256(body).hexdigest()[:32]
        headers = {
            "ETag": etag,
            "Last-Modified": formatdate(os.path.getmtime(file), usegmt=True),
            "Content-Type": "application/octet-stream",
        }
        if self.headers.get("If-None-Match") == etag:
            with lock:
                stats["notModified"] += 1
            return self.send(304, b"", {"ETag": etag})
        return self.send(200, body, headers)

    def stream(self, headers, chunk):
        """Writes chunk() until it returns None or the client goes away."""
        self.send_response(200)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            while True:
                data = chunk()
                if data is None:
                    return
                self.wfile.write(data)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_HEAD = do_GET


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
