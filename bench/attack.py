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

Prints every figure and writes them to bench/results/attack.txt (``--results``).
"""
from __future__ import annotations

import argparse
import json
import os
import random
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


def read_answer(sock: socket.socket) -> tuple[int, bytes]:
    """(status, body) of one answer on ``sock`` (Content-Length framing, as the app answers)."""
    data = b""
    while b"\r\n\r\n" not in data:
        part = sock.recv(65536)
        if not part:
            raise ConnectionError(f"closed before the headers ({len(data)} bytes)")
        data += part
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    length = next((int(line.split(b":", 1)[1]) for line in lines[1:] if line.lower().startswith(b"content-length:")),
                  None)
    if length is None:
        while part := sock.recv(65536):
            body += part
        return status, body
    while len(body) < length:
        part = sock.recv(min(1 << 20, length - len(body)))
        if not part:
            raise ConnectionError("closed in the body")
        body += part
    return status, body


def one_request(addr: tuple[str, int], data: bytes, timeout: float) -> tuple[int, bytes, float]:
    started = time.perf_counter()
    with socket.create_connection(addr, timeout=timeout) as s:
        s.sendall(data)
        status, body = read_answer(s)
    return status, body, time.perf_counter() - started


# --- probes ----------------------------------------------------------------------------------------

class Probes:
    """Two threads, each asking one request at a time on a fresh connection until stopped."""

    def __init__(self, addr: tuple[str, int], timeout: float, interval: float = 0.05) -> None:
        self.addr, self.timeout, self.interval = addr, timeout, interval
        host = f"{addr[0]}:{addr[1]}"
        self.requests = {"GET /healthz": request_bytes(host, "GET", "/healthz"),
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
                 gunicorn_args: str) -> None:
        self.metrics_dir = tempfile.mkdtemp(prefix="ningbo-attack-prom-")
        env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "METRICS_PORT": str(metrics_port),
               "WEB_CONCURRENCY": str(workers), "PROMETHEUS_MULTIPROC_DIR": self.metrics_dir}
        if gunicorn_args:
            env["GUNICORN_CMD_ARGS"] = gunicorn_args
        self.log = open(log, "wb")
        self.log_path = log
        self.proc = subprocess.Popen(["make", "-s", "run", f"VENV={venv}"], cwd=ROOT, env=env, stdout=self.log,
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

    def master(self) -> int | None:
        """gunicorn's master: the process of the group named ningbo-score (make execs it)."""
        for pid in [self.proc.pid, *children(self.proc.pid)]:
            try:
                if "gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                    return pid
            except OSError:
                continue
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
                 settle: float = 0.0, extra: str = "") -> bool:
    """Runs ``crowd`` (after ``settle`` seconds the probes start, for ``duration`` seconds), then
    reports the probes, what the attackers saw (plus ``extra``) and the workers' RSS."""
    with RssWatch(master) as rss, crowd:
        time.sleep(settle)
        with Probes(addr, probe_timeout) as probes:
            time.sleep(duration)
    lines, ok = probes.lines()
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


def scenario_bad_bodies(addr, duration: float, probe_timeout: float, master, report) -> bool:
    host = f"{addr[0]}:{addr[1]}"
    small, big = melds_64k(), bad_batch_1m()
    report(f"\n## bad bodies: {len(small):,} B of 21,800 {{}} melds; a {len(big):,} B batch of 200 bad items")
    alone_ok = True
    for name, path, body in (("64 KiB melds", "/v1/score", small), ("1 MiB bad batch", "/v1/score/batch", big)):
        runs = [one_request(addr, request_bytes(host, "POST", path, body), 120) for _ in range(5)]
        times = sorted(r[2] for r in runs)
        most_s, most_b = TARGET_SINGLE[name]
        good = times[2] <= most_s and max(len(r[1]) for r in runs) <= most_b
        alone_ok &= good
        report(f"  {name:16s} → {runs[0][0]}, answer {len(runs[0][1]):,} B, time median {ms(times[2])} "
               f"(min {ms(times[0])}, max {ms(times[-1])})  {'PASS' if good else 'FAIL'} "
               f"(≤ {most_s * 1000:g} ms, answer ≤ {most_b // 1024} KiB)")
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
    alone_ok = True
    for name, path, body in (("replay noise", "/v1/replay", noise), ("1 MiB replay batch", "/v1/replay/batch", batch)):
        runs = [one_request(addr, request_bytes(host, "POST", path, body), 120) for _ in range(5)]
        times = sorted(r[2] for r in runs)
        most_s, most_b = TARGET_SINGLE[name]
        good = times[2] <= most_s and max(len(r[1]) for r in runs) <= most_b
        alone_ok &= good
        report(f"  {name:18s} → {runs[0][0]}, answer {len(runs[0][1]):,} B, time median {ms(times[2])} "
               f"(min {ms(times[0])}, max {ms(times[-1])})  {'PASS' if good else 'FAIL'} "
               f"(≤ {most_s * 1000:g} ms, answer ≤ {most_b // 1024} KiB)")
    status, answer, took = one_request(addr, request_bytes(host, "POST", "/v1/replay/batch", valid[0]), 120)
    report(f"  one valid 50-log batch alone: {status}, {json.loads(answer).get('ok')} logs replayed, {ms(took)}")
    crowd = Crowd()
    crowd.add(8, sender(addr, host, "/v1/replay", [noise], "noise log →"))
    crowd.add(8, sender(addr, host, "/v1/replay/batch", [batch], "1 MiB replay batch →"))
    crowd.add(16, sender(addr, host, "/v1/replay/batch", valid, "valid batch →"))
    report(f"  32 connections of these (8, 8 and 16), {duration:g} s:")
    return under_attack(crowd, addr, duration, probe_timeout, master, report) and alone_ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="a running server (http://127.0.0.1:PORT); default: start make run")
    ap.add_argument("--pid", type=int, help="with --url: gunicorn master's pid, for the workers' RSS")
    ap.add_argument("--port", type=int, default=0, help="port for make run (default: a free one in 8300-8399)")
    ap.add_argument("--venv", default=".venv", help="VENV for make run (default .venv)")
    ap.add_argument("--workers", type=int, default=2, help="WEB_CONCURRENCY (default 2)")
    ap.add_argument("--gunicorn-args", default="", help="GUNICORN_CMD_ARGS for make run, e.g. "
                    "'--worker-class serving.ServingWorker'")
    ap.add_argument("--duration", type=float, default=15.0, help="seconds of each scenario (default 15)")
    ap.add_argument("--probe-timeout", type=float, default=5.0)
    ap.add_argument("--only", action="append", choices=("slow", "bad", "heavy", "gone", "replay"),
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
        addr, master, log = ("127.0.0.1", parts.port or 80), args.pid, None
    else:
        port = args.port or free_port(8300, 8390)
        metrics_port = free_port(9300, 9400)
        out = ROOT / "bench" / "out"
        out.mkdir(exist_ok=True)
        server = Server(port, metrics_port, args.workers, args.venv, out / "attack-server.log", args.gunicorn_args)
        addr, master, log = server.addr, server.master(), server.log_path
    try:
        report(f"# bench/attack.py on {addr[0]}:{addr[1]} ({'make run' if server else args.url}"
               f"{', GUNICORN_CMD_ARGS=' + args.gunicorn_args if args.gunicorn_args else ''}), "
               f"{args.workers if server else '?'} workers, {os.cpu_count()} cores, "
               f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
        scenarios = args.only or ["slow", "heavy", "gone", "replay", "bad"]   # bad last: its work may outlast it
        bodies = heavy_batches(64, seed=2024) if {"heavy", "gone"} & set(scenarios) else []
        results = {}
        if "slow" in scenarios:
            results["slow"] = scenario_slow(addr, args.duration, args.probe_timeout, master, report)
        if "heavy" in scenarios:
            results["heavy"] = scenario_heavy(addr, args.duration, args.probe_timeout, master, report, bodies)
        if "gone" in scenarios:
            results["gone"] = scenario_gone(addr, args.duration, args.probe_timeout, master, report, bodies, log)
        if "replay" in scenarios:
            results["replay"] = scenario_replay(addr, args.duration, args.probe_timeout, master, report)
        if "bad" in scenarios:
            results["bad"] = scenario_bad_bodies(addr, args.duration, args.probe_timeout, master, report)
        report("\n" + "  ".join(f"{k}: {'PASS' if v else 'FAIL'}" for k, v in results.items()))
    finally:
        if server:
            server.stop()
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text("\n".join(lines) + "\n")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
