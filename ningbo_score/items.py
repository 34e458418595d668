"""The 台 items of docs/rules.md §5: one small, named function per item, its id, 台 and condition
side by side, so the table can be read straight off this file.

An item's test takes a :class:`~ningbo_score.hand.View` ``h`` (one reading of the hand plus the
win context) and returns either a bool (the item applies once) or a list of occurrences, each a
tuple of the tiles it is about (the item applies once per occurrence).  ``shape=True`` marks the
items that depend on how the concealed tiles are read (the decomposition); the others are
computed once per request.

``reads`` declares the fields of the view an item's test reads (``"ctx.x"``: a field of the win
context, ``h.ctx.x``); the engine remembers an item's answer keyed on exactly those fields, and
evaluates it on an object that has no other (so reading an undeclared field raises instead of
answering from a stale memo).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .tiles import FLOWER0

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol, TypedDict, TypeVar

    from .rules import Options

    class WinContext(Protocol):
        """What the items read of the win (``h.ctx``): ningbo_score.engine.Context's fields."""
        @property
        def by(self) -> str: ...
        @property
        def kong_replacement(self) -> bool: ...
        @property
        def last_tile(self) -> bool: ...
        @property
        def heavenly(self) -> bool: ...
        @property
        def earthly(self) -> bool: ...
        @property
        def n_caishen(self) -> int: ...
        @property
        def n_melds(self) -> int: ...
        @property
        def flowers(self) -> frozenset[int]: ...
        @property
        def seat(self) -> int: ...
        @property
        def seat_tile(self) -> int: ...
        @property
        def round_tile(self) -> int: ...

    class ItemView(Protocol):
        """What an item's test reads (``h``): ningbo_score.engine.View's fields (the engine passes
        a namespace holding only the declared ones)."""
        @property
        def ctx(self) -> WinContext: ...
        @property
        def wait(self) -> str | None: ...
        @property
        def all_chows(self) -> bool: ...
        @property
        def all_pungs(self) -> bool: ...
        @property
        def pair_carries_tai(self) -> bool: ...
        @property
        def suits(self) -> int: ...
        @property
        def seat_pung(self) -> bool: ...
        @property
        def round_pung(self) -> bool: ...
        @property
        def dragon_tiles(self) -> tuple[int, ...]: ...

    #: an item's occurrences: the tiles each is about
    Occurrences = list[tuple[int, ...]]
    #: an item's test: applies once (True), not at all (False), or once per occurrence
    Test = Callable[[ItemView], bool | Occurrences]
    _T = TypeVar("_T", bound=Test)

    class ItemDescription(TypedDict):
        """An item as GET /v1/rules lists it (:meth:`Item.describe`)."""
        id: str
        name: str
        name_en: str
        tai: int
        bonus: bool


@dataclass(frozen=True)
class Item:
    id: str
    tai: int                 # default 台 per occurrence; a request may override it (item_tai)
    name: str
    name_en: str
    bonus_when: str | None   # the option under which it is a bonus (not counted toward the minimum)
    shape: bool              # depends on the decomposition
    test: Test
    reads: tuple[str, ...]   # the fields of the view (``ctx.``: of the win context) the test reads

    def is_bonus(self, options: Options) -> bool:
        """Whether the item is a bonus under these options."""
        return self.bonus_when is not None and bool(getattr(options, self.bonus_when))

    def describe(self, options: Options) -> ItemDescription:
        return {"id": self.id, "name": self.name, "name_en": self.name_en, "tai": self.tai,
                "bonus": self.is_bonus(options)}


ITEMS: list[Item] = []


def item(id: str, tai: int, name: str, name_en: str, *, reads: tuple[str, ...], bonus_when: str | None = None,
         shape: bool = False) -> Callable[[_T], _T]:
    def register(test: _T) -> _T:
        ITEMS.append(Item(id, tai, name, name_en, bonus_when, shape, test, reads))
        return test
    return register


# --- the wait: exactly one of the next six applies -------------------------------------------

@item("pai_hu", 0, "排胡", "Plain win", shape=True, reads=("wait", "all_chows", "pair_carries_tai"))
def pai_hu(h: ItemView) -> bool:
    return h.wait == "two_sided" and not ping_hu(h)


@item("ping_hu", 1, "平胡", "All chows", shape=True, reads=("wait", "all_chows", "pair_carries_tai"))
def ping_hu(h: ItemView) -> bool:
    # the pair carries no 台: not the seat wind, the round wind or a dragon (*interpretation* of
    # "将头不可以是含台的风牌", rule book 2)
    return h.wait == "two_sided" and h.all_chows and not h.pair_carries_tai


@item("edge_wait", 1, "边", "Edge wait", shape=True, reads=("wait",))
def edge_wait(h: ItemView) -> bool:
    return h.wait == "edge"


@item("closed_wait", 1, "夹", "Closed wait", shape=True, reads=("wait",))
def closed_wait(h: ItemView) -> bool:
    return h.wait == "closed"


@item("single_wait", 1, "单吊", "Single wait", shape=True, reads=("wait",))
def single_wait(h: ItemView) -> bool:
    return h.wait == "single"


@item("dual_pung_wait", 1, "对倒", "Dual-pung wait", shape=True, reads=("wait",))
def dual_pung_wait(h: ItemView) -> bool:
    return h.wait == "dual_pung"


@item("big_single_wait", 1, "大吊", "Big single wait", shape=True, reads=("wait", "ctx.n_melds"))
def big_single_wait(h: ItemView) -> bool:
    # §10.4: 4 melds of any kind, a concealed kong included; also scores single_wait.
    return h.wait == "single" and h.ctx.n_melds == 4


# --- shape --------------------------------------------------------------------------------------

@item("all_pungs", 2, "碰碰胡", "All pungs", shape=True, reads=("all_pungs",))
def all_pungs(h: ItemView) -> bool:
    return h.all_pungs


# --- how the hand was won ------------------------------------------------------------------------

@item("self_draw", 1, "自摸", "Self-draw", reads=("ctx.by",))
def self_draw(h: ItemView) -> bool:
    return h.ctx.by == "self_draw"       # a kong-replacement draw and 海底 included


@item("kong_bloom", 1, "杠上开花", "Kong bloom", reads=("ctx.kong_replacement",))
def kong_bloom(h: ItemView) -> bool:
    return h.ctx.kong_replacement


@item("robbing_kong", 1, "抢杠", "Robbing a kong", reads=("ctx.by",))
def robbing_kong(h: ItemView) -> bool:
    return h.ctx.by == "robbing_kong"


@item("last_tile", 1, "海底捞月", "Last tile", reads=("ctx.last_tile",))
def last_tile(h: ItemView) -> bool:
    return h.ctx.last_tile


@item("heavenly", 8, "天胡", "Heavenly hand", reads=("ctx.heavenly",))
def heavenly(h: ItemView) -> bool:
    return h.ctx.heavenly                # *interpretation*: stacks with self_draw


@item("earthly", 6, "地胡", "Earthly hand", reads=("ctx.earthly",))
def earthly(h: ItemView) -> bool:
    return h.ctx.earthly


# --- caishen ----------------------------------------------------------------------------------

@item("no_caishen", 1, "硬胡", "No caishen", reads=("ctx.n_caishen",))
def no_caishen(h: ItemView) -> bool:
    return h.ctx.n_caishen == 0          # §10.6: physical caishen tiles in the concealed hand


@item("three_caishen", 3, "三财神", "Three caishen", bonus_when="three_caishen_bonus",
      reads=("ctx.n_caishen", "ctx.by"))
def three_caishen(h: ItemView) -> bool:
    # a bonus only under three_caishen_bonus (002: "不算在起胡的4台中"); 001 counts it like any item
    return h.ctx.n_caishen >= 3 and h.ctx.by == "self_draw"


@item("full_flush", 4, "清一色", "Full flush", shape=True, reads=("suits",))
def full_flush(h: ItemView) -> bool:
    return h.suits in (1, 2, 4)


@item("half_flush", 2, "混一色", "Half flush", shape=True, reads=("suits",))
def half_flush(h: ItemView) -> bool:
    return h.suits in (9, 10, 12)


@item("all_honors", 8, "字一色", "All honors", shape=True, reads=("suits",))
def all_honors(h: ItemView) -> bool:
    # *interpretation*: also scores all_pungs (an honours hand can only be pungs).
    return h.suits == 8


@item("dragon_pung", 1, "中发白刻/杠", "Dragon pung", shape=True, reads=("dragon_tiles",))
def dragon_pung(h: ItemView) -> Occurrences:
    return [(d,) for d in h.dragon_tiles]


@item("seat_wind_pung", 1, "位风刻/杠", "Seat wind pung", shape=True, reads=("seat_pung", "ctx.seat_tile"))
def seat_wind_pung(h: ItemView) -> Occurrences:
    return [(h.ctx.seat_tile,)] if h.seat_pung else []


@item("round_wind_pung", 1, "圈风刻/杠", "Round wind pung", shape=True, reads=("round_pung", "ctx.round_tile"))
def round_wind_pung(h: ItemView) -> Occurrences:
    return [(h.ctx.round_tile,)] if h.round_pung else []


# --- flowers ----------------------------------------------------------------------------------

def _full_groups(flowers: frozenset[int]) -> list[int]:
    return [g for g in (0, 1) if all(FLOWER0 + 4 * g + i in flowers for i in range(4))]


@item("seat_flower", 1, "正花", "Seat flower", reads=("ctx.flowers", "ctx.seat"))
def seat_flower(h: ItemView) -> Occurrences:
    fl = h.ctx.flowers
    if len(fl) == 8:
        return []                        # all_flowers replaces every other flower item
    full = _full_groups(fl)
    return [(f,) for f in (FLOWER0 + h.ctx.seat, FLOWER0 + 4 + h.ctx.seat)
            if f in fl and (f - FLOWER0) // 4 not in full]   # flower_set replaces its group's


@item("flower_set", 2, "四花", "Flower set", reads=("ctx.flowers",))
def flower_set(h: ItemView) -> Occurrences:
    fl = h.ctx.flowers
    if len(fl) == 8:
        return []
    return [tuple(range(FLOWER0 + 4 * g, FLOWER0 + 4 * g + 4)) for g in _full_groups(fl)]


@item("all_flowers", 8, "八花", "All eight flowers", reads=("ctx.flowers",))
def all_flowers(h: ItemView) -> Occurrences:
    return [tuple(range(FLOWER0, FLOWER0 + 8))] if len(h.ctx.flowers) == 8 else []


ITEM_BY_ID: dict[str, Item] = {it.id: it for it in ITEMS}
SHAPE_ITEMS = tuple(it for it in ITEMS if it.shape)
CONTEXT_ITEMS = tuple(it for it in ITEMS if not it.shape)
