"""gunicorn settings of the service (``make run``, the Docker image).

Environment:
  HOST             address to bind (default 127.0.0.1; the Docker image sets 0.0.0.0)
  PORT             port (default 8000)
  WEB_CONCURRENCY  worker processes (default: the number of CPU cores)
  WORKER_CONNECTIONS connections a worker holds at most (default 1000)
  METRICS_HOST     address of the /metrics listener (default 127.0.0.1)
  METRICS_PORT     its port (default 8011; 0: no metrics listener)
  HEALTH_PORT      a port of its own for GET /healthz, answered by the master (default 0: none)
  LOG_LEVEL        gunicorn's log level: critical, error, warning, info or debug (default info)
  FORWARDED_ALLOW_IPS  the proxies (addresses or networks, comma-separated; * any) whose
                   X-Forwarded-For and X-Forwarded-Proto are believed (default: none)
  HEADER_TIMEOUT, IO_TIMEOUT, BODY_TIMEOUT, WRITE_TIMEOUT  the deadlines of service/serving.py, in
                   seconds (10, 10, 20, 10)
  PROMETHEUS_MULTIPROC_DIR, NINGBO_SCORE_REVISION, STATIC_BUILD_DIR  (service/settings.py)

Every one is read once, by service/settings.py (``Settings.from_env``): a bad one ends the start
here in one line per bad variable, without a traceback.  ``python -m service`` (the Docker image,
``make run``, ``ningbo-score serve``) reads them before gunicorn does (gunicorn itself reads
WEB_CONCURRENCY as it loads its own settings: a traceback for a non-number).
"""
import copy
import errno
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the project, for the imports below
from service import settings as service_settings  # noqa: E402
from service import fair_worker  # noqa: E402
from service.observability import logs, metrics  # noqa: E402

try:
    _settings = service_settings.Settings.from_env(os.environ)
except service_settings.SettingsError as err:
    raise SystemExit(str(err)) from None
if __name__ == "__config__":
    service_settings.use(_settings)          # the master's, which the workers inherit


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


_host, _port = _settings.host, _settings.port
bind = [_address(_host, _port)]
# /metrics on a listener of its own, off the public port and off the workers: prometheus_client's
# HTTP server in the master (metrics.when_ready, below).
_metrics = _settings.metrics_listener


def check_listeners(listeners: list[tuple[str, int, str, str]]) -> None:
    """Each (host, port, host variable, port variable) can be listened on, or the start ends
    here in one line naming the variable to change (gunicorn itself would retry for five
    seconds, then fail without naming it)."""
    for host, port, host_var, port_var in listeners:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as gunicorn binds
            try:
                probe.bind((host, port))
            except OSError as err:
                where = _address(host, port)
                if err.errno == errno.EADDRINUSE:
                    raise SystemExit(f"{where} is in use: set {port_var} to a free port "
                                     f"(e.g. {port_var}={port + 1 if port < 65535 else 8001})") from None
                if err.errno == errno.EACCES:
                    raise SystemExit(f"{where} needs privileges: set {port_var} to a port above 1023") from None
                raise SystemExit(f"can't listen on {where} ({err.strerror or err}): "
                                 f"set {host_var} to an address of this machine (e.g. {host_var}=127.0.0.1)") from None



# Liveness beside the serving port: GET /healthz answered by a thread of the master, which a
# busy serving port can't starve (service.listeners.start_liveness), on HOST:HEALTH_PORT.
_health_port = _settings.health_port


# Checked when gunicorn reads this file to start (module __config__), once: not again on a
# reload (SIGHUP) or a re-exec (SIGUSR2), where the server holds the ports itself, nor when a
# test reads the settings.
if __name__ == "__config__" and not os.environ.get("NINGBO_SCORE_LISTENING") and "GUNICORN_FD" not in os.environ:
    check_listeners([(_host, _port, "HOST", "PORT")]
                    + ([(*_metrics, "METRICS_HOST", "METRICS_PORT")] if _metrics is not None else [])
                    + ([(_host, _health_port, "HOST", "HEALTH_PORT")] if _health_port else []))
    os.environ["NINGBO_SCORE_LISTENING"] = "1"


def when_ready(server):
    """gunicorn's ``when_ready`` (the master, its sockets bound, before the workers): the metrics
    listener (metrics.when_ready) and, where HEALTH_PORT is set, the liveness listener."""
    metrics.when_ready(server)
    if _health_port:
        from service import listeners

        listeners.start_liveness(server, _host, _health_port)


# Scoring is CPU-bound: one process per core.  Each is a gevent worker (service/serving.py): every
# connection is a greenlet, so slow, idle and non-reading clients cost a parked greenlet each,
# not a thread; header, body and socket deadlines bound how long they are kept; a batch lets the
# other requests run between its hands.  Connections are shared fairly among the workers
# (service/fair_worker.py: kept-alive connections opened in a burst otherwise pile up on one worker).
workers = _settings.web_concurrency
worker_class = "service.serving.FairServingWorker"
pre_fork = fair_worker.assign_slot
worker_connections = _settings.worker_connections

# A request is scored in milliseconds: 30 s without a heartbeat means a stuck worker, which is
# then restarted.  keepalive: how long a kept-alive connection may wait for its next request's
# headers (HEADER_TIMEOUT for a new connection's first request).
timeout = 30
graceful_timeout = 20
keepalive = 5

# Recycle workers now and then (bounded memory growth), not all at once, and rarely: a new worker
# spends a second or two loading the app and filling its caches, which shows in the p99.  At
# 10,000 requests each worker was replaced every ~10 s under load; at 100,000 a gevent worker
# (~2,400 /v1/score a second) was still replaced every ~45 s, and bench/load.py's p99 doubled in
# the round that saw it (90 ms against 26 ms).  The library's caches are bounded anyway.
max_requests = 1000000
max_requests_jitter = 100000

# Request line and header limits (the body limits, 64 KiB and 1 MiB for a batch, are the app's):
# a request line of at most 4094 bytes (414 past it), at most 32 header fields of at most 4094
# bytes each (431), so at most 32 × (4094 + 2) + 4 = 131,076 header bytes in all (gunicorn's
# header buffer bound).
limit_request_line = 4094
limit_request_fields = 32
limit_request_field_size = 4094

# Behind a proxy (an ingress): whose X-Forwarded-Proto gunicorn believes; service/factory.py's
# TrustedProxyFix reads the same list for X-Forwarded-For.  None by default (gunicorn's own
# default would believe any loopback peer).
forwarded_allow_ips = _settings.forwarded_allow_ips

# No control socket: nothing else on the host talks to the server.
control_socket_disable = True

# Logs to stdout/stderr (the container or the terminal collects them), one JSON object a line
# (service/observability/logs.py).
accesslog = "-"
errorlog = "-"
loglevel = _settings.log_level
capture_output = False
# The access log goes to stdout, everything else to stderr.
logconfig_dict = copy.deepcopy(logs.logconfig_dict)
logconfig_dict["handlers"]["json_stdout"] = {**logconfig_dict["handlers"]["json"], "stream": "ext://sys.stdout"}
logconfig_dict["loggers"]["gunicorn.access"]["handlers"] = ["json_stdout"]
logconfig_dict["loggers"]["gunicorn.error"]["level"] = loglevel.upper()

# Prometheus multiprocess bookkeeping for /metrics (PROMETHEUS_MULTIPROC_DIR); the app is
# loaded in each worker (no preload_app), as prometheus_client's multiprocess mode needs.
on_starting = metrics.on_starting
child_exit = metrics.child_exit
on_exit = metrics.on_exit
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

    metrics.close_metrics_listener()            # the master's socket: not the worker's to serve
    ningbo_score.warm_up()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


# The heartbeat files of the workers live in memory where possible (a container's /tmp may be
# a slow overlay).
if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"

proc_name = "ningbo-score"
