"""The master's listeners (service/listeners.py: /metrics and /healthz) can't be held (issue 41):
bounded threads, a read deadline, HTTP/1.x only, and no lock a scrape holds that the arbiter
takes.  In process first (a listener and its handler), then under the real server: a worker
killed during a flood of scrapes is replaced within 2 s."""
from __future__ import annotations

import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from service import listeners
from conftest import free_port, gunicorn_server


def answer_of(port: int, data: bytes, timeout: float = 5) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        try:
            while part := s.recv(65536):
                out += part
        except (ConnectionResetError, TimeoutError):
            pass
        return out


@pytest.fixture
def listener():
    seen = []

    def handler(method, path, headers):
        seen.append((method, path, headers))
        return 200, [("Content-Type", "text/plain")], b"metrics\n"

    port = free_port()
    lst = listeners.BoundedListener("127.0.0.1", port, handler, "test").start()
    try:
        yield port, seen, lst
    finally:
        lst.close()


def test_a_request_is_answered_once_and_closed(listener):
    port, seen, _ = listener
    out = answer_of(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 200 OK\r\n") and out.endswith(b"\r\n\r\nmetrics\n")
    assert b"Connection: close" in out
    assert seen == [("GET", "/metrics", {"host": "x", "accept-encoding": "gzip"})]
    assert answer_of(port, b"HEAD /metrics HTTP/1.0\r\n\r\n").endswith(b"\r\n\r\n")     # no body


@pytest.mark.parametrize("request_bytes, status", [
    (b"GET /metrics\r\n", b"400"),                   # HTTP/0.9: no version, no scrape
    (b"GET /metrics\r\n\r\n", b"400"),
    (b"GET /metrics HTTP/2.0\r\n\r\n", b"505"),
    (b"POST /metrics HTTP/1.1\r\n\r\n", b"405"),
    (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n", b"400"),        # a TLS hello
])
def test_only_http_1_is_answered(listener, request_bytes, status):
    port, seen, _ = listener
    out = answer_of(port, request_bytes)
    assert out.startswith(b"HTTP/1.1 " + status), out[:80]
    assert seen == []


def test_half_sent_requests_hold_no_thread(listener):
    """500 half-sent request lines were 500 threads of the master, held.  Now one thread reads
    every request through a selector: 200 half-sent requests hold no thread, a whole request is
    answered at once beside them, past READING connections a new one is closed at once, and each
    half-sent one is closed after READ_TIMEOUT_S."""
    port, seen, lst = listener
    before = threading.active_count()
    held = []
    for _ in range(200):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /metr")
        held.append(s)
    time.sleep(0.3)
    assert threading.active_count() <= before            # no thread per connection
    started = time.monotonic()
    out = answer_of(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 200") and time.monotonic() - started < 1.0
    more = []
    for _ in range(listeners.READING):                    # past READING: closed at once
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /metr")
            more.append(s)
        except OSError:
            pass
    time.sleep(0.3)
    assert lst.refused > 0
    time.sleep(listeners.READ_TIMEOUT_S + 0.5)            # the deadline: every half-sent one closed
    for s in held[:20]:
        s.settimeout(1)
        try:
            assert s.recv(100) == b""
        except ConnectionResetError:
            pass
    for s in held + more:
        s.close()


def test_a_worker_is_replaced_within_2_s_under_a_scrape_flood(tmp_path):
    """200 scrapes queued on the metrics listener (each a full scrape of every worker's files)
    and 300 half-sent request lines: a killed worker was replaced after 9.4 s, the arbiter's
    child_exit waiting for the lock every scrape held.  child_exit now hands the fold to a thread
    of its own, and the listener runs 2 threads: a new worker within 2 s."""
    metrics_port = free_port()
    log = tmp_path / "g.log"
    with gunicorn_server({"WEB_CONCURRENCY": "2", "METRICS_PORT": str(metrics_port),
                          "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prom")}, log_path=log) as (base, proc):
        os.makedirs(tmp_path / "prom", exist_ok=True)
        stop = threading.Event()

        def scraper() -> None:
            while not stop.is_set():
                try:
                    answer_of(metrics_port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", timeout=10)
                except OSError:
                    time.sleep(0.05)

        held = []
        for _ in range(300):
            try:
                s = socket.create_connection(("127.0.0.1", metrics_port), timeout=5)
                s.sendall(b"GET /metr")
                held.append(s)
            except OSError:
                pass
        threads = [threading.Thread(target=scraper, daemon=True) for _ in range(200)]
        for t in threads:
            t.start()
        try:
            time.sleep(1.0)
            workers = set(children(proc.pid))
            victim = sorted(workers)[0]
            os.kill(victim, signal.SIGKILL)
            killed = time.monotonic()
            while time.monotonic() - killed < 10:
                now = set(children(proc.pid))
                if len(now - workers) >= 1 and victim not in now:
                    break
                time.sleep(0.02)
            took = time.monotonic() - killed
            assert took < 2.0, f"the worker was replaced after {took:.1f} s"
        finally:
            stop.set()
            for s in held:
                s.close()
            for t in threads:
                t.join(15)
        # the flood over, the listener answers and the dead worker's files are folded away
        out = answer_of(metrics_port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", timeout=10)
        assert out.startswith(b"HTTP/1.1 200") and b"ningbo_score_http_requests_total" in out
        deadline = time.monotonic() + 10
        while any(str(victim) in p.name for p in (tmp_path / "prom").iterdir()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p.name for p in (tmp_path / "prom").iterdir() if f"_{victim}.db" in p.name]


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return out
