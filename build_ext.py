"""Compile the scoring library's hot modules with Cython (``make install`` runs this).

The modules stay plain Python: Cython compiles the same source, nothing in it is Cython-only.
A module may have a ``.pxd`` beside it (``decompose.pxd``): C types for some functions' arguments
and locals, read only by Cython; the plain module ignores it.
The extension modules go to ``ningbo_score/_compiled/`` with ``SOURCES``, the SHA-256 of every
source they were built from; ``ningbo_score/__init__.py`` puts that folder first on the package's
path only when ``SOURCES`` still matches the sources, so an edited module is never shadowed by a
stale build (it runs as plain Python until the next ``make install``), and a machine without a C
compiler simply runs the plain modules.  ``NINGBO_SCORE_PURE=1`` also runs them plain.

Run from the project root:  ``.venv/bin/python build_ext.py`` (``make compile``; the Docker image
runs it in its build stage).
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from ningbo_score import COMPILED, COMPILED_DIR, sources_digest  # noqa: E402

# Cython reads annotations as C types and infers C tuples unless told not to: the modules are
# compiled as the Python they are.
DIRECTIVES = {"language_level": 3, "infer_types": False, "annotation_typing": False,
              "binding": True, "embedsignature": False}


def build() -> None:
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "ningbo_score"
        src.mkdir()
        for name in COMPILED:
            shutil.copy2(ROOT / "ningbo_score" / f"{name}.py", src / f"{name}.py")
            declarations = ROOT / "ningbo_score" / f"{name}.pxd"      # C types of some locals
            if declarations.exists():
                shutil.copy2(declarations, src / declarations.name)
        exts = cythonize([Extension(f"ningbo_score.{name}", [str(src / f"{name}.py")]) for name in COMPILED],
                         compiler_directives=DIRECTIVES, quiet=True, nthreads=0)
        dist = Distribution({"ext_modules": exts, "script_args": ["build_ext"]})
        cmd = build_ext(dist)
        cmd.build_lib, cmd.build_temp, cmd.parallel = str(Path(tmp) / "lib"), str(Path(tmp) / "tmp"), 2
        cmd.ensure_finalized()
        cmd.run()
        shutil.rmtree(COMPILED_DIR, ignore_errors=True)
        COMPILED_DIR.mkdir()
        for built in (Path(tmp) / "lib" / "ningbo_score").iterdir():
            shutil.copy2(built, COMPILED_DIR / built.name)
    (COMPILED_DIR / "SOURCES").write_text(sources_digest(), encoding="utf-8")
    print(f"compiled {len(COMPILED)} modules into {COMPILED_DIR.relative_to(ROOT)}")


if __name__ == "__main__":
    build()
