"""台 items of docs/rules.md §5 and the fine points of §10, through ``ningbo_score.score``.

Every expected value is worked out by hand from docs/rules.md in a comment next to it.  Unless a test
says otherwise the winner sits South in an East round, the caishen indicator is ``9p`` (so the
three other ``9p`` are the caishen and no hand below holds one unless on purpose: ``no_caishen``
then scores 1), and small hands are scored with ``min_tai`` 0 so that every item is visible.
"""
from __future__ import annotations


import pytest

from helpers import NEXT, meld, score_body

import ningbo_score
from ningbo_score import ScoreError

MIN0 = {"preset": "ningbo", "min_tai": 0}


def request(concealed: str, winning: str, *, melds=(), flowers="", seat="S", round_wind="E",
            indicator: str | None = "9p", caishen=None, by="discard", frm=None, rules=MIN0,
            claims=None, base_points=None, **win_flags) -> dict:
    """The body of a hand won by ``by``; a discard or a robbed kong is ``frm``'s, by default the
    winner's 下家 (NEXT)."""
    win = {"by": by}
    if by in ("discard", "robbing_kong") or frm is not None:
        win["from"] = frm or NEXT[seat]
    return score_body(rules, seat, round_wind, concealed, winning=winning, melds=melds, flowers=flowers,
                      indicator=indicator, caishen=caishen, win={**win, **win_flags}, claims=claims,
                      base_points=base_points)


def score(*args, **kwargs) -> dict:
    return ningbo_score.score(request(*args, **kwargs))


def items(resp: dict) -> list[tuple[str, int]]:
    """The item list as sorted (id, tai) pairs, one per occurrence."""
    return sorted((it["id"], it["tai"]) for it in resp["items"])


def count(resp: dict, item_id: str) -> int:
    return sum(1 for it in resp["items"] if it["id"] == item_id)


def ids(resp: dict) -> set[str]:
    return {it["id"] for it in resp["items"]}


def expect(resp: dict, expected: list[tuple[str, int]]) -> None:
    """The response lists exactly these items (per occurrence) and its tai is their sum."""
    assert items(resp) == sorted(expected), resp["items"]
    assert resp["tai"] == sum(t for _, t in expected)


def payments(resp: dict) -> dict[str, tuple[int, int, str | None]]:
    rows = resp["payments"]
    winner = {r["to"] for r in rows}
    assert len(winner) <= 1
    out = {r["from"]: (r["amount"], r["multiplier"], r["liability"]) for r in rows}
    assert len(out) == len(rows)
    return out


def error_of(req: dict) -> ScoreError:
    with pytest.raises(ScoreError) as info:
        ningbo_score.score(req)
    return info.value


# The plain hand used throughout: four chows and a 9s pair.
PLAIN = "234m 678m 345p 567s 99s"


# --------------------------------------------------------------------------- wait items


def test_pai_hu_two_sided_with_a_pung():
    # 4m ends 2-3-4 -> two-sided; CCC is no chow -> not 平胡 -> pai_hu 0.
    # pai_hu 0 + dragon_pung 1 (CCC) + no_caishen 1 = 2
    r = score("234m CCC 345p 567s 99s", "4m")
    expect(r, [("pai_hu", 0), ("dragon_pung", 1), ("no_caishen", 1)])
    assert r["decomposition"]["wait"] == "two_sided"
    assert r["counted_tai"] == 2


def test_pai_hu_absent_when_ping_hu():
    # same wait, but all four sets are chows and the pair is 9s -> ping_hu 1 instead of pai_hu
    r = score(PLAIN, "4m")
    expect(r, [("ping_hu", 1), ("no_caishen", 1)])
    assert "pai_hu" not in ids(r)


def test_ping_hu_counts_chow_melds():
    # a chow meld (claimed from E, the 上家 of S) is still a chow: ping_hu 1 + no_caishen 1
    r = score("678m 345p 567s 99s", "6m", melds=[meld("chow", "234m", "E")])
    expect(r, [("ping_hu", 1), ("no_caishen", 1)])


@pytest.mark.parametrize("pair,seat,round_wind,ping", [
    ("SS", "S", "E", False),  # seat-wind pair: no 平胡
    ("EE", "S", "E", False),  # round-wind pair: no 平胡
    ("WW", "S", "E", True),   # a wind that is neither: 平胡
    ("CC", "S", "E", False),  # a dragon pair carries 台: no 平胡 (rule book 2, §5)
    ("FF", "S", "E", False),
    ("PP", "S", "E", False),
])
def test_ping_hu_pair_rule(pair, seat, round_wind, ping):
    r = score(f"234m 678m 345p 567s {pair}", "4m", seat=seat, round_wind=round_wind)
    if ping:
        expect(r, [("ping_hu", 1), ("no_caishen", 1)])
    else:
        expect(r, [("pai_hu", 0), ("no_caishen", 1)])


def test_edge_wait_three_of_123():
    # 3m is the 3 of 1-2-3 -> edge 1; + no_caishen 1
    r = score("123m 678m 345p 567s 99s", "3m")
    expect(r, [("edge_wait", 1), ("no_caishen", 1)])
    assert r["decomposition"]["wait"] == "edge"


def test_edge_wait_seven_of_789():
    r = score("234m 789m 345p 567s 99s", "7m")
    expect(r, [("edge_wait", 1), ("no_caishen", 1)])


def test_edge_wait_absent_for_one_of_123():
    # 1m is the other end of 1-2-3: two-sided, all chows, pair 9s -> ping_hu 1
    r = score("123m 678m 345p 567s 99s", "1m")
    expect(r, [("ping_hu", 1), ("no_caishen", 1)])


def test_closed_wait():
    # 7m in the middle of 6-7-8 -> closed 1; + no_caishen 1
    r = score(PLAIN, "7m")
    expect(r, [("closed_wait", 1), ("no_caishen", 1)])
    assert r["decomposition"]["wait"] == "closed"


def test_closed_wait_absent_for_chow_end():
    # 8m ends 6-7-8 (not the 7 of 7-8-9) -> two-sided -> ping_hu
    r = score(PLAIN, "8m")
    expect(r, [("ping_hu", 1), ("no_caishen", 1)])


def test_single_wait():
    # 9s completes the pair -> single 1; + no_caishen 1
    r = score(PLAIN, "9s")
    expect(r, [("single_wait", 1), ("no_caishen", 1)])
    assert r["decomposition"]["wait"] == "single"


def test_single_wait_absent():
    # 5s ends 5-6-7 -> two-sided -> ping_hu
    r = score(PLAIN, "5s")
    expect(r, [("ping_hu", 1), ("no_caishen", 1)])


def test_dual_pung_wait():
    # 7s can only sit in 777s -> dual-pung 1; + no_caishen 1 (not ping_hu, not pai_hu)
    r = score("234m 678m 345p 777s 99s", "7s")
    expect(r, [("dual_pung_wait", 1), ("no_caishen", 1)])
    assert r["decomposition"]["wait"] == "dual_pung"


def test_dual_pung_wait_absent_when_pair_completed():
    r = score("234m 678m 345p 777s 99s", "9s")
    expect(r, [("single_wait", 1), ("no_caishen", 1)])


def test_big_single_wait():
    # 4 melds, 9s completes the pair: big_single 1 + single 1 + dragon_pung 1 (CCC) + no_caishen 1 = 4
    melds = [meld("chow", "234m", "E"), meld("chow", "678m", "E"), meld("pung", "CCC", "W"),
             meld("chow", "345p", "E")]
    r = score("99s", "9s", melds=melds)
    expect(r, [("big_single_wait", 1), ("single_wait", 1), ("dragon_pung", 1), ("no_caishen", 1)])


def test_big_single_wait_absent_with_three_melds():
    # 3 melds: a plain single wait: single 1 + dragon_pung 1 + no_caishen 1 = 3
    melds = [meld("chow", "234m", "E"), meld("chow", "678m", "E"), meld("pung", "CCC", "W")]
    r = score("345p 99s", "9s", melds=melds)
    expect(r, [("single_wait", 1), ("dragon_pung", 1), ("no_caishen", 1)])


def test_fine_point_4_big_single_wait_with_concealed_kong():
    # §10.4: a concealed kong is one of the 4 melds.
    # big_single 1 + single 1 + dragon_pung 1 + no_caishen 1 = 4
    melds = [meld("kong", "1111s", concealed=True), meld("pung", "CCC", "W"),
             meld("chow", "234m", "E"), meld("chow", "678m", "E")]
    r = score("55p", "5p", melds=melds)
    expect(r, [("big_single_wait", 1), ("single_wait", 1), ("dragon_pung", 1), ("no_caishen", 1)])


def test_exactly_one_wait_item():
    waits = {"pai_hu", "ping_hu", "edge_wait", "closed_wait", "single_wait", "dual_pung_wait"}
    for hand, w in [(PLAIN, "4m"), (PLAIN, "7m"), (PLAIN, "9s"), ("123m 678m 345p 567s 99s", "3m"),
                    ("234m 678m 345p 777s 99s", "7s"), ("234m CCC 345p 567s 99s", "4m")]:
        r = score(hand, w)
        assert sum(1 for it in r["items"] if it["id"] in waits) == 1, (hand, w, r["items"])


# --------------------------------------------------------------------------- shape items


def test_all_pungs():
    # four pungs, 1s completes the pair: all_pungs 2 + single 1 + no_caishen 1 = 4
    r = score("222m 999m 555p 777s 11s", "1s")
    expect(r, [("all_pungs", 2), ("single_wait", 1), ("no_caishen", 1)])


def test_all_pungs_absent_with_a_chow():
    # 789s is a chow: single 1 + no_caishen 1 = 2
    r = score("222m 999m 555p 789s 11s", "1s")
    expect(r, [("single_wait", 1), ("no_caishen", 1)])


def test_all_pungs_counts_melded_kongs():
    # kong 1111s (exposed, from W) + pung CCC (from W) + concealed 222m 555p, pair 99s
    # all_pungs 2 + single 1 + dragon_pung 1 + no_caishen 1 = 5
    melds = [meld("kong", "1111s", "W"), meld("pung", "CCC", "W")]
    r = score("222m 555p 99s", "9s", melds=melds)
    expect(r, [("all_pungs", 2), ("single_wait", 1), ("dragon_pung", 1), ("no_caishen", 1)])


# --------------------------------------------------------------------------- win-context items


def test_self_draw():
    # ping_hu 1 + self_draw 1 + no_caishen 1 = 3
    r = score(PLAIN, "4m", by="self_draw")
    expect(r, [("ping_hu", 1), ("self_draw", 1), ("no_caishen", 1)])


def test_self_draw_absent_on_discard():
    r = score(PLAIN, "4m", by="discard", frm="W")
    expect(r, [("ping_hu", 1), ("no_caishen", 1)])


def test_kong_bloom_after_kong():
    # concealed kong, replacement tile wins: pai_hu 0 (a kong is no chow) + self_draw 1
    # + kong_bloom 1 + no_caishen 1 = 3
    r = score("234m 678m 345p 99s", "4m", melds=[meld("kong", "1111s", concealed=True)],
              by="self_draw", kong_replacement=True)
    expect(r, [("pai_hu", 0), ("self_draw", 1), ("kong_bloom", 1), ("no_caishen", 1)])


def test_kong_bloom_after_flower():
    # 杠花: a flower (1f, not South's) was replaced: ping_hu 1 + self_draw 1 + kong_bloom 1 + no_caishen 1
    r = score(PLAIN, "4m", flowers="1f", by="self_draw", kong_replacement=True)
    expect(r, [("ping_hu", 1), ("self_draw", 1), ("kong_bloom", 1), ("no_caishen", 1)])


def test_kong_bloom_absent_without_replacement():
    r = score("234m 678m 345p 99s", "4m", melds=[meld("kong", "1111s", concealed=True)],
              by="self_draw")
    expect(r, [("pai_hu", 0), ("self_draw", 1), ("no_caishen", 1)])


def test_robbing_kong():
    # robbing is not self-draw: ping_hu 1 + robbing_kong 1 + no_caishen 1 = 3
    r = score(PLAIN, "4m", by="robbing_kong", frm="W")
    expect(r, [("ping_hu", 1), ("robbing_kong", 1), ("no_caishen", 1)])


def test_robbing_kong_absent_on_discard():
    r = score(PLAIN, "4m", by="discard", frm="W")
    assert "robbing_kong" not in ids(r)


def test_last_tile():
    # ping_hu 1 + self_draw 1 + last_tile 1 + no_caishen 1 = 4
    r = score(PLAIN, "4m", by="self_draw", last_tile=True)
    expect(r, [("ping_hu", 1), ("self_draw", 1), ("last_tile", 1), ("no_caishen", 1)])


def test_last_tile_absent():
    r = score(PLAIN, "4m", by="self_draw", last_tile=False)
    expect(r, [("ping_hu", 1), ("self_draw", 1), ("no_caishen", 1)])


def test_heavenly():
    # dealer E, dealt hand: ping_hu 1 + self_draw 1 + heavenly 8 + no_caishen 1 = 11 (stacks with self_draw)
    r = score(PLAIN, "4m", seat="E", by="self_draw", heavenly=True)
    expect(r, [("ping_hu", 1), ("self_draw", 1), ("heavenly", 8), ("no_caishen", 1)])


def test_heavenly_absent():
    r = score(PLAIN, "4m", seat="E", by="self_draw")
    expect(r, [("ping_hu", 1), ("self_draw", 1), ("no_caishen", 1)])


def test_earthly():
    # South wins on the dealer's first discard: ping_hu 1 + earthly 6 + no_caishen 1 = 8
    r = score(PLAIN, "4m", seat="S", by="discard", frm="E", earthly=True)
    expect(r, [("ping_hu", 1), ("earthly", 6), ("no_caishen", 1)])


def test_earthly_absent():
    r = score(PLAIN, "4m", seat="S", by="discard", frm="E")
    expect(r, [("ping_hu", 1), ("no_caishen", 1)])


# --------------------------------------------------------------------------- caishen items


def test_no_caishen():
    r = score(PLAIN, "4m")
    assert [(it["id"], it["tai"]) for it in r["items"] if it["id"] == "no_caishen"] == [("no_caishen", 1)]


def test_no_caishen_absent_with_a_caishen():
    # 9p (caishen) stands for 9s: four chows + pair 9s, 4m two-sided -> ping_hu 1 only
    r = score("234m 678m 345p 567s 9s 9p", "4m")
    expect(r, [("ping_hu", 1)])
    assert r["decomposition"]["caishen"] == [{"tile": "9p", "face": "9s"}]


def test_three_caishen_is_a_bonus_under_bianfeng():
    # three 9p caishen, self-drawn.  The caishen can add at most 1 (one pung of a dragon or of the
    # seat or round wind, or a chow for ping_hu, or a wait item): no two of those fit 3 wildcards.
    # ningbo-bianfeng (three_caishen_bonus, 002 "不算在起胡的4台中"):
    # tai = self_draw 1 + three_caishen 3 + 1 = 5; counted_tai = 5 - 3 = 2 < min_tai 4 -> ineligible
    # although tai itself is 5 >= 4.
    r = score("234m 678m 345p 99s 9p9p9p", "4m", by="self_draw", rules="ningbo-bianfeng")
    three = [it for it in r["items"] if it["id"] == "three_caishen"]
    assert len(three) == 1 and three[0]["tai"] == 3 and three[0]["bonus"] is True
    assert all(it["bonus"] is False for it in r["items"] if it["id"] != "three_caishen")
    assert r["tai"] == 5
    assert r["counted_tai"] == 2
    assert r["eligible"] is False
    assert r["points"] == 0 and r["payments"] == []
    assert r["reasons"]
    assert "no_caishen" not in ids(r)


def test_three_caishen_counts_in_ningbo():
    # the same hand in ningbo (001 counts 三财神 like any item; rule book 2): tai 5 = counted_tai 5
    # >= 4 -> eligible; linear P = 1 x (1 + 5) = 6; a self-draw with nobody related: each pays 6.
    r = score("234m 678m 345p 99s 9p9p9p", "4m", by="self_draw", rules="ningbo")
    assert all(it["bonus"] is False for it in r["items"])
    assert r["tai"] == 5 and r["counted_tai"] == 5 and r["eligible"] is True
    assert r["points"] == 6
    assert r["net"] == {"E": -6, "S": 18, "W": -6, "N": -6}


def test_three_caishen_absent_on_discard():
    # same tiles won on a discard: no self_draw, no three_caishen; the caishen still add 1 -> tai 1
    r = score("234m 678m 345p 99s 9p9p9p", "4m", by="discard", frm="W")
    assert "three_caishen" not in ids(r)
    assert r["tai"] == 1


def test_three_caishen_absent_with_two():
    # two caishen, self-drawn: self_draw 1 + 1 (ping_hu with the caishen as a pair, or a wait) = 2
    r = score("234m 678m 345p 567s 9p9p", "4m", by="self_draw")
    assert "three_caishen" not in ids(r)
    assert r["tai"] == 2


def test_three_caishen_with_four_given_kinds():
    # caishen kinds given directly: nothing out of play, four 9p are all caishen ("3 or more").
    # 9s pairs with one caishen, three form a dragon pung: self_draw 1 + three_caishen 3 + 1 = 5,
    # all counted in ningbo (no three_caishen_bonus)
    r = score("234m 678m 345p 9s 9p9p9p9p", "4m", by="self_draw", caishen={"kinds": ["9p"]})
    assert count(r, "three_caishen") == 1
    assert r["tai"] == 5 and r["counted_tai"] == 5


# --------------------------------------------------------------------------- suit items


def test_full_flush():
    # all characters; three chow melds + 234m + pair 5m; 2m ends 2-3-4 -> ping_hu
    # ping_hu 1 + full_flush 4 + no_caishen 1 = 6
    melds = [meld("chow", "123m", "E"), meld("chow", "456m", "E"), meld("chow", "789m", "E")]
    r = score("234m 55m", "2m", melds=melds)
    expect(r, [("ping_hu", 1), ("full_flush", 4), ("no_caishen", 1)])


def test_full_flush_absent_with_a_meld_of_another_suit():
    melds = [meld("chow", "123m", "E"), meld("chow", "456m", "E"), meld("chow", "789s", "E")]
    r = score("234m 55m", "2m", melds=melds)
    expect(r, [("ping_hu", 1), ("no_caishen", 1)])


def test_half_flush():
    # characters + a dragon pung: 2m must sit in 234m, then only 55m + 567m + 789m works.
    # pai_hu 0 + half_flush 2 + dragon_pung 1 + no_caishen 1 = 4
    r = score("234m 567m 789m CCC 55m", "4m")
    expect(r, [("pai_hu", 0), ("half_flush", 2), ("dragon_pung", 1), ("no_caishen", 1)])


def test_half_flush_absent_with_two_suits():
    r = score("234m 567m 789s CCC 55m", "4m")
    expect(r, [("pai_hu", 0), ("dragon_pung", 1), ("no_caishen", 1)])


def test_half_flush_with_honor_meld():
    # the honor may come from a meld: pung FFF from W; concealed characters only
    # pai_hu 0 + half_flush 2 + dragon_pung 1 + no_caishen 1 = 4
    r = score("234m 567m 789m 55m", "4m", melds=[meld("pung", "FFF", "W")])
    expect(r, [("pai_hu", 0), ("half_flush", 2), ("dragon_pung", 1), ("no_caishen", 1)])


def test_all_honors():
    # WWW NNN CCC FFF + PP (South in an East round: W and N are no seat/round wind)
    # all_honors 8 + all_pungs 2 + dragon_pung 1 x2 + single 1 + no_caishen 1 = 14; no half_flush
    r = score("WWW NNN CCC FFF PP", "P")
    expect(r, [("all_honors", 8), ("all_pungs", 2), ("dragon_pung", 1), ("dragon_pung", 1),
               ("single_wait", 1), ("no_caishen", 1)])


def test_all_honors_absent_with_a_suit_pair():
    # 11m pair: half_flush 2 + all_pungs 2 + dragon_pung 1 x2 + single 1 + no_caishen 1 = 8
    r = score("WWW NNN CCC FFF 11m", "1m")
    expect(r, [("half_flush", 2), ("all_pungs", 2), ("dragon_pung", 1), ("dragon_pung", 1),
               ("single_wait", 1), ("no_caishen", 1)])


# --------------------------------------------------------------------------- honor pungs


def test_dragon_pung_each():
    # CCC, FFF concealed + exposed kong PPPP: 3 dragon pungs, 1 each
    # pai_hu 0 + dragon_pung 1 x3 + no_caishen 1 = 4
    r = score("CCC FFF 234m 99s", "4m", melds=[meld("kong", "PPPP", "W")])
    expect(r, [("pai_hu", 0), ("dragon_pung", 1), ("dragon_pung", 1), ("dragon_pung", 1),
               ("no_caishen", 1)])
    tiles = sorted(it["tiles"] for it in r["items"] if it["id"] == "dragon_pung")
    assert tiles == [["C"], ["F"], ["P"]]


def test_dragon_pair_is_no_pung():
    # FF is the pair: only CCC and PPPP score -> pai_hu 0 + dragon_pung 1 x2 + no_caishen 1 = 3
    r = score("CCC 234m 999s FF", "4m", melds=[meld("kong", "PPPP", "W")])
    expect(r, [("pai_hu", 0), ("dragon_pung", 1), ("dragon_pung", 1), ("no_caishen", 1)])


def test_seat_wind_pung():
    # South's SSS: pai_hu 0 + seat_wind_pung 1 + no_caishen 1 = 2
    r = score("SSS 234m 678m 345p 99s", "4m", seat="S", round_wind="E")
    expect(r, [("pai_hu", 0), ("seat_wind_pung", 1), ("no_caishen", 1)])
    assert [it["tiles"] for it in r["items"] if it["id"] == "seat_wind_pung"] == [["S"]]


def test_seat_wind_pung_absent_for_other_wind():
    # WWW for South in an East round: nothing
    r = score("WWW 234m 678m 345p 99s", "4m", seat="S", round_wind="E")
    expect(r, [("pai_hu", 0), ("no_caishen", 1)])


def test_round_wind_pung():
    # EEE in an East round, South seat: round_wind_pung 1
    r = score("EEE 234m 678m 345p 99s", "4m", seat="S", round_wind="E")
    expect(r, [("pai_hu", 0), ("round_wind_pung", 1), ("no_caishen", 1)])
    assert [it["tiles"] for it in r["items"] if it["id"] == "round_wind_pung"] == [["E"]]


def test_round_wind_pung_absent_in_other_round():
    r = score("EEE 234m 678m 345p 99s", "4m", seat="S", round_wind="S")
    expect(r, [("pai_hu", 0), ("no_caishen", 1)])


def test_seat_and_round_wind_same_tile_score_both():
    # East seat in an East round: EEE is both -> seat 1 + round 1 + no_caishen 1 = 3
    r = score("EEE 234m 678m 345p 99s", "4m", seat="E", round_wind="E")
    expect(r, [("pai_hu", 0), ("seat_wind_pung", 1), ("round_wind_pung", 1), ("no_caishen", 1)])


def test_wind_pung_from_meld_and_kong():
    # exposed kong SSSS (from W) counts as the seat-wind pung
    r = score("234m 678m 345p 99s", "4m", melds=[meld("kong", "SSSS", "W")])
    expect(r, [("pai_hu", 0), ("seat_wind_pung", 1), ("no_caishen", 1)])


# --------------------------------------------------------------------------- flower items

SEAT_FLOWERS = {"E": ("1f", "5f"), "S": ("2f", "6f"), "W": ("3f", "7f"), "N": ("4f", "8f")}


@pytest.mark.parametrize("seat", ["E", "S", "W", "N"])
def test_seat_flower_each(seat):
    # both of the seat's flowers: seat_flower 1 each; + ping_hu 1 + no_caishen 1 -> 4
    a, b = SEAT_FLOWERS[seat]
    r = score(PLAIN, "4m", seat=seat, flowers=f"{a} {b}")
    expect(r, [("ping_hu", 1), ("no_caishen", 1), ("seat_flower", 1), ("seat_flower", 1)])
    assert sorted(it["tiles"] for it in r["items"] if it["id"] == "seat_flower") == [[a], [b]]


def test_seat_flower_absent_for_other_seats_flowers():
    # South holding 1f 5f 3f: none is South's
    r = score(PLAIN, "4m", seat="S", flowers="1f 5f 3f")
    expect(r, [("ping_hu", 1), ("no_caishen", 1)])


def test_flower_set_replaces_seat_flower_of_its_group():
    # 1f-4f complete: flower_set 2 (South's 2f gives no seat_flower); 6f: seat_flower 1
    # ping_hu 1 + no_caishen 1 + flower_set 2 + seat_flower 1 = 5
    r = score(PLAIN, "4m", seat="S", flowers="1f 2f 3f 4f 6f")
    expect(r, [("ping_hu", 1), ("no_caishen", 1), ("flower_set", 2), ("seat_flower", 1)])
    assert [it["tiles"] for it in r["items"] if it["id"] == "seat_flower"] == [["6f"]]
    assert [sorted(it["tiles"]) for it in r["items"] if it["id"] == "flower_set"] == [["1f", "2f", "3f", "4f"]]


def test_flower_set_absent_with_three_of_group():
    # 1f 2f 3f: only South's 2f scores -> ping_hu 1 + no_caishen 1 + seat_flower 1 = 3
    r = score(PLAIN, "4m", seat="S", flowers="1f 2f 3f")
    expect(r, [("ping_hu", 1), ("no_caishen", 1), ("seat_flower", 1)])


def test_all_flowers_replaces_every_other_flower_item():
    # ping_hu 1 + no_caishen 1 + all_flowers 8 = 10 (no flower_set, no seat_flower)
    r = score(PLAIN, "4m", seat="S", flowers="1f 2f 3f 4f 5f 6f 7f 8f")
    expect(r, [("ping_hu", 1), ("no_caishen", 1), ("all_flowers", 8)])
    assert [sorted(it["tiles"]) for it in r["items"] if it["id"] == "all_flowers"] == [
        ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"]]


def test_all_flowers_absent_with_seven():
    # no 8f: flower_set 2 (1f-4f) + seat_flower 1 (6f) + ping_hu 1 + no_caishen 1 = 5
    r = score(PLAIN, "4m", seat="S", flowers="1f 2f 3f 4f 5f 6f 7f")
    expect(r, [("ping_hu", 1), ("no_caishen", 1), ("flower_set", 2), ("seat_flower", 1)])


def test_flower_set_with_caishen_flowers_in_the_other_group():
    # indicator 1f: 2f 3f 4f are caishen; 5f-8f is still a full plain group -> flower_set 2
    # (South's 6f is replaced by it).  ping_hu 1 + no_caishen 1 + flower_set 2 = 4
    r = score(PLAIN, "4m", seat="S", indicator="1f", flowers="5f 6f 7f 8f")
    expect(r, [("ping_hu", 1), ("no_caishen", 1), ("flower_set", 2)])


def test_caishen_flower_in_hand_is_a_wildcard_not_a_flower():
    # indicator 1f: South's 2f is a caishen.  In the concealed hand it stands for 9s (the pair):
    # ping_hu 1 only -- no seat_flower, no no_caishen.
    r = score("234m 678m 345p 567s 9s 2f", "4m", seat="S", indicator="1f")
    expect(r, [("ping_hu", 1)])
    assert r["decomposition"]["caishen"] == [{"tile": "2f", "face": "9s"}]


# --------------------------------------------------------------------------- §10 fine points


def test_fine_point_1_caishen_may_be_a_fifth_copy():
    # four natural 1m: 111m + 1m, and the only way to use the lone 1m is with the caishen as a
    # fifth 1m (pair 1m+1m or pung 111m).  2p ends 2-3-4 -> two-sided, a pung -> pai_hu 0.
    # No caishen-free item: tai 0, eligible with min_tai 0.
    r = score("1111m 234p 567p 789s 9p", "2p")
    assert r["eligible"] is True
    expect(r, [("pai_hu", 0)])
    assert r["decomposition"]["caishen"] == [{"tile": "9p", "face": "1m"}]


def test_fine_point_1_natural_and_caishen_dragon_pungs():
    # natural CCC + three caishen.  Wind pungs set to 0 so the only thing the caishen can add is
    # a dragon pung: 3m sits in 2-3-4 (closed 1), CCC 1, caishen as a dragon pung 1 -> 3 in all,
    # two dragon_pung occurrences (e.g. a second CCC: six C on the table is allowed).
    rules = {"preset": "ningbo", "min_tai": 0,
             "item_tai": {"seat_wind_pung": 0, "round_wind_pung": 0}}
    r = score("CCC 9p9p9p 234m 678m 55s", "3m", rules=rules)
    assert count(r, "dragon_pung") == 2
    assert r["tai"] == 3


def test_fine_point_1_six_copies_of_a_dragon():
    # four natural C (not a kong) + two caishen: CCC + C with both caishen as C -> two dragon
    # pungs (2); any other use leaves one (CCC + pair CC + 555s): 1.
    # pai_hu 0 + dragon_pung 1 x2 = 2
    r = score("CCCC 9p9p 234m 678m 55s", "4m")
    expect(r, [("pai_hu", 0), ("dragon_pung", 1), ("dragon_pung", 1)])
    assert sorted(c["face"] for c in r["decomposition"]["caishen"]) == ["C", "C"]


def test_fine_point_2_restriction_on_discard():
    # single_wait restriction (ningbo): 9s can only pair with the caishen -> no discard win
    e = error_of(request("234m 678m 345p 456s 9s 9p", "9s", by="discard", frm="W"))
    assert e.code == "caishen_needs_self_draw" and e.status == 422


def test_fine_point_2_restriction_on_earthly_win():
    e = error_of(request("234m 678m 345p 456s 9s 9p", "9s", seat="S", by="discard", frm="E",
                         earthly=True))
    assert e.code == "caishen_needs_self_draw"


def test_fine_point_2_restriction_not_for_robbing_a_kong():
    # robbing: single 1 + robbing_kong 1 = 2 (the caishen is 9s, so no no_caishen)
    r = score("234m 678m 345p 456s 9s 9p", "9s", by="robbing_kong", frm="W")
    expect(r, [("single_wait", 1), ("robbing_kong", 1)])


def test_fine_point_2_restriction_not_for_self_draw():
    r = score("234m 678m 345p 456s 9s 9p", "9s", by="self_draw")
    expect(r, [("single_wait", 1), ("self_draw", 1)])


def test_fine_point_2_judged_per_placement():
    # 2s could pair with the caishen (forbidden) or sit in 2-3-4s with 5s pairing the caishen
    # (allowed): the win stands.  2s ends 2-3-4 -> two-sided, four chows, pair 5s -> ping_hu 1.
    r = score("234m 678m 345p 2s3s4s 5s 9p", "2s", by="discard", frm="W")
    expect(r, [("ping_hu", 1)])
    assert r["decomposition"]["caishen"] == [{"tile": "9p", "face": "5s"}]


def test_fine_point_2_judged_per_placement_any_group():
    # any_group: 2s in the natural 2-3-4s, caishen in the pair (not the winning tile's group): allowed
    rules = {"preset": "ningbo", "min_tai": 0, "caishen_discard_restriction": "any_group"}
    r = score("234m 678m 345p 2s3s4s 5s 9p", "2s", by="discard", frm="W", rules=rules)
    expect(r, [("ping_hu", 1)])


def test_fine_point_3_ties_prefer_required_patterns():
    # ningbo-taishu (required: full_flush, half_flush, all_honors, all_pungs), closed_wait worth 3.
    # 111222333m 777p 55s, 2m won on a discard has two readings:
    #   X: 111m 222m 333m pungs: all_pungs 2 + dual_pung 1 + no_caishen 1 = 4 (meets all_pungs)
    #   Y: 123m x3 chows: closed 3 + no_caishen 1 = 4 (no pattern)
    # Tie -> X, which is eligible (4 >= 4 and all_pungs).  P = 1 x (1+4) = 5; W pays 2 -> 10.
    rules = {"preset": "ningbo-taishu", "item_tai": {"closed_wait": 3}}
    r = score("111m 222m 333m 777p 55s", "2m", by="discard", frm="W", rules=rules)
    expect(r, [("all_pungs", 2), ("dual_pung_wait", 1), ("no_caishen", 1)])
    assert r["eligible"] is True
    assert r["points"] == 5
    assert payments(r) == {"W": (10, 2, None)}


def test_fine_point_3_fewer_tai_never_chosen():
    # closed_wait worth 4: Y = 5 > X = 4 -> Y, though it meets no required pattern -> ineligible
    rules = {"preset": "ningbo-taishu", "item_tai": {"closed_wait": 4}}
    r = score("111m 222m 333m 777p 55s", "2m", by="discard", frm="W", rules=rules)
    expect(r, [("closed_wait", 4), ("no_caishen", 1)])
    assert r["eligible"] is False and r["reasons"]
    assert r["points"] == 0 and r["payments"] == []


def test_fine_point_5_wind_at_most_once_dragon_once_per_pung():
    # SSSS (no kong) + two caishen: SSS + S with the caishen as S would be a second S pung, but
    # seat_wind_pung scores once: pai_hu 0 + seat_wind_pung 1 = 1 (the alternative reading
    # SSS + pair S + 555s gives the same).
    r = score("SSSS 9p9p 234m 678m 55s", "4m", seat="S", round_wind="E")
    expect(r, [("pai_hu", 0), ("seat_wind_pung", 1)])
    # whereas two C pungs score twice (see test_fine_point_1_six_copies_of_a_dragon)
    r = score("CCCC 9p9p 234m 678m 55s", "4m", seat="S", round_wind="E")
    assert count(r, "dragon_pung") == 2


def test_fine_point_5_round_wind_at_most_once():
    # East seat, East round: natural EEE scores seat 1 + round 1.  A second E pung from the three
    # caishen would add nothing; a dragon pung adds 1 -> seat 1 + round 1 + dragon 1 + closed 1 = 4.
    r = score("EEE 9p9p9p 234m 678m 55s", "3m", seat="E", round_wind="E")
    assert count(r, "seat_wind_pung") == 1
    assert count(r, "round_wind_pung") == 1
    assert r["tai"] == 4


def test_fine_point_6_caishen_as_own_face_still_counts():
    # two 9p caishen used as a 9p pair are still caishen: no no_caishen
    r = score("234m 678m 345p 567s 9p9p", "4m")
    assert "no_caishen" not in ids(r)
    assert r["tai"] == 1  # one wait item worth 1 (ping_hu or a caishen-made wait), nothing else
    # three_caishen counts the physical 9p, whatever faces they take (wind/dragon pungs worth 0 here)
    rules = {"preset": "ningbo", "min_tai": 0,
             "item_tai": {"dragon_pung": 0, "seat_wind_pung": 0, "round_wind_pung": 0}}
    r = score("234m 678m 345p 567s 9p9p", "4m", by="self_draw", rules=rules)
    assert "three_caishen" not in ids(r)
    r = score("234m 678m 345p 99s 9p9p9p", "4m", by="self_draw", rules=rules)
    assert count(r, "three_caishen") == 1


def test_fine_point_7_flush_by_assigned_face():
    # three character chow melds; concealed 234m 5m + caishen 9p (a dots tile) standing for 5m:
    # by faces everything is characters -> full_flush.  self-drawn:
    # full_flush 4 + self_draw 1 + one wait item 1 = 6 (ping_hu, or single with 2m paired)
    melds = [meld("chow", "123m", "E"), meld("chow", "456m", "E"), meld("chow", "789m", "E")]
    r = score("234m 5m 9p", "2m", melds=melds, by="self_draw")
    assert count(r, "full_flush") == 1
    assert r["tai"] == 6
    assert "no_caishen" not in ids(r)


def test_fine_point_7_melds_count_flowers_never():
    # a dots meld breaks the flush; flowers (1f, not South's) never do
    melds = [meld("chow", "123m", "E"), meld("chow", "456m", "E"), meld("chow", "789s", "E")]
    r = score("234m 55m", "2m", melds=melds)
    assert "full_flush" not in ids(r) and "half_flush" not in ids(r)
    melds = [meld("chow", "123m", "E"), meld("chow", "456m", "E"), meld("chow", "789m", "E")]
    r = score("234m 55m", "2m", melds=melds, flowers="1f 3f")
    expect(r, [("ping_hu", 1), ("full_flush", 4), ("no_caishen", 1)])


def test_fine_point_7_caishen_faces_decide_the_flush():
    # 234m 567m 789m 55m + three 9p caishen (a dots tile).  As a character chow the caishen give
    # full_flush 4 + ping_hu 1 (4m two-sided, all chows, pair 5m) = 5; as a dragon pung only
    # half_flush 2 + dragon_pung 1 + pai_hu 0 = 3.  -> full_flush, every caishen face a character.
    r = score("234m 567m 789m 55m 9p9p9p", "4m")
    assert count(r, "full_flush") == 1 and "half_flush" not in ids(r)
    assert r["tai"] == 5
    assert "no_caishen" not in ids(r)
    assert all(c["face"].endswith("m") for c in r["decomposition"]["caishen"])


def test_fine_point_8_white_dragon_substitutes_chow():
    # ningbo-456 with white_dragon_substitutes on (off in every preset since rule book 2),
    # indicator 4m: P *is* a natural 4m.  23m + P = 2-3-4m; 3m in the middle -> closed 1;
    # P is no caishen -> no_caishen 1: tai 2.
    rules = {"preset": "ningbo-456", "min_tai": 0, "white_dragon_substitutes": True}
    r = score("23m P 678m 345p 567s 99s", "3m", indicator="4m", rules=rules)
    expect(r, [("closed_wait", 1), ("no_caishen", 1)])


def test_fine_point_8_white_dragon_pung_is_no_dragon_pung():
    # ningbo-456 with white_dragon_substitutes on, indicator 4m: PPP is a pung of 4m:
    # pai_hu 0 + no_caishen 1 = 1
    rules = {"preset": "ningbo-456", "min_tai": 0, "white_dragon_substitutes": True}
    r = score("PPP 123m 678m 345p 99s", "1m", indicator="4m", rules=rules)
    expect(r, [("pai_hu", 0), ("no_caishen", 1)])
    # an exposed PPP pung (from W) as well
    r = score("123m 678m 345p 99s", "1m", indicator="4m", rules=rules,
              melds=[meld("pung", "PPP", "W")])
    expect(r, [("pai_hu", 0), ("no_caishen", 1)])


def test_fine_point_8_only_with_one_non_flower_kind():
    # ningbo-456 with a flower indicator (1f: caishen 2f 3f 4f): P stays a dragon.
    # pai_hu 0 + dragon_pung 1 + no_caishen 1 = 2
    rules = {"preset": "ningbo-456", "min_tai": 0}
    r = score("PPP 123m 678m 345p 99s", "1m", indicator="1f", rules=rules)
    expect(r, [("pai_hu", 0), ("dragon_pung", 1), ("no_caishen", 1)])
    # two kinds (indicator_and_next, 4m -> 4m and 5m): P stays a dragon as well
    rules = {"preset": "ningbo-456", "min_tai": 0, "caishen_rule": "indicator_and_next"}
    r = score("PPP 123m 678m 345p 99s", "1m", indicator="4m", rules=rules)
    expect(r, [("pai_hu", 0), ("dragon_pung", 1), ("no_caishen", 1)])
    # indicator P: the caishen kind is P itself, the option does not apply: the 3 P are caishen
    r = score("234m 678m 345p 567s 9s P", "4m", indicator="P", rules=rules | {"caishen_rule": "indicator"})
    assert r["decomposition"]["caishen"] == [{"tile": "P", "face": "9s"}]


def test_fine_point_9_robbing_with_one_copy_only():
    # the robbed player held 4m x3 and added the 4th; the winner may hold only the one it robs
    ok = score(PLAIN, "4m", by="robbing_kong", frm="W")
    assert ok["eligible"] is True
    e = error_of(request("234m 678m 345p 567s 44m", "4m", by="robbing_kong", frm="W"))
    assert e.code == "inconsistent_win_context" and e.status == 422


def test_fine_point_11_kong_fed_by_exposed_kong():
    # exposed kong 1111s claimed from W's discard, W fed it.  flowers 2f 6f (South's).
    # pai_hu 0 + self_draw 1 + kong_bloom 1 + no_caishen 1 + seat_flower 2 = 5; P = 1 x 6 = 6.
    # W pays 5 -> 30; E and N pay nothing (not listed).
    r = score("234m 678m 345p 99s", "4m", melds=[meld("kong", "1111s", "W")], flowers="2f 6f",
              by="self_draw", kong_replacement=True, kong_fed_by="W", rules="ningbo")
    assert r["tai"] == 5 and r["points"] == 6
    assert payments(r) == {"W": (30, 5, None)}
    assert r["net"] == {"E": 0, "S": 30, "W": -30, "N": 0}


@pytest.mark.parametrize("kong", [
    meld("kong", "1111s", concealed=True),          # concealed: nobody fed it
    meld("kong", "1111s", "W", added=True),         # added: the 4th tile was the winner's own draw
    meld("kong", "1111s", "N"),                     # exposed, but claimed from N
])
def test_fine_point_11_kong_fed_by_needs_exposed_kong_from_that_seat(kong):
    e = error_of(request("234m 678m 345p 99s", "4m", melds=[kong], by="self_draw",
                         kong_replacement=True, kong_fed_by="W"))
    assert e.code == "inconsistent_win_context"


# three melds claimed from W (pungs CCC, FFF, 111s); concealed 234m 99s; 4m; flower 2f.
# Without kong: pai_hu 0 + dragon_pung 2 + no_caishen 1 + seat_flower 1 = 4.
LIAB_MELDS = [meld("pung", "CCC", "W"), meld("pung", "FFF", "W"), meld("pung", "111s", "W")]


def test_fine_point_14_only_payers_above_zero_listed():
    # W related (winner claimed 3 melds from W); discard by E: E 2, W +2, N 0 (not listed).
    # P = 1 x (1+4) = 5 -> E 10, W 10.
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", by="discard", frm="E",
              rules="ningbo")
    assert r["points"] == 5
    assert payments(r) == {"E": (10, 2, None), "W": (10, 2, "related")}
    assert r["net"] == {"E": -10, "S": 20, "W": -10, "N": 0}


def test_fine_point_14_related_kong_bloom_feeder_pays_ten():
    # kong 1111s from W replaces the pung of 111s: melds CCC(W) FFF(W) 1111s(W), fed by W.
    # pai_hu 0 + self_draw 1 + kong_bloom 1 + dragon 2 + no_caishen 1 + seat_flower 1 = 6; P = 7.
    # W related: 5 + 5 = 10 -> 70, whatever related_discarder says.
    melds = [meld("pung", "CCC", "W"), meld("pung", "FFF", "W"), meld("kong", "1111s", "W")]
    for rd in ("add", "five"):
        r = score("234m 99s", "4m", melds=melds, flowers="2f", by="self_draw", kong_replacement=True,
                  kong_fed_by="W", rules={"preset": "ningbo", "related_discarder": rd})
        assert r["tai"] == 6 and r["points"] == 7
        assert payments(r) == {"W": (70, 10, "related")}


def test_fine_point_14_mutual_kong_bloom_feeder_pays_fifteen():
    # same, and W also claimed 3 melds from the winner: mutual -> 5 + 10 = 15 -> 105
    melds = [meld("pung", "CCC", "W"), meld("pung", "FFF", "W"), meld("kong", "1111s", "W")]
    for rd in ("add", "five"):
        r = score("234m 99s", "4m", melds=melds, flowers="2f", by="self_draw", kong_replacement=True,
                  kong_fed_by="W", claims={"W": 3},
                  rules={"preset": "ningbo", "related_discarder": rd})
        assert payments(r) == {"W": (105, 15, "mutual")}
        assert r["net"] == {"E": 0, "S": 105, "W": -105, "N": 0}


def test_fine_point_14_mutual_discarder_under_five_pays_ten_before_cap():
    # W mutual and the discarder; P = 5.
    # ningbo + related_discarder five: 5 x 2 = 10 -> 50
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", by="discard", frm="W",
              claims={"W": 3}, rules={"preset": "ningbo", "related_discarder": "five"})
    assert payments(r) == {"W": (50, 10, "mutual")}
    # with a liability cap of 5 (as ningbo-taishu has): 5 -> 25
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", by="discard", frm="W",
              claims={"W": 3},
              rules={"preset": "ningbo", "related_discarder": "five", "liability_cap": 5})
    assert payments(r) == {"W": (25, 5, "mutual")}
    # and under add: 2 + 4 = 6 -> 30
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", by="discard", frm="W",
              claims={"W": 3}, rules="ningbo")
    assert payments(r) == {"W": (30, 6, "mutual")}


def test_self_draw_with_related_player():
    # self-drawn, W related: W pays 5, others 0 -> P = 1 x (1 + 4 + self_draw 1) = 6 -> 30
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", by="self_draw", rules="ningbo")
    assert r["tai"] == 5
    assert payments(r) == {"W": (30, 5, "related")}


def test_robbing_kong_payment():
    # PLAIN + flowers 2f 6f robbing from W: ping_hu 1 + robbing 1 + no_caishen 1 + seat_flower 2 = 5
    # P = 6; W pays 5 -> 30
    r = score(PLAIN, "4m", flowers="2f 6f", by="robbing_kong", frm="W", rules="ningbo")
    assert payments(r) == {"W": (30, 5, None)}
    assert [row["reason"] for row in r["payments"]] == ["robbing_kong"]


# --------------------------------------------------------------------------- item_tai overrides

# 111222333m 777p 55s, 2m on a discard:
#   pungs reading X: all_pungs 2 + dual_pung 1 + no_caishen 1 = 4
#   chows reading Y: closed 1 + no_caishen 1 = 2
TWO_READINGS = "111m 222m 333m 777p 55s"


def test_item_tai_default_reading():
    r = score(TWO_READINGS, "2m")
    expect(r, [("all_pungs", 2), ("dual_pung_wait", 1), ("no_caishen", 1)])
    assert r["decomposition"]["wait"] == "dual_pung"


def test_item_tai_zero_flips_reading():
    # all_pungs 0 and dual_pung_wait 0: X = 1, Y = 2 -> Y
    rules = {"preset": "ningbo", "min_tai": 0, "item_tai": {"all_pungs": 0, "dual_pung_wait": 0}}
    r = score(TWO_READINGS, "2m", rules=rules)
    expect(r, [("closed_wait", 1), ("no_caishen", 1)])
    assert r["decomposition"]["wait"] == "closed"
    assert r["rules"]["item_tai"] == {"all_pungs": 0, "dual_pung_wait": 0}


def test_item_tai_raise_flips_reading():
    # closed_wait 5: Y = 6 > X = 4 -> Y
    rules = {"preset": "ningbo", "min_tai": 0, "item_tai": {"closed_wait": 5}}
    r = score(TWO_READINGS, "2m", rules=rules)
    expect(r, [("closed_wait", 5), ("no_caishen", 1)])


def test_item_tai_new_value_changes_tai():
    # no_caishen 3: ping_hu 1 + no_caishen 3 = 4
    rules = {"preset": "ningbo", "min_tai": 0, "item_tai": {"no_caishen": 3}}
    r = score(PLAIN, "4m", rules=rules)
    expect(r, [("ping_hu", 1), ("no_caishen", 3)])


def test_item_tai_zero_drops_item():
    rules = {"preset": "ningbo", "min_tai": 0, "item_tai": {"no_caishen": 0}}
    r = score(PLAIN, "4m", rules=rules)
    expect(r, [("ping_hu", 1)])


def test_item_tai_is_per_occurrence():
    # dragon_pung 3 with three dragon pungs: 3 each -> pai_hu 0 + 9 + no_caishen 1 = 10
    rules = {"preset": "ningbo", "min_tai": 0, "item_tai": {"dragon_pung": 3}}
    r = score("CCC FFF 234m 99s", "4m", melds=[meld("kong", "PPPP", "W")], rules=rules)
    expect(r, [("pai_hu", 0), ("dragon_pung", 3), ("dragon_pung", 3), ("dragon_pung", 3),
               ("no_caishen", 1)])


def test_item_tai_counts_for_eligibility():
    # PLAIN on a discard is 2 tai < 4; ping_hu raised to 3 -> 3 + 1 = 4 >= 4: eligible, P = 5
    r = score(PLAIN, "4m", rules={"preset": "ningbo", "item_tai": {"ping_hu": 3}}, frm="W")
    assert r["tai"] == 4 and r["counted_tai"] == 4 and r["eligible"] is True
    assert r["points"] == 5
    assert payments(r) == {"W": (10, 2, None)}


def test_item_tai_bonus_item_stays_bonus():
    # three_caishen raised to 10 is still a bonus under ningbo-bianfeng: counted_tai unchanged (2,
    # see test_three_caishen_is_a_bonus_under_bianfeng), tai = 2 + 10 = 12
    rules = {"preset": "ningbo-bianfeng", "item_tai": {"three_caishen": 10}}
    r = score("234m 678m 345p 99s 9p9p9p", "4m", by="self_draw", rules=rules)
    assert r["tai"] == 12 and r["counted_tai"] == 2 and r["eligible"] is False
    # in ningbo it counts: counted_tai = tai = 12 -> eligible
    r = score("234m 678m 345p 99s 9p9p9p", "4m", by="self_draw", rules={**rules, "preset": "ningbo"})
    assert r["tai"] == 12 and r["counted_tai"] == 12 and r["eligible"] is True
