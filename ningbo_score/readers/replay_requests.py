"""The reader of the bodies of ``POST /v1/replay`` and ``POST /v1/replay/batch`` (docs/api.md):
marshmallow schemas built on :class:`~ningbo_score.readers.strict.StrictSchema`
and fields, so a log's tiles take every form ``/v1/score`` reads and its ``rules`` every preset
and rules object.  Each body is loaded as the typed input of ningbo_score.replay
(:class:`ReplayLog`, :class:`ReplayBatchInput`).

Only shape and types are checked here (400 ``invalid_request``); whether the events are legal is
ningbo_score.replay's (422 ``illegal_event``).  Kept in a module of its own (not appended to
request_schemas.py) so that the replay's reader stays one block.
"""
from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import NamedTuple

from marshmallow import ValidationError, post_load, pre_load, validates_schema

from .fields import CHARS_PER_TILE, Each, Integer, List, Msg, Nested, OneOf, PresetOrObject, Range, String, Tile, Tiles
from ..hand import MAX_BASE_POINTS, MAX_CONCEALED
from .strict import StrictSchema
from .request_schemas import (DEFAULT_RULES, PRESET_IDS, TOO_MANY_MELD_TILES, CaishenSchema, RulesObjectSchema,
                       optional, rules_of)
from ..rules import Rules
from ..tiles import CODES, MAX_LIVE_TILES, SEAT_INDEX, SEATS, tile_index, tile_indices

if typing.TYPE_CHECKING:
    from collections.abc import Callable, Mapping

#: docs/api.md: at most 400 events a log and 50 logs a batch
MAX_EVENTS = 400
MAX_LOGS = 50
#: a seat is dealt 13 tiles; a deal field longer than this is refused before it is read
MAX_DEAL = 14
#: 144 tiles, 52 dealt: at most 92 may be drawn (91 when an indicator is out of play)
DEFAULT_LIVE_TILES = 144 - 52 - 1
LOG_VERSIONS = (1,)
EVENT_TYPES = ("draw", "flower", "discard", "chow", "pung", "kong", "concealed_kong", "added_kong", "win",
               "exhaustive_draw")
CLAIM_EVENTS = ("chow", "pung", "kong")
DECLINED_CLAIMS = ("win", "kong", "pung", "chow")   # the order of ClaimType (table.CLAIM_TYPES)
#: the members each event type has besides ``t`` (required, optional)
_SHAPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "draw": (("seat", "tile"), ()),
    "flower": (("seat", "tile"), ()),
    "discard": (("seat", "tile"), ()),
    "chow": (("seat", "tiles"), ("from", "declined")),
    "pung": (("seat", "tiles"), ("from", "declined")),
    "kong": (("seat", "tiles"), ("from", "declined")),
    "concealed_kong": (("seat", "tile"), ()),
    "added_kong": (("seat", "tile"), ()),
    "win": (("seat",), ("declined",)),
    "exhaustive_draw": ((), ()),
}


#: a seat as a log may name it (docs/api.md): its wind letter, or its Chinese name
SEAT_OF: dict[str, int] = {**SEAT_INDEX, "东": 0, "東": 0, "南": 1, "西": 2, "北": 3}
#: near misses that get a "did you mean" (never read as the seat: a log says what it means)
_NEAR_SEAT: dict[str, str] = {
    **{w.lower(): w for w in SEATS}, "east": "E", "south": "S", "west": "W", "north": "N",
    "东风": "E", "東風": "E", "南风": "S", "南風": "S", "西风": "W", "西風": "W", "北风": "N", "北風": "N",
    "东家": "E", "南家": "S", "西家": "W", "北家": "N", "dong": "E", "nan": "S", "xi": "W", "bei": "N"}
_SEATS_SHOWN = "E, S, W, N (or 东, 南, 西, 北)"
_SEATS_SHOWN_ZH = "E、S、W、N（或 东、南、西、北）"


def near_seat(value: object) -> str | None:
    """The seat a wrong value most likely meant (``e``, ``East``, ``东风``), or None."""
    return _NEAR_SEAT.get(value.strip().lower()) if isinstance(value, str) else None


def _seat_message(value: object) -> Msg:
    near = near_seat(value)
    if near is None:
        return Msg(f"Must be one of: {_SEATS_SHOWN}.", f"必须是以下之一：{_SEATS_SHOWN_ZH}。")
    zh = "东南西北"[SEAT_INDEX[near]]
    return Msg(f"Must be one of: {_SEATS_SHOWN}: did you mean \"{near}\"?",
               f"必须是以下之一：{_SEATS_SHOWN_ZH}：是不是 \"{near}\"（{zh}）？")


class SeatName(OneOf):
    """A seat of the log: ``E``, ``S``, ``W``, ``N`` or 东, 南, 西, 北 (東); a near miss gets a
    "did you mean"."""

    def __init__(self) -> None:
        super().__init__(SEAT_OF)

    def __call__(self, value: typing.Any) -> typing.Any:
        if value not in SEAT_OF:
            raise ValidationError(_seat_message(value))
        return value


def seat_field(**kwargs: typing.Any) -> String:
    kwargs.setdefault("metadata", {})
    kwargs["metadata"].setdefault("description", "A seat wind: `E` (the dealer), `S`, `W` or `N` (or 东, 南, 西, 北).")
    return String(validate=SeatName(), **kwargs)


class Event(NamedTuple):
    """One event of a log: seats 0-3 (E = 0), tiles as indices (ningbo_score.tiles).  (Frozen as
    a named tuple: a log reads up to 400 of them and the referee makes about 45 a request, each
    built at a third of a frozen dataclass's cost.)"""
    t: str
    seat: int | None
    tile: int | None
    tiles: tuple[int, ...]
    from_seat: int | None
    declined: tuple[tuple[int, str], ...]      # (seat, claim) of the claims that lost


@dataclass(frozen=True, slots=True)
class ReplayLog:
    """A loaded ``POST /v1/replay`` body: what ningbo_score.replay.replay_loaded takes."""
    rules: Rules
    round_wind: int
    base_points: int | None
    indicator: int | None
    kinds: tuple[int, ...] | None
    live_tiles: int
    deal: tuple[tuple[int, ...], ...]          # by seat E, S, W, N
    events: tuple[Event, ...]
    dealers_this_round: int


@dataclass(frozen=True, slots=True)
class ReplayBatchInput:
    """A loaded ``POST /v1/replay/batch`` body: per log, its ReplayLog or the ScoreError (400)
    refusing it."""
    logs: list[typing.Any]


class DeclinedSchema(StrictSchema):
    """A claim another seat declared on the same discard and lost (for the priority of §8)."""

    seat = seat_field(required=True, metadata={"description": "The seat that declared it."})
    claim = String(required=True, validate=OneOf(DECLINED_CLAIMS), metadata={
        "description": "`win`, `kong`, `pung` or `chow`."})


class ReplayEventSchema(StrictSchema):
    """One event of a hand, in play order; which members it has depends on `t`."""

    #: openapi.yaml (tools/gen_openapi.shapes): one component per event type, with its members
    OPENAPI_SHAPES: typing.ClassVar[dict[str, tuple[str, str, tuple[str, ...], tuple[str, ...]]]] = {
        "".join(p.capitalize() for p in t.split("_")) + "Event": ("t", t, need, may)
        for t, (need, may) in _SHAPES.items()}

    t = String(required=True, validate=OneOf(EVENT_TYPES), metadata={
        "description": "`draw`, `flower`, `discard`, `chow`, `pung`, `kong` (a claim of the last discard), "
                       "`concealed_kong`, `added_kong`, `win` or `exhaustive_draw`."})
    seat = seat_field(required=False, allow_none=True, metadata={
        "description": "The seat acting (every event but `exhaustive_draw`)."})
    tile = optional(Tile, metadata={
        "description": "The tile (`draw`, `flower`, `discard`, `concealed_kong`, `added_kong`)."})
    tiles = optional(Tiles, max_items=MAX_CONCEALED, over=TOO_MANY_MELD_TILES, metadata={
        "description": "A claim's meld, the claimed discard included (`chow`, `pung`, `kong`)."})
    from_ = seat_field(data_key="from", attribute="from", required=False, allow_none=True, metadata={
        "description": "A claim's discarder (optional; must be the seat of the last discard)."})
    declined = optional(List, Nested(DeclinedSchema), max_items=3, metadata={
        "description": "Claims other seats declared on the same discard (or kong) and lost (claims and `win`)."})

    @validates_schema
    def _members(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> None:
        t = data.get("t")
        if t not in _SHAPES:
            return
        need, may = _SHAPES[t]
        for name in need:
            if data.get(name) is None:
                raise ValidationError(Msg(f"A {t} event needs `{name}`.", f"{t} 事件必须有 `{name}`。"), name)
        for name in ("seat", "tile", "tiles", "from", "declined"):
            if name not in need and name not in may and data.get(name) is not None:
                raise ValidationError(Msg(f"A {t} event has no `{name}`.", f"{t} 事件没有 `{name}`。"), name)

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> Event:
        s, f = data.get("seat"), data.get("from")
        return Event(data["t"], None if s is None else SEAT_OF[s], data.get("tile"), tuple(data.get("tiles") or ()),
                     None if f is None else SEAT_OF[f],
                     tuple((SEAT_OF[d["seat"]], d["claim"]) for d in data.get("declined") or ()))


#: over MAX_DEAL a deal field is not read (422 wrong_tile_count, as a /v1/score hand of too many tiles)
TOO_MANY_DEALT = Msg(f"A seat is dealt 13 tiles, not more than {MAX_DEAL}.",
                     f"每家发 13 张牌，不能超过 {MAX_DEAL} 张。", "wrong_tile_count")


_KEYS = frozenset(("t", "seat", "tile", "tiles", "from", "declined"))
_DEAL_KEYS = frozenset(SEATS)
_ALLOWED = {t: frozenset(need + may) for t, (need, may) in _SHAPES.items()}
_DECLINED_KEYS = frozenset(("seat", "claim"))


def _fast_tiles(v: object) -> tuple[int, ...] | None:
    """A claim's ``tiles`` read plainly (a list or a compact string, within the cap), or None."""
    if not (type(v) is list and len(v) <= MAX_CONCEALED
            or type(v) is str and len(v) <= CHARS_PER_TILE * MAX_CONCEALED):
        return None
    problems: list[typing.Any] = []
    got = tile_indices(v, "", problems)
    return None if problems or len(got) > MAX_CONCEALED else tuple(got)


def _fast_declined(v: object) -> tuple[tuple[int, str], ...] | None:
    """``declined`` read plainly, or None."""
    if type(v) is not list or len(v) > 3:
        return None
    out = []
    for d in v:
        if type(d) is not dict or d.keys() != _DECLINED_KEYS:
            return None
        s, c = d["seat"], d["claim"]
        if type(s) is not str or s not in SEAT_OF or type(c) is not str or c not in DECLINED_CLAIMS:
            return None
        out.append((SEAT_OF[s], c))
    return tuple(out)


def _fast_tile(v: object) -> int | None:
    return tile_index(v, "", [])


def _fast_seat(v: object) -> int | None:
    return SEAT_OF.get(v) if type(v) is str else None


#: each member an event may have -> its plain reader (None: not plain)
_FAST_READERS: dict[str, Callable[[object], typing.Any]] = {
    "seat": _fast_seat, "from": _fast_seat, "tile": _fast_tile, "tiles": _fast_tiles, "declined": _fast_declined}


def _fast_event(e: object) -> Event | None:
    """An event that is well-formed in the plainest way (every member of its type, of the right
    type, nothing else, tiles as codes, names or a plain compact string) read directly as the
    schema would read it; None for anything else, which the schema then reads (and refuses with
    its messages).  The loop of :class:`Events`; tests/play/test_replay.py compares the two."""
    if type(e) is not dict or not e.keys() <= _KEYS:
        return None
    t = e.get("t")
    if type(t) is not str or t not in _ALLOWED:
        return None
    allowed = _ALLOWED[t]
    got: dict[str, typing.Any] = {}
    for key, v in e.items():
        if key == "t" or v is None:
            continue
        if key not in allowed:
            return None
        value = _FAST_READERS[key](v)
        if value is None:
            return None
        got[key] = value
    if any(key not in got for key in _SHAPES[t][0]):
        return None
    return Event(t, got.get("seat"), got.get("tile"), got.get("tiles", ()), got.get("from"), got.get("declined", ()))


#: The commonest events, read by one look-up: each type whose members are a seat and a tile and
#: nothing else (draw, flower, discard, concealed_kong, added_kong) with its seat a wind letter and
#: its tile a code, by (t, seat, tile) as the body writes them: 5 × 4 × 42 events, made once at
#: import (events are immutable, so every log shares them).  What the schema reads for each:
#: tests/play/test_replay.py.
_PLAIN_EVENTS: dict[tuple[str, str, str], Event] = {
    (t, w, code): Event(t, SEAT_OF[w], k, (), None, ())
    for t, (need, may) in _SHAPES.items() if need == ("seat", "tile") and not may
    for w in SEATS for k, code in enumerate(CODES)}


def _plain_event(e: object) -> Event | None:
    """An event of :data:`_PLAIN_EVENTS` (a dict of exactly ``t``, ``seat`` and ``tile``), or None."""
    if type(e) is not dict or len(e) != 3:
        return None
    try:
        return _PLAIN_EVENTS.get((e["t"], e["seat"], e["tile"]))
    except (KeyError, TypeError):     # another member, or a value that is no string (a list: unhashable)
        return None


class Events(List[Event]):
    """The log's events: each read by :func:`_plain_event` (a look-up) or :func:`_fast_event`
    (about a fifth of the schema's cost, which would be most of a replay's), or, when any is not
    plain, all by :class:`ReplayEventSchema` (so a bad event gets exactly the schema's problem)."""

    def _deserialize(self, value: typing.Any, attr: str | None, data: Mapping[str, typing.Any] | None,
                     **kwargs: typing.Any) -> list[Event | None]:
        if type(value) is list and len(value) <= MAX_EVENTS:
            out: list[Event | None] = []
            for item in value:
                ev = _plain_event(item) or _fast_event(item)      # an Event is a non-empty tuple
                if ev is None:
                    break
                out.append(ev)
            else:
                return out
        return super()._deserialize(value, attr, data, **kwargs)


def _deal_field(wind: str) -> Tiles:
    return Tiles(required=True, max_items=MAX_DEAL, over=TOO_MANY_DEALT, metadata={
        "description": f"{wind}'s 13 dealt tiles, flowers included."})


class DealSchema(StrictSchema):
    """Each seat's 13 dealt tiles (the dealer's 14th is its first `draw`)."""

    E = _deal_field("E")
    S = _deal_field("S")
    W = _deal_field("W")
    N = _deal_field("N")

    @pre_load
    def _seat_names(self, data: typing.Any, **kwargs: typing.Any) -> typing.Any:
        """Keys 东, 南, 西, 北 (東) read as E, S, W, N; a near miss (``e``, ``East``) gets a "did you
        mean" instead of "Unknown field"."""
        if type(data) is not dict or data.keys() <= _DEAL_KEYS:
            return data
        out: dict[str, typing.Any] = {}
        wrong: dict[str, list[Msg]] = {}
        for key, value in data.items():
            if isinstance(key, str) and key in SEAT_OF and key not in _DEAL_KEYS:
                seat = SEATS[SEAT_OF[key]]
                if seat in data or seat in out:
                    wrong[key] = [Msg(f"{seat}'s deal is given twice (as {seat} and {key}).",
                                      f"{seat}（{key}）的牌给了两次。")]
                out[seat] = value
            elif isinstance(key, str) and key not in _DEAL_KEYS and near_seat(key) is not None:
                wrong[key] = [_seat_message(key)]
            else:
                out[key] = value
        if wrong:
            raise ValidationError(wrong)
        return out


class ReplayRequestSchema(StrictSchema):
    """The body of `POST /v1/replay`: one hand's log."""

    log_version = optional(Integer, validate=OneOf(LOG_VERSIONS), metadata={
        "description": "The log format: 1.", "default": 1})
    rules = PresetOrObject(PRESET_IDS, RulesObjectSchema(), rules_of, required=False, allow_none=True,
                           metadata={"description": "A preset id or an object, as in `/v1/score`; default `ningbo`."})
    round_wind = seat_field(required=True, metadata={"description": "The round wind."})
    base_points = optional(Integer, validate=Range(min=1, max=MAX_BASE_POINTS),
                           metadata={"description": "对局分, as in `/v1/score`.", "default": 1})
    caishen = optional(Nested, CaishenSchema, metadata={
        "description": "As in `/v1/score`: the indicator (out of play, one copy) or the kinds; omitted: none."})
    live_tiles = optional(Integer, validate=Range(min=0, max=MAX_LIVE_TILES), metadata={
        "description": "How many tiles may be drawn after the deal, replacements included.",
        "default": DEFAULT_LIVE_TILES})
    dealers_this_round = optional(Integer, validate=Range(min=1, max=4), metadata={
        "description": "For the answer's `next` (as in `/v1/table/next`, positions 0-3 being this hand's E, S, "
                       "W, N): how many players have dealt in this round, this hand's dealer included.",
        "default": 1})
    deal = Nested(DealSchema, required=True)
    events = Events(Nested(ReplayEventSchema), required=True, max_items=MAX_EVENTS, metadata={
        "description": f"The events in play order, at most {MAX_EVENTS}; the last is `win` or `exhaustive_draw`."})

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> ReplayLog:
        caishen = data.get("caishen") or {}
        kinds = caishen.get("kinds")
        live = data.get("live_tiles")
        deal = data["deal"]
        return ReplayLog(data.get("rules") or DEFAULT_RULES, SEAT_OF[data["round_wind"]], data.get("base_points"),
                         caishen.get("indicator"), None if kinds is None else tuple(kinds),
                         DEFAULT_LIVE_TILES if live is None else live,
                         tuple(tuple(deal[w]) for w in SEATS), tuple(data["events"]),
                         data.get("dealers_this_round") or 1)


class ReplayBatchRequestSchema(StrictSchema):
    """The body of `POST /v1/replay/batch`: up to 50 logs, each checked on its own."""

    logs = Each(ReplayRequestSchema(), max_items=MAX_LOGS, required=True, metadata={
        "description": f"Each a `POST /v1/replay` body, checked on its own: a bad one gets its own problem in "
                       f"`results`. More than {MAX_LOGS}: 400 `invalid_request`, before any log is read."})

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> ReplayBatchInput:
        return ReplayBatchInput(data["logs"])


REPLAY_REQUEST = ReplayRequestSchema()
REPLAY_BATCH_REQUEST = ReplayBatchRequestSchema()


@dataclass(frozen=True, slots=True)
class ActionsInput:
    """A loaded ``POST /v1/table/actions`` body: the log (stopping anywhere) and the seat asking
    (None: every seat)."""
    log: ReplayLog
    seat: int | None


class ActionsRequestSchema(ReplayRequestSchema):
    """The body of `POST /v1/table/actions`: a `/v1/replay` body whose events stop anywhere, and
    optionally the seat whose actions are asked for."""

    events = Events(Nested(ReplayEventSchema), required=True, max_items=MAX_EVENTS, metadata={
        "description": f"The events so far in play order, at most {MAX_EVENTS}: a prefix of a hand's log "
                       "(possibly empty)."})
    for_ = seat_field(data_key="for", attribute="for", required=False, allow_none=True, metadata={
        "description": "List only this seat's actions (default: every seat's)."})

    @post_load
    def _typed(self, data: dict[str, typing.Any], **kwargs: typing.Any) -> ActionsInput:
        f = data.get("for")
        return ActionsInput(ReplayRequestSchema._typed(self, data), None if f is None else SEAT_OF[f])


ACTIONS_REQUEST = ActionsRequestSchema()
