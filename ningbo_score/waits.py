"""Waits (听牌): every tile that completes a hand, with what it is worth by self-draw and by discard."""
from __future__ import annotations

from dataclasses import replace

from .engine import score_hand
from .errors import ScoreError
from .hand import Hand, check
from .tiles import CODES, FLOWER0, N_KINDS, SEATS


def _unseen(h: Hand, k: int) -> int:
    """Copies of kind k the hand's owner has not seen: not in its concealed tiles, melds, flowers
    or the indicator."""
    seen = h.concealed.count(k) + sum(m.tiles.count(k) for m in h.melds) + h.flowers.count(k) \
        + (h.indicator == k)
    return (1 if k >= FLOWER0 else 4) - seen


def _result(h: Hand, memo: dict, lang: str) -> dict:
    try:
        check(h)
        return score_hand(h, memo, lang)
    except ScoreError as e:
        return e.to_problem(lang)


def _signature(result: dict):
    if "code" in result:
        return ("problem", result["code"])
    items = tuple(sorted((i["id"], i["tai"]) for i in result["items"]))
    return (result["tai"], result["counted_tai"], result["eligible"], result["points"], items,
            tuple(sorted(result["net"].items())))


def waits(base: Hand, lang: str = "en") -> dict:
    """The body of ``POST /v1/waits`` for its loaded hand (the hand before its winning tile).

    Every kind that completes the hand (and has a copy left to draw), each with the `/v1/score`
    body for a self-draw and for a discard (from `win.from`, by default the winner's 上家), or the
    problem object that refuses that win.  When every kind completes the hand (caishen in hand),
    ``any_tile`` is true and tiles with the same outcome are listed once, under ``same_for``.
    """
    check(base, waiting=True)
    discarder = base.win_from if base.win_from is not None else (base.seat + 3) % 4
    memo: dict = {}
    candidates = list(range(N_KINDS)) + sorted(k for k in base.caishen_kinds if k >= FLOWER0)
    found = []
    drawable = 0
    for k in candidates:
        unseen = _unseen(base, k)
        if unseen <= 0:
            continue
        drawable += k < N_KINDS
        hand = replace(base, concealed=base.concealed + [k], winning=k, by="self_draw", win_from=None)
        self_draw = _result(hand, memo, lang)
        if self_draw.get("code") == "not_a_winning_hand":
            continue
        discard = _result(replace(hand, by="discard", win_from=discarder), memo, lang)
        found.append({"tile": CODES[k], "unseen": unseen, "self_draw": self_draw, "discard": discard})
    any_tile = drawable > 0 and sum(1 for w in found if CODES.index(w["tile"]) < N_KINDS) == drawable
    out_waits = found
    if any_tile:
        groups: dict = {}
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
        "discard_from": SEATS[discarder],
        "waits": out_waits,
    }
