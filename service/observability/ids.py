"""Request IDs and W3C trace context.

- **Request ID.** ``X-Request-ID`` is taken from the request when it is 1-128 characters of
  ``[A-Za-z0-9._-]``; otherwise (absent, empty, too long, other characters) a fresh random
  version-4 UUID in hex replaces it.  It is left in the WSGI environ (:data:`ENV_REQUEST_ID`, by
  the middleware of service/observability/metrics.py, before Flask runs), stored as
  ``flask.g.request_id``, echoed in the response header and added to every log line written
  while the request runs (``request_id``), and to gunicorn's access line (read back from the
  response header).
- **Trace context.** A valid W3C ``traceparent`` header (``00-<32 hex trace id>-<16 hex parent
  id>-<2 hex flags>``, neither id all zeros, version not ``ff``) has its trace id logged as
  ``trace_id`` on every line of the request, the access line included; an invalid one is ignored.
"""
from __future__ import annotations

import os
import random
import re
import typing

import flask

REQUEST_ID_HEADER = "X-Request-ID"
REQUEST_ID_RE = re.compile(r"[A-Za-z0-9._-]{1,128}")
# W3C Trace Context: version-traceid-parentid-flags, lowercase hex
TRACEPARENT_RE = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")
ENV_REQUEST_ID = "ningbo_score.request_id"
ENV_TRACE_ID = "ningbo_score.trace_id"


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

