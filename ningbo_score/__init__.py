"""Ningbo mahjong (宁波麻将) scoring: a pure library.

Front door: :func:`score` takes the JSON body of ``POST /v1/score`` and returns the 200 body
(:func:`waits`, :func:`analyze`: those of ``POST /v1/waits`` and ``POST /v1/analyze``);
problems raise :class:`ScoreError` carrying the stable ``code`` of API.md.  :func:`presets` and
:func:`preset` describe the rule presets of RULES.md §9.
"""
import hashlib
import os
from pathlib import Path

#: The modules ``make install`` compiles with Cython (build_ext.py) into COMPILED_DIR.
COMPILED = ("caishen", "decompose", "engine", "hand", "items", "payments", "rules", "tiles")
COMPILED_DIR = Path(__file__).resolve().parent / "_compiled"


def sources_digest() -> str:
    """SHA-256 of each compiled module's source, one line each (COMPILED_DIR/SOURCES), and of
    its Cython declarations (``.pxd``) where it has some."""
    here = Path(__file__).resolve().parent
    lines = []
    for name in COMPILED:
        for label, path in ((name, here / f"{name}.py"), (f"{name}.pxd", here / f"{name}.pxd")):
            if label == name or path.exists():
                lines.append(f"{label} {hashlib.sha256(path.read_bytes()).hexdigest()}\n")
    return "".join(lines)


def _compiled_is_current() -> bool:
    if os.environ.get("NINGBO_SCORE_PURE", "") not in ("", "0"):
        return False
    try:
        return (COMPILED_DIR / "SOURCES").read_text(encoding="utf-8") == sources_digest()
    except OSError:
        return False


#: Whether the compiled modules are in use: built, and built from the sources as they are now.
#: Otherwise (no C compiler, an edited module, NINGBO_SCORE_PURE=1) the same modules run as
#: plain Python, with the same results.
USING_COMPILED = _compiled_is_current()
if USING_COMPILED:
    __path__.insert(0, str(COMPILED_DIR))  # noqa: F821 (a package's own __path__)

from .analysis import analyze  # noqa: E402
from .batch import MAX_BATCH, score_batch  # noqa: E402
from .engine import score  # noqa: E402
from .errors import Problem, ScoreError  # noqa: E402
from .rules import PRESETS, describe_preset  # noqa: E402
from .waits import waits  # noqa: E402


def presets() -> list[dict]:
    """Every preset: id, names, source document, options and the 台 item table."""
    return [describe_preset(p) for p in PRESETS]


def preset(preset_id: str) -> dict:
    """One preset; KeyError if there is no such preset."""
    if preset_id not in PRESETS:
        raise KeyError(preset_id)
    return describe_preset(preset_id)


__all__ = ["score", "score_batch", "waits", "analyze", "presets", "preset", "warm_up", "ScoreError", "Problem", "MAX_BATCH"]


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
