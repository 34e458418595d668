"""Waits (听牌): every tile that completes a hand, with what it is worth by self-draw and by discard."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeAlias

from .engine import score_hand
from .errors import ScoreError
from .hand import Hand, check
from .tiles import CODES, FLOWER0, N_KINDS, SEATS

#: a `/v1/score` body (:func:`~ningbo_score.engine.score_hand`) or a problem object (a JSON object)
Body: TypeAlias = dict[str, Any]
#: the decomposition memo the scorings of one hand share (ningbo_score.decompose: opaque here)
Memo: TypeAlias = dict[Any, Any]


def copies_of(k: int) -> int:
    """How many tiles of kind k the set holds: 4, or 1 of a flower."""
    return 1 if k >= FLOWER0 else 4


def seen_counts(h: Hand) -> list[int]:
    """Copies of each kind (all 42) the hand's owner sees: in its concealed tiles, melds, flowers
    and the indicator."""
    seen = [0] * len(CODES)
    for tiles in (h.concealed, h.flowers, *(m.tiles for m in h.melds)):
        for k in tiles:
            seen[k] += 1
    if h.indicator is not None:
        seen[h.indicator] += 1
    return seen


def candidates(h: Hand) -> list[int]:
    """The kinds a draw may bring into the concealed hand: every non-flower kind, and the flowers
    that are caishen this hand."""
    return list(range(N_KINDS)) + sorted(k for k in h.caishen_kinds if k >= FLOWER0)


def discarder(h: Hand) -> int:
    """The seat the discard values assume: `win.from`, by default the player's 上家."""
    return h.win_from if h.win_from is not None else (h.seat + 3) % 4


#: a wait value's ``outcome``: what tells a score from a problem (the problem also has a ``code``)
SCORED, REFUSED = "scored", "refused"


def _result(h: Hand, memo: Memo, lang: str) -> Body:
    try:
        check(h)
        return {**score_hand(h, memo, lang), "outcome": SCORED}
    except ScoreError as e:
        return {**e.to_problem(lang), "outcome": REFUSED}


def _signature(result: Body) -> tuple[object, ...]:
    if "code" in result:
        return ("problem", result["code"])
    items = tuple(sorted((i["id"], i["tai"]) for i in result["items"]))
    return (result["tai"], result["counted_tai"], result["eligible"], result["points"], items,
            tuple(sorted(result["net"].items())))


def wait_values(base: Hand, k: int, discard_from: int, memo: Memo, lang: str) -> tuple[Body, Body] | None:
    """``(self_draw, discard)``: the `/v1/score` body, or the problem that refuses that win, of
    the waiting hand ``base`` completed by a tile of kind ``k``; None if that tile completes nothing."""
    hand = replace(base, concealed=base.concealed + [k], winning=k, by="self_draw", win_from=None)
    self_draw = _result(hand, memo, lang)
    if self_draw.get("code") == "not_a_winning_hand":
        return None
    return self_draw, _result(replace(hand, by="discard", win_from=discard_from), memo, lang)


def waits(base: Hand, lang: str = "en") -> Body:
    """The body of ``POST /v1/waits`` for its loaded hand (the hand before its winning tile).

    Every kind that completes the hand (and has a copy left to draw), each with the `/v1/score`
    body for a self-draw and for a discard (from `win.from`, by default the winner's 上家), or the
    problem object that refuses that win.  When every kind completes the hand (caishen in hand),
    ``any_tile`` is true and tiles with the same outcome are listed once, under ``same_for``.
    """
    check(base, waiting=True)
    discard_from = discarder(base)
    seen = seen_counts(base)
    memo: Memo = {}
    found: list[Body] = []
    drawable = 0
    for k in candidates(base):
        unseen = copies_of(k) - seen[k]
        if unseen <= 0:
            continue
        drawable += k < N_KINDS
        values = wait_values(base, k, discard_from, memo, lang)
        if values is None:
            continue
        found.append({"tile": CODES[k], "unseen": unseen, "self_draw": values[0], "discard": values[1]})
    any_tile = drawable > 0 and sum(1 for w in found if CODES.index(w["tile"]) < N_KINDS) == drawable
    out_waits = found
    if any_tile:
        groups: dict[tuple[tuple[object, ...], tuple[object, ...]], Body] = {}
        for w in found:
            sig = (_signature(w["self_draw"]), _signature(w["discard"]))
            if sig in groups:
                groups[sig]["same_for"].append(w["tile"])
                groups[sig]["unseen_total"] += w["unseen"]
            else:
                groups[sig] = {**w, "same_for": [w["tile"]], "unseen_total": w["unseen"]}
        out_waits = list(groups.values())
    return {
        "any_tile": any_tile,
        "tiles": [w["tile"] for w in found],
        "unseen_total": sum(w["unseen"] for w in found),
        "discard_from": SEATS[discard_from],
        "waits": out_waits,
    }
