"""The app factory: :func:`create_app` builds the Flask app of the service over its
:class:`~service.settings.Settings` (the environment's, read once, by default).
"""
from __future__ import annotations

import ipaddress
import typing

from flask import Flask, Response, request
from flask_compress import Compress
from werkzeug.middleware.proxy_fix import ProxyFix

from service import observability, offline, static, turns
from service.bodies import JSON_TYPE, PROBLEM_TYPE, weighted
from service.pages import OPENAPI_PATH, SWAGGER_UI_DIR, YAML_TYPE
from service.problems import register_error_handlers
from service.routes import MAX_BODY_BYTES, language_headers, register_routes
from service.settings import Network, Settings, current

#: What Flask-Compress compresses, in the coding the client accepts (gzip, br or zstd; gzip on a
#: tie: the fastest on answers of a few KiB, bench/README.md) once a body is COMPRESS_MIN_SIZE
#: bytes or more: the JSON answers and problems, and openapi.yaml.  The pages and their files
#: (/, /static/, /docs/static/) are the static files' own business (service/static.py).
COMPRESS_CONFIG: dict[str, typing.Any] = {
    "COMPRESS_MIMETYPES": [JSON_TYPE, PROBLEM_TYPE, YAML_TYPE],
    "COMPRESS_ALGORITHM": ["gzip", "br", "zstd"],
    "COMPRESS_MIN_SIZE": 500,      # Flask-Compress's default: below it a header costs more than it saves
    "COMPRESS_STREAMS": False,
}


def create_app(config: typing.Mapping[str, typing.Any] | None = None, *, settings: Settings | None = None) -> Flask:
    """The service's Flask app over ``settings`` (default: this process's, :func:`current`: a bad
    setting raises SettingsError here, not at import), with Flask ``config`` on top (tests:
    ``TESTING``, ``CORS_ORIGINS``)."""
    settings = settings or current()
    # no static route of Flask's own: /static/ is WhiteNoise's, over a set of files fixed at
    # start (service/static.py); any other path under it is a 404
    app = Flask("service", static_folder=None)
    app.extensions["settings"] = settings
    # No redirect to a cleaned-up path: werkzeug builds its Location from the Host header, so
    # `GET //v1//rules` with `Host: evil.example` went to http://evil.example/v1/rules.  Such a
    # path is a 404 now (and /docs, /docs/ are both rules of their own).
    app.url_map.merge_slashes = False
    app.url_map.strict_slashes = False
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY_BYTES, OPENAPI_PATH=str(OPENAPI_PATH))
    if config:
        app.config.update(config)

    for key, value in COMPRESS_CONFIG.items():
        app.config.setdefault(key, value)
    register_error_handlers(app)
    register_routes(app)
    app.after_request(gzip_without_time)     # after_request runs last-registered first: after Compress
    Compress(app)
    app.after_request(language_headers)
    static.init_app(app, base=settings.static_build_dir)
    # the docs page's Swagger UI files, gzipped where the client takes it (1.5 MB of scripts)
    static.serve_directory(app, SWAGGER_UI_DIR, "/docs/static/", max_age=86400, base=settings.static_build_dir)
    # the calculator's scoring with no signal (build/offline/, when `make offline` built it)
    offline.init_app(app, base=settings.static_build_dir)
    observability.init_app(app)
    app.teardown_request(lambda _exc: turns.get().release(request.environ))
    app.wsgi_app = AcceptEncoding(app.wsgi_app)  # type: ignore[method-assign]
    if settings.trusted_proxies:
        app.wsgi_app = TrustedProxyFix(app.wsgi_app, settings.trusted_proxies)  # type: ignore[method-assign]
    return app


#: gzip's header: magic, deflate, no flags; then 4 bytes of modification time (RFC 1952 §2.3)
_GZIP_HEAD = b"\x1f\x8b\x08\x00"
_NO_TIME = b"\x00\x00\x00\x00"


def gzip_without_time(response: Response) -> Response:
    """A gzipped answer without the time of its compression in its header (RFC 1952's MTIME, 0:
    "no time stamp"), so that the same body is always the same bytes.  Flask-Compress gzips with
    the standard library's ``gzip.compress``, which stamps the current second: the same
    rule book compressed across a second's boundary came out as other bytes under the same strong
    ETag (``"<hash>:gzip"``), which a strong validator forbids (RFC 9110 §8.8.1), and
    tests/http/test_compression.py's revalidation test failed once on a fresh clone for it."""
    if response.headers.get("Content-Encoding") == "gzip" and not response.is_streamed:
        data = response.get_data()
        if data[:4] == _GZIP_HEAD and data[4:8] != _NO_TIME:
            response.set_data(data[:4] + _NO_TIME + data[8:])
    return response


# --- content codings ------------------------------------------------------------------------------

#: the codings any answer of the service may come in (Flask-Compress's, the static files' gzip)
CODINGS = ("gzip", "br", "zstd")


def accepted_codings(header: str) -> str:
    """``Accept-Encoding`` as the compressors read it: only the codings the client takes, with
    their q-values, a coding refused with ``q=0`` left out (and ``*`` spelled out as the codings
    it still stands for, with its q-value).  Flask-Compress and WhiteNoise each read the header
    their own way, and both sent gzip to ``gzip;q=0`` (RFC 9110 §12.5.3: q=0 is "not
    acceptable")."""
    taken: list[tuple[str, float]] = []
    refused: set[str] = set()
    star: float | None = None
    for coding, q in weighted(header):
        coding = coding.lower()
        if not q > 0:
            refused.add(coding)
        elif coding == "*":
            star = q
        else:
            taken.append((coding, q))
    kept = [(c, q) for c, q in taken if c not in refused]
    if star is not None:
        named = {c for c, _ in taken} | refused
        kept += [(c, star) for c in CODINGS if c not in named]
    return ", ".join(c if q == 1.0 else f"{c};q={q:g}" for c, q in kept)


class AcceptEncoding:
    """WSGI middleware: the request's ``Accept-Encoding`` rewritten by :func:`accepted_codings`
    before anything reads it (one reading for the JSON answers, openapi.yaml and the static
    files)."""

    def __init__(self, wsgi_app: typing.Callable) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict, start_response: typing.Callable) -> typing.Iterable[bytes]:
        header = environ.get("HTTP_ACCEPT_ENCODING")
        if header and ("q" in header or "*" in header):
            environ["HTTP_ACCEPT_ENCODING"] = accepted_codings(header)
        return self.wsgi_app(environ, start_response)


# --- behind a proxy ----------------------------------------------------------------------------

class TrustedProxyFix:
    """werkzeug's ProxyFix (the last ``X-Forwarded-For`` and ``X-Forwarded-Proto``: one proxy, the
    ingress, in front) for a request whose peer is one of the trusted proxies; any other peer's
    headers are left unread.  The client's address (``REMOTE_ADDR``, which gunicorn's access line
    logs) and scheme (``https``: the answer then carries ``Strict-Transport-Security``) are then
    the ones the proxy saw.  The proxies: the settings' ``FORWARDED_ALLOW_IPS`` (gunicorn.conf.py
    gives gunicorn the same list)."""

    def __init__(self, wsgi_app: typing.Callable, trusted: typing.Sequence[Network]):
        self.wsgi_app = wsgi_app
        self.fixed = ProxyFix(wsgi_app, x_for=1, x_proto=1)
        self.trusted = trusted

    def __call__(self, environ: dict, start_response: typing.Callable) -> typing.Iterable[bytes]:
        try:
            peer = ipaddress.ip_address(environ.get("REMOTE_ADDR", ""))
        except ValueError:
            peer = None
        if peer is not None and any(peer in network for network in self.trusted):
            return self.fixed(environ, start_response)
        return self.wsgi_app(environ, start_response)
