"""The README is a newcomer's page: at most 300 lines, and its JavaScript example runs as it is
(in Node's own fetch, against the service) and prints what its comment says.  Its curl example
is checked with the others (tests/test_api.py, README.md and docs/examples.md)."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import threaded_server

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 300


def test_the_readme_links_to_files_that_exist():
    for target in re.findall(r"\]\(([^)#:]+)\)", README):
        assert (ROOT / target).exists(), target


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js on this machine")
def test_the_javascript_example_runs(tmp_path):
    (code,) = re.findall(r"```js\n(.*?)```", README, flags=re.S)
    from app import create_app

    with threaded_server(create_app()) as base:
        script = tmp_path / "example.mjs"          # top-level await: an ES module
        script.write_text(code.replace("http://127.0.0.1:8000", base), encoding="utf-8")
        out = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # the worked example (docs/api.md): 4 台, eligible, S collects 3 x 5 = 15
    assert out.stdout.strip() == "4 true { E: -5, S: 15, W: -5, N: -5 }"
    assert "// 4 true {E: -5, S: 15, W: -5, N: -5}" in code
