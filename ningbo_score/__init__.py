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


__all__ = ["score", "score_batch", "waits", "presets", "preset", "ScoreError", "Problem", "MAX_BATCH"]
