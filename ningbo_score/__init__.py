"""Ningbo mahjong (宁波麻将) scoring: a pure library.

Front door (ningbo_score.api): :func:`score` takes the JSON body of ``POST /v1/score`` (loaded by
the same marshmallow schema as the HTTP service's, ningbo_score.request_schemas) and returns the 200
body (:func:`waits`, :func:`analyze`: those of ``POST /v1/waits`` and ``POST /v1/analyze``);
problems raise :class:`ScoreError` carrying the stable ``code`` of docs/api.md.
:func:`presets` and :func:`preset` describe the rule presets of docs/rules.md §9, :func:`rulebook`
the rule book.
"""
import hashlib
import os
import re
import typing
from collections.abc import Iterable
from pathlib import Path

from ._version import __version__

#: The modules the build (setup.py: ``pip install .``, ``make install``) compiles with Cython
#: into COMPILED_DIR, where a C compiler works.
COMPILED = ("caishen", "decompose", "engine", "hand", "items", "payments", "rules", "shanten", "tiles")
COMPILED_DIR = Path(__file__).resolve().parent / "_compiled"


def sources_digest(names: Iterable[str] = COMPILED) -> str:
    """SHA-256 of each compiled module's source, one line each (COMPILED_DIR/SOURCES), and of
    its Cython declarations (``.pxd``) where it has some; ``names``: the modules built."""
    here = Path(__file__).resolve().parent
    lines = []
    for name in names:
        for label, path in ((name, here / f"{name}.py"), (f"{name}.pxd", here / f"{name}.pxd")):
            if label == name or path.exists():
                lines.append(f"{label} {hashlib.sha256(path.read_bytes()).hexdigest()}\n")
    return "".join(lines)


_CDEF_FUNCTION = re.compile(r"^cdef\s+(?:inline\s+)?[^=:#\n]*?\b(\w+)\s*\(", re.MULTILINE)


def pxd_c_functions(name: str, folder: Path | None = None) -> set[str]:
    """The functions a module's ``.pxd`` declares ``cdef``: compiled with the ``.pxd``, they are C
    only, not attributes of the module (an empty set where the module has no ``.pxd``)."""
    pxd = (folder or Path(__file__).resolve().parent) / f"{name}.pxd"
    return set(_CDEF_FUNCTION.findall(pxd.read_text(encoding="utf-8"))) if pxd.exists() else set()


def missing_c_types() -> dict[str, list[str]]:
    """{module: the cdef functions of its ``.pxd`` that are Python attributes of the loaded
    module}: empty when every ``.pxd`` was applied by the build in use.  A ``.pxd`` Cython did
    not read still builds (as untyped Python, about 157k more instructions a request), so the
    build (setup.py) and tests/test_build.py check this."""
    import importlib

    out = {}
    for name in COMPILED:
        leaked = sorted(f for f in pxd_c_functions(name) if hasattr(importlib.import_module(f"{__name__}.{name}"), f))
        if leaked:
            out[name] = leaked
    return out


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

from .api import analyze, read_score, score, score_batch, waits  # noqa: E402
from .batch import MAX_BATCH  # noqa: E402
from .errors import Problem, ScoreError  # noqa: E402
from .rules import PRESETS, RULEBOOK, describe_preset, describe_rulebook  # noqa: E402


def presets() -> list[dict[str, typing.Any]]:
    """Every preset: id, names, source document, options and the 台 item table."""
    return [describe_preset(p) for p in PRESETS]


def rulebook() -> dict[str, typing.Any]:
    """The rule book: its version (``rulebook``), what it changed (``changes``), every preset."""
    return describe_rulebook()


def preset(preset_id: str) -> dict[str, typing.Any]:
    """One preset; KeyError if there is no such preset."""
    if preset_id not in PRESETS:
        raise KeyError(preset_id)
    return describe_preset(preset_id)


__all__ = ["__version__", "score", "read_score", "score_batch", "waits", "analyze", "presets", "preset", "rulebook",
           "RULEBOOK", "warm_up", "ScoreError", "Problem", "MAX_BATCH"]


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
