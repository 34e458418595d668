"""HTTP as RFC 9112 has it, where gunicorn is laxer (:func:`check_request`, called by the worker
for every request), and gunicorn's own refusals as ``application/problem+json``
(:func:`server_problem`, :func:`problem_bytes`) instead of its HTML page.

- HTTP/1.0 and 1.1 only (gunicorn takes HTTP/1.2 and answers in it): 505.
- Exactly one ``Host`` on HTTP/1.1 (RFC 9112 §3.2): 400.
- No transfer coding but ``chunked`` alone (``gzip, chunked`` was passed on): 501.
"""
from __future__ import annotations

import typing

import orjson
from gunicorn.http import errors as http_errors

from ningbo_score import ScoreError
from ningbo_score.errors import HTTP_STATUS_CODES, Problem


class VersionNotSupported(http_errors.ParseException):
    """An HTTP version other than 1.0 and 1.1 (gunicorn takes HTTP/1.2 and answers in it): 505."""

    def __init__(self, version: tuple[int, int]) -> None:
        self.version = version

    def __str__(self) -> str:
        return f"HTTP/{self.version[0]}.{self.version[1]} is not supported (HTTP/1.1 and HTTP/1.0 are)"


class BadHost(http_errors.ParseException):
    """An HTTP/1.1 request without a Host header, or with more than one (RFC 9112 §3.2): 400."""

    def __str__(self) -> str:
        return "an HTTP/1.1 request has exactly one Host header"


class BadTransferCoding(http_errors.UnsupportedTransferCoding):
    """A Transfer-Encoding other than ``chunked`` alone (``gzip, chunked`` was passed on): 501."""

    def __str__(self) -> str:
        return "the only transfer coding taken is chunked, alone"


def check_request(req: typing.Any) -> None:
    """Refuse what gunicorn lets through and RFC 9112 does not."""
    if req.version not in ((1, 0), (1, 1)):
        raise VersionNotSupported(req.version)
    hosts = sum(1 for name, _ in req.headers if name == "HOST")
    if hosts > 1 or (req.version == (1, 1) and hosts == 0):
        raise BadHost()
    codings = [value for name, value in req.headers if name == "TRANSFER-ENCODING"]
    if codings and (len(codings) > 1 or codings[0].strip().lower() != "chunked"):
        raise BadTransferCoding(codings[0])



# --- gunicorn's own errors as problem+json --------------------------------------------------------

def server_problem(exc: BaseException) -> tuple[int, str, str]:
    """(status, reason phrase, English detail) for an exception gunicorn meets before or around
    the app: the same statuses as gunicorn's own error page (workers/base.py)."""
    e = http_errors
    if isinstance(exc, VersionNotSupported):
        return 505, "HTTP Version Not Supported", f"{exc}."
    if isinstance(exc, e.LimitRequestLine):
        return 414, "URI Too Long", f"The request line is too long: {exc}."
    if isinstance(exc, e.LimitRequestHeaders):
        return 431, "Request Header Fields Too Large", f"The header fields are over the limit: {exc}."
    if isinstance(exc, e.UnsupportedTransferCoding):
        return 501, "Not Implemented", f"Unsupported transfer coding: {exc}."
    if isinstance(exc, e.ExpectationFailed):
        return 417, "Expectation Failed", f"{exc}."
    if isinstance(exc, e.ForbiddenProxyRequest):
        return 403, "Forbidden", "Request forbidden."
    if isinstance(exc, (e.InvalidChunkSize, e.ChunkMissingTerminator, e.InvalidChunkExtension)):
        return 400, "Bad Request", f"The chunked body is malformed: {exc}."
    if isinstance(exc, (e.ParseException, e.NoMoreData)) and not isinstance(
            exc, (e.InvalidResponseHeader, e.InvalidResponseHeaderName, e.ConfigurationProblem)):
        return 400, "Bad Request", f"The request is malformed: {exc}."
    return 500, "Internal Server Error", "An unexpected error occurred; it has been logged."


def problem_bytes(status: int, reason: str, detail: str) -> bytes:
    """A complete HTTP/1.1 answer (closing the connection) with an RFC 9457 problem body in the
    service's shape: code ``invalid_request`` for a 4xx, ``internal_error`` for a 5xx (the status's
    own code in errors.CODES, which gives the status)."""
    code = HTTP_STATUS_CODES.get(status, "internal_error" if status >= 500 else "bad_request")
    body = ScoreError([Problem(code, "", detail, detail)]).to_problem("en")
    data = orjson.dumps(body)
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(data)}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n")
    return head.encode("latin-1") + data
