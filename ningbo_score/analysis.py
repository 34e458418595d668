"""Hand analysis (牌理): how far a hand is from winning, which tiles bring it closer, what each
discard leaves, and at tenpai what each wait is worth (``POST /v1/analyze``, docs/api.md).

The body is a `/v1/waits` body (read by the same schema, ningbo_score.requests.AnalyzeRequestSchema
extending WaitsRequestSchema, and checked by the same :func:`~ningbo_score.hand.check`, so bad
input gets the same problems) whose hand holds 13 − 3m concealed tiles (waiting to draw) or
14 − 3m (it has drawn and must discard), plus ``visible``: tiles seen elsewhere, which only
lower the ``unseen`` counts.

Shanten and improving tiles come from :mod:`ningbo_score.shanten` (exact, caishen included,
copy limits ignored); the waits' values from :mod:`ningbo_score.waits`, the code behind
``POST /v1/waits``.  The work of a request is bounded: at most 14 discards, each with one
shanten table pass over its 34 draws, and at tenpai one ``/v1/waits`` valuation per wait (at
most 42 kinds, two scorings each), all sharing one decomposition memo.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import Problem, ScoreError
from .hand import Hand, check
from .shanten import draw_shanten, shanten
from .tiles import CODES, N_KINDS, SEATS
from .waits import Body, Memo, candidates, copies_of, discarder, seen_counts, wait_values

#: What a wait's value keeps of a `/v1/score` body (a refused win keeps its whole problem object).
VALUE_FIELDS = ("tai", "counted_tai", "eligible", "points", "reasons", "outcome")
#: The tiles of the set (every copy of every kind, the flowers included): ``visible`` holds no more.
MAX_VISIBLE = sum(copies_of(k) for k in range(len(CODES)))


@dataclass
class AnalyzeInput:
    """A loaded `/v1/analyze` body: the hand (13 − 3m or 14 − 3m concealed tiles, read as a
    `/v1/waits` hand) and the tiles seen elsewhere (indices)."""
    hand: Hand
    visible: list[int]


def seen(request: AnalyzeInput) -> list[int]:
    """The copies of each kind the hand's owner has seen (hand, melds, flowers, indicator and
    ``visible``), once the rule book's checks pass; ScoreError with every problem."""
    hand = request.hand
    check(hand, waiting=True, or_drawn=True)
    counts = seen_counts(hand)
    for k in request.visible:
        counts[k] += 1
    problems = [
        Problem("too_many_copies", "visible",
                f"{counts[k]} copies of {CODES[k]} with the visible ones; at most {copies_of(k)} exist",
                f"连同 visible，{CODES[k]} 有 {counts[k]} 张；最多只有 {copies_of(k)} 张")
        for k in sorted(set(request.visible)) if counts[k] > copies_of(k)]
    if problems:
        raise ScoreError(problems)
    return counts


def shape(hand: Hand) -> tuple[list[int], int]:
    """The counts of the natural concealed tiles by face (34 kinds) and the number of caishen."""
    counts = [0] * N_KINDS
    caishen = 0
    for t in hand.concealed:
        if t in hand.caishen_kinds:
            caishen += 1
        else:
            counts[hand.face(t)] += 1
    return counts, caishen


def value(result: Body) -> Body:
    """A wait's value by one way of winning: the `/v1/score` body's 台, eligibility and points,
    or the problem object that refuses that win."""
    if "code" in result:
        return result
    return {key: result[key] for key in VALUE_FIELDS}


def eligible(result: Body) -> bool:
    return result.get("eligible") is True


class Analysis:
    """One request's hand, what its owner has seen and the memo its scorings share."""

    def __init__(self, hand: Hand, seen: list[int], lang: str):
        self.hand = hand
        self.seen = seen
        self.lang = lang
        self.discard_from = discarder(hand)
        self.memo: Memo = {}

    def unseen(self, k: int) -> int:
        return copies_of(k) - self.seen[k]

    def waiting(self, hand: Hand) -> Body:
        """The report on a hand of 13 − 3m tiles: shanten, improving tiles and at tenpai its waits."""
        counts, caishen = shape(hand)
        before, after, after_caishen = draw_shanten(counts, caishen, len(hand.melds))
        improving = [k for k in candidates(hand)
                     if (after_caishen if k in hand.caishen_kinds else after[hand.face(k)]) < before]
        out: Body = {
            "shanten": before,
            "improving": [{"tile": CODES[k], "unseen": self.unseen(k)} for k in improving],
            "improving_unseen": sum(self.unseen(k) for k in improving),
        }
        if before == 0:
            out["waits"] = waits = self.waits(hand, improving)
            out["eligible_unseen"] = sum(w["unseen"] for w in waits
                                         if eligible(w["self_draw"]) or eligible(w["discard"]))
        return out

    def waits(self, hand: Hand, kinds: list[int]) -> list[Body]:
        """What `/v1/waits` says of each of ``kinds`` (the tiles that complete ``hand``), with the
        unseen counts of this analysis; a kind whose every copy is in ``hand``, its melds or the
        indicator (only a fifth copy would complete it) makes no hand to score and is left out."""
        held = seen_counts(hand)
        out: list[Body] = []
        for k in kinds:
            if held[k] >= copies_of(k):
                continue
            values = wait_values(hand, k, self.discard_from, self.memo, self.lang)
            if values is not None:
                out.append({"tile": CODES[k], "unseen": self.unseen(k),
                            "self_draw": value(values[0]), "discard": value(values[1])})
        return out

    def discards(self) -> list[Body]:
        """One entry per kind held, what discarding it leaves, best first."""
        hand = self.hand
        entries: list[tuple[int, Body]] = []
        for k in sorted(set(hand.concealed)):
            rest = list(hand.concealed)
            rest.remove(k)
            entries.append((k, {"discard": CODES[k], **self.waiting(replace(hand, concealed=rest))}))
        entries.sort(key=lambda e: (e[1]["shanten"], -e[1]["improving_unseen"],
                                    -e[1].get("eligible_unseen", 0), e[0]))
        return [entry for _, entry in entries]


def analyze(request: AnalyzeInput, lang: str = "en") -> Body:
    """The body of ``POST /v1/analyze`` for its loaded input: see the module's docstring and docs/api.md."""
    hand = request.hand
    work = Analysis(hand, seen(request), lang)
    melds = len(hand.melds)
    drawn = len(hand.concealed) == 14 - 3 * melds
    out: Body = {"tiles": 14 if drawn else 13}
    if drawn:
        counts, caishen = shape(hand)
        out["shanten"] = shanten(counts, caishen, melds)      # −1: a winning shape
        out["discards"] = work.discards()
    else:
        out.update(work.waiting(hand))
    out["discard_from"] = SEATS[work.discard_from]
    return out

