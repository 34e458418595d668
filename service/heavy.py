"""Heavy work shared fairly in a gevent worker: one item at a time, one client after another, in a
bounded queue with a time limit (the heavy turns of service/serving.py's worker).

A request is heavy when its route says so (a batch, a session, the waits or analysis of an
expensive hand: service/routes.py) or its body is over :data:`HEAVY_BODY_BYTES`.  Once its
body is read it asks for the worker's turn (:meth:`HeavyQueue.take`); it runs while it holds
it, and before each of its items (a hand, a wait, a log) it gives the turn to the next client
in line and waits for it again (:meth:`HeavyQueue.between`).  Light requests never wait, and a
greenlet yields between two items anyway, so the worker looks at its sockets at least once an
item (an item is at most ~20 ms of CPU: bench/README.md).

- **A share per client.**  Each client has its own line, and before each item the turn goes to
  the waiting client that held it least lately (its seconds of turn, halved every
  :data:`USAGE_HALF_LIFE_S`): clients that flood take turns one item each, and a client that
  asks for little (a one-hand batch, the waits of a 3-caishen hand) runs its items one after
  another ahead of them, as if it were alone, until it has used as much.  A client is its
  connection, or, behind a proxy whose forwarding headers are believed (``FORWARDED_ALLOW_IPS``),
  the address the proxy forwarded for (:func:`client_of`).
- **A bounded queue.**  At most :data:`MAX_WAITING` requests wait for a first turn in a worker,
  and at most :data:`MAX_WAITING_PER_CLIENT` of one client; past either the request is shed at
  once: 503 ``overloaded`` with ``Retry-After`` (:class:`service.turns.Overloaded`), in the
  client's language.
- **A time limit.**  A request that waited :data:`MAX_WAIT_S` for its first turn is shed the
  same way (its work has not started).
- **Stopping.**  When the worker is told to stop, heavy work goes on until
  :data:`STOP_MARGIN_S` before the graceful timeout ends, each request run to its end (the
  started ones first, then the others in the order they came: as many finished as time
  allows, where sharing item by item would finish none late); then every request still waiting
  for a first turn is shed, a started one at its next item and a new one at once
  (:meth:`HeavyQueue.stop`): an answer is a 503 to retry elsewhere, never a cut connection.
"""
from __future__ import annotations

import collections
import contextlib
import time
import typing

import gevent
import gevent.event

from service.turns import ClientGone, Environ, Overloaded

#: bodies over this many bytes make a request heavy (a full /v1/score body is under 2 KiB)
HEAVY_BODY_BYTES = 8 * 1024
#: requests waiting for a first turn in one worker, in all and per client
MAX_WAITING = 64
MAX_WAITING_PER_CLIENT = 8
#: how long a request may wait for its first turn (s)
MAX_WAIT_S = 10.0
#: the turn goes to the waiting client that held it least lately: its seconds of turn, halved
#: every USAGE_HALF_LIFE_S; at most MAX_CLIENTS_KEPT clients remembered
USAGE_HALF_LIFE_S = 2.0
MAX_CLIENTS_KEPT = 1024
#: a stopping worker starts no heavy item later than this before its graceful timeout ends (the
#: answers, 503s included, are written in what is left)
STOP_MARGIN_S = 2.0
#: Retry-After of a shed request (s): a full queue, and a worker that stops (retry elsewhere)
RETRY_AFTER_S = 2
RETRY_AFTER_STOPPING_S = 1
#: a timer's delay (s) for a yield: gevent runs zero-delay callbacks by the dozen before it polls
#: its sockets again, while expired timers wait for the next turn of the loop, after the poll
YIELD_S = 1e-6
#: the WSGI environ keys of a request's turn and of its client
TURN_ENV = "ningbo_score.heavy_turn"
FORWARDED_ORIG = "werkzeug.proxy_fix.orig"


def client_of(environ: Environ) -> str:
    """Whose share a request takes: the address a trusted proxy forwarded for (service/factory.py's
    TrustedProxyFix rewrote ``REMOTE_ADDR`` and kept the original), else its connection."""
    if FORWARDED_ORIG in environ:
        return f"for:{environ.get('REMOTE_ADDR', '')}"
    return f"conn:{environ.get('REMOTE_ADDR', '')}:{environ.get('REMOTE_PORT', '')}"


class _Waiter:
    __slots__ = ("client", "event", "started", "shed")

    def __init__(self, client: str, started: bool) -> None:
        self.client = client
        self.event = gevent.event.Event()
        self.started = started          # a request between two of its items (not shed by the limits)
        self.shed = False               # woken by stop(), without the turn


class HeavyQueue:
    """One turn of heavy work per worker, handed round the waiting clients (module docstring)."""

    def __init__(self, client_gone: typing.Callable[[Environ], bool] = lambda environ: False,
                 idle: typing.Callable[[Environ], typing.ContextManager[None]] | None = None) -> None:
        self.client_gone = client_gone
        self.idle = idle or (lambda environ: contextlib.nullcontext())    # around a wait (the worker's
        # kept-alive turn is given up meanwhile)
        self.busy = False
        self.lines: dict[str, collections.deque[_Waiter]] = {}
        self.order: collections.deque[str] = collections.deque()     # clients with a waiter, in turn
        self.waiting = 0                # waiters for a first turn
        self.waiting_of: collections.Counter[str] = collections.Counter()
        self.stop_at: float | None = None    # when stopping: the time past which no item starts
        self.usage: dict[str, tuple[float, float]] = {}   # client: (seconds of turn used, as of when)
        self.holder: str | None = None       # the client holding the turn, since when
        self.since = 0.0

    # -- the line --------------------------------------------------------------------------------

    def _queue(self, waiter: _Waiter, front: bool) -> None:
        line = self.lines.setdefault(waiter.client, collections.deque())
        if front:
            line.appendleft(waiter)
        else:
            line.append(waiter)
        if waiter.client not in self.order:
            self.order.append(waiter.client)

    def _used(self, client: str, now: float) -> float:
        """Seconds of the turn ``client`` held lately (halved every :data:`USAGE_HALF_LIFE_S`)."""
        found = self.usage.get(client)
        if found is None:
            return 0.0
        value, stamp = found
        return value * 0.5 ** ((now - stamp) / USAGE_HALF_LIFE_S)

    def _charge(self, now: float) -> None:
        """Add the time since the holder got the turn to its client's usage."""
        if self.holder is None:
            return
        self.usage[self.holder] = (self._used(self.holder, now) + (now - self.since), now)
        if len(self.usage) > MAX_CLIENTS_KEPT:        # forget the clients that used least
            keep = sorted(self.usage, key=lambda c: self._used(c, now), reverse=True)[:MAX_CLIENTS_KEPT // 2]
            self.usage = {c: self.usage[c] for c in keep}

    def _hand_over(self) -> None:
        """The turn to the waiting client that used it least lately (the first in line of equals),
        or free."""
        now = time.monotonic()
        self._charge(now)
        best, best_used = None, 0.0
        for client in list(self.order):
            if not self.lines.get(client):
                self.order.remove(client)
                self.lines.pop(client, None)
                continue
            # stopping: a started request first (its work is half done), else the first in line
            used = (0.0 if self.lines[client][0].started else 1.0) if self.stop_at is not None \
                else self._used(client, now)
            if best is None or used < best_used:
                best, best_used = client, used
        if best is None:
            self.busy, self.holder = False, None
            return
        line = self.lines[best]
        waiter = line.popleft()
        self.order.remove(best)
        if line:
            self.order.append(best)
        else:
            del self.lines[best]
        self.holder, self.since = best, now
        waiter.event.set()              # the turn is the waiter's now (busy stays True)

    def _leave(self, waiter: _Waiter) -> None:
        line = self.lines.get(waiter.client)
        if line is not None and waiter in line:
            line.remove(waiter)
            if not line:
                del self.lines[waiter.client]

    def _wait(self, waiter: _Waiter, timeout: float | None) -> bool:
        """Wait for the turn; False when ``timeout`` ran out first (the waiter left the line)."""
        if waiter.event.wait(timeout):
            return True
        if waiter.event.is_set():       # handed over just as the time ran out: it is ours
            return True
        self._leave(waiter)
        return False

    # -- what a request calls ----------------------------------------------------------------------

    def take(self, environ: Environ) -> None:
        """Wait for a first turn (once per request), or raise :class:`Overloaded`."""
        if environ.get(TURN_ENV):
            return
        client = client_of(environ)
        if self.stopping():
            raise Overloaded("this worker is stopping.", "本进程正在停止。", RETRY_AFTER_STOPPING_S)
        if self.busy:
            if self.waiting >= MAX_WAITING:
                raise Overloaded(f"{MAX_WAITING} heavy requests are waiting already.",
                                 f"已有 {MAX_WAITING} 个繁重请求在等待。", RETRY_AFTER_S)
            if self.waiting_of[client] >= MAX_WAITING_PER_CLIENT:
                raise Overloaded(f"this client has {MAX_WAITING_PER_CLIENT} heavy requests waiting already.",
                                 f"该客户端已有 {MAX_WAITING_PER_CLIENT} 个繁重请求在等待。", RETRY_AFTER_S)
            waiter = _Waiter(client, started=False)
            self._queue(waiter, front=False)
            self.waiting += 1
            self.waiting_of[client] += 1
            try:
                with self.idle(environ):
                    got = self._wait(waiter, MAX_WAIT_S)
            finally:
                self.waiting -= 1
                self.waiting_of[client] -= 1
                if not self.waiting_of[client]:
                    del self.waiting_of[client]
            if not got:
                raise Overloaded(f"the request waited {MAX_WAIT_S:g} s for its turn.",
                                 f"请求等待了 {MAX_WAIT_S:g} 秒仍未轮到。", RETRY_AFTER_S)
            if waiter.shed:                       # woken by stop(), without the turn
                raise Overloaded("this worker is stopping.", "本进程正在停止。", RETRY_AFTER_STOPPING_S)
        else:
            self.busy, self.holder, self.since = True, client, time.monotonic()
        environ[TURN_ENV] = True
        # the turn may have been handed over by a callback: let the worker poll its sockets
        # before this request's work starts (a chain of handovers would otherwise run without one)
        gevent.sleep(YIELD_S)
        if self.client_gone(environ):
            raise ClientGone()

    def release(self, environ: Environ) -> None:
        if environ.pop(TURN_ENV, False):
            self._hand_over()

    def between(self, environ: Environ) -> typing.Callable[[], None]:
        """Before each item: the next client's item first (when one waits), back in line at the
        front of this client's own; stopped (503) past the stop's deadline, dropped (499) when
        the client has gone."""
        sleep = gevent.sleep

        fresh = [True]          # the first item runs on the turn just taken

        def before_each() -> None:
            sleep(YIELD_S)              # the worker polls its sockets: new requests get in line
            if fresh[0]:
                fresh[0] = False
            elif environ.get(TURN_ENV) and self.order and self.stop_at is None:   # stopping: run to the end
                waiter = _Waiter(client_of(environ), started=True)
                self._queue(waiter, front=True)
                self._hand_over()
                with self.idle(environ):
                    self._wait(waiter, None)
            if self.stopping():
                raise Overloaded("this worker is stopping.", "本进程正在停止。", RETRY_AFTER_STOPPING_S)
            if self.client_gone(environ):
                raise ClientGone()

        return before_each

    def stop(self, graceful_s: float) -> None:
        """The worker was told to stop, with ``graceful_s`` left: heavy work goes on as before
        until :data:`STOP_MARGIN_S` before the end (what is in flight finishes when it can);
        then every request still waiting for a first turn is shed, and so is a started one at
        its next item, and a new one at once."""
        delay = max(0.0, graceful_s - STOP_MARGIN_S)
        self.stop_at = time.monotonic() + delay
        if delay:
            gevent.spawn_later(delay, self._shed_waiting)
        else:
            self._shed_waiting()

    def _shed_waiting(self) -> None:
        for line in list(self.lines.values()):
            for waiter in list(line):
                if not waiter.started:
                    line.remove(waiter)
                    waiter.shed = True
                    waiter.event.set()      # take() raises
        for client in [c for c, line in self.lines.items() if not line]:
            del self.lines[client]
        self.order = collections.deque(c for c in self.order if c in self.lines)

    def stopping(self) -> bool:
        """Past the stop's deadline: no item starts."""
        return self.stop_at is not None and time.monotonic() >= self.stop_at
