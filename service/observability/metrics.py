"""Prometheus metrics, the middleware that counts every request, and gunicorn's multiprocess hooks.

``GET /metrics`` on the metrics listener (:func:`start_metrics_listener`: ``METRICS_HOST``:
``METRICS_PORT`` of service/settings.py, 127.0.0.1:8011 by default), never on the public port
(404 there): a bounded listener of the gunicorn master (service/listeners.py: two threads, a read
deadline, HTTP/1.x only), started by the ``when_ready`` hook, so a scrape waits for no busy
worker and no scrape holds the arbiter (a dead worker's files are folded by a thread of their
own, :func:`fold_later`); it gzips the answer for
a client that accepts it and speaks OpenMetrics to one that asks for it (``Accept``), and answers
the metrics on any path (prometheus_client's way; ``/favicon.ico`` excepted).  It also writes
``process_*`` of the master and of each worker (label ``pid``, and ``process``: ``master`` or
``worker``) and ``python_info``.  Under gunicorn ``PROMETHEUS_MULTIPROC_DIR`` names a directory
shared by the workers (prometheus_client's multiprocess mode), so every scrape sums all workers
whichever worker answers it; when it is unset, the ``on_starting`` hook makes a private one.
Outside gunicorn without it (the Flask test client, a single process) the default registry is
used.

Series: ``ningbo_score_http_requests_total`` and ``ningbo_score_http_request_duration_seconds`` by
``route`` (the URL rule, e.g. ``/v1/rules/<preset>``, never the raw path; ``unmatched`` when no
rule matched), ``method`` and ``status``; ``ningbo_score_errors_total`` by ``route`` and ``code``:
one per problem+json answer, counted by :func:`count_problem` where the answer is built
(service/problems.py), plus whatever :func:`record_problem` is told (the refused hands inside a
batch); ``ningbo_score_http_requests_in_progress``; ``ningbo_score_build_info`` (always 1) with the
service's ``version``, the ``revision`` it was built from (:func:`revision`) and whether the
library runs ``compiled`` (``true``/``false``).  A 405 is counted under the route whose rule
matched the path (with another method).

The module also holds gunicorn's hooks for prometheus_client's multiprocess mode, as plain
objects for gunicorn.conf.py to import: ``on_starting``, ``child_exit``, ``on_exit`` and
``when_ready``.
"""
from __future__ import annotations

import dataclasses
import functools
import logging
import os
import re
import time
import typing

import flask
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from service import settings as service_settings
from service.observability.headers import HSTS, SECURITY_HEADERS
from service.observability.ids import ENV_REQUEST_ID, ENV_TRACE_ID, REQUEST_ID_HEADER, REQUEST_ID_RE, \
    new_request_id, trace_id_of
from service.settings import MULTIPROC_ENV, Settings

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
CODE_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")
# Latency buckets in seconds: fine below 50 ms (the p99 target), coarse up to the worker timeout.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5,
                   1.0, 2.5, 5.0, 10.0, 30.0)
ENV_ROUTE = "ningbo_score.route"

log = logging.getLogger("ningbo_score.http")


class _Metrics:
    """The service's metric objects, created once per process (prometheus_client refuses a second
    registration of the same name, and ``create_app()`` may run many times in one process)."""

    def __init__(self) -> None:
        # Imported here, not at the top: prometheus_client picks its storage (one process, or
        # files in PROMETHEUS_MULTIPROC_DIR) when it is first imported, and gunicorn.conf.py
        # imports this module for its hooks, possibly before the variable is set.
        from prometheus_client import Counter, Gauge, Histogram

        labels = ("route", "method", "status")
        self.requests = Counter("ningbo_score_http_requests_total",
                                "HTTP requests answered, by URL rule, method and status.", labels)
        self.latency = Histogram("ningbo_score_http_request_duration_seconds",
                                 "Time to answer an HTTP request in the app (seconds), by URL rule, "
                                 "method and status.", labels, buckets=LATENCY_BUCKETS)
        self.errors = Counter("ningbo_score_errors_total",
                              "Problem responses (and problems inside batch results) by code.",
                              ("route", "code"))
        self.in_progress = Gauge("ningbo_score_http_requests_in_progress",
                                 "HTTP requests being answered now.", multiprocess_mode="livesum")
        self.build_info = Gauge("ningbo_score_build_info",
                                "Always 1: the service's version, the revision it was built from and "
                                "whether the library runs compiled.",
                                ("version", "revision", "compiled"), multiprocess_mode="max")
        version, compiled = build_info()
        self.build_info.labels(version, revision(service_settings.current()), compiled).set(1)


def build_info() -> tuple[str, str]:
    """(version, "true"/"false"): ``ningbo_score.__version__`` and ``ningbo_score.USING_COMPILED``."""
    import ningbo_score

    return ningbo_score.__version__, "true" if ningbo_score.USING_COMPILED else "false"


def revision(settings: Settings) -> str:
    """The commit the service was built from: ``NINGBO_SCORE_REVISION`` (the Docker image sets it
    from its ``REVISION`` build argument), else the checkout's ``git rev-parse HEAD``, else
    ``unknown``."""
    if settings.revision:
        return settings.revision
    import subprocess

    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=os.path.dirname(os.path.abspath(__file__)),
                              capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else "unknown"


_metrics: _Metrics | None = None


def metrics() -> _Metrics:
    global _metrics
    if _metrics is None:
        _metrics = _Metrics()
    return _metrics


def multiprocess_dir() -> str | None:
    """``PROMETHEUS_MULTIPROC_DIR`` of this process's settings (gunicorn's ``on_starting`` sets
    it when it makes one)."""
    return service_settings.current().multiproc_dir


def registry(pids: typing.Callable[[], typing.Iterable[int]] | None = None) -> typing.Any:
    """What a scrape answers: in multiprocess mode every worker's series, ``python_info`` and
    ``process_*`` of each of ``pids()`` (:class:`PoolProcessCollector`); else this process's
    default registry (which has its own process and Python collectors)."""
    from prometheus_client import REGISTRY, CollectorRegistry, PlatformCollector

    if not multiprocess_dir():
        metrics()
        return REGISTRY
    from .archive import FoldAwareCollector

    out = CollectorRegistry()
    FoldAwareCollector(out)        # reads the directory under the lock child_exit folds under
    PlatformCollector(registry=out)
    out.register(PoolProcessCollector(pids or (lambda: [os.getpid()])))
    return out


def metrics_app(pids: typing.Callable[[], typing.Iterable[int]] | None = None) -> typing.Callable:
    """The WSGI app of the metrics listener: prometheus_client's ``make_wsgi_app`` on
    :func:`registry` (gzip when accepted, OpenMetrics when asked for)."""
    from prometheus_client import make_wsgi_app

    return make_wsgi_app(registry(pids))


class PoolProcessCollector:
    """prometheus_client's ``process_*`` series (CPU, memory, open files, start time) of several
    processes, each sample labelled with its ``pid`` and ``process`` (``master``, this process,
    or ``worker``)."""

    def __init__(self, pids: typing.Callable[[], typing.Iterable[int]]) -> None:
        self.pids = pids

    def collect(self) -> list[typing.Any]:
        from prometheus_client import Metric, ProcessCollector

        families: dict[str, typing.Any] = {}
        master = os.getpid()
        for pid in self.pids():
            role = "master" if pid == master else "worker"
            for family in ProcessCollector(pid=functools.partial(int, pid), registry=None).collect():
                out = families.setdefault(family.name, Metric(family.name, family.documentation, family.type,
                                                              family.unit))
                for sample in family.samples:
                    out.add_sample(sample.name, {**sample.labels, "pid": str(pid), "process": role}, sample.value)
        return list(families.values())


_metrics_server: typing.Any = None


def scrape(registry_: typing.Any, path: str,
           headers: typing.Mapping[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
    """(status, headers, body) of a scrape of ``registry_``: prometheus_client's text format, or
    OpenMetrics when the scraper asks for it (``Accept``), gzipped when it takes gzip."""
    import gzip

    from prometheus_client.exposition import choose_encoder

    if path.split("?", 1)[0] == "/favicon.ico":
        return 404, [], b'{"status":"not found"}'
    encoder, content_type = choose_encoder(headers.get("accept", ""))
    body = encoder(registry_)
    out = [("Content-Type", content_type)]
    if "gzip" in headers.get("accept-encoding", "") and not _refuses_gzip(headers["accept-encoding"]):
        body = gzip.compress(body, compresslevel=1)
        out.append(("Content-Encoding", "gzip"))
    return 200, out, body


def _refuses_gzip(accept_encoding: str) -> bool:
    """Does ``Accept-Encoding`` name gzip with ``q=0``?"""
    for part in accept_encoding.split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() == "gzip":
            return params.replace(" ", "").lower() in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def start_metrics_listener(pids: typing.Callable[[], typing.Iterable[int]], log: typing.Any = None) -> None:
    """The settings' ``metrics_listener`` (service/listeners.py's bounded listener, threads of
    this process, the gunicorn master), answering a scrape of :func:`registry`."""
    global _metrics_server
    listener = service_settings.current().metrics_listener
    if listener is None:
        return
    from service.listeners import BoundedListener

    host, port = listener
    reg = registry(pids)
    try:
        _metrics_server = BoundedListener(host, port, lambda method, path, headers: scrape(reg, path, headers),
                                          "metrics", log).start()
    except OSError as err:
        raise SystemExit(f"the metrics listener cannot listen on {host}:{port} "
                         f"(METRICS_PORT): {err.strerror or err}") from None


def when_ready(server: typing.Any) -> None:
    """gunicorn ``when_ready`` (master, its sockets bound, before the workers): the metrics
    listener, answering for the master and every live worker."""
    start_metrics_listener(lambda: [os.getpid(), *server.WORKERS], server.log)


def close_metrics_listener() -> None:
    """In a forked worker: close its copy of the master's metrics socket (it never serves it)."""
    if _metrics_server is not None:
        _metrics_server.close()


def route_label() -> str:
    return flask.request.environ.get(ENV_ROUTE, "unmatched")


def rule_of_405(request: flask.Request) -> str | None:
    """The URL rule a request's path matched with another method (its 405), or None."""
    err = request.routing_exception
    if not isinstance(err, MethodNotAllowed) or not err.valid_methods:
        return None
    adapter = flask.current_app.url_map.bind_to_environ(request.environ)
    try:
        rule, _ = adapter.match(method=next(iter(err.valid_methods)), return_rule=True)
    except HTTPException:
        return None
    return rule.rule


def record_problem(code: str, route: str | None = None) -> str:
    """Count one problem by ``code`` (one not of the form of a code counts as ``other``) under
    ``route`` (default: the request's); the code counted.  For a problem inside an answer (the
    refused hands of a batch); a problem answer is counted by :func:`count_problem`."""
    if route is None:
        route = route_label() if flask.has_request_context() else "none"
    code = code if CODE_RE.fullmatch(code or "") else "other"
    metrics().errors.labels(route, code).inc()
    return code


def count_problem(code: str, status: int) -> None:
    """A problem answer with ``code`` and ``status`` is being built (service/problems.py, in the
    request's context): count it and log a line for it.  The code is the one the answer is
    built from: nothing reads the answer's body back."""
    route = route_label()
    code = record_problem(code, route)
    request = flask.request
    log.log(logging.ERROR if status >= 500 else logging.INFO, "problem %s %s on %s %s", status, code,
            request.method, request.path, extra={"code": code, "status": status, "route": route})


# --- gunicorn hooks ----------------------------------------------------------------------------

_created_multiproc_dir: str | None = None


def on_starting(server: typing.Any) -> None:
    """gunicorn ``on_starting`` (master, before any worker).

    With ``PROMETHEUS_MULTIPROC_DIR`` set: create the directory and delete the ``*.db`` files a
    previous run left there (a restarted container keeps its emptyDir; old counts would be added
    in).  Unset: make a private directory (``/tmp/ningbo-score-prometheus-*``) and set the
    variable, so the workers, forked after this, share it; ``on_exit`` removes it.  Either way
    prometheus_client must not have been imported in the master yet (it picks its mode at
    import): this module imports it lazily, and ``preload_app`` stays off."""
    global _created_multiproc_dir
    settings = service_settings.current()
    path = settings.multiproc_dir
    if not path:
        import tempfile

        path = _created_multiproc_dir = tempfile.mkdtemp(prefix="ningbo-score-prometheus-")
        os.environ[MULTIPROC_ENV] = path                # prometheus_client reads it in the workers
        service_settings.use(dataclasses.replace(settings, multiproc_dir=path))
        return
    os.makedirs(path, mode=0o700, exist_ok=True)
    for name in os.listdir(path):
        if name.endswith(".db"):
            os.remove(os.path.join(path, name))


def on_exit(server: typing.Any) -> None:
    """gunicorn ``on_exit`` (master, last): remove the directory ``on_starting`` made itself."""
    global _created_multiproc_dir
    if _created_multiproc_dir:
        import shutil

        shutil.rmtree(_created_multiproc_dir, ignore_errors=True)
        _created_multiproc_dir = None


def child_exit(server: typing.Any, worker: typing.Any) -> None:
    """gunicorn ``child_exit`` (master, after a worker exited): hand the dead worker's files to
    the folding thread (:func:`fold_later`), which drops its live gauge files so the in-progress
    gauge does not count it and folds the rest into the ``*_archive.db`` files (its counts stay
    in the totals; the directory stays bounded by the live workers however many have died).  The
    arbiter itself takes no lock a scrape holds: it goes on replacing the worker at once."""
    path = multiprocess_dir()
    if path:
        fold_later(worker.pid, path)


_folds: typing.Any = None


def fold_later(pid: int, path: str) -> None:
    """Fold the files of the dead ``pid`` in a thread of its own (one for the process), under the
    lock every scrape reads the directory under (archive.LOCK)."""
    global _folds
    if _folds is None:
        import queue
        import threading

        _folds = queue.SimpleQueue()
        threading.Thread(target=_fold_loop, args=(_folds,), name="metrics-fold", daemon=True).start()
    _folds.put((pid, path))


def _fold_loop(folds: typing.Any) -> None:
    from prometheus_client import multiprocess

    from .archive import LOCK, fold_dead_worker

    while True:
        pid, path = folds.get()
        try:
            with LOCK:
                multiprocess.mark_process_dead(pid, path)
            fold_dead_worker(pid, path)
        except Exception:
            log.exception("folding the metrics files of worker %s", pid)


class ObservabilityMiddleware:
    """WSGI middleware around the Flask app: decides the request ID (before Flask runs, so even
    a request that fails early has one), adds the request ID and security headers to the
    response as plain tuples in ``start_response`` (far cheaper than werkzeug's Headers), and
    counts and times every request by route, method and status.  The route is the URL rule Flask
    matched, left in the environ by ``before_request``."""

    def __init__(self, wsgi_app: typing.Callable, m: _Metrics) -> None:
        self.wsgi_app = wsgi_app
        self.m = m
        self.static_headers = list(SECURITY_HEADERS.items())
        self.static_names = {name.lower() for name in SECURITY_HEADERS} | {REQUEST_ID_HEADER.lower()}
        self._children: dict[tuple[str, str, str], tuple[typing.Any, typing.Any]] = {}

    def children(self, route: str, method: str, status: str) -> tuple[typing.Any, typing.Any]:
        key = (route, method, status)
        found = self._children.get(key)
        if found is None:
            found = (self.m.requests.labels(*key), self.m.latency.labels(*key))
            self._children[key] = found
        return found

    def __call__(self, environ: dict, start_response: typing.Callable) -> typing.Iterable[bytes]:
        rid = environ.get("HTTP_X_REQUEST_ID")
        if not rid or REQUEST_ID_RE.fullmatch(rid) is None:
            rid = new_request_id()
        environ[ENV_REQUEST_ID] = rid
        traceparent = environ.get("HTTP_TRACEPARENT")
        environ[ENV_TRACE_ID] = trace_id_of(traceparent) if traceparent else None
        extra = [*self.static_headers, (REQUEST_ID_HEADER, rid)]
        if environ.get("wsgi.url_scheme") == "https":
            extra.append(("Strict-Transport-Security", HSTS))
        seen: list[str] = []

        def _start_response(status: str, headers: list, exc_info: typing.Any = None) -> typing.Callable:
            seen.append(status)
            own = {name.lower() for name, _ in headers if name.lower() in self.static_names}
            headers.extend(extra if not own else [h for h in extra if h[0].lower() not in own])
            return start_response(status, headers, exc_info)

        m = self.m
        m.in_progress.inc()
        started = time.perf_counter()
        try:
            return self.wsgi_app(environ, _start_response)
        finally:
            elapsed = time.perf_counter() - started
            m.in_progress.dec()
            method = environ.get("REQUEST_METHOD", "")
            counter, histogram = self.children(environ.get(ENV_ROUTE, "unmatched"),
                                               method if method in METHODS else "other",
                                               seen[-1][:3] if seen else "500")
            counter.inc()
            histogram.observe(elapsed)


