"""Tile input forms of docs/api.md, every preset option of docs/rules.md §9 flipped by a per-request
override, and the preset tables.

Hand used most: South (East round) holds 234m 678m 345p 567s 99s, winning tile 4m, caishen
indicator 9p (no 9p in hand).  On a discard that is ping_hu 1 + no_caishen 1 = 2 台.
"""
from __future__ import annotations

import dataclasses

import re

import pytest
from marshmallow import ValidationError
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import NEXT, T, meld, score_body

import ningbo_score
from ningbo_score import ScoreError
from ningbo_score.tiles import INDEX, _read_compact, compact_or_none, parse_tile, parse_tiles

PLAIN = "234m 678m 345p 567s 99s"


def request(concealed=PLAIN, winning="4m", *, melds=(), flowers="", seat="S", round_wind="E",
            indicator="9p", by="discard", frm=None, rules="ningbo", claims=None, base_points=None,
            **win_flags) -> dict:
    """The body of a hand won by ``by``; a discard or a robbed kong is ``frm``'s, by default the
    winner's 下家 (NEXT)."""
    win = {"by": by}
    if by in ("discard", "robbing_kong"):
        win["from"] = frm or NEXT[seat]
    return score_body(rules, seat, round_wind, concealed, winning=winning, melds=melds, flowers=flowers,
                      indicator=indicator, win={**win, **win_flags}, claims=claims, base_points=base_points)


def score(*args, **kwargs) -> dict:
    return ningbo_score.score(request(*args, **kwargs))


def opt(preset="ningbo", **options) -> dict:
    return {"preset": preset, **options}


def error_of(req: dict) -> ScoreError:
    with pytest.raises(ScoreError) as info:
        ningbo_score.score(req)
    return info.value


def ids(resp: dict) -> set[str]:
    return {it["id"] for it in resp["items"]}


def payments(resp: dict) -> dict[str, tuple[int, int]]:
    """{payer: (amount, multiplier)}; every row goes to the one winner."""
    rows = resp["payments"]
    assert len({r["to"] for r in rows}) <= 1
    out = {r["from"]: (r["amount"], r["multiplier"]) for r in rows}
    assert len(out) == len(rows)
    return out


def assert_ineligible(resp: dict) -> None:
    assert resp["eligible"] is False
    assert resp["reasons"]
    assert resp["points"] == 0
    assert resp["payments"] == []
    assert resp["net"] == {"E": 0, "S": 0, "W": 0, "N": 0}


# =========================================================================== tiles

CHINESE = {
    # characters, numerals with 万/萬
    "一万": "1m", "二万": "2m", "三万": "3m", "四万": "4m", "五万": "5m", "六万": "6m", "七万": "7m",
    "八万": "8m", "九万": "9m", "一萬": "1m", "五萬": "5m", "九萬": "9m",
    # dots 饼/餅/筒
    "一饼": "1p", "二餅": "2p", "三筒": "3p", "九饼": "9p", "九餅": "9p", "九筒": "9p",
    # bamboo 条/條/索
    "一条": "1s", "二條": "2s", "三索": "3s", "九条": "9s", "九條": "9s", "九索": "9s",
    # winds
    "东": "E", "東": "E", "东风": "E", "東風": "E",
    "南": "S", "南风": "S", "南風": "S",
    "西": "W", "西风": "W", "西風": "W",
    "北": "N", "北风": "N", "北風": "N",
    # dragons
    "中": "C", "红中": "C", "紅中": "C",
    "发": "F", "發": "F", "发财": "F", "發財": "F",
    "白": "P", "白板": "P",
    # flowers
    "春": "1f", "夏": "2f", "秋": "3f", "冬": "4f", "梅": "5f", "兰": "6f", "蘭": "6f", "竹": "7f",
    "菊": "8f",
}


@pytest.mark.parametrize("name,code", sorted(CHINESE.items()))
def test_parse_tile_chinese(name, code):
    assert parse_tile(name, "t") == code


def test_parse_tiles_chinese_array_and_compact_string():
    names = list(CHINESE)
    codes = [CHINESE[n] for n in names]
    assert parse_tiles(names, "t") == codes
    assert parse_tiles("".join(names), "t") == codes
    assert parse_tiles(" ".join(names), "t") == codes


def test_parse_tile_codes():
    for code in T("123456789m 123456789p 123456789s 12345678f ESWNCFP"):
        assert parse_tile(code, "t") == code


def test_parse_tiles_compact_string():
    assert parse_tiles("123m 456p EE C", "t") == ["1m", "2m", "3m", "4p", "5p", "6p", "E", "E", "C"]
    assert parse_tiles("123m456pEEC", "t") == ["1m", "2m", "3m", "4p", "5p", "6p", "E", "E", "C"]
    # white space between groups ignored, codes case-sensitive: 1s is bamboo, S is south
    assert parse_tiles(" 123m\tE\nE ", "t") == ["1m", "2m", "3m", "E", "E"]
    assert parse_tiles("11sSS", "t") == ["1s", "1s", "S", "S"]
    assert parse_tiles("1357f", "t") == ["1f", "3f", "5f", "7f"]
    # mixed with Chinese names
    assert parse_tiles("12m 三万 東風 白板 9s", "t") == ["1m", "2m", "3m", "E", "P", "9s"]


def test_parse_tiles_white_space_inside_digits():
    # docs/api.md: "white space ignored" -- read literally, "12 3m" is "123m"
    assert parse_tiles("12 3m", "t") == ["1m", "2m", "3m"]


def test_parse_tiles_array():
    assert parse_tiles(["1m", "E", "5f", "P"], "t") == ["1m", "E", "5f", "P"]
    assert parse_tiles([], "t") == []


@pytest.mark.parametrize("bad", ["0m", "10m", "x", "e", "s", "1z", "m", "十万", "123", "1m2m", ""])
def test_parse_tile_rejects(bad):
    with pytest.raises(ScoreError) as info:
        parse_tile(bad, "hand.winning_tile")
    err = info.value
    assert (err.code, err.status) == ("invalid_request", 400)
    assert any(k == "hand.winning_tile" or k.startswith("hand.winning_tile.") for k in err.errors())


@pytest.mark.parametrize("bad", ["123", "0m", "1z", "x", "123m e", "9f", ["1m", "0m"], ["e"],
                                 ["12m"], [1], 5])
def test_parse_tiles_rejects(bad):
    with pytest.raises(ScoreError) as info:
        parse_tiles(bad, "hand.concealed")
    err = info.value
    assert (err.code, err.status) == ("invalid_request", 400)
    assert any(k == "hand.concealed" or k.startswith("hand.concealed.") for k in err.errors())


# one hand in every form: South, 中 pung from W, flowers 夏 (South's) and 梅, indicator 九饼.
# pai_hu 0 + dragon_pung 1 + no_caishen 1 + seat_flower 1 (2f) = 3 台
FORMS = {
    "arrays": {"concealed": T("234m 678m 345p 99s"), "winning_tile": "4m",
               "melds": [{"type": "pung", "tiles": ["C", "C", "C"], "from": "W"}],
               "flowers": ["2f", "5f"], "indicator": "9p"},
    "compact": {"concealed": "234m 678m 345p 99s", "winning_tile": "4m",
                "melds": [{"type": "pung", "tiles": "CCC", "from": "W"}],
                "flowers": "25f", "indicator": "9p"},
    "chinese arrays": {"concealed": ["二万", "三萬", "四万", "六万", "七萬", "八万", "三饼", "四餅",
                                     "五筒", "九条", "九條"],
                       "winning_tile": "四万",
                       "melds": [{"type": "pung", "tiles": ["中", "红中", "紅中"], "from": "W"}],
                       "flowers": ["夏", "梅"], "indicator": "九饼"},
    "chinese compact": {"concealed": "二万三萬四万 六万七萬八万 三饼四餅五筒 九条九索",
                        "winning_tile": "四萬",
                        "melds": [{"type": "pung", "tiles": "中红中紅中", "from": "W"}],
                        "flowers": "夏梅", "indicator": "九筒"},
}


def form_request(form: dict) -> dict:
    return {
        "rules": {"preset": "ningbo", "min_tai": 0},
        "seat_wind": "S", "round_wind": "E",
        "caishen": {"indicator": form["indicator"]},
        "hand": {"concealed": form["concealed"], "winning_tile": form["winning_tile"],
                 "melds": form["melds"], "flowers": form["flowers"]},
        "win": {"by": "discard", "from": "W"},
    }


def test_same_hand_in_every_form_scores_the_same():
    results = {name: ningbo_score.score(form_request(form)) for name, form in FORMS.items()}
    first = results["arrays"]
    assert sorted((it["id"], it["tai"]) for it in first["items"]) == sorted(
        [("pai_hu", 0), ("dragon_pung", 1), ("no_caishen", 1), ("seat_flower", 1)])
    assert first["tai"] == 3
    # P = 1 x (1 + 3) = 4; W discarded: 2 x 4 = 8
    assert payments(first) == {"W": (8, 2)}
    for name, r in results.items():
        assert r == first, name


def test_chinese_winds_and_honors_in_a_request():
    # 东 東 东风 = EEE, 南 南風 南风 = SSS for East seat in a South round: seat 1 + round 1;
    # 白 白板 the pair; 2m ends 2-3-4 (two-sided, pungs present)
    req = {
        "rules": {"preset": "ningbo", "min_tai": 0},
        "seat_wind": "E", "round_wind": "S",
        "caishen": {"indicator": "9p"},
        "hand": {"concealed": "东東东风 南南風南风 二万三万四万 六條七条八条 白白板",
                 "winning_tile": "二萬"},
        "win": {"by": "discard", "from": "S"},
    }
    r = ningbo_score.score(req)
    # pai_hu 0 + seat_wind 1 + round_wind 1 + no_caishen 1 = 3
    assert sorted((it["id"], it["tai"]) for it in r["items"]) == sorted(
        [("pai_hu", 0), ("seat_wind_pung", 1), ("round_wind_pung", 1), ("no_caishen", 1)])


# =========================================================================== options


def test_caishen_rule():
    # indicator 5m: indicator -> kinds [5m]; PLAIN holds no 5m: ping_hu 1 + no_caishen 1 = 2
    r = score(rules=opt(min_tai=0), indicator="5m")
    assert r["caishen"]["kinds"] == ["5m"]
    assert r["tai"] == 2 and "no_caishen" in ids(r)
    assert r["rules"]["caishen_rule"] == "indicator"
    # indicator_and_next -> 5m and 6m; the 6m in 678m is a caishen: no no_caishen, and it can add
    # nothing beyond one wait item (ping_hu 1 with its own face): tai 1
    r = score(rules=opt(min_tai=0, caishen_rule="indicator_and_next"), indicator="5m")
    assert sorted(r["caishen"]["kinds"]) == ["5m", "6m"]
    assert r["tai"] == 1 and "no_caishen" not in ids(r)
    assert r["rules"]["caishen_rule"] == "indicator_and_next"


@pytest.mark.parametrize("rule,indicator,kinds", [
    ("indicator", "1f", ["2f", "3f", "4f"]),
    ("indicator", "6f", ["5f", "7f", "8f"]),
    ("indicator", "C", ["C"]),
    ("indicator_and_next", "9m", ["1m", "9m"]),       # 9 wraps to 1
    ("indicator_and_next", "N", ["E", "N"]),          # N -> E
    ("indicator_and_next", "W", ["N", "W"]),
    ("indicator_and_next", "P", ["C", "P"]),          # P -> C
    ("indicator_and_next", "F", ["F", "P"]),
    ("indicator_and_next", "3f", ["1f", "2f", "4f", "5f", "6f", "7f", "8f"]),  # the other 7 flowers
])
def test_caishen_kinds_derivation(rule, indicator, kinds):
    r = score(rules=opt(min_tai=0, caishen_rule=rule), indicator=indicator)
    assert sorted(r["caishen"]["kinds"]) == kinds


def test_white_dragon_substitutes():
    # indicator 4m; PPP 123m 678m 345p 99s, 1m on a discard (1m ends 1-2-3: two-sided, a pung: pai_hu)
    hand = "PPP 123m 678m 345p 99s"
    # off (ningbo): PPP is a dragon pung: pai_hu 0 + dragon_pung 1 + no_caishen 1 = 2
    r = score(hand, "1m", indicator="4m", rules=opt(min_tai=0))
    assert r["tai"] == 2 and "dragon_pung" in ids(r)
    # on: P is a natural 4m, PPP a pung of 4m: pai_hu 0 + no_caishen 1 = 1
    r = score(hand, "1m", indicator="4m", rules=opt(min_tai=0, white_dragon_substitutes=True))
    assert r["tai"] == 1 and "dragon_pung" not in ids(r)
    assert r["rules"]["white_dragon_substitutes"] is True
    # and the other way round from ningbo-456 (on by default)
    r = score(hand, "1m", indicator="4m", rules=opt("ningbo-456", min_tai=0, white_dragon_substitutes=False))
    assert r["tai"] == 2 and "dragon_pung" in ids(r)


def test_white_dragon_substitutes_makes_a_chow():
    # 23m + P: with the option P is 4m -> 2-3-4m, 3m closed: closed 1 + no_caishen 1 = 2
    r = score("23m P 678m 345p 567s 99s", "3m", indicator="4m",
              rules=opt(min_tai=0, white_dragon_substitutes=True))
    assert sorted((it["id"], it["tai"]) for it in r["items"]) == [("closed_wait", 1), ("no_caishen", 1)]
    # without it, 2m 3m P is nothing
    e = error_of(request("23m P 678m 345p 567s 99s", "3m", indicator="4m", rules=opt(min_tai=0)))
    assert e.code == "not_a_winning_hand"


def test_min_tai():
    # PLAIN on W's discard: 2 台
    r = score(frm="W")  # ningbo: min_tai 4
    assert r["min_tai"] == 4 and r["tai"] == 2
    assert_ineligible(r)
    # min_tai 2: eligible; P = 1 x (1 + 2) = 3; W pays 2 x 3 = 6
    r = score(frm="W", rules=opt(min_tai=2))
    assert r["min_tai"] == 2 and r["eligible"] is True and r["points"] == 3
    assert payments(r) == {"W": (6, 2)}
    assert r["net"] == {"E": 0, "S": 6, "W": -6, "N": 0}
    assert r["rules"]["min_tai"] == 2


# PLAIN self-drawn with South's 2f: ping_hu 1 + self_draw 1 + no_caishen 1 + seat_flower 1 = 4
def test_required_patterns():
    r = score(by="self_draw", flowers="2f")
    assert r["tai"] == 4 and r["eligible"] is True
    # P = 1 x 5 = 5, each of E, W, N pays 1 x 5
    assert payments(r) == {"E": (5, 1), "W": (5, 1), "N": (5, 1)}
    r = score(by="self_draw", flowers="2f", rules=opt(required_patterns=["full_flush"]))
    assert r["tai"] == 4
    assert_ineligible(r)
    assert r["rules"]["required_patterns"] == ["full_flush"]
    # ningbo-taishu requires a pattern the hand lacks; [] lifts it
    r = score(by="self_draw", flowers="2f", rules="ningbo-taishu")
    assert_ineligible(r)
    r = score(by="self_draw", flowers="2f", rules=opt("ningbo-taishu", required_patterns=[]))
    assert r["eligible"] is True and r["points"] == 5
    assert payments(r) == {"E": (5, 1), "W": (5, 1), "N": (5, 1)}


def test_required_patterns_met():
    # 222m 999m 555p 777s 11s, 1s on a discard: all_pungs 2 + single 1 + no_caishen 1 = 4, with
    # required_patterns [all_pungs] -> eligible; P = 5, W pays 10
    r = score("222m 999m 555p 777s 11s", "1s", frm="W", rules=opt(required_patterns=["all_pungs"]))
    assert r["eligible"] is True and r["tai"] == 4
    assert payments(r) == {"W": (10, 2)}


def test_discard_wins():
    r = score(frm="W", rules=opt(min_tai=0))
    assert r["eligible"] is True and r["tai"] == 2
    e = error_of(request(frm="W", rules=opt(min_tai=0, discard_wins=False)))
    assert (e.code, e.status) == ("discard_win_not_allowed", 422)
    # 7baida forbids it, an override allows it (indicator 9p -> 9p, 1p: none in PLAIN): tai 2
    e = error_of(request(frm="W", rules=opt("ningbo-7baida", min_tai=0)))
    assert e.code == "discard_win_not_allowed"
    r = score(frm="W", rules=opt("ningbo-7baida", min_tai=0, discard_wins=True))
    assert r["tai"] == 2 and r["eligible"] is True


# Hand C: 234m 678m 345p 4s 6s 99s + 9p caishen, 4s on a discard: 4s 9p 6s = 4-5-6s (the caishen
# is 5s, in the winning tile's group but not a pair) -> ping_hu 1, tai 1.
HAND_C = ("234m 678m 345p 4s 6s 99s 9p", "4s")
# Hand A: 234m 678m 345p 456s 9s + 9p caishen, 9s on a discard: only 9s + 9p as a pair -> single 1.
HAND_A = ("234m 678m 345p 456s 9s 9p", "9s")


@pytest.mark.parametrize("restriction,c_ok,a_ok", [
    ("single_wait", True, False),
    ("any_group", False, False),
    (None, True, True),
])
def test_caishen_discard_restriction(restriction, c_ok, a_ok):
    rules = opt(min_tai=0, caishen_discard_restriction=restriction)
    for (hand, w), ok, tai in ((HAND_C, c_ok, 1), (HAND_A, a_ok, 1)):
        req = request(hand, w, frm="W", rules=rules)
        if ok:
            r = ningbo_score.score(req)
            assert r["tai"] == tai and r["eligible"] is True
            assert r["rules"]["caishen_discard_restriction"] == restriction
        else:
            e = error_of(req)
            assert (e.code, e.status) == ("caishen_needs_self_draw", 422)


def test_caishen_discard_restriction_presets():
    # ningbo-456 (any_group) refuses hand C; override null accepts it (tai 1)
    e = error_of(request(*HAND_C, frm="W", rules=opt("ningbo-456", min_tai=0)))
    assert e.code == "caishen_needs_self_draw"
    r = score(*HAND_C, frm="W", rules=opt("ningbo-456", min_tai=0, caishen_discard_restriction=None))
    assert r["tai"] == 1
    # self-drawn, the restriction never applies: hand A single 1 + self_draw 1 = 2
    r = score(*HAND_A, by="self_draw", rules=opt(min_tai=0, caishen_discard_restriction="any_group"))
    assert r["tai"] == 2


def test_robbing_needs_no_caishen_discarded():
    # robbing 4m from W after having discarded a caishen: ping_hu 1 + robbing 1 + no_caishen 1 = 3
    r = score(by="robbing_kong", frm="W", discarded_caishen=True, rules=opt(min_tai=0))
    assert r["tai"] == 3 and r["eligible"] is True
    e = error_of(request(by="robbing_kong", frm="W", discarded_caishen=True,
                         rules=opt(min_tai=0, robbing_needs_no_caishen_discarded=True)))
    assert (e.code, e.status) == ("discard_win_not_allowed", 422)
    # 7baida has it on; the override turns it off
    r = score(by="robbing_kong", frm="W", discarded_caishen=True,
              rules=opt("ningbo-7baida", min_tai=0, robbing_needs_no_caishen_discarded=False))
    assert r["tai"] == 3


def test_points_linear_and_doubling():
    # PLAIN self-drawn, South's 2f 6f: ping_hu 1 + self_draw 1 + no_caishen 1 + seat_flower 2 = 5
    # linear, base 3: P = 3 x (1 + 5) = 18, each of E W N pays 18
    r = score(by="self_draw", flowers="2f 6f", base_points=3)
    assert r["tai"] == 5 and r["points"] == 18
    assert payments(r) == {"E": (18, 1), "W": (18, 1), "N": (18, 1)}
    assert r["net"] == {"E": -18, "S": 54, "W": -18, "N": -18}
    # doubling: P = 3 x 2^(5 - 4) = 6
    r = score(by="self_draw", flowers="2f 6f", base_points=3, rules=opt(points="doubling"))
    assert r["points"] == 6
    assert payments(r) == {"E": (6, 1), "W": (6, 1), "N": (6, 1)}
    assert r["rules"]["points"] == "doubling"
    # ningbo-456 doubles by default; linear override: 3 x 6 = 18
    r = score(by="self_draw", flowers="2f 6f", base_points=3, rules=opt("ningbo-456", points="linear"))
    assert r["points"] == 18


def test_doubling_uses_full_tai():
    # 234m 678m 345p 99s + three 9p caishen self-drawn, flowers 2f 6f:
    # self_draw 1 + seat_flower 2 + 1 from the caishen = 4, + three_caishen 3 -> tai 7.
    # ningbo counts three_caishen (rule book 2): counted 7; doubling: P = 2^(7 - 4) = 8
    r = score("234m 678m 345p 99s 9p9p9p", by="self_draw", flowers="2f 6f", rules=opt(points="doubling"))
    assert r["counted_tai"] == 7 and r["tai"] == 7
    assert r["points"] == 8
    # with three_caishen_bonus it is a bonus: counted 4 (still >= 4), but doubling uses the full
    # 台, bonus included (docs/rules.md §6): P = 2^(7 - 4) = 8 (rule book 1: 2^(4 - 4) = 1)
    r = score("234m 678m 345p 99s 9p9p9p", by="self_draw", flowers="2f 6f",
              rules=opt(points="doubling", three_caishen_bonus=True))
    assert r["counted_tai"] == 4 and r["tai"] == 7
    assert r["points"] == 8
    r = score("234m 678m 345p 99s 9p9p9p", by="self_draw", flowers="2f 6f")
    assert r["points"] == 8


# South claimed three chows from E (its 上家); concealed 567s 99s, 5s wins.
CHOW_MELDS = [meld("chow", "234m", "E"), meld("chow", "678m", "E"), meld("chow", "345p", "E")]


def test_chi_counts_for_liability():
    # self-drawn with 2f: ping_hu 1 + self_draw 1 + no_caishen 1 + seat_flower 1 = 4; P = 5
    # chows count: E related -> E pays 5 x 5 = 25, W and N nothing
    r = score("567s 99s", "5s", melds=CHOW_MELDS, by="self_draw", flowers="2f")
    assert r["tai"] == 4
    assert payments(r) == {"E": (25, 5)}
    assert r["payments"][0]["liability"] == "related"
    # chows don't count: nobody related -> 5 each
    r = score("567s 99s", "5s", melds=CHOW_MELDS, by="self_draw", flowers="2f",
              rules=opt(chi_counts_for_liability=False))
    assert payments(r) == {"E": (5, 1), "W": (5, 1), "N": (5, 1)}
    assert all(row["liability"] is None for row in r["payments"])


def test_related_discarder():
    # E (related, 3 chows) discards 5s; 2f 6f: ping_hu 1 + no_caishen 1 + seat_flower 2 = 4; P = 5
    # add: 2 + 2 = 4 -> 20; five: 5 -> 25
    r = score("567s 99s", "5s", melds=CHOW_MELDS, frm="E", flowers="2f 6f")
    assert r["tai"] == 4
    assert payments(r) == {"E": (20, 4)}
    r = score("567s 99s", "5s", melds=CHOW_MELDS, frm="E", flowers="2f 6f",
              rules=opt(related_discarder="five"))
    assert payments(r) == {"E": (25, 5)}
    # ningbo-taishu (five, no pattern met -> lift the patterns) back to add: chows count for 包
    # only with chi_counts_for_liability (off in ningbo-taishu since rule book 2): E unrelated,
    # 2 -> 10; with the option on, E related again: 2 + 2 -> 20
    r = score("567s 99s", "5s", melds=CHOW_MELDS, frm="E", flowers="2f 6f",
              rules=opt("ningbo-taishu", required_patterns=[], related_discarder="add"))
    assert payments(r) == {"E": (10, 2)}
    r = score("567s 99s", "5s", melds=CHOW_MELDS, frm="E", flowers="2f 6f",
              rules=opt("ningbo-taishu", required_patterns=[], related_discarder="add",
                        chi_counts_for_liability=True))
    assert payments(r) == {"E": (20, 4)}


def test_related_third_party_on_discard():
    # W discards, E is related: W 2, E +2 -> 10 each (P = 5)
    r = score("567s 99s", "5s", melds=CHOW_MELDS, frm="W", flowers="2f 6f")
    assert payments(r) == {"W": (10, 2), "E": (10, 2)}
    assert r["net"] == {"E": -10, "S": 20, "W": -10, "N": 0}


# exposed kong 1111s from W (fed by W); concealed 234m 678m 345p 99s; 4m self-drawn on the
# replacement; 2f 6f: pai_hu 0 + self_draw 1 + kong_bloom 1 + no_caishen 1 + seat_flower 2 = 5; P = 6
def kong_bloom(**kw) -> dict:
    return score("234m 678m 345p 99s", "4m", melds=[meld("kong", "1111s", "W")], flowers="2f 6f",
                 by="self_draw", kong_replacement=True, kong_fed_by="W", **kw)


def test_kong_bloom_others_pay():
    # ningbo: W 5 -> 30; E, N nothing
    r = kong_bloom()
    assert r["tai"] == 5 and r["points"] == 6
    assert payments(r) == {"W": (30, 5)}
    # on: E and N 1 each -> 6
    r = kong_bloom(rules=opt(kong_bloom_others_pay=True))
    assert payments(r) == {"W": (30, 5), "E": (6, 1), "N": (6, 1)}
    assert r["net"] == {"E": -6, "S": 42, "W": -30, "N": -6}
    # ningbo-456 has it on (doubling: P = 2^(5-4) = 2): W 10, E 2, N 2; off: W only
    r = kong_bloom(rules="ningbo-456")
    assert payments(r) == {"W": (10, 5), "E": (2, 1), "N": (2, 1)}
    r = kong_bloom(rules=opt("ningbo-456", kong_bloom_others_pay=False))
    assert payments(r) == {"W": (10, 5)}


# South claimed pungs CCC FFF 111s from W; concealed 234m 99s; 4m; 2f.
# pai_hu 0 + dragon_pung 2 + no_caishen 1 + seat_flower 1 = 4; P = 5
LIAB_MELDS = [meld("pung", "CCC", "W"), meld("pung", "FFF", "W"), meld("pung", "111s", "W")]


def test_liability_cap():
    # W discards and is mutual (W claimed 3 from South too): add -> 2 + 4 = 6 -> 30
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", frm="W", claims={"W": 3})
    assert r["tai"] == 4
    assert payments(r) == {"W": (30, 6)}
    # liability_cap 5 -> 25
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", frm="W", claims={"W": 3},
              rules=opt(liability_cap=5))
    assert payments(r) == {"W": (25, 5)}
    assert r["rules"]["liability_cap"] == 5
    # ningbo-taishu (five, cap 5, patterns lifted): mutual discarder 10 -> capped 5 -> 25;
    # without the cap 10 -> 50
    base = {"preset": "ningbo-taishu", "required_patterns": []}
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", frm="W", claims={"W": 3}, rules=base)
    assert payments(r) == {"W": (25, 5)}
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", frm="W", claims={"W": 3},
              rules=base | {"liability_cap": None})
    assert payments(r) == {"W": (50, 10)}


def test_claims_count_only_from_three():
    # W claimed 2 from South: still only "related" through South's 3 claims from W, not mutual:
    # add: 2 + 2 = 4 -> 20
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", frm="W", claims={"W": 2})
    assert payments(r) == {"W": (20, 4)}


def test_hand_cap():
    # PLAIN self-drawn, 2f 6f: tai 5; base 100 -> P = 100 x 6 = 600; E W N would pay 600 each = 1800
    # ningbo cap 1000: 600 x 1000/1800 = 333.33 each -> 333 x 3 = 999, the unit left over goes to
    # the largest remainder, all equal -> seat order E first: E 334, W 333, N 333
    r = score(by="self_draw", flowers="2f 6f", base_points=100)
    assert r["points"] == 600
    assert payments(r) == {"E": (334, 1), "W": (333, 1), "N": (333, 1)}
    assert r["net"] == {"E": -334, "S": 1000, "W": -333, "N": -333}
    assert r["rules"]["hand_cap"] == 1000
    # no cap
    r = score(by="self_draw", flowers="2f 6f", base_points=100, rules=opt(hand_cap=None))
    assert payments(r) == {"E": (600, 1), "W": (600, 1), "N": (600, 1)}
    assert r["net"] == {"E": -600, "S": 1800, "W": -600, "N": -600}


def test_hand_cap_per_payer():
    # PLAIN on W's discard, 2f 6f: ping_hu 1 + no_caishen 1 + seat_flower 2 = 4; base 300 -> P = 1500
    # W would pay 2 x 1500 = 3000 -> at most 1000
    r = score(frm="W", flowers="2f 6f", base_points=300)
    assert r["points"] == 1500
    assert payments(r) == {"W": (1000, 2)}
    assert r["net"] == {"E": 0, "S": 1000, "W": -1000, "N": 0}
    # a cap of 2500 set by the request: W 2500 (3000 capped per payer)
    r = score(frm="W", flowers="2f 6f", base_points=300, rules=opt(hand_cap=2500))
    assert payments(r) == {"W": (2500, 2)}


def test_hand_cap_largest_remainders():
    # W related (3 melds from W), self-drawn: W 5, E 0, N 0.  Make it uneven with a discard by E:
    # E 2 + W related 2.  P = 5 x base.  base 150 -> P = 750: E 1500, W 1500 -> each capped 1000,
    # total 2000 > 1000 -> 500 each (exact).
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", frm="E", base_points=150)
    assert payments(r) == {"E": (500, 2), "W": (500, 2)}
    # mutual W (claims 3), not the discarder: E 2, W +4; base 50 -> P = 250: E 500, W 1000 (at the
    # cap); total 1500 > 1000: E 500 x 1000/1500 = 333.33, W 1000 x 1000/1500 = 666.67 -> 333 + 666
    # = 999, the leftover unit to W (remainder .67 > .33): E 333, W 667
    r = score("234m 99s", "4m", melds=LIAB_MELDS, flowers="2f", frm="E", claims={"W": 3}, base_points=50)
    assert payments(r) == {"E": (333, 2), "W": (667, 4)}
    assert sum(r["net"].values()) == 0 and r["net"]["S"] == 1000


def test_rules_echo_every_option():
    r = score(rules=opt("ningbo-456", min_tai=0, item_tai={"no_caishen": 2}))
    echoed = r["rules"]
    assert echoed["preset"] == "ningbo-456"
    assert set(OPTION_KEYS) <= set(echoed)
    expected = dict(PRESETS["ningbo-456"], min_tai=0)
    assert {k: norm(k, echoed[k]) for k in OPTION_KEYS} == {k: norm(k, v) for k, v in expected.items()}
    assert echoed["item_tai"] == {"no_caishen": 2}


# =========================================================================== presets

OPTION_KEYS = ["caishen_rule", "white_dragon_substitutes", "min_tai", "required_patterns",
               "discard_wins", "caishen_discard_restriction", "robbing_needs_no_caishen_discarded",
               "points", "chi_counts_for_liability", "related_discarder", "kong_bloom_others_pay",
               "liability_others_pay", "liability_cap", "hand_cap", "three_caishen_bonus", "draw_keeps_dealer",
               "chow_swap_allowed", "robbed_kong_liability", "escape_penalty_to"]

# docs/rules.md §9, column by column ("—" is null / [] ; "no"/"yes" are booleans)
PRESETS = {
    "ningbo": dict(caishen_rule="indicator", white_dragon_substitutes=False, min_tai=4,
                   required_patterns=[], discard_wins=True, caishen_discard_restriction="single_wait",
                   robbing_needs_no_caishen_discarded=False, points="linear",
                   chi_counts_for_liability=True, related_discarder="add",
                   kong_bloom_others_pay=False, liability_others_pay=False, liability_cap=None, hand_cap=1000,
                   three_caishen_bonus=False, draw_keeps_dealer=True,
                   chow_swap_allowed=False, robbed_kong_liability=False, escape_penalty_to="house"),
    "ningbo-456": dict(caishen_rule="indicator", white_dragon_substitutes=False, min_tai=4,
                       required_patterns=[], discard_wins=True, caishen_discard_restriction="any_group",
                       robbing_needs_no_caishen_discarded=False, points="doubling",
                       chi_counts_for_liability=True, related_discarder="add",
                       kong_bloom_others_pay=True, liability_others_pay=False, liability_cap=5, hand_cap=None,
                       three_caishen_bonus=False, draw_keeps_dealer=True,
                       chow_swap_allowed=True, robbed_kong_liability=True, escape_penalty_to="house"),
    "ningbo-bianfeng": dict(caishen_rule="indicator", white_dragon_substitutes=False, min_tai=4,
                            required_patterns=[], discard_wins=True,
                            caishen_discard_restriction="single_wait",
                            robbing_needs_no_caishen_discarded=False, points="linear",
                            chi_counts_for_liability=True, related_discarder="add",
                            kong_bloom_others_pay=False, liability_others_pay=False, liability_cap=None, hand_cap=None,
                            three_caishen_bonus=True, draw_keeps_dealer=True,
                            chow_swap_allowed=True, robbed_kong_liability=False, escape_penalty_to="house"),
    "ningbo-taishu": dict(caishen_rule="indicator", white_dragon_substitutes=False, min_tai=0,
                          required_patterns=["full_flush", "half_flush", "all_honors", "all_pungs"],
                          discard_wins=True, caishen_discard_restriction="any_group",
                          robbing_needs_no_caishen_discarded=False, points="linear",
                          chi_counts_for_liability=False, related_discarder="five",
                          kong_bloom_others_pay=False, liability_others_pay=False, liability_cap=5, hand_cap=None,
                          three_caishen_bonus=False, draw_keeps_dealer=False,
                          chow_swap_allowed=True, robbed_kong_liability=False, escape_penalty_to="house"),
    "ningbo-7baida": dict(caishen_rule="indicator_and_next", white_dragon_substitutes=False, min_tai=4,
                          required_patterns=[], discard_wins=False, caishen_discard_restriction=None,
                          robbing_needs_no_caishen_discarded=True, points="linear",
                          chi_counts_for_liability=False, related_discarder="five",
                          kong_bloom_others_pay=True, liability_others_pay=True, liability_cap=5, hand_cap=None,
                          three_caishen_bonus=False, draw_keeps_dealer=False,
                          chow_swap_allowed=True, robbed_kong_liability=False, escape_penalty_to="house"),
}


def norm(key, value):
    return sorted(value) if key == "required_patterns" else value


def test_presets_table():
    listed = ningbo_score.presets()
    assert sorted(p["id"] for p in listed) == sorted(PRESETS)
    for p in listed:
        assert set(p["options"]) == set(OPTION_KEYS), p["id"]
        assert {k: norm(k, v) for k, v in p["options"].items()} == \
            {k: norm(k, v) for k, v in PRESETS[p["id"]].items()}, p["id"]
        assert isinstance(p["name"], str) and p["name"]
        assert isinstance(p["source"], str) and p["source"]
        assert ningbo_score.preset(p["id"]) == p


def test_presets_are_independent_copies():
    # a caller mutating the result must not change the library's presets
    p = ningbo_score.preset("ningbo")
    p["options"]["min_tai"] = 99
    assert ningbo_score.preset("ningbo")["options"]["min_tai"] == 4


def test_unknown_preset_is_key_error():
    with pytest.raises(KeyError):
        ningbo_score.preset("foo")


# docs/rules.md §5: id, 台, 中文 name, bonus
ITEMS = [
    ("pai_hu", 0, "排胡"), ("ping_hu", 1, "平胡"), ("edge_wait", 1, "边"), ("closed_wait", 1, "夹"),
    ("single_wait", 1, "单吊"), ("dual_pung_wait", 1, "对倒"), ("big_single_wait", 1, "大吊"),
    ("all_pungs", 2, "碰碰胡"), ("self_draw", 1, "自摸"), ("kong_bloom", 1, "杠上开花"),
    ("robbing_kong", 1, "抢杠"), ("last_tile", 1, "海底捞月"), ("heavenly", 8, "天胡"),
    ("earthly", 6, "地胡"), ("no_caishen", 1, "硬胡"), ("three_caishen", 3, "三财神"),
    ("full_flush", 4, "清一色"), ("half_flush", 2, "混一色"), ("all_honors", 8, "字一色"),
    ("dragon_pung", 1, "中发白刻/杠"), ("seat_wind_pung", 1, "位风刻/杠"),
    ("round_wind_pung", 1, "圈风刻/杠"), ("seat_flower", 1, "正花"), ("flower_set", 2, "四花"),
    ("all_flowers", 8, "八花"),
]


def test_item_table():
    items = ningbo_score.preset("ningbo")["items"]
    # no bonus item in ningbo (rule book 2: 001 counts 三财神); three_caishen one in ningbo-bianfeng
    assert sorted((it["id"], it["tai"], it["name"], it["bonus"]) for it in items) == sorted(
        (i, t, n, False) for i, t, n in ITEMS)
    bianfeng = ningbo_score.preset("ningbo-bianfeng")["items"]
    assert [it["id"] for it in bianfeng if it["bonus"]] == ["three_caishen"]
    for it in items:
        assert isinstance(it["name_en"], str) and it["name_en"]
    en = {it["id"]: it["name_en"] for it in items}
    # the names docs/api.md shows
    assert en["pai_hu"] == "Plain win" and en["self_draw"] == "Self-draw"
    assert en["no_caishen"] == "No caishen" and en["dragon_pung"] == "Dragon pung"
    assert en["seat_flower"] == "Seat flower"


def test_item_names_in_responses_match_table():
    table = {it["id"]: it for it in ningbo_score.preset("ningbo")["items"]}
    r = score(by="self_draw", flowers="2f")
    for it in r["items"]:
        assert (it["name"], it["name_en"], it["bonus"]) == (
            table[it["id"]]["name"], table[it["id"]]["name_en"], table[it["id"]]["bonus"])


def test_a_rules_object_is_resolved_once_and_told_apart_exactly():
    from ningbo_score.readers.request_schemas import RulesObjectSchema, rules_of

    load = RulesObjectSchema().load
    a = rules_of(load({"preset": "ningbo", "min_tai": 3, "item_tai": {"all_honors": 20}}))
    b = rules_of(load({"preset": "ningbo", "min_tai": 3, "item_tai": {"all_honors": 20}}))
    assert a is b and a.min_tai == 3 and a.item_tai["all_honors"] == 20
    assert rules_of(load({"min_tai": 1})).min_tai == 1
    # true is no count; since rule book 2, 1.0 is the count 1 (docs/api.md), 1.5 is none
    assert rules_of(load({"min_tai": 1.0})).min_tai == 1
    for bad in ({"min_tai": True}, {"min_tai": 1.5}, {"required_patterns": {"all_pungs"}}):
        with pytest.raises(ValidationError):
            load(bad)


# --- the plain compact string's quick reader ----------------------------------------------------

@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="0123456789mpsfESWNCFPx 东\t\u3000", max_size=24))
def test_quick_compact_reader_reads_like_the_full_one(text):
    """compact_or_none reads a plain string exactly as _read_compact does, and leaves every
    other string (names, digits split by spaces, mistakes) to it."""
    problems = []
    full = _read_compact(text, "hand.concealed", problems)
    quick = compact_or_none(text)
    if quick is not None:
        assert not problems and quick == full


# What "plain" means: the strings this expression matches in full (tiles.py's comment), read part
# by part; compact_or_none reads them in one pass without it.
_PLAIN_COMPACT = re.compile(r"(?:\s*(?:[1-9]+[mps]|[1-8]+f|[ESWNCFP]))*\s*")
_COMPACT_PART = re.compile(r"([1-9]+)([mpsf])|[ESWNCFP]")


def _plain_by_regex(text):
    if _PLAIN_COMPACT.fullmatch(text) is None:
        return None
    out = []
    for part in _COMPACT_PART.finditer(text):
        if part.group(1) is None:
            out.append(INDEX[part.group()])
        else:
            out.extend(INDEX[d + part.group(2)] for d in part.group(1))
    return out


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="0123456789mpsfESWNCFPx 东\t\n\u3000\u00a0\x1c", max_size=24))
def test_quick_compact_reader_takes_exactly_the_plain_strings(text):
    assert compact_or_none(text) == _plain_by_regex(text)


def test_quick_compact_reader_reads_a_str_subclass():
    class Text(str):
        pass

    assert compact_or_none(Text("19s 5f E")) == [18, 26, 38, 27]


def test_quick_compact_reader_takes_the_usual_strings():
    assert compact_or_none("123m 456p EE C") == [0, 1, 2, 12, 13, 14, 27, 27, 31]
    assert compact_or_none(" 19s\t5f ") == [18, 26, 38]
    for other in ("1 2 3m", "一万", "0m", "9f", "12", "x"):
        assert compact_or_none(other) is None, other


def test_every_option_is_declared_once():
    """An option is one field of rules.Options (its type, base value and description): OPTION_KINDS,
    the presets (``replace(BASE, …)``), the Rules of a request (an Options) and the request and
    answer schemas are all made from it, in its order."""
    from dataclasses import fields

    from ningbo_score import rules
    from ningbo_score.readers.request_schemas import RulesObjectSchema
    from schemas.responses import OptionsSchema, RulesEchoSchema

    declared = [f.name for f in fields(rules.Options)]
    assert declared == list(rules.OPTION_KINDS) == list(rules.OPTION_DOCS) == OPTION_KEYS
    assert issubclass(rules.Rules, rules.Options)
    assert [f.name for f in fields(rules.Rules)][:len(declared)] == declared
    for p in rules.PRESETS.values():
        assert type(p["options"]) is rules.Options
    assert rules.PRESETS["ningbo-bianfeng"]["options"] == dataclasses.replace(rules.BASE, three_caishen_bonus=True)
    request = RulesObjectSchema()
    assert list(request.fields) == ["preset", *declared, "item_tai"]
    assert list(OptionsSchema().fields) == declared
    assert list(RulesEchoSchema().fields) == ["preset", "rulebook", *declared, "item_tai"]
    # each field is the kind its annotation says, with its description
    for name, (kind, allowed) in rules.OPTION_KINDS.items():
        field = request.fields[name]
        assert field.metadata["description"] == rules.OPTION_DOCS[name]
        assert not field.required and field.allow_none
        assert (name in RulesObjectSchema.NULL_IS_VALUE) == kind.endswith("?"), name
        if allowed is not None:
            assert field.validate.choices == allowed + ((None,) if kind.endswith("?") else ()), name
    assert rules.OPTION_KINDS["caishen_rule"] == ("enum", ("indicator", "indicator_and_next"))
    assert rules.OPTION_KINDS["caishen_discard_restriction"] == ("enum?", ("single_wait", "any_group"))
    assert rules.OPTION_KINDS["min_tai"] == ("int0", None) and rules.OPTION_KINDS["hand_cap"] == ("int1?", None)
    assert rules.OPTION_KINDS["required_patterns"] == ("items", None)
    assert rules.OPTION_KINDS["liability_others_pay"] == ("bool", None)
