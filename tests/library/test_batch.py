"""Batch scoring through ``ningbo_score.score_batch``: ``{"requests": [...]}`` in, one result per
item out, in order, each ``{"index", "status", "score"}`` or ``{"index", "status", "problem"}``.
A bad hand never fails the batch; more than 200 items, or an item that is no object, is a 400
``invalid_request`` (a schema violation, found before any item is read); a body that is not
``{"requests": [...]}`` is a 400.

The good hands' values were worked out by hand from docs/rules.md (comments show the arithmetic).
"""
from __future__ import annotations

import copy

import pytest

from helpers import CJK, T

from ningbo_score import MAX_BATCH, ScoreError, score, score_batch


# E (dealer), round E, no caishen: 123m 567m 789m EEE SS, won on 2m by self-draw.
#   closed 1 + half_flush 2 + seat_wind_pung 1 + round_wind_pung 1 + no_caishen 1 + self_draw 1
#   = 7 台, P = 1 + 7 = 8; S, W, N pay 8 each -> net E +24.
CLOSED_SELF_DRAW = {
    "rules": "ningbo", "seat_wind": "E", "round_wind": "E",
    "hand": {"concealed": T("123m 567m 789m EEE SS"), "winning_tile": "2m"},
    "win": {"by": "self_draw"},
}

# S, round E: meld chow 456m from E, concealed 234m 789p 345s NN, flowers 2f 6f, won on 4m
# discarded by E.  ping_hu 1 + no_caishen 1 + seat_flower 2 = 4 台, P = 5; E pays 2 × 5 = 10.
TWO_SIDED_DISCARD = {
    "rules": "ningbo", "seat_wind": "S", "round_wind": "E",
    "hand": {"concealed": T("234m 789p 345s NN"), "winning_tile": "4m",
             "melds": [{"type": "chow", "tiles": T("456m"), "from": "E"}], "flowers": T("2f 6f")},
    "win": {"by": "discard", "from": "E"},
}

# 13 tiles where 14 are due (no melds): wrong_tile_count (422)
WRONG_COUNT = {
    "rules": "ningbo", "seat_wind": "S", "round_wind": "E",
    "hand": {"concealed": T("23m 789p 345s NN 456m"), "winning_tile": "2m"},
    "win": {"by": "self_draw"},
}

# an unknown seat: invalid_request (400)
BAD_SEAT = {**copy.deepcopy(CLOSED_SELF_DRAW), "seat_wind": "X"}

# 147m 147p 147s ESWN + E: no 4 sets and a pair -> not_a_winning_hand (422)
NOT_A_WIN = {
    "rules": "ningbo", "seat_wind": "S", "round_wind": "E",
    "hand": {"concealed": T("147m 147p 147s ESWN E"), "winning_tile": "E"},
    "win": {"by": "self_draw"},
}

# caishen single wait (大吊 with a caishen, ningbo's single_wait restriction) won by discard:
# caishen_needs_self_draw (422)
CAISHEN_DISCARD = {
    "rules": "ningbo", "seat_wind": "S", "round_wind": "E", "caishen": {"indicator": "5p"},
    "hand": {"concealed": ["5p", "8m"], "winning_tile": "8m",
             "melds": [{"type": "chow", "tiles": T("123m"), "from": "E"},
                       {"type": "pung", "tiles": T("999m"), "from": "W"},
                       {"type": "chow", "tiles": T("456m"), "from": "E"},
                       {"type": "pung", "tiles": T("777m"), "from": "N"}]},
    "win": {"by": "discard", "from": "E"},
}


def _problem_of(request, lang="en") -> dict:
    with pytest.raises(ScoreError) as e:
        score(copy.deepcopy(request))
    return e.value.to_problem(lang)


def test_mixed_batch_one_result_per_item_in_order():
    items = [CLOSED_SELF_DRAW, WRONG_COUNT, TWO_SIDED_DISCARD, BAD_SEAT, {}, NOT_A_WIN, CAISHEN_DISCARD,
             CLOSED_SELF_DRAW]
    out = score_batch({"requests": copy.deepcopy(items)})
    results = out["results"]
    assert [r["index"] for r in results] == list(range(len(items)))
    assert [r["status"] for r in results] == [200, 422, 200, 400, 400, 422, 422, 200]
    assert [r["outcome"] for r in results] == ["scored", "refused", "scored", "refused", "refused", "refused",
                                               "refused", "scored"]
    codes = [r["problem"]["code"] if "problem" in r else None for r in results]
    assert codes == [None, "wrong_tile_count", None, "invalid_request", "invalid_request",
                     "not_a_winning_hand", "caishen_needs_self_draw", None]
    for r in results:
        assert ("score" in r) != ("problem" in r)
        if "problem" in r:
            assert r["problem"]["status"] == r["status"]
            assert r["problem"]["type"] == f"urn:ningbo-score:problem:{r['problem']['code']}"
    assert (out["ok"], out["failed"]) == (3, 5)

    # hand-worked values of the good hands
    s0 = results[0]["score"]
    assert (s0["tai"], s0["points"]) == (7, 8)
    assert s0["net"] == {"E": 24, "S": -8, "W": -8, "N": -8}
    s2 = results[2]["score"]
    assert (s2["tai"], s2["eligible"], s2["points"]) == (4, True, 5)
    assert s2["net"] == {"E": -10, "S": 10, "W": 0, "N": 0}
    assert results[7]["score"] == s0

    # each good result is exactly score() of the same request; each problem is its own refusal
    for i in (0, 2, 7):
        assert results[i]["score"] == score(copy.deepcopy(items[i]))
    for i in (1, 3, 5, 6):
        assert results[i]["problem"] == _problem_of(items[i])
    # an empty object is refused like score() refuses it
    assert results[4]["problem"] == _problem_of({})


def test_an_item_that_is_no_object_refuses_the_batch():
    # the batch's schema says each item is an object (openapi.yaml): like a wrong field type,
    # an item of another type makes the request malformed, at that item's path
    with pytest.raises(ScoreError) as e:
        score_batch({"requests": [copy.deepcopy(CLOSED_SELF_DRAW), 42]})
    assert (e.value.code, e.value.status) == ("invalid_request", 400)
    assert list(e.value.errors()) == ["requests.1"]


def test_empty_batch():
    assert score_batch({"requests": []})["results"] == []


def test_two_hundred_items_are_accepted():
    items = [copy.deepcopy(CLOSED_SELF_DRAW if i % 2 == 0 else WRONG_COUNT) for i in range(MAX_BATCH)]
    assert MAX_BATCH == 200
    results = score_batch({"requests": items})["results"]
    assert len(results) == 200
    assert [r["index"] for r in results] == list(range(200))
    assert all(r["status"] == 200 and r["score"]["points"] == 8 for r in results[0::2])
    assert all(r["status"] == 422 and r["problem"]["code"] == "wrong_tile_count" for r in results[1::2])


def test_two_hundred_and_one_items_is_too_large():
    # a schema violation (maxItems 200 in openapi.yaml), found before any item is read: 400
    items = [copy.deepcopy(CLOSED_SELF_DRAW) for _ in range(201)]
    with pytest.raises(ScoreError) as e:
        score_batch({"requests": items})
    assert (e.value.code, e.value.status) == ("invalid_request", 400)
    problem = e.value.to_problem("en")
    assert problem["code"] == "invalid_request" and problem["status"] == 400
    assert list(problem["errors"]) == ["requests"]
    assert CJK.search(e.value.to_problem("zh")["detail"])


@pytest.mark.parametrize("body", [
    [],                                          # an array, not an object
    [CLOSED_SELF_DRAW],
    {},                                          # no "requests"
    {"requests": {"0": CLOSED_SELF_DRAW}},       # "requests" not an array
    {"requests": "x"},
    {"requests": None},
    {"requests": [CLOSED_SELF_DRAW], "extra": 1},  # unknown field
    "requests",
    None,
])
def test_body_must_be_requests_array(body):
    with pytest.raises(ScoreError) as e:
        score_batch(copy.deepcopy(body))
    assert (e.value.code, e.value.status) == ("invalid_request", 400)


def test_problems_in_chinese():
    items = [WRONG_COUNT, NOT_A_WIN, CLOSED_SELF_DRAW, BAD_SEAT]
    zh = score_batch({"requests": copy.deepcopy(items)}, lang="zh")["results"]
    en = score_batch({"requests": copy.deepcopy(items)})["results"]
    assert [r["status"] for r in zh] == [422, 422, 200, 400]
    for i in (0, 1, 3):
        pz, pe = zh[i]["problem"], en[i]["problem"]
        assert pz["code"] == pe["code"]          # the code is a stable id, not translated
        assert pz == _problem_of(items[i], "zh")
        assert CJK.search(pz["title"]) and CJK.search(pz["detail"])
        assert not CJK.search(pe["title"])
        if "errors" in pz:
            assert all(CJK.search(m) for msgs in pz["errors"].values() for m in msgs)
    assert zh[2]["score"] == en[2]["score"] == score(copy.deepcopy(CLOSED_SELF_DRAW))
