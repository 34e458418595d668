"""Errors of the library: one exception type carrying every problem found.

Each problem has a stable ``code`` (docs/api.md), the field ``path`` it is about and a message in
English and Chinese.  :class:`ScoreError` collects them; its ``code`` and HTTP ``status`` come
from the first problem in the order of docs/rules.md §10.15 (the order of :data:`CODES`).
"""
from __future__ import annotations

import typing
from dataclasses import dataclass

if typing.TYPE_CHECKING:
    from collections.abc import Mapping

# code -> (HTTP status, English title, Chinese title).  The order is the precedence of
# docs/rules.md §10.15: when a request has several problems, the first code here wins.
CODES: dict[str, tuple[int, str, str]] = {
    "malformed_json": (400, "Malformed JSON", "JSON 格式错误"),
    "invalid_request": (400, "Invalid request", "请求无效"),
    # werkzeug's own 4xx other than 404/405/413/415 (reported as invalid_request, with their status)
    "bad_request": (400, "Invalid request", "请求无效"),
    "unauthorized": (401, "Invalid request", "请求无效"),
    "forbidden": (403, "Invalid request", "请求无效"),
    "not_acceptable": (406, "Invalid request", "请求无效"),
    "conflict": (409, "Invalid request", "请求无效"),
    "gone": (410, "Invalid request", "请求无效"),
    "length_required": (411, "Invalid request", "请求无效"),
    "precondition_failed": (412, "Invalid request", "请求无效"),
    "uri_too_long": (414, "Invalid request", "请求无效"),
    "range_not_satisfiable": (416, "Invalid request", "请求无效"),
    "expectation_failed": (417, "Invalid request", "请求无效"),
    "teapot": (418, "Invalid request", "请求无效"),
    "misdirected_request": (421, "Invalid request", "请求无效"),
    "unprocessable_content": (422, "Invalid request", "请求无效"),
    "locked": (423, "Invalid request", "请求无效"),
    "failed_dependency": (424, "Invalid request", "请求无效"),
    "precondition_required": (428, "Invalid request", "请求无效"),
    "too_many_requests": (429, "Invalid request", "请求无效"),
    "header_fields_too_large": (431, "Invalid request", "请求无效"),
    "unavailable_for_legal_reasons": (451, "Invalid request", "请求无效"),
    # the server's own: a body that did not come in time, a client that left before its answer
    "request_timeout": (408, "Request timeout", "请求超时"),
    "client_closed": (499, "Client closed request", "客户端关闭了请求"),
    "payload_too_large": (413, "Payload too large", "请求体过大"),
    "unsupported_media_type": (415, "Unsupported media type", "不支持的媒体类型"),
    "caishen_in_meld": (422, "Caishen in a meld", "副露中不能有财神"),
    "invalid_meld": (422, "Invalid meld", "副露无效"),
    "invalid_flowers": (422, "Invalid request", "请求无效"),  # reported as invalid_request
    "wrong_tile_count": (422, "Wrong tile count", "牌数不对"),
    "too_many_copies": (422, "Too many copies", "牌张数超出"),
    "winning_tile_not_in_hand": (422, "Winning tile not in hand", "胡的牌不在手牌中"),
    "invalid_claims": (422, "Invalid request", "请求无效"),  # reported as invalid_request
    "unbalanced_net": (422, "Invalid request", "请求无效"),  # reported as invalid_request (a session's net hand)
    "unknown_dealer": (422, "Invalid request", "请求无效"),  # reported as invalid_request (a session's first_dealer)
    "unknown_player": (422, "Invalid request", "请求无效"),  # reported as invalid_request (a session hand's seat)
    "seat_named_twice": (422, "Invalid request", "请求无效"),  # reported as invalid_request (a session's net)
    "dealer_sequence": (422, "Dealer sequence", "庄家轮转不符"),  # POST /v1/sessions/settle
    "inconsistent_win_context": (422, "Inconsistent win context", "胡牌情形自相矛盾"),
    "discard_win_not_allowed": (422, "Discard win not allowed", "不允许捉冲"),
    "caishen_winning_tile": (422, "Caishen needs self-draw", "财神只能自摸"),
    "not_a_winning_hand": (422, "Not a winning hand", "不是胡牌"),
    "below_minimum": (422, "Below the minimum", "不够起胡台数"),  # POST /v1/sessions/settle: a score hand
    "caishen_needs_self_draw": (422, "Caishen needs self-draw", "财神只能自摸"),
    "points_too_large": (422, "Invalid request", "请求无效"),  # reported as invalid_request
    "illegal_event": (422, "Illegal event", "牌局记录违规"),  # POST /v1/replay (ningbo_score.replay)
    "not_found": (404, "Not found", "未找到"),
    "method_not_allowed": (405, "Method not allowed", "方法不允许"),
    "internal_error": (500, "Internal error", "内部错误"),
    "not_implemented": (501, "Internal error", "内部错误"),  # reported as internal_error (gunicorn's 501)
    "http_version_not_supported": (505, "Internal error", "内部错误"),  # reported as internal_error (gunicorn's 505)
    "not_ready": (503, "Not ready", "未就绪"),
    "overloaded": (503, "Overloaded", "服务器繁忙"),  # heavy work shed by a worker (service/heavy.py)
}
_RANK = {code: i for i, code in enumerate(CODES)}
#: the 4xx of werkzeug and gunicorn (other than those with codes of their own): reported as invalid_request
_HTTP_4XX = (
    "bad_request", "unauthorized", "forbidden", "not_acceptable", "conflict", "gone", "length_required",
    "precondition_failed", "uri_too_long", "range_not_satisfiable", "expectation_failed", "teapot",
    "misdirected_request", "unprocessable_content", "locked", "failed_dependency", "precondition_required",
    "too_many_requests", "header_fields_too_large", "unavailable_for_legal_reasons")
#: an HTTP status werkzeug or gunicorn answers by itself -> its code in CODES
HTTP_STATUS_CODES: dict[int, str] = {CODES[code][0]: code for code in (
    *_HTTP_4XX, "request_timeout", "internal_error", "not_implemented", "http_version_not_supported")}
#: The most problems one answer lists (docs/api.md, "Additions for rule book 2"); the readers stop
#: soon after finding this many (ningbo_score.readers.fields, ningbo_score.readers.request_schemas).
MAX_PROBLEMS = 50
#: The most bytes (UTF-8) of paths and messages one answer's ``errors`` holds: the problems past
#: it are counted in ``more_errors`` like those past :data:`MAX_PROBLEMS`, so that a small body
#: full of mistakes (200 empty hands of a session) never gets an answer bigger than itself.
MAX_ERRORS_BYTES = 1400
#: The most characters of a client's text (an unknown key, a path) an answer shows; the rest is
#: cut (:func:`shown`), so that no answer is bigger than the body that caused it.
MAX_SHOWN = 64


def shown(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` as an answer may show it: at most ``limit`` characters, ``…`` for the rest."""
    return text if len(text) <= limit else text[:limit - 1] + "…"
# Internal sub-codes that exist only to place a problem in the §10.15 order.
_PUBLIC = {
    "unknown_dealer": "invalid_request",
    "unknown_player": "invalid_request",
    "seat_named_twice": "invalid_request",
    "invalid_flowers": "invalid_request",
    "invalid_claims": "invalid_request",
    "caishen_winning_tile": "caishen_needs_self_draw",
    "points_too_large": "invalid_request",
    "unbalanced_net": "invalid_request",
    **{code: "invalid_request" for code in _HTTP_4XX},
    "not_implemented": "internal_error",
    "http_version_not_supported": "internal_error",
}


def public_code(code: str) -> str:
    return _PUBLIC.get(code, code)


@dataclass(frozen=True)
class Problem:
    code: str
    path: str
    en: str
    zh: str

    def message(self, lang: str = "en") -> str:
        return self.zh if lang == "zh" else self.en


class ScoreError(Exception):
    """A request the library refuses.  ``problems`` holds every problem found."""

    def __init__(self, problems: list[Problem], extra: Mapping[str, typing.Any] | None = None):
        if not problems:
            raise ValueError("ScoreError needs at least one problem")
        self.problems = sorted(problems, key=lambda p: _RANK[p.code])  # stable: list order kept
        first = self.problems[0]
        self.code = public_code(first.code)
        self.status = CODES[first.code][0]
        self.path = first.path
        #: more members of the problem object (POST /v1/replay: ``event_index``, ``reason``, …),
        #: given at construction
        self.extra: dict[str, typing.Any] = dict(extra or {})
        super().__init__(self.detail())

    @classmethod
    def one(cls, code: str, path: str, en: str, zh: str, extra: Mapping[str, typing.Any] | None = None) -> ScoreError:
        return cls([Problem(code, path, en, zh)], extra)

    def with_extra(self, **more: typing.Any) -> ScoreError:
        """The same problems with more members (``event_index`` of a refused win, a session's
        ``hand_index``): a new error, to raise ``from`` this one."""
        return type(self)(self.problems, {**self.extra, **more})

    def listed(self) -> int:
        """How many of the problems an answer lists: at most :data:`MAX_PROBLEMS`, and only as
        many as fit :data:`MAX_ERRORS_BYTES` (the first always), in either language (so both list
        the same paths)."""
        size = 0
        for n, p in enumerate(self.problems[:MAX_PROBLEMS]):
            message = max(len(p.en.encode()), len(p.zh.encode()))
            size += len(p.path.encode()) + message + 8   # quotes, colon, brackets
            if n and size > MAX_ERRORS_BYTES:
                return n
        return min(len(self.problems), MAX_PROBLEMS)

    def errors(self, lang: str = "en") -> dict[str, list[str]]:
        """Messages keyed by field path, in precedence order: the first :meth:`listed`."""
        out: dict[str, list[str]] = {}
        for p in self.problems[:self.listed()]:
            out.setdefault(p.path or "$", []).append(p.message(lang))
        return out

    def detail(self, lang: str = "en") -> str:
        first = self.problems[0]
        text = f"{first.path}: {first.message(lang)}" if first.path else first.message(lang)
        more = len(self.problems) - 1
        if more:
            text += f" (另有 {more} 个问题)" if lang == "zh" else f" (and {more} more problem{'s' if more > 1 else ''})"
        return text

    def title(self, lang: str = "en") -> str:
        _, en, zh = CODES[self.problems[0].code]
        return zh if lang == "zh" else en

    def to_problem(self, lang: str = "en") -> dict[str, typing.Any]:
        """The RFC 9457 problem object of docs/api.md (without ``instance``)."""
        body: dict[str, typing.Any] = {
            "type": f"urn:ningbo-score:problem:{self.code}",
            "title": self.title(lang),
            "status": self.status,
            "detail": self.detail(lang),
            "code": self.code,
        }
        listed = self.listed()
        if any(p.path for p in self.problems[:listed]):
            body["errors"] = self.errors(lang)
        if len(self.problems) > listed:
            body["more_errors"] = len(self.problems) - listed
        if self.extra:
            body.update(self.extra)
        return body
