"""Waits (听牌): every tile that completes a hand, with what it is worth by self-draw and by discard."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from .completion import Memo, Outcome, candidates, discarder, unseen, wins_on
from .engine import answer
from .errors import ScoreError
from .hand import WaitingHand, check_waiting
from .tiles import CODES, N_KINDS, SEATS

#: a `/v1/score` body (:func:`~ningbo_score.engine.answer`) or a problem object (a JSON object)
Body: TypeAlias = dict[str, Any]

#: a wait value's ``outcome``: what tells a score from a problem (the problem also has a ``code``)
SCORED, REFUSED = "scored", "refused"


def _body(outcome: Outcome, lang: str) -> Body:
    """A way of winning as `/v1/score` answers it: its body, or the problem object refusing it,
    with its ``outcome``."""
    if isinstance(outcome, ScoreError):
        return {**outcome.to_problem(lang), "outcome": REFUSED}
    return {**answer(outcome), "outcome": SCORED}


def _signature(result: Body) -> tuple[object, ...]:
    if "code" in result:
        return ("problem", result["code"])
    items = tuple(sorted((i["id"], i["tai"]) for i in result["items"]))
    return (result["tai"], result["counted_tai"], result["eligible"], result["points"], items,
            tuple(sorted(result["net"].items())))


def group_same(found: list[Body], signature: Callable[[Body], tuple[object, ...]]) -> list[Body]:
    """The waits ``found`` with equal outcomes (``signature`` of ``self_draw`` and of ``discard``)
    once each, in the order of their first tile: that entry's tiles under ``same_for``, their
    ``unseen`` summed in ``unseen_total``."""
    groups: dict[tuple[tuple[object, ...], tuple[object, ...]], Body] = {}
    for w in found:
        sig = (signature(w["self_draw"]), signature(w["discard"]))
        if sig in groups:
            groups[sig]["same_for"].append(w["tile"])
            groups[sig]["unseen_total"] += w["unseen"]
        else:
            groups[sig] = {**w, "same_for": [w["tile"]], "unseen_total": w["unseen"]}
    return list(groups.values())


def waits(base: WaitingHand, lang: str = "en", before_each: Callable[[], None] | None = None) -> Body:
    """The body of ``POST /v1/waits`` for its loaded hand (the hand before its winning tile).

    Every kind that completes the hand (and has a copy left to draw), each with the `/v1/score`
    body for a self-draw and for a discard (from `win.from`, by default the winner's 上家), or the
    problem object that refuses that win.  When every kind completes the hand (caishen in hand),
    ``any_tile`` is true and tiles with the same outcome are listed once, under ``same_for``.
    ``before_each()``, when given, is called before each wait is valued (a server lets its other
    work run there, as between a batch's hands).
    """
    check_waiting(base)
    discard_from = discarder(base)
    seen = base.seen()
    memo: Memo = {}
    found: list[Body] = []
    drawable = 0
    for k in candidates(base):
        left = unseen(seen, k)
        if left <= 0:
            continue
        drawable += k < N_KINDS
        if before_each is not None:
            before_each()
        outcomes = wins_on(base, k, discard_from, memo, lang)
        if outcomes is None:
            continue
        found.append({"tile": CODES[k], "unseen": left, "self_draw": _body(outcomes[0], lang),
                      "discard": _body(outcomes[1], lang)})
    any_tile = drawable > 0 and sum(1 for w in found if CODES.index(w["tile"]) < N_KINDS) == drawable
    return {
        "any_tile": any_tile,
        "tiles": [w["tile"] for w in found],
        "unseen_total": sum(w["unseen"] for w in found),
        "discard_from": SEATS[discard_from],
        "waits": group_same(found, _signature) if any_tile else found,
    }
