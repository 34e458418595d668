"""Batch scoring: many hands in one call, one result each; a bad hand never fails the batch."""
from __future__ import annotations

import typing
from dataclasses import dataclass

from .engine import score_hand
from .errors import ScoreError
from .hand import Hand, check

MAX_BATCH = 200


@dataclass(frozen=True, slots=True)
class BatchInput:
    """A loaded batch: per item, its Hand or the ScoreError (400) that refuses it."""
    items: list[Hand | ScoreError]


#: a result's ``outcome``: the string a client tells the two kinds of result apart by (``status``
#: says the same as the integer ``/v1/score`` would have answered)
SCORED, REFUSED = "scored", "refused"


def refused_result(index: int, err: ScoreError, lang: str) -> dict[str, typing.Any]:
    return {"index": index, "outcome": REFUSED, "status": err.status, "problem": err.to_problem(lang)}


def score_batch(batch: BatchInput, lang: str = "en",
                before_each: typing.Callable[[], None] | None = None) -> dict[str, typing.Any]:
    """The body of ``POST /v1/score/batch`` for its loaded input (ningbo_score.readers.request_schemas loads
    ``{"requests": [...]}`` as one Hand, or the ScoreError refusing it, per item).

    Each result is ``{"index", "outcome": "scored", "status": 200, "score": …}`` or ``{"index",
    "outcome": "refused", "status": 4xx, "problem": …}``.  ``before_each()``, when given, is
    called before each item is scored.
    """
    results: list[dict[str, typing.Any]] = []
    for i, item in enumerate(batch.items):
        if before_each is not None:
            before_each()
        if isinstance(item, ScoreError):       # refused by the schema (not raised here: raised, it
            results.append(refused_result(i, item, lang))   # would hold this frame, which holds it)
            continue
        try:
            results.append({"index": i, "outcome": SCORED, "status": 200, "score": score_hand(check(item), lang=lang)})
        except ScoreError as e:
            results.append(refused_result(i, e, lang))
    ok = sum(1 for r in results if r["status"] == 200)
    return {"ok": ok, "failed": len(results) - ok, "results": results}
