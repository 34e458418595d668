"""The server side of the service: gunicorn's gevent worker, made to survive real clients.

Phones on slow networks are the normal client, so a connection that trickles its headers, sits
idle or never reads its answer must cost a parked greenlet, not a thread or a worker.  The
worker (:class:`ServingWorker`, ``worker_class`` in gunicorn.conf.py) is gunicorn's gevent worker
(one process per core, up to ``worker_connections`` connections each, every socket wait
cooperative) with these bounds:

- **Header deadline.**  The request line and headers of a connection's first request must be in
  within ``HEADER_TIMEOUT`` of the connect; on a kept-alive connection the next request's
  headers within gunicorn's ``keepalive`` of the previous answer.  Past it the connection is
  closed without an answer (the client was too slow to have sent a request).
- **Socket inactivity.**  Every read and write of a connection waits at most
  ``IO_TIMEOUT`` for progress (a body that stops coming, an answer nobody reads).
- **Body deadline.**  The whole body must be in within ``BODY_TIMEOUT`` of the app's
  first read (:func:`body_deadline`, used by service/bodies.py): then the answer is 408 ``request_timeout``.
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
  requests (a batch, a body over :data:`HEAVY_BODY_BYTES`, waits or an analysis of an expensive
  hand: service/routes.py's ``heavy_hand``) take turns, at most
  :data:`HEAVY_AT_ONCE` at once, and a batch yields between its hands, waits and analyses
  between the waits they value (:class:`HeavyTurns`), so
  a batch counts as its number of hands, not as one request; a heavy request whose client has
  gone is dropped before it starts or between two hands (the answer is never sent; the access
  log shows 499).
- **Write deadline.**  An answer must be written within ``WRITE_TIMEOUT`` plus its size
  over :data:`MIN_WRITE_RATE` (:func:`write_deadline`); past it the connection is closed.
- **Unread bodies.**  A body the app did not read to its end (a GET's, one over the cap) closes
  the connection after the answer (``Connection: close``; gunicorn would drain it with no
  deadline); ``100 Continue`` is sent only when the app is about to read a body it takes
  (:func:`send_continue`), never for one over the cap.
- **Strict HTTP** (RFC 9112, :func:`check_request`): HTTP/1.0 and 1.1 only (else 505), exactly
  one Host on HTTP/1.1 (else 400), no transfer coding but ``chunked`` alone (else 501); a
  chunked body has at most :data:`MAX_CHUNKS` chunks, size lines of at most
  :data:`MAX_CHUNK_LINE_BYTES` and no chunk over :data:`MAX_CHUNK_BYTES` (400 at once).  No
  ``Server`` header.
- **Connection slots.**  A connection waits for its first byte as a *silent* one; when a
  listener's free slots are down to a twentieth, the oldest silent tenth are closed
  (:meth:`ServingWorker.make_room`), so idle sockets can't hold every slot.  A worker accepts
  up to :data:`MAX_ACCEPT` connections at each look at its listener, and runs the app for at
  most :data:`KEPT_ALIVE_AT_ONCE` kept-alive requests at once (a new connection's first request
  takes no turn; none is held while a body is read or an answer written), so pipelined
  requests can't starve new connections.  A connection closed at
  its write deadline is reset (its unsent bytes dropped, :func:`reset`).
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
import socket
import struct
import time
import typing
from functools import partial, wraps

import gevent
import gevent.local
import gevent.lock
import gevent.monkey
import gevent.socket
from gevent.pool import Pool
import orjson
from gevent.server import StreamServer
from gunicorn.http import body as gunicorn_body
from gunicorn.http import errors as http_errors
from gunicorn.http import wsgi as gunicorn_wsgi
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker
from werkzeug.exceptions import BadRequest

from ningbo_score import ScoreError
from ningbo_score.errors import HTTP_STATUS_CODES, Problem
from service import fair_worker
from service.settings import current




#: the deadlines are settings (HEADER_TIMEOUT, IO_TIMEOUT, BODY_TIMEOUT, WRITE_TIMEOUT, in seconds:
#: service/settings.py); an answer must be written within WRITE_TIMEOUT plus its size over
#: MIN_WRITE_RATE (bytes a second): 10 s for a small answer, 42 s for a 1 MiB one
MIN_WRITE_RATE = 32 * 1024
KEEPALIVE_REQUESTS = 100
LINGER_S = 2.0
LINGER_BYTES = 2 * 1024 * 1024
#: read at most this much at a time while lingering, yielding between reads (a gevent read
#: that finds data waiting does not yield)
LINGER_READ_BYTES = 64 * 1024
#: a chunked body: at most this many chunks, each size line at most this long (wire bytes of
#: a 1 MiB body at most about 1 MiB + 4,096 × 66), no chunk longer than the largest body
MAX_CHUNKS = 4096
MAX_CHUNK_LINE_BYTES = 64
MAX_CHUNK_BYTES = 1024 * 1024
#: how often the worker's main loop looks whether it was told to stop (and beats its heartbeat)
STOP_POLL_S = 0.05
#: connection slots: when a listener has no more than this share of its slots free, the
#: connections that have not sent a byte yet are closed, the oldest first, this share of the
#: slots at a time (idle sockets can't hold every slot: a client that sends goes first)
EVICT_AT_SHARE = 20          # 1/20 of the slots free
EVICT_SHARE = 10             # 1/10 of the slots closed
EVICT_MIN_AGE_S = 1.0        # a connection silent for less is not closed (its first bytes may be coming)
#: connections a worker accepts at each look at its listening socket (gunicorn's gevent worker
#: takes 1 with several workers; then 400 connections of pipelined requests left a new
#: connection in the listen queue for seconds: service/fair_worker.py shares them among the workers)
MAX_ACCEPT = 16
#: kept-alive requests (a connection's second and later) the app runs at once in a worker; the
#: others wait their turn, first come first served, so that a loop of the worker over its ready
#: connections stays short and a new connection's first request (which takes no turn) is
#: served within a few of them (400 connections of 100 pipelined requests each: probes waited
#: seconds).  A turn is not held while the body is read (turn_given_up) nor while the answer
#: is written: slow clients hold none.
KEPT_ALIVE_AT_ONCE = 16

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
    """The body did not come in within ``BODY_TIMEOUT`` (408)."""

    def __init__(self) -> None:
        super().__init__([_problem(
            "request_timeout", f"The body did not arrive within {current().body_timeout:g} s.",
            f"请求体未在 {current().body_timeout:g} 秒内送达。")])


def body_deadline() -> typing.ContextManager:
    """A context in which reading the body must end within ``BODY_TIMEOUT``, or
    :class:`BodyTimeout` is raised where the read waits.  Outside a gevent worker (tests, a plain
    WSGI server) it does nothing."""
    if not cooperative():
        return _NoDeadline()
    return gevent.Timeout(current().body_timeout, BodyTimeout)


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
        io_timeout = current().io_timeout
        return ScoreError([_problem("request_timeout", f"The body stopped coming for {io_timeout:g} s.",
                                    f"请求体中断了 {io_timeout:g} 秒。")])
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
        super().__init__([_problem("client_closed", "The client closed the connection before the answer.",
                                   "客户端在收到回答前关闭了连接。")])


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

    :meth:`take` is called by service/bodies.py once the body is read; :meth:`release` when the view is
    done (Flask's teardown), before the answer is sent."""

    def __init__(self, at_once: int) -> None:
        self.at_once = at_once
        self._slots: typing.Any = None      # made in the worker process, on first use

    def take(self, environ: typing.MutableMapping[str, typing.Any], body_bytes: int, heavy: bool = False) -> None:
        """Wait for a turn if the request is heavy: ``heavy`` (a batch, an expensive hand) or a
        body over :data:`HEAVY_BODY_BYTES`."""
        if not (heavy or body_bytes > HEAVY_BODY_BYTES) or not cooperative() or environ.get(TURN_ENV):
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


# --- HTTP as RFC 9112 has it, with bounded framing ---------------------------------------------

class VersionNotSupported(http_errors.ParseException):
    """An HTTP version other than 1.0 and 1.1 (gunicorn takes HTTP/1.2 and answers in it): 505."""

    def __init__(self, version: tuple[int, int]) -> None:
        self.version = version

    def __str__(self) -> str:
        return f"HTTP/{self.version[0]}.{self.version[1]} is not supported (HTTP/1.1 and HTTP/1.0 are)"


class BadHost(http_errors.ParseException):
    """An HTTP/1.1 request without a Host header, or with more than one (RFC 9112 §3.2): 400."""

    def __str__(self) -> str:
        return "an HTTP/1.1 request has exactly one Host header"


class BadTransferCoding(http_errors.UnsupportedTransferCoding):
    """A Transfer-Encoding other than ``chunked`` alone (``gzip, chunked`` was passed on): 501."""

    def __str__(self) -> str:
        return "the only transfer coding taken is chunked, alone"


class BadChunking(http_errors.InvalidChunkSize):
    """A chunk larger than any body a route takes, more than :data:`MAX_CHUNKS` chunks, or a
    chunk size line over :data:`MAX_CHUNK_LINE_BYTES`: 400 at once, not a wait for the bytes."""

    def __init__(self, why: str) -> None:
        self.why = why

    def __str__(self) -> str:
        return self.why


def check_request(req: typing.Any) -> None:
    """Refuse what gunicorn lets through and RFC 9112 does not."""
    if req.version not in ((1, 0), (1, 1)):
        raise VersionNotSupported(req.version)
    hosts = sum(1 for name, _ in req.headers if name == "HOST")
    if hosts > 1 or (req.version == (1, 1) and hosts == 0):
        raise BadHost()
    codings = [value for name, value in req.headers if name == "TRANSFER-ENCODING"]
    if codings and (len(codings) > 1 or codings[0].strip().lower() != "chunked"):
        raise BadTransferCoding(codings[0])


def body_finished(body: typing.Any) -> bool:
    """Has the app read ``body`` (gunicorn's ``wsgi.input``) to its end?  A body left unread
    closes the connection after the answer: draining it (gunicorn's way) has no deadline."""
    if body is None or not hasattr(body, "reader"):
        return True
    if body.buf.tell():
        return False
    reader = body.reader
    if isinstance(reader, gunicorn_body.LengthReader):
        return reader.length == 0
    if isinstance(reader, gunicorn_body.ChunkedReader):
        return reader.parser is None and not reader.buf.tell()
    return bool(getattr(reader, "finished", False))


def _bounded_chunks() -> None:
    """gunicorn's chunked reader with the bounds of :class:`BadChunking` (installed once, in a
    worker)."""
    reader = gunicorn_body.ChunkedReader
    if getattr(reader, "ningbo_bounded", False):
        return
    parse_size, read_into = reader.parse_chunk_size, reader.read_into

    @wraps(read_into)      # __wrapped__: gunicorn's own, for tests/test_gunicorn_shape.py
    def counted_read_into(self: typing.Any, unreader: typing.Any, buf: bytearray) -> None:
        before = len(buf)
        read_into(self, unreader, buf)
        self.ningbo_read += len(buf) - before

    @wraps(parse_size)
    def parse_chunk_size(self: typing.Any, unreader: typing.Any, data: typing.Any = None) -> typing.Any:
        self.limit_chunk_size_line = MAX_CHUNK_LINE_BYTES
        self.ningbo_chunks = getattr(self, "ningbo_chunks", 0) + 1
        if self.ningbo_chunks > MAX_CHUNKS:
            raise BadChunking(f"more than {MAX_CHUNKS} chunks")
        self.ningbo_read = 0
        size, rest = parse_size(self, unreader, data)
        # the size line's length: what was there and read, less what follows it and its CRLF
        if size and len(data or b"") + self.ningbo_read - len(rest) - 2 > MAX_CHUNK_LINE_BYTES:
            raise BadChunking(f"a chunk size line over {MAX_CHUNK_LINE_BYTES} bytes")
        if size > MAX_CHUNK_BYTES:
            raise BadChunking(f"a chunk of {size} bytes, over the largest body taken ({MAX_CHUNK_BYTES})")
        return size, rest

    reader.read_into = counted_read_into
    reader.parse_chunk_size = parse_chunk_size
    reader.ningbo_bounded = True


def _no_server_header() -> None:
    """No ``Server`` header on any answer (gunicorn always sends its name and version)."""
    response = gunicorn_wsgi.Response
    if getattr(response, "ningbo_no_server", False):
        return
    default_headers = response.default_headers

    @wraps(default_headers)
    def headers(self: typing.Any) -> list[str]:
        return [h for h in default_headers(self) if not h.startswith("Server:")]

    response.default_headers = headers
    response.ningbo_no_server = True


class WriteTimeout(BaseException):
    """The answer was not written within its deadline (:func:`write_deadline`).  Not an
    Exception, as gevent's Timeout is not: gunicorn's handler would log it as an error."""


def write_deadline(length: int | None) -> float:
    """Seconds allowed for writing an answer of ``length`` bytes (unknown: as for 1 MiB)."""
    return current().write_timeout + (length if length is not None else 1024 * 1024) / MIN_WRITE_RATE


#: the WSGI environ key of the kept-alive turn a request holds while the app runs
KEPT_TURN_ENV = "ningbo_score.kept_alive_turn"


def take_turn(environ: typing.MutableMapping[str, typing.Any], turns: typing.Any) -> None:
    """Wait for one of ``turns`` (a kept-alive request's, :data:`KEPT_ALIVE_AT_ONCE`)."""
    turns.acquire()
    environ[KEPT_TURN_ENV] = turns
    gevent.sleep(YIELD_S)           # handed over by a callback: let the worker poll its sockets first


def give_turn(environ: typing.MutableMapping[str, typing.Any]) -> typing.Any:
    turns = environ.pop(KEPT_TURN_ENV, None)
    if turns is not None:
        turns.release()
    return turns


class turn_given_up:
    """A context in which the request holds no kept-alive turn (reading its body: a slow body
    must not hold a turn the others wait for); the turn is taken again after it."""

    def __init__(self, environ: typing.MutableMapping[str, typing.Any]) -> None:
        self.environ = environ
        self.turns: typing.Any = None

    def __enter__(self) -> None:
        self.turns = give_turn(self.environ)

    def __exit__(self, *exc: object) -> None:
        if self.turns is not None:
            take_turn(self.environ, self.turns)


#: the WSGI environ key of a request's ``Expect: 100-continue``, answered only when the app reads
CONTINUE_ENV = "ningbo_score.expects_continue"


def send_continue(environ: typing.MutableMapping[str, typing.Any]) -> None:
    """``100 Continue`` to a client that asked for it, sent when the app is about to read a body
    it takes (never for one over the cap: gunicorn sent it before the app ran)."""
    if environ.pop(CONTINUE_ENV, False):
        environ[SOCKET_ENV].sendall(b"HTTP/1.1 100 Continue\r\n\r\n")


# --- gunicorn's own errors as problem+json --------------------------------------------------------

def server_problem(exc: BaseException) -> tuple[int, str, str]:
    """(status, reason phrase, English detail) for an exception gunicorn meets before or around
    the app: the same statuses as gunicorn's own error page (workers/base.py)."""
    e = http_errors
    if isinstance(exc, VersionNotSupported):
        return 505, "HTTP Version Not Supported", f"{exc}."
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
    service's shape: code ``invalid_request`` for a 4xx, ``internal_error`` for a 5xx (the status's
    own code in errors.CODES, which gives the status)."""
    code = HTTP_STATUS_CODES.get(status, "internal_error" if status >= 500 else "bad_request")
    body = ScoreError([_problem(code, detail)]).to_problem("en")
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
                data = sock.recv(min(LINGER_READ_BYTES, left))
            except OSError:
                return
            if not data:
                return
            left -= len(data)
            gevent.sleep(YIELD_S)       # data waiting: the read did not yield


def reset(sock: socket.socket) -> None:
    """Close ``sock`` with a reset when it is closed (SO_LINGER 0): the kernel drops what is
    still unsent, instead of keeping it for a client that does not read."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass


class Evicted(Exception):
    """A connection that had sent nothing, closed to free its slot (:meth:`ServingWorker.make_room`)."""


class _ListenerName(typing.NamedTuple):
    """A listening socket's address, for its connections' handler (:meth:`ServingWorker.handler_for`):
    it answers ``getsockname`` after the socket is closed."""
    name: typing.Any

    def getsockname(self) -> typing.Any:
        return self.name


#: why a TLS setting is refused (:meth:`ServingWorker.check_config`)
TLS_REFUSED = ("TLS is not supported by service.serving.ServingWorker (certfile/keyfile are set): "
               "terminate TLS at the proxy and unset them")


class ServingWorker(GeventWorker):
    """gunicorn's gevent worker with the bounds of this module's docstring."""

    @classmethod
    def check_config(cls, cfg: typing.Any, log: typing.Any) -> None:
        """gunicorn's arbiter calls this at start, before any worker: a TLS setting ends the
        start in one line.  :meth:`run` serves plain sockets (gunicorn's own run would wrap them
        in TLS, but the connection bounds here poll and shut down the raw socket)."""
        if cfg.is_ssl:
            raise SystemExit(TLS_REFUSED)

    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None:
        super().__init__(*args, **kwargs)
        self.settings = current()                 # the master's, read before the fork
        self.connection = gevent.local.local()    # per connection (one greenlet each): served
        self.servers: list[StreamServer] = []
        self.kept_alive_turns = gevent.lock.BoundedSemaphore(KEPT_ALIVE_AT_ONCE)
        #: the greenlets of connections that have not sent a byte yet, oldest first
        self.silent: dict[typing.Any, float] = {}     # greenlet: when it started waiting

    def init_process(self) -> None:
        _bounded_chunks()
        _no_server_header()
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        app: typing.Callable = self.wsgi      # type: ignore[has-type]
        self.wsgi = partial(self.serve, app)

    def serve(self, app: typing.Callable, environ: dict[str, typing.Any], start_response: typing.Any) -> typing.Any:
        """The app, between gunicorn and it: ``100 Continue`` only when the app reads the body;
        an unread body closes the connection after the answer; the answer's write deadline."""
        if getattr(self.connection, "expects_continue", False):
            environ[CONTINUE_ENV] = True
        if getattr(self.connection, "kept_alive", False):
            take_turn(environ, self.kept_alive_turns)
        try:
            result = app(environ, start_response)
        finally:
            give_turn(environ)          # the answer is written without it (a slow reader holds none)
        resp = getattr(start_response, "__self__", None)     # gunicorn's Response
        if resp is not None:
            if not body_finished(environ.get("wsgi.input")):
                resp.force_close()
            timer = gevent.Timeout(write_deadline(resp.response_length), WriteTimeout)
            timer.start()
            self.connection.write_timer = timer
        return result

    # -- timeouts --------------------------------------------------------------------------------

    def timeout_ctx(self) -> gevent.Timeout:
        """The deadline for the next request's line and headers (gunicorn reads them under it)."""
        first = not getattr(self.connection, "served", False)
        return gevent.Timeout(self.settings.header_timeout if first else self.cfg.keepalive, False)

    def handle(self, listener: _ListenerName, client: socket.socket, addr: typing.Any) -> None:
        client.settimeout(self.settings.io_timeout)
        self.connection.served = False
        self.fair_step(self.servers)
        try:
            if self.first_byte(client):
                AsyncWorker.handle(self, listener, client, addr)  # not GeventWorker's: it clears the timeout
            else:
                reset(client)
                client.close()
        finally:
            self.fair_step(self.servers)

    # -- connection slots ----------------------------------------------------------------------------

    def first_byte(self, client: socket.socket) -> bool:
        """Wait, at most ``HEADER_TIMEOUT``, for the connection's first byte, as one of
        the silent connections :meth:`make_room` closes first.  False: closed without a byte."""
        self.make_room()
        poller = _poll_original()
        poller.register(client.fileno(), 0x1)      # POLLIN: sent already (the usual case)
        if poller.poll(0):
            return True
        me = gevent.getcurrent()
        self.silent[me] = time.monotonic()
        try:
            gevent.socket.wait_read(client.fileno(), timeout=self.settings.header_timeout, timeout_exc=Evicted())
            return True
        except Evicted:
            return False
        finally:
            self.silent.pop(me, None)

    def make_room(self) -> None:
        """When a listener's free slots are down to 1/:data:`EVICT_AT_SHARE`, close the oldest
        1/:data:`EVICT_SHARE` of the connections that have sent nothing for
        :data:`EVICT_MIN_AGE_S` or more."""
        for server in self.servers:
            pool = server.pool
            if pool.free_count() > pool.size // EVICT_AT_SHARE or not self.silent:
                continue
            old, closed = time.monotonic() - EVICT_MIN_AGE_S, 0
            for _ in range(max(1, pool.size // EVICT_SHARE)):
                victim = next(iter(self.silent), None)
                if victim is None or self.silent[victim] > old:
                    break
                del self.silent[victim]
                gevent.kill(victim, Evicted)
                closed += 1
            if closed:
                self.log.info("Connection slots nearly full: closed %d connections that had sent nothing", closed)

    def handle_request(self, listener_name: typing.Any, req: typing.Any, sock: socket.socket, addr: typing.Any):
        self.connection.served = True
        check_request(req)
        if req.req_number >= KEEPALIVE_REQUESTS:
            req.force_close()
        # gunicorn would send 100 Continue before the app runs, also for a body over the cap
        self.connection.expects_continue = req._expected_100_continue
        req._expected_100_continue = False
        self.connection.kept_alive = req.req_number > 1
        try:
            try:
                kept = super().handle_request(listener_name, req, sock, addr)
            finally:
                timer = getattr(self.connection, "write_timer", None)
                if timer is not None:
                    timer.close()
                    self.connection.write_timer = None
        except TimeoutError:
            self.log.info("Closing a connection: the client stopped reading or sending for %s s",
                          self.settings.io_timeout)
            raise StopIteration() from None
        except WriteTimeout:
            self.log.info("Closing a connection: the answer was not read within its write deadline")
            reset(sock)            # what is still in the send buffer is dropped, not kept for the client
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
        if status == 500:          # (a 501 or a 505 refuses what the client sent: no fault of ours)
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
            server = StreamServer(s, handle=self.handler_for(s), spawn=pool)
            server.max_accept = MAX_ACCEPT
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
            self.make_room()            # a full pool accepts nothing: no new connection would call it
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

    def handler_for(self, listener: socket.socket) -> typing.Callable[..., None]:
        """The handler of the connections ``listener`` accepts.  It is given the listener's name,
        not the listener: a connection accepted just before a stop may start being handled after
        :meth:`close_listeners` closed the socket, and gunicorn's ``handle`` asks the listener its
        name first (EBADF: the connection was dropped, a reset for the client)."""
        return partial(self.handle, _ListenerName(listener.getsockname()))

    def close_listeners(self) -> None:
        """Stop accepting, take every connection already waiting in the listen queue (each is
        served like any other), then close the listening sockets: from then on a connect is
        refused, not reset."""
        for server in self.servers:
            server.stop_accepting()
        for server, listener in zip(self.servers, self.sockets):
            listener.setblocking(False)
            handle = self.handler_for(listener)
            while True:
                try:
                    client, addr = listener.accept()
                except OSError as err:
                    if err.errno not in (errno.EAGAIN, errno.EWOULDBLOCK) and not isinstance(err, BlockingIOError):
                        self.log.debug("accept while stopping: %s", err)
                    break
                client.setblocking(1)
                server.pool.spawn(handle, client, addr)
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
    connections (service/fair_worker.py)."""



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


def start_liveness(server: typing.Any, host: str, port: int) -> None:
    """``GET /healthz`` on ``host:port``, answered by a thread of gunicorn's master: a serving
    port kept busy (every worker's connections, a CPU-bound loop) can't starve it, and it tells
    whether the workers beat their heartbeat (:func:`liveness_status`).  Called from
    gunicorn.conf.py's ``when_ready`` when ``HEALTH_PORT`` is set."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body = liveness_status(server) if self.path == "/healthz" else (404, b'{"status":"not found"}')
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def send_response(self, code: int, message: str | None = None) -> None:
            self.send_response_only(code, message)          # no Server header
            self.send_header("Date", self.date_time_string())

        def log_message(self, format: str, *args: typing.Any) -> None:
            return None

    class Listener(http.server.ThreadingHTTPServer):
        daemon_threads = True
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

    listener = Listener((host, port), Handler)
    listener.timeout = 2
    threading.Thread(target=listener.serve_forever, name="liveness", daemon=True).start()
    server.log.info("Liveness at http://%s:%s/healthz", host, port)
