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
  client that takes it (WhiteNoise's own negotiation).
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
from pathlib import Path
from wsgiref.headers import Headers

from flask import Flask, Response, current_app, request
from whitenoise import WhiteNoise
from whitenoise.compress import Compressor

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
PAGE = "index.html"
URL_PREFIX = "/static/"
IMMUTABLE = "public, max-age=31536000, immutable"
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


class StaticFiles(WhiteNoise):
    """WhiteNoise over the prepared files: each under its plain and its hashed name, with the
    cache headers and ETag of this module's docstring."""

    def __init__(self, application: typing.Callable, assets: Assets) -> None:
        self.assets = assets
        self._immutable = {URL_PREFIX + h for h in assets.hashed.values()}
        by_path = {str(assets.root / name): name for name in assets.hashed}
        self._name_of = by_path
        super().__init__(application, root=str(assets.root), prefix=URL_PREFIX, autorefresh=False, max_age=None,
                         allow_all_origins=False, charset="utf-8", add_headers_function=self._headers)
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
    headers = {"ETag": assets.page_etag, "Cache-Control": REVALIDATE, "Vary": "Accept-Encoding"}
    if request.if_none_match.contains(assets.page_etag.strip('"')):
        return Response(status=304, headers=headers)
    body = assets.page
    if assets.page_gz is not None and request.accept_encodings["gzip"] > 0:
        body = assets.page_gz
        headers["Content-Encoding"] = "gzip"
    return Response(body, content_type="text/html; charset=utf-8", headers=headers)


def serve_directory(app: Flask, source: Path, prefix: str, max_age: int, base: str | None = None) -> None:
    """Serve another fixed directory's files (the API docs' Swagger UI) under ``prefix`` through
    WhiteNoise too: prepared once (gzip copies beside them), from a set fixed at start, gzipped
    for a client that takes it; any other name falls through to the app."""
    root = prepared_dir(source, base)
    app.wsgi_app = WhiteNoise(app.wsgi_app, root=str(root), prefix=prefix,  # type: ignore[method-assign]
                              autorefresh=False, max_age=max_age, allow_all_origins=False, charset="utf-8")


def init_app(app: Flask, source: Path | None = None, base: str | None = None) -> Flask:
    """Serve ``/static/…`` through WhiteNoise (in front of the app) and make the page :func:`page`
    sends, its files prepared under ``base`` (:func:`prepared_dir`).  The app must have no static
    route of its own (``static_folder=None``)."""
    assets = prepare(source or STATIC_DIR, base)
    app.extensions["static_assets"] = assets
    app.wsgi_app = StaticFiles(app.wsgi_app, assets)  # type: ignore[method-assign]
    return app
