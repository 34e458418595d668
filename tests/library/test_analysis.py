"""Hand analysis (``POST /v1/analyze``, ``ningbo_score.analyze``): hand-worked cases, the errors
of ``/v1/waits``, and properties against an independent shanten (tests/library/test_shanten.py's target
oracle) and against ``/v1/waits``.

Every expected value below was worked out by hand from docs/api.md (definitions of shanten, improving
tiles and unseen counts) and docs/rules.md (§3 shapes, §4 waits, §5 台 items, §6 points); the comment
on each case shows the reasoning.  Reminders:
- unseen of a kind = 4 (a flower 1) − copies in the concealed tiles, the melds, the flowers, the
  caishen indicator and ``visible``; in a discard entry the discarded tile counts as seen;
- the discard values assume the player's 上家 (E<-N, S<-E, W<-S, N<-W) unless ``win.from``;
- ningbo: min 4 台; linear points P = base × (1 + 台), 0 when ineligible.
"""
from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import handgen
from test_shanten import target_shanten

from ningbo_score import ScoreError, analyze, waits

KINDS = handgen.KINDS
INDEX = {k: i for i, k in enumerate(KINDS)}


def body(seat, rnd, concealed, **extra) -> dict:
    out = {"seat_wind": seat, "round_wind": rnd, "hand": {"concealed": concealed}}
    for key in ("melds", "flowers"):
        if key in extra:
            out["hand"][key] = extra.pop(key)
    out.update(extra)
    return out


def improving(entry) -> list[tuple[str, int]]:
    return [(i["tile"], i["unseen"]) for i in entry["improving"]]


def value(v) -> tuple:
    return (v["tai"], v["eligible"], v["points"])


# --------------------------------------------------------------------------- hand-worked: 14 tiles

def test_fourteen_tiles_what_to_discard():
    # E (dealer), round E: 13m 567m 789m EEE SS 9s, the others have shown a 2m (visible).
    # Discard 9s: 13m 567m 789m EEE SS waits on 2m only (123m; 1m or 3m can't pair without
    # stranding SS) -> shanten 0, so the hand's shanten is 0 (it doesn't win as it is: 9s is
    # alone).  2m unseen: 4 − 1 visible = 3.
    # Values of 2m (docs/rules.md §5): closed_wait 1 + half_flush 2 (m + honors) + seat_wind_pung E 1
    # + round_wind_pung E 1 + no_caishen 1 = 6 台 on a discard (P = 7); self-draw 7 台 (P = 8).
    # Every other discard leaves shanten 1 (two tiles short), so 9s comes first.
    res = analyze(body("E", "E", "13m 567m 789m EEE SS 9s", visible="2m"))
    assert res["tiles"] == 14 and res["shanten"] == 0 and res["discard_from"] == "N"
    first = res["discards"][0]
    assert first["discard"] == "9s" and first["shanten"] == 0
    assert improving(first) == [("2m", 3)] and first["improving_unseen"] == 3
    [wait] = first["waits"]
    assert wait["tile"] == "2m" and wait["unseen"] == 3
    assert value(wait["discard"]) == (6, True, 7) and value(wait["self_draw"]) == (7, True, 8)
    assert first["eligible_unseen"] == 3
    # one entry per kind held: 1m 3m 5m 6m 7m 8m 9m E S 9s
    assert sorted(d["discard"] for d in res["discards"]) == sorted(["1m", "3m", "5m", "6m", "7m", "8m", "9m",
                                                                    "E", "S", "9s"])
    assert all(d["shanten"] == 1 for d in res["discards"][1:])
    # Discard 5m: 13m 67m 789m EEE SS 9s (shanten 1).  A draw brings it to tenpai when it
    # completes 13m (2m) or 67m (5m: 567m; 8m: 678m beside 789m); S (SSS) leaves 13m 67m 9s
    # with no pair and 9s (99s) leaves two pairs and two partial chows: both still 2 short.
    # Unseen: 2m 4 − 1 visible = 3; 5m 4 − 1 (the discarded one is seen) = 3; 8m 4 − 1 = 3.
    five = next(d for d in res["discards"] if d["discard"] == "5m")
    assert improving(five) == [("2m", 3), ("5m", 3), ("8m", 3)] and five["improving_unseen"] == 9
    assert "waits" not in five and "eligible_unseen" not in five


def test_a_winning_hand_still_lists_its_discards_best_first():
    # S, round E: 123m 456p 789s 234s 55m already wins -> shanten −1.  Each discard leaves a
    # tenpai hand (waiting at least on what it discarded).  Its waits and their unseen copies
    # (the discarded tile is seen):
    #   1m: 23m waits 1m (3) 4m (4) = 7     2m: 13m waits 2m (3)      3m: 12m waits 3m (3)
    #   4p: 56p waits 4p (3) 7p (4) = 7     5p: 46p waits 5p (3)      6p: 45p waits 3p (4) 6p (3) = 7
    #   2s: 34s waits 2s (3) 5s (4) = 7     3s: 24s waits 3s (3)      4s: 23s waits 1s (4) 4s (3) = 7
    #   7s: 89s waits 7s (3)                8s: 79s waits 8s (3)      9s: 78s waits 6s (4) 9s (3) = 7
    #   5m: 5m alone waits on its pair, 5m: 4 − 2 = 2
    # Every win is worth at most wait item 1 + no_caishen 1 + self_draw 1 = 3 台 < 4: none is
    # eligible, eligible_unseen 0 everywhere, so ties go by tile order.
    res = analyze(body("S", "E", "123m 456p 789s 234s 55m"))
    assert res["tiles"] == 14 and res["shanten"] == -1
    order = [d["discard"] for d in res["discards"]]
    assert order == ["1m", "4p", "6p", "2s", "4s", "9s", "2m", "3m", "5p", "3s", "7s", "8s", "5m"]
    totals = {d["discard"]: d["improving_unseen"] for d in res["discards"]}
    assert totals == {**{t: 7 for t in order[:6]}, **{t: 3 for t in order[6:12]}, "5m": 2}
    one = res["discards"][0]
    assert improving(one) == [("1m", 3), ("4m", 4)]
    # 4m on a discard: 234m 456p 789s 234s 55m: ping_hu 1 (4 chows, two-sided, pair 5m) +
    # no_caishen 1 = 2 台 < 4: ineligible, 0 points; by self-draw 3 台, 0 points
    four = next(w for w in one["waits"] if w["tile"] == "4m")
    assert value(four["discard"]) == (2, False, 0) and value(four["self_draw"]) == (3, False, 0)
    assert all(d["shanten"] == 0 and d["eligible_unseen"] == 0 for d in res["discards"])


# --------------------------------------------------------------------------- hand-worked: 13 tiles

def test_thirteen_tiles_with_a_caishen():
    # S, round E, indicator 5p (ningbo: the 3 other 5p are caishen).  13m 468p 24s EEE CC + 5p
    # (a caishen).  A target EEE 123m 456p 234s CC holds 11 natural tiles (all but 8p; 468p
    # can't be one set and a fifth set has no room); with the caishen 12 of 14: 2 missing ->
    # shanten 1.  A draw reaches tenpai when it fills a partial set: 2m (123m), 7p (678p, 4p
    # left: still 11 + 1), 3s (234s), or is a caishen (5p).  C (CCC) or E only move the pair;
    # 1m 3m 4p 6p 8p 2s 4s make a second pair where one is already there.
    # Unseen: 2m 4, 7p 4, 3s 4, 5p 4 − 1 held − 1 indicator = 2 -> 14.
    res = analyze(body("S", "E", "13m 468p 24s EEE CC 5p", caishen={"indicator": "5p"}))
    assert res["tiles"] == 13 and res["shanten"] == 1
    assert improving(res) == [("2m", 4), ("5p", 2), ("7p", 4), ("3s", 4)]       # tile order
    assert res["improving_unseen"] == 14
    assert "waits" not in res and "discards" not in res


def test_thirteen_tiles_tenpai_with_visible():
    # tests/library/test_waits.py's two-sided hand: S, round E, chow 456m from E; 23m 789p 345s NN;
    # flowers 2f 6f.  Waits 1m and 4m (tenpai).  Visible: 1m 1m 4m.
    # unseen 1m 4 − 2 = 2; 4m 4 − 1 (meld) − 1 visible = 2.
    # Value (docs/rules.md §5): ping_hu 1 + no_caishen 1 + seat_flower 2 = 4 台 on a discard (P 5),
    # 5 台 by self-draw (P 6): both eligible -> eligible_unseen 4.
    res = analyze(body("S", "E", "23m 789p 345s NN", melds=[{"type": "chow", "tiles": "456m", "from": "E"}],
                       flowers="2f 6f", visible=["1m", "1m", "4m"]))
    assert res["tiles"] == 13 and res["shanten"] == 0 and res["discard_from"] == "E"
    assert improving(res) == [("1m", 2), ("4m", 2)] and res["improving_unseen"] == 4
    assert [(w["tile"], w["unseen"], value(w["discard"]), value(w["self_draw"])) for w in res["waits"]] == [
        ("1m", 2, (4, True, 5), (5, True, 6)), ("4m", 2, (4, True, 5), (5, True, 6))]
    assert res["eligible_unseen"] == 4


def test_a_wait_only_a_fifth_copy_would_fill():
    # docs/api.md: 1111m 234p 567p 789s is tenpai (111m + a 1m pair) though every 1m is held: 1m is
    # improving with unseen 0, and no hand with a fifth 1m can be scored: waits is empty.
    res = analyze(body("E", "E", "1111m 234p 567p 789s"))
    assert res["shanten"] == 0 and improving(res) == [("1m", 0)]
    assert res["waits"] == [] and res["eligible_unseen"] == 0
    assert waits(body("E", "E", "1111m 234p 567p 789s"))["tiles"] == []


def test_a_caishen_wait_is_valued_by_self_draw_only():
    # waits.py's any-tile example: 4 melds and a lone caishen (indicator 5p): every kind is a
    # wait, and a caishen (5p) wins only by self-draw (a discarded caishen can't be claimed).
    melds = [{"type": "chow", "tiles": "123m", "from": "E"}, {"type": "pung", "tiles": "999m", "from": "W"},
             {"type": "chow", "tiles": "456m", "from": "E"}, {"type": "pung", "tiles": "777m", "from": "N"}]
    res = analyze(body("S", "E", "5p", melds=melds, caishen={"indicator": "5p"}))
    assert res["shanten"] == 0
    assert [i["tile"] for i in res["improving"]] == list(KINDS)
    # every kind is a wait: equal values are one entry (as /v1/waits's any_tile), their tiles
    # under same_for, their unseen copies summed
    assert sorted(t for w in res["waits"] for t in w["same_for"]) == sorted(KINDS)
    assert len(res["waits"]) < len(KINDS)
    unseen = {i["tile"]: i["unseen"] for i in res["improving"]}
    for w in res["waits"]:
        assert w["tile"] == w["same_for"][0] and w["unseen_total"] == sum(unseen[t] for t in w["same_for"])
    five = next(w for w in res["waits"] if "5p" in w["same_for"])
    assert five["discard"]["code"] == "caishen_needs_self_draw"
    # 7m: 4 − 3 in the pung 777m = 1 left
    assert next(i for i in res["improving"] if i["tile"] == "7m")["unseen"] == 1


# --------------------------------------------------------------------------- errors

WAITS_ERRORS = [
    {"seat_wind": "E", "round_wind": "E", "hand": {"concealed": "13m 567m 789m EEE SS", "winning_tile": "2m"}},
    body("E", "E", "13m 567m 789m EEE 9x"),
    body("E", "E", "11111m 567m 789m EE"),
    body("X", "E", "13m 567m 789m EEE SS"),
    body("E", "E", "13m 567m 789m EE", melds=[{"type": "chow", "tiles": "135p", "from": "N"}]),
    body("E", "E", "13m 567m 789m EE", melds=[{"type": "chow", "tiles": "123p", "from": "S"}]),
    body("E", "E", "13m 567m 789m EE", melds=[{"type": "pung", "tiles": "555p", "from": "S"}],
         caishen={"indicator": "5p"}),
    body("E", "E", "13m 567m 789m EEE SS", win={"from": "E"}),
    body("E", "E", "13m 567m 789m EEE SS", win={"by": "self_draw"}),
    body("E", "E", "13m 567m 789m EEE SS", base_points=0),
    body("E", "E", "13m 567m 789m EEE SS", flowers="1f 1f"),
    "not an object",
]


@pytest.mark.parametrize("request_body", WAITS_ERRORS)
def test_bad_input_gets_what_waits_gives_it(client, request_body):
    # the same body without `visible`, to /v1/waits and to /v1/analyze: the same status and problem
    sent = {k: v for k, v in request_body.items() if k != "visible"} if isinstance(request_body, dict) else request_body
    expected = client.post("/v1/waits", json=sent)
    got = client.post("/v1/analyze", json=sent)
    assert expected.status_code in (400, 422)
    assert (got.status_code, got.get_json()) == (expected.status_code, expected.get_json())
    with pytest.raises(ScoreError) as from_waits:
        waits(copy.deepcopy(sent))
    with pytest.raises(ScoreError) as from_analyze:
        analyze(copy.deepcopy(sent))
    if expected.status_code == 422:       # the library reads the 422s; the schema the 400s first
        assert from_analyze.value.to_problem() == from_waits.value.to_problem()


def test_wrong_tile_count_names_both_counts(client):
    # 12 tiles and no meld: 13 (before a draw) or 14 (after it) are due
    got = client.post("/v1/analyze", json=body("E", "E", "13m 567m 789m EEE S"))
    assert got.status_code == 422 and got.get_json()["code"] == "wrong_tile_count"
    assert got.get_json()["errors"] == {"hand.concealed": [(
        "12 concealed tiles; with 0 melds the hand holds 13 (13 − 3 × melds: before its draw) "
        "or 14 (14 − 3 × melds: after it)")]}
    # 15 tiles: the same
    assert client.post("/v1/analyze", json=body("E", "E", "13m 567m 789m EEE SS 99s")).status_code == 422


def test_bad_visible(client):
    got = client.post("/v1/analyze", json=body("E", "E", "13m 567m 789m EEE SS", visible=["2m", "9x"]))
    assert got.status_code == 400 and "visible.1" in got.get_json()["errors"]
    with pytest.raises(ScoreError) as err:
        analyze(body("E", "E", "13m 567m 789m EEE SS", visible=["2m", "9x"]))
    assert err.value.code == "invalid_request" and err.value.path == "visible.1"
    # 3m in hand and 4 more visible: 5 copies
    got = client.post("/v1/analyze", json=body("E", "E", "13m 567m 789m EEE SS", visible="3333m"))
    assert got.status_code == 422 and got.get_json()["code"] == "too_many_copies"
    assert got.get_json()["errors"] == {"visible": ["5 copies of 3m with the visible ones; at most 4 exist"]}


def test_visible_is_capped_before_its_tiles_are_read(client):
    # the set holds 34 × 4 + 8 flowers = 144 tiles: 145 visible ones are too many copies of some
    # kind whatever they are, refused (422 too_many_copies) before any is read (the 145 junk
    # strings are not listed one by one)
    got = client.post("/v1/analyze", json=body("E", "E", "13m 567m 789m EEE SS", visible=["zz"] * 145))
    assert got.status_code == 422 and got.get_json()["code"] == "too_many_copies"
    assert list(got.get_json()["errors"]) == ["visible"]
    # 144 are read: 144 × 1m and the 1m in hand are 145 copies of 1m, where 4 exist
    got = client.post("/v1/analyze", json=body("E", "E", "13m 567m 789m EEE SS", visible=["1m"] * 144))
    assert got.status_code == 422
    assert got.get_json()["errors"] == {"visible": ["145 copies of 1m with the visible ones; at most 4 exist"]}


def test_reasons_in_the_request_language(client):
    # test_fourteen_tiles_what_to_discard's hand with min_tai 10: the 2m wait is worth 6 台 on a
    # discard and 7 by self-draw, both below 10, so neither is eligible, and each says why
    request_body = body("E", "E", "13m 567m 789m EEE SS 9s", rules={"min_tai": 10})
    [wait] = analyze(request_body)["discards"][0]["waits"]
    assert wait["discard"]["reasons"] == ["counted 台 6 is below the minimum of 10"]
    [wait] = analyze(request_body, "zh")["discards"][0]["waits"]
    assert (wait["discard"]["eligible"], wait["self_draw"]["eligible"]) == (False, False)
    assert wait["discard"]["reasons"] == ["计入的台数 6 低于起胡的 10 台"]
    assert wait["self_draw"]["reasons"] == ["计入的台数 7 低于起胡的 10 台"]
    got = client.post("/v1/analyze", json=request_body, headers={"Accept-Language": "zh-CN"})
    assert got.status_code == 200 and got.get_json() == analyze(request_body, "zh")


def test_the_library_takes_the_loaded_input_too():
    # the schema is the one reader: it builds the typed input, which analyze() takes as it is
    from ningbo_score.analysis import AnalyzeInput
    from ningbo_score.readers.fields import load
    from ningbo_score.readers.request_schemas import ANALYZE_REQUEST

    request_body = body("E", "E", "13m 567m 789m EEE SS 9s", visible="2m")
    loaded = load(ANALYZE_REQUEST, copy.deepcopy(request_body))
    assert isinstance(loaded, AnalyzeInput) and loaded.visible == [INDEX["2m"]]
    assert analyze(loaded) == analyze(request_body)


def test_http_answer_is_the_library_answer(client):
    request_body = body("E", "E", "13m 567m 789m EEE SS 9s", visible="2m")
    got = client.post("/v1/analyze", json=request_body)
    assert got.status_code == 200 and got.get_json() == analyze(request_body)


# --------------------------------------------------------------------------- properties

def _faces(request: dict) -> tuple[list[int], int]:
    """Counts by kind of the natural concealed tiles and the number of caishen (handgen's own
    reading of docs/rules.md §2; the presets used here have no white-dragon substitution)."""
    kinds, _ = handgen.caishen_tiles(request)
    counts = [0] * 34
    caishen = 0
    for t in request["hand"]["concealed"]:
        if t in kinds:
            caishen += 1
        else:
            counts[INDEX[t]] += 1
    return counts, caishen


def _changed(data, request: dict) -> dict:
    """The tenpai request with 0-2 concealed tiles swapped for other kinds (within copy limits
    and never a caishen kind), so that hands of every shanten are met."""
    out = copy.deepcopy({k: v for k, v in request.items() if k != "win"})
    concealed = list(out["hand"]["concealed"])
    kinds, _ = handgen.caishen_tiles(out)
    for _ in range(data.draw(st.integers(0, 2), label="swaps")):
        i = data.draw(st.integers(0, len(concealed) - 1), label="at")
        seen = handgen.copies({**out, "hand": {**out["hand"], "concealed": concealed}})
        free = [k for k in KINDS if k not in kinds and seen[k] < 4]
        concealed[i] = data.draw(st.sampled_from(free), label="new tile")
    out["hand"] = {**out["hand"], "concealed": concealed}
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_an_improving_tile_lowers_the_shanten_and_no_other_does(data):
    n_caishen = data.draw(st.sampled_from([0, 0, 1, 2, 3]), label="n_caishen")
    tenpai, _ = data.draw(handgen.tenpai_hands(n_caishen=n_caishen, presets=("ningbo", "ningbo-7baida")))
    request = _changed(data, tenpai)
    res = analyze(copy.deepcopy(request))
    counts, caishen = _faces(request)
    melds = len(request["hand"].get("melds") or [])
    assert res["shanten"] == target_shanten(counts, caishen, melds)
    kinds, _ = handgen.caishen_tiles(request)
    listed = [i["tile"] for i in res["improving"]]
    for k in list(KINDS) + sorted(k for k in kinds if handgen.is_flower(k)):
        if k in kinds:
            after = target_shanten(counts, caishen + 1, melds)
        else:
            counts[INDEX[k]] += 1
            after = target_shanten(counts, caishen, melds)
            counts[INDEX[k]] -= 1
        assert (k in listed) == (after < res["shanten"]), k


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_a_tenpai_hands_improving_tiles_are_its_waits(data):
    n_caishen = data.draw(st.sampled_from([0, 0, 1, 2, 3]), label="n_caishen")
    tenpai, _ = data.draw(handgen.tenpai_hands(n_caishen=n_caishen))
    request = {k: v for k, v in tenpai.items() if k != "win"}
    res = analyze(copy.deepcopy(request))
    assert res["shanten"] == 0
    from_waits = waits(copy.deepcopy(request))
    seen = handgen.copies(request)

    def held_all(t):        # every copy in the hand, its melds or the indicator: /v1/waits skips it
        return seen[t] >= (1 if handgen.is_flower(t) else 4)

    listed = [i["tile"] for i in res["improving"]]
    assert [t for t in listed if not held_all(t)] == from_waits["tiles"]
    # (when every kind completes the hand, equal values are one entry with its tiles in same_for)
    assert sorted(t for w in res["waits"] for t in w.get("same_for", [w["tile"]])) == sorted(from_waits["tiles"])
    for w in res["waits"]:        # each wait's values are /v1/waits's own
        entry = next(e for e in from_waits["waits"] if w["tile"] in e.get("same_for", [e["tile"]]))
        for way in ("self_draw", "discard"):       # (a grouped entry shows its first tile's problem)
            theirs, ours = entry[way], w[way]
            if "code" in theirs:
                assert ours["code"] == theirs["code"] and (ours == theirs or w["tile"] != entry["tile"])
            else:
                assert ours == {k: theirs[k] for k in ("tai", "counted_tai", "eligible", "points", "reasons",
                                                       "outcome")}


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_a_caishen_in_place_of_any_tile_never_raises_the_shanten(data):
    tenpai, _ = data.draw(handgen.tenpai_hands(n_caishen=data.draw(st.sampled_from([1, 2]), label="n"),
                                               presets=("ningbo",)))
    request = _changed(data, tenpai)
    before = analyze(copy.deepcopy(request))["shanten"]
    kinds, _ = handgen.caishen_tiles(request)
    concealed = request["hand"]["concealed"]
    seen = handgen.copies(request)
    spare = [k for k in kinds if seen[k] < (1 if handgen.is_flower(k) else 4)]
    if not spare:
        return
    for i in range(len(concealed)):
        if concealed[i] in kinds:
            continue
        swapped = copy.deepcopy(request)
        swapped["hand"]["concealed"][i] = spare[0]
        assert analyze(swapped)["shanten"] <= before
