"""gunicorn settings of the service (``make run``, the Docker image).

Environment:
  HOST             address to bind (default 127.0.0.1; the Docker image sets 0.0.0.0)
  PORT             port (default 8000)
  WEB_CONCURRENCY  worker processes (default: the number of CPU cores)
  GUNICORN_THREADS threads per worker (default 2)
  LOG_LEVEL        gunicorn's log level (default info)
"""
import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the project, for the import below
import fair_worker  # noqa: E402
import observability  # noqa: E402


def _int_env(name: str, default: int, minimum: int = 1) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"{name} must be an integer, not {raw!r}") from None
    if value < minimum:
        raise SystemExit(f"{name} must be at least {minimum}, not {value}")
    return value


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_host = os.environ.get("HOST", "").strip() or "127.0.0.1"
_port = _int_env("PORT", 8000)
bind = [f"[{_host}]:{_port}" if ":" in _host else f"{_host}:{_port}"]

# Scoring is CPU-bound: one process per core; a few threads each keep slow clients and
# keep-alive connections from blocking a worker.  gthread, with the connections shared fairly
# among the workers (fair_worker.py: kept-alive connections opened in a burst otherwise pile up
# on one worker while the others idle).
workers = _int_env("WEB_CONCURRENCY", _cores())
worker_class = "fair_worker.FairThreadWorker"
pre_fork = fair_worker.assign_slot
threads = _int_env("GUNICORN_THREADS", 2)

# A request is scored in milliseconds: 30 s means a stuck worker, which is then restarted.
timeout = 30
graceful_timeout = 20
keepalive = 5

# Recycle workers now and then (bounded memory growth), not all at once, and rarely: at 10,000
# requests each worker was replaced every ~10 s under load, which showed in the p99.
max_requests = 100000
max_requests_jitter = 10000

# Request line and header limits (the body limit, 64 KiB, is the app's).
limit_request_line = 4094
limit_request_fields = 50
limit_request_field_size = 8190

# No control socket: nothing else on the host talks to the server.
control_socket_disable = True

# Logs to stdout/stderr (the container or the terminal collects them), one JSON object a line
# (observability.logconfig_dict).
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info")
capture_output = False
# The access log goes to stdout, everything else to stderr.
logconfig_dict = copy.deepcopy(observability.logconfig_dict)
logconfig_dict["handlers"]["json_stdout"] = {**logconfig_dict["handlers"]["json"], "stream": "ext://sys.stdout"}
logconfig_dict["loggers"]["gunicorn.access"]["handlers"] = ["json_stdout"]
logconfig_dict["loggers"]["gunicorn.error"]["level"] = loglevel.upper()

# Prometheus multiprocess bookkeeping for /metrics (PROMETHEUS_MULTIPROC_DIR); the app is
# loaded in each worker (no preload_app), as prometheus_client's multiprocess mode needs.
on_starting = observability.on_starting
child_exit = observability.child_exit
on_exit = observability.on_exit
preload_app = False


# The collector's thresholds in a worker.  Nearly everything a request allocates is freed by its
# reference count as soon as the answer is sent; a young-generation collection every 700
# allocations (Python's default) walks those short-lived objects again and again.  At 20,000,
# most are gone before a collection comes (bench/load.py measured the difference).
GC_THRESHOLDS = (20_000, 10, 10)


def post_fork(server, worker):
    """In each new worker: fill the library's long-lived caches (group keys, item evaluations)
    by scoring a few hands, then move everything alive to the GC's permanent generation, so
    that the collector no longer walks those caches on every full collection (and, were the
    app ever preloaded, leaves the shared pages alone)."""
    import gc

    import ningbo_score

    ningbo_score.warm_up()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


# The heartbeat files of the workers live in memory where possible (a container's /tmp may be
# a slow overlay).
if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"

proc_name = "ningbo-score"
