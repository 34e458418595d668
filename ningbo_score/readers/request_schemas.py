"""The one reader of every request body of docs/api.md: marshmallow schemas that check shape and
types and build the library's typed input (:class:`~ningbo_score.hand.Hand`, the table inputs of
ningbo_score.table), each in one ``post_load`` of the body's schema.

Unknown fields are refused everywhere; ``null`` in an optional field means absent, except for
the options whose value may be ``null`` (``caishen_discard_restriction``, ``liability_cap``,
``hand_cap``: "none").  Every schema here is built once, at import (:data:`SCORE_REQUEST` …):
they are safe to share across requests and threads.  ``ningbo_score.score(dict)`` and the HTTP
routes load bodies through them with :func:`ningbo_score.readers.fields.load`.
"""
from __future__ import annotations

import typing

from marshmallow import ValidationError, post_load, validates_schema

from ..advice import DEFAULT_DRAWS, MAX_DRAWS, MIN_DRAWS, MODEL, OBJECTIVES, default_draws
from ..analysis import MAX_VISIBLE, AnalyzeInput
from ..batch import MAX_BATCH, BatchInput
from ..caishen import faces_of
from ..hand import (MAX_BASE_POINTS, MAX_CLAIMS, MAX_CONCEALED, MAX_FLOWERS, MAX_MELDS, MELD_TYPES, WIN_BY, Hand, Meld,
                   WaitingHand, caishen_of)
from ..items import ITEMS
from ..rules import (DEFAULT_PRESET, ITEM_TAI_MAX, MAX_SAFE_INTEGER, OPTION_DOCS, OPTION_KINDS, PRESETS, Rules,
                    custom_rules, preset_rules)
from .strict import StrictSchema
from ..table import CLAIM_TYPES as _LIBRARY_CLAIM_TYPES
from ..table import MAX_LEVEL, ClaimsInput, EscapeInput, NextHandInput
from ..tiles import MAX_LIVE_TILES, SEAT_INDEX, SEATS

from .fields import (
    Boolean,
    Dict,
    Each,
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

if typing.TYPE_CHECKING:
    from marshmallow.fields import Field

    #: a schema's ``OPENAPI_VARIANTS`` (below): {component name: (its required field, more properties)}
    OpenAPIVariants: typing.TypeAlias = dict[str, tuple[str, dict[str, typing.Any]]]

    _F = typing.TypeVar("_F", bound=Field[typing.Any])


PRESET_IDS: tuple[str, ...] = tuple(PRESETS)
ITEM_IDS: tuple[str, ...] = tuple(it.id for it in ITEMS)
# Bounds of the library (ningbo_score.rules, ningbo_score.hand), so that the schema and the
# library agree on what a well-formed request is (tests/http/test_api.py checks both sides of each).
# Other integers: at most 2^53 − 1 (MAX_SAFE_INTEGER), the largest integer every JSON parser reads
# exactly.


def seat(**kwargs: typing.Any) -> String:
    kwargs.setdefault("metadata", {})
    kwargs["metadata"].setdefault("description", "A seat wind: `E` (the dealer), `S`, `W` or `N`.")
    return String(validate=OneOf(SEATS), **kwargs)


def optional(field_cls: type[_F], *args: typing.Any, **kwargs: typing.Any) -> _F:
    """An optional field: absent or ``null`` (= absent)."""
    return field_cls(*args, required=False, allow_none=True, **kwargs)


def option_fields(*, answer: bool = False) -> dict[str, Field[typing.Any]]:
    """Every rule option (docs/rules.md §9) as a field, in order, made from its one declaration
    (ningbo_score.rules.Options: OPTION_KINDS, OPTION_DOCS).  In a request each is optional
    (absent or ``null``: the preset's value), but where ``null`` is itself a value ("none":
    ``caishen_discard_restriction``, ``liability_cap``, ``hand_cap``); in an answer
    (``answer=True``: schemas/responses.py) each is required and documented, not validated."""
    out: dict[str, Field[typing.Any]] = {}
    for name, (kind, allowed) in OPTION_KINDS.items():
        nullable = kind.endswith("?")
        kwargs: dict[str, typing.Any] = {"required": answer, "allow_none": nullable or not answer,
                                         "metadata": {"description": OPTION_DOCS[name]}}
        field: Field[typing.Any]
        if kind == "bool":
            field = Boolean(**kwargs)
        elif kind.startswith("int"):
            least = int(kind[3:].rstrip("?"))
            if answer:
                kwargs["metadata"]["minimum"] = least
            else:
                kwargs["validate"] = Range(min=least, max=MAX_SAFE_INTEGER)
            field = Integer(**kwargs)
        elif kind.startswith("enum"):
            assert allowed is not None
            field = String(validate=OneOf(allowed + ((None,) if nullable else ())), **kwargs)
        elif kind == "items":
            if not answer:                      # capped before it is read, each id at most once
                kwargs.update(max_items=len(ITEM_IDS), unique=True)
            field = List(String(validate=OneOf(ITEM_IDS)), **kwargs)
        else:
            raise TypeError(f"{name}: an option of an unknown kind {kind!r}")
        out[name] = field
    return out


# A schema whose optional fields are "exactly one of" (``OPENAPI_VARIANTS = {name: (field,
# more properties)}``) is documented in openapi.yaml as a ``oneOf`` of one component per field,
# named ``name``, where that field is required and the others absent (the server also takes
# ``null`` for absent there; the spec does not say so: tools/gen_openapi.variants tells why);
# generated clients get one typed class per way of giving it.


class RulesObjectSchema(StrictSchema):
    """A preset with option overrides (docs/rules.md §9) and 台 overrides per item (`item_tai`)."""

    #: optional fields whose ``null`` is a value rather than "absent"
    NULL_IS_VALUE = frozenset(name for name, (kind, _) in OPTION_KINDS.items() if kind.endswith("?"))

    preset = optional(String, validate=OneOf(PRESET_IDS), metadata={
        "description": "The preset the options start from.", "default": "ningbo"})

    class Meta(StrictSchema.Meta):
        #: after `preset`: every option, made from its declaration (rules.Options), then `item_tai`
        include = {
            **option_fields(),
            "item_tai": optional(Dict, max_keys=len(ITEM_IDS), keys=String(validate=OneOf(ITEM_IDS)),
                                 values=Integer(validate=Range(min=0, max=ITEM_TAI_MAX)), metadata={
                                     "description": "New 台 per occurrence for any item of docs/rules.md §5; "
                                                    "0 drops it."}),
        }


#: the most caishen kinds a hand can have: every one of the 34 kinds and the 8 flowers
MAX_CAISHEN_KINDS = 34 + MAX_FLOWERS


class CaishenSchema(StrictSchema):
    """The caishen (wildcards) of the hand: exactly one of `indicator` or `kinds`."""

    #: openapi.yaml: one schema per way of giving it (see StrictSchema)
    OPENAPI_VARIANTS: typing.ClassVar[OpenAPIVariants] = {"CaishenIndicator": ("indicator", {}),
                                                           "CaishenKinds": ("kinds", {})}

    indicator = optional(Tile, metadata={
        "description": "The flipped tile; the kinds follow from it by the preset's `caishen_rule`."})
    kinds = optional(Tiles, max_items=MAX_CAISHEN_KINDS, metadata={
        "description": f"The caishen kinds, given directly (a repeat counts once); `[]` = none. At most "
                       f"{MAX_CAISHEN_KINDS} (the 34 kinds and the 8 flowers), else 400 before any is read."})

    @validates_schema
    def _exactly_one(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> None:
        given = [k for k in ("indicator", "kinds") if data.get(k) is not None]
        if len(given) != 1:
            raise ValidationError(Msg("Give exactly one of indicator or kinds.",
                                      "indicator 与 kinds 必须且只能给出一个。"))


#: a meld has 3 or 4 tiles (more: invalid_meld); over this cap its tiles are not read
TOO_MANY_MELD_TILES = Msg(f"A meld has 3 or 4 tiles, not more than {MAX_CONCEALED}.",
                          f"副露只有 3 或 4 张牌，不能超过 {MAX_CONCEALED} 张。", "invalid_meld")


class MeldSchema(StrictSchema):
    """An exposed or concealed meld (吃/碰/杠)."""

    type = String(required=True, validate=OneOf(MELD_TYPES))
    tiles = Tiles(required=True, max_items=MAX_CONCEALED, over=TOO_MANY_MELD_TILES,
                  metadata={"description": "The meld's tiles, in any order."})
    from_ = seat(data_key="from", attribute="from", required=False, allow_none=True, metadata={
        "description": "The seat it was claimed from (for an added kong: where its pung came from)."})
    concealed = optional(Boolean, metadata={"description": "A concealed kong (暗杠).", "default": False})
    added = optional(Boolean, metadata={"description": "An added kong (加杠).", "default": False})


#: Over the caps of the hand's arrays (checked before their items are read), with the code the
#: rule book gives them (docs/rules.md §10.12: more than 4 melds is wrong_tile_count).
TOO_MANY_MELDS = Msg(f"A hand has at most {MAX_MELDS} melds.", f"一手牌最多 {MAX_MELDS} 个副露。", "wrong_tile_count")
TOO_MANY_CONCEALED = Msg(f"A hand holds at most {MAX_CONCEALED} concealed tiles.",
                         f"暗牌最多 {MAX_CONCEALED} 张。", "wrong_tile_count")
TOO_MANY_FLOWERS = Msg(f"A hand sets aside at most {MAX_FLOWERS} flowers: one each of 1f to {MAX_FLOWERS}f.",
                       f"一手牌最多补 {MAX_FLOWERS} 张花牌：1f 到 {MAX_FLOWERS}f 各一张。", "invalid_flowers")


def melds_field(**kwargs: typing.Any) -> List[dict[str, typing.Any]]:
    return optional(List, Nested(MeldSchema), max_items=MAX_MELDS, over=TOO_MANY_MELDS, **kwargs)


def concealed_field(**kwargs: typing.Any) -> Tiles:
    return Tiles(required=True, max_items=MAX_CONCEALED, over=TOO_MANY_CONCEALED, **kwargs)


def flowers_field() -> Tiles:
    return optional(Tiles, max_items=MAX_FLOWERS, over=TOO_MANY_FLOWERS,
                    metadata={"description": "Flowers set aside this hand."})


class HandSchema(StrictSchema):
    """The winner's tiles."""

    concealed = concealed_field(metadata={
        "description": "The concealed tiles including the winning tile (14 − 3 × melds)."})
    winning_tile = Tile(required=True, metadata={"description": "One of the concealed tiles."})
    melds = melds_field(metadata={
        "description": f"Exposed melds and concealed kongs (more than {MAX_MELDS}: 422 wrong_tile_count)."})
    flowers = flowers_field()


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


def rules_of(value: str | dict[str, typing.Any]) -> Rules:
    """The library's Rules of a loaded `rules` field: a preset id or a loaded rules object."""
    if isinstance(value, str):
        return preset_rules(value)
    keep = RulesObjectSchema.NULL_IS_VALUE
    options = {k: v for k, v in value.items()
               if k not in ("preset", "item_tai") and (v is not None or k in keep)}
    item_tai = {k: v for k, v in (value.get("item_tai") or {}).items() if v is not None}
    return custom_rules(value.get("preset") or DEFAULT_PRESET, options, item_tai)


DEFAULT_RULES = preset_rules(DEFAULT_PRESET)


def _seat(value: str | None) -> int | None:
    return None if value is None else SEAT_INDEX[value]


def _melds(given: list[dict[str, typing.Any]] | None, substitute: int | None) -> tuple[Meld, ...]:
    if not given:
        return ()
    out: list[Meld] = []
    for m in given:
        given_from = m.get("from")
        tiles = tuple(m["tiles"])
        out.append(Meld(type=m["type"], tiles=tiles,
                        faces=faces_of(tiles, substitute),
                        from_seat=None if given_from is None else SEAT_INDEX[given_from],
                        concealed=m.get("concealed") is True, added=m.get("added") is True,
                        from_given=given_from is not None))
    return tuple(out)


def _held(data: dict[str, typing.Any]) -> dict[str, typing.Any]:
    """The fields of a :class:`~ningbo_score.hand.Held` in a loaded `/v1/score` or `/v1/waits` body."""
    caishen = data.get("caishen")
    hand = data["hand"]
    win = data.get("win") or {}
    claims = data.get("claims_from_winner")
    base = data.get("base_points")
    rules = data.get("rules") or DEFAULT_RULES
    indicator = caishen.get("indicator") if caishen else None
    kinds, substitute = caishen_of(rules, indicator, caishen.get("kinds") if caishen else None)
    return dict(
        rules=rules, seat=SEAT_INDEX[data["seat_wind"]], round=SEAT_INDEX[data["round_wind"]], caishen_kinds=kinds,
        indicator=indicator, substitute=substitute, concealed=tuple(hand["concealed"]),
        melds=_melds(hand.get("melds"), substitute), flowers=tuple(hand.get("flowers") or ()),
        claims={SEAT_INDEX[k]: v for k, v in claims.items() if v is not None} if claims else {},
        base_points=1 if base is None else base, discarded_caishen=win.get("discarded_caishen") is True)


def _waiting_hand(data: dict[str, typing.Any]) -> WaitingHand:
    """The typed input of a loaded `/v1/waits` (or `/v1/analyze`) body."""
    return WaitingHand(**_held(data), discarder=_seat((data.get("win") or {}).get("from")))


class ScoreRequestSchema(StrictSchema):
    """The body of `POST /v1/score`."""

    # loaded as a Hand (post_load below); WaitsRequestSchema as a WaitingHand

    rules = PresetOrObject(PRESET_IDS, RulesObjectSchema(), rules_of, required=False, allow_none=True,
                           metadata={"description": "A preset id or an object; default `ningbo`."})
    seat_wind = seat(required=True, metadata={"description": "The winner's seat; `E` is the dealer."})
    round_wind = seat(required=True, metadata={"description": "The round wind."})
    caishen = optional(Nested, CaishenSchema, metadata={"description": "Omitted or `null`: no caishen."})
    hand = Nested(HandSchema, required=True)
    win = Nested(WinSchema, required=True)
    claims_from_winner = optional(Nested, ClaimsSchema)
    base_points = optional(Integer, validate=Range(min=1, max=MAX_BASE_POINTS),
                           metadata={"description": "对局分, a positive integer.", "default": 1})

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> Hand:
        win = data["win"]
        return Hand(**_held(data), winning=data["hand"]["winning_tile"], by=win["by"], win_from=_seat(win.get("from")),
                    kong_replacement=win.get("kong_replacement") is True, kong_fed_by=_seat(win.get("kong_fed_by")),
                    last_tile=win.get("last_tile") is True, heavenly=win.get("heavenly") is True,
                    earthly=win.get("earthly") is True)


# --- POST /v1/waits ----------------------------------------------------------------------------

class WaitsHandSchema(StrictSchema):
    """The waiting hand's tiles: the hand before its winning tile."""

    concealed = concealed_field(metadata={
        "description": "The concealed tiles before the winning tile (13 − 3 × melds)."})
    melds = melds_field(metadata={
        "description": f"Exposed melds and concealed kongs (more than {MAX_MELDS}: 422 wrong_tile_count)."})
    flowers = flowers_field()


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

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> WaitingHand:
        return _waiting_hand(data)


# --- POST /v1/analyze --------------------------------------------------------------------------

class AnalyzeHandSchema(WaitsHandSchema):
    """The hand to analyse: waiting to draw, or having drawn and due to discard."""

    concealed = concealed_field(metadata={
        "description": "The concealed tiles: 13 − 3 × melds (before a draw) or 14 − 3 × melds (after "
                       "it, due to discard)."})


#: More visible tiles than the set holds (136 and 8 flowers) are too many copies of some kind;
#: over this cap the array's tiles are not read.
TOO_MANY_VISIBLE = Msg(f"The set holds {MAX_VISIBLE} tiles: at most {MAX_VISIBLE} are visible.",
                       f"整副牌只有 {MAX_VISIBLE} 张：visible 最多 {MAX_VISIBLE} 张。", "too_many_copies")


class AnalyzeRequestSchema(WaitsRequestSchema):
    """The body of `POST /v1/analyze`: a `/v1/waits` body whose hand may also have drawn (14 − 3 ×
    melds concealed tiles), and the tiles seen elsewhere."""

    hand = Nested(AnalyzeHandSchema, required=True)
    visible = optional(Tiles, max_items=MAX_VISIBLE, over=TOO_MANY_VISIBLE, metadata={
        "description": "Tiles seen elsewhere (other players' discards and melds); only the `unseen` "
                       f"counts read them. More than {MAX_VISIBLE}: 422 `too_many_copies`, before "
                       "any tile is read."})

    objective = optional(String, validate=OneOf(OBJECTIVES), metadata={
        "default": "ukeire",
        "description": "`ukeire`: discards ranked by shanten and unseen improving tiles; `value`: each discard "
                       "(and a 13-tile hand) also gets `win_probability` and `expected_points` under the model "
                       "below, and the discards are ranked by them. " + MODEL})
    draws_left = optional(Integer, validate=Range(min=MIN_DRAWS, max=MAX_DRAWS), metadata={
        "description": f"With `value`: the draws to come ({MIN_DRAWS}-{MAX_DRAWS}). Default: `live_tiles` ÷ 4 "
                       f"rounded up (at most {MAX_DRAWS}, at least {MIN_DRAWS}) when given, else {DEFAULT_DRAWS}."})
    live_tiles = optional(Integer, validate=Range(min=0, max=MAX_LIVE_TILES), metadata={
        "description": "The tiles left in the wall (for the default `draws_left`)."})

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> AnalyzeInput:
        draws = data.get("draws_left")
        return AnalyzeInput(_waiting_hand(data), data.get("visible") or [], data.get("objective") or "ukeire",
                            default_draws(data.get("live_tiles")) if draws is None else draws)


# --- POST /v1/score/batch ----------------------------------------------------------------------

class BatchRequestSchema(StrictSchema):
    """The body of `POST /v1/score/batch`: up to 200 `/v1/score` bodies, each checked on its own."""

    # loaded as a BatchInput: per item its Hand, or the ScoreError refusing it

    requests = Each(ScoreRequestSchema(), max_items=MAX_BATCH, required=True, metadata={
        "description": f"Each a `POST /v1/score` body (`ScoreRequest`), checked on its own: a bad one "
                       f"gets its own problem in `results` and never fails the batch. More than "
                       f"{MAX_BATCH}: 400 `invalid_request`, before any item is read."})

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> BatchInput:
        return BatchInput(data["requests"])


# --- POST /v1/table/next, /v1/table/claims, /v1/table/escape -----------------------------------

class HandResultSchema(StrictSchema):
    """How the hand ended: `winner` (a position 0–3) or `draw: true` (流局), exactly one."""

    OPENAPI_VARIANTS: typing.ClassVar[OpenAPIVariants] = {"HandWon": ("winner", {}), "HandDrawn": ("draw", {})}

    winner = optional(Integer, validate=Range(min=0, max=3), metadata={"description": "The winner's position."})
    draw = optional(Boolean, validate=OneOf((True,), error=Msg(
        "Must be true (for a hand someone won, give result.winner instead).",
        "只能是 true（有人胡牌时请改填 result.winner）。")), metadata={"description": "A draw (流局/荒庄): `true`."})

    @validates_schema
    def _exactly_one(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> None:
        given = [k for k in ("winner", "draw") if data.get(k) is not None]
        if len(given) != 1:
            raise ValidationError(Msg("Give exactly one of winner (a position 0-3) or draw: true.",
                                      "winner（位置 0-3）与 draw: true 必须且只能给出一个。"))


class NextHandRequestSchema(StrictSchema):
    """The body of `POST /v1/table/next`: the hand just played and how it ended (docs/rules.md §8)."""

    dealer = Integer(required=True, validate=Range(min=0, max=3), metadata={
        "description": "The position (0–3, in play order) of the player who dealt the hand just played."})
    round_wind = seat(required=True, metadata={"description": "The round wind (圈风) of that hand."})
    dealers_this_round = Integer(required=True, validate=Range(min=1, max=4), metadata={
        "description": "How many players have dealt in this round, the current dealer included "
                       "(1 for the round's first dealer). A game starts at `E`, 1."})
    result = Nested(HandResultSchema, required=True)
    rules = PresetOrObject(PRESET_IDS, RulesObjectSchema(), rules_of, required=False, allow_none=True, metadata={
        "description": "A preset id or a rules object, as in `/v1/score`: its `draw_keeps_dealer` says who "
                       "deals after a draw; default `ningbo`."})

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> NextHandInput:
        result = data["result"]
        return NextHandInput(data["dealer"], data["round_wind"], data["dealers_this_round"], result.get("winner"),
                             result.get("draw") is True, data.get("rules") or DEFAULT_RULES)


CLAIM_TYPES: tuple[str, ...] = tuple(_LIBRARY_CLAIM_TYPES)


class TableClaimSchema(StrictSchema):
    """One seat's claim on the discard."""

    seat = seat(required=True, metadata={"description": "The claiming seat."})
    type = String(required=True, validate=OneOf(CLAIM_TYPES), metadata={
        "description": "`win` (胡), `kong` (杠), `pung` (碰) or `chow` (吃)."})


#: the most claims read: up to it, a seat claiming twice is the library's 422 invalid_claims,
#: which names the claims; past it the array is refused (400) before any claim is read
MAX_CLAIM_ITEMS = 4 * len(SEATS)


class TableClaimsRequestSchema(StrictSchema):
    """The body of `POST /v1/table/claims`: a discard and the claims on it."""

    discarder = seat(required=True, metadata={"description": "The seat that discarded."})
    claims = List(Nested(TableClaimSchema), required=True, max_items=MAX_CLAIM_ITEMS, metadata={
        "description": f"One claim per seat at most; `[]` = nobody claims. More than {MAX_CLAIM_ITEMS}: 400 "
                       "before any is read."})

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> ClaimsInput:
        return ClaimsInput(data["discarder"], [(c["seat"], c["type"]) for c in data["claims"]])


class EscapeRequestSchema(StrictSchema):
    """The body of `POST /v1/table/escape`: `base_points` or a `level`, exactly one."""

    OPENAPI_VARIANTS: typing.ClassVar[OpenAPIVariants] = {"EscapeFromBasePoints": ("base_points", {}),
                                                           "EscapeFromLevel": ("level", {})}

    base_points = optional(Integer, validate=Range(min=1, max=MAX_BASE_POINTS), metadata={
        "description": "The game's base points (对局分), as in `/v1/score`."})
    level = optional(Integer, validate=Range(min=0, max=MAX_LEVEL), metadata={
        "description": "A level of `GET /v1/levels`: its base points are used."})
    rules = PresetOrObject(PRESET_IDS, RulesObjectSchema(), rules_of, required=False, allow_none=True, metadata={
        "description": "A preset id or a rules object, as in `/v1/score`: its `escape_penalty_to` says who "
                       "receives the penalty; default: the `ningbo` preset's (`house`)."})

    @validates_schema
    def _exactly_one(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> None:
        given = [k for k in ("base_points", "level") if data.get(k) is not None]
        if len(given) != 1:
            raise ValidationError(Msg(f"Give exactly one of base_points (1 to {MAX_BASE_POINTS}) or level "
                                      f"(0 to {MAX_LEVEL}).",
                                      f"base_points（1 到 {MAX_BASE_POINTS}）与 level（0 到 {MAX_LEVEL}）"
                                      f"必须且只能给出一个。"))

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> EscapeInput:
        return EscapeInput(data.get("base_points"), data.get("level"), data.get("rules") or DEFAULT_RULES)



SCORE_REQUEST = ScoreRequestSchema()
WAITS_REQUEST = WaitsRequestSchema()
ANALYZE_REQUEST = AnalyzeRequestSchema()
BATCH_REQUEST = BatchRequestSchema()
NEXT_HAND_REQUEST = NextHandRequestSchema()
CLAIMS_REQUEST = TableClaimsRequestSchema()
ESCAPE_REQUEST = EscapeRequestSchema()

