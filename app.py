"""The HTTP service of API.md: Flask routes over the ``ningbo_score`` library.

Each route is thin: a marshmallow schema (``schemas``) loads and checks the body, the library
computes and its result is sent as it is (``RESPONSE_SCHEMAS`` below); ``POST /v1/score`` asks
the library first and loads the body with its schema only when the library refuses it
(:func:`checked_by_library_first`).  Every error, Flask's own 404/405/413 included, is an RFC 9457
``application/problem+json`` body built by ``ScoreError.to_problem``, in English or Chinese after
the request's ``Accept-Language``.

Run it with ``make run`` (gunicorn, see ``gunicorn.conf.py``); ``app`` below is what gunicorn
serves, ``create_app()`` builds a fresh one (tests).
"""
from __future__ import annotations

import json
import logging
import typing
from pathlib import Path

import orjson
import swagger_ui_bundle
from flask import Flask, Response, request, send_from_directory, url_for
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException, MethodNotAllowed

import ningbo_score
import observability
import schemas
from ningbo_score import ScoreError, table

ROOT = Path(__file__).resolve().parent
OPENAPI_PATH = ROOT / "openapi.yaml"
MAX_BODY_BYTES = 64 * 1024
#: ``POST /v1/score/batch`` holds up to 200 ``/v1/score`` bodies: the API.md worked example alone
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


def language() -> str:
    """``zh`` when the request's Accept-Language prefers Chinese to English, else ``en``."""
    if not request.headers.get("Accept-Language"):
        return "en"
    return "zh" if request.accept_languages.best_match(("en", "zh"), default="en") == "zh" else "en"


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


def json_body(limit: int | None = None) -> typing.Any:
    """The request's JSON body: 413 past the limit (the app's ``MAX_CONTENT_LENGTH`` unless the
    route gives its own ``limit``), 415 unless JSON in UTF-8, 400 if malformed."""
    req = request._get_current_object()      # the request itself, not its proxy: read often here
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
        data = environ["wsgi.input"].read(size)
    else:
        if limit is not None and req.content_length is not None and req.content_length > limit:
            raise _too_large(limit)
        charset = req.mimetype_params.get("charset", "utf-8").lower()
        if not _is_json_type(req.mimetype) or charset not in ("utf-8", "utf8"):
            shown = req.content_type or "none"
            raise problem("unsupported_media_type",
                          f"The body must be JSON in UTF-8 (Content-Type: application/json), not {shown}.",
                          f"请求体必须是 UTF-8 编码的 JSON（Content-Type: application/json），而不是 {shown}。")
        data = _read_body(limit)
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
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY_BYTES, OPENAPI_PATH=str(OPENAPI_PATH))
    if config:
        app.config.update(config)

    register_error_handlers(app)
    register_routes(app)
    observability.init_app(app)
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


def checked_by_library_first(schema, body: typing.Any, compute: typing.Callable) -> typing.Any:
    """``compute(schema.load(body))``, without the load when the library accepts the body as it is.

    The library checks every field itself, as strictly as the schema (it is the front door of
    other programs too), and it reads every form the schema normalizes (compact tile strings,
    aliases, ``null`` for absent).  So a body the library scores is one the schema would have
    loaded, to a body the library scores the same (tests/test_fuzz.py checks both on generated
    requests): loading it first only costs time, as much as scoring the hand (issue 5's profile).
    Anything the library refuses takes the schema's path, so every 400 and 422 is exactly what
    the schema, then the library, says of it.
    """
    try:
        return compute(body)
    except ScoreError:
        pass
    return compute(schema.load(body))


# The response schema of each route.  The library's results already have exactly these shapes, so
# they are serialized as they are: a marshmallow dump per request would only copy them, at about
# twice the cost of scoring a hand.  The tests dump every 200 answer through its schema here and
# require it to come out unchanged (tests/conftest.py), besides validating it against openapi.yaml.
RESPONSE_SCHEMAS = {
    "healthz": schemas.health, "readyz": schemas.ready, "list_rules": schemas.preset_list,
    "get_rules": schemas.preset_one,
    "score": schemas.score_response, "score_batch": schemas.batch_response, "waits": schemas.waits_response,
    "table_next": schemas.next_hand_response, "table_claims": schemas.claims_response,
    "table_escape": schemas.escape_response, "levels": schemas.levels_response,
}


def register_routes(app: Flask) -> None:
    @app.get("/healthz")
    def healthz():
        return json_response({"status": "ok"})

    @app.get("/openapi.yaml")
    def openapi_yaml():
        return Response(Path(app.config["OPENAPI_PATH"]).read_bytes(), content_type="application/yaml")

    @app.get("/docs")
    @app.get("/docs/")
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

    @app.get("/docs/swagger-initializer.js")
    def docs_init():
        js = DOCS_INIT_JS % json.dumps(url_for("openapi_yaml"))
        return Response(js, content_type="text/javascript; charset=utf-8")

    @app.get("/docs/static/<path:filename>")
    def docs_static(filename: str):
        return send_from_directory(SWAGGER_UI_DIR, filename, max_age=86400)

    @app.get("/v1/rules")
    def list_rules():
        return json_response({"presets": ningbo_score.presets()})

    @app.get("/v1/rules/<preset>")  # the path parameter of openapi.yaml: {preset}
    def get_rules(preset: str):
        try:
            found = ningbo_score.preset(preset)
        except KeyError:
            raise problem("not_found", f"There is no preset {preset!r}; presets: {', '.join(schemas.PRESET_IDS)}.",
                          f"没有规则 {preset!r}；可选：{'、'.join(schemas.PRESET_IDS)}。") from None
        return json_response(found)

    @app.post("/v1/score")
    def score():
        return json_response(checked_by_library_first(schemas.score_request, json_body(), ningbo_score.score))

    @app.post("/v1/score/batch")
    def score_batch():
        # the schema checks the outer shape only; the library checks each item on its own
        request_data = schemas.batch_request.load(json_body(MAX_BATCH_BODY_BYTES))
        answer = ningbo_score.score_batch(request_data, language())
        for result in answer["results"]:
            if "problem" in result:               # refused hands count by code, like refused requests
                observability.record_problem(result["problem"]["code"])
        return json_response(answer)

    @app.post("/v1/waits")
    def waits():
        request_data = schemas.waits_request.load(json_body())
        return json_response(ningbo_score.waits(request_data, language()))

    @app.post("/v1/table/next")
    def table_next():
        request_data = schemas.next_hand_request.load(json_body())
        return json_response(table.next_hand(request_data))

    @app.post("/v1/table/claims")
    def table_claims():
        request_data = schemas.claims_request.load(json_body())
        return json_response(table.claims(request_data, language()))

    @app.post("/v1/table/escape")
    def table_escape():
        request_data = schemas.escape_request.load(json_body())
        return json_response(table.escape(request_data))

    @app.get("/v1/levels")
    def levels():
        return json_response(table.levels())

    @app.get("/")
    def calculator():
        """The calculator page (static/index.html); its files are under /static/."""
        return send_from_directory(app.static_folder, "index.html")


app = create_app()
