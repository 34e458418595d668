"""Every patch of gunicorn's internals the worker (service/serving.py) makes, each with the reason it
exists and the test that pins it.  gunicorn's own functions are kept as ``__wrapped__``, and
tests/server/test_gunicorn_shape.py records a hash of each function patched or read here (as of gunicorn
27.0.1): an upgrade that changes one fails there, naming what to re-read here.

1. **Bounded chunked framing** (:func:`bounded_chunks`, on ``gunicorn.http.body.ChunkedReader``).
   gunicorn reads a chunk of any announced size, a size line of up to 1 MiB and any number of
   chunks: a ``FFFFFFFFFFFF`` size waited for 281 TB until the body deadline, and a 1 MiB body
   sent in 1-byte chunks took 6.3 MB on the wire (bench/attack.py ``chunks``).  Here at most
   :data:`MAX_CHUNKS` chunks of at most :data:`MAX_CHUNK_BYTES`, size lines of at most
   :data:`MAX_CHUNK_LINE_BYTES`: 400 at once.  Pinned by
   ``tests/server/test_serving.py::test_chunked_framing_is_bounded``.  *Behind deploy/'s proxy* it guards
   nothing: ingress-nginx buffers a request body (``proxy_request_buffering on``, its default)
   and passes it on with a ``Content-Length``, never chunked.  Kept: the service is also run
   without that proxy (``make run``, ``docker run -p``, the benchmarks), and the patch is 30
   lines that cost nothing on a body with a length.
2. **No ``Server`` header** (:func:`no_server_header`, on ``gunicorn.http.wsgi.Response.default_headers``).
   gunicorn always sends its name and version.  Pinned by
   ``tests/server/test_serving.py::test_no_server_header``.  *Behind deploy/'s
   proxy* it guards nothing: nginx drops an upstream's ``Server`` (``proxy_hide_header``'s
   default) and sends its own.  Kept for the same reason as 1, at 12 lines.
3. **An unread body is not drained** (:func:`body_finished` reads ``LengthReader.length`` and
   ``ChunkedReader.parser``; the worker then closes the connection after the answer).  gunicorn
   would drain a GET's body, or one over the cap, with no deadline (bench/attack.py ``unread``:
   the probes timed out).  Pinned by
   ``tests/server/test_serving.py::test_an_unread_body_closes_the_connection_after_the_answer``.  Behind
   the proxy a body over its limit (64 KiB, 1 MiB for the batches) never reaches a pod, but a
   GET with a body does: kept.

Not patches, but gunicorn's behaviour overridden in the worker's own methods (service/serving.py):
strict HTTP (service/http_strict.py: HTTP/1.0 and 1.1 only, one ``Host``, ``chunked`` alone;
nginx refuses the same before a pod sees them, so behind the proxy they guard only a direct
client), ``100 Continue`` only for a body that is read (nginx answers ``Expect`` itself), and
the deadlines, turns and connection bounds of the worker (no proxy setting covers a slow or
non-reading client's cost in a pod: nginx buffers only up to its own buffers, then waits).
"""
from __future__ import annotations

import typing
from functools import wraps

from gunicorn.http import body as gunicorn_body
from gunicorn.http import errors as http_errors
from gunicorn.http import wsgi as gunicorn_wsgi

#: a chunked body: at most this many chunks, each size line at most this long (wire bytes of
#: a 1 MiB body at most about 1 MiB + 4,096 × 66), no chunk longer than the largest body
MAX_CHUNKS = 4096
MAX_CHUNK_LINE_BYTES = 64
MAX_CHUNK_BYTES = 1024 * 1024


class BadChunking(http_errors.InvalidChunkSize):
    """A chunk larger than any body a route takes, more than :data:`MAX_CHUNKS` chunks, or a
    chunk size line over :data:`MAX_CHUNK_LINE_BYTES`: 400 at once, not a wait for the bytes."""

    def __init__(self, why: str) -> None:
        self.why = why

    def __str__(self) -> str:
        return self.why


def body_finished(body: typing.Any) -> bool:
    """Has the app read ``body`` (gunicorn's ``wsgi.input``) to its end?  A body left unread
    closes the connection after the answer: draining it (gunicorn's way) has no deadline."""
    if body is None or not hasattr(body, "reader"):
        return True
    if body.buf.tell():
        return False
    reader = body.reader
    if isinstance(reader, gunicorn_body.LengthReader):
        return reader.length == 0
    if isinstance(reader, gunicorn_body.ChunkedReader):
        return reader.parser is None and not reader.buf.tell()
    return bool(getattr(reader, "finished", False))


def bounded_chunks() -> None:
    """gunicorn's chunked reader with the bounds of :class:`BadChunking` (installed once, in a
    worker)."""
    reader = gunicorn_body.ChunkedReader
    if getattr(reader, "ningbo_bounded", False):
        return
    parse_size, read_into = reader.parse_chunk_size, reader.read_into

    @wraps(read_into)      # __wrapped__: gunicorn's own, for tests/server/test_gunicorn_shape.py
    def counted_read_into(self: typing.Any, unreader: typing.Any, buf: bytearray) -> None:
        before = len(buf)
        read_into(self, unreader, buf)
        self.ningbo_read += len(buf) - before

    @wraps(parse_size)
    def parse_chunk_size(self: typing.Any, unreader: typing.Any, data: typing.Any = None) -> typing.Any:
        self.limit_chunk_size_line = MAX_CHUNK_LINE_BYTES
        self.ningbo_chunks = getattr(self, "ningbo_chunks", 0) + 1
        if self.ningbo_chunks > MAX_CHUNKS:
            raise BadChunking(f"more than {MAX_CHUNKS} chunks")
        self.ningbo_read = 0
        size, rest = parse_size(self, unreader, data)
        # the size line's length: what was there and read, less what follows it and its CRLF
        if size and len(data or b"") + self.ningbo_read - len(rest) - 2 > MAX_CHUNK_LINE_BYTES:
            raise BadChunking(f"a chunk size line over {MAX_CHUNK_LINE_BYTES} bytes")
        if size > MAX_CHUNK_BYTES:
            raise BadChunking(f"a chunk of {size} bytes, over the largest body taken ({MAX_CHUNK_BYTES})")
        return size, rest

    reader.read_into = counted_read_into
    reader.parse_chunk_size = parse_chunk_size
    reader.ningbo_bounded = True


def no_server_header() -> None:
    """No ``Server`` header on any answer (gunicorn always sends its name and version)."""
    response = gunicorn_wsgi.Response
    if getattr(response, "ningbo_no_server", False):
        return
    default_headers = response.default_headers

    @wraps(default_headers)
    def headers(self: typing.Any) -> list[str]:
        return [h for h in default_headers(self) if not h.startswith("Server:")]

    response.default_headers = headers
    response.ningbo_no_server = True


def install() -> None:
    """Every patch above (once, in a worker process)."""
    bounded_chunks()
    no_server_header()
