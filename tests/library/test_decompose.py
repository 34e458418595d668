"""The hand divider with caishen against brute force: every caishen replaced by every face.

For hands with one or two caishen, the best shape 台 over the summaries `decompose` returns must
equal the best over all face assignments scored by the classic divider `plain` — the wildcard
logic (natural groups completed by caishen, pure caishen blocks chosen by class) loses nothing
and invents nothing.  And for caishen-free hands `plain` and `decompose` agree exactly.
"""
import random

import pytest

from ningbo_score.decompose import BAD_ANY, BAD_SINGLE, decompose, plain
from ningbo_score.tiles import EAST
from ningbo_score.engine import SHAPE_GROUPS
from ningbo_score.rules import preset_rules

RULES = preset_rules("ningbo")
FACES = range(34)


class _Ctx:
    n_melds = 0

    def __init__(self, seat_t, round_t):
        self.seat_tile, self.round_tile = seat_t, round_t


def best_shape_tai(readings, seat_t, round_t):
    groups = [(g, g.values(_Ctx(seat_t, round_t))) for g in SHAPE_GROUPS]
    best = -1
    for key, (dragons, _rep) in readings.items():
        key &= ~(BAD_ANY | BAD_SINGLE)
        total = sum(g.evaluate(g.tais(RULES.signature), values, key, dragons)[0] for g, values in groups)
        best = max(best, total)
    return best


def random_complete(rng):
    while True:
        tiles = []
        for _ in range(4):
            if rng.random() < 0.4:
                k = rng.randrange(34)
                tiles += [k] * 3
            else:
                k = rng.randrange(3) * 9 + rng.randrange(7)
                tiles += [k, k + 1, k + 2]
        k = rng.randrange(34)
        tiles += [k, k]
        if all(tiles.count(t) <= 4 for t in tiles):
            return tiles


def random_caishen_hand(rng, n_caishen):
    """(natural tiles, winning tile, seat wind, round wind) of a complete hand with n tiles other
    than the winning tile turned into caishen (wildcards)."""
    tiles = random_complete(rng)
    rng.shuffle(tiles)
    w = tiles[0]
    return sorted(tiles[n_caishen + 1:] + [w]), w, 27 + rng.randrange(4), 27 + rng.randrange(4)


@pytest.mark.parametrize("n_caishen", [1, 2])
def test_caishen_readings_match_brute_force(n_caishen):
    rng = random.Random(20261129 + n_caishen)
    checked = 0
    while checked < (60 if n_caishen == 1 else 12):
        naturals, w, seat_t, round_t = random_caishen_hand(rng, n_caishen)
        fast = decompose(tuple(naturals), n_caishen, 4, w, False, seat_t, round_t)
        brute = -1
        for f1 in FACES:
            for f2 in (FACES if n_caishen == 2 else [None]):
                faces = [f1] + ([f2] if f2 is not None else [])
                hand = tuple(sorted(naturals + faces))
                brute = max(brute, best_shape_tai(plain(hand, 4, w, seat_t, round_t), seat_t, round_t))
        assert best_shape_tai(fast, seat_t, round_t) == brute, (naturals, n_caishen, w)
        checked += 1


def test_plain_agrees_with_the_general_divider():
    rng = random.Random(7)
    for _ in range(400):
        tiles = random_complete(rng)
        w = rng.choice(tiles)
        seat_t, round_t = 27 + rng.randrange(4), 27 + rng.randrange(4)
        a = decompose(tuple(sorted(tiles)), 0, 4, w, False, seat_t, round_t)
        b = plain(tuple(sorted(tiles)), 4, w, seat_t, round_t)
        assert {k: v[0] for k, v in a.items()} == {k: v[0] for k, v in b.items()}


def test_pure_caishen_hand_takes_its_best_faces():
    # 14 caishen: four dragon pungs of any face and a pair: all_honors 8 + all_pungs 2 + 4 dragon
    # pungs + a single/dual-pung wait 1 = 15 shape 台 (no copy limit on faces, docs/rules.md §10.1)
    readings = decompose((), 14, 4, None, True, 28, 27)
    assert best_shape_tai(readings, 28, 27) == 8 + 2 + 4 + 1


def test_every_placement_of_the_winning_tile_round_trips_through_its_option_bit():
    """A group holding the winning tile is carried as one option bit (decompose._opt_bit) and
    turned back into key bits (decompose.options_of): wait and discard-restriction bits survive."""
    from ningbo_score import decompose as d

    seen = set()
    for by_copies in d.CLASSES_BY_KIND:
        for cell in (c for by_caishen in by_copies for c in by_caishen):
            for cls in cell[2]:
                for member in cls.members:
                    for mode, wk in [(2, -1)] + [(1, kind) for kind in member.natural_slot]:
                        for slot in d._w_slots(mode, wk, member):
                            group = d.Group(cls.gtype, member.faces, member.caishen, slot)
                            key = d.group_key(group, EAST, EAST)[0]
                            bit = d._opt_bit(key)
                            assert d.options_of(bit >> d.OPT_SHIFT) == (key & d._OPT_BITS,), group
                            seen.add(key & d._OPT_BITS)
    # every wait occurs, with and without a caishen beside a natural winning tile
    assert len(seen) == 10
    assert max(d._opt_bit(k) for k in seen) < 1 << 30


def test_counts_hold_every_kind_and_a_group_comes_out_by_subtraction():
    """The search's tiles (decompose._counts): two ints of 3-bit counts, split between dots and
    bamboos; a class subtracts its natural tiles from the right one."""
    from ningbo_score import decompose as d

    rng = random.Random(3)
    for _ in range(200):
        tiles = tuple(sorted(rng.choice(range(34)) for _ in range(rng.randrange(15))))
        tiles = tuple(t for t in tiles if tiles.count(t) <= 4)
        lo, hi = d._counts(tiles)
        assert lo < 1 << 64 and hi < 1 << 64
        assert all((lo >> (3 * kind)) & 7 == tiles.count(kind) for kind in range(d._SPLIT))
        assert all((hi >> (3 * (kind - d._SPLIT))) & 7 == tiles.count(kind) for kind in range(d._SPLIT, 34))
    for k, by_copies in enumerate(d.CLASSES_BY_KIND):
        for cls in by_copies[3][2][2]:
            lo, hi = d._counts(cls.removed)
            assert (hi if cls.word else lo) == cls.take and (lo if cls.word else hi) == 0, (k, cls.removed)


@pytest.mark.parametrize("n_caishen", [1, 2, 3, 5])
def test_the_decomposition_shown_is_the_reading_it_summarises(n_caishen):
    """Each summary's representative (kept by the search, not searched for again) is a real
    decomposition of the hand: its natural slots are exactly the natural tiles, its caishen
    slots exactly the caishen, one group holds the winning tile, and its groups' keys and dragon
    pungs make the summary's key and dragon pungs."""
    from collections import Counter

    from ningbo_score.decompose import group_key

    rng = random.Random(41 + n_caishen)
    for _ in range(40):
        naturals, w, seat_t, round_t = random_caishen_hand(rng, n_caishen)
        readings = decompose(tuple(naturals), n_caishen, 4, w, False, seat_t, round_t)
        assert readings
        for key, (dragons, rep) in readings.items():
            groups = rep.groups()
            assert len(groups) == 5 and [g.type for g in groups].count("pair") == 1
            natural = Counter(f for g in groups for f, c in zip(g.faces, g.caishen) if not c)
            assert natural == Counter(naturals), (naturals, groups)
            assert sum(c for g in groups for c in g.caishen) == n_caishen
            holding = [g for g in groups if g.winning >= 0]
            assert len(holding) == 1 and holding[0].faces[holding[0].winning] == w
            assert not holding[0].caishen[holding[0].winning]
            got_key = got_dragons = 0
            for g in groups:
                k, d = group_key(g, seat_t, round_t)
                got_key |= k
                got_dragons += d
            assert (got_key, got_dragons) == (key, dragons), (naturals, groups)


def test_a_caishen_winning_tile_is_shown_in_a_caishen_slot():
    # 14 caishen, won on a caishen: every group is caishen only, and the winning tile sits in one
    readings = decompose((), 14, 4, None, True, 27, 27)
    for _key, (_dragons, rep) in readings.items():
        groups = rep.groups()
        assert len(groups) == 5 and all(all(g.caishen) for g in groups)
        assert sum(g.winning >= 0 for g in groups) == 1
