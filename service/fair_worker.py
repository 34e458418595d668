"""Connections shared fairly among gunicorn's workers (the mixin of serving.FairServingWorker).

Every worker of gunicorn polls the same listening socket, and whichever wakes first takes the
connection.  With keep-alive clients (a live-table backend, a load balancer, wrk) the
connections are opened in a burst and then kept, so one worker may end up holding all of them
while the others idle: in the load test that halved the throughput in some runs and doubled the
p99.  Here each worker publishes how many connections it holds in a small shared memory table,
and it stops accepting while it holds more than ``SLACK`` connections (or a ``SLACK_SHARE``-th,
if more) over the least loaded live worker; the others then take the new connections.  A
worker is live while its flag is up **and** it beat within ``STALE_S`` (it beats from its main
loop every 50 ms at most): a worker that died counts for nothing at once, also while the
master has not yet reaped or replaced it, so a death never shrinks what the others accept
(before, a dead worker's count of 0 kept the survivor from accepting past 2 connections until
the master replaced it).  A worker
looks again whenever one of its connections opens or closes, and every ``RECHECK_S`` seconds
while it does not accept.  There is always a worker that
accepts: the least loaded one.

The table lives in an anonymous shared mapping made when gunicorn's master imports this module
(the workers are forked from it).  The master gives each new worker a free slot
(:func:`assign_slot`, gunicorn's ``pre_fork`` hook); a worker counts as live from the start of
its event loop (its app is loaded by then) until it is told to stop.

**What it was measured to pay** (bench/README.md, 2 workers on a 2-core machine; no newer figure):

- 32 kept-alive connections opened in a burst: 16/16 or 15/17 per worker with it, 28–31 on one
  worker without it (``serving.ServingWorker``, five runs; "fair_worker.py measured again").
  ``tests/server/test_gunicorn_e2e.py::test_keep_alive_connections_are_shared_between_the_workers``
  holds it to 16 ± 3.
- ``bench/load.py`` (connections reopened every 100 requests, so both share about evenly):
  ``/v1/score`` p90 15.0–15.9 ms with it against 17.4–19.6 ms without, in two alternating pairs;
  req/s (2,344–2,464 against 2,283–2,483) and the p99 within the run-to-run spread
  ("fair_worker.py against the fix").
- Under gthread workers (before issue 14) it took ``/healthz`` from 945 to about 1,900 req/s;
  not measured again with gevent workers beyond the two rows above.
"""
from __future__ import annotations

import mmap
import typing

import time

MAX_SLOTS = 256
STALE_S = 1.0           # a worker that has not beaten for this long counts as dead
SLACK = 2               # connections a worker may hold over the least loaded live worker,
SLACK_SHARE = 4         # or a quarter of what that one holds, if more: hundreds of idle or slow
                        # connections then rarely stop a worker from accepting
RECHECK_S = 0.01        # how often a worker that does not accept looks again

# [0]: how many slots have ever been given out (the master writes it); slot i: [1 + 3i] live (1)
# or not (0), [2 + 3i] connections held, [3 + 3i] its last beat (time.monotonic_ns(): the
# clock is the machine's, the same in every process); its worker writes them.
STRIDE = 3
_table = memoryview(mmap.mmap(-1, (1 + STRIDE * MAX_SLOTS) * 8)).cast("q")


def assign_slot(server: typing.Any, worker: typing.Any) -> None:
    """gunicorn ``pre_fork`` (master): give the new worker the lowest slot no live worker has."""
    used = {getattr(w, "fair_slot", None) for w in server.WORKERS.values()}
    free = next((i for i in range(MAX_SLOTS) if i not in used), None)
    worker.fair_slot = free
    if free is not None:
        _table[1 + STRIDE * free] = 0
        _table[2 + STRIDE * free] = 0
        _table[3 + STRIDE * free] = 0
        _table[0] = max(_table[0], free + 1)


def fair_to_accept(mine: int, slot: int, table: typing.Sequence[int] = _table, now_ns: int | None = None) -> bool:
    """May the worker in ``slot`` holding ``mine`` connections accept one more?  Only the other
    live workers count: flag up and a beat within :data:`STALE_S` of ``now_ns``."""
    fresh = (time.monotonic_ns() if now_ns is None else now_ns) - int(STALE_S * 1e9)
    least = None
    for i in range(1, 1 + STRIDE * table[0], STRIDE):
        if table[i] and table[i + 2] > fresh and i != 1 + STRIDE * slot:
            held = table[i + 1]
            if least is None or held < least:
                least = held
    return least is None or mine <= least + max(SLACK, least // SLACK_SHARE)


class FairShare:
    """A mixin for :class:`serving.ServingWorker` (gevent): the worker publishes how many
    connections its servers hold and stops accepting while that is more than its share.
    ``fair_start``/``fair_step``/``fair_stop`` are called from the worker's main loop."""

    fair_slot: int | None = None
    fair_accepting = True
    alive: bool

    def _publish(self, held: int, live: bool) -> None:
        if self.fair_slot is not None:
            base = 1 + STRIDE * self.fair_slot
            _table[base + 1] = held
            _table[base + 2] = time.monotonic_ns()
            _table[base] = int(live)

    def fair_start(self) -> None:
        self._publish(0, True)

    def fair_stop(self) -> None:
        self._publish(0, False)       # stopping: the others stop waiting for this one

    def handle_exit(self, sig, frame) -> None:
        self.fair_stop()
        super().handle_exit(sig, frame)  # type: ignore[misc]

    def fair_step(self, servers: typing.Sequence[typing.Any]) -> None:
        """Publish the connections held and start or stop accepting on ``servers``."""
        if self.fair_slot is None or not self.alive:
            return
        held = sum(server.pool.size - server.pool.free_count() for server in servers)
        self._publish(held, True)
        fair = self.fair_accepting = fair_to_accept(held, self.fair_slot)
        for server in servers:
            if fair:
                server.start_accepting()    # gevent: nothing when it accepts already
            else:
                server.stop_accepting()
