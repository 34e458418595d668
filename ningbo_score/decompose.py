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
(a suit pung, a dragon pung, the seat or round wind, ...), cached across requests.  Where the
winning tile sits is not searched: each partial reading carries the set of places it could take
(see OPT_SHIFT), so readings that differ only in that are found once.
"""
from __future__ import annotations

from functools import lru_cache

from .tiles import DRAGONS, EAST, NORTH, SUIT_BIT, rank

# A group: (type, faces, caishen slots, winning-tile slot or -1).  type: "pair" | "pung" | "chow".
# A representative decomposition is a linked list (group, rest) ending in None.

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


def _wait_of(gtype: str, faces: tuple, slot: int) -> str:
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


def group_key(group: tuple, seat_t: int, round_t: int) -> tuple[int, int]:
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


def _add(out: dict, key: tuple, dragons: int, rep) -> None:
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


def _opt_bit(placed_key: int) -> int:
    """The option bit of a group holding the winning tile, from its key: two per wait, without
    and with the discard restriction's bits (BAD_ANY, and BAD_SINGLE too for a pair, whose wait
    is single), so that a packed reading stays below 2^30, one digit of a Python int."""
    wait = (placed_key >> WAIT_SHIFT) & 7
    return 1 << (OPT_SHIFT + (wait - 1) * 2 + (1 if placed_key & BAD_ANY else 0))


def _options(packed: int) -> tuple:
    """The option bits of a packed reading, as key bits (wait, bad_single, bad_any)."""
    out, i, mask = [], 0, packed >> OPT_SHIFT
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


class _Class:
    """The groups that can hold the lowest natural tile k and take the same natural tiles and
    the same number of caishen: they differ only in the faces their caishen take (k + caishen +
    caishen as 1-2-3, 2-3-4 or 3-4-5), which matters only to where the winning tile can sit.
    ``members``: (faces, caishen slots, natural slot per kind, caishen slots to hold the winning
    tile).  Worked out once, at import (:meth:`prepare`): ``keyed``, (leader group, key, dragon
    pungs) for each seat and round wind (index ``4 × seat + round``, winds counted from E), and the
    options of the winning tile: ``natural_options`` by its kind (mode 1), ``caishen_options``
    (mode 2); options don't depend on the winds.  ``row``: all the search reads of the class, as
    one tuple (unpacking it is cheaper than reading attributes in the inner loop): which count
    int of :func:`_counts` it takes from, what it subtracts, the shifts of the kinds it needs
    besides k (-1: none), and ``natural_options`` as a tuple by kind."""
    __slots__ = ("gtype", "removed", "used", "is_set", "need_k", "need", "members", "keyed",
                 "natural_options", "caishen_options", "row")

    def __init__(self, gtype: str, removed: tuple, k: int):
        self.gtype, self.removed = gtype, removed
        self.is_set = gtype != "pair"
        self.need_k = removed.count(k)
        self.need = tuple(sorted(set(removed) - {k}))
        self.members: list = []

    def prepare(self, k: int) -> None:
        self.members = tuple(self.members)
        faces, cslots = self.members[0][0], self.members[0][1]
        leader = (self.gtype, faces, cslots, -1)
        self.keyed = tuple((leader,) + group_key(leader, seat_t, round_t)
                           for seat_t in range(EAST, NORTH + 1) for round_t in range(EAST, NORTH + 1))
        self.natural_options = {wk: self._options(1, wk) for wk in set(self.removed)}
        self.caishen_options = self._options(2, -1)
        # see _counts: which int, what to subtract from it, where the needed kinds but k are
        word, base = (0, 0) if k < _SPLIT else (1, _SPLIT)
        take = sum(1 << (3 * (kind - base)) for kind in self.removed)
        shifts = tuple(3 * (kind - base) for kind in self.need) + (-1, -1)
        self.row = (word, take, shifts[0], shifts[1], self.used, self.is_set,
                    tuple(key for _, key, _ in self.keyed), tuple(dr for _, _, dr in self.keyed),
                    tuple(self.natural_options.get(wk, 0) for wk in range(34)), self.caishen_options, self)

    def _options(self, mode: int, wk: int) -> int:
        mask = 0
        for faces, cslots, nat_slot, cai in self.members:
            for slot in _w_slots(mode, wk, nat_slot, cai):
                mask |= _opt_bit(group_key((self.gtype, faces, cslots, slot), EAST, EAST)[0])
        return mask


def _build_classes(k: int) -> tuple:
    """Every group that can hold the lowest natural tile k, by class (:class:`_Class`)."""
    classes: dict = {}

    def add(gtype, faces, cslots):
        removed = tuple(f for f, c in zip(faces, cslots) if not c)
        nat_slot = {}
        for i, (f, c) in enumerate(zip(faces, cslots)):
            if not c:
                nat_slot.setdefault(f, i)
        cai = tuple(i for i, c in enumerate(cslots) if c)
        if gtype != "chow":
            cai = cai[:1]                 # in a pair or pung every caishen slot is alike
        cls = classes.get((gtype, removed))
        if cls is None:
            cls = classes[(gtype, removed)] = _Class(gtype, removed, k)
            cls.used = len(faces) - len(removed)
        cls.members.append((faces, cslots, nat_slot, cai))

    add("pair", (k, k), (False, False))
    add("pair", (k, k), (False, True))
    add("pung", (k, k, k), (False, False, False))
    add("pung", (k, k, k), (False, False, True))
    add("pung", (k, k, k), (False, True, True))
    if k < 27:
        low = k - (rank(k) - 1)          # the suit's 1
        for s in (k - 2, k - 1, k):
            if s < low or s + 2 > low + 8:
                continue
            faces = (s, s + 1, s + 2)
            # below k: caishen; k: natural; above k: natural or caishen
            options = [()]
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
        cls.prepare(k)
    return tuple(classes.values())


def _index_classes(classes: tuple) -> tuple:
    """[copies of k (0-3)][caishen left (0-2)] -> the rows (:attr:`_Class.row`) of the pair
    classes, of the set classes, and of both, that fit."""
    out = []
    for n in range(4):
        row = []
        for c in range(3):
            fit = [cls for cls in classes if cls.need_k <= n and cls.used <= c]
            pairs = tuple(cls.row for cls in fit if not cls.is_set)
            sets = tuple(cls.row for cls in fit if cls.is_set)
            row.append((pairs, sets, pairs + sets))
        out.append(tuple(row))
    return tuple(out)


_GROUP_KEYS: dict = {}


def _cached_group_key(group: tuple, seat_t: int, round_t: int) -> tuple[int, int]:
    ck = (group, seat_t, round_t)
    hit = _GROUP_KEYS.get(ck)
    if hit is None:
        hit = _GROUP_KEYS[ck] = group_key(group, seat_t, round_t)
    return hit


def _w_slots(mode: int, wk: int, nat_slot: dict, cai: tuple) -> tuple:
    """The slots of a group the winning tile can take: mode 1, the natural slot of its kind;
    mode 2 (a caishen winning tile), a caishen slot."""
    if mode == 1:
        slot = nat_slot.get(wk)
        return () if slot is None else (slot,)
    return cai if mode == 2 else ()


_ROWS = tuple(_index_classes(_build_classes(k)) for k in range(34))


def decompose(tiles: tuple, c: int, sets: int, w_kind: int | None, w_caishen: bool,
              seat_t: int, round_t: int, memo: dict | None = None) -> dict:
    """Summaries of every reading of the concealed part.

    tiles: the natural concealed tiles, sorted kinds; c: the caishen among them; sets: how many
    sets the concealed part must make (4 − melds; it also makes the pair); w_kind: the winning
    tile's kind when it is natural; w_caishen: the winning tile is a caishen.
    Returns {key: (dragon pungs, representative)}, the representative (problem, packed reading,
    option of the winning tile), made into groups by :func:`groups_of` when it is chosen.
    ``memo`` may be shared by calls with the same seat and round winds (the waits of one hand).

    The lowest natural tile goes into some group (a pair, pung or chow, completed by caishen
    where needed), with the options of the winning tile in it (mode 1: a natural of kind wk,
    mode 2: a caishen, mode 0: none).  The search works on the tiles as counts in two ints
    (:func:`_counts`: taking a group out is a subtraction) and keeps only the dragon pungs of
    each packed reading (:func:`_solve`); the one decomposition the answer shows is found
    afterwards by following that reading down the memo (:func:`_rebuild`).
    """
    mode = 2 if w_caishen else (1 if w_kind is not None else 0)
    env = ({} if memo is None else memo, -1 if w_kind is None else w_kind, mode, seat_t, round_t,
           4 * (seat_t - EAST) + (round_t - EAST))           # the index of the winds in _Class.keyed
    out: dict = {}
    options = _OPTIONS
    lo, hi = _counts(tiles)
    problem = (lo, hi, 0, c, sets, 1, env)
    for packed, dragons in _solve(lo, hi, 0, c, sets, 1, env).items():
        flags = packed & KEY_BITS
        if mode:
            opts = options.get(packed >> OPT_SHIFT)
            if opts is None:
                if len(options) >= 4096:
                    options.clear()
                opts = options[packed >> OPT_SHIFT] = _options(packed)
        else:
            opts = _NO_OPTION
        for opt in opts:
            key = flags | (opt or 0)
            old = out.get(key)
            if old is None or dragons > old[0]:
                out[key] = (dragons, (problem, packed, opt))
    return out


_NO_OPTION = (None,)
#: :func:`_options` by the option bits (bounded; few masks occur)
_OPTIONS: dict = {}


def _counts(tiles: tuple) -> tuple:
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


def _memo_key(lo: int, hi: int, m: int, wk: int, c: int, sets: int, pair: int) -> tuple:
    """A sub-problem's key in the memo: its tiles (counts), caishen, sets and pairs, and what
    the winning tile's options in these tiles depend on (m: 2 a caishen winning tile, 1 a natural
    one of kind wk, among them, 0 neither)."""
    return (lo, hi, ((wk if m == 1 else 0) << 12) | (c << 6) | (sets << 3) | (pair << 2) | m)


def _rows(lo: int, hi: int, k: int, c: int, sets: int, pair: int) -> tuple:
    """(the lowest kind present from k on, the rows of the classes that can hold it with the
    caishen, sets and pairs left), in the search's order (the search and :func:`_rebuild`)."""
    while not _count(lo, hi, k):
        k += 1
    n = _count(lo, hi, k)
    cell = _ROWS[k][n if n < 3 else 3][c if c < 2 else 2]
    return k, ((cell[2] if sets else cell[0]) if pair else (cell[1] if sets else ()))


def _take(lo: int, hi: int, word: int, take: int, s1: int, s2: int) -> tuple:
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


def _with_options(gkey: int, m: int, wk: int, natural_options: tuple, caishen_options: int) -> int:
    """A class's key with the options of the winning tile in it (m: 1 a natural one of kind wk,
    2 a caishen, 0 none)."""
    if m == 1:
        return gkey | natural_options[wk]
    if m == 2:
        return gkey | caishen_options
    return gkey


def _solve(lo: int, hi: int, k: int, c: int, sets: int, pair: int, env: tuple) -> dict:
    """{packed reading: most dragon pungs} of a sub-problem (tiles lo, hi, none below kind k),
    memoised in env."""
    if not lo and not hi:
        pk = (sets << 12) | (pair << 11) | ((env[2] == 2) << 10) | (env[3] << 5) | env[4]
        out = _PURE.get(pk)
        if out is None:
            out = _PURE[pk] = _pure_dragons(sets, pair, env[2] == 2, env[3], env[4])
        return out
    memo = env[0]
    wk, mode, winds = env[1], env[2], env[5]
    m = (1 if _count(lo, hi, wk) else 0) if mode == 1 else mode
    mk = _memo_key(lo, hi, m, wk, c, sets, pair)
    out = memo.get(mk)
    if out is not None:
        return out
    out = {}
    k, rows = _rows(lo, hi, k, c, sets, pair)
    for word, take, s1, s2, used, is_set, keys, drs, natural_options, caishen_options, cls in rows:
        sub_lo, sub_hi, fits = _take(lo, hi, word, take, s1, s2)
        if not fits:
            continue
        gkey = _with_options(keys[winds], m, wk, natural_options, caishen_options)
        gdr = drs[winds]
        if is_set:
            sub = _solve(sub_lo, sub_hi, k, c - used, sets - 1, pair, env)
        else:
            sub = _solve(sub_lo, sub_hi, k, c - used, sets, pair - 1, env)
        for skey, sdr in sub.items():
            key = gkey | skey
            dr = gdr + sdr
            old = out.setdefault(key, dr)
            if old < dr:
                out[key] = dr
    memo[mk] = out
    return out


#: :func:`_pure_dragons` by its arguments packed in an int (sets, pair, with_w, seat_t, round_t)
_PURE: dict = {}


def _rebuild(lo: int, hi: int, k: int, c: int, sets: int, pair: int, env: tuple, packed: int):
    """The decomposition the search first found with this packed reading and its most dragon
    pungs (the first class and sub-reading, in :func:`_solve`'s order, that give both): a
    linked list of ((class or None, group), rest)."""
    if not lo and not hi:
        return _pure_masked(sets, pair, env[2] == 2, env[3], env[4])[packed][1]
    best = _solve(lo, hi, k, c, sets, pair, env)[packed]          # from the memo
    wk, mode, winds = env[1], env[2], env[5]
    m = (1 if _count(lo, hi, wk) else 0) if mode == 1 else mode
    k, rows = _rows(lo, hi, k, c, sets, pair)
    for word, take, s1, s2, used, is_set, keys, drs, natural_options, caishen_options, cls in rows:
        sub_lo, sub_hi, fits = _take(lo, hi, word, take, s1, s2)
        if not fits:
            continue
        gkey = _with_options(keys[winds], m, wk, natural_options, caishen_options)
        gdr = drs[winds]
        sc, ss, sp = c - used, sets - is_set, pair - (not is_set)
        for skey, sdr in _solve(sub_lo, sub_hi, k, sc, ss, sp, env).items():
            if gkey | skey == packed and gdr + sdr == best:
                return ((cls, cls.keyed[winds][0]), _rebuild(sub_lo, sub_hi, k, sc, ss, sp, env, skey))
    raise AssertionError("a packed reading the search did not find")


def _placed_groups(problem: tuple, packed: int, opt: int | None) -> list[tuple]:
    """The groups of one packed reading (:func:`_rebuild`), the winning tile put in the place of
    the option it was chosen for."""
    env = problem[-1]
    _, wk, mode, seat_t, round_t, _ = env
    out, rep, todo = [], _rebuild(*problem, packed), opt is not None
    while rep is not None:
        (cls, group), rep = rep
        if todo:
            for candidate in _placements(cls, group, mode, wk):
                if _cached_group_key(candidate, seat_t, round_t)[0] & _OPT_BITS == opt:
                    group, todo = candidate, False
                    break
        out.append(group)
    return out


def _placements(cls, group: tuple, mode: int, wk: int):
    """The group with the winning tile in each place it can take (the search's order)."""
    gtype = group[0]
    if cls is None:                       # made only of caishen: only a caishen winning tile
        if mode == 2:
            faces, cslots = group[1], group[2]
            for slot in (_CHOW_SLOTS if gtype == "chow" else _FIRST_SLOT):
                yield (gtype, faces, cslots, slot)
            if gtype == "chow":           # as 1-2-3 of the suit: an edge wait
                low = faces[0] - 3
                yield (gtype, (low, low + 1, low + 2), cslots, 2)
        return
    for faces, cslots, nat_slot, cai in cls.members:
        for slot in _w_slots(mode, wk, nat_slot, cai):
            yield (gtype, faces, cslots, slot)


def plain(tiles: tuple, sets: int, w_kind: int, seat_t: int, round_t: int) -> dict:
    """The same summaries as :func:`decompose` for a hand without caishen (the common case),
    by the classic divider: a pair, then sets lowest kind first.  Groups are handled by their
    code (:data:`_PLAIN_GROUPS`) and their keys read from a table made once per seat and round
    wind (:func:`_plain_table`)."""
    counts = [0] * 36
    for t in tiles:
        counts[t] += 1
    kinds = sorted(set(tiles))
    out: dict = {}
    found: list[tuple] = []
    keys, placed_keys = _plain_table(seat_t, round_t)

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
                faces = _PLAIN_GROUPS[code][1]
                if w_kind not in faces or (j and code == all_codes[j - 1]):
                    continue
                placed, key, dragons = placed_keys[code][faces.index(w_kind)]
                rep = (placed, None)
                for m, other in enumerate(all_codes):
                    if m != j:
                        k2, d2 = keys[other]
                        key |= k2
                        dragons += d2
                        rep = (_PLAIN_GROUPS[other], rep)
                _add(out, key, dragons, rep)
    return out


def _sets_of(counts: list, kinds: list, j: int, acc: list, found: list) -> None:
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
    if i < 27 and counts[i + 1] and counts[i + 2] and i % 9 <= 6:      # rank(i) <= 7
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
_PUNGS = tuple(("pung", (i, i, i), _NAT3, -1) for i in range(34))
_CHOWS = tuple(("chow", (i, i + 1, i + 2), _NAT3, -1) for i in range(34))
_PAIRS = tuple(("pair", (i, i), _NAT2, -1) for i in range(34))
#: the groups of the classic divider by code: pungs, chows, pairs of each kind
_PLAIN_GROUPS = _PUNGS + _CHOWS + _PAIRS
_PUNG0, _CHOW0, _PAIR0 = 0, 34, 68
_PLAIN_TABLES: dict = {}


def _plain_table(seat_t: int, round_t: int) -> tuple:
    """For these winds: (key, dragon pungs) of each group code, and for each code and slot the
    group holding the winning tile there with its (key, dragon pungs) — None where the code is
    no group (a chow past 7, or of honours).  Made once per wind pair (16 at most)."""
    table = _PLAIN_TABLES.get((seat_t, round_t))
    if table is None:
        keys, placed = [], []
        for code, g in enumerate(_PLAIN_GROUPS):
            real = code < _CHOW0 or code >= _PAIR0 or (g[1][0] < 27 and rank(g[1][0]) <= 7)
            keys.append(group_key(g, seat_t, round_t) if real else None)
            placed.append(tuple(((g[0], g[1], g[2], slot),) + group_key((g[0], g[1], g[2], slot), seat_t, round_t)
                                for slot in range(len(g[1]))) if real else None)
        table = _PLAIN_TABLES[(seat_t, round_t)] = (tuple(keys), tuple(placed))
    return table


def _other_wind(seat_t: int, round_t: int) -> int:
    return next(t for t in range(EAST, NORTH + 1) if t not in (seat_t, round_t))


@lru_cache(maxsize=512)
def _pure_classes(seat_t: int, round_t: int) -> tuple[tuple, tuple]:
    """One face per scoring class for a set and for a pair made only of caishen."""
    other = _other_wind(seat_t, round_t)
    pungs = [4, 13, 22, DRAGONS[0], seat_t, other] + ([round_t] if round_t != seat_t else [])
    sets = [("pung", (f, f, f)) for f in pungs]
    sets += [("chow", (s, s + 1, s + 2)) for s in (3, 12, 21)]       # 456 of each suit
    sets += [("chow", (s, s + 1, s + 2)) for s in (0, 9, 18)]        # 123: an edge wait for w
    pairs = [("pair", (f, f)) for f in (4, 13, 22, DRAGONS[0], seat_t, other)]
    return tuple(sets), tuple(pairs)


_CHOW_SLOTS, _FIRST_SLOT = (0, 1, 2), (0,)


@lru_cache(maxsize=4096)
def _pure_masked(sets: int, pair: int, with_w: bool, seat_t: int, round_t: int) -> dict:
    """{packed reading: (dragon pungs, representative)} for `sets` sets and `pair` pairs made
    only of caishen, with the options of a caishen winning tile among them when ``with_w``."""
    if not sets and not pair:
        return {_NOWAIT: (0, None)}
    set_classes, pair_classes = _pure_classes(seat_t, round_t)
    out: dict = {}
    for gtype, faces in (set_classes if sets else pair_classes):
        if gtype == "chow" and faces[0] in (0, 9, 18):
            continue                      # 1-2-3 is only an option of 4-5-6 (an edge wait)
        cslots = (True,) * len(faces)
        group = (gtype, faces, cslots, -1)
        gkey, gdr = group_key(group, seat_t, round_t)
        if with_w:
            for placed in _placements(None, group, 2, -1):
                gkey |= _opt_bit(group_key(placed, seat_t, round_t)[0])
        sub = _pure_masked(sets - (gtype != "pair"), pair - (gtype == "pair"), with_w, seat_t, round_t)
        for skey, (sdr, srep) in sub.items():
            _add(out, gkey | skey, gdr + sdr, ((None, group), srep))
    return out


@lru_cache(maxsize=4096)
def _pure_dragons(sets: int, pair: int, with_w: bool, seat_t: int, round_t: int) -> dict:
    """:func:`_pure_masked` as the search keeps it: {packed reading: dragon pungs}."""
    return {packed: dragons for packed, (dragons, _) in _pure_masked(sets, pair, with_w, seat_t, round_t).items()}


def groups_of(rep) -> list[tuple]:
    """The groups of a representative: (problem, packed reading, option) from :func:`decompose`,
    or a linked list (group, rest) from :func:`plain`."""
    if len(rep) == 3:
        return _placed_groups(*rep)
    out = []
    while rep is not None:
        out.append(rep[0])
        rep = rep[1]
    return out
