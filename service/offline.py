"""The calculator's scoring with no signal: ``/offline/…``, the files ``make offline`` builds into
``build/offline/`` (tools/build_offline.py: Pyodide from the npm registry, the pure-Python
ningbo_score wheel and marshmallow's, offline/worker.js and offline/nbscore.py, manifest.json).

Served through WhiteNoise, like the page's files (service/static.py: a set fixed at start, gzip
copies beside them, any other name a 404), only when the directory is there: without it every
``/offline/…`` is a 404 and the page says the download is not offered.  Each answer is
``no-cache`` (revalidated by its ETag: the page keeps its own copy in the service worker's
cache).  The scripts the worker runs get a Content-Security-Policy of their own: a worker is
governed by the policy of its script, and compiling WebAssembly needs ``'wasm-unsafe-eval'``
(Pyodide's runtime also evaluates the JavaScript its C code embeds: ``'unsafe-eval'``); the page
and everything else keep the service's policy (service/observability/headers.py), which allows
neither.
"""
from __future__ import annotations

from pathlib import Path
from wsgiref.headers import Headers

from flask import Flask
from whitenoise import WhiteNoise

from service import static

OFFLINE_DIR = Path(__file__).resolve().parent.parent / "build" / "offline"
URL_PREFIX = "/offline/"
WORKER_CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
])


def _headers(headers: Headers, path: str, url: str) -> None:
    headers["Cache-Control"] = static.REVALIDATE
    if url.endswith((".js", ".mjs")):
        headers["Content-Security-Policy"] = WORKER_CSP


def init_app(app: Flask, base: str | None = None) -> Flask:
    """Serve ``app.config["OFFLINE_DIR"]`` (default ``build/offline/``) under ``/offline/`` when it
    holds a build (its manifest.json), prepared once under ``base`` as service/static.py does."""
    source = Path(app.config.get("OFFLINE_DIR") or OFFLINE_DIR)
    if not (source / "manifest.json").is_file():
        return app
    root = static.prepared_dir(source, base)
    app.wsgi_app = WhiteNoise(app.wsgi_app, root=str(root), prefix=URL_PREFIX,  # type: ignore[method-assign]
                              autorefresh=False, max_age=None, allow_all_origins=False, charset="utf-8",
                              add_headers_function=_headers)
    return app
