"""End-to-end hands scored through ``ningbo_score.score``, one test per hand.

Every expected value below was worked out by hand from docs/rules.md (the rule book) and docs/api.md; the
comment on each hand shows the arithmetic: the 台 items (§5), the points formula (§6) and the
payment row (§7).  Nothing here was copied from the engine's output.

Reminders used throughout:
- with m melds the concealed tiles are 14 - 3m, winning tile included;
- a chow meld comes from the winner's 上家 (E<-N, S<-E, W<-S, N<-W);
- the indicator is out of play and counts as one copy (indicator 5p -> the 3 other 5p are caishen);
- linear  P = base * (1 + tai)                     (tai includes the bonus three_caishen);
- doubling P = base * 2 ** (tai - min_tai)        (the full tai, bonus items included).
"""
from __future__ import annotations

import pytest

from helpers import SEATS, chow, items_by_id, kong, pung, score_body

from ningbo_score import ScoreError, score


def req(rules, seat, rnd, concealed, winning, win, *, melds=(), flowers="", indicator=None,
        kinds=None, claims=None, base=None) -> dict:
    return score_body(rules, seat, rnd, concealed, winning=winning, melds=melds, flowers=flowers, indicator=indicator,
                      caishen=None if kinds is None else {"kinds": kinds}, win=win, claims=claims, base_points=base)


def net(**kw) -> dict[str, int]:
    return {s: kw.get(s, 0) for s in SEATS}


def check(res, seat, *, tai, counted, eligible, items, points, net, wait=None, mults=None,
          amounts=None):
    # self-check of the hand computation in the test
    assert sum(items.values()) == tai
    assert items_by_id(res) == items
    assert res["tai"] == tai
    assert res["counted_tai"] == counted
    assert res["eligible"] is eligible
    assert res["points"] == points
    assert res["net"] == net
    assert sum(res["net"].values()) == 0
    if wait is not None:
        assert res["decomposition"]["wait"] == wait
    if not eligible:
        assert res["payments"] == []
        assert res["reasons"], "an ineligible hand says why"
        return
    for p in res["payments"]:
        assert p["to"] == seat
        assert p["from"] != seat
    if mults is not None:
        assert {p["from"]: p["multiplier"] for p in res["payments"]} == mults
    paid: dict[str, int] = {}
    for p in res["payments"]:
        paid[p["from"]] = paid.get(p["from"], 0) + p["amount"]
    if amounts is not None:
        assert paid == amounts
    for s in SEATS:
        if s != seat:
            assert res["net"][s] == -paid.get(s, 0)


def faces(res) -> list[str]:
    return sorted(c["face"] for c in res["decomposition"]["caishen"])


SELF = {"by": "self_draw"}


def discard(frm: str, **flags) -> dict:
    return {"by": "discard", "from": frm, **flags}


def robbing(frm: str, **flags) -> dict:
    return {"by": "robbing_kong", "from": frm, **flags}


def self_draw(**flags) -> dict:
    return {"by": "self_draw", **flags}


def refused(request: dict, code: str) -> None:
    with pytest.raises(ScoreError) as ei:
        score(request)
    assert ei.value.code == code


# =========================================================================== ningbo (001)
# linear, min 4, single_wait restriction, related_discarder add, no liability cap, hand_cap 1000


def test_ningbo_api_worked_example():
    # docs/api.md verbatim.  234m with 4m: two-sided, pungs present -> pai_hu 0; self_draw 1;
    # no 5p in hand -> no_caishen 1; C pung 1; 2f is S's seat flower 1.  tai 4.
    # P = 1*(1+4) = 5.  Self-draw: W claimed 1 from E, W claimed 1 from winner -> nobody
    # related -> each other player 1 -> 5.
    body = {
        "rules": "ningbo",
        "seat_wind": "S",
        "round_wind": "E",
        "caishen": {"indicator": "5p"},
        "hand": {
            "concealed": ["2m", "3m", "4m", "6m", "7m", "8m", "9s", "9s"],
            "winning_tile": "4m",
            "melds": [
                {"type": "pung", "tiles": ["C", "C", "C"], "from": "E"},
                {"type": "kong", "tiles": ["1s", "1s", "1s", "1s"], "concealed": True},
            ],
            "flowers": ["2f"],
        },
        "win": {"by": "self_draw"},
        "claims_from_winner": {"E": 0, "W": 1, "N": 0},
        "base_points": 1,
    }
    res = score(body)
    check(res, "S", tai=4, counted=4, eligible=True,
          items={"pai_hu": 0, "self_draw": 1, "no_caishen": 1, "dragon_pung": 1, "seat_flower": 1},
          points=5, net=net(E=-5, S=15, W=-5, N=-5), wait="two_sided",
          mults={"E": 1, "W": 1, "N": 1}, amounts={"E": 5, "W": 5, "N": 5})
    assert res["min_tai"] == 4
    assert res["reasons"] == []
    assert res["caishen"]["kinds"] == ["5p"]
    assert all(p["reason"] == "self_draw" for p in res["payments"])


def test_ningbo_dragon_pair_is_no_ping_hu_on_a_discard():
    # W, 123m 456p 345s 678s CC, wins 6p (45p waits 3p/6p: two-sided) on N's discard.
    # All 4 sets chows, but pair C is a dragon, a tile that carries 台 (rule book 2: no 平胡)
    # -> pai_hu 0; no 9p -> no_caishen 1; 3f + 7f are W's seat flowers 2.  tai 3 < 4:
    # not eligible (rule book 1 gave ping_hu 1, tai 4, N paying 10).
    res = score(req("ningbo", "W", "E", "123m 456p 345s 678s CC", "6p", discard("N"),
                    flowers="3f 7f", indicator="9p"))
    check(res, "W", tai=3, counted=3, eligible=False,
          items={"pai_hu": 0, "no_caishen": 1, "seat_flower": 2},
          points=0, net=net(), wait="two_sided")


def test_ningbo_pai_hu_seat_wind_pair():
    # Same shape with the seat wind W as the pair: ping_hu forbidden -> pai_hu 0 (listed).
    # self_draw 1, no_caishen 1, seat flowers 3f 7f 2.  tai 4, P = 5, each other pays 1 -> 5.
    res = score(req("ningbo", "W", "E", "123m 456p 345s 678s WW", "6p", SELF,
                    flowers="3f 7f", indicator="9p"))
    check(res, "W", tai=4, counted=4, eligible=True,
          items={"pai_hu": 0, "self_draw": 1, "no_caishen": 1, "seat_flower": 2},
          points=5, net=net(E=-5, S=-5, W=15, N=-5), wait="two_sided",
          mults={"E": 1, "S": 1, "N": 1})


def test_ningbo_edge_wait_and_related_non_discarder():
    # N, 123m 567p 234s FFF 99p, wins 3m (the 3 of 1-2-3: edge) on W's discard.
    # edge 1, F pung 1, no 5s -> no_caishen 1, 4f seat flower 1.  tai 4, P = 5.
    # Discard by W (unrelated): 2 -> 10.  E claimed 3 melds from N -> related, not the
    # discarder: +2 -> 10.  S 0.
    res = score(req("ningbo", "N", "E", "123m 567p 234s FFF 99p", "3m", discard("W"),
                    flowers="4f", indicator="5s", claims={"E": 3}))
    check(res, "N", tai=4, counted=4, eligible=True,
          items={"edge_wait": 1, "dragon_pung": 1, "no_caishen": 1, "seat_flower": 1},
          points=5, net=net(N=20, E=-10, W=-10), wait="edge",
          mults={"W": 2, "E": 2}, amounts={"W": 10, "E": 10})


def test_ningbo_closed_wait_seat_and_round_wind_same_tile():
    # E in the E round: 456m 789p EEE 222s 88s, wins 5m (middle of 4-5-6: closed) on S's discard.
    # closed 1; EEE is both seat wind and round wind -> 1 + 1; no 1p -> no_caishen 1.
    # tai 4, P = 5; S discards, unrelated -> 2 -> 10.
    res = score(req("ningbo", "E", "E", "456m 789p EEE 222s 88s", "5m", discard("S"),
                    indicator="1p"))
    check(res, "E", tai=4, counted=4, eligible=True,
          items={"closed_wait": 1, "seat_wind_pung": 1, "round_wind_pung": 1, "no_caishen": 1},
          points=5, net=net(E=10, S=-10), wait="closed", mults={"S": 2})


def test_ningbo_dual_pung_self_draw_related_by_melds():
    # S with three chows claimed from E (S's 上家): 123m 456m 789m; concealed 33p 77s + 3p.
    # 3p completes a pung while 33p and 77s were pairs -> dual_pung 1; self_draw 1;
    # no 5s -> no_caishen 1; 2f 1.  tai 4, P = 5.
    # Winner claimed 3 melds from E -> E related: self-draw, E pays 5 -> 25, W and N 0.
    res = score(req("ningbo", "S", "E", "333p 77s", "3p", SELF,
                    melds=[chow("123m", "E"), chow("456m", "E"), chow("789m", "E")],
                    flowers="2f", indicator="5s"))
    check(res, "S", tai=4, counted=4, eligible=True,
          items={"dual_pung_wait": 1, "self_draw": 1, "no_caishen": 1, "seat_flower": 1},
          points=5, net=net(S=25, E=-25), wait="dual_pung", mults={"E": 5}, amounts={"E": 25})


def test_ningbo_big_single_wait_concealed_kong_mutual_self_draw():
    # N with 4 melds (pung 5m, chows 234s and 678p from W = N's 上家, concealed kong 9p):
    # one 1m left, draws 1m.  single 1 + big_single_wait 1 (4 melds, concealed kong counts,
    # §10.4); self_draw 1; no 5s -> no_caishen 1.  tai 4, P = 5.
    # N claimed 3 melds from W and W claimed 3 from N -> mutual -> self-draw 10 -> 50.
    res = score(req("ningbo", "N", "E", "11m", "1m", SELF,
                    melds=[pung("5m", "W"), chow("234s", "W"), chow("678p", "W"), kong("9p")],
                    indicator="5s", claims={"W": 3}))
    check(res, "N", tai=4, counted=4, eligible=True,
          items={"single_wait": 1, "big_single_wait": 1, "self_draw": 1, "no_caishen": 1},
          points=5, net=net(N=50, W=-50), wait="single", mults={"W": 10}, amounts={"W": 50})


def test_ningbo_all_pungs_related_discarder_add():
    # W with pungs 2m, 7p, 9s all from S; concealed 66m 88s + 8s from S's discard.
    # all_pungs 2; 8s completes a pung with two pairs before -> dual_pung 1; no 5p ->
    # no_caishen 1.  tai 4, P = 5.  S related (3 melds) and discards: 2 + 2 = 4 -> 20.
    res = score(req("ningbo", "W", "E", "66m 888s", "8s", discard("S"),
                    melds=[pung("2m", "S"), pung("7p", "S"), pung("9s", "S")], indicator="5p"))
    check(res, "W", tai=4, counted=4, eligible=True,
          items={"all_pungs": 2, "dual_pung_wait": 1, "no_caishen": 1},
          points=5, net=net(W=20, S=-20), wait="dual_pung", mults={"S": 4}, amounts={"S": 20})


def test_ningbo_full_flush():
    # E: chow 123p from N (E's 上家), pung 9p from S; concealed 222p 45p 88p + 6p from W.
    # 6p ends 4-5-6: two-sided, pungs -> pai_hu 0; all dots -> full_flush 4; indicator E,
    # no E in hand -> no_caishen 1.  tai 5, P = 6.  W unrelated discarder: 2 -> 12.
    res = score(req("ningbo", "E", "S", "222p 456p 88p", "6p", discard("W"),
                    melds=[chow("123p", "N"), pung("9p", "S")], indicator="E"))
    check(res, "E", tai=5, counted=5, eligible=True,
          items={"pai_hu": 0, "full_flush": 4, "no_caishen": 1},
          points=6, net=net(E=12, W=-12), wait="two_sided", mults={"W": 2})


def test_ningbo_half_flush_kong_bloom_related_feeder():
    # S: exposed kong 7s, pungs 1s and C, all from W; concealed 23s 99s; after the kong of
    # W's 7s S draws the replacement 4s (two-sided, pungs -> pai_hu 0).
    # self_draw 1 + kong_bloom 1; bamboo + C -> half_flush 2; C pung 1; no 9m -> no_caishen 1.
    # tai 6, P = 7.  Kong bloom fed by W, W related (3 melds): 5 + 5 = 10 -> 70; others 0.
    res = score(req("ningbo", "S", "E", "234s 99s", "4s",
                    self_draw(kong_replacement=True, kong_fed_by="W"),
                    melds=[kong("7s", "W"), pung("1s", "W"), pung("C", "W")], indicator="9m"))
    check(res, "S", tai=6, counted=6, eligible=True,
          items={"pai_hu": 0, "self_draw": 1, "kong_bloom": 1, "half_flush": 2,
                 "dragon_pung": 1, "no_caishen": 1},
          points=7, net=net(S=70, W=-70), wait="two_sided", mults={"W": 10}, amounts={"W": 70})


def test_ningbo_all_honors_with_item_tai_overrides():
    # N in the E round: EEE SSS FFF CCC NN, draws S (two pairs SS NN before -> dual_pung 1).
    # all_honors overridden to 20 (+ all_pungs 2, *interpretation*), self_draw 1, F and C
    # pungs 2, EEE round wind 1 (not seat wind: seat N), no_caishen overridden to 0 (not
    # listed).  No suit at all -> no half_flush.  tai 20+2+1+1+2+1 = 27, P = 28, each 28.
    rules = {"preset": "ningbo", "item_tai": {"all_honors": 20, "no_caishen": 0}}
    res = score(req(rules, "N", "E", "EEE SSS FFF CCC NN", "S", SELF, indicator="1m"))
    check(res, "N", tai=27, counted=27, eligible=True,
          items={"all_honors": 20, "all_pungs": 2, "dual_pung_wait": 1, "self_draw": 1,
                 "dragon_pung": 2, "round_wind_pung": 1},
          points=28, net=net(E=-28, S=-28, W=-28, N=84), wait="dual_pung",
          mults={"E": 1, "S": 1, "W": 1})


def test_ningbo_hand_cap_equal_shares_leftover_in_seat_order():
    # W: 123m 789m 234p 678s NN, draws 4p (two-sided, all chows, N pair ok) -> ping_hu 1,
    # self_draw 1, no_caishen 1, 3f 1.  tai 4, P = 80*(1+4) = 400; each other pays 400,
    # total 1200 > 1000 -> each 400*1000/1200 = 333.33 -> 333, 999 paid, 1 unit left, equal
    # remainders -> first in seat order E: E 334, S 333, N 333.
    res = score(req("ningbo", "W", "E", "123m 789m 234p 678s NN", "4p", SELF,
                    flowers="3f", indicator="9s", base=80))
    check(res, "W", tai=4, counted=4, eligible=True,
          items={"ping_hu": 1, "self_draw": 1, "no_caishen": 1, "seat_flower": 1},
          points=400, net=net(E=-334, S=-333, W=1000, N=-333), wait="two_sided",
          mults={"E": 1, "S": 1, "N": 1}, amounts={"E": 334, "S": 333, "N": 333})


def test_ningbo_hand_cap_unequal_shares_largest_remainder():
    # S: chow 123m, pungs 9s and 5p, all from E; concealed 89p 44s + 7p from E (7 of 7-8-9:
    # edge 1); no 1p -> no_caishen 1; 2f 6f 2.  tai 4, P = 40*5 = 200.
    # S claimed 3 from E and E claimed 3 from S -> mutual discarder 2 + 4 = 6; W and N claimed
    # 3 each from S -> related +2 each.  Amounts: E 1200 -> capped at 1000, W 400, N 400;
    # total 1800 > 1000 -> E 555.56, W 222.22, N 222.22 -> 555 + 222 + 222 = 999, the unit
    # left goes to the largest remainder (E .56): E 556, W 222, N 222.
    res = score(req("ningbo", "S", "E", "789p 44s", "7p", discard("E"),
                    melds=[chow("123m", "E"), pung("9s", "E"), pung("5p", "E")],
                    flowers="2f 6f", indicator="1p", claims={"E": 3, "W": 3, "N": 3}, base=40))
    check(res, "S", tai=4, counted=4, eligible=True,
          items={"edge_wait": 1, "no_caishen": 1, "seat_flower": 2},
          points=200, net=net(E=-556, S=1000, W=-222, N=-222), wait="edge",
          mults={"E": 6, "W": 2, "N": 2}, amounts={"E": 556, "W": 222, "N": 222})


def test_ningbo_heavenly_stacks_with_self_draw():
    # Dealer E wins on the dealt hand: 123m 456m 789p 234s 55s, winning tile 5s (pair: single).
    # heavenly 8 + self_draw 1 (stack, *interpretation*) + single 1 + no_caishen 1 = 11.
    # P = 12, each other pays 12.
    res = score(req("ningbo", "E", "E", "123m 456m 789p 234s 55s", "5s",
                    self_draw(heavenly=True), indicator="9s"))
    check(res, "E", tai=11, counted=11, eligible=True,
          items={"heavenly": 8, "self_draw": 1, "single_wait": 1, "no_caishen": 1},
          points=12, net=net(E=36, S=-12, W=-12, N=-12), wait="single",
          mults={"S": 1, "W": 1, "N": 1})


def test_ningbo_min_tai_override_3():
    # S: 234m 567m 345p 789s 11s, draws 4m (two-sided, all chows) -> ping_hu 1, self_draw 1,
    # no_caishen 1 = 3.  With min_tai 3 it is eligible: P = 1*(1+3) = 4, each other pays 4.
    rules = {"preset": "ningbo", "min_tai": 3}
    res = score(req(rules, "S", "E", "234m 567m 345p 789s 11s", "4m", SELF, indicator="9p"))
    check(res, "S", tai=3, counted=3, eligible=True,
          items={"ping_hu": 1, "self_draw": 1, "no_caishen": 1},
          points=4, net=net(E=-4, S=12, W=-4, N=-4), wait="two_sided",
          mults={"E": 1, "W": 1, "N": 1})
    assert res["min_tai"] == 3
    assert res["rules"]["min_tai"] == 3


def test_ningbo_three_tai_is_below_default_minimum():
    # The same hand under plain ningbo: 3 < 4 -> not eligible, points 0, nobody pays.
    res = score(req("ningbo", "S", "E", "234m 567m 345p 789s 11s", "4m", SELF, indicator="9p"))
    check(res, "S", tai=3, counted=3, eligible=False,
          items={"ping_hu": 1, "self_draw": 1, "no_caishen": 1},
          points=0, net=net(), wait="two_sided")
    assert res["min_tai"] == 4


def test_ningbo_caishen_completes_seat_wind_pung_not_a_chow():
    # S, indicator 5p (the other 5p are caishen): SS 5p 789m 999m... exactly:
    # S S 5p 7m 8m 9m 9m 9m 2p 3p 4p 6s 7s 8s, draws 4p (two-sided in 234p).
    # Reading A: 5p = S -> SSS seat wind 1, 789m, 99m pair, 234p, 678s.
    # Reading B: pair SS, 5p = 6m in a chow 678m, pung 999m -> no wind pung (1 台 less).
    # Best A: pai_hu 0, self_draw 1, seat_wind_pung 1, 2f 6f 2 = 4 (a caishen in hand: no
    # no_caishen).  P = 5, each other pays 5.
    res = score(req("ningbo", "S", "E", "SS 5p 789m 99m 234p 678s", "4p", SELF,
                    flowers="2f 6f", indicator="5p"))
    check(res, "S", tai=4, counted=4, eligible=True,
          items={"pai_hu": 0, "self_draw": 1, "seat_wind_pung": 1, "seat_flower": 2},
          points=5, net=net(E=-5, S=15, W=-5, N=-5), wait="two_sided")
    assert res["decomposition"]["caishen"] == [{"tile": "5p", "face": "S"}]


def test_ningbo_single_wait_restriction_win_stands_elsewhere():
    # W, indicator 5p: CCC 456m 789p 567s 7s + one caishen 5p; wins 7s on N's discard.
    # The reading "7s + caishen as the pair" with the 7s as winning tile is forbidden
    # (single_wait restriction), but the 7s can sit elsewhere: natural pair 7s7s (the winning
    # 7s in a pair whose other tile is natural -> allowed), 5s6s + caishen chow -> single 1.
    # (The 7s inside 567s with the caishen pair would be two-sided, 0.)  Best allowed:
    # single 1 + C pung 1 + 3f 7f 2 = 4.  P = 5, N pays 2 -> 10.
    res = score(req("ningbo", "W", "E", "CCC 456m 789p 567s 7s 5p", "7s", discard("N"),
                    flowers="3f 7f", indicator="5p"))
    check(res, "W", tai=4, counted=4, eligible=True,
          items={"single_wait": 1, "dragon_pung": 1, "seat_flower": 2},
          points=5, net=net(W=10, N=-10), wait="single", mults={"N": 2})
    assert res["decomposition"]["pair"] == ["7s", "7s"]


def test_ningbo_single_wait_restriction_refuses_caishen_pair():
    # W, indicator 5p: CCC 456m 789p 234s 7s + caishen 5p.  The only reading pairs the
    # winning 7s with the caishen -> on a discard: caishen_needs_self_draw.
    body = req("ningbo", "W", "E", "CCC 456m 789p 234s 7s 5p", "7s", discard("N"),
               flowers="3f 7f", indicator="5p")
    refused(body, "caishen_needs_self_draw")
    # Self-drawn, the same hand stands: single 1 + self_draw 1 + C pung 1 + 3f 7f 2 = 5,
    # P = 6, each other pays 6.
    body["win"] = SELF
    res = score(body)
    check(res, "W", tai=5, counted=5, eligible=True,
          items={"single_wait": 1, "self_draw": 1, "dragon_pung": 1, "seat_flower": 2},
          points=6, net=net(E=-6, S=-6, W=18, N=-6), wait="single")


def test_ningbo_caishen_in_winning_chow_allowed_by_single_wait():
    # W, indicator 5p: CCC 456m 789p EE 4s 5s + caishen 5p; wins 5s on N's discard.
    # 4s 5s need the caishen: as 6s (5s in the middle: closed 1) or 3s (two-sided 0).
    # single_wait only forbids a caishen pair -> allowed.  closed 1 + C pung 1 + 3f 7f 2 = 4.
    # P = 5, N pays 2 -> 10.  (The same tiles are refused under ningbo-456's any_group.)
    res = score(req("ningbo", "W", "E", "CCC 456m 789p EE 4s 5s 5p", "5s", discard("N"),
                    flowers="3f 7f", indicator="5p"))
    check(res, "W", tai=4, counted=4, eligible=True,
          items={"closed_wait": 1, "dragon_pung": 1, "seat_flower": 2},
          points=5, net=net(W=10, N=-10), wait="closed", mults={"N": 2})
    assert res["decomposition"]["caishen"] == [{"tile": "5p", "face": "6s"}]


def test_ningbo_flower_set_replaces_seat_flower():
    # S: 234m 567m 345p 789s 11s, draws 5m (end of 5-6-7: two-sided, all chows) -> ping_hu 1,
    # self_draw 1, no_caishen 1.  Flowers 1f 2f 3f 4f 6f: the full 春夏秋冬 set -> flower_set 2
    # (replaces 2f's seat flower); 6f is S's -> seat_flower 1.  tai 6, P = 7, each pays 7.
    res = score(req("ningbo", "S", "E", "234m 567m 345p 789s 11s", "5m", SELF,
                    flowers="1f 2f 3f 4f 6f", indicator="9p"))
    check(res, "S", tai=6, counted=6, eligible=True,
          items={"ping_hu": 1, "self_draw": 1, "no_caishen": 1, "flower_set": 2,
                 "seat_flower": 1},
          points=7, net=net(E=-7, S=21, W=-7, N=-7), wait="two_sided")


def test_ningbo_three_caishen_counts_toward_min():
    # S, indicator 7p: the three other 7p are all in hand.  Natural 1m 3m 4p 6p 7s 9s 234s 99m:
    # each gap needs exactly one caishen (2m, 5p, 8s) -> 123m 456p 789s 234s + 99m, all chows;
    # 4s ends 2-3-4 (two-sided) -> ping_hu 1; self_draw 1; 2f 1; three_caishen 3.
    # ningbo (001) counts three_caishen (rule book 2): tai 6 = counted 6 >= 4, P = 1 + 6 = 7,
    # each other pays 7.  (Rule book 1 made it a bonus: counted 3, not eligible.)
    res = score(req("ningbo", "S", "E", "13m 46p 79s 234s 99m 777p", "4s", SELF,
                    flowers="2f", indicator="7p"))
    check(res, "S", tai=6, counted=6, eligible=True,
          items={"ping_hu": 1, "self_draw": 1, "seat_flower": 1, "three_caishen": 3},
          points=7, net=net(E=-7, S=21, W=-7, N=-7), wait="two_sided",
          mults={"E": 1, "W": 1, "N": 1})
    assert faces(res) == ["2m", "5p", "8s"]


def test_bianfeng_three_caishen_bonus_not_counted_toward_min():
    # The same hand in ningbo-bianfeng (three_caishen_bonus, 002 "不算在起胡的4台中"):
    # tai 6, counted 6 - 3 = 3 < 4 -> not eligible even though tai >= 4: points 0, nobody pays.
    res = score(req("ningbo-bianfeng", "S", "E", "13m 46p 79s 234s 99m 777p", "4s", SELF,
                    flowers="2f", indicator="7p"))
    check(res, "S", tai=6, counted=3, eligible=False,
          items={"ping_hu": 1, "self_draw": 1, "seat_flower": 1, "three_caishen": 3},
          points=0, net=net(), wait="two_sided")


# =========================================================================== ningbo-bianfeng (002)
# linear, min 4, single_wait restriction, add, no caps, three_caishen a bonus


def test_bianfeng_natural_and_caishen_dragon_pungs():
    # §10.1.  E in the E round, caishen kinds [9s] (given directly, nothing out of play):
    # EEE CCC 123m 55p + 9s 9s 9s; draws 3m (3 of 1-2-3: edge 1).
    # The three caishen as CCC (or FFF/PPP: the same 台) -> two dragon pungs 2.  As EEE they
    # would add nothing (seat and round wind score once each, §10.5).
    # edge 1, self_draw 1, seat wind 1, round wind 1, dragon 2, three_caishen 3 (bonus)
    # -> tai 9, counted 6.  Linear with bonus: P = 1*(1+9) = 10, each other pays 10.
    res = score(req("ningbo-bianfeng", "E", "E", "EEE CCC 123m 55p 999s", "3m", SELF,
                    kinds=["9s"]))
    check(res, "E", tai=9, counted=6, eligible=True,
          items={"edge_wait": 1, "self_draw": 1, "seat_wind_pung": 1, "round_wind_pung": 1,
                 "dragon_pung": 2, "three_caishen": 3},
          points=10, net=net(E=30, S=-10, W=-10, N=-10), wait="edge",
          mults={"S": 1, "W": 1, "N": 1})


def test_bianfeng_all_honors_with_all_pungs():
    # S: pung N from W, pung W from N; concealed FFF SS EE + E from W's discard.
    # all_honors 8 + all_pungs 2; E completes a pung with two pairs before -> dual_pung 1;
    # F pung 1; EEE is the round wind 1 (SS is only a pair); no 1m -> no_caishen 1.
    # tai 14, P = 15.  W (1 meld claimed from W: unrelated) pays 2 -> 30.
    res = score(req("ningbo-bianfeng", "S", "E", "FFF SS EEE", "E", discard("W"),
                    melds=[pung("N", "W"), pung("W", "N")], indicator="1m"))
    check(res, "S", tai=14, counted=14, eligible=True,
          items={"all_honors": 8, "all_pungs": 2, "dual_pung_wait": 1, "dragon_pung": 1,
                 "round_wind_pung": 1, "no_caishen": 1},
          points=15, net=net(S=30, W=-30), wait="dual_pung", mults={"W": 2})


def test_bianfeng_robbing_a_kong():
    # W: 123m 456m 46p 789s NN, robs N's added kong of 5p (closed 1); robbing_kong 1;
    # no 9m -> no_caishen 1; 3f 1.  tai 4, P = 5.  Robbed N pays 5 -> 25; others 0.
    res = score(req("ningbo-bianfeng", "W", "E", "123m 456m 456p 789s NN", "5p", robbing("N"),
                    flowers="3f", indicator="9m"))
    check(res, "W", tai=4, counted=4, eligible=True,
          items={"closed_wait": 1, "robbing_kong": 1, "no_caishen": 1, "seat_flower": 1},
          points=5, net=net(W=25, N=-25), wait="closed", mults={"N": 5}, amounts={"N": 25})


def test_bianfeng_last_tile_self_draw_related_by_claims():
    # N in the S round: 234m 678m 345p 678s 99p, draws the wall's last tile 9p (pair: single 1).
    # self_draw 1 + last_tile 1; no 1p -> no_caishen 1.  tai 4, P = 5.
    # W claimed 3 melds from N (claims_from_winner) -> related: self-draw, W pays 5 -> 25.
    res = score(req("ningbo-bianfeng", "N", "S", "234m 678m 345p 678s 99p", "9p",
                    self_draw(last_tile=True), indicator="1p", claims={"W": 3}))
    check(res, "N", tai=4, counted=4, eligible=True,
          items={"single_wait": 1, "self_draw": 1, "last_tile": 1, "no_caishen": 1},
          points=5, net=net(N=25, W=-25), wait="single", mults={"W": 5}, amounts={"W": 25})


def test_bianfeng_flower_kong_bloom_pays_as_self_draw():
    # E: 123p 456p 789p 234s 55m, 4s drawn as the replacement after a flower (杠花).
    # All chows, two-sided, pair 5m -> ping_hu 1; self_draw 1; kong_bloom 1; no_caishen 1;
    # 1f 5f (E's) 2.  tai 6, P = 7.  No feeder -> self-draw row, nobody related: each 1 -> 7.
    res = score(req("ningbo-bianfeng", "E", "E", "123p 456p 789p 234s 55m", "4s",
                    self_draw(kong_replacement=True), flowers="1f 5f", indicator="9m"))
    check(res, "E", tai=6, counted=6, eligible=True,
          items={"ping_hu": 1, "self_draw": 1, "kong_bloom": 1, "no_caishen": 1,
                 "seat_flower": 2},
          points=7, net=net(E=21, S=-7, W=-7, N=-7), wait="two_sided",
          mults={"S": 1, "W": 1, "N": 1})


def test_bianfeng_earthly():
    # S wins on the dealer's first discard: 111m 234p 567s 888s 99p + 9p (single 1).
    # earthly 6, no 9s -> no_caishen 1.  tai 8, P = 9.  E (unrelated) pays 2 -> 18.
    res = score(req("ningbo-bianfeng", "S", "E", "111m 234p 567s 888s 99p", "9p",
                    discard("E", earthly=True), indicator="9s"))
    check(res, "S", tai=8, counted=8, eligible=True,
          items={"earthly": 6, "single_wait": 1, "no_caishen": 1},
          points=9, net=net(S=18, E=-18), wait="single", mults={"E": 2})


def test_bianfeng_all_flowers_replace_every_flower_item():
    # W: 678m 123p 345s 456s 88p, 6s on S's discard (end of 4-5-6, all chows, pair 8p) ->
    # ping_hu 1; no 9s -> no_caishen 1; all eight flowers -> all_flowers 8 only (no flower_set,
    # no seat_flower).  tai 10, P = 11, S pays 2 -> 22.
    res = score(req("ningbo-bianfeng", "W", "E", "678m 123p 345s 456s 88p", "6s", discard("S"),
                    flowers="12345678f", indicator="9s"))
    check(res, "W", tai=10, counted=10, eligible=True,
          items={"ping_hu": 1, "no_caishen": 1, "all_flowers": 8},
          points=11, net=net(W=22, S=-22), wait="two_sided", mults={"S": 2})


def test_bianfeng_caishen_as_winning_tile_on_discard_refused():
    # §10.10: a discarded caishen can't be claimed.  Indicator 5p, the winning tile is a 5p
    # (a caishen) on N's discard -> caishen_needs_self_draw.
    body = req("ningbo-bianfeng", "W", "E", "CCC 456m 789p 234s 7s 5p", "5p", discard("N"),
               indicator="5p")
    refused(body, "caishen_needs_self_draw")
    # Self-drawn it is a win: the caishen takes the face 7s (single 1), self_draw 1, C pung 1
    # = 3 < 4 -> scored but not eligible.
    body["win"] = SELF
    res = score(body)
    check(res, "W", tai=3, counted=3, eligible=False,
          items={"single_wait": 1, "self_draw": 1, "dragon_pung": 1},
          points=0, net=net(), wait="single")


# =========================================================================== ningbo-456 (000)
# doubling, min 4, any_group, white_dragon_substitutes, kong_bloom_others_pay, liability_cap 5


def test_456_doubling_4_tai_is_one_base():
    # E: 234m 567m 345p 678s NN, draws 5p (end of 3-4-5: two-sided, all chows) -> ping_hu 1,
    # self_draw 1, no_caishen 1, 1f 1 = 4.  P = 3 * 2^(4-4) = 3, each other pays 3.
    res = score(req("ningbo-456", "E", "S", "234m 567m 345p 678s NN", "5p", SELF,
                    flowers="1f", indicator="9s", base=3))
    check(res, "E", tai=4, counted=4, eligible=True,
          items={"ping_hu": 1, "self_draw": 1, "no_caishen": 1, "seat_flower": 1},
          points=3, net=net(E=9, S=-3, W=-3, N=-3), wait="two_sided",
          mults={"S": 1, "W": 1, "N": 1})


def test_456_doubling_5_tai_is_two_bases():
    # S in the S round: SSS 456m 123p 789p 22s, 5m on W's discard (closed 1); SSS seat 1 +
    # round 1; no 9s -> no_caishen 1; 6f 1 = 5.  P = 3 * 2^(5-4) = 6; W pays 2 -> 12.
    res = score(req("ningbo-456", "S", "S", "SSS 456m 123p 789p 22s", "5m", discard("W"),
                    flowers="6f", indicator="9s", base=3))
    check(res, "S", tai=5, counted=5, eligible=True,
          items={"closed_wait": 1, "seat_wind_pung": 1, "round_wind_pung": 1,
                 "no_caishen": 1, "seat_flower": 1},
          points=6, net=net(S=12, W=-12), wait="closed", mults={"W": 2})


def test_456_doubling_6_tai_mutual_self_draw_capped():
    # W: pung 9s, chow 123s (S is W's 上家), pung C, all from S; concealed 67s WW, draws 8s
    # (two-sided, pungs -> pai_hu 0).  self_draw 1, bamboo + honors -> half_flush 2, C pung 1,
    # no 9m -> no_caishen 1, 3f 1 = 6.  P = 3 * 2^(6-4) = 12.
    # W claimed 3 from S and S claimed 3 from W -> mutual: 10, capped at 5 -> 60.
    res = score(req("ningbo-456", "W", "E", "678s WW", "8s", SELF,
                    melds=[pung("9s", "S"), chow("123s", "S"), pung("C", "S")],
                    flowers="3f", indicator="9m", claims={"S": 3}, base=3))
    check(res, "W", tai=6, counted=6, eligible=True,
          items={"pai_hu": 0, "self_draw": 1, "half_flush": 2, "dragon_pung": 1,
                 "no_caishen": 1, "seat_flower": 1},
          points=12, net=net(W=60, S=-60), wait="two_sided", mults={"S": 5}, amounts={"S": 60})


def test_456_white_dragon_substitutes_for_caishen_kind():
    # §10.8, with white_dragon_substitutes on (off in ningbo-456 since rule book 2).
    # Indicator 5p: the three other 5p are caishen; every P is a natural 5p.
    # N: 4p P 6p (a chow 4-5-6p) + PPP (a pung of 5p, no dragon pung) + 123m 789s 99m;
    # draws 3m (edge 1).  self_draw 1; no physical caishen -> no_caishen 1; 4f 1 = 4.
    # P = 3 * 2^0 = 3, each other pays 3.
    res = score(req({"preset": "ningbo-456", "white_dragon_substitutes": True}, "N", "E",
                    "4p P 6p PPP 123m 789s 99m", "3m", SELF,
                    flowers="4f", indicator="5p", base=3))
    check(res, "N", tai=4, counted=4, eligible=True,
          items={"edge_wait": 1, "self_draw": 1, "no_caishen": 1, "seat_flower": 1},
          points=3, net=net(E=-3, S=-3, W=-3, N=9), wait="edge",
          mults={"E": 1, "S": 1, "W": 1})


def test_456_kong_bloom_others_pay_one():
    # E in the S round: exposed kong 8m of S's discard; concealed 234p 678p 45s 99s, draws the
    # replacement 3s (end of 3-4-5: two-sided; kong -> pai_hu 0).  self_draw 1, kong_bloom 1,
    # no 1s -> no_caishen 1, 1f 1 = 4.  P = 3.
    # Kong bloom fed by unrelated S: S 5 -> 15; kong_bloom_others_pay: W 1, N 1 -> 3 each.
    res = score(req("ningbo-456", "E", "S", "234p 678p 345s 99s", "3s",
                    self_draw(kong_replacement=True, kong_fed_by="S"),
                    melds=[kong("8m", "S")], flowers="1f", indicator="1s", base=3))
    check(res, "E", tai=4, counted=4, eligible=True,
          items={"pai_hu": 0, "self_draw": 1, "kong_bloom": 1, "no_caishen": 1,
                 "seat_flower": 1},
          points=3, net=net(E=21, S=-15, W=-3, N=-3), wait="two_sided",
          mults={"S": 5, "W": 1, "N": 1}, amounts={"S": 15, "W": 3, "N": 3})


def test_456_any_group_refuses_caishen_in_winning_chow():
    # The hand of test_ningbo_caishen_in_winning_chow_allowed_by_single_wait: 4s 5s + caishen
    # in every reading -> the winning tile's group holds a caishen -> any_group refuses.
    body = req("ningbo-456", "W", "E", "CCC 456m 789p EE 4s 5s 5p", "5s", discard("N"),
               flowers="3f 7f", indicator="5p")
    refused(body, "caishen_needs_self_draw")


def test_456_any_group_win_stands_when_caishen_elsewhere():
    # N, indicator 5p: NN 5p 123m 456s 789s 22p, 3m on W's discard (edge 1).
    # Caishen as N -> NNN seat wind 1 (the winning group 123m has none: allowed); 4f 8f 2.
    # (Pair NN with 5p as 2p -> 222p would give 1 台 less.)  4 台: P = 3 * 2^0 = 3;
    # W pays 2 -> 6.
    res = score(req("ningbo-456", "N", "E", "NN 5p 123m 456s 789s 22p", "3m", discard("W"),
                    flowers="4f 8f", indicator="5p", base=3))
    check(res, "N", tai=4, counted=4, eligible=True,
          items={"edge_wait": 1, "seat_wind_pung": 1, "seat_flower": 2},
          points=3, net=net(N=6, W=-6), wait="edge", mults={"W": 2})
    assert res["decomposition"]["caishen"] == [{"tile": "5p", "face": "N"}]


def test_456_doubling_counts_three_caishen():
    # E in the S round, indicator 7p: the hand of the ningbo three-caishen test, with 1f 5f.
    # ping_hu 1, self_draw 1, seat flowers 2, three_caishen 3 -> tai 7; ningbo-456 has no
    # three_caishen_bonus (rule book 2), so counted 7 too.  Doubling uses the full 台:
    # P = 3 * 2^(7-4) = 24; each other pays 24.  (Rule book 1: counted 4, P = 3 * 2^0 = 3.)
    res = score(req("ningbo-456", "E", "S", "13m 46p 79s 234s 99m 777p", "4s", SELF,
                    flowers="1f 5f", indicator="7p", base=3))
    check(res, "E", tai=7, counted=7, eligible=True,
          items={"ping_hu": 1, "self_draw": 1, "seat_flower": 2, "three_caishen": 3},
          points=24, net=net(E=72, S=-24, W=-24, N=-24), wait="two_sided",
          mults={"S": 1, "W": 1, "N": 1})
    assert faces(res) == ["2m", "5p", "8s"]


# =========================================================================== ningbo-taishu (004 a)
# linear, min 0, required_patterns, any_group, no chows for 包, related_discarder five, liability_cap 5


def test_taishu_enough_tai_but_no_required_pattern():
    # S: 123m 456m 234p 678s 99s, draws 2p (two-sided, all chows) -> ping_hu 1, self_draw 1,
    # no_caishen 1, 2f 6f 2 = 5 >= 4, but none of full/half flush, all honors, all pungs ->
    # not eligible: points 0, no payments, net all 0, reasons given.
    res = score(req("ningbo-taishu", "S", "E", "123m 456m 234p 678s 99s", "2p", SELF,
                    flowers="2f 6f", indicator="9p"))
    check(res, "S", tai=5, counted=5, eligible=False,
          items={"ping_hu": 1, "self_draw": 1, "no_caishen": 1, "seat_flower": 2},
          points=0, net=net(), wait="two_sided")


def test_taishu_all_pungs_related_discarder_five():
    # W: pungs 2m, 8p, 4s from N; concealed 66p 99m + 9m from N (dual_pung 1).
    # all_pungs 2 (a required pattern), no 5m -> no_caishen 1.  tai 4, P = 5.
    # N related and discarding: related_discarder five -> 5 -> 25.
    res = score(req("ningbo-taishu", "W", "E", "66p 999m", "9m", discard("N"),
                    melds=[pung("2m", "N"), pung("8p", "N"), pung("4s", "N")], indicator="5m"))
    check(res, "W", tai=4, counted=4, eligible=True,
          items={"all_pungs": 2, "dual_pung_wait": 1, "no_caishen": 1},
          points=5, net=net(W=25, N=-25), wait="dual_pung", mults={"N": 5}, amounts={"N": 25})


def test_taishu_half_flush_mutual_discarder_capped():
    # S: chow 123p, pung F, chow 789p, all from E; concealed 45p SS + 6p from E (two-sided,
    # pung -> pai_hu 0).  half_flush 2, F pung 1, no 1s -> no_caishen 1.  tai 4, P = 5.
    # ningbo-taishu counts no chows for 包 (rule book 2): of S's melds from E only the F pung
    # counts (1 < 3), but E claimed 3 from S -> E related (not mutual) discarder: five -> 5 -> 25.
    # W claimed 3 from S -> related non-discarder +2 -> 10.  N 0.
    res = score(req("ningbo-taishu", "S", "E", "456p SS", "6p", discard("E"),
                    melds=[chow("123p", "E"), pung("F", "E"), chow("789p", "E")],
                    indicator="1s", claims={"E": 3, "W": 3}))
    check(res, "S", tai=4, counted=4, eligible=True,
          items={"pai_hu": 0, "half_flush": 2, "dragon_pung": 1, "no_caishen": 1},
          points=5, net=net(S=35, E=-25, W=-10), wait="two_sided",
          mults={"E": 5, "W": 2}, amounts={"E": 25, "W": 10})


def test_taishu_full_flush_mutual_self_draw_capped():
    # E: chows 123s 456s and pung 9s from N (E's 上家); concealed 22s 78s, draws 6s
    # (two-sided, pung -> pai_hu 0).  full_flush 4, self_draw 1, no C -> no_caishen 1.
    # tai 6, P = 7.  The chows don't count for 包 in ningbo-taishu (rule book 2), so only N's
    # own 3 claims relate N: related, 5 -> 35 (rule book 1: mutual 10, capped at 5, the same).
    res = score(req("ningbo-taishu", "E", "E", "22s 678s", "6s", SELF,
                    melds=[chow("123s", "N"), chow("456s", "N"), pung("9s", "N")],
                    indicator="C", claims={"N": 3}))
    check(res, "E", tai=6, counted=6, eligible=True,
          items={"pai_hu": 0, "full_flush": 4, "self_draw": 1, "no_caishen": 1},
          points=7, net=net(E=35, N=-35), wait="two_sided", mults={"N": 5}, amounts={"N": 35})


def test_taishu_robbing_kong_with_related_other_player():
    # N: CCC 123m 56m 888m NN, robs E's added kong of 7m (end of 5-6-7: two-sided; pungs ->
    # pai_hu 0).  robbing_kong 1, characters + honors -> half_flush 2, C pung 1, no 9p ->
    # no_caishen 1.  tai 5, P = 6.  Robbed E pays 5 -> 30, alone (rule book 2: 004 "其他人不用付"),
    # although W claimed 3 from N and is related; S 0.  (Rule book 1 had W pay 5 too.)
    res = score(req("ningbo-taishu", "N", "E", "CCC 123m 567m 888m NN", "7m", robbing("E"),
                    indicator="9p", claims={"W": 3}))
    check(res, "N", tai=5, counted=5, eligible=True,
          items={"pai_hu": 0, "robbing_kong": 1, "half_flush": 2, "dragon_pung": 1,
                 "no_caishen": 1},
          points=6, net=net(N=30, E=-30), wait="two_sided",
          mults={"E": 5}, amounts={"E": 30})


def test_taishu_all_honors_by_caishen_face():
    # W, indicator 5s (the other 5s are caishen): WWW CCC NNN FF SS + 5s, draws S.
    # Caishen as F -> FFF (dragon), pair SS with S single 1; all faces honors -> all_honors 8
    # + all_pungs 2 (§10.7: assigned faces); WWW seat wind 1; C and F pungs 2; self_draw 1.
    # (Caishen as S -> SSS dual_pung, pair FF: 1 less.)  tai 15, P = 16, each other pays 16.
    res = score(req("ningbo-taishu", "W", "E", "WWW CCC NNN FF SS 5s", "S", SELF,
                    indicator="5s"))
    check(res, "W", tai=15, counted=15, eligible=True,
          items={"all_honors": 8, "all_pungs": 2, "single_wait": 1, "self_draw": 1,
                 "seat_wind_pung": 1, "dragon_pung": 2},
          points=16, net=net(E=-16, S=-16, W=48, N=-16), wait="single",
          mults={"E": 1, "S": 1, "N": 1})
    assert res["decomposition"]["caishen"] == [{"tile": "5s", "face": "F"}]


# =========================================================================== ningbo-7baida (004 b)
# indicator_and_next, min 5, no discard wins, robbing_needs_no_caishen_discarded,
# chi_counts_for_liability false, five, liability_cap 5, linear


def test_7baida_indicator_9m_wraps_to_1m():
    # Indicator 9m -> caishen 9m (3 left) and 1m (all 4).  S: CC FF 456p 789s 55s + 1m + 9m,
    # draws 5s.  The two caishen as C and F -> two dragon pungs 2; pair 55s, 5s single 1;
    # self_draw 1; 2f 1.  tai 5 >= min 5: P = 6, each other pays 6.
    res = score(req("ningbo-7baida", "S", "E", "CC FF 456p 789s 55s 1m 9m", "5s", SELF,
                    flowers="2f", indicator="9m"))
    check(res, "S", tai=5, counted=5, eligible=True,
          items={"single_wait": 1, "self_draw": 1, "dragon_pung": 2, "seat_flower": 1},
          points=6, net=net(E=-6, S=18, W=-6, N=-6), wait="single",
          mults={"E": 1, "W": 1, "N": 1})
    assert faces(res) == ["C", "F"]
    assert sorted(c["tile"] for c in res["decomposition"]["caishen"]) == ["1m", "9m"]


def test_7baida_indicator_white_wraps_to_red():
    # Indicator P -> caishen P and C (C->F->P->C).  E in the E round: EE C 234s 567p 789m 99p,
    # draws 9p (single 1).  C as E -> EEE seat 1 + round 1; self_draw 1; 1f 1 = 5.
    # P = 6, each other pays 6.
    res = score(req("ningbo-7baida", "E", "E", "EE C 234s 567p 789m 99p", "9p", SELF,
                    flowers="1f", indicator="P"))
    check(res, "E", tai=5, counted=5, eligible=True,
          items={"single_wait": 1, "self_draw": 1, "seat_wind_pung": 1, "round_wind_pung": 1,
                 "seat_flower": 1},
          points=6, net=net(E=18, S=-6, W=-6, N=-6), wait="single")
    assert res["decomposition"]["caishen"] == [{"tile": "C", "face": "E"}]


def test_7baida_indicator_east_makes_south_caishen():
    # Indicator E -> caishen E and S.  W: WW S CCC 123m 456p 99s, draws 9s (single 1).
    # S as W -> WWW seat wind 1; C pung 1; self_draw 1; 3f 1 = 5.  (S as 9s -> 999s dual_pung,
    # pair WW: 4.)  P = 6, each other pays 6.
    res = score(req("ningbo-7baida", "W", "E", "WW S CCC 123m 456p 99s", "9s", SELF,
                    flowers="3f", indicator="E"))
    check(res, "W", tai=5, counted=5, eligible=True,
          items={"single_wait": 1, "self_draw": 1, "seat_wind_pung": 1, "dragon_pung": 1,
                 "seat_flower": 1},
          points=6, net=net(E=-6, S=-6, W=18, N=-6), wait="single")
    assert res["decomposition"]["caishen"] == [{"tile": "S", "face": "W"}]


def test_7baida_discard_win_not_allowed():
    # The hand above, but on N's discard: 7百搭 wins only by self-draw.
    body = req("ningbo-7baida", "E", "E", "EE C 234s 567p 789m 99p", "9p", discard("N"),
               flowers="1f", indicator="P")
    refused(body, "discard_win_not_allowed")


def test_7baida_robbing_allowed_chows_not_counted_for_liability():
    # W: chows 123m, 456p and pung 9s from S; concealed 35s CC + robs N's added kong of 4s
    # (closed 1).  robbing_kong 1, no 5m/6m -> no_caishen 1, 3f 7f 2 = 5.  P = 6.
    # Robbed N pays 5 -> 30.  Only 1 of the 3 melds from S counts (chows don't,
    # chi_counts_for_liability false) -> S unrelated, pays 0.
    res = score(req("ningbo-7baida", "W", "E", "345s CC", "4s", robbing("N"),
                    melds=[chow("123m", "S"), chow("456p", "S"), pung("9s", "S")],
                    flowers="3f 7f", indicator="5m"))
    check(res, "W", tai=5, counted=5, eligible=True,
          items={"closed_wait": 1, "robbing_kong": 1, "no_caishen": 1, "seat_flower": 2},
          points=6, net=net(W=30, N=-30), wait="closed", mults={"N": 5}, amounts={"N": 30})


def test_7baida_robbing_after_discarding_caishen_not_allowed():
    # robbing_needs_no_caishen_discarded: the same robbing win after the winner threw a
    # caishen -> discard_win_not_allowed (§10.10).
    body = req("ningbo-7baida", "W", "E", "345s CC", "4s", robbing("N", discarded_caishen=True),
               melds=[chow("123m", "S"), chow("456p", "S"), pung("9s", "S")],
               flowers="3f 7f", indicator="5m")
    refused(body, "discard_win_not_allowed")


def test_7baida_four_tai_is_a_win():
    # N: 123p 456p 789s 234s WW, draws 4p (two-sided, all chows) -> ping_hu 1, self_draw 1,
    # no 5m/6m -> no_caishen 1, 4f 1 = 4 >= 4 (rule book 3: min_tai 4, "4台以上") -> eligible.
    # P = 1 × (1 + 4) = 5; nobody related: E, S, W pay 1 × 5 each -> N +15.
    res = score(req("ningbo-7baida", "N", "E", "123p 456p 789s 234s WW", "4p", SELF,
                    flowers="4f", indicator="5m"))
    check(res, "N", tai=4, counted=4, eligible=True,
          items={"ping_hu": 1, "self_draw": 1, "no_caishen": 1, "seat_flower": 1},
          points=5, net=net(N=15, E=-5, S=-5, W=-5), wait="two_sided", mults={"E": 1, "S": 1, "W": 1})
    assert res["min_tai"] == 4


def test_7baida_kong_bloom_related_feeder_capped():
    # E in the E round: exposed kong 7p, pungs 3s and E, all from W (pungs and kongs count);
    # concealed 56m 99s, draws the replacement 7m (two-sided; pungs -> pai_hu 0).
    # self_draw 1, kong_bloom 1, no 1p/2p -> no_caishen 1, EEE seat 1 + round 1 = 5.  P = 6.
    # Fed by related W: 5 + 5 = 10, liability_cap 5 -> 30; S and N unrelated pay 1 each
    # (kong_bloom_others_pay, on in 7百搭 from rule book 3) -> 6 each.  E: 30 + 6 + 6 = 42.
    res = score(req("ningbo-7baida", "E", "E", "567m 99s", "7m",
                    self_draw(kong_replacement=True, kong_fed_by="W"),
                    melds=[kong("7p", "W"), pung("3s", "W"), pung("E", "W")], indicator="1p"))
    check(res, "E", tai=5, counted=5, eligible=True,
          items={"pai_hu": 0, "self_draw": 1, "kong_bloom": 1, "no_caishen": 1,
                 "seat_wind_pung": 1, "round_wind_pung": 1},
          points=6, net=net(E=42, W=-30, S=-6, N=-6), wait="two_sided", mults={"W": 5, "S": 1, "N": 1},
          amounts={"W": 30, "S": 6, "N": 6})
