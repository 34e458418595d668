"""The library's front door: a JSON-shaped request (a dict, as ``json.loads`` gives it) in, the
200 body out, through the same request schema the HTTP service loads it with (ningbo_score.request_schemas)::

    import ningbo_score
    ningbo_score.score({"seat_wind": "S", "round_wind": "E", "hand": {...}, "win": {"by": "self_draw"}})

A refused request raises :class:`~ningbo_score.errors.ScoreError` with every problem found: the
schema's (shape and types, 400) or the rule book's (422).  Each function takes the loaded typed
input as well (what :func:`read_score` returns), so a caller that loads once scores without
loading again.
"""
from __future__ import annotations

import typing

from . import analysis, batch, table
from . import waits as _waits
from .engine import score_hand
from .fields import load
from .hand import Hand, WaitingHand, check
from .request_schemas import (ANALYZE_REQUEST, BATCH_REQUEST, CLAIMS_REQUEST, ESCAPE_REQUEST, NEXT_HAND_REQUEST,
                       SCORE_REQUEST, WAITS_REQUEST)


def read_score(body: typing.Any) -> Hand:
    """A ``POST /v1/score`` body as a :class:`Hand` (the schema's checks only; ScoreError 400)."""
    h: Hand = load(SCORE_REQUEST, body)
    return h


def score(request: typing.Any, lang: str = "en") -> dict[str, typing.Any]:
    """Score one hand: the body of ``POST /v1/score`` (or its loaded Hand) in, the 200 body out;
    ``lang`` ("en" or "zh") is the language of the answer's ``reasons``."""
    h = request if isinstance(request, Hand) else load(SCORE_REQUEST, request)
    return score_hand(check(h), lang=lang)


def waits(request: typing.Any, lang: str = "en") -> dict[str, typing.Any]:
    """The waits of the hand before its winning tile: the body of ``POST /v1/waits`` in."""
    h = request if isinstance(request, WaitingHand) else load(WAITS_REQUEST, request)
    return _waits.waits(h, lang)


def analyze(request: typing.Any, lang: str = "en") -> dict[str, typing.Any]:
    """The analysis of a hand (shanten, improving tiles, discards, waits' values): the body of
    ``POST /v1/analyze`` (or its loaded :class:`~ningbo_score.analysis.AnalyzeInput`) in."""
    loaded = request if isinstance(request, analysis.AnalyzeInput) else load(ANALYZE_REQUEST, request)
    return analysis.analyze(loaded, lang)


def score_batch(request: typing.Any, lang: str = "en",
                before_each: typing.Callable[[], None] | None = None) -> dict[str, typing.Any]:
    """The body of ``POST /v1/score/batch`` (``{"requests": [...]}``, or its loaded items) in.
    ``before_each()``, when given, is called before each item is scored (a server lets its other
    work run there, and may raise to stop the batch)."""
    loaded = request if isinstance(request, batch.BatchInput) else load(BATCH_REQUEST, request)
    return batch.score_batch(loaded, lang, before_each)


def next_hand(request: typing.Any) -> dict[str, typing.Any]:
    """Who deals next: the body of ``POST /v1/table/next`` (or its loaded input) in."""
    return table.next_hand(request if isinstance(request, table.NextHandInput) else load(NEXT_HAND_REQUEST, request))


def claims(request: typing.Any, lang: str = "en") -> dict[str, typing.Any]:
    """Which claim takes a discard: the body of ``POST /v1/table/claims`` (or its loaded input) in."""
    return table.claims(request if isinstance(request, table.ClaimsInput) else load(CLAIMS_REQUEST, request), lang)


def escape(request: typing.Any) -> dict[str, typing.Any]:
    """The escape penalty: the body of ``POST /v1/table/escape`` (or its loaded input) in."""
    return table.escape(request if isinstance(request, table.EscapeInput) else load(ESCAPE_REQUEST, request))
