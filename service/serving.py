"""The server side of the service: gunicorn's gevent worker, made to survive real clients.

Phones on slow networks are the normal client, so a connection that trickles its headers, sits
idle or never reads its answer must cost a parked greenlet, not a thread or a worker.  The
worker (:class:`ServingWorker`, ``worker_class`` in gunicorn.conf.py) is gunicorn's gevent worker
(one process per core, up to ``worker_connections`` connections each, every socket wait
cooperative) with these bounds.  The service package splits it by concern: this module (the
worker: deadlines, connections, the turns it gives the app), service/turns.py (what the app asks
of it, with a no-op default: the web layer imports neither gevent nor gunicorn),
service/heavy.py (heavy work shared fairly), service/http_strict.py (RFC 9112 where gunicorn is
laxer, its refusals as problems), service/gunicorn_patches.py (every patch of gunicorn's
internals, with its reason and the test that pins it), service/fair_worker.py (connections shared
among the workers) and service/listeners.py (the master's metrics and liveness listeners).

- **Header deadline.**  The request line and headers of a connection's first request must be in
  within ``HEADER_TIMEOUT`` of the connect; on a kept-alive connection the next request's
  headers within gunicorn's ``keepalive`` of the previous answer.  Past it the connection is
  closed without an answer (the client was too slow to have sent a request).
- **Socket inactivity.**  Every read and write of a connection waits at most
  ``IO_TIMEOUT`` for progress (a body that stops coming, an answer nobody reads).
- **Body deadline.**  The whole body must be in within ``BODY_TIMEOUT`` of the app's
  first read (:meth:`GeventTurns.body_deadline`): then the answer is 408 ``request_timeout``.
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
- **Heavy work shared fairly** (service/heavy.py): heavy requests take the worker's one turn
  item by item, round the clients that wait, in a bounded queue with a time limit; past it a
  503 ``overloaded`` with ``Retry-After``.  Long loops of CPU (loading a batch's items, the
  shape check of a large body) yield between their parts (:meth:`GeventTurns.pause`).
- **Write deadline.**  An answer must be written within ``WRITE_TIMEOUT`` plus its size
  over :data:`MIN_WRITE_RATE` (:func:`write_deadline`); past it the connection is closed.
- **Bounded kernel memory per connection.**  A connection's send buffer is
  :data:`SEND_BUFFER_BYTES` (``SO_SNDBUF``: no autotuning up to 4 MiB), so an answer written
  whole leaves at most that much in the kernel; when the connection is closed, what is still
  unsent must drain within :data:`DRAIN_S` plus its size over :data:`MIN_WRITE_RATE`, else the
  connection is reset (``SO_LINGER`` 0: the kernel drops it, :func:`close_drained`), instead of
  an orphaned socket keeping it for minutes for a client that never reads.
- **Unread bodies.**  A body the app did not read to its end (a GET's, one over the cap) closes
  the connection after the answer (``Connection: close``; gunicorn would drain it with no
  deadline); ``100 Continue`` is sent only when the app is about to read a body it takes
  (:func:`send_continue`), never for one over the cap.
- **Strict HTTP** (service/http_strict.py) and **bounded chunked framing**
  (service/gunicorn_patches.py); no ``Server`` header.
- **Connection slots.**  A connection waits for its first byte as a *silent* one; when a
  listener's free slots are down to a twentieth, the oldest silent tenth are closed
  (:meth:`ServingWorker.make_room`), so idle sockets can't hold every slot.  A worker accepts
  up to :data:`MAX_ACCEPT` connections at each look at its listener, and runs the app for at
  most :data:`KEPT_ALIVE_AT_ONCE` kept-alive requests at once (a new connection's first request
  takes no turn; none is held while a body is read, a heavy turn awaited or an answer
  written), so pipelined requests can't starve new connections.  A connection closed at
  its write deadline is reset (its unsent bytes dropped, :func:`reset`).
- **Lingering close.**  A connection closed after its answer first ends its sending side and
  reads what the client still sends (at most :data:`LINGER_S`, :data:`LINGER_BYTES`), so a
  client still sending a refused body gets the answer instead of a reset.
- **gunicorn's own errors as problems.**  What gunicorn refuses before the app sees a request
  is answered as ``application/problem+json`` (service/http_strict.py's ``server_problem``),
  not gunicorn's HTML page.
- **Listener first on SIGTERM.**  The worker stops accepting at once, serves what is already in
  the listen queue, and closes the listening socket: a later connect is refused, not reset;
  in-flight requests finish within ``graceful_timeout``, and heavy work that can't (still
  waiting, or past its next item, 2 s before the end) is shed with a 503 and ``Retry-After``
  (service/heavy.py), never cut.
"""
from __future__ import annotations

import errno
import fcntl
import socket
import struct
import termios
import time
import typing
from functools import partial

import gevent
import gevent.local
import gevent.lock
import gevent.monkey
import gevent.socket
from gevent.pool import Pool
from gevent.server import StreamServer
from gunicorn.http import errors as http_errors
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker
from werkzeug.exceptions import BadRequest

from ningbo_score import ScoreError
from service import fair_worker, gunicorn_patches, turns
from service.heavy import HEAVY_BODY_BYTES, YIELD_S, HeavyQueue
from service.http_strict import check_request, problem_bytes, server_problem
from service.settings import current
from service.turns import BodyTimeout, Environ, _problem


#: the deadlines are settings (HEADER_TIMEOUT, IO_TIMEOUT, BODY_TIMEOUT, WRITE_TIMEOUT, in seconds:
#: service/settings.py); an answer must be written within WRITE_TIMEOUT plus its size over
#: MIN_WRITE_RATE (bytes a second): 10 s for a small answer, 42 s for a 1 MiB one
MIN_WRITE_RATE = 32 * 1024
#: a connection's send buffer (SO_SNDBUF; Linux doubles it for its bookkeeping): two seconds of
#: MIN_WRITE_RATE
SEND_BUFFER_BYTES = 2 * MIN_WRITE_RATE
#: a closed connection's unsent bytes must drain within this, plus their size over MIN_WRITE_RATE
#: (at most about 4 s more for a full buffer), else the connection is reset; looked at this often
DRAIN_S = 1.0
DRAIN_POLL_S = 0.1
KEEPALIVE_REQUESTS = 100
LINGER_S = 2.0
LINGER_BYTES = 2 * 1024 * 1024
#: read at most this much at a time while lingering, yielding between reads (a gevent read
#: that finds data waiting does not yield)
LINGER_READ_BYTES = 64 * 1024
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
#: seconds).  A turn is not held while the body is read (turn_given_up), while a heavy turn is
#: awaited, nor while the answer is written: slow clients hold none.
KEPT_ALIVE_AT_ONCE = 16

#: the WSGI environ key of the client socket under gunicorn
SOCKET_ENV = "gunicorn.socket"


# --- the turns the worker gives the app (service/turns.py) -----------------------------------------

class GeventTurns(turns.Turns):
    """service/turns.py's interface in this worker: deadlines on the body, no kept-alive turn
    held while it is read, ``100 Continue`` when it is, heavy work in the fair queue
    (service/heavy.py), a timer's yield in long loops."""

    #: what reading a body can raise besides a problem: gunicorn's framing errors (a bad chunk
    #: size or extension, a missing CRLF, a bad trailer), a short body (``NoMoreData`` is an
    #: OSError), a socket that timed out or was reset
    read_errors = (http_errors.ParseException, OSError, BadRequest)

    def __init__(self) -> None:
        self.heavy = HeavyQueue(client_gone, turn_given_up)

    def body_deadline(self) -> typing.ContextManager[None]:
        return gevent.Timeout(current().body_timeout, BodyTimeout)

    def reading(self, environ: Environ) -> typing.ContextManager[None]:
        return turn_given_up(environ)

    def body_problem(self, err: BaseException) -> ScoreError:
        if isinstance(err, http_errors.ParseException) and not isinstance(err, http_errors.NoMoreData):
            why_zh = _CHUNK_ERRORS_ZH.get(type(err).__name__, "无法读取")
            return ScoreError([_problem("invalid_request", f"The chunked body is malformed: {err}.",
                                        f"分块传输的请求体格式错误：{why_zh}。")])
        return super().body_problem(err)

    def send_continue(self, environ: Environ) -> None:
        send_continue(environ)

    def take(self, environ: Environ, body_bytes: int, heavy: bool = False) -> None:
        if heavy or body_bytes > HEAVY_BODY_BYTES:
            self.heavy.take(environ)

    def release(self, environ: Environ) -> None:
        self.heavy.release(environ)

    def between(self, environ: Environ) -> typing.Callable[[], None]:
        return self.heavy.between(environ)

    def pause(self) -> None:
        gevent.sleep(YIELD_S)


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


#: ioctl: the bytes of a socket's send queue not yet acknowledged by the peer (SIOCOUTQ)
_OUTQ = termios.TIOCOUTQ


def unsent(sock: socket.socket) -> int:
    """Bytes ``sock`` holds in the kernel for its peer (sent but not acknowledged, or not sent)."""
    return struct.unpack("i", fcntl.ioctl(sock.fileno(), _OUTQ, b"\0\0\0\0"))[0]


def close_drained(sock: socket.socket) -> None:
    """Before ``sock`` is closed: wait (cooperatively) for what it still holds for its peer to
    drain, at most :data:`DRAIN_S` plus its size over :data:`MIN_WRITE_RATE`; if it does not,
    reset the connection, so the kernel drops those bytes at the close instead of keeping an
    orphaned socket for a client that never reads (minutes of retries)."""
    try:
        left = unsent(sock)
    except OSError:
        return
    if not left:
        return
    deadline = time.monotonic() + DRAIN_S + left / MIN_WRITE_RATE
    while time.monotonic() < deadline:
        gevent.sleep(DRAIN_POLL_S)
        try:
            if not unsent(sock):
                return
        except OSError:
            return
    reset(sock)


class DrainedSocket(gevent.socket.socket):
    """A connection's gevent socket whose close waits for its unsent bytes to drain, or resets
    it (:func:`close_drained`).  gunicorn closes a connection in several places (the end of its
    keep-alive loop, an error); the worker gives each accepted socket this class, so every one of
    them goes through it."""
    __slots__ = ()

    def close(self) -> None:
        if not self._closed:
            close_drained(self)
        super().close()


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
        gunicorn_patches.install()
        turns.install(GeventTurns())
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
            if not gunicorn_patches.body_finished(environ.get("wsgi.input")):
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
        try:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
        except OSError:
            pass
        if type(client) is gevent.socket.socket:
            client.__class__ = DrainedSocket        # its close drains or resets (same slots)
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
        heavy = getattr(turns.get(), "heavy", None)
        if heavy is not None:
            heavy.stop(self.cfg.graceful_timeout)   # what cannot finish in time is shed (503)
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
