"""Presets (docs/rules.md §9) as data, and the per-request `rules` field: a preset id or an object
naming a preset with option overrides and `item_tai` overrides."""
from __future__ import annotations

import typing
from dataclasses import asdict, dataclass, field, fields, replace
from types import MappingProxyType
from typing import Literal, TypeAlias

from .items import ITEMS

if typing.TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import TypedDict

    class Preset(TypedDict):
        name: str
        name_en: str
        source: str
        options: Options

    class RulebookChange(TypedDict):
        id: str
        presets: list[str]
        change: str

# The value sets of the options, read at run time: OPTION_KINDS is derived from Options' annotations.
CaishenRule: TypeAlias = Literal["indicator", "indicator_and_next"]
DiscardRestriction: TypeAlias = Literal["single_wait", "any_group"]
PointsRule: TypeAlias = Literal["linear", "doubling"]
RelatedDiscarder: TypeAlias = Literal["add", "five"]
EscapePenaltyTo: TypeAlias = Literal["house", "table"]
#: the value of an option as a request gives it (``required_patterns``: a list; an Options holds a tuple)
OptionValue: TypeAlias = "str | int | list[str] | tuple[str, ...] | None"


def _option(default: object, doc: str, *, minimum: int | None = None) -> typing.Any:
    """An option's field: its base value, what it does (the schemas' description) and, for an
    integer, its least value."""
    return field(default=default, metadata={"doc": doc, "minimum": minimum})


@dataclass(frozen=True)
class Options:
    """Every rule option of docs/rules.md §9, declared once: its type (and so its values), its
    base value (the one most presets keep) and what it does.  OPTION_KINDS, the request schema
    (ningbo_score.readers.request_schemas.option_fields) and the answers' schema are derived from it; a preset
    is ``replace(BASE, …)``."""

    caishen_rule: CaishenRule = _option("indicator", "How the caishen kinds follow from the indicator.")
    white_dragon_substitutes: bool = _option(False, "The `P` tiles take the face of the caishen kind.")
    min_tai: int = _option(4, "The least counted 台 a winning hand needs.", minimum=0)
    required_patterns: tuple[str, ...] = _option(
        (), "Item ids of which a winning hand must have one; `[]` = none. Each at most once.")
    discard_wins: bool = _option(True, "Whether a discard may be won on.")
    caishen_discard_restriction: DiscardRestriction | None = _option(
        "single_wait", "Which caishen placements forbid a discard win; `null` = none.")
    robbing_needs_no_caishen_discarded: bool = _option(False, "A player who discarded a caishen may not rob a kong.")
    points: PointsRule = _option("linear", "`linear`: base × (1 + 台); `doubling`: base × 2^max(0, 台 − 4) "
                                           "(rule book 3).")
    chi_counts_for_liability: bool = _option(True, "Chows count as claims for 包.")
    related_discarder: RelatedDiscarder = _option("add", "What a related discarder pays: 2 + 2 (`add`) or 5 (`five`).")
    kong_bloom_others_pay: bool = _option(False, "Unrelated players pay 1 each on a kong bloom fed by a discard.")
    liability_others_pay: bool = _option(False, "Unrelated players pay 1 each on a self-draw with a related (包) "
                                                "player (only `ningbo-7baida`).")
    liability_cap: int | None = _option(None, "Highest multiplier of one payer; `null` = none.", minimum=1)
    hand_cap: int | None = _option(None, "Most one payer pays and the winner receives in a hand; `null` = none.",
                                   minimum=1)
    three_caishen_bonus: bool = _option(False, "三财神 is a bonus: not counted toward `min_tai` (only "
                                               "`ningbo-bianfeng`).")
    draw_keeps_dealer: bool = _option(True, "After a draw (流局) the dealer deals again; off: the next seat deals.")
    chow_swap_allowed: bool = _option(True, "After a chow the claimant may discard the claimed tile's kind or the tile "
                                            "that would make a chow with its two melded tiles (吃张打张); off: it may "
                                            "not (only `ningbo`, rule book 4).")
    robbed_kong_liability: bool = _option(False, "On a robbed kong a player related (包) to the winner, other than "
                                                 "the robbed one, also pays as on a self-draw (only `ningbo-456`, "
                                                 "rule book 4).")
    escape_penalty_to: EscapePenaltyTo = _option("house", "Who receives the escape penalty (24 × base): `house`, "
                                                          "nobody at the table gains; `table`: 8 × base to each other "
                                                          "player (rule book 4).")


def _kind(hint: object, minimum: int | None) -> tuple[str, tuple[str, ...] | None]:
    """(kind, allowed values) of an option's annotation: ``bool``; ``int0``/``int1`` (its least
    value); ``enum`` (a Literal's values); ``items`` (item ids); ``?`` after it: ``null`` is a
    value ("none")."""
    args = typing.get_args(hint)
    nullable = type(None) in args
    if nullable:
        (hint,) = [a for a in args if a is not type(None)]
    suffix = "?" if nullable else ""
    if typing.get_origin(hint) is Literal:
        return "enum" + suffix, typing.get_args(hint)
    if hint is bool and not nullable:
        return "bool", None
    if hint is int:
        return f"int{minimum}{suffix}", None
    if typing.get_origin(hint) is tuple and not nullable:
        return "items", None
    raise TypeError(f"an option of an unknown kind: {hint!r}")


_HINTS = typing.get_type_hints(Options)
#: option -> (kind, allowed values or None), in declaration order (from Options)
OPTION_KINDS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    f.name: _kind(_HINTS[f.name], f.metadata["minimum"]) for f in fields(Options)}
#: option -> what it does (the schemas' description)
OPTION_DOCS: dict[str, str] = {f.name: f.metadata["doc"] for f in fields(Options)}
#: option -> its name for a reader, in English and in Chinese (GET /v1/rules' ``option_labels``:
#: the calculator page shows them); ``item_tai``, the requests' 台 overrides, too.
OPTION_LABELS: dict[str, tuple[str, str]] = {
    "caishen_rule": ("Caishen rule", "财神怎么定"),
    "white_dragon_substitutes": ("White dragon stands for the caishen face", "白板代替财神原牌"),
    "min_tai": ("Minimum 台", "起胡台数"),
    "required_patterns": ("Required patterns", "必须的牌型"),
    "discard_wins": ("Wins on a discard", "可以捉冲"),
    "caishen_discard_restriction": ("Discard wins with caishen", "有财神时捉冲的限制"),
    "robbing_needs_no_caishen_discarded": ("Robbing a kong needs no caishen discarded", "打过财神不能抢杠"),
    "points": ("Points", "分数算法"),
    "chi_counts_for_liability": ("Chows count for 包", "吃也算包"),
    "related_discarder": ("Related discarder", "相关打牌者"),
    "kong_bloom_others_pay": ("Others pay for a kong bloom", "杠上开花别家也付"),
    "liability_others_pay": ("Others pay for a 包 self-draw", "包自摸时别家也付"),
    "liability_cap": ("包 cap", "包的上限"),
    "hand_cap": ("Hand cap", "每手封顶"),
    "three_caishen_bonus": ("Three caishen is a bonus (not toward the minimum)", "三财神为奖励台（不计起胡）"),
    "draw_keeps_dealer": ("A draw keeps the dealer", "流局连庄"),
    "chow_swap_allowed": ("A chow's kind may be discarded at once", "可以吃张打张"),
    "robbed_kong_liability": ("包 partner pays on a robbed kong", "抢杠时包家也付"),
    "escape_penalty_to": ("Escape penalty goes to", "逃跑罚分归谁"),
    "item_tai": ("台 changes", "台数改动"),
}
if set(OPTION_LABELS) != {*OPTION_KINDS, "item_tai"}:    # a new option needs its label here
    raise RuntimeError(f"option labels missing or extra: {set(OPTION_LABELS) ^ {*OPTION_KINDS, 'item_tai'}}")

#: The values most presets keep (001's, but its hand cap).
BASE = Options()

PRESETS: dict[str, Preset] = {
    "ningbo": {
        "name": "宁波麻将", "name_en": "Ningbo (default)",
        "source": "《宁波麻将》规则 (简介 · 规则 · 牌型番数 · 积分计算; undated online rule page)",
        "options": replace(BASE, hand_cap=1000, chow_swap_allowed=False),
    },
    "ningbo-456": {
        "name": "宁波麻将 (456游戏)", "name_en": "Ningbo, 456 rules",
        "source": "《“宁波麻将”游戏介绍》, 456游戏, 2010-9-19",
        "options": replace(BASE, caishen_discard_restriction="any_group", points="doubling",
                           kong_bloom_others_pay=True, liability_cap=5, robbed_kong_liability=True),
    },
    "ningbo-bianfeng": {
        "name": "宁波麻将 (边锋)", "name_en": "Ningbo, Bianfeng rules",
        "source": "《寧波麻將 打牌規則》 (边锋 Bianfeng rules; undated online page)",
        "options": replace(BASE, three_caishen_bonus=True),
    },
    "ningbo-taishu": {
        "name": "宁波麻将 (台数)", "name_en": "Ningbo, restricted patterns",
        "source": "《麻將規則》 (臺數麻將, first part; undated online page)",
        "options": replace(BASE, min_tai=0,
                           required_patterns=("full_flush", "half_flush", "all_honors", "all_pungs"),
                           caishen_discard_restriction="any_group", chi_counts_for_liability=False,
                           related_discarder="five", liability_cap=5, draw_keeps_dealer=False),
    },
    "ningbo-7baida": {
        "name": "宁波麻将 (天一 7百搭)", "name_en": "Ningbo, seven wildcards",
        "source": "《麻將規則》: 寧波7百搭麻將 (天一游戏, second part; undated online page)",
        "options": replace(BASE, caishen_rule="indicator_and_next", discard_wins=False,
                           caishen_discard_restriction=None, robbing_needs_no_caishen_discarded=True,
                           chi_counts_for_liability=False, related_discarder="five", kong_bloom_others_pay=True,
                           liability_others_pay=True, liability_cap=5, draw_keeps_dealer=False),
    },
}
DEFAULT_PRESET = "ningbo"
#: The version of the rule book the library scores by (docs/rules.md, "Rule book versions"),
#: echoed as ``rulebook`` wherever rules are.
RULEBOOK = 4
#: What rule book 4 changed for a client that scored with rule book 3 (GET /v1/rules): each
#: change names what it is about (an option, an item id or a topic) and the presets it affects.
RULEBOOK_CHANGES: tuple[RulebookChange, ...] = (
    {"id": "play", "presets": list(PRESETS),
     "change": "The play (§11) is part of the rule book. A replacement for a flower of the deal is no 杠上开花 "
               "(出牌前补花), and every seat may replace its dealt flowers before play (replay logs); a declared "
               "win under the minimum is no win: illegal in a log (below_minimum), a 422 in a session, and it "
               "never moves the deal. /v1/score answers are unchanged except in ningbo-456 robbed kongs with a "
               "包 partner."},
    {"id": "chow_swap_allowed", "presets": ["ningbo"],
     "change": "New option chow_swap_allowed (off only in ningbo: 不能吃张打张): after a chow the claimant may "
               "not discard the claimed tile's kind nor the tile that would make a chow with its two melded "
               "tiles (replay reason chow_swap_discard)."},
    {"id": "robbed_kong_liability", "presets": ["ningbo-456"],
     "change": "New option robbed_kong_liability (on only in ningbo-456): on a robbed kong the robbed player pays "
               "5 and a player related (包) to the winner other than the robbed one also pays as on a self-draw "
               "(5, mutual 10, within liability_cap)."},
    {"id": "escape_penalty_to", "presets": list(PRESETS),
     "change": "New option escape_penalty_to (house in every preset): the escape penalty (24 × base) goes to the "
               "house and nobody at the table gains (其他剩余玩家不得分); sessions list it in `house`, and "
               "`transfers` settle the rest. `table`: 8 × base to each other player, as sessions paid before."},
)
ITEM_TAI_MAX = 100                  # per occurrence; keeps doubling points a printable integer
MAX_SAFE_INTEGER = 2**53 - 1        # other integer options: the largest every JSON parser reads exactly


@dataclass(frozen=True, kw_only=True)
class Rules(Options):
    """The options in force for one request (each an attribute: ``rules.min_tai``), with item
    values resolved."""
    preset: str
    item_tai: MappingProxyType[str, int]     # every item id -> 台 in force
    overrides: MappingProxyType[str, int]    # item_tai overrides as given

    if typing.TYPE_CHECKING:
        # Set by __post_init__ (for type checkers only: a dataclass field would be an argument,
        # and Cython reads annotations wherever they are): what follows from the options
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
        object.__setattr__(self, "_echo", {"preset": self.preset, "rulebook": RULEBOOK, **option_values(self)})
        # the ids of the items that are bonuses (not counted toward min_tai) under these options
        object.__setattr__(self, "bonus_ids", frozenset(it.id for it in ITEMS if it.is_bonus(self)))
        # what the item values depend on, for caching evaluations
        object.__setattr__(self, "signature", tuple(sorted(self.overrides.items())))


def option_values(options: Options) -> dict[str, object]:
    """Every option's value, in declaration order, JSON-ready (a list for a tuple)."""
    return {name: _copy(getattr(options, name)) for name in OPTION_KINDS}


def _copy(v: object) -> object:  # a JSON-ready copy of an option value
    return list(v) if isinstance(v, (list, tuple)) else v


_DEFAULT_TAI = MappingProxyType({it.id: it.tai for it in ITEMS})
_CACHE: dict[str, Rules] = {}


def preset_rules(preset_id: str) -> Rules:
    r = _CACHE.get(preset_id)
    if r is None:
        r = Rules(**asdict(PRESETS[preset_id]["options"]), preset=preset_id, item_tai=_DEFAULT_TAI,
                  overrides=MappingProxyType({}))
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
    them (every name and value already checked: ningbo_score.readers.request_schemas.RulesObjectSchema)."""
    key = (preset_id, tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items())),
           tuple(sorted(item_tai.items())))
    hit = _OBJECT_CACHE.get(key)
    if hit is not None:
        return hit
    given: dict[str, typing.Any] = dict(options)
    if "required_patterns" in given:      # a list, as loaded
        given["required_patterns"] = tuple(typing.cast("list[str]", given["required_patterns"]))
    merged = replace(PRESETS[preset_id]["options"], **given)
    rules = Rules(**asdict(merged), preset=preset_id, item_tai=MappingProxyType(item_tai_in_force(item_tai)),
                  overrides=MappingProxyType(dict(item_tai)))
    if len(_OBJECT_CACHE) >= _OBJECT_CACHE_LIMIT:
        _OBJECT_CACHE.clear()
    _OBJECT_CACHE[key] = rules
    return rules


# Rules objects already made (a Rules is immutable), by what they were made of.
_OBJECT_CACHE: dict[tuple[str, tuple[tuple[str, OptionValue], ...], tuple[tuple[str, int], ...]], Rules] = {}
_OBJECT_CACHE_LIMIT = 1024


def describe_rulebook() -> dict[str, object]:
    """The body of GET /v1/rules: the rule book's version, what it changed, the options' labels in
    both languages, every preset."""
    return {"rulebook": RULEBOOK,
            "changes": [{**c, "presets": list(c["presets"])} for c in RULEBOOK_CHANGES],
            "option_labels": {name: {"en": en, "zh": zh} for name, (en, zh) in OPTION_LABELS.items()},
            "presets": [describe_preset(p) for p in PRESETS]}


def describe_preset(preset_id: str) -> dict[str, object]:
    p = PRESETS[preset_id]
    return {
        "id": preset_id, "rulebook": RULEBOOK, "name": p["name"], "name_en": p["name_en"], "source": p["source"],
        "options": option_values(p["options"]),
        "items": [it.describe(p["options"]) for it in ITEMS],
    }
