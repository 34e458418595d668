"""Every error path of every route answers in the request's language: the request schemas are
walked field by field (missing, null, each wrong JSON type, unknown field, too many items, a value
outside an enum, bad tiles, bad keys and values of a map), and the service's other refusals (bad
JSON of every kind orjson reports, the media type, a body too large, an unknown path, a method,
an unknown preset) are sent too, each under English and under Chinese.  Under Chinese no message
may hold an English word: an ASCII word of 3 or more letters that is not a field name, an id or
enum value of the API, a tile code, a JSON literal or a value quoted from the request."""
from __future__ import annotations

import copy
import json
import re
import typing

import pytest
from marshmallow import fields as mfields

import app as app_module
import ningbo_score
from service import bodies, problems, routes
from ningbo_score.readers import fields as nfields
from ningbo_score.readers.request_schemas import ITEM_IDS, PRESET_IDS
from ningbo_score.tiles import CODES
from tools import examples

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
WORD = re.compile(r"[A-Za-z][A-Za-z_]{2,}")
ZH = {"Accept-Language": "zh-CN"}

# the valid body each route's walk starts from, with every optional object given
_SCORE = copy.deepcopy(examples.API_MD)
_SCORE.update({"rules": {"preset": "ningbo", "min_tai": 1, "item_tai": {"all_pungs": 3}, "hand_cap": None},
               "claims_from_winner": {"E": 1}, "base_points": 2})
_SCORE["hand"]["flowers"] = ["1f"]
STARTS: dict[str, typing.Any] = {
    "/v1/score": _SCORE,
    "/v1/waits": {**examples.WAITS_THREE_SIDED, "caishen": {"indicator": "5p"}, "win": {"from": "E"}},
    "/v1/analyze": {**examples.ANALYZE_DRAWN, "visible": ["1m"]},
    "/v1/score/batch": {"requests": [examples.API_MD]},
    "/v1/table/next": {**examples.NEXT_OTHER_WINS, "rules": "ningbo"},
    "/v1/table/claims": examples.CLAIMS_PUNG_OVER_CHOW,
    "/v1/table/escape": {"base_points": 2},
}
ROUTES = {r.path: r.request for r in routes.ROUTES if r.request is not None}


def _schemas(schema, seen):
    """Every schema reachable from ``schema`` (nested objects, lists of them, rules objects)."""
    if type(schema) in seen:
        return
    seen.add(type(schema))
    for field in schema.fields.values():
        for inner in (field, getattr(field, "inner", None)):
            nested = getattr(inner, "schema", None)
            if nested is not None:
                _schemas(nested, seen)


def _allowed_words() -> set[str]:
    """Words a Chinese message may hold: the API's names and values, not English prose."""
    words = {"null", "true", "false", "JSON", "UTF", "HTTP", "CRLF", "Content", "Length", "Type", "application",
             "json", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", *CODES}
    words.update(w for name in (*PRESET_IDS, *ITEM_IDS) for w in WORD.findall(name))
    seen: set[type] = set()
    for schema in ROUTES.values():
        _schemas(schema, seen)
    for cls in seen:
        for name, field in cls().fields.items():
            words.update((name, field.data_key or name))
            for inner in (field, getattr(field, "inner", None), getattr(field, "key_field", None),
                          getattr(field, "value_field", None)):
                for validator in getattr(inner, "validators", ()):
                    words.update(w for c in getattr(validator, "choices", ()) if isinstance(c, str)
                                 for w in WORD.findall(c))
    return words


ALLOWED = _allowed_words()
WRONG_TYPES = ({}, [], "zzz", 12345, 2.5, True)


def _mutations(schema, body: dict, path: tuple) -> typing.Iterator[tuple[str, tuple, typing.Any]]:
    """(what, path, value) for each bad value of each field of ``schema`` at ``path`` in the
    body; value ``...`` deletes the field."""
    yield "unknown field", path + ("zzz_unknown",), 1
    yield "not an object", path, ["zzz"]
    for name, field in schema.fields.items():
        key = field.data_key or name
        at = path + (key,)
        given = body.get(key) if isinstance(body, dict) else None
        if field.required:
            yield "missing", at, ...
        yield "null", at, None
        for wrong in WRONG_TYPES:
            yield f"type {type(wrong).__name__}", at, wrong
        for validator in field.validators:
            if getattr(validator, "choices", None):
                yield "not in the enum", at, "zzz_value"
            if getattr(validator, "max", None) is not None:
                yield "too large", at, 10 ** 18
            if getattr(validator, "min", None) is not None:
                yield "too small", at, -(10 ** 18)
        if isinstance(field, (nfields.Tiles, nfields.Tile)):
            for bad in ("10m", "1M", "e", "x", "9f", "１２３ｍ", "123m"):
                yield "bad tile", at, bad if isinstance(field, nfields.Tile) else [bad]
            if isinstance(field, nfields.Tiles):
                yield "bad tile string", at, "123M 10p e x"
                yield "too many tiles", at, ["1m"] * 200
        if isinstance(field, nfields.PresetOrObject):
            yield "bad preset", at, "zzz_preset"
            yield from _mutations(field.schema, given if isinstance(given, dict) else {}, at)
        if isinstance(field, mfields.Dict):
            yield "bad key", at, {"zzz_item": 1}
            yield "bad value", at, {ITEM_IDS[0]: "zzz"}
            yield "value too large", at, {ITEM_IDS[0]: 10 ** 18}
        if isinstance(field, mfields.List):
            yield "too many items", at, [{}] * 300
            inner = getattr(field.inner, "schema", None)
            if inner is not None:
                first = given[0] if isinstance(given, list) and given and isinstance(given[0], dict) else {}
                yield from _mutations(inner, first, at + (0,))
            else:
                yield "bad item", at, ["zzz_value", 7]
        if isinstance(field, mfields.Nested):
            yield from _mutations(field.schema, given if isinstance(given, dict) else {}, at)
        if isinstance(field, nfields.Each):
            yield "too many items", at, [{}] * 300
            yield "not objects", at, [1, "x"]
            yield from _mutations(field.schema, given[0] if given else {}, at + (0,))


def _apply(body, path, value):
    """``body`` with ``value`` at ``path`` (``...``: the key removed), objects and arrays made on
    the way where the body has none."""
    if not path:
        return value
    body = copy.deepcopy(body)
    node = body
    for depth, key in enumerate(path):
        last = depth == len(path) - 1
        if isinstance(node, list):
            while len(node) <= key:
                node.append({})
        elif not last and not isinstance(node.get(key), (dict, list)):
            node[key] = [] if isinstance(path[depth + 1], int) else {}
        if last:
            if value is not ...:
                node[key] = value
            elif isinstance(node, dict):
                node.pop(key, None)
        else:
            node = node[key]
    return body


def _messages(answer: dict) -> list[str]:
    """Every text of a problem (title, detail, each field's messages), and of each problem in a
    batch's results."""
    out = []
    problems = [answer] if "title" in answer else []
    problems += [r["problem"] for r in answer.get("results", []) if "problem" in r]
    for p in problems:
        out += [p["title"], p["detail"]]
        for texts in p.get("errors", {}).values():
            out += texts
    return out


def english_words(text: str, request: typing.Any = "") -> list[str]:
    """The words of ``text`` that are English prose: quoted values, the API's names and words of
    the ``request`` (its body, path, media type) aside."""
    given = set(WORD.findall(request if isinstance(request, str) else json.dumps(request)))
    return [w for w in WORD.findall(QUOTED.sub("", text)) if w not in ALLOWED and w not in given]


def _check(en_answer: dict, zh_answer: dict, what: str, request: typing.Any = "") -> int:
    en, zh = _messages(en_answer), _messages(zh_answer)
    assert len(en) == len(zh), what
    for z in zh:
        assert CJK.search(z), (what, z)
        assert not english_words(z, request), (what, z, english_words(z, request))
    return len(zh)


def test_the_word_check_can_fail():
    assert english_words("缺少必填字段。") == []
    # ("for" is an API name now, the referee's field: the API's names are no English prose)
    assert english_words("Missing data with required field.") == ["Missing", "data", "with", "required", "field"]
    assert english_words("hand.concealed：牌 'zzz' 不存在：是不是 '1m'？（seat_wind 必须是 E）") == []
    assert english_words("zzz_unknown: 未知字段。") == ["zzz_unknown"]
    assert english_words("zzz_unknown: 未知字段。", {"zzz_unknown": 1}) == []


@pytest.mark.parametrize("route", sorted(STARTS))
def test_every_field_error_in_both_languages(client, route):
    schema, start = ROUTES[route], STARTS[route]
    assert client.post(route, json=start).status_code == 200, "the walk starts from a valid body"
    refused = messages = 0
    for what, path, value in _mutations(schema, start, ()):
        body = _apply(start, path, value)
        label = f"{route} {'.'.join(map(str, path))}: {what}"
        en = client.post(route, json=body)
        zh = client.post(route, json=body, headers=ZH)
        assert en.status_code == zh.status_code < 500, label
        if en.status_code >= 400 or "results" in en.get_json():
            refused += 1
            messages += _check(en.get_json(), zh.get_json(), label, body)
    assert refused >= (10 if route == "/v1/table/escape" else 30) and messages >= refused


# what marshmallow says by default, had a field no Chinese of its own (the fields of
# ningbo_score.readers.fields carry theirs: test_every_field_error_in_both_languages)
@pytest.mark.parametrize("hand", [
    {"melds": [{"type": "pung"}]},                                  # hand.concealed, winning_tile, melds.0.tiles
    {"concealed": None, "winning_tile": None, "melds": [{"type": "pung", "tiles": None}]},
])
def test_the_issue_s_fields_in_chinese(client, hand):
    body = {**examples.API_MD, "hand": hand}
    zh = client.score(body, headers=ZH).get_json()
    assert set(zh["errors"]) == {"hand.concealed", "hand.winning_tile", "hand.melds.0.tiles"}
    for texts in zh["errors"].values():
        assert texts in (["缺少必填字段。"], ["该字段不能为 null。"])


BAD_JSON = [b"", b"  ", b"{", b'{"a" 1}', b"{1:2}", b"[1,]", b"tru", b"nul", b"fals", b"01", b"1.", b"-", b"1e",
            b'"\\x"', b'"\\ud800"', b'"\\udc00"', b'"a\x01"', b"\xff", b"{}x", b"[1 2]", b'{"a":1 "b":2}', b"NaN",
            b"1e999", b"[" * 2000, b"\xef\xbb\xbf{}", b'"\xed\xa0\x80"']


@pytest.mark.parametrize("data", BAD_JSON)
def test_malformed_json_gives_its_reason_in_chinese(client, data):
    en = client.post("/v1/score", data=data, content_type="application/json").get_json()
    zh = client.post("/v1/score", data=data, content_type="application/json", headers=ZH).get_json()
    assert en["code"] == zh["code"] == "malformed_json"
    _check(en, zh, repr(data))
    if data.strip():
        # line and column, then the reason: "…（第 1 行第 2 列）：数据意外结束。"
        assert re.search(r"第 \d+ 行第 \d+ 列）：.+。$", zh["detail"]), zh["detail"]
        assert "语法错误" not in zh["detail"], "a reason of orjson's not in the table"


def test_the_service_s_other_refusals_in_both_languages(client):
    cases = [
        ("POST", "/v1/score", {"data": b"{}", "content_type": "text/plain"}),
        ("POST", "/v1/score", {"data": b"x" * (2 * 1024 * 1024), "content_type": "application/json"}),
        ("GET", "/v1/nothing-here", {}),
        ("DELETE", "/v1/score", {}),
        ("GET", "/v1/rules/zzz", {}),
    ]
    for method, path, kwargs in cases:
        en = client.open(method, path, **kwargs)
        zh = client.open(method, path, headers=ZH, **kwargs)
        assert en.status_code == zh.status_code >= 400, (method, path)
        _check(en.get_json(), zh.get_json(), f"{method} {path}", f"{path} {kwargs.get('content_type')}")


@pytest.mark.parametrize("header", ["zh_CN", "zh_TW,en;q=0.5", "zh-CN"])
def test_a_locale_spelled_with_an_underscore_is_chinese(client, header):
    assert bodies.language_of(header) == "zh"
    answer = client.score({}, headers={"Accept-Language": header}).get_json()
    assert answer["title"] == "请求无效" and answer["errors"]["hand"] == ["缺少必填字段。"]


def test_werkzeug_s_other_client_errors_in_chinese():
    from werkzeug.exceptions import default_exceptions

    with app_module.app.test_request_context("/v1/score", headers=ZH):
        for status, exc in default_exceptions.items():
            if 400 <= status < 500:
                err, _ = problems.http_problem(exc())
                problem = err.to_problem("zh")
                words = english_words(problem["detail"], "/v1/score")
                assert CJK.search(problem["detail"]) and not words, (status, problem)


def test_every_refused_golden_request_in_both_languages(app):
    """The golden cases (tools/make_golden.py: seeded requests over every route, 400s, 415s and
    the rule book's 422s among them) that are refused, asked again in each language."""
    import gzip

    from tools.make_golden import GOLDEN, run

    plain = app.test_client()                        # (answers checked against the spec elsewhere)
    cases = [json.loads(line) for line in gzip.open(GOLDEN, "rt", encoding="utf-8") if line.strip()]
    refused = [c for c in cases if c["status"] >= 400 or c["path"] == "/v1/score/batch"]
    statuses = set()
    for case in refused:
        en_status, en = run({**case, "headers": {"Accept-Language": "en"}}, plain)
        zh_status, zh = run({**case, "headers": ZH}, plain)
        assert en_status == zh_status, case
        statuses.add(en_status)
        given = [case["path"], case.get("json"), case.get("raw"), case.get("content_type")]
        _check(en, zh, json.dumps(case)[:300], given)
    assert {400, 415, 422} <= statuses and len(refused) > 1500


def test_a_choice_of_null_is_written_as_json():
    """caishen_discard_restriction may be null: the message says `null`, as the client writes it,
    not Python's None."""
    body = {**examples.API_MD, "rules": {"caishen_discard_restriction": "x"}}
    with pytest.raises(ningbo_score.ScoreError) as err:
        ningbo_score.score(body)
    path = "rules.caishen_discard_restriction"
    assert err.value.errors()[path] == ["Must be one of: single_wait, any_group, null."]
    assert err.value.errors("zh")[path] == ["必须是以下之一：single_wait, any_group, null。"]
