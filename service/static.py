"""The calculator page's files (``static/``), served by WhiteNoise from a set fixed at start.

- At start (:func:`init_app`) every file of ``static/`` but the page is copied, with a gzip copy
  next to it where that is smaller (WhiteNoise's ``Compressor``), into a directory named by the
  hash of them all (:func:`prepared_dir`: under ``STATIC_BUILD_DIR``, default the system's temp
  directory; the workers and later starts of the same files share it).  WhiteNoise lists those
  files once (``autorefresh`` off): a request for any other path under ``/static/``
  (``/static/./calc.js``, ``/static/x/../calc.js``, ``/static/%00``, a name over 255 bytes) is
  not one of its keys and falls through to the app, where no route matches it: 404.  Nothing is
  read, compressed or kept per request (no cache to grow).
- Every file is served under its plain name (``/static/calc.js``, ``Cache-Control: no-cache``:
  kept, but revalidated by its ETag each time) and under a content-hashed name
  (``/static/calc.<hash>.js``, ``public, max-age=31536000, immutable``: a new version is a new
  name); the page names its files by the hashed names.  The modules ``calc.js`` imports
  (``static/calc-*.js``, native ES modules, no bundler) are fetched under their plain names,
  revalidated by their ETag on each visit: naming them by hash would take an import map, an
  inline script the Content-Security-Policy (``script-src 'self'``) refuses.
- Every answer has a strong ``ETag`` (a hash of the file's bytes; ``If-None-Match`` gets a
  ``304``) and, where a gzip copy exists, ``Vary: Accept-Encoding`` and the gzip copy for a
  client that takes it (WhiteNoise's own negotiation, after service/factory.py's
  ``AcceptEncoding`` dropped the codings refused with ``q=0``).  The gzip copy has an ETag of its
  own (the plain one's with ``-gzip``: two representations, two strong validators), and a 304
  answers the representation the request would get (:class:`Representations`).
- A byte range is RFC 9110's: ``bytes=-0`` (no byte) and a range starting past the end are 416;
  a one-byte range (``bytes=5-5``) is a 206 (WhiteNoise refused both the other way round).
- The page (``/``) is the app's route: ``static/index.html`` with its ``/static/`` references
  rewritten to the hashed names, made once at start, sent gzipped when the client takes it,
  ``no-cache`` with its ETag.
"""
from __future__ import annotations

import gzip
import hashlib
import re
import shutil
import tempfile
import typing
from http import HTTPStatus
from pathlib import Path
from wsgiref.headers import Headers

from flask import Flask, Response, current_app, request
from whitenoise import WhiteNoise
from whitenoise.compress import Compressor
from whitenoise.responders import Response as FileResponse
from whitenoise.responders import SlicedFile, StaticFile

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
PAGE = "index.html"
URL_PREFIX = "/static/"
IMMUTABLE = "public, max-age=31536000, immutable"
#: Types WhiteNoise's table lacks (it knows a file named manifest.json, not the extension the
#: W3C manifest spec registers): the page's web app manifest was application/octet-stream.
MEDIA_TYPES = {".webmanifest": "application/manifest+json"}
REVALIDATE = "no-cache"
#: Files smaller than this are sent as they are (gzip would save next to nothing).
MIN_GZIP_BYTES = 256
#: ``href``/``src`` attributes of the page that name a file under /static/ (given its hashed name)
_ASSET_REF = re.compile(r'((?:href|src)="/static/)([^"?#]+)(")')


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hashed_name(name: str, data: bytes) -> str:
    """``calc.js`` → ``calc.<12 hex digits of its hash>.js``."""
    stem, dot, ext = name.rpartition(".")
    return f"{stem}.{digest(data)[:12]}.{ext}" if dot else f"{name}.{digest(data)[:12]}"


class Assets(typing.NamedTuple):
    """The static files as prepared at start."""
    root: Path                      # the directory WhiteNoise serves
    hashed: dict[str, str]          # plain name → hashed name
    etags: dict[str, str]           # plain name → strong ETag (quoted)
    page: bytes                     # the page, its references rewritten
    page_gz: bytes | None
    page_etag: str


def _files(source: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(source.iterdir()) if p.is_file() and p.name != PAGE}


def prepared_dir(source: Path = STATIC_DIR, base: str | None = None) -> Path:
    """The directory of ``source``'s files (the page left out) and their gzip copies, made once
    for these files' contents (a directory named by their hash; made under a temporary name and
    renamed, so that workers starting at once never see half of it), under ``base`` (the
    settings' ``STATIC_BUILD_DIR``; default: the system's temp directory)."""
    files = _files(source)
    whole = digest(b"".join(name.encode() + b"\0" + digest(data).encode() for name, data in files.items()))
    parent = Path(base or tempfile.gettempdir())
    target = parent / f"ningbo-score-static-{whole[:16]}"
    if target.is_dir():
        return target
    parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".ningbo-score-static-", dir=parent))
    compressor = Compressor(extensions=(), use_brotli=False, quiet=True)
    for name, data in files.items():
        (work / name).write_bytes(data)
        if len(data) >= MIN_GZIP_BYTES:
            packed = gzip.compress(data, compresslevel=9, mtime=0)
            if compressor.is_compressed_effectively("gzip", name, len(data), packed):
                (work / f"{name}.gz").write_bytes(packed)
    try:
        work.rename(target)
    except OSError:                 # another worker made it first
        shutil.rmtree(work, ignore_errors=True)
    return target


def prepare(source: Path = STATIC_DIR, base: str | None = None) -> Assets:
    """Everything served from ``source``, made once."""
    files = _files(source)
    hashed = {name: hashed_name(name, data) for name, data in files.items()}

    def ref(match: re.Match[str]) -> str:
        found = hashed.get(match.group(2))
        return f"{match.group(1)}{found}{match.group(3)}" if found else match.group(0)

    page = _ASSET_REF.sub(ref, (source / PAGE).read_text(encoding="utf-8")).encode()
    page_gz = gzip.compress(page, compresslevel=9, mtime=0) if len(page) >= MIN_GZIP_BYTES else None
    return Assets(prepared_dir(source, base), hashed, {name: f'"{digest(data)[:32]}"' for name, data in files.items()},
                  page, page_gz, f'"{digest(page)[:32]}"')


class Representations(StaticFile):
    """WhiteNoise's file with an ETag per representation and RFC 9110's byte ranges (this
    module's docstring).  Made from WhiteNoise's own by :func:`_representations`."""

    def get_response(self, method: str, request_headers: typing.Mapping[str, str]) -> typing.Any:
        if method not in ("GET", "HEAD"):
            return super().get_response(method, request_headers)
        path, headers = self.get_path_and_headers(request_headers)
        etag = str(dict(headers).get("ETag", self.etag))
        given = request_headers.get("HTTP_IF_NONE_MATCH")
        if given is not None and _etag_matches(given, etag):
            kept = [(k, v) for k, v in headers if k in ("Cache-Control", "Vary", "ETag", "Last-Modified")]
            return FileResponse(HTTPStatus.NOT_MODIFIED, kept, None)
        if given is None and self.is_not_modified(request_headers):       # If-Modified-Since
            return self.not_modified_response
        file_handle = open(path, "rb") if method != "HEAD" else None      # noqa: SIM115
        range_header = request_headers.get("HTTP_RANGE")
        if range_header:
            size = int(dict(headers)["Content-Length"])
            try:
                start, end = _byte_range(range_header, size)
            except ValueError:         # not one range of bytes: the whole file (RFC 9110 allows it)
                return FileResponse(HTTPStatus.OK, headers, file_handle)
            if start > end:
                return self.get_range_not_satisfiable_response(file_handle, size)
            rest = [(k, v) for k, v in headers if k != "Content-Length"]
            rest += [("Content-Range", f"bytes {start}-{end}/{size}"), ("Content-Length", str(end - start + 1))]
            body = SlicedFile(file_handle, start, end) if file_handle is not None else None
            return FileResponse(HTTPStatus.PARTIAL_CONTENT, rest, body)
        return FileResponse(HTTPStatus.OK, headers, file_handle)


def _etag_matches(given: str, etag: str) -> bool:
    """Does an If-None-Match value (a list, weak tags compared weakly, or ``*``) match ``etag``?"""
    if given.strip() == "*":
        return True
    return any(tag.strip().removeprefix("W/") == etag.removeprefix("W/") for tag in given.split(","))


def _byte_range(header: str, size: int) -> tuple[int, int]:
    """(first, last) byte of a ``Range: bytes=…`` of one range (RFC 9110 §14.1.2); first > last
    when it can't be satisfied (416); ValueError when it is not one range of bytes."""
    units, _, spec = header.strip().partition("=")
    first, sep, last = spec.strip().partition("-")
    if units.strip().lower() != "bytes" or not sep or "," in spec:
        raise ValueError(header)
    if not first:                                   # the last N bytes; N = 0 is no byte
        n = int(last)
        return (max(size - n, 0), size - 1) if n > 0 else (size, size - 1)
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    if last and int(last) < start:
        raise ValueError(header)                    # invalid: ignored (RFC 9110)
    return (start, end) if start < size else (size, size - 1)


def _representations(static_file: typing.Any) -> typing.Any:
    """WhiteNoise's ``StaticFile`` as a :class:`Representations`: each compressed alternative's
    ETag is the plain one's with the coding appended inside the quotes."""
    if not isinstance(static_file, StaticFile):
        return static_file              # a redirect
    alternatives = []
    for encoding_re, path, items in static_file.alternatives:
        headers = dict(items)
        coding = headers.get("Content-Encoding")
        if coding and "ETag" in headers:
            tag = headers["ETag"]
            headers["ETag"] = f'{tag[:-1]}-{coding}"' if tag.endswith('"') else f"{tag}-{coding}"
        alternatives.append((encoding_re, path, list(headers.items())))
    static_file.alternatives = alternatives
    static_file.__class__ = Representations
    return static_file


class _RepresentationsOfFiles(WhiteNoise):
    """WhiteNoise whose files are :class:`Representations`."""

    def get_static_file(self, path: str, url: str, stat_cache: typing.Any = None) -> typing.Any:
        return _representations(super().get_static_file(path, url, stat_cache=stat_cache))


class StaticFiles(_RepresentationsOfFiles):
    """WhiteNoise over the prepared files: each under its plain and its hashed name, with the
    cache headers and ETag of this module's docstring."""

    def __init__(self, application: typing.Callable, assets: Assets) -> None:
        self.assets = assets
        self._immutable = {URL_PREFIX + h for h in assets.hashed.values()}
        by_path = {str(assets.root / name): name for name in assets.hashed}
        self._name_of = by_path
        super().__init__(application, root=str(assets.root), prefix=URL_PREFIX, autorefresh=False, max_age=None,
                         allow_all_origins=False, charset="utf-8", add_headers_function=self._headers,
                         mimetypes=MEDIA_TYPES)
        for name, hashed in assets.hashed.items():
            self.add_file_to_dictionary(URL_PREFIX + hashed, str(assets.root / name))

    def immutable_file_test(self, path: str, url: str) -> bool:
        return url in self._immutable

    def _headers(self, headers: Headers, path: str, url: str) -> None:
        if url not in self._immutable:
            headers["Cache-Control"] = REVALIDATE
        else:
            headers["Cache-Control"] = IMMUTABLE
        headers["ETag"] = self.assets.etags[self._name_of[path]]


def page() -> Response:
    """``GET /``: the page made at start (:func:`init_app`)."""
    assets: Assets = current_app.extensions["static_assets"]
    gz = assets.page_gz is not None and request.accept_encodings["gzip"] > 0
    etag = f'{assets.page_etag[:-1]}-gzip"' if gz else assets.page_etag     # one per representation
    headers = {"ETag": etag, "Cache-Control": REVALIDATE, "Vary": "Accept-Encoding"}
    if request.if_none_match.contains(etag.strip('"')):
        return Response(status=304, headers=headers)
    body = assets.page_gz if gz and assets.page_gz is not None else assets.page
    if body is not assets.page:
        headers["Content-Encoding"] = "gzip"
    return Response(body, content_type="text/html; charset=utf-8", headers=headers)


def serve_directory(app: Flask, source: Path, prefix: str, max_age: int, base: str | None = None) -> None:
    """Serve another fixed directory's files (the API docs' Swagger UI) under ``prefix`` through
    WhiteNoise too: prepared once (gzip copies beside them), from a set fixed at start, gzipped
    for a client that takes it; any other name falls through to the app."""
    root = prepared_dir(source, base)
    app.wsgi_app = _RepresentationsOfFiles(app.wsgi_app, root=str(root), prefix=prefix,  # type: ignore[method-assign]
                              autorefresh=False, max_age=max_age, allow_all_origins=False, charset="utf-8")


def init_app(app: Flask, source: Path | None = None, base: str | None = None) -> Flask:
    """Serve ``/static/…`` through WhiteNoise (in front of the app) and make the page :func:`page`
    sends, its files prepared under ``base`` (:func:`prepared_dir`).  The app must have no static
    route of its own (``static_folder=None``)."""
    assets = prepare(source or STATIC_DIR, base)
    app.extensions["static_assets"] = assets
    app.wsgi_app = StaticFiles(app.wsgi_app, assets)  # type: ignore[method-assign]
    return app
