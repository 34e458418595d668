"""`schemathesis run --checks all` over the served ``/openapi.yaml`` of a live server (the real
gunicorn on a free loopback port), with the committed ``schemathesis.toml`` (issue 14).

Every check runs: no 5xx, documented statuses, content types and headers (``X-Request-ID``),
bodies as documented, invalid data refused, valid data accepted (2xx, or a 422 for a hand that
no schema can tell impossible: the reasons are in the toml).  The number of examples per
operation is bounded here; ``schemathesis run`` by hand uses the toml's 100.
"""
from __future__ import annotations

import subprocess

import pytest
import schemathesis
import yaml

from conftest import ROOT, VENV_BIN, gunicorn_server

MAX_EXAMPLES = 15  # per operation and phase: about a minute on 2 cores
SEED = 20261201  # the same cases each run; change it to explore others

pytestmark = pytest.mark.slow


def test_schemathesis_toml_relaxes_only_what_it_says():
    config = schemathesis.Config.from_path(ROOT / "schemathesis.toml").projects.default
    assert config.checks.positive_data_acceptance.expected_statuses == ["2xx", "422"]
    batch, session, preset = config.operations.operations
    assert batch.checks.positive_data_acceptance.expected_statuses == ["2xx"]
    # a session's score and replay hands are opaque objects: a schema-valid `{"score": {}}` is its
    # hand reader's 400 (with hand_index)
    assert session.checks.positive_data_acceptance.expected_statuses == ["2xx", "400", "422"]
    # the preset id is open (issue 38): an id this version does not know is its documented 404
    assert preset.checks.positive_data_acceptance.expected_statuses == ["2xx", "404"]


def test_schemathesis_run_checks_all_passes(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    with gunicorn_server({"HOME": str(home), "XDG_RUNTIME_DIR": str(home), "WEB_CONCURRENCY": "2"}) as (base, _):
        done = subprocess.run(
            [str(VENV_BIN / "schemathesis"), "--config-file", str(ROOT / "schemathesis.toml"), "run",
             f"{base}/openapi.yaml", "--checks", "all", "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED),
             "--workers", "2", "--request-timeout", "10", "--no-color"],
            cwd=tmp_path, capture_output=True, text=True, timeout=600,
        )
    report = done.stdout[-20000:] + done.stderr[-4000:]
    assert done.returncode == 0, report
    document = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    operations = sum(len(item) for item in document["paths"].values())
    assert f"Tested: {operations}" in done.stdout, report  # every operation, none skipped
