#!/usr/bin/env python3
"""Hostile and unlucky clients against the real server on 127.0.0.1, with figures.

Run from the project root:  ``.venv/bin/python bench/attack.py``  (``--help`` for options)

Starts the server the way ``make run`` does (``make run`` itself, HOST=127.0.0.1, a PORT and a
METRICS_PORT of its own, WEB_CONCURRENCY=2), or drives one already running (``--url``).  Every
scenario runs for a bounded time, on loopback only, while two probes ask, one request at a time
on a fresh connection each: ``GET /healthz`` and a cheap ``POST /v1/score`` (API.md's worked
example).  A probe that takes over ``--probe-timeout`` seconds or gets anything but 200 is a
failure.  Targets (PASS/FAIL): each probe's p99 ≤ 1 s and no failure; each worker's peak RSS
under 2 × its steady RSS; one bad body alone (median of 5) within 100 ms and a 64 KiB answer
(the 64 KiB body) or 1 s and a 1 MiB answer (the 1 MiB batch).

Scenarios, in this order (``--only`` picks some):

1. **slow**: 200 clients trickling header bytes (one byte a second), 200 idle connections
   (connected, sending nothing) and 8 clients sending a 1 MiB batch and never reading the answer,
   all at once; each reconnects when the server closes it (for ``--duration`` seconds).
2. **heavy**: 32 connections sending valid 200-hand batches of 7-caishen hands (preset
   ningbo-7baida, 64 different batches) for 15 s, and the probes.
3. **gone**: 16 clients that send a heavy batch and close at once; the probes, and how many of
   the batches the server still scored to the end (its access log: 499 = dropped).
4. **bad bodies** (last: what it leaves running would weigh on the others): one at a time, then
   32 connections for 15 s:
   - ``POST /v1/score`` with 64 KiB of 21,800 ``{}`` melds,
   - ``POST /v1/score/batch`` with a 1 MiB batch of 200 bad items (each a score request with
     ``{}`` melds);
   time and answer size of each (median of 5), then the probes and each worker's RSS (largest
   seen) against its steady RSS (before the scenario).

5. **replay** (``--only replay``, or with the others): ``POST /v1/replay`` with a log of 400
   events of noise (the first illegal at event 1) and ``POST /v1/replay/batch`` with 50 such
   logs padded to 1 MiB, one at a time (targets as the bad bodies'), then 32 connections for
   ``--duration`` s: 8 of each of those and 16 sending valid 50-log batches of generated hands
   (tests/replaygen.py); the probes and each worker's RSS.

6. Issue 26's low items (``--only strict``, ``config``, ``recycle``, or with the others):

   - **strict**: a request line ``HTTP/1.2`` (505, not echoed in the status line), HTTP/1.1
     without ``Host`` (400), ``Transfer-Encoding: gzip, chunked`` (501 or 400, the body not
     passed on), a chunk size ``ffffffffffffffffff`` (a 4xx within 1 s), a repeated JSON key (400
     naming it), a ``caishen.kinds`` of 32,686 integers (a 4xx within 100 ms, one problem, answer
     ≤ body); each alone (median of 5), then 16 connections looping on them for ``--duration``
     s; no answer of the scenario carries a ``Server`` header.
   - **config**: the service started as the server here is (``make run``, or with
     ``--no-install`` what it execs) with PORT=70000, WEB_CONCURRENCY=abc, IO_TIMEOUT=inf,
     LOG_LEVEL=loud, or the attacked server's (taken) PORT: each exits non-zero within 60 s,
     its output's last line (make's own ``make: ***`` lines aside) names the variable, no
     ``Traceback``.
   - **recycle**: 10 SIGHUPs of the master, one every 2 s (gunicorn replaces every worker),
     the probes beside; then PROMETHEUS_MULTIPROC_DIR holds the live processes' files and
     ``*_archive.db`` only (none named after a dead pid), and the metrics listener's
     ``ningbo_score_http_requests_total`` for the probes' ``POST /v1/score`` never went
     backwards (scraped before, after each SIGHUP and after).  Needs the server started here.

7. Issue 41's (``--only kernel``, ``fair``, ``shape``, ``scrape``, ``deadshare``, ``lows``,
   ``sigterm``, or with the others; ``sigterm`` last, since it stops the server):

   - **kernel**: 200 GETs of /openapi.yaml never read, the sockets kept open, watched for 20 s:
     the kernel's TCP memory (/proc/net/sockstat, pages), orphaned sockets, and the server's side's
     send queues (/proc/net/tcp): at most 200 × 2 × 64 KiB, none left at the end.
   - **fair**: 8 clients flooding /v1/analyze with every kind a caishen, and beside the usual
     probes a one-hand batch and a 3-caishen /v1/waits asked the same way (p99 ≤ 1 s each).
   - **shape**: a 1 MiB body of 340,000 empty arrays, a 1 MiB replay batch of claims with 3
     declined claims each, and one with them on every 10th event, alone (median of 5), then 8
     connections of each.
   - **scrape**: 300 half-sent request lines and 200 looping scrapers on the metrics listener, an
     HTTP/0.9 request line, then a worker killed: replaced within 2 s.
   - **deadshare**: the master stopped (SIGSTOP), a worker killed, 20 kept-alive clients: 40 new
     connections each answered; then SIGCONT.
   - **lows**: ``gzip;q=0``, a plain body labelled ``Content-Encoding: gzip``, openapi.yaml's 200
     and 304, the ETags of a file's plain and gzip forms, ``Range: bytes=-0``.
   - **sigterm**: 80 heavy batches in flight, then SIGTERM: every answer 200 or 503, none cut.

``--root DIR --no-install --venv ABS`` starts the server from another checkout (a before run).

Prints every figure and writes them to bench/results/attack.txt (``--results``).
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import handgen  # noqa: E402
from tools import examples  # noqa: E402

RESULTS = ROOT / "bench" / "results"
TARGET_P99_S = 1.0
TARGET_RSS_RATIO = 2.0      # each worker's peak RSS under an attack < 2 × its steady RSS
#: one bad body alone: (time limit in s, answer size limit in bytes), by name (issue 14)
TARGET_SINGLE = {"64 KiB melds": (0.1, 64 * 1024), "1 MiB bad batch": (1.0, 1024 * 1024),
                 "replay noise": (0.1, 64 * 1024), "1 MiB replay batch": (1.0, 1024 * 1024)}
MiB = 1024 * 1024


# --- bodies --------------------------------------------------------------------------------------

def cheap_body() -> bytes:
    return json.dumps(examples.API_MD, separators=(",", ":")).encode()


def melds_64k() -> bytes:
    """A /v1/score body whose hand has 21,800 empty melds: 64 KiB at most."""
    body = {"hand": {"melds": [{}] * 21_800}}
    data = json.dumps(body, separators=(",", ":")).encode()
    assert len(data) <= 64 * 1024, len(data)
    return data


def bad_batch_1m() -> bytes:
    """A batch of 200 bad items, each with as many ``{}`` melds as fit in 1 MiB."""
    def body(n: int) -> bytes:
        item = {"hand": {"melds": [{}] * n}}
        return json.dumps({"requests": [item] * 200}, separators=(",", ":")).encode()
    n = 1
    while len(body(n * 2)) <= MiB:
        n *= 2
    lo, hi = n, n * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if len(body(mid)) <= MiB else (lo, mid)
    return body(lo)


def heavy_batches(n: int, seed: int) -> list[bytes]:
    """``n`` different valid batches of 200 seeded hands holding 7 caishen."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        hands = [handgen.compact_form(handgen.random_request(rng, n_caishen=7, presets=("ningbo-7baida",)))
                 for _ in range(200)]
        out.append(json.dumps({"requests": hands}, separators=(",", ":")).encode())
    return out


def padded(body: bytes, size: int) -> bytes:
    """``body`` with spaces after it up to ``size`` bytes (still the same JSON)."""
    return body + b" " * max(0, size - len(body))


# --- HTTP over raw sockets -----------------------------------------------------------------------

def request_bytes(host: str, method: str, path: str, body: bytes | None = None, close: bool = True) -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    if close:
        head += "Connection: close\r\n"
    return (head + "\r\n").encode() + (body or b"")


def read_message(sock: socket.socket) -> tuple[str, dict[str, str], bytes]:
    """(status line, headers by lower-case name, body) of one answer on ``sock`` (Content-Length
    framing, as the app answers, or to the close)."""
    data = b""
    while b"\r\n\r\n" not in data:
        part = sock.recv(65536)
        if not part:
            raise ConnectionError(f"closed before the headers ({len(data)} bytes)")
        data += part
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    length = int(headers["content-length"]) if "content-length" in headers else None
    if length is None:
        while part := sock.recv(65536):
            body += part
        return lines[0], headers, body
    while len(body) < length:
        part = sock.recv(min(1 << 20, length - len(body)))
        if not part:
            raise ConnectionError("closed in the body")
        body += part
    return lines[0], headers, body


def read_answer(sock: socket.socket) -> tuple[int, bytes]:
    """(status, body) of one answer on ``sock``."""
    line, _, body = read_message(sock)
    return int(line.split()[1]), body


def one_request(addr: tuple[str, int], data: bytes, timeout: float) -> tuple[int, bytes, float]:
    started = time.perf_counter()
    with socket.create_connection(addr, timeout=timeout) as s:
        s.sendall(data)
        status, body = read_answer(s)
    return status, body, time.perf_counter() - started


# --- probes ----------------------------------------------------------------------------------------

class Probes:
    """Two threads, each asking one request at a time on a fresh connection until stopped."""

    def __init__(self, addr: tuple[str, int], timeout: float, interval: float = 0.05,
                 requests: dict[str, bytes] | None = None) -> None:
        self.addr, self.timeout, self.interval = addr, timeout, interval
        host = f"{addr[0]}:{addr[1]}"
        self.requests = requests or {"GET /healthz": request_bytes(host, "GET", "/healthz"),
                                     "POST /v1/score": request_bytes(host, "POST", "/v1/score", cheap_body())}
        self.times: dict[str, list[float]] = {name: [] for name in self.requests}
        self.failures: dict[str, list[str]] = {name: [] for name in self.requests}
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(name,), daemon=True) for name in self.requests]

    def _run(self, name: str) -> None:
        data = self.requests[name]
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                status, _, took = one_request(self.addr, data, self.timeout)
                if status != 200:
                    self.failures[name].append(f"status {status}")
                self.times[name].append(took)
            except OSError as err:
                self.failures[name].append(f"{type(err).__name__} after {time.perf_counter() - started:.2f} s")
                self.times[name].append(time.perf_counter() - started)
            self.stop.wait(self.interval)

    def __enter__(self) -> Probes:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(self.timeout + 5)

    def lines(self) -> tuple[list[str], bool]:
        out, ok = [], True
        for name, times in self.times.items():
            fails = self.failures[name]
            p = percentiles(times)
            good = bool(times) and p["p99"] <= TARGET_P99_S and not fails
            ok &= good
            out.append(f"  probe {name:15s} n={len(times):4d}  p50 {ms(p['p50'])}  p99 {ms(p['p99'])}  "
                       f"max {ms(p['max'])}  failures {len(fails)}"
                       f"{' (' + '; '.join(sorted(set(fails))[:3]) + ')' if fails else ''}  "
                       f"{'PASS' if good else 'FAIL'} (p99 ≤ {TARGET_P99_S:g} s, no failure)")
        return out, ok


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": float("nan"), "p99": float("nan"), "max": float("nan")}
    v = sorted(values)
    return {"p50": v[len(v) // 2], "p99": v[min(len(v) - 1, int(len(v) * 0.99))], "max": v[-1]}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


# --- the server ------------------------------------------------------------------------------------

def free_port(start: int, stop: int) -> int:
    for port in range(start, stop):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise SystemExit(f"no free port in {start}-{stop - 1}")


class Server:
    """``make run`` on 127.0.0.1 (its own session, so the whole group can be stopped)."""

    def __init__(self, port: int, metrics_port: int, workers: int, venv: str, log: Path,
                 gunicorn_args: str, no_install: bool = False, root: Path = ROOT) -> None:
        self.metrics_dir = tempfile.mkdtemp(prefix="ningbo-attack-prom-")
        env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "METRICS_PORT": str(metrics_port),
               "WEB_CONCURRENCY": str(workers), "PROMETHEUS_MULTIPROC_DIR": self.metrics_dir}
        if gunicorn_args:
            env["GUNICORN_CMD_ARGS"] = gunicorn_args
        self.log = open(log, "wb")
        self.log_path = log
        self.metrics_port = metrics_port
        self.proc = subprocess.Popen(self.command(venv, no_install), cwd=root, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.addr = ("127.0.0.1", port)
        deadline = time.monotonic() + 600         # make run may compile the library first
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"make run exited {self.proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                if one_request(self.addr, request_bytes("x", "GET", "/healthz"), 2)[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the server did not come up")
            time.sleep(0.3)

    @staticmethod
    def command(venv: str, no_install: bool) -> list[str]:
        """``make run``, or with ``no_install`` what make run execs once its venv is installed
        (a shared venv stays as it is)."""
        return [f"{venv}/bin/python", "-m", "service"] if no_install else ["make", "-s", "run", f"VENV={venv}"]

    def master(self) -> int | None:
        """gunicorn's master: the ``python -m service`` process (make execs it, --no-install starts
        it; gunicorn runs in it), or a ``gunicorn`` command's."""
        for pid in [self.proc.pid, *children(self.proc.pid)]:
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"service" in argv[1:3] or any(b"gunicorn" in arg for arg in argv[:2]):
                return pid
        return None

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()
        import shutil

        shutil.rmtree(self.metrics_dir, ignore_errors=True)


def children(pid: int) -> list[int]:
    out = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out += [int(p) for p in (task / "children").read_text().split()]
    except OSError:
        pass
    return out


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class RssWatch:
    """The largest RSS of each worker (children of ``master``) while it runs, sampled every 0.1 s."""

    def __init__(self, master: int | None) -> None:
        self.master = master
        self.steady = {pid: rss_mib(pid) for pid in children(master)} if master else {}
        self.peak = dict(self.steady)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.wait(0.1):
            for pid in children(self.master):
                self.peak[pid] = max(self.peak.get(pid, 0.0), rss_mib(pid))

    def __enter__(self) -> RssWatch:
        if self.master:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.master:
            self.thread.join(5)

    def lines(self) -> tuple[list[str], bool]:
        """The report's lines, and whether every worker stayed under TARGET_RSS_RATIO × its
        steady RSS (a worker started during the scenario has no steady RSS to compare with)."""
        if not self.master:
            return ["  worker RSS: not measured (no server pid)"], True
        out, ok = [], True
        for pid, peak in sorted(self.peak.items()):
            steady = self.steady.get(pid)
            good = not steady or peak < TARGET_RSS_RATIO * steady
            ok &= good
            ratio = f"{peak / steady:.2f}×" if steady else "new worker"
            out.append(f"  worker {pid}: steady {steady or 0:.0f} MiB, peak {peak:.0f} MiB ({ratio})  "
                       f"{'PASS' if good else 'FAIL'} (< {TARGET_RSS_RATIO:g}× steady)")
        return out, ok


# --- attackers ---------------------------------------------------------------------------------------

class Crowd:
    """Threads that each run ``behaviour(stop)`` in a loop (reconnecting) until stopped."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()

    def count(self, key: str) -> None:
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1

    def add(self, n: int, behaviour) -> None:
        for _ in range(n):
            self.threads.append(threading.Thread(target=self._loop, args=(behaviour,), daemon=True))

    def _loop(self, behaviour) -> None:
        while not self.stop.is_set():
            try:
                behaviour(self)
            except OSError as err:
                self.count(type(err).__name__)
                self.stop.wait(0.2)

    def __enter__(self) -> Crowd:
        for t in self.threads:
            t.start()
            time.sleep(0.002)            # a ramp, not a SYN flood
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(20)


def slow_header(addr, host: str):
    head = request_bytes(host, "GET", "/healthz", close=False)

    def run(crowd: Crowd) -> None:
        with socket.create_connection(addr, timeout=30) as s:
            crowd.count("slow-header connections")
            for i in range(len(head)):
                if crowd.stop.is_set():
                    return
                s.sendall(head[i:i + 1])
                if crowd.stop.wait(1.0):
                    return
            read_answer(s)
            crowd.count("slow-header answered")
    return run


def idle(addr):
    def run(crowd: Crowd) -> None:
        with socket.create_connection(addr, timeout=30) as s:
            crowd.count("idle connections")
            s.settimeout(0.5)
            while not crowd.stop.is_set():
                try:
                    if s.recv(1) == b"":
                        crowd.count("idle closed by the server")
                        return
                except TimeoutError:
                    continue
    return run


def non_reading(addr, host: str, body: bytes):
    data = request_bytes(host, "POST", "/v1/score/batch", body, close=False)

    def run(crowd: Crowd) -> None:
        with socket.create_connection(addr, timeout=30) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            crowd.count("non-reading connections")
            s.sendall(data)
            s.settimeout(0.5)
            while not crowd.stop.is_set():     # never read; only notice when the server closes
                try:
                    s.send(b"")
                except OSError:
                    return
                if crowd.stop.wait(0.5):
                    return
                if _closed(s):
                    crowd.count("non-reading closed by the server")
                    return
    return run


def _closed(s: socket.socket) -> bool:
    import select

    poller = select.poll()
    poller.register(s, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
    return bool(poller.poll(0))


def sender(addr, host: str, path: str, bodies: list[bytes], key: str):
    """Sends the bodies one after another on kept-alive connections, reading every answer."""
    turn = iter(range(1 << 30))

    def run(crowd: Crowd) -> None:
        with socket.create_connection(addr, timeout=60) as s:
            while not crowd.stop.is_set():
                body = bodies[next(turn) % len(bodies)]
                s.sendall(request_bytes(host, "POST", path, body, close=False))
                status, _ = read_answer(s)
                crowd.count(f"{key} {status}")
    return run


def quitter(addr, host: str, bodies: list[bytes]):
    """Sends a heavy batch and closes at once, again and again."""
    turn = iter(range(1 << 30))

    def run(crowd: Crowd) -> None:
        with socket.create_connection(addr, timeout=10) as s:
            s.sendall(request_bytes(host, "POST", "/v1/score/batch", bodies[next(turn) % len(bodies)]))
        crowd.count("batches sent and abandoned")
        crowd.stop.wait(0.2)
    return run


# --- scenarios -------------------------------------------------------------------------------------------

def under_attack(crowd: Crowd, addr, duration: float, probe_timeout: float, master, report,
                 settle: float = 0.0, extra: str = "", more_probes: dict[str, bytes] | None = None) -> bool:
    """Runs ``crowd`` (after ``settle`` seconds the probes start, for ``duration`` seconds), then
    reports the probes (and ``more_probes``, by name: each asked the same way), what the attackers
    saw (plus ``extra``) and the workers' RSS."""
    with RssWatch(master) as rss, crowd:
        time.sleep(settle)
        with Probes(addr, probe_timeout) as probes, \
                Probes(addr, probe_timeout, requests=more_probes or {}) if more_probes else contextlib.nullcontext() \
                as others:
            time.sleep(duration)
    lines, ok = probes.lines()
    if others is not None:
        more, more_ok = others.lines()
        lines += more
        ok &= more_ok
    for line in lines:
        report(line)
    report("  attackers: " + ", ".join(f"{k} {v}" for k, v in sorted(crowd.counts.items())) + extra)
    rss_lines, rss_ok = rss.lines()
    for line in rss_lines:
        report(line)
    return ok and rss_ok


def scenario_slow(addr, duration: float, probe_timeout: float, master, report) -> bool:
    host = f"{addr[0]}:{addr[1]}"
    big = padded(heavy_batches(1, seed=5)[0], MiB)
    crowd = Crowd()
    crowd.add(200, slow_header(addr, host))
    crowd.add(200, idle(addr))
    crowd.add(8, non_reading(addr, host, big))
    report(f"\n## slow: 200 slow-header + 200 idle + 8 non-reading (1 MiB batch) clients, {duration:g} s")
    return under_attack(crowd, addr, duration, probe_timeout, master, report, settle=1.0)  # all connected


def each_alone(addr, host: str, report, width: int, cases) -> bool:
    """Each ``(name, path, body)`` POSTed alone 5 times: its median time and largest answer against
    :data:`TARGET_SINGLE` ``[name]``, a PASS/FAIL line each; True when all pass."""
    ok = True
    for name, path, body in cases:
        runs = [one_request(addr, request_bytes(host, "POST", path, body), 120) for _ in range(5)]
        times = sorted(r[2] for r in runs)
        most_s, most_b = TARGET_SINGLE[name]
        good = times[2] <= most_s and max(len(r[1]) for r in runs) <= most_b
        ok &= good
        report(f"  {name:{width}s} → {runs[0][0]}, answer {len(runs[0][1]):,} B, time median {ms(times[2])} "
               f"(min {ms(times[0])}, max {ms(times[-1])})  {'PASS' if good else 'FAIL'} "
               f"(≤ {most_s * 1000:g} ms, answer ≤ {most_b // 1024} KiB)")
    return ok


def scenario_bad_bodies(addr, duration: float, probe_timeout: float, master, report) -> bool:
    host = f"{addr[0]}:{addr[1]}"
    small, big = melds_64k(), bad_batch_1m()
    report(f"\n## bad bodies: {len(small):,} B of 21,800 {{}} melds; a {len(big):,} B batch of 200 bad items")
    alone_ok = each_alone(addr, host, report, 16, (("64 KiB melds", "/v1/score", small),
                                                  ("1 MiB bad batch", "/v1/score/batch", big)))
    crowd = Crowd()
    crowd.add(16, sender(addr, host, "/v1/score", [small], "64 KiB melds →"))
    crowd.add(16, sender(addr, host, "/v1/score/batch", [big], "1 MiB bad batch →"))
    report(f"  32 connections of these (16 each), {duration:g} s:")
    return under_attack(crowd, addr, duration, probe_timeout, master, report) and alone_ok


def scenario_heavy(addr, duration: float, probe_timeout: float, master, report, bodies: list[bytes]) -> bool:
    host = f"{addr[0]}:{addr[1]}"
    report(f"\n## heavy: 32 connections of valid 200-hand 7-caishen batches ({len(bodies)} different), "
           f"{duration:g} s")
    status, body, took = one_request(addr, request_bytes(host, "POST", "/v1/score/batch", bodies[0]), 120)
    report(f"  one batch alone: {status}, {json.loads(body).get('ok')} hands scored, {ms(took)}")
    crowd = Crowd()
    crowd.add(32, sender(addr, host, "/v1/score/batch", bodies, "batch →"))
    started = time.perf_counter()
    ok = under_attack(crowd, addr, duration, probe_timeout, master, report)
    done = sum(v for k, v in crowd.counts.items() if k.startswith("batch → 200"))
    report(f"  throughput: {done * 200 / (time.perf_counter() - started):.0f} hands/s")
    return ok


def scenario_gone(addr, duration: float, probe_timeout: float, master, report, bodies: list[bytes],
                  log: Path | None) -> bool:
    host = f"{addr[0]}:{addr[1]}"
    report(f"\n## gone: 16 clients sending a heavy batch and closing at once, {duration:g} s")
    mark = log.stat().st_size if log else 0
    crowd = Crowd()
    crowd.add(16, quitter(addr, host, bodies))
    ok = under_attack(crowd, addr, duration, probe_timeout, master, report)
    time.sleep(3)                                    # the last batches end
    if log:
        statuses: dict[int, int] = {}
        with open(log, "rb") as f:
            f.seek(mark)
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("path") == "/v1/score/batch" and rec.get("status"):
                    statuses[rec["status"]] = statuses.get(rec["status"], 0) + 1
        report("  the server's access log for those batches: "
               + ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items()))
               + " (499: dropped when its client was found gone; 200: scored to the end)")
    return ok


def replay_bodies(seed: int) -> tuple[bytes, bytes, list[bytes]]:
    """A /v1/replay log of 400 noise events; 50 of them padded (JSON white space) to 1 MiB as a
    /v1/replay/batch; valid 50-log batches of generated hands."""
    import replaygen

    noise = {**examples.REPLAY_DRAW, "events": [{"t": "draw", "seat": "E", "tile": "C"}] * 400}
    width = 1
    while len(json.dumps({"logs": [noise] * 50}, separators=("," + " " * (width + 1), ":"))) <= MiB:
        width += 1
    batch = json.dumps({"logs": [noise] * 50}, separators=("," + " " * width, ":")).encode()
    hands = replaygen.logs(seed, 200)
    valid = [json.dumps({"logs": [h.body() for h in hands[i:i + 50]]}).encode() for i in range(0, 200, 50)]
    return json.dumps(noise).encode(), batch, valid


def scenario_replay(addr, duration: float, probe_timeout: float, master, report) -> bool:
    host = f"{addr[0]}:{addr[1]}"
    noise, batch, valid = replay_bodies(27)
    report(f"\n## replay: a {len(noise):,} B log of 400 noise events; a {len(batch):,} B batch of 50 of them; "
           f"valid 50-log batches ({sum(map(len, valid)) // len(valid):,} B)")
    alone_ok = each_alone(addr, host, report, 18, (("replay noise", "/v1/replay", noise),
                                                  ("1 MiB replay batch", "/v1/replay/batch", batch)))
    status, answer, took = one_request(addr, request_bytes(host, "POST", "/v1/replay/batch", valid[0]), 120)
    report(f"  one valid 50-log batch alone: {status}, {json.loads(answer).get('ok')} logs replayed, {ms(took)}")
    crowd = Crowd()
    crowd.add(8, sender(addr, host, "/v1/replay", [noise], "noise log →"))
    crowd.add(8, sender(addr, host, "/v1/replay/batch", [batch], "1 MiB replay batch →"))
    crowd.add(16, sender(addr, host, "/v1/replay/batch", valid, "valid batch →"))
    report(f"  32 connections of these (8, 8 and 16), {duration:g} s:")
    return under_attack(crowd, addr, duration, probe_timeout, master, report) and alone_ok
# --- issue 26: memory that can't be grown, bodies that can't freeze a worker, work that yields ----

def _answer_bytes(addr, data: bytes, timeout: float = 30) -> tuple[int, int]:
    """(status, answer body bytes) of one request (0, 0 when the connection failed)."""
    try:
        status, body, _ = one_request(addr, data, timeout)
        return status, len(body)
    except OSError:
        return 0, 0


def scenario_static(addr, duration: float, probe_timeout: float, master, report) -> bool:
    """C1: 6,000 GETs of other names of the page's files (each was a new cache entry)."""
    host = f"{addr[0]}:{addr[1]}"
    names = [f"/static/x{i}/../calc.js" for i in range(3000)] + [f"/static/./calc.js?{i}" for i in range(3000)]
    turn = iter(range(1 << 30))
    statuses: dict[int, int] = {}
    lock = threading.Lock()

    def run(crowd: Crowd) -> None:
        i = next(turn)
        if i >= len(names):
            crowd.stop.wait(0.2)
            return
        status, _ = _answer_bytes(addr, request_bytes(host, "GET", names[i]))
        with lock:
            statuses[status] = statuses.get(status, 0) + 1

    crowd = Crowd()
    crowd.add(8, run)
    report(f"\n## static: 6,000 GETs of other names of /static/calc.js (8 clients), {duration:g} s")
    ok = under_attack(crowd, addr, duration, probe_timeout, master, report)
    good = set(statuses) <= {404}
    report(f"  every other name a 404: {'PASS' if good else 'FAIL'} ({sum(statuses.values())} sent, "
           f"statuses {dict(sorted(statuses.items()))})")
    return ok and good


def scenario_unread(addr, duration: float, probe_timeout: float, master, report) -> bool:
    """C2: 2 connections that send a GET with a body (and a body over the cap) and then junk at
    full speed; they reconnect when closed."""
    host = f"{addr[0]}:{addr[1]}"
    junk = b"j" * 65536
    heads = [f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nContent-Length: 1000000000\r\n\r\n".encode(),
             (f"POST /v1/score HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
              f"Content-Length: 1000000000\r\nExpect: 100-continue\r\n\r\n").encode()]
    turn = iter(range(1 << 30))

    def run(crowd: Crowd) -> None:
        with socket.create_connection(addr, timeout=5) as s:
            s.sendall(heads[next(turn) % 2])
            crowd.count("connections")
            sent = 0
            try:
                while not crowd.stop.is_set() and sent < 200 * MiB:
                    sent += s.send(junk)
            except OSError:
                crowd.count("closed by the server")
                return
    crowd = Crowd()
    crowd.add(2, run)
    report(f"\n## unread: 2 connections sending junk at full speed after a GET with a body or a 413, {duration:g} s")
    return under_attack(crowd, addr, duration, probe_timeout, master, report)


def scenario_rules(addr, duration: float, probe_timeout: float, master, report) -> bool:
    """H1: 2,100 bodies with distinct long required_patterns and item_tai (the rules cache)."""
    host = f"{addr[0]}:{addr[1]}"
    base = json.loads(cheap_body())
    preset = json.loads(one_request(addr, request_bytes(host, "GET", "/v1/rules/ningbo"), 30)[1])
    ids = [i["id"] for i in preset["items"]]
    turn = iter(range(1 << 30))
    statuses: dict[int, int] = {}
    sizes: list[tuple[int, int]] = []

    def run(crowd: Crowd) -> None:
        i = next(turn)
        if i >= 2100:
            crowd.stop.wait(0.2)
            return
        rng = random.Random(i)
        patterns = [rng.choice(ids) for _ in range(3000)] if i % 2 else rng.sample(ids, len(ids))
        body = json.dumps({**base, "rules": {"preset": "ningbo", "required_patterns": patterns,
                                             "item_tai": {k: rng.randrange(0, 9) for k in ids}}},
                          separators=(",", ":")).encode()
        status, size = _answer_bytes(addr, request_bytes(host, "POST", "/v1/score", body))
        statuses[status] = statuses.get(status, 0) + 1
        sizes.append((len(body), size))
    crowd = Crowd()
    crowd.add(8, run)
    report(f"\n## rules: 2,100 bodies of distinct rules objects (3,000 required_patterns, or every id once), "
           f"{duration:g} s")
    ok = under_attack(crowd, addr, duration, probe_timeout, master, report)
    small = all(answer <= max(body, 8192) for body, answer in sizes)
    report(f"  {len(sizes)} sent, statuses {dict(sorted(statuses.items()))}; answers ≤ their bodies (or 8 KiB "
           f"for a scored hand): {'PASS' if small else 'FAIL'}")
    return ok and small


def server_established(port: int) -> int:
    """Established TCP connections whose local port is ``port`` (the server's side of them)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


def scenario_slow_readers(addr, duration: float, probe_timeout: float, master, report, n: int = 50) -> bool:
    """H2: ``n`` connections asking for /openapi.yaml (226 KB) 30 times each, pipelined, reading
    4 KiB a second (a 16 KiB receive buffer): more than the socket buffers hold, so the server's
    writes wait on them, yet progress comes every few seconds (the 10 s socket timeout never
    fires); the write deadline (10 s + 226 KB at 32 KiB/s ≈ 17 s an answer) must close them."""
    host = f"{addr[0]}:{addr[1]}"
    data = f"GET /openapi.yaml HTTP/1.1\r\nHost: {host}\r\n\r\n".encode() * 30
    limit = 10 + 230_000 / 32768 + 5
    # the check needs a look after the deadline has passed: a shorter --duration would prove nothing
    duration = max(duration, limit + 8)

    def run(crowd: Crowd) -> None:
        with socket.create_connection(addr, timeout=5) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
            s.sendall(data)
            crowd.count("connections")
            while not crowd.stop.is_set():
                try:
                    if not s.recv(4096):
                        break
                except TimeoutError:
                    continue
                except OSError:
                    crowd.count("reset by the server")
                    break
                crowd.stop.wait(1.0)
        crowd.stop.wait(duration + 10)           # one connection each
    crowd = Crowd()
    crowd.add(n, run)
    report(f"\n## slow readers: {n} connections of 30 pipelined /openapi.yaml read at 4 KiB/s, {duration:g} s")
    seen: list[tuple[float, int]] = []
    started = time.monotonic()

    def watch() -> None:
        while not crowd.stop.wait(5.0):
            seen.append((time.monotonic() - started, server_established(addr[1])))
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    ok = under_attack(crowd, addr, duration, probe_timeout, master, report)
    late = [count for at, count in seen if at > limit + 2]
    good = bool(late) and max(late) <= 2              # (a probe's connection may be open)
    report("  the server's established connections (s: count): "
           + ", ".join(f"{at:.0f}: {count}" for at, count in seen)
           + f"  {'PASS' if good else 'FAIL'} (none left {limit + 2:.0f} s after they came: the write deadline)")
    return ok and good


def scenario_idle(addr, duration: float, probe_timeout: float, master, report, n: int = 3000) -> bool:
    """H3: ``n`` idle sockets that never send a byte (more than the workers' 2 × 1,000 slots)."""
    socks: list[socket.socket] = []
    report(f"\n## idle: {n} connections that never send a byte, {duration:g} s")
    crowd = Crowd()

    def hold(crowd: Crowd) -> None:
        while len(socks) < n and not crowd.stop.is_set():
            try:
                s = socket.create_connection(addr, timeout=5)
                socks.append(s)
                crowd.count("opened")
            except OSError:
                crowd.count("refused")
                crowd.stop.wait(0.05)
        crowd.stop.wait(0.5)
    crowd.add(4, hold)
    try:
        return under_attack(crowd, addr, duration, probe_timeout, master, report, settle=2.0)
    finally:
        for s in socks:
            s.close()


def scenario_caishen(addr, duration: float, probe_timeout: float, master, report) -> bool:
    """H4: 8 clients looping on /v1/analyze with all 34 kinds as caishen (the 308 B body)."""
    host = f"{addr[0]}:{addr[1]}"
    kinds = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + list("ESWNCFP")
    body = json.dumps({"seat_wind": "E", "round_wind": "E", "hand": {"concealed": "13m 567m 789m EEE SS 9s"},
                       "caishen": {"kinds": kinds}}).encode()
    status, answer, took = one_request(addr, request_bytes(host, "POST", "/v1/analyze", body), 60)
    report(f"\n## caishen: 8 clients looping on /v1/analyze, every kind a caishen ({len(body)} B body), "
           f"{duration:g} s")
    report(f"  one alone: {status}, answer {len(answer):,} B, {ms(took)}")
    crowd = Crowd()
    crowd.add(8, sender(addr, host, "/v1/analyze", [body], "analyze →"))
    return under_attack(crowd, addr, duration, probe_timeout, master, report)


def scenario_chunks(addr, duration: float, probe_timeout: float, master, report) -> bool:
    """M1: 8 clients sending a 1 MiB batch in 1-byte chunks (6.3 MB on the wire)."""
    host = f"{addr[0]}:{addr[1]}"
    body = padded(heavy_batches(1, seed=9)[0], MiB)
    head = (f"POST /v1/score/batch HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n").encode()
    wire = head + b"".join(b"1\r\n" + body[i:i + 1] + b"\r\n" for i in range(len(body))) + b"0\r\n\r\n"
    sent_bytes: list[int] = []

    def run(crowd: Crowd) -> None:
        with socket.create_connection(addr, timeout=10) as s:
            sent = 0
            try:
                view = memoryview(wire)
                while sent < len(wire) and not crowd.stop.is_set():
                    sent += s.send(view[sent:sent + 65536])
                status, answer = read_answer(s)
                crowd.count(f"→ {status}")
            except OSError:
                crowd.count("closed by the server")
            sent_bytes.append(sent)
    crowd = Crowd()
    crowd.add(8, run)
    report(f"\n## chunks: 8 clients sending a 1 MiB batch in 1-byte chunks ({len(wire):,} B on the wire), "
           f"{duration:g} s")
    ok = under_attack(crowd, addr, duration, probe_timeout, master, report)
    if sent_bytes:
        report(f"  wire bytes a connection sent before its answer: median {sorted(sent_bytes)[len(sent_bytes) // 2]:,}")
    return ok


def scenario_pipelined(addr, duration: float, probe_timeout: float, master, report, n: int = 400) -> bool:
    """M3: ``n`` connections each sending 100 pipelined /healthz at once, again and again."""
    host = f"{addr[0]}:{addr[1]}"
    data = f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode() * 100

    def run(crowd: Crowd) -> None:
        with socket.create_connection(addr, timeout=20) as s:
            s.sendall(data)
            got = 0
            while got < 100 and not crowd.stop.is_set():
                part = s.recv(65536)
                if not part:
                    break
                got += part.count(b"HTTP/1.1 200")
            crowd.count("100 answered" if got >= 100 else "cut short")
    crowd = Crowd()
    crowd.add(n, run)
    report(f"\n## pipelined: {n} connections of 100 pipelined requests each, {duration:g} s")
    return under_attack(crowd, addr, duration, probe_timeout, master, report)


def scenario_sizes(addr, duration: float, probe_timeout: float, master, report) -> bool:
    """Low: answers no bigger than the bodies that caused them (bad keys echoed cut short)."""
    host = f"{addr[0]}:{addr[1]}"
    base = json.loads(cheap_body())
    bodies = {
        "60 KB item_tai key": ("/v1/score", {**base, "rules": {"preset": "ningbo", "item_tai": {"k" * 60_000: 1}}}),
        "60 KB unknown key": ("/v1/score", {**base, "x" * 60_000: 1}),
        "1 MiB bad batch": ("/v1/score/batch", {"requests": [{"k" * 5000: 1}] * 200}),
        "60 KB preset name": ("/v1/score", {**base, "rules": "p" * 60_000}),
    }
    report("\n## sizes: answers to bad bodies against the bodies")
    ok = True
    for name, (path, body) in bodies.items():
        data = json.dumps(body, separators=(",", ":")).encode()
        status, size = _answer_bytes(addr, request_bytes(host, "POST", path, data))
        good = 0 < size <= len(data)
        ok &= good
        report(f"  {name:20s} body {len(data):>9,} B → {status}, answer {size:>9,} B  {'PASS' if good else 'FAIL'}")
    for path in ("/static/%00", "/static/" + "a" * 300, "/v1/rules/" + "x" * 3000):
        status, size = _answer_bytes(addr, request_bytes(host, "GET", path))
        good = status == 404 and size < 1024
        ok &= good
        report(f"  GET {path[:30]:30s} → {status}, answer {size} B  {'PASS' if good else 'FAIL'}")
    return ok


# --- issue 26's low items: strict HTTP, configuration errors, recycled workers' metrics ------------

def strict_requests(host: str) -> dict[str, tuple[bytes, str]]:
    """The requests RFC 9112 and the body reader refuse, by name: (bytes, what the answer must be)."""
    score = f"POST /v1/score HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    chunked = gzip.compress(cheap_body())
    kinds = {"seat_wind": "E", "round_wind": "E", "hand": {"concealed": "13m 567m 789m EEE SS 9s"},
             "caishen": {"kinds": [0] * 32_686}}
    many = json.dumps(kinds, separators=(",", ":")).encode()
    assert len(many) <= 64 * 1024, len(many)
    return {
        "HTTP/1.2 request line": (f"GET /healthz HTTP/1.2\r\nHost: {host}\r\n\r\n".encode(),
                                  "505 (or 400), HTTP/1.2 not in the status line"),
        "HTTP/1.1 without Host": (b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n", "400"),
        "TE: gzip, chunked": ((score + "Transfer-Encoding: gzip, chunked\r\n\r\n").encode()
                              + f"{len(chunked):x}\r\n".encode() + chunked + b"\r\n0\r\n\r\n",
                              "501 or 400, the body not passed on (no malformed_json)"),
        "chunk size ff…ff (18)": ((score + "Transfer-Encoding: chunked\r\n\r\n").encode()
                                  + b"ffffffffffffffffff\r\n{}", "4xx within 1 s"),
        "duplicate JSON key": (request_bytes(host, "POST", "/v1/score", b'{"seat_wind":"E",' + cheap_body()[1:]),
                               "400 naming the key"),
        "32,686 caishen.kinds": (request_bytes(host, "POST", "/v1/score", many),
                                 "4xx within 100 ms, answer ≤ body, one problem for the list"),
    }


def strict_verdict(name: str, data: bytes, line: str, headers: dict[str, str], body: bytes) -> str:
    """'' when the answer to ``strict_requests()[name]`` is right, else why not."""
    status = int(line.split()[1])
    try:
        problem = json.loads(body)
    except ValueError:
        problem = {}
    why = ["a Server header"] if "server" in headers else []
    if name == "HTTP/1.2 request line":
        why += [] if status in (400, 505) and "HTTP/1.2" not in line else [f"status line {line!r}"]
    elif name == "TE: gzip, chunked":
        why += [] if status in (400, 501) and problem.get("code") != "malformed_json" else ["passed on"]
    elif name == "chunk size ff…ff (18)":
        why += [] if 400 <= status < 500 else ["not a 4xx"]
    elif name == "32,686 caishen.kinds":
        errors = problem.get("errors", {})
        whole = len(errors.get("caishen.kinds", ())) == 1 and "more_errors" not in problem
        why += [] if 400 <= status < 500 and len(body) <= len(data) and whole else ["counted to the end"]
    elif name == "duplicate JSON key":
        why += [] if status == 400 and '"seat_wind"' in problem.get("detail", "") else ["not a 400 naming it"]
    else:
        why += [] if status == 400 else ["not a 400"]
    return ", ".join(why)


def strict_exchange(addr, data: bytes, timeout: float = 10) -> tuple[str, dict[str, str], bytes, float]:
    started = time.perf_counter()
    with socket.create_connection(addr, timeout=timeout) as s:
        s.sendall(data)
        line, headers, body = read_message(s)
    return line, headers, body, time.perf_counter() - started


def scenario_strict(addr, duration: float, probe_timeout: float, master, report) -> bool:
    """Low: strict HTTP (RFC 9112), bounded chunk sizes, repeated JSON keys, a capped
    ``caishen.kinds`` and no ``Server`` header: each request alone (median of 5), then 16
    connections looping on them."""
    host = f"{addr[0]}:{addr[1]}"
    requests = strict_requests(host)
    limits = {"chunk size ff…ff (18)": 1.0, "32,686 caishen.kinds": 0.1}
    report(f"\n## strict: {len(requests)} requests HTTP or the body reader refuses, alone, then 16 connections, "
           f"{duration:g} s")
    ok = True
    for name, (data, expected) in requests.items():
        runs, why = [], ""
        for _ in range(5):
            try:
                line, headers, body, took = strict_exchange(addr, data)
            except OSError as err:
                line, headers, body, took, why = "- 0 -", {}, b"", 10.0, type(err).__name__
                break
            why = why or strict_verdict(name, data, line, headers, body)
            runs.append(took)
        median = sorted(runs)[len(runs) // 2] if len(runs) == 5 else 10.0
        if not why and median > limits.get(name, 1.0):
            why = f"over {limits.get(name, 1.0) * 1000:g} ms"
        ok &= not why
        report(f"  {name:22s} {len(data):>7,} B → {line.split()[1]}, answer {len(body):,} B, median {ms(median)}  "
               f"{'PASS' if not why else 'FAIL (' + why + ')'} ({expected}; no Server header)")
    names = list(requests)
    turn = iter(range(1 << 30))
    wrong: list[str] = []

    def run(crowd: Crowd) -> None:
        name = names[next(turn) % len(names)]
        data = requests[name][0]
        line, headers, body, _ = strict_exchange(addr, data, 30)
        crowd.count(f"{name} → {line.split()[1]}")
        if why := strict_verdict(name, data, line, headers, body):
            wrong.append(f"{name}: {why}")
    crowd = Crowd()
    crowd.add(16, run)
    attack_ok = under_attack(crowd, addr, duration, probe_timeout, master, report)
    report(f"  wrong answers under load (a Server header, a wrong status): {len(wrong)}"
           f"{' (' + '; '.join(sorted(set(wrong))[:3]) + ')' if wrong else ''}  {'PASS' if not wrong else 'FAIL'}")
    return ok and attack_ok and not wrong


#: the settings the config scenario starts the service with (a taken PORT besides)
BAD_SETTINGS = {"PORT": "70000", "WEB_CONCURRENCY": "abc", "IO_TIMEOUT": "inf", "LOG_LEVEL": "loud"}
CONFIG_BOUND_S = 60.0


def scenario_config(addr, duration: float, probe_timeout: float, master, report, command: list[str]) -> bool:
    """Low: the service started (as ``Server`` starts it) with a bad setting, or a PORT that is
    taken (the attacked server's): exit non-zero within CONFIG_BOUND_S, the output's last line
    (make's own ``make: ***`` lines aside) names the variable, no traceback."""
    report(f"\n## config: `{' '.join(command)}` with a bad setting, or a taken PORT")
    ok = True
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]      # for the bad settings (free again once closed)
    for var, value in [*BAD_SETTINGS.items(), ("PORT", str(addr[1]))]:
        env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(free), "METRICS_PORT": "0", var: value}
        started = time.monotonic()
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=CONFIG_BOUND_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate(timeout=10)
        took = time.monotonic() - started
        text = out.decode(errors="replace")
        lines = [line for line in text.splitlines()
                 if line.strip() and not re.match(r"make(\[\d+\])?: ", line)]
        last = lines[-1] if lines else ""
        good = (proc.returncode not in (0, None, -signal.SIGKILL) and took < CONFIG_BOUND_S
                and (last.startswith(var) or f"set {var} " in last) and "Traceback" not in text)
        ok &= good
        what = f"{var}={value}" + (" (taken)" if value == str(addr[1]) else "")
        report(f"  {what:22s} exit {proc.returncode} in {took:5.2f} s, {len(lines)} line(s), last: {last[:90]!r}  "
               f"{'PASS' if good else 'FAIL'} (non-zero within {CONFIG_BOUND_S:g} s, last line names {var}, "
               f"no Traceback)")
    return ok


def requests_total(metrics_port: int, route: str, method: str, status: str) -> float:
    """``ningbo_score_http_requests_total`` of one route, method and status on the metrics
    listener (nan when it can't be read)."""
    try:
        code, body, _ = one_request(("127.0.0.1", metrics_port),
                                    request_bytes(f"127.0.0.1:{metrics_port}", "GET", "/metrics"), 10)
    except OSError:
        return float("nan")
    if code != 200:
        return float("nan")
    total = 0.0
    for line in body.decode().splitlines():
        if line.startswith("ningbo_score_http_requests_total{"):
            labels = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}", 1)[0]))
            if (labels.get("route"), labels.get("method"), labels.get("status")) == (route, method, status):
                total += float(line.rsplit(" ", 1)[1])
    return total


def scenario_recycle(addr, duration: float, probe_timeout: float, master, report, server: Server | None,
                     hups: int = 10, every: float = 2.0) -> bool:
    """Low: ``hups`` SIGHUPs of the master, one every ``every`` s (gunicorn replaces every worker),
    with the probes beside; then PROMETHEUS_MULTIPROC_DIR holds the live processes' files and
    ``*_archive.db`` only, and the probes' ``/v1/score`` count never went backwards."""
    duration = max(duration, hups * every + 4)
    report(f"\n## recycle: {hups} SIGHUPs of the master, one every {every:g} s, {duration:g} s")
    if server is None or master is None:
        report("  needs the server this script starts (its metrics directory and port), not --url: FAIL")
        return False
    route = ("/v1/score", "POST", "200")
    counts = [requests_total(server.metrics_port, *route)]
    workers: set[int] = set(children(master))
    sent = iter(range(1 << 30))

    def hup(crowd: Crowd) -> None:
        if next(sent) >= hups:
            crowd.stop.wait(0.5)
            return
        os.kill(master, signal.SIGHUP)
        crowd.count("SIGHUP")
        end = time.monotonic() + every
        while time.monotonic() < end and not crowd.stop.wait(0.25):
            workers.update(children(master))
        counts.append(requests_total(server.metrics_port, *route))
    crowd = Crowd()
    crowd.add(1, hup)
    ok = under_attack(crowd, addr, duration, probe_timeout, master, report)
    # the last workers up and serving, none leaving: the same children for 3 s (at most 60 s)
    deadline, stable, last = time.monotonic() + 60, 0, set()
    while stable < 3 and time.monotonic() < deadline:
        now = set(children(master))
        stable, last = (stable + 1, now) if now == last else (0, now)
        workers.update(now)
        time.sleep(1)
    counts.append(requests_total(server.metrics_port, *route))
    live = {master, *last}
    files = sorted(p.name for p in Path(server.metrics_dir).iterdir())
    left = [name for name in files if (m := re.search(r"_(\d+)\.db$", name)) and int(m.group(1)) not in live]
    archives = [name for name in files if name.endswith("_archive.db")]
    files_ok = not left and bool(archives) and stable >= 3
    shown = f" ({', '.join(left[:4])})" if left else ""
    report(f"  workers seen {len(workers)}, live now {len(last)}; metrics files {len(files)}: archives "
           f"{', '.join(archives) or 'none'}; of a dead pid: {len(left)}{shown}  "
           f"{'PASS' if files_ok else 'FAIL'} (the live processes' files and *_archive.db only)")
    steady = all(b >= a for a, b in zip(counts, counts[1:])) and counts[-1] > counts[0]
    report("  ningbo_score_http_requests_total{route=/v1/score,POST,200} before, after each SIGHUP, after: "
           + ", ".join(f"{c:.0f}" for c in counts)
           + f"  {'PASS' if steady else 'FAIL'} (never backwards, the probes counted)")
    return ok and files_ok and steady



# --- issue 41: answers parked in the kernel, heavy work shared fairly, CPU in small pieces, --------
# --- a listener that can't be held, a dead worker's share, the low points -----------------------

def tcp_memory() -> tuple[int, int]:
    """(TCP memory in pages, orphaned sockets) of /proc/net/sockstat: the kernel's own count for
    the whole machine's network namespace (both ends of loopback connections)."""
    for line in Path("/proc/net/sockstat").read_text().splitlines():
        if line.startswith("TCP:"):
            parts = line.split()
            return int(parts[parts.index("mem") + 1]), int(parts[parts.index("orphan") + 1])
    return 0, 0


def server_side_queues(port: int, peers: set[int] | None = None) -> tuple[int, int]:
    """(connections, bytes in their send queues) of the server's side of ``port`` (every state
    but LISTEN and TIME_WAIT, which holds no buffer: orphaned sockets closing count too), from
    /proc/net/tcp; only those from the client ports ``peers`` if given."""
    count = queued = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] not in ("0A", "06") \
                    and (peers is None or int(fields[2].rsplit(":", 1)[1], 16) in peers):
                count += 1
                queued += int(fields[4].split(":")[0], 16)
    return count, queued


def scenario_kernel(addr, duration: float, probe_timeout: float, master, report, n: int = 200,
                    path: str = "/openapi.yaml") -> bool:
    """Issue 41: ``n`` GETs whose answers nobody reads (the clients keep their sockets open and
    never read), watched for ``max(duration, 20)`` s: the kernel's TCP memory (pages), orphaned
    sockets and the server's side's send queues, against the bound: at most 2 × the send buffer
    (64 KiB) a connection while it is open, none left at the end."""
    host = f"{addr[0]}:{addr[1]}"
    data = (f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").encode()
    watch = max(duration, 20.0)
    report(f"\n## kernel: {n} GETs of {path} ({len(data)} B each) never read, the sockets kept open; {watch:g} s")
    base_pages, _ = tcp_memory()
    socks: list[socket.socket] = []
    samples: list[tuple[float, int, int, int, int]] = []
    started = time.monotonic()
    with RssWatch(master) as rss, Probes(addr, probe_timeout) as probes:
        for _ in range(n):
            try:
                s = socket.create_connection(addr, timeout=10)
                s.sendall(data)
                socks.append(s)
            except OSError:
                pass
        peers = {s.getsockname()[1] for s in socks}     # the probes' connections are not counted
        while time.monotonic() - started < watch:
            time.sleep(1.0)
            pages, orphans = tcp_memory()
            conns, queued = server_side_queues(addr[1], peers)
            samples.append((time.monotonic() - started, pages - base_pages, orphans, conns, queued))
    for s in socks:
        s.close()
    peak = max(samples, key=lambda x: x[1])
    end = samples[-1]
    for t, pages, orphans, conns, queued in samples[::max(1, len(samples) // 8)] + [end]:
        report(f"  {t:5.1f} s: TCP memory +{pages * 4 / 1024:7.1f} MiB ({pages} pages), orphans {orphans}, "
               f"server side: {conns} connections, {queued / MiB:6.1f} MiB queued")
    bound = n * 2 * 64 * 1024
    peak_queued = max(x[4] for x in samples)
    ok = peak_queued <= bound * 1.1 and end[3] == 0
    report(f"  peak TCP memory +{peak[1] * 4 / 1024:.1f} MiB at {peak[0]:.0f} s; server-side queues at most "
           f"{peak_queued / MiB:.1f} MiB (bound {bound / MiB:.0f} MiB: {n} × 2 × 64 KiB), "
           f"{end[3]} server-side connections left at {end[0]:.0f} s  {'PASS' if ok else 'FAIL'}")
    lines, probes_ok = probes.lines()
    for line in lines:
        report(line)
    rss_lines, rss_ok = rss.lines()
    for line in rss_lines:
        report(line)
    return ok and probes_ok and rss_ok


ALL_KINDS = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + list("ESWNCFP")


def scenario_fair(addr, duration: float, probe_timeout: float, master, report) -> bool:
    """Issue 41: 8 clients flooding /v1/analyze with every kind a caishen (the most expensive body
    per byte), and light requests of the heavy class asked beside them, one at a time on fresh
    connections: a one-hand batch and a 3-caishen /v1/waits, each within 1 s (p99)."""
    host = f"{addr[0]}:{addr[1]}"
    body = json.dumps({"seat_wind": "E", "round_wind": "E", "hand": {"concealed": "13m 567m 789m EEE SS 9s"},
                       "caishen": {"kinds": ALL_KINDS}}).encode()
    one_hand = json.dumps({"requests": [examples.API_MD]}).encode()
    waits = json.dumps({"seat_wind": "E", "round_wind": "E", "hand": {"concealed": "123m 456m 789p 11s 23s"},
                        "caishen": {"kinds": ["1m", "2m", "3m"]}}).encode()
    status, answer, took = one_request(addr, request_bytes(host, "POST", "/v1/analyze", body), 60)
    report(f"\n## fair: 8 clients flooding /v1/analyze, every kind a caishen ({len(body)} B; alone: {status}, "
           f"{ms(took)}, {took * 1000 / len(body):.2f} ms of a worker per request byte), {duration:g} s; "
           f"light heavy requests beside them")
    for name, path, light in (("one-hand batch", "/v1/score/batch", one_hand), ("3-caishen waits", "/v1/waits", waits)):
        times = sorted(one_request(addr, request_bytes(host, "POST", path, light), 30)[2] for _ in range(5))
        report(f"  {name} alone: median {ms(times[2])}")
    crowd = Crowd()
    crowd.add(8, sender(addr, host, "/v1/analyze", [body], "analyze →"))
    light_probes = {"POST /v1/score/batch (1 hand)": request_bytes(host, "POST", "/v1/score/batch", one_hand),
                    "POST /v1/waits (3 caishen)": request_bytes(host, "POST", "/v1/waits", waits)}
    return under_attack(crowd, addr, duration, probe_timeout, master, report, settle=1.0, more_probes=light_probes)


def shape_bodies() -> tuple[bytes, bytes, bytes]:
    """Issue 41's CPU in one piece: a 1 MiB JSON shape (340,000 empty arrays), the issue's 1 MiB
    replay batch with 3 declined claims on every event (100,000 arrays and objects: past the
    body's bound now), and one under the bound, declined claims on every 10th event (28,000):
    every log loaded before the first yield, before."""
    shape = b'{"logs":[' + b",".join([b"[]"] * 340_000) + b"]}"
    claim = {"t": "pung", "seat": "S", "tiles": "CCC", "declined": [{"seat": seat, "claim": "chow"} for seat in "WNE"]}
    plain = {"t": "pung", "seat": "S", "tiles": "CCC"}
    out = []
    for every in (1, 10):
        events = [claim if i % every == 0 else plain for i in range(400)]
        log = {**examples.REPLAY_DRAW, "events": events}
        logs = json.dumps({"logs": [log] * 50}, separators=(",", ":")).encode()
        while len(logs) > MiB:
            log = {**log, "events": log["events"][:-10]}
            logs = json.dumps({"logs": [log] * 50}, separators=(",", ":")).encode()
        out.append(logs)
    return shape, out[0], out[1]


def scenario_shape(addr, duration: float, probe_timeout: float, master, report) -> bool:
    host = f"{addr[0]}:{addr[1]}"
    shape, declined, tenth = shape_bodies()
    report(f"\n## shape: a {len(shape):,} B body of 340,000 empty arrays, a {len(declined):,} B replay batch of "
           f"claims with 3 declined each and a {len(tenth):,} B one with them on every 10th event, alone and then "
           f"8 connections of each for {duration:g} s")
    for name, body in (("340,000 arrays", shape), ("declined batch", declined), ("every 10th", tenth)):
        runs = [one_request(addr, request_bytes(host, "POST", "/v1/replay/batch", body), 120) for _ in range(5)]
        times = sorted(r[2] for r in runs)
        report(f"  {name:15s} → {runs[0][0]}, answer {len(runs[0][1]):,} B, median {ms(times[2])} "
               f"(max {ms(times[-1])})")
    crowd = Crowd()
    crowd.add(8, sender(addr, host, "/v1/replay/batch", [shape], "shape →"))
    crowd.add(8, sender(addr, host, "/v1/replay/batch", [declined], "declined →"))
    crowd.add(8, sender(addr, host, "/v1/replay/batch", [tenth], "every 10th →"))
    return under_attack(crowd, addr, duration, probe_timeout, master, report)


def scenario_scrape(addr, duration: float, probe_timeout: float, master, report, server: Server | None) -> bool:
    """Issue 41: the metrics listener under a flood (300 half-sent request lines held, 200 clients
    scraping in a loop) while a worker is killed: replaced within 2 s; HTTP/0.9 answered with a
    scrape or not; the master's threads."""
    if server is None or master is None:
        report("\n## scrape: needs the server started here (its metrics port and master)  SKIPPED")
        return True
    mport = server.metrics_port
    report(f"\n## scrape: 300 half-sent request lines and 200 looping scrapers on the metrics listener (:{mport}), "
           f"then a worker killed")
    with socket.create_connection(("127.0.0.1", mport), timeout=5) as s:
        s.sendall(b"GET /metrics\r\n")
        s.settimeout(5)
        try:
            first = s.recv(200)
        except OSError:
            first = b""
    first_line = first.split(b"\r\n", 1)[0].decode("latin-1") or "closed, no answer"
    scraped_09 = first.startswith(b"HTTP/1.0 200") or first.startswith(b"# HELP")
    report(f"  HTTP/0.9 request line: {first_line!r}  {'FAIL' if scraped_09 else 'PASS'} (no scrape)")
    threads_before = len(list(Path(f"/proc/{master}/task").iterdir()))
    held = []
    for _ in range(300):
        try:
            s = socket.create_connection(("127.0.0.1", mport), timeout=5)
            s.sendall(b"GET /metr")
            held.append(s)
        except OSError:
            pass
    stop = threading.Event()
    scraped = [0]

    def scraper() -> None:
        req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
        while not stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", mport), timeout=10) as c:
                    c.sendall(req)
                    while c.recv(65536):
                        pass
                scraped[0] += 1
            except OSError:
                stop.wait(0.05)

    scrapers = [threading.Thread(target=scraper, daemon=True) for _ in range(200)]
    for t in scrapers:
        t.start()
    ok = True
    try:
        time.sleep(2.0)
        threads_during = len(list(Path(f"/proc/{master}/task").iterdir()))
        workers = set(children(master))
        victim = min(workers)
        os.kill(victim, signal.SIGKILL)
        killed = time.monotonic()
        took = None
        while time.monotonic() - killed < 30:
            now = set(children(master))
            if victim not in now and now - workers:
                took = time.monotonic() - killed
                break
            time.sleep(0.02)
        good = took is not None and took <= 2.0
        ok &= good
        report(f"  master threads: {threads_before} before, {threads_during} during the flood; "
               f"worker {victim} killed: replaced after {'never' if took is None else f'{took:.2f} s'}  "
               f"{'PASS' if good else 'FAIL'} (≤ 2 s)")
        with Probes(addr, probe_timeout) as probes:
            time.sleep(min(duration, 5))
    finally:
        stop.set()
        for s in held:
            s.close()
        for t in scrapers:
            t.join(15)
    report(f"  scrapes answered during the flood: {scraped[0]}")
    lines, probes_ok = probes.lines()
    for line in lines:
        report(line)
    return ok and probes_ok


def sockets_held(pid: int) -> int:
    """Open sockets of a process (its connections, and its listeners)."""
    count = 0
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                count += os.readlink(fd).startswith("socket:")
            except OSError:
                continue
    except OSError:
        pass
    return count


def scenario_deadshare(addr, duration: float, probe_timeout: float, master, report) -> bool:
    """Issue 41: 20 kept-alive clients, the master stopped (SIGSTOP, as when it is stuck) and one
    worker killed: the survivor must take 40 new connections (each /healthz within 5 s); then
    the master goes on (SIGCONT) and replaces the worker."""
    if master is None:
        report("\n## deadshare: needs the master's pid  SKIPPED")
        return True
    host = f"{addr[0]}:{addr[1]}"
    report("\n## deadshare: a worker killed while the master is stopped, 20 kept-alive clients, 40 new connections")
    kept = [socket.create_connection(addr, timeout=10) for _ in range(20)]
    fresh: list[socket.socket] = []
    answered, slow = 0, []
    os.kill(master, signal.SIGSTOP)
    try:
        for s in kept:
            s.sendall(request_bytes(host, "GET", "/healthz", close=False))
            read_answer(s)
        victim = min(children(master), key=sockets_held)      # the one holding fewer connections
        os.kill(victim, signal.SIGKILL)
        time.sleep(1.5)
        for _ in range(40):
            started = time.monotonic()
            try:
                s = socket.create_connection(addr, timeout=5)
                fresh.append(s)
                s.sendall(request_bytes(host, "GET", "/healthz", close=False))
                if read_answer(s)[0] == 200:
                    answered += 1
            except OSError:
                pass
            slow.append(time.monotonic() - started)
    finally:
        os.kill(master, signal.SIGCONT)
        for s in kept + fresh:
            s.close()
    ok = answered == 40 and max(slow) <= 1.0
    report(f"  new connections answered while the master was stopped: {answered} of 40, slowest {ms(max(slow))}  "
           f"{'PASS' if ok else 'FAIL'} (each within 1 s)")
    time.sleep(2.0)
    with Probes(addr, probe_timeout) as probes:
        time.sleep(min(duration, 5))
    lines, probes_ok = probes.lines()
    for line in lines:
        report(line)
    return ok and probes_ok


def scenario_lows(addr, duration: float, probe_timeout: float, master, report) -> bool:
    """Issue 41's low points over HTTP: q=0 refuses gzip, a content-encoded body is refused,
    openapi.yaml's 200 and 304 (compressed once), an ETag per representation, bytes=-0."""
    host = f"{addr[0]}:{addr[1]}"
    report("\n## lows: codings, representations, ranges")
    ok = True

    def get(path: str, **headers: str) -> tuple[str, dict[str, str], bytes, float]:
        extra = "".join(f"{k.replace('_', '-')}: {v}\r\n" for k, v in headers.items())
        data = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{extra}\r\n".encode()
        return strict_exchange(addr, data)

    def check(name: str, good: bool, detail: str) -> None:
        nonlocal ok
        ok &= good
        report(f"  {name}: {detail}  {'PASS' if good else 'FAIL'}")

    for path in ("/openapi.yaml", "/v1/rules", "/static/calc.js", "/"):
        _, headers, _, _ = get(path, Accept_Encoding="gzip;q=0")
        check(f"gzip;q=0 on {path}", "content-encoding" not in headers,
              f"Content-Encoding {headers.get('content-encoding')}")
    body = cheap_body()
    data = (f"POST /v1/score HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
    line, _, _, _ = strict_exchange(addr, data)
    check("plain JSON labelled Content-Encoding: gzip", line.split()[1] in ("400", "415"), line)
    times_200, times_304, etag = [], [], ""
    for _ in range(7):
        _, headers, _, took = get("/openapi.yaml", Accept_Encoding="gzip")
        times_200.append(took)
        etag = headers.get("etag", "")
        line, _, _, took = get("/openapi.yaml", Accept_Encoding="gzip", If_None_Match=etag)
        times_304.append(took)
    times_200.sort()
    times_304.sort()
    # compressed once, the 304 before any body: each a few ms on a quiet machine (49 ms each before,
    # a gzip of 226 KB per request); 25 ms leaves room for a loaded one
    check("/openapi.yaml 200 and 304 (median of 7)", line.split()[1] == "304" and times_304[3] < 0.025,
          f"200 {ms(times_200[3])}, 304 {ms(times_304[3])}")
    _, plain, _, _ = get("/static/calc.js", Accept_Encoding="identity")
    _, packed, _, _ = get("/static/calc.js", Accept_Encoding="gzip")
    check("ETags of /static/calc.js plain and gzip", plain.get("etag") != packed.get("etag"),
          f"{plain.get('etag')} / {packed.get('etag')}")
    line, _, _, _ = get("/static/calc.js", Range="bytes=-0")
    check("Range: bytes=-0", line.split()[1] == "416", line)
    return ok


def scenario_sigterm(addr, duration: float, probe_timeout: float, master, report, server: Server | None,
                     n: int = 80) -> bool:
    """Issue 41 (last: it stops the server): ``n`` heavy batches in flight (more than the 20 s
    graceful timeout of work), then SIGTERM: every connection gets a whole answer, 200 or 503."""
    if server is None or master is None:
        report("\n## sigterm: needs the server started here  SKIPPED")
        return True
    host = f"{addr[0]}:{addr[1]}"
    bodies = heavy_batches(8, seed=41)
    report(f"\n## sigterm: {n} heavy 200-hand batches in flight, then SIGTERM to the master")
    socks = []
    for i in range(n):
        s = socket.create_connection(addr, timeout=60)
        s.sendall(request_bytes(host, "POST", "/v1/score/batch", bodies[i % len(bodies)]))
        socks.append(s)
    time.sleep(1.0)
    os.kill(master, signal.SIGTERM)
    counts: dict[str, int] = {}
    for s in socks:
        try:
            status, _ = read_answer(s)
            key = str(status)
        except (OSError, ValueError) as err:
            key = f"cut ({type(err).__name__})"
        counts[key] = counts.get(key, 0) + 1
        s.close()
    ok = set(counts) <= {"200", "503"}
    report(f"  answers: {', '.join(f'{k}: {v}' for k, v in sorted(counts.items()))}  "
           f"{'PASS' if ok else 'FAIL'} (200 or 503, none cut)")
    return ok


NEW_SCENARIOS = {"static": scenario_static, "unread": scenario_unread, "rules": scenario_rules,
                 "slowread": scenario_slow_readers, "idle": scenario_idle, "caishen": scenario_caishen,
                 "chunks": scenario_chunks, "pipelined": scenario_pipelined, "sizes": scenario_sizes,
                 "replay": scenario_replay, "strict": scenario_strict, "config": scenario_config,
                 "recycle": scenario_recycle, "kernel": scenario_kernel, "fair": scenario_fair,
                 "shape": scenario_shape, "scrape": scenario_scrape, "deadshare": scenario_deadshare,
                 "lows": scenario_lows, "sigterm": scenario_sigterm}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="a running server (http://127.0.0.1:PORT); default: start make run")
    ap.add_argument("--pid", type=int, help="with --url: gunicorn master's pid, for the workers' RSS")
    ap.add_argument("--log", type=Path, help="with --url: the server's log (for WORKER TIMEOUT and 499s)")
    ap.add_argument("--port", type=int, default=0, help="port for make run (default: a free one in 8300-8399)")
    ap.add_argument("--venv", default=".venv", help="VENV for make run (default .venv)")
    ap.add_argument("--workers", type=int, default=2, help="WEB_CONCURRENCY (default 2)")
    ap.add_argument("--gunicorn-args", default="", help="GUNICORN_CMD_ARGS for make run, e.g. "
                    "'--worker-class service.serving.ServingWorker'")
    ap.add_argument("--duration", type=float, default=15.0, help="seconds of each scenario (default 15)")
    ap.add_argument("--probe-timeout", type=float, default=5.0)
    ap.add_argument("--no-install", action="store_true",
                    help="run VENV/bin/python -m service (what make run execs) without "
                         "make's install step")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="the checkout to start the server from (another worktree, for a before run; "
                         "with --no-install and an absolute --venv)")
    ap.add_argument("--only", action="append", choices=("slow", "bad", "heavy", "gone", *NEW_SCENARIOS),
                    help="run only these scenarios (repeatable)")
    ap.add_argument("--results", type=Path, default=RESULTS / "attack.txt")
    args = ap.parse_args()
    lines: list[str] = []

    def report(line: str = "") -> None:
        print(line, flush=True)
        lines.append(line)

    server = None
    if args.url:
        parts = urlsplit(args.url)
        if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit("attack only a server on 127.0.0.1")
        addr, master, log = ("127.0.0.1", parts.port or 80), args.pid, args.log
    else:
        port = args.port or free_port(8300, 8390)
        metrics_port = free_port(9300, 9400)
        out = ROOT / "bench" / "out"
        out.mkdir(exist_ok=True)
        server = Server(port, metrics_port, args.workers, args.venv, out / "attack-server.log", args.gunicorn_args,
                        args.no_install, args.root)
        addr, master, log = server.addr, server.master(), server.log_path
    try:
        how = ("gunicorn as make run execs it" if args.no_install else "make run") if server else args.url
        if server and args.root != ROOT:
            how += f" in {args.root}"
        report(f"# bench/attack.py on {addr[0]}:{addr[1]} ({how}"
               f"{', GUNICORN_CMD_ARGS=' + args.gunicorn_args if args.gunicorn_args else ''}), "
               f"{args.workers if server else '?'} workers, {os.cpu_count()} cores, "
               f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
        # bad last but for sigterm, which stops the server: its work may outlast it
        scenarios = args.only or ["slow", "heavy", "gone", *(n for n in NEW_SCENARIOS if n != "sigterm"), "bad",
                                  "sigterm"]
        bodies = heavy_batches(64, seed=2024) if {"heavy", "gone"} & set(scenarios) else []
        results = {}
        # what the config and recycle scenarios need besides the others' arguments
        extra = {"config": {"command": Server.command(args.venv, args.no_install)}, "recycle": {"server": server},
                 "scrape": {"server": server}, "sigterm": {"server": server}}
        if "slow" in scenarios:
            results["slow"] = scenario_slow(addr, args.duration, args.probe_timeout, master, report)
        if "heavy" in scenarios:
            results["heavy"] = scenario_heavy(addr, args.duration, args.probe_timeout, master, report, bodies)
        if "gone" in scenarios:
            results["gone"] = scenario_gone(addr, args.duration, args.probe_timeout, master, report, bodies, log)
        for name, scenario in NEW_SCENARIOS.items():
            if name in scenarios and name != "sigterm":
                mark = log.stat().st_size if log else 0
                results[name] = scenario(addr, args.duration, args.probe_timeout, master, report,
                                         **extra.get(name, {}))
                if log:
                    with open(log, "rb") as f:
                        f.seek(mark)
                        timeouts = f.read().count(b"WORKER TIMEOUT")
                    report(f"  WORKER TIMEOUT in the server's log: {timeouts}  {'PASS' if not timeouts else 'FAIL'}")
                    results[name] &= not timeouts
        if "bad" in scenarios:
            results["bad"] = scenario_bad_bodies(addr, args.duration, args.probe_timeout, master, report)
        if "sigterm" in scenarios:
            results["sigterm"] = scenario_sigterm(addr, args.duration, args.probe_timeout, master, report, server)
        report("\n" + "  ".join(f"{k}: {'PASS' if v else 'FAIL'}" for k, v in results.items()))
    finally:
        if server:
            server.stop()
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text("\n".join(lines) + "\n")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
