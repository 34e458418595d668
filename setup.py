"""The build of the ``ningbo-score`` distribution (its metadata is in ``pyproject.toml``).

``pip install .`` (or ``pip install -e .``, as ``make install`` does) compiles the library's hot
modules, ``ningbo_score.COMPILED``, with Cython where a C compiler works, and leaves them as
plain Python otherwise: the same source either way (nothing in it is Cython-only), the same
results.  A module may have a ``.pxd`` beside it (``decompose.pxd``): C types for some of its
functions' arguments and locals, read only by Cython; the plain module ignores it.

The extension modules go to ``ningbo_score/_compiled/``, with ``SOURCES``: the SHA-256 of every
source they were built from.  ``ningbo_score/__init__.py`` puts that folder first on the
package's path only while ``SOURCES`` still matches the sources beside it, so an edited module is
never shadowed by a stale build: it runs as plain Python until the next build.

Where nothing is compiled (no C compiler, or NINGBO_SCORE_PURE=1) the distribution has no
extension modules, so its wheel is ``py3-none-any``; a compiled wheel is tagged for its platform
(``linux_x86_64``: ``auditwheel repair`` makes it ``manylinux_…``, as tests/build/test_package.py does).

setup.py does not import the package (it needs marshmallow, which pip's isolated build
environment lacks): what it needs is in ``ningbo_score/_sources.py``, read by path.  The build
requirements are pinned in pyproject.toml's [build-system] (the versions of
requirements-build.txt, whose hashes ``make wheelhouse`` downloads for an offline build).

Build-time switches (environment):
  NINGBO_SCORE_PURE=1       build nothing: a plain-Python install (also a run-time switch)
  NINGBO_SCORE_COMPILE=a,b  compile only these modules of ningbo_score.COMPILED (the others
                            run as plain Python); default: all of them
  NINGBO_SCORE_JOBS=N       parallel Cython and C compiler processes (default: the usable cores)

Each compiled module is announced on a line starting ``ningbo-score:`` (``pip install -v``
shows them; ``make install`` filters them out of pip's output).
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from setuptools import Distribution, Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent

# Cython reads annotations as C types and infers C tuples unless told not to: the modules are
# compiled as the Python they are.
DIRECTIVES = {"language_level": 3, "infer_types": False, "annotation_typing": False,
              "binding": True, "embedsignature": False}
# No debug information: it doubles the compile time and the size of the modules.
COMPILE_ARGS = ["-g0"]


def _sources():
    """``ningbo_score/_sources.py`` (COMPILED, COMPILED_DIR, sources_digest), loaded by its path:
    the package itself is not imported, since it needs marshmallow, which pip's isolated build
    environment does not have (only pyproject.toml's [build-system] requirements)."""
    spec = importlib.util.spec_from_file_location("_ningbo_score_sources", ROOT / "ningbo_score" / "_sources.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def say(message: str) -> None:
    print(f"ningbo-score: {message}", file=sys.stderr, flush=True)


def _jobs() -> int:
    raw = os.environ.get("NINGBO_SCORE_JOBS", "").strip()
    if raw:
        return max(1, int(raw))
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def modules_to_compile(compiled: tuple[str, ...]) -> list[str]:
    if os.environ.get("NINGBO_SCORE_PURE", "") not in ("", "0"):
        return []
    chosen = os.environ.get("NINGBO_SCORE_COMPILE", "").replace(",", " ").split()
    unknown = sorted(set(chosen) - set(compiled))
    if unknown:
        raise SystemExit(f"NINGBO_SCORE_COMPILE: not modules of ningbo_score.COMPILED: {', '.join(unknown)}")
    # each module builds alone, in any order: no .pxd cimports another module's types
    # (tests/build/test_build.py checks it)
    wanted = set(chosen or compiled)
    return [name for name in compiled if name in wanted]


def no_compiler_reason() -> str | None:
    """Why no extension module can be built here (None: a C compiler builds one)."""
    try:
        import Cython  # noqa: F401
    except ImportError:
        return "Cython is not installed"
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.c"
        probe.write_text("#include <Python.h>\nint probe(void) { return 0; }\n")
        dist = Distribution({"ext_modules": [Extension("probe", [str(probe)])]})
        cmd = build_ext(dist)
        cmd.build_lib, cmd.build_temp = str(Path(tmp) / "lib"), str(Path(tmp) / "tmp")
        try:
            cmd.ensure_finalized()
            cmd.run()
        except Exception as err:  # CompileError, LinkError, a missing compiler: all mean "no"
            return f"no working C compiler ({type(err).__name__}: {err})".strip()
    return None


class _AnnouncingBuildExt(build_ext):
    """setuptools' own build_ext, saying which module it compiles."""

    total = 0
    done = 0

    def build_extension(self, ext):
        say(f"compiling {ext.name} with the C compiler")
        super().build_extension(ext)
        type(self).done += 1
        say(f"compiled {ext.name} ({type(self).done}/{type(self).total})")


class CompileHotModules(build_ext):
    """``build_ext`` for this package: the modules of ``ningbo_score.COMPILED``, compiled from
    their Python source into ``ningbo_score/_compiled/`` (of the wheel, or of the source tree for
    an editable install), with ``SOURCES``.  (Where no C compiler works there are no extension
    modules: placeholders() below.)"""

    def run(self) -> None:
        package = _sources()
        names = modules_to_compile(package.COMPILED)
        target = Path(self.build_lib) / "ningbo_score" / "_compiled"
        in_tree = self.inplace or getattr(self, "editable_mode", False)
        destinations = [target] + ([package.COMPILED_DIR] if in_tree else [])
        for folder in destinations:
            shutil.rmtree(folder, ignore_errors=True)
        self._outputs: list[str] = []
        from Cython.Build import cythonize

        jobs = _jobs()
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as tmp:
            say(f"translating {len(names)} modules to C with Cython ({jobs} at a time): {' '.join(names)}")
            extensions = cythonize(
                [Extension(f"ningbo_score.{name}", [str(ROOT / "ningbo_score" / f"{name}.py")],
                           extra_compile_args=COMPILE_ARGS) for name in names],
                build_dir=str(Path(tmp) / "c"), compiler_directives=DIRECTIVES, quiet=True,
                nthreads=jobs if jobs > 1 else 0)
            dist = Distribution({"ext_modules": extensions})
            cmd = _AnnouncingBuildExt(dist)
            _AnnouncingBuildExt.total, _AnnouncingBuildExt.done = len(extensions), 0
            cmd.build_lib, cmd.build_temp = str(Path(tmp) / "lib"), str(Path(tmp) / "tmp")
            cmd.parallel = jobs
            cmd.ensure_finalized()
            cmd.run()
            built = sorted((Path(tmp) / "lib" / "ningbo_score").iterdir())
            for folder in destinations:
                folder.mkdir(parents=True)
                for module in built:
                    shutil.copy2(module, folder / module.name)
                (folder / "SOURCES").write_text(package.sources_digest(names), encoding="utf-8")
        self._outputs = [str(target / module.name) for module in built] + [str(target / "SOURCES")]
        self._check_c_types(target, names, destinations)
        say(f"compiled {len(names)} modules in {time.monotonic() - started:.0f} s")

    @staticmethod
    def _check_c_types(compiled_dir: Path, names: list[str], destinations: list[Path]) -> None:
        """The modules as the package will load them: was every ``.pxd`` applied?  A ``.pxd``
        Cython did not read still builds, as untyped Python; such a build is removed (its
        SOURCES first, so the package runs plain) and the build fails."""
        # The build's folder first on the path of a bare package object, as ningbo_score/__init__.py
        # arranges, but without __init__ (its dependencies need not be installed here).
        code = ("import importlib, json, sys, types; p = types.ModuleType('ningbo_score'); "
                "p.__path__ = sys.argv[1:3]; sys.modules['ningbo_score'] = p; "
                "import ningbo_score._sources as s; "
                "m = importlib.import_module('ningbo_score.' + sys.argv[3]); "
                "assert m.__file__.startswith(sys.argv[1]), 'the build is not in use'; "
                "print(json.dumps(s.missing_c_types(sys.argv[3:])))")
        compiled_dir = compiled_dir.resolve()      # (build_lib is relative to the source tree)
        check = subprocess.run([sys.executable, "-c", code, str(compiled_dir), str(ROOT / "ningbo_score"), *names],
                               cwd=compiled_dir, capture_output=True, text=True)
        problem = check.stderr.strip() if check.returncode else json.loads(check.stdout)
        if problem:
            for folder in destinations:
                (folder / "SOURCES").unlink(missing_ok=True)
            raise SystemExit(f"build removed: Cython did not apply these .pxd files (their cdef functions "
                             f"are Python attributes), or the modules do not load: {problem}")

    def get_outputs(self) -> list[str]:
        return list(getattr(self, "_outputs", []))

    def get_output_mapping(self) -> dict[str, str]:
        return {}


def placeholders() -> list[Extension]:
    """The modules to compile, as extension modules (so that the wheel is built per platform and
    build_ext runs; CompileHotModules decides what they are), or none: with NINGBO_SCORE_PURE or
    without a working C compiler the distribution is pure Python, its wheel ``py3-none-any``."""
    names = modules_to_compile(_sources().COMPILED)
    if not names:
        say("not compiling (NINGBO_SCORE_PURE): the library is installed as plain Python")
        return []
    reason = no_compiler_reason()
    if reason:
        say(f"not compiling: {reason}; the library is installed as plain Python (same results, slower)")
        return []
    return [Extension(f"ningbo_score.{name}", [f"ningbo_score/{name}.py"]) for name in names]


setup(ext_modules=placeholders(), cmdclass={"build_ext": CompileHotModules})
