"""A recording HTTP(S) proxy on 127.0.0.1 that answers every host itself.

Why a proxy: WebKit never puts a request that a content rule blocked on the network, so "the proxy never
saw it" is the observable fact behind every `blocked` answer of the harness. The proxy therefore has to
see *every* request the page makes, including https ones, with the exact URL:

* plain `GET http://host/path` proxy requests are answered directly;
* `CONNECT host:443` is answered with 200 and the tunnel is terminated here with a self-signed
  certificate generated at start-up (WebKit's network session is told to ignore TLS errors), so the
  https URL the page used is kept exactly (content rules see the scheme);
* nothing is ever forwarded: no request leaves 127.0.0.1.

Requests are logged with an *epoch* (one epoch per page load of the harness): the epoch current when
their connection was accepted. Between page loads the harness bumps the epoch and closes every client
connection, so a request of a previous page arriving late on a kept-alive connection or tunnel is
never counted for the next one. (Keep-alive loads that outlive their page, pings and beacons, may open
a new connection later: the differential test gives them per-case unique URLs.)
"""

import base64
import contextlib
import hashlib
import http.server
import os
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.parse

from . import content


def make_certificate(directory):
    """Self-signed certificate for every host (WebKit ignores TLS errors in our network session)."""
    key = os.path.join(directory, "key.pem")
    cert = os.path.join(directory, "cert.pem")
    cmd = [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "2",
        "-subj",
        "/CN=radarblock-webkit-harness",
        "-addext",
        "subjectAltName=DNS:localhost",
    ]
    try:
        subprocess.run(cmd, check=True, capture_output=True, timeout=30)
    except FileNotFoundError:
        raise RuntimeError(
            "openssl is needed to create the proxy's TLS certificate (apt-get install openssl)"
        ) from None
    except subprocess.CalledProcessError as e:
        raise RuntimeError("openssl failed: %s" % e.stderr.decode(errors="replace").strip()) from e
    return cert, key


def strip_fragment(url):
    return url.split("#", 1)[0]


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Set on tunnel handlers: "https://host[:port]" (the CONNECT target), used to rebuild absolute URLs.
    origin = None

    def log_message(self, *args):  # the proxy's own log is structured (ProxyServer.log)
        pass

    def setup(self):
        super().setup()
        # A connection belongs to the epoch in which it was accepted: connections are closed when the
        # epoch changes, so a straggler request of a previous page can only arrive on an old connection.
        self.epoch = self.server.epoch
        self.server.track(self.connection)
        # Small writes (headers, body, TLS records) must not wait for delayed ACKs (Nagle: +40 ms each).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # A handler thread must never hang the harness: idle connections time out.
        self.connection.settimeout(30)

    def finish(self):
        try:
            super().finish()
        finally:
            self.server.untrack(self.connection)

    def do_CONNECT(self):
        self.server.record("CONNECT", self.path, self.headers, self.epoch, connect=True)
        host, _, port = self.path.rpartition(":")
        if not host:
            host, port = self.path, "443"
        self.send_response_only(200, "Connection established")
        self.end_headers()
        self.wfile.flush()
        raw = self.connection
        try:
            # wrap_socket detaches `raw` (its fd moves to the TLS socket): track the TLS socket instead,
            # otherwise close_connections() could not end this tunnel at the next epoch.
            tls = self.server.tls_context.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
            self.server.untrack(raw)
            self.server.track(tls)
            tls.do_handshake()
        except (ssl.SSLError, OSError):
            self.close_connection = True
            return
        origin = "https://" + host + ("" if port == "443" else ":" + port)
        try:
            _TunnelHandler(tls, self.client_address, self.server, origin, self.epoch)
        except (OSError, ssl.SSLError):
            pass
        finally:
            self.server.untrack(tls)
            with contextlib.suppress(OSError):
                tls.close()
        self.close_connection = True

    def _absolute_url(self):
        # The request target exactly as sent: http.server collapses a leading "//" in self.path (an
        # open-redirect guard), which would make https://h//p look like https://h/p in the log.
        parts = self.requestline.split()
        target = parts[1] if len(parts) >= 2 else self.path
        if self.origin is not None:
            return self.origin + target
        return target  # a plain proxy request carries the absolute URL

    def _serve(self):
        url = self._absolute_url()
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(min(length, 1 << 20))
        self.server.record(self.command, url, self.headers, self.epoch)
        if self.headers.get("Upgrade", "").lower() == "websocket":
            self._websocket()
            return
        status, ctype, body, extra = self.server.response_for(url, self.headers)
        headers = [
            ("Content-Type", ctype),
            ("Content-Length", str(len(body))),
            # Every load must reach the proxy: no caching anywhere (WebKit's memory cache included).
            ("Cache-Control", "no-store, max-age=0"),
            ("Access-Control-Allow-Origin", "*"),
        ] + list(extra)
        if self.close_connection:
            headers.append(("Connection", "close"))
        head = "HTTP/1.1 %d %s\r\n" % (status, self.responses.get(status, ("",))[0])
        head += "".join("%s: %s\r\n" % kv for kv in headers) + "\r\n"
        # One write per response (one TLS record, no Nagle/delayed-ACK stalls between header and body).
        self.wfile.write(head.encode("latin-1") + (b"" if self.command == "HEAD" else body))

    def _websocket(self):
        key = self.headers.get("Sec-WebSocket-Key", "")
        accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept.decode())
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True  # open event fires on the client, then the socket closes

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_OPTIONS = do_PATCH = _serve


class _TunnelHandler(_Handler):
    def __init__(self, request, client_address, server, origin, epoch):
        self.origin = origin
        self.tunnel_epoch = epoch
        super().__init__(request, client_address, server)

    def setup(self):
        http.server.BaseHTTPRequestHandler.setup(self)
        self.epoch = self.tunnel_epoch  # the tunnel's raw socket is tracked by the CONNECT handler
        self.connection.settimeout(30)

    def finish(self):
        http.server.BaseHTTPRequestHandler.finish(self)

    def do_CONNECT(self):
        self.send_error(400)


class ProxyServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="radarblock-proxy-")
        cert, key = make_certificate(self._tmp.name)
        self.tls_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.tls_context.load_cert_chain(cert, key)
        self.tls_context.set_alpn_protocols(["http/1.1"])  # no h2: keep one request per line of log
        self._lock = threading.Lock()
        self._conns = set()
        self.epoch = 0
        self.entries = []  # every request seen: dict(epoch, method, url, time, ...)
        self.routes = {}  # url without fragment -> (status, content-type, body, extra headers)
        self.type_hints = {}  # url without fragment -> harness resource type (chooses the body)
        super().__init__(("127.0.0.1", 0), _Handler)
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.1}, name="radarblock-proxy", daemon=True
        )
        self._thread.start()

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.server_address[1]

    # -- connection bookkeeping -------------------------------------------------------------------
    def track(self, sock):
        with self._lock:
            self._conns.add(sock)

    def untrack(self, sock):
        with self._lock:
            self._conns.discard(sock)

    def close_connections(self):
        """Close every client connection (keep-alive and tunnels) so the next epoch starts clean."""
        with self._lock:
            conns = list(self._conns)
            self._conns.clear()
        for s in conns:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    # -- epochs and log ---------------------------------------------------------------------------
    def new_epoch(self, routes=None, type_hints=None):
        self.close_connections()
        with self._lock:
            self.epoch += 1
            self.routes = dict(routes or {})
            self.type_hints = dict(type_hints or {})
            return self.epoch

    def record(self, method, url, headers, epoch, connect=False):
        entry = {
            "epoch": epoch,
            "method": method,
            "url": url,
            "time": time.monotonic(),
            "connect": connect,
            "cookie": bool(headers.get("Cookie")),
            "referer": headers.get("Referer"),
            "accept": headers.get("Accept"),
        }
        with self._lock:
            self.entries.append(entry)

    def requests(self, epoch):
        """The HTTP requests (not CONNECTs) seen during `epoch`."""
        with self._lock:
            return [e for e in self.entries if e["epoch"] == epoch and not e["connect"]]

    def seen_counts(self, epoch):
        """{URL without fragment: number of requests} seen during `epoch`."""
        counts = {}
        for e in self.requests(epoch):
            k = strip_fragment(e["url"])
            counts[k] = counts.get(k, 0) + 1
        return counts

    def drop_log(self, before_epoch):
        with self._lock:
            self.entries = [e for e in self.entries if e["epoch"] >= before_epoch]

    # -- responses --------------------------------------------------------------------------------
    def response_for(self, url, headers):
        key = strip_fragment(url)
        with self._lock:
            route = self.routes.get(key)
            if isinstance(route, list):
                # A sequence of answers (the top document, then the same URL as a subresource).
                route = route.pop(0) if len(route) > 1 else route[0]
            hint = self.type_hints.get(key)
        if route is not None and route != "hint":
            return route
        return content.body_for(hint, url, headers.get("Accept", ""))

    def close(self):
        try:
            self.shutdown()
        finally:
            self.close_connections()
            self.server_close()
            self._tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def normalize_url(url):
    """The URL as WebKit puts it on the wire (what the proxy logs): canonical scheme/host, default port
    dropped, empty path -> '/', no fragment. Used to match a scenario's load to the proxy log."""
    p = urllib.parse.urlsplit(url)
    scheme = p.scheme.lower()
    host = (p.hostname or "").lower()
    port = p.port
    default = {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(scheme)
    netloc = host if port in (None, default) else "%s:%d" % (host, port)
    if p.username is not None:
        netloc = p.username + ("" if p.password is None else ":" + p.password) + "@" + netloc
    path = p.path or "/"
    # WebSockets travel as http(s) requests through the proxy.
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    return urllib.parse.urlunsplit((scheme, netloc, path, p.query, ""))
