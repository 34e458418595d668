"""Ningbo mahjong (宁波麻将) scoring: a pure library.

Front door (ningbo_score.api): :func:`score` takes the JSON body of ``POST /v1/score`` (loaded by
the same marshmallow schema as the HTTP service's, ningbo_score.readers.request_schemas) and returns the 200
body, typed :class:`ScoreAnswer` (ningbo_score.answers); :func:`waits`, :func:`analyze`,
:func:`score_batch` and the table's :func:`next_hand`, :func:`claims`, :func:`escape` and
:func:`levels` answer as ``POST /v1/waits``, ``/v1/analyze``, ``/v1/score/batch``,
``/v1/table/next``, ``/v1/table/claims``, ``/v1/table/escape`` and ``GET /v1/levels`` do;
:func:`replay` and :func:`replay_batch`: ``POST /v1/replay`` and ``/v1/replay/batch``, a hand's log checked,
derived and scored; :func:`settle`: ``POST /v1/sessions/settle``, a session's rotation, totals and transfers;
:func:`actions`: ``POST /v1/table/actions``, what each seat may do after a log's prefix (the referee);
problems raise :class:`ScoreError` carrying the stable ``code`` of docs/api.md.
:func:`presets` and :func:`preset` describe the rule presets of docs/rules.md §9, :func:`rulebook`
the rule book.
"""
import os
import typing

# (the build's own facts: setup.py reads _sources.py without importing the package)
from ._sources import COMPILED, COMPILED_DIR, missing_c_types, pxd_c_functions, sources_digest  # noqa: F401
from ._version import __version__


def _compiled_is_current() -> bool:
    if os.environ.get("NINGBO_SCORE_PURE", "") not in ("", "0"):
        return False
    try:
        recorded = (COMPILED_DIR / "SOURCES").read_text(encoding="utf-8")
        built = [line.split(" ", 1)[0] for line in recorded.splitlines()]
        modules = [name for name in built if name in COMPILED]   # the .pxd lines aside
        return bool(modules) and recorded == sources_digest(modules)
    except OSError:
        return False


#: Whether the compiled modules are in use: built (all of COMPILED, or those the build was asked
#: for), and built from the sources as they are now.  Otherwise (no C compiler, an edited
#: module, NINGBO_SCORE_PURE=1) the same modules run as plain Python, with the same results.
USING_COMPILED = _compiled_is_current()
if USING_COMPILED:
    __path__.insert(0, str(COMPILED_DIR))  # noqa: F821 (a package's own __path__)

from .answers import (ActionsAnswer, AnalyzeAnswer, BatchAnswer, ClaimsAnswer, EscapeAnswer,  # noqa: E402
                      LevelsAnswer, NextHandAnswer, Preset, ProblemBody, ReplayAnswer, ReplayBatchAnswer, Rulebook,
                      ScoreAnswer, SessionAnswer, WaitsAnswer)
from .api import (Body, analyze, claims, escape, levels, next_hand, read_score, score, score_batch,  # noqa: E402
                  waits)
from .batch import MAX_BATCH  # noqa: E402
from .errors import Problem, ScoreError  # noqa: E402
from .rules import PRESETS, RULEBOOK, describe_preset, describe_rulebook  # noqa: E402
# The module ningbo_score.replay (a hand's log checked, derived and scored) stays importable by
# its name (``from ningbo_score.replay import …``, ``sys.modules``); the package's attribute
# ``replay`` is the typed function below, which calls it (``ningbo_score.replay(log)``, as
# ``ningbo_score.score(hand)``).
from . import replay as _replay_log  # noqa: E402
from . import sessions as _sessions  # noqa: E402
from .readers.replay_requests import ReplayLog  # noqa: E402


def replay(request: Body | ReplayLog, lang: str = "en") -> ReplayAnswer:
    """Replay one hand's log: the body of ``POST /v1/replay`` (or its loaded ReplayLog) in, the 200
    body out; ``lang`` ("en" or "zh") is the language of the score's ``reasons`` and of a refusal's
    messages.  An illegal log raises ScoreError ``illegal_event`` (``event_index``, ``reason``,
    ``expected``, ``state`` in its ``extra``); a win ``/v1/score`` refuses, its code."""
    return typing.cast("ReplayAnswer", _replay_log.replay(request, lang))


def replay_batch(request: Body, lang: str = "en") -> ReplayBatchAnswer:
    """``POST /v1/replay/batch``: ``{"logs": [...]}`` in, one result per log (each answered alone)."""
    return typing.cast("ReplayBatchAnswer", _replay_log.replay_batch(request, lang))


def settle(request: Body, lang: str = "en") -> SessionAnswer:
    """Settle a session: the body of ``POST /v1/sessions/settle`` in, its 200 body out (each hand
    with its dealer and running totals, the totals, the fewest transfers, the next hand).  A hand
    that fails raises its endpoint's ScoreError with ``hand_index`` in its ``extra``."""
    return typing.cast("SessionAnswer", _sessions.settle(request, lang))


from .actions import actions  # noqa: E402  (the function; the module is ningbo_score.actions's sys.modules entry)


def presets() -> list[Preset]:
    """Every preset: id, names, source document, options and the 台 item table."""
    return [typing.cast("Preset", describe_preset(p)) for p in PRESETS]


def rulebook() -> Rulebook:
    """The rule book: its version (``rulebook``), what it changed (``changes``), every preset."""
    return typing.cast("Rulebook", describe_rulebook())


def preset(preset_id: str) -> Preset:
    """One preset; KeyError if there is no such preset."""
    if preset_id not in PRESETS:
        raise KeyError(preset_id)
    return typing.cast("Preset", describe_preset(preset_id))


__all__ = ["__version__", "score", "read_score", "score_batch", "waits", "analyze", "next_hand", "claims", "escape",
           "levels", "presets", "preset", "rulebook", "RULEBOOK", "warm_up", "ScoreError", "Problem", "MAX_BATCH",
           "Body", "ScoreAnswer", "WaitsAnswer", "AnalyzeAnswer", "BatchAnswer", "NextHandAnswer", "ClaimsAnswer",
           "EscapeAnswer", "LevelsAnswer", "Preset", "Rulebook", "ProblemBody", "replay", "replay_batch", "settle",
           "ReplayAnswer", "ReplayBatchAnswer", "SessionAnswer", "actions", "ActionsAnswer"]


def warm_up() -> None:
    """Score a few hands of every shape so the long-lived caches (group keys, pure-caishen
    classes, item evaluations) are filled before serving; a server may then ``gc.freeze()``."""
    for seat in "ESWN":
        for caishen, concealed, w in (
            (None, "123m 456p 789s 234s 55m", "5m"),
            ({"indicator": "5p"}, "123m 456m 789p 23s 5p5p5p", "2s"),
            ({"kinds": ["1m", "9p"]}, "1m1m 9p9p 123p EEE CC 78s", "C"),
        ):
            score({"seat_wind": seat, "round_wind": "E", "caishen": caishen,
                   "hand": {"concealed": concealed, "winning_tile": w}, "win": {"by": "self_draw"}})
