"""POST /v1/sessions/settle (docs/api.md): a session's hands in order, the rotation of the deal
(docs/rules.md §8), the running totals, the fewest transfers and the stats.

Every expected value is worked out by hand in a comment, from docs/rules.md §5-§8.  The hands:

- FLUSH, "123m 456m 789m 234m 55m" won on 4m, no caishen: every set a chow, the wait two-sided
  (23m+4m or 56m+4m), the pair 5m carries no 台, so 平胡 1; 硬胡 1 (no caishen); 清一色 4 (all
  characters).  Self-drawn: + 自摸 1 = 7 台, points 1 × (1 + 7) = 8 from each of the three others
  (the winner +24).  On a discard: 6 台, points 1 × (1 + 6) = 7, the discarder pays 2 × 7 = 14
  and the others nothing (§7).
"""
from __future__ import annotations

import itertools
import json
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ningbo_score.errors import ScoreError
from ningbo_score.rules import MAX_SAFE_INTEGER
from ningbo_score.sessions import MAX_HANDS, fewest_transfers, settle

PLAYERS = ["Ann", "Bo", "Cy", "Di"]
FLUSH = {"concealed": "123m 456m 789m 234m 55m", "winning_tile": "4m"}


def tsumo(seat: str, **more: typing.Any) -> dict:
    """FLUSH self-drawn by ``seat``: 7 台, 8 from each other seat."""
    return {"score": {"seat_wind": seat, "hand": FLUSH, "win": {"by": "self_draw"}, **more}}


def ron(seat: str, discarder: str, **more: typing.Any) -> dict:
    """FLUSH won by ``seat`` on ``discarder``'s discard: 6 台, the discarder pays 14."""
    return {"score": {"seat_wind": seat, "hand": FLUSH, "win": {"by": "discard", "from": discarder}, **more}}


def session(hands: list, **more: typing.Any) -> dict:
    return {"players": PLAYERS, "first_dealer": "Ann", "hands": hands, **more}


def by_name(a: int, b: int, c: int, d: int) -> dict:
    return dict(zip(PLAYERS, (a, b, c, d)))


def named(answer: dict) -> list[dict]:
    """The answer's hands with their players by name: the answer names each player once, in
    ``players``, and its hands by position there (``dealer``, ``winner``, ``from``; ``net`` and
    ``totals`` in ``players`` order)."""
    p = answer["players"]
    return [{**h, "dealer": p[h["dealer"]], "winner": None if h["winner"] is None else p[h["winner"]],
             "from": None if h["from"] is None else p[h["from"]], "net": dict(zip(p, h["net"])),
             "totals": dict(zip(p, h["totals"])),
             "seats": {w: p[(h["dealer"] + k) % 4] for k, w in enumerate("ESWN")}} for h in answer["hands"]]


def refused(body: typing.Any) -> ScoreError:
    with pytest.raises(ScoreError) as info:
        settle(body)
    return info.value


# --- the East round, with 连庄 ---------------------------------------------------------------

# Ann deals first.  Seats follow the dealer: under Ann E=Ann S=Bo W=Cy N=Di; under Bo E=Bo S=Cy
# W=Di N=Ann; under Cy E=Cy S=Di W=Ann N=Bo; under Di E=Di S=Ann W=Bo N=Cy.
EAST_ROUND = [
    tsumo("E"),          # 0 Ann deals and self-draws: Ann +24, the others -8; the dealer won: Ann again
    ron("S", "W"),       # 1 Ann deals; Bo (S) wins on Cy's (W) discard: Bo +14, Cy -14; Bo deals
    tsumo("E"),          # 2 Bo deals and self-draws: Bo +24, the others -8; Bo again
    ron("W", "N"),       # 3 Bo deals; Di (W) wins on Ann's (N) discard: Di +14, Ann -14; Cy deals
    {"draw": True},      # 4 Cy deals; drawn: under ningbo the dealer stays (draw_keeps_dealer)
    tsumo("S"),          # 5 Cy deals; Di (S) self-draws: Di +24, the others -8; Di deals, 4th of the round
    ron("N", "E"),       # 6 Di deals; Cy (N) wins on Di's (E) discard: Cy +14, Di -14; the round's 4th
]                        #   dealer loses the deal: Ann deals again and the South round begins


def test_a_whole_east_round_with_lianzhuang():
    answer = settle(session(EAST_ROUND))
    assert answer["players"] == PLAYERS
    # the hands name players by position in `players`: hand 1, Ann (0) deals, Bo (1) wins on Cy's (2)
    # discard; gains in players order
    assert {k: answer["hands"][1][k] for k in ("dealer", "winner", "from", "net", "totals")} == {
        "dealer": 0, "winner": 1, "from": 2, "net": [0, 14, -14, 0], "totals": [24, 6, -22, -8]}
    assert "seats" not in answer["hands"][1]
    hands = named(answer)
    assert [(h["dealer"], h["round_wind"]) for h in hands] == [
        ("Ann", "E"), ("Ann", "E"), ("Bo", "E"), ("Bo", "E"), ("Cy", "E"), ("Cy", "E"), ("Di", "E")]
    assert hands[3]["seats"] == {"E": "Bo", "S": "Cy", "W": "Di", "N": "Ann"}
    assert hands[6]["seats"] == {"E": "Di", "S": "Ann", "W": "Bo", "N": "Cy"}
    assert [(h["outcome"], h["winner"], h["by"], h["from"], h["tai"]) for h in hands] == [
        ("win", "Ann", "self_draw", None, 7), ("win", "Bo", "discard", "Cy", 6),
        ("win", "Bo", "self_draw", None, 7), ("win", "Di", "discard", "Ann", 6),
        ("draw", None, None, None, None), ("win", "Di", "self_draw", None, 7),
        ("win", "Cy", "discard", "Di", 6)]
    assert [h["net"] for h in hands] == [
        by_name(24, -8, -8, -8), by_name(0, 14, -14, 0), by_name(-8, 24, -8, -8), by_name(-14, 0, 0, 14),
        by_name(0, 0, 0, 0), by_name(-8, -8, -8, 24), by_name(0, 0, 14, -14)]
    # running totals: (24 -8 -8 -8), (24 6 -22 -8), (16 30 -30 -16), (2 30 -30 -2), the same,
    # (-6 22 -38 22), (-6 22 -24 8)
    assert [h["totals"] for h in hands] == [
        by_name(24, -8, -8, -8), by_name(24, 6, -22, -8), by_name(16, 30, -30, -16), by_name(2, 30, -30, -2),
        by_name(2, 30, -30, -2), by_name(-6, 22, -38, 22), by_name(-6, 22, -24, 8)]
    assert answer["totals"] == by_name(-6, 22, -24, 8)
    # No group of players sums to 0 but all four, so 3 transfers, from Ann and Cy to Bo and Di.
    # Of the trees on {Ann, Cy} x {Bo, Di}: without Ann-Bo: Ann→Di 6, Cy→Bo 22, Cy→Di 2 (largest
    # 22); without Ann-Di: Ann→Bo 6, Cy→Bo 16, Cy→Di 8 (largest 16); without Cy-Bo or Cy-Di, Ann
    # would pay 22 or 8, more than it owes (a winner would pass money on).  Smallest largest: 16.
    assert answer["transfers"] == [{"from": "Ann", "to": "Bo", "amount": 6},
                                   {"from": "Cy", "to": "Bo", "amount": 16},
                                   {"from": "Cy", "to": "Di", "amount": 8}]
    assert answer["stats"] == {
        "Ann": {"wins": 1, "self_draws": 1, "dealt_in": 1, "best_tai": 7},     # won 0, fed 3
        "Bo": {"wins": 2, "self_draws": 1, "dealt_in": 0, "best_tai": 7},      # won 1 and 2
        "Cy": {"wins": 1, "self_draws": 0, "dealt_in": 1, "best_tai": 6},      # won 6, fed 1
        "Di": {"wins": 2, "self_draws": 1, "dealt_in": 1, "best_tai": 7},      # won 3 and 5, fed 6
    }
    assert answer["next"] == {"dealer": "Ann", "round_wind": "S",
                              "seats": {"E": "Ann", "S": "Bo", "W": "Cy", "N": "Di"}}


def test_the_round_wind_changes_when_the_first_dealer_deals_again():
    # After the East round above, Ann deals the South round's first hand: its round_wind is S,
    # filled in when left out and accepted when given; E there is a dealer_sequence.
    filled = named(settle(session(EAST_ROUND + [tsumo("E")])))[7]
    assert (filled["dealer"], filled["round_wind"], filled["net"]) == ("Ann", "S", by_name(24, -8, -8, -8))
    given_s = named(settle(session(EAST_ROUND + [tsumo("E", round_wind="S")])))[7]
    assert given_s == filled
    err = refused(session(EAST_ROUND + [tsumo("E", round_wind="E")]))
    assert (err.status, err.code, err.extra) == (422, "dealer_sequence", {"hand_index": 7})
    assert err.path == "round_wind"


def test_a_hand_of_the_session_that_gives_its_round_wind():
    # The first hand in the East round says so; the same hand calling itself South is refused.
    assert settle(session([tsumo("E", round_wind="E")]))["hands"][0]["round_wind"] == "E"
    err = refused(session([{"draw": True}, tsumo("E", round_wind="S")]))
    assert (err.code, err.extra["hand_index"]) == ("dealer_sequence", 1)
    problem = err.to_problem("zh")
    assert problem["hand_index"] == 1 and "南" not in problem["detail"] and "东风圈" in problem["detail"]


# --- draws ------------------------------------------------------------------------------------

@pytest.mark.parametrize("rules,dealers,next_", [
    # draw_keeps_dealer on (ningbo): a draw never moves the deal, not even the 4th dealer's
    ("ningbo", ["Ann"] * 5, ("Ann", "E")),
    # off (ningbo-taishu): a draw passes the deal like another's win; after Di, the 4th, Ann
    # deals again and the South round begins
    ("ningbo-taishu", ["Ann", "Bo", "Cy", "Di", "Ann"], ("Bo", "S")),
    # the option alone, in a rules object
    ({"preset": "ningbo", "draw_keeps_dealer": False}, ["Ann", "Bo", "Cy", "Di", "Ann"], ("Bo", "S")),
])
def test_a_draw_under_each_draw_keeps_dealer(rules, dealers, next_):
    answer = settle(session([{"draw": True}] * 5, rules=rules))
    assert [h["dealer"] for h in named(answer)] == dealers
    assert (answer["next"]["dealer"], answer["next"]["round_wind"]) == next_
    assert answer["hands"][-1]["round_wind"] == ("E" if rules == "ningbo" else "S")
    assert answer["totals"] == by_name(0, 0, 0, 0) and answer["transfers"] == []
    assert answer["hands"][0]["outcome"] == "draw" and answer["hands"][0]["net"] == [0, 0, 0, 0]


def test_the_sessions_draw_keeps_dealer_moves_the_deal_not_the_hands():
    # A hand's own rules (ningbo-taishu, draw_keeps_dealer off) score that hand only: the
    # session's ningbo keeps the deal after a draw.
    answer = settle(session([{"draw": True}, tsumo("S", rules="ningbo-taishu"), {"draw": True}]))
    assert [h["dealer"] for h in named(answer)] == ["Ann", "Ann", "Bo"]


# --- net and penalty hands ----------------------------------------------------------------------

def test_an_escape_penalty_to_the_table():
    # escape_penalty_to table: Ann deals; Cy (W) leaves: 24 × the session's base 2 = 48, 8 × 2 =
    # 16 to each other player.  A penalty moves the deal like a draw: under ningbo Ann deals again,
    # and Di (N) leaves at the hand's own base 5: 120, 40 to each other.
    rules = {"preset": "ningbo", "escape_penalty_to": "table"}
    answer = settle(session([{"penalty": {"escape": "W"}}, {"penalty": {"escape": "N", "base_points": 5}}],
                            base_points=2, rules=rules))
    assert [h["net"] for h in named(answer)] == [by_name(16, 16, -48, 16), by_name(40, 40, 40, -120)]
    assert named(answer)[1]["dealer"] == "Ann" and answer["hands"][1]["outcome"] == "penalty"
    # totals 56 56 -8 -104: Cy and Di owe; {Ann, Bo} with {Cy, Di} is the only split, no pair sums
    # to 0, so 3 transfers.  Trees on {Cy, Di} x {Ann, Bo}: without Cy-Ann: Cy→Bo 8, Di→Ann 56,
    # Di→Bo 48 (largest 56); without Cy-Bo: Cy→Ann 8, Di→Ann 48, Di→Bo 56 (largest 56); the
    # others make Cy pay more than 8.  A tie at 56: sorted by (from, to) in players order, the
    # lists begin (Cy, Bo) and (Cy, Ann): (Cy, Ann) comes first.
    assert answer["totals"] == by_name(56, 56, -8, -104) and answer["house"] == []
    assert answer["transfers"] == [{"from": "Cy", "to": "Ann", "amount": 8},
                                   {"from": "Di", "to": "Ann", "amount": 48},
                                   {"from": "Di", "to": "Bo", "amount": 56}]
    assert all(s["wins"] == 0 and s["best_tai"] is None for s in answer["stats"].values())


def test_an_escape_penalty_to_the_house():
    # ningbo (escape_penalty_to house, docs/rules.md §8: "其他剩余玩家不得分"), base 1.
    # 0: Ann deals, Ann self-draws FLUSH: Ann +24, the others -8; Ann again.
    # 1: Ann deals; Bo (S) leaves: Bo -24, nobody gains; Ann again (a penalty moves the deal like a draw).
    # 2: Ann deals; Di leaves, named by name, at base 2: Di -48.
    # 3: Ann deals; Bo (S) leaves again: Bo -24.
    hands = [tsumo("E"), {"penalty": {"escape": "S"}}, {"penalty": {"escape": "Di", "base_points": 2}},
             {"penalty": {"escape": "Bo"}}]
    answer = settle(session(hands))
    assert [h["net"] for h in named(answer)][1:] == [by_name(0, -24, 0, 0), by_name(0, 0, 0, -48),
                                                    by_name(0, -24, 0, 0)]
    # totals: Ann 24, Bo -8 - 24 - 24 = -56, Cy -8, Di -8 - 48 = -56: they sum to -128, minus
    # what is owed to the house, merged per player in players order: Bo 48, Di 48 (= 96... and
    # 24 + 48 + 24 + ... : Bo 24 + 24 = 48, Di 48, 96 in all; -8 × 3 + 24 = 0 is the table's part).
    assert answer["totals"] == by_name(24, -56, -8, -56)
    assert answer["house"] == [{"from": "Bo", "amount": 48}, {"from": "Di", "amount": 48}]
    assert sum(answer["totals"].values()) == -96
    # among the players: each total plus what it owes the house: Ann 24, Bo -8, Cy -8, Di -8 (sum
    # 0): 3 transfers, each loser to Ann, 8 each.
    assert answer["transfers"] == [{"from": "Bo", "to": "Ann", "amount": 8}, {"from": "Cy", "to": "Ann", "amount": 8},
                                   {"from": "Di", "to": "Ann", "amount": 8}]
    assert [h["dealer"] for h in named(answer)] == ["Ann"] * 4
    # an escape alone: the house's, no transfer
    alone = settle(session([{"penalty": {"escape": "Cy"}}], base_points=3))
    assert alone["totals"] == by_name(0, 0, -72, 0) and alone["transfers"] == []
    assert alone["house"] == [{"from": "Cy", "amount": 72}]


def test_the_escape_route_agrees_with_the_option(client):
    # /v1/table/escape: 24 × base; to the house by default (every preset), 8 × base each to the table
    assert client.post("/v1/table/escape", json={"base_points": 5}).get_json() == {
        "penalty": 120, "multiplier": 24, "base_points": 5, "level": None, "to": "house", "each_other": 0}
    table = client.post("/v1/table/escape", json={"level": 2, "rules": {"preset": "ningbo-456",
                                                                         "escape_penalty_to": "table"}}).get_json()
    # level 2 副科: base 10 -> 240, 80 to each other player
    assert (table["penalty"], table["to"], table["each_other"]) == (240, "table", 80)
    response = client.post("/v1/table/escape", json={"base_points": 5, "rules": {"escape_penalty_to": "winner"}})
    assert response.status_code == 400 and list(response.get_json()["errors"]) == ["rules.escape_penalty_to"]


def test_a_hand_names_a_seat_by_a_players_name():
    # Under ningbo-taishu the deal passes after a draw: hand 1 is Bo's (E Bo, S Cy, W Di, N Ann).
    # Its net by names, mixed with seats: Cy +9 (S), Ann -3 (N), the others -3.
    answer = settle(session([{"draw": True}, {"net": {"Cy": 9, "N": -3, "Bo": -3, "Di": -3}}], rules="ningbo-taishu"))
    assert named(answer)[1]["net"] == by_name(-3, -3, 9, -3)
    # the same seat twice (Bo is E of hand 1): a 422 at that hand
    err = refused(session([{"draw": True}, {"net": {"Bo": 9, "E": -3, "W": -3, "N": -3}}], rules="ningbo-taishu"))
    assert (err.status, err.code, err.path, err.extra) == (422, "invalid_request", "net", {"hand_index": 1})
    # a name of nobody at the table: a 422 at its key (as first_dealer's); a seat wind is the seat
    err = refused(session([{"net": {"Ed": 9, "S": -3, "W": -3, "N": -3}}]))
    assert (err.status, err.code, err.path) == (422, "invalid_request", "hands.0.net.Ed")
    err = refused(session([{"draw": True}, {"penalty": {"escape": "Ed"}}]))
    assert (err.status, err.code, err.path) == (422, "invalid_request", "hands.1.penalty.escape")
    assert "Ed" in err.problems[0].en and "Ed" in err.to_problem("zh")["detail"] + str(err.to_problem("zh"))
    # players named like seats: a seat wind is always read as the seat (W of hand 0 is "S"'s
    # neighbour... here players E S W N sit as W N E S): "S" leaving is the seat S, player "N"
    odd = {"players": ["W", "N", "E", "S"], "first_dealer": "W", "hands": [{"penalty": {"escape": "S"}}]}
    assert settle(odd)["totals"] == {"W": 0, "N": -24, "E": 0, "S": 0}


def test_a_net_hand_is_by_seat_of_that_hand_and_moves_the_deal_like_a_draw():
    # Under ningbo-taishu the deal passes after a draw: hand 1 is Bo's, whose S is Cy.
    answer = settle(session([{"draw": True}, {"net": {"E": -3, "S": 9, "W": -3, "N": -3}}], rules="ningbo-taishu"))
    assert named(answer)[1]["net"] == by_name(-3, -3, 9, -3)
    assert answer["next"]["dealer"] == "Cy"
    err = refused(session([{"net": {"E": -3, "S": 9, "W": -3, "N": -2}}]))
    # -3 + 9 - 3 - 2 = 1
    assert (err.status, err.code, err.path) == (422, "invalid_request", "hands.0.net")
    assert "sum to 1" in err.problems[0].en


def test_a_win_under_the_minimum_is_refused_and_never_moves_the_deal():
    # 123m 456m 789p 234s 55s on 4m from W: 平胡 1 + 硬胡 1 = 2 台 < 4: not eligible.  A declared
    # win under the minimum is no win (docs/rules.md §11): a 422 below_minimum at its hand.
    hand = {"score": {"seat_wind": "S", "hand": {"concealed": "123m 456m 789p 234s 55s", "winning_tile": "4m"},
                      "win": {"by": "discard", "from": "W"}}}
    err = refused(session([tsumo("E"), hand]))
    problem = err.to_problem()
    assert (problem["status"], problem["code"], problem["hand_index"]) == (422, "below_minimum", 1)
    assert "minimum of 4" in problem["detail"]
    zh = err.to_problem("zh")
    assert zh["title"] == "不够起胡台数" and "诈胡" in zh["detail"]
    # ningbo-taishu (no minimum, but one of its patterns needed): the same hand is no win either
    err = refused(session([hand], rules="ningbo-taishu"))
    assert (err.code, err.extra) == ("below_minimum", {"hand_index": 0})
    # the table records it as what it was: a draw keeps the deal where it was (Ann, E round)
    answer = settle(session([tsumo("E"), {"draw": True}]))
    assert answer["next"]["dealer"] == "Ann"


def test_a_replayed_win_under_the_minimum_is_refused_at_its_hand():
    # The log of tests/play/test_replay.py's robbed kong: S robs W's added kong of 7p with 123m 456m
    # 789m 68p SS: 抢杠 1 + 夹 1 + 硬胡 1 = 3 台 < 4 (docs/rules.md §5), so the declared win is no
    # win (§11.6): replay's own 422 illegal_event, reason below_minimum at the win (event 12),
    # here at hand 1 of the session, and nothing is settled.
    from test_replay import _robbed
    log = {k: v for k, v in _robbed().items() if k not in ("rules", "round_wind")}
    err = refused(session([tsumo("E"), {"replay": log}]))
    problem = err.to_problem()
    assert (problem["status"], problem["code"], problem["reason"]) == (422, "illegal_event", "below_minimum")
    assert (problem["hand_index"], problem["event_index"]) == (1, 12)
    assert problem["score"]["tai"] == 3 and problem["score"]["eligible"] is False
    # with the session's minimum lowered to 3 the same log is a win: P = 1 + 3 = 4, and the robbed
    # W pays 5 × 4 = 20 (§7); hand 1 is dealt by Ann again (hand 0 was E's self-draw: 连庄), so
    # the hand's S is Bo and its W is Cy
    answer = settle(session([tsumo("E"), {"replay": log}], rules={"preset": "ningbo", "min_tai": 3}))
    assert named(answer)[1]["net"] == by_name(0, 20, -20, 0)


def test_hands_take_the_sessions_base_points_and_rules():
    # base 3: the self-drawn FLUSH is 3 × (1 + 7) = 24 from each; its own base 1 gives 8.
    answer = settle(session([tsumo("E"), tsumo("E", base_points=1)], base_points=3))
    assert [h["net"][0] for h in answer["hands"]] == [72, 24]
    # ningbo-456 doubles: 7 台 is 2^(7 - 4) = 8 points, 1 × 8 from each: the same 24; with
    # item_tai full_flush 5 (8 台): 2^4 = 16 from each, 48.
    rules = {"preset": "ningbo-456", "item_tai": {"full_flush": 5}}
    assert settle(session([tsumo("E")], rules=rules))["hands"][0]["net"][0] == 48


# --- failing hands ----------------------------------------------------------------------------

def test_a_failing_hand_is_its_endpoints_problem_with_hand_index():
    # 13 concealed tiles where 14 are due: /v1/score's 422 wrong_tile_count, at hand 2.
    thirteen = {"score": {"seat_wind": "E", "hand": {"concealed": "123m 456m 789p 234s 5s", "winning_tile": "5s"},
                          "win": {"by": "self_draw"}}}
    err = refused(session([{"draw": True}, tsumo("E"), thirteen]))
    problem = err.to_problem()
    assert (problem["status"], problem["code"], problem["hand_index"]) == (422, "wrong_tile_count", 2)
    assert list(problem["errors"]) == ["hand.concealed"]
    # /v1/score's schema: an unknown tile is its 400, at hand 0; a missing seat_wind too
    err = refused(session([{"score": {**tsumo("E")["score"], "hand": {**FLUSH, "winning_tile": "0m"}}}]))
    assert (err.status, err.code, err.extra, err.path) == (400, "invalid_request", {"hand_index": 0},
                                                            "hand.winning_tile")
    no_seat = {"score": {k: v for k, v in tsumo("E")["score"].items() if k != "seat_wind"}}
    assert refused(session([no_seat])).path == "seat_wind"


def test_a_running_total_past_the_safe_integers_is_refused_at_its_hand():
    big = {"net": {"E": MAX_SAFE_INTEGER, "S": -MAX_SAFE_INTEGER, "W": 0, "N": 0}}
    assert settle(session([big]))["totals"]["Ann"] == MAX_SAFE_INTEGER
    err = refused(session([big, big]))
    assert (err.status, err.code, err.extra["hand_index"]) == (422, "invalid_request", 1)


@pytest.mark.parametrize("body,path", [
    (session([{"draw": True, "penalty": {"escape": "W"}}]), "hands.0"),
    (session([{}]), "hands.0"),
    (session([{"draw": False}]), "hands.0.draw"),
    (session([{"score": "not an object"}]), "hands.0.score"),
    (session([{"penalty": {"escape": ""}}]), "hands.0.penalty.escape"),
    (session([{"penalty": {"escape": "x" * 65}}]), "hands.0.penalty.escape"),
    (session([{"net": {"E": 0, "S": 0, "W": 0}}]), "hands.0.net"),
    (session([{"net": {"E": 0, "S": 0, "W": 0, "N": 0, "Ann": 0}}]), "hands.0.net"),
    ({**session([]), "players": ["Ann", "Bo", "Cy"]}, "players"),
    ({**session([]), "players": ["Ann", "Bo", "Cy", "Ann"]}, "players"),
    ({**session([]), "players": ["Ann", "Bo", "Cy", ""]}, "players"),
    ({**session([]), "players": PLAYERS + ["Ed"]}, "players"),
    (session([{"draw": None}]), "hands.0.draw"),                  # a kind is never null
    (session([{"draw": True}] * (MAX_HANDS + 1)), "hands"),
])
def test_malformed_sessions_are_400(body, path):
    err = refused(body)
    assert (err.status, err.code, err.path) == (400, "invalid_request", path)
    assert "hand_index" not in err.extra


def test_a_first_dealer_who_is_not_at_the_table_is_422():
    # well-formed (a name), but none of the four players: the request can't be played, as a
    # wrong tile count can't (the spec can't say it, so a schema-valid body is no 400)
    err = refused({**session([]), "first_dealer": "Ed"})
    assert (err.status, err.code, err.path) == (422, "invalid_request", "first_dealer")


def test_at_most_200_hands():
    answer = settle(session([{"draw": True}] * MAX_HANDS))
    assert len(answer["hands"]) == 200 and answer["hands"][-1]["index"] == 199


def test_an_empty_session():
    answer = settle(session([], first_dealer="Cy"))
    assert answer == {"players": PLAYERS, "hands": [], "totals": by_name(0, 0, 0, 0), "house": [], "transfers": [],
                      "stats": {p: {"wins": 0, "self_draws": 0, "dealt_in": 0, "best_tai": None} for p in PLAYERS},
                      "next": {"dealer": "Cy", "round_wind": "E",
                               "seats": {"E": "Cy", "S": "Di", "W": "Ann", "N": "Bo"}}}


# --- over HTTP ----------------------------------------------------------------------------------

def test_the_route(client):
    response = client.post("/v1/sessions/settle", json=session(EAST_ROUND))
    assert response.status_code == 200
    assert response.get_json()["totals"] == by_name(-6, 22, -24, 8)
    response = client.post("/v1/sessions/settle", json=session([tsumo("E", round_wind="W")]),
                           headers={"Accept-Language": "zh"})
    problem = response.get_json()
    assert (response.status_code, problem["code"], problem["hand_index"]) == (422, "dealer_sequence", 0)
    assert problem["title"] == "庄家轮转不符"


def test_the_route_takes_a_session_of_200_score_bodies_and_refuses_over_1_mib(client):
    from service.routes import MAX_SESSION_BODY_BYTES

    response = client.post("/v1/sessions/settle", json=session([tsumo("E")] * MAX_HANDS))
    # Ann self-draws 200 times as the dealer (连庄 throughout): +24 × 200
    assert response.status_code == 200 and response.get_json()["totals"]["Ann"] == 4800
    response = client.post("/v1/sessions/settle", data=b" " * (MAX_SESSION_BODY_BYTES + 1),
                           content_type="application/json")
    assert (response.status_code, response.get_json()["code"]) == (413, "payload_too_large")


# --- the fewest transfers ---------------------------------------------------------------------

def test_fewest_transfers_worked_examples():
    # nobody owes anything
    assert fewest_transfers([0, 0, 0, 0]) == []
    # two pairs that sum to 0 settle with 2 transfers, not 3
    assert fewest_transfers([5, -5, 3, -3]) == [(1, 0, 5), (3, 2, 3)]
    # one loser, three winners: 3 transfers, all from it (a winner never passes money on)
    assert fewest_transfers([3, 23, -29, 3]) == [(2, 0, 3), (2, 1, 23), (2, 3, 3)]
    # -4 -4 5 3: trees on {0, 1} x {2, 3}: 0→2 4, 1→2 1, 1→3 3 or 0→2 1, 0→3 3, 1→2 4 (largest 4
    # both; the others make 0 or 1 pay 5); sorted, (0, 2) (0, 3) (1, 2) comes first
    assert fewest_transfers([-4, -4, 5, 3]) == [(0, 2, 1), (0, 3, 3), (1, 2, 4)]


def _settles(totals: list[int], transfers: list[tuple[int, int, int]]) -> bool:
    balance = list(totals)
    for f, t, a in transfers:
        balance[f] += a
        balance[t] -= a
    return not any(balance)


def _all_settlements(totals: list[int], count: int, losers_to_winners: bool) -> list[list[tuple[int, int, int]]]:
    """Brute force: every list of ``count`` transfers (any pair of players, any amount from 1 to
    the sum of the winnings) that settles ``totals``, as sorted lists."""
    top = sum(t for t in totals if t > 0)
    pairs = [(f, t) for f in range(4) for t in range(4) if f != t
             and (not losers_to_winners or (totals[f] < 0 < totals[t]))]
    found = set()
    for chosen in itertools.product(pairs, repeat=count - 1) if count else [()]:
        for amounts in itertools.product(range(1, top + 1), repeat=len(chosen)):
            balance = list(totals)
            for (f, t), a in zip(chosen, amounts):
                balance[f] += a
                balance[t] -= a
            # the last transfer is forced: exactly one player short, one over, by the same amount
            rest = [(p, b) for p, b in enumerate(balance) if b]
            transfers = [(f, t, a) for (f, t), a in zip(chosen, amounts)]
            if not rest and count == len(chosen):
                found.add(tuple(sorted(transfers)))
            elif count and len(rest) == 2 and rest[0][1] == -rest[1][1]:
                (p, b), (q, _) = rest
                last = (p, q, -b) if b < 0 else (q, p, b)
                if (last[0], last[1]) in pairs:
                    found.add(tuple(sorted(transfers + [last])))
    return [list(s) for s in found]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=-4, max_value=4), min_size=3, max_size=3))
def test_fewest_transfers_against_brute_force(three):
    totals = three + [-sum(three)]
    mine = fewest_transfers(totals)
    assert _settles(totals, mine)
    assert all(a > 0 and totals[f] < 0 < totals[t] for f, t, a in mine)
    assert mine == sorted(mine)
    # no settlement with fewer transfers, in any direction (a winner may pass money on)
    for fewer in range(len(mine)):
        assert not _all_settlements(totals, fewer, losers_to_winners=False), (totals, fewer)
    # of the settlements with as many, from losers to winners: the tie rule picks mine
    candidates = _all_settlements(totals, len(mine), losers_to_winners=True)
    best = min(candidates, key=lambda s: (max((a for _, _, a in s), default=0), [(f, t) for f, t, _ in s]))
    assert mine == best


# --- generated sessions of draws, nets and escapes: the totals, the house and the transfers -------
# An oracle of its own: a draw, a net or a penalty moves the deal like a draw (docs/api.md), so the
# dealer of hand k is the first dealer where draw_keeps_dealer is on, else k positions after it;
# the seat wind j of a hand is the player (dealer + j) % 4.

def _generated_hand(draw: st.DrawFn) -> dict:
    kind = draw(st.sampled_from(["draw", "net", "penalty"]))
    by_name_keys = draw(st.booleans())
    if kind == "draw":
        return {"draw": True}
    if kind == "net":
        gains = draw(st.lists(st.integers(min_value=-50, max_value=50), min_size=3, max_size=3))
        gains.append(-sum(gains))
        keys = PLAYERS if by_name_keys else list("ESWN")
        return {"net": dict(zip(keys, gains)), "_by_name": by_name_keys}
    who = draw(st.integers(min_value=0, max_value=3))
    penalty = {"escape": PLAYERS[who] if by_name_keys else "ESWN"[who]}
    if draw(st.booleans()):
        penalty["base_points"] = draw(st.integers(min_value=1, max_value=5))
    return {"penalty": penalty, "_by_name": by_name_keys}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.composite(_generated_hand)(), max_size=12), st.sampled_from(["house", "table"]),
       st.booleans(), st.integers(min_value=0, max_value=3), st.integers(min_value=1, max_value=3))
def test_generated_sessions_settle_by_the_rules(hands, to, keeps, first, base):
    rules = {"preset": "ningbo", "escape_penalty_to": to, "draw_keeps_dealer": keeps}
    body = {"players": PLAYERS, "first_dealer": PLAYERS[first], "rules": rules, "base_points": base,
            "hands": [{k: v for k, v in h.items() if k != "_by_name"} for h in hands]}
    answer = settle(body)
    totals, house = [0] * 4, [0] * 4
    for k, h in enumerate(hands):
        dealer = first if keeps else (first + k) % 4
        player_of = {w: (dealer + j) % 4 for j, w in enumerate("ESWN")}
        net = [0] * 4
        if "net" in h:
            for key, gain in h["net"].items():
                net[PLAYERS.index(key) if h["_by_name"] else player_of[key]] += gain
        elif "penalty" in h:
            key = h["penalty"]["escape"]
            out = PLAYERS.index(key) if h["_by_name"] else player_of[key]
            penalty = 24 * h["penalty"].get("base_points", base)          # docs/rules.md §8: 24 × base
            net = [penalty // 3 if (p != out and to == "table") else 0 for p in range(4)]   # 8 × base each
            net[out] = -penalty
            if to == "house":
                house[out] += penalty
        assert answer["hands"][k]["dealer"] == dealer and answer["hands"][k]["net"] == net
        totals = [t + n for t, n in zip(totals, net)]
        assert answer["hands"][k]["totals"] == totals
    assert answer["totals"] == by_name(*totals)
    assert answer["house"] == [{"from": p, "amount": a} for p, a in zip(PLAYERS, house) if a]
    assert sum(totals) == -sum(house)
    # the transfers settle each total plus its debt to the house, losers to winners, at most n - 1
    rest = {p: t + d for p, t, d in zip(PLAYERS, totals, house)}
    owing = [p for p in PLAYERS if rest[p]]
    for x in answer["transfers"]:
        assert x["amount"] > 0 and rest[x["from"]] < 0 < rest[x["to"]]
    settled = dict(rest)
    for x in answer["transfers"]:
        settled[x["from"]] += x["amount"]
        settled[x["to"]] -= x["amount"]
    assert set(settled.values()) <= {0} and len(answer["transfers"]) <= max(0, len(owing) - 1)


# --- replay hands ---------------------------------------------------------------------------------

# A replay log: Ann (E) is dealt FLUSH without its 4m, draws 4m and wins at once: 天胡 8 + 自摸 1 +
# 硬胡 1 + 清一色 4 + the wait (平胡, or 边/夹 by another reading: 1 台 either way) 1 = 15 台,
# points 1 × (1 + 15) = 16 from each of the three others, E +48.
HEAVENLY_LOG = {
    "deal": {"E": "123m 456m 789m 23m 55m", "S": "111p 222p 333p 444p 5p", "W": "666p 777p 888p 999p 5p",
             "N": "111s 222s 333s 444s 5s"},
    "events": [{"t": "draw", "seat": "E", "tile": "4m"}, {"t": "win", "seat": "E"}],
}
# One live tile: the dealer draws it and discards it, and the wall is done (荒庄).
DRAWN_LOG = {**HEAVENLY_LOG, "live_tiles": 1,
             "events": [{"t": "draw", "seat": "E", "tile": "E"}, {"t": "discard", "seat": "E", "tile": "E"},
                        {"t": "exhaustive_draw"}]}


def test_a_replay_hand_out_of_the_rotation_is_refused_before_it_is_replayed():
    err = refused(session([{"draw": True}, {"replay": {**HEAVENLY_LOG, "round_wind": "N"}}]))
    assert (err.code, err.path, err.extra) == ("dealer_sequence", "round_wind", {"hand_index": 1})
    # the deal has passed once under ningbo-taishu (a draw moves it): 2 players have dealt
    err = refused(session([{"draw": True}, {"replay": {**HEAVENLY_LOG, "dealers_this_round": 1}}],
                          rules="ningbo-taishu"))
    assert (err.code, err.path, err.extra) == ("dealer_sequence", "dealers_this_round", {"hand_index": 1})


def test_a_session_mixing_replay_logs_and_score_bodies():
    pytest.importorskip("ningbo_score.replay")
    hands = [
        {"replay": HEAVENLY_LOG},       # 0 Ann deals and wins (天胡): Ann +48, the others -16; Ann again
        tsumo("S"),                     # 1 Ann deals; Bo (S) self-draws: Bo +24, the others -8; Bo deals
        {"replay": DRAWN_LOG},          # 2 Bo deals; the wall runs out: nobody pays; Bo again (ningbo)
        ron("E", "S"),                  # 3 Bo deals and wins on Cy's (S) discard: Bo +14, Cy -14; Bo again
    ]
    answer = settle(session(hands))
    assert [(h["kind"], h["dealer"], h["outcome"], h["winner"], h["by"], h["tai"]) for h in named(answer)] == [
        ("replay", "Ann", "win", "Ann", "self_draw", 15), ("score", "Ann", "win", "Bo", "self_draw", 7),
        ("replay", "Bo", "draw", None, None, None), ("score", "Bo", "win", "Bo", "discard", 6)]
    assert answer["hands"][0]["net"] == [48, -16, -16, -16]
    # Ann 48 - 8 = 40; Bo -16 + 24 + 14 = 22; Cy -16 - 8 - 14 = -38; Di -16 - 8 = -24
    assert answer["totals"] == by_name(40, 22, -38, -24)
    # No pair sums to 0: 3 transfers.  Trees on {Cy, Di} x {Ann, Bo}: without Cy-Bo: Cy→Ann 38,
    # Di→Ann 2, Di→Bo 22 (largest 38); without Di-Bo: Cy→Ann 16, Cy→Bo 22, Di→Ann 24 (largest
    # 24); without Cy-Ann or Di-Ann, Bo would receive 38 or 24 and pass money on.
    assert answer["transfers"] == [{"from": "Cy", "to": "Ann", "amount": 16}, {"from": "Cy", "to": "Bo", "amount": 22},
                                   {"from": "Di", "to": "Ann", "amount": 24}]
    assert answer["stats"]["Ann"] == {"wins": 1, "self_draws": 1, "dealt_in": 0, "best_tai": 15}
    assert answer["stats"]["Bo"] == {"wins": 2, "self_draws": 1, "dealt_in": 0, "best_tai": 7}
    assert answer["stats"]["Cy"]["dealt_in"] == 1
    assert answer["next"]["dealer"] == "Bo"


def test_an_illegal_replay_log_names_its_hand_and_its_event():
    pytest.importorskip("ningbo_score.replay")
    # South discards before the dealer has drawn: the first event is out of turn
    log = {**HEAVENLY_LOG, "events": [{"t": "discard", "seat": "S", "tile": "5p"}]}
    problem = refused(session([{"draw": True}, {"replay": log}])).to_problem()
    assert (problem["status"], problem["code"], problem["hand_index"]) == (422, "illegal_event", 1)
    assert (problem["event_index"], problem["reason"]) == (0, "out_of_turn")


# --- the command line -----------------------------------------------------------------------

def test_the_settle_command(tmp_path):
    from test_cli import cli

    path = tmp_path / "session.json"
    path.write_text(json.dumps(session(EAST_ROUND)), encoding="utf-8")
    out = cli("settle", str(path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    # a header, the 7 hands of the East round above, the totals, the transfers and the next hand
    assert lines[0].split() == ["hand", "round", "dealer", "Ann", "Bo", "Cy", "Di"]
    assert lines[1].split() == ["0", "E", "Ann", "Ann", "self-draws,", "7", "台", "+24", "-8", "-8", "-8"]
    assert lines[2].split() == ["1", "E", "Ann", "Bo", "on", "Cy's", "discard,", "6", "台", "0", "+14", "-14", "0"]
    assert lines[5].split() == ["4", "E", "Cy", "draw", "0", "0", "0", "0"]
    assert lines[8].split() == ["totals", "-6", "+22", "-24", "+8"]
    assert lines[9:] == ["transfers: Ann → Bo 6, Cy → Bo 16, Cy → Di 8", "next: Ann deals, round S"]
    as_json = cli("settle", str(path), "--json")
    assert json.loads(as_json.stdout) == settle(session(EAST_ROUND))
    zh = cli("--lang", "zh", "settle", "-", stdin=json.dumps(session([{"penalty": {"escape": "S"}}])))
    # ningbo: the penalty goes to the house (Bo 24), nobody at the table gains: no transfer
    assert "Bo 逃跑（罚分）" in zh.stdout and "付给平台: Bo 24" in zh.stdout and "转账: 无人欠款" in zh.stdout
    table = session([{"penalty": {"escape": "S"}}], rules={"preset": "ningbo", "escape_penalty_to": "table"})
    zh = cli("--lang", "zh", "settle", "-", stdin=json.dumps(table))
    assert "转账: Bo → Ann 8, Bo → Cy 8, Bo → Di 8" in zh.stdout


def test_the_settle_command_names_a_refused_hand(tmp_path):
    from test_cli import cli

    out = cli("settle", "-", stdin=json.dumps(session([{"draw": True}, tsumo("E", round_wind="S")])))
    assert out.returncode == 3 and out.stdout == ""
    assert "hand 1 is refused" in out.stderr and "dealer_sequence" in out.stderr


def test_docs_cli_md_shows_what_settle_prints_for_the_session_of_docs_examples_md():
    from conftest import ROOT
    from test_cli import cli

    examples = (ROOT / "docs" / "examples.md").read_text(encoding="utf-8")
    body = examples.split("curl -s http://localhost:8000/v1/sessions/settle", 1)[1].split(" -d '", 1)[1]
    body = body.split("' | ", 1)[0]
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    printed = docs.split("$ ningbo-score settle docs/examples/session.json\n", 1)[1].split("```", 1)[0]
    out = cli("settle", "-", stdin=body)
    assert out.returncode == 0 and out.stdout == printed


# --- answers bounded by their bodies (issue 41: each player named once, not per hand) ------------

#: docs/api.md: an answer is at most max(64 KiB, 4 × its body)
ANSWER_BOUND = 64 * 1024
LONG = [c * 64 for c in "ABCD"]          # four names of the most characters


@pytest.mark.parametrize("hands", [
    [{"draw": True}] * MAX_HANDS,                                              # 4.1 KB: 716 KB before
    [{"penalty": {"escape": LONG[i % 4], "base_points": 10**6}} for i in range(MAX_HANDS)],
    [{"net": {LONG[0]: MAX_SAFE_INTEGER, LONG[1]: -MAX_SAFE_INTEGER, "W": 0, "N": 0}}]
    + [{"draw": True}] * (MAX_HANDS - 1),                                      # the largest totals, small hands
    [tsumo("E")] * MAX_HANDS,
], ids=["draws", "penalties", "largest-totals", "wins"])
def test_a_200_hand_session_of_long_names_answers_within_the_bound(client, hands):
    body = json.dumps({"players": LONG, "first_dealer": LONG[0], "hands": hands}, separators=(",", ":"))
    response = client.post("/v1/sessions/settle", data=body, content_type="application/json")
    assert response.status_code == 200
    size = len(response.get_data())
    assert size <= max(ANSWER_BOUND, 4 * len(body)), (size, len(body))
    answer = response.get_json()
    # each name once in players, and in the session's totals, house, transfers, stats and next only
    assert answer["players"] == LONG
    assert all(LONG[0] not in json.dumps(h) for h in answer["hands"])
