"""The compiled library (setup.py, ``make compile``: ``pip install -e .``): used only when built from the sources
as they are, and scoring exactly like the plain Python modules."""
from __future__ import annotations

import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import handgen
import ningbo_score
from conftest import ROOT

PLAIN = {**os.environ, "NINGBO_SCORE_PURE": "1"}


def test_the_makefile_compiles_the_modules_the_package_lists():
    makefile = (ROOT / "Makefile").read_text()
    listed = re.search(r"COMPILED_SRC := \$\(addprefix ningbo_score/,\$\(addsuffix \.py,([a-z ]+)\)\)", makefile)
    assert listed and tuple(listed.group(1).split()) == ningbo_score.COMPILED


def test_make_install_built_the_compiled_modules():
    # `make test` runs `make install-dev`, which compiles (this machine has a C compiler)
    assert ningbo_score.USING_COMPILED
    from ningbo_score import decompose

    assert Path(decompose.__file__).parent == ningbo_score.COMPILED_DIR
    assert Path(decompose.__file__).suffix == ".so"


def test_the_build_applied_every_pxd():
    """A .pxd Cython did not read still builds, as untyped Python, and is used (USING_COMPILED);
    each cdef function a .pxd declares is then a module attribute instead of a C function (what
    the old build_ext.py run from another directory did: about 157k more instructions a
    request).  setup.py refuses such a build; this checks the build in use."""
    if not ningbo_score.USING_COMPILED:
        pytest.skip("not compiled here")
    assert "_take" in ningbo_score.pxd_c_functions("decompose")
    assert ningbo_score.missing_c_types() == {}
    # and the check sees a module without its .pxd: the plain one has its cdef functions
    plain = subprocess.run([sys.executable, "-c", "import ningbo_score as p; print(sorted(p.missing_c_types()))"],
                           cwd=ROOT, env=PLAIN, capture_output=True, text=True, check=True)
    assert "decompose" in plain.stdout


def test_no_pxd_cimports_another_modules_types(monkeypatch):
    """The .pxd files type their own module's locals only (decompose.pxd, tiles.pxd): no module's
    extension types are cimported by another, so each module builds alone, in any order, and
    asking the build for one module (NINGBO_SCORE_COMPILE) builds that one."""
    import setuptools
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: None)
    spec = importlib.util.spec_from_file_location("ningbo_setup", ROOT / "setup.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    for pxd in sorted((ROOT / "ningbo_score").glob("*.pxd")):
        cimports = re.findall(r"^\s*(?:from\s+(\S+)\s+)?cimport\s+(\S+)", pxd.read_text(encoding="utf-8"), re.MULTILINE)
        assert all((source or name) == "cython" for source, name in cimports), (pxd.name, cimports)
    monkeypatch.setenv("NINGBO_SCORE_COMPILE", "engine")
    assert build.modules_to_compile(ningbo_score.COMPILED) == ["engine"]


def test_setup_py_imports_nothing_of_the_package():
    """pip's isolated build environment has the [build-system] requirements only, not
    marshmallow: setup.py reads ningbo_score/_sources.py by path and never imports the package
    (tests/build/test_package.py builds that way; this says why it can)."""
    code = ("import runpy, sys; sys.modules['marshmallow'] = None; sys.argv = ['setup.py', '--version']; "
            "runpy.run_path('setup.py', run_name='__main__'); "
            "print(sorted(m for m in sys.modules if m.startswith(('ningbo_score', 'marshmallow'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**PLAIN, "PYTHONPATH": ""},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [ningbo_score.__version__, "['marshmallow']"]   # (the None above)


def test_pxd_c_functions_reads_the_cdef_declarations(tmp_path):
    (tmp_path / "m.pxd").write_text("cimport cython\n"
                                    "cdef int _a(int x) noexcept\n"
                                    "@cython.locals(n=cython.int)\n"
                                    "cdef tuple _b(unsigned long long lo, int k)\n"
                                    "cdef (unsigned long long, bint) _c(int w) noexcept\n"
                                    "cpdef dict shown(tuple t)\n"
                                    "cdef class K:\n"
                                    "    cdef readonly int x\n")
    assert ningbo_score.pxd_c_functions("m", tmp_path) == {"_a", "_b", "_c"}
    assert ningbo_score.pxd_c_functions("absent", tmp_path) == set()


def _using_compiled(package_parent: Path, env=None) -> bool:
    code = "import ningbo_score; print(ningbo_score.USING_COMPILED)"
    out = subprocess.run([sys.executable, "-c", code], cwd=package_parent, env=env, capture_output=True,
                         text=True, check=True)
    return out.stdout.strip() == "True"


def test_a_stale_build_is_not_used(tmp_path):
    if not ningbo_score.USING_COMPILED:
        pytest.skip("not compiled here")
    shutil.copytree(ROOT / "ningbo_score", tmp_path / "ningbo_score",
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert _using_compiled(tmp_path)
    assert not _using_compiled(tmp_path, PLAIN)                 # NINGBO_SCORE_PURE=1
    pxd = sorted((tmp_path / "ningbo_score").glob("*.pxd"))
    assert {p.name for p in pxd} == {"decompose.pxd", "shanten.pxd", "tiles.pxd"}
    for declarations in pxd:
        text = declarations.read_text()
        declarations.write_text(text + "\n# edited after the build\n")
        assert not _using_compiled(tmp_path), declarations.name     # C types changed: rebuild first
        declarations.write_text(text)
        assert _using_compiled(tmp_path)
    source = tmp_path / "ningbo_score" / "payments.py"
    source.write_text(source.read_text() + "\n# edited after the build\n")
    assert not _using_compiled(tmp_path)                        # the edited module runs as written


def test_compiled_and_plain_score_alike(tmp_path):
    """The same 150 generated hands (and some refused ones), scored by the compiled modules here
    and by the plain ones in another process: the same answers, the same problems."""
    rng = random.Random(99)
    requests = [handgen.random_request(rng, n_caishen=n, presets=(p,))
                for n, p in ((0, "ningbo"), (1, "ningbo"), (3, "ningbo"), (7, "ningbo-7baida"), (2, "ningbo-456"))
                for _ in range(30)]
    requests += [{"seat_wind": "E"}, {"seat_wind": "E", "round_wind": "E", "hand": {"concealed": "11111m"},
                                      "win": {"by": "discard"}}]

    def outcome(request):
        try:
            return ningbo_score.score(request)
        except ningbo_score.ScoreError as err:
            return err.to_problem("en")

    here = [outcome(r) for r in requests]
    data = tmp_path / "requests.json"
    data.write_text(json.dumps(requests))
    code = ("import json, sys, ningbo_score\n"
            "assert not ningbo_score.USING_COMPILED\n"
            "out = []\n"
            "for r in json.load(open(sys.argv[1])):\n"
            "    try: out.append(ningbo_score.score(r))\n"
            "    except ningbo_score.ScoreError as e: out.append(e.to_problem('en'))\n"
            "print(json.dumps(out))\n")
    plain = subprocess.run([sys.executable, "-c", code, str(data)], cwd=ROOT, env=PLAIN, capture_output=True,
                           text=True, check=True)
    assert json.loads(plain.stdout) == json.loads(json.dumps(here))
