"""The live-table endpoints (issue 4) and the calculator page route (issue 6) over HTTP, with
Flask's test client: POST /v1/waits, POST /v1/score/batch, POST /v1/table/next,
POST /v1/table/claims, GET /v1/levels, POST /v1/table/escape and GET /.

Every response goes through ``client`` (conftest.py), which validates it against openapi.yaml.
Expected values are worked out by hand from docs/rules.md (and the level table of the seed
000, 456游戏); the arithmetic is in the comments.

Reminders: 上家 of E is N, of S is E, of W is S, of N is W (docs/rules.md §1); a waits request's
discard values assume the winner's 上家 discarded unless ``win.from`` says otherwise; linear
points P = base × (1 + 台) (§6); self-draw: each other player pays P, discard: the discarder
pays 2 × P (§7, nobody related here); a hand below the minimum 台 pays nothing.
"""
from __future__ import annotations

import copy
import io
import json
import re

import pytest
from werkzeug.test import EnvironBuilder

from service import pages
import ningbo_score
from tools import examples

from helpers import has_chinese, items_by_id, paid
from test_api import assert_problem, readme_examples

KINDS = tuple(f"{r}{s}" for s in "mps" for r in range(1, 10)) + ("E", "S", "W", "N", "C", "F", "P")


def wait_of(body: dict, tile: str) -> dict:
    found = [w for w in body["waits"] if tile in w.get("same_for", [w["tile"]])]
    assert len(found) == 1, (tile, body["tiles"])
    return found[0]


def check_score(result: dict, *, tai: int, items: dict[str, int], points: int, payers: dict[str, int],
                eligible: bool = True, wait: str | None = None) -> None:
    assert "code" not in result, result
    assert items_by_id(result) == items
    assert (result["tai"], result["eligible"], result["points"]) == (tai, eligible, points)
    assert paid(result) == payers
    assert sum(result["net"].values()) == 0
    if wait:
        assert result["decomposition"]["wait"] == wait


# ===============================================================================================
# POST /v1/waits

def test_waits_three_sided(client):
    # S, round E, no caishen, flower 2f (S's).  23456m 789p 234s 55s: the run 2-3-4-5-6m takes
    # 1m (123 456), 4m (234 456) or 7m (234 567); 789p, 234s and the pair 55s are fixed.
    # Each is an outer end of a chow (1 of 1-2-3, 4 of 2-3-4 or 4-5-6, 7 of 5-6-7): two-sided;
    # four chows, pair 5s is no wind → 平胡 1; no caishen → 硬胡 1; 2f → 正花 1.
    #   discard (from E, S's 上家): 1 + 1 + 1 = 3 台 < 4 → not eligible, 0 points
    #   self-draw: 3 + 自摸 1 = 4 台 → P = 1 × (1 + 4) = 5 from each of E, W, N
    # unseen: 1m 4, 4m 4 − 1 (in hand) = 3, 7m 4 → 11.
    response = client.post("/v1/waits", json=examples.WAITS_THREE_SIDED)
    assert response.status_code == 200 and response.mimetype == "application/json"
    body = response.get_json()
    assert (body["any_tile"], body["tiles"], body["unseen_total"], body["discard_from"]) == (
        False, ["1m", "4m", "7m"], 11, "E")
    assert [(w["tile"], w["unseen"]) for w in body["waits"]] == [("1m", 4), ("4m", 3), ("7m", 4)]
    base = {"ping_hu": 1, "no_caishen": 1, "seat_flower": 1}
    for w in body["waits"]:
        assert "same_for" not in w and "unseen_total" not in w
        check_score(w["discard"], tai=3, items=base, points=0, payers={}, eligible=False, wait="two_sided")
        check_score(w["self_draw"], tai=4, items={**base, "self_draw": 1}, points=5,
                    payers={"E": 5, "W": 5, "N": 5}, wait="two_sided")
        assert w["self_draw"]["net"] == {"E": -5, "S": 15, "W": -5, "N": -5}
        assert w["self_draw"]["decomposition"]["winning_tile"] == w["tile"]
        assert w["discard"]["net"] == {"E": 0, "S": 0, "W": 0, "N": 0}


def test_waits_each_value_is_what_score_answers(client):
    # the waits' values are /v1/score's answers for the completed hand, with their outcome
    body = client.post("/v1/waits", json=examples.WAITS_THREE_SIDED).get_json()
    for w in body["waits"]:
        request = copy.deepcopy(examples.WAITS_THREE_SIDED)
        request["hand"]["concealed"] += " " + w["tile"]
        request["hand"]["winning_tile"] = w["tile"]
        request["win"] = {"by": "self_draw"}
        assert {**client.score(request).get_json(), "outcome": "scored"} == w["self_draw"]
        request["win"] = {"by": "discard", "from": "E"}
        answer = client.score(request)
        assert {**answer.get_json(), "outcome": "scored" if answer.status_code == 200 else "refused"} == w["discard"]


def test_waits_discarder_from_win_from(client):
    # the same hand, the discard assumed from W: still 3 台 by discard (not eligible), and the
    # self-draw values don't depend on it
    request = {**examples.WAITS_THREE_SIDED, "win": {"from": "W"}}
    body = client.post("/v1/waits", json=request).get_json()
    assert body["discard_from"] == "W" and body["tiles"] == ["1m", "4m", "7m"]
    assert all(w["discard"]["eligible"] is False for w in body["waits"])


def test_waits_closed_single_tile(client):
    # E (dealer), round E: 13m 567m 789m EEE SS.  Only 2m completes: 123 567 789 EEE + SS (1m or
    # 3m leave the other stranded, SS can't become a pung without breaking the rest).
    # 2m in the middle of 1-2-3 → 夹 1; m + honors → 混一色 2; EEE is the seat wind (E) → 1
    # and the round wind (E) → 1; no caishen → 硬胡 1.  6 台 by discard: P = 1 + 6 = 7, the
    # discarder N (E's 上家) pays 2 × 7 = 14.  Self-draw 7 台: P = 8, S, W, N pay 8 each.
    body = client.post("/v1/waits", json=examples.WAITS_CLOSED).get_json()
    assert (body["tiles"], body["unseen_total"], body["discard_from"], body["any_tile"]) == (["2m"], 4, "N", False)
    w = wait_of(body, "2m")
    assert w["unseen"] == 4
    items = {"closed_wait": 1, "half_flush": 2, "seat_wind_pung": 1, "round_wind_pung": 1, "no_caishen": 1}
    check_score(w["discard"], tai=6, items=items, points=7, payers={"N": 14}, wait="closed")
    assert w["discard"]["net"] == {"E": 14, "S": 0, "W": 0, "N": -14}
    check_score(w["self_draw"], tai=7, items={**items, "self_draw": 1}, points=8,
                payers={"S": 8, "W": 8, "N": 8}, wait="closed")
    assert w["self_draw"]["net"] == {"E": 24, "S": -8, "W": -8, "N": -8}


def test_waits_dual_pung(client):
    # N, round E: 234m 567p 789s WW CC.  A W or a C makes a pung of it with the other pair as
    # the pair (对倒 1); nothing else fits.  No caishen → 硬胡 1.
    #   W: 对倒 1 + 硬胡 1 = 2 台 (W is neither N's seat wind nor the round wind E)
    #   C: 对倒 1 + 中 pung 1 + 硬胡 1 = 3 台
    # Both below 4 by discard; by self-draw W 3 台 (not eligible), C 4 台: P = 5 from E, S, W.
    # unseen: W 2, C 2.
    request = {"seat_wind": "N", "round_wind": "E", "hand": {"concealed": "234m 567p 789s WW CC"}}
    body = client.post("/v1/waits", json=request).get_json()
    assert body["tiles"] == ["W", "C"] and body["unseen_total"] == 4 and body["discard_from"] == "W"
    w, c = wait_of(body, "W"), wait_of(body, "C")
    check_score(w["discard"], tai=2, items={"dual_pung_wait": 1, "no_caishen": 1}, points=0, payers={},
                eligible=False, wait="dual_pung")
    check_score(w["self_draw"], tai=3, items={"dual_pung_wait": 1, "no_caishen": 1, "self_draw": 1}, points=0,
                payers={}, eligible=False, wait="dual_pung")
    check_score(c["discard"], tai=3, items={"dual_pung_wait": 1, "dragon_pung": 1, "no_caishen": 1}, points=0,
                payers={}, eligible=False, wait="dual_pung")
    check_score(c["self_draw"], tai=4, items={"dual_pung_wait": 1, "dragon_pung": 1, "no_caishen": 1,
                                              "self_draw": 1},
                points=5, payers={"E": 5, "S": 5, "W": 5}, wait="dual_pung")


def test_waits_edge(client):
    # W, round E, meld chow 345p from S (W's 上家); concealed 89m 111s 678s NN + 3f (W's flower).
    # 89m takes only 7m (789m): the 7 of 7-8-9 → 边 1; 硬胡 1; 正花 3f 1.
    #   discard 3 台: not eligible; self-draw 4 台: P = 5 from E, S, N.
    # unseen 7m: 4.
    request = {"seat_wind": "W", "round_wind": "E",
               "hand": {"concealed": "89m 111s 678s NN", "flowers": ["3f"],
                        "melds": [{"type": "chow", "tiles": "345p", "from": "S"}]}}
    body = client.post("/v1/waits", json=request).get_json()
    assert body["tiles"] == ["7m"] and body["discard_from"] == "S"
    w = wait_of(body, "7m")
    assert w["unseen"] == 4
    items = {"edge_wait": 1, "no_caishen": 1, "seat_flower": 1}
    check_score(w["discard"], tai=3, items=items, points=0, payers={}, eligible=False, wait="edge")
    check_score(w["self_draw"], tai=4, items={**items, "self_draw": 1}, points=5,
                payers={"E": 5, "S": 5, "N": 5}, wait="edge")


def test_waits_any_tile_caishen_single_wait_only_self_draw(client):
    # S, round E, indicator 5p → caishen 5p.  Melds: chow 123m and 456m from E (S's 上家), pung
    # 999m from W, pung 777m from N; concealed: one 5p.  Any tile X makes the pair X + caishen.
    # By discard that pair is a caishen single wait: ningbo's single_wait restriction refuses
    # it (caishen_needs_self_draw; for X = 5p a discarded caishen can't be claimed at all).
    # By self-draw (a caishen held: no 硬胡; 单吊 1 + 大吊 1 (4 melds) + 自摸 1):
    #   X = 1m…9m or 5p (two caishen: the pair takes an m face): + 清一色 4 = 7 台, P = 8
    #   X = an honor: + 混一色 2 = 5 台, P = 6 (an honor pair scores nothing)
    #   X = the other 17 p/s kinds: 3 台 < 4 → not eligible
    # Only 2 chows were claimed from E (< 3): nobody is related; E, W, N each pay P.
    # unseen: 1m–6m 3 each (one in a chow), 7m 1, 8m 4, 9m 1, 5p 4 − 1 (indicator) − 1 = 2
    #   → 18 + 1 + 4 + 1 + 2 = 26; honors 7 × 4 = 28; the other 17 kinds 68; total 122.
    response = client.post("/v1/waits", json=examples.WAITS_ANY_TILE)
    body = response.get_json()
    assert body["any_tile"] is True
    assert body["tiles"] == list(KINDS) and body["unseen_total"] == 122 and body["discard_from"] == "E"
    m_group = {f"{r}m" for r in range(1, 10)} | {"5p"}
    honors = {"E", "S", "W", "N", "C", "F", "P"}
    others = set(KINDS) - m_group - honors
    groups = {frozenset(w["same_for"]): w for w in body["waits"]}
    assert set(groups) == {frozenset(m_group), frozenset(honors), frozenset(others)}
    gm, gh, go = groups[frozenset(m_group)], groups[frozenset(honors)], groups[frozenset(others)]
    assert (gm["unseen_total"], gh["unseen_total"], go["unseen_total"]) == (26, 28, 68)
    for group in (gm, gh, go):
        assert group["tile"] == group["same_for"][0]
        problem = group["discard"]
        assert (problem["code"], problem["status"]) == ("caishen_needs_self_draw", 422)
        assert problem["type"] == "urn:ningbo-score:problem:caishen_needs_self_draw"
    waits = {"single_wait": 1, "big_single_wait": 1, "self_draw": 1}
    check_score(gm["self_draw"], tai=7, items={**waits, "full_flush": 4}, points=8,
                payers={"E": 8, "W": 8, "N": 8}, wait="single")
    check_score(gh["self_draw"], tai=5, items={**waits, "half_flush": 2}, points=6,
                payers={"E": 6, "W": 6, "N": 6}, wait="single")
    check_score(go["self_draw"], tai=3, items=waits, points=0, payers={}, eligible=False, wait="single")


def test_waits_problems_follow_accept_language(client):
    en = client.post("/v1/waits", json=examples.WAITS_ANY_TILE).get_json()
    zh = client.post("/v1/waits", json=examples.WAITS_ANY_TILE, headers={"Accept-Language": "zh-CN"}).get_json()
    assert not has_chinese(en["waits"][0]["discard"]["title"])
    assert zh["waits"][0]["discard"]["title"] == "财神只能自摸"
    assert has_chinese(zh["waits"][0]["discard"]["detail"])


def test_seven_caishen_any_tile_no_discard_wins(client):
    # ningbo-7baida, E, round E, indicator 5m → caishen 5m (3 left) and 6m (all 4): 555m 6666m
    # holds all 7, with CCC FFF.  5m and 6m have no copy left to draw (4 − 1 − 3, 4 − 4): not
    # listed; the other 32 kinds all complete (7 caishen make anything).  7百搭 has no discard
    # wins: every discard value is discard_win_not_allowed.  unseen: C 4 − 3 = 1, F 1, the other
    # 30 kinds 4 each → 122.
    request = {"rules": "ningbo-7baida", "seat_wind": "E", "round_wind": "E", "caishen": {"indicator": "5m"},
               "hand": {"concealed": "555m 6666m CCC FFF"}}
    body = client.post("/v1/waits", json=request).get_json()
    assert body["any_tile"] is True
    assert body["tiles"] == [k for k in KINDS if k not in ("5m", "6m")]
    assert body["unseen_total"] == 1 + 1 + 30 * 4
    assert all(w["discard"]["code"] == "discard_win_not_allowed" for w in body["waits"])
    assert sorted(t for w in body["waits"] for t in w["same_for"]) == sorted(body["tiles"])


def test_waits_on_nothing(client):
    # 147m 147p 147s ESWN: no tile makes 4 sets and a pair → 200, nothing listed
    response = client.post("/v1/waits", json=examples.WAITS_NOTHING)
    assert response.status_code == 200
    assert response.get_json() == {"any_tile": False, "tiles": [], "unseen_total": 0, "discard_from": "E",
                                    "waits": []}


@pytest.mark.parametrize("mutate,paths", [
    (lambda r: r["hand"].update(winning_tile="2m"), ["hand.winning_tile"]),     # no winning tile yet
    (lambda r: r.update(win={"by": "self_draw"}), ["win.by"]),                  # no win.by either
    (lambda r: r.update(seat_wind="X"), ["seat_wind"]),
    (lambda r: r["hand"].update(concealed="13m 567m 789m EEE SX"), ["hand.concealed"]),  # a compact string
    (lambda r: r.update(base_points=1.5), ["base_points"]),                     # (1.0 is the count 1)
    (lambda r: r.pop("hand"), ["hand"]),
])
def test_waits_bad_requests_are_400(client, mutate, paths):
    request = copy.deepcopy(examples.WAITS_CLOSED)
    mutate(request)
    assert_problem(client.post("/v1/waits", json=request), 400, "invalid_request", paths)


@pytest.mark.parametrize("request_,code,paths", [
    # 14 tiles, no melds: the hand before its winning tile holds 14 − 1 − 3 × 0 = 13
    (examples.WAITS_FOURTEEN, "wrong_tile_count", ["hand.concealed"]),
    # five 1m: at most 4 exist
    ({"seat_wind": "S", "round_wind": "E", "hand": {"concealed": "11111m 234p 567p 99s"}},
     "too_many_copies", ["hand.concealed"]),
    # the discarder assumed can't be the player itself
    ({**examples.WAITS_CLOSED, "win": {"from": "E"}}, "inconsistent_win_context", ["win.from"]),
])
def test_waits_impossible_hands_are_422(client, request_, code, paths):
    assert_problem(client.post("/v1/waits", json=request_), 422, code, paths)


# ===============================================================================================
# POST /v1/score/batch

BAD_SEAT = {**examples.INELIGIBLE, "seat_wind": "X"}


def test_batch_worked_example_beside_bad_hands(client):
    # [docs/api.md's worked example, an unknown seat (400), 13 tiles without melds (422), the example
    # again]: one result per item, in order; the bad ones don't fail the batch.
    # The worked example: 排胡 0 + 自摸 1 + 硬胡 1 + 中 1 + 正花 1 = 4 台, P = 1 × (1 + 4) = 5 from
    # each of E, W, N → S +15.
    body = {"requests": [examples.API_MD, BAD_SEAT, examples.WRONG_TILE_COUNT, examples.API_MD]}
    response = client.post("/v1/score/batch", json=body)
    assert response.status_code == 200
    answer = response.get_json()
    assert (answer["ok"], answer["failed"]) == (2, 2)
    results = answer["results"]
    assert [(r["index"], r["status"]) for r in results] == [(0, 200), (1, 400), (2, 422), (3, 200)]
    first = results[0]["score"]
    assert (first["tai"], first["counted_tai"], first["eligible"], first["points"]) == (4, 4, True, 5)
    assert first["net"] == {"E": -5, "S": 15, "W": -5, "N": -5}
    assert results[3]["score"] == first
    assert "problem" not in results[0] and "score" not in results[1]
    bad_seat, wrong_count = results[1]["problem"], results[2]["problem"]
    assert (bad_seat["code"], bad_seat["status"], list(bad_seat["errors"])) == ("invalid_request", 400, ["seat_wind"])
    assert (wrong_count["code"], wrong_count["status"]) == ("wrong_tile_count", 422)
    assert list(wrong_count["errors"]) == ["hand.concealed"]
    # each score is exactly /v1/score's answer; each problem has /v1/score's code and status
    assert client.score(examples.API_MD).get_json() == first
    for i, item in ((1, BAD_SEAT), (2, examples.WRONG_TILE_COUNT)):
        alone = client.score(item)
        assert (alone.status_code, alone.get_json()["code"]) == (results[i]["status"], results[i]["problem"]["code"])


def test_batch_problems_in_chinese(client):
    body = {"requests": [examples.WRONG_TILE_COUNT, BAD_SEAT]}
    results = client.post("/v1/score/batch", json=body, headers={"Accept-Language": "zh"}).get_json()["results"]
    assert results[0]["problem"]["title"] == "牌数不对"
    for r in results:
        assert has_chinese(r["problem"]["title"]) and has_chinese(r["problem"]["detail"])
        assert all(has_chinese(m) for msgs in r["problem"]["errors"].values() for m in msgs)


def test_empty_batch(client):
    assert client.post("/v1/score/batch", json={"requests": []}).get_json() == {"ok": 0, "failed": 0, "results": []}


def test_two_hundred_hands_fit_the_batch_body_limit(client):
    # 200 × docs/api.md's example, pretty-printed as a person would send it: over 64 KiB (so the
    # batch route needs its own limit), under 1 MiB
    data = json.dumps({"requests": [examples.API_MD] * 200}, indent=2).encode()
    assert 64 * 1024 < len(data) < 1024 * 1024
    response = client.post("/v1/score/batch", data=data, content_type="application/json")
    assert response.status_code == 200
    answer = response.get_json()
    assert (answer["ok"], answer["failed"], len(answer["results"])) == (200, 0, 200)
    assert [r["index"] for r in answer["results"]] == list(range(200))
    assert all(r["score"]["points"] == 5 for r in answer["results"])
    # the same body is too large for /v1/score's 64 KiB (the raised limit is the batch's only)
    assert_problem(client.post("/v1/score", data=data, content_type="application/json"), 413, "payload_too_large")


def test_two_hundred_and_one_hands_is_a_400_schema_violation(client):
    # openapi.yaml: maxItems 200; refused like any schema violation (issue 14), before any item is read
    body = {"requests": [examples.API_MD] * 201}
    problem = assert_problem(client.post("/v1/score/batch", json=body), 400, "invalid_request", ["requests"])
    assert "200" in problem["detail"]
    zh = client.post("/v1/score/batch", json=body, headers={"Accept-Language": "zh"}).get_json()
    assert zh["code"] == "invalid_request" and zh["title"] == "请求无效" and has_chinese(zh["detail"])


def test_batch_body_over_1_mib_is_413(client):
    # 1 MiB of white space around a valid batch: over the route's limit, refused unread
    padding = b" " * (1024 * 1024)
    data = json.dumps({"requests": [examples.API_MD]}).encode() + padding
    problem = assert_problem(client.post("/v1/score/batch", data=data, content_type="application/json"),
                             413, "payload_too_large")
    assert str(1024 * 1024) in problem["detail"]
    # just under the limit is read
    data = json.dumps({"requests": [examples.API_MD]}).encode()
    data += b" " * (1024 * 1024 - len(data))
    assert client.post("/v1/score/batch", data=data, content_type="application/json").status_code == 200


@pytest.mark.parametrize("size,status", [(1024 * 1024 + 1, 413), (100 * 1024, 200)])
def test_batch_limit_holds_without_content_length(app, size, status):
    """A chunked body (no Content-Length) is cut at the batch limit too, not at 64 KiB."""
    body = json.dumps({"requests": [examples.API_MD]}).encode()
    data = body + b" " * (size - len(body))
    environ = EnvironBuilder(path="/v1/score/batch", method="POST", input_stream=io.BytesIO(data),
                             content_type="application/json").get_environ()
    del environ["CONTENT_LENGTH"]  # as a chunked body arrives: the server says the stream ends
    environ["wsgi.input_terminated"] = True
    response = app.test_client().open(environ)
    assert response.status_code == status
    if status == 413:
        assert response.get_json()["code"] == "payload_too_large"
    else:
        assert response.get_json()["results"][0]["score"]["points"] == 5


@pytest.mark.parametrize("body,paths", [
    ({}, ["requests"]),
    ({"requests": None}, ["requests"]),
    ({"requests": examples.API_MD}, ["requests"]),
    ({"requests": "x"}, ["requests"]),
    ({"requests": [examples.API_MD, 42, None]}, ["requests.1", "requests.2"]),   # items must be objects
    ({"requests": [], "lang": "zh"}, ["lang"]),
])
def test_batch_outer_shape_is_400(client, body, paths):
    assert_problem(client.post("/v1/score/batch", json=body), 400, "invalid_request", paths)


@pytest.mark.parametrize("body", [[], [examples.API_MD], "requests", None])
def test_batch_body_not_an_object_is_400(client, body):
    problem = assert_problem(client.post("/v1/score/batch", data=json.dumps(body), content_type="application/json"),
                             400, "invalid_request")
    assert "errors" not in problem


# ===============================================================================================
# POST /v1/table/next (docs/rules.md §8)

def next_hand(client, dealer, round_wind, count, result) -> dict:
    response = client.post("/v1/table/next", json={"dealer": dealer, "round_wind": round_wind,
                                                   "dealers_this_round": count, "result": result})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def winds(dealer: int) -> dict[str, str]:
    """Seat winds written out by hand for each dealer position (dealer E, then S, W, N)."""
    return {0: {"0": "E", "1": "S", "2": "W", "3": "N"}, 1: {"0": "N", "1": "E", "2": "S", "3": "W"},
            2: {"0": "W", "1": "N", "2": "E", "3": "S"}, 3: {"0": "S", "1": "W", "2": "N", "3": "E"}}[dealer]


def test_next_dealer_wins_keeps_the_deal(client):
    # 连庄: position 1 deals, wins → deals again; South round, second dealer of the round
    assert next_hand(client, 1, "S", 2, {"winner": 1}) == {
        "dealer": 1, "round_wind": "S", "dealers_this_round": 2, "seat_winds": winds(1),
        "dealer_changed": False, "round_changed": False}


def test_next_draw_keeps_the_deal(client):
    assert next_hand(client, 2, "W", 3, {"draw": True}) == {
        "dealer": 2, "round_wind": "W", "dealers_this_round": 3, "seat_winds": winds(2),
        "dealer_changed": False, "round_changed": False}


@pytest.mark.parametrize("winner", [1, 2, 3])
def test_next_another_winner_passes_the_deal_to_the_dealer_s_next(client, winner):
    # dealer 0, East round, first dealer; whoever else wins, position 1 (the dealer's next) deals
    assert next_hand(client, 0, "E", 1, {"winner": winner}) == {
        "dealer": 1, "round_wind": "E", "dealers_this_round": 2, "seat_winds": winds(1),
        "dealer_changed": True, "round_changed": False}


def test_next_round_wind_changes_after_the_fourth_dealer(client):
    # dealer 3 is the East round's 4th dealer (first dealer 3 − 4 + 1 = 0); 1 wins → the deal
    # returns to position 0 and the South round begins
    assert next_hand(client, 3, "E", 4, {"winner": 1}) == {
        "dealer": 0, "round_wind": "S", "dealers_this_round": 1, "seat_winds": winds(0),
        "dealer_changed": True, "round_changed": True}


@pytest.mark.parametrize("wind,after", [("E", "S"), ("S", "W"), ("W", "N"), ("N", "E")])
def test_next_round_wind_order(client, wind, after):
    # first dealer 2 (the 4th is 2 + 3 = 5 ≡ 1); 3 wins: deal back to 2, the round advances
    answer = next_hand(client, 1, wind, 4, {"winner": 3})
    assert (answer["dealer"], answer["round_wind"], answer["dealers_this_round"]) == (2, after, 1)
    assert answer["seat_winds"] == winds(2) and answer["round_changed"] is True


def test_next_fourth_dealer_keeps_the_deal_and_the_round(client):
    answer = next_hand(client, 3, "E", 4, {"winner": 3})
    assert (answer["dealer"], answer["round_wind"], answer["dealers_this_round"]) == (3, "E", 4)
    assert (answer["dealer_changed"], answer["round_changed"]) == (False, False)


def test_next_a_round_carried_from_answer_to_request(client):
    # start: position 0 deals the East round.  Results, and the state they lead to:
    #   1 wins → 1 deals (2nd);  draw → 1 again;  1 wins → 1 again;  0 wins → 2 deals (3rd);
    #   3 wins → 3 deals (4th);  2 wins → back to 0, South round, 1st dealer
    state = {"dealer": 0, "round_wind": "E", "dealers_this_round": 1}
    steps = [({"winner": 1}, (1, "E", 2)), ({"draw": True}, (1, "E", 2)), ({"winner": 1}, (1, "E", 2)),
             ({"winner": 0}, (2, "E", 3)), ({"winner": 3}, (3, "E", 4)), ({"winner": 2}, (0, "S", 1))]
    for result, expected in steps:
        answer = client.post("/v1/table/next", json={**state, "result": result}).get_json()
        state = {k: answer[k] for k in ("dealer", "round_wind", "dealers_this_round")}
        assert tuple(state.values()) == expected, result


@pytest.mark.parametrize("body,paths", [
    ({"dealer": 4, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, ["dealer"]),
    ({"dealer": 1.5, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, ["dealer"]),
    ({"dealer": True, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, ["dealer"]),
    ({"dealer": None, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, ["dealer"]),
    ({"dealer": 0, "round_wind": "东", "dealers_this_round": 1, "result": {"draw": True}}, ["round_wind"]),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 5, "result": {"draw": True}}, ["dealers_this_round"]),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 0, "result": {"draw": True}}, ["dealers_this_round"]),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1}, ["result"]),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {}}, ["result"]),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": 1, "draw": True}}, ["result"]),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": False}}, ["result.draw"]),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": "1"}}, ["result.winner"]),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}, "hand": 3}, ["hand"]),
])
def test_next_bad_requests_are_400(client, body, paths):
    assert_problem(client.post("/v1/table/next", json=body), 400, "invalid_request", paths)


def test_next_null_in_an_optional_field_means_absent(client):
    answer = next_hand(client, 0, "E", 1, {"winner": None, "draw": True})
    assert (answer["dealer"], answer["dealer_changed"]) == (0, False)


# ===============================================================================================
# POST /v1/table/claims (docs/rules.md §8: win > pung/kong > chow; the first winner after the
# discarder in play order E → S → W → N → E takes it; a chow only from the discarder's next)

def claims(client, discarder: str, *claimed: tuple[str, str], lang: str | None = None) -> dict:
    headers = {"Accept-Language": lang} if lang else {}
    response = client.post("/v1/table/claims", headers=headers, json={
        "discarder": discarder, "claims": [{"seat": s, "type": t} for s, t in claimed]})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def taken(answer: dict) -> tuple:
    taker = answer["taker"] and (answer["taker"]["seat"], answer["taker"]["type"])
    return taker, answer["rule"], [(c["seat"], c["type"]) for c in answer["overridden"]]


def test_claims_nobody(client):
    answer = claims(client, "W")
    assert taken(answer) == (None, "none", [])
    assert "N" in answer["reason"]  # W's next, N, draws


def test_claims_a_lone_chow_from_the_next_seat(client):
    assert taken(claims(client, "E", ("S", "chow"))) == (("S", "chow"), "chow", [])


@pytest.mark.parametrize("kind", ["win", "kong", "pung"])
def test_claims_a_lone_claim_takes_it(client, kind):
    assert taken(claims(client, "N", ("W", kind)))[:2] == (("W", kind), "win" if kind == "win" else "pung_kong")


def test_claims_win_beats_pung(client):
    # E discards; W pungs, N wins: the win takes it whatever the seat order
    assert taken(claims(client, "E", ("W", "pung"), ("N", "win"))) == (("N", "win"), "win", [("W", "pung")])


def test_claims_win_beats_chow_from_the_next_seat(client):
    assert taken(claims(client, "E", ("S", "chow"), ("N", "win"))) == (("N", "win"), "win", [("S", "chow")])


def test_claims_pung_beats_chow(client):
    assert taken(claims(client, "E", ("S", "chow"), ("N", "pung"))) == (("N", "pung"), "pung_kong", [("S", "chow")])


def test_claims_kong_beats_chow(client):
    # S discards: W (S's next) chows, E kongs
    assert taken(claims(client, "S", ("W", "chow"), ("E", "kong"))) == (("E", "kong"), "pung_kong", [("W", "chow")])


def test_claims_intercept_first_winner_after_the_discarder(client):
    # S discards; E and N can win, W pungs.  Play order after S: W, N, E → N is the first
    # winner (截胡); the others, in that order: W's pung, E's win
    answer = claims(client, "S", ("E", "win"), ("N", "win"), ("W", "pung"))
    assert taken(answer) == (("N", "win"), "intercept", [("W", "pung"), ("E", "win")])
    zh = claims(client, "S", ("E", "win"), ("N", "win"), ("W", "pung"), lang="zh")
    assert taken(zh) == taken(answer)
    assert "截胡" in zh["reason"] and has_chinese(zh["reason"])
    assert not has_chinese(answer["reason"].replace("截胡", ""))


@pytest.mark.parametrize("discarder,winners,first", [
    ("N", ("W", "S"), "S"),        # after N: E, S, W → S
    ("E", ("N", "W", "S"), "S"),   # after E: S first
    ("W", ("S", "E"), "E"),        # after W: N, E, S → E
])
def test_claims_intercept_wraps_round_the_table(client, discarder, winners, first):
    answer = claims(client, discarder, *((w, "win") for w in winners))
    assert taken(answer)[:2] == ((first, "win"), "intercept")


@pytest.mark.parametrize("body,paths", [
    # a chow only from the discarder's next seat (E's next is S)
    ({"discarder": "E", "claims": [{"seat": "W", "type": "chow"}]}, ["claims.0.type"]),
    # the discarder can't claim its own discard
    ({"discarder": "E", "claims": [{"seat": "E", "type": "win"}]}, ["claims.0.seat"]),
    # one claim per seat
    ({"discarder": "E", "claims": [{"seat": "S", "type": "pung"}, {"seat": "S", "type": "win"}]}, ["claims.1.seat"]),
    # two pungs of one discard: with the discard there are only four of a kind
    ({"discarder": "E", "claims": [{"seat": "S", "type": "pung"}, {"seat": "W", "type": "kong"}]},
     ["claims.1.type"]),
])
def test_claims_impossible_at_a_table_are_422(client, body, paths):
    problem = assert_problem(client.post("/v1/table/claims", json=body), 422, "invalid_request", paths)
    zh = client.post("/v1/table/claims", json=body, headers={"Accept-Language": "zh"}).get_json()
    assert zh["code"] == problem["code"] and all(has_chinese(m) for m in zh["errors"][paths[0]])


@pytest.mark.parametrize("body,paths", [
    ({"discarder": "E"}, ["claims"]),
    ({"discarder": "E", "claims": None}, ["claims"]),
    ({"discarder": "E", "claims": {"S": "pung"}}, ["claims"]),
    ({"discarder": "X", "claims": []}, ["discarder"]),
    ({"discarder": "E", "claims": [{"seat": "S", "type": "ron"}]}, ["claims.0.type"]),
    ({"discarder": "E", "claims": [{"seat": "S"}]}, ["claims.0.type"]),
    ({"discarder": "E", "claims": [None]}, ["claims.0"]),
    ({"discarder": "E", "claims": [{"seat": "S", "type": "pung", "tile": "5m"}]}, ["claims.0.tile"]),
])
def test_claims_bad_requests_are_400(client, body, paths):
    assert_problem(client.post("/v1/table/claims", json=body), 400, "invalid_request", paths)


# ===============================================================================================
# GET /v1/levels and POST /v1/table/escape

# 000 (《“宁波麻将”游戏介绍》), "积分与级别设置": level, name, points (积分), base points (对局分)
SEED_LEVELS = [
    (0, "科员", 0, 1), (1, "助科", 50, 5), (2, "副科", 100, 10), (3, "科长", 200, 20), (4, "助处", 500, 30),
    (5, "副处", 3000, 40), (6, "处长", 10000, 60), (7, "助局", 30000, 80), (8, "副局", 50000, 100),
    (9, "局长", 150000, 150), (10, "助市", 300000, 200), (11, "副市", 500000, 260), (12, "市长", 1000000, 300),
    (13, "助省", 2000000, 400), (14, "副省", 4000000, 500), (15, "省长", 8000000, 600), (16, "雀神", 20000000, 700),
]


def test_levels_are_the_seed_table(client):
    response = client.get("/v1/levels")
    assert response.status_code == 200
    body = response.get_json()
    assert body["source"] == "《“宁波麻将”游戏介绍》, 456游戏, 2010-9-19"
    assert [(r["level"], r["name"], r["threshold"], r["base_points"]) for r in body["levels"]] == SEED_LEVELS
    assert all(r["name_en"] for r in body["levels"])


@pytest.mark.parametrize("body,penalty,base,level", [
    ({"base_points": 1}, 24, 1, None),             # 24 × 1
    ({"base_points": 2}, 48, 2, None),             # 24 × 2
    ({"base_points": 1_000_000}, 24_000_000, 1_000_000, None),  # the largest base points, as in /v1/score
    ({"level": 0}, 24, 1, 0),                      # 科员: base 1 → 24 × 1
    ({"level": 3}, 480, 20, 3),                    # 科长: base 20 → 24 × 20
    ({"level": 11}, 6240, 260, 11),                # 副市: base 260 → 24 × 260
    ({"level": 16}, 16800, 700, 16),               # 雀神: base 700 → 24 × 700
    ({"level": 5, "base_points": None}, 960, 40, 5),   # null = absent; 副处: 24 × 40
])
def test_escape(client, body, penalty, base, level):
    response = client.post("/v1/table/escape", json=body)
    assert response.status_code == 200
    # rule book 4: every preset sends the penalty to the house (escape_penalty_to), so the others gain 0
    assert response.get_json() == {"penalty": penalty, "multiplier": 24, "base_points": base, "level": level,
                                   "to": "house", "each_other": 0}


@pytest.mark.parametrize("body,paths", [
    ({}, None),                                     # neither
    ({"base_points": 2, "level": 3}, None),         # both
    ({"base_points": 0}, ["base_points"]),
    ({"base_points": 1_000_001}, ["base_points"]),
    ({"base_points": 2.5}, ["base_points"]),       # (2.0 is the count 2, rule book 2)
    ({"base_points": "2"}, ["base_points"]),
    ({"level": 17}, ["level"]),
    ({"level": -1}, ["level"]),
    ({"level": True}, ["level"]),
    ({"level": 3, "name": "科长"}, ["name"]),
])
def test_escape_bad_requests_are_400(client, body, paths):
    problem = assert_problem(client.post("/v1/table/escape", json=body), 400, "invalid_request", paths)
    if paths is None:  # a problem of the body as a whole
        assert "errors" not in problem and "base_points" in problem["detail"] and "level" in problem["detail"]


# ===============================================================================================
# errors common to the new POST routes

LIVE_POSTS = {
    "/v1/waits": examples.WAITS_CLOSED,
    "/v1/score/batch": examples.BATCH,
    "/v1/table/next": examples.NEXT_OTHER_WINS,
    "/v1/table/claims": examples.CLAIMS_PUNG_OVER_CHOW,
    "/v1/table/escape": {"base_points": 2},
}


@pytest.mark.parametrize("path", list(LIVE_POSTS))
def test_live_posts_malformed_json_is_400(client, path):
    assert_problem(client.post(path, data=b'{"a": ', content_type="application/json"), 400, "malformed_json")
    assert_problem(client.post(path, data=b"", content_type="application/json"), 400, "malformed_json")


@pytest.mark.parametrize("path", list(LIVE_POSTS))
@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "application/json; charset=latin-1"])
def test_live_posts_unsupported_media_type_is_415(client, path, content_type):
    kwargs = {"data": json.dumps(LIVE_POSTS[path])}
    if content_type:
        kwargs["content_type"] = content_type
    assert_problem(client.post(path, **kwargs), 415, "unsupported_media_type")


@pytest.mark.parametrize("path", [p for p in LIVE_POSTS if p != "/v1/score/batch"])
def test_live_posts_body_over_64_kib_is_413(client, path):
    data = json.dumps(LIVE_POSTS[path]).encode()
    assert client.post(path, data=data + b" " * (64 * 1024 - len(data)), content_type="application/json"
                       ).status_code == 200
    assert_problem(client.post(path, data=data + b" " * (64 * 1024), content_type="application/json"),
                   413, "payload_too_large")


@pytest.mark.parametrize("path", list(LIVE_POSTS))
def test_live_posts_body_not_an_object_is_400(client, path):
    assert_problem(client.post(path, data=b"[]", content_type="application/json"), 400, "invalid_request")


@pytest.mark.parametrize("method,path,allowed", [
    ("GET", "/v1/waits", {"POST", "OPTIONS"}),
    ("GET", "/v1/score/batch", {"POST", "OPTIONS"}),
    ("PUT", "/v1/table/next", {"POST", "OPTIONS"}),
    ("GET", "/v1/table/claims", {"POST", "OPTIONS"}),
    ("POST", "/v1/levels", {"GET", "HEAD", "OPTIONS"}),
    ("DELETE", "/v1/table/escape", {"POST", "OPTIONS"}),
    ("POST", "/", {"GET", "HEAD", "OPTIONS"}),
])
def test_live_routes_wrong_method_is_405(client, method, path, allowed):
    response = client.open(method, path)
    assert_problem(response, 405, "method_not_allowed")
    assert {m.strip() for m in response.headers["Allow"].split(",")} == allowed


@pytest.mark.parametrize("name,call", [
    ("invalid_request", lambda c, h: c.post("/v1/waits", json=examples.WAITS_WITH_WINNING_TILE, headers=h)),
    ("wrong_tile_count", lambda c, h: c.post("/v1/waits", json=examples.WAITS_FOURTEEN, headers=h)),
    ("malformed_json", lambda c, h: c.post("/v1/table/next", data=b"{", content_type="application/json",
                                           headers=h)),
    ("unsupported_media_type", lambda c, h: c.post("/v1/table/escape", data=b"x", content_type="text/plain",
                                                   headers=h)),
    ("payload_too_large", lambda c, h: c.post("/v1/score/batch", data=b" " * (1024 * 1024 + 1),
                                              content_type="application/json", headers=h)),
    ("invalid_request", lambda c, h: c.post("/v1/score/batch", json={"requests": [{}] * 201}, headers=h)),
    ("invalid_request", lambda c, h: c.post("/v1/table/next", json={"dealer": 9}, headers=h)),
    ("invalid_request", lambda c, h: c.post("/v1/table/claims", json=examples.CLAIMS_ERROR_EXAMPLES[
        "invalid_request_422"][1], headers=h)),
    ("invalid_request", lambda c, h: c.post("/v1/table/escape", json={}, headers=h)),
    ("method_not_allowed", lambda c, h: c.open("DELETE", "/v1/levels", headers=h)),
])
def test_every_live_problem_speaks_chinese(client, name, call):
    en = call(client, {}).get_json()
    zh = call(client, {"Accept-Language": "zh-CN,zh;q=0.9"}).get_json()
    assert en["code"] == zh["code"] == name
    assert not has_chinese(en["title"]) and has_chinese(zh["title"]) and has_chinese(zh["detail"])
    for path, messages in zh.get("errors", {}).items():
        assert all(has_chinese(m) for m in messages), (path, messages)


def test_unexpected_error_on_a_live_route_is_500_problem(client, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(ningbo_score, "waits", broken)
    response = client.post("/v1/waits", json=examples.WAITS_CLOSED)
    assert_problem(response, 500, "internal_error")
    assert "secret internals" not in response.get_data(as_text=True)


# ===============================================================================================
# GET / (issue 6): the calculator page

def test_root_serves_the_calculator_page(client):
    response = client.get("/")
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert response.mimetype_params.get("charset") == "utf-8"
    html = response.get_data(as_text=True)
    assert 'id="palette"' in html
    # the page's own files, served from /static/ under content-hashed URLs (service/static.py)
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
    names = [re.sub(r"\.[0-9a-f]{12}\.", ".", asset) for asset in assets]
    assert "/static/calc.js" in names and "/static/calc.css" in names
    for asset in assets:
        served = client.client.get(asset)
        assert served.status_code == 200 and served.get_data(), asset


# ===============================================================================================
# openapi.yaml and the README

def test_live_operations_document_their_errors(openapi_document):
    paths = openapi_document["paths"]
    expected = {
        ("/v1/waits", "post"): {"200", "400", "413", "415", "422", "500"},
        ("/v1/score/batch", "post"): {"200", "400", "413", "415", "500"},
        ("/v1/table/next", "post"): {"200", "400", "413", "415", "500"},
        ("/v1/table/claims", "post"): {"200", "400", "413", "415", "422", "500"},
        ("/v1/table/escape", "post"): {"200", "400", "413", "415", "500"},
        ("/v1/levels", "get"): {"200", "500"},
    }
    assert "/" not in paths  # the calculator page is no operation of the API (no operation id in service.routes.ROUTES)
    for (path, method), statuses in expected.items():
        operation = paths[path][method]
        assert set(operation["responses"]) == statuses | {"default"}, path   # default: any other problem
        for status in statuses - {"200"} | {"default"}:
            # a 413 may also be a proxy's page (text/html, listed first: issue 38)
            kinds = ["text/html", "application/problem+json"] if status == "413" else ["application/problem+json"]
            assert list(operation["responses"][status]["content"]) == kinds, (path, status)
        if method == "post":
            assert operation["requestBody"]["content"]["application/json"]["examples"], path
            assert operation["responses"]["200"]["content"]["application/json"]["examples"], path
    batch_413 = paths["/v1/score/batch"]["post"]["responses"]["413"]["content"]["application/problem+json"]
    assert {e["value"]["code"] for e in batch_413["examples"].values()} == {"payload_too_large"}
    batch = openapi_document["components"]["schemas"]["BatchRequest"]["properties"]["requests"]
    assert batch["maxItems"] == ningbo_score.MAX_BATCH == 200


@pytest.mark.parametrize("path", ["/v1/waits", "/v1/score/batch", "/v1/table/next", "/v1/table/claims",
                                  "/v1/table/escape"])
def test_live_examples_are_real_output(openapi_document, contract, client, path):
    """Each request example gives the documented answer; each ill-formed one is refused by the
    spec and by the server alike."""
    operation = openapi_document["paths"][path]["post"]
    request_schema = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"][1:]
    for name, example in operation["requestBody"]["content"]["application/json"]["examples"].items():
        response = client.post(path, json=example["value"])
        valid = not contract.schema_errors(request_schema, example["value"])
        assert valid == (response.status_code != 400), name
        documented = operation["responses"][str(response.status_code)]["content"][response.mimetype]["examples"]
        assert documented[name]["value"] == response.get_json(), name


def test_readme_has_a_curl_example_per_live_endpoint():
    commands = " ".join(c for c, _ in readme_examples())
    for path in ("/v1/waits", "/v1/score/batch", "/v1/table/next", "/v1/table/claims", "/v1/levels",
                 "/v1/table/escape", "/ "):
        assert f"localhost:8000{path}" in commands, path


# ===============================================================================================
# gunicorn.conf.py: workers warm the library's caches, then freeze the heap out of the GC's way

def test_post_fork_warms_up_then_freezes(monkeypatch):
    import gc
    import importlib.util

    spec = importlib.util.spec_from_file_location("gunicorn_conf_under_test", pages.ROOT / "gunicorn.conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    calls = []
    monkeypatch.setattr(ningbo_score, "warm_up", lambda: calls.append("warm_up"))
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    conf.post_fork(server=None, worker=None)
    assert calls == ["warm_up", "freeze"]
    assert conf.preload_app is False
    assert (conf.on_starting, conf.child_exit, conf.on_exit) == (
        conf.metrics.on_starting, conf.metrics.child_exit, conf.metrics.on_exit)
