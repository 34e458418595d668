"""POST /v1/replay and /v1/replay/batch (docs/api.md; API.md "POST /v1/replay"): a hand's log checked
event by event, its win's context derived and scored as /v1/score scores it.

Three kinds of tests, each from the rule book:

* generated logs (tests/replaygen.py, seeded, every preset): each validates, the replay's
  ``score_request`` holds the context the generator *did* (its own record of draws, kongs, claims
  and discards), and posting ``score_request`` to /v1/score answers the replay's ``score`` byte for
  byte;
* mutations: one event of a valid log changed (or added, or dropped) so that it breaks exactly one
  rule: a 422 ``illegal_event`` with exactly that ``event_index`` and ``reason``;
* hand-worked logs for each derived field, their answers worked out from RULES.md in comments.
"""
from __future__ import annotations

import collections
import copy
import importlib
import os
import random
import sys
import typing

import orjson
import pytest

import ningbo_score
from ningbo_score.readers.replay_requests import EVENT_TYPES
from ningbo_score.tiles import parse_tile, parse_tiles
from tools import examples

import replaygen  # noqa: E402

# the module: the package's attribute `ningbo_score.replay` is the typed function that calls it
replay_lib = importlib.import_module("ningbo_score.replay")

GENERATED = 2000          # logs checked by test_generated_logs (docs/api.md gives this count)
SEED = 20261204


@pytest.fixture(scope="module")
def raw_client():
    """Flask's test client without the contract checks (the generated logs are many); the
    contract is checked on a sample by test_generated_logs_conform."""
    from service import create_app

    return create_app({"TESTING": False}).test_client()


@pytest.fixture(scope="module")
def generated() -> list[replaygen.Hand]:
    return replaygen.logs(SEED, GENERATED)


def _without_rules(body: dict) -> dict:
    return {k: v for k, v in body.items() if k != "rules"}


# --- (a) generated logs ------------------------------------------------------------------------

def test_generated_logs(raw_client, generated):
    """Every generated log is legal; its win's score_request is the generator's own body (rules
    aside: the replay writes only the options that differ from the preset), scores as that body
    scores, and /v1/score answers the replay's `score` byte for byte."""
    mismatches = []
    outcomes: collections.Counter[str] = collections.Counter()
    for n, hand in enumerate(generated):
        body = hand.body()
        response = raw_client.post("/v1/replay", json=body)
        assert response.status_code == 200, (n, response.get_json())
        answer = response.get_json()
        assert answer["outcome"] == hand.outcome and answer["events"] == len(body["events"])
        outcomes[hand.outcome] += 1
        if hand.outcome == "draw":
            assert "score" not in answer and "winner" not in answer
            continue
        request = answer["score_request"]
        scored = raw_client.post("/v1/score", json=request)
        assert scored.status_code == 200
        if (scored.data != orjson.dumps(answer["score"]) or _without_rules(request) != _without_rules(hand.expected)
                or ningbo_score.score(hand.expected) != answer["score"]):
            mismatches.append(n)
    assert mismatches == []
    # rule book 4: a hand under the minimum is no win (RULES.md §11.6), so the generator plays on where
    # it would have declared one: about a quarter of the hands end in a win (564 of 2,000)
    assert outcomes["win"] > GENERATED // 5 and outcomes["draw"] > GENERATED // 4


def test_generated_logs_cover_every_case(generated):
    """The generator reaches every kind of event and every derived field, over every preset."""
    features: collections.Counter[str] = collections.Counter()
    presets = collections.Counter(h.preset for h in generated)
    for hand in generated:
        features.update(hand.features)
    assert set(presets) == set(replaygen.PRESETS)
    for feature in ("chow", "pung", "kong", "concealed_kong", "added_kong", "by_self_draw", "by_discard",
                    "by_robbing_kong", "kong_replacement", "kong_fed_by", "last_tile", "heavenly", "earthly",
                    "discarded_caishen", "claims_from_winner", "exhaustive_draw",
                    # rule book 4: opening 补花 of seats other than the dealer, chains of flowers of the
                    # deal, a dealt flower kept for the holder's own turn, a chow's discard under 吃张打张
                    "opening_flowers", "flower_chain", "deal_flower_in_turn", "chow_swap_refused"):
        assert features[feature] >= 10, (feature, features)
    events = collections.Counter(e["t"] for h in generated for e in h.events)
    assert set(events) == set(EVENT_TYPES)


def test_generated_logs_conform(client, generated):
    """A sample through the contract-checked client (openapi.yaml, the response schema's dump),
    one at a time and as batches of 50."""
    sample = generated[:60]
    for hand in sample[:20]:
        assert client.post("/v1/replay", json=hand.body()).status_code == 200
    batch = client.post("/v1/replay/batch", json={"logs": [h.body() for h in sample[:50]]})
    assert batch.status_code == 200
    results = batch.get_json()["results"]
    assert [r["index"] for r in results] == list(range(50)) and all(r["status"] == 200 for r in results)
    assert results[7]["replay"] == ningbo_score.replay(sample[7].body())


def test_library_and_loaded_entry_points(generated):
    hand = next(h for h in generated if h.outcome == "win")
    body = hand.body()
    loaded = replay_lib.read_replay(body)
    assert replay_lib.replay_loaded(loaded) == replay_lib.replay(body) == replay_lib.replay(loaded)


# --- (b) mutations -----------------------------------------------------------------------------

class Tracker:
    """The test's own reading of a log up to an event: each seat's tiles, the copies in play,
    the last discard (API.md's event rules, independent of the library)."""

    def __init__(self, body: dict[str, typing.Any], upto: int) -> None:
        self.hands = {s: collections.Counter(parse_tiles(body["deal"][s])) for s in "ESWN"}
        self.seen = collections.Counter(t for h in self.hands.values() for t in h.elements())
        caishen = body.get("caishen") or {}
        if caishen.get("indicator"):
            self.seen[caishen["indicator"]] += 1
        self.last: tuple[str, str] | None = None
        self.draws = 0
        for ev in body["events"][:upto]:
            t, seat = ev["t"], ev.get("seat")
            if "tile" in ev:
                ev = {**ev, "tile": parse_tile(ev["tile"])}
            if t == "draw":
                self.hands[seat][ev["tile"]] += 1
                self.seen[ev["tile"]] += 1
                self.draws += 1
            elif t in ("flower", "discard"):
                self.hands[seat][ev["tile"]] -= 1
                if t == "discard":
                    self.last = (seat, ev["tile"])
            elif t in ("chow", "pung", "kong"):
                tiles = parse_tiles(ev["tiles"])
                tiles.remove(typing.cast(tuple, self.last)[1])
                self.hands[seat].subtract(tiles)
            elif t == "concealed_kong":
                self.hands[seat][ev["tile"]] -= 4
            elif t == "added_kong":
                self.hands[seat][ev["tile"]] -= 1


SEATS = "ESWN"


def _next(seat: str, d: int = 1) -> str:
    return SEATS[(SEATS.index(seat) + d) % 4]


def _refused(body: dict) -> dict | None:
    try:
        ningbo_score.replay(body)
    except ningbo_score.ScoreError as err:
        return err.to_problem()
    return None


def _refused_zh(body: dict) -> dict:
    with pytest.raises(ningbo_score.ScoreError) as err:
        ningbo_score.replay(body, "zh")
    return err.value.to_problem("zh")


def _mutations(hand: replaygen.Hand, rng: random.Random) -> typing.Iterator[tuple[str, dict, int]]:
    """(expected reason, mutated body, expected event_index) for one valid log."""
    body = hand.body()
    events = body["events"]
    codes = hand.events                  # the same events, tiles as codes
    n = len(events)
    kinds = replaygen.caishen_kinds(hand.preset in replaygen.NEXT_RULE, hand.indicator, hand.kinds_given)

    def at(i: int, *new: dict, drop: int = 1) -> dict:
        out = copy.deepcopy(body)
        out["events"] = events[:i] + list(new) + events[i + drop:]
        return out

    # an event after the end; the log cut before it
    yield "event_after_end", at(n, {"t": "exhaustive_draw"}, drop=0), n
    yield "log_not_ended", at(n - 1), n - 1
    # a deal of 12 tiles (checked before event 0)
    short = copy.deepcopy(body)
    short["deal"]["S"] = parse_tiles(short["deal"]["S"])[:12]
    yield "hand_size", short, 0
    turn_draws = [i for i in range(1, n) if events[i]["t"] == "draw" and events[i - 1]["t"] == "discard"]
    if turn_draws:
        i = rng.choice(turn_draws)
        # a draw by a seat whose turn it is not: the discarder, or the seat after the drawer
        wrong = rng.choice([events[i - 1]["seat"], _next(events[i]["seat"])])
        yield "out_of_turn", at(i, {**events[i], "seat": wrong}), i
        # a pung claim where the last event is a draw, not a discard
        if i + 1 < n and events[i + 1]["t"] == "discard":
            claimant = _next(events[i]["seat"])
            yield "no_discard_to_claim", at(i + 1, {"t": "pung", "seat": claimant, "tiles": "1m1m1m"}), i + 1
        # a fifth copy drawn
        state = Tracker(body, i)
        full = [k for k, c in state.seen.items() if c >= (1 if k.endswith("f") else 4)]
        if full:
            yield "too_many_copies", at(i, {**events[i], "tile": rng.choice(full)}), i
    # a tile not held, discarded
    discards = [i for i in range(n) if events[i]["t"] == "discard"]
    if discards:
        i = rng.choice(discards)
        state = Tracker(body, i)
        seat = events[i]["seat"]
        missing = [k for k in replaygen.KINDS if state.hands[seat][k] == 0]
        yield "tile_not_held", at(i, {**events[i], "tile": rng.choice(missing)}), i
    # a missing replacement draw: after a kong or a flower, the seat discards instead
    replaced = [i for i in range(n - 1) if events[i]["t"] in ("flower", "concealed_kong", "kong")]
    if replaced:
        i = rng.choice(replaced) + 1
        seat = events[i]["seat"]
        state = Tracker(body, i)
        tile = next(k for k, c in state.hands[seat].items() if c > 0)
        yield "missing_replacement_draw", at(i, {"t": "discard", "seat": seat, "tile": tile}), i
    # a win by another seat on a concealed kong (only an added kong may be robbed)
    for i in range(n - 1):
        if events[i]["t"] == "concealed_kong":
            yield "rob_not_on_added_kong", at(i + 1, {"t": "win", "seat": _next(events[i]["seat"])}), i + 1
            # ... and the same kong declared as an added kong: the seat has no pung of it
            yield "added_kong_without_pung", at(i, {**events[i], "t": "added_kong"}), i
            break
    # the wall cut one draw short
    draws = [i for i in range(n) if events[i]["t"] == "draw"]
    cut = copy.deepcopy(body)
    cut["live_tiles"] = len(draws) - 1
    yield "wall_exhausted", cut, draws[-1]
    # claims: priority against `declined`, a chow from a seat that is not the discarder's next
    for i in range(1, n):
        ev = events[i]
        if ev["t"] in ("pung", "kong") and events[i - 1]["t"] == "discard":
            d = events[i - 1]["seat"]
            third = next(s for s in SEATS if s not in (d, ev["seat"]))
            yield "claim_priority", at(i, {**ev, "declined": [{"seat": third, "claim": "win"}]}), i
            break
    for i in range(1, n):
        ev = events[i]
        if ev["t"] == "chow":
            d = events[i - 1]["seat"]
            other = next(s for s in (_next(d, 2), _next(d, 3)))
            yield "claim_priority", at(i, {**ev, "declined": [{"seat": other, "claim": "pung"}]}), i
            yield "chow_not_from_upper_seat", at(i, {**ev, "declined": [{"seat": other, "claim": "chow"}]}), i
            break
    for i in range(1, n):
        ev = events[i]
        if events[i - 1]["t"] == "discard" and ev["t"] == "discard" or i == n - 1:
            continue
        if events[i - 1]["t"] == "discard" and ev["t"] == "draw":
            # a seat other than the next holding two tiles that chow the discard
            d, tile = events[i - 1]["seat"], codes[i - 1]["tile"]
            if tile in kinds or tile[-1] not in "mps" or len(tile) != 2:
                continue
            state = Tracker(body, i)
            r, suit = int(tile[0]), tile[1]
            for seat in (_next(d, 2), _next(d, 3)):
                h = state.hands[seat]
                for lo in (r - 2, r - 1, r):
                    run = [f"{x}{suit}" for x in (lo, lo + 1, lo + 2)] if 1 <= lo <= 7 else []
                    own = [x for x in run if x != tile]
                    if run and all(h[x] > 0 and x not in kinds for x in own):
                        yield "chow_not_from_upper_seat", at(i, {"t": "chow", "seat": seat, "tiles": run}), i
                        return
    # a second win: a later seat wins while an earlier one declined its win
    if events[-1]["t"] == "win" and events[-2]["t"] == "discard":
        d, w = events[-2]["seat"], events[-1]["seat"]
        if w != _next(d):
            yield "second_win_on_discard", at(n - 1, {**events[-1], "declined": [{"seat": _next(d),
                                                                                     "claim": "win"}]}), n - 1
        else:       # ... or the seat after the winner declares it, the winner's win declined
            yield "second_win_on_discard", at(n - 1, {"t": "win", "seat": _next(w),
                                                      "declined": [{"seat": w, "claim": "win"}]}), n - 1


def _caishen_claims(hand: replaygen.Hand) -> typing.Iterator[tuple[str, dict, int]]:
    """A discarded caishen punged or chowed by a seat that holds the other tiles (RULES.md §2: it
    can't be claimed): caishen_claimed at the claim."""
    body = hand.body()
    events = body["events"]
    kinds = replaygen.caishen_kinds(hand.preset in replaygen.NEXT_RULE, hand.indicator, hand.kinds_given)
    for i in range(1, len(events)):
        if events[i - 1]["t"] != "discard" or hand.events[i - 1]["tile"] not in kinds:
            continue
        d, tile = events[i - 1]["seat"], hand.events[i - 1]["tile"]
        state = Tracker(body, i)
        claims = [("pung", seat, [tile] * 3) for seat in (_next(d), _next(d, 2), _next(d, 3))
                  if state.hands[seat][tile] >= 2]
        if tile[-1] in "mps" and len(tile) == 2:
            r, suit, h = int(tile[0]), tile[1], state.hands[_next(d)]
            for lo in (r - 2, r - 1, r):
                run = [f"{k}{suit}" for k in (lo, lo + 1, lo + 2)] if 1 <= lo <= 7 else []
                if run and all(h[k] > 0 for k in run if k != tile):
                    claims.append(("chow", _next(d), run))
        for kind, seat, tiles in claims[:1]:
            out = copy.deepcopy(body)
            out["events"] = events[:i] + [{"t": kind, "seat": seat, "tiles": tiles}] + events[i + 1:]
            yield "caishen_claimed", out, i


def _rulebook4(hand: replaygen.Hand) -> typing.Iterator[tuple[str, dict, int]]:
    """Rule book 4's reasons as mutations of every log: a win declared where the generator found the
    hand scoring under the minimum (RULES.md §11.6: below_minimum at that win), and a discard after
    a chow changed to a kind 吃张打张 forbids (§11.4, where chow_swap_allowed is off)."""
    body = hand.body()
    events = body["events"]
    for i, seat in hand.below[:1]:
        out = copy.deepcopy(body)
        out["events"] = events[:i] + [{"t": "win", "seat": SEATS[seat]}]
        yield "below_minimum", out, i
    for i, seat, avoid in hand.swap_discards:
        held = [k for k in sorted(avoid) if Tracker(body, i).hands[SEATS[seat]][k] > 0]
        if held:
            out = copy.deepcopy(body)
            out["events"] = events[:i] + [{**events[i], "tile": held[0]}] + events[i + 1:]
            yield "chow_swap_discard", out, i
            break


MUTATED_LOGS = 300


def test_mutations(generated):
    """Each mutation is refused at exactly its event, with exactly its reason."""
    rng = random.Random(SEED)
    counts: collections.Counter[str] = collections.Counter()
    wrong = []
    for n, hand in enumerate(generated):
        made = _mutations(hand, rng) if n < MUTATED_LOGS else iter(())
        for reason, body, index in [*made, *_caishen_claims(hand), *_rulebook4(hand)]:
            problem = _refused(body)
            counts[reason] += 1
            got = None if problem is None else (problem["code"], problem.get("reason"), problem.get("event_index"))
            if got != ("illegal_event", reason, index):
                wrong.append((reason, index, got))
    assert wrong == []
    for reason in replay_lib.REASONS:
        if reason not in ("caishen_flower_set_aside", "not_a_flower", "caishen_in_meld", "invalid_meld"):
            assert counts[reason] >= 3, (reason, counts)   # those four: hand-worked below
    assert sum(counts.values()) >= 2500
    assert counts["below_minimum"] >= 500 and counts["chow_swap_discard"] >= 50, counts


def test_mutation_over_http(client):
    """The problem object of an illegal event, through the contract-checked client."""
    response = client.post("/v1/replay", json=examples.REPLAY_OUT_OF_TURN)
    assert response.status_code == 422
    problem = response.get_json()
    assert (problem["code"], problem["reason"], problem["event_index"]) == ("illegal_event", "out_of_turn", 6)
    # after E's discard (event 5), S draws or someone claims E's 1s
    assert {"seat": "S", "t": "draw"} in problem["expected"]
    # 91 live tiles, E drew 3 (one turn draw, two flower replacements): 88 left; E discarded: 13 each
    assert problem["state"] == {"live_tiles": 88, "tiles": {"E": 13, "S": 13, "W": 13, "N": 13},
                                "last_discard": {"seat": "E", "tile": "1s", "event_index": 5}}
    zh = client.post("/v1/replay", json=examples.REPLAY_OUT_OF_TURN, headers={"Accept-Language": "zh"}).get_json()
    assert zh["title"] == "牌局记录违规" and zh["reason"] == "out_of_turn"


# --- (c) hand-worked logs ----------------------------------------------------------------------

FILL = "1m1m1m 2p2p2p 3s3s3s 4m4m4m 5p5p5p 6s6s6s 7m7m7m 8p8p8p 9s9s9s EEE SSS WWW NNN"


def deal(**hands: str) -> dict[str, str]:
    """Each named seat's 13 tiles as given; the others filled from FILL with copies left
    (RULES.md §1: 4 of a kind), so that no deal holds a fifth copy."""
    used = collections.Counter(t for h in hands.values() for t in parse_tiles(h))
    pool = [t for t in parse_tiles(FILL * 2)]
    out = {}
    for s in SEATS:
        if s in hands:
            out[s] = hands[s]
            continue
        mine: list[str] = []
        while len(mine) < 13:
            t = pool.pop(0)
            if used[t] < 4:
                used[t] += 1
                mine.append(t)
        out[s] = " ".join(mine)
    return out


def d(seat: str, tile: str) -> dict:
    return {"t": "draw", "seat": seat, "tile": tile}


def x(seat: str, tile: str) -> dict:
    return {"t": "discard", "seat": seat, "tile": tile}


def test_heavenly_and_last_tile():
    # E is dealt 123m 456m 789m 123p 4p and draws 4p, the one live tile: 天胡 (RULES.md §5, 8 台),
    # 海底 (the wall's last tile, 1), 自摸 1, 单吊 1 (the 4p pair), 硬胡 1 = 12 台; ningbo linear:
    # P = 1 × (1 + 12) = 13, each other seat pays 13.
    body = {"round_wind": "E", "live_tiles": 1, "deal": deal(E="123m 456m 789m 123p 4p"),
            "events": [d("E", "4p"), {"t": "win", "seat": "E"}]}
    a = ningbo_score.replay(body)
    assert a["score_request"]["win"] == {"by": "self_draw", "last_tile": True, "heavenly": True}
    assert a["evidence"] == {"win.by": 0, "win.last_tile": 0, "win.heavenly": 0}
    assert a["score"]["tai"] == 12 and a["score"]["net"] == {"E": 39, "S": -13, "W": -13, "N": -13}
    # the dealer won: it deals again (RULES.md §8)
    assert a["next"]["dealer"] == 0 and not a["next"]["dealer_changed"]


def test_earthly():
    # S is dealt 123m 456m 789m 12p EE and wins on E's first discard, 3p: 地胡 6, 边 (12 waiting on
    # 3) 1, 硬胡 1 = 8 台; discard by E: E pays 2 × P = 2 × 9 = 18 (RULES.md §7).
    body = {"round_wind": "E", "deal": deal(E="3p 5s5s 7s7s 9p9p 1s1s 2s2s 4s4s", S="123m 456m 789m 12p EE"),
            "events": [d("E", "8s"), x("E", "3p"), {"t": "win", "seat": "S"}]}
    a = ningbo_score.replay(body)
    assert a["score_request"]["win"] == {"by": "discard", "from": "E", "earthly": True}
    assert a["evidence"] == {"win.by": 1, "win.from": 1, "win.earthly": 1}
    assert a["score"]["tai"] == 8 and a["score"]["net"] == {"E": -18, "S": 18, "W": 0, "N": 0}
    assert a["next"]["dealer"] == 1          # another seat won: the next seat deals


def flower(seat: str, tile: str) -> dict:
    return {"t": "flower", "seat": seat, "tile": tile}


def test_a_flower_of_the_deal_is_no_bloom():
    # E's first draw is 1f (its own seat flower), set aside; E draws 4p on the replacement and wins.
    # The 14th tile is part of the deal (RULES.md §11.2, rule book 4): its replacement is no 杠上开花.
    # 天胡 8 + 自摸 1 + 单吊 1 (the 4p pair) + 硬胡 1 + 正花 1 (1f for E) = 12 台 (rule book 3 added
    # 杠开: 13); P = 1 + 12 = 13, each other seat pays 13: E +39.
    body = {"round_wind": "E", "deal": deal(E="123m 456m 789m 123p 4p"),
            "events": [d("E", "1f"), flower("E", "1f"), d("E", "4p"), {"t": "win", "seat": "E"}]}
    a = ningbo_score.replay(body)
    assert a["score_request"]["hand"]["flowers"] == ["1f"]
    assert a["score_request"]["win"] == {"by": "self_draw", "heavenly": True}
    assert a["evidence"] == {"win.by": 2, "win.heavenly": 2}
    assert a["score"]["tai"] == 12 and a["score"]["net"]["E"] == 39


def test_a_flower_drawn_in_play_blooms():
    # E, dealt 123m 456m 789m 123p 4p, draws F and lets it go; S, W, N draw and discard C, P, F.
    # E's second draw is 1f: a flower drawn in play; its replacement 4p wins: 杠上开花 (RULES.md §5
    # kong_bloom, 001 "杠花后补牌糊牌").  杠开 1 + 自摸 1 + 单吊 1 + 硬胡 1 + 正花 1 = 5 台, no 天胡 (E
    # discarded); P = 6, each pays 6: E +18.
    body = {"round_wind": "E", "deal": deal(E="123m 456m 789m 123p 4p"),
            "events": [d("E", "F"), x("E", "F"), d("S", "C"), x("S", "C"), d("W", "P"), x("W", "P"),
                       d("N", "F"), x("N", "F"), d("E", "1f"), flower("E", "1f"), d("E", "4p"),
                       {"t": "win", "seat": "E"}]}
    a = ningbo_score.replay(body)
    assert a["score_request"]["win"] == {"by": "self_draw", "kong_replacement": True}
    assert a["evidence"] == {"win.by": 10, "win.kong_replacement": 9}
    assert a["score"]["tai"] == 5 and a["score"]["net"]["E"] == 18


#: E, S and W set aside their flowers before E's first discard (出牌前补花, RULES.md §11.2), with
#: chains: E's first draw 1f brings 7f, S's 2f brings 8f.  E is dealt 123m 456m 789m 3p 4s5s and 5f.
OPENING = [
    d("E", "1f"), flower("E", "1f"), d("E", "7f"),        # 0-2: the 14th tile, a flower; its replacement too
    flower("E", "7f"), d("E", "3p"),                       # 3-4: drawn while replacing: of the deal
    flower("E", "5f"), d("E", "6s"),                       # 5-6: E's dealt flower
    flower("S", "2f"), d("S", "8f"), flower("S", "8f"), d("S", "P"),   # 7-10: S, a chain
    flower("S", "6f"), d("S", "P"),                        # 11-12
    flower("W", "3f"), d("W", "C"),                        # 13-14: W; N has none
]
OPENING_DEAL = deal(E="123m 456m 789m 3p 4s5s 5f", S="2f 6f 9p9p9p 1s1s1s 2s2s2s S S",
                    W="3f 1p1p 2p2p 3p3p 4p4p 5p5p 6p 7p", N="4m4m 5m5m 6m6m 7m7m 8m8m 9m9m 1p")


def test_opening_flowers_of_every_seat():
    # After the openings E holds 123m 456m 789m 3p3p 4s5s6s: 天胡 (no discard, no meld; RULES.md
    # §11.2: not affected by the replacements).  None of its replacements blooms.  台: 天胡 8, 自摸 1,
    # the best wait (§10.16: 45s6s two-sided, all chows, pair 3p: 平胡 1), 硬胡 1, 正花 2 (1f, 5f;
    # 7f is W's) = 13; P = 14, each pays 14: E +42.
    body = {"round_wind": "E", "deal": OPENING_DEAL, "events": [*OPENING, {"t": "win", "seat": "E"}]}
    a = ningbo_score.replay(body)
    sr = a["score_request"]
    assert sr["win"] == {"by": "self_draw", "heavenly": True} and sr["hand"]["winning_tile"] == "6s"
    assert sr["hand"]["flowers"] == ["1f", "7f", "5f"]
    assert a["evidence"] == {"win.by": 6, "win.heavenly": 6}
    assert a["score"]["tai"] == 13 and a["score"]["net"] == {"E": 42, "S": -14, "W": -14, "N": -14}
    # S and W hold 13 again, flowers apart; 91 − 9 draws after the deal's first
    problem = _refused({**body, "events": [*OPENING, x("E", "C")]})
    assert problem is not None and problem["state"]["tiles"] == {"E": 14, "S": 13, "W": 13, "N": 13}
    assert problem["reason"] == "tile_not_held" and problem["state"]["live_tiles"] == 91 - 8


def test_opening_flowers_in_play_order_only():
    # W has set aside its 3f: S may no longer (E, S, W, N in turn)
    events = [d("E", "C"), flower("W", "3f"), d("W", "C"), flower("S", "2f")]
    problem = _refused({"round_wind": "E", "deal": OPENING_DEAL, "events": events})
    assert problem is not None and (problem["reason"], problem["event_index"]) == ("out_of_turn", 3)
    assert "南家" in _refused_zh({"round_wind": "E", "deal": OPENING_DEAL, "events": events})["detail"]
    # a seat's flower waits for the replacement of the one before it
    events = [d("E", "C"), flower("S", "2f"), flower("W", "3f")]
    problem = _refused({"round_wind": "E", "deal": OPENING_DEAL, "events": events})
    assert problem is not None and (problem["reason"], problem["event_index"]) == ("out_of_turn", 2)
    # after the dealer's first discard the opening is over: S sets aside on its own turn only
    events = [d("E", "C"), x("E", "C"), flower("S", "2f")]
    problem = _refused({"round_wind": "E", "deal": OPENING_DEAL, "events": events})
    assert problem is not None and (problem["reason"], problem["event_index"]) == ("out_of_turn", 2)
    # the dealer itself sets aside 5f after S's: on its own first turn, which ends the opening
    events = [d("E", "C"), flower("S", "2f"), d("S", "C"), flower("E", "5f"), d("E", "P"), flower("W", "3f")]
    problem = _refused({"round_wind": "E", "deal": OPENING_DEAL, "events": events})
    assert problem is not None and (problem["reason"], problem["event_index"]) == ("out_of_turn", 5)


def test_a_dealt_flower_on_the_holders_first_turn_is_no_bloom():
    # S, dealt 123m 456m 789m 3p 4s5s and 6f, keeps 6f through the opening; on its first turn it draws
    # 3p, sets aside 6f (a flower of the deal), draws 2f (drawn while replacing it: of the deal too),
    # sets that aside and draws 6s: 123m 456m 789m 3p3p 4s5s6s.  No 杠开 (RULES.md §11.2).  台: 自摸 1,
    # 平胡 1 (45s waits two-sided on 6s, all chows, pair 3p), 硬胡 1, 正花 2 (2f and 6f are S's) = 5;
    # P = 6, each pays 6: S +18.  Had the two replacements been of flowers drawn in play: 6 台.
    body = {"round_wind": "E", "deal": deal(S="123m 456m 789m 3p 4s5s 6f"),
            "events": [d("E", "C"), x("E", "C"), d("S", "3p"), flower("S", "6f"), d("S", "2f"), flower("S", "2f"),
                       d("S", "6s"), {"t": "win", "seat": "S"}]}
    a = ningbo_score.replay(body)
    assert a["score_request"]["win"] == {"by": "self_draw"}
    assert a["score_request"]["hand"]["flowers"] == ["6f", "2f"]
    assert a["score"]["tai"] == 5 and a["score"]["net"]["S"] == 18


def test_kong_fed_by():
    # E discards 9s; S holds 9s9s9s and konges it, draws 6p on the replacement: 杠上开花 fed by E.
    # S: kong 9s (from E), 123m 456m 789m 6p + 6p.  台: 杠开 1, 自摸 1, 单吊 1, 硬胡 1 = 4 (ningbo
    # minimum 4): P = 5.  Kong bloom on E's kong (RULES.md §7): E pays 5 × P = 25, the others 0.
    body = {"round_wind": "E", "deal": deal(E="9s 1p1p1p 2p2p2p 3p3p3p C C C", S="9s9s9s 123m 456m 789m 6p"),
            "events": [d("E", "F"), x("E", "9s"), {"t": "kong", "seat": "S", "tiles": "9s9s9s9s", "from": "E"},
                       d("S", "6p"), {"t": "win", "seat": "S"}]}
    a = ningbo_score.replay(body)
    sr = a["score_request"]
    assert sr["hand"]["melds"] == [{"type": "kong", "tiles": ["9s"] * 4, "from": "E"}]
    assert sr["win"] == {"by": "self_draw", "kong_replacement": True, "kong_fed_by": "E"}
    assert a["evidence"]["win.kong_fed_by"] == 2 and a["evidence"]["win.kong_replacement"] == 2
    assert a["score"]["tai"] == 4
    assert a["score"]["payments"] == [{"from": "E", "to": "S", "amount": 25, "multiplier": 5,
                                       "reason": "kong_bloom", "liability": None}]


def test_concealed_and_added_kong_melds():
    # E konges its four 1p (暗杠, event 1), punges S's 3p (6), adds its drawn fourth 3p (加杠, 15) and
    # wins on that replacement draw, 6m: the melds' derived shape (RULES.md §3; API.md: an added
    # kong keeps `from` of its pung) and a kong bloom with no feeder (§10.11: an added kong's fourth
    # tile was E's own draw, so no kong_fed_by).  台: 杠开 1, 自摸 1, 排胡 0 (45m waits two-sided), 硬胡 1
    # = 3: with the minimum lowered to 3 a win of P = 1 + 3 = 4 from each other seat (E +12); under
    # ningbo's own minimum of 4 the declared win is no win (RULES.md §11.6, rule book 4): below_minimum.
    body = {"rules": {"preset": "ningbo", "min_tai": 3}, "round_wind": "E",
            "deal": deal(E="1p1p1p1p 3p3p 9m9m 123m 45m", S="3p 2m2m 5m5m 8m8m 6p6p 7p7p C C"),
            "events": [d("E", "C"), {"t": "concealed_kong", "seat": "E", "tile": "1p"}, d("E", "F"), x("E", "F"),
                       d("S", "P"), x("S", "3p"), {"t": "pung", "seat": "E", "tiles": "3p3p3p"}, x("E", "C"),
                       d("S", "P"), x("S", "P"), d("W", "P"), x("W", "P"), d("N", "F"), x("N", "F"), d("E", "3p"),
                       {"t": "added_kong", "seat": "E", "tile": "3p"}, d("E", "6m"), {"t": "win", "seat": "E"}]}
    a = ningbo_score.replay(body)
    sr = a["score_request"]
    assert sr["hand"]["melds"] == [{"type": "kong", "tiles": ["1p"] * 4, "concealed": True},
                                   {"type": "kong", "tiles": ["3p"] * 4, "from": "S", "added": True}]
    assert sr["hand"]["concealed"] == ["1m", "2m", "3m", "4m", "5m", "6m", "9m", "9m"]
    assert sr["win"] == {"by": "self_draw", "kong_replacement": True}
    assert a["evidence"] == {"win.by": 16, "win.kong_replacement": 15, "hand.melds.0": [1], "hand.melds.1": [6, 15]}
    assert a["score"]["tai"] == 3 and a["score"]["eligible"] is True and a["score"]["net"]["E"] == 12
    problem = _refused({**body, "rules": "ningbo"})
    assert problem is not None and (problem["code"], problem["reason"], problem["event_index"]) == (
        "illegal_event", "below_minimum", 17)
    assert problem["score_request"]["hand"]["melds"] == sr["hand"]["melds"]
    assert problem["score"]["tai"] == 3 and problem["score"]["eligible"] is False


def _robbed(rules: typing.Any = "ningbo", e_discards_caishen: bool = False) -> dict:
    # W punges E's 7p (W holds 7p7p, and the fourth 7p), adds it on its turn: 加杠; S, holding
    # 123m 456m 789m 68p EE... robs it with 7p (closed wait).
    e_deal = "7p 1s1s1s 2s2s2s 3s 4s 5s C C C"
    events = [d("E", "F"), x("E", "7p"), {"t": "pung", "seat": "W", "tiles": "7p7p7p"}, x("W", "N"),
              d("N", "P"), x("N", "P"), d("E", "P"), x("E", "P"), d("S", "F"), x("S", "F"), d("W", "8s"),
              {"t": "added_kong", "seat": "W", "tile": "7p"}, {"t": "win", "seat": "S"}]
    body = {"rules": rules, "round_wind": "E", "caishen": {"kinds": ["5s"]},
            "deal": deal(E=e_deal, S="123m 456m 789m 68p SS", W="7p7p7p N 1p1p1p 2m2m 3p3p 9p9p"),
            "events": events}
    if e_discards_caishen:
        body["deal"]["S"] = "123m 456m 789m 68p S 5s"
    return body


def test_robbing_kong():
    # S robs W's added kong of 7p: by robbing_kong from W.  S's hand 123m 456m 789m 678p SS:
    # 抢杠 1, 夹 (8p… 6 and 8 waiting on 7) 1, 硬胡 1, seat wind pair scores nothing = 3 台: under
    # the ningbo minimum of 4 (RULES.md §5) the declared win is no win (§11.6, rule book 4): a 422
    # below_minimum at the win (event 12) carrying the score request and the score, so the table sees why.
    problem = _refused(_robbed())
    assert problem is not None and (problem["code"], problem["reason"], problem["event_index"]) == (
        "illegal_event", "below_minimum", 12)
    assert problem["score"]["tai"] == 3 and problem["score"]["eligible"] is False
    assert problem["score"]["payments"] == []
    assert problem["score_request"]["win"] == {"by": "robbing_kong", "from": "W"}
    # what would have been legal there: W's replacement draw, or a rob (API.md `expected`)
    assert {"seat": "W", "t": "draw"} in problem["expected"] and {"seat": "S", "t": "win"} in problem["expected"]
    # with the minimum lowered to 3 it is a win: P = 1 + 3 = 4, the robbed W alone pays 5 × 4 = 20 (RULES.md §7)
    a = ningbo_score.replay(_robbed({"preset": "ningbo", "min_tai": 3}))
    sr = a["score_request"]
    assert sr["win"] == {"by": "robbing_kong", "from": "W"} and sr["hand"]["winning_tile"] == "7p"
    assert a["evidence"]["win.by"] == 11
    assert a["score"]["tai"] == 3 and a["score"]["net"] == {"E": 0, "S": 20, "W": -20, "N": 0}
    # W's pung came from E: one claim by W from E, none from the winner S: no claims_from_winner
    assert "claims_from_winner" not in sr


def test_discarded_caishen_and_claims_from_winner():
    # caishen kinds 5s (given: nothing out of play).  S discards its caishen 5s (event 3):
    # discarded_caishen.  W punges S's 4p (event 12): one claim by W from the winner (RULES.md §7
    # counts a pung).  S wins on its draw of a caishen 5s (event 18): 4p + 5s (as 4p) the pair,
    # 123s 789s 7p7p7p CCC.  The minimum is set to 0: this test is about the derivation (a declared
    # win under the minimum is refused, RULES.md §11.6, and has its own tests).
    body = {"rules": {"preset": "ningbo", "min_tai": 0}, "round_wind": "E", "caishen": {"kinds": ["5s"]},
            "deal": deal(E="1m1m1m 2m2m2m 3m3m3m 9m9m9m N", S="5s 4p4p 123s 789s 7p7p C C",
                         W="4p4p 1p1p1p 9p9p9p 2p2p 3p3p P"),
            "events": [d("E", "F"), x("E", "F"), d("S", "C"), x("S", "5s"), d("W", "6m"), x("W", "6m"),
                       d("N", "8m"), x("N", "8m"), d("E", "6p"), x("E", "6p"), d("S", "7p"), x("S", "4p"),
                       {"t": "pung", "seat": "W", "tiles": "4p4p4p"}, x("W", "P"), d("N", "5m"), x("N", "5m"),
                       d("E", "8p"), x("E", "8p"), d("S", "5s"), {"t": "win", "seat": "S"}]}
    a = ningbo_score.replay(body)
    sr = a["score_request"]
    assert sr["win"] == {"by": "self_draw", "discarded_caishen": True}
    assert sr["claims_from_winner"] == {"W": 1}
    assert a["evidence"]["win.discarded_caishen"] == [3] and a["evidence"]["claims_from_winner.W"] == [12]
    assert sr["hand"] == {"concealed": ["4p", "7p", "7p", "7p", "1s", "2s", "3s", "5s", "7s", "8s", "9s",
                                        "C", "C", "C"], "winning_tile": "5s"}
    # under ningbo-taishu (chi_counts_for_liability off) a pung still counts; a chow would not


def test_chows_and_liability_counting():
    # E, dealt 111s 222s 345s 789p 9m (waiting on 9m), discards each tile it draws; S chows three of
    # them (RULES.md §1: E is S's 上家); E then self-draws 9m.  S claimed 3 melds from the winner's
    # discards: counted under ningbo (chows count for 包), none under ningbo-taishu (RULES.md §9
    # chi_counts_for_liability: no).  Under ningbo S is then related (§7: 3 claims): on E's
    # self-draw S alone pays 5 × P.  E's 台: 自摸 1, 单吊 1, 硬胡 1, 混一色? no (two suits) = 3, under
    # the minimum (and no pattern ningbo-taishu requires): the minimum and the patterns are lifted,
    # this test being about the counting (a declared win under the minimum is refused, §11.6).
    events = [d("E", "3m"), x("E", "3m"), {"t": "chow", "seat": "S", "tiles": "1m2m3m"}, x("S", "N"),
              d("W", "C"), x("W", "C"), d("N", "C"), x("N", "C"),
              d("E", "3m"), x("E", "3m"), {"t": "chow", "seat": "S", "tiles": "3m4m5m"}, x("S", "F"),
              d("W", "8m"), x("W", "8m"), d("N", "8m"), x("N", "8m"),
              d("E", "6p"), x("E", "6p"), {"t": "chow", "seat": "S", "tiles": "6p7p8p"}, x("S", "W"),
              d("W", "9m"), x("W", "9m"), d("N", "9m"), x("N", "9m"),
              d("E", "9m"), {"t": "win", "seat": "E"}]
    for rules, claims in (({"preset": "ningbo", "min_tai": 0}, {"S": 3}),
                          ({"preset": "ningbo-taishu", "required_patterns": []}, None)):
        body = {"rules": rules, "round_wind": "E", "events": events,
                "deal": deal(E="1s1s1s 2s2s2s 3s4s5s 7p8p9p 9m", S="1m2m 4m5m 7p8p W W W N F C P")}
        a = ningbo_score.replay(body)
        assert a["score_request"].get("claims_from_winner") == claims, rules
        assert a["evidence"].get("claims_from_winner.S") == ([2, 10, 18] if claims else None)


def test_exhaustive_draw_and_dealer():
    # one live tile, drawn and discarded, unclaimed: 荒庄.  ningbo keeps the dealer; ningbo-taishu
    # (draw_keeps_dealer off, RULES.md §8) passes the deal.
    a = ningbo_score.replay(examples.REPLAY_DRAW)
    assert a == {"outcome": "draw", "events": 3, "evidence": {},
                 "next": {"dealer": 0, "round_wind": "E", "dealers_this_round": 1,
                          "seat_winds": {"0": "E", "1": "S", "2": "W", "3": "N"},
                          "dealer_changed": False, "round_changed": False}}
    b = ningbo_score.replay({**examples.REPLAY_DRAW, "rules": "ningbo-taishu"})
    assert b["next"]["dealer"] == 1
    # an exhaustive draw while live tiles are left: out of turn (S must draw)
    early = {**examples.REPLAY_DRAW, "live_tiles": 2}
    problem = _refused(early)
    assert problem is not None and (problem["reason"], problem["event_index"]) == ("out_of_turn", 2)


@pytest.mark.parametrize(("events", "reason", "index"), [
    # a caishen flower is no flower (RULES.md §2): indicator 1f makes 2f 3f 4f caishen
    ([d("E", "2f"), {"t": "flower", "seat": "E", "tile": "2f"}], "caishen_flower_set_aside", 1),
    # setting aside a tile that is no flower
    ([d("E", "C"), {"t": "flower", "seat": "E", "tile": "C"}], "not_a_flower", 1),
    # a concealed kong of caishen tiles: 2f… no; of 1m with a caishen: E holds 1m1m1m and draws a 2f
    ([d("E", "6m"), {"t": "concealed_kong", "seat": "E", "tile": "6m"}], "tile_not_held", 1),
    # a chow that is no run (RULES.md §3): 1m 5m 9m
    ([d("E", "F"), x("E", "5m"), {"t": "chow", "seat": "S", "tiles": "1m5m9m"}], "invalid_meld", 2),
    # a pung that does not hold the discard
    ([d("E", "F"), x("E", "5m"), {"t": "pung", "seat": "W", "tiles": "9m9m9m"}], "invalid_meld", 2),
    # a chow using a caishen (2f… the caishen here are 2f 3f 4f; S holds 3f)
    ([d("E", "F"), x("E", "5m"), {"t": "chow", "seat": "S", "tiles": ["5m", "3f", "4f"]}], "caishen_in_meld", 2),
    # the dealer's first event must be its draw; a discard first is out of turn
    ([x("E", "5m")], "out_of_turn", 0),
    # S claims its own... S draws twice
    ([d("E", "F"), x("E", "5m"), d("S", "C"), d("S", "C")], "out_of_turn", 3),
])
def test_hand_worked_refusals(events, reason, index):
    body = {"round_wind": "E", "caishen": {"indicator": "1f"},
            "deal": deal(E="5m 1m1m1m 7p 8p 9p 1s 2s 3s 4s 5s 6s", S="1m 9m 3f 4f 2m 3m 4m 6p 7p 8p 4s 5s 6s",
                         W="9m9m9m 2p2p2p 3p3p3p 4p4p4p 7s"),
            "events": events}
    problem = _refused(body)
    assert problem is not None and (problem["code"], problem["reason"], problem["event_index"]) == (
        "illegal_event", reason, index), problem


def test_refused_win_comes_back_with_its_code():
    problem = _refused(examples.REPLAY_REFUSED_WIN)
    assert problem is not None and problem["code"] == "not_a_winning_hand" and problem["event_index"] == 38
    assert problem["score_request"]["seat_wind"] == "S"


def test_docs_example_whole_hand():
    # docs/examples.md: N wins on E's 4s.  N's melds: chow 3s4s5s from W (event 10), pung PPP from W
    # (26); E chowed N's 8m (20): one claim by E from the winner.  台 (RULES.md §5): 单吊 1 (the 4s
    # pair), 硬胡 1, 白 pung 1, 北 as seat wind 1 and as round wind 1 = 5; P = 1 + 5 = 6; E, the
    # discarder, is related? one claim only (3 needed, §7): no; E pays 2 × 6 = 12.
    a = ningbo_score.replay(examples.REPLAY_HAND)
    assert a["winner"] == "N" and a["score"]["tai"] == 5
    assert a["score_request"]["claims_from_winner"] == {"E": 1}
    assert a["score"]["net"] == {"E": -12, "S": 0, "W": 0, "N": 12}


def test_bounds():
    too_many = {**examples.REPLAY_DRAW, "events": [d("E", "C")] * (replay_lib.MAX_EVENTS + 1)}
    problem = _refused(too_many)
    assert problem is not None and problem["status"] == 400 and "events" in problem["errors"]
    # 400 events of noise: refused at the first illegal one (event 1: E draws again)
    noise = {**examples.REPLAY_DRAW, "events": [d("E", "C")] * replay_lib.MAX_EVENTS}
    problem = _refused(noise)
    assert problem is not None and (problem["reason"], problem["event_index"]) == ("out_of_turn", 1)
    batch = ningbo_score.replay_batch
    with pytest.raises(ningbo_score.ScoreError) as err:
        batch({"logs": [examples.REPLAY_DRAW] * (replay_lib.MAX_LOGS + 1)})
    assert err.value.status == 400


# --- the command -------------------------------------------------------------------------------

def test_cli_replay(tmp_path):
    """`ningbo-score replay LOG`: docs/cli.md shows what it prints; --json is the library's
    answer; an illegal log is exit status 3 with its event and reason on standard error."""
    import json
    import subprocess

    from conftest import ROOT

    def cli(*args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"}
        env.pop("LC_ALL", None)
        env.pop("LC_MESSAGES", None)
        return subprocess.run([sys.executable, "-m", "ningbo_score", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)

    (tmp_path / "hand.json").write_text(json.dumps(examples.REPLAY_HAND), encoding="utf-8")
    (tmp_path / "bad.json").write_text(json.dumps(examples.REPLAY_OUT_OF_TURN), encoding="utf-8")
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    shown = docs.split("$ ningbo-score replay docs/examples/replay.json\n", 1)[1].split("```", 1)[0]
    out = cli("replay", "hand.json")
    assert out.returncode == 0 and out.stdout == shown
    out = cli("replay", "hand.json", "--json")
    assert json.loads(out.stdout) == ningbo_score.replay(examples.REPLAY_HAND)
    out = cli("replay", "bad.json")
    assert out.returncode == 3 and "illegal_event" in out.stderr and "event 6: out_of_turn" in out.stderr


def test_fast_event_reader_reads_as_the_schema(generated):
    """The events' fast reader (replay_requests._fast_event) gives what ReplayEventSchema gives,
    or leaves the event to it; a log with one bad event is refused by the schema's message."""
    from marshmallow import ValidationError

    from ningbo_score.readers.replay_requests import _PLAIN_EVENTS, ReplayEventSchema, _fast_event, _plain_event

    schema = ReplayEventSchema()
    variants: list[typing.Any] = []
    for hand in generated[:40]:
        for ev in hand.body()["events"]:
            variants.append(ev)
            variants.append({**ev, "seat": None}) if "seat" in ev else variants.append({**ev, "seat": "E"})
            variants.append({**ev, "extra": 1})
            if "tile" in ev:
                variants += [{**ev, "tile": "5x"}, {**ev, "tile": 5}, {**ev, "tile": "五万"}, {**ev, "tiles": "123m"}]
            if "tiles" in ev:
                variants += [{**ev, "tiles": "1 2 3m"}, {**ev, "tiles": ["一万", "二万", "三万"]},
                             {**ev, "tiles": "12345m 12345p 12345s"},
                             {**ev, "declined": [{"seat": "Q", "claim": "win"}]},
                             {**ev, "declined": [{"seat": "N", "claim": "win"}]}, {**ev, "from": "X"}]
    variants += [[], "draw", {"t": "ron"}, {"t": None}, {"t": "win", "seat": "E", "declined": None}]
    fast_reads = 0
    for ev in variants:
        try:
            slow = schema.load(ev)
        except ValidationError:
            slow = None
        fast = _fast_event(ev)
        if fast is not None:
            fast_reads += 1
            assert fast == slow, ev
        assert slow is not None or fast is None, ev
        plain = _plain_event(ev)
        assert plain is None or plain == slow, ev
    assert fast_reads > 2000
    # the look-up table of the commonest events: each entry is what the schema reads (5 types × 4
    # seats × 42 tiles), and nothing else is in it
    assert len(_PLAIN_EVENTS) == 5 * 4 * 42
    for (t, seat, tile), event in _PLAIN_EVENTS.items():
        body = {"t": t, "seat": seat, "tile": tile}
        assert _plain_event(body) is event and schema.load(body) == event == _fast_event(body), body
    for near in ({"t": "draw", "seat": "E", "tile": "5x"}, {"t": "draw", "seat": "e", "tile": "5m"},
                 {"t": "win", "seat": "E", "tile": "5m"}, {"t": "draw", "seat": ["E"], "tile": "5m"},
                 {"t": "draw", "seat": "E", "tiles": "5m"}, {"t": "draw", "seat": "东", "tile": "5m"}):
        assert _plain_event(near) is None, near
    bad = {**examples.REPLAY_DRAW, "events": [*examples.REPLAY_DRAW["events"][:2], {"t": "draw", "seat": "S"}]}
    problem = _refused(bad)
    assert problem is not None and problem["status"] == 400 and problem["errors"] == {
        "events.2.tile": ["A draw event needs `tile`."]}


def test_hostile_logs_are_answered_like_every_bad_body(client):
    """Deep nesting, huge tile lists and fields, 400 events of noise: a 4xx naming the field,
    quickly, never a 5xx (docs/api.md: bounded work)."""
    import json
    import time

    def post(data: str):
        return client.post("/v1/replay", data=data, content_type="application/json")

    started = time.perf_counter()
    depth = "[" * 10_000 + "]" * 10_000
    deep = json.dumps(examples.REPLAY_DRAW).replace('"events": [', '"events": [' + depth + ", ", 1)
    assert post(deep).get_json()["code"] == "malformed_json"
    nested = json.dumps({**examples.REPLAY_DRAW, "events": "PLACEHOLDER"}).replace(
        '"PLACEHOLDER"', "[" * 500 + "]" * 500)
    answer = post(nested).get_json()
    assert answer["code"] == "invalid_request" and "events.0" in answer["errors"]
    huge = {**examples.REPLAY_DRAW, "deal": {**examples.REPLAY_DRAW["deal"], "S": ["1m"] * 8_000}}
    answer = post(json.dumps(huge)).get_json()
    assert (answer["status"], answer["code"], list(answer["errors"])) == (422, "wrong_tile_count", ["deal.S"])
    long_tiles = {**examples.REPLAY_DRAW, "events": [{"t": "pung", "seat": "S", "tiles": "1m" * 20_000}]}
    answer = post(json.dumps(long_tiles)).get_json()
    assert (answer["code"], list(answer["errors"])) == ("invalid_meld", ["events.0.tiles"])
    noise = {**examples.REPLAY_DRAW, "events": [{"t": "discard", "seat": "W", "tile": "zz", "x": 1}] * 400}
    answer = post(json.dumps(noise)).get_json()
    assert answer["status"] == 400 and len(answer["errors"]) <= 50 and answer["more_errors"] >= 1
    assert time.perf_counter() - started < 5.0


# --- rule book 4: 吃张打张 and a declared win under the minimum -----------------------------------

def _chow_swap(rules: typing.Any, discard: str, claimed: str = "1m", run: str = "1m2m3m") -> dict:
    # one live tile: E draws it, discards `claimed`; S chows it and discards; nobody claims: 荒庄
    return {"rules": rules, "round_wind": "E", "live_tiles": 1,
            "deal": {"E": f"{claimed} 5p5p5p 6p6p6p 7p7p7p 8p8p8p", "S": "1m 2m 3m 4m 5m 9s9s9s 1s1s1s 2s2s",
                     "W": "1p1p1p 2p2p2p 3p3p3p 4p4p4p E", "N": "3s3s3s 4s4s4s 5s5s5s 6s6s6s S"},
            "events": [d("E", "C"), x("E", claimed), {"t": "chow", "seat": "S", "tiles": run}, x("S", discard),
                       {"t": "exhaustive_draw"}]}


@pytest.mark.parametrize(("claimed", "run", "refused", "allowed"), [
    # S melds its 2m3m with E's 1m: neither 1m (the claimed kind) nor 4m (2m3m4m) may follow (RULES.md
    # §11.4, 001 "吃牌123万，吃1万，就不能出1万和4万"); 5m may
    ("1m", "1m2m3m", ("1m", "4m"), ("5m", "9s")),
    # 3m4m with a claimed 2m: neither 2m nor 5m (the two sides of 3m4m)
    ("2m", "2m3m4m", ("2m", "5m"), ("1m", "9s")),
    # 2m4m with a claimed 3m (a closed chow): only 3m makes a chow with 2m4m; 1m and 5m may follow
    ("3m", "2m3m4m", ("3m",), ("1m", "5m")),
])
def test_chow_swap_discard(claimed, run, refused, allowed):
    for tile in refused:
        body = _chow_swap("ningbo", tile, claimed, run)      # S holds 1m-5m: a copy of each to discard
        problem = _refused(body)
        assert problem is not None and (problem["code"], problem["reason"], problem["event_index"]) == (
            "illegal_event", "chow_swap_discard", 3), (tile, problem)
        # 000 allows it (ningbo-456, chow_swap_allowed on): the same log is a draw
        assert ningbo_score.replay({**body, "rules": "ningbo-456"})["outcome"] == "draw"
        # the option decides, not the preset
        assert ningbo_score.replay({**body, "rules": {"preset": "ningbo", "chow_swap_allowed": True}})[
            "outcome"] == "draw"
    for tile in allowed:
        assert ningbo_score.replay(_chow_swap("ningbo", tile, claimed, run))["outcome"] == "draw"


def test_chow_swap_discard_in_chinese():
    problem = _refused_zh(_chow_swap("ningbo", "4m"))
    assert problem["reason"] == "chow_swap_discard"
    assert problem["detail"] == ("events.3: 第 3 个事件（南家出牌）：南家刚吃牌，不能打出四万"
                                 "（不能吃张打张：一万、四万）")


def _below() -> dict:
    return {"round_wind": "E", "deal": deal(S="123m 456m 789m 12p 9s9s", W="1p1p1p 2p2p2p 5p5p5p 6p6p6p E"),
            "events": [d("E", "C"), x("E", "C"), d("S", "C"), x("S", "C"), d("W", "3p"), x("W", "3p"),
                       {"t": "win", "seat": "S"}]}


def test_below_minimum_win_is_no_win():
    # S holds 123m 456m 789m 12p 99s and wins on W's 3p: 边 1 (12p waiting on 3p), 硬胡 1 = 2 台, under
    # ningbo's 4 (RULES.md §11.6, 001 "必须达到4台或更高台数"): a 422 below_minimum at the win (event 6),
    # carrying the /v1/score body and its answer; the deal does not move (no `next`).  With the
    # minimum at 2 the same log is a win: P = 1 + 2 = 3, W pays 2 × 3 = 6 (RULES.md §7).
    body = _below()
    problem = _refused(body)
    assert problem is not None and (problem["code"], problem["reason"], problem["event_index"]) == (
        "illegal_event", "below_minimum", 6)
    assert problem["score"]["tai"] == 2 and problem["score"]["eligible"] is False
    assert problem["score_request"]["win"] == {"by": "discard", "from": "W"}
    assert "next" not in problem and problem["state"]["last_discard"] == {"seat": "W", "tile": "3p",
                                                                           "event_index": 5}
    a = ningbo_score.replay({**body, "rules": {"preset": "ningbo", "min_tai": 2}})
    assert a["score"]["tai"] == 2 and a["score"]["net"] == {"E": 0, "S": 6, "W": -6, "N": 0}
    zh = _refused_zh(body)
    assert zh["detail"] == ("events.6: 第 6 个事件（南家胡）：南家的牌只有 2 台，不够起胡的 4 台："
                            "不能胡的牌宣布胡牌不算胡（诈胡）")
    # ningbo-taishu has no minimum but requires a pattern: none here
    problem = _refused({**body, "rules": "ningbo-taishu"})
    assert problem is not None and problem["reason"] == "below_minimum"
    assert "清一色" in _refused_zh({**body, "rules": "ningbo-taishu"})["detail"]


def test_below_minimum_over_http(client):
    """The problem object of a below-minimum win through the contract-checked client (openapi.yaml)."""
    body = _below()
    response = client.post("/v1/replay", json=body)
    assert response.status_code == 422
    problem = response.get_json()
    assert problem["reason"] == "below_minimum" and problem["score"] == ningbo_score.score(problem["score_request"])


def test_seats_read_in_chinese_and_did_you_mean():
    """docs/api.md: wherever a log names a seat it may be E, S, W, N or 东, 南, 西, 北; a near miss
    gets a "did you mean" in the client's language (issue 38)."""
    zh_of = {"E": "东", "S": "南", "W": "西", "N": "北"}
    body = copy.deepcopy(examples.REPLAY_HAND)
    body["deal"] = {zh_of[k]: v for k, v in body["deal"].items()}
    body["round_wind"] = zh_of[body["round_wind"]]
    for ev in body["events"]:
        for key in ("seat", "from"):
            if key in ev:
                ev[key] = zh_of[ev[key]]
        for claim in ev.get("declined", ()):
            claim["seat"] = zh_of[claim["seat"]]
    assert ningbo_score.replay(body) == ningbo_score.replay(examples.REPLAY_HAND)
    wrong = {**examples.REPLAY_HAND, "round_wind": "North"}
    problem = _refused(wrong)
    assert problem is not None and problem["errors"] == {
        "round_wind": ['Must be one of: E, S, W, N (or 东, 南, 西, 北): did you mean "N"?']}
    assert _refused_zh(wrong)["errors"] == {
        "round_wind": ['必须是以下之一：E、S、W、N（或 东、南、西、北）：是不是 "N"（北）？']}
    events = [*examples.REPLAY_HAND["events"]]
    events[0] = {**events[0], "seat": "东风"}
    problem = _refused({**examples.REPLAY_HAND, "events": events})
    assert problem is not None and problem["errors"] == {
        "events.0.seat": ['Must be one of: E, S, W, N (or 东, 南, 西, 北): did you mean "E"?']}
    deal_keys = dict(examples.REPLAY_HAND["deal"])
    deal_keys["e"] = deal_keys.pop("E")
    problem = _refused({**examples.REPLAY_HAND, "deal": deal_keys})
    assert problem is not None and problem["errors"]["deal.e"] == [
        'Must be one of: E, S, W, N (or 东, 南, 西, 北): did you mean "E"?']
    problem = _refused({**examples.REPLAY_HAND, "round_wind": "Q"})
    assert problem is not None and problem["errors"] == {
        "round_wind": ["Must be one of: E, S, W, N (or 东, 南, 西, 北)."]}


def test_chinese_messages_are_chinese():
    """Issue 38: "此时轮不到 S draw", "discard（东）：E 手中没有 7p" mixed English into Chinese; now seats,
    events and tiles are named in Chinese."""
    problem = _refused_zh(examples.REPLAY_OUT_OF_TURN)
    assert problem["detail"].startswith("events.6: 第 6 个事件（")
    body = {"round_wind": "E", "deal": deal(), "events": [d("E", "C"), x("E", "7p")]}
    assert _refused_zh(body)["detail"] == "events.1: 第 1 个事件（东家出牌）：东家手中没有七饼"
    body = {"round_wind": "E", "deal": deal(), "events": [d("E", "C"), x("E", "C"), d("W", "C")]}
    assert _refused_zh(body)["detail"] == "events.2: 第 2 个事件（西家摸牌）：此时轮不到西家摸牌"
    import re
    for text in (_refused_zh(b)["detail"] for b in (body, examples.REPLAY_OUT_OF_TURN, _below())):
        assert not re.search(r"\b(draw|discard|win|[ESWN])\b", text.split(": ", 1)[1]), text


# --- the typed result (issue 37) ---------------------------------------------------------------

def test_typed_result_is_what_the_answer_says(generated):
    """replay_result's frozen records (DerivedWin, MeldRecord) are the facts the answer's JSON is
    written from: the same winner, win, melds and evidence, for every generated win."""
    import dataclasses

    from ningbo_score.replay_facts import evidence_json

    for hand in generated[:300]:
        result = replay_lib.replay_result(hand.body())
        answer = result.answer()
        assert answer == replay_lib.replay(hand.body())
        if result.win is None:
            assert result.outcome == "draw" and answer["evidence"] == {}
            continue
        win = result.win
        assert SEATS[win.seat] == answer["winner"] and win.by == answer["score_request"]["win"]["by"]
        assert (None if win.from_seat is None else SEATS[win.from_seat]) == answer["score_request"]["win"].get("from")
        assert evidence_json(win.evidence()) == answer["evidence"]
        assert [m.to_json() for m in win.melds] == answer["score_request"]["hand"].get("melds", [])
        with pytest.raises(dataclasses.FrozenInstanceError):
            win.by = "discard"  # type: ignore[misc]


def test_expected_lists_the_opening_flowers():
    # after E's first draw, S and W (dealt flowers) may set theirs aside; N holds none (RULES.md §11.2)
    problem = _refused({"round_wind": "E", "deal": OPENING_DEAL, "events": [d("E", "C"), d("E", "C")]})
    assert problem is not None and problem["reason"] == "out_of_turn"
    assert {"seat": "S", "t": "flower"} in problem["expected"] and {"seat": "W", "t": "flower"} in problem["expected"]
    assert {"seat": "N", "t": "flower"} not in problem["expected"]
    # once S has begun, the opening goes on from S: E's own flower is still its first turn's
    problem = _refused({"round_wind": "E", "deal": OPENING_DEAL,
                        "events": [d("E", "C"), flower("S", "2f"), d("S", "C"), d("S", "C")]})
    assert problem is not None and {"seat": "S", "t": "flower"} in problem["expected"]


def test_score_error_extra_at_construction():
    err = ningbo_score.ScoreError.one("illegal_event", "events.0", "en", "zh", extra={"event_index": 0})
    assert err.to_problem()["event_index"] == 0
    more = err.with_extra(score_request={})
    assert more.to_problem()["score_request"] == {} and "score_request" not in err.extra


def test_a_deal_problem_is_the_deal_s_not_event_0_s():
    # S dealt 12 tiles: hand_size, reported at the deal's field (issue 38: it read as if event 0,
    # E's first draw, were wrong), before event 0
    body = copy.deepcopy(examples.REPLAY_HAND)
    body["deal"]["S"] = parse_tiles(body["deal"]["S"])[:12]
    problem = _refused(body)
    assert problem is not None
    assert (problem["reason"], problem["event_index"], list(problem["errors"])) == ("hand_size", 0, ["deal.S"])
    assert problem["errors"]["deal.S"] == ["hand_size: the deal: S was dealt 12 tiles, not 13"]
    assert _refused_zh(body)["errors"]["deal.S"] == ["发牌：南家发到 12 张牌，应为 13 张"]
    # E holds C C; W dealt C C C too: five red dragons, too_many_copies at `deal`
    body = copy.deepcopy(examples.REPLAY_HAND)
    body["deal"]["W"] = "C C C 9p 7p 4p 9p P 5p 6m 7m 8p 6p"
    problem = _refused(body)
    assert problem is not None
    assert (problem["reason"], problem["event_index"], list(problem["errors"])) == ("too_many_copies", 0, ["deal"])
    assert problem["errors"]["deal"] == ["too_many_copies: the deal: 5 copies of C; at most 4 exist"]
