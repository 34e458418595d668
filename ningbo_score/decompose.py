"""The hand divider: every reading of the concealed tiles as sets and a pair, caishen included.

Scoring a reading needs only a small summary of it, so instead of listing decompositions one by
one this returns the distinct *summaries* (with one representative decomposition each):

    key: has a pung, has a chow, suits, seat-wind pung, round-wind pung, a pair that carries
    台 (seat or round wind, dragon), the wait, bad_single, bad_any (bit fields of an int, see
    HAS_PUNG …)

plus the number of dragon pungs (among keys equal otherwise, more dragon pungs is never worse, so
only the largest is kept).  ``bad_single``/``bad_any`` say whether the winning tile's group breaks
the discard restriction of docs/rules.md §3 (`single_wait` / `any_group`).

The natural tiles are taken lowest kind first; each forms a group with natural tiles and/or
caishen.  Once no natural tile is left, the remaining caishen form *pure* blocks, which can take
any face: those are not enumerated face by face but chosen among one face per scoring class
(a suit pung, a dragon pung, the seat or round wind, ...).  Where the winning tile sits is not
searched: each partial reading carries the set of places it could take (see OPT_SHIFT), so
readings that differ only in that are found once.  Each sub-problem's answer (:class:`Readings`)
keeps, beside each reading, the choice that first gave it; the decomposition shown is read off
those choices (:meth:`Kept.groups`), not searched for again.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from .tiles import DRAGONS, EAST, N_KINDS, NORTH, SUIT_BIT, is_suited, rank

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence


class Group(NamedTuple):
    """One group of a reading: ``type`` "pair" | "pung" | "chow", its ``faces``, which of its slots
    are caishen (``caishen``, a bool per face), and the slot of the winning tile (-1: not in it)."""
    type: str
    faces: tuple[int, ...]
    caishen: tuple[bool, ...]
    winning: int


# A key is an int of bit fields, so that joining two partial readings is a bitwise OR:
HAS_PUNG, HAS_CHOW = 1, 2
SUITS_SHIFT = 2                     # 4 bits: m, p, s, honours (tiles.SUIT_BIT)
SEAT_PUNG, ROUND_PUNG, PAIR_TAI = 1 << 6, 1 << 7, 1 << 8
WAIT_SHIFT = 9                      # 3 bits: index into WAITS (only one group holds the winning tile)
BAD_SINGLE, BAD_ANY = 1 << 12, 1 << 13
WAITS = (None, "single", "dual_pung", "closed", "edge", "two_sided")
_WAIT_CODE = {w: i for i, w in enumerate(WAITS)}
_NOWAIT = 0


def key_suits(key: int) -> int:
    return (key >> SUITS_SHIFT) & 15


def key_wait(key: int) -> str | None:
    return WAITS[(key >> WAIT_SHIFT) & 7]


def _wait_of(gtype: str, faces: tuple[int, ...], slot: int) -> str:
    if gtype == "pair":
        return "single"
    if gtype == "pung":
        return "dual_pung"
    if slot == 1:
        return "closed"
    r = rank(faces[0])
    if (slot == 2 and r == 1) or (slot == 0 and r == 7):
        return "edge"
    return "two_sided"


@lru_cache(maxsize=8192)            # every group of every class and wind pair fits: never evicted
def group_key(group: Group, seat_t: int, round_t: int) -> tuple[int, int]:
    """(key, dragon pungs) of one group."""
    gtype, faces, cslots, wslot = group
    f = faces[0]
    key = SUIT_BIT[f] << SUITS_SHIFT
    if wslot >= 0:
        key |= _WAIT_CODE[_wait_of(gtype, faces, wslot)] << WAIT_SHIFT
        if not cslots[wslot] and True in cslots:
            # a caishen beside a natural winning tile (a caishen winning tile never wins on a discard)
            key |= BAD_ANY | (BAD_SINGLE if gtype == "pair" else 0)
    if gtype == "pung":
        key |= HAS_PUNG | (SEAT_PUNG if f == seat_t else 0) | (ROUND_PUNG if f == round_t else 0)
        return key, int(f in DRAGONS)
    if gtype == "chow":
        return key | HAS_CHOW, 0
    # a pair of a tile that carries 台 (the seat or round wind, a dragon) is no 平胡 pair
    return key | (PAIR_TAI if (f == seat_t or f == round_t or f in DRAGONS) else 0), 0


def _winds_index(seat_t: int, round_t: int) -> int:
    """The index of a seat and round wind pair (4 × seat + round, winds counted from E) in the
    tables made for each pair (:data:`PLAIN_TABLES`, :attr:`GroupClass.keys`)."""
    return 4 * (seat_t - EAST) + (round_t - EAST)


def _add(out: dict[int, tuple[int, Listed]], key: int, dragons: int, rep: Listed) -> None:
    old = out.get(key)
    if old is None or dragons > old[0]:
        out[key] = (dragons, rep)


# --- the search with caishen -----------------------------------------------------------------
# The winning tile is not carried through the search.  A partial reading carries, besides its key,
# the *options* of the winning tile: each way it could sit in one of the reading's groups (the
# wait and the bad_single/bad_any bits that placing it there gives), one bit each above the key
# (OPT_SHIFT).  Joining partial readings stays a bitwise OR; at the end a reading gives one key
# per option.  So readings that differ only in where the winning tile sits are searched once.

OPT_SHIFT = 14                      # keys use bits 0-13, so a packed reading fits in 24 bits
KEY_BITS = (1 << OPT_SHIFT) - 1
_OPT_BITS = (7 << WAIT_SHIFT) | BAD_SINGLE | BAD_ANY        # the bits of a key an option decides
_SINGLE_WAIT = _WAIT_CODE["single"]
_OPTION_MASKS = 1 << 10             # two option bits per wait (5 waits)


def _opt_bit(placed_key: int) -> int:
    """The option bit of a group holding the winning tile, from its key: two per wait, without
    and with the discard restriction's bits (BAD_ANY, and BAD_SINGLE too for a pair, whose wait
    is single), so that a packed reading stays below 2^30, one digit of a Python int."""
    wait = (placed_key >> WAIT_SHIFT) & 7
    return 1 << (OPT_SHIFT + (wait - 1) * 2 + (1 if placed_key & BAD_ANY else 0))


@lru_cache(maxsize=_OPTION_MASKS)   # every mask fits: never evicted
def options_of(mask: int) -> tuple[int, ...]:
    """The option bits of a packed reading (``packed >> OPT_SHIFT``), as key bits (wait,
    bad_single, bad_any)."""
    out: list[int] = []
    i = 0
    while mask:
        if mask & 1:
            wait = i // 2 + 1
            bad = (BAD_ANY | (BAD_SINGLE if wait == _SINGLE_WAIT else 0)) if i % 2 else 0
            out.append((wait << WAIT_SHIFT) | bad)
        mask >>= 1
        i += 1
    return tuple(out)


# The search's tiles are counts, 3 bits a kind, in two ints below 2^64 (typed as C integers when
# compiled): kinds 0-17 (characters and dots) in ``lo`` (kind i: bits 3i .. 3i+2), kinds 18-33
# (bamboos and honours) in ``hi`` (bits 3(i-18) ..).  A group never spans the two, so taking it
# out is one subtraction from one of them.
_SPLIT = 18


class Member(NamedTuple):
    """One group of a class (:class:`GroupClass`): its faces, caishen slots, the first slot of each
    natural kind in it, and the caishen slots the winning tile can take."""
    faces: tuple[int, ...]
    caishen: tuple[bool, ...]
    natural_slot: dict[int, int]
    caishen_slots: tuple[int, ...]


class GroupClass:
    """Groups that take the same natural tiles and the same number of caishen and differ only in
    the faces their caishen take (k + caishen + caishen as 1-2-3, 2-3-4 or 3-4-5), which matters
    only to where the winning tile can sit: ``members`` (:data:`Member`), the first of them shown
    as ``leader`` (winning tile in none of its slots).

    Worked out once (:meth:`prepare`): ``keys`` and ``dragons``, the leader's key and dragon pungs
    for each seat and round wind (index ``4 × seat + round``, winds counted from E), and the
    options of the winning tile in the class: ``natural_options`` by its kind (a natural winning
    tile, a tuple by kind) and ``caishen_options`` (a caishen one); options don't depend on the
    winds.  For the search (:meth:`place`): ``word``, which count int of :func:`_counts` its
    natural tiles are in, ``take``, what to subtract from it, ``s1``/``s2``, the shifts of the
    kinds it needs besides the lowest (-1: none), ``used``, its caishen, and ``is_set``."""
    __slots__ = ("gtype", "removed", "used", "is_set", "need_k", "need", "members", "leader", "keys",
                 "dragons", "natural_options", "caishen_options", "word", "take", "s1", "s2")

    def __init__(self, gtype: str, removed: tuple[int, ...], used: int):
        self.gtype, self.removed, self.used = gtype, removed, used
        self.is_set = gtype != "pair"
        # a list while the class is built, a tuple once prepared
        self.members: list[Member] | tuple[Member, ...] = []
        self.word = self.take = self.need_k = 0
        self.s1 = self.s2 = -1
        self.need: tuple[int, ...] = ()

    def prepare(self) -> None:
        self.members = tuple(self.members)
        first = self.members[0]
        self.leader = Group(self.gtype, first.faces, first.caishen, -1)
        keyed = tuple(group_key(self.leader, seat_t, round_t)
                      for seat_t in range(EAST, NORTH + 1) for round_t in range(EAST, NORTH + 1))
        self.keys = tuple(key for key, _ in keyed)
        self.dragons = tuple(dr for _, dr in keyed)
        natural = {wk: self._options(1, wk) for wk in set(self.removed)}
        self.natural_options = tuple(natural.get(wk, 0) for wk in range(N_KINDS))
        self.caishen_options = self._options(2, -1)

    def place(self, k: int) -> None:
        """Where the search finds the class's natural tiles, when k is the lowest of them."""
        self.need_k = self.removed.count(k)
        self.need = tuple(sorted(set(self.removed) - {k}))
        self.word, base = (0, 0) if k < _SPLIT else (1, _SPLIT)
        self.take = sum(1 << (3 * (kind - base)) for kind in self.removed)
        shifts = tuple(3 * (kind - base) for kind in self.need) + (-1, -1)
        self.s1, self.s2 = shifts[0], shifts[1]

    def placements(self, mode: int, wk: int) -> Iterator[Group]:
        """Its groups with the winning tile in each place it can take (the search's order; mode 1:
        a natural winning tile of kind wk, 2: a caishen one, 0: none)."""
        for member in self.members:
            for slot in _w_slots(mode, wk, member):
                yield Group(self.gtype, member.faces, member.caishen, slot)

    def _options(self, mode: int, wk: int) -> int:
        mask = 0
        for placed in self.placements(mode, wk):
            mask |= _opt_bit(group_key(placed, EAST, EAST)[0])
        return mask


def _w_slots(mode: int, wk: int, member: Member) -> tuple[int, ...]:
    """The slots of a group the winning tile can take: mode 1, the natural slot of its kind;
    mode 2 (a caishen winning tile), a caishen slot."""
    if mode == 1:
        slot = member.natural_slot.get(wk)
        return () if slot is None else (slot,)
    return member.caishen_slots if mode == 2 else ()


def _build_classes(k: int) -> tuple[GroupClass, ...]:
    """Every group that can hold the lowest natural tile k, by class (:class:`GroupClass`)."""
    classes: dict[tuple[str, tuple[int, ...]], GroupClass] = {}

    def add(gtype: str, faces: tuple[int, ...], cslots: tuple[bool, ...]) -> None:
        removed = tuple(f for f, c in zip(faces, cslots) if not c)
        nat_slot: dict[int, int] = {}
        for i, (f, c) in enumerate(zip(faces, cslots)):
            if not c:
                nat_slot.setdefault(f, i)
        cai = tuple(i for i, c in enumerate(cslots) if c)
        if gtype != "chow":
            cai = cai[:1]                 # in a pair or pung every caishen slot is alike
        cls = classes.get((gtype, removed))
        if cls is None:
            cls = classes[(gtype, removed)] = GroupClass(gtype, removed, len(faces) - len(removed))
        cls.members.append(Member(faces, cslots, nat_slot, cai))  # type: ignore[union-attr]  # not prepared yet: a list

    add("pair", (k, k), (False, False))
    add("pair", (k, k), (False, True))
    add("pung", (k, k, k), (False, False, False))
    add("pung", (k, k, k), (False, False, True))
    add("pung", (k, k, k), (False, True, True))
    if is_suited(k):
        low = k - (rank(k) - 1)          # the suit's 1
        for s in (k - 2, k - 1, k):
            if s < low or s + 2 > low + 8:
                continue
            faces = (s, s + 1, s + 2)
            # below k: caishen; k: natural; above k: natural or caishen
            options: list[tuple[bool, ...]] = [()]
            for p in faces:
                if p < k:
                    options = [o + (True,) for o in options]
                elif p == k:
                    options = [o + (False,) for o in options]
                else:
                    options = [o + (c,) for o in options for c in (True, False)]
            for o in options:
                add("chow", faces, o)
    for cls in classes.values():
        cls.prepare()
        cls.place(k)
    return tuple(classes.values())


def _index_classes(classes: tuple[GroupClass, ...]) -> tuple[tuple[Cell, ...], ...]:
    """[copies of k (0-3)][caishen left (0-2)] -> the classes that fit: (pair classes, set
    classes, both)."""
    out: list[tuple[Cell, ...]] = []
    for n in range(4):
        row: list[Cell] = []
        for c in range(3):
            fit = [cls for cls in classes if cls.need_k <= n and cls.used <= c]
            pairs = tuple(cls for cls in fit if not cls.is_set)
            sets = tuple(cls for cls in fit if cls.is_set)
            row.append((pairs, sets, pairs + sets))
        out.append(tuple(row))
    return tuple(out)


#: [lowest kind k][copies of k][caishen left]: the classes that can hold k (:func:`_index_classes`)
CLASSES_BY_KIND = tuple(_index_classes(_build_classes(k)) for k in range(N_KINDS))


class Search:
    """One search of a hand's concealed tiles: ``memo`` {sub-problem (:func:`_memo_key`):
    :class:`Readings`}, the winning tile (``mode`` 1: a natural one of kind ``wk``, 2: a caishen,
    0: none), the winds (``seat_t``, ``round_t``; ``winds``, their index in
    :attr:`GroupClass.keys`) and ``pure``, the low bits of :func:`_pure_readings`'s code."""
    __slots__ = ("memo", "wk", "mode", "seat_t", "round_t", "winds", "pure")

    def __init__(self, memo: Memo, wk: int, mode: int, seat_t: int, round_t: int):
        self.memo, self.wk, self.mode, self.seat_t, self.round_t = memo, wk, mode, seat_t, round_t
        self.winds = _winds_index(seat_t, round_t)
        self.pure = ((mode == 2) << 4) | self.winds


class Readings:
    """The readings of one sub-problem: ``dragons`` {packed reading: most dragon pungs} and
    ``how`` {packed reading: (class, sub-problem's Readings, its packed reading)}, the first
    choice that gave it with those dragon pungs (empty: nothing left to read)."""
    __slots__ = ("dragons", "how")

    def __init__(self, dragons: dict[int, int], how: dict[int, Choice]):
        self.dragons, self.how = dragons, how


if TYPE_CHECKING:
    #: a sub-problem's key in the memo of a search (:func:`_memo_key`)
    MemoKey = tuple[int, int, int]
    #: a search's memo: {sub-problem: its readings}, shared by the searches of one hand's waits
    Memo = dict[MemoKey, Readings]
    #: the choice that first gave a packed reading (:attr:`Readings.how`): (class, the
    #: sub-problem's Readings, its packed reading there)
    Choice = tuple[GroupClass, Readings, int]
    #: the classes that fit one count of a kind and of caishen: (pair classes, set classes, both)
    Cell = tuple[tuple[GroupClass, ...], tuple[GroupClass, ...], tuple[GroupClass, ...]]
    #: (key, dragon pungs) of each group code, or None (no group)
    PlainKeys = tuple[tuple[int, int] | None, ...]
    #: for each group code, by slot of the winning tile: (group, key, dragon pungs), or None
    PlainPlaced = tuple[tuple[tuple[Group, int, int], ...] | None, ...]


class Kept:
    """A representative reading of :func:`decompose`: the packed reading ``packed`` of the
    ``root`` sub-problem of a ``search``, with the winning tile where ``option`` (key bits of
    :func:`options_of`, None: no winning tile in the concealed part) puts it."""
    __slots__ = ("search", "root", "packed", "option")

    def __init__(self, search: Search, root: Readings, packed: int, option: int | None):
        self.search, self.root, self.packed, self.option = search, root, packed, option

    def groups(self) -> list[Group]:
        """Its groups, followed down the choices the search kept, the winning tile put in the
        first place that gives its option."""
        s = self.search
        out: list[Group] = []
        todo = self.option is not None
        node, packed = self.root, self.packed
        while node.how:
            cls, node, packed = node.how[packed]
            group = cls.leader
            if todo:
                for candidate in cls.placements(s.mode, s.wk):
                    if group_key(candidate, s.seat_t, s.round_t)[0] & _OPT_BITS == self.option:
                        group, todo = candidate, False
                        break
            out.append(group)
        out.sort(key=_shown_order)
        return out


def _shown_order(group: Group) -> tuple[bool, tuple[int, ...]]:
    """The order of :func:`groups_of`: the sets by their faces, then the pair."""
    return group.type == "pair", group.faces


class Listed:
    """A representative reading of :func:`plain`: its groups, as found (in the order of
    :func:`groups_of`)."""
    __slots__ = ("shown",)

    def __init__(self, shown: list[Group]):
        self.shown = shown

    def groups(self) -> list[Group]:
        return list(self.shown)


def decompose(tiles: tuple[int, ...], c: int, sets: int, w_kind: int | None, w_caishen: bool,
              seat_t: int, round_t: int, memo: Memo | None = None) -> dict[int, tuple[int, Kept]]:
    """Summaries of every reading of the concealed part.

    tiles: the natural concealed tiles, sorted kinds; c: the caishen among them; sets: how many
    sets the concealed part must make (4 − melds; it also makes the pair); w_kind: the winning
    tile's kind when it is natural; w_caishen: the winning tile is a caishen.
    Returns {key: (dragon pungs, :class:`Kept`)}.
    ``memo`` may be shared by calls with the same seat and round winds (the waits of one hand).

    The lowest natural tile goes into some group (a pair, pung or chow, completed by caishen
    where needed), with the options of the winning tile in it (mode 1: a natural of kind wk,
    mode 2: a caishen, mode 0: none).  The search works on the tiles as counts in two ints
    (:func:`_counts`: taking a group out is a subtraction); each sub-problem keeps the most
    dragon pungs of each packed reading and the choice that gave them (:func:`_solve`).
    """
    mode = 2 if w_caishen else (1 if w_kind is not None else 0)
    search = Search({} if memo is None else memo, -1 if w_kind is None else w_kind, mode, seat_t, round_t)
    out: dict[int, tuple[int, Kept]] = {}
    lo, hi = _counts(tiles)
    root = _solve(lo, hi, 0, c, sets, 1, search)
    for packed, dragons in root.dragons.items():
        flags = packed & KEY_BITS
        opts = options_of(packed >> OPT_SHIFT) if mode else _NO_OPTION
        for opt in opts:
            key = flags | (opt or 0)
            old = out.get(key)
            if old is None or dragons > old[0]:
                out[key] = (dragons, Kept(search, root, packed, opt))
    return out


_NO_OPTION = (None,)


def _counts(tiles: tuple[int, ...]) -> tuple[int, int]:
    """(lo, hi): the search's counts (above) of some kinds."""
    lo = hi = 0
    for kind in tiles:
        if kind < _SPLIT:
            lo += 1 << (3 * kind)
        else:
            hi += 1 << (3 * (kind - _SPLIT))
    return lo, hi


def _count(lo: int, hi: int, kind: int) -> int:
    """The copies of a kind in (lo, hi)."""
    if kind < _SPLIT:
        return (lo >> (3 * kind)) & 7
    return (hi >> (3 * (kind - _SPLIT))) & 7


def _memo_key(lo: int, hi: int, m: int, wk: int, c: int, sets: int, pair: int) -> MemoKey:
    """A sub-problem's key in the memo: its tiles (counts), caishen, sets and pairs, and what
    the winning tile's options in these tiles depend on (m: 2 a caishen winning tile, 1 a natural
    one of kind wk, among them, 0 neither)."""
    return (lo, hi, ((wk if m == 1 else 0) << 12) | (c << 6) | (sets << 3) | (pair << 2) | m)


def _rows(lo: int, hi: int, k: int, c: int, sets: int, pair: int) -> tuple[int, tuple[GroupClass, ...]]:
    """(the lowest kind present from k on, the classes that can hold it with the caishen, sets
    and pairs left), in the search's order."""
    while not _count(lo, hi, k):
        k += 1
    n = _count(lo, hi, k)
    cell = CLASSES_BY_KIND[k][n if n < 3 else 3][c if c < 2 else 2]
    return k, ((cell[2] if sets else cell[0]) if pair else (cell[1] if sets else ()))


def _take(lo: int, hi: int, word: int, take: int, s1: int, s2: int) -> tuple[int, int, bool]:
    """(lo, hi, True) with a class's natural tiles taken out of the counts (``take`` from the
    ``word`` that holds them), or (lo, hi, False) when a tile it needs (at shift s1, s2) is not
    there."""
    if word:
        if (s1 >= 0 and not (hi >> s1) & 7) or (s2 >= 0 and not (hi >> s2) & 7):
            return lo, hi, False
        return lo, hi - take, True
    if (s1 >= 0 and not (lo >> s1) & 7) or (s2 >= 0 and not (lo >> s2) & 7):
        return lo, hi, False
    return lo - take, hi, True


def _with_options(gkey: int, m: int, wk: int, natural_options: tuple[int, ...], caishen_options: int) -> int:
    """A class's key with the options of the winning tile in it (m: 1 a natural one of kind wk,
    2 a caishen, 0 none)."""
    if m == 1:
        return gkey | natural_options[wk]
    if m == 2:
        return gkey | caishen_options
    return gkey


def _solve(lo: int, hi: int, k: int, c: int, sets: int, pair: int, search: Search) -> Readings:
    """The :class:`Readings` of a sub-problem (tiles lo, hi, none below kind k), memoised in the
    search."""
    if not lo and not hi:
        return _pure_readings((sets << 6) | (pair << 5) | search.pure)
    wk, mode, winds = search.wk, search.mode, search.winds
    m = (1 if _count(lo, hi, wk) else 0) if mode == 1 else mode
    mk = _memo_key(lo, hi, m, wk, c, sets, pair)
    node = search.memo.get(mk)
    if node is not None:
        return node
    best: dict[int, int] = {}
    how: dict[int, Choice] = {}
    k, rows = _rows(lo, hi, k, c, sets, pair)
    for cls in rows:
        sub_lo, sub_hi, fits = _take(lo, hi, cls.word, cls.take, cls.s1, cls.s2)
        if not fits:
            continue
        gkey = _with_options(cls.keys[winds], m, wk, cls.natural_options, cls.caishen_options)
        gdr = cls.dragons[winds]
        if cls.is_set:
            sub = _solve(sub_lo, sub_hi, k, c - cls.used, sets - 1, pair, search)
        else:
            sub = _solve(sub_lo, sub_hi, k, c - cls.used, sets, pair - 1, search)
        for skey, sdr in sub.dragons.items():
            key = gkey | skey
            dr = gdr + sdr
            if best.get(key, -1) < dr:
                best[key] = dr
                how[key] = (cls, sub, skey)
    node = search.memo[mk] = Readings(best, how)
    return node


# --- caishen alone ----------------------------------------------------------------------------

def _other_wind(seat_t: int, round_t: int) -> int:
    return next(t for t in range(EAST, NORTH + 1) if t not in (seat_t, round_t))


_CHOW_SLOTS, _FIRST_SLOT = (0, 1, 2), (0,)


def _pure_class(gtype: str, faces: tuple[int, ...]) -> GroupClass:
    """A group made only of caishen, as a class: a caishen winning tile can take any of its slots,
    and in a chow also the 3 of the suit's 1-2-3 (an edge wait)."""
    cslots = (True,) * len(faces)
    cls = GroupClass(gtype, (), len(faces))
    cls.members.append(  # type: ignore[union-attr]  # not prepared yet: a list
        Member(faces, cslots, {}, _CHOW_SLOTS if gtype == "chow" else _FIRST_SLOT))
    if gtype == "chow":
        low = faces[0] - 3
        cls.members.append(Member((low, low + 1, low + 2), cslots, {}, (2,)))  # type: ignore[union-attr]  # a list
    cls.prepare()
    return cls


def _pure_classes(seat_t: int, round_t: int) -> tuple[tuple[GroupClass, ...], tuple[GroupClass, ...]]:
    """One face per scoring class for a set and for a pair made only of caishen."""
    other = _other_wind(seat_t, round_t)
    pungs = [4, 13, 22, DRAGONS[0], seat_t, other] + ([round_t] if round_t != seat_t else [])
    sets = [_pure_class("pung", (f, f, f)) for f in pungs]
    sets += [_pure_class("chow", (s, s + 1, s + 2)) for s in (3, 12, 21)]      # 456 of each suit
    pairs = [_pure_class("pair", (f, f)) for f in (4, 13, 22, DRAGONS[0], seat_t, other)]
    return tuple(sets), tuple(pairs)


#: [winds index of :attr:`Search.winds`]: :func:`_pure_classes` of those winds
PURE_CLASSES = tuple(_pure_classes(seat_t, round_t)
                     for seat_t in range(EAST, NORTH + 1) for round_t in range(EAST, NORTH + 1))
_EMPTY = Readings({_NOWAIT: 0}, {})


@lru_cache(maxsize=1 << 9)          # every code fits: never evicted
def _pure_readings(code: int) -> Readings:
    """The :class:`Readings` of `sets` sets and `pair` pairs made only of caishen, with the
    options of a caishen winning tile among them when ``with_w``; ``code``: sets << 6 | pair << 5
    | with_w << 4 | the winds' index (one int: a cheap cache key)."""
    sets, pair, with_w, winds = code >> 6, (code >> 5) & 1, (code >> 4) & 1, code & 15
    if not sets and not pair:
        return _EMPTY
    set_classes, pair_classes = PURE_CLASSES[winds]
    best: dict[int, int] = {}
    how: dict[int, Choice] = {}
    for cls in (set_classes if sets else pair_classes):
        gkey, gdr = cls.keys[winds], cls.dragons[winds]
        if with_w:
            gkey |= cls.caishen_options
        sub = _pure_readings(code - ((1 << 6) if cls.is_set else (1 << 5)))
        for skey, sdr in sub.dragons.items():
            key, dr = gkey | skey, gdr + sdr
            if best.get(key, -1) < dr:
                best[key] = dr
                how[key] = (cls, sub, skey)
    return Readings(best, how)


# --- without caishen ----------------------------------------------------------------------------

def plain(tiles: tuple[int, ...], sets: int, w_kind: int, seat_t: int, round_t: int) -> dict[int, tuple[int, Listed]]:
    """The same summaries as :func:`decompose` for a hand without caishen (the common case),
    by the classic divider: a pair, then sets lowest kind first; the representatives are
    :class:`Listed`.  Groups are handled by their code (:data:`_PLAIN_GROUPS`) and their keys
    read from a table made at import for each seat and round wind (:data:`PLAIN_TABLES`)."""
    counts = [0] * 36
    for t in tiles:
        counts[t] += 1
    kinds = sorted(set(tiles))
    out: dict[int, tuple[int, Listed]] = {}
    found: list[tuple[int, ...]] = []
    keys, placed_keys = PLAIN_TABLES[_winds_index(seat_t, round_t)]

    for p in kinds:
        if counts[p] < 2:
            continue
        counts[p] -= 2
        found.clear()
        _sets_of(counts, kinds, 0, [], found)
        counts[p] += 2
        for codes in found:
            if len(codes) != sets:
                continue
            all_codes = codes + (_PAIR0 + p,)
            for j, code in enumerate(all_codes):
                faces = _PLAIN_GROUPS[code].faces
                if w_kind not in faces or (j and code == all_codes[j - 1]):
                    continue
                # (the codes _sets_of finds are groups: their entries are never None)
                placed, key, dragons = placed_keys[code][faces.index(w_kind)]  # type: ignore[index]
                # (the codes are in the order of their faces, the pair last: Listed's order)
                shown = []
                for m, other in enumerate(all_codes):
                    if m == j:
                        shown.append(placed)
                    else:
                        k2, d2 = keys[other]  # type: ignore[misc]  # a group's code: not None
                        key |= k2
                        dragons += d2
                        shown.append(_PLAIN_GROUPS[other])
                _add(out, key, dragons, Listed(shown))
    return out


def _sets_of(counts: list[int], kinds: list[int], j: int, acc: list[int], found: list[tuple[int, ...]]) -> None:
    """Every way to split what is left in counts into sets, lowest kind first (as group codes)."""
    while j < len(kinds) and not counts[kinds[j]]:
        j += 1
    if j == len(kinds):
        found.append(tuple(acc))
        return
    i = kinds[j]
    if counts[i] >= 3:
        counts[i] -= 3
        acc.append(_PUNG0 + i)
        _sets_of(counts, kinds, j, acc, found)
        acc.pop()
        counts[i] += 3
    if i < EAST and counts[i + 1] and counts[i + 2] and i % 9 <= 6:    # is_suited(i) and rank(i) <= 7
        counts[i] -= 1
        counts[i + 1] -= 1
        counts[i + 2] -= 1
        acc.append(_CHOW0 + i)
        _sets_of(counts, kinds, j, acc, found)
        acc.pop()
        counts[i] += 1
        counts[i + 1] += 1
        counts[i + 2] += 1


_NAT2 = (False, False)
_NAT3 = (False, False, False)
_PUNGS = tuple(Group("pung", (i, i, i), _NAT3, -1) for i in range(N_KINDS))
_CHOWS = tuple(Group("chow", (i, i + 1, i + 2), _NAT3, -1) for i in range(N_KINDS))
_PAIRS = tuple(Group("pair", (i, i), _NAT2, -1) for i in range(N_KINDS))
#: the groups of the classic divider by code: pungs, chows, pairs of each kind
_PLAIN_GROUPS = _PUNGS + _CHOWS + _PAIRS
_PUNG0, _CHOW0, _PAIR0 = 0, N_KINDS, 2 * N_KINDS


def _plain_table(seat_t: int, round_t: int) -> tuple[PlainKeys, PlainPlaced]:
    """For these winds: (key, dragon pungs) of each group code, and for each code and slot the
    group holding the winning tile there with its (key, dragon pungs) — None where the code is
    no group (a chow past 7, or of honours)."""
    keys, placed = [], []
    for code, g in enumerate(_PLAIN_GROUPS):
        real = code < _CHOW0 or code >= _PAIR0 or (is_suited(g.faces[0]) and rank(g.faces[0]) <= 7)
        keys.append(group_key(g, seat_t, round_t) if real else None)
        holding = [Group(g.type, g.faces, g.caishen, slot) for slot in range(len(g.faces))]
        placed.append(tuple((h,) + group_key(h, seat_t, round_t) for h in holding) if real else None)
    return tuple(keys), tuple(placed)


#: [winds index of :attr:`Search.winds`]: :func:`_plain_table` of those winds
PLAIN_TABLES = tuple(_plain_table(seat_t, round_t)
                     for seat_t in range(EAST, NORTH + 1) for round_t in range(EAST, NORTH + 1))


def meld_key(gtype: str, faces: Sequence[int], seat_t: int, round_t: int) -> tuple[int, int]:
    """(key, dragon pungs) of a checked meld: the classic divider's group it is (a kong: its
    pung), read from :data:`PLAIN_TABLES`."""
    code = (_CHOW0 if gtype == "chow" else _PUNG0) + min(faces)
    keys = PLAIN_TABLES[_winds_index(seat_t, round_t)][0]
    return keys[code]  # type: ignore[return-value]  # a meld's code is a group's: not None


def groups_of(rep: Kept | Listed) -> list[Group]:
    """The groups of a representative reading (:class:`Kept` or :class:`Listed`): the sets in the
    order of their faces, then the pair."""
    return rep.groups()
