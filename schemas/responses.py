"""Response bodies.  The routes dump the library's results through these schemas, so a
client gets exactly the documented fields; ``openapi.yaml`` is generated from them."""
from __future__ import annotations

import typing

from marshmallow import RAISE, Schema, fields
from marshmallow.validate import Range

from ningbo_score.errors import CODES, public_code
from ningbo_score.readers.fields import OneOf, OpenAPIConverter, TileCode
from ningbo_score.hand import WIN_BY
from ningbo_score.actions import ACTION_TYPES, PHASES
from ningbo_score.replay import REASONS
from ningbo_score.readers.request_schemas import ITEM_IDS, PRESET_IDS, TableClaimSchema, option_fields
from ningbo_score.rules import OPTION_LABELS, RULEBOOK
from ningbo_score.readers.session_requests import HAND_KINDS
from ningbo_score.tiles import SEATS

WAITS = ("two_sided", "edge", "closed", "single", "dual_pung")
PAYMENT_REASONS = ("self_draw", "discard", "kong_bloom", "robbing_kong")
LIABILITY = ("related", "mutual", None)
SET_SOURCES = ("concealed", "meld")
CLAIM_RULES = ("none", "win", "intercept", "pung_kong", "chow")
POSITIONS = ("0", "1", "2", "3")
PROBLEM_CODES: tuple[str, ...] = tuple(dict.fromkeys(public_code(c) for c in CODES))
assert set(WIN_BY) <= set(PAYMENT_REASONS)


_F = typing.TypeVar("_F", bound="fields.Field[typing.Any]")


def req(field: _F) -> _F:
    field.required = True
    return field


def _str(*choices, **kwargs) -> fields.String:
    return req(fields.String(validate=OneOf(choices) if choices else None, **kwargs))


def _codes(**kwargs) -> fields.List:
    return req(fields.List(TileCode(), **kwargs))


class OutSchema(Schema):
    """Documented exactly: no other field is sent (the tests check it), yet openapi.yaml leaves
    responses open (no ``additionalProperties: false``) so that a field added later breaks no
    client generated from it."""

    class Meta:
        unknown = RAISE

    #: tools/gen_openapi.py: no ``additionalProperties: false`` in openapi.yaml
    OPENAPI_OPEN = True


class SeatAmountsSchema(OutSchema):
    """One integer per seat."""

    E = req(fields.Integer())
    S = req(fields.Integer())
    W = req(fields.Integer())
    N = req(fields.Integer())


class OptionsSchema(OutSchema):
    """Every option of docs/rules.md §9."""

    class Meta(OutSchema.Meta):
        #: made from the options' one declaration (ningbo_score.rules.Options)
        include = option_fields(answer=True)


def _rulebook() -> fields.Integer:
    return req(fields.Integer(validate=OneOf((RULEBOOK,)), metadata={
        "description": "The version of the rule book scored by (docs/rules.md, \"Rule book versions\")."}))


class _PresetIdSchema(OutSchema):
    preset = _str(*PRESET_IDS)
    rulebook = _rulebook()


class RulesEchoSchema(OptionsSchema, _PresetIdSchema):
    """The rules in force: the preset, every option and the `item_tai` overrides given."""

    item_tai = req(fields.Dict(keys=fields.String(validate=OneOf(ITEM_IDS)), values=fields.Integer(), metadata={
        "description": "The 台 overrides of the request."}))


class CaishenResultSchema(OutSchema):
    """The caishen kinds of the hand (and the indicator, when one was given)."""

    kinds = _codes()
    indicator = TileCode(metadata={"description": "The indicator (as a code)."})
    white_dragon_as = TileCode(metadata={
        "description": "With `white_dragon_substitutes`: the kind the `P` tiles stand for."})


class ItemSchema(OutSchema):
    """One 台 item of docs/rules.md §5."""

    id = _str(*ITEM_IDS)
    name = _str(metadata={"description": "Chinese name."})
    name_en = _str(metadata={"description": "English name."})
    tai = req(fields.Integer(metadata={"minimum": 0}))
    bonus = req(fields.Boolean(metadata={
        "description": "Not counted toward `min_tai` (三财神 under `three_caishen_bonus`)."}))


class ScoredItemSchema(ItemSchema):
    """One occurrence of a 台 item in a hand."""

    tiles = fields.List(TileCode(), metadata={
        "description": "The tiles it is about (dragon and wind pungs, flowers)."})


class SetSchema(OutSchema):
    """A set of the decomposition."""

    type = _str("chow", "pung", "kong")
    tiles = _codes(metadata={"description": "Faces (a caishen shows the face it stands for)."})
    source = _str(*SET_SOURCES)


class CaishenFaceSchema(OutSchema):
    """A concealed caishen and the face it was given."""

    tile = req(TileCode(metadata={"description": "The physical tile."}))
    face = req(TileCode(metadata={"description": "The tile it stands for."}))


class DecompositionSchema(OutSchema):
    """The reading of the hand that scores the most 台."""

    pair = _codes(metadata={"minItems": 2, "maxItems": 2})
    sets = req(fields.List(fields.Nested(SetSchema)))
    caishen = req(fields.List(fields.Nested(CaishenFaceSchema)))
    wait = _str(*WAITS)
    winning_tile = req(TileCode(metadata={"description": "The face of the winning tile."}))


class PaymentSchema(OutSchema):
    """What one player pays the winner."""

    from_ = _str(*SEATS, data_key="from", attribute="from")
    to = _str(*SEATS)
    amount = req(fields.Integer(metadata={
        "minimum": 0, "description": "multiplier × points, after the hand cap (which may bring it to 0)."}))
    multiplier = req(fields.Integer(metadata={"minimum": 1}))
    reason = _str(*PAYMENT_REASONS)
    liability = req(fields.String(validate=OneOf(LIABILITY), allow_none=True, metadata={
        "description": "`related` or `mutual` when 包 applies to this payer."}))


class ScoreResponseSchema(OutSchema):
    """The score of a hand."""

    rules = req(fields.Nested(RulesEchoSchema))
    caishen = req(fields.Nested(CaishenResultSchema))
    items = req(fields.List(fields.Nested(ScoredItemSchema)))
    tai = req(fields.Integer(metadata={"description": "Sum of the items' 台."}))
    counted_tai = req(fields.Integer(metadata={"description": "`tai` minus bonus items."}))
    min_tai = req(fields.Integer())
    eligible = req(fields.Boolean())
    reasons = req(fields.List(fields.String(), metadata={"description": "Why the hand is not eligible."}))
    decomposition = req(fields.Nested(DecompositionSchema))
    points = req(fields.Integer(metadata={"minimum": 0}))
    payments = req(fields.List(fields.Nested(PaymentSchema)))
    net = req(fields.Nested(SeatAmountsSchema, metadata={"description": "Every seat's gain; sums to 0."}))


class PresetSchema(OutSchema):
    """A rule preset (docs/rules.md §9) with its item table."""

    id = _str(*PRESET_IDS)
    rulebook = _rulebook()
    name = _str()
    name_en = _str()
    source = _str(metadata={"description": "The source document of the preset, by title (and date where it has one)."})
    options = req(fields.Nested(OptionsSchema))
    items = req(fields.List(fields.Nested(ItemSchema)))


class RulebookChangeSchema(OutSchema):
    """One change of the rule book since the previous version (release notes)."""

    id = _str(metadata={"description": "What it is about: an option, an item id or a topic."})
    presets = req(fields.List(fields.String(validate=OneOf(PRESET_IDS)), metadata={
        "description": "The presets whose answers it changes."}))
    change = _str(metadata={"description": "What changed, for a client that scored with the previous rule book (3)."})


class LabelSchema(OutSchema):
    """A name for a reader in both languages."""

    en = _str()
    zh = _str()


class OptionLabelsSchema(OutSchema):
    """Every option's name for a reader (and `item_tai`'s), in English and Chinese."""

    class Meta(OutSchema.Meta):
        #: one field per label of ningbo_score.rules.OPTION_LABELS
        include = {name: req(fields.Nested(LabelSchema)) for name in OPTION_LABELS}


class PresetListSchema(OutSchema):
    """The rule book: its version, what it changed since the previous version, the options' labels
    and every preset."""

    rulebook = _rulebook()
    changes = req(fields.List(fields.Nested(RulebookChangeSchema), metadata={
        "description": "What rule book 4 changed for a client that scored with rule book 3."}))
    option_labels = req(fields.Nested(OptionLabelsSchema, metadata={
        "description": "The options' names for a reader (a client shows them beside the values)."}))
    presets = req(fields.List(fields.Nested(PresetSchema)))


class HealthSchema(OutSchema):
    """The service is up."""

    status = _str("ok")


class ReadySchema(OutSchema):
    """Ready to serve: every readiness check passed."""

    status = _str("ready")
    checks = fields.Dict(keys=fields.String(), values=fields.String(), required=True, metadata={
        "description": "Each check and its result (`ok`)."})


class ProblemSchema(OutSchema):
    """An error (RFC 9457 problem details)."""

    type = _str(metadata={"description": "`urn:ningbo-score:problem:<code>`."})
    title = _str()
    status = req(fields.Integer(metadata={"minimum": 400, "maximum": 599}))
    detail = _str()
    code = _str(metadata={"openapi_ref": "ProblemCode"})
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), metadata={
        "description": "Messages by field path (`hand.melds.0.tiles`; `$` is the body): at most 50 "
                       "problems, the first in the order of docs/rules.md §10.15."})
    hand_index = fields.Integer(metadata={
        "minimum": 0, "description": "`POST /v1/sessions/settle`: the index of the hand that failed (the "
                                     "problem is that hand's, as its own endpoint answers it)."})
    more_errors = fields.Integer(metadata={
        "minimum": 1, "description": "How many more problems were found than `errors` lists (present only "
                                     "when some were left off). Reading stops soon after the first 50, so "
                                     "the body may hold more still."})
    # POST /v1/replay (code illegal_event; a refused win: event_index and score_request)
    event_index = fields.Integer(metadata={
        "minimum": 0, "description": "`/v1/replay`: the event refused (its index from 0; the number of events for "
                                     "`log_not_ended`), or the win `/v1/score` refused."})
    reason = fields.String(validate=OneOf(REASONS), metadata={
        "description": "`/v1/replay` `illegal_event`: the rule the event breaks."})
    expected = fields.List(fields.Dict(keys=fields.String(), values=fields.String()), metadata={
        "description": "`/v1/replay` `illegal_event`: the events legal there, by `seat` and `t`."})
    state = fields.Dict(metadata={
        "description": "`/v1/replay` `illegal_event`: `live_tiles` left, each seat's concealed tile count "
                       "(`tiles`), the `last_discard` (`seat`, `tile`, `event_index`) or null."})
    score_request = fields.Dict(metadata={
        "description": "`/v1/replay`, a win `/v1/score` refused: the `/v1/score` body derived."})


# --- POST /v1/waits ----------------------------------------------------------------------------

#: The string field that tells the two kinds of a union in an answer apart (an OpenAPI
#: `discriminator`): a score (`scored`) or the problem that refuses it (`refused`).
OUTCOME = "outcome"
OUTCOMES = ("scored", "refused")


def outcome_union(converter: OpenAPIConverter, parts: dict[str, tuple[type[Schema], str]]) -> dict[str, typing.Any]:
    """A `oneOf` of components (``parts``: name -> (the schema, its `outcome`)), each the schema
    with `outcome` required and constant, told apart by an OpenAPI `discriminator` on it."""
    components = converter.spec.components
    one_of, mapping = [], {}
    for name, (schema, outcome) in parts.items():
        if name not in components.schemas:
            components.schema(name, component={
                "description": f"{inspect_doc(schema)} `{OUTCOME}` is `{outcome}`.",
                "allOf": [converter.resolve_nested_schema(schema), {
                    "type": "object", "required": [OUTCOME],
                    "properties": {OUTCOME: {"type": "string", "const": outcome}}}]})
        mapping[outcome] = f"#/components/schemas/{name}"
        one_of.append({"$ref": mapping[outcome]})
    return {"oneOf": one_of, "discriminator": {"propertyName": OUTCOME, "mapping": mapping}}


def inspect_doc(schema: type[Schema]) -> str:
    return (schema.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")


class ScoreOrProblem(fields.Field):
    """A `/v1/score` 200 body, or the problem object that refuses that win (it has a `code`);
    either with its `outcome` (`scored` or `refused`)."""

    #: openapi.yaml: component name -> (schema, outcome)
    VARIANTS: dict[str, tuple[type[Schema], str]] = {
        "WinScored": (ScoreResponseSchema, "scored"), "WinRefused": (ProblemSchema, "refused")}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._score = ScoreResponseSchema()
        self._problem = ProblemSchema()

    def _serialize(self, value, attr, obj, **kwargs):
        if value is None:
            return None
        refused = "code" in value
        return {**(self._problem if refused else self._score).dump(value), OUTCOME: OUTCOMES[refused]}

    def openapi_schema(self, converter: OpenAPIConverter, ret: dict[str, typing.Any]) -> dict[str, typing.Any]:
        return outcome_union(converter, self.VARIANTS)


class WaitSchema(OutSchema):
    """A tile the hand waits on (with `any_tile`: a group of tiles with the same outcome)."""

    tile = req(TileCode(metadata={"description": "The tile (with `any_tile`: the first of `same_for`)."}))
    unseen = req(fields.Integer(metadata={
        "minimum": 1, "description": "Copies of it the player has not seen (not in the hand, the melds, "
                                     "the flowers or the indicator)."}))
    same_for = fields.List(TileCode(), metadata={
        "description": "With `any_tile` only: every tile with this same outcome."})
    unseen_total = fields.Integer(metadata={
        "minimum": 1, "description": "With `any_tile` only: `unseen` summed over `same_for`."})
    self_draw = req(ScoreOrProblem(metadata={
        "description": "The `/v1/score` answer for a self-draw of it, or the problem that refuses it."}))
    discard = req(ScoreOrProblem(metadata={
        "description": "The answer for a win on `discard_from`'s discard, or the problem that refuses it "
                       "(e.g. `caishen_needs_self_draw`, `discard_win_not_allowed`)."}))


class WaitsResponseSchema(OutSchema):
    """Every tile that completes the hand, with its value by self-draw and by discard."""

    any_tile = req(fields.Boolean(metadata={
        "description": "Every tile kind with a copy left completes the hand (caishen): `waits` then lists "
                       "one entry per outcome, its tiles in `same_for`."}))
    tiles = _codes(metadata={"description": "Every tile that completes the hand; `[]`: no wait (not 听牌)."})
    unseen_total = req(fields.Integer(metadata={"minimum": 0, "description": "Unseen copies of all of them."}))
    discard_from = _str(*SEATS, metadata={"description": "The discarder the discard values assume."})
    waits = req(fields.List(fields.Nested(WaitSchema), metadata={
        "description": "With `any_tile`, every entry has `same_for` and `unseen_total`; without, none has "
                       "(tests/library/test_waits.py)."}))


# --- POST /v1/analyze --------------------------------------------------------------------------

class WaitValueSchema(OutSchema):
    """What a win on this tile is worth (from the `/v1/score` answer)."""

    tai = req(fields.Integer(metadata={"description": "Sum of the items' 台."}))
    counted_tai = req(fields.Integer(metadata={"description": "`tai` minus bonus items."}))
    eligible = req(fields.Boolean(metadata={"description": "It reaches the minimum 台 (and any required item)."}))
    points = req(fields.Integer(metadata={"minimum": 0}))
    reasons = req(fields.List(fields.String(), metadata={"description": "Why the hand is not eligible."}))


class ValueOrProblem(ScoreOrProblem):
    """A wait's value, or the problem object that refuses that win (it has a `code`); either
    with its `outcome`."""

    VARIANTS = {"WinValueScored": (WaitValueSchema, "scored"), "WinRefused": (ProblemSchema, "refused")}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._score = WaitValueSchema()


class ImprovingSchema(OutSchema):
    """A tile that, drawn and kept (with the best discard), lowers the shanten."""

    tile = req(TileCode())
    unseen = req(fields.Integer(metadata={
        "minimum": 0, "description": "Copies not in the hand, the melds, the flowers, the indicator or "
                                     "`visible` (in a discard entry, the discarded tile counts as seen)."}))


class AnalyzedWaitSchema(ImprovingSchema):
    """A tile that completes the tenpai hand, with what `/v1/waits` says of it.  When every kind
    completes the hand (caishen in hand), tiles with the same values are one entry, as in
    `/v1/waits` with `any_tile`: their tiles in `same_for`, `unseen` summed in `unseen_total`."""

    same_for = fields.List(TileCode(), metadata={
        "description": "Only when every kind completes the hand: the tiles with these values (`tile` is the first)."})
    unseen_total = fields.Integer(metadata={
        "minimum": 0, "description": "Only when every kind completes the hand: `unseen` summed over `same_for`."})

    self_draw = req(ValueOrProblem(metadata={"description": "A self-draw of it, or the problem that refuses it."}))
    discard = req(ValueOrProblem(metadata={
        "description": "A win on `discard_from`'s discard of it, or the problem that refuses it."}))


class _HandAnalysisSchema(OutSchema):
    shanten = req(fields.Integer(metadata={"minimum": -1, "description": "向听: 0 is tenpai (听牌)."}))
    improving = req(fields.List(fields.Nested(ImprovingSchema), metadata={
        "description": "Every tile that lowers the shanten, in tile order (a caishen kind included)."}))
    improving_unseen = req(fields.Integer(metadata={"minimum": 0, "description": "`unseen` summed over `improving`."}))
    waits = fields.List(fields.Nested(AnalyzedWaitSchema), metadata={
        "description": "At shanten 0: the improving tiles with their value. A tile that only a fifth copy "
                       "would be (every copy held) makes no hand to score and is left out."})
    eligible_unseen = fields.Integer(metadata={
        "minimum": 0, "description": "At shanten 0: `unseen` summed over the waits that win an eligible hand "
                                     "by self-draw or by discard."})
    win_probability = fields.Float(allow_none=True, metadata={
        "minimum": 0, "maximum": 1,
        "description": "Only with `objective: value`: the chance to win an eligible hand by self-draw within "
                       "`draws_left` draws, under the model of docs/api.md (\"Advice by value\"); `null` when the "
                       "hands to weigh are more than the bound (`value_note`)."})
    expected_points = fields.Float(allow_none=True, metadata={
        "minimum": 0,
        "description": "Only with `objective: value`: the expected `points` of that win (0 when there is none), "
                       "under the same model; `null` with `win_probability`."})


class DiscardSchema(_HandAnalysisSchema):
    """What discarding one kind leaves."""

    discard = req(TileCode(metadata={"description": "The tile discarded."}))


class AnalyzeResponseSchema(_HandAnalysisSchema):
    """How far the hand is from winning, the tiles that bring it closer and what each discard leaves."""

    OPENAPI_EXTRA = {
        "if": {"properties": {"tiles": {"const": 14}}},
        "then": {"required": ["discards"], "not": {"anyOf": [
            {"required": [name]} for name in ("improving", "improving_unseen", "waits", "eligible_unseen",
                                              "win_probability", "expected_points")]}},
        "else": {"required": ["improving", "improving_unseen"], "not": {"required": ["discards"]}},
    }

    tiles = req(fields.Integer(validate=Range(min=13, max=14), metadata={
        "description": "13: the hand waits to draw (13 − 3 × melds concealed tiles); 14: it has drawn."}))
    shanten = req(fields.Integer(metadata={
        "minimum": -1, "description": "向听: 0 is tenpai (听牌); −1 (14 tiles only): a winning shape."}))
    improving = fields.List(fields.Nested(ImprovingSchema), metadata={
        "description": "13 tiles: every tile that lowers the shanten, in tile order (a caishen kind included)."})
    improving_unseen = fields.Integer(metadata={"minimum": 0,
                                                "description": "13 tiles: `unseen` summed over `improving`."})
    discards = fields.List(fields.Nested(DiscardSchema), metadata={
        "description": "14 tiles: one entry per kind held, best first: lowest shanten, most `improving_unseen`, "
                       "(at shanten 0) most `eligible_unseen`, then tile order; with `objective: value`, most "
                       "`expected_points`, then most `win_probability` (each to 9 and 12 decimals), then that order."})
    draws_left = fields.Integer(validate=Range(min=1, max=20), metadata={
        "description": "Only with `objective: value`: the draws the values are computed over."})
    value_note = fields.String(metadata={
        "description": "Only with `objective: value`, when the values are `null`: why (more hands to weigh than "
                       "the bound of one request), in the request's language."})
    discard_from = _str(*SEATS, metadata={"description": "The discarder the discard values assume."})


# --- POST /v1/score/batch ----------------------------------------------------------------------

class BatchResultSchema(OutSchema):
    """One item's result: its `score` (status 200) or its `problem` (the status it would have had)."""

    #: openapi.yaml: a oneOf of a success result and a problem result, told apart by `outcome`
    #: (the OpenAPI `discriminator`: a string) and by `status` (200, or the 400 or 422 of a refused
    #: hand: the integer `/v1/score` would have answered).
    OPENAPI_VARIANTS = {
        "BatchScoreResult": ("score", {OUTCOME: {"type": "string", "const": "scored"},
                                       "status": {"type": "integer", "const": 200}}),
        "BatchProblemResult": ("problem", {OUTCOME: {"type": "string", "const": "refused"},
                                           "status": {"type": "integer", "minimum": 400, "maximum": 599}}),
    }

    index = req(fields.Integer(metadata={"minimum": 0, "description": "The item's place in `requests`."}))
    outcome = _str(*OUTCOMES, metadata={"description": "`scored` (with `score`) or `refused` (with `problem`)."})
    status = req(fields.Integer(metadata={"description": "What `POST /v1/score` would answer."}))
    score = fields.Nested(ScoreResponseSchema)
    problem = fields.Nested(ProblemSchema)


class BatchResponseSchema(OutSchema):
    """One result per request, in order."""

    ok = req(fields.Integer(metadata={"minimum": 0, "description": "Results with status 200."}))
    failed = req(fields.Integer(metadata={"minimum": 0, "description": "Results with a problem."}))
    results = req(fields.List(fields.Nested(BatchResultSchema)))


# --- POST /v1/sessions/settle ------------------------------------------------------------------

SESSION_HAND_KINDS = HAND_KINDS
SESSION_OUTCOMES = ("win", "draw", "net", "penalty")


def _in_players_order(description: str) -> fields.List:
    return req(fields.List(fields.Integer(), metadata={"minItems": 4, "maxItems": 4, "description": description}))


def _by_player(description: str, **kwargs) -> fields.Dict:
    return req(fields.Dict(keys=fields.String(), values=fields.Integer(**kwargs), metadata={
        "description": description}))


class SessionSeatsSchema(OutSchema):
    """Who sits where in a hand: each seat wind's player (`E` deals)."""

    E = _str()
    S = _str()
    W = _str()
    N = _str()


class SessionHandResultSchema(OutSchema):
    """One hand: who dealt, how it ended, what each player won and the running totals. Players are
    named by their position in the answer's `players` (0 to 3), gains listed in that order: the
    seat wind `k` (`E` = 0) of the hand is the player `(dealer + k) % 4`."""

    index = req(fields.Integer(metadata={"minimum": 0, "description": "The hand's place in `hands`."}))
    kind = _str(*SESSION_HAND_KINDS, metadata={"description": "How it was given."})
    dealer = req(fields.Integer(metadata={"minimum": 0, "maximum": 3,
                                          "description": "The player who dealt it (`E`): a position in `players`."}))
    round_wind = _str(*SEATS)
    outcome = _str(*SESSION_OUTCOMES, metadata={
        "description": "`win` (a `score`, or a `replay` ending in a win), `draw` (a `draw`, or a `replay` "
                       "ending in 荒庄), `net`, `penalty`."})
    winner = req(fields.Integer(allow_none=True, metadata={
        "minimum": 0, "maximum": 3, "description": "The winner, a position in `players`; `null` but for a win."}))
    by = req(fields.String(validate=OneOf((*WIN_BY, None)), allow_none=True, metadata={
        "description": "How it was won; `null` but for a win."}))
    from_ = req(fields.Integer(data_key="from", attribute="from", allow_none=True, metadata={
        "minimum": 0, "maximum": 3, "description": "The discarder or the robbed player, a position in `players`; "
                                                   "`null` for a self-draw and but for a win."}))
    tai = req(fields.Integer(allow_none=True, metadata={"description": "The win's 台; `null` but for a win."}))
    eligible = req(fields.Boolean(allow_none=True, metadata={
        "description": "`true` for a win (a win under the minimum is refused: `below_minimum`); `null` but for "
                       "a win."}))
    net = _in_players_order("Each player's gain in this hand, in `players` order; sums to 0, but for an escape "
                            "penalty paid to the house.")
    totals = _in_players_order("Each player's running total after this hand, in `players` order.")


class SessionHouseSchema(OutSchema):
    """What a player owes outside the table (an escape penalty where `escape_penalty_to` is `house`)."""

    from_ = _str(data_key="from", attribute="from", metadata={"description": "A player."})
    amount = req(fields.Integer(metadata={"minimum": 1}))


class SessionTransferSchema(OutSchema):
    """One transfer that settles the session."""

    from_ = _str(data_key="from", attribute="from", metadata={"description": "A player who lost."})
    to = _str(metadata={"description": "A player who won."})
    amount = req(fields.Integer(metadata={"minimum": 1}))


class SessionStatsSchema(OutSchema):
    """A player's wins over the `score` and `replay` hands (eligible wins only)."""

    wins = req(fields.Integer(metadata={"minimum": 0}))
    self_draws = req(fields.Integer(metadata={"minimum": 0}))
    dealt_in = req(fields.Integer(metadata={"minimum": 0, "description": "Discards of this player that fed a win."}))
    best_tai = req(fields.Integer(allow_none=True, metadata={"description": "The best 台 of its wins; `null`: none."}))


class SessionNextSchema(OutSchema):
    """The next hand's table."""

    dealer = _str()
    round_wind = _str(*SEATS)
    seats = req(fields.Nested(SessionSeatsSchema))


class SessionSettleResponseSchema(OutSchema):
    """The session settled: each hand, the totals, the fewest transfers, stats and the next hand."""

    players = req(fields.List(fields.String(), metadata={
        "minItems": 4, "maxItems": 4,
        "description": "The four players, as given: `hands` name them by their position here."}))
    hands = req(fields.List(fields.Nested(SessionHandResultSchema)))
    totals = _by_player("Each player's total over the session, the house's debts included; sums to minus the "
                        "`house` amounts.")
    house = req(fields.List(fields.Nested(SessionHouseSchema), metadata={
        "description": "What each player owes the house (escape penalties where `escape_penalty_to` is `house`), "
                       "merged per player, in `players` order; `[]` when none."}))
    transfers = req(fields.List(fields.Nested(SessionTransferSchema), metadata={
        "description": "The fewest transfers that settle the rest among the players (each player's total plus "
                       "what it owes the house), from losers to winners; among the fewest, the one whose largest "
                       "is smallest, then the first by (from, to) in `players` order. Sorted so."}))
    stats = req(fields.Dict(keys=fields.String(), values=fields.Nested(SessionStatsSchema), metadata={
        "description": "Each player's stats."}))
    next = req(fields.Nested(SessionNextSchema))


# --- the table ---------------------------------------------------------------------------------

class SeatWindsSchema(OutSchema):
    """Every position's seat wind (the dealer's is `E`): keys `0` to `3`, the positions."""

    #: openapi.yaml: a map from the positions to seats (four keys of four: all of them), so that a
    #: generated client gives a map too, not four fields it must name itself (`field_0`…)
    OPENAPI_SCHEMA = {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Seat"},
                      "propertyNames": {"enum": list(POSITIONS)}, "minProperties": 4}

    p0 = _str(*SEATS, data_key="0", attribute="0")
    p1 = _str(*SEATS, data_key="1", attribute="1")
    p2 = _str(*SEATS, data_key="2", attribute="2")
    p3 = _str(*SEATS, data_key="3", attribute="3")


class NextHandResponseSchema(OutSchema):
    """The table of the next hand: send `dealer`, `round_wind` and `dealers_this_round` back with
    that hand's `result` to get the one after."""

    dealer = req(fields.Integer(metadata={"minimum": 0, "maximum": 3, "description": "The next dealer's position."}))
    round_wind = _str(*SEATS)
    dealers_this_round = req(fields.Integer(metadata={"minimum": 1, "maximum": 4}))
    seat_winds = req(fields.Nested(SeatWindsSchema))
    dealer_changed = req(fields.Boolean())
    round_changed = req(fields.Boolean(metadata={"description": "The round wind advanced."}))


class ClaimSchema(OutSchema, TableClaimSchema):
    """A seat's claim on the discard (as in the request)."""

    class Meta(OutSchema.Meta, TableClaimSchema.Meta):
        """The options of both (each has only ``unknown = RAISE``)."""


class ClaimsResponseSchema(OutSchema):
    """The claim that takes the discard (docs/rules.md §8)."""

    taker = req(fields.Nested(ClaimSchema, allow_none=True, metadata={"description": "`null`: nobody claims."}))
    rule = _str(*CLAIM_RULES, metadata={
        "description": "`intercept`: several wins, the first in play order after the discarder takes it (截胡)."})
    reason = _str(metadata={"description": "Why, in the language of `Accept-Language`."})
    overridden = req(fields.List(fields.Nested(ClaimSchema), metadata={
        "description": "The other claims, in play order after the discarder."}))


class LevelSchema(OutSchema):
    """A level (级别)."""

    level = req(fields.Integer(metadata={"minimum": 0}))
    name = _str(metadata={"description": "Chinese name."})
    name_en = _str(metadata={"description": "English gloss."})
    threshold = req(fields.Integer(metadata={"minimum": 0, "description": "积分 (points) a player needs."}))
    base_points = req(fields.Integer(metadata={"minimum": 1, "description": "对局分 of a game at this level."}))


class LevelsSchema(OutSchema):
    """The level table of the 456 rules."""

    source = _str(metadata={"description": "The source document."})
    levels = req(fields.List(fields.Nested(LevelSchema)))


class EscapeResponseSchema(OutSchema):
    """The penalty for leaving a game: 24 × base points."""

    penalty = req(fields.Integer(metadata={"minimum": 24, "description": "`multiplier` × `base_points`."}))
    multiplier = req(fields.Integer(metadata={"description": "24."}))
    base_points = req(fields.Integer(metadata={"minimum": 1}))
    level = req(fields.Integer(allow_none=True, metadata={"description": "The level given, or `null`."}))
    to = _str("house", "table", metadata={
        "description": "Who receives it: the rules' `escape_penalty_to` (docs/rules.md §8): `house`, nobody at the "
                       "table; `table`, the three other players."})
    each_other = req(fields.Integer(metadata={
        "minimum": 0, "description": "What each other player gains from it: 0 where it goes to the house, "
                                     "8 × `base_points` where to the table."}))


# --- POST /v1/replay, /v1/replay/batch ---------------------------------------------------------

class ReplayResponseSchema(OutSchema):
    """A hand's log replayed: its outcome, the `/v1/score` body its win makes and that body's
    score, the events that decided each derived field, and the next hand's table."""

    outcome = _str("win", "draw", metadata={"description": "`draw`: the log ended in `exhaustive_draw` (荒庄)."})
    events = req(fields.Integer(metadata={"minimum": 1, "description": "How many events the log has."}))
    winner = fields.String(validate=OneOf(SEATS), metadata={"description": "The winner's seat (a win only)."})
    score_request = fields.Dict(metadata={
        "description": "The `/v1/score` body derived (a win only): posted to `/v1/score`, it gives `score`."})
    score = fields.Nested(ScoreResponseSchema, metadata={"description": "The `/v1/score` answer (a win only)."})
    evidence = req(fields.Dict(keys=fields.String(), values=fields.Raw(), metadata={
        "description": "For each derived field that is not its default (`win.by`, `win.from`, "
                       "`win.kong_replacement`, `win.kong_fed_by`, `win.last_tile`, `win.heavenly`, "
                       "`win.earthly`, `win.discarded_caishen`, `claims_from_winner.<seat>`, `hand.melds.<i>`), "
                       "the index or indices of the events that decided it; `{}` for a draw."}))
    next = req(fields.Nested(NextHandResponseSchema, metadata={
        "description": "The `/v1/table/next` answer for this result (positions 0-3 are this hand's E, S, W, N)."}))


class ReplayBatchResultSchema(OutSchema):
    """One log's result: its `replay` (status 200) or its `problem` (the status it would have had)."""

    OPENAPI_VARIANTS = {
        "ReplayBatchReplayResult": ("replay", {OUTCOME: {"type": "string", "const": "replayed"},
                                               "status": {"type": "integer", "const": 200}}),
        "ReplayBatchProblemResult": ("problem", {OUTCOME: {"type": "string", "const": "refused"},
                                                 "status": {"type": "integer", "minimum": 400, "maximum": 599}}),
    }

    index = req(fields.Integer(metadata={"minimum": 0, "description": "The log's place in `logs`."}))
    outcome = _str("replayed", "refused", metadata={
        "description": "`replayed` (with `replay`) or `refused` (with `problem`)."})
    status = req(fields.Integer(metadata={"description": "What `POST /v1/replay` would answer."}))
    replay = fields.Nested(ReplayResponseSchema)
    problem = fields.Nested(ProblemSchema)


class ReplayBatchResponseSchema(BatchResponseSchema):
    """One result per log, in order."""

    results = req(fields.List(fields.Nested(ReplayBatchResultSchema)))


# --- POST /v1/table/actions ----------------------------------------------------------------------

class TableMeldSchema(OutSchema):
    """A meld on the table."""

    type = _str("chow", "pung", "kong")
    tiles = fields.List(TileCode(), metadata={
        "description": "Its tiles (absent: another seat's concealed kong, for a seat's view: face down)."})
    from_ = fields.String(data_key="from", attribute="from", validate=OneOf(SEATS), metadata={
        "description": "The discarder of a claimed meld."})
    concealed = fields.Boolean(metadata={"description": "`true`: a concealed kong."})
    added = fields.Boolean(metadata={"description": "`true`: a kong added to an exposed pung."})


class SeatMeldsSchema(OutSchema):
    """The melds of each seat that has any."""

    E = fields.List(fields.Nested(TableMeldSchema))
    S = fields.List(fields.Nested(TableMeldSchema))
    W = fields.List(fields.Nested(TableMeldSchema))
    N = fields.List(fields.Nested(TableMeldSchema))


class SeatFlowersSchema(OutSchema):
    """The flowers set aside by each seat that has any."""

    E = fields.List(TileCode())
    S = fields.List(TileCode())
    W = fields.List(TileCode())
    N = fields.List(TileCode())


class LastDiscardSchema(OutSchema):
    """The last discard of the hand so far."""

    seat = _str(*SEATS)
    tile = req(TileCode())
    event_index = req(fields.Integer(metadata={"minimum": 0}))


class TableStateSchema(OutSchema):
    """What is on the table: no tile of a concealed hand."""

    live_tiles = req(fields.Integer(metadata={"minimum": 0, "description": "Live tiles left in the wall."}))
    tiles = req(fields.Nested(SeatAmountsSchema, metadata={
        "description": "Each seat's concealed tile count."}))
    melds = req(fields.Nested(SeatMeldsSchema))
    flowers = req(fields.Nested(SeatFlowersSchema))
    last_discard = req(fields.Nested(LastDiscardSchema, allow_none=True, metadata={
        "description": "`null`: nothing discarded yet."}))


class ActionScoreSchema(OutSchema):
    """What the win is worth (the `/v1/score` answer's figures)."""

    tai = req(fields.Integer(metadata={"minimum": 0}))
    counted_tai = req(fields.Integer(metadata={"minimum": 0}))
    eligible = req(fields.Boolean(metadata={"description": "Always `true`: only a win that scores is listed."}))
    points = req(fields.Integer(metadata={"minimum": 0}))
    by = _str(*WIN_BY)


class ActionSchema(OutSchema):
    """An event `/v1/replay` would accept as the log's next one (without `declined`)."""

    seat = fields.String(validate=OneOf(SEATS), metadata={"description": "Who acts (every action but "
                                                                         "`exhaustive_draw`)."})
    t = _str(*ACTION_TYPES)
    tile = TileCode(metadata={"description": "`discard`, `flower`, `concealed_kong`, `added_kong`: the tile."})
    tiles = fields.List(TileCode(), metadata={"description": "`chow`, `pung`, `kong`: the meld, the discard "
                                                             "included."})
    priority = fields.Integer(validate=Range(min=1, max=4), metadata={
        "description": "The claims of a discard or of a robbable kong: win 1, pung/kong 2, chow 3, the draw "
                       "(or `exhaustive_draw`) taken when nobody claims 4."})
    score = fields.Nested(ActionScoreSchema, metadata={"description": "`win`: its value."})


class ActionsResponseSchema(OutSchema):
    """What each seat may do now."""

    events = req(fields.Integer(metadata={"minimum": 0, "description": "How many events the prefix has."}))
    phase = _str(*PHASES, metadata={
        "description": "`turn` (`turn` has drawn or claimed: it discards, kongs, sets a flower aside or wins), "
                       "`replacement` (`turn` owes a replacement draw), `claims` (a discard or a robbable added "
                       "kong: the others may claim; else `turn` draws), `draw` (`turn` draws), `opening` (the "
                       "flowers of the deal are replaced), `ended` (no actions)."})
    turn = req(fields.String(validate=OneOf((*SEATS, None)), allow_none=True, metadata={
        "description": "The seat whose turn it is (`null` once the hand has ended)."}))
    state = req(fields.Nested(TableStateSchema))
    actions = req(fields.List(fields.Nested(ActionSchema), metadata={
        "description": "Each event `/v1/replay` accepts next, once, sorted by seat in play order from `turn`, "
                       "then `t`, then tile."}))
