"""Waits (听牌) through ``ningbo_score.waits``: hand-worked cases and a property test.

A waits request is a ``/v1/score`` request whose concealed tiles are the hand BEFORE the winning
tile (13 − 3 × melds), with no ``hand.winning_tile`` and no ``win.by``; ``win`` may hold only
``from`` (the discarder assumed for the discard result, by default the winner's 上家) and
``discarded_caishen``.

Every expected value below was worked out by hand from docs/rules.md (§3 shapes, §4 wait types, §5 台
items, §6 points, §7 payments); the comment on each case shows the arithmetic.  Nothing was
copied from the engine's output.

Reminders used throughout:
- 上家: E<-N, S<-E, W<-S, N<-W; the default discarder of a waits request is the winner's 上家;
- ``unseen`` of a kind = 4 − copies in the concealed tiles − copies in the melds − the caishen
  indicator (it is out of play and counts as one copy);
- linear (ningbo, ningbo-7baida) P = base × (1 + tai); self-draw: each of the 3 others pays P;
  discard: the discarder pays 2 × P (nobody related in these cases); an ineligible hand pays 0.
"""
from __future__ import annotations

import copy
from collections import Counter

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import handgen
from helpers import SEATS, T, chow, items_by_id, kong, paid, pung, score_body

from ningbo_score import ScoreError, score, waits

KINDS = tuple(f"{r}{s}" for s in "mps" for r in range(1, 10)) + ("E", "S", "W", "N", "C", "F", "P")
assert len(KINDS) == 34


# --------------------------------------------------------------------------- helpers
def wreq(rules, seat, rnd, concealed, *, melds=(), flowers="", indicator=None, win=None, base=None) -> dict:
    return score_body(rules, seat, rnd, concealed, melds=melds, flowers=flowers, indicator=indicator, win=win,
                      base_points=base)


def entry(res: dict, tile: str) -> dict:
    """The waits entry for ``tile`` (in grouped any-tile answers, the one whose same_for has it)."""
    found = [w for w in res["waits"] if tile in w.get("same_for", [w["tile"]])]
    assert len(found) == 1, f"{tile} listed {len(found)} times in {[w['tile'] for w in res['waits']]}"
    return found[0]


def check_score(body: dict, *, tai, items, points, payers, counted=None, eligible=True, wait=None):
    """A score body as worked out by hand."""
    assert "code" not in body, body
    assert items_by_id(body) == items
    assert sum(items.values()) == tai
    assert body["tai"] == tai
    assert body["counted_tai"] == (tai if counted is None else counted)
    assert body["eligible"] is eligible
    assert body["points"] == points
    assert paid(body) == payers
    winner_gets = sum(payers.values())
    assert sum(body["net"].values()) == 0
    assert max(body["net"].values()) == winner_gets
    if not eligible:
        assert body["reasons"], "an ineligible hand says why"
        assert body["payments"] == [] and set(body["net"].values()) == {0}
    if wait is not None:
        assert body["decomposition"]["wait"] == wait


def check_problem(body: dict, code: str):
    assert body.get("code") == code, body
    assert body["type"] == f"urn:ningbo-score:problem:{code}"
    assert body["status"] == 422


def check_grouping(res: dict, kinds):
    """Grouped any-tile answer: the same_for lists cover ``kinds`` exactly once each, and each
    group's unseen_total is the sum of its tiles' unseen counts."""
    assert res["any_tile"] is True
    covered = [k for w in res["waits"] for k in w["same_for"]]
    assert sorted(covered) == sorted(kinds)
    assert len(covered) == len(set(covered))
    assert sorted(res["tiles"]) == sorted(kinds)
    for w in res["waits"]:
        assert w["tile"] in w["same_for"]
    assert res["unseen_total"] == sum(w["unseen_total"] for w in res["waits"])


# --------------------------------------------------------------------------- hand-worked cases

def test_two_sided_23m_waits_1m_and_4m():
    # S, round E, no caishen.  Meld chow 456m (from E, S's 上家); concealed 23m 789p 345s NN;
    # flowers 2f 6f (S's seat flowers).  23m waits 1m (123m) and 4m (234m); nothing else
    # completes (789p, 345s, NN are fixed; 2m/3m can't pair up alone).
    # Both: two-sided, 4 chows (meld included), pair N is neither seat (S) nor round (E) wind
    #   -> ping_hu 1; no_caishen 1; seat_flower 2f 1 + 6f 1.
    #   discard:   1 + 1 + 2 = 4 台 >= 4 -> eligible, P = 1 + 4 = 5, E (上家) pays 2 × 5 = 10
    #   self-draw: 4 + self_draw 1 = 5 台, P = 6, E, W, N pay 6 each
    # unseen: 1m 4 (none seen); 4m 4 − 1 (in the meld) = 3.
    res = waits(wreq("ningbo", "S", "E", "23m 789p 345s NN", melds=[chow("456m", "E")], flowers="2f 6f"))
    assert res["any_tile"] is False
    assert res["tiles"] == ["1m", "4m"]
    assert [w["tile"] for w in res["waits"]] == ["1m", "4m"]
    assert res["discard_from"] == "E"
    assert entry(res, "1m")["unseen"] == 4
    assert entry(res, "4m")["unseen"] == 3
    assert res["unseen_total"] == 7
    for tile in ("1m", "4m"):
        w = entry(res, tile)
        base_items = {"ping_hu": 1, "no_caishen": 1, "seat_flower": 2}
        check_score(w["discard"], tai=4, items=base_items, points=5, payers={"E": 10}, wait="two_sided")
        check_score(w["self_draw"], tai=5, items={**base_items, "self_draw": 1}, points=6,
                    payers={"E": 6, "W": 6, "N": 6}, wait="two_sided")
        assert w["self_draw"]["decomposition"]["winning_tile"] == tile


def test_discarder_given_in_win_from():
    # The same hand with win.from W: the discard result is paid by W (2 × 5 = 10).
    res = waits(wreq("ningbo", "S", "E", "23m 789p 345s NN", melds=[chow("456m", "E")], flowers="2f 6f",
                     win={"from": "W"}))
    assert res["discard_from"] == "W"
    for tile in ("1m", "4m"):
        assert paid(entry(res, tile)["discard"]) == {"W": 10}
        assert entry(res, tile)["discard"]["net"] == {"E": 0, "S": 10, "W": -10, "N": 0}


def test_edge_12m_waits_3m_discard_ineligible():
    # W, round E.  Meld chow 345m from S (W's 上家); concealed 12m 456p 789p 55s; flower 3f (W's).
    # Only 3m completes 12m (123m); 3m is the 3 of 1-2-3 -> edge.
    #   discard:   edge 1 + no_caishen 1 + seat_flower 1 = 3 台 < 4 -> listed, eligible false, 0 points
    #   self-draw: 3 + self_draw 1 = 4 台 -> eligible, P = 5, S, E, N pay 5 each
    # unseen 3m: 4 − 1 (in the 345m meld) = 3.
    res = waits(wreq("ningbo", "W", "E", "12m 456p 789p 55s", melds=[chow("345m", "S")], flowers="3f"))
    assert res["tiles"] == ["3m"]
    assert res["discard_from"] == "S"
    w = entry(res, "3m")
    assert w["unseen"] == 3 and res["unseen_total"] == 3
    items = {"edge_wait": 1, "no_caishen": 1, "seat_flower": 1}
    check_score(w["discard"], tai=3, items=items, points=0, payers={}, eligible=False, wait="edge")
    check_score(w["self_draw"], tai=4, items={**items, "self_draw": 1}, points=5,
                payers={"S": 5, "E": 5, "N": 5}, wait="edge")


def test_closed_13m_waits_2m():
    # E (dealer), round E.  Concealed 13m 567m 789m EEE SS.  1m can only sit in 123m or a pair
    # 11m, and a pair 11m leaves SS and 3m stranded, so only 2m completes: 123 567 789 EEE + SS.
    #   closed 1 + half_flush 2 (m + honors) + seat_wind_pung E 1 + round_wind_pung E 1
    #   + no_caishen 1 = 6 台 by discard: P = 7, N (E's 上家) pays 14
    #   self-draw: 7 台, P = 8, S, W, N pay 8 each
    # unseen 2m: 4.
    res = waits(wreq("ningbo", "E", "E", "13m 567m 789m EEE SS"))
    assert res["tiles"] == ["2m"]
    assert res["discard_from"] == "N"
    w = entry(res, "2m")
    assert w["unseen"] == 4
    items = {"closed_wait": 1, "half_flush": 2, "seat_wind_pung": 1, "round_wind_pung": 1, "no_caishen": 1}
    check_score(w["discard"], tai=6, items=items, points=7, payers={"N": 14}, wait="closed")
    check_score(w["self_draw"], tai=7, items={**items, "self_draw": 1}, points=8,
                payers={"S": 8, "W": 8, "N": 8}, wait="closed")


def test_single_wait_on_a_lone_honor_with_base_points():
    # S, round E, base_points 2.  Concealed 123p 456p 789s EEE W: the lone W can only pair -> W.
    #   single 1 + round_wind_pung E 1 + no_caishen 1 = 3 台 by discard: ineligible
    #   self-draw: 4 台, P = 2 × (1 + 4) = 10, E, W, N pay 10 each
    # unseen W: 4 − 1 (in hand) = 3.
    res = waits(wreq("ningbo", "S", "E", "123p 456p 789s EEE W", base=2))
    assert res["tiles"] == ["W"]
    w = entry(res, "W")
    assert w["unseen"] == 3
    items = {"single_wait": 1, "round_wind_pung": 1, "no_caishen": 1}
    check_score(w["discard"], tai=3, items=items, points=0, payers={}, eligible=False, wait="single")
    check_score(w["self_draw"], tai=4, items={**items, "self_draw": 1}, points=10,
                payers={"E": 10, "W": 10, "N": 10}, wait="single")


def test_dual_pung_two_pairs():
    # W, round E; concealed 234m 678p 345s EE 99s; flower 3f (W's).  Two pairs: E (EEE + 99s) or
    # 9s (999s + EE); 345s+9s, 234m, 678p admit nothing else.  Discarder S (W's 上家).
    #   E:  dual_pung 1 + round_wind_pung 1 + no_caishen 1 + seat_flower 1 = 4 台 by discard,
    #       P = 5, S pays 10; self-draw 5 台, P = 6, each of E, S, N pays 6
    #   9s: dual_pung 1 + no_caishen 1 + seat_flower 1 = 3 台 by discard: ineligible;
    #       self-draw 4 台, P = 5
    # unseen: E 4 − 2 = 2; 9s 4 − 2 = 2.
    res = waits(wreq("ningbo", "W", "E", "234m 678p 345s EE 99s", flowers="3f"))
    assert sorted(res["tiles"]) == ["9s", "E"]
    assert entry(res, "E")["unseen"] == 2 and entry(res, "9s")["unseen"] == 2
    assert res["unseen_total"] == 4
    e_items = {"dual_pung_wait": 1, "round_wind_pung": 1, "no_caishen": 1, "seat_flower": 1}
    check_score(entry(res, "E")["discard"], tai=4, items=e_items, points=5, payers={"S": 10}, wait="dual_pung")
    check_score(entry(res, "E")["self_draw"], tai=5, items={**e_items, "self_draw": 1}, points=6,
                payers={"E": 6, "S": 6, "N": 6}, wait="dual_pung")
    s_items = {"dual_pung_wait": 1, "no_caishen": 1, "seat_flower": 1}
    check_score(entry(res, "9s")["discard"], tai=3, items=s_items, points=0, payers={}, eligible=False,
                wait="dual_pung")
    check_score(entry(res, "9s")["self_draw"], tai=4, items={**s_items, "self_draw": 1}, points=5,
                payers={"E": 5, "S": 5, "N": 5}, wait="dual_pung")


def test_multi_sided_1112m_waits_2m_single_and_3m_edge():
    # N, round E; concealed 1112m 456p 789p 345s; flowers 4f 8f (N's).  The m part must take the
    # tile: 2m -> 111m + 22m (single), 3m -> 11m + 123m (3 of 1-2-3: edge); 1m (11112) and 4m fail.
    #   each: wait 1 + no_caishen 1 + seat_flower 2 = 4 台 by discard: P = 5, W (N's 上家) pays 10
    #         self-draw 5 台: P = 6, E, S, W pay 6 each
    # unseen: 2m 4 − 1 = 3; 3m 4.
    res = waits(wreq("ningbo", "N", "E", "1112m 456p 789p 345s", flowers="4f 8f"))
    assert res["tiles"] == ["2m", "3m"]
    assert res["discard_from"] == "W"
    assert entry(res, "2m")["unseen"] == 3 and entry(res, "3m")["unseen"] == 4
    for tile, wait_id, wait in (("2m", "single_wait", "single"), ("3m", "edge_wait", "edge")):
        items = {wait_id: 1, "no_caishen": 1, "seat_flower": 2}
        w = entry(res, tile)
        check_score(w["discard"], tai=4, items=items, points=5, payers={"W": 10}, wait=wait)
        check_score(w["self_draw"], tai=5, items={**items, "self_draw": 1}, points=6,
                    payers={"E": 6, "S": 6, "W": 6}, wait=wait)


def test_multi_sided_2345m_waits_2m_and_5m():
    # E, round S; concealed 2345m 111p 789s CCC.  2m -> 22 + 345m; 5m -> 234m + 55; 1m (123+45),
    # 3m, 4m, 6m (234+56) leave a broken pair.  Both single waits.
    #   single 1 + dragon_pung C 1 + no_caishen 1 = 3 台 by discard: ineligible
    #   self-draw 4 台: P = 5, S, W, N pay 5 each
    # unseen: 2m 3, 5m 3.
    res = waits(wreq("ningbo", "E", "S", "2345m 111p 789s CCC"))
    assert res["tiles"] == ["2m", "5m"]
    for tile in ("2m", "5m"):
        w = entry(res, tile)
        assert w["unseen"] == 3
        items = {"single_wait": 1, "dragon_pung": 1, "no_caishen": 1}
        check_score(w["discard"], tai=3, items=items, points=0, payers={}, eligible=False, wait="single")
        check_score(w["self_draw"], tai=4, items={**items, "self_draw": 1}, points=5,
                    payers={"S": 5, "W": 5, "N": 5}, wait="single")
    assert res["unseen_total"] == 6


def test_caishen_big_single_wait_any_tile_only_self_draw():
    # ningbo, S, round E, indicator 5p -> caishen 5p (3 left).  Four melds: chow 123m and 456m
    # from E (S's 上家), pung 9m from W, pung 7m from N; concealed: one 5p (a caishen).
    # Any kind X completes: pair X + caishen (face X) — a caishen single wait (and 大吊).
    # By discard the winning tile's group is that pair with a caishen, and the melds leave no
    # other place: ningbo's single_wait restriction -> caishen_needs_self_draw for every X
    # (for X = 5p: a discarded caishen can't be claimed, same code).
    # Self-draw (no no_caishen: a caishen is held):
    #   X = 1m..9m: full_flush 4 + single 1 + big_single 1 + self_draw 1 = 7 台, P = 8
    #   X = 5p (a second caishen): the pair takes the best face, an m -> the same 7 台 and items
    #   X = honor: half_flush 2 + 1 + 1 + 1 = 5 台, P = 6 (a wind/dragon pair scores nothing)
    #   X = other p or s: 1 + 1 + 1 = 3 台 < 4 -> eligible false
    # Three outcomes -> three groups.  unseen: 1m–6m 3 each (one in a chow), 7m 1, 8m 4, 9m 1,
    # 5p 4 − 1 (indicator) − 1 (hand) = 2 -> 26; honors 7 × 4 = 28; the 17 other p/s 68.
    # Total 136 − 12 (melds) − 1 (hand) − 1 (indicator) = 122.
    res = waits(wreq("ningbo", "S", "E", "5p", indicator="5p",
                     melds=[chow("123m", "E"), pung("9m", "W"), chow("456m", "E"), pung("7m", "N")]))
    check_grouping(res, KINDS)
    assert len(res["waits"]) == 3
    m_group = sorted(T("123456789m")) + ["5p"]
    honors = ["E", "S", "W", "N", "C", "F", "P"]
    others = sorted(k for k in KINDS if k not in m_group and k not in honors)
    assert len(others) == 17
    groups = {tuple(sorted(w["same_for"])): w for w in res["waits"]}
    assert set(groups) == {tuple(sorted(m_group)), tuple(sorted(honors)), tuple(others)}
    gm, gh, go = groups[tuple(sorted(m_group))], groups[tuple(sorted(honors))], groups[tuple(others)]
    assert (gm["unseen_total"], gh["unseen_total"], go["unseen_total"]) == (26, 28, 68)
    assert res["unseen_total"] == 122
    for g in (gm, gh, go):
        check_problem(g["discard"], "caishen_needs_self_draw")
    pay8 = {"E": 8, "W": 8, "N": 8}
    check_score(gm["self_draw"], tai=7, points=8, payers=pay8, wait="single",
                items={"full_flush": 4, "single_wait": 1, "big_single_wait": 1, "self_draw": 1})
    check_score(gh["self_draw"], tai=5, points=6, payers={"E": 6, "W": 6, "N": 6}, wait="single",
                items={"half_flush": 2, "single_wait": 1, "big_single_wait": 1, "self_draw": 1})
    check_score(go["self_draw"], tai=3, points=0, payers={}, eligible=False, wait="single",
                items={"single_wait": 1, "big_single_wait": 1, "self_draw": 1})


def test_caishen_wait_discard_judged_per_placement():
    # ningbo, E (dealer), round E, indicator 9p -> caishen 9p.  Melds: chow 567s and 345p from N
    # (E's 上家), pung C from S; concealed 9p (caishen) 234m; flowers 1f 5f (E's seat flowers).
    # Every X completes (pair X + caishen, 234m), so any_tile.  Constant: dragon_pung C 1,
    # seat_flower 2; no no_caishen; no flush; CCC is a pung so never ping_hu.
    # Self-draw: best is a single wait: 1 + 1 + 2 + self_draw 1 = 5 台, P = 6, S, W, N pay 6 —
    #   the same for every X (X = 9p, a second caishen: pair of caishen + 234m, also 5).
    # Discard from N (RULES §3, §10.2: judged per placement of the winning tile):
    #   2m, 3m, 4m: the tile pairs with its natural twin (22 + 34c, 33 + 24c, 44 + 23c); a pair
    #       without caishen is allowed -> single 1 + 1 + 2 = 4 台, P = 5, N pays 10
    #   1m, 5m: only 123m + 4c / 345m + 2c stand (the tile at the end of a chow: two-sided,
    #       pai_hu 0) -> 0 + 1 + 2 = 3 台: eligible false
    #   every other kind: only pair X + caishen -> caishen_needs_self_draw (9p: a caishen
    #       winning tile can't be claimed, same code)
    # unseen: 1m 4, 5m 4 -> 8; 2m, 3m, 4m 3 each -> 9; total 136 − 9 (melds) − 4 − 1 = 122.
    res = waits(wreq("ningbo", "E", "E", "9p 234m", indicator="9p", flowers="1f 5f",
                     melds=[chow("567s", "N"), chow("345p", "N"), pung("C", "S")]))
    check_grouping(res, KINDS)
    assert res["discard_from"] == "N"
    self_items = {"single_wait": 1, "dragon_pung": 1, "seat_flower": 2, "self_draw": 1}
    for w in res["waits"]:
        check_score(w["self_draw"], tai=5, items=self_items, points=6, payers={"S": 6, "W": 6, "N": 6},
                    wait="single")
    pair_group, chow_group = entry(res, "2m"), entry(res, "1m")
    assert sorted(pair_group["same_for"]) == ["2m", "3m", "4m"]
    assert sorted(chow_group["same_for"]) == ["1m", "5m"]
    assert pair_group["unseen_total"] == 9 and chow_group["unseen_total"] == 8
    check_score(pair_group["discard"], tai=4, items={"single_wait": 1, "dragon_pung": 1, "seat_flower": 2},
                points=5, payers={"N": 10}, wait="single")
    check_score(chow_group["discard"], tai=3, items={"pai_hu": 0, "dragon_pung": 1, "seat_flower": 2},
                points=0, payers={}, eligible=False, wait="two_sided")
    rest = entry(res, "E")
    assert len(res["waits"]) == 3
    assert len(rest["same_for"]) == 34 - 5 and "9p" in rest["same_for"]
    check_problem(rest["discard"], "caishen_needs_self_draw")
    assert rest["unseen_total"] == 122 - 17
    assert res["unseen_total"] == 122


def test_seven_caishen_in_7baida():
    # ningbo-7baida, E (dealer), round E, indicator 5m -> caishen 5m (3 left) and 6m (4).
    # Concealed 555m 6666m (7 caishen) CCC FFF.  No discard wins in this preset: every discard
    # result is discard_win_not_allowed.  5m and 6m have no copy left (4 − 1 − 3, 4 − 4): not
    # listed; all other 32 kinds complete.  Best self-draw (min_tai 5, linear):
    #   honor X: CCC FFF + EEE (seat 1 + round 1) + PPP from caishen, X pungs or pairs with a
    #     caishen: all_honors 8 + all_pungs 2 + dragon_pung 3 + seat_wind 1 + round_wind 1
    #     + wait 1 + self_draw 1 + three_caishen 3 = 20 台, all counted (no three_caishen_bonus
    #     in ningbo-7baida, rule book 2), P = 21
    #   suited X: X pairs with a caishen, CCC FFF EEE PPP: half_flush 2 + all_pungs 2 + dragon 3
    #     + winds 2 + single 1 + self_draw 1 + three_caishen 3 = 14 台, counted 14, P = 15
    #     (X in a pung XXX instead: only 2 dragon pungs -> 13)
    res = waits(wreq("ningbo-7baida", "E", "E", "555m 6666m CCC FFF", indicator="5m"))
    kinds = [k for k in KINDS if k not in ("5m", "6m")]
    check_grouping(res, kinds)
    assert res["discard_from"] == "N"
    for w in res["waits"]:
        check_problem(w["discard"], "discard_win_not_allowed")
    for k in kinds:
        body = entry(res, k)["self_draw"]
        items = items_by_id(body)
        if k in ("E", "S", "W", "N", "C", "F", "P"):
            assert (body["tai"], body["counted_tai"], body["points"]) == (20, 20, 21), k
            assert {i: items.get(i) for i in ("all_honors", "all_pungs", "dragon_pung", "seat_wind_pung",
                                              "round_wind_pung", "self_draw", "three_caishen")} == \
                {"all_honors": 8, "all_pungs": 2, "dragon_pung": 3, "seat_wind_pung": 1,
                 "round_wind_pung": 1, "self_draw": 1, "three_caishen": 3}, k
            assert paid(body) == {"S": 21, "W": 21, "N": 21}
        else:
            assert (body["tai"], body["counted_tai"], body["points"]) == (14, 14, 15), k
            assert items == {"half_flush": 2, "all_pungs": 2, "dragon_pung": 3, "seat_wind_pung": 1,
                             "round_wind_pung": 1, "single_wait": 1, "self_draw": 1, "three_caishen": 3}, k
            assert paid(body) == {"S": 15, "W": 15, "N": 15}
        assert body["eligible"] is True
    # unseen: C 4 − 3 = 1, F 1, the other 30 kinds 4 each
    assert res["unseen_total"] == 1 + 1 + 30 * 4


def test_waits_on_nothing():
    # 147m 147p 147s ESWN: no single tile makes 4 sets and a pair -> 200 body, nothing listed.
    res = waits(wreq("ningbo", "S", "E", "147m 147p 147s ESWN"))
    assert res["waits"] == [] and res["tiles"] == []
    assert res["any_tile"] is False
    assert res["unseen_total"] == 0
    assert res["discard_from"] == "E"


def test_waits_on_nothing_even_with_a_caishen():
    # A caishen is no guarantee: 1 caishen (5p, indicator 5p) + 147m 147p 147s ESW is far from
    # 4 sets and a pair whatever the extra tile.
    res = waits(wreq("ningbo", "S", "E", "5p 147m 147p 147s ESW", indicator="5p"))
    assert res["waits"] == [] and res["tiles"] == [] and res["any_tile"] is False


def test_wait_with_every_copy_visible_is_not_listed():
    # N, round E.  Concealed kong 9s (all four 9s); concealed 78s 234m 567p CC; flowers 4f 8f.
    # 78s waits 6s or 9s, but no 9s is left to draw -> only 6s listed (unseen 4).
    #   6s: two-sided, but the kong is no chow -> pai_hu 0; no_caishen 1; seat_flower 2
    #   discard 3 台: ineligible; self-draw 4 台: P = 5, E, S, W pay 5 each
    request = wreq("ningbo", "N", "E", "78s 234m 567p CC", melds=[kong("9s")], flowers="4f 8f")
    res = waits(request)
    assert res["tiles"] == ["6s"]
    assert res["unseen_total"] == 4 and entry(res, "6s")["unseen"] == 4
    items = {"pai_hu": 0, "no_caishen": 1, "seat_flower": 2}
    check_score(entry(res, "6s")["discard"], tai=3, items=items, points=0, payers={}, eligible=False,
                wait="two_sided")
    check_score(entry(res, "6s")["self_draw"], tai=4, items={**items, "self_draw": 1}, points=5,
                payers={"E": 5, "S": 5, "W": 5}, wait="two_sided")
    # a fifth 9s is impossible: scoring the hand with it is refused
    full = copy.deepcopy(request)
    full["hand"]["concealed"].append("9s")
    full["hand"]["winning_tile"] = "9s"
    full["win"] = {"by": "self_draw"}
    with pytest.raises(ScoreError) as e:
        score(full)
    assert e.value.code == "too_many_copies"


# --------------------------------------------------------------------------- bad requests

def _refused(request) -> ScoreError:
    with pytest.raises(ScoreError) as e:
        waits(request)
    return e.value


def test_winning_tile_is_not_part_of_a_waits_request():
    r = wreq("ningbo", "S", "E", "23m 789p 345s NN", melds=[chow("456m", "E")])
    r["hand"]["winning_tile"] = "1m"
    e = _refused(r)
    assert (e.code, e.status) == ("invalid_request", 400)
    assert "hand.winning_tile" in e.errors()


def test_win_by_is_not_part_of_a_waits_request():
    r = wreq("ningbo", "S", "E", "23m 789p 345s NN", melds=[chow("456m", "E")], win={"by": "self_draw"})
    e = _refused(r)
    assert (e.code, e.status) == ("invalid_request", 400)
    assert "win.by" in e.errors()


def test_fourteen_tiles_is_the_wrong_count():
    # no melds: a waits hand holds 13 tiles, not 14
    e = _refused(wreq("ningbo", "S", "E", "123m 456m 789p 345s NN"))
    assert (e.code, e.status) == ("wrong_tile_count", 422)
    # with one meld: 10, not 11
    e = _refused(wreq("ningbo", "S", "E", "123m 789p 345s NN", melds=[chow("456m", "E")]))
    assert e.code == "wrong_tile_count"


def test_five_copies():
    e = _refused(wreq("ningbo", "S", "E", "11111m 234p 567p 99s"))
    assert (e.code, e.status) == ("too_many_copies", 422)
    # the indicator counts as one copy: four 5p in hand + indicator 5p = 5
    e = _refused(wreq("ningbo", "S", "E", "5555p 234m 567m 99s E", indicator="5p"))
    assert e.code == "too_many_copies"


def test_discarder_is_not_the_winner():
    e = _refused(wreq("ningbo", "S", "E", "23m 789p 345s NN", melds=[chow("456m", "E")], win={"from": "S"}))
    assert e.code == "inconsistent_win_context"


# --------------------------------------------------------------------------- property

PROPS = settings(
    derandomize=True,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def _summary(body: dict):
    if "code" in body:
        return ("problem", body["code"], body["status"])
    return (body["tai"], body["counted_tai"], body["eligible"], body["points"], body["net"],
            items_by_id(body), sorted((p["from"], p["amount"]) for p in body["payments"]))


def _score_or_problem(request: dict) -> dict:
    try:
        return score(copy.deepcopy(request))
    except ScoreError as e:
        return e.to_problem("en")


@PROPS
@given(st.data())
def test_waits_agree_with_score(data):
    n_caishen = data.draw(st.sampled_from([0, 0, 1, 2, 3, 3]), label="n_caishen")
    tenpai, known = data.draw(handgen.tenpai_hands(n_caishen=n_caishen), label="tenpai")
    seat = tenpai["seat_wind"]
    request = {k: v for k, v in tenpai.items() if k != "win"}
    frm = data.draw(st.sampled_from([None] + [s for s in SEATS if s != seat]), label="win.from")
    if frm is not None:
        request["win"] = {"from": frm}
    res = waits(copy.deepcopy(request))
    discarder = frm or SEATS[(SEATS.index(seat) - 1) % 4]
    assert res["discard_from"] == discarder
    # every value says what it is: a score (`scored`) or the problem refusing it (`refused`)
    for w in res["waits"]:
        for way in ("self_draw", "discard"):
            assert w[way]["outcome"] == ("refused" if "code" in w[way] else "scored"), w[way]

    # our own count of what is seen: concealed + melds + indicator
    seen = handgen.copies(request)
    ck, _ = handgen.caishen_tiles(request)
    candidates = list(KINDS) + sorted(k for k in ck if handgen.is_flower(k))

    def unseen(k):
        return (1 if handgen.is_flower(k) else 4) - seen[k]

    listed = res["tiles"]
    event("any tile" if res["any_tile"] else f"{min(len(listed), 3)} waits")
    assert len(listed) == len(set(listed))
    assert known in listed or unseen(known) == 0  # the tile taken out completes the hand

    # expand grouped entries to per-tile expectations
    per_tile = {}
    for w in res["waits"]:
        for k in w.get("same_for", [w["tile"]]):
            per_tile[k] = w
    assert sorted(per_tile) == sorted(listed)
    assert res["unseen_total"] == sum(unseen(k) for k in listed)
    drawable = [k for k in KINDS if unseen(k) > 0]
    assert res["any_tile"] == (bool(drawable) and all(k in listed for k in drawable))
    if not res["any_tile"]:  # one entry per tile, no grouping
        assert [w["tile"] for w in res["waits"]] == listed
        assert all("same_for" not in w for w in res["waits"])

    def full(tile, win):
        r = copy.deepcopy(tenpai)
        r["hand"]["concealed"] = list(r["hand"]["concealed"]) + [tile]
        r["hand"]["winning_tile"] = tile
        r["win"] = win
        return r

    for k in listed:
        w = per_tile[k]
        if "same_for" not in w:
            assert w["tile"] == k and w["unseen"] == unseen(k)
        assert unseen(k) > 0
        got_self = _score_or_problem(full(k, {"by": "self_draw"}))
        got_disc = _score_or_problem(full(k, {"by": "discard", "from": discarder}))
        assert _summary(got_self) == _summary(w["self_draw"]), (k, request)
        assert _summary(got_disc) == _summary(w["discard"]), (k, request)
        assert "code" not in got_self or got_self["code"] != "not_a_winning_hand"
    for k in candidates:
        if k in listed or unseen(k) <= 0:
            continue
        with pytest.raises(ScoreError) as e:
            score(full(k, {"by": "self_draw"}))
        assert e.value.code == "not_a_winning_hand", (k, request)


@st.composite
def any_tile_hands(draw):
    """A hand that waits on any tile by construction: 4 sets of natural tiles + one caishen
    (pair X + caishen completes it for every X, docs/rules.md §2-3), with 0-2 of the sets as melds."""
    preset = draw(st.sampled_from(["ningbo", "ningbo-456", "ningbo-bianfeng", "ningbo-taishu"]), label="preset")
    seat = draw(st.sampled_from(SEATS), label="seat")
    rnd = draw(st.sampled_from(SEATS), label="round")
    indicator = draw(st.sampled_from([k for k in KINDS if k != "P"]), label="indicator")
    left = Counter({k: 4 for k in KINDS})
    left[indicator] = 0          # no natural tile of the caishen kind
    left["P"] = 0                # keeps ningbo-456's white-dragon substitution out of the way
    sets = []
    for _ in range(4):
        chows = [[f"{r + i}{s}" for i in range(3)] for s in "mps" for r in range(1, 8)]
        options = [c for c in chows if all(left[k] >= 1 for k in c)] + [[k] * 3 for k in KINDS if left[k] >= 3]
        tiles = draw(st.sampled_from(options), label="set")
        left.subtract(Counter(tiles))
        sets.append(tiles)
    n_melds = draw(st.integers(0, 2), label="melds")
    upper = SEATS[(SEATS.index(seat) - 1) % 4]
    melds = []
    for tiles in sets[:n_melds]:
        if tiles[0] == tiles[1]:
            frm = draw(st.sampled_from([s for s in SEATS if s != seat]))
            melds.append({"type": "pung", "tiles": tiles, "from": frm})
        else:
            melds.append({"type": "chow", "tiles": tiles, "from": upper})
    concealed = [k for tiles in sets[n_melds:] for k in tiles] + [indicator]
    concealed = draw(st.permutations(concealed))
    return {"rules": preset, "seat_wind": seat, "round_wind": rnd, "caishen": {"indicator": indicator},
            "hand": {"concealed": concealed, "melds": melds}}


@PROPS
@given(any_tile_hands(), st.sampled_from([None, 1, 2, 3]))
def test_any_tile_groups_agree_with_score(request, frm_offset):
    seat = request["seat_wind"]
    if frm_offset is not None:
        request = {**request, "win": {"from": SEATS[(SEATS.index(seat) + frm_offset) % 4]}}
    discarder = request.get("win", {}).get("from") or SEATS[(SEATS.index(seat) - 1) % 4]
    res = waits(copy.deepcopy(request))
    seen = handgen.copies(request)
    drawable = [k for k in KINDS if 4 - seen[k] > 0]
    check_grouping(res, drawable)
    assert res["unseen_total"] == sum(4 - seen[k] for k in drawable)
    for w in res["waits"]:
        assert w["unseen_total"] == sum(4 - seen[k] for k in w["same_for"])
        for k in w["same_for"]:
            def full(win, k=k):
                r = copy.deepcopy(request)
                r["hand"]["concealed"] = list(r["hand"]["concealed"]) + [k]
                r["hand"]["winning_tile"] = k
                r["win"] = win
                return r
            assert _summary(_score_or_problem(full({"by": "self_draw"}))) == _summary(w["self_draw"]), k
            assert _summary(_score_or_problem(full({"by": "discard", "from": discarder}))) == \
                _summary(w["discard"]), k
