"""Request bodies in, JSON out: the request's language, its JSON body read within its limits and
deadlines (413, 415, 400 for malformed JSON or a repeated key, 408), and JSON answers.

Every problem raised here is a ``ScoreError`` (service/problems.py answers it).
"""
from __future__ import annotations

import json
import typing

import orjson
from flask import Request, Response, request

from ningbo_score import ScoreError
from ningbo_score.errors import shown
from service import turns

JSON_TYPE = "application/json"
PROBLEM_TYPE = "application/problem+json"


# --- responses ---------------------------------------------------------------------------------

def json_response(body: typing.Any, status: int = 200, content_type: str = JSON_TYPE,
                  headers: typing.Mapping[str, str] | None = None) -> Response:
    """``body`` as compact UTF-8 JSON (orjson; the standard library for integers past 64 bits)."""
    try:
        data = orjson.dumps(body)
    except TypeError:
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    return Response(data, status=status, content_type=content_type, headers=headers)


def weighted(header: str) -> list[tuple[str, float]]:
    """The items of a list header with q-values (Accept-Language, Accept-Encoding; RFC 9110
    §12.4.2) as ``(item, q)``, in order: q defaults to 1, and a q that is no number counts as 0
    ("not acceptable"); empty items are left out."""
    out = []
    for part in header.split(","):
        item, _, params = part.strip().partition(";")
        item = item.strip()
        if not item:
            continue
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        out.append((item, q))
    return out


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
    for tag, q in weighted(header):
        primary = tag.replace("_", "-").split("-")[0].lower()   # zh_CN as a locale writes it
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


def too_large(limit: int | None) -> ScoreError:
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
        raise too_large(limit)
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
                raise turns.body_cut_short()
            return data
        buffer = bytearray(size)
        view, got = memoryview(buffer), 0
        while got < size:
            part = stream.read(min(READ_PART_BYTES, size - got))
            if not part:
                raise turns.body_cut_short()
            view[got:got + len(part)] = part
            got += len(part)
        return buffer
    return read


def _read(read: typing.Callable[[typing.Any], bytes | bytearray], arg: typing.Any) -> bytes | bytearray:
    """``read(arg)`` within the server's body deadline (408 past it), a body that cannot be read
    (malformed chunked framing, cut short, a stalled or reset socket) refused as a 4xx problem."""
    server = turns.get()
    try:
        with server.body_deadline(), server.reading(request.environ):
            return read(arg)
    except server.read_errors as err:
        raise server.body_problem(err) from None


def json_body(limit: int | None = None, heavy: bool = False) -> typing.Any:
    """The request's JSON body: 413 past the limit (the app's ``MAX_CONTENT_LENGTH`` unless the
    route gives its own ``limit``), 415 unless JSON in UTF-8, 400 if malformed or if an object
    repeats a key (:func:`repeated_key`).  A ``heavy`` request (or a large body) then waits for
    its turn in the worker's heavy work (service/turns.py)."""
    # the request itself, not its proxy: read often here (flask types the proxy as the Request)
    req: Request = request._get_current_object()  # type: ignore[attr-defined]
    if limit is not None:
        req.max_content_length = limit       # this request only (Flask ≥ 3.1)
    limit = req.max_content_length
    environ = req.environ
    coding = environ.get("HTTP_CONTENT_ENCODING")
    if coding and coding.strip().lower() != "identity":
        # a compressed body is never inflated (a 50 MiB gzip bomb stays 50 KiB), and a plain one
        # labelled gzip is no body a proxy would read the same way: refused unread (RFC 9110 §15.5.16)
        given = shown(coding)
        raise problem("unsupported_media_type",
                      f"The body must not be content-encoded (Content-Encoding: {given}); send it as plain JSON.",
                      f"请求体不能经过内容编码（Content-Encoding: {given}）；请直接发送 JSON。")
    length = environ.get("CONTENT_LENGTH")
    if environ.get("CONTENT_TYPE") in _PLAIN_JSON_TYPES and length and length.isascii() and length.isdigit():
        # the usual request, read without parsing its Content-Type or wrapping its stream
        size = int(length)
        if limit is not None and size > limit:
            raise too_large(limit)             # unread: the connection closes after the answer
        turns.get().send_continue(environ)
        data = _read(_read_length(environ["wsgi.input"]), size)
    else:
        if limit is not None and req.content_length is not None and req.content_length > limit:
            raise too_large(limit)
        charset = req.mimetype_params.get("charset", "utf-8").lower()
        if not _is_json_type(req.mimetype) or charset not in ("utf-8", "utf8"):
            given = shown(req.content_type or "none")
            raise problem("unsupported_media_type",
                          f"The body must be JSON in UTF-8 (Content-Type: application/json), not {given}.",
                          f"请求体必须是 UTF-8 编码的 JSON（Content-Type: application/json），而不是 "
                          f"{shown(req.content_type) if req.content_type else '未给出的类型'}。")
        turns.get().send_continue(environ)
        data = _read(_read_body, limit)
    # a heavy body waits for its turn in the worker's heavy work (service/heavy.py), or is shed
    turns.get().take(environ, len(data), heavy=heavy)
    too_many_containers(data)
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


#: the most arrays and objects a body may open (its ``[`` and ``{`` bytes, strings included), so
#: that parsing it and walking it for repeated keys stay short pieces of CPU: 32,768 empty arrays
#: are parsed in ~1.3 ms and walked in ~11 ms (the walk yields every PAUSE_EVERY containers),
#: where 340,000 took 108 + 102 ms in one piece.  A 1 MiB replay batch of 50 logs of 400 events
#: opens about 20,300; the most any route's schema takes is below it.
MAX_CONTAINERS = 32_768
PAUSE_EVERY = 4096


def too_many_containers(data: bytes | bytearray) -> None:
    """400 when ``data`` opens more than :data:`MAX_CONTAINERS` arrays and objects (counted as
    bytes before it is parsed: two passes of ``bytes.count``, ~1 ms a MiB)."""
    if len(data) <= MAX_CONTAINERS:
        return
    opened = data.count(b"[") + data.count(b"{")
    if opened > MAX_CONTAINERS:
        raise problem("invalid_request",
                      f"The body opens {opened} arrays and objects ('[' and '{{'); at most {MAX_CONTAINERS}.",
                      f"请求体打开了 {opened} 个数组和对象（'[' 与 '{{'）；最多 {MAX_CONTAINERS} 个。")


def _count_keys(value: typing.Any) -> int:
    """How many keys the objects of a parsed body have in all (no recursion: a deeply nested
    body is no RecursionError), yielding to the server's other requests every
    :data:`PAUSE_EVERY` containers (service/turns.py)."""
    if type(value) is not dict and type(value) is not list:
        return 0
    count, stack, seen = 0, [value], 0
    pop, push = stack.pop, stack.append
    pause = turns.get().pause
    while stack:
        seen += 1
        if not seen % PAUSE_EVERY:
            pause()
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


def _first_repeat_pausing() -> typing.Callable[[list[tuple[str, typing.Any]]], dict[str, typing.Any]]:
    """:func:`_first_repeat`, yielding to the server's other requests every :data:`PAUSE_EVERY`
    objects (the standard library reads a 1 MiB body of small objects in ~60 ms)."""
    pause, count = turns.get().pause, [0]

    def hook(pairs: list[tuple[str, typing.Any]]) -> dict[str, typing.Any]:
        count[0] += 1
        if not count[0] % PAUSE_EVERY:
            pause()
        return _first_repeat(pairs)
    return hook


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
    it again and tells, yielding as it goes."""
    if data.count(b":") <= _count_keys(body):
        return None
    try:
        json.loads(data, object_pairs_hook=_first_repeat_pausing())
    except _Repeated as rep:
        return shown(json.dumps(rep.key, ensure_ascii=False))
    except ValueError:        # what orjson took and the standard library does not: no repeat seen
        return None
    return None
