"""The service's pages and fixed answers: the rule book (cached with an ETag), openapi.yaml, the
API docs page (Swagger UI), the calculator page and its service worker, ``/healthz``.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
from pathlib import Path

import swagger_ui_bundle
from flask import Response, current_app, request, send_from_directory, url_for

import ningbo_score
from ningbo_score.readers import request_schemas
from ningbo_score.errors import shown
from service import static
from service.bodies import JSON_TYPE, json_response, problem

ROOT = Path(__file__).resolve().parent.parent
OPENAPI_PATH = ROOT / "openapi.yaml"
SWAGGER_UI_DIR = Path(str(swagger_ui_bundle.swagger_ui_path))
YAML_TYPE = "application/yaml"
#: The answers that do not change while the service runs (the rule book, openapi.yaml): cached by
#: a client for 5 minutes, then revalidated by their ETag (304 when it still matches).
CACHEABLE = "public, max-age=300"

DOCS_HTML = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ningbo mahjong scoring API · 宁波麻将计分</title>
<link rel="stylesheet" href="{css}">
<link rel="stylesheet" href="{index_css}">
<link rel="icon" type="image/png" href="{icon}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{bundle}"></script>
<script src="{preset}"></script>
<script src="{init}"></script>
</body>
</html>
"""

DOCS_INIT_JS = """window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: %s,
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
};
"""

# --- the handlers ------------------------------------------------------------------------------

def healthz():
    return json_response({"status": "ok"})


def openapi_yaml():
    path = Path(current_app.config["OPENAPI_PATH"])
    return cacheable(*_file_and_etag(path, path.stat().st_mtime_ns), YAML_TYPE)


def docs():
    html = DOCS_HTML.format(
        css=url_for("docs_static", filename="swagger-ui.css"),
        index_css=url_for("docs_static", filename="index.css"),
        icon=url_for("docs_static", filename="favicon-32x32.png"),
        bundle=url_for("docs_static", filename="swagger-ui-bundle.js"),
        preset=url_for("docs_static", filename="swagger-ui-standalone-preset.js"),
        init=url_for("docs_init"),
    )
    return Response(html, content_type="text/html; charset=utf-8")


def docs_init():
    js = DOCS_INIT_JS % json.dumps(url_for("openapi_yaml"))
    return Response(js, content_type="text/javascript; charset=utf-8")


def docs_static(filename: str):
    return send_from_directory(SWAGGER_UI_DIR, filename, max_age=86400)


def list_rules():
    return cacheable(*_rules_json(None), JSON_TYPE)


def get_rules(preset: str):
    if preset not in request_schemas.PRESET_IDS:
        name = shown(preset)
        raise problem("not_found", f"There is no preset {name}; presets: {', '.join(request_schemas.PRESET_IDS)}.",
                      f"没有规则 {name}；可选：{'、'.join(request_schemas.PRESET_IDS)}。")
    return cacheable(*_rules_json(preset), JSON_TYPE)


@functools.lru_cache(maxsize=len(request_schemas.PRESET_IDS) + 1)
def _rules_json(preset: str | None) -> tuple[bytes, str, bytes]:
    """The rule book (or one preset) as JSON, its ETag and its gzip form, made once per process
    (the presets and the rule book: a bound of entries; each about 16 KiB at most)."""
    return _with_etag(json_response(ningbo_score.rulebook() if preset is None else ningbo_score.preset(preset))
                      .get_data())


@functools.lru_cache(maxsize=4)
def _file_and_etag(path: Path, _mtime_ns: int) -> tuple[bytes, str, bytes]:
    return _with_etag(path.read_bytes())


def _with_etag(data: bytes) -> tuple[bytes, str, bytes]:
    return data, hashlib.sha256(data).hexdigest()[:32], gzip.compress(data, compresslevel=9, mtime=0)


def cacheable(data: bytes, etag: str, gzipped: bytes, content_type: str) -> Response:
    """An answer that changes only with a new release, made once with its gzip form: a strong
    ETag per representation (``"<hash>"``, ``"<hash>:gzip"`` as Flask-Compress writes it for the
    other codings), ``Cache-Control:`` :data:`CACHEABLE`, and a 304 on a matching
    ``If-None-Match`` before any body is touched.  The gzip form to a client that takes gzip
    that prefers it to br and zstd (Flask-Compress then leaves the answer alone: nothing is compressed per
    request; a client that prefers another coding gets it from Flask-Compress)."""
    accepted = request.accept_encodings
    q = accepted["gzip"]
    gz = q > 0 and q >= accepted["br"] and q >= accepted["zstd"]     # else Flask-Compress (a preferred coding)
    tag = f"{etag}:gzip" if gz else etag
    headers = {"Cache-Control": CACHEABLE, "Vary": "Accept-Encoding"}
    if request.if_none_match.contains(tag):
        response = Response(status=304, headers=headers)
        response.set_etag(tag)
        return response
    if gz:
        headers["Content-Encoding"] = "gzip"
    response = Response(gzipped if gz else data, content_type=content_type, headers=headers)
    response.set_etag(tag)
    return response


def calculator():
    """The calculator page (static/index.html, made at start by service/static.py); its files are
    under /static/."""
    return static.page()


def service_worker():
    """The calculator's service worker (static/sw.js), from the site's root: its scope is the page
    at ``/`` (a worker under /static/ could only control /static/).  Revalidated on each visit."""
    resp = send_from_directory(ROOT / "static", "sw.js", mimetype="text/javascript", max_age=0)
    resp.headers["Cache-Control"] = "no-cache"
    return resp
