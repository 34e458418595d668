"""The listeners of gunicorn's master: ``/metrics`` (METRICS_PORT) and ``/healthz`` (HEALTH_PORT).

Both run in the master, beside the arbiter that replaces dead workers, so nothing a client does
to them may hold the master.  The standard library's ``ThreadingHTTPServer`` (what
prometheus_client's ``start_http_server`` is) does not hold up: a thread per connection, none
with a deadline (500 half-sent request lines were 500 threads, held), and HTTP/0.9 answered.
:class:`BoundedListener` is what they use instead:

- **Bounded threads.**  One thread accepts every connection and reads its request line and
  headers through a selector (at most :data:`READING` connections at once: a half-sent request
  costs its bytes, not a thread); :data:`THREADS` threads answer whole requests, from a queue of
  at most :data:`QUEUED`; a connection past either bound is closed at once (a reset: the
  scraper retries).
- **Deadlines.**  The request line and headers must be in within :data:`READ_TIMEOUT_S` of
  the connect, in at most :data:`MAX_HEAD_BYTES`; every write waits at most as long.
- **HTTP/1.x only.**  ``GET`` or ``HEAD`` with ``HTTP/1.0`` or ``HTTP/1.1``; anything else is
  a 400 (a request line without a version, HTTP/0.9's) or a 505, and every connection is closed
  after one answer.
"""
from __future__ import annotations

import queue
import re
import selectors
import socket
import threading
import time
import typing

import orjson

#: threads answering a listener's requests, whole requests waiting for one, and connections
#: whose request is being read (by one thread, a selector) at once
THREADS = 2
QUEUED = 16
READING = 256
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
        self.socket.setblocking(False)
        self.handler, self.name, self.log = handler, name, log
        self.requests: queue.Queue[tuple[socket.socket, bytes]] = queue.Queue(QUEUED)
        self.refused = 0            # connections closed at once: too many reading, or every thread busy
        self.closed = False

    def start(self) -> BoundedListener:
        threading.Thread(target=self._read, name=f"{self.name}-read", daemon=True).start()
        for i in range(THREADS):
            threading.Thread(target=self._serve, name=f"{self.name}-{i}", daemon=True).start()
        return self

    def close(self) -> None:
        self.closed = True
        try:
            self.socket.close()
        except OSError:
            pass

    def _read(self) -> None:
        """One thread reads every connection's request line and headers (a selector: a half-sent
        request costs its bytes, no thread), at most :data:`READING` connections at once, each
        within :data:`READ_TIMEOUT_S`; a whole head goes to the answering threads' queue."""
        selector = selectors.DefaultSelector()
        selector.register(self.socket, selectors.EVENT_READ)
        reading: dict[socket.socket, list[typing.Any]] = {}      # conn: [head so far, deadline]
        while not self.closed:
            try:
                events = selector.select(0.1)
            except (OSError, ValueError):
                return
            now = time.monotonic()
            for key, _ in events:
                if key.fileobj is self.socket:
                    self._accept(selector, reading, now)
                    continue
                conn = typing.cast(socket.socket, key.fileobj)
                try:
                    part = conn.recv(4096)
                except OSError:
                    part = b""
                state = reading[conn]
                state[0] += part
                head = state[0]
                done = (not part or b"\r\n\r\n" in head or len(head) > MAX_HEAD_BYTES
                        or (b"\r\n" in head and not _REQUEST_LINE.fullmatch(head.split(b"\r\n", 1)[0])))
                if done:
                    selector.unregister(conn)
                    del reading[conn]
                    if not head or len(head) > MAX_HEAD_BYTES:
                        _abort(conn)
                        continue
                    try:
                        self.requests.put_nowait((conn, head))
                    except queue.Full:
                        self.refused += 1
                        _abort(conn)
            for conn in [c for c, state in reading.items() if state[1] < now]:
                selector.unregister(conn)       # too slow: closed unanswered
                del reading[conn]
                _abort(conn)

    def _accept(self, selector: selectors.BaseSelector, reading: dict[socket.socket, list[typing.Any]],
                now: float) -> None:
        for _ in range(64):
            try:
                conn, _ = self.socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            if len(reading) >= READING:
                self.refused += 1
                _abort(conn)
                continue
            conn.setblocking(False)
            reading[conn] = [b"", now + READ_TIMEOUT_S]
            selector.register(conn, selectors.EVENT_READ)

    def _serve(self) -> None:
        while True:
            conn, head = self.requests.get()
            try:
                conn.setblocking(True)
                conn.settimeout(READ_TIMEOUT_S)
                self._answer(conn, head)
            except Exception:        # a client's fault or a handler's bug: never the thread's end
                if self.log is not None:
                    self.log.exception("%s listener: error answering a request", self.name)
            finally:
                try:
                    conn.close()
                except OSError:
                    pass

    def _answer(self, conn: socket.socket, head: bytes) -> None:
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
