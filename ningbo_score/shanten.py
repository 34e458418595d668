"""Shanten (向听): how many tiles a hand lacks of 4 sets and a pair, caishen (wildcards) included.

Exact, by tables per suit.  A hand with ``m`` melds needs ``s = 4 − m`` more sets and a pair:
``3s + 2`` concealed tiles (its *target*).  Of a target, the hand's natural tiles fill as many
places as they can, its caishen fill any others (a caishen stands for any tile, and copy limits
are ignored, as for a caishen's face: docs/rules.md §10.1), and each place left is a tile to draw.  So

    missing = 3s + 2 − (most natural tiles a target can hold) − caishen
    shanten = missing − 1            (−1: the tiles already form 4 sets and a pair)

for a hand of ``3s + 1`` tiles (waiting to draw) as for one of ``3s + 2`` (it has drawn, and
``missing − 1`` is what its best discard leaves).

*The most natural tiles a target can hold* splits by suit, since a set or a pair lies within one
suit (or one honor).  Each part of a target holds a *block* of hand tiles: a set holds one to
three tiles of one kind, or of a chow (``k``; ``k, k+1``; ``k, k+2``; ``k, k+1, k+2``), and the
pair one or two of one kind.  A suit's :func:`table` says, for every number of set blocks
(0 to 4) and pair blocks (0 or 1), the most tiles such blocks take from the suit's counts; its
first kind's first copy is either left out or the lowest tile of a block, which gives a small
recursion, memoised on the suit's counts (with no leading or trailing empty kinds: a pattern
means the same wherever it lies in its suit).  The tables of the four parts (characters, dots,
bamboos, honors) combine by :func:`join`; a target may leave sets and the pair empty (the
caishen or draws fill them), so every entry is "at most that many blocks".
"""
from __future__ import annotations

import typing
from functools import cache, lru_cache

from .tiles import EAST, N_KINDS

if typing.TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeAlias

    #: see TABLE_SIZE
    Table: TypeAlias = tuple[int, ...]

MAX_SETS = 4
#: A table is a tuple of (MAX_SETS + 1) × 2 numbers: entry ``2 * sets + pairs`` is the most tiles
#: that ``sets`` set blocks and ``pairs`` pair blocks can take (``pairs`` 0 or 1).
TABLE_SIZE = (MAX_SETS + 1) * 2
EMPTY = (0,) * TABLE_SIZE
SUITS = ((0, 9), (9, 18), (18, EAST))      # the suited kinds' ranges: m, p, s
HONORS = range(EAST, N_KINDS)
#: The suit tables kept between calls: one per count pattern seen (at most this many).
TABLE_CACHE = 1 << 15


def _with_block(table: Table, sets: int, pairs: int, taken: int) -> Table:
    """``table`` (of the tiles after a block) with that block added: ``sets`` set blocks and
    ``pairs`` pair blocks more, ``taken`` tiles more."""
    out = [0] * TABLE_SIZE
    for s in range(sets, MAX_SETS + 1):
        for p in range(pairs, 2):
            out[2 * s + p] = table[2 * (s - sets) + (p - pairs)] + taken
    return tuple(out)


def _best(a: Table, b: Table) -> Table:
    """Entry by entry, the larger."""
    return tuple(x if x > y else y for x, y in zip(a, b))


def _trimmed(counts: tuple[int, ...]) -> tuple[int, ...]:
    """The counts without empty kinds at either end."""
    lo, hi = 0, len(counts)
    while lo < hi and not counts[lo]:
        lo += 1
    while hi > lo and not counts[hi - 1]:
        hi -= 1
    return counts[lo:hi]


@lru_cache(maxsize=TABLE_CACHE)
def _run_table(pattern: tuple[int, ...]) -> Table:
    """The table of a suit's counts (trimmed: the first and last kinds hold tiles), chows allowed."""
    if not pattern:
        return EMPTY
    n = pattern[0]
    rest = pattern[1:]
    # the first copy left out of every block
    best = _run_table(_trimmed((n - 1,) + rest))
    # the lowest tile of a block of one kind: 1-3 copies for a set, 1-2 for the pair
    for take in range(1, min(n, 3) + 1):
        after = _run_table(_trimmed((n - take,) + rest))
        best = _best(best, _with_block(after, 1, 0, take))
        if take <= 2:
            best = _best(best, _with_block(after, 0, 1, take))
    # the lowest tile of a chow block: with the next kind, the one after, or both
    has_next = len(rest) >= 1 and rest[0] > 0
    has_after = len(rest) >= 2 and rest[1] > 0
    for use_next, use_after in ((True, False), (False, True), (True, True)):
        if (use_next and not has_next) or (use_after and not has_after):
            continue
        left = list(pattern)
        left[0] -= 1
        if use_next:
            left[1] -= 1
        if use_after:
            left[2] -= 1
        taken = 1 + use_next + use_after
        best = _best(best, _with_block(_run_table(_trimmed(tuple(left))), 1, 0, taken))
    return best


@cache   # one entry per count of a kind in a hand: at most 14 (advice by value draws with replacement)
def _kind_table(n: int) -> Table:
    """The table of one honor kind held ``n`` times (no chows)."""
    best = EMPTY
    if n:
        best = _kind_table(n - 1)           # a copy left out
        for take in range(1, min(n, 3) + 1):
            after = _kind_table(n - take)
            best = _best(best, _with_block(after, 1, 0, take))
            if take <= 2:
                best = _best(best, _with_block(after, 0, 1, take))
    return best


def join(a: Table, b: Table) -> Table:
    """The table of two parts held together: the blocks shared out between them."""
    out = [0] * TABLE_SIZE
    for s in range(MAX_SETS + 1):
        for p in range(2):
            best = 0
            for sa in range(s + 1):
                for pa in range(p + 1):
                    v = a[2 * sa + pa] + b[2 * (s - sa) + (p - pa)]
                    if v > best:
                        best = v
            out[2 * s + p] = best
    return tuple(out)


def joined_entry(a: Table, b: Table, sets: int) -> int:
    """``join(a, b)[2 * sets + 1]`` alone: the most tiles of ``sets`` sets and a pair."""
    best = 0
    for sa in range(sets + 1):
        rest = 2 * (sets - sa)
        v = a[2 * sa] + b[rest + 1]
        if v > best:
            best = v
        v = a[2 * sa + 1] + b[rest]
        if v > best:
            best = v
    return best


@lru_cache(maxsize=TABLE_CACHE)
def _honor_table(counts: tuple[int, ...]) -> Table:
    """The table of the honors, from their counts sorted (honors are alike but for their face)."""
    table = EMPTY
    for n in counts:
        if n:
            table = join(table, _kind_table(n))
    return table


def suit_table(counts: Sequence[int], lo: int, hi: int) -> Table:
    """The table of kinds ``lo`` to ``hi − 1`` of ``counts``: one suit, or the honors."""
    return _part_table(tuple(counts[lo:hi]), lo >= HONORS.start)


def _part_table(part: tuple[int, ...], honors: bool) -> Table:
    """The table of one part's counts: the honors' (alike but for their face), or a suit's run."""
    if honors:
        return _honor_table(tuple(sorted(part, reverse=True)))
    return _run_table(_trimmed(part))


PARTS = SUITS + ((HONORS.start, HONORS.stop),)


def tables(counts: Sequence[int]) -> list[Table]:
    """The table of each of PARTS."""
    return [suit_table(counts, lo, hi) for lo, hi in PARTS]


def held_in_target(counts: Sequence[int], sets: int) -> int:
    """The most natural tiles of ``counts`` (34 kinds, faces) that ``sets`` sets and a pair hold."""
    t = tables(counts)
    return joined_entry(join(t[0], t[1]), join(t[2], t[3]), sets)


def shanten_from_held(held: int, caishen: int, sets: int) -> int:
    """The shanten of a hand whose target holds ``held`` natural tiles, plus ``caishen`` caishen."""
    missing = 3 * sets + 2 - held - caishen
    return missing - 1 if missing > 0 else -1


def shanten(counts: Sequence[int], caishen: int = 0, melds: int = 0) -> int:
    """The shanten of a concealed hand: ``counts`` of its natural tiles (34 kinds, by face),
    ``caishen`` caishen, beside ``melds`` melds.  13 − 3m tiles: 0 is tenpai (听牌); 14 − 3m
    tiles: −1 if they form 4 sets and a pair, else the shanten its best discard leaves."""
    sets = MAX_SETS - melds
    return shanten_from_held(held_in_target(counts, sets), caishen, sets)


def is_winning_shape(counts: Sequence[int], caishen: int = 0, melds: int = 0) -> bool:
    """Whether 14 − 3m concealed tiles (``counts`` and ``caishen``) form the sets and pair left."""
    return sum(counts) + caishen == 3 * (MAX_SETS - melds) + 2 and shanten(counts, caishen, melds) == -1


def draw_shanten(counts: Sequence[int], caishen: int = 0, melds: int = 0) -> tuple[int, list[int], int]:
    """A hand of 13 − 3m tiles and every draw: ``(its shanten, [the shanten after drawing kind k
    and the best discard, for k in 0-33], the shanten after drawing a caishen)``.

    The tables of the three parts a draw leaves alone are joined once per part, so each draw
    costs one entry of a join; a part's tables with each draw come from :func:`_drawn_tables`."""
    sets = MAX_SETS - melds
    t = tables(counts)
    low, high = join(t[0], t[1]), join(t[2], t[3])
    others = [join(t[1], high), join(t[0], high), join(low, t[3]), join(low, t[2])]
    held = joined_entry(t[0], others[0], sets)
    after = [0] * N_KINDS
    for part, (lo, hi) in enumerate(PARTS):
        rest = others[part]
        k = lo
        for table in _drawn_tables(tuple(counts[lo:hi]), lo):
            after[k] = shanten_from_held(joined_entry(table, rest, sets), caishen, sets)
            k += 1
    return (shanten_from_held(held, caishen, sets), after,
            shanten_from_held(held, caishen + 1, sets))


#: The parts' tables with each draw kept between calls: about 1.3 KB each (nine tables and the
#: key), so at most about 5.5 MB.
DRAWN_CACHE = 1 << 12


@lru_cache(maxsize=DRAWN_CACHE)
def _drawn_tables(part: tuple[int, ...], lo: int) -> tuple[Table, ...]:
    """The tables of a part's counts (``part``, its kinds from ``lo``) with one copy more of each
    of its kinds, in order: neighbouring hands share their parts, so a draw's table is looked up
    once per part, not once per kind."""
    out = []
    drawn = list(part)
    honors = lo >= HONORS.start
    for i in range(len(drawn)):
        drawn[i] += 1
        out.append(_part_table(tuple(drawn), honors))
        drawn[i] -= 1
    return tuple(out)


def clear_tables() -> None:
    """Forget the tables kept between calls (benchmarks time a cold start with it)."""
    _run_table.cache_clear()
    _honor_table.cache_clear()
    _drawn_tables.cache_clear()
