"""Ningbo mahjong (宁波麻将) scoring: a pure library.

Front door: :func:`score` takes the JSON body of ``POST /v1/score`` and returns the 200 body;
problems raise :class:`ScoreError` carrying the stable ``code`` of API.md.  :func:`presets` and
:func:`preset` describe the rule presets of RULES.md §9.
"""
from .batch import MAX_BATCH, score_batch
from .engine import score
from .errors import Problem, ScoreError
from .rules import PRESETS, describe_preset
from .waits import waits


def presets() -> list[dict]:
    """Every preset: id, names, source document, options and the 台 item table."""
    return [describe_preset(p) for p in PRESETS]


def preset(preset_id: str) -> dict:
    """One preset; KeyError if there is no such preset."""
    if preset_id not in PRESETS:
        raise KeyError(preset_id)
    return describe_preset(preset_id)


__all__ = ["score", "score_batch", "waits", "presets", "preset", "warm_up", "ScoreError", "Problem", "MAX_BATCH"]


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
