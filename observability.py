"""Request IDs, JSON logs, Prometheus metrics, readiness, CORS and security headers.

``init_app(app)`` wires all of it into a Flask app (``create_app()`` calls it last).  The module
also holds what gunicorn needs, as plain objects for ``gunicorn.conf.py`` to import:
``on_starting``, ``child_exit`` and ``on_exit`` (Prometheus multiprocess bookkeeping) and
``logconfig_dict`` (JSON error and access logs).

- **Request ID.** ``X-Request-ID`` is taken from the request when it is 1-128 characters of
  ``[A-Za-z0-9._-]``; otherwise (absent, empty, too long, other characters) a fresh random
  version-4 UUID in hex replaces it.  It is stored as ``flask.g.request_id``, echoed in the response header and added
  to every log line written while the request runs (``request_id``), and to gunicorn's access
  line (read back from the response header).
- **Logs.** One JSON object per line (python-json-logger; stderr, or as gunicorn.conf.py routes
  them): ``time``, ``level``,
  ``logger``, ``message``, ``request_id`` and, for access lines, ``method``, ``path``,
  ``status``, ``bytes``, ``duration_ms``, ``remote_addr``, ``user_agent``.
- **Trace context.** A valid W3C ``traceparent`` header (``00-<32 hex trace id>-<16 hex parent
  id>-<2 hex flags>``, neither id all zeros, version not ``ff``) has its trace id logged as
  ``trace_id`` on every line of the request, the access line included; an invalid one is ignored.
- **Metrics.** ``GET /metrics`` on the metrics listener (:func:`metrics_listener`:
  ``METRICS_HOST``:``METRICS_PORT``, 127.0.0.1:8011 by default), never on the public port (404
  there): prometheus_client's own HTTP server (``start_http_server``), started in the gunicorn
  master by the ``when_ready`` hook, so a scrape waits for no busy worker; it gzips the answer
  for a client that accepts it and speaks OpenMetrics to one that asks for it (``Accept``), and
  answers the metrics on any path (prometheus_client's way; ``/favicon.ico`` excepted).  It
  also writes ``process_*`` of the master and of each worker (label ``pid``, and ``process``:
  ``master`` or ``worker``) and ``python_info``.  Under gunicorn the environment variable
  ``PROMETHEUS_MULTIPROC_DIR`` names a directory shared by the workers (prometheus_client's
  multiprocess mode), so every scrape sums all workers whichever worker answers it; when it is
  unset, the ``on_starting`` hook makes a private one.  Outside gunicorn without the variable
  (the Flask test client, a single process) the default registry is used.  Series:
  ``ningbo_score_http_requests_total`` and ``ningbo_score_http_request_duration_seconds`` by
  ``route`` (the URL rule, e.g. ``/v1/rules/<preset>``, never the raw path; ``unmatched``
  when no rule matched), ``method`` and ``status``; ``ningbo_score_errors_total`` by ``route``
  and ``code``: one per problem+json response, by its ``code`` (plus whatever
  :func:`record_problem` is told, e.g. the refused hands inside a batch);
  ``ningbo_score_http_requests_in_progress``; ``ningbo_score_build_info`` (always 1) with the
  service's ``version``, the ``revision`` it was built from (:func:`revision`) and whether the
  library runs ``compiled`` (``true``/``false``).  A 405 is counted under the route whose rule
  matched the path (with another method).
- **Readiness.** ``GET /readyz``: 200 ``{"status": "ready", "checks": {...}}`` when the scoring
  engine answers docs/api.md's worked example correctly (4 台, 5 points) and, in multiprocess mode,
  the metrics directory is writable; else 503 problem+json with code ``not_ready`` and the
  failing checks under ``errors``.
- **CORS** on ``/v1/*`` (plain flask-cors): any origin by default (``app.config["CORS_ORIGINS"]``),
  no credentials, methods GET/POST/OPTIONS, request headers Content-Type, Accept-Language,
  X-Request-ID, traceparent and tracestate (:data:`CORS_REQUEST_HEADERS`), response header
  X-Request-ID exposed, preflight cached 10 minutes.
- **Security headers** on every response: :data:`SECURITY_HEADERS` (a Content-Security-Policy
  that allows only same-origin scripts, styles, images, fonts and fetches, no framing), plus
  ``Strict-Transport-Security`` when the request came over HTTPS.
"""
from __future__ import annotations

import functools
import logging
import os
import random
import re
import sys
import time
import typing

import flask
import orjson
from werkzeug.exceptions import HTTPException, MethodNotAllowed
from flask_cors import CORS
from pythonjsonlogger.json import JsonFormatter as _BaseJsonFormatter

REQUEST_ID_HEADER = "X-Request-ID"
REQUEST_ID_RE = re.compile(r"[A-Za-z0-9._-]{1,128}")
# W3C Trace Context: version-traceid-parentid-flags, lowercase hex
TRACEPARENT_RE = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
METRICS_HOST_ENV, METRICS_PORT_ENV = "METRICS_HOST", "METRICS_PORT"
# (8011: outside 9100-9999, the range Prometheus gives its exporters; 9100 is node_exporter's)
DEFAULT_METRICS_LISTENER = ("127.0.0.1", 8011)
#: the service's version when the library does not say (``ningbo_score.__version__``)
FALLBACK_VERSION = "3.0.0"
PROBLEM_TYPE = "application/problem+json"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
CODE_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")
# Latency buckets in seconds: fine below 50 ms (the p99 target), coarse up to the worker timeout.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5,
                   1.0, 2.5, 5.0, 10.0, 30.0)

# The calculator page (/) and the Swagger UI page (/docs) load only same-origin files, so no
# 'unsafe-inline' is needed: no inline <script>; Swagger UI's React code sets element styles
# through the CSSOM, which style-src does not govern; its one inline <style> element is the
# two-rule stylesheet inside its logo's SVG, allowed below by its hash (swagger-ui-bundle 1.1.0:
# ".logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}"); data: images
# (Swagger UI's CSS draws icons as data: SVGs; the calculator's favicon is "data:,").
# tests/test_observability.py loads both pages in Chromium under this policy, tries an
# operation in Swagger UI, and fails on any violation.
SWAGGER_LOGO_STYLE_HASH = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    f"style-src 'self' {SWAGGER_LOGO_STYLE_HASH}",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}
HSTS = "max-age=31536000; includeSubDomains"

# docs/api.md's worked example: 排胡 0 + 自摸 1 + 硬胡 1 + 中 pung 1 + 正花 1 = 4 台; linear points
# 1 × (1 + 4) = 5; self-draw, nobody related: E, W, N pay 5 each, S gets 15.
READY_HAND = {
    "rules": "ningbo",
    "seat_wind": "S",
    "round_wind": "E",
    "caishen": {"indicator": "5p"},
    "hand": {
        "concealed": ["2m", "3m", "4m", "6m", "7m", "8m", "9s", "9s"],
        "winning_tile": "4m",
        "melds": [
            {"type": "pung", "tiles": ["C", "C", "C"], "from": "E"},
            {"type": "kong", "tiles": ["1s", "1s", "1s", "1s"], "concealed": True},
        ],
        "flowers": ["2f"],
    },
    "win": {"by": "self_draw"},
    "claims_from_winner": {"E": 0, "W": 1, "N": 0},
    "base_points": 1,
}
READY_EXPECTED = {"tai": 4, "points": 5, "net": {"E": -5, "S": 15, "W": -5, "N": -5}}

log = logging.getLogger("ningbo_score.http")


# --- request IDs -------------------------------------------------------------------------------

def valid_request_id(value: str | None) -> typing.TypeGuard[str]:
    return value is not None and REQUEST_ID_RE.fullmatch(value) is not None     # (never matches "")


_UUID4_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))
_UUID4_SET = (0x4000 << 64) | (0x8000 << 48)
# A private generator, seeded from os.urandom and again in every forked process (gunicorn's
# workers): nobody else's random.seed() can make two requests share an ID.
_rng = random.Random()
os.register_at_fork(after_in_child=_rng.seed)


def new_request_id() -> str:
    """A random version-4 UUID as 32 hex digits.  From a Mersenne Twister seeded by os.urandom,
    not ``uuid.uuid4()``: a request ID is no secret, and os.urandom costs a system call per
    request (11 µs here against 1 µs)."""
    return f"{(_rng.getrandbits(128) & _UUID4_CLEAR) | _UUID4_SET:032x}"


def request_id_of(value: str | None) -> str:
    """The request ID to use for an incoming header value: the value if valid, else a new one."""
    return value if valid_request_id(value) else new_request_id()


def current_request_id() -> str | None:
    if flask.has_request_context():
        return flask.g.get("request_id")
    return None


def trace_id_of(traceparent: str | None) -> str | None:
    """The trace id of a W3C ``traceparent`` header value, or None when it is absent or invalid
    (Trace Context §3.2: version ``ff`` and all-zero ids are invalid; version 00 has exactly four
    fields, a later version may add more)."""
    if not traceparent:
        return None
    found = TRACEPARENT_RE.fullmatch(traceparent.strip())
    if found is None:
        return None
    version, trace_id, parent_id, _flags, rest = found.groups()
    if version == "ff" or (version == "00" and rest) or trace_id == "0" * 32 or parent_id == "0" * 16:
        return None
    return trace_id


def current_trace_id() -> str | None:
    if flask.has_request_context():
        return flask.request.environ.get(ENV_TRACE_ID)
    return None


# --- logging -----------------------------------------------------------------------------------

class RequestIdFilter(logging.Filter):
    """Adds ``record.request_id`` and ``record.trace_id``: the current request's ID and W3C trace
    id (None outside a request, or without a valid ``traceparent``).  Attached to handlers, so it
    sees every record they emit, the propagated ones included."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = current_request_id()
        if getattr(record, "trace_id", None) is None:
            record.trace_id = current_trace_id()
        return True


def _json_default(value: typing.Any) -> typing.Any:
    return str(value)


def _orjson_dumps(data: typing.Any, **_ignored: typing.Any) -> str:
    """json.dumps-compatible serializer on orjson (a third of the cost per line); anything orjson
    does not know is written as its str()."""
    return orjson.dumps(data, default=_json_default, option=orjson.OPT_NON_STR_KEYS).decode()


class JsonFormatter(_BaseJsonFormatter):
    """One JSON object per record: time, level, logger, message, request_id, trace_id, extras.

    gunicorn's access records (logger ``gunicorn.access``, args = the dict of access-log atoms)
    also get structured fields, and their ``request_id`` is the ``X-Request-ID`` the app put in
    the response and their ``trace_id`` that of the request's ``traceparent`` (the Flask request
    context is gone by the time gunicorn logs the line)."""

    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None:
        kwargs.setdefault("fmt", "%(asctime)s %(levelname)s %(name)s %(message)s")
        kwargs.setdefault("rename_fields", {"asctime": "time", "levelname": "level", "name": "logger"})
        kwargs.setdefault("json_ensure_ascii", False)
        kwargs.setdefault("json_serializer", _orjson_dumps)
        kwargs.setdefault("json_default", _json_default)
        super().__init__(*args, **kwargs)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        # RFC 3339 in UTC with milliseconds: 2025-11-29T19:52:01.123Z
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"

    def add_fields(self, log_data: dict, record: logging.LogRecord, message_dict: dict) -> None:
        super().add_fields(log_data, record, message_dict)
        atoms = record.args if record.name == "gunicorn.access" and isinstance(record.args, dict) else None
        if atoms is not None:
            log_data.update(_access_fields(atoms))
        if log_data.get("request_id") is None:
            rid = atoms.get("{x-request-id}o") if atoms is not None else current_request_id()
            log_data["request_id"] = rid if valid_request_id(rid) else None
        if log_data.get("trace_id") is None:
            log_data["trace_id"] = (trace_id_of(atoms.get("{traceparent}i")) if atoms is not None
                                    else current_trace_id())
        log_data.setdefault("pid", record.process)


def _num(value: typing.Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _text(value: typing.Any) -> typing.Any:
    # gunicorn's SafeAtoms escape " as \" for its format string; undo it for the JSON field
    return value.replace('\\"', '"') if isinstance(value, str) and '\\"' in value else value


def _access_fields(atoms: dict) -> dict:
    duration_us = _num(atoms.get("D"))
    return {
        "method": atoms.get("m"),
        "path": _text(atoms.get("U")),
        "query": _text(atoms.get("q")) or None,
        "status": _num(atoms.get("s")),
        "bytes": _num(atoms.get("B")),
        "duration_ms": None if duration_us is None else round(duration_us / 1000, 3),
        "remote_addr": atoms.get("h"),
        "user_agent": _text(atoms.get("a")),
    }


class StderrHandler(logging.StreamHandler):
    """A StreamHandler on whatever ``sys.stderr`` is when a record is written (test runners and
    servers swap it), not on the stream of the moment it was made."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> typing.TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: typing.TextIO) -> None:
        pass


def _ours(handler: logging.Handler) -> bool:
    return isinstance(handler.formatter, JsonFormatter)


def configure_logging(level: int = logging.INFO) -> None:
    """JSON lines on stderr for the root logger (once), the request ID filter on every JSON
    handler, and INFO for the service's own loggers.  Under gunicorn ``logconfig_dict`` has set
    the handlers up already; this then only adds what is missing."""
    root = logging.getLogger()
    handlers = [h for h in root.handlers if _ours(h)]
    if not handlers:
        handler: logging.Handler = StderrHandler()
        handler.setFormatter(JsonFormatter())
        root.addHandler(handler)
        handlers = [handler]
    for handler in handlers:
        if not any(isinstance(f, RequestIdFilter) for f in handler.filters):
            handler.addFilter(RequestIdFilter())
    for name in ("ningbo_score", "observability"):
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(level)


# The logging configuration gunicorn applies (``logconfig_dict = observability.logconfig_dict``):
# error and access lines both as JSON on stderr (the container's log stream), the app's own
# loggers through the root logger.
logconfig_dict: dict[str, typing.Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "observability.RequestIdFilter"}},
    "formatters": {"json": {"()": "observability.JsonFormatter"}},
    "handlers": {
        "json": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "filters": ["request_id"],
            "stream": "ext://sys.stderr",
        },
    },
    "root": {"level": "INFO", "handlers": ["json"]},
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": ["json"], "propagate": False},
        "gunicorn.access": {"level": "INFO", "handlers": ["json"], "propagate": False},
    },
}


# --- metrics -----------------------------------------------------------------------------------

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
        self.build_info.labels(version, revision(), compiled).set(1)


def build_info() -> tuple[str, str]:
    """(version, "true"/"false"): ``ningbo_score.__version__`` (else :data:`FALLBACK_VERSION`) and
    ``ningbo_score.USING_COMPILED``."""
    import ningbo_score

    version = getattr(ningbo_score, "__version__", None) or FALLBACK_VERSION
    return str(version), "true" if getattr(ningbo_score, "USING_COMPILED", False) else "false"


REVISION_ENV = "NINGBO_SCORE_REVISION"


def revision() -> str:
    """The commit the service was built from: ``NINGBO_SCORE_REVISION`` (the Docker image sets it
    from its ``REVISION`` build argument), else the checkout's ``git rev-parse HEAD``, else
    ``unknown``."""
    found = os.environ.get(REVISION_ENV, "").strip()
    if found:
        return found
    import subprocess

    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=os.path.dirname(os.path.abspath(__file__)),
                              capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else "unknown"


def metrics_listener() -> tuple[str, int] | None:
    """(host, port) of the /metrics listener: ``METRICS_HOST`` (default 127.0.0.1) and
    ``METRICS_PORT`` (default 8011); None when ``METRICS_PORT`` is 0 (no metrics listener)."""
    host = os.environ.get(METRICS_HOST_ENV, "").strip() or DEFAULT_METRICS_LISTENER[0]
    raw = os.environ.get(METRICS_PORT_ENV, "").strip()
    if not raw:
        return host, DEFAULT_METRICS_LISTENER[1]
    if not raw.isdigit() or int(raw) > 65535:
        raise SystemExit(f"{METRICS_PORT_ENV} must be a port number (0: none), not {raw!r}")
    return (host, int(raw)) if int(raw) else None


_metrics: _Metrics | None = None


def metrics() -> _Metrics:
    global _metrics
    if _metrics is None:
        _metrics = _Metrics()
    return _metrics


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def registry(pids: typing.Callable[[], typing.Iterable[int]] | None = None) -> typing.Any:
    """What a scrape answers: in multiprocess mode every worker's series, ``python_info`` and
    ``process_*`` of each of ``pids()`` (:class:`PoolProcessCollector`); else this process's
    default registry (which has its own process and Python collectors)."""
    from prometheus_client import REGISTRY, CollectorRegistry, PlatformCollector

    if not multiprocess_dir():
        metrics()
        return REGISTRY
    from prometheus_client import multiprocess

    out = CollectorRegistry()
    multiprocess.MultiProcessCollector(out)
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


def start_metrics_listener(pids: typing.Callable[[], typing.Iterable[int]]) -> None:
    """prometheus_client's ``start_http_server`` on :func:`metrics_listener` (a daemon thread of
    this process, the gunicorn master), answering :func:`metrics_app`."""
    global _metrics_server
    listener = metrics_listener()
    if listener is None:
        return
    from prometheus_client import start_http_server

    host, port = listener
    try:
        _metrics_server, _ = start_http_server(port, host, registry=registry(pids))
    except OSError as err:
        raise SystemExit(f"the metrics listener cannot listen on {host}:{port} "
                         f"({METRICS_PORT_ENV}): {err.strerror or err}") from None


def when_ready(server: typing.Any) -> None:
    """gunicorn ``when_ready`` (master, its sockets bound, before the workers): the metrics
    listener, answering for the master and every live worker."""
    start_metrics_listener(lambda: [os.getpid(), *server.WORKERS])


def close_metrics_listener() -> None:
    """In a forked worker: close its copy of the master's metrics socket (it never serves it)."""
    if _metrics_server is not None:
        _metrics_server.socket.close()


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


def record_problem(code: str, route: str | None = None) -> None:
    """Count one problem by ``code``.  Problem responses are counted automatically; call this
    for problems the response does not carry as its own status (e.g. refused hands in a batch)."""
    if route is None:
        route = route_label() if flask.has_request_context() else "none"
    metrics().errors.labels(route, code if CODE_RE.fullmatch(code or "") else "other").inc()


def _problem_code(response: flask.Response) -> str:
    try:
        body = orjson.loads(response.get_data())
        code = body.get("code") if isinstance(body, dict) else None
    except (orjson.JSONDecodeError, RuntimeError, ValueError):
        code = None
    return code if isinstance(code, str) and CODE_RE.fullmatch(code) else "other"


# --- readiness ---------------------------------------------------------------------------------

def readiness_checks() -> dict[str, str]:
    """Each readiness check and its result: ``ok``, or what is wrong (in English)."""
    return {name: en for name, (en, _) in checks_in_both_languages().items()}


def checks_in_both_languages() -> dict[str, tuple[str, str]]:
    """Each readiness check and its result, in English and Chinese (``ok`` in both when it passes)."""
    checks: dict[str, tuple[str, str]] = {}
    try:
        import ningbo_score

        result = typing.cast("dict[str, object]", ningbo_score.score(READY_HAND))
        got = {key: result.get(key) for key in READY_EXPECTED}
        checks["engine"] = ("ok", "ok") if got == READY_EXPECTED else (f"unexpected result {got}",
                                                                        f"结果与预期不符：{got}")
    except Exception as err:  # noqa: BLE001 - any failure means "not ready", reported below
        checks["engine"] = (f"{type(err).__name__}: {err}", f"出错：{type(err).__name__}: {err}")
    path = multiprocess_dir()
    if path:
        ok = os.path.isdir(path) and os.access(path, os.W_OK)
        checks["metrics_dir"] = ("ok", "ok") if ok else (f"{path} is not a writable directory",
                                                         f"{path} 不是可写的目录")
    return checks


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
    path = multiprocess_dir()
    if not path:
        import tempfile

        path = _created_multiproc_dir = tempfile.mkdtemp(prefix="ningbo-score-prometheus-")
        os.environ[MULTIPROC_ENV] = path
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
    """gunicorn ``child_exit`` (master, after a worker exited): drop the dead worker's live
    gauge files so the in-progress gauge does not count it; its counters stay in the totals."""
    if multiprocess_dir():
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


# --- the Flask side ----------------------------------------------------------------------------

ENV_REQUEST_ID = "ningbo_score.request_id"
ENV_ROUTE = "ningbo_score.route"
ENV_TRACE_ID = "ningbo_score.trace_id"


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


#: Request headers a browser may send on a cross-origin /v1 call (preflight ``Allow-Headers``):
#: the body's type, the language, the request ID and W3C trace context (traceparent, tracestate).
CORS_REQUEST_HEADERS = ("Content-Type", "Accept-Language", REQUEST_ID_HEADER, "traceparent", "tracestate")


def init_cors(app: flask.Flask) -> None:
    """Plain flask-cors on ``/v1/*``, with the options of the module's docstring."""
    origins = app.config.get("CORS_ORIGINS", "*")
    CORS(app,
         resources={r"/v1/*": {"origins": origins}},
         methods=["GET", "POST", "OPTIONS"],
         allow_headers=list(CORS_REQUEST_HEADERS),
         expose_headers=[REQUEST_ID_HEADER],
         send_wildcard=origins == "*",
         vary_header=True,
         max_age=600)


def readyz() -> flask.Response:
    """``GET /readyz`` (a route of app.ROUTES)."""
    checks = checks_in_both_languages()
    body: dict[str, object]
    if all(en == "ok" for en, _ in checks.values()):
        body = {"status": "ready", "checks": {k: en for k, (en, _) in checks.items()}}
        status, content_type = 200, "application/json"
    else:
        from app import language                  # (app imports this module: not at import time)

        zh = language() == "zh"
        failing = {k: [zh_text if zh else en] for k, (en, zh_text) in checks.items() if en != "ok"}
        said = "; ".join(f"{k}: {v[0]}" for k, v in failing.items())
        body = {"type": "urn:ningbo-score:problem:not_ready", "title": "未就绪" if zh else "Not ready",
                "status": 503, "detail": f"服务未就绪：{said}" if zh else f"The service is not ready: {said}",
                "code": "not_ready", "errors": failing}
        status, content_type = 503, PROBLEM_TYPE
    return flask.Response(orjson.dumps(body), status=status, content_type=content_type,
                          headers={"Cache-Control": "no-store"})


def init_app(app: flask.Flask) -> flask.Flask:
    configure_logging()
    m = metrics()
    init_cors(app)
    @app.before_request
    def _request_id_and_route() -> None:
        environ = flask.request.environ
        rid = environ.get(ENV_REQUEST_ID)
        if rid is None:  # the app called without the middleware (e.g. app.wsgi_app directly)
            rid = environ[ENV_REQUEST_ID] = request_id_of(flask.request.headers.get(REQUEST_ID_HEADER))
        flask.g.request_id = rid
        rule = flask.request.url_rule
        route = rule.rule if rule is not None else rule_of_405(flask.request)
        if route is not None:
            environ[ENV_ROUTE] = route

    @app.after_request
    def _count_problems(response: flask.Response) -> flask.Response:
        if response.content_type == PROBLEM_TYPE and not response.is_streamed:
            code = _problem_code(response)
            route = route_label()
            m.errors.labels(route, code).inc()
            log.log(logging.ERROR if response.status_code >= 500 else logging.INFO,
                    "problem %s %s on %s %s", response.status_code, code, flask.request.method,
                    flask.request.path, extra={"code": code, "status": response.status_code, "route": route})
        return response

    app.wsgi_app = ObservabilityMiddleware(app.wsgi_app, m)  # type: ignore[method-assign]
    return app
