"""The distribution (pyproject.toml, setup.py): built the standard way (pip's build isolation, from
the tree, a git URL or the sdist: ``pip wheel .``, ``pip wheel git+…``, ``python -m build``), a
wheel installs into a fresh virtual environment and works from anywhere (``import ningbo_score``,
``__version__``, ``py.typed``, the ``ningbo-score``
command); compiled where a C compiler works (a wheel auditwheel tags ``manylinux``) and plain
Python where none does (``py3-none-any``), with the same answers; the sdist builds into the same
wheel; an edited installed module is never shadowed by its stale compiled build.

Every build here is isolated, as ``pip install .`` on a fresh clone is: the build environment
holds only pyproject.toml's [build-system] requirements (not marshmallow, not this venv), taken
from a wheelhouse of requirements-build.txt's hashed pins (the one ``make`` fills, or one
downloaded from the package index, as CI would)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import ningbo_score
from conftest import ROOT

# docs/api.md's worked example (tests/library/test_cli.py works it out: 4 台, points 5).
WORKED = ["score", "234678m 99s", "--win", "4m", "--seat", "S", "--caishen", "5p", "--meld", "pung:CCC:E",
          "--meld", "kong:1111s:concealed", "--flowers", "2f", "--json"]
# what a git checkout holds of the distribution (setup.py and pyproject.toml take the rest as is)
DISTRIBUTION = ("pyproject.toml", "setup.py", "LICENSE", "README.md")


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory) -> Path:
    """setuptools and Cython as requirements-build.txt pins them, hashes checked: the wheelhouse
    ``make`` fills (.venv/wheelhouse), or else one downloaded here."""
    made = ROOT / ".venv" / "wheelhouse"
    if (made / ".complete").exists():
        return made
    where = tmp_path_factory.mktemp("wheelhouse")
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--require-hashes",
                    "-r", str(ROOT / "requirements-build.txt"), "-d", str(where)],
                   check=True, capture_output=True, timeout=600)
    return where


def source_copy(where: Path) -> Path:
    """A copy of the distribution's files as a git checkout has them: no build folder, no
    compiled modules, so that nothing of an earlier build is reused."""
    shutil.copytree(ROOT / "ningbo_score", where / "ningbo_score",
                    ignore=shutil.ignore_patterns("__pycache__", "_compiled"))
    for name in DISTRIBUTION:
        shutil.copy2(ROOT / name, where / name)
    return where


def build_env(wheelhouse: Path, **env: str) -> dict[str, str]:
    """The environment of a standard build: pip's isolation on (the default), its build
    requirements from the wheelhouse only; nothing of this checkout on the path."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NINGBO_SCORE_PURE", "NINGBO_SCORE_COMPILE", "PYTHONPATH", "PIP_NO_BUILD_ISOLATION")}
    return {**environment, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse), **env}


def build_wheel(out: Path, wheelhouse: Path, **env: str) -> Path:
    """``pip wheel .`` of a copy of the tree, with build isolation."""
    source = source_copy(out.parent / "source")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
                   env=build_env(wheelhouse, **env), check=True, capture_output=True, timeout=900)
    (wheel,) = out.glob("ningbo_score-*.whl")
    return wheel


def contents(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def pinned(name: str) -> str:
    """The hashed pin of one runtime dependency, as requirements.txt gives it."""
    block = re.search(rf"^{name}==.*?(?=^\S|\Z)", (ROOT / "requirements.txt").read_text(), re.M | re.S)
    assert block, name
    return block.group(0)


def fresh_venv(where: Path, wheel: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=300)
    pins = where.parent / "requirements-library.txt"      # the library's one dependency, pinned
    pins.write_text(pinned("marshmallow"))
    subprocess.run([str(where / "bin" / "python"), "-m", "pip", "install", "-q", "--require-hashes", "-r", str(pins)],
                   check=True, capture_output=True, timeout=300)
    subprocess.run([str(where / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    return where / "bin"


def run_in(bin_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NINGBO_SCORE_PURE", "VIRTUAL_ENV")}
    return subprocess.run(list(args), cwd=cwd, env={**env, "PATH": f"{bin_dir}:{env.get('PATH', '')}"},
                          capture_output=True, text=True, timeout=120)


PROBE = ("import json, ningbo_score, ningbo_score.tiles as t, ningbo_score.decompose as d, pathlib\n"
         "here = pathlib.Path(ningbo_score.__file__).parent\n"
         "print(json.dumps({'version': ningbo_score.__version__, 'compiled': ningbo_score.USING_COMPILED,\n"
         "  'tiles': pathlib.Path(t.__file__).name, 'decompose': pathlib.Path(d.__file__).name,\n"
         "  'typed': (here / 'py.typed').is_file(), 'where': str(here)}))\n")


def probe(bin_dir: Path, cwd: Path) -> dict:
    out = run_in(bin_dir, "python", "-c", PROBE, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def worked_example(bin_dir: Path, cwd: Path) -> dict:
    out = run_in(bin_dir, "ningbo-score", *WORKED, cwd=cwd)      # the console script of the wheel
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_metadata_licence_and_version():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = meta["project"]
    assert project["name"] == "ningbo-score" and project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    # what a package index shows: the README as the long description, the Pythons it runs on
    assert project["readme"] == {"file": "README.md", "content-type": "text/markdown"}
    assert (ROOT / "README.md").read_text(encoding="utf-8").startswith("# ")
    assert {f"Programming Language :: Python :: 3.{minor}" for minor in (11, 12, 13)} <= set(project["classifiers"])
    assert project["requires-python"] == ">=3.11" and project["keywords"]
    assert project["scripts"] == {"ningbo-score": "ningbo_score.cli:main"}
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "ningbo_score._version.__version__"}
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Copyright (c) 2026 the ningbo-score authors" in licence
    assert ningbo_score.__version__ == "4.0.0"
    assert f"## [{ningbo_score.__version__}]" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_build_requirements_are_the_hashed_build_pins():
    """pyproject.toml's [build-system] (what an isolated build installs) pins exactly the
    versions requirements-build.txt hashes (what `make` and the Dockerfile download)."""
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    locked = re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)", (ROOT / "requirements-build.txt").read_text(), re.M)
    assert sorted(r.lower() for r in requires) == sorted(f"{name}=={version}" for name, version in locked)


def test_a_compiled_wheel_in_a_fresh_venv(tmp_path, wheelhouse):
    # only tiles compiled (NINGBO_SCORE_COMPILE), to keep the test short: the same build path as
    # all of ningbo_score.COMPILED, which `make install` compiles (tests/build/test_build.py)
    built = build_wheel(tmp_path / "dist", wheelhouse, NINGBO_SCORE_COMPILE="tiles")
    assert built.name.endswith("-cp311-cp311-linux_x86_64.whl"), built.name
    # auditwheel gives it the manylinux tag a package index takes (the modules need only libc)
    bin_dir = Path(sys.executable).parent
    repair = subprocess.run([str(bin_dir / "auditwheel"), "repair", "-w", str(tmp_path / "repaired"), str(built)],
                            env={**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"},
                            capture_output=True, text=True, timeout=300)
    assert repair.returncode == 0, repair.stderr
    (wheel,) = (tmp_path / "repaired").glob("ningbo_score-*.whl")
    assert re.search(r"-cp311-cp311-(manylinux[\w.]*_x86_64\.)*manylinux_2_\d+_x86_64\.whl$", wheel.name), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "ningbo_score/py.typed" in names and "ningbo_score/decompose.pxd" in names
    assert "ningbo_score/_compiled/SOURCES" in names and "ningbo_score/_sources.py" in names
    compiled = [n for n in names if n.endswith(".so")]
    assert compiled == [n for n in names if n.startswith("ningbo_score/_compiled/tiles.")]
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    bin_dir = fresh_venv(tmp_path / "venv", wheel)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    seen = probe(bin_dir, elsewhere)
    assert seen["version"] == ningbo_score.__version__ and seen["typed"]
    assert seen["where"].startswith(str(tmp_path / "venv"))
    assert seen["compiled"] and seen["tiles"].endswith(".so") and seen["decompose"] == "decompose.py"
    body = worked_example(bin_dir, elsewhere)
    assert (body["tai"], body["points"]) == (4, 5)
    # an installed module edited after the build runs as written, not as its stale compiled copy
    installed = Path(seen["where"]) / "tiles.py"
    installed.write_text(installed.read_text(encoding="utf-8") + "\n# edited after the build\n", encoding="utf-8")
    seen = probe(bin_dir, elsewhere)
    assert not seen["compiled"] and seen["tiles"] == "tiles.py"
    assert worked_example(bin_dir, elsewhere) == body


@pytest.fixture(scope="module")
def plain_wheel(tmp_path_factory, wheelhouse) -> Path:
    """The wheel built where the C compiler does not work (CC=false)."""
    return build_wheel(tmp_path_factory.mktemp("plain") / "dist", wheelhouse, CC="false")


def test_without_a_c_compiler_the_wheel_is_plain_python(tmp_path, plain_wheel):
    assert plain_wheel.name == f"ningbo_score-{ningbo_score.__version__}-py3-none-any.whl"
    names = zipfile.ZipFile(plain_wheel).namelist()
    assert not [n for n in names if "_compiled" in n or n.endswith(".so")]
    bin_dir = fresh_venv(tmp_path / "venv", plain_wheel)
    seen = probe(bin_dir, tmp_path)
    assert not seen["compiled"] and seen["tiles"] == "tiles.py" and seen["typed"]
    body = worked_example(bin_dir, tmp_path)
    assert (body["tai"], body["points"], body["net"]) == (4, 5, {"E": -5, "S": 15, "W": -5, "N": -5})


def test_python_m_build_s_sdist_builds_into_the_same_wheel(tmp_path, wheelhouse, plain_wheel):
    """`python -m build`: the sdist, then the wheel built from it (isolated both), here without a
    C compiler: file for file the wheel `pip wheel .` builds from the tree."""
    source = source_copy(tmp_path / "source")
    out = tmp_path / "dist"
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)],
                          env=build_env(wheelhouse, CC="false"), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (sdist,) = out.glob("ningbo_score-*.tar.gz")
    (wheel,) = out.glob("ningbo_score-*.whl")
    top = f"ningbo_score-{ningbo_score.__version__}/"
    with tarfile.open(sdist) as archive:
        files = {name.removeprefix(top) for name in archive.getnames()}
    assert set(DISTRIBUTION) | {"ningbo_score/_sources.py", "ningbo_score/_version.py", "ningbo_score/py.typed",
                                "ningbo_score/decompose.pxd"} <= files
    assert not [f for f in files if "_compiled" in f or f.endswith((".so", ".c"))]
    assert wheel.name == plain_wheel.name
    assert contents(wheel) == contents(plain_wheel)


def test_a_partial_build_record_covers_only_its_modules(tmp_path):
    """SOURCES may list a subset of COMPILED: then only that subset's digest must match."""
    listed = ningbo_score.sources_digest(["tiles"])
    assert listed.splitlines()[0].startswith("tiles ") and listed.splitlines()[1].startswith("tiles.pxd ")
    assert len(listed.splitlines()) == 2
    one_by_one = "".join(ningbo_score.sources_digest([name]) for name in ningbo_score.COMPILED)
    assert ningbo_score.sources_digest() == one_by_one


def test_pip_builds_it_from_a_git_url(tmp_path, wheelhouse, plain_wheel):
    """`pip install git+…`: pip clones the repository and builds the clone, isolated."""
    repo = source_copy(tmp_path / "repo")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the distribution"]):
        subprocess.run(git + args, cwd=repo, check=True, capture_output=True, timeout=120)
    out = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), f"git+file://{repo}"],
                   env=build_env(wheelhouse, CC="false"), check=True, capture_output=True, timeout=900)
    (wheel,) = out.glob("ningbo_score-*.whl")
    assert contents(wheel) == contents(plain_wheel)


@pytest.mark.parametrize("value", ["nonesuch", "tiles,nonesuch"])
def test_an_unknown_module_to_compile_is_refused(tmp_path, wheelhouse, value):
    with pytest.raises(subprocess.CalledProcessError) as failed:
        build_wheel(tmp_path / "dist", wheelhouse, NINGBO_SCORE_COMPILE=value)
    assert b"NINGBO_SCORE_COMPILE: not modules of ningbo_score.COMPILED: nonesuch" in failed.value.stderr


# the flags of `mypy --strict` (mypy 1.x), which pyproject.toml sets for the library
MYPY_STRICT_FLAGS = {"check_untyped_defs", "disallow_untyped_defs", "disallow_incomplete_defs",
                     "disallow_untyped_calls", "disallow_untyped_decorators", "disallow_any_generics",
                     "disallow_subclassing_any", "warn_return_any", "no_implicit_reexport", "extra_checks"}


def test_the_checks_hide_nothing():
    """ruff and mypy (run by `make test`) check every file they are given: no module is exempt
    from mypy's errors, the library is checked strictly, and ruff ignores nothing per file in the
    library or the service."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    mypy = config["tool"]["mypy"]
    assert {"warn_unused_configs", "warn_redundant_casts", "warn_unused_ignores", "strict_equality"} <= {
        k for k, v in mypy.items() if v is True}
    overrides = mypy["overrides"]
    assert not [o["module"] for o in overrides if o.get("ignore_errors")]
    (library,) = [o for o in overrides if "ningbo_score.*" in o["module"]]
    assert all(library.get(flag) is True for flag in MYPY_STRICT_FLAGS), library
    assert "ningbo_score" in mypy["files"] and "app.py" in mypy["files"]
    ignored = config["tool"]["ruff"]["lint"].get("per-file-ignores", {})
    assert all(path.startswith("tests/") for path in ignored), ignored
