"""The listeners of gunicorn's master: ``/metrics`` (METRICS_PORT) and ``/healthz`` (HEALTH_PORT).

Both run in the master, beside the arbiter that replaces dead workers, so nothing a client does
to them may hold the master.  The standard library's ``ThreadingHTTPServer`` (what
prometheus_client's ``start_http_server`` is) does not hold up: a thread per connection, none
with a deadline (500 half-sent request lines were 500 threads, held), and HTTP/0.9 answered.
:class:`BoundedListener` is what they use instead:

- **Bounded threads.**  One thread accepts; :data:`THREADS` threads answer, from a queue of at
  most :data:`QUEUED` accepted connections; a connection that finds the queue full is closed
  at once (a reset: the scraper retries).
- **Deadlines.**  The request line and headers must be in within :data:`READ_TIMEOUT_S` of
  the connect, in at most :data:`MAX_HEAD_BYTES`; every write waits at most as long.
- **HTTP/1.x only.**  ``GET`` or ``HEAD`` with ``HTTP/1.0`` or ``HTTP/1.1``; anything else is
  a 400 (a request line without a version, HTTP/0.9's) or a 505, and every connection is closed
  after one answer.
"""
from __future__ import annotations

import queue
import re
import socket
import threading
import time
import typing

import orjson

#: threads answering a listener's connections, and accepted connections waiting for one
THREADS = 2
QUEUED = 16
#: seconds for a request's line and headers (and for each write of the answer)
READ_TIMEOUT_S = 2.0
MAX_HEAD_BYTES = 8192
_REQUEST_LINE = re.compile(rb"([A-Z]+) (\S+) HTTP/(\d)\.(\d)")

#: what a listener's handler gets (method, path with query, headers by lower-case name) and
#: gives back (status, headers, body)
Handler = typing.Callable[[str, str, dict[str, str]], tuple[int, list[tuple[str, str]], bytes]]
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            500: "Internal Server Error", 503: "Service Unavailable", 505: "HTTP Version Not Supported"}


class BoundedListener:
    """A small HTTP/1.x server on ``(host, port)`` answering with ``handler`` (module docstring)."""

    def __init__(self, host: str, port: int, handler: Handler, name: str, log: typing.Any = None) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port))
        self.socket.listen(128)
        self.handler, self.name, self.log = handler, name, log
        self.connections: queue.Queue[socket.socket] = queue.Queue(QUEUED)
        self.refused = 0            # connections closed because every thread was busy

    def start(self) -> BoundedListener:
        threading.Thread(target=self._accept, name=f"{self.name}-accept", daemon=True).start()
        for i in range(THREADS):
            threading.Thread(target=self._serve, name=f"{self.name}-{i}", daemon=True).start()
        return self

    def close(self) -> None:
        try:
            self.socket.close()
        except OSError:
            pass

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                if self.socket.fileno() < 0:
                    return           # closed
                time.sleep(0.01)
                continue
            try:
                self.connections.put_nowait(conn)
            except queue.Full:
                self.refused += 1
                _abort(conn)

    def _serve(self) -> None:
        while True:
            conn = self.connections.get()
            try:
                self._answer(conn)
            except Exception:        # a client's fault or a handler's bug: never the thread's end
                if self.log is not None:
                    self.log.exception("%s listener: error answering a request", self.name)
            finally:
                try:
                    conn.close()
                except OSError:
                    pass

    def _answer(self, conn: socket.socket) -> None:
        deadline = time.monotonic() + READ_TIMEOUT_S
        head = b""
        while b"\r\n\r\n" not in head:
            left = deadline - time.monotonic()
            if left <= 0 or len(head) > MAX_HEAD_BYTES:
                return                                  # too slow or too long: closed unanswered
            conn.settimeout(left)
            try:
                part = conn.recv(4096)
            except OSError:
                return
            if not part:
                if b"\r\n" in head and not _REQUEST_LINE.match(head.split(b"\r\n", 1)[0]):
                    break                               # an HTTP/0.9 request line, then EOF
                return
            head += part
            if b"\r\n" in head and not _REQUEST_LINE.fullmatch(head.split(b"\r\n", 1)[0]):
                break                                   # not HTTP/1.x: refused below
        conn.settimeout(READ_TIMEOUT_S)
        line, _, rest = head.partition(b"\r\n")
        match = _REQUEST_LINE.fullmatch(line)
        if match is None:
            conn.sendall(_message(400, [], b'{"status":"bad request"}', "GET"))
            return
        method, target = match[1].decode(), match[2].decode("latin-1")
        if match[3] != b"1":
            conn.sendall(_message(505, [], b'{"status":"HTTP/1.0 and HTTP/1.1 only"}', method))
            return
        if method not in ("GET", "HEAD"):
            conn.sendall(_message(405, [("Allow", "GET, HEAD")], b'{"status":"method not allowed"}', method))
            return
        headers = {}
        for field in rest.split(b"\r\n"):
            name, sep, value = field.partition(b":")
            if sep:
                headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
        status, extra, body = self.handler(method, target, headers)
        conn.sendall(_message(status, extra, body, method))
        try:
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _message(status: int, headers: list[tuple[str, str]], body: bytes, method: str) -> bytes:
    names = {name.lower() for name, _ in headers}
    all_headers = [*headers] if "content-type" in names else [("Content-Type", "application/json"), *headers]
    all_headers += [("Content-Length", str(len(body))), ("Connection", "close"), ("Cache-Control", "no-store")]
    head = f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in all_headers)
    return head.encode("latin-1") + b"\r\n" + (b"" if method == "HEAD" else body)


def _abort(conn: socket.socket) -> None:
    import struct

    try:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
    except OSError:
        pass


# --- liveness beside the serving port ------------------------------------------------------------

def liveness_status(server: typing.Any) -> tuple[int, bytes]:
    """(status, body) of the master's ``/healthz``: 200 while a worker beat its heartbeat within
    gunicorn's ``timeout`` (a stuck worker is then about to be replaced), else 503."""
    now = time.monotonic()
    fresh = 0
    for worker in list(server.WORKERS.values()):
        try:
            fresh += now - worker.tmp.last_update() < server.timeout
        except (OSError, ValueError):
            continue
    body = {"status": "ok" if fresh else "no live worker", "workers": fresh}
    return (200 if fresh else 503), orjson.dumps(body)


def start_liveness(server: typing.Any, host: str, port: int) -> BoundedListener:
    """``GET /healthz`` on ``host:port``, answered by the master (:class:`BoundedListener`): a
    serving port kept busy (every worker's connections, a CPU-bound loop) can't starve it, and it
    tells whether the workers beat their heartbeat (:func:`liveness_status`).  Called from
    gunicorn.conf.py's ``when_ready`` when ``HEALTH_PORT`` is set."""
    def handler(method: str, path: str, headers: dict[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
        if path.split("?", 1)[0] != "/healthz":
            return 404, [], b'{"status":"not found"}'
        status, body = liveness_status(server)
        return status, [], body

    listener = BoundedListener(host, port, handler, "liveness", server.log).start()
    server.log.info("Liveness at http://%s:%s/healthz", host, port)
    return listener
