"""Request bodies of API.md.  Unknown fields are refused everywhere; ``null`` in an optional
field means absent (it is dropped on load), except for the options whose value may be ``null``
(``caishen_discard_restriction``, ``liability_cap``, ``hand_cap``: "none")."""
from __future__ import annotations

from marshmallow import RAISE, Schema, ValidationError, post_load, validates_schema

import ningbo_score
from ningbo_score.hand import MAX_BASE_POINTS, MAX_CLAIMS
from ningbo_score.rules import ITEM_TAI_MAX, MAX_SAFE_INTEGER
from ningbo_score.table import CLAIM_TYPES as _LIBRARY_CLAIM_TYPES
from ningbo_score.table import MAX_LEVEL

from .fields import (
    Boolean,
    Dict,
    Integer,
    List,
    Msg,
    Nested,
    OneOf,
    PresetOrObject,
    Range,
    String,
    Tile,
    Tiles,
)

_PRESETS = ningbo_score.presets()
PRESET_IDS: tuple[str, ...] = tuple(p["id"] for p in _PRESETS)
ITEM_IDS: tuple[str, ...] = tuple(it["id"] for it in _PRESETS[0]["items"])
SEATS = ("E", "S", "W", "N")
WIN_BY = ("self_draw", "discard", "robbing_kong")
MELD_TYPES = ("chow", "pung", "kong")
# Bounds of the library (ningbo_score.rules, ningbo_score.hand), so that the schema and the
# library agree on what a well-formed request is (tests/test_api.py checks both sides of each).
# Other integers: at most 2^53 − 1 (MAX_SAFE_INTEGER), the largest integer every JSON parser reads
# exactly.


def seat(**kwargs) -> String:
    kwargs.setdefault("metadata", {})
    kwargs["metadata"].setdefault("description", "A seat wind: `E` (the dealer), `S`, `W` or `N`.")
    return String(validate=OneOf(SEATS), **kwargs)


def optional(field_cls, *args, **kwargs):
    """An optional field: absent or ``null`` (= absent)."""
    return field_cls(*args, required=False, allow_none=True, **kwargs)


# A schema whose optional fields are "exactly one of" (``OPENAPI_VARIANTS = {name: (field,
# more properties)}``) is documented in openapi.yaml as a ``oneOf`` of one component per field,
# named ``name``, where that field is required and the others absent (the server also takes
# ``null`` for absent there; the spec does not say so: tools/gen_openapi.variants tells why);
# generated clients get one typed class per way of giving it.


class StrictSchema(Schema):
    """Unknown fields raise; optional ``null`` values are dropped after loading."""

    class Meta:
        unknown = RAISE

    error_messages = {
        "unknown": Msg("Unknown field.", "未知字段。"),
        "type": Msg("Must be an object.", "必须是对象。"),
    }
    #: optional fields whose ``null`` is a value rather than "absent"
    NULL_IS_VALUE: frozenset[str] = frozenset()

    @post_load
    def _drop_nulls(self, data: dict, **kwargs) -> dict:
        keep = self.NULL_IS_VALUE
        return {k: v for k, v in data.items() if v is not None or k in keep}


class RulesObjectSchema(StrictSchema):
    """A preset with option overrides (RULES.md §9) and 台 overrides per item (`item_tai`)."""

    NULL_IS_VALUE = frozenset({"caishen_discard_restriction", "liability_cap", "hand_cap"})

    preset = optional(String, validate=OneOf(PRESET_IDS), metadata={
        "description": "The preset the options start from.", "default": "ningbo"})
    caishen_rule = optional(String, validate=OneOf(("indicator", "indicator_and_next")), metadata={
        "description": "How the caishen kinds follow from the indicator."})
    white_dragon_substitutes = optional(Boolean, metadata={
        "description": "The `P` tiles take the face of the caishen kind."})
    min_tai = optional(Integer, validate=Range(min=0, max=MAX_SAFE_INTEGER), metadata={
        "description": "The least counted 台 a winning hand needs."})
    required_patterns = optional(List, String(validate=OneOf(ITEM_IDS)), metadata={
        "description": "Item ids of which a winning hand must have one; `[]` = none."})
    discard_wins = optional(Boolean, metadata={"description": "Whether a discard may be won on."})
    caishen_discard_restriction = String(
        validate=OneOf(("single_wait", "any_group", None)), required=False, allow_none=True, metadata={
            "description": "Which caishen placements forbid a discard win; `null` = none."})
    robbing_needs_no_caishen_discarded = optional(Boolean, metadata={
        "description": "A player who discarded a caishen may not rob a kong."})
    points = optional(String, validate=OneOf(("linear", "doubling")), metadata={
        "description": "`linear`: base × (1 + 台); `doubling`: base × 2^(counted 台 − min_tai)."})
    chi_counts_for_liability = optional(Boolean, metadata={"description": "Chows count as claims for 包."})
    related_discarder = optional(String, validate=OneOf(("add", "five")), metadata={
        "description": "What a related discarder pays: 2 + 2 (`add`) or 5 (`five`)."})
    kong_bloom_others_pay = optional(Boolean, metadata={
        "description": "Unrelated players pay 1 each on a kong bloom fed by a discard."})
    liability_cap = Integer(validate=Range(min=1, max=MAX_SAFE_INTEGER), required=False, allow_none=True, metadata={
        "description": "Highest multiplier of one payer; `null` = none."})
    hand_cap = Integer(validate=Range(min=1, max=MAX_SAFE_INTEGER), required=False, allow_none=True, metadata={
        "description": "Most one payer pays and the winner receives in a hand; `null` = none."})
    item_tai = optional(Dict, keys=String(validate=OneOf(ITEM_IDS)),
                        values=Integer(validate=Range(min=0, max=ITEM_TAI_MAX)), metadata={
                            "description": "New 台 per occurrence for any item of RULES.md §5; 0 drops it."})


class CaishenSchema(StrictSchema):
    """The caishen (wildcards) of the hand: exactly one of `indicator` or `kinds`."""

    #: openapi.yaml: one schema per way of giving it (see StrictSchema)
    OPENAPI_VARIANTS = {"CaishenIndicator": ("indicator", {}), "CaishenKinds": ("kinds", {})}

    indicator = optional(Tile, metadata={
        "description": "The flipped tile; the kinds follow from it by the preset's `caishen_rule`."})
    kinds = optional(Tiles, metadata={"description": "The caishen kinds, given directly; `[]` = none."})

    @validates_schema
    def _exactly_one(self, data: dict, **kwargs) -> None:
        given = [k for k in ("indicator", "kinds") if data.get(k) is not None]
        if len(given) != 1:
            raise ValidationError(Msg("Give exactly one of indicator or kinds.",
                                      "indicator 与 kinds 必须且只能给出一个。"))


class MeldSchema(StrictSchema):
    """An exposed or concealed meld (吃/碰/杠)."""

    type = String(required=True, validate=OneOf(MELD_TYPES))
    tiles = Tiles(required=True, metadata={"description": "The meld's tiles, in any order."})
    from_ = seat(data_key="from", attribute="from", required=False, allow_none=True, metadata={
        "description": "The seat it was claimed from (for an added kong: where its pung came from)."})
    concealed = optional(Boolean, metadata={"description": "A concealed kong (暗杠).", "default": False})
    added = optional(Boolean, metadata={"description": "An added kong (加杠).", "default": False})


class HandSchema(StrictSchema):
    """The winner's tiles."""

    concealed = Tiles(required=True, metadata={
        "description": "The concealed tiles including the winning tile (14 − 3 × melds)."})
    winning_tile = Tile(required=True, metadata={"description": "One of the concealed tiles."})
    melds = optional(List, Nested(MeldSchema), metadata={
        "description": "Exposed melds and concealed kongs (more than 4: 422 wrong_tile_count)."})
    flowers = optional(Tiles, metadata={"description": "Flowers set aside this hand."})


class WinSchema(StrictSchema):
    """How the hand was won."""

    by = String(required=True, validate=OneOf(WIN_BY))
    from_ = seat(data_key="from", attribute="from", required=False, allow_none=True, metadata={
        "description": "The discarder or the robbed player (for `discard` and `robbing_kong`)."})
    kong_replacement = optional(Boolean, metadata={
        "description": "Won on a kong's or a flower's replacement tile (杠上开花).", "default": False})
    kong_fed_by = seat(required=False, allow_none=True, metadata={
        "description": "The seat whose discard made the kong just declared."})
    last_tile = optional(Boolean, metadata={"description": "Self-drew the wall's last tile.", "default": False})
    heavenly = optional(Boolean, metadata={"description": "Dealer's dealt hand (天胡).", "default": False})
    earthly = optional(Boolean, metadata={"description": "On the dealer's first discard (地胡).",
                                          "default": False})
    discarded_caishen = optional(Boolean, metadata={
        "description": "The winner discarded a caishen earlier this hand.", "default": False})


class ClaimsSchema(StrictSchema):
    """For each other seat, how many melds it claimed from the winner's discards (for 包)."""

    E = optional(Integer, validate=Range(min=0, max=MAX_CLAIMS))
    S = optional(Integer, validate=Range(min=0, max=MAX_CLAIMS))
    W = optional(Integer, validate=Range(min=0, max=MAX_CLAIMS))
    N = optional(Integer, validate=Range(min=0, max=MAX_CLAIMS))


class ScoreRequestSchema(StrictSchema):
    """The body of `POST /v1/score`."""

    rules = PresetOrObject(PRESET_IDS, RulesObjectSchema(), required=False, allow_none=True,
                           metadata={"description": "A preset id or an object; default `ningbo`."})
    seat_wind = seat(required=True, metadata={"description": "The winner's seat; `E` is the dealer."})
    round_wind = seat(required=True, metadata={"description": "The round wind."})
    caishen = optional(Nested, CaishenSchema, metadata={"description": "Omitted or `null`: no caishen."})
    hand = Nested(HandSchema, required=True)
    win = Nested(WinSchema, required=True)
    claims_from_winner = optional(Nested, ClaimsSchema)
    base_points = optional(Integer, validate=Range(min=1, max=MAX_BASE_POINTS),
                           metadata={"description": "对局分, a positive integer.", "default": 1})


# --- POST /v1/waits ----------------------------------------------------------------------------

class WaitsHandSchema(StrictSchema):
    """The waiting hand's tiles: the hand before its winning tile."""

    concealed = Tiles(required=True, metadata={
        "description": "The concealed tiles before the winning tile (13 − 3 × melds)."})
    melds = optional(List, Nested(MeldSchema), metadata={
        "description": "Exposed melds and concealed kongs (more than 4: 422 wrong_tile_count)."})
    flowers = optional(Tiles, metadata={"description": "Flowers set aside this hand."})


class WaitsWinSchema(StrictSchema):
    """What the values of the waits assume (no `by`: each wait is valued both ways)."""

    from_ = seat(data_key="from", attribute="from", required=False, allow_none=True, metadata={
        "description": "The discarder assumed for the discard values; default: the winner's 上家 "
                       "(the seat before it in play order)."})
    discarded_caishen = optional(Boolean, metadata={
        "description": "The player discarded a caishen earlier this hand.", "default": False})


class WaitsRequestSchema(ScoreRequestSchema):
    """The body of `POST /v1/waits`: a `/v1/score` body whose hand is the hand before its
    winning tile (no `hand.winning_tile`, no `win.by`)."""

    hand = Nested(WaitsHandSchema, required=True)
    win = optional(Nested, WaitsWinSchema, metadata={"description": "Omitted: the default discarder."})


# --- POST /v1/score/batch ----------------------------------------------------------------------

class BatchRequestSchema(StrictSchema):
    """The body of `POST /v1/score/batch`: up to 200 `/v1/score` bodies, each checked on its own."""

    requests = List(Dict(), required=True, metadata={
        "maxItems": ningbo_score.MAX_BATCH,
        "description": f"Each a `POST /v1/score` body (`ScoreRequest`), checked on its own: a bad one "
                       f"gets its own problem in `results` and never fails the batch. More than "
                       f"{ningbo_score.MAX_BATCH}: 413 `batch_too_large`."})


# --- POST /v1/table/next, /v1/table/claims, /v1/table/escape -----------------------------------

class HandResultSchema(StrictSchema):
    """How the hand ended: `winner` (a position 0–3) or `draw: true` (流局), exactly one."""

    OPENAPI_VARIANTS = {"HandWon": ("winner", {}), "HandDrawn": ("draw", {})}

    winner = optional(Integer, validate=Range(min=0, max=3), metadata={"description": "The winner's position."})
    draw = optional(Boolean, validate=OneOf((True,), error=Msg(
        "Must be true (for a hand someone won, give result.winner instead).",
        "只能是 true（有人胡牌时请改填 result.winner）。")), metadata={"description": "A draw (流局/荒庄): `true`."})

    @validates_schema
    def _exactly_one(self, data: dict, **kwargs) -> None:
        given = [k for k in ("winner", "draw") if data.get(k) is not None]
        if len(given) != 1:
            raise ValidationError(Msg("Give exactly one of winner (a position 0-3) or draw: true.",
                                      "winner（位置 0-3）与 draw: true 必须且只能给出一个。"))


class NextHandRequestSchema(StrictSchema):
    """The body of `POST /v1/table/next`: the hand just played and how it ended (RULES.md §8)."""

    dealer = Integer(required=True, validate=Range(min=0, max=3), metadata={
        "description": "The position (0–3, in play order) of the player who dealt the hand just played."})
    round_wind = seat(required=True, metadata={"description": "The round wind (圈风) of that hand."})
    dealers_this_round = Integer(required=True, validate=Range(min=1, max=4), metadata={
        "description": "How many players have dealt in this round, the current dealer included "
                       "(1 for the round's first dealer). A game starts at `E`, 1."})
    result = Nested(HandResultSchema, required=True)


CLAIM_TYPES: tuple[str, ...] = tuple(_LIBRARY_CLAIM_TYPES)


class TableClaimSchema(StrictSchema):
    """One seat's claim on the discard."""

    seat = seat(required=True, metadata={"description": "The claiming seat."})
    type = String(required=True, validate=OneOf(CLAIM_TYPES), metadata={
        "description": "`win` (胡), `kong` (杠), `pung` (碰) or `chow` (吃)."})


class TableClaimsRequestSchema(StrictSchema):
    """The body of `POST /v1/table/claims`: a discard and the claims on it."""

    discarder = seat(required=True, metadata={"description": "The seat that discarded."})
    claims = List(Nested(TableClaimSchema), required=True, metadata={
        "description": "One claim per seat at most; `[]` = nobody claims."})


class EscapeRequestSchema(StrictSchema):
    """The body of `POST /v1/table/escape`: `base_points` or a `level`, exactly one."""

    OPENAPI_VARIANTS = {"EscapeFromBasePoints": ("base_points", {}), "EscapeFromLevel": ("level", {})}

    base_points = optional(Integer, validate=Range(min=1, max=MAX_BASE_POINTS), metadata={
        "description": "The game's base points (对局分), as in `/v1/score`."})
    level = optional(Integer, validate=Range(min=0, max=MAX_LEVEL), metadata={
        "description": "A level of `GET /v1/levels`: its base points are used."})

    @validates_schema
    def _exactly_one(self, data: dict, **kwargs) -> None:
        given = [k for k in ("base_points", "level") if data.get(k) is not None]
        if len(given) != 1:
            raise ValidationError(Msg(f"Give exactly one of base_points (1 to {MAX_BASE_POINTS}) or level "
                                      f"(0 to {MAX_LEVEL}).",
                                      f"base_points（1 到 {MAX_BASE_POINTS}）与 level（0 到 {MAX_LEVEL}）"
                                      f"必须且只能给出一个。"))
