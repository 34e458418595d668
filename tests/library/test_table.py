"""Live-table helpers (docs/rules.md §8): next dealer and round wind, claims, levels, escape penalty.

Expected values are worked out by hand from docs/rules.md §8 and the source 000 (《“宁波麻将”游戏介绍》, 456游戏).
Players are positions 0-3 in play order (p + 1 mod 4 is p's 下家); seats of a hand are winds
with play order E -> S -> W -> N -> E.
"""
from __future__ import annotations

import pytest

from ningbo_score.errors import ScoreError
from ningbo_score.api import claims, escape, next_hand
from ningbo_score.table import levels


def _state(resp: dict) -> dict:
    """The three fields a client carries from one next_hand response to the next request."""
    return {k: resp[k] for k in ("dealer", "round_wind", "dealers_this_round")}


def _refused(fn, req, *args) -> ScoreError:
    with pytest.raises(ScoreError) as info:
        fn(req, *args)
    return info.value


# ------------------------------------------------------------------------------------------
# next_hand: every transition


def test_dealer_wins_keeps_the_deal():
    # Position 2 deals the 3rd hand-holder of the East round and wins: 连庄, nothing changes.
    resp = next_hand({"dealer": 2, "round_wind": "E", "dealers_this_round": 3, "result": {"winner": 2}})
    assert resp == {
        "dealer": 2, "round_wind": "E", "dealers_this_round": 3,
        # dealer 2 is E; then in play order 3 S, 0 W, 1 N
        "seat_winds": {"0": "W", "1": "N", "2": "E", "3": "S"},
        "dealer_changed": False, "round_changed": False,
    }


def test_draw_keeps_the_deal():
    # 流局则继续当庄家: a draw never moves the deal, even for the round's last dealer.
    resp = next_hand({"dealer": 1, "round_wind": "S", "dealers_this_round": 2, "result": {"draw": True}})
    assert _state(resp) == {"dealer": 1, "round_wind": "S", "dealers_this_round": 2}
    assert (resp["dealer_changed"], resp["round_changed"]) == (False, False)
    resp = next_hand({"dealer": 3, "round_wind": "W", "dealers_this_round": 4, "result": {"draw": True}})
    assert _state(resp) == {"dealer": 3, "round_wind": "W", "dealers_this_round": 4}
    assert resp["round_changed"] is False


def test_dealer_wins_as_the_fourth_dealer_keeps_the_round():
    resp = next_hand({"dealer": 3, "round_wind": "E", "dealers_this_round": 4, "result": {"winner": 3}})
    assert _state(resp) == {"dealer": 3, "round_wind": "E", "dealers_this_round": 4}
    assert (resp["dealer_changed"], resp["round_changed"]) == (False, False)


@pytest.mark.parametrize("winner", [1, 2, 3])
def test_another_winner_passes_the_deal_to_the_next_position(winner):
    # Dealer 0 loses (to its 下家 1, the opposite 2 or its 上家 3): position 0+1 = 1 deals,
    # whoever won; the round has now seen 1 + 1 = 2 dealers.
    resp = next_hand({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": winner}})
    assert resp == {
        "dealer": 1, "round_wind": "E", "dealers_this_round": 2,
        "seat_winds": {"0": "N", "1": "E", "2": "S", "3": "W"},
        "dealer_changed": True, "round_changed": False,
    }


def test_pass_from_position_3_wraps_to_position_0():
    # (3 + 1) mod 4 = 0; the third dealer of the round hands over to the fourth: count 3 -> 4.
    resp = next_hand({"dealer": 3, "round_wind": "S", "dealers_this_round": 3, "result": {"winner": 1}})
    assert _state(resp) == {"dealer": 0, "round_wind": "S", "dealers_this_round": 4}
    assert (resp["dealer_changed"], resp["round_changed"]) == (True, False)


def test_fourth_dealer_passing_advances_the_round_wind():
    # Round E began with position 0 (0 = 3 - 4 + 1): 0, 1, 2, 3 have dealt; 3 loses, 0 deals
    # again -> South round, count restarts at 1 ("当 D 下庄，A 重新上庄后，该圈变为南风圈").
    resp = next_hand({"dealer": 3, "round_wind": "E", "dealers_this_round": 4, "result": {"winner": 1}})
    assert resp == {
        "dealer": 0, "round_wind": "S", "dealers_this_round": 1,
        "seat_winds": {"0": "E", "1": "S", "2": "W", "3": "N"},
        "dealer_changed": True, "round_changed": True,
    }


@pytest.mark.parametrize("wind,after", [("E", "S"), ("S", "W"), ("W", "N"), ("N", "E")])
def test_round_wind_order_including_north_to_east(wind, after):
    # Round begun by position 2: 2, 3, 0, 1 dealt; 1 passes to 2 -> next round wind.
    resp = next_hand({"dealer": 1, "round_wind": wind, "dealers_this_round": 4, "result": {"winner": 0}})
    assert _state(resp) == {"dealer": 2, "round_wind": after, "dealers_this_round": 1}
    assert resp["round_changed"] is True
    # dealer 2 is E, 3 S, 0 W, 1 N
    assert resp["seat_winds"] == {"0": "W", "1": "N", "2": "E", "3": "S"}


@pytest.mark.parametrize("dealer,winds", [
    (0, {"0": "E", "1": "S", "2": "W", "3": "N"}),
    (1, {"0": "N", "1": "E", "2": "S", "3": "W"}),
    (2, {"0": "W", "1": "N", "2": "E", "3": "S"}),
    (3, {"0": "S", "1": "W", "2": "N", "3": "E"}),
])
def test_seat_winds_for_each_dealer_position(dealer, winds):
    # The dealer is E, then S, W, N following play order (dealer+1, dealer+2, dealer+3).
    resp = next_hand({"dealer": dealer, "round_wind": "E", "dealers_this_round": 1,
                      "result": {"winner": dealer}})
    assert resp["seat_winds"] == winds


def test_a_whole_game_carried_from_response_to_request():
    # Start: position 0 deals, East round, 1 dealer seen.  Every hand is won by a non-dealer,
    # so the deal moves every hand: 4 hands per round, 16 hands for E, S, W, N, then E again.
    state = {"dealer": 0, "round_wind": "E", "dealers_this_round": 1}
    seen = []
    for _ in range(16):
        resp = next_hand({**state, "result": {"winner": (state["dealer"] + 2) % 4}})
        state = _state(resp)
        seen.append((state["dealer"], state["round_wind"], state["dealers_this_round"]))
    assert seen == [
        (1, "E", 2), (2, "E", 3), (3, "E", 4), (0, "S", 1),
        (1, "S", 2), (2, "S", 3), (3, "S", 4), (0, "W", 1),
        (1, "W", 2), (2, "W", 3), (3, "W", 4), (0, "N", 1),
        (1, "N", 2), (2, "N", 3), (3, "N", 4), (0, "E", 1),
    ]
    # Dealer wins and draws in between change nothing.
    resp = next_hand({**state, "result": {"winner": 0}})
    resp = next_hand({**_state(resp), "result": {"draw": True}})
    assert _state(resp) == {"dealer": 0, "round_wind": "E", "dealers_this_round": 1}


def test_null_result_field_means_absent():
    resp = next_hand({"dealer": 0, "round_wind": "E", "dealers_this_round": 1,
                      "result": {"winner": None, "draw": True}})
    assert _state(resp) == {"dealer": 0, "round_wind": "E", "dealers_this_round": 1}


# ------------------------------------------------------------------------------------------
# next_hand: bad input


@pytest.mark.parametrize("req,path", [
    ({"dealer": True, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, "dealer"),
    ({"dealer": 1.5, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, "dealer"),
    ({"dealer": "1", "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, "dealer"),
    ({"dealer": 4, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, "dealer"),
    ({"dealer": -1, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, "dealer"),
    ({"round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, "dealer"),
    ({"dealer": None, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True}}, "dealer"),
    ({"dealer": 0, "round_wind": "e", "dealers_this_round": 1, "result": {"draw": True}}, "round_wind"),
    ({"dealer": 0, "round_wind": "东", "dealers_this_round": 1, "result": {"draw": True}}, "round_wind"),
    ({"dealer": 0, "round_wind": 0, "dealers_this_round": 1, "result": {"draw": True}}, "round_wind"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 0, "result": {"draw": True}}, "dealers_this_round"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 5, "result": {"draw": True}}, "dealers_this_round"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": False, "result": {"draw": True}}, "dealers_this_round"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1}, "result"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": "draw"}, "result"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {}}, "result"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": False}}, "result.draw"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": 1}}, "result.draw"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": 1, "draw": True}}, "result"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": 4}}, "result.winner"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": 2.5}}, "result.winner"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": True}}, "result.winner"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": 1, "by": "x"}}, "result.by"),
    ({"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True},
      "seat_winds": {}}, "seat_winds"),
])
def test_next_hand_bad_input_is_400(req, path):
    err = _refused(next_hand, req)
    assert (err.code, err.status) == ("invalid_request", 400)
    assert path in err.errors("en")
    assert path in err.errors("zh")
    body = err.to_problem("zh")
    assert body["type"] == "urn:ningbo-score:problem:invalid_request"
    assert body["status"] == 400


@pytest.mark.parametrize("req", [None, [], "x", 3])
def test_next_hand_body_must_be_an_object(req):
    err = _refused(next_hand, req)
    assert (err.code, err.status, err.path) == ("invalid_request", 400, "")


def test_next_hand_lists_every_problem():
    err = _refused(next_hand, {"dealer": 9, "round_wind": "X", "dealers_this_round": 2.5,
                               "result": {"winner": "0"}, "extra": 1})
    assert set(err.errors()) == {"dealer", "round_wind", "dealers_this_round", "result.winner", "extra"}
    assert "(and 4 more problems)" in err.detail("en")
    assert "另有 4 个问题" in err.detail("zh")


# ------------------------------------------------------------------------------------------
# claims: every priority rule


def test_no_claims_nobody_takes_the_discard():
    resp = claims({"discarder": "W", "claims": []})
    assert resp["taker"] is None
    assert resp["rule"] == "none"
    assert resp["overridden"] == []
    assert "N" in resp["reason"]  # the seat after W draws next


@pytest.mark.parametrize("kind", ["win", "kong", "pung"])
def test_a_lone_claim_from_any_other_seat_takes_it(kind):
    # Win, pung and kong may come from any seat but the discarder (here W after discarder S).
    resp = claims({"discarder": "S", "claims": [{"seat": "N", "type": kind}]})
    assert resp["taker"] == {"seat": "N", "type": kind}
    assert resp["overridden"] == []


def test_a_lone_chow_from_the_next_seat_takes_it():
    # N's 下家 is E (play order wraps N -> E).
    resp = claims({"discarder": "N", "claims": [{"seat": "E", "type": "chow"}]})
    assert resp["taker"] == {"seat": "E", "type": "chow"}
    assert resp["rule"] == "chow"


def test_win_beats_pung():
    resp = claims({"discarder": "E", "claims": [{"seat": "W", "type": "pung"}, {"seat": "N", "type": "win"}]})
    assert resp["taker"] == {"seat": "N", "type": "win"}
    assert resp["rule"] == "win"
    assert resp["overridden"] == [{"seat": "W", "type": "pung"}]


def test_win_beats_kong_and_chow():
    # Discarder E: S may chow, W kongs, N wins -> the win; the rest in play order S, W.
    resp = claims({"discarder": "E", "claims": [
        {"seat": "S", "type": "chow"}, {"seat": "W", "type": "kong"}, {"seat": "N", "type": "win"}]})
    assert resp["taker"] == {"seat": "N", "type": "win"}
    assert resp["overridden"] == [{"seat": "S", "type": "chow"}, {"seat": "W", "type": "kong"}]


def test_win_from_far_seat_beats_chow_from_next_seat():
    resp = claims({"discarder": "S", "claims": [{"seat": "W", "type": "chow"}, {"seat": "E", "type": "win"}]})
    assert resp["taker"] == {"seat": "E", "type": "win"}


def test_pung_beats_chow():
    # 碰比吃优先: S pungs although W, the discarder's 下家 next in turn, wants to chow.
    resp = claims({"discarder": "S", "claims": [{"seat": "W", "type": "chow"}, {"seat": "E", "type": "pung"}]})
    assert resp["taker"] == {"seat": "E", "type": "pung"}
    assert resp["rule"] == "pung_kong"
    assert resp["overridden"] == [{"seat": "W", "type": "chow"}]


def test_kong_beats_chow():
    resp = claims({"discarder": "W", "claims": [{"seat": "N", "type": "chow"}, {"seat": "S", "type": "kong"}]})
    assert resp["taker"] == {"seat": "S", "type": "kong"}
    assert resp["rule"] == "pung_kong"


@pytest.mark.parametrize("discarder,winners,first", [
    # play order after the discarder: E -> S W N; S -> W N E; W -> N E S; N -> E S W
    ("E", ["N", "S"], "S"),
    ("E", ["W", "N"], "W"),
    ("S", ["E", "N"], "N"),
    ("S", ["E", "W", "N"], "W"),
    ("W", ["S", "E"], "E"),
    ("W", ["S", "N"], "N"),
    ("N", ["W", "S", "E"], "E"),
    ("N", ["W", "S"], "S"),
])
def test_several_wins_first_in_play_order_after_the_discarder_takes_it(discarder, winners, first):
    # 截胡, 没有一炮多响: one winner only.
    resp = claims({"discarder": discarder, "claims": [{"seat": s, "type": "win"} for s in winners]})
    assert resp["taker"] == {"seat": first, "type": "win"}
    assert resp["rule"] == "intercept"
    assert sorted(c["seat"] for c in resp["overridden"]) == sorted(set(winners) - {first})
    assert all(c["type"] == "win" for c in resp["overridden"])


def test_two_wins_and_a_pung():
    # Discarder N: after it E, S, W.  S and W win, E pungs -> S (first winner after N).
    resp = claims({"discarder": "N", "claims": [
        {"seat": "W", "type": "win"}, {"seat": "E", "type": "pung"}, {"seat": "S", "type": "win"}]})
    assert resp["taker"] == {"seat": "S", "type": "win"}
    assert resp["rule"] == "intercept"
    assert resp["overridden"] == [{"seat": "E", "type": "pung"}, {"seat": "W", "type": "win"}]


def test_claim_reason_in_both_languages():
    req = {"discarder": "E", "claims": [{"seat": "N", "type": "win"}, {"seat": "S", "type": "win"}]}
    assert "截胡" in claims(req)["reason"]
    zh = claims(req, "zh")
    assert zh["taker"] == {"seat": "S", "type": "win"}
    assert "截胡" in zh["reason"] and "S" in zh["reason"]


# ------------------------------------------------------------------------------------------
# claims: impossible claims (422 invalid_request) and bad input (400)


@pytest.mark.parametrize("discarder,seat", [("E", "W"), ("E", "N"), ("S", "N"), ("S", "E"), ("N", "S")])
def test_chow_only_from_the_next_seat(discarder, seat):
    err = _refused(claims, {"discarder": discarder, "claims": [{"seat": seat, "type": "chow"}]})
    assert (err.code, err.status) == ("invalid_request", 422)
    assert err.path == "claims.0.type"
    assert err.to_problem()["type"] == "urn:ningbo-score:problem:invalid_request"


@pytest.mark.parametrize("kind", ["win", "pung", "kong", "chow"])
def test_the_discarder_cannot_claim_its_own_discard(kind):
    err = _refused(claims, {"discarder": "S", "claims": [{"seat": "S", "type": kind}]})
    assert (err.code, err.status, err.path) == ("invalid_request", 422, "claims.0.seat")


def test_one_claim_per_seat():
    err = _refused(claims, {"discarder": "E", "claims": [{"seat": "S", "type": "chow"},
                                                         {"seat": "S", "type": "win"}]})
    assert (err.code, err.status, err.path) == ("invalid_request", 422, "claims.1.seat")


def test_two_seats_cannot_both_pung_or_kong_one_discard():
    # 2 (pung) + 2 (pung) + the discard = 5 copies of one kind; there are 4.
    err = _refused(claims, {"discarder": "E", "claims": [{"seat": "S", "type": "pung"},
                                                         {"seat": "N", "type": "kong"}]})
    assert (err.code, err.status, err.path) == ("invalid_request", 422, "claims.1.type")


@pytest.mark.parametrize("req,path", [
    ({"claims": []}, "discarder"),
    ({"discarder": "X", "claims": []}, "discarder"),
    ({"discarder": 1, "claims": []}, "discarder"),
    ({"discarder": "E"}, "claims"),
    ({"discarder": "E", "claims": None}, "claims"),
    ({"discarder": "E", "claims": {"S": "win"}}, "claims"),
    ({"discarder": "E", "claims": ["S"]}, "claims.0"),
    ({"discarder": "E", "claims": [{"seat": "S", "type": "ron"}]}, "claims.0.type"),
    ({"discarder": "E", "claims": [{"seat": "S", "type": "WIN"}]}, "claims.0.type"),
    ({"discarder": "E", "claims": [{"seat": "S"}]}, "claims.0.type"),
    ({"discarder": "E", "claims": [{"type": "win"}]}, "claims.0.seat"),
    ({"discarder": "E", "claims": [{"seat": 1, "type": "win"}]}, "claims.0.seat"),
    ({"discarder": "E", "claims": [{"seat": "s", "type": "win"}]}, "claims.0.seat"),
    ({"discarder": "E", "claims": [{"seat": "S", "type": "win", "tile": "3m"}]}, "claims.0.tile"),
    ({"discarder": "E", "claims": [], "tile": "3m"}, "tile"),
])
def test_claims_bad_input_is_400(req, path):
    err = _refused(claims, req)
    assert (err.code, err.status) == ("invalid_request", 400)
    assert path in err.errors()


def test_type_problems_come_before_impossible_claims():
    # claims.0 is ill-typed (400), claims.1 a chow from the wrong seat (422): the 400 decides
    # the status (docs/rules.md §10.15), and the rule checks never see an ill-typed request.
    err = _refused(claims, {"discarder": "E", "claims": [{"seat": "S", "type": "ron"},
                                                         {"seat": "W", "type": "chow"}]})
    assert (err.code, err.status) == ("invalid_request", 400)
    assert list(err.errors()) == ["claims.0.type"]


# ------------------------------------------------------------------------------------------
# levels


# Transcribed by hand from 000 (《“宁波麻将”游戏介绍》), "积分与级别设置":
# 级别 级别名称 积分 对局分
SEED_LEVELS = [
    (0, "科员", 0, 1), (1, "助科", 50, 5), (2, "副科", 100, 10), (3, "科长", 200, 20),
    (4, "助处", 500, 30), (5, "副处", 3000, 40), (6, "处长", 10000, 60), (7, "助局", 30000, 80),
    (8, "副局", 50000, 100), (9, "局长", 150000, 150), (10, "助市", 300000, 200),
    (11, "副市", 500000, 260), (12, "市长", 1000000, 300), (13, "助省", 2000000, 400),
    (14, "副省", 4000000, 500), (15, "省长", 8000000, 600), (16, "雀神", 20000000, 700),
]


def test_levels_match_the_seed_table():
    table = levels()["levels"]
    assert [(r["level"], r["name"], r["threshold"], r["base_points"]) for r in table] == SEED_LEVELS


def test_levels_spot_checks_and_shape():
    table = {r["level"]: r for r in levels()["levels"]}
    # docs/rules.md §8: "0 科员 1 … 16 雀神 700"
    assert (table[0]["name"], table[0]["threshold"], table[0]["base_points"]) == ("科员", 0, 1)
    assert (table[16]["name"], table[16]["threshold"], table[16]["base_points"]) == ("雀神", 20000000, 700)
    # "5	副处	3000	40" and "11	副市	500000	260" in the seed
    assert (table[5]["name"], table[5]["threshold"], table[5]["base_points"]) == ("副处", 3000, 40)
    assert (table[11]["name"], table[11]["threshold"], table[11]["base_points"]) == ("副市", 500000, 260)
    for row in table.values():
        assert set(row) == {"level", "name", "name_en", "threshold", "base_points"}
        assert isinstance(row["name_en"], str) and row["name_en"]
    assert levels()["source"] == "《“宁波麻将”游戏介绍》, 456游戏, 2010-9-19"   # by title and date
    # thresholds and base points rise strictly with the level
    rows = levels()["levels"]
    assert all(a["threshold"] < b["threshold"] and a["base_points"] < b["base_points"]
               for a, b in zip(rows, rows[1:]))


def test_levels_returns_a_fresh_copy():
    levels()["levels"][0]["base_points"] = 999
    assert levels()["levels"][0]["base_points"] == 1


# ------------------------------------------------------------------------------------------
# escape


@pytest.mark.parametrize("base,penalty", [(1, 24), (5, 120), (37, 888)])  # 24 × base
def test_escape_from_base_points(base, penalty):
    # to the house (every preset's escape_penalty_to, docs/rules.md §8): the others gain nothing
    assert escape({"base_points": base}) == {"penalty": penalty, "multiplier": 24,
                                             "base_points": base, "level": None, "to": "house", "each_other": 0}


@pytest.mark.parametrize("level,base,penalty", [
    (0, 1, 24),        # 科员 对局分 1: 24 × 1
    (4, 30, 720),      # 助处 30: 24 × 30
    (9, 150, 3600),    # 局长 150: 24 × 150
    (11, 260, 6240),   # 副市 260: 24 × 260
    (16, 700, 16800),  # 雀神 700: 24 × 700
])
def test_escape_from_level(level, base, penalty):
    assert escape({"level": level}) == {"penalty": penalty, "multiplier": 24,
                                        "base_points": base, "level": level, "to": "house", "each_other": 0}


@pytest.mark.parametrize("rules,to,each", [
    ("ningbo-456", "house", 0),                                      # every preset: the house
    ({"preset": "ningbo", "escape_penalty_to": "table"}, "table", 16),   # 8 × 2 to each other player
    ({"preset": "ningbo-7baida", "escape_penalty_to": "house"}, "house", 0),
])
def test_escape_receiver_is_the_rules_option(rules, to, each):
    # base 2: 24 × 2 = 48 from the leaver; to the table, 48 / 3 = 16 to each of the other three
    answer = escape({"base_points": 2, "rules": rules})
    assert (answer["penalty"], answer["to"], answer["each_other"]) == (48, to, each)


def test_escape_null_means_absent():
    assert escape({"base_points": 2, "level": None})["penalty"] == 48  # 24 × 2
    assert escape({"base_points": None, "level": 3})["penalty"] == 480  # 科长 20: 24 × 20


@pytest.mark.parametrize("req,path", [
    ({}, ""),
    ({"base_points": None, "level": None}, ""),
    ({"base_points": 1, "level": 0}, ""),
    ({"base_points": 0}, "base_points"),
    ({"base_points": -3}, "base_points"),
    ({"base_points": True}, "base_points"),
    ({"base_points": 2.5}, "base_points"),
    ({"base_points": "2"}, "base_points"),
    ({"level": 17}, "level"),
    ({"level": -1}, "level"),
    ({"level": False}, "level"),
    ({"level": 1.5}, "level"),
    ({"base_points": 1, "reason": "quit"}, "reason"),
])
def test_escape_bad_input_is_400(req, path):
    err = _refused(escape, req)
    assert (err.code, err.status) == ("invalid_request", 400)
    assert any(p.path == path for p in err.problems)
    assert all(p.en and p.zh for p in err.problems)


@pytest.mark.parametrize("req", [None, [1], 24])
def test_escape_body_must_be_an_object(req):
    err = _refused(escape, req)
    assert (err.code, err.status, err.path) == ("invalid_request", 400, "")


def test_integral_floats_are_counts_in_the_table_helpers():
    """Rule book 2 (docs/api.md): 2.0 is the count 2.  Rule book 1 refused the 1.0, 2.0 of the
    cases above; now dealer 1.0 who wins keeps the deal (docs/rules.md §8: the dealer wins ->
    stays), and 24 x base points 2.0 = 48 (§8: leaving costs 24 x base points)."""
    resp = next_hand({"dealer": 1.0, "round_wind": "E", "dealers_this_round": 2.0, "result": {"winner": 1.0}})
    assert _state(resp) == {"dealer": 1, "round_wind": "E", "dealers_this_round": 2}
    assert escape({"base_points": 2.0})["penalty"] == 48
