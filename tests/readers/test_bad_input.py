"""Bad input through the app (Flask test client of ``app.create_app()``): every answer is the
status and ``code`` docs/api.md / docs/rules.md give it, as ``application/problem+json`` (RFC 9457: type,
title, status, detail, code), and never a 5xx.

Expected answers, from docs/api.md's error table unless noted:
- not JSON (truncated, empty, invalid UTF-8, nested past what a parser takes): 400 malformed_json
- wrong types, unknown fields, unknown tile codes (unicode junk included): 400 invalid_request,
  with the field's path in ``errors``
- a tile count that is not 14 − 3 × melds, and more than 4 melds (docs/rules.md §10.12): 422
  wrong_tile_count; a fifth copy of a tile: 422 too_many_copies
- a body over 64 KiB: 413 payload_too_large; not ``application/json`` (UTF-8): 415
  unsupported_media_type
"""
from __future__ import annotations

import copy
import json
import time

import pytest

from service import create_app
from tools import examples

LIMIT = 64 * 1024

# docs/api.md's worked example (200; 4 台).
VALID = copy.deepcopy(examples.API_MD)
# A discard win with every optional win flag and option present, so each can be given a wrong
# type: South wins on West's 4m, 234m 678m 345p 567s 99s, nothing else (valid; min_tai 0).
VALID_FULL = {
    "rules": {"preset": "ningbo", "min_tai": 0, "discard_wins": True, "item_tai": {"no_caishen": 1}},
    "seat_wind": "S",
    "round_wind": "E",
    "caishen": {"kinds": ["9p"]},
    "hand": {"concealed": ["2m", "3m", "4m", "6m", "7m", "8m", "3p", "4p", "5p", "5s", "6s", "7s", "9s", "9s"],
             "winning_tile": "4m", "melds": [], "flowers": []},
    "win": {"by": "discard", "from": "W", "kong_replacement": False, "last_tile": False, "heavenly": False,
            "earthly": False, "discarded_caishen": False},
    "claims_from_winner": {"E": 0, "W": 0, "N": 0},
    "base_points": 1,
}


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


def post(client, body, content_type: str | None = "application/json", path: str = "/v1/score"):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    kwargs = {"data": data}
    if content_type is not None:
        kwargs["content_type"] = content_type
    return client.post(path, **kwargs)


def assert_problem(response, status: int, code: str | set[str], path: str | None = None) -> dict:
    assert response.status_code < 500, response.get_data(as_text=True)[:500]
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:500])
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    codes = {code} if isinstance(code, str) else code
    assert body["code"] in codes, body
    assert body["status"] == status
    assert body["type"] == f"urn:ningbo-score:problem:{body['code']}"
    assert isinstance(body["title"], str) and isinstance(body["detail"], str) and body["detail"]
    if path is not None:
        keys = list(body.get("errors", {}))
        assert any(k == path or k.startswith(path + ".") for k in keys), (path, keys)
    return body


def test_the_valid_requests_are_valid(client):
    assert post(client, VALID).status_code == 200
    assert post(client, VALID_FULL).status_code == 200


# --- not JSON ------------------------------------------------------------------------------------

def test_truncated_json(client):
    text = json.dumps(VALID)
    # every proper prefix of a JSON object is invalid JSON
    for cut in list(range(0, len(text), 7)) + [len(text) - 1]:
        assert_problem(post(client, text[:cut]), 400, "malformed_json")


@pytest.mark.parametrize("body", [b"", b"   ", b"{", b"}", b"nul", b"{'a': 1}", b'{"a": 1,}', b'{"a" 1}',
                                  b"NaN", b'{"base_points": Infinity}', b"\xff\xfe{}", b'{"seat_wind": "\xff"}',
                                  b"\x00", b'{"a": 1} {"b": 2}', b"[1, 2", b'"unterminated'])
def test_not_json(client, body):
    assert_problem(post(client, body), 400, "malformed_json")


def test_json_that_is_not_an_object(client):
    for body in ("[]", "1", "null", '"text"', "true", "[{}]"):
        assert_problem(post(client, body), 400, "invalid_request")


# --- huge and deep -------------------------------------------------------------------------------

def test_ten_thousand_tiles_under_the_limit_is_a_tile_count_error(client):
    req = copy.deepcopy(VALID)
    req["hand"]["concealed"] = ["1m"] * 10_000
    req["hand"]["melds"] = []
    body = json.dumps(req)
    assert len(body) < LIMIT  # 10,000 × 6 bytes: still under 64 KiB, so it reaches the checks
    started = time.perf_counter()
    # 10,000 concealed tiles where a hand without melds holds 14: wrong_tile_count (docs/api.md)
    assert_problem(post(client, body), 422, "wrong_tile_count", "hand.concealed")
    assert time.perf_counter() - started < 2.0


def test_twenty_thousand_tiles_over_the_limit(client):
    req = copy.deepcopy(VALID)
    req["hand"]["concealed"] = ["1m"] * 20_000
    body = json.dumps(req)
    assert len(body) > LIMIT
    assert_problem(post(client, body), 413, "payload_too_large")


def test_huge_compact_string(client):
    req = copy.deepcopy(VALID)
    req["hand"]["melds"] = []
    req["hand"]["concealed"] = "1m" * 30_000  # 60,000 characters, 30,000 tiles
    started = time.perf_counter()
    assert_problem(post(client, req), 422, "wrong_tile_count", "hand.concealed")
    req["hand"]["concealed"] = "1" * 60_000 + "m"  # 60,000 digits before one suit letter
    assert_problem(post(client, req), 422, "wrong_tile_count", "hand.concealed")
    assert time.perf_counter() - started < 2.0


def test_deep_nesting_is_refused_not_a_crash(client):
    # 10,000 nested arrays (20 KB): past any JSON parser's depth → malformed_json, not a 500
    assert_problem(post(client, "[" * 10_000 + "]" * 10_000), 400, "malformed_json")
    obj = '{"a":' * 5_000 + "1" + "}" * 5_000
    assert_problem(post(client, obj), 400, "malformed_json")
    inside = json.dumps(VALID).replace('"flowers": ["2f"]', '"flowers": ' + "[" * 10_000 + "]" * 10_000)
    assert_problem(post(client, inside), 400, "malformed_json")


def test_moderate_nesting_in_a_field_is_a_wrong_type(client):
    # 500 levels parse; an array of arrays where tiles belong is a wrong type → invalid_request
    req = json.dumps(VALID).replace('"flowers": ["2f"]', '"flowers": ' + "[" * 500 + "]" * 500)
    assert_problem(post(client, req), 400, "invalid_request", "hand.flowers")
    req = json.dumps(VALID)[:-1] + ', "extra": ' + '{"a":' * 500 + "1" + "}" * 500 + "}"
    assert_problem(post(client, req), 400, "invalid_request", "extra")


def test_twenty_melds(client):
    # docs/rules.md §10.12: more than 4 melds is wrong_tile_count (422).  Twenty pungs, each a valid
    # meld on its own (three alike, claimed from E by S), 1m…9m, 1p…9p, 1s, 2s.
    kinds = [f"{r}{s}" for s in "mps" for r in range(1, 10)][:20]
    req = copy.deepcopy(VALID)
    req["hand"]["melds"] = [{"type": "pung", "tiles": [k] * 3, "from": "E"} for k in kinds]
    req["caishen"] = None                      # no pung may hold a caishen (5p is one in VALID)
    req["hand"]["concealed"] = ["3s", "3s"]
    req["hand"]["winning_tile"] = "3s"
    assert_problem(post(client, req), 422, "wrong_tile_count", "hand.melds")


def test_five_copies(client):
    # 11111m 234p 567s 999s: 14 tiles (the count is right), five 1m: too_many_copies (422)
    req = copy.deepcopy(VALID)
    req["hand"] = {"concealed": "11111m 234p 567s 999s", "winning_tile": "1m"}
    req["caishen"] = None
    assert_problem(post(client, req), 422, "too_many_copies", "hand.concealed")
    # and across the concealed tiles and a meld: 1m 1m in hand + a kong of 1m = six
    req["hand"] = {"concealed": "11m 234p 567s 999s", "winning_tile": "1m",
                   "melds": [{"type": "kong", "tiles": "1111m", "concealed": True}]}
    assert_problem(post(client, req), 422, "too_many_copies")


@pytest.mark.parametrize("value", [-1, 0, -(2 ** 70)])
def test_base_points_not_positive(client, value):
    req = copy.deepcopy(VALID)
    req["base_points"] = value
    assert_problem(post(client, req), 400, "invalid_request", "base_points")


# --- wrong types at every field ------------------------------------------------------------------

WRONG_TYPES: list[tuple[str, list]] = [
    # (dotted path in VALID_FULL, values of a wrong JSON type for it)
    ("rules", [1, True, [], 1.5]),
    ("rules.preset", [1, True, [], {}]),
    ("rules.min_tai", ["4", 4.5, 4.000001, True, [], {}]),   # (4.0 is the count 4, rule book 2)
    ("rules.discard_wins", [1, 0, "true", [], {}]),
    ("rules.item_tai", [[], "no_caishen", 1, True]),
    ("rules.item_tai.no_caishen", ["1", 1.5, True, [], {}]),
    ("seat_wind", [1, True, [], {}, None]),
    ("round_wind", [1, True, [], {}, None]),
    ("caishen", [1, True, [], "9p"]),
    ("caishen.kinds", [1, True, {}, [1], [None]]),
    ("hand", [[], "2m", 1, True, None]),
    ("hand.concealed", [1, True, {}, [1, 2], [None], [["2m"]], None]),
    ("hand.winning_tile", [1, True, [], {}, None]),
    ("hand.melds", ["pung", 1, True, {}]),
    ("hand.flowers", [1, True, {}, [2]]),
    ("win", ["self_draw", 1, [], True, None]),
    ("win.by", [1, True, [], {}, None]),
    ("win.from", [1, True, [], {}]),
    ("win.kong_replacement", [1, 0, "false", [], {}]),
    ("win.last_tile", [1, "no", []]),
    ("win.heavenly", [0, "false", {}]),
    ("win.earthly", [1, 1.0, []]),
    ("win.discarded_caishen", [0, "true", []]),
    ("claims_from_winner", [[], 1, "W", True]),
    ("claims_from_winner.W", ["1", 1.5, 2.25, True, [], {}]),
    ("base_points", ["1", 1.5, 2.25, True, [], {}]),
]
MELD_WRONG_TYPES: list[tuple[str, list]] = [
    ("hand.melds.0", ["pung", 1, [], True]),
    ("hand.melds.0.type", [1, True, [], {}]),
    ("hand.melds.0.tiles", [1, True, {}, [1, 1, 1]]),
    ("hand.melds.0.from", [1, True, [], {}]),
    ("hand.melds.1.concealed", [1, "true", [], {}]),
    ("hand.melds.0.added", [1, "false", []]),
]


def set_path(obj: dict, dotted: str, value) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    if isinstance(obj, list):
        obj[int(last)] = value
    else:
        obj[last] = value


def wrong_type_cases():
    for path, values in WRONG_TYPES:
        for value in values:
            yield pytest.param(VALID_FULL, path, value, id=f"{path}={json.dumps(value)}")
    for path, values in MELD_WRONG_TYPES:
        for value in values:
            yield pytest.param(VALID, path, value, id=f"{path}={json.dumps(value)}")


@pytest.mark.parametrize("base,path,value", list(wrong_type_cases()))
def test_wrong_type_at_every_field(client, base, path, value):
    req = copy.deepcopy(base)
    set_path(req, path, value)
    # null in a required field is absent, hence refused; null in an optional field is absent,
    # hence fine (docs/api.md) — only required ones are listed with None above
    assert_problem(post(client, req), 400, "invalid_request", path)


# --- unicode junk in tile codes ------------------------------------------------------------------

JUNK_TILES = ["🀄", "🀇", "😀", "1\u200bm", "\u200b1m", "1m\u200b", "\u200d", "\ufeff1m", "１m", "1ｍ", "1m\u0301",
              "\u202e1m", "1m\x00", "\x00", "ⅰm", "一萬\u200b", "1M", "e", " ", "", "1m 2m", "m1", "0m", "10m", "9f"]


@pytest.mark.parametrize("junk", JUNK_TILES, ids=[repr(j) for j in JUNK_TILES])
def test_unicode_junk_in_tile_codes(client, junk):
    for path in ("hand.concealed.0", "hand.winning_tile", "caishen.indicator", "hand.melds.0.tiles.1",
                 "hand.flowers.0"):
        req = copy.deepcopy(VALID)
        set_path(req, path, junk)
        assert_problem(post(client, req), 400, "invalid_request", path.rsplit(".", 1)[0]
                       if path.endswith((".0", ".1")) else path)


@pytest.mark.parametrize("junk", ["234m\u200b 678m 99s", "234m 678m 99s 🀄", "２３４m 678m 99s", "234m\x00678m 99s",
                                  "234m 678m 99s\u202e", "234x 678m 99s"])
def test_unicode_junk_in_compact_strings(client, junk):
    req = copy.deepcopy(VALID)
    req["hand"]["concealed"] = junk
    assert_problem(post(client, req), 400, "invalid_request", "hand.concealed")


def test_lone_surrogates_are_not_valid_json_text(client):
    # "\ud800" escapes a lone surrogate: no Unicode character; refused as a 400 either by the
    # JSON parser (malformed_json) or as an unknown tile (invalid_request)
    body = json.dumps(VALID).replace('"4m"', '"\\ud800"', 1)
    assert_problem(post(client, body), 400, {"malformed_json", "invalid_request"})


# --- body size and content type ------------------------------------------------------------------

def padded(size: int) -> bytes:
    """VALID as JSON, padded with spaces (insignificant whitespace) to exactly ``size`` bytes."""
    text = json.dumps(VALID).encode()
    return text[:-1] + b" " * (size - len(text)) + b"}"


def test_body_at_the_limit_is_accepted_and_one_byte_more_is_413(client):
    assert len(padded(LIMIT)) == LIMIT
    assert post(client, padded(LIMIT)).status_code == 200
    assert_problem(post(client, padded(LIMIT + 1)), 413, "payload_too_large")
    assert_problem(post(client, padded(4 * LIMIT)), 413, "payload_too_large")


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data",
                                          "application/xml", "text/json", "application/jsonx",
                                          "application/json; charset=latin-1", "application/json; charset=utf-16",
                                          "image/png", "*/*"])
def test_wrong_content_types(client, content_type):
    assert_problem(post(client, json.dumps(VALID), content_type=content_type), 415, "unsupported_media_type")


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8",
                                          "application/json; charset=UTF-8", "Application/JSON"])
def test_json_content_types_are_accepted(client, content_type):
    assert post(client, json.dumps(VALID), content_type=content_type).status_code == 200


def test_wrong_method_and_path(client):
    assert_problem(client.get("/v1/score"), 405, "method_not_allowed")
    assert_problem(client.put("/v1/score", json=VALID), 405, "method_not_allowed")
    assert_problem(client.post("/v1/scores", json=VALID), 404, "not_found")
    assert_problem(client.get("/v1/rules/no-such-preset"), 404, "not_found")
