"""The server side of the service: gunicorn's gevent worker, made to survive real clients.

Phones on slow networks are the normal client, so a connection that trickles its headers, sits
idle or never reads its answer must cost a parked greenlet, not a thread or a worker.  The
worker (:class:`ServingWorker`, ``worker_class`` in gunicorn.conf.py) is gunicorn's gevent worker
(one process per core, up to ``worker_connections`` connections each, every socket wait
cooperative) with these bounds:

- **Header deadline.**  The request line and headers of a connection's first request must be in
  within :data:`HEADER_TIMEOUT_S` of the connect; on a kept-alive connection the next request's
  headers within gunicorn's ``keepalive`` of the previous answer.  Past it the connection is
  closed without an answer (the client was too slow to have sent a request).
- **Socket inactivity.**  Every read and write of a connection waits at most
  :data:`IO_TIMEOUT_S` for progress (a body that stops coming, an answer nobody reads).
- **Body deadline.**  The whole body must be in within :data:`BODY_TIMEOUT_S` of the app's
  first read (:func:`body_deadline`, used by app.py): then the answer is 408 ``request_timeout``.
- **Header bytes.**  gunicorn's ``limit_request_line``, ``limit_request_fields`` and
  ``limit_request_field_size`` (gunicorn.conf.py) bound them: at most
  ``fields × (field size + 2) + 4`` bytes in all.
- **Requests per connection.**  A kept-alive connection is closed after
  :data:`KEEPALIVE_REQUESTS` requests, so its client reconnects and a new or recycled worker
  gets its share of the traffic again.
- **Turns between connections.**  After each answer on a kept-alive connection its greenlet
  yields to the event loop (a :data:`YIELD_S` timer) before it reads the next request.  A gevent
  socket read that finds data waiting does not yield, so a client that sends its next request as
  soon as it has read an answer (a live-table backend, a load balancer, wrk) would otherwise be
  served again and again while the worker's other connections wait: at 32 kept-alive
  connections that made the p99 about 1.5 s with a p50 of 1.4 ms (bench/README.md).
- **Heavy work shared.**  Scoring is CPU work, and a greenlet runs until it waits: heavy
  requests (a batch, a body over :data:`HEAVY_BODY_BYTES`) take turns, at most
  :data:`HEAVY_AT_ONCE` at once, and a batch yields between its hands (:class:`HeavyTurns`), so
  a batch counts as its number of hands, not as one request; a heavy request whose client has
  gone is dropped before it starts or between two hands (the answer is never sent; the access
  log shows 499).
- **Lingering close.**  A connection closed after its answer first ends its sending side and
  reads what the client still sends (at most :data:`LINGER_S`, :data:`LINGER_BYTES`), so a
  client still sending a refused body gets the answer instead of a reset.
- **gunicorn's own errors as problems.**  What gunicorn refuses before the app sees a request
  (a bad request line or header, a request line over the limit, too many or too long headers,
  a malformed chunked body it meets while draining) is answered as ``application/problem+json``
  (:func:`server_problem`), not gunicorn's HTML page.
- **Listener first on SIGTERM.**  The worker stops accepting at once, serves what is already in
  the listen queue, and closes the listening socket: a later connect is refused, not reset;
  in-flight requests finish within ``graceful_timeout``.
"""
from __future__ import annotations

import errno
import os
import socket
import time
import typing
from functools import partial

import gevent
import gevent.local
import gevent.lock
import gevent.monkey
from gevent.pool import Pool
import orjson
from gevent.server import StreamServer
from gunicorn.http import errors as http_errors
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker
from werkzeug.exceptions import BadRequest

import fair_worker
from ningbo_score import ScoreError
from ningbo_score.errors import Problem



def _seconds_env(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        raise SystemExit(f"{name} must be a number of seconds, not {raw!r}") from None
    if not value > 0:
        raise SystemExit(f"{name} must be more than 0 s, not {raw!r}")
    return value


#: the deadlines, in seconds (each from the environment variable of its name without _S)
HEADER_TIMEOUT_S = _seconds_env("HEADER_TIMEOUT", 10.0)
IO_TIMEOUT_S = _seconds_env("IO_TIMEOUT", 10.0)
BODY_TIMEOUT_S = _seconds_env("BODY_TIMEOUT", 20.0)
KEEPALIVE_REQUESTS = 100
LINGER_S = 2.0
LINGER_BYTES = 2 * 1024 * 1024
#: how often the worker's main loop looks whether it was told to stop (and beats its heartbeat)
STOP_POLL_S = 0.05

#: the WSGI environ key of the client socket under gunicorn
SOCKET_ENV = "gunicorn.socket"


# --- what the app calls ------------------------------------------------------------------------

def cooperative() -> bool:
    """Is this process a gevent worker (the socket module patched)?"""
    return gevent.monkey.is_module_patched("socket")


class _NoDeadline:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class BodyTimeout(ScoreError):
    """The body did not come in within :data:`BODY_TIMEOUT_S` (408)."""

    def __init__(self) -> None:
        super().__init__([_problem(
            "invalid_request", f"The body did not arrive within {BODY_TIMEOUT_S:g} s.",
            f"请求体未在 {BODY_TIMEOUT_S:g} 秒内送达。")])
        self.status = 408


def body_deadline() -> typing.ContextManager:
    """A context in which reading the body must end within :data:`BODY_TIMEOUT_S`, or
    :class:`BodyTimeout` is raised where the read waits.  Outside a gevent worker (tests, a plain
    WSGI server) it does nothing."""
    if not cooperative():
        return _NoDeadline()
    return gevent.Timeout(BODY_TIMEOUT_S, BodyTimeout)


#: what reading a body can raise besides a problem: gunicorn's framing errors (a bad chunk size
#: or extension, a missing CRLF, a bad trailer), a short body (``NoMoreData`` is an OSError), a
#: socket that timed out or was reset; werkzeug's ClientDisconnected under its own server
READ_ERRORS: tuple[type[BaseException], ...] = (http_errors.ParseException, OSError, BadRequest)


def body_cut_short() -> ScoreError:
    """The problem for a body that ended (the client closed) before its length or last chunk."""
    return ScoreError([_problem("invalid_request", "The body ended before its announced length or last chunk.",
                                "请求体在声明的长度或最后一个分块之前就结束了。")])


def body_problem(err: BaseException) -> ScoreError:
    """The problem for a body whose reading raised ``err`` (one of :data:`READ_ERRORS`)."""
    if isinstance(err, TimeoutError):
        timed_out = ScoreError([_problem("invalid_request", f"The body stopped coming for {IO_TIMEOUT_S:g} s.",
                                         f"请求体中断了 {IO_TIMEOUT_S:g} 秒。")])
        timed_out.status = 408
        return timed_out
    if isinstance(err, (http_errors.NoMoreData, BadRequest)) or (isinstance(err, OSError)
                                                                 and not isinstance(err, http_errors.ParseException)):
        return body_cut_short()
    return ScoreError([_problem("invalid_request", f"The chunked body is malformed: {err}.",
                                f"分块传输的请求体格式错误：{_CHUNK_ERRORS_ZH.get(type(err).__name__, '无法读取')}。")])


#: gunicorn's reasons for refusing a chunked body, in Chinese (by the exception's class)
_CHUNK_ERRORS_ZH = {
    "InvalidChunkSize": "分块大小无效",
    "ChunkMissingTerminator": "分块结尾缺少 CRLF",
    "InvalidChunkExtension": "分块扩展无效",
    "InvalidHeader": "尾部字段无效",
    "InvalidHeaderName": "尾部字段名无效",
    "LimitRequestHeaders": "尾部字段超过上限",
}


_poll_original = gevent.monkey.get_original("select", "poll")
_POLLGONE = 0x2000 | 0x10 | 0x8     # POLLRDHUP | POLLHUP | POLLERR


def client_gone(environ: typing.Mapping[str, typing.Any]) -> bool:
    """Has the client of this request closed its connection (or its sending side)?  A poll of
    the socket that does not wait; False when there is no socket to look at."""
    sock = environ.get(SOCKET_ENV)
    if sock is None:
        return False
    try:
        fd = sock.fileno()
    except OSError:
        return True
    if fd < 0:
        return True
    poller = _poll_original()
    poller.register(fd, 0x1 | 0x2000)  # POLLIN | POLLRDHUP
    return any(events & _POLLGONE for _, events in poller.poll(0))


class ClientGone(ScoreError):
    """The client of a request closed its connection before the answer was ready (status 499,
    nginx's 'client closed request'; nobody reads it, the access log and metrics do)."""

    def __init__(self) -> None:
        super().__init__([_problem("invalid_request", "The client closed the connection before the answer.",
                                   "客户端在收到回答前关闭了连接。")])
        self.status = 499


def _problem(code: str, en: str, zh: str | None = None) -> Problem:
    return Problem(code, "", en, zh or en)


class HeavyTurns:
    """The work budget of a worker: a request whose body is over :data:`HEAVY_BODY_BYTES` (a
    batch of any size, or a body far past what one hand needs) waits, once its body is read,
    for one of :data:`HEAVY_AT_ONCE` turns (first come first served); lighter requests never
    wait.  A batch also yields between its hands (:func:`between_hands`), so it costs its number
    of hands: at most a few hands of heavy work run between two looks of the worker at its
    sockets, whatever the number of heavy connections, and a cheap request waits a few hands,
    not a few batches.  A request whose client left while it waited is dropped (499).

    :meth:`take` is called by app.py once the body is read; :meth:`release` when the view is
    done (Flask's teardown), before the answer is sent."""

    def __init__(self, at_once: int) -> None:
        self.at_once = at_once
        self._slots: typing.Any = None      # made in the worker process, on first use

    def take(self, environ: typing.MutableMapping[str, typing.Any], body_bytes: int, batch: bool = False) -> None:
        if not (batch or body_bytes > HEAVY_BODY_BYTES) or not cooperative() or environ.get(TURN_ENV):
            return
        if self._slots is None:
            self._slots = gevent.lock.BoundedSemaphore(self.at_once)
        self._slots.acquire()
        environ[TURN_ENV] = True
        # the turn was handed over by a callback: let the worker poll its sockets before this
        # request's work starts (a chain of handovers would otherwise run without a poll)
        gevent.sleep(YIELD_S)
        if client_gone(environ):
            raise ClientGone()

    def release(self, environ: typing.MutableMapping[str, typing.Any]) -> None:
        if environ.pop(TURN_ENV, False):
            self._slots.release()


def between_hands(environ: typing.Mapping[str, typing.Any]) -> typing.Callable[[], None]:
    """The function a batch calls before each hand: under a gevent worker it lets the other
    ready requests run, then raises :class:`ClientGone` if the client has left.

    The yield is a timer of :data:`YIELD_S`, not ``sleep(0)``: gevent runs zero-delay callbacks
    by the dozen before it polls its sockets again, while expired timers wait for the next turn
    of the event loop, after the poll."""
    if not cooperative():
        return _nothing
    sleep = gevent.sleep

    def before_each() -> None:
        sleep(YIELD_S)
        if client_gone(environ):
            raise ClientGone()

    return before_each


#: bodies over this many bytes make a request heavy (a full /v1/score body is under 2 KiB)
HEAVY_BODY_BYTES = 8 * 1024
#: heavy requests that run at once in a worker (the others wait)
HEAVY_AT_ONCE = 1
YIELD_S = 1e-6
TURN_ENV = "ningbo_score.heavy_turn"
heavy_turns = HeavyTurns(HEAVY_AT_ONCE)


def _nothing() -> None:
    return None


# --- gunicorn's own errors as problem+json --------------------------------------------------------

def server_problem(exc: BaseException) -> tuple[int, str, str]:
    """(status, reason phrase, English detail) for an exception gunicorn meets before or around
    the app: the same statuses as gunicorn's own error page (workers/base.py)."""
    e = http_errors
    if isinstance(exc, e.LimitRequestLine):
        return 414, "URI Too Long", f"The request line is too long: {exc}."
    if isinstance(exc, e.LimitRequestHeaders):
        return 431, "Request Header Fields Too Large", f"The header fields are over the limit: {exc}."
    if isinstance(exc, e.UnsupportedTransferCoding):
        return 501, "Not Implemented", f"Unsupported transfer coding: {exc}."
    if isinstance(exc, e.ExpectationFailed):
        return 417, "Expectation Failed", f"{exc}."
    if isinstance(exc, e.ForbiddenProxyRequest):
        return 403, "Forbidden", "Request forbidden."
    if isinstance(exc, (e.InvalidChunkSize, e.ChunkMissingTerminator, e.InvalidChunkExtension)):
        return 400, "Bad Request", f"The chunked body is malformed: {exc}."
    if isinstance(exc, (e.ParseException, e.NoMoreData)) and not isinstance(
            exc, (e.InvalidResponseHeader, e.InvalidResponseHeaderName, e.ConfigurationProblem)):
        return 400, "Bad Request", f"The request is malformed: {exc}."
    return 500, "Internal Server Error", "An unexpected error occurred; it has been logged."


def problem_bytes(status: int, reason: str, detail: str) -> bytes:
    """A complete HTTP/1.1 answer (closing the connection) with an RFC 9457 problem body in the
    service's shape: code ``invalid_request`` for a 4xx, ``internal_error`` for a 5xx."""
    code = "internal_error" if status >= 500 else "invalid_request"
    err = ScoreError([_problem(code, detail)])
    body = err.to_problem("en")
    body["status"] = status
    data = orjson.dumps(body)
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(data)}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n")
    return head.encode("latin-1") + data


# --- the worker ----------------------------------------------------------------------------------

def linger(sock: socket.socket) -> None:
    """Before a connection is closed after its answer: end the sending side (the client sees the
    end of the answer), then read and drop what the client still sends, for at most
    :data:`LINGER_S` and :data:`LINGER_BYTES`.  Closing with unread bytes would reset the
    connection, and the client could lose the answer (a 413 to a body it is still sending)."""
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        return
    left = LINGER_BYTES
    with gevent.Timeout(LINGER_S, False):
        while left > 0:
            try:
                data = sock.recv(min(65536, left))
            except OSError:
                return
            if not data:
                return
            left -= len(data)


class _ListenerName(typing.NamedTuple):
    """A closed listening socket's address, for the connections taken from its queue."""
    name: typing.Any

    def getsockname(self) -> typing.Any:
        return self.name


class ServingWorker(GeventWorker):
    """gunicorn's gevent worker with the bounds of this module's docstring."""

    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None:
        super().__init__(*args, **kwargs)
        self.connection = gevent.local.local()    # per connection (one greenlet each): served
        self.servers: list[StreamServer] = []

    # -- timeouts --------------------------------------------------------------------------------

    def timeout_ctx(self) -> gevent.Timeout:
        """The deadline for the next request's line and headers (gunicorn reads them under it)."""
        first = not getattr(self.connection, "served", False)
        return gevent.Timeout(HEADER_TIMEOUT_S if first else self.cfg.keepalive, False)

    def handle(self, listener: socket.socket, client: socket.socket, addr: typing.Any) -> None:
        client.settimeout(IO_TIMEOUT_S)
        self.connection.served = False
        self.fair_step(self.servers)
        try:
            AsyncWorker.handle(self, listener, client, addr)  # not GeventWorker's: it clears the timeout
        finally:
            self.fair_step(self.servers)

    def handle_request(self, listener_name: typing.Any, req: typing.Any, sock: socket.socket, addr: typing.Any):
        self.connection.served = True
        if req.req_number >= KEEPALIVE_REQUESTS:
            req.force_close()
        try:
            kept = super().handle_request(listener_name, req, sock, addr)
        except TimeoutError:
            self.log.info("Closing a connection: the client stopped reading or sending for %s s", IO_TIMEOUT_S)
            raise StopIteration() from None
        except StopIteration:
            linger(sock)               # the answer asked to close the connection
            raise
        # the connection is kept: go to the back of the line before reading its next request
        gevent.sleep(YIELD_S)
        return kept


    # -- errors ----------------------------------------------------------------------------------

    def handle_error(self, req: typing.Any, client: socket.socket, addr: typing.Any, exc: BaseException) -> None:
        status, reason, detail = server_problem(exc)
        if status >= 500:
            self.log.exception("Error handling request")
        else:
            self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            client.sendall(problem_bytes(status, reason, detail))
            linger(client)
        except OSError:
            self.log.debug("Failed to send error message.")

    # -- the accept loop and a graceful stop -------------------------------------------------------

    def log_greenlet_error(self, context: typing.Any, kind: type, value: BaseException, tb: typing.Any) -> None:
        """gevent's hub prints an error no greenlet caught as a plain traceback on stderr; here it
        is a line of the error log like any other (JSON: logs stay one JSON object a line)."""
        self.log.error("Unhandled error in %r", context, exc_info=(kind, value, tb))

    def run(self) -> None:
        gevent.get_hub().print_exception = self.log_greenlet_error
        for s in self.sockets:
            s.setblocking(1)
            pool = Pool(self.worker_connections)
            server = StreamServer(s, handle=partial(self.handle, s), spawn=pool)
            if self.cfg.workers > 1:
                server.max_accept = 1
            server.start()
            self.servers.append(server)
        self.fair_start()

        beat = 0.0
        while self.alive:
            now = time.monotonic()
            if now - beat >= 1.0:
                self.notify()
                beat = now
            self.fair_step(self.servers)
            gevent.sleep(STOP_POLL_S if self.fair_accepting else fair_worker.RECHECK_S)

        self.close_listeners()
        deadline = time.monotonic() + self.cfg.graceful_timeout
        while time.monotonic() < deadline:
            if all(server.pool.free_count() == server.pool.size for server in self.servers):
                return
            self.notify()
            gevent.sleep(0.1)
        self.log.warning("Worker graceful timeout (pid:%s)", self.pid)
        for server in self.servers:
            server.stop(timeout=1)

    def close_listeners(self) -> None:
        """Stop accepting, take every connection already waiting in the listen queue (each is
        served like any other), then close the listening sockets: from then on a connect is
        refused, not reset."""
        for server in self.servers:
            server.stop_accepting()
        for server, listener in zip(self.servers, self.sockets):
            listener.setblocking(False)
            named = _ListenerName(listener.getsockname())   # what the handler asks once it is closed
            while True:
                try:
                    client, addr = listener.accept()
                except OSError as err:
                    if err.errno not in (errno.EAGAIN, errno.EWOULDBLOCK) and not isinstance(err, BlockingIOError):
                        self.log.debug("accept while stopping: %s", err)
                    break
                client.setblocking(1)
                server.pool.spawn(self.handle, named, client, addr)
            try:
                listener.close()
            except OSError:
                pass
        self.fair_stop()

    # no sharing of connections among workers here (:class:`FairServingWorker` has it)
    fair_accepting = True

    def fair_start(self) -> None:
        return None

    def fair_step(self, servers: typing.Sequence[StreamServer]) -> None:
        return None

    def fair_stop(self) -> None:
        return None


class FairServingWorker(fair_worker.FairShare, ServingWorker):
    """:class:`ServingWorker`, accepting only while it holds no more than its share of the
    connections (fair_worker.py)."""

