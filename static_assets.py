"""The calculator page's files (``static/``) sent compressed and cacheable.

- Every file is gzip-compressed once (and again only when it changes on disk) and sent with
  ``Content-Encoding: gzip`` to a client whose ``Accept-Encoding`` takes gzip (``Vary:
  Accept-Encoding`` always), as it is to any other.
- Every file has a strong ``ETag`` (a hash of its bytes); ``If-None-Match`` gets a ``304``.
- The page (``/``) names its scripts and stylesheet by content-hashed URLs
  (``/static/calc.js?v=<hash>``): those answers are ``Cache-Control: public, max-age=31536000,
  immutable`` (a new version is a new URL). A file asked for without its current hash, and the
  page itself, are ``Cache-Control: no-cache``: kept, but revalidated by their ETag each time.

:func:`init_app` puts :func:`page` on the app's ``/`` route and :func:`asset` on Flask's own
``static`` endpoint.
"""
from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
import threading
import typing
from pathlib import Path

from flask import Flask, Response, abort, request

STATIC_DIR = Path(__file__).resolve().parent / "static"
PAGE = "index.html"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
#: Files smaller than this are sent as they are (gzip would save next to nothing).
MIN_GZIP_BYTES = 256
#: ``href``/``src`` attributes of the page that name a file under /static/ (the hash is added)
_ASSET_REF = re.compile(r'((?:href|src)="/static/)([^"?#]+)(")')


class _Entry(typing.NamedTuple):
    mtime_ns: int
    size: int
    body: bytes
    gz: bytes | None
    etag: str
    version: str
    content_type: str


_cache: dict[str, _Entry] = {}
_lock = threading.Lock()


def _content_type(name: str) -> str:
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml"):
        kind += "; charset=utf-8"
    return kind


def _entry(name: str) -> _Entry | None:
    """The file ``static/<name>`` prepared for sending, or None when there is no such file."""
    path = (STATIC_DIR / name).resolve()
    if STATIC_DIR not in path.parents or not path.is_file():
        return None
    stat = path.stat()
    found = _cache.get(name)
    if found is not None and found.mtime_ns == stat.st_mtime_ns and found.size == stat.st_size:
        return found
    body = path.read_bytes()
    if name == PAGE:
        body = _ASSET_REF.sub(_versioned_ref, body.decode()).encode()
    digest = hashlib.sha256(body).hexdigest()
    gz = gzip.compress(body, compresslevel=9, mtime=0) if len(body) >= MIN_GZIP_BYTES else None
    made = _Entry(stat.st_mtime_ns, stat.st_size, body, gz, digest[:32], digest[:12], _content_type(name))
    with _lock:
        _cache[name] = made
    return made


def _versioned_ref(match: re.Match) -> str:
    found = _entry(match.group(2))
    if found is None:
        return match.group(0)
    return f"{match.group(1)}{match.group(2)}?v={found.version}{match.group(3)}"


def version(name: str) -> str | None:
    """The content hash that names the current ``static/<name>`` in URLs."""
    found = _entry(name)
    return found.version if found else None


def _send(found: _Entry, cache_control: str) -> Response:
    headers = {"ETag": f'"{found.etag}"', "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
    if request.if_none_match.contains(found.etag):
        return Response(status=304, headers=headers)
    body = found.body
    if found.gz is not None and request.accept_encodings["gzip"] > 0:
        body = found.gz
        headers["Content-Encoding"] = "gzip"
    return Response(body, content_type=found.content_type, headers=headers)


def asset(filename: str) -> Response:
    """``GET /static/<filename>``."""
    found = _entry(filename)
    if found is None or filename == PAGE:
        abort(404)
    fresh = request.args.get("v") == found.version
    return _send(found, IMMUTABLE if fresh else REVALIDATE)


def page() -> Response:
    """``GET /``: the calculator page, its asset URLs carrying their content hashes."""
    found = _entry(PAGE)
    if found is None:
        abort(404)
    return _send(found, REVALIDATE)


def init_app(app: Flask) -> Flask:
    """Serve ``/`` and ``/static/…`` through this module (the routes stay the app's own)."""
    app.view_functions["static"] = asset
    for rule in app.url_map.iter_rules():
        if rule.rule == "/" and "GET" in (rule.methods or ()):
            app.view_functions[rule.endpoint] = page
    return app
