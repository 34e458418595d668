"""Hand analysis (牌理): how far a hand is from winning, which tiles bring it closer, what each
discard leaves, and at tenpai what each wait is worth (``POST /v1/analyze``, docs/api.md).

The body is a `/v1/waits` body (read by the same schema, ningbo_score.readers.request_schemas.AnalyzeRequestSchema
extending WaitsRequestSchema, and checked by the same :func:`~ningbo_score.hand.check`, so bad
input gets the same problems) whose hand holds 13 − 3m concealed tiles (waiting to draw) or
14 − 3m (it has drawn and must discard), plus ``visible``: tiles seen elsewhere, which only
lower the ``unseen`` counts.

Shanten and improving tiles come from :mod:`ningbo_score.shanten` (exact, caishen included,
copy limits ignored); the waits' values from :mod:`ningbo_score.completion`, as ``POST /v1/waits``
gets them, but stopped at the value (no payments, no answer).  The work of a request is
bounded: at most 14 discards, each with one shanten table pass over its 34 draws, and at tenpai
one valuation per wait (at most 42 kinds, two each: one reading of the tiles, two values), all
sharing one decomposition memo.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from . import advice
from .advice import DEFAULT_DRAWS
from .completion import Memo, Outcome, candidates, discarder, unseen, wins_on
from .errors import Problem, ScoreError
from .hand import Held, WaitingHand, check_waiting, winning_count
from .shanten import draw_shanten, shanten
from .tiles import CODES, COPIES, N_KINDS, SEATS
from .waits import REFUSED, SCORED, group_same

#: a JSON object of the answer
Body: TypeAlias = dict[str, Any]
#: The tiles of the set (every copy of every kind, the flowers included): ``visible`` holds no more.
MAX_VISIBLE = sum(COPIES)


@dataclass
class AnalyzeInput:
    """A loaded `/v1/analyze` body: the hand (13 − 3m or 14 − 3m concealed tiles, read as a
    `/v1/waits` hand), the tiles seen elsewhere (indices), the ``objective`` (``ukeire`` or
    ``value``) and, for ``value``, the draws to come (ningbo_score.advice)."""
    hand: WaitingHand
    visible: list[int]
    objective: str = "ukeire"
    draws_left: int = DEFAULT_DRAWS


def seen(request: AnalyzeInput) -> list[int]:
    """The copies of each kind the hand's owner has seen (hand, melds, flowers, indicator and
    ``visible``), once the rule book's checks pass; ScoreError with every problem."""
    hand = request.hand
    check_waiting(hand, or_drawn=True)
    counts = hand.seen()
    for k in request.visible:
        counts[k] += 1
    problems = [
        Problem("too_many_copies", "visible",
                f"{counts[k]} copies of {CODES[k]} with the visible ones; at most {COPIES[k]} exist",
                f"连同 visible，{CODES[k]} 有 {counts[k]} 张；最多只有 {COPIES[k]} 张")
        for k in sorted(set(request.visible)) if counts[k] > COPIES[k]]
    if problems:
        raise ScoreError(problems)
    return counts


def shape(hand: Held) -> tuple[list[int], int]:
    """The counts of the natural concealed tiles by face (34 kinds) and the number of caishen."""
    counts = [0] * N_KINDS
    caishen = 0
    for t in hand.concealed:
        if t in hand.caishen_kinds:
            caishen += 1
        else:
            counts[hand.face(t)] += 1
    return counts, caishen


def value(outcome: Outcome, lang: str) -> Body:
    """A wait's value by one way of winning: what `/v1/score` would answer of its 台,
    eligibility and points, or the problem object that refuses that win."""
    if isinstance(outcome, ScoreError):
        return {**outcome.to_problem(lang), "outcome": REFUSED}
    return {"tai": outcome.tai, "counted_tai": outcome.counted, "eligible": outcome.eligible,
            "points": outcome.points, "reasons": outcome.reasons, "outcome": SCORED}


def _value_signature(result: Body) -> tuple[object, ...]:
    if "code" in result:
        return ("problem", result["code"])
    return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in result.items())


def eligible(outcome: Outcome) -> bool:
    return not isinstance(outcome, ScoreError) and outcome.eligible


class Analysis:
    """One request's hand, what its owner has seen and the memo its scorings share."""

    def __init__(self, hand: WaitingHand, seen: list[int], lang: str,
                 before_each: Callable[[], None] | None = None):
        self.hand = hand
        self.before_each = before_each
        self.seen = seen
        self.lang = lang
        self.discard_from = discarder(hand)
        self.memo: Memo = {}

    def unseen(self, k: int) -> int:
        return unseen(self.seen, k)

    def waiting(self, hand: WaitingHand) -> Body:
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
            waits = self.waits(hand, improving)
            out["waits"] = [w for w, _ in waits]
            out["eligible_unseen"] = sum(w.get("unseen_total", w["unseen"]) for w, pays in waits if pays)
        return out

    def waits(self, hand: WaitingHand, kinds: list[int]) -> list[tuple[Body, bool]]:
        """What `/v1/waits` values of each of ``kinds`` (the tiles that complete ``hand``), with
        the unseen counts of this analysis, and whether it is eligible one way or the other; a
        kind whose every copy is in ``hand``, its melds or the indicator (only a fifth copy would
        complete it) makes no hand to value and is left out."""
        held = hand.seen()
        drawable = sum(1 for k in range(N_KINDS) if held[k] < COPIES[k])
        out: list[tuple[Body, bool]] = []
        for k in kinds:
            if held[k] >= COPIES[k]:
                continue
            if self.before_each is not None:
                self.before_each()
            outcomes = wins_on(hand, k, self.discard_from, self.memo, self.lang)
            if outcomes is not None:
                out.append(({"tile": CODES[k], "unseen": self.unseen(k), "self_draw": value(outcomes[0], self.lang),
                             "discard": value(outcomes[1], self.lang)}, eligible(outcomes[0]) or eligible(outcomes[1])))
        if drawable and sum(1 for w, _ in out if CODES.index(w["tile"]) < N_KINDS) == drawable:
            # every kind completes the hand (caishen in hand): equal outcomes once, as /v1/waits
            # lists them (34 caishen kinds made a 308 B body a 228 KB answer)
            pays = {w["tile"]: p for w, p in out}
            return [(w, pays[w["tile"]]) for w in group_same([w for w, _ in out], _value_signature)]
        return out

    def discards(self) -> list[Body]:
        """One entry per kind held, what discarding it leaves, best first."""
        hand = self.hand
        entries: list[tuple[int, Body]] = []
        for k in sorted(set(hand.concealed)):
            entries.append((k, {"discard": CODES[k], **self.waiting(hand.without(k))}))
        entries.sort(key=lambda e: (e[1]["shanten"], -e[1]["improving_unseen"],
                                    -e[1].get("eligible_unseen", 0), e[0]))
        return [entry for _, entry in entries]


def analyze(request: AnalyzeInput, lang: str = "en", before_each: Callable[[], None] | None = None) -> Body:
    """The body of ``POST /v1/analyze`` for its loaded input: see the module's docstring and docs/api.md.
    ``before_each()``, when given, is called before each wait is valued (as in waits.waits) and
    between steps of the value's work."""
    hand = request.hand
    work = Analysis(hand, seen(request), lang, before_each)
    melds = len(hand.melds)
    drawn = len(hand.concealed) == winning_count(melds)
    out: Body = {"tiles": 14 if drawn else 13}
    if drawn:
        counts, caishen = shape(hand)
        out["shanten"] = shanten(counts, caishen, melds)      # −1: a winning shape
        out["discards"] = work.discards()
    else:
        out.update(work.waiting(hand))
    if request.objective == "value":
        by_value(work, out, request.draws_left)
    out["discard_from"] = SEATS[work.discard_from]
    return out


def by_value(work: Analysis, out: Body, draws: int) -> None:
    """``objective: value``: each discard entry (or the 13-tile hand) with its ``win_probability``
    and ``expected_points`` over ``draws`` draws (ningbo_score.advice), the discards ranked by
    them, then by their order so far; both null and a ``value_note`` when the hands to weigh are
    more than the bound."""
    hand = work.hand
    out["draws_left"] = draws
    entries: list[Body] = out.get("discards", [out])
    hands = [hand.without(CODES.index(e["discard"])).concealed for e in entries] if "discards" in out \
        else [hand.concealed]
    bound = advice.MAX_STATES
    values = advice.solve_hands(hand, hands, work.seen, draws, work.lang, {}, work.before_each, bound)
    if values is None:
        for e in entries:
            e["win_probability"] = e["expected_points"] = None
        out["value_note"] = (
            f"要权衡的手牌超过 {bound} 种或要计分的胡牌超过 {advice.MAX_SCORINGS} 种（还有 {draws} 次摸牌）："
            "没有精确算出；减少 draws_left 可以算出"
            if work.lang == "zh" else
            f"more than {bound} hands to weigh or {advice.MAX_SCORINGS} wins to score over {draws} draws: "
            "not computed exactly; fewer draws_left may fit")
        return
    for e, (ev, p) in zip(entries, values):
        e["expected_points"] = ev
        e["win_probability"] = p
    if "discards" in out:
        order = {id(e): i for i, e in enumerate(entries)}
        out["discards"] = sorted(entries, key=lambda e: (-round(e["expected_points"], 9),
                                                         -round(e["win_probability"], 12), order[id(e)]))
