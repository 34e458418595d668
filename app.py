"""The HTTP service of docs/api.md: Flask routes over the ``ningbo_score`` library.

Each route is declared once, in ``ROUTES`` (:class:`Route`), and one view serves them all
(:func:`answer`): the route's marshmallow schema (ningbo_score.request_schemas, the one reader of
every body) loads and checks the body into the library's typed input, the route's call computes
and its result is sent as it is.  Every error, Flask's own 404/405/413 included, is an RFC 9457
``application/problem+json`` body built by ``ScoreError.to_problem``, in English or Chinese after
the request's ``Accept-Language``.

Run it with ``make run`` (gunicorn, see ``gunicorn.conf.py``); ``app`` below is what gunicorn
serves, ``create_app()`` builds a fresh one (tests).
"""
from __future__ import annotations

import functools
import hashlib
import ipaddress
import json
import logging
import os
import re
import typing
from dataclasses import dataclass
from pathlib import Path

import orjson
import swagger_ui_bundle
from flask import Flask, Request, Response, current_app, request, send_from_directory, url_for
from flask_compress import Compress
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import HTTPException, MethodNotAllowed
from werkzeug.middleware.proxy_fix import ProxyFix

import ningbo_score
import observability
import schemas
import serving
import static_assets
from ningbo_score import ScoreError, sessions, table
from ningbo_score.errors import HTTP_STATUS_CODES, shown
from ningbo_score.hand import Hand

ROOT = Path(__file__).resolve().parent
OPENAPI_PATH = ROOT / "openapi.yaml"
MAX_BODY_BYTES = 64 * 1024
#: ``POST /v1/score/batch`` holds up to 200 ``/v1/score`` bodies: the docs/api.md worked example alone
#: is 384 bytes as compact JSON (about 1 KiB pretty-printed), so 200 of them are past 64 KiB.
#: 1 MiB leaves about 5 KiB for each of 200 items (a request with every rule option and every
#: item_tai override, pretty-printed, is under 2 KiB).
MAX_BATCH_BODY_BYTES = 1024 * 1024
#: ``POST /v1/sessions/settle``: up to 200 hands, each a ``/v1/score`` body (as a batch) or a
#: ``/v1/replay`` log (a whole hand's log is about 3 KiB as compact JSON): the batch's limit, so
#: that the server takes it as heavy work as it takes a batch (serving.HeavyTurns).
MAX_SESSION_BODY_BYTES = MAX_BATCH_BODY_BYTES
SWAGGER_UI_DIR = Path(str(swagger_ui_bundle.swagger_ui_path))
JSON_TYPE = "application/json"
PROBLEM_TYPE = "application/problem+json"
YAML_TYPE = "application/yaml"
#: What Flask-Compress compresses, in the coding the client accepts (gzip, br or zstd; gzip on a
#: tie: the fastest on answers of a few KiB, bench/README.md) once a body is COMPRESS_MIN_SIZE
#: bytes or more: the JSON answers and problems, and openapi.yaml.  The pages and their files
#: (/, /static/, /docs/static/) are the static files' own business (static_assets.py).
COMPRESS_CONFIG: dict[str, typing.Any] = {
    "COMPRESS_MIMETYPES": [JSON_TYPE, PROBLEM_TYPE, YAML_TYPE],
    "COMPRESS_ALGORITHM": ["gzip", "br", "zstd"],
    "COMPRESS_MIN_SIZE": 500,      # Flask-Compress's default: below it a header costs more than it saves
    "COMPRESS_STREAMS": False,
}
#: The answers that do not change while the service runs (the rule book, openapi.yaml): cached by
#: a client for 5 minutes, then revalidated by their ETag (304 when it still matches).
CACHEABLE = "public, max-age=300"
#: The endpoints whose 200 answer depends on Accept-Language (a problem always does).
LOCALIZED = frozenset({"score", "scoreBatch", "waits", "analyze", "claims"})

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
    Chinese, and so is ``zh_CN``, a POSIX locale's spelling some clients send) with its q-value
    (default 1); the language with the higher q wins, English on a tie or when neither is named
    (``*`` counts for both).  werkzeug's ``best_match`` would prefer an exact ``en`` to any
    ``zh-…`` range whatever their q-values."""
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
        primary = tag.strip().replace("_", "-").split("-")[0].lower()   # zh_CN as a locale writes it
        for lang in (("en", "zh") if primary == "*" else (primary,)):
            if lang in best and q > best[lang]:
                best[lang] = q
    return "zh" if best["zh"] > 0 and best["zh"] > best["en"] else "en"


def language() -> str:
    """The request's language after its Accept-Language (:func:`language_of`)."""
    return language_of(request.headers.get("Accept-Language"))


#: orjson's reasons for refusing a document (every one its parser gives), in Chinese
_JSON_REASONS_ZH = {
    "unexpected end of data": "数据意外结束",
    "unexpected content after document": "文档结束后还有多余的内容",
    "unexpected character, expected a JSON value": "意外的字符，此处应为一个 JSON 值",
    "unexpected character, expected a string key": "意外的字符，此处应为字符串键",
    "unexpected character, expected ':' after key": "意外的字符，键后面应为 ':'",
    "unexpected character, expected ',' or ']'": "意外的字符，此处应为 ',' 或 ']'",
    "unexpected character, expected ',' or '}'": "意外的字符，此处应为 ',' 或 '}'",
    "unexpected control character in string": "字符串中有未转义的控制字符",
    "trailing comma is not allowed": "不允许末尾多余的逗号",
    "number with leading zero is not allowed": "数字不能以 0 开头",
    "number is infinity when parsed as double": "数字太大（按双精度读为无穷大）",
    "no digit after sign": "正负号后面没有数字",
    "no digit after decimal point": "小数点后面没有数字",
    "no digit after exponent sign": "指数符号后面没有数字",
    "invalid literal, expected 'true'": "无效的字面量，应为 'true'",
    "invalid literal, expected 'false'": "无效的字面量，应为 'false'",
    "invalid literal, expected 'null'": "无效的字面量，应为 'null'",
    "invalid escape in string": "字符串中有无效的转义",
    "invalid escaped sequence in string": "字符串中有无效的转义序列",
    "invalid high surrogate in string": "字符串中有无效的高位代理项",
    "invalid low surrogate in string": "字符串中有无效的低位代理项",
    "no low surrogate in string": "字符串中的高位代理项后面缺少低位代理项",
    "invalid UTF-8 encoding in string": "字符串中有无效的 UTF-8 编码",
    "invalid utf-8 encoding in string": "字符串中有无效的 UTF-8 编码",
    "str is not valid UTF-8: surrogates not allowed": "不是有效的 UTF-8：不允许代理项",
    "UTF-8 byte order mark (BOM) is not supported": "不支持 UTF-8 字节顺序标记",
    "depth limit exceeded": "嵌套层数超过上限",
    "Recursion limit reached": "嵌套层数超过上限",
    "Input is a zero-length, empty document": "文档为空",
}


def json_reason_zh(reason: str) -> str:
    """orjson's reason for refusing a document, in Chinese (a reason of a later orjson not in
    the table: "语法错误", a syntax error)."""
    return _JSON_REASONS_ZH.get(reason, "语法错误")


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
        with serving.body_deadline(), serving.turn_given_up(request.environ):
            return read(arg)
    except serving.READ_ERRORS as err:
        raise serving.body_problem(err) from None


def json_body(limit: int | None = None, heavy: bool = False) -> typing.Any:
    """The request's JSON body: 413 past the limit (the app's ``MAX_CONTENT_LENGTH`` unless the
    route gives its own ``limit``), 415 unless JSON in UTF-8, 400 if malformed or if an object
    repeats a key (:func:`repeated_key`).  A ``heavy`` request (or a large body) then waits for
    its turn in the worker's work budget (serving.HeavyTurns)."""
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
            raise _too_large(limit)             # unread: the connection closes after the answer
        serving.send_continue(environ)
        data = _read(_read_length(environ["wsgi.input"]), size)
    else:
        if limit is not None and req.content_length is not None and req.content_length > limit:
            raise _too_large(limit)
        charset = req.mimetype_params.get("charset", "utf-8").lower()
        if not _is_json_type(req.mimetype) or charset not in ("utf-8", "utf8"):
            given = shown(req.content_type or "none")
            raise problem("unsupported_media_type",
                          f"The body must be JSON in UTF-8 (Content-Type: application/json), not {given}.",
                          f"请求体必须是 UTF-8 编码的 JSON（Content-Type: application/json），而不是 "
                          f"{shown(req.content_type) if req.content_type else '未给出的类型'}。")
        serving.send_continue(environ)
        data = _read(_read_body, limit)
    # a heavy body waits for its turn in the worker's work budget (serving.HeavyTurns)
    serving.heavy_turns.take(environ, len(data), heavy=heavy)
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        if not data.strip():
            raise problem("malformed_json", "The body is empty; it must be a JSON object.",
                          "请求体为空；必须是 JSON 对象。") from None
        raise problem("malformed_json",
                      f"The body is not valid JSON (line {err.lineno}, column {err.colno}): {err.msg}.",
                      f"请求体不是有效的 JSON（第 {err.lineno} 行第 {err.colno} 列）：{json_reason_zh(err.msg)}。"
                      ) from None
    repeated = repeated_key(data, body)
    if repeated is not None:
        raise problem("malformed_json", f"The body repeats the key {repeated} in an object; each key at most once.",
                      f"请求体的对象中重复了键 {repeated}；每个键最多出现一次。")
    return body


def _count_keys(value: typing.Any) -> int:
    """How many keys the objects of a parsed body have in all (no recursion: a deeply nested
    body is no RecursionError)."""
    if type(value) is not dict and type(value) is not list:
        return 0
    count, stack = 0, [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        items: typing.Iterable[typing.Any] = item
        if type(item) is dict:
            count += len(item)
            items = item.values()
        for v in items:
            kind = type(v)
            if kind is dict or kind is list:
                push(v)
    return count


def _first_repeat(pairs: list[tuple[str, typing.Any]]) -> dict[str, typing.Any]:
    seen: dict[str, typing.Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Repeated(key)
        seen[key] = value
    return seen


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def repeated_key(data: bytes | bytearray, body: typing.Any) -> str | None:
    """A key some object of the JSON text ``data`` (parsed as ``body``) has twice, shown cut
    short, or None.  orjson keeps the last of repeated keys, and a proxy that keeps the first
    would see another request.  Every key of the text is followed by one ``:`` outside strings,
    so when the text has no more colons than ``body`` has keys, no key repeats (a count of
    bytes, ~1 µs a KiB); else (a repeat, or colons inside strings) the standard library reads
    it again and tells."""
    if data.count(b":") <= _count_keys(body):
        return None
    try:
        json.loads(data, object_pairs_hook=_first_repeat)
    except _Repeated as rep:
        return shown(json.dumps(rep.key, ensure_ascii=False))
    except ValueError:        # what orjson took and the standard library does not: no repeat seen
        return None
    return None


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
    # no static route of Flask's own: /static/ is WhiteNoise's, over a set of files fixed at
    # start (static_assets.py); any other path under it is a 404
    app = Flask(__name__, static_folder=None)
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
    Compress(app)
    app.after_request(language_headers)
    static_assets.init_app(app)
    # the docs page's Swagger UI files, gzipped where the client takes it (1.5 MB of scripts)
    static_assets.serve_directory(app, SWAGGER_UI_DIR, "/docs/static/", max_age=86400)
    observability.init_app(app)
    app.teardown_request(lambda _exc: serving.heavy_turns.release(request.environ))
    trusted = trusted_proxies(app.config.get("FORWARDED_ALLOW_IPS", os.environ.get(FORWARDED_ALLOW_IPS, "")))
    if trusted:
        app.wsgi_app = TrustedProxyFix(app.wsgi_app, trusted)  # type: ignore[method-assign]
    return app


# --- behind a proxy ----------------------------------------------------------------------------

#: The environment variable naming the proxies (addresses or networks, comma-separated; ``*``:
#: any peer) whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed; unset or empty:
#: none (gunicorn.conf.py gives gunicorn the same list).
FORWARDED_ALLOW_IPS = "FORWARDED_ALLOW_IPS"


def trusted_proxies(value: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network] | None:
    """The networks of ``FORWARDED_ALLOW_IPS`` (``*``: every address), None when it names none."""
    parts = [part.strip() for part in value.split(",") if part.strip()]
    if "*" in parts:
        return [ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")]
    try:
        return [ipaddress.ip_network(part) for part in parts] or None
    except ValueError as err:
        raise SystemExit(f"{FORWARDED_ALLOW_IPS}: {err}") from None


class TrustedProxyFix:
    """werkzeug's ProxyFix (the last ``X-Forwarded-For`` and ``X-Forwarded-Proto``: one proxy, the
    ingress, in front) for a request whose peer is one of the trusted proxies; any other peer's
    headers are left unread.  The client's address (``REMOTE_ADDR``, which gunicorn's access line
    logs) and scheme (``https``: the answer then carries ``Strict-Transport-Security``) are then
    the ones the proxy saw."""

    def __init__(self, wsgi_app: typing.Callable, trusted: list[ipaddress.IPv4Network | ipaddress.IPv6Network]):
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


#: werkzeug's 4xx other than those http_problem words itself, in Chinese
_HTTP_NAMES_ZH = {
    400: "请求格式错误", 401: "未授权", 403: "禁止访问", 406: "无法提供可接受的内容类型", 408: "请求超时",
    409: "冲突", 410: "已不存在", 411: "需要 Content-Length", 412: "前提条件不满足", 414: "地址过长",
    416: "请求的范围无法满足", 417: "无法满足期望头的要求", 418: "我是茶壶", 421: "请求发错了服务器",
    422: "无法处理的内容", 423: "已锁定", 424: "依赖的请求失败", 428: "需要前提条件", 429: "请求过多",
    431: "请求头字段过大", 451: "因法律原因不可用",
}


def http_problem(err: HTTPException) -> tuple[ScoreError, dict[str, str]]:
    """Flask's and werkzeug's own errors as problems."""
    status = err.code or 500
    headers: dict[str, str] = {}
    if status == 404:
        path = shown(request.path)
        return problem("not_found", f"There is nothing at {path}.", f"{path} 不存在。"), headers
    if status == 405:
        allowed = sorted(getattr(err, "valid_methods", None) or [])
        if isinstance(err, MethodNotAllowed) and allowed:
            headers["Allow"] = ", ".join(allowed)
        allowed_text = ", ".join(allowed)
        path = shown(request.path)
        return problem("method_not_allowed", f"{request.method} is not allowed on {path}; allowed: {allowed_text}.",
                       f"{path} 不支持 {request.method}；可用：{allowed_text}。"), headers
    if status == 413:
        return _too_large(request.max_content_length), headers
    if status == 415:
        return problem("unsupported_media_type", "The body must be JSON (Content-Type: application/json).",
                       "请求体必须是 JSON（Content-Type: application/json）。"), headers
    if status >= 500:
        return problem("internal_error", "An unexpected error occurred.", "发生了意外错误。"), headers
    zh = _HTTP_NAMES_ZH.get(status, f"HTTP {status}")
    # werkzeug's 4xx status kept (e.g. 400 for a bad request line): each has its code in CODES
    code = HTTP_STATUS_CODES.get(status, "bad_request")
    return ScoreError.one(code, "", f"{err.name}: {err.description}", f"请求无效：{zh}。"), headers


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
    if preset not in schemas.PRESET_IDS:
        name = shown(preset)
        raise problem("not_found", f"There is no preset {name}; presets: {', '.join(schemas.PRESET_IDS)}.",
                      f"没有规则 {name}；可选：{'、'.join(schemas.PRESET_IDS)}。")
    return cacheable(*_rules_json(preset), JSON_TYPE)


@functools.lru_cache(maxsize=len(schemas.PRESET_IDS) + 1)
def _rules_json(preset: str | None) -> tuple[bytes, str]:
    """The rule book (or one preset) as JSON and its ETag, made once per process (the presets
    and the rule book: a bound of entries; each about 16 KiB at most)."""
    return _with_etag(json_response(ningbo_score.rulebook() if preset is None else ningbo_score.preset(preset))
                      .get_data())


@functools.lru_cache(maxsize=4)
def _file_and_etag(path: Path, _mtime_ns: int) -> tuple[bytes, str]:
    return _with_etag(path.read_bytes())


def _with_etag(data: bytes) -> tuple[bytes, str]:
    return data, hashlib.sha256(data).hexdigest()[:32]


def cacheable(data: bytes, etag: str, content_type: str) -> Response:
    """An answer that changes only with a new release: a strong ETag, ``Cache-Control:``
    :data:`CACHEABLE`, and 304 on a matching ``If-None-Match`` (Flask-Compress suffixes the ETag
    of a compressed answer with its coding, ``"<hash>:gzip"``, and answers a match of that)."""
    response = Response(data, content_type=content_type, headers={"Cache-Control": CACHEABLE})
    response.set_etag(etag)
    response.make_conditional(request)
    return response


def language_headers(response: Response) -> Response:
    """``Content-Language`` and ``Vary: Accept-Language`` on an answer in the request's language:
    every problem, and the 200 answers of :data:`LOCALIZED`."""
    if response.mimetype == PROBLEM_TYPE or (request.endpoint in LOCALIZED and response.status_code == 200):
        response.headers["Content-Language"] = language()
        response.vary.add("Accept-Language")
    return response


def _count_refused(run: typing.Callable[..., typing.Any]) -> typing.Callable[..., typing.Any]:
    """A batch's call whose refused items count by code in the metrics, like refused requests
    (each item is loaded on its own by the schema: a bad one is its own result, never the batch's)."""
    def call(items: typing.Any, lang: str, before_each: typing.Callable[[], None] | None) -> typing.Any:
        answer = run(items, lang, before_each)
        for result in answer["results"]:
            if "problem" in result:
                observability.record_problem(result["problem"]["code"])
        return answer
    return call


#: a hand whose waits or analysis is expensive: this many caishen kinds or caishen tiles in hand
#: (every wait is scored twice, each scoring trying the caishen's placements)
HEAVY_CAISHEN_KINDS = 3
HEAVY_CAISHEN_TILES = 4


def heavy_hand(hand: Hand) -> bool:
    kinds = hand.caishen_kinds
    return len(kinds) >= HEAVY_CAISHEN_KINDS or sum(t in kinds for t in hand.concealed) >= HEAVY_CAISHEN_TILES


def _heavy_analysis(loaded: typing.Any) -> bool:
    return heavy_hand(loaded.hand)


def calculator():
    """The calculator page (static/index.html, made at start by static_assets); its files are
    under /static/."""
    return static_assets.page()


def service_worker():
    """The calculator's service worker (static/sw.js), from the site's root: its scope is the page
    at ``/`` (a worker under /static/ could only control /static/).  Revalidated on each visit."""
    resp = send_from_directory(ROOT / "static", "sw.js", mimetype="text/javascript", max_age=0)
    resp.headers["Cache-Control"] = "no-cache"
    return resp


# --- the route table ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Route:
    """One route, declared once: its path as openapi.yaml writes it (``{preset}``;
    ``{filename:path}`` for a Flask converter), its operation id and tag in openapi.yaml (None for
    a page of the service that is no part of the API, so no call of a generated client: the
    calculator page, the docs page and its assets, openapi.yaml itself), the schemas of its request
    body and of its 200 answer, and what it calls.  (The metrics are no route: prometheus_client
    serves them on a listener of their own, observability.py.)

    A route with a ``request`` schema (:func:`answer`) reads the body within ``body_limit`` bytes
    (None: the app's ``MAX_CONTENT_LENGTH``), loads it with the schema and calls
    ``call(loaded, language, before_each)``, sending its result as JSON.  ``heavy``: True for a
    route whose every request is heavy work (it waits for a heavy turn of the worker and yields
    between its items, serving.HeavyTurns and serving.between_hands); a predicate on the loaded
    body for one whose hand decides it (waits, analysis); False for the rest.  A route without a
    body calls ``call(**path_args)``: a Response is sent as it is, anything else as JSON.  ``doc``:
    the operation's summary in openapi.yaml, then after a blank line its description.  The Flask
    endpoint is the operation id, or else the call's name."""
    method: str
    path: str
    operation: str | None
    tag: str | None
    request: Schema | None
    response: Schema | None
    call: typing.Callable[..., typing.Any]
    body_limit: int | None = None
    heavy: bool | typing.Callable[[typing.Any], bool] = False
    doc: str = ""

    def __post_init__(self) -> None:
        assert (self.operation is None) == (self.tag is None), self.path
        assert self.request is not None or (self.body_limit is None and self.heavy is False), self.path

    @property
    def endpoint(self) -> str:
        return self.operation or self.call.__name__

    @property
    def flask_path(self) -> str:
        return re.sub(r"\{(\w+)(?::(\w+))?\}", lambda m: f"<{m[2]}:{m[1]}>" if m[2] else f"<{m[1]}>", self.path)

    @property
    def summary(self) -> str:
        return self.doc.split("\n\n", 1)[0]

    @property
    def description(self) -> str | None:
        parts = self.doc.split("\n\n", 1)
        return parts[1] if len(parts) > 1 else None


def answer(route: Route, path_args: dict[str, typing.Any]) -> Response:
    """The one view of every route (:class:`Route`)."""
    if route.request is None:
        result = route.call(**path_args)
        return result if isinstance(result, Response) else json_response(result)
    loaded = schemas.load(route.request, json_body(route.body_limit, heavy=route.heavy is True))
    before_each = None
    if route.heavy is True:
        before_each = serving.between_hands(request.environ)      # other requests run between its items
    elif route.heavy and route.heavy(loaded):
        # an expensive hand: wait for a heavy turn, then yield between its waits (as a batch)
        serving.heavy_turns.take(request.environ, 0, heavy=True)
        before_each = serving.between_hands(request.environ)
    return json_response(route.call(loaded, language(), before_each))


#: Every route of the service, each declared here alone.  It drives the Flask routes
#: (:func:`register_routes`, one view: :func:`answer`), openapi.yaml's operations, their ids,
#: tags, summaries, descriptions, request/response schemas and body limits, and which routes are
#: in it at all (tools/gen_openapi.py), and the response schema each 200 is checked against
#: (RESPONSE_SCHEMAS, tests/conftest.py).
ROUTES: tuple[Route, ...] = (
    Route("POST", "/v1/score", "score", "scoring", schemas.score_request, schemas.score_response,
          lambda hand, lang, _: ningbo_score.score(hand, lang),
          doc=(
              "Score a winning hand\n\n"
              "台 items, points and payments of one hand (docs/api.md). A well-formed hand that is "
              "impossible or not a win is a 422; one below the minimum 台 is a 200 with `eligible: false` "
              "and the `reasons`.")),
    Route("GET", "/v1/rules", "listRules", "rules", None, schemas.preset_list, list_rules,
          doc="The rule book: its version, what rule book 3 changed, every preset"),
    Route("GET", "/v1/rules/{preset}", "getRules", "rules", None, schemas.preset_one, get_rules,
          doc="One preset with its options and item table"),
    Route("GET", "/healthz", "health", "ops", None, schemas.health, healthz,
          doc="Liveness"),
    Route("GET", "/readyz", "ready", "ops", None, schemas.ready, observability.readyz,
          doc="Readiness: the engine scores docs/api.md's worked example right"),
    Route("POST", "/v1/waits", "waits", "scoring", schemas.waits_request, schemas.waits_response,
          lambda hand, lang, turns: ningbo_score.waits(hand, lang, turns), heavy=heavy_hand,
          doc=(
              "What a hand waits on (听牌), and what each wait is worth\n\n"
              "The `/v1/score` request with the hand *before* its winning tile (13 − 3 × melds concealed "
              "tiles; no `hand.winning_tile`, no `win.by`). Every tile that completes the hand and has a "
              "copy left, with the `/v1/score` answer for a self-draw of it and for a win on a discard "
              "from `win.from` (default: the player's 上家), or the problem that refuses that win. A hand "
              "that waits on nothing is a 200 with `waits: []`. When every tile completes it (caishen), "
              "`any_tile` is true and tiles with the same outcome share one entry (`same_for`).")),
    Route("POST", "/v1/analyze", "analyze", "scoring", schemas.analyze_request, schemas.analyze_response,
          lambda loaded, lang, turns: ningbo_score.analyze(loaded, lang, turns), heavy=_heavy_analysis,
          doc=(
              "What to do with a hand that has not won: shanten (向听), improving tiles, discards\n\n"
              "A `/v1/waits` body whose hand holds 13 − 3 × melds concealed tiles (waiting to draw) or 14 "
              "− 3 × melds (it has drawn), and `visible`, the tiles seen elsewhere. The shanten (caishen "
              "stand for any tile; copy limits ignored), every tile that lowers it with its unseen copies, "
              "and at tenpai each wait with its value by self-draw and by discard as `/v1/waits` gives it. "
              "14 tiles: one entry per kind that can be discarded, best first. Bad input gets what "
              "`/v1/waits` gives it.")),
    Route("POST", "/v1/score/batch", "scoreBatch", "scoring", schemas.batch_request, schemas.batch_response,
          _count_refused(lambda items, lang, each: ningbo_score.score_batch(items, lang, each)),
          body_limit=MAX_BATCH_BODY_BYTES, heavy=True,
          doc=(
              "Score up to 200 hands in one call\n\n"
              "`{\"requests\": [score request, …]}`: one result per request, in order, each the `/v1/score` "
              "answer (`score`) or its problem (`problem`, with the status `/v1/score` would have "
              "answered). A bad hand never fails the batch; each item must be a JSON object and is checked "
              "on its own. Bodies up to 1 MiB.")),
    Route("POST", "/v1/table/next", "nextHand", "table", schemas.next_hand_request, schemas.next_hand_response,
          lambda loaded, _lang, _: table.next_hand(loaded),
          doc=(
              "Who deals the next hand, every seat wind and the round wind\n\n"
              "docs/rules.md §8. Players are positions 0–3 in play order. The dealer keeps the deal when "
              "it wins, and when the hand is drawn where the rules' `draw_keeps_dealer` is on (连庄; `rules` "
              "as in `/v1/score`, default `ningbo`: on); otherwise the dealer's next position deals, and "
              "after the round's fourth dealer the deal returns to the round's first dealer and the round "
              "wind advances (E → S → W → N → E). Send the answer's `dealer`, `round_wind` and "
              "`dealers_this_round` back with the next hand's `result`.")),
    Route("POST", "/v1/sessions/settle", "settleSession", "sessions", schemas.session_request,
          schemas.session_response, lambda hands, lang, each: sessions.settle(hands, lang, each),
          body_limit=MAX_SESSION_BODY_BYTES, heavy=True,
          doc=(
              "Settle a session: rotation, running totals and the fewest transfers\n\n"
              "Four `players` in seating order, the `first_dealer` and the `hands` in play order (at most "
              f"{sessions.MAX_HANDS}): each a `/v1/replay` log (`replay`), a `/v1/score` body "
              "(`score`, the winner by its "
              "`seat_wind`), a `draw`, a `net` scored elsewhere (by seat, summing to 0) or a `penalty` "
              "(`escape`: that seat pays 24 × base points, 8 × base to each other seat). The deal moves "
              "after each hand as `/v1/table/next` moves it (docs/rules.md §8, the session's "
              "`draw_keeps_dealer`; a `net` or `penalty` moves it like a draw); a hand may leave its "
              "`round_wind` out, and one that contradicts the rotation is a 422 `dealer_sequence`. A "
              "hand's `rules` and `base_points` default to the session's. The answer: each hand with its "
              "dealer, seats, winner, net and running totals, the `totals`, the fewest `transfers` that "
              "settle them (exact; ties: the smallest largest transfer, then the first by (from, to) in "
              "`players` order), `stats` per player and the `next` hand's table. A hand that fails is its "
              "own endpoint's problem with `hand_index` (and, for a replay, `event_index` and `reason`); "
              "its field paths are within that hand's body. Bodies up to 1 MiB.")),
    Route("POST", "/v1/table/claims", "claims", "table", schemas.claims_request, schemas.claims_response,
          lambda loaded, lang, _: table.claims(loaded, lang),
          doc=(
              "Which claim takes a discard\n\n"
              "docs/rules.md §8: a win beats a pung or kong, which beats a chow; of several wins the first "
              "in play order after the discarder takes it (截胡; one discard, one winner). A chow is only "
              "for the discarder's next seat. `reason` follows `Accept-Language`.")),
    Route("GET", "/v1/levels", "levels", "table", None, schemas.levels_response, lambda: table.levels(),
          doc=(
              "The level table (级别) of the 456 rules\n\n"
              "Each level's name, the points (积分) it needs and its base points (对局分).")),
    Route("POST", "/v1/table/escape", "escape", "table", schemas.escape_request, schemas.escape_response,
          lambda loaded, _lang, _: table.escape(loaded),
          doc=(
              "The penalty for leaving a game (逃跑)\n\n"
              "24 × the base points, given directly or as a level of `GET /v1/levels` (docs/rules.md §8); "
              "the others gain nothing from it.")),
    Route("POST", "/v1/replay", "replay", "scoring", schemas.replay_request, schemas.replay_response,
          lambda log, lang, _: ningbo_score.replay.replay_loaded(log, lang),
          doc=(
              "Replay a hand's log: check every event, derive the win, score it\n\n"
              "One hand's log (the deal and every event in play order, ending in `win` or "
              "`exhaustive_draw`; at most 400 events) is checked event by event against the rule book. At "
              "the win, the `/v1/score` body its context makes (`score_request`: `win.by`/`from`, "
              "`kong_replacement`, `kong_fed_by`, `last_tile`, `heavenly`, `earthly`, `discarded_caishen`, "
              "`claims_from_winner`, the melds' `from`) is scored as `/v1/score` scores it (`score`); "
              "`evidence` names the events that decided each field; `next` is the `/v1/table/next` answer. "
              "A log that breaks a rule: 422 `illegal_event` with `event_index`, `reason`, `expected` and "
              "`state`; a win `/v1/score` refuses: its code with the win's `event_index`.")),
    Route("POST", "/v1/replay/batch", "replayBatch", "scoring", schemas.replay_batch_request,
          schemas.replay_batch_response,
          _count_refused(lambda logs, lang, each: ningbo_score.replay.replay_batch(logs, lang, each)),
          body_limit=MAX_BATCH_BODY_BYTES, heavy=True,
          doc=(
              "Replay up to 50 logs in one call\n\n"
              "`{\"logs\": [replay request, …]}`: one result per log, in order, each the `/v1/replay` answer "
              "(`replay`) or its problem (`problem`, with the status `/v1/replay` would have answered). A "
              "bad log never fails the batch. Bodies up to 1 MiB.")),
    # the service's pages (no operations of openapi.yaml); WhiteNoise serves the calculator's
    # files under /static/ (static_assets.py)
    Route("GET", "/", None, None, None, None, calculator),
    Route("GET", "/sw.js", None, None, None, None, service_worker),
    Route("GET", "/docs", None, None, None, None, docs),
    Route("GET", "/docs/", None, None, None, None, docs),
    Route("GET", "/docs/swagger-initializer.js", None, None, None, None, docs_init),
    Route("GET", "/docs/static/{filename:path}", None, None, None, None, docs_static),
    Route("GET", "/openapi.yaml", None, None, None, None, openapi_yaml),
)

# The library's results already have exactly the shapes of the response schemas, so they are
# sent as they are: a marshmallow dump per request would only copy them, at about twice the cost
# of scoring a hand.  The tests dump every 200 answer through its schema here and require it to
# come out unchanged (tests/conftest.py), besides validating it against openapi.yaml.
RESPONSE_SCHEMAS: dict[str, Schema] = {r.endpoint: r.response for r in ROUTES if r.response is not None}


def _view(route: Route) -> typing.Callable[..., Response]:
    def view(**path_args: typing.Any) -> Response:
        return answer(route, path_args)
    view.__name__ = route.endpoint
    return view


def register_routes(app: Flask) -> None:
    views: dict[str, typing.Callable[..., Response]] = {}   # one view per endpoint (/docs and /docs/ share one)
    for route in ROUTES:
        view = views.setdefault(route.endpoint, _view(route))
        app.add_url_rule(route.flask_path, endpoint=route.endpoint, view_func=view, methods=[route.method])


app = create_app()
