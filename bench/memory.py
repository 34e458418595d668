#!/usr/bin/env python3
"""Memory of the real server under load, for the Kubernetes requests and limits (deploy/).

Run from the project root:  ``.venv/bin/python bench/memory.py``  (``--help`` for options)

Starts ``.venv/bin/python -m service`` (the image's command: gunicorn with gunicorn.conf.py and
its gevent workers) as deploy/base/deployment.yaml runs it (WEB_CONCURRENCY=2, a fresh
PROMETHEUS_MULTIPROC_DIR, the metrics listener on) on 127.0.0.1 and free ports, then sends
``--requests`` requests over ``--connections`` keep-alive connections: seeded random hands
(tests/handgen.py: 0 to 7 caishen, every preset) to ``/v1/score``, one in ten to ``/v1/waits``,
one in a hundred a 50-hand ``/v1/score/batch``, so that the library's bounded caches fill with
many different hands. Every 0.25 s it reads each process's RSS and PSS (/proc/PID/smaps_rollup);
a pod's memory use (its cgroup's) counts a shared page once, which the sum of the PSS does too.
Prints the peaks and writes them to bench/results/memory.json.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import handgen  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process in KiB."""
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
        for line in f:
            name, _, rest = line.partition(":")
            if name in ("Rss", "Pss"):
                fields[name] = int(rest.split()[0])
    return fields["Rss"], fields["Pss"]


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def bodies(seed: int, n: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    presets = ("ningbo", "ningbo-7baida", "ningbo-456")
    out = []
    for i in range(n):
        caishen = rng.choice((0, 0, 1, 1, 2, 3, 7))
        preset = ("ningbo-7baida",) if caishen == 7 else presets
        if i % 100 == 99:
            batch = [handgen.compact_form(handgen.random_request(rng, n_caishen=rng.choice((0, 1, 3))))
                     for _ in range(50)]
            out.append(("/v1/score/batch", json.dumps({"requests": batch}).encode()))
        elif i % 10 == 9:
            req, _ = handgen.random_tenpai(rng, n_caishen=caishen, presets=preset)
            req["win"] = {k: v for k, v in req["win"].items() if k in ("from", "discarded_caishen")}
            out.append(("/v1/waits", json.dumps(req).encode()))
        else:
            request = handgen.random_request(rng, n_caishen=caishen, presets=preset)
            out.append(("/v1/score", json.dumps(request).encode()))
    return out


def drive(port: int, work: list[tuple[str, bytes]], statuses: dict, lock: threading.Lock, deadline: float) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for path, body in work:
        if time.monotonic() > deadline:
            break
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        answer = conn.getresponse()
        answer.read()
        with lock:
            statuses[answer.status] = statuses.get(answer.status, 0) + 1
    conn.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--max-seconds", type=float, default=600.0, help="stop the load after this long (default 600)")
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    ap.add_argument("--results", type=Path, default=RESULTS)
    args = ap.parse_args()

    port = args.port or free_port()
    prom = tempfile.mkdtemp(prefix="ningbo-prom-")
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "WEB_CONCURRENCY": str(args.workers),
           "PROMETHEUS_MULTIPROC_DIR": prom, "LOG_LEVEL": "warning", "METRICS_PORT": str(free_port()),
           "GUNICORN_CMD_ARGS": "--access-logfile /dev/null"}
    server = subprocess.Popen([str(ROOT / ".venv" / "bin" / "python"), "-m", "service"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    peaks: dict = dict.fromkeys(("master_rss_kib", "worker_rss_kib", "worker_pss_kib", "total_pss_kib",
                                 "total_rss_kib"), 0)
    at_start: dict = {}
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                if len(children(server.pid)) == args.workers:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("the server did not start")
            time.sleep(0.2)
        time.sleep(2)                                   # warm_up() in each worker

        def sample() -> dict:
            master = memory_kib(server.pid)
            workers = [memory_kib(p) for p in children(server.pid)]
            return {"master_rss_kib": master[0], "worker_rss_kib": max((w[0] for w in workers), default=0),
                    "worker_pss_kib": max((w[1] for w in workers), default=0),
                    "total_pss_kib": master[1] + sum(w[1] for w in workers),
                    "total_rss_kib": master[0] + sum(w[0] for w in workers)}

        at_start = sample()
        work = bodies(args.seed, args.requests)
        statuses: dict = {}
        lock = threading.Lock()
        stop_at = time.monotonic() + args.max_seconds
        clients = [threading.Thread(target=drive, args=(port, work[i::args.connections], statuses, lock, stop_at))
                   for i in range(args.connections)]
        started = time.monotonic()
        for c in clients:
            c.start()
        while any(c.is_alive() for c in clients):
            try:
                for key, value in sample().items():
                    peaks[key] = max(peaks[key], value)
            except (OSError, KeyError):
                pass                                    # a worker being replaced
            time.sleep(0.25)
        elapsed = time.monotonic() - started
        at_end = sample()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
        shutil.rmtree(prom, ignore_errors=True)

    result = {"requests": sum(statuses.values()), "statuses": statuses, "seconds": round(elapsed, 1),
              "workers": args.workers, "connections": args.connections,
              "at_start": at_start, "peak": peaks, "at_end": at_end}
    mib = {k: round(v / 1024, 1) for k, v in peaks.items()}
    print(f"{result['requests']} requests in {result['seconds']} s, statuses {statuses}")
    print(f"after warm-up: worker RSS {at_start['worker_rss_kib'] / 1024:.1f} MiB, "
          f"pod PSS {at_start['total_pss_kib'] / 1024:.1f} MiB")
    print(f"peak under load: worker RSS {mib['worker_rss_kib']} MiB (PSS {mib['worker_pss_kib']}), master RSS "
          f"{mib['master_rss_kib']} MiB, pod (master + {args.workers} workers) PSS {mib['total_pss_kib']} MiB, "
          f"RSS sum {mib['total_rss_kib']} MiB")
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "memory.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
