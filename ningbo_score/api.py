"""The library's front door: a JSON-shaped request (a dict, as ``json.loads`` gives it) in, the
200 body out, through the same request schema the HTTP service loads it with (ningbo_score.readers.request_schemas)::

    import ningbo_score
    ningbo_score.score({"seat_wind": "S", "round_wind": "E", "hand": {...}, "win": {"by": "self_draw"}})

A refused request raises :class:`~ningbo_score.errors.ScoreError` with every problem found: the
schema's (shape and types, 400) or the rule book's (422).  Each function takes the loaded typed
input as well (what :func:`read_score` returns), so a caller that loads once scores without
loading again.
"""
from __future__ import annotations

import typing
from collections.abc import Callable, Mapping

from . import analysis, batch, table
from . import waits as _waits
from .answers import (AnalyzeAnswer, BatchAnswer, ClaimsAnswer, EscapeAnswer, LevelsAnswer, NextHandAnswer, ScoreAnswer,
                      WaitsAnswer)
from .engine import score_hand
from .readers.fields import load
from .hand import Hand, WaitingHand, check
from .readers.request_schemas import (ANALYZE_REQUEST, BATCH_REQUEST, CLAIMS_REQUEST, ESCAPE_REQUEST, NEXT_HAND_REQUEST,
                       SCORE_REQUEST, WAITS_REQUEST)

#: A request body as ``json.loads`` gives it: a JSON object (any mapping with string keys; the
#: request schema checks the rest, a ScoreError 400 naming each wrong field).
Body: typing.TypeAlias = Mapping[str, object]


def read_score(body: Body) -> Hand:
    """A ``POST /v1/score`` body as a :class:`Hand` (the schema's checks only; ScoreError 400)."""
    h: Hand = load(SCORE_REQUEST, body)
    return h


def score(request: Body | Hand, lang: str = "en") -> ScoreAnswer:
    """Score one hand: the body of ``POST /v1/score`` (or its loaded Hand) in, the 200 body out;
    ``lang`` ("en" or "zh") is the language of the answer's ``reasons``."""
    h = request if isinstance(request, Hand) else load(SCORE_REQUEST, request)
    return typing.cast("ScoreAnswer", score_hand(check(h), lang=lang))


def waits(request: Body | WaitingHand, lang: str = "en",
          before_each: Callable[[], None] | None = None) -> WaitsAnswer:
    """The waits of the hand before its winning tile: the body of ``POST /v1/waits`` in.
    ``before_each()``, when given, is called before each wait is valued (as in :func:`score_batch`)."""
    h = request if isinstance(request, WaitingHand) else load(WAITS_REQUEST, request)
    return typing.cast("WaitsAnswer", _waits.waits(h, lang, before_each))


def analyze(request: Body | analysis.AnalyzeInput, lang: str = "en",
            before_each: Callable[[], None] | None = None) -> AnalyzeAnswer:
    """The analysis of a hand (shanten, improving tiles, discards, waits' values): the body of
    ``POST /v1/analyze`` (or its loaded :class:`~ningbo_score.analysis.AnalyzeInput`) in;
    ``before_each`` as in :func:`waits`."""
    loaded = request if isinstance(request, analysis.AnalyzeInput) else load(ANALYZE_REQUEST, request)
    return typing.cast("AnalyzeAnswer", analysis.analyze(loaded, lang, before_each))


def score_batch(request: Body | batch.BatchInput, lang: str = "en",
                before_each: Callable[[], None] | None = None) -> BatchAnswer:
    """The body of ``POST /v1/score/batch`` (``{"requests": [...]}``, or its loaded items) in.
    ``before_each()``, when given, is called before each item is scored (a server lets its other
    work run there, and may raise to stop the batch)."""
    loaded = request if isinstance(request, batch.BatchInput) else load(BATCH_REQUEST, request)
    return typing.cast("BatchAnswer", batch.score_batch(loaded, lang, before_each))


def next_hand(request: Body | table.NextHandInput) -> NextHandAnswer:
    """Who deals next: the body of ``POST /v1/table/next`` (or its loaded input) in."""
    loaded = request if isinstance(request, table.NextHandInput) else load(NEXT_HAND_REQUEST, request)
    return typing.cast("NextHandAnswer", table.next_hand(loaded))


def claims(request: Body | table.ClaimsInput, lang: str = "en") -> ClaimsAnswer:
    """Which claim takes a discard: the body of ``POST /v1/table/claims`` (or its loaded input) in."""
    loaded = request if isinstance(request, table.ClaimsInput) else load(CLAIMS_REQUEST, request)
    return typing.cast("ClaimsAnswer", table.claims(loaded, lang))


def escape(request: Body | table.EscapeInput) -> EscapeAnswer:
    """The escape penalty: the body of ``POST /v1/table/escape`` (or its loaded input) in."""
    loaded = request if isinstance(request, table.EscapeInput) else load(ESCAPE_REQUEST, request)
    return typing.cast("EscapeAnswer", table.escape(loaded))


def levels() -> LevelsAnswer:
    """The level table of the 456 rules (``GET /v1/levels``)."""
    return typing.cast("LevelsAnswer", table.levels())
