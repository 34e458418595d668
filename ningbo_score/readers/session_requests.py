"""The reader of the body of ``POST /v1/sessions/settle`` (docs/api.md): marshmallow schemas built
on :class:`~ningbo_score.readers.strict.StrictSchema` and the fields of ningbo_score.readers.fields, loading a
:class:`SessionInput` for ningbo_score.sessions.

Only the session's own shape is read here (400 ``invalid_request``), and who its hands name: a
seat of a hand (``net``'s keys, ``escape``) is a seat wind or a player's name, and a name that is
none of the four players is a 422 (as ``first_dealer``'s).  A ``score`` or ``replay`` hand is
kept as the object it is, and read by that endpoint's own reader when its turn comes (its
``round_wind`` and defaults depend on the hands before it).  The twin of
ningbo_score.readers.replay_requests: sessions import their reader, and no reader imports sessions.
"""
from __future__ import annotations

import typing
from dataclasses import dataclass

from marshmallow import ValidationError, post_load, validates_schema

from ..errors import Problem, ScoreError, shown
from .fields import Boolean, Dict, Integer, List, Msg, Nested, OneOf, PresetOrObject, Range, String
from ..hand import MAX_BASE_POINTS
from .request_schemas import DEFAULT_RULES, PRESET_IDS, RulesObjectSchema, optional, rules_of
from ..rules import MAX_SAFE_INTEGER, Rules
from .strict import StrictSchema
from ..tiles import SEAT_INDEX

if typing.TYPE_CHECKING:
    from marshmallow.fields import Field

    _F = typing.TypeVar("_F", bound=Field[typing.Any])

#: the most hands of one session (docs/api.md)
MAX_HANDS = 200
#: the most characters of a player's name
MAX_NAME = 64
HAND_KINDS = ("replay", "score", "draw", "net", "penalty")

#: Who a hand names: ``(SEAT, k)``, the seat wind ``SEATS[k]`` of that hand, or ``(PLAYER, p)``,
#: ``players[p]`` (whose seat follows from the hand's dealer: ningbo_score.sessions).
SEAT, PLAYER = "seat", "player"
Who: typing.TypeAlias = tuple[str, int]


@dataclass(frozen=True, slots=True)
class SessionInput:
    """A loaded ``POST /v1/sessions/settle`` body.  Its hands are ``(kind, value)``: a ``score`` or
    ``replay`` value the endpoint's body (a dict), a ``draw`` True, a ``net`` a list of (:data:`Who`,
    gain), a ``penalty`` ``{"escape": Who, "base_points": int | None}``."""
    players: tuple[str, str, str, str]
    first_dealer: int                                    # a position 0-3
    rules: Rules                                         # the session's: its draw_keeps_dealer moves the deal
    rules_value: str | dict[str, typing.Any] | None      # the session's `rules` as loaded, for hands without theirs
    base_points: int | None                              # the session's, for hands without theirs
    hands: list[tuple[str, typing.Any]]                  # (kind, its loaded value) in play order


def _name_length(value: str) -> None:
    if not 0 < len(value) <= MAX_NAME:
        raise ValidationError(Msg(f"Must be a seat wind or a player's name (1 to {MAX_NAME} characters).",
                                  f"须为座位风或玩家名字（1 到 {MAX_NAME} 个字符）。"))


def _who_field(description: str, **kwargs: typing.Any) -> String:
    """A seat of a hand: a seat wind or a player's name (1 to MAX_NAME characters)."""
    return String(validate=_name_length, metadata={"minLength": 1, "maxLength": MAX_NAME, "description": description},
                  **kwargs)


_GAIN = Integer(validate=Range(min=-MAX_SAFE_INTEGER, max=MAX_SAFE_INTEGER))


class SessionPenaltySchema(StrictSchema):
    """The escape penalty (逃跑, docs/rules.md §8): the player who left pays 24 × base points; who
    receives it is the session's `escape_penalty_to` (`house`: nobody at the table; `table`: 8 ×
    base to each other player)."""

    escape = _who_field("Who left the game: a seat wind of that hand (`E` dealt it) or a player's name.",
                        required=True)
    base_points = optional(Integer, validate=Range(min=1, max=MAX_BASE_POINTS), metadata={
        "description": "This hand's base points; default: the session's."})


#: a hand's `score` or `replay`: an object read by that endpoint's own schema when its turn comes
_HAND_BODY = ("`round_wind` may be left out (the rotation's is filled in), `rules` and `base_points` default to "
              "the session's.")


def _hand_kind(field_cls: type[_F], *args: typing.Any, **kwargs: typing.Any) -> _F:
    """A kind of a session's hand: optional, but not ``null`` (a hand names its one kind)."""
    return field_cls(*args, required=False, allow_none=False, **kwargs)


#: the most keys of a hand's own body in a session (a /v1/score or /v1/replay body has at most 10),
#: checked before any is read
MAX_BODY_KEYS = 16


def _zero_sum(net: dict[str, int]) -> None:
    """A ``net`` hand: four seats (or players), their gains summing to 0."""
    if len(net) != 4:
        raise ValidationError(Msg("Give the four seats' gains: each a seat wind (E S W N) of that hand or a "
                                  "player's name.", "须给出四家的输赢：每家为该局的座位风（E S W N）或玩家名字。"))
    total = sum(net.values())
    if total:
        raise ValidationError(Msg(f"The four seats' gains sum to {total}; they must sum to 0.",
                                  f"四家输赢之和为 {total}，必须为 0。", "unbalanced_net"))


class SessionHandSchema(StrictSchema):
    """One hand of the session: exactly one of `replay`, `score`, `draw`, `net` or `penalty`."""

    #: openapi.yaml: one object of the five properties, exactly one of them given (not a oneOf of a
    #: component per kind, as OPENAPI_VARIANTS would make it: schemathesis 4 cannot generate the
    #: negation of an array whose items are a oneOf, tests/readers/test_fuzz.py); the kinds are not
    #: nullable (so the one property a schema-valid hand has is a kind given)
    OPENAPI_KEYWORDS: typing.ClassVar[dict[str, int]] = {"minProperties": 1, "maxProperties": 1}

    replay = _hand_kind(Dict, max_keys=MAX_BODY_KEYS, metadata={
        "description": "A `/v1/replay` body (`ReplayRequest`): " + _HAND_BODY})
    score = _hand_kind(Dict, max_keys=MAX_BODY_KEYS, metadata={
        "description": "A `/v1/score` body (`ScoreRequest`), the winner by its `seat_wind`: " + _HAND_BODY})
    draw = _hand_kind(Boolean, validate=OneOf((True,), error=Msg("Must be true.", "只能是 true。")), metadata={
        "description": "A drawn hand (流局/荒庄): `true`. Nobody pays."})
    net = _hand_kind(Dict, max_keys=4, keys=_who_field("A seat wind of that hand or a player's name."),
                     values=_GAIN, validate=_zero_sum, metadata={
                         "minProperties": 4,
                         "description": "A hand scored elsewhere: each seat's gain, summing to 0. A key is a seat "
                                        "wind of that hand (`E` dealt it) or a player's name, the four naming four "
                                        "seats; a seat wind is always read as the seat."})
    penalty = _hand_kind(Nested, SessionPenaltySchema, metadata={"description": "An escape penalty."})

    @validates_schema
    def _exactly_one(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> None:
        given = [k for k in HAND_KINDS if data.get(k) is not None]
        if len(given) != 1:
            raise ValidationError(Msg("Give exactly one of replay, score, draw, net or penalty.",
                                      "replay、score、draw、net、penalty 必须且只能给出一个。"))

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> tuple[str, typing.Any]:
        kind = next(k for k in HAND_KINDS if data.get(k) is not None)
        return kind, data[kind]


def _rules_and_value(value: str | dict[str, typing.Any]) -> tuple[str | dict[str, typing.Any], Rules]:
    """A loaded `rules` field as it was given (a preset id or the loaded object, which reads the
    same) and as Rules."""
    return value, rules_of(value)


class SessionRequestSchema(StrictSchema):
    """The body of `POST /v1/sessions/settle`: four players, who dealt first, and the hands in order."""

    rules = PresetOrObject(PRESET_IDS, RulesObjectSchema(), _rules_and_value, required=False, allow_none=True,
                           metadata={"description": "A preset id or a rules object, as in `/v1/score`; default "
                                                    "`ningbo`. Its `draw_keeps_dealer` moves the deal after a "
                                                    "draw, its `escape_penalty_to` says who receives an escape "
                                                    "penalty; the hands' own `rules` default to it."})
    base_points = optional(Integer, validate=Range(min=1, max=MAX_BASE_POINTS), metadata={
        "description": "The hands' `base_points` where they give none.", "default": 1})
    players = List(String(metadata={"minLength": 1, "maxLength": MAX_NAME}), required=True, max_items=4, metadata={
        "minItems": 4, "uniqueItems": True,
        "description": f"Four distinct names (1 to {MAX_NAME} characters), in seating order: the second "
                       "plays after the first."})
    first_dealer = String(required=True, metadata={
        "minLength": 1, "maxLength": MAX_NAME, "description": "The name of the player who deals the first hand."})
    hands = List(Nested(SessionHandSchema), required=True, max_items=MAX_HANDS, metadata={
        "description": f"The hands in play order, at most {MAX_HANDS}."})

    @validates_schema
    def _players(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> None:
        players = data["players"]
        errors: dict[str, list[Msg]] = {}
        if len(players) != 4 or len(set(players)) != 4 or not all(0 < len(p) <= MAX_NAME for p in players):
            errors["players"] = [Msg(f"Give four distinct names of 1 to {MAX_NAME} characters.",
                                     f"须给出四个互不相同的名字，每个 1 到 {MAX_NAME} 个字符。")]
        if errors:
            raise ValidationError(errors)

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> SessionInput:
        players = data["players"]
        if data["first_dealer"] not in players:
            # well-formed, but naming nobody at the table: a 422, as the spec can't say it
            raise ScoreError.one("unknown_dealer", "first_dealer", "Must be one of the players.",
                                 "必须是 players 中的一位。")
        problems: list[Problem] = []
        hands = [_named(i, kind, value, players, problems) for i, (kind, value) in enumerate(data["hands"])]
        if problems:
            raise ScoreError(problems)
        value, rules = data.get("rules") or (None, DEFAULT_RULES)
        return SessionInput(tuple(players), players.index(data["first_dealer"]), rules, value,
                            data.get("base_points"), hands)


def _who(name: str, players: list[str], path: str, problems: list[Problem]) -> Who:
    """A seat wind (always the seat: a player named ``S`` is named by its seat), else a player's
    name; another name is a 422 at ``path`` (only the first problems are kept)."""
    if name in SEAT_INDEX:
        return SEAT, SEAT_INDEX[name]
    if name in players:
        return PLAYER, players.index(name)
    problems.append(Problem(
        "unknown_player", path, f"{shown(name)!r} is neither a seat wind (E S W N) nor one of the players.",
        f"“{shown(name)}”既不是座位风（E S W N），也不是 players 中的一位。"))
    return SEAT, 0


def _named(index: int, kind: str, value: typing.Any, players: list[str],
           problems: list[Problem]) -> tuple[str, typing.Any]:
    """A hand with who it names read (``net``'s keys, ``escape``); others as they are."""
    if kind == "net":
        return kind, [(_who(k, players, f"hands.{index}.net.{shown(k)}", problems), v) for k, v in value.items()]
    if kind == "penalty":
        return kind, {**value, "escape": _who(value["escape"], players, f"hands.{index}.penalty.escape", problems)}
    return kind, value


SESSION_REQUEST = SessionRequestSchema()
