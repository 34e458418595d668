"""The scorer of a checked hand (ningbo_score.hand.Checked): its readings (:func:`readings_of`),
the best one and what it is worth (:func:`value`: 台, counted 台, eligible, points, reasons),
and the `/v1/score` body (:func:`answer`: items, payments, decomposition).
``score_hand(checked) = answer(value(checked))``.

The front door (a JSON body in, through the request schema) is ningbo_score.api."""
from __future__ import annotations

from functools import lru_cache
from collections import namedtuple
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, NamedTuple

from .decompose import (BAD_ANY, BAD_SINGLE, HAS_CHOW, HAS_PUNG, PAIR_TAI, ROUND_PUNG, SEAT_PUNG, SUITS_SHIFT,
                        WAIT_SHIFT, Group, decompose, groups_of, key_suits, key_wait, meld_key, plain)
from .errors import Problem, ScoreError
from .caishen import face_of
from .hand import Checked, Hand, check, complete, derived_tiles, winning_count
from .items import CONTEXT_ITEMS, ITEM_BY_ID, ITEMS, SHAPE_ITEMS
from .payments import check_points, hand_points, settle
from .rules import item_tai_in_force
from .tiles import CODES, DRAGONS, N_KINDS, SEATS, wind_tile

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, TypedDict

    from .decompose import Kept, Listed, Memo
    from .items import Item, ItemView, Occurrences, WinContext

    #: one occurrence of an item: (item, its tiles, its 台)
    Found = tuple[int, Item, tuple[int, ...], int]
    #: the answer of some items on one view: (台, occurrences, ids whose condition holds)
    Evaluation = tuple[int, list[Found], set[str]]
    #: every reading of a hand's concealed tiles, by key: (its dragon pungs, a representative)
    Readings = Mapping[int, tuple[int, Kept | Listed]]
    #: the rules' 台 overrides (Rules.signature)
    Signature = tuple[tuple[str, int], ...]

    class CaishenSlot(TypedDict):
        tile: str
        face: str

    class SetOut(TypedDict):
        type: str
        tiles: list[str]
        source: str

    class DecompositionOut(TypedDict):
        """The response's ``decomposition``."""
        pair: list[str] | None
        sets: list[SetOut]
        caishen: list[CaishenSlot]
        wait: str | None
        winning_tile: str


class WinFacts:
    """What the items read of the win, the same for every reading of the hand."""
    __slots__ = ("by", "kong_replacement", "last_tile", "heavenly", "earthly", "n_caishen", "n_melds",
                 "flowers", "seat", "seat_tile", "round_tile")

    @property
    def ctx(self) -> WinFacts:
        """The context items read ``h.ctx``, like the shape items (a property: no reference cycle)."""
        return self

    def __init__(self, c: Checked):
        h = c.hand
        self.by = h.by
        self.kong_replacement = h.kong_replacement
        self.last_tile = h.last_tile
        self.heavenly = h.heavenly
        self.earthly = h.earthly
        self.n_caishen = len(c.caishen_tiles)
        self.n_melds = len(h.melds)
        self.flowers = frozenset(h.flowers)
        self.seat = h.seat
        self.seat_tile = h.seat_tile
        self.round_tile = h.round_tile


#: The bits of a reading's key each field of a :class:`View` is made from (its __init__);
#: ``dragon_pungs`` is the reading's count of dragon pungs, and ``ctx`` is the :class:`WinFacts`.
VIEW_BITS = {"suits": 15 << SUITS_SHIFT, "seat_pung": SEAT_PUNG, "round_pung": ROUND_PUNG,
             "pair_carries_tai": PAIR_TAI, "wait": 7 << WAIT_SHIFT, "all_chows": HAS_PUNG,
             "all_pungs": HAS_CHOW}


class View:
    """One reading of the hand (melds included) as the shape items see it."""
    __slots__ = ("ctx", "wait", "all_chows", "all_pungs", "pair_carries_tai", "suits", "seat_pung",
                 "round_pung", "dragon_pungs")

    def __init__(self, ctx: WinContext, key: int, dragon_pungs: int):
        self.ctx = ctx
        self.suits = key_suits(key)
        self.seat_pung = bool(key & SEAT_PUNG)
        self.round_pung = bool(key & ROUND_PUNG)
        self.pair_carries_tai = bool(key & PAIR_TAI)
        self.wait = key_wait(key)
        self.all_chows = not key & HAS_PUNG
        self.all_pungs = not key & HAS_CHOW
        self.dragon_pungs = dragon_pungs


def _occurrences(result: bool | int | Occurrences) -> Occurrences:
    """An item's answer as its occurrences: a count (True: one) as that many without tiles."""
    if isinstance(result, int):
        return [()] * result
    return result


def _evaluate(items: tuple[Item, ...], orders: tuple[int, ...], h_view: ItemView, tais: tuple[int, ...]) -> Evaluation:
    """(台, [(place, item, tiles, 台)], ids whose condition holds) of some items on one view
    (``orders``: each item's place in the answer; ``tais``: each item's 台 in force)."""
    total = 0
    found: list[Found] = []
    holds: set[str] = set()
    for it, tai, order in zip(items, tais, orders):
        occ = _occurrences(it.test(h_view))
        if not occ:
            continue
        holds.add(it.id)
        if tai > 0 or it.id == "pai_hu":
            for tiles in occ:
                found.append((order, it, tiles, tai))
                total += tai
    return total, found, holds


#: each item's place in the answer: its place in items.py's table
_ORDER = {it.id: i for i, it in enumerate(ITEMS)}
#: The most answers each item group remembers (functools.lru_cache: bounded by count).  An entry
#: is at most about 4.4 KiB (its key holds the rules' 台 overrides: every item overridden), so a
#: group holds at most about 36 MiB (tests/readers/test_house_bounds.py: 64 MiB a cache).
_CACHE_SIZE = 1 << 13


class ItemGroup:
    """Items evaluated together (:data:`SHAPE`, :data:`SEAT_SHAPE`, :data:`WIN`, :data:`FLOWERS`)
    and what they declare they read (:attr:`Item.reads <ningbo_score.items.Item.reads>`):
    ``view_fields`` of the :class:`View`, ``ctx_fields`` of the :class:`WinFacts`.  Their answers
    are remembered by :meth:`answer` (one bounded lru_cache per group), keyed on exactly those:
    the rules' 台 overrides, the context's values (:meth:`values`), the reading's key bits and
    dragon-pung count (:meth:`reading`); on a miss they are evaluated on a view holding only
    those fields (:meth:`evaluate`), so an item that reads a field it did not declare fails at
    once instead of being answered from a memo keyed without it."""

    def __init__(self, items: tuple[Item, ...]):
        self.items = items
        self.ids = tuple(it.id for it in items)
        self.orders = tuple(_ORDER.get(it.id, len(_ORDER)) for it in items)   # (an item not in the table: last)
        reads = {r for it in items for r in it.reads}
        self.ctx_fields = tuple(sorted(r[4:] for r in reads if r.startswith("ctx.")))
        self.view_fields = tuple(sorted(r for r in reads if not r.startswith("ctx.")))
        unknown = set(self.view_fields) - set(VIEW_BITS) - {"dragon_pungs"}
        if unknown or not set(self.ctx_fields) <= set(WinFacts.__slots__):
            raise ValueError(f"items declare fields no view has: {sorted(unknown)} {self.ctx_fields}")
        self.key_bits = 0
        for f in self.view_fields:
            self.key_bits |= VIEW_BITS.get(f, 0)
        self.reads_dragons = "dragon_pungs" in self.view_fields
        self.values = _values_of(self.ctx_fields)
        self._view_values = _values_of(self.view_fields)
        # the views the items are evaluated on: tuples with a name for each declared field (the
        # context's ``ctx`` is itself: the context items read h.ctx.x, like the shape items);
        # made here, so typed Any: an ItemView (or WinContext) of the declared fields
        self._ctx_view = _tuple_type("WinFactsView", self.ctx_fields, ctx=property(lambda view: view))
        self._view = _tuple_type("ReadingView", ("ctx", *self.view_fields))
        self._default_tais = tuple(it.tai for it in items)
        self.answer = lru_cache(maxsize=_CACHE_SIZE)(self._answer)

    def reading(self, signature: Signature, values: tuple[Any, ...], key: int, dragon_pungs: int) -> Evaluation:
        """The items' answer (remembered) for one reading: its ``key`` (the melds' bits included)
        and ``dragon_pungs``, each kept only if the items declare they read it."""
        return self.answer(signature, values, key & self.key_bits, dragon_pungs if self.reads_dragons else 0)

    def _answer(self, signature: Signature, values: tuple[Any, ...], key: int, dragon_pungs: int) -> Evaluation:
        return self.evaluate(self.tais(signature), values, key, dragon_pungs)

    def tais(self, signature: Signature) -> tuple[int, ...]:
        """Each item's 台 under the rules' 台 overrides ``signature`` (:attr:`Rules.signature
        <ningbo_score.rules.Rules.signature>`; none: each item's default)."""
        if not signature:
            return self._default_tais
        in_force = item_tai_in_force(signature)
        return tuple([in_force[i] for i in self.ids])

    def evaluate(self, tais: tuple[int, ...], values: tuple[Any, ...], key: int = 0,
                 dragon_pungs: int = 0) -> Evaluation:
        """The items' answer (``tais``: :meth:`tais`) for the context's ``values`` (as
        :meth:`values` reads them) and one reading's ``key`` and ``dragon_pungs``."""
        ctx = tuple.__new__(self._ctx_view, values)
        if not self.view_fields:
            return _evaluate(self.items, self.orders, ctx, tais)
        view = tuple.__new__(self._view, (ctx, *self._view_values(View(ctx, key, dragon_pungs))))
        return _evaluate(self.items, self.orders, view, tais)


def _tuple_type(name: str, fields: tuple[str, ...], **members: object) -> Any:
    """A tuple type with a name for each field (collections.namedtuple's), and ``members``."""
    return type(name, (namedtuple(name, fields),), {"__slots__": (), **members})


def _values_of(fields: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """A getter of these attributes as a tuple (operator.attrgetter answers a bare value for one)."""
    if len(fields) == 1:
        one = attrgetter(fields[0])
        return lambda obj: (one(obj),)
    return attrgetter(*fields) if fields else (lambda obj: ())


def _split(items: tuple[Item, ...], apart: Callable[[Item], bool]) -> tuple[ItemGroup, ItemGroup]:
    """The items as two groups: those ``apart`` does not pick, and those it picks."""
    return (ItemGroup(tuple(it for it in items if not apart(it))),
            ItemGroup(tuple(it for it in items if apart(it))))


#: The items in four groups, each remembered on its own: a memo's keys multiply the values of
#: every field its items read, so fields read by few items are kept out of the others' keys.
#: SHAPE: the shape items that read the reading alone; SEAT_SHAPE: those that also read the win
#: context (the melds, the seat and round winds); WIN: the context items but FLOWERS, those that
#: read the flowers (keyed on the set of flowers held).
SHAPE, SEAT_SHAPE = _split(SHAPE_ITEMS, lambda it: any(r.startswith("ctx.") for r in it.reads))
WIN, FLOWERS = _split(CONTEXT_ITEMS, lambda it: "ctx.flowers" in it.reads)
SHAPE_GROUPS, CONTEXT_GROUPS = (SHAPE, SEAT_SHAPE), (WIN, FLOWERS)


def _meets(required: tuple[str, ...], holds: set[str], seat_holds: set[str], ctx_holds: set[str]) -> bool:
    """Whether a reading has one of the required patterns (none required: it does): ``holds``
    and ``seat_holds``, the reading's shape items whose condition holds, ``ctx_holds`` the
    context items'."""
    if not required:
        return True
    for p in required:
        if p in holds or p in seat_holds or p in ctx_holds:
            return True
    return False


#: the bits of a reading's key that break the option caishen_discard_restriction (None: none do)
_RESTRICTION_BITS: dict[str | None, int] = {"single_wait": BAD_SINGLE, "any_group": BAD_ANY}


class Valuation(NamedTuple):
    """What a checked win is worth (:func:`value`): its 台, the 台 counted toward the minimum,
    whether it is eligible (and if not, why), its points; and the chosen reading, from which
    :func:`answer` writes the whole `/v1/score` body.  (Frozen as a named tuple: cheaper to
    build than a frozen dataclass, once per scoring.)"""
    checked: Checked
    tai: int
    counted: int
    eligible: bool
    points: int
    reasons: list[str]
    found: list[Found]                    # the chosen reading's items, in the answer's order
    key: int                              # the chosen reading's key, the melds' bits included
    rep: Kept | Listed                    # the chosen reading
    meld_dragons: list[int]               # the dragon kinds of the melds' pungs and kongs


def score_hand(c: Checked, memo: Memo | None = None, lang: str = "en") -> dict[str, Any]:
    """Score a checked hand: the `/v1/score` body (``memo``: a decomposition memo shared by
    hands with the same winds; ``lang``: the language of ``reasons``, "en" or "zh")."""
    return answer(value(c, memo, lang))


def readings_of(c: Checked, memo: Memo | None = None) -> Readings:
    """Every reading of a checked hand's concealed tiles as 4 sets and a pair (the caishen as
    wildcards), by key: none when the tiles make no winning hand."""
    h = c.hand
    return tile_readings(c.naturals, len(c.caishen_tiles), len(h.melds), h.winning, h.caishen_kinds, h.substitute,
                         h.seat, h.round, memo)


def tile_readings(naturals: tuple[int, ...], caishen: int, melds: int, winning: int, kinds: frozenset[int],
                  substitute: int | None, seat: int, round_wind: int, memo: Memo | None = None) -> Readings:
    """:func:`readings_of` from the tiles: ``naturals`` and ``caishen`` as :class:`Checked` has
    them (the sorted faces of the concealed tiles that are no caishen, and how many are), beside
    ``melds`` melds, won on ``winning``, with the caishen ``kinds`` and the kind P stands for
    (``substitute``), for the seat and round winds (0-3)."""
    sets = 4 - melds
    if caishen:
        w_caishen = winning in kinds
        return decompose(naturals, caishen, sets, None if w_caishen else face_of(winning, substitute), w_caishen,
                         wind_tile(seat), wind_tile(round_wind), memo)
    return plain(naturals, sets, face_of(winning, substitute), wind_tile(seat), wind_tile(round_wind))


def no_reading(concealed: tuple[int, ...], melds: int, winning: int, kinds: frozenset[int], substitute: int | None,
               seat: int, round_wind: int) -> bool:
    """Whether a win's concealed tiles (the winning tile included) make no 4 sets and a pair as
    the scorer reads them (:func:`~ningbo_score.hand.check`'s naturals and caishen, then
    :func:`tile_readings`): the scorer refuses such a win ``not_a_winning_hand``, whatever else
    it holds.  False, to let the scorer say, where the tiles are not what readings read (their
    count not :func:`~ningbo_score.hand.winning_count`, a flower among the naturals: ``check``
    refuses those first).  (ningbo_score.replay's trials ask this before making a win's
    ``/v1/score`` body.)"""
    if len(concealed) != winning_count(melds):
        return False
    caishen, naturals = derived_tiles(concealed, kinds, substitute)
    if naturals and naturals[-1] >= N_KINDS:
        return False
    return not tile_readings(naturals, len(caishen), melds, winning, kinds, substitute, seat, round_wind)


def value(c: Checked, memo: Memo | None = None, lang: str = "en", readings: Readings | None = None) -> Valuation:
    """What a checked hand is worth, without its payments or its answer: :class:`ScoreError`
    with every problem if the win is refused (not a winning hand included).  ``readings``: the
    hand's :func:`readings_of`, when the caller has them (the same tiles won another way)."""
    if c.hand.heavenly:
        return _heavenly(c, memo, lang)
    return _value(c, readings_of(c, memo) if readings is None else readings, lang)


def _heavenly(c: Checked, memo: Memo | None, lang: str) -> Valuation:
    """天胡 (docs/rules.md §10.16): a dealt hand has no winning tile, so it is valued with each
    kind of its concealed tiles as the winning tile and the best is kept (the most 台, then
    eligible; among equals the tile the request named, then the lowest kind).  The named tile is
    valued first: its problems are the hand's (they don't depend on the winning tile)."""
    best = _value(c, readings_of(c, memo), lang)
    h = c.hand
    for k in sorted(set(h.concealed)):
        if k == h.winning:
            continue
        other_hand = check(complete(h.before(k), k, h.by, h.win_from))
        other = _value(other_hand, readings_of(other_hand, memo), lang)
        if (other.tai, other.eligible) > (best.tai, best.eligible):
            best = other
    return best


def _value(c: Checked, readings: Readings, lang: str) -> Valuation:
    """:func:`value` with the winning tile as given."""
    h = c.hand
    rules = h.rules
    problems = list(c.deferred)
    if not readings:
        problems.append(Problem(
            "not_a_winning_hand", "hand.concealed",
            "these tiles make no 4 sets and a pair" + (" with the caishen as wildcards" if c.caishen_tiles else ""),
            "这些牌组不成四组一对" + ("（财神作百搭也不行）" if c.caishen_tiles else "")))
        raise ScoreError(problems)

    ctx, signature = WinFacts(c), rules.signature
    seat_t, round_t = ctx.seat_tile, ctx.round_tile
    # the melds are the same in every reading: fold them into one key
    melds_key = 0
    meld_dragons: list[int] = []
    for m in h.melds:
        key, dragon = meld_key(m.type, m.faces, seat_t, round_t)
        melds_key |= key
        if dragon:
            meld_dragons.append(m.faces[0])

    restriction = rules.caishen_discard_restriction if h.by == "discard" else None
    bad = _RESTRICTION_BITS.get(restriction, 0)
    _, win_found, win_holds = WIN.answer(signature, WIN.values(ctx), 0, 0)
    _, flower_found, flower_holds = FLOWERS.answer(signature, FLOWERS.values(ctx), 0, 0)
    required = rules.required_patterns
    ctx_holds = (win_holds | flower_holds) if required else win_holds    # (read only if required)

    # each reading's items, evaluated once: the most 台, then meeting the required patterns; the
    # first found among equals
    best: tuple[int, Kept | Listed, Evaluation, Evaluation] | None = None
    best_total, meets = 0, False
    shape_values, seat_values = SHAPE.values(ctx), SEAT_SHAPE.values(ctx)
    n_meld_dragons = len(meld_dragons)
    for key, (dragons, rep) in readings.items():
        if key & bad:
            continue
        full_key = key | melds_key
        shape = SHAPE.reading(signature, shape_values, full_key, dragons + n_meld_dragons)
        seat = SEAT_SHAPE.reading(signature, seat_values, full_key, dragons + n_meld_dragons)
        total = shape[0] + seat[0]
        this_meets = _meets(required, shape[2], seat[2], ctx_holds) if required else True
        if best is None or total > best_total or (total == best_total and this_meets and not meets):
            best, best_total, meets = (full_key, rep, shape, seat), total, this_meets
    if best is None:
        problems.append(Problem(
            "caishen_needs_self_draw", "win.by",
            "on a discard every reading needs a caishen beside the winning tile ("
            + ("财神单吊时不能捉冲" if restriction == "single_wait" else "放冲的牌需要财神来配时不能放冲")
            + "): this hand wins only by self-draw",
            "捉冲时每种组合都要用财神来配胡的那张牌，只能自摸"))
        raise ScoreError(problems)
    if problems:
        raise ScoreError(problems)

    full_key, rep, (_, shape_found, _), (_, seat_found, _) = best
    found = sorted(shape_found + seat_found + win_found + flower_found, key=_ORDER_OF)
    tai = counted = 0
    bonus_ids = rules.bonus_ids
    for _, it, _, t in found:
        tai += t
        if it.id not in bonus_ids:
            counted += t
    reasons: list[str] = []
    zh = lang == "zh"
    if counted < rules.min_tai:
        reasons.append(f"计入的台数 {counted} 低于起胡的 {rules.min_tai} 台" if zh else
                       f"counted 台 {counted} is below the minimum of {rules.min_tai}")
    if not meets:
        reasons.append(("没有规定的牌型之一：" if zh else "the hand has none of the required patterns: ")
                       + ", ".join(required))
    eligible = not reasons
    points = 0
    if eligible:
        points = hand_points(h, tai)
        check_points(h, points)
    return Valuation(c, tai, counted, eligible, points, reasons, found, full_key, rep, meld_dragons)


def answer(v: Valuation) -> dict[str, Any]:
    """The `/v1/score` body of a valuation: its items with their tiles, its payments, the
    chosen reading as the decomposition."""
    c = v.checked
    h = c.hand
    rules = h.rules
    if v.eligible:
        payments, net = settle(h, v.points)
    else:
        payments, net = [], {s: 0 for s in SEATS}
    groups = groups_of(v.rep)
    # the tiles of the dragon pungs shown: the chosen reading's, sorted, then the melds'
    dragon_tiles = iter(sorted([g.faces[0] for g in groups if g.type == "pung" and g.faces[0] in DRAGONS])
                        + v.meld_dragons)
    bonus_ids = rules.bonus_ids
    return {
        "rules": rules.echo(),
        "caishen": _caishen_echo(h),
        "items": [_item_out(it, (next(dragon_tiles),) if it is DRAGON_PUNG else tiles, t, bonus_ids)
                  for _, it, tiles, t in v.found],
        "tai": v.tai,
        "counted_tai": v.counted,
        "min_tai": rules.min_tai,
        "eligible": v.eligible,
        "reasons": v.reasons,
        "decomposition": _decomposition_out(c, groups, key_wait(v.key)),
        "points": v.points,
        "payments": payments,
        "net": net,
    }


def _item_out(it: Item, tiles: tuple[int, ...], tai: int, bonus_ids: frozenset[str]) -> dict[str, object]:
    out = dict(_ITEM_OUT[it.id])           # a copy of a prepared dict: cheaper than building one
    out["tai"] = tai
    if it.id in bonus_ids:
        out["bonus"] = True
    if tiles:
        out["tiles"] = [CODES[t] for t in tiles]
    return out


def _caishen_echo(h: Hand) -> dict[str, object]:
    out: dict[str, object] = {"kinds": [CODES[k] for k in sorted(h.caishen_kinds)]}
    if h.indicator is not None:
        out["indicator"] = CODES[h.indicator]
    if h.substitute is not None:
        out["white_dragon_as"] = CODES[h.substitute]
    return out


def _decomposition_out(c: Checked, groups: list[Group], wait: str | None) -> DecompositionOut:
    h = c.hand
    caishen: list[CaishenSlot] = []
    pair: list[str] | None = None
    sets: list[SetOut] = []
    winning_face: int | None = None
    spare: list[int] = []                      # the physical caishen tiles not yet shown
    w_caishen = False
    if c.caishen_tiles:
        spare = list(c.caishen_tiles)
        w_caishen = h.winning in h.caishen_kinds
        if w_caishen:
            spare.remove(h.winning)
    # the groups in their order (groups_of: the sets by their faces, then the pair); a caishen
    # slot shows the winning tile (if a caishen) in the winning tile's slot, else the next
    # physical caishen
    for g in groups:
        if True in g.caishen:
            for i, slot in enumerate(g.caishen):
                if slot:
                    tile = h.winning if (i == g.winning and w_caishen) else spare.pop(0)
                    caishen.append({"tile": CODES[tile], "face": CODES[g.faces[i]]})
        shown = [CODES[f] for f in g.faces]
        if g.type == "pair":
            pair = shown
        else:
            sets.append({"type": g.type, "tiles": shown, "source": "concealed"})
        if g.winning >= 0:
            winning_face = g.faces[g.winning]
    for m in h.melds:
        sets.append({"type": m.type, "tiles": [CODES[f] for f in sorted(m.faces)], "source": "meld"})
    return {"pair": pair, "sets": sets, "caishen": caishen, "wait": wait,
            "winning_tile": CODES[winning_face if winning_face is not None else h.face(h.winning)]}


#: a found item's place in the answer (the items' order in items.py): the first of its tuple
_ORDER_OF = itemgetter(0)
DRAGON_PUNG = ITEM_BY_ID["dragon_pung"]
#: each item's answer but its 台 (and tiles), in the answer's key order
_ITEM_OUT = {it.id: {"id": it.id, "name": it.name, "name_en": it.name_en, "tai": 0, "bonus": False}
             for it in ITEMS}
