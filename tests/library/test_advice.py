"""Discard advice by value (``POST /v1/analyze`` with ``objective: value``, docs/api.md "Advice by
value"): the closed form at one draw worked by hand, an exhaustive enumeration written apart
from the solver (every sequence of draws, every allowed discard, in exact fractions, with the
shanten of tests/library/test_shanten.py's target oracle and the points of ``ningbo_score.score``), the
ranking, and the request's new fields.

Reminders (docs/rules.md): ningbo: min 4 台; linear points P = base × (1 + 台); unseen of a kind
= 4 − its copies in the hand, the melds, the indicator and ``visible`` (docs/api.md); without a
caishen flower the draws are the 34 kinds, U = 136 − the tiles seen.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import pytest

import handgen  # noqa: E402
from test_shanten import target_shanten  # noqa: E402

import ningbo_score  # noqa: E402
from ningbo_score import ScoreError, analyze  # noqa: E402

KINDS = handgen.KINDS
INDEX = {k: i for i, k in enumerate(KINDS)}
CLOSE = dict(rel=1e-12, abs=1e-12)


def body(seat, rnd, concealed, **extra) -> dict:
    out = {"seat_wind": seat, "round_wind": rnd, "hand": {"concealed": concealed}, "objective": "value"}
    for key in ("melds",):
        if key in extra:
            out["hand"][key] = extra.pop(key)
    out.update(extra)
    return out


# --------------------------------------------------------------------------- the closed form

def test_tenpai_one_draw_is_the_closed_form():
    # E (dealer), round E: EEE 234m 678p 55s 45s, no caishen.  Waits (docs/rules.md §3-5):
    #   3s: 345s + 55s pair, two-sided: 排胡 0 + 自摸 1 + 硬胡 1 + seat wind pung E 1 + round wind
    #       pung E 1 = 4 台 ≥ 4: eligible, P = 1 × (1 + 4) = 5;
    #   6s: 456s + 55s, the same 4 台: P = 5;
    #   4s: 555s + 44s pair (single wait 1): 5 台, P = 6.
    # Unseen: 3s 4, 6s 4, 4s 4 − 1 held = 3; U = 136 − 13 = 123.
    # V_1 = (4 × 5 + 4 × 5 + 3 × 6) / 123 = 58/123; win probability (4 + 4 + 3)/123 = 11/123.
    res = analyze(body("E", "E", "EEE 234m 678p 55s 45s", draws_left=1))
    assert res["expected_points"] == pytest.approx(58 / 123, **CLOSE)
    assert res["win_probability"] == pytest.approx(11 / 123, **CLOSE)
    assert res["draws_left"] == 1


def test_tenpai_one_draw_discard_entry_counts_its_tile_as_seen():
    # The same hand having drawn 9m: discarding 9m leaves it; in the entry the 9m counts as
    # seen, so U = 136 − 14 = 122: V_1 = 58/122, P = 11/122.
    # Discarding 4s leaves EEE 234m 678p 555s 9m, a single wait on 9m: single wait 1 + 自摸 1 +
    # 硬胡 1 + E seat 1 + E round 1 = 5 台, P = 6; 9m unseen 4 − 1 = 3: V_1 = 18/122, P = 3/122.
    # Every other discard breaks a set or the pair and leaves no tenpai: one draw wins nothing.
    res = analyze(body("E", "E", "EEE 234m 678p 55s 45s 9m", draws_left=1))
    first, second = res["discards"][:2]
    assert first["discard"] == "9m"
    assert first["expected_points"] == pytest.approx(58 / 122, **CLOSE)
    assert first["win_probability"] == pytest.approx(11 / 122, **CLOSE)
    assert second["discard"] == "4s"
    assert second["expected_points"] == pytest.approx(18 / 122, **CLOSE)
    assert second["win_probability"] == pytest.approx(3 / 122, **CLOSE)
    assert all(e["expected_points"] == 0 and e["win_probability"] == 0 for e in res["discards"][2:])


def test_a_tenpai_below_the_minimum_is_worth_nothing_with_one_draw():
    # S, round E: 123m 456p 789s EE 35m waits on 4m only: closed wait 1 + 自摸 1 + 硬胡 1 = 3 台
    # < 4: not eligible, so one draw wins nothing.
    res = analyze(body("S", "E", "123m 456p 789s EE 35m", draws_left=1))
    assert res["shanten"] == 0
    assert res["expected_points"] == 0 and res["win_probability"] == 0


# --------------------------------------------------------------------------- the enumeration

def unseen_counts(request: dict) -> dict[str, int]:
    """4 − copies held, melded or visible (these requests have no flowers and no indicator)."""
    seen = {k: 0 for k in KINDS}
    tiles = list(request["hand"]["concealed"]) + list(request.get("visible", []))
    for m in request["hand"].get("melds", []):
        tiles += list(m["tiles"])
    for t in tiles:
        seen[t] += 1
    return {k: 4 - n for k, n in seen.items() if 4 - n > 0}


class Enumeration:
    """The model of docs/api.md written out as a game tree, without the solver: each draw, each
    allowed discard, every sequence to the end, in exact fractions."""

    def __init__(self, request: dict):
        self.request = request
        self.melds = len(request["hand"].get("melds", []))
        self.caishen = set((request.get("caishen") or {}).get("kinds", []))
        u = unseen_counts(request)
        total = sum(u.values())
        self.draws = [(k, Fraction(n, total)) for k, n in u.items()]
        self.score = lru_cache(maxsize=None)(self._score)
        self.shanten = lru_cache(maxsize=None)(self._shanten)

    def _shanten(self, tiles: tuple[str, ...]) -> int:
        counts = [0] * 34
        caishen = 0
        for t in tiles:
            if t in self.caishen:
                caishen += 1
            else:
                counts[INDEX[t]] += 1
        return target_shanten(counts, caishen, self.melds)

    def _score(self, tiles: tuple[str, ...], drawn: str) -> int:
        req = {k: v for k, v in self.request.items() if k not in ("objective", "draws_left", "visible")}
        req["hand"] = {**req["hand"], "concealed": list(tiles) + [drawn], "winning_tile": drawn}
        req["win"] = {"by": "self_draw"}
        try:
            answer = ningbo_score.score(req)
        except ScoreError:
            return 0
        return answer["points"] if answer["eligible"] else 0

    def value(self, tiles: tuple[str, ...], d: int, swaps: int = 1) -> tuple[Fraction, Fraction]:
        """(expected points, chance to win) of ``tiles`` with ``d`` draws to come and ``swaps``
        sideways swaps allowed (docs/api.md: one along a line of play)."""
        if d == 0:
            return Fraction(0), Fraction(0)
        ev = win = Fraction(0)
        now = self.shanten(tiles)
        for k, p in self.draws:
            points = self.score(tiles, k)
            if points:
                ev += p * points
                win += p
                continue
            drawn = list(tiles) + [k]
            after = []
            for x in sorted(set(drawn)):
                rest = list(drawn)
                rest.remove(x)
                after.append((x, self.shanten(tuple(sorted(rest))), tuple(sorted(rest))))
            least = min(s for _, s, _ in after)
            if least < now:         # a step forward: any discard that reaches it, no swap spent
                options = [self.value(rest, d - 1, swaps) for _, s, rest in after if s == least]
            else:                   # keep the hand (the drawn tile goes), or swap while one is left
                options = [self.value(tiles, d - 1, swaps)]
                if swaps:
                    options += [self.value(rest, d - 1, swaps - 1) for x, s, rest in after
                                if s == least and x != k]
            best = max(options)
            ev += p * best[0]
            win += p * best[1]
        return ev, win


def visible_but(drawable: dict[str, int], request: dict) -> list[str]:
    """``visible`` tiles that leave exactly ``drawable`` copies unseen of those kinds and none of
    any other."""
    seen = {k: 0 for k in KINDS}
    tiles = list(request["hand"]["concealed"])
    for m in request["hand"].get("melds", []):
        tiles += list(m["tiles"])
    for t in tiles:
        seen[t] += 1
    out = []
    for k in KINDS:
        out += [k] * (4 - seen[k] - drawable.get(k, 0))
    return out


MELDS = [{"type": "pung", "tiles": ["C", "C", "C"], "from": "E"},
         {"type": "pung", "tiles": ["F", "F", "F"], "from": "W"},
         {"type": "pung", "tiles": ["S", "S", "S"], "from": "N"}]
SMALL = [
    # 3 melds (dragon pungs and the seat wind S: 3 台 before the concealed part), 4 concealed
    # tiles one from tenpai, six kinds left to draw: flush, all pungs and the waits change the
    # 台, so the discards differ in value
    ("S", "E", ["2m", "3m", "5p", "7p"], MELDS, None, {"1m": 2, "4m": 3, "2m": 1, "6p": 2, "5p": 1, "9s": 2}),
    # the same with a caishen kind (9s: drawn, it stands for any tile)
    ("S", "E", ["2m", "3m", "5p", "9s"], MELDS, ["9s"], {"1m": 2, "4m": 1, "3m": 2, "6p": 2, "9s": 2}),
    # 4 melds, one tile: a single wait, sideways moves on every draw
    ("S", "E", ["4m"], MELDS + [{"type": "chow", "tiles": ["1p", "2p", "3p"], "from": "E"}], None,
     {"4m": 2, "1m": 3, "9p": 2, "E": 3, "W": 1}),
]


def small_request(seat, rnd, concealed, melds, caishen, drawable, draws) -> dict:
    request = body(seat, rnd, concealed, melds=melds, draws_left=draws)
    if caishen:
        request["caishen"] = {"kinds": caishen}
    request["visible"] = visible_but(drawable, request)
    assert unseen_counts(request) == drawable
    return request


@pytest.mark.parametrize("draws", [2, 3, 4])
@pytest.mark.parametrize("seat, rnd, concealed, melds, caishen, drawable", SMALL)
def test_small_hands_equal_the_exhaustive_enumeration(seat, rnd, concealed, melds, caishen, drawable, draws):
    request = small_request(seat, rnd, concealed, melds, caishen, drawable, draws)
    oracle = Enumeration(request)
    ev, win = oracle.value(tuple(sorted(concealed)), draws)
    res = analyze(request)
    assert res["expected_points"] == pytest.approx(float(ev), **CLOSE)
    assert res["win_probability"] == pytest.approx(float(win), **CLOSE)


@pytest.mark.parametrize("seat, rnd, concealed, melds, caishen, drawable", SMALL[1:])
def test_one_sideways_swap_is_the_bound(seat, rnd, concealed, melds, caishen, drawable):
    # With 3 draws a second swap could come before the last draw: these hands would be worth
    # more with it, and less with none, so the answer is the model's one swap and no other.
    # With 2 draws a second swap would come after the last draw: one swap or many are the same.
    request = small_request(seat, rnd, concealed, melds, caishen, drawable, 3)
    oracle = Enumeration(request)
    tiles = tuple(sorted(concealed))
    none, one, many = (oracle.value(tiles, 3, swaps)[0] for swaps in (0, 1, 5))
    assert none < one < many
    assert analyze(request)["expected_points"] == pytest.approx(float(one), **CLOSE)
    assert oracle.value(tiles, 2, 1) == oracle.value(tiles, 2, 5)


@pytest.mark.parametrize("seat, rnd, concealed, melds, caishen, drawable", SMALL[:2])
def test_small_hands_each_discard_equals_the_enumeration_and_the_best_is_first(seat, rnd, concealed, melds,
                                                                                caishen, drawable):
    drawn = concealed + ["4m"]
    request = body(seat, rnd, drawn, melds=melds, draws_left=2)
    if caishen:
        request["caishen"] = {"kinds": caishen}
    request["visible"] = visible_but(drawable, {"hand": {"concealed": concealed, "melds": melds}})
    request["visible"].remove("4m")         # the drawn 4m is in the hand now
    res = analyze(request)
    # the discarded tile counts as seen in its entry: the 14 tiles' unseen counts
    oracle = Enumeration(request)
    best = max(e["expected_points"] for e in res["discards"])
    assert res["discards"][0]["expected_points"] >= best - 1e-12
    for e in res["discards"]:
        rest = list(drawn)
        rest.remove(e["discard"])
        ev, win = oracle.value(tuple(sorted(rest)), 2)
        assert e["expected_points"] == pytest.approx(float(ev), **CLOSE), e["discard"]
        assert e["win_probability"] == pytest.approx(float(win), **CLOSE), e["discard"]
    keys = [(-e["expected_points"], -e["win_probability"]) for e in res["discards"]]
    assert keys == sorted(keys)


# --------------------------------------------------------------------------- the request's fields

@pytest.mark.parametrize("field, bad, en, zh", [
    ("objective", "ev", "Must be one of: ukeire, value.", "必须是以下之一：ukeire, value。"),
    ("draws_left", 0, "Must be from 1 to 20.", "必须在 1 到 20 之间。"),
    ("draws_left", 21, "Must be from 1 to 20.", "必须在 1 到 20 之间。"),
    ("live_tiles", -1, "Must be from 0 to 92.", "必须在 0 到 92 之间。"),
    ("live_tiles", 93, "Must be from 0 to 92.", "必须在 0 到 92 之间。"),
])
def test_bad_value_fields_are_400_with_the_field_and_the_reason(client, field, bad, en, zh):
    sent = body("E", "E", "EEE 234m 678p 55s 45s", **{field: bad})
    got = client.post("/v1/analyze", json=sent)
    assert got.status_code == 400 and got.get_json()["errors"] == {field: [en]}
    got = client.post("/v1/analyze", json=sent, headers={"Accept-Language": "zh"})
    assert got.status_code == 400 and got.get_json()["errors"] == {field: [zh]}
    with pytest.raises(ScoreError) as err:
        analyze(sent)
    assert err.value.code == "invalid_request" and err.value.path == field


@pytest.mark.parametrize("extra, draws", [
    ({}, 8),                                   # no live_tiles: 8
    ({"live_tiles": 1}, 1),                    # ⌈1 ÷ 4⌉ = 1
    ({"live_tiles": 0}, 1),                    # ⌈0 ÷ 4⌉ = 0, at least 1 draw
    ({"live_tiles": 13}, 4),                   # ⌈13 ÷ 4⌉ = 4
    ({"live_tiles": 92}, 20),                  # ⌈92 ÷ 4⌉ = 23, at most 20
    ({"live_tiles": 92, "draws_left": 2}, 2),  # given: as given
])
def test_draws_left_default(extra, draws):
    from ningbo_score.readers.fields import load
    from ningbo_score.readers.request_schemas import ANALYZE_REQUEST
    loaded = load(ANALYZE_REQUEST, body("E", "E", "EEE 234m 678p 55s 45s", **extra))
    assert loaded.draws_left == draws and loaded.objective == "value"


def test_ukeire_is_the_default_and_has_no_values(client):
    sent = body("E", "E", "EEE 234m 678p 55s 45s 9m")
    del sent["objective"]
    plain = analyze(sent)
    assert "draws_left" not in plain and all("expected_points" not in e for e in plain["discards"])
    by_value = analyze({**sent, "objective": "value", "draws_left": 1})
    # the same entries, values added
    strip = [{k: v for k, v in e.items() if k not in ("expected_points", "win_probability")}
             for e in by_value["discards"]]
    assert sorted(strip, key=lambda e: e["discard"]) == sorted(plain["discards"], key=lambda e: e["discard"])
    got = client.post("/v1/analyze", json={**sent, "objective": "value", "draws_left": 1})
    assert got.status_code == 200 and got.get_json() == by_value


def test_past_the_bound_the_values_are_null_with_a_note(client, monkeypatch):
    # a 1-shanten hand of 13 concealed tiles reaches thousands of hands over 8 draws; with the
    # bound lowered to 50 hands its values are not computed, and the note says so in each language
    from ningbo_score import advice
    monkeypatch.setattr(advice, "MAX_STATES", 50)
    sent = body("S", "E", "123m 456p 789s EE 3m 5m 9p", draws_left=8)
    got = client.post("/v1/analyze", json=sent)
    assert got.status_code == 200
    answer = got.get_json()
    assert all(e["expected_points"] is None and e["win_probability"] is None for e in answer["discards"])
    assert answer["value_note"].startswith("more than 50 hands")
    zh = client.post("/v1/analyze", json=sent, headers={"Accept-Language": "zh"}).get_json()
    assert zh["value_note"].startswith("要权衡的手牌超过 50 种")


# --------------------------------------------------------------------------- docs/examples.md

EXAMPLES = [  # (body, best by ukeire, best by value): docs/examples.md "Advice by value"
    (body("E", "W", "222m 444p 678p 456s CC", draws_left=1), "6p", "2m"),
    (body("N", "S", "456m 345p 777s 99s", melds=[{"type": "kong", "tiles": "NNNN", "concealed": True}],
          draws_left=2), "4m", "9s"),
    (body("W", "W", "234s 44s 999p PPP", melds=[{"type": "chow", "tiles": "678p", "from": "S"}], draws_left=2),
     "2s", "3s"),
]


@pytest.mark.parametrize("request_body, by_count, by_value", EXAMPLES)
def test_the_examples_change_the_best_discard(request_body, by_count, by_value):
    plain = analyze({k: v for k, v in request_body.items() if k not in ("objective", "draws_left")})
    assert plain["discards"][0]["discard"] == by_count
    valued = analyze(request_body)
    assert valued["discards"][0]["discard"] == by_value
    assert valued["discards"][0]["expected_points"] > 0


def test_the_first_example_by_hand():
    # E, round W, 222m 444p 678p 456s CC, one draw; U = 136 − 14 = 122 (in an entry the discarded
    # tile counts as seen).  Discard 2m: 22m 444p 678p 456s CC waits on 2m (222m + CC pair: 对倒 1
    # + 自摸 1 + 硬胡 1 = 3 台 < 4, no win) and C (CCC + 22m pair: 中 pung 1 + 对倒 1 + 自摸 1 + 硬胡 1
    # = 4 台, P = 5), C unseen 4 − 2 = 2: V_1 = 2 × 5 / 122, P = 2/122.  Discard 4p: the same with
    # 44p.  Discard 6p: 78p waits on 6p/9p, 排胡 0 + 自摸 1 + 硬胡 1 = 2 台: nothing.
    res = analyze(EXAMPLES[0][0])
    by_tile = {e["discard"]: e for e in res["discards"]}
    for tile in ("2m", "4p"):
        assert by_tile[tile]["expected_points"] == pytest.approx(10 / 122, **CLOSE)
        assert by_tile[tile]["win_probability"] == pytest.approx(2 / 122, **CLOSE)
    assert by_tile["6p"]["expected_points"] == 0
    assert [e["discard"] for e in res["discards"][:2]] == ["2m", "4p"]     # equal: the order by counts


# --------------------------------------------------------------------------- the ranking, the product bar

def _near_win(rng) -> dict:
    """A winning hand of tests/handgen.py before its discard, as an analyze body."""
    won = handgen.random_request(rng, n_caishen=rng.choice((0, 0, 1)), presets=("ningbo",))
    out = {k: v for k, v in won.items() if k != "win"}
    out["hand"] = {k: v for k, v in won["hand"].items() if k != "winning_tile"}
    return out


def test_value_ranks_first_the_most_points_and_clears_the_product_bar():
    # seeded near-win hands with one and two draws left: the first discard has the most expected
    # points (to the ranking's rounding), and where the count ranks first a tenpai that can't win
    # the minimum, a discard with positive expected points comes first whenever one exists
    import random
    rng = random.Random(40)
    bar = 0
    for i in range(24):
        request_body = _near_win(rng)
        plain = analyze(request_body)
        valued = analyze({**request_body, "objective": "value", "draws_left": 1 + i % 2})
        points = [e["expected_points"] for e in valued["discards"]]
        assert points[0] >= max(points) - 1e-9
        first = plain["discards"][0]
        if first["shanten"] == 0 and first.get("eligible_unseen", 0) == 0 and max(points) > 0:
            bar += 1
            assert points[0] > 0
        assert sorted(e["discard"] for e in valued["discards"]) == sorted(e["discard"] for e in plain["discards"])
    assert bar > 0          # the seed meets the case the bar is about
