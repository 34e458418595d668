"""The service's settings: every environment variable it reads, read once into one frozen object.

:meth:`Settings.from_env` reads them all and either returns the :class:`Settings` or raises one
:class:`SettingsError` whose message has a line per bad variable, naming it, its value and what
is allowed.  Nothing here (nor in any module of the service) reads the environment or raises at
import: :func:`current` reads it on first use and keeps the result for the process (gunicorn's
workers, forked from the master, inherit the master's).  ``python -m service`` and
gunicorn.conf.py read it first, so a bad setting ends the start in one line, before any worker.

=========================  ========================  ===========================================
variable                   default                   allowed
=========================  ========================  ===========================================
HOST                       127.0.0.1                 any address (checked when bound)
PORT                       8000                      1-65535
WEB_CONCURRENCY            one per CPU core          an integer ≥ 1 (set but empty: refused, as
                                                     gunicorn itself reads it)
WORKER_CONNECTIONS         1000                      an integer ≥ 1
METRICS_HOST               127.0.0.1                 any address
METRICS_PORT               8011                      0-65535 (0: no metrics listener), ≠ PORT
HEALTH_PORT                0 (none)                  0-65535, ≠ PORT and METRICS_PORT
FORWARDED_ALLOW_IPS        none                      addresses or networks, comma-separated; ``*``
LOG_LEVEL                  info                      gunicorn's: critical, error, warning, info,
                                                     debug (any case)
HEADER_TIMEOUT             10                        seconds, more than 0 and less than a day
IO_TIMEOUT                 10                        the same
BODY_TIMEOUT               20                        the same
WRITE_TIMEOUT              10                        the same
PROMETHEUS_MULTIPROC_DIR   none (a private one       a directory (prometheus_client's own
                           under gunicorn)           variable: it reads it too)
NINGBO_SCORE_REVISION      ``git rev-parse HEAD``    any text (the Docker image sets it)
STATIC_BUILD_DIR           the system's temp dir     a directory
=========================  ========================  ===========================================
"""
from __future__ import annotations

import dataclasses
import ipaddress
import os
import typing

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: the deadlines' environment variables and their defaults, in seconds (service/serving.py)
TIMEOUTS = {"HEADER_TIMEOUT": 10.0, "IO_TIMEOUT": 10.0, "BODY_TIMEOUT": 20.0, "WRITE_TIMEOUT": 10.0}
#: (8011: outside 9100-9999, the range Prometheus gives its exporters; 9100 is node_exporter's)
DEFAULT_METRICS_LISTENER = ("127.0.0.1", 8011)
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
#: gunicorn's log levels (gunicorn.glogging.Logger.LOG_LEVELS; another is a traceback in its
#: logging configuration)
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


class SettingsError(ValueError):
    """One or more bad settings: the message has one line per bad variable."""


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def trusted_proxies(value: str) -> tuple[Network, ...] | None:
    """The networks of ``FORWARDED_ALLOW_IPS`` (``*``: every address), None when it names none;
    ValueError (``FORWARDED_ALLOW_IPS: …``) for one that is no address or network."""
    parts = [part.strip() for part in value.split(",") if part.strip()]
    if "*" in parts:
        return ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")
    try:
        return tuple(ipaddress.ip_network(part) for part in parts) or None
    except ValueError as err:
        raise ValueError(f"FORWARDED_ALLOW_IPS: {err}") from None


@dataclasses.dataclass(frozen=True)
class Settings:
    """Every setting of the service (the module's table)."""
    host: str = "127.0.0.1"
    port: int = 8000
    web_concurrency: int = 1
    worker_connections: int = 1000
    metrics_host: str = DEFAULT_METRICS_LISTENER[0]
    metrics_port: int = DEFAULT_METRICS_LISTENER[1]
    health_port: int = 0
    forwarded_allow_ips: str = ""
    trusted_proxies: tuple[Network, ...] | None = None
    log_level: str = "info"
    header_timeout: float = TIMEOUTS["HEADER_TIMEOUT"]
    io_timeout: float = TIMEOUTS["IO_TIMEOUT"]
    body_timeout: float = TIMEOUTS["BODY_TIMEOUT"]
    write_timeout: float = TIMEOUTS["WRITE_TIMEOUT"]
    multiproc_dir: str | None = None
    revision: str | None = None
    static_build_dir: str | None = None

    @property
    def metrics_listener(self) -> tuple[str, int] | None:
        """(host, port) of the /metrics listener; None when ``METRICS_PORT`` is 0."""
        return (self.metrics_host, self.metrics_port) if self.metrics_port else None

    @classmethod
    def from_env(cls, environ: typing.Mapping[str, str]) -> Settings:
        """The settings of ``environ`` (``os.environ``), or :class:`SettingsError` naming every
        bad one."""
        bad: list[str] = []

        def text(name: str, default: str) -> str:
            return environ.get(name, "").strip() or default

        def integer(name: str, default: int, minimum: int = 1, maximum: int | None = None,
                    empty_ok: bool = True) -> int:
            raw = environ.get(name)
            if raw is None or (empty_ok and not raw.strip()):
                return default
            try:
                value = int(raw.strip())
            except ValueError:
                bad.append(f"{name} must be an integer, not {raw.strip()!r}")
                return default
            if value < minimum:
                bad.append(f"{name} must be at least {minimum}, not {value}")
            elif maximum is not None and value > maximum:
                bad.append(f"{name} must be at most {maximum}, not {value}")
            return value

        def seconds(name: str) -> float:
            raw = environ.get(name, "").strip()
            try:
                value = float(raw) if raw else TIMEOUTS[name]
            except ValueError:
                bad.append(f"{name} must be a number of seconds, not {raw!r}")
                return TIMEOUTS[name]
            if not 0 < value < 86400:           # also refuses inf and nan
                bad.append(f"{name} must be more than 0 s and less than a day, not {raw!r}")
            return value

        port = integer("PORT", 8000, maximum=65535)
        # gunicorn itself reads WEB_CONCURRENCY (int(), a traceback for anything else, "" too)
        workers = integer("WEB_CONCURRENCY", cores(), empty_ok=False)
        connections = integer("WORKER_CONNECTIONS", 1000)
        raw_metrics = environ.get("METRICS_PORT", "").strip()
        metrics_port = DEFAULT_METRICS_LISTENER[1]
        if raw_metrics:
            if not raw_metrics.isdigit() or int(raw_metrics) > 65535:
                bad.append(f"METRICS_PORT must be a port number (0: none), not {raw_metrics!r}")
            else:
                metrics_port = int(raw_metrics)
        if metrics_port and metrics_port == port:
            bad.append(f"METRICS_PORT must differ from PORT ({port})")
        health_port = integer("HEALTH_PORT", 0, minimum=0, maximum=65535)
        if health_port and health_port in (port, metrics_port):
            bad.append(f"HEALTH_PORT must differ from PORT and METRICS_PORT ({health_port})")
        forwarded = environ.get("FORWARDED_ALLOW_IPS", "")
        trusted = None
        try:
            trusted = trusted_proxies(forwarded)
        except ValueError as err:
            bad.append(str(err))
        timeouts = {name: seconds(name) for name in TIMEOUTS}
        log_level = environ.get("LOG_LEVEL", "").strip() or "info"
        if log_level.lower() not in LOG_LEVELS:
            bad.append(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {log_level!r}")
        if bad:
            raise SettingsError("\n".join(bad))
        return cls(
            host=text("HOST", "127.0.0.1"), port=port, web_concurrency=workers, worker_connections=connections,
            metrics_host=text("METRICS_HOST", DEFAULT_METRICS_LISTENER[0]), metrics_port=metrics_port,
            health_port=health_port, forwarded_allow_ips=forwarded, trusted_proxies=trusted,
            log_level=log_level.lower(),
            header_timeout=timeouts["HEADER_TIMEOUT"], io_timeout=timeouts["IO_TIMEOUT"],
            body_timeout=timeouts["BODY_TIMEOUT"], write_timeout=timeouts["WRITE_TIMEOUT"],
            multiproc_dir=environ.get(MULTIPROC_ENV) or None,
            revision=environ.get("NINGBO_SCORE_REVISION", "").strip() or None,
            static_build_dir=environ.get("STATIC_BUILD_DIR", "").strip() or None)


_current: Settings | None = None


def current() -> Settings:
    """This process's settings: the environment's, read on first use and kept (SettingsError when
    one is bad)."""
    global _current
    if _current is None:
        _current = Settings.from_env(os.environ)
    return _current


def use(settings: Settings | None) -> None:
    """Make ``settings`` this process's (None: read the environment again on next use): the
    gunicorn hooks after they change the environment, and tests."""
    global _current
    _current = settings
