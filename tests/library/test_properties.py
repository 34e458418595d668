"""Property tests of ``ningbo_score.score`` over generated valid winning hands (tests/handgen.py).

Every property is a statement of docs/rules.md / docs/api.md that holds for any hand, so no expected value
is copied from the engine: the engine's answer for one form of a hand is compared with its answer
for another form of the same hand, or checked against a rule-book identity.
"""
from __future__ import annotations

import copy
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import handgen

from ningbo_score import ScoreError, score

PROPS = settings(
    derandomize=True,
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
SEATS = ("E", "S", "W", "N")
WAIT_ITEMS = {"pai_hu", "ping_hu", "edge_wait", "closed_wait", "single_wait", "dual_pung_wait"}


def _score(request: dict) -> dict:
    try:
        return score(copy.deepcopy(request))
    except ScoreError as e:  # a generated hand is valid: any refusal is an engine defect
        pytest.fail(f"valid hand refused: {e.code} {e.errors()} for request {request!r}")


def _n_caishen(request: dict) -> int:
    kinds, _ = handgen.caishen_tiles(request)
    return sum(1 for t in request["hand"]["concealed"] if t in kinds)


def _summary(resp: dict) -> dict:
    """What a user reads off a response, with list order ignored where it carries no meaning."""
    return {
        "tai": resp["tai"],
        "counted_tai": resp["counted_tai"],
        "min_tai": resp["min_tai"],
        "eligible": resp["eligible"],
        "points": resp["points"],
        "net": resp["net"],
        "items": sorted((i["id"], i["tai"], bool(i.get("bonus")), tuple(sorted(i.get("tiles") or [])))
                        for i in resp["items"]),
        "payments": sorted((p["from"], p["to"], p["amount"], p["multiplier"], p["reason"],
                            p.get("liability") or "") for p in resp["payments"]),
    }


# ------------------------------------------------------------------ invariants of one response

@PROPS
@given(handgen.winning_requests(n_caishen=0, min_tai_override=True)
       | handgen.winning_requests(n_caishen=1, min_tai_override=True)
       | handgen.winning_requests(n_caishen=3, min_tai_override=True))
def test_valid_hands_score_and_totals_add_up(request_):
    assert handgen.total_tiles_ok(request_), "generator produced an invalid hand"
    resp = _score(request_)
    preset = handgen.preset_of(request_)
    min_tai = request_["rules"]["min_tai"]

    # net: all four seats, zero-sum (docs/api.md "net always has all four seats and sums to 0")
    assert set(resp["net"]) == set(SEATS)
    assert sum(resp["net"].values()) == 0
    # tai = sum of items; counted_tai = tai minus bonus items (docs/rules.md §5)
    assert resp["tai"] == sum(i["tai"] for i in resp["items"])
    bonus = sum(i["tai"] for i in resp["items"] if i.get("bonus"))
    assert resp["counted_tai"] == resp["tai"] - bonus
    assert resp["counted_tai"] <= resp["tai"]
    assert resp["min_tai"] == min_tai
    # only three_caishen is a bonus item
    assert all(i["id"] == "three_caishen" for i in resp["items"] if i.get("bonus"))

    # eligibility: counted_tai >= min_tai (presets without required_patterns)
    if preset in handgen.PRESETS_WITHOUT_PATTERNS:
        assert resp["eligible"] == (resp["counted_tai"] >= min_tai)
    else:  # ningbo-taishu: and one of full_flush, half_flush, all_honors, all_pungs (§9)
        patterns = {"full_flush", "half_flush", "all_honors", "all_pungs"}
        has_pattern = any(i["id"] in patterns for i in resp["items"])
        assert resp["eligible"] == (resp["counted_tai"] >= min_tai and has_pattern)
    if not resp["eligible"]:
        assert resp["points"] == 0
        assert resp["payments"] == []
        assert resp["net"] == {s: 0 for s in SEATS}
        assert resp["reasons"], "an ineligible hand says why"
    else:
        # every win has at least one payer (§7), so the winner gains what the payers pay
        seat = request_["seat_wind"]
        assert resp["points"] > 0
        assert resp["payments"]
        assert all(p["to"] == seat and p["from"] != seat and p["amount"] > 0 for p in resp["payments"])
        assert resp["net"][seat] == sum(p["amount"] for p in resp["payments"]) > 0

    ids = Counter(i["id"] for i in resp["items"])
    # exactly one item comes from the wait (§5); no item_tai override drops one here
    assert sum(ids[w] for w in WAIT_ITEMS) == 1, ids
    # self_draw iff won by self-draw; no_caishen iff no caishen in hand; three_caishen iff
    # >= 3 caishen and self-draw (§5, §10.6)
    assert ("self_draw" in ids) == (request_["win"]["by"] == "self_draw")
    n = _n_caishen(request_)
    assert ("no_caishen" in ids) == (n == 0)
    assert ("three_caishen" in ids) == (n >= 3 and request_["win"]["by"] == "self_draw")
    # caishen list of the decomposition: one entry per physical caishen in the hand
    assert len(resp["decomposition"]["caishen"]) == n


@PROPS
@given(handgen.winning_requests(n_caishen=7, presets=["ningbo-7baida"], max_melds=2))
def test_seven_caishen_hands_score(request_):
    assert handgen.total_tiles_ok(request_)
    resp = _score(request_)
    assert sum(resp["net"].values()) == 0
    assert resp["tai"] == sum(i["tai"] for i in resp["items"])
    # 7 caishen, self-drawn: three_caishen (3 台) is listed (§5); no bonus in ningbo-7baida
    # (no three_caishen_bonus, rule book 2), so every 台 counts
    assert [i["tai"] for i in resp["items"] if i["id"] == "three_caishen"] == [3]
    assert resp["counted_tai"] == resp["tai"]
    assert resp["eligible"] == (resp["counted_tai"] >= 5)


# ------------------------------------------------------------------ same hand, other form

@PROPS
@given(st.one_of(handgen.winning_requests(n_caishen=0), handgen.winning_requests(n_caishen=2)),
       st.data())
def test_order_of_tiles_melds_and_flowers_does_not_matter(request_, data):
    base = _score(request_)
    shuffled = copy.deepcopy(request_)
    hand = shuffled["hand"]
    hand["concealed"] = data.draw(st.permutations(hand["concealed"]), label="concealed")
    if hand.get("melds"):
        melds = data.draw(st.permutations(hand["melds"]), label="melds")
        hand["melds"] = [{**m, "tiles": data.draw(st.permutations(m["tiles"]))} for m in melds]
    if hand.get("flowers"):
        hand["flowers"] = data.draw(st.permutations(hand["flowers"]), label="flowers")
    assert _summary(_score(shuffled)) == _summary(base)


@PROPS
@given(st.one_of(handgen.winning_requests(n_caishen=0), handgen.winning_requests(n_caishen=1),
                 handgen.winning_requests(n_caishen=3)))
def test_compact_string_form_scores_like_arrays(request_):
    compact = handgen.compact_form(request_)
    assert _score(compact) == _score(request_)


# ------------------------------------------------------------------ caishen swap

@PROPS
@given(st.one_of(handgen.winning_requests(n_caishen=0, win_by=["self_draw"], caishen_mode="indicator"),
                 handgen.winning_requests(n_caishen=0, win_by=["self_draw"], caishen_mode="kinds"),
                 handgen.winning_requests(n_caishen=1, win_by=["self_draw"]),
                 handgen.winning_requests(n_caishen=2, win_by=["self_draw"])),
       st.data())
def test_swapping_a_tile_for_a_caishen_keeps_a_self_drawn_win(request_, data):
    """A caishen may stand for any tile, its own old face included (§2), so replacing a
    concealed non-winning tile by a caishen keeps the same reading available: the hand still
    scores, and its 台 drop at most by the lost 硬胡 (no_caishen); three_caishen can only add."""
    base = _score(request_)
    kinds, physical = handgen.caishen_tiles(request_)
    concealed = request_["hand"]["concealed"]
    in_hand = Counter(t for t in concealed if t in kinds)
    spare = sorted(k for k in kinds if not handgen.is_flower(k) and physical[k] > in_hand[k])
    swappable = sorted({i for i, t in enumerate(concealed)
                        if t not in kinds and t != request_["hand"]["winning_tile"]})
    assume(spare and swappable)
    pos = data.draw(st.sampled_from(swappable), label="position")
    cai = data.draw(st.sampled_from(spare), label="caishen")
    swapped = copy.deepcopy(request_)
    swapped["hand"]["concealed"][pos] = cai
    assert handgen.total_tiles_ok(swapped)

    resp = _score(swapped)
    ids = {i["id"] for i in resp["items"]}
    assert "no_caishen" not in ids
    lost = sum(i["tai"] for i in base["items"] if i["id"] == "no_caishen")
    assert resp["tai"] >= base["tai"] - lost, (base["items"], resp["items"])


# ------------------------------------------------------------------ tenpai hands

@PROPS
@given(handgen.tenpai_hands(n_caishen=0, win_by=["self_draw"]))
def test_tenpai_hand_is_one_tile_short(pair):
    """13 − 3m concealed tiles is not a hand (§3 wants 14 − 3m): wrong_tile_count; adding the
    tile the generator took out makes it score again."""
    tenpai, tile = pair
    melds = tenpai["hand"].get("melds") or []
    assert len(tenpai["hand"]["concealed"]) == 13 - 3 * len(melds)
    short = copy.deepcopy(tenpai)
    short["hand"]["winning_tile"] = short["hand"]["concealed"][0]
    with pytest.raises(ScoreError) as err:
        score(short)
    assert err.value.code == "wrong_tile_count"
    full = copy.deepcopy(tenpai)
    full["hand"]["concealed"] = full["hand"]["concealed"] + [tile]
    full["hand"]["winning_tile"] = tile
    _score(full)


# ------------------------------------------------------------------ rule-book oracles
# Items that do not depend on how the concealed tiles are read (no caishen in hand): worked out
# from docs/rules.md §5 directly; payments from §6 and §7.

_SEAT_FLOWERS = {"E": ("1f", "5f"), "S": ("2f", "6f"), "W": ("3f", "7f"), "N": ("4f", "8f")}
_FLOWER_GROUPS = (("1f", "2f", "3f", "4f"), ("5f", "6f", "7f", "8f"))
_FIXED_IDS = {"self_draw", "kong_bloom", "robbing_kong", "last_tile", "heavenly", "earthly",
              "no_caishen", "full_flush", "half_flush", "all_honors", "dragon_pung",
              "seat_wind_pung", "round_wind_pung", "seat_flower", "flower_set", "all_flowers"}
_PRESET_POINTS = {"ningbo-456": "doubling"}
_PRESET_OPTIONS = {
    # option values of docs/rules.md §9 the payment oracle needs
    "ningbo": dict(chi=True, related_discarder="add", kong_bloom_others_pay=False,
                   liability_others_pay=False, liability_cap=None, hand_cap=1000,
                   robbed_kong_liability=False),
    "ningbo-456": dict(chi=True, related_discarder="add",
                       kong_bloom_others_pay=True, liability_others_pay=False, liability_cap=5, hand_cap=None,
                       robbed_kong_liability=True),
    "ningbo-bianfeng": dict(chi=True, related_discarder="add",
                            kong_bloom_others_pay=False, liability_others_pay=False, liability_cap=None, hand_cap=None,
                            robbed_kong_liability=False),
    "ningbo-taishu": dict(chi=False, related_discarder="five",
                          kong_bloom_others_pay=False, liability_others_pay=False, liability_cap=5, hand_cap=None,
                          robbed_kong_liability=False),
    "ningbo-7baida": dict(chi=False, related_discarder="five",
                          kong_bloom_others_pay=True, liability_others_pay=True, liability_cap=5, hand_cap=None,
                          robbed_kong_liability=False),
}


def expected_fixed_items(req: dict) -> Counter:
    """(id, tai) -> occurrences for the reading-independent items of a caishen-free hand."""
    hand, win, seat = req["hand"], req["win"], req["seat_wind"]
    melds = hand.get("melds") or []
    out: Counter = Counter()
    if win["by"] == "self_draw":
        out[("self_draw", 1)] += 1
    for flag, tai in (("kong_replacement", 1), ("last_tile", 1), ("heavenly", 8), ("earthly", 6)):
        if win.get(flag):
            out[("kong_bloom" if flag == "kong_replacement" else flag, tai)] += 1
    if win["by"] == "robbing_kong":
        out[("robbing_kong", 1)] += 1
    out[("no_caishen", 1)] += 1
    tiles = list(hand["concealed"]) + [t for m in melds for t in m["tiles"]]
    suits = {t[1] for t in tiles if handgen.is_suited(t)}
    honors = [t for t in tiles if not handgen.is_suited(t)]
    if not suits:
        out[("all_honors", 8)] += 1
    elif len(suits) == 1:
        out[("half_flush", 2) if honors else ("full_flush", 4)] += 1
    # honor pungs: an honor can't be in a chow, so 3 concealed copies are a pung (4 never occur:
    # pung + pair would be 5)
    counts = Counter(hand["concealed"])
    honor_pungs = [k for k in handgen.HONORS if counts[k] >= 3]
    honor_pungs += [m["tiles"][0] for m in melds if m["type"] != "chow" and not handgen.is_suited(m["tiles"][0])]
    for k in honor_pungs:
        if k in handgen.DRAGONS:
            out[("dragon_pung", 1)] += 1
    if seat in honor_pungs:
        out[("seat_wind_pung", 1)] += 1
    if req["round_wind"] in honor_pungs:
        out[("round_wind_pung", 1)] += 1
    flowers = set(hand.get("flowers") or [])
    if len(flowers) == 8:
        out[("all_flowers", 8)] += 1
    else:
        for group in _FLOWER_GROUPS:
            if flowers >= set(group):
                out[("flower_set", 2)] += 1
            else:
                out[("seat_flower", 1)] += sum(1 for f in _SEAT_FLOWERS[seat] if f in group and f in flowers)
    return +out


def expected_amounts(req: dict, resp: dict) -> tuple[int, dict[str, int]]:
    """(hand points, amount per payer) of an eligible hand (docs/rules.md §6, §7), from the engine's
    tai and counted_tai."""
    preset = handgen.preset_of(req)
    opt = _PRESET_OPTIONS[preset]
    base = req.get("base_points", 1)
    if _PRESET_POINTS.get(preset) == "doubling":
        points = base * 2 ** max(0, resp["tai"] - 4)        # the full 台, from 4 whatever min_tai (rule book 3)
    else:
        points = base * (1 + resp["tai"])
    seat, win = req["seat_wind"], req["win"]
    others = [s for s in SEATS if s != seat]
    claimed = Counter(m["from"] for m in req["hand"].get("melds") or []
                      if m.get("from") and (opt["chi"] or m["type"] != "chow"))
    claims = req.get("claims_from_winner") or {}
    rel = {s: int(claimed[s] >= 3) + int(claims.get(s, 0) >= 3) for s in others}  # 2 = mutual
    mult = {s: 0 for s in others}
    if win["by"] == "discard":
        d = win["from"]
        for s in others:
            mult[s] = 2 * rel[s]
        mult[d] = 5 * rel[d] if (rel[d] and opt["related_discarder"] == "five") else 2 + 2 * rel[d]
    elif win["by"] == "robbing_kong":
        if opt["robbed_kong_liability"]:                    # a 包 partner pays as on a self-draw (rule book 4)
            mult = {s: 5 * rel[s] for s in others}
        mult[win["from"]] = 5                               # the robbed player 5, whatever 包 says (rule book 2)
    elif win.get("kong_fed_by"):
        f = win["kong_fed_by"]
        for s in others:
            if s == f:
                mult[s] = 5 + 5 * rel[s]
            elif rel[s]:
                mult[s] = 5 * rel[s]
            else:
                mult[s] = 1 if opt["kong_bloom_others_pay"] else 0
    elif any(rel.values()):     # unrelated players pay 1 only under liability_others_pay (rule book 3)
        mult = {s: 5 * rel[s] or int(opt["liability_others_pay"]) for s in others}
    else:
        mult = {s: 1 for s in others}
    if opt["liability_cap"] is not None:
        mult = {s: min(m, opt["liability_cap"]) for s, m in mult.items()}
    amounts = {s: m * points for s, m in mult.items() if m > 0}
    cap = opt["hand_cap"]
    if cap is not None:
        amounts = {s: min(a, cap) for s, a in amounts.items()}
        total = sum(amounts.values())
        if total > cap:
            scaled = {s: a * cap // total for s, a in amounts.items()}
            left = cap - sum(scaled.values())
            order = sorted(amounts, key=lambda s: (-(amounts[s] * cap - scaled[s] * total), SEATS.index(s)))
            for s in order[:left]:
                scaled[s] += 1
            amounts = scaled
    return points, amounts


@PROPS
@given(handgen.winning_requests(n_caishen=0, min_tai_override=True))
def test_reading_independent_items_follow_the_rule_book(request_):
    resp = _score(request_)
    got = Counter((i["id"], i["tai"]) for i in resp["items"] if i["id"] in _FIXED_IDS)
    assert got == expected_fixed_items(request_)


@PROPS
@given(st.one_of(handgen.winning_requests(n_caishen=0, min_tai_override=True),
                 handgen.winning_requests(n_caishen=3, min_tai_override=True)))
def test_points_and_payments_follow_the_rule_book(request_):
    resp = _score(request_)
    assume(resp["eligible"])
    points, want = expected_amounts(request_, resp)
    assert resp["points"] == points
    assert {p["from"]: p["amount"] for p in resp["payments"]} == want
    assert resp["net"][request_["seat_wind"]] == sum(want.values())


# ------------------------------------------------------------------ the decomposition shown

_WAIT_ITEM = {"single": "single_wait", "dual_pung": "dual_pung_wait", "closed": "closed_wait",
              "edge": "edge_wait"}


def _is_chow(tiles: list[str]) -> bool:
    if not all(handgen.is_suited(t) for t in tiles) or len({t[1] for t in tiles}) != 1:
        return False
    ranks = sorted(int(t[0]) for t in tiles)
    return len(ranks) == 3 and ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1


@PROPS
@given(st.one_of(handgen.winning_requests(n_caishen=0), handgen.winning_requests(n_caishen=1),
                 handgen.winning_requests(n_caishen=3),
                 handgen.winning_requests(n_caishen=7, presets=["ningbo-7baida"], max_melds=2)))
def test_decomposition_is_a_reading_of_the_hand_and_explains_the_items(request_):
    """The decomposition shown (docs/api.md, docs/rules.md §3/§4) reads exactly the given tiles, and the
    shape items of the response are the ones that reading gives (§5)."""
    resp = _score(request_)
    dec = resp["decomposition"]
    hand = request_["hand"]
    melds = hand.get("melds") or []
    kinds, _ = handgen.caishen_tiles(request_)

    # the caishen entries are exactly the physical caishen tiles of the hand
    assert sorted(c["tile"] for c in dec["caishen"]) == sorted(t for t in hand["concealed"] if t in kinds)
    # concealed sets + pair = the concealed tiles with each caishen read as its face
    faces = [t for t in hand["concealed"] if t not in kinds] + [c["face"] for c in dec["caishen"]]
    concealed_sets = [s for s in dec["sets"] if s["source"] == "concealed"]
    meld_sets = [s for s in dec["sets"] if s["source"] == "meld"]
    assert Counter(faces) == Counter(dec["pair"] + [t for s in concealed_sets for t in s["tiles"]])
    # meld sets = the melds
    assert sorted((s["type"], tuple(sorted(s["tiles"]))) for s in meld_sets) == \
        sorted((m["type"], tuple(sorted(m["tiles"]))) for m in melds)
    # 4 sets and a pair, each well formed
    assert len(dec["sets"]) == 4
    assert len(dec["pair"]) == 2 and dec["pair"][0] == dec["pair"][1]
    for s in dec["sets"]:
        if s["type"] == "chow":
            assert _is_chow(s["tiles"]), s
        else:
            assert len(set(s["tiles"])) == 1 and len(s["tiles"]) == (4 if s["type"] == "kong" else 3), s
    # the winning tile: a natural one keeps its face; it sits where the wait says (§4)
    w = dec["winning_tile"]
    if hand["winning_tile"] not in kinds:
        assert w == hand["winning_tile"]
    wait = dec["wait"]
    if wait == "single":
        assert dec["pair"][0] == w
    elif wait == "dual_pung":
        assert any(s["type"] == "pung" and s["tiles"][0] == w for s in concealed_sets)
    else:
        chows = [sorted(s["tiles"], key=lambda t: int(t[0])) for s in concealed_sets if s["type"] == "chow"]
        if wait == "closed":
            assert any(c[1] == w for c in chows)
        elif wait == "edge":
            assert any((c[2] == w and c[0][0] == "1") or (c[0] == w and c[2][0] == "9") for c in chows)
        else:
            assert wait == "two_sided"
            assert any((c[0] == w and c[2][0] != "9") or (c[2] == w and c[0][0] != "1") for c in chows)

    ids = Counter(i["id"] for i in resp["items"])
    all_chows = all(s["type"] == "chow" for s in dec["sets"])
    if wait == "two_sided":
        ping = all_chows and dec["pair"][0] not in (request_["seat_wind"], request_["round_wind"])
        assert ids["ping_hu"] == int(ping) and ids["pai_hu"] == int(not ping)
    else:
        assert ids[_WAIT_ITEM[wait]] == 1
    assert ids["all_pungs"] == int(all(s["type"] != "chow" for s in dec["sets"]))
    assert ids["big_single_wait"] == int(len(melds) == 4)
    pung_kinds = [s["tiles"][0] for s in dec["sets"] if s["type"] != "chow"]
    assert ids["dragon_pung"] == sum(1 for k in pung_kinds if k in handgen.DRAGONS)
    assert ids["seat_wind_pung"] == int(request_["seat_wind"] in pung_kinds)
    assert ids["round_wind_pung"] == int(request_["round_wind"] in pung_kinds)
    read = [t for s in dec["sets"] for t in s["tiles"]] + dec["pair"]
    suits = {t[1] for t in read if handgen.is_suited(t)}
    has_honors = any(not handgen.is_suited(t) for t in read)
    assert ids["all_honors"] == int(not suits)
    assert ids["full_flush"] == int(len(suits) == 1 and not has_honors)
    assert ids["half_flush"] == int(len(suits) == 1 and has_honors)
