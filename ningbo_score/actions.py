"""The referee (``POST /v1/table/actions``, docs/api.md): what each seat may do now.

A ``/v1/replay`` body whose log stops anywhere comes in; the answer lists every event that
``/v1/replay`` would accept as the log's next event.  No play rule is written here: the prefix is
folded by ningbo_score.replay's own :class:`~ningbo_score.replay.Table` (a prefix that breaks a
rule is refused there, with the ``/v1/replay`` 422 at that event, and costs no more than the
events up to it), then a bounded set of *candidate* events is made (each seat × each event type ×
each kind it holds, each chow, pung and kong of the last discard, a draw, the exhaustive draw, a
win) and each is tried with :meth:`Table.try_next` (replay's own checks, on a copy of the state):
exactly those it accepts are listed.  So the menu is exact both ways by construction: a rule that
replay's checks change changes the menu with them.

A ``win`` is listed where replay accepts it, so where it scores a win (rule book 4: a declared
win under the minimum is ``below_minimum``), with its value; ``priority`` marks the claims of a
discard or of a robbable added kong (docs/rules.md §8: win 1, pung/kong 2, chow 3, the draw of the
seat whose turn it is if nobody claims 4).

*Interpretation* (the contract is silent): a `draw` is listed where a draw of some tile still in
the wall would be accepted (the wall decides which); the `exhaustive_draw` carries priority 4,
like the draw it stands for; in the phase `ended` `turn` is ``null``; for a seat (``for``) the
other seats' concealed kongs are listed without their tiles (they are face down: no tile of
another seat's hand is named).
"""
from __future__ import annotations

import typing

from .readers.fields import load
from .replay import ACT, DISCARDED, ENDED, MUST_DISCARD, REPLACEMENT, ROB, START, Refused, Table
from .readers.replay_requests import ACTIONS_REQUEST, ActionsInput, Event
from .table import _CLAIM_RANK
from .tiles import CODES, FLOWER0, SEATS, is_suited

if typing.TYPE_CHECKING:
    from collections.abc import Mapping

    from .answers import ActionsAnswer
    from .replay_facts import DerivedWin

__all__ = ["actions", "actions_loaded", "candidates", "PHASES", "ACTION_TYPES"]

#: the answer's phases (docs/api.md)
PHASES = ("turn", "replacement", "claims", "draw", "opening", "ended")
#: the sort order of the actions' ``t`` (docs/api.md)
ACTION_TYPES = ("win", "kong", "pung", "chow", "concealed_kong", "added_kong", "flower", "discard", "draw",
                "exhaustive_draw")
_ORDER = {t: n for n, t in enumerate(ACTION_TYPES)}
#: docs/rules.md §8, by the rank /v1/table/claims decides with (1 takes the discard); the draw (or
#: the exhaustive draw) taken when nobody claims, after them
PRIORITY = {**{t: rank + 1 for t, rank in _CLAIM_RANK.items()}, "draw": 4, "exhaustive_draw": 4}
_N_KINDS = len(CODES)
_OWN_TILE = ("concealed_kong", "added_kong", "flower", "discard")


def _phase(table: Table) -> tuple[str, int | None]:
    """The answer's ``phase`` and ``turn`` from the replay's state."""
    phase, actor = table.phase, table.actor
    if phase == ENDED:
        return "ended", None
    if phase == START:
        return "draw", 0
    if table.opening is not None:     # the dealer's first turn: the flowers of the deal are replaced (§11.2)
        return "opening", actor
    if phase in (ACT, MUST_DISCARD):
        return "turn", actor
    if phase == REPLACEMENT:
        return "replacement", actor
    if phase == ROB:
        return "claims", actor
    assert phase == DISCARDED, phase
    return "claims", (actor + 1) % 4


def _own(t: str, s: int, kinds: list[int]) -> typing.Iterator[Event]:
    """The events of type ``t`` of seat ``s`` naming each of ``kinds``, made as they are tried."""
    return (Event(t, s, k, (), None, ()) for k in kinds)


def candidates(table: Table) -> typing.Iterator[tuple[int | None, str, typing.Iterable[Event]]]:
    """The bounded set of events tried as the next one, by seat and type (each group's events
    made as they are tried): each seat's draw (of a kind the wall still has), win, and
    discard/flower/concealed kong/added kong of each kind it holds, as many of it as the event
    takes from the hand (four for a concealed kong), a flower only of a flower kind (an event that
    names another tile is no flower event: replay refuses it ``not_a_flower`` in every state), an
    added kong only by a seat with an exposed pung to add to; each chow, pung and kong of the last
    discard whose other tiles the seat holds (replay's own
    :meth:`~ningbo_score.replay.SeatState.holds`: any other is refused ``tile_not_held``); the
    exhaustive draw.  A superset of what may be legal: replay's checks decide
    (:func:`actions_loaded`); the brute force of tests/play/test_actions.py still tries every kind,
    held or not, for every seat."""
    seen, log = table.seen, table.log
    left = next((k for k in range(_N_KINDS) if seen[k] < (1 if k >= FLOWER0 else 4)), None)
    last = table.last_discard
    d = None if last is None else last[1]
    chows: list[tuple[tuple[int, ...], list[int]]] = []     # each chow of the discard, and what it takes
    if d is not None and is_suited(d):
        chows = [((lo, lo + 1, lo + 2), [k for k in (lo, lo + 1, lo + 2) if k != d])
                 for lo in range(max(d - 2, d - d % 9), min(d, d - d % 9 + 6) + 1)]
    for s, st in enumerate(table.seats):
        if left is not None:
            yield s, "draw", (Event("draw", s, left, (), None, ()),)
        yield s, "win", (Event("win", s, None, (), None, ()),)
        held = st.held
        kinds = [k for k, c in enumerate(held) if c]
        if kinds:
            fours = [k for k in kinds if held[k] >= 4]
            if fours:
                yield s, "concealed_kong", _own("concealed_kong", s, fours)
            if any(m.kind == "pung" for m in st.melds):
                yield s, "added_kong", _own("added_kong", s, kinds)
            if kinds[-1] >= FLOWER0:
                yield s, "flower", _own("flower", s, [k for k in kinds if k >= FLOWER0])
            yield s, "discard", _own("discard", s, kinds)
        if d is not None:
            if st.holds((d, d)):
                yield s, "pung", (Event("pung", s, None, (d,) * 3, None, ()),)
            if st.holds((d, d, d)):
                yield s, "kong", (Event("kong", s, None, (d,) * 4, None, ()),)
            mine = [Event("chow", s, None, tiles, None, ()) for tiles, own in chows if st.holds(own)]
            if mine:
                yield s, "chow", mine
    if table.draws >= log.live_tiles:
        yield None, "exhaustive_draw", (Event("exhaustive_draw", None, None, (), None, ()),)


def _action(ev: Event, after: Table, claims: bool) -> dict[str, typing.Any]:
    out: dict[str, typing.Any] = {"t": ev.t} if ev.seat is None else {"seat": SEATS[ev.seat], "t": ev.t}
    if ev.t in _OWN_TILE:
        out["tile"] = CODES[typing.cast(int, ev.tile)]
    elif ev.tiles:
        out["tiles"] = [CODES[t] for t in ev.tiles]
    if claims:
        out["priority"] = PRIORITY[ev.t]
    if ev.t == "win":
        scored = typing.cast("dict[str, typing.Any]", after.scored)
        out["score"] = {"tai": scored["tai"], "counted_tai": scored["counted_tai"], "eligible": scored["eligible"],
                        "points": scored["points"], "by": typing.cast("DerivedWin", after.win).by}
    return out


def _state(table: Table, seat: int | None) -> dict[str, typing.Any]:
    """Replay's own ``state`` (live tiles, tiles per seat, the last discard) and what is on the
    table: each seat's melds and flowers (another seat's concealed kong without its tiles when
    the answer is for ``seat``)."""
    state = table.state()
    melds: dict[str, list[dict[str, typing.Any]]] = {}
    flowers: dict[str, list[str]] = {}
    for s, st in enumerate(table.seats):
        if st.melds:
            shown = []
            for meld in st.melds:
                m = meld.to_json()             # as a /v1/score body gives it
                if meld.concealed and seat is not None and seat != s:
                    del m["tiles"]             # face down: no tile of another seat's hand
                shown.append(m)
            melds[SEATS[s]] = shown
        if st.flowers:
            flowers[SEATS[s]] = [CODES[f] for f in st.flowers]
    return {"live_tiles": state["live_tiles"], "tiles": state["tiles"], "melds": melds, "flowers": flowers,
            "last_discard": state["last_discard"]}


#: the reasons of replay.REASONS that do not depend on the event's tiles: the turn's, checked
#: before any tile, and a chow by another seat than the discarder's next (checked of every chow
#: that holds its tiles; one that does not is refused before).  A candidate refused for one of
#: them is refused for every tile, so the other tiles of its seat and type are not tried
#: (tests/play/test_actions.py's brute force tries them all)
TURN_REASONS = frozenset(("event_after_end", "out_of_turn", "no_discard_to_claim", "missing_replacement_draw",
                          "chow_not_from_upper_seat"))


def actions_loaded(loaded: ActionsInput, lang: str = "en") -> ActionsAnswer:
    """The answer for a loaded request (:data:`~ningbo_score.readers.replay_requests.ACTIONS_REQUEST`)."""
    table = Table(loaded.log, lang)
    table.fold()                      # the /v1/replay 422 at the first illegal event
    phase, turn = _phase(table)
    claims = phase == "claims"
    found: list[tuple[tuple[int, ...], dict[str, typing.Any]]] = []
    start = 0 if turn is None else turn
    for seat, kind, events in candidates(table):
        if loaded.seat is not None and seat != loaded.seat and not (seat is None and loaded.seat == turn):
            continue                  # for a seat: its own actions (the exhaustive draw: the seat that would draw)
        for ev in events:
            try:
                after = table.try_next(ev)
            except Refused as refused:
                if refused.args[0] in TURN_REASONS:
                    break             # and so every other event of this seat and type
                continue
            order = (4 if seat is None else (seat - start) % 4, _ORDER[kind],
                     *((ev.tile,) if ev.tile is not None and kind != "draw" else ev.tiles))
            found.append((order, _action(ev, after, claims)))
    found.sort(key=lambda f: f[0])
    answer = {"events": len(loaded.log.events), "phase": phase, "turn": None if turn is None else SEATS[turn],
              "state": _state(table, loaded.seat), "actions": [a for _, a in found]}
    return typing.cast("ActionsAnswer", answer)


def actions(body: Mapping[str, object] | ActionsInput, lang: str = "en") -> ActionsAnswer:
    """What each seat may do now: the body of ``POST /v1/table/actions`` (a ``/v1/replay`` body
    whose ``events`` stop anywhere, optionally ``for`` a seat) in, its 200 body out; ``lang``
    ("en" or "zh") is the language of a refusal's messages."""
    loaded: ActionsInput = body if isinstance(body, ActionsInput) else load(ACTIONS_REQUEST, body)
    return actions_loaded(loaded, lang)
