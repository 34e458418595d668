"""The README is a newcomer's page: at most 300 lines, and its JavaScript example runs as it is
(in Node's own fetch, against the service) and prints what its comment says, as its Python
example does (and mypy --strict takes it).  Its curl example
is checked with the others (tests/http/test_api.py, README.md and docs/examples.md)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import threaded_server

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 300


def test_the_readme_links_to_files_that_exist():
    for target in re.findall(r"\]\(([^)#:]+)\)", README):
        assert (ROOT / target).exists(), target


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js on this machine")
def test_the_javascript_example_runs(tmp_path):
    (code,) = re.findall(r"```js\n(.*?)```", README, flags=re.S)
    from service import create_app

    with threaded_server(create_app()) as base:
        script = tmp_path / "example.mjs"          # top-level await: an ES module
        script.write_text(code.replace("http://127.0.0.1:8000", base), encoding="utf-8")
        out = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # the worked example (docs/api.md): 4 台, eligible, S collects 3 x 5 = 15
    assert out.stdout.strip() == "4 true { E: -5, S: 15, W: -5, N: -5 }"
    assert "// 4 true {E: -5, S: 15, W: -5, N: -5}" in code


def test_the_python_example_runs_and_type_checks(tmp_path):
    """README's "From Python" example prints what its comments say, and mypy --strict takes it."""
    (code,) = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    said = [line.split("# ", 1)[1] for line in code.splitlines() if "print(" in line]
    # the worked example (docs/api.md): 4 台, eligible, S collects 3 x 5 = 15; 科长 (level 3) has base
    # points 20, so escaping costs 24 x 20 = 480; seat X is no seat
    assert said == ["4 True {'E': -5, 'S': 15, 'W': -5, 'N': -5}", "480",
                    "invalid_request {'seat_wind': ['必须是以下之一：E, S, W, N。']}"]
    assert out.stdout.splitlines() == said
    checked = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir",
                              str(tmp_path / "cache"), "--config-file", str(ROOT / "pyproject.toml"), str(script)],
                             cwd=ROOT, capture_output=True, text=True, timeout=600, env={**env, "MYPYPATH": str(ROOT)})
    assert checked.returncode == 0, checked.stdout + checked.stderr
