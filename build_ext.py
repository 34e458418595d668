"""Compile the scoring library's hot modules with Cython (``make install`` runs this).

The modules stay plain Python: Cython compiles the same source, nothing in it is Cython-only.
A module may have a ``.pxd`` beside it (``decompose.pxd``): C types for some functions' arguments
and locals, read only by Cython; the plain module ignores it.
The extension modules go to ``ningbo_score/_compiled/`` with ``SOURCES``, the SHA-256 of every
source they were built from; ``ningbo_score/__init__.py`` puts that folder first on the package's
path only when ``SOURCES`` still matches the sources, so an edited module is never shadowed by a
stale build (it runs as plain Python until the next ``make install``), and a machine without a C
compiler simply runs the plain modules.  ``NINGBO_SCORE_PURE=1`` also runs them plain.

Cython finds a module's ``.pxd`` by the module's package path on its include path, so the copy
it compiles is put under a ``ningbo_score`` folder and that folder's parent is the include path:
the build reads the ``.pxd`` files wherever it is run from.  A ``.pxd`` Cython did not apply
would still build (as untyped Python), so after building, every module with a ``.pxd`` is
checked as the package loads it (each ``cdef`` function the ``.pxd`` declares must be a C
function, not a module attribute: :func:`c_functions`), and a build that fails is removed
(tests/test_build.py checks the installed build the same way, :func:`missing_c_functions`).

Run:  ``.venv/bin/python build_ext.py`` (``make compile``; the Docker image runs it in its build
stage), from any directory.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
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
PACKAGE = ROOT / "ningbo_score"
_CDEF_FUNCTION = re.compile(r"^cdef\s+(?:inline\s+)?[^=:#\n]*?\b(\w+)\s*\(", re.MULTILINE)


def c_functions(module: str) -> set[str]:
    """The functions a module's ``.pxd`` declares ``cdef`` (C only: compiled with the ``.pxd``,
    they are not attributes of the module); an empty set when it has no ``.pxd``."""
    pxd = PACKAGE / f"{module}.pxd"
    return set(_CDEF_FUNCTION.findall(pxd.read_text(encoding="utf-8"))) if pxd.exists() else set()


def missing_c_functions(modules) -> dict[str, set[str]]:
    """{module name: its ``.pxd``'s cdef functions that are attributes of the imported module}:
    empty when every ``.pxd`` was applied (``modules``: the imported modules, by name)."""
    out = {}
    for name, module in modules.items():
        leaked = {f for f in c_functions(name) if hasattr(module, f)}
        if leaked:
            out[name] = leaked
    return out


_CHECK = ("import importlib, json, sys, ningbo_score\n"
          "assert ningbo_score.USING_COMPILED, 'the build is not used'\n"
          "names = json.loads(sys.argv[1])\n"
          "print(json.dumps({n: sorted(f for f in fs if hasattr(importlib.import_module('ningbo_score.' + n), f))"
          " for n, fs in names.items()}))\n")


def build() -> None:
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "ningbo_score"
        src.mkdir()
        for name in COMPILED:
            shutil.copy2(PACKAGE / f"{name}.py", src / f"{name}.py")
            declarations = PACKAGE / f"{name}.pxd"      # C types of some locals
            if declarations.exists():
                shutil.copy2(declarations, src / declarations.name)
        exts = cythonize([Extension(f"ningbo_score.{name}", [str(src / f"{name}.py")]) for name in COMPILED],
                         compiler_directives=DIRECTIVES, include_path=[tmp], quiet=True, nthreads=0)
        dist = Distribution({"ext_modules": exts, "script_args": ["build_ext"]})
        cmd = build_ext(dist)
        lib = Path(tmp) / "lib"
        cmd.build_lib, cmd.build_temp, cmd.parallel = str(lib), str(Path(tmp) / "tmp"), 2
        cmd.ensure_finalized()
        cmd.run()
        shutil.rmtree(COMPILED_DIR, ignore_errors=True)
        COMPILED_DIR.mkdir()
        for built in (lib / "ningbo_score").iterdir():
            shutil.copy2(built, COMPILED_DIR / built.name)
    (COMPILED_DIR / "SOURCES").write_text(sources_digest(), encoding="utf-8")
    # the modules as the package will load them: every .pxd applied?  If not, the build is removed
    typed = {name: sorted(c_functions(name)) for name in COMPILED if c_functions(name)}
    env = {k: v for k, v in os.environ.items() if k != "NINGBO_SCORE_PURE"}
    check = subprocess.run([sys.executable, "-c", _CHECK, json.dumps(typed)], cwd=ROOT, env=env,
                           capture_output=True, text=True)
    problem = check.stderr if check.returncode else {n: fs for n, fs in json.loads(check.stdout).items() if fs}
    if problem:
        (COMPILED_DIR / "SOURCES").unlink()
        raise SystemExit(f"build removed: Cython did not apply these .pxd files (their cdef functions are "
                         f"Python attributes), or the modules do not load: {problem}")
    print(f"compiled {len(COMPILED)} modules into {COMPILED_DIR}, with the C types of "
          + ", ".join(f"{n}.pxd" for n in typed))


if __name__ == "__main__":
    build()
