"""The facts a replayed hand establishes, typed before they become JSON (ningbo_score.replay).

:class:`MeldRecord` is one meld of a seat as the log made it; :class:`DerivedWin` is what the log
decides about a win (``win.by``/``from``, the flags, the claims from the winner, the melds, and
the events that decided each: the answer's ``evidence``); :class:`Replayed` is the whole result,
which ``POST /v1/replay``'s answer and a session's replay hand both read.  Only tiles and seats
are imported here, so any module may read these records without an import circle.
"""
from __future__ import annotations

import typing
from dataclasses import dataclass, replace

from .tiles import CODES, SEATS

if typing.TYPE_CHECKING:
    from collections.abc import Mapping

#: the events that decided a derived field: one event's index, or several
Evidence: typing.TypeAlias = int | tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MeldRecord:
    """One meld: its type, tiles (sorted indices), the seat it was claimed from (None: concealed
    kong), whether it is concealed or an added kong, and the events that made it."""
    kind: str
    tiles: tuple[int, ...]
    from_seat: int | None
    concealed: bool
    added: bool
    made: tuple[int, ...]

    def added_to(self, tile: int, event: int) -> MeldRecord:
        """This pung made an added kong (加杠) by ``tile`` at ``event``."""
        return replace(self, kind="kong", tiles=tuple(sorted((*self.tiles, tile))), added=True,
                       made=(*self.made, event))

    def to_json(self) -> dict[str, typing.Any]:
        """The meld as a ``/v1/score`` body gives it."""
        out: dict[str, typing.Any] = {"type": self.kind, "tiles": [CODES[t] for t in self.tiles]}
        if self.from_seat is not None:
            out["from"] = SEATS[self.from_seat]
        if self.concealed:
            out["concealed"] = True
        if self.added:
            out["added"] = True
        return out


@dataclass(frozen=True, slots=True)
class DerivedWin:
    """What a log decides about its win (docs/api.md, "Derived"), with the events that decided it."""
    seat: int
    by: str                                 # self_draw | discard | robbing_kong
    from_seat: int | None                   # the discarder or the robbed seat
    winning_tile: int
    concealed: tuple[int, ...]              # the winner's concealed tiles, the winning tile included
    melds: tuple[MeldRecord, ...]
    flowers: tuple[int, ...]
    by_event: int                           # the winning draw, discard or added kong
    kong_replacement_event: int | None      # the kong or flower in play the winning draw replaced
    kong_fed_by: int | None                 # the seat whose discard that chain's kong claimed
    kong_fed_by_event: int | None
    last_tile: bool
    heavenly: bool
    earthly: bool
    caishen_discards: tuple[int, ...]       # the winner's discards of a caishen
    #: (seat, the events of the melds it claimed from the winner's discards), counted as §7 counts
    claims: tuple[tuple[int, tuple[int, ...]], ...]

    @property
    def kong_replacement(self) -> bool:
        return self.kong_replacement_event is not None

    @property
    def discarded_caishen(self) -> bool:
        return bool(self.caishen_discards)

    def win_json(self) -> dict[str, typing.Any]:
        """The ``win`` of the ``/v1/score`` body: ``by``, ``from`` and the flags that are set."""
        out: dict[str, typing.Any] = {"by": self.by}
        if self.from_seat is not None:
            out["from"] = SEATS[self.from_seat]
        flags: tuple[tuple[str, typing.Any], ...] = (
            ("kong_replacement", self.kong_replacement),
            ("kong_fed_by", None if self.kong_fed_by is None else SEATS[self.kong_fed_by]),
            ("last_tile", self.last_tile), ("heavenly", self.heavenly), ("earthly", self.earthly),
            ("discarded_caishen", self.discarded_caishen))
        out.update((k, v) for k, v in flags if v)
        return out

    def hand_json(self) -> dict[str, typing.Any]:
        """The ``hand`` of the ``/v1/score`` body."""
        out: dict[str, typing.Any] = {"concealed": [CODES[t] for t in self.concealed],
                                      "winning_tile": CODES[self.winning_tile]}
        if self.melds:
            out["melds"] = [m.to_json() for m in self.melds]
        if self.flowers:
            out["flowers"] = [CODES[f] for f in self.flowers]
        return out

    def claims_json(self) -> dict[str, int]:
        """``claims_from_winner``: the seats above 0."""
        return {SEATS[s]: len(made) for s, made in self.claims}

    def evidence(self) -> dict[str, Evidence]:
        """For each derived field that is not its default, the events that decided it."""
        out: dict[str, Evidence] = {"win.by": self.by_event}
        entries: tuple[tuple[str, bool, Evidence | None], ...] = (
            ("win.from", self.from_seat is not None, self.by_event),
            ("win.kong_replacement", self.kong_replacement, self.kong_replacement_event),
            ("win.kong_fed_by", self.kong_fed_by is not None, self.kong_fed_by_event),
            ("win.last_tile", self.last_tile, self.by_event), ("win.heavenly", self.heavenly, self.by_event),
            ("win.earthly", self.earthly, self.by_event),
            ("win.discarded_caishen", self.discarded_caishen, self.caishen_discards))
        out.update((k, typing.cast(Evidence, v)) for k, on, v in entries if on)
        out.update((f"hand.melds.{n}", m.made) for n, m in enumerate(self.melds))
        out.update((f"claims_from_winner.{SEATS[s]}", made) for s, made in self.claims)
        return out


def evidence_json(evidence: Mapping[str, Evidence]) -> dict[str, typing.Any]:
    """The answer's ``evidence``: several events as a list."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in evidence.items()}


@dataclass(frozen=True, slots=True)
class Replayed:
    """A replayed hand: how it ended, its win (None for an exhaustive draw), the ``/v1/score``
    body derived and its answer, and the ``/v1/table/next`` answer."""
    outcome: str                                   # win | draw
    events: int
    win: DerivedWin | None
    score_request: dict[str, typing.Any] | None
    score: dict[str, typing.Any] | None
    next: dict[str, typing.Any]

    def answer(self) -> dict[str, typing.Any]:
        """The 200 body of ``POST /v1/replay``."""
        out: dict[str, typing.Any] = {"outcome": self.outcome, "events": self.events}
        if self.win is not None:
            out.update(winner=SEATS[self.win.seat], score_request=self.score_request, score=self.score,
                       evidence=evidence_json(self.win.evidence()))
        else:
            out["evidence"] = {}
        out["next"] = self.next
        return out
