"""This hand plus tile ``k``: what `/v1/waits` and `/v1/analyze` share, written once.

Which kinds a draw may bring (:func:`candidates`), how many copies of each its owner has not
seen (:func:`unseen`, from :meth:`Held.seen <ningbo_score.hand.Held.seen>` and the set's copy
limits, :data:`~ningbo_score.tiles.COPIES`), the seat a discard comes from (:func:`discarder`),
and what a tile is worth by self-draw and by discard (:func:`wins_on`): the winning hands
:func:`~ningbo_score.hand.complete` makes, checked and valued by the scorer
(:func:`ningbo_score.engine.value`), which stops at the value: no payments, no answer.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from .engine import Valuation, readings_of, value
from .errors import ScoreError
from .hand import Checked, Hand, Held, WaitingHand, check, complete
from .tiles import COPIES, FLOWER0, N_KINDS, upper

if TYPE_CHECKING:
    from .engine import Readings

#: the decomposition memo the valuations of one hand share (ningbo_score.decompose: opaque here)
Memo: TypeAlias = dict[Any, Any]
#: a way of winning on a tile: what it is worth, or the refusal (a ScoreError with every problem)
Outcome: TypeAlias = "Valuation | ScoreError"


def candidates(h: Held) -> list[int]:
    """The kinds a draw may bring into the concealed hand: every non-flower kind, and the flowers
    that are caishen this hand."""
    return list(range(N_KINDS)) + sorted(k for k in h.caishen_kinds if k >= FLOWER0)


def unseen(seen: list[int], k: int) -> int:
    """The copies of kind ``k`` left to draw when ``seen`` (by kind) are seen."""
    return COPIES[k] - seen[k]


def discarder(h: WaitingHand) -> int:
    """The seat the discard values assume: `win.from`, by default the player's 上家."""
    return h.discarder if h.discarder is not None else upper(h.seat)


def wins_on(base: WaitingHand, k: int, discard_from: int, memo: Memo, lang: str) -> tuple[Outcome, Outcome] | None:
    """``(self_draw, discard)``: what the waiting hand ``base`` completed by a tile of kind ``k``
    is worth each way (from ``discard_from``), or the refusal; None when ``k`` completes nothing
    (the tiles make no 4 sets and a pair)."""
    try:
        drawn = check(complete(base, k, "self_draw", None))
    except ScoreError as refused:       # (check_waiting passed on base: not expected) refused both ways
        return refused, _outcome(complete(base, k, "discard", discard_from), memo, lang, None)
    readings = readings_of(drawn, memo)
    if not readings:
        return None
    return (_outcome_of(drawn, memo, lang, readings),
            _outcome(complete(base, k, "discard", discard_from), memo, lang, readings))


def _outcome(hand: Hand, memo: Memo, lang: str, readings: Readings | None) -> Outcome:
    try:
        return _outcome_of(check(hand), memo, lang, readings)
    except ScoreError as refused:
        return refused


def _outcome_of(checked: Checked, memo: Memo, lang: str, readings: Readings | None) -> Outcome:
    try:
        return value(checked, memo, lang, readings)
    except ScoreError as refused:
        return refused
