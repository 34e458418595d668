"""Rule book 3 (docs/rules.md, "Rule book versions"): each change, with hands worked out by hand.

Every expected value is computed in the comment beside it from the rule book: the 台 items (§5),
the points (§6: linear P = base × (1 + 台); doubling P = base × 2^max(0, 台 − 4), whatever
``min_tai`` is) and the payments (§7).  Where an option restores rule book 2's reading, the same
hand is scored with it too.
"""
from __future__ import annotations

import copy

import ningbo_score
from ningbo_score.rules import PRESETS

# the request builder and readers of the rule-book-2 tests (T: "123m EE" -> tiles)
from test_rulebook2 import SIMPLE, by_id, meld, paid, score  # noqa: E402


# --- doubling counts from 4 台, whatever min_tai is (§6) ---------------------------------------------
# N in the E round, indicator 5m (the three other 5m are caishen; none in hand).  123p 456p 789s
# 234s WW, self-drawn 4p: the 4 of 4-5-6, every set a chow, the pair W neither N's seat wind nor
# the round wind -> 平胡 1; 自摸 1; no caishen -> 硬胡 1.  3 台 before flowers.
CHOWS = "123p 456p 789s 234s WW"


def chows(rules, flowers="", **flags) -> dict:
    return score(rules, CHOWS, "4p", seat="N", indicator="5m", flowers=flowers, **flags)


def test_doubling_4_tai_pays_1x_with_min_tai_0():
    # + 正花 4f 1 = 4 台.  min_tai 0: eligible; P = 1 × 2^max(0, 4 − 4) = 1 (rule book 2 counted
    # from min_tai: 2^(4 − 0) = 16).  Nobody related: E, S, W pay 1 each, N +3.
    r = chows({"preset": "ningbo-456", "min_tai": 0}, flowers="4f")
    assert by_id(r) == {"ping_hu": 1, "self_draw": 1, "no_caishen": 1, "seat_flower": 1}
    assert r["tai"] == 4 and r["eligible"] is True and r["min_tai"] == 0
    assert r["points"] == 1 and r["net"] == {"E": -1, "S": -1, "W": -1, "N": 3}


def test_doubling_6_tai_pays_4x_with_min_tai_0():
    # + 正花 4f and 8f 2 + 海底 (the wall's last tile) 1 = 6 台: P = 2^(6 − 4) = 4 with min_tai 0
    # (rule book 2: 2^6 = 64) and with the preset's 4 alike; each other pays 4, N +12.
    for rules in ({"preset": "ningbo-456", "min_tai": 0}, "ningbo-456"):
        r = chows(rules, flowers="4f 8f", last_tile=True)
        assert by_id(r) == {"ping_hu": 1, "self_draw": 1, "no_caishen": 1, "seat_flower": 2, "last_tile": 1}
        assert r["tai"] == 6 and r["points"] == 4, rules
        assert r["net"] == {"E": -4, "S": -4, "W": -4, "N": 12}, rules


def test_doubling_below_4_tai_pays_1x():
    # No flower: 3 台 < 4, possible as a win only with min_tai overridden below 4 (here 0):
    # P = 2^max(0, 3 − 4) = 2^0 = 1 (rule book 2: 2^3 = 8); N +3.
    r = chows({"preset": "ningbo-456", "min_tai": 0})
    assert r["tai"] == 3 and r["eligible"] is True
    assert r["points"] == 1 and r["net"]["N"] == 3


def test_doubling_min_tai_above_4_moves_no_money():
    # min_tai 5 decides only eligibility: the 5-台 hand (4f 8f) wins and pays 2^(5 − 4) = 2 (rule
    # book 2: 2^(5 − 5) = 1); the 4-台 hand (4f) is below 5 and pays nothing.
    r = chows({"preset": "ningbo-456", "min_tai": 5}, flowers="4f 8f")
    assert r["tai"] == 5 and r["eligible"] is True and r["points"] == 2
    assert r["net"] == {"E": -2, "S": -2, "W": -2, "N": 6}
    r = chows({"preset": "ningbo-456", "min_tai": 5}, flowers="4f")
    assert r["tai"] == 4 and r["eligible"] is False and r["points"] == 0 and r["payments"] == []


def test_doubling_chosen_in_ningbo_with_base_points():
    # ningbo with points doubling, min_tai 3 and base 10: the 3-台 hand is eligible and pays
    # 10 × 2^max(0, 3 − 4) = 10 (rule book 2: 10 × 2^0 = 10 too); the 6-台 hand 10 × 2^2 = 40
    # (rule book 2: 10 × 2^3 = 80); each other pays 40, N +120 (under the hand cap 1000).
    rules = {"preset": "ningbo", "points": "doubling", "min_tai": 3}
    assert chows(rules, base_points=10)["points"] == 10
    r = chows(rules, flowers="4f 8f", last_tile=True, base_points=10)
    assert r["points"] == 40 and r["net"] == {"E": -40, "S": -40, "W": -40, "N": 120}


def test_linear_is_untouched_by_min_tai():
    # linear: P = 1 + 台 whatever min_tai is: the 4-台 hand in ningbo with min_tai 0 pays 5 each.
    r = chows({"preset": "ningbo", "min_tai": 0}, flowers="4f")
    assert r["points"] == 5 and r["net"]["N"] == 15


# --- ningbo-7baida wins from 4 台 (§9) -----------------------------------------------------------
# 7百搭, indicator 5m: caishen 5m and 6m (none in the hand).

def test_7baida_4_tai_self_draw_is_a_win():
    # 平胡 1 + 自摸 1 + 硬胡 1 + 正花 4f 1 = 4 台 >= 4 (rule book 2: < 5, no win).  Linear P = 1 + 4
    # = 5; nobody related: each other pays 5, N +15.
    r = chows("ningbo-7baida", flowers="4f")
    assert r["tai"] == 4 and r["min_tai"] == 4 and r["eligible"] is True and r["reasons"] == []
    assert r["points"] == 5 and r["net"] == {"E": -5, "S": -5, "W": -5, "N": 15}


def test_7baida_3_tai_is_still_below_the_minimum():
    # 平胡 1 + 自摸 1 + 硬胡 1 = 3 < 4: not eligible, nothing paid.
    r = chows("ningbo-7baida")
    assert r["tai"] == 3 and r["eligible"] is False and r["payments"] == []
    assert r["net"] == {"E": 0, "S": 0, "W": 0, "N": 0}


def test_7baida_min_tai_5_restores_rule_book_2():
    r = chows({"preset": "ningbo-7baida", "min_tai": 5}, flowers="4f")
    assert r["tai"] == 4 and r["eligible"] is False


# --- 7百搭: the unrelated players pay 1 each on a 包 self-draw (liability_others_pay, §7) -----------
# W in the E round, 7百搭 with indicator 5m (caishen 5m 6m, none held).  W claimed pungs of 2m, 4p
# and 9s, all from S; concealed 345s CC, self-drawn 4s: the middle of 3-4-5 -> 夹 1; 自摸 1;
# 硬胡 1; W's flowers 3f 7f -> 正花 2.  CC is the pair (no pung).  5 台: P = 1 + 5 = 6.
# S is related (W claimed 3 pungs from it; 7百搭 counts pungs and kongs).
PUNGS_FROM_S = [meld("pung", "2m 2m 2m", "S"), meld("pung", "4p 4p 4p", "S"), meld("pung", "9s 9s 9s", "S")]


def liable(rules, claims=None, **flags) -> dict:
    return score(rules, "345s CC", "4s", seat="W", indicator="5m", flowers="3f 7f",
                 melds=copy.deepcopy(PUNGS_FROM_S), claims=claims, **flags)


def test_7baida_liability_self_draw_others_pay_one_each():
    # S related: 5 × 6 = 30; E and N unrelated, liability_others_pay: 1 × 6 = 6 each.
    # W: 30 + 6 + 6 = 42 (rule book 2 gave 30: "另外三玩家各付一份錢", the 三包 sentence changes
    # only S's share).
    r = liable("ningbo-7baida")
    assert by_id(r) == {"closed_wait": 1, "self_draw": 1, "no_caishen": 1, "seat_flower": 2}
    assert r["tai"] == 5 and r["points"] == 6
    assert paid(r) == {"S": (30, 5), "E": (6, 1), "N": (6, 1)}
    assert r["net"] == {"E": -6, "S": -30, "W": 42, "N": -6}
    reasons = {p["from"]: (p["reason"], p["liability"]) for p in r["payments"]}
    assert reasons == {"S": ("self_draw", "related"), "E": ("self_draw", None), "N": ("self_draw", None)}


def test_7baida_liability_self_draw_without_the_option_is_rule_book_2():
    # liability_others_pay off: S 30 alone, W +30.
    r = liable({"preset": "ningbo-7baida", "liability_others_pay": False})
    assert paid(r) == {"S": (30, 5)} and r["net"]["W"] == 30


def test_7baida_mutual_is_capped_and_others_still_pay_one():
    # S also claimed 3 melds from W: mutual, 10, but liability_cap 5 -> 5 × 6 = 30; E and N 6
    # each: W +42.  Without the cap: 10 × 6 = 60 + 6 + 6 = 72.
    r = liable("ningbo-7baida", claims={"S": 3})
    assert paid(r) == {"S": (30, 5), "E": (6, 1), "N": (6, 1)} and r["net"]["W"] == 42
    assert r["payments"][[p["from"] for p in r["payments"]].index("S")]["liability"] == "mutual"
    r = liable({"preset": "ningbo-7baida", "liability_cap": None}, claims={"S": 3})
    assert paid(r) == {"S": (60, 10), "E": (6, 1), "N": (6, 1)} and r["net"]["W"] == 72


def test_7baida_two_related_players_and_one_unrelated():
    # E claimed 3 melds from W too: S 5 × 6 = 30, E 5 × 6 = 30, N unrelated 1 × 6 = 6: W +66.
    r = liable("ningbo-7baida", claims={"E": 3})
    assert paid(r) == {"S": (30, 5), "E": (30, 5), "N": (6, 1)} and r["net"]["W"] == 66


def test_liability_others_pay_in_another_preset():
    # docs/rules.md §7 example 2 (ningbo): S claimed 123m, 中 and 9p from E and self-draws 2s into
    # 234s 55s, flower 2f: 排胡 0 + 自摸 1 + 硬胡 1 + 中 1 + 正花 1 = 4 台, P = 5.  E related: 25;
    # with liability_others_pay W and N pay 1 × 5 each: S +35 (ningbo's default: +25).
    melds = [meld("chow", "1m 2m 3m", "E"), meld("pung", "C C C", "E"), meld("pung", "9p 9p 9p", "E")]
    r = score({"preset": "ningbo", "liability_others_pay": True}, "234s 55s", "2s", melds=melds,
              flowers="2f", indicator="1p")
    assert r["tai"] == 4 and r["points"] == 5
    assert paid(r) == {"E": (25, 5), "W": (5, 1), "N": (5, 1)} and r["net"]["S"] == 35
    r = score("ningbo", "234s 55s", "2s", melds=copy.deepcopy(melds), flowers="2f", indicator="1p")
    assert paid(r) == {"E": (25, 5)} and r["net"]["S"] == 25


def test_only_7baida_has_the_option_on():
    # §9: liability_others_pay is "no" in every preset but ningbo-7baida.
    assert [p for p in PRESETS if PRESETS[p]["options"].liability_others_pay] == ["ningbo-7baida"]


# --- 7百搭: kong bloom (kong_bloom_others_pay on), robbed kong (the robbed alone) -----------------
# W's exposed kong of 2m came from S's discard, pungs 4p from E and 9s from N (nobody related: one
# meld each); concealed 345s CC; W draws the replacement 4s and wins (杠上开花): 夹 1, 自摸 1,
# 杠上开花 1, 硬胡 1, 正花 3f 7f 2 = 6 台, P = 1 + 6 = 7.
BLOOM_MELDS = [meld("kong", "2m 2m 2m 2m", "S"), meld("pung", "4p 4p 4p", "E"), meld("pung", "9s 9s 9s", "N")]


def bloom(rules) -> dict:
    return score(rules, "345s CC", "4s", seat="W", indicator="5m", flowers="3f 7f",
                 melds=copy.deepcopy(BLOOM_MELDS), kong_replacement=True, kong_fed_by="S")


def test_7baida_kong_bloom_others_pay_one_each():
    # S fed it: 5 × 7 = 35; E and N 1 × 7 = 7 each (rule book 2: nothing).  W: 35 + 7 + 7 = 49.
    r = bloom("ningbo-7baida")
    assert r["tai"] == 6 and r["points"] == 7 and by_id(r)["kong_bloom"] == 1
    assert paid(r) == {"S": (35, 5), "E": (7, 1), "N": (7, 1)}
    assert {p["reason"] for p in r["payments"]} == {"kong_bloom"}
    assert r["net"] == {"E": -7, "S": -35, "W": 49, "N": -7}
    r = bloom({"preset": "ningbo-7baida", "kong_bloom_others_pay": False})
    assert paid(r) == {"S": (35, 5)} and r["net"]["W"] == 35


def test_7baida_robbed_kong_is_paid_by_the_robbed_alone():
    # W robs N's added kong of 4s (N held a pung of it), with the 3 pungs from S (S related):
    # 夹 1, 抢杠 1, 硬胡 1, 正花 2 = 5 台, P = 6.  N pays 5 × 6 = 30 alone: neither related S nor E
    # pays (7百搭: "A就要付5份的自摸積分，其他人不用付"), liability_others_pay or not.
    r = liable("ningbo-7baida", by="robbing_kong", frm="N")
    assert by_id(r) == {"closed_wait": 1, "robbing_kong": 1, "no_caishen": 1, "seat_flower": 2}
    assert r["points"] == 6 and paid(r) == {"N": (30, 5)}
    assert r["net"] == {"E": 0, "S": 0, "W": 30, "N": -30}


# --- ("rulebook" wherever rules are echoed, and the release notes: tests/library/test_rulebook4.py) ---------

def test_the_new_option_is_echoed_and_validated(client):
    echoed = client.score(dict(SIMPLE, rules={"preset": "ningbo", "liability_others_pay": True,
                                              "min_tai": 0})).get_json()["rules"]
    assert echoed["liability_others_pay"] is True and echoed["rulebook"] == ningbo_score.RULEBOOK
    for bad in ("yes", 1, [True]):
        response = client.score(dict(SIMPLE, rules={"preset": "ningbo-7baida", "liability_others_pay": bad}))
        assert response.status_code == 400
        assert list(response.get_json()["errors"]) == ["rules.liability_others_pay"]
    for preset in PRESETS:
        options = client.get(f"/v1/rules/{preset}").get_json()["options"]
        assert options["liability_others_pay"] is (preset == "ningbo-7baida")
        assert options["min_tai"] == {"ningbo-taishu": 0}.get(preset, 4)

