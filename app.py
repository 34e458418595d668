"""The HTTP service of docs/api.md: Flask routes over the ``ningbo_score`` library.

Each route is thin: its marshmallow schema (ningbo_score.requests, the one reader of every body)
loads and checks the body into the library's typed input, the library computes and its result is
sent as it is.  One table, ``ROUTES``, lists every route with its operation id, schemas and
handler.  Every error, Flask's own 404/405/413 included, is an RFC 9457
``application/problem+json`` body built by ``ScoreError.to_problem``, in English or Chinese after
the request's ``Accept-Language``.

Run it with ``make run`` (gunicorn, see ``gunicorn.conf.py``); ``app`` below is what gunicorn
serves, ``create_app()`` builds a fresh one (tests).
"""
from __future__ import annotations

import json
import logging
import re
import typing
from dataclasses import dataclass
from pathlib import Path

import orjson
import swagger_ui_bundle
from flask import Flask, Request, Response, current_app, request, send_from_directory, url_for
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import HTTPException, MethodNotAllowed

import ningbo_score
import observability
import schemas
import serving
import static_assets
from ningbo_score import ScoreError, table

ROOT = Path(__file__).resolve().parent
OPENAPI_PATH = ROOT / "openapi.yaml"
MAX_BODY_BYTES = 64 * 1024
#: ``POST /v1/score/batch`` holds up to 200 ``/v1/score`` bodies: the docs/api.md worked example alone
#: is 384 bytes as compact JSON (about 1 KiB pretty-printed), so 200 of them are past 64 KiB.
#: 1 MiB leaves about 5 KiB for each of 200 items (a request with every rule option and every
#: item_tai override, pretty-printed, is under 2 KiB).
MAX_BATCH_BODY_BYTES = 1024 * 1024
SWAGGER_UI_DIR = Path(str(swagger_ui_bundle.swagger_ui_path))
JSON_TYPE = "application/json"
PROBLEM_TYPE = "application/problem+json"

log = logging.getLogger("ningbo_score.http")


# --- responses ---------------------------------------------------------------------------------

def json_response(body: typing.Any, status: int = 200, content_type: str = JSON_TYPE,
                  headers: typing.Mapping[str, str] | None = None) -> Response:
    """``body`` as compact UTF-8 JSON (orjson; the standard library for integers past 64 bits)."""
    try:
        data = orjson.dumps(body)
    except TypeError:
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    return Response(data, status=status, content_type=content_type, headers=headers)


def language_of(header: str | None) -> str:
    """``zh`` when an Accept-Language header prefers Chinese to English, else ``en``.

    Each language range counts for its primary tag (``zh-CN``, ``zh-Hans-CN`` and ``zh-TW`` are
    Chinese) with its q-value (default 1); the language with the higher q wins, English on a tie
    or when neither is named (``*`` counts for both).  werkzeug's ``best_match`` would prefer an
    exact ``en`` to any ``zh-…`` range whatever their q-values."""
    if not header:
        return "en"
    best = {"en": -1.0, "zh": -1.0}
    for part in header.split(","):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        primary = tag.strip().split("-")[0].lower()
        for lang in (("en", "zh") if primary == "*" else (primary,)):
            if lang in best and q > best[lang]:
                best[lang] = q
    return "zh" if best["zh"] > 0 and best["zh"] > best["en"] else "en"


def language() -> str:
    """The request's language after its Accept-Language (:func:`language_of`)."""
    return language_of(request.headers.get("Accept-Language"))


def problem_response(err: ScoreError, headers: typing.Mapping[str, str] | None = None) -> Response:
    return json_response(err.to_problem(language()), status=err.status, content_type=PROBLEM_TYPE,
                         headers=headers)


def problem(code: str, en: str, zh: str) -> ScoreError:
    """A problem about the request as a whole (no field path)."""
    return ScoreError.one(code, "", en, zh)


# --- request bodies ----------------------------------------------------------------------------

#: Content-Type values taken as they are (any other is parsed: parameters, +json types, charsets)
_PLAIN_JSON_TYPES = frozenset({"application/json", "application/json; charset=utf-8",
                               "application/json;charset=utf-8", "application/json; charset=UTF-8",
                               "application/json;charset=UTF-8"})


def _is_json_type(mimetype: str) -> bool:
    return mimetype == JSON_TYPE or (mimetype.startswith("application/") and mimetype.endswith("+json"))


def _too_large(limit: int | None) -> ScoreError:
    return problem("payload_too_large", f"The body is over the limit of {limit} bytes.",
                   f"请求体超过了 {limit} 字节的上限。")


def _read_body(limit: int | None) -> bytes:
    """The body, refusing more than ``limit`` bytes also when it comes without a length
    (chunked): werkzeug would cut such a body at the limit without a word."""
    environ = request.environ
    if limit is None or request.content_length is not None or not environ.get("wsgi.input_terminated"):
        return request.get_data(cache=False)  # werkzeug checks Content-Length against the limit
    stream, parts, total = environ["wsgi.input"], [], 0
    while total <= limit:
        part = stream.read(limit + 1 - total)
        if not part:
            break
        parts.append(part)
        total += len(part)
    if total > limit:
        raise _too_large(limit)
    return b"".join(parts)


#: a body of a known length over this many bytes is read this much at a time into one buffer
READ_PART_BYTES = 64 * 1024


def _read_length(stream: typing.Any) -> typing.Callable[[int], bytes | bytearray]:
    """A reader of exactly ``size`` bytes of ``stream`` (400 when it ends before).  A large body
    is read a part at a time into one buffer of its size, which orjson parses as it is: reading
    it whole (gunicorn's ``read(size)``) holds two or three copies of it while it comes, and a
    worker has many bodies coming at once (a 1 MiB batch on each of 16 connections)."""
    def read(size: int) -> bytes | bytearray:
        if size <= READ_PART_BYTES:
            data = stream.read(size)
            if len(data) < size:
                raise serving.body_cut_short()
            return data
        buffer = bytearray(size)
        view, got = memoryview(buffer), 0
        while got < size:
            part = stream.read(min(READ_PART_BYTES, size - got))
            if not part:
                raise serving.body_cut_short()
            view[got:got + len(part)] = part
            got += len(part)
        return buffer
    return read


def _read(read: typing.Callable[[typing.Any], bytes | bytearray], arg: typing.Any) -> bytes | bytearray:
    """``read(arg)`` within the server's body deadline (408 past it), a body that cannot be read
    (malformed chunked framing, cut short, a stalled or reset socket) refused as a 4xx problem."""
    try:
        with serving.body_deadline():
            return read(arg)
    except serving.READ_ERRORS as err:
        raise serving.body_problem(err) from None


def json_body(limit: int | None = None) -> typing.Any:
    """The request's JSON body: 413 past the limit (the app's ``MAX_CONTENT_LENGTH`` unless the
    route gives its own ``limit``), 415 unless JSON in UTF-8, 400 if malformed."""
    # the request itself, not its proxy: read often here (flask types the proxy as the Request)
    req: Request = request._get_current_object()  # type: ignore[attr-defined]
    if limit is not None:
        req.max_content_length = limit       # this request only (Flask ≥ 3.1)
    limit = req.max_content_length
    environ = req.environ
    length = environ.get("CONTENT_LENGTH")
    if environ.get("CONTENT_TYPE") in _PLAIN_JSON_TYPES and length and length.isascii() and length.isdigit():
        # the usual request, read without parsing its Content-Type or wrapping its stream
        size = int(length)
        if limit is not None and size > limit:
            raise _too_large(limit)
        data = _read(_read_length(environ["wsgi.input"]), size)
    else:
        if limit is not None and req.content_length is not None and req.content_length > limit:
            raise _too_large(limit)
        charset = req.mimetype_params.get("charset", "utf-8").lower()
        if not _is_json_type(req.mimetype) or charset not in ("utf-8", "utf8"):
            shown = req.content_type or "none"
            raise problem("unsupported_media_type",
                          f"The body must be JSON in UTF-8 (Content-Type: application/json), not {shown}.",
                          f"请求体必须是 UTF-8 编码的 JSON（Content-Type: application/json），而不是 {shown}。")
        data = _read(_read_body, limit)
    # a heavy body waits for its turn in the worker's work budget (serving.HeavyTurns)
    serving.heavy_turns.take(environ, len(data), batch=limit == MAX_BATCH_BODY_BYTES)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        if not data.strip():
            raise problem("malformed_json", "The body is empty; it must be a JSON object.",
                          "请求体为空；必须是 JSON 对象。") from None
        raise problem("malformed_json",
                      f"The body is not valid JSON (line {err.lineno}, column {err.colno}): {err.msg}.",
                      f"请求体不是有效的 JSON（第 {err.lineno} 行第 {err.colno} 列）。") from None


# --- the docs page -----------------------------------------------------------------------------

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


# --- the app -----------------------------------------------------------------------------------

def create_app(config: typing.Mapping[str, typing.Any] | None = None) -> Flask:
    app = Flask(__name__)
    # No redirect to a cleaned-up path: werkzeug builds its Location from the Host header, so
    # `GET //v1//rules` with `Host: evil.example` went to http://evil.example/v1/rules.  Such a
    # path is a 404 now (and /docs, /docs/ are both rules of their own).
    app.url_map.merge_slashes = False
    app.url_map.strict_slashes = False
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY_BYTES, OPENAPI_PATH=str(OPENAPI_PATH))
    if config:
        app.config.update(config)

    register_error_handlers(app)
    register_routes(app)
    static_assets.init_app(app)
    observability.init_app(app)
    app.teardown_request(lambda _exc: serving.heavy_turns.release(request.environ))
    return app


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ScoreError)
    def _score_error(err: ScoreError):
        return problem_response(err)

    @app.errorhandler(ValidationError)
    def _validation_error(err: ValidationError):
        return problem_response(schemas.validation_problem(err))

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        return problem_response(*http_problem(err))

    @app.errorhandler(Exception)
    def _unexpected(err: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        return problem_response(problem("internal_error", "An unexpected error occurred; it has been logged.",
                                        "发生了意外错误，已记录。"))


def http_problem(err: HTTPException) -> tuple[ScoreError, dict[str, str]]:
    """Flask's and werkzeug's own errors as problems."""
    status = err.code or 500
    headers: dict[str, str] = {}
    if status == 404:
        return problem("not_found", f"There is nothing at {request.path}.", f"{request.path} 不存在。"), headers
    if status == 405:
        allowed = sorted(getattr(err, "valid_methods", None) or [])
        if isinstance(err, MethodNotAllowed) and allowed:
            headers["Allow"] = ", ".join(allowed)
        shown = ", ".join(allowed)
        return problem("method_not_allowed", f"{request.method} is not allowed on {request.path}; allowed: {shown}.",
                       f"{request.path} 不支持 {request.method}；可用：{shown}。"), headers
    if status == 413:
        return _too_large(request.max_content_length), headers
    if status == 415:
        return problem("unsupported_media_type", "The body must be JSON (Content-Type: application/json).",
                       "请求体必须是 JSON（Content-Type: application/json）。"), headers
    if status >= 500:
        return problem("internal_error", "An unexpected error occurred.", "发生了意外错误。"), headers
    err_obj = ScoreError.one("invalid_request", "", f"{err.name}: {err.description}", f"请求无效：{err.name}")
    err_obj.status = status  # keep werkzeug's 4xx status (e.g. 400 for a bad request line)
    return err_obj, headers


# --- the handlers ------------------------------------------------------------------------------

def healthz():
    return json_response({"status": "ok"})


def openapi_yaml():
    return Response(Path(current_app.config["OPENAPI_PATH"]).read_bytes(), content_type="application/yaml")


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
    return json_response(ningbo_score.rulebook())


def get_rules(preset: str):
    try:
        found = ningbo_score.preset(preset)
    except KeyError:
        raise problem("not_found", f"There is no preset {preset!r}; presets: {', '.join(schemas.PRESET_IDS)}.",
                      f"没有规则 {preset!r}；可选：{'、'.join(schemas.PRESET_IDS)}。") from None
    return json_response(found)


def score():
    return json_response(ningbo_score.score(schemas.load(schemas.score_request, json_body()), language()))


def score_batch():
    # the schema loads each item on its own: a bad one is its own result, never the batch's
    items = schemas.load(schemas.batch_request, json_body(MAX_BATCH_BODY_BYTES))
    # other requests run between its hands; a batch whose client has left stops
    answer = ningbo_score.score_batch(items, language(), serving.between_hands(request.environ))
    for result in answer["results"]:
        if "problem" in result:               # refused hands count by code, like refused requests
            observability.record_problem(result["problem"]["code"])
    return json_response(answer)


def waits():
    return json_response(ningbo_score.waits(schemas.load(schemas.waits_request, json_body()), language()))


def analyze():
    return json_response(ningbo_score.analyze(schemas.load(schemas.analyze_request, json_body()), language()))


def table_next():
    return json_response(table.next_hand(schemas.load(schemas.next_hand_request, json_body())))


def table_claims():
    return json_response(table.claims(schemas.load(schemas.claims_request, json_body()), language()))


def table_escape():
    return json_response(table.escape(schemas.load(schemas.escape_request, json_body())))


def levels():
    return json_response(table.levels())


def calculator():
    """The calculator page (static/index.html); its files are under /static/."""
    return send_from_directory(current_app.static_folder, "index.html")


def service_worker():
    """The calculator's service worker (static/sw.js), from the site's root: its scope is the page
    at ``/`` (a worker under /static/ could only control /static/).  Revalidated on each visit."""
    resp = send_from_directory(ROOT / "static", "sw.js", mimetype="text/javascript", max_age=0)
    resp.headers["Cache-Control"] = "no-cache"
    return resp


# --- the route table ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Route:
    """One route: its path as openapi.yaml writes it (``{preset}``; ``{filename:path}`` for a
    Flask converter), its operation id and tag in openapi.yaml (None for a page of the service
    that is no part of the API, so no call of a generated client: the calculator page, the docs
    page and its assets, openapi.yaml itself, the metrics), the schemas of its request body and of
    its 200 answer, and its handler.  The Flask endpoint is the operation id, or else the
    handler's name."""
    method: str
    path: str
    operation_id: str | None
    tag: str | None
    request: Schema | None
    response: Schema | None
    handler: typing.Callable

    def __post_init__(self) -> None:
        assert (self.operation_id is None) == (self.tag is None), self.path

    @property
    def endpoint(self) -> str:
        return self.operation_id or self.handler.__name__

    @property
    def flask_path(self) -> str:
        return re.sub(r"\{(\w+)(?::(\w+))?\}", lambda m: f"<{m[2]}:{m[1]}>" if m[2] else f"<{m[1]}>", self.path)


#: Every route of the service.  It drives the Flask routes (:func:`register_routes`),
#: openapi.yaml's operations, their ids, tags and request/response schemas, and which routes are
#: in it at all (tools/gen_openapi.py), and the response schema each 200 is checked against
#: (RESPONSE_SCHEMAS, tests/conftest.py).
ROUTES: tuple[Route, ...] = (
    Route("POST", "/v1/score", "score", "scoring", schemas.score_request, schemas.score_response, score),
    Route("GET", "/v1/rules", "listRules", "rules", None, schemas.preset_list, list_rules),
    Route("GET", "/v1/rules/{preset}", "getRules", "rules", None, schemas.preset_one, get_rules),
    Route("GET", "/healthz", "health", "ops", None, schemas.health, healthz),
    Route("GET", "/readyz", "ready", "ops", None, schemas.ready, observability.readyz),
    Route("POST", "/v1/waits", "waits", "scoring", schemas.waits_request, schemas.waits_response, waits),
    Route("POST", "/v1/analyze", "analyze", "scoring", schemas.analyze_request, schemas.analyze_response,
          analyze),
    Route("POST", "/v1/score/batch", "scoreBatch", "scoring", schemas.batch_request, schemas.batch_response,
          score_batch),
    Route("POST", "/v1/table/next", "nextHand", "table", schemas.next_hand_request, schemas.next_hand_response,
          table_next),
    Route("POST", "/v1/table/claims", "claims", "table", schemas.claims_request, schemas.claims_response,
          table_claims),
    Route("GET", "/v1/levels", "levels", "table", None, schemas.levels_response, levels),
    Route("POST", "/v1/table/escape", "escape", "table", schemas.escape_request, schemas.escape_response,
          table_escape),
    # the service's pages (no operations of openapi.yaml); Flask's own /static/ serves the
    # calculator's files
    Route("GET", "/", None, None, None, None, calculator),
    Route("GET", "/sw.js", None, None, None, None, service_worker),
    Route("GET", "/docs", None, None, None, None, docs),
    Route("GET", "/docs/", None, None, None, None, docs),
    Route("GET", "/docs/swagger-initializer.js", None, None, None, None, docs_init),
    Route("GET", "/docs/static/{filename:path}", None, None, None, None, docs_static),
    Route("GET", "/openapi.yaml", None, None, None, None, openapi_yaml),
    Route("GET", "/metrics", None, None, None, None, observability.metrics_endpoint),
)

# The library's results already have exactly the shapes of the response schemas, so they are
# sent as they are: a marshmallow dump per request would only copy them, at about twice the cost
# of scoring a hand.  The tests dump every 200 answer through its schema here and require it to
# come out unchanged (tests/conftest.py), besides validating it against openapi.yaml.
RESPONSE_SCHEMAS: dict[str, Schema] = {r.endpoint: r.response for r in ROUTES if r.response is not None}


def register_routes(app: Flask) -> None:
    for route in ROUTES:
        app.add_url_rule(route.flask_path, endpoint=route.endpoint, view_func=route.handler, methods=[route.method])


app = create_app()
