"""service/observability/archive.py: a dead worker's Prometheus files folded into one archive
file per kind, the scraped totals unchanged and the multiprocess directory bounded.

Real prometheus_client metrics in a real multiprocess directory (tmp_path): the workers are
subprocesses (their real pids), or, for the per-mode checks, this process with prometheus_client's
pid getter set (``values.MultiProcessValue(process_identifier=...)``)."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Summary, values
from prometheus_client import metrics as prometheus_metrics
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from service.observability.archive import FoldAwareCollector, fold_dead_worker

# A worker: the service's series (same names, types and multiprocess modes as service/observability/metrics.py),
# n requests to one route with the latencies given, one request "in progress" while it lives;
# it prints "ready" once its files are written and exits when its stdin closes.
WORKER = """
import sys
from prometheus_client import Counter, Gauge, Histogram
latencies = [float(x) for x in sys.argv[1].split(",")]
requests = Counter("ningbo_score_http_requests_total", "HTTP requests.", ["route"])
latency = Histogram("ningbo_score_http_request_duration_seconds", "Latency.", ["route"],
                    buckets=(0.1, 0.5, 1.0))
in_progress = Gauge("ningbo_score_http_requests_in_progress", "In progress.", multiprocess_mode="livesum")
build_info = Gauge("ningbo_score_build_info", "Build.", ["version"], multiprocess_mode="max")
build_info.labels("3.0.0").set(1)
in_progress.inc()
for seconds in latencies:
    requests.labels("/v1/score").inc()
    latency.labels("/v1/score").observe(seconds)
print("ready", flush=True)
sys.stdin.read()
"""
ROUTE = (("route", "/v1/score"),)
ARCHIVES = {"counter_archive.db", "histogram_archive.db", "gauge_max_archive.db"}


class Worker:
    def __init__(self, path: Path, latencies: list[float]) -> None:
        env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(path)}
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, ",".join(map(str, latencies))],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "ready\n"
        self.pid = self.proc.pid

    def die(self) -> None:
        """Exit (as a recycled worker does), its files left in the directory."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0
        self.proc.stdout.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


def child_exit(pid: int, path: Path, fold: bool = True) -> None:
    mark_process_dead(pid, str(path))
    if fold:
        fold_dead_worker(pid, str(path))


def scrape(path: Path, collector: type = MultiProcessCollector) -> dict:
    """{(sample name, sorted labels): value} as a scrape of the directory answers it."""
    registry = CollectorRegistry()
    collector(registry, path=str(path))
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in registry.collect() for s in family.samples}


def files(path: Path) -> set[str]:
    return {f.name for f in path.iterdir()}


def pid_files(pid: int) -> set[str]:
    return {f"counter_{pid}.db", f"histogram_{pid}.db", f"gauge_max_{pid}.db", f"gauge_livesum_{pid}.db"}


@pytest.fixture
def workers(tmp_path):
    started: list[Worker] = []

    def start(latencies: list[float]) -> Worker:
        started.append(Worker(tmp_path, latencies))
        return started[-1]

    yield start
    for worker in started:
        worker.stop()


def test_folding_a_dead_worker_keeps_every_total_and_removes_its_files(tmp_path, workers):
    one = workers([0.25, 0.25, 0.75])            # 3 requests
    two = workers([0.0625, 0.25, 0.75, 2.0])     # 4 requests (binary fractions: sums are exact)
    before = scrape(tmp_path)
    # by hand: 3 + 4 = 7 requests; buckets (cumulative) le 0.1: 0.0625 -> 1; le 0.5: + 0.25, 0.25,
    # 0.25 -> 4; le 1.0: + 0.75, 0.75 -> 6; +Inf: + 2.0 -> 7; sum 1.25 + 3.0625 = 4.3125
    assert before[("ningbo_score_http_requests_total", ROUTE)] == 7
    hist = "ningbo_score_http_request_duration_seconds"
    assert [before[(hist + "_bucket", (("le", le),) + ROUTE)] for le in ("0.1", "0.5", "1.0", "+Inf")] == [1, 4, 6, 7]
    assert before[(hist + "_count", ROUTE)] == 7
    assert before[(hist + "_sum", ROUTE)] == 4.3125
    assert before[("ningbo_score_build_info", (("version", "3.0.0"),))] == 1
    assert before[("ningbo_score_http_requests_in_progress", ())] == 2

    one.die()
    mark_process_dead(one.pid, str(tmp_path))
    dead = scrape(tmp_path)
    # what the master answers today after the death: the same totals, one request fewer in
    # progress (the live gauge of the dead worker dropped)
    assert dead == {**before, ("ningbo_score_http_requests_in_progress", ()): 1}
    assert files(tmp_path) == pid_files(two.pid) | pid_files(one.pid) - {f"gauge_livesum_{one.pid}.db"}

    fold_dead_worker(one.pid, str(tmp_path))
    assert scrape(tmp_path) == dead  # every series and value, exactly
    assert files(tmp_path) == ARCHIVES | pid_files(two.pid)
    # the archive's "pid" (gauge_max_archive.db -> pid "archive") never reaches a label
    assert not any(dict(labels).get("pid") for _, labels in scrape(tmp_path))

    fold_dead_worker(one.pid, str(tmp_path))  # a second call for the same pid: nothing to fold
    assert scrape(tmp_path) == dead


@pytest.mark.parametrize("fold", [True, False], ids=["folded", "not-folded"])
def test_ten_deaths_leave_the_archives_and_the_live_workers_files_only(tmp_path, workers, fold):
    """The bound: after ten workers died, 3 archives + the live worker's 4 files.  Without the
    fold (mark_process_dead alone, today's child_exit) each death leaves 3 files behind."""
    live = workers([0.25, 0.25])
    for n in range(1, 11):
        dying = workers([0.75])
        dying.die()
        child_exit(dying.pid, tmp_path, fold=fold)
        got = scrape(tmp_path)
        # by hand: the live worker's 2 requests + one per dead worker
        assert got[("ningbo_score_http_requests_total", ROUTE)] == 2 + n
        assert got[("ningbo_score_http_request_duration_seconds_bucket", (("le", "0.5"),) + ROUTE)] == 2
        assert got[("ningbo_score_http_request_duration_seconds_bucket", (("le", "1.0"),) + ROUTE)] == 2 + n
        assert got[("ningbo_score_http_requests_in_progress", ())] == 1
        assert got[("ningbo_score_build_info", (("version", "3.0.0"),))] == 1
    if fold:
        assert files(tmp_path) == ARCHIVES | pid_files(live.pid)
        assert len(files(tmp_path)) == 7
    else:
        assert len(files(tmp_path)) == 4 + 3 * 10  # what the fold removes


@pytest.fixture
def as_pid(monkeypatch, tmp_path):
    """This process writes metrics as if it were the pid last passed to the returned setter
    (prometheus_client's pid getter), in tmp_path; the clock of the mostrecent gauges is set too."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    pid = [0]
    clock = [1000.0]
    monkeypatch.setattr(values, "ValueClass", values.MultiProcessValue(process_identifier=lambda: pid[0]))
    monkeypatch.setattr(prometheus_metrics, "time", types.SimpleNamespace(time=lambda: clock[0]))

    def setter(new: int, now: float = 1000.0) -> None:
        pid[0] = new
        clock[0] = now

    yield setter
    values.close_all_multiprocess_files()


def test_each_gauge_mode_and_summaries_fold_to_what_the_collector_answered(tmp_path, as_pid):
    """sum adds, max/min keep the extreme, mostrecent the later timestamp, a summary adds; the
    live modes are dropped; "all" (a series per pid, dead ones too) is left as it is."""
    as_pid(101, now=2000.0)  # the worker that dies: "a" set after the live worker, "b" before
    modes = ("sum", "max", "min", "mostrecent", "all", "liveall", "livemax")
    gauges = {mode: Gauge(f"g_{mode}", mode, ["k"], multiprocess_mode=mode, registry=None) for mode in modes}
    summary = Summary("s", "summary", registry=None)
    counter = Counter("c", "counter", registry=None)
    for mode, gauge in gauges.items():
        gauge.labels("a").set(-3.0)
        if mode != "mostrecent":
            gauge.labels("b").set(5.0)
    summary.observe(1.5)
    counter.inc(2)
    as_pid(101, now=500.0)
    gauges["mostrecent"].labels("b").set(5.0)
    as_pid(102, now=1000.0)  # the live worker
    for gauge in gauges.values():
        gauge.labels("a").set(1.0)
        gauge.labels("b").set(2.0)
    summary.observe(0.25)
    counter.inc(1)
    as_pid(103)  # nothing more is written as 101

    mark_process_dead(101, str(tmp_path))
    before = scrape(tmp_path)
    # by hand (live 102 beside the dead 101): sum a: -3 + 1 = -2, b: 5 + 2 = 7; max a: 1, b: 5;
    # min a: -3, b: 2; mostrecent a: -3 (t 2000 > 1000), b: 2 (t 1000 > 500); summary count 2,
    # sum 1.75; counter 3; all: a series per pid; liveall/livemax: 102's only
    assert [before[(f"g_{m}", (("k", k),))] for m in ("sum", "max", "min", "mostrecent") for k in "ab"] == [
        -2, 7, 1, 5, -3, 2, -3, 2]
    assert (before[("s_count", ())], before[("s_sum", ())], before[("c_total", ())]) == (2, 1.75, 3)
    assert before[("g_all", (("k", "a"), ("pid", "101")))] == -3
    assert before[("g_liveall", (("k", "a"), ("pid", "102")))] == 1
    assert ("g_liveall", (("k", "a"), ("pid", "101"))) not in before
    assert before[("g_livemax", (("k", "b"),))] == 2

    fold_dead_worker(101, str(tmp_path))
    assert scrape(tmp_path) == before
    names = files(tmp_path)
    assert {name for name in names if "101" in name} == {"gauge_all_101.db"}
    assert {name for name in names if "archive" in name} == {
        "counter_archive.db", "summary_archive.db", "gauge_sum_archive.db", "gauge_max_archive.db",
        "gauge_min_archive.db", "gauge_mostrecent_archive.db"}

    # a second worker's death folds into the archives already there
    as_pid(104, now=3000.0)
    gauges["mostrecent"].labels("b").set(9.0)
    gauges["min"].labels("b").set(-7.0)
    gauges["sum"].labels("b").set(10.0)
    counter.inc(4)
    as_pid(105)
    mark_process_dead(104, str(tmp_path))
    before = scrape(tmp_path)
    fold_dead_worker(104, str(tmp_path))
    after = scrape(tmp_path)
    assert after == before
    # by hand: mostrecent b 9 (t 3000); min b -7; sum b 7 + 10 = 17; counter 3 + 4 = 7
    assert [after[(f"g_{m}", (("k", "b"),))] for m in ("mostrecent", "min", "sum")] == [9, -7, 17]
    assert after[("c_total", ())] == 7
    # (104's "all" file exists: switching pid opened every series' file, the "all" gauges' too)
    assert {name for name in files(tmp_path) if "104" in name} == {"gauge_all_104.db"}
    assert not any(name.endswith(".tmp") for name in files(tmp_path))


def test_a_scrape_under_the_lock_never_meets_a_fold_half_done(tmp_path, as_pid):
    """FoldAwareCollector (the master's scrape) beside ten folds: every scrape sees the same
    total, never a dead pid twice nor a listed file gone."""
    as_pid(201)
    counter = Counter("c", "counter", registry=None)
    for pid in range(201, 212):  # 11 workers, one request each; 201-210 die, 211 lives
        as_pid(pid)
        counter.inc()
    as_pid(999)
    seen: list[float] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def scraper() -> None:
        try:
            while not done.is_set():
                seen.append(scrape(tmp_path, FoldAwareCollector)[("c_total", ())])
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    thread = threading.Thread(target=scraper)
    thread.start()
    try:
        for pid in range(201, 211):
            fold_dead_worker(pid, str(tmp_path))
    finally:
        done.set()
        thread.join(timeout=30)
    assert not errors
    assert seen and set(seen) == {11}
    assert files(tmp_path) == {"counter_archive.db", "counter_211.db"}
