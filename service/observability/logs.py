"""JSON logs: one JSON object per line (python-json-logger; stderr, or as gunicorn.conf.py routes
them): ``time``, ``level``, ``logger``, ``message``, ``request_id``, ``trace_id`` (service/observability/ids.py)
and, for gunicorn's access lines, ``method``, ``path``, ``status``, ``bytes``, ``duration_ms``,
``remote_addr``, ``user_agent``.  :data:`logconfig_dict` is what gunicorn.conf.py gives gunicorn.
"""
from __future__ import annotations

import logging
import sys
import time
import typing

import orjson
from pythonjsonlogger.json import JsonFormatter as _BaseJsonFormatter

from service.observability.ids import current_request_id, current_trace_id, trace_id_of, valid_request_id


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
    for name in ("ningbo_score", "service"):
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(level)


# The logging configuration gunicorn applies (``logconfig_dict = logs.logconfig_dict``):
# error and access lines both as JSON on stderr (the container's log stream), the app's own
# loggers through the root logger.
logconfig_dict: dict[str, typing.Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "service.observability.logs.RequestIdFilter"}},
    "formatters": {"json": {"()": "service.observability.logs.JsonFormatter"}},
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

