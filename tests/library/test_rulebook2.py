"""Rule book 2 (docs/rules.md, "Rule book versions"): each change, with hands worked out by hand.

Every expected value is computed in the comment beside it from the rule book: the 台 items (§5),
the points (§6: linear P = base × (1 + 台); doubling P = base × 2^max(0, 台 − 4) since rule book 3) and the
payments (§7).  Each change also has a test of what rule book 1 did, through the option that
restores it, where there is one.
"""
from __future__ import annotations

import copy

import pytest

# (by_id and meld: test_rulebook3.py and test_rulebook4.py import them from here)
from helpers import items_by_id as by_id
from helpers import meld, score_body

import ningbo_score
from ningbo_score import ScoreError


def body(rules, concealed: str, winning: str, *, seat="S", round_wind="E", by="self_draw", frm=None,
         melds=(), flowers="", indicator=None, claims=None, base_points=None, **flags) -> dict:
    win = {"by": by, **flags}
    if frm is not None:
        win["from"] = frm
    return score_body(rules, seat, round_wind, concealed, winning=winning, melds=melds, flowers=flowers,
                      indicator=indicator, win=win, claims=claims, base_points=base_points)


def score(*args, **kwargs) -> dict:
    return ningbo_score.score(body(*args, **kwargs))


def paid(r: dict) -> dict[str, tuple[int, int]]:
    return {p["from"]: (p["amount"], p["multiplier"]) for p in r["payments"]}


# --- 白板 does not substitute in ningbo-456 -------------------------------------------------------

def test_456_white_dragons_are_dragons():
    # ningbo-456, N in the E round, indicator 5m (the three other 5m are caishen; none in hand).
    # 123p 456p 789s PPP 99s, self-drawn 8s: the middle of 7-8-9 -> closed 1; self_draw 1;
    # no caishen in hand -> no_caishen 1; PPP is a pung of 白, a dragon -> dragon_pung 1.
    # 4 台 >= 4: doubling P = 1 × 2^(4 − 4) = 1; nobody related: each other pays 1.
    r = score("ningbo-456", "123p 456p 789s PPP 99s", "8s", seat="N", indicator="5m")
    assert by_id(r) == {"closed_wait": 1, "self_draw": 1, "no_caishen": 1, "dragon_pung": 1}
    assert r["tai"] == 4 and r["eligible"] is True and r["points"] == 1
    assert r["net"] == {"E": -1, "S": -1, "W": -1, "N": 3}
    assert "white_dragon_as" not in r["caishen"]
    assert r["rules"]["white_dragon_substitutes"] is False


def test_456_white_dragon_substitutes_only_when_asked():
    # The same hand with white_dragon_substitutes on (rule book 1's ningbo-456): PPP is a pung of
    # 5m, no dragon pung: closed 1 + self_draw 1 + no_caishen 1 = 3 < 4 -> not eligible.
    r = score({"preset": "ningbo-456", "white_dragon_substitutes": True}, "123p 456p 789s PPP 99s", "8s",
              seat="N", indicator="5m")
    assert by_id(r) == {"closed_wait": 1, "self_draw": 1, "no_caishen": 1}
    assert r["eligible"] is False and r["caishen"]["white_dragon_as"] == "5m"


# --- three_caishen_bonus ----------------------------------------------------------------------------
# S in the E round, indicator 5p: the three other 5p are in hand.  123m 456m 789s 11s + 5p5p5p,
# self-drawn 3m.  The best reading: 3m is the 3 of 1-2-3 -> edge 1, and the three caishen a pung
# of 中 (or of S or E: 1 台 each) -> 1; self_draw 1; three_caishen 3: tai 6.  (Other readings
# are worth less: 3m two-sided in 3-4-5 with every set a chow is ping_hu 1 but then the caishen
# make no pung: 1 + 1 + 3 = 5; 2-3-4 closed leaves 1m 5m 6m to the caishen: 1 + 1 + 3 = 5.)
THREE = "123m 456m 789s 11s 5p5p5p"


def test_three_caishen_counts_in_ningbo():
    # ningbo: counted 6 >= 4 -> eligible; linear P = 1 + 6 = 7; each other pays 7, S +21.
    r = score("ningbo", THREE, "3m", indicator="5p")
    assert r["tai"] == 6 and r["counted_tai"] == 6 and r["eligible"] is True
    assert by_id(r)["three_caishen"] == 3 and by_id(r)["edge_wait"] == 1
    assert not any(it["bonus"] for it in r["items"])
    assert r["points"] == 7 and r["net"] == {"E": -7, "S": 21, "W": -7, "N": -7}


def test_three_caishen_is_a_bonus_in_bianfeng():
    # ningbo-bianfeng (three_caishen_bonus, 002 "不算在起胡的4台中"): counted 6 − 3 = 3 < 4.
    r = score("ningbo-bianfeng", THREE, "3m", indicator="5p")
    assert r["tai"] == 6 and r["counted_tai"] == 3 and r["eligible"] is False
    assert [it["id"] for it in r["items"] if it["bonus"]] == ["three_caishen"]
    assert r["points"] == 0 and r["payments"] == []


def test_three_caishen_under_doubling_counts_in_456():
    # ningbo-456 (no bonus): counted 6; doubling P = 1 × 2^(6 − 4) = 4; each other pays 4, S +12.
    r = score("ningbo-456", THREE, "3m", indicator="5p")
    assert r["tai"] == 6 and r["counted_tai"] == 6
    assert r["points"] == 4 and r["net"] == {"E": -4, "S": 12, "W": -4, "N": -4}


def test_doubling_uses_the_full_tai_with_a_bonus():
    # ningbo-456 with three_caishen_bonus and min_tai 3: counted 3 >= 3 -> eligible, and the
    # points double on the full 台 from 4 (rule book 3): P = 2^(6 − 4) = 4 (rule book 2 counted from
    # min_tai: 2^(6 − 3) = 8; rule book 1 used counted: 2^(3 − 3) = 1).
    r = score({"preset": "ningbo-456", "three_caishen_bonus": True, "min_tai": 3}, THREE, "3m", indicator="5p")
    assert r["tai"] == 6 and r["counted_tai"] == 3 and r["eligible"] is True
    assert r["points"] == 4 and r["net"] == {"E": -4, "S": 12, "W": -4, "N": -4}


# --- a dragon pair is no 平胡 ------------------------------------------------------------------------
# S in the E round, no caishen.  123m 456m 789p 234s + a pair, self-drawn 4m (the 4 of 4-5-6: two
# sided); all four sets chows.  Flowers 2f 6f: S's seat flowers, 2.


@pytest.mark.parametrize("pair", ["CC", "FF", "PP"])
def test_dragon_pair_is_pai_hu(pair):
    # the pair carries 台 -> pai_hu 0; self_draw 1, no_caishen 1, seat flowers 2: 4 台;
    # P = 1 + 4 = 5, each other pays 5 (rule book 1: ping_hu 1, 5 台, P = 6)
    r = score("ningbo", f"123m 456m 789p 234s {pair}", "4m", flowers="2f 6f")
    assert by_id(r) == {"pai_hu": 0, "self_draw": 1, "no_caishen": 1, "seat_flower": 2}
    assert r["points"] == 5 and r["net"]["S"] == 15


@pytest.mark.parametrize("pair", ["55s", "NN"])
def test_pair_without_tai_is_ping_hu(pair):
    # 5s, or N (neither S's seat wind nor the E round's wind), carries no 台 -> ping_hu 1: 5 台, P = 6
    r = score("ningbo", f"123m 456m 789p 234s {pair}", "4m", flowers="2f 6f")
    assert by_id(r) == {"ping_hu": 1, "self_draw": 1, "no_caishen": 1, "seat_flower": 2}
    assert r["points"] == 6 and r["net"]["S"] == 18


def test_caishen_pair_takes_a_face_without_tai():
    # Given caishen kinds [C]: 123m 456m 789p 234s + C + 7s.  The caishen may pair 7s (7s 7s, no
    # 台) or be anything else; the best: the 7s pair, ping_hu 1 (a C face would give pai_hu).
    # ping_hu 1 + self_draw 1 + seat flowers 2 = 4 (no no_caishen: a caishen is in hand); P = 5.
    req = body("ningbo", "123m 456m 789p 234s C 7s", "4m", flowers="2f 6f")
    req["caishen"] = {"kinds": ["C"]}
    r = ningbo_score.score(req)
    assert by_id(r) == {"ping_hu": 1, "self_draw": 1, "seat_flower": 2}
    assert r["decomposition"]["pair"] == ["7s", "7s"]


# --- ningbo-taishu: no minimum, no chows for 包 -----------------------------------------------------

def test_taishu_has_no_tai_minimum():
    # S: 123m 456m 789m NNN 55m, wins 9m (the 9 of 7-8-9: two-sided) on E's discard.  Not all
    # chows -> pai_hu 0; no_caishen 1; characters + an honor -> half_flush 2: 3 台.  min_tai 0
    # and half_flush is a required pattern -> eligible; P = 1 + 3 = 4; E (unrelated) pays 2 × 4.
    r = score("ningbo-taishu", "123m 456m 789m NNN 55m", "9m", by="discard", frm="E")
    assert by_id(r) == {"pai_hu": 0, "no_caishen": 1, "half_flush": 2}
    assert r["min_tai"] == 0 and r["eligible"] is True and r["points"] == 4
    assert paid(r) == {"E": (8, 2)}
    # rule book 1's minimum of 4 refuses it: 3 < 4
    r = score({"preset": "ningbo-taishu", "min_tai": 4}, "123m 456m 789m NNN 55m", "9m", by="discard", frm="E")
    assert r["eligible"] is False


def test_taishu_still_needs_a_pattern():
    # 123m 456m 789p 234s 55s self-drawn 4m: ping_hu 1 + self_draw 1 + no_caishen 1 = 3 台 >= 0,
    # but no flush, all honors or all pungs -> not eligible.
    r = score("ningbo-taishu", "123m 456m 789p 234s 55s", "4m")
    assert r["tai"] == 3 and r["eligible"] is False and r["reasons"]


CHOWS_FROM_E = [meld("chow", "123m", "E"), meld("chow", "456m", "E"), meld("chow", "789m", "E")]


def test_taishu_chows_are_no_claims_for_liability():
    # S claimed three chows from E (its 上家); concealed 234m 5m + 5m self-drawn: the pair 5m
    # (single 1), self_draw 1, no_caishen 1, all characters -> full_flush 4: 7 台, P = 8.
    # ningbo-taishu counts no chows for 包: nobody related, each other pays 8.
    r = score("ningbo-taishu", "234m 55m", "5m", melds=CHOWS_FROM_E)
    assert by_id(r) == {"single_wait": 1, "self_draw": 1, "no_caishen": 1, "full_flush": 4}
    assert r["points"] == 8 and paid(r) == {"E": (8, 1), "W": (8, 1), "N": (8, 1)}


def test_taishu_chows_count_when_asked():
    # with chi_counts_for_liability on (rule book 1), E is related: E alone pays 5 × 8 = 40
    # (liability_cap 5 leaves 5).
    r = score({"preset": "ningbo-taishu", "chi_counts_for_liability": True}, "234m 55m", "5m", melds=CHOWS_FROM_E)
    assert paid(r) == {"E": (40, 5)}
    assert r["payments"][0]["liability"] == "related"


# --- robbing a kong: the robbed player pays 5, alone -------------------------------------------------
# S in the E round robs W's added kong of 2m: concealed 234m 55p, melds pungs of 中 发 白 claimed
# from W.  2m is the 2 of 2-3-4 (two-sided), not all chows -> pai_hu 0; robbing_kong 1;
# no_caishen 1; three dragon pungs 3: 5 台, P = 1 + 5 = 6.
DRAGONS_FROM_W = [meld("pung", "CCC", "W"), meld("pung", "FFF", "W"), meld("pung", "PPP", "W")]


def test_robbed_related_player_pays_five_not_ten():
    # W is related (S claimed 3 melds from it); rule book 1 charged 5 + 5 = 10 (60); now 5 × 6 = 30.
    r = score("ningbo", "234m 55p", "2m", by="robbing_kong", frm="W", melds=DRAGONS_FROM_W)
    assert by_id(r) == {"pai_hu": 0, "robbing_kong": 1, "no_caishen": 1, "dragon_pung": 3}
    assert r["points"] == 6
    assert paid(r) == {"W": (30, 5)}
    assert r["net"] == {"E": 0, "S": 30, "W": -30, "N": 0}


def test_robbed_kong_others_pay_nothing_even_when_related():
    # N claimed 3 melds from S (related) and W is mutual (3 each way): still W alone pays 5 × 6
    # (004: "A就要付5份的自摸積分，其他人不用付").
    r = score("ningbo", "234m 55p", "2m", by="robbing_kong", frm="W", melds=DRAGONS_FROM_W,
              claims={"N": 3, "W": 3})
    assert paid(r) == {"W": (30, 5)}
    assert r["payments"][0]["reason"] == "robbing_kong"


def test_robbed_unrelated_player_pays_five():
    # the pungs claimed from E instead: W unrelated, still 5 × 6 = 30, E (related) nothing.
    melds = [meld("pung", "CCC", "E"), meld("pung", "FFF", "E"), meld("pung", "PPP", "E")]
    r = score("ningbo", "234m 55p", "2m", by="robbing_kong", frm="W", melds=melds)
    assert paid(r) == {"W": (30, 5)}


# --- draw_keeps_dealer and POST /v1/table/next ---------------------------------------------------

def next_body(dealer=2, count=3, result=None, rules=None) -> dict:
    b = {"dealer": dealer, "round_wind": "E", "dealers_this_round": count, "result": result or {"draw": True}}
    if rules is not None:
        b["rules"] = rules
    return b


@pytest.mark.parametrize("rules,keeps", [
    (None, True),                     # the default preset, ningbo: 001 "荒庄，则庄家继续坐庄"
    ("ningbo", True),
    ("ningbo-456", True),             # 000 "流局算连庄"
    ("ningbo-bianfeng", True),        # 002 "黃牌算連莊"
    ("ningbo-taishu", False),         # 004 "莊家沒胡，則讓給下家坐莊…也無連莊"
    ("ningbo-7baida", False),
    ({"preset": "ningbo", "draw_keeps_dealer": False}, False),
    ({"preset": "ningbo-taishu", "draw_keeps_dealer": True}, True),
])
def test_draw_and_the_dealer(client, rules, keeps):
    # position 2 deals, the third dealer of the E round, and the hand is a draw
    answer = client.post("/v1/table/next", json=next_body(rules=rules)).get_json()
    if keeps:     # 连庄: nothing changes
        assert (answer["dealer"], answer["round_wind"], answer["dealers_this_round"]) == (2, "E", 3)
        assert answer["dealer_changed"] is False
    else:         # the next position deals, as after another player's win: 3, the 4th dealer
        assert (answer["dealer"], answer["round_wind"], answer["dealers_this_round"]) == (3, "E", 4)
        assert answer["seat_winds"] == {"0": "S", "1": "W", "2": "N", "3": "E"}


def test_draw_by_the_last_dealer_of_a_round_moves_the_round(client):
    # ningbo-7baida: position 1 is the 4th dealer of the E round; a draw passes the deal to 2, the
    # round's first dealer (1 − 4 + 1 = −2 ≡ 2) again -> the S round begins, dealers_this_round 1.
    answer = client.post("/v1/table/next", json=next_body(dealer=1, count=4, rules="ningbo-7baida")).get_json()
    assert (answer["dealer"], answer["round_wind"], answer["dealers_this_round"]) == (2, "S", 1)
    assert answer["round_changed"] is True


def test_dealer_win_keeps_the_deal_in_every_preset(client):
    answer = client.post("/v1/table/next", json=next_body(result={"winner": 2}, rules="ningbo-taishu")).get_json()
    assert (answer["dealer"], answer["dealers_this_round"]) == (2, 3)


@pytest.mark.parametrize("rules,path", [
    ("ningbo-xx", "rules"),
    ({"draw_keeps_dealer": 1}, "rules.draw_keeps_dealer"),
    ({"preset": "ningbo", "nope": True}, "rules.nope"),
    (5, "rules"),
])
def test_table_next_bad_rules(client, rules, path):
    response = client.post("/v1/table/next", json=next_body(rules=rules))
    assert response.status_code == 400
    problem = response.get_json()
    assert problem["code"] == "invalid_request" and path in problem["errors"]


def test_table_next_rules_in_the_library():
    # the library reads rules itself too (a preset id or an object)
    out = ningbo_score.api.next_hand(next_body(rules={"preset": "ningbo-456", "draw_keeps_dealer": False}))
    assert out["dealer"] == 3
    with pytest.raises(ScoreError) as err:
        ningbo_score.api.next_hand(next_body(rules={"three_caishen_bonus": "yes"}))
    assert err.value.problems[0].path == "rules.three_caishen_bonus"


# --- 天胡: the best wait over every concealed tile --------------------------------------------------
# E (dealer) in the E round, heavenly, self-drawn: 123m 456m 789p EEE 55s, no caishen.
# Named 1m: the 1 of 1-2-3, two-sided, not all chows -> pai_hu 0.  But a dealt hand has no winning
# tile: 2m (closed), 3m (edge), 5s (single), E (dual-pung) each give 1 -> the best wait is worth 1.
# heavenly 8 + self_draw 1 + no_caishen 1 + EEE seat wind 1 + round wind 1 + wait 1 = 13;
# P = 1 + 13 = 14, each other pays 14, E +42.  (Rule book 1, naming 1m: 12 台.)
HEAVENLY = "123m 456m 789p EEE 55s"
WAIT_ITEMS = {"pai_hu", "ping_hu", "edge_wait", "closed_wait", "single_wait", "dual_pung_wait"}


@pytest.mark.parametrize("named", ["1m", "2m", "3m", "4m", "6m", "9p", "E", "5s"])
def test_heavenly_takes_the_best_wait_whatever_the_named_tile(named):
    r = score("ningbo", HEAVENLY, named, seat="E", heavenly=True)
    items = by_id(r)
    assert r["tai"] == 13 and r["points"] == 14
    assert r["net"] == {"E": 42, "S": -14, "W": -14, "N": -14}
    assert {k: v for k, v in items.items() if k not in WAIT_ITEMS} == \
        {"heavenly": 8, "self_draw": 1, "no_caishen": 1, "seat_wind_pung": 1, "round_wind_pung": 1}
    waits = [(k, v) for k, v in items.items() if k in WAIT_ITEMS]
    assert len(waits) == 1 and waits[0][1] == 1
    assert r["decomposition"]["wait"] != "two_sided"


def test_without_heavenly_the_named_tile_decides():
    # the same hand, an ordinary self-draw of 1m: pai_hu 0 + self_draw 1 + no_caishen 1 + winds 2 = 4
    r = score("ningbo", HEAVENLY, "1m", seat="E")
    assert by_id(r) == {"pai_hu": 0, "self_draw": 1, "no_caishen": 1, "seat_wind_pung": 1, "round_wind_pung": 1}


def test_heavenly_winning_tile_is_still_required_and_held():
    with pytest.raises(ScoreError) as err:
        score("ningbo", HEAVENLY, "7s", seat="E", heavenly=True)
    assert err.value.code == "winning_tile_not_in_hand"
    req = body("ningbo", HEAVENLY, "1m", seat="E", heavenly=True)
    del req["hand"]["winning_tile"]
    with pytest.raises(ScoreError) as err:
        ningbo_score.score(req)
    assert err.value.problems[0].path == "hand.winning_tile"


def test_heavenly_with_a_caishen_taken_as_the_winning_tile():
    # indicator 9s: one 9s caishen in 123m 456m 789p EEE 5s + 9s.  Named 1m: the caishen pairs 5s
    # and 1m is two-sided (pai_hu 0).  Taking the caishen itself as the winning tile, it completes
    # the pair 5s: single 1.  heavenly 8 + self_draw 1 + winds 2 + wait 1 = 12 (no no_caishen);
    # P = 13, E +39.
    r = score("ningbo", "123m 456m 789p EEE 5s 9s", "1m", seat="E", heavenly=True, indicator="9s")
    assert r["tai"] == 12 and r["points"] == 13 and r["net"]["E"] == 39
    assert "no_caishen" not in by_id(r)


# --- (rulebook wherever rules are echoed, and the release notes: tests/library/test_rulebook3.py) ------------

SIMPLE = {"seat_wind": "S", "round_wind": "E",
          "hand": {"concealed": "123m 456m 789p 234s 55s", "winning_tile": "4m"}, "win": {"by": "self_draw"}}


def test_sources_by_title_and_date():
    sources = {p["id"]: p["source"] for p in ningbo_score.presets()}
    assert all(".txt" not in s for s in sources.values())
    assert "2010-9-19" in sources["ningbo-456"] and "宁波麻将" in sources["ningbo-456"]
    assert "边锋" in sources["ningbo-bianfeng"] and "7百搭" in sources["ningbo-7baida"]


# --- counts: an integral float is the count ----------------------------------------------------------

def test_integral_floats_are_counts(client):
    # SIMPLE: ping_hu 1 + self_draw 1 + no_caishen 1 = 3 < 4 in ningbo; with min_tai 3.0 eligible,
    # base 2.0: P = 2 × (1 + 3) = 8; each other pays 8.
    b = copy.deepcopy(SIMPLE)
    b["rules"] = {"preset": "ningbo", "min_tai": 3.0, "item_tai": {"no_caishen": 1.0}}
    b["base_points"] = 2.0
    b["claims_from_winner"] = {"W": 0.0}
    answer = client.score(b).get_json()
    assert answer["points"] == 8 and answer["net"]["S"] == 24
    assert answer["rules"]["min_tai"] == 3 and isinstance(answer["rules"]["min_tai"], int)


@pytest.mark.parametrize("value", [2.5, "2", 1e-9 + 2, True])
def test_non_integral_counts_are_refused(client, value):
    b = dict(SIMPLE, base_points=value)
    response = client.score(b)
    assert response.status_code == 400
    assert list(response.get_json()["errors"]) == ["base_points"]


def test_integral_floats_in_table_requests(client):
    # escape at level 16.0: 24 × 700 = 16800; next hand after dealer 1.0 wins: unchanged
    assert client.post("/v1/table/escape", json={"level": 16.0}).get_json()["penalty"] == 16800
    answer = client.post("/v1/table/next", json={"dealer": 1.0, "round_wind": "E", "dealers_this_round": 2.0,
                                                 "result": {"winner": 1.0}}).get_json()
    assert (answer["dealer"], answer["dealers_this_round"]) == (1, 2)


# --- no number past 2^53 − 1 -----------------------------------------------------------------------
# ningbo-456 (doubling), S self-draws SIMPLE: ping_hu 1 + self_draw 1 + no_caishen 1; with
# self_draw worth 35: 1 + 35 + 1 = 37 台, P = b × 2^(37 − 4) = b × 2^33; S receives 3P.
SAFE = 2**53 - 1


def doubling_body(base: int) -> dict:
    return dict(SIMPLE, rules={"preset": "ningbo-456", "item_tai": {"self_draw": 35}}, base_points=base)


def test_largest_safe_net_is_answered(client):
    # b = 349525 = (2^20 − 1) / 3: 3P = (2^20 − 1) × 2^33 = 2^53 − 2^33 <= 2^53 − 1
    answer = client.score(doubling_body(349525)).get_json()
    assert answer["tai"] == 37
    assert answer["points"] == 349525 * 2**33
    assert answer["net"]["S"] == 2**53 - 2**33 <= SAFE


def test_net_past_the_safe_integers_is_422_on_base_points(client):
    # b = 349526: 3P = 1048578 × 2^33 > 2^20 × 2^33 = 2^53 -> refused, although P itself
    # (349526 × 2^33 < 2^52) is safe: the winner's net decides
    response = client.score(doubling_body(349526))
    assert response.status_code == 422
    problem = response.get_json()
    assert problem["code"] == "invalid_request" and list(problem["errors"]) == ["base_points"]


def test_points_past_the_safe_integers_in_the_library():
    # base 1,000,000 and self_draw 100: 1 + 100 + 1 = 102 台, P = 10^6 × 2^98: far past it
    req = dict(doubling_body(1_000_000), rules={"preset": "ningbo-456", "item_tai": {"self_draw": 100}})
    with pytest.raises(ScoreError) as err:
        ningbo_score.score(req)
    assert (err.value.code, err.value.status, err.value.path) == ("invalid_request", 422, "base_points")


def test_a_capped_hand_is_never_too_large():
    # ningbo's hand cap 1000 bounds every payment, so the same 台 in ningbo with doubling is paid
    # 1000 in all: S +1000 (the cap's split of §7)
    req = dict(doubling_body(1_000_000), rules={"preset": "ningbo", "points": "doubling",
                                                "item_tai": {"self_draw": 100}})
    # the points themselves (10^6 × 2^98) are past 2^53 − 1 -> still refused: no answer holds them
    with pytest.raises(ScoreError) as err:
        ningbo_score.score(req)
    assert err.value.path == "base_points"
    # with base 1 and self_draw 40: 42 台, P = 2^38 (safe); each payer capped at 1000, the
    # winner's total 3000 > 1000 scaled to 1000: 333 + 333 + 333 = 999, one unit left to the first
    # largest remainder in seat order (E) -> 334, 333, 333
    req = dict(doubling_body(1), rules={"preset": "ningbo", "points": "doubling", "item_tai": {"self_draw": 40}})
    r = ningbo_score.score(req)
    assert r["points"] == 2**38
    assert r["net"] == {"E": -334, "S": 1000, "W": -333, "N": -333}


def test_integral_floats_in_a_batch(client):
    # each item of a batch is read like a /v1/score body: base 2.0 is 2, 2.5 is refused.
    # SIMPLE in ningbo with min_tai 3.0: ping_hu 1 + self_draw 1 + no_caishen 1 = 3, P = 2 × 4 = 8
    good = dict(SIMPLE, rules={"preset": "ningbo", "min_tai": 3.0}, base_points=2.0)
    bad = dict(SIMPLE, base_points=2.5)
    answer = client.post("/v1/score/batch", json={"requests": [good, bad]}).get_json()
    assert answer["results"][0]["score"]["points"] == 8
    assert answer["results"][1]["status"] == 400
    assert list(answer["results"][1]["problem"]["errors"]) == ["base_points"]
