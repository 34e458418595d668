"""Presets (docs/rules.md §9) as data, and the per-request `rules` field: a preset id or an object
naming a preset with option overrides and `item_tai` overrides."""
from __future__ import annotations

import typing
from dataclasses import dataclass
from types import MappingProxyType

from .items import ITEMS

if typing.TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Literal, TypeAlias, TypedDict

    CaishenRule: TypeAlias = Literal["indicator", "indicator_and_next"]
    DiscardRestriction: TypeAlias = Literal["single_wait", "any_group"]
    PointsRule: TypeAlias = Literal["linear", "doubling"]
    RelatedDiscarder: TypeAlias = Literal["add", "five"]
    #: the value of an option (``required_patterns``: a list in PRESETS, a tuple in Rules.options)
    OptionValue: TypeAlias = str | int | list[str] | tuple[str, ...] | None

    class Options(TypedDict):
        """A preset's options (PRESETS), every one of OPTION_KINDS."""
        caishen_rule: CaishenRule
        white_dragon_substitutes: bool
        min_tai: int
        required_patterns: list[str]
        discard_wins: bool
        caishen_discard_restriction: DiscardRestriction | None
        robbing_needs_no_caishen_discarded: bool
        points: PointsRule
        chi_counts_for_liability: bool
        related_discarder: RelatedDiscarder
        kong_bloom_others_pay: bool
        liability_cap: int | None
        hand_cap: int | None
        three_caishen_bonus: bool
        draw_keeps_dealer: bool

    class Preset(TypedDict):
        name: str
        name_en: str
        source: str
        options: Options

    class RulebookChange(TypedDict):
        id: str
        presets: list[str]
        change: str

# option -> (kind, allowed values or None)
OPTION_KINDS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "caishen_rule": ("enum", ("indicator", "indicator_and_next")),
    "white_dragon_substitutes": ("bool", None),
    "min_tai": ("int0", None),
    "required_patterns": ("items", None),
    "discard_wins": ("bool", None),
    "caishen_discard_restriction": ("enum?", ("single_wait", "any_group")),
    "robbing_needs_no_caishen_discarded": ("bool", None),
    "points": ("enum", ("linear", "doubling")),
    "chi_counts_for_liability": ("bool", None),
    "related_discarder": ("enum", ("add", "five")),
    "kong_bloom_others_pay": ("bool", None),
    "liability_cap": ("int1?", None),
    "hand_cap": ("int1?", None),
    "three_caishen_bonus": ("bool", None),
    "draw_keeps_dealer": ("bool", None),
}

_BASE: Options = {
    "caishen_rule": "indicator", "white_dragon_substitutes": False, "min_tai": 4, "required_patterns": [],
    "discard_wins": True, "caishen_discard_restriction": "single_wait",
    "robbing_needs_no_caishen_discarded": False, "points": "linear", "chi_counts_for_liability": True,
    "related_discarder": "add", "kong_bloom_others_pay": False, "liability_cap": None, "hand_cap": None,
    "three_caishen_bonus": False, "draw_keeps_dealer": True,
}

PRESETS: dict[str, Preset] = {
    "ningbo": {
        "name": "宁波麻将", "name_en": "Ningbo (default)",
        "source": "《宁波麻将》规则 (简介 · 规则 · 牌型番数 · 积分计算; undated online rule page)",
        "options": {**_BASE, "hand_cap": 1000},
    },
    "ningbo-456": {
        "name": "宁波麻将 (456游戏)", "name_en": "Ningbo, 456 rules",
        "source": "《“宁波麻将”游戏介绍》, 456游戏, 2010-9-19",
        "options": {**_BASE, "caishen_discard_restriction": "any_group", "points": "doubling",
                    "kong_bloom_others_pay": True, "liability_cap": 5},
    },
    "ningbo-bianfeng": {
        "name": "宁波麻将 (边锋)", "name_en": "Ningbo, Bianfeng rules",
        "source": "《寧波麻將 打牌規則》 (边锋 Bianfeng rules; undated online page)",
        "options": {**_BASE, "three_caishen_bonus": True},
    },
    "ningbo-taishu": {
        "name": "宁波麻将 (台数)", "name_en": "Ningbo, restricted patterns",
        "source": "《麻將規則》 (臺數麻將, first part; undated online page)",
        "options": {**_BASE, "min_tai": 0,
                    "required_patterns": ["full_flush", "half_flush", "all_honors", "all_pungs"],
                    "caishen_discard_restriction": "any_group", "chi_counts_for_liability": False,
                    "related_discarder": "five", "liability_cap": 5, "draw_keeps_dealer": False},
    },
    "ningbo-7baida": {
        "name": "宁波麻将 (天一 7百搭)", "name_en": "Ningbo, seven wildcards",
        "source": "《麻將規則》: 寧波7百搭麻將 (天一游戏, second part; undated online page)",
        "options": {**_BASE, "caishen_rule": "indicator_and_next", "min_tai": 5, "discard_wins": False,
                    "caishen_discard_restriction": None, "robbing_needs_no_caishen_discarded": True,
                    "chi_counts_for_liability": False, "related_discarder": "five", "liability_cap": 5,
                    "draw_keeps_dealer": False},
    },
}
DEFAULT_PRESET = "ningbo"
#: The version of the rule book the library scores by (docs/rules.md, "Rule book versions"),
#: echoed as ``rulebook`` wherever rules are.
RULEBOOK = 2
_ALL = list(PRESETS)
#: What rule book 2 changed for a client that scored with rule book 1 (GET /v1/rules): each
#: change names what it is about (an option, an item id or a topic) and the presets it affects.
RULEBOOK_CHANGES: tuple[RulebookChange, ...] = (
    {"id": "white_dragon_substitutes", "presets": ["ningbo-456"],
     "change": "白板 no longer substitutes for the caishen in ningbo-456 (000 ⑥: 白板不代替翻出的那张牌)."},
    {"id": "three_caishen_bonus", "presets": ["ningbo", "ningbo-456", "ningbo-taishu", "ningbo-7baida"],
     "change": "New option three_caishen_bonus (on only in ningbo-bianfeng): elsewhere 三财神 counts toward "
               "the minimum like any item, and doubling uses the full 台, bonus items included."},
    {"id": "ping_hu", "presets": _ALL,
     "change": "A dragon pair (中 发 白) is no 平胡 pair: such a hand scores 排胡 (0) instead of 平胡 (1)."},
    {"id": "min_tai", "presets": ["ningbo-taishu"],
     "change": "ningbo-taishu has no 台 minimum (min_tai 0): its required patterns are the only gate."},
    {"id": "chi_counts_for_liability", "presets": ["ningbo-taishu"],
     "change": "ningbo-taishu counts no chows toward 包 (chi_counts_for_liability false)."},
    {"id": "robbing_kong", "presets": _ALL,
     "change": "A robbed kong is paid by the robbed player alone, 5 × points, whatever the 包 relations."},
    {"id": "draw_keeps_dealer", "presets": ["ningbo-taishu", "ningbo-7baida"],
     "change": "New option draw_keeps_dealer (off in ningbo-taishu and ningbo-7baida: after a draw the next "
               "seat deals); POST /v1/table/next takes rules."},
    {"id": "heavenly", "presets": _ALL,
     "change": "天胡: the wait item is the best one over every concealed tile taken as the winning tile."},
    {"id": "integers", "presets": _ALL,
     "change": "A count may be written as an integral number (2.0 is 2); a hand whose points, payments or "
               "net would pass 2^53 − 1 is a 422 invalid_request on base_points."},
)
ITEM_TAI_MAX = 100                  # per occurrence; keeps doubling points a printable integer
MAX_SAFE_INTEGER = 2**53 - 1        # other integer options: the largest every JSON parser reads exactly


@dataclass(frozen=True)
class Rules:
    """The options in force for one request, with item values resolved."""
    preset: str
    options: MappingProxyType[str, object]   # every option (OPTION_KINDS) -> its value
    item_tai: MappingProxyType[str, int]     # every item id -> 台 in force
    overrides: MappingProxyType[str, int]    # item_tai overrides as given

    if typing.TYPE_CHECKING:
        # Set by __post_init__ (for type checkers only: a dataclass field would be an argument,
        # and Cython reads annotations wherever they are): each option as an attribute ...
        @property
        def caishen_rule(self) -> CaishenRule: ...
        @property
        def white_dragon_substitutes(self) -> bool: ...
        @property
        def min_tai(self) -> int: ...
        @property
        def required_patterns(self) -> tuple[str, ...]: ...
        @property
        def discard_wins(self) -> bool: ...
        @property
        def caishen_discard_restriction(self) -> DiscardRestriction | None: ...
        @property
        def robbing_needs_no_caishen_discarded(self) -> bool: ...
        @property
        def points(self) -> PointsRule: ...
        @property
        def chi_counts_for_liability(self) -> bool: ...
        @property
        def related_discarder(self) -> RelatedDiscarder: ...
        @property
        def kong_bloom_others_pay(self) -> bool: ...
        @property
        def liability_cap(self) -> int | None: ...
        @property
        def hand_cap(self) -> int | None: ...
        @property
        def three_caishen_bonus(self) -> bool: ...
        @property
        def draw_keeps_dealer(self) -> bool: ...
        # ... and what follows from them
        @property
        def _echo(self) -> dict[str, object]: ...
        @property
        def bonus_ids(self) -> frozenset[str]: ...
        @property
        def signature(self) -> tuple[tuple[str, int], ...]: ...

    def echo(self) -> dict[str, object]:
        """The options in force, as the response's `rules` (a fresh dict each time)."""
        out: dict[str, object] = dict(self._echo)
        out["required_patterns"] = list(self.required_patterns)
        out["item_tai"] = self.overrides.copy()
        return out

    def __post_init__(self) -> None:
        for name, value in self.options.items():      # options read as attributes: rules.min_tai
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_echo", {"preset": self.preset, "rulebook": RULEBOOK, **self.options})
        # the ids of the items that are bonuses (not counted toward min_tai) under these options
        object.__setattr__(self, "bonus_ids", frozenset(it.id for it in ITEMS if it.is_bonus(self.options)))
        # what the item values depend on, for caching evaluations
        object.__setattr__(self, "signature", tuple(sorted(self.overrides.items())))


def _copy(v: object) -> object:  # a JSON-ready copy of an option value
    return list(v) if isinstance(v, (list, tuple)) else v


_DEFAULT_TAI = MappingProxyType({it.id: it.tai for it in ITEMS})
_CACHE: dict[str, Rules] = {}


def preset_rules(preset_id: str) -> Rules:
    r = _CACHE.get(preset_id)
    if r is None:
        preset = PRESETS[preset_id]["options"]
        opts: dict[str, object] = {**preset, "required_patterns": tuple(preset["required_patterns"])}
        r = Rules(preset_id, MappingProxyType(opts), _DEFAULT_TAI, MappingProxyType({}))
        _CACHE[preset_id] = r
    return r


def item_tai_in_force(overrides: Mapping[str, int] | Iterable[tuple[str, int]]) -> dict[str, int]:
    """Every item's 台: its default, or the override given (``overrides``: a mapping of item id
    to 台, or its pairs, e.g. :attr:`Rules.signature`)."""
    tai = _DEFAULT_TAI.copy()
    tai.update(overrides)
    return tai


def custom_rules(preset_id: str, options: dict[str, OptionValue], item_tai: dict[str, int]) -> Rules:
    """A preset with option overrides and 台 overrides per item, as the request schema loaded
    them (every name and value already checked: ningbo_score.request_schemas.RulesObjectSchema)."""
    key = (preset_id, tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items())),
           tuple(sorted(item_tai.items())))
    hit = _OBJECT_CACHE.get(key)
    if hit is not None:
        return hit
    opts = dict(preset_rules(preset_id).options)
    opts.update(options)
    # a list (as loaded) or the preset's tuple
    opts["required_patterns"] = tuple(typing.cast("list[str] | tuple[str, ...]", opts["required_patterns"]))
    rules = Rules(preset_id, MappingProxyType(opts), MappingProxyType(item_tai_in_force(item_tai)),
                  MappingProxyType(dict(item_tai)))
    if len(_OBJECT_CACHE) >= _OBJECT_CACHE_LIMIT:
        _OBJECT_CACHE.clear()
    _OBJECT_CACHE[key] = rules
    return rules


# Rules objects already made (a Rules is immutable), by what they were made of.
_OBJECT_CACHE: dict[tuple[str, tuple[tuple[str, OptionValue], ...], tuple[tuple[str, int], ...]], Rules] = {}
_OBJECT_CACHE_LIMIT = 1024


def describe_rulebook() -> dict[str, object]:
    """The body of GET /v1/rules: the rule book's version, what it changed, every preset."""
    return {"rulebook": RULEBOOK,
            "changes": [{**c, "presets": list(c["presets"])} for c in RULEBOOK_CHANGES],
            "presets": [describe_preset(p) for p in PRESETS]}


def describe_preset(preset_id: str) -> dict[str, object]:
    p = PRESETS[preset_id]
    return {
        "id": preset_id, "rulebook": RULEBOOK, "name": p["name"], "name_en": p["name_en"], "source": p["source"],
        "options": {k: _copy(v) for k, v in p["options"].items()},
        "items": [it.describe(p["options"]) for it in ITEMS],
    }
