"""Every error code of docs/api.md raised by ``ningbo_score.score``, with its status and field path,
and the precedence of docs/rules.md §10.15 when a request has several problems.

The base request is valid: South wins 234m 678m 345p 567s 99s on W's discard of 4m (caishen
indicator 9p, no 9p in hand); each test breaks one thing.
"""
from __future__ import annotations

import copy
import re

import pytest

from helpers import T, meld

import ningbo_score
from ningbo_score import ScoreError
from ningbo_score.errors import public_code


def base(**changes) -> dict:
    req = {
        "rules": {"preset": "ningbo", "min_tai": 0},
        "seat_wind": "S",
        "round_wind": "E",
        "caishen": {"indicator": "9p"},
        "hand": {
            "concealed": T("234m 678m 345p 567s 99s"),
            "winning_tile": "4m",
            "melds": [],
            "flowers": [],
        },
        "win": {"by": "discard", "from": "W"},
    }
    for key, value in changes.items():
        req[key] = value
    return req


def with_hand(concealed: str, winning: str, melds=(), flowers=(), **changes) -> dict:
    req = base(**changes)
    req["hand"] = {"concealed": T(concealed), "winning_tile": winning, "melds": list(melds),
                   "flowers": list(flowers)}
    return req


def with_win(req: dict, **win) -> dict:
    req = copy.deepcopy(req)
    req["win"] = win
    return req


def error_of(req: dict) -> ScoreError:
    with pytest.raises(ScoreError) as info:
        ningbo_score.score(req)
    return info.value


def has_path(err: ScoreError, path: str) -> bool:
    """A problem is reported at ``path`` or below it (e.g. an array index)."""
    return any(k == path or k.startswith(path + ".") for k in err.errors())


def assert_error(req: dict, code: str, status: int, path: str | None = None) -> ScoreError:
    err = error_of(req)
    assert (err.code, err.status) == (code, status), (err.code, err.status, err.errors())
    if path is not None:
        assert has_path(err, path), err.errors()
    problem = err.to_problem()
    assert problem["code"] == code and problem["status"] == status
    assert problem["type"] == f"urn:ningbo-score:problem:{code}"
    return err


def codes(err: ScoreError) -> list[str]:
    return [public_code(p.code) for p in err.problems]


def messages(err: ScoreError) -> list[str]:
    return [m for ms in err.errors().values() for m in ms]


def test_base_request_is_valid():
    r = ningbo_score.score(base())
    assert r["eligible"] is True and r["tai"] == 2  # ping_hu 1 + no_caishen 1


def test_null_optional_fields_mean_absent():
    req = base(caishen=None, claims_from_winner=None, base_points=None)
    req["win"]["last_tile"] = None
    req["hand"]["melds"] = None
    req["hand"]["flowers"] = None
    r = ningbo_score.score(req)
    assert r["eligible"] is True
    assert "ping_hu" in {it["id"] for it in r["items"]}
    assert r["caishen"]["kinds"] == []


# --------------------------------------------------------------------------- 400 invalid_request


def test_boolean_given_as_1():
    req = base()
    req["win"]["last_tile"] = 1
    assert_error(req, "invalid_request", 400, "win.last_tile")


def test_meld_flag_given_as_1():
    req = with_hand("234m 678m 345p 99s", "4m", melds=[meld("kong", "1111s", concealed=1)])
    assert_error(req, "invalid_request", 400, "hand.melds.0.concealed")


def test_count_given_as_float():
    # a fractional count (the HTTP schema reads an integral one, 2.0, as 2: tests/library/test_rulebook2.py)
    assert_error(base(base_points=2.5), "invalid_request", 400, "base_points")
    assert_error(base(claims_from_winner={"W": 2.5}), "invalid_request", 400, "claims_from_winner.W")
    assert_error(base(rules={"preset": "ningbo", "min_tai": 4.5}), "invalid_request", 400, "rules.min_tai")


@pytest.mark.parametrize("where,path", [
    ((), "foo"),
    (("hand",), "hand.foo"),
    (("win",), "win.foo"),
    (("caishen",), "caishen.foo"),
    (("hand", "melds", 0), "hand.melds.0.foo"),
])
def test_unknown_field_at_every_level(where, path):
    req = with_hand("234m 678m 345p 99s", "4m", melds=[meld("pung", "CCC", "W")])
    node = req
    for key in where:
        node = node[key]
    node["foo"] = 1
    assert_error(req, "invalid_request", 400, path)


def test_unknown_seat_in_claims():
    assert_error(base(claims_from_winner={"X": 1}), "invalid_request", 400, "claims_from_winner.X")


@pytest.mark.parametrize("tile", ["0m", "10m", "x", "e", "1z", "", "m"])
def test_unknown_tile_code_in_concealed(tile):
    req = base()
    req["hand"]["concealed"] = req["hand"]["concealed"][:13] + [tile]
    assert_error(req, "invalid_request", 400, "hand.concealed")


@pytest.mark.parametrize("field,value,path", [
    ("winning_tile", "0m", "hand.winning_tile"),
    ("winning_tile", "e", "hand.winning_tile"),
    ("flowers", ["9f"], "hand.flowers"),
])
def test_unknown_tile_code_in_hand_fields(field, value, path):
    req = base()
    req["hand"][field] = value
    assert_error(req, "invalid_request", 400, path)


def test_unknown_tile_in_meld_and_indicator():
    req = with_hand("234m 678m 345p 99s", "4m", melds=[meld("pung", ["x", "x", "x"], "W")])
    assert_error(req, "invalid_request", 400, "hand.melds.0.tiles")
    assert_error(base(caishen={"indicator": "10m"}), "invalid_request", 400, "caishen.indicator")
    assert_error(base(caishen={"kinds": ["9p", "Z"]}), "invalid_request", 400, "caishen.kinds")


def test_lowercase_wind_is_unknown():
    # codes are case-sensitive: "e" is nothing ("s" is nothing either: 1s is bamboo, S south)
    assert_error(base(seat_wind="e"), "invalid_request", 400, "seat_wind")
    assert_error(base(round_wind="s"), "invalid_request", 400, "round_wind")


def test_bad_enum_values():
    assert_error(with_win(base(), by="tsumo", **{"from": "W"}), "invalid_request", 400, "win.by")
    assert_error(base(seat_wind="X"), "invalid_request", 400, "seat_wind")
    req = with_hand("234m 678m 345p 99s", "4m", melds=[meld("triple", "CCC", "W")])
    assert_error(req, "invalid_request", 400, "hand.melds.0.type")


def test_missing_required_fields():
    for field in ("seat_wind", "round_wind", "hand", "win"):
        req = base()
        del req[field]
        assert_error(req, "invalid_request", 400, field)
    req = base()
    del req["hand"]["winning_tile"]
    assert_error(req, "invalid_request", 400, "hand.winning_tile")
    req = base()
    del req["hand"]["concealed"]
    assert_error(req, "invalid_request", 400, "hand.concealed")
    req = base()
    del req["win"]["by"]
    assert_error(req, "invalid_request", 400, "win.by")


def test_wrong_container_types():
    assert_error(base(hand="234m"), "invalid_request", 400, "hand")
    req = base()
    req["hand"]["concealed"] = 5
    assert_error(req, "invalid_request", 400, "hand.concealed")
    req = base()
    req["hand"]["melds"] = {"type": "pung"}
    assert_error(req, "invalid_request", 400, "hand.melds")


def test_unknown_preset():
    assert_error(base(rules="foo"), "invalid_request", 400, "rules")
    assert_error(base(rules={"preset": "foo"}), "invalid_request", 400, "rules.preset")


def test_unknown_option():
    assert_error(base(rules={"preset": "ningbo", "foo": 1}), "invalid_request", 400, "rules.foo")


@pytest.mark.parametrize("option,value", [
    ("caishen_rule", "next"),
    ("white_dragon_substitutes", 1),
    ("white_dragon_substitutes", "yes"),
    ("min_tai", -1),
    ("min_tai", True),
    ("min_tai", "4"),
    ("required_patterns", ["foo"]),
    ("required_patterns", "all_pungs"),
    ("discard_wins", 0),
    ("caishen_discard_restriction", "pair"),
    ("robbing_needs_no_caishen_discarded", "no"),
    ("points", "exponential"),
    ("chi_counts_for_liability", 1),
    ("related_discarder", "double"),
    ("kong_bloom_others_pay", "true"),
    ("liability_others_pay", "true"),
    ("liability_others_pay", 1),
    ("liability_cap", 0),
    ("liability_cap", 2.5),
    ("hand_cap", 0),
    ("hand_cap", -5),
])
def test_bad_option_value(option, value):
    assert_error(base(rules={"preset": "ningbo", option: value}), "invalid_request", 400,
                 f"rules.{option}")


def test_unknown_item_in_item_tai():
    assert_error(base(rules={"preset": "ningbo", "item_tai": {"foo": 1}}), "invalid_request", 400,
                 "rules.item_tai")


def test_bad_base_points():
    assert_error(base(base_points=-1), "invalid_request", 400, "base_points")
    assert_error(base(base_points=0), "invalid_request", 400, "base_points")
    assert_error(base(base_points=True), "invalid_request", 400, "base_points")
    assert_error(base(base_points="1"), "invalid_request", 400, "base_points")


def test_caishen_needs_exactly_one_of_indicator_and_kinds():
    assert_error(base(caishen={"indicator": "9p", "kinds": ["9p"]}), "invalid_request", 400, "caishen")
    assert_error(base(caishen={}), "invalid_request", 400, "caishen")


# --------------------------------------------------------------------------- 422 too_many_copies


def test_five_copies_in_concealed_message():
    # 111m + 11m + three chows: a winning shape, but five 1m
    err = assert_error(with_hand("111m 11m 234p 567p 789s", "2p"), "too_many_copies", 422,
                       "hand.concealed")
    assert err.errors() == {"hand.concealed": ["5 copies of 1m; at most 4 exist"]}
    assert err.detail() == "hand.concealed: 5 copies of 1m; at most 4 exist"
    zh = err.to_problem("zh")
    assert zh["title"] == "牌张数超出"
    assert zh["code"] == "too_many_copies" and zh["status"] == 422
    assert re.search(r"[\u4e00-\u9fff]", zh["detail"]), zh
    assert "1m" in zh["detail"] and "5" in zh["detail"]
    assert list(zh["errors"]) == ["hand.concealed"]
    assert re.search(r"[\u4e00-\u9fff]", zh["errors"]["hand.concealed"][0])
    en = err.to_problem("en")
    assert en["title"] == "Too many copies"
    assert en["detail"] == "hand.concealed: 5 copies of 1m; at most 4 exist"


def test_five_copies_across_concealed_and_melds():
    # pung 1m1m1m from W + 11m pair in hand
    req = with_hand("11m 234p 567p 789s", "2p", melds=[meld("pung", "111m", "W")])
    err = assert_error(req, "too_many_copies", 422)
    msg = " ".join(messages(err))
    assert "1m" in msg and "5" in msg


def test_indicator_counts_as_a_copy():
    # four 1m in hand (111m + 123m) and the indicator 1m: five
    hand = "1111m 23m 234p 567p 99s"
    ok = ningbo_score.score(with_hand(hand, "2p", caishen={"indicator": "5m"}))
    assert ok["eligible"] is True
    err = assert_error(with_hand(hand, "2p", caishen={"indicator": "1m"}), "too_many_copies", 422)
    assert "1m" in " ".join(messages(err))
    # kinds given directly put nothing out of play: four 1m are fine
    ningbo_score.score(with_hand(hand, "2p", caishen={"kinds": ["1m"]}))


def test_flower_twice():
    assert_error(base(hand={"concealed": T("234m 678m 345p 567s 99s"), "winning_tile": "4m",
                            "flowers": ["2f", "2f"]}), "too_many_copies", 422)


def test_indicator_flower_in_flowers():
    # the indicator 2f is out of play: 2f set aside as well is a second copy
    req = base(caishen={"indicator": "2f"})
    req["hand"]["flowers"] = ["2f"]
    assert_error(req, "too_many_copies", 422)


# --------------------------------------------------------------------------- 422 wrong_tile_count


@pytest.mark.parametrize("concealed,melds", [
    ("234m 678m 345p 567s 9s", 0),          # 13 tiles, no meld
    ("234m 678m 345p 567s 99s 1m", 0),      # 15 tiles
    ("234m 678m 345p 567s 99s", 1),         # 14 with one meld (needs 11)
    ("234m 678m 345p 9s", 1),               # 10 with one meld
])
def test_wrong_tile_count(concealed, melds):
    req = with_hand(concealed, "4m", melds=[meld("pung", "CCC", "W")] * melds)
    assert_error(req, "wrong_tile_count", 422, "hand")


def test_five_melds_is_wrong_tile_count():
    melds = [meld("pung", "CCC", "W"), meld("pung", "FFF", "W"), meld("pung", "PPP", "W"),
             meld("pung", "NNN", "W"), meld("pung", "111s", "W")]
    assert_error(with_hand("99s", "9s", melds=melds), "wrong_tile_count", 422, "hand")


# --------------------------------------------------------------------------- 422 invalid_meld


@pytest.mark.parametrize("bad", [
    meld("chow", "124m", "E"),                       # not consecutive
    meld("chow", ["1m", "2p", "3s"], "E"),           # across suits
    meld("chow", "ESW", "E"),                        # honors
    meld("chow", "123m", "W"),                       # W is not South's 上家 (E is)
    meld("chow", "123m", "N"),
    meld("pung", "112m", "W"),                       # different tiles
    meld("pung", "11m", "W"),                        # two tiles
    meld("kong", "111m", "W"),                       # a kong of 3
    meld("kong", "1111m", "W", concealed=True),      # from on a concealed kong
    meld("pung", "111m", "W", concealed=True),       # concealed on a pung
    meld("pung", "111m", "W", added=True),           # added on a pung
    meld("chow", "123m", "E", concealed=True),       # concealed on a chow
    meld("kong", "1111m", concealed=True, added=True),       # both
    meld("kong", "1111m", "W", concealed=True, added=True),  # both, with from
    meld("pung", "111m", "S"),                       # from = own seat
    meld("kong", "1111m", "S"),
    meld("pung", "111m"),                            # missing from on a pung
    meld("chow", "123m"),                            # missing from on a chow
    meld("kong", "1111m"),                           # missing from on an exposed kong
    meld("kong", "1111m", added=True),               # missing from on an added kong
    meld("chow", "123f", "E"),                       # flowers in a meld (§10.12)
    meld("pung", "111f", "W"),
])
def test_invalid_meld(bad):
    req = with_hand("678m 345p 567s 99s", "6m", melds=[bad])
    assert_error(req, "invalid_meld", 422, "hand.melds.0")


def test_valid_melds_for_contrast():
    # chow from the 上家 in any order, pung, exposed/concealed/added kongs are all fine
    for good in (meld("chow", "312m", "E"), meld("pung", "111m", "W"), meld("kong", "1111m", "N"),
                 meld("kong", "1111m", concealed=True), meld("kong", "1111m", "W", added=True)):
        r = ningbo_score.score(with_hand("678m 345p 567s 99s", "6m", melds=[good]))
        assert r["tai"] >= 0


# --------------------------------------------------------------------------- 422 caishen_in_meld


def test_caishen_in_meld():
    req = with_hand("678m 345p 567s 99s", "6m", melds=[meld("pung", "9p9p9p", "W")])
    assert_error(req, "caishen_in_meld", 422, "hand.melds.0")
    req = with_hand("678m 345p 567s 99s", "6m", melds=[meld("chow", "456m", "E")],
                    caishen={"indicator": "4m"})  # the 4m in 4-5-6m is a caishen
    assert_error(req, "caishen_in_meld", 422, "hand.melds.0")
    req = with_hand("678m 345p 567s 99s", "6m", melds=[meld("pung", "CCC", "W")],
                    caishen={"kinds": ["C"]})
    assert_error(req, "caishen_in_meld", 422, "hand.melds.0")


# --------------------------------------------------------------------------- 422 winning tile


def test_winning_tile_not_in_hand():
    req = base()
    req["hand"]["winning_tile"] = "1s"
    assert_error(req, "winning_tile_not_in_hand", 422, "hand.winning_tile")


def test_winning_tile_in_meld_only_is_not_in_hand():
    req = with_hand("678m 345p 567s 99s", "C", melds=[meld("pung", "CCC", "W")])
    assert_error(req, "winning_tile_not_in_hand", 422, "hand.winning_tile")


# --------------------------------------------------------------------------- 422 inconsistent_win_context

KONG_HAND = "234m 678m 345p 99s"  # 11 tiles: plus one meld


@pytest.mark.parametrize("name,req", [
    ("kong_replacement on a discard",
     with_win(with_hand(KONG_HAND, "4m", melds=[meld("kong", "1111s", concealed=True)]),
              by="discard", **{"from": "W"}, kong_replacement=True)),
    ("kong_replacement when robbing",
     with_win(with_hand(KONG_HAND, "4m", melds=[meld("kong", "1111s", concealed=True)]),
              by="robbing_kong", **{"from": "W"}, kong_replacement=True)),
    ("kong_replacement without kong or flower",
     with_win(base(), by="self_draw", kong_replacement=True)),
    ("kong_replacement with only a pung",
     with_win(with_hand(KONG_HAND, "4m", melds=[meld("pung", "111s", "W")]),
              by="self_draw", kong_replacement=True)),
    ("kong_fed_by without kong_replacement",
     with_win(with_hand(KONG_HAND, "4m", melds=[meld("kong", "1111s", "W")]),
              by="self_draw", kong_fed_by="W")),
    ("kong_fed_by without any kong",
     with_win(base(hand={"concealed": T("234m 678m 345p 567s 99s"), "winning_tile": "4m",
                         "flowers": ["1f"]}), by="self_draw", kong_replacement=True, kong_fed_by="W")),
    ("kong_fed_by with a concealed kong",
     with_win(with_hand(KONG_HAND, "4m", melds=[meld("kong", "1111s", concealed=True)]),
              by="self_draw", kong_replacement=True, kong_fed_by="W")),
    ("kong_fed_by with an added kong",
     with_win(with_hand(KONG_HAND, "4m", melds=[meld("kong", "1111s", "W", added=True)]),
              by="self_draw", kong_replacement=True, kong_fed_by="W")),
    ("kong_fed_by another seat",
     with_win(with_hand(KONG_HAND, "4m", melds=[meld("kong", "1111s", "N")]),
              by="self_draw", kong_replacement=True, kong_fed_by="W")),
    ("kong_fed_by the winner",
     with_win(with_hand(KONG_HAND, "4m", melds=[meld("kong", "1111s", "W")]),
              by="self_draw", kong_replacement=True, kong_fed_by="S")),
    ("last_tile on a discard", with_win(base(), by="discard", **{"from": "W"}, last_tile=True)),
    ("last_tile when robbing", with_win(base(), by="robbing_kong", **{"from": "W"}, last_tile=True)),
    ("heavenly not East", with_win(base(), by="self_draw", heavenly=True)),
    ("heavenly on a discard", with_win(base(seat_wind="E"), by="discard", **{"from": "S"}, heavenly=True)),
    ("heavenly with melds",
     with_win(with_hand(KONG_HAND, "4m", melds=[meld("kong", "1111s", concealed=True)], seat_wind="E"),
              by="self_draw", heavenly=True)),
    ("earthly for East", with_win(base(seat_wind="E"), by="discard", **{"from": "S"}, earthly=True)),
    ("earthly not from East", with_win(base(), by="discard", **{"from": "W"}, earthly=True)),
    ("earthly self-drawn", with_win(base(), by="self_draw", earthly=True)),
    ("earthly with melds",
     with_win(with_hand(KONG_HAND, "4m", melds=[meld("pung", "111s", "E")]),
              by="discard", **{"from": "E"}, earthly=True)),
    ("discard without from", with_win(base(), by="discard")),
    ("robbing without from", with_win(base(), by="robbing_kong")),
    ("discard from own seat", with_win(base(), by="discard", **{"from": "S"})),
    ("robbing from own seat", with_win(base(), by="robbing_kong", **{"from": "S"})),
])
def test_inconsistent_win_context(name, req):
    assert_error(req, "inconsistent_win_context", 422, "win")


def test_robbing_with_two_copies_is_inconsistent():
    # §10.9: the robbed player held three 4m, the winner may hold only the robbed one.  The problem
    # is about the copies of the winning tile: reported at the hand or at the win.
    req = with_win(with_hand("234m 678m 345p 567s 44m", "4m"), by="robbing_kong", **{"from": "W"})
    err = assert_error(req, "inconsistent_win_context", 422)
    assert has_path(err, "win") or has_path(err, "hand.winning_tile") or has_path(err, "hand.concealed")
    assert "4m" in " ".join(messages(err))


def test_consistent_win_contexts_for_contrast():
    ok = [
        with_win(with_hand(KONG_HAND, "4m", melds=[meld("kong", "1111s", concealed=True)]),
                 by="self_draw", kong_replacement=True),
        with_win(with_hand(KONG_HAND, "4m", melds=[meld("kong", "1111s", "W")]),
                 by="self_draw", kong_replacement=True, kong_fed_by="W"),
        with_win(base(hand={"concealed": T("234m 678m 345p 567s 99s"), "winning_tile": "4m",
                            "flowers": ["1f"]}), by="self_draw", kong_replacement=True),
        with_win(base(), by="self_draw", last_tile=True),
        with_win(base(seat_wind="E"), by="self_draw", heavenly=True),
        with_win(base(), by="discard", **{"from": "E"}, earthly=True),
        with_win(base(), by="robbing_kong", **{"from": "N"}),
        with_win(base(), by="discard", **{"from": "W"}, discarded_caishen=True),
    ]
    for req in ok:
        assert ningbo_score.score(req)["eligible"] is True


# --------------------------------------------------------------------------- 422 invalid_request


def test_non_flower_in_flowers():
    req = base()
    req["hand"]["flowers"] = ["1m"]
    assert_error(req, "invalid_request", 422, "hand.flowers")


def test_caishen_flower_in_flowers():
    # indicator 1f: 2f 3f 4f are caishen, no longer flowers
    req = base(caishen={"indicator": "1f"})
    req["hand"]["flowers"] = ["2f"]
    assert_error(req, "invalid_request", 422, "hand.flowers")


def test_plain_flower_among_concealed():
    req = with_hand("234m 678m 345p 567s 9s 2f", "4m")
    assert_error(req, "invalid_request", 422, "hand.concealed")


def test_caishen_flower_among_concealed_is_fine():
    # contrast: with indicator 1f, 2f in the hand is a wildcard
    r = ningbo_score.score(with_hand("234m 678m 345p 567s 9s 2f", "4m", caishen={"indicator": "1f"}))
    assert r["eligible"] is True


def test_claims_naming_the_winner():
    assert_error(base(claims_from_winner={"S": 1}), "invalid_request", 422, "claims_from_winner")
    assert_error(base(claims_from_winner={"S": 0, "W": 1}), "invalid_request", 422, "claims_from_winner")


# --------------------------------------------------------------------------- 422 discard_win_not_allowed


def test_discard_win_not_allowed_in_7baida():
    req = base(rules="ningbo-7baida")
    assert_error(req, "discard_win_not_allowed", 422)


def test_discard_win_not_allowed_by_option():
    assert_error(base(rules={"preset": "ningbo", "discard_wins": False}), "discard_win_not_allowed", 422)


def test_robbing_after_discarding_caishen_in_7baida():
    req = with_win(base(rules="ningbo-7baida"), by="robbing_kong", **{"from": "W"},
                   discarded_caishen=True)
    assert_error(req, "discard_win_not_allowed", 422)
    # contrast: robbing without having discarded a caishen is allowed in 7baida
    req = with_win(base(rules={"preset": "ningbo-7baida", "min_tai": 0}), by="robbing_kong",
                   **{"from": "W"})
    assert ningbo_score.score(req)["eligible"] is True


# --------------------------------------------------------------------------- 422 caishen_needs_self_draw


def test_caishen_winning_tile_on_discard():
    req = with_hand("234m 678m 345p 567s 9s 9p", "9p")
    assert_error(req, "caishen_needs_self_draw", 422, "hand.winning_tile")


def test_caishen_winning_tile_when_robbing():
    req = with_win(with_hand("234m 678m 345p 567s 9s 9p", "9p"), by="robbing_kong", **{"from": "W"})
    assert_error(req, "caishen_needs_self_draw", 422)


def test_caishen_winning_tile_self_drawn_is_fine():
    req = with_win(with_hand("234m 678m 345p 567s 9s 9p", "9p"), by="self_draw")
    assert ningbo_score.score(req)["eligible"] is True


def test_restriction_leaves_nothing():
    # 9s can only pair with the 9p caishen: single_wait restriction forbids it on a discard
    assert_error(with_hand("234m 678m 345p 456s 9s 9p", "9s"), "caishen_needs_self_draw", 422)
    # any_group: 4s 9p 6s -> 456s holds the caishen and is 4s's only group
    rules = {"preset": "ningbo", "min_tai": 0, "caishen_discard_restriction": "any_group"}
    assert_error(with_hand("234m 678m 345p 4s 6s 99s 9p", "4s", rules=rules),
                 "caishen_needs_self_draw", 422)


# --------------------------------------------------------------------------- 422 not_a_winning_hand


def test_not_a_winning_hand():
    assert_error(with_hand("234m 678m 345p 567s 19s", "1s"), "not_a_winning_hand", 422)


def test_not_a_winning_hand_no_special_shapes():
    # seven pairs is no shape in any source
    assert_error(with_hand("11m 22m 55p 66p 99s EE CC", "C"), "not_a_winning_hand", 422)


def test_not_a_winning_hand_even_with_a_caishen():
    # 5s 7s 1s 9s + one caishen: at most 5-6-7s, then 1s and 9s don't pair
    assert_error(with_hand("234m 678m 345p 5s 7s 1s 9s 9p", "1s"), "not_a_winning_hand", 422)


# --------------------------------------------------------------------------- §10.15 several problems


def test_several_400_problems_all_listed():
    req = base(foo=1)
    req["hand"]["concealed"] = req["hand"]["concealed"][:13] + ["0m"]
    err = assert_error(req, "invalid_request", 400)
    assert has_path(err, "foo") and has_path(err, "hand.concealed")


def test_400_comes_before_422():
    req = with_hand("111m 11m 234p 567p 789s", "2p", base_points=-1)
    assert_error(req, "invalid_request", 400, "base_points")


def test_caishen_in_meld_before_invalid_meld():
    melds = [meld("pung", "9p9p9p", "W"), meld("pung", "112m", "W")]
    err = assert_error(with_hand("345p 567s 99s", "3p", melds=melds), "caishen_in_meld", 422)
    assert has_path(err, "hand.melds.0") and has_path(err, "hand.melds.1")
    assert {"caishen_in_meld", "invalid_meld"} <= set(codes(err))


def test_invalid_meld_before_flowers():
    req = with_hand("678m 345p 567s 99s", "6m", melds=[meld("chow", "123m", "W")], flowers=["1m"])
    err = assert_error(req, "invalid_meld", 422)
    assert has_path(err, "hand.melds.0") and has_path(err, "hand.flowers")
    assert codes(err)[:2] == ["invalid_meld", "invalid_request"]


def test_flowers_before_wrong_tile_count():
    req = with_hand("234m 678m 345p 567s 9s", "4m", flowers=["1m"])
    err = assert_error(req, "invalid_request", 422, "hand.flowers")
    assert codes(err)[:2] == ["invalid_request", "wrong_tile_count"]


def test_wrong_tile_count_before_too_many_copies():
    req = with_hand("11111m 234p 567p 99s", "2p")  # 15 tiles, five 1m
    err = assert_error(req, "wrong_tile_count", 422)
    assert codes(err)[:2] == ["wrong_tile_count", "too_many_copies"]
    assert len(messages(err)) >= 2


def test_too_many_copies_before_winning_tile_not_in_hand():
    req = with_hand("111m 11m 234p 567p 789s", "5s")
    err = assert_error(req, "too_many_copies", 422, "hand.concealed")
    assert has_path(err, "hand.winning_tile")
    assert codes(err)[:2] == ["too_many_copies", "winning_tile_not_in_hand"]


def test_winning_tile_not_in_hand_before_claims():
    req = base(claims_from_winner={"S": 1})
    req["hand"]["winning_tile"] = "1s"
    err = assert_error(req, "winning_tile_not_in_hand", 422, "hand.winning_tile")
    assert has_path(err, "claims_from_winner")
    assert codes(err)[:2] == ["winning_tile_not_in_hand", "invalid_request"]


def test_claims_before_inconsistent_win_context():
    req = with_win(base(claims_from_winner={"S": 1}), by="discard", **{"from": "W"}, last_tile=True)
    err = assert_error(req, "invalid_request", 422, "claims_from_winner")
    assert has_path(err, "win")
    assert codes(err)[:2] == ["invalid_request", "inconsistent_win_context"]


def test_inconsistent_before_discard_win_not_allowed():
    req = with_win(base(rules="ningbo-7baida"), by="discard", **{"from": "W"}, last_tile=True)
    err = assert_error(req, "inconsistent_win_context", 422, "win")
    assert codes(err)[:2] == ["inconsistent_win_context", "discard_win_not_allowed"]


def test_discard_win_not_allowed_before_caishen_winning_tile():
    # 7baida, indicator 9p: 9p and 1p are caishen; a 9p won on a discard
    req = with_hand("234m 678m 345p 567s 9s 9p", "9p", rules="ningbo-7baida")
    err = assert_error(req, "discard_win_not_allowed", 422)
    assert codes(err)[:2] == ["discard_win_not_allowed", "caishen_needs_self_draw"]
    assert len(messages(err)) >= 2


def test_caishen_winning_tile_before_not_a_winning_hand():
    req = with_hand("234m 678m 345p 5s 7s 1s 9s 9p", "9p")
    err = assert_error(req, "caishen_needs_self_draw", 422)
    assert codes(err)[:2] == ["caishen_needs_self_draw", "not_a_winning_hand"]
    assert len(messages(err)) >= 2


def test_all_problems_in_detail_count():
    req = with_hand("111m 11m 234p 567p 789s", "5s")
    err = error_of(req)
    assert err.detail().startswith("hand.concealed: 5 copies of 1m; at most 4 exist")
    assert re.search(r"\(and \d+ more problems?\)$", err.detail())
