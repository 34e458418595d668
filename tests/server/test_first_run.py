"""The first run on a new machine (gunicorn.conf.py, service/settings.py, the Makefile's `run`): the
default metrics port is no well-known exporter's; a port that is taken, or an address that is not
this machine's, ends the start at once in one line naming the variable to set, without a
traceback; `make run` says where to open the page and the docs.  Every port here is one the test
holds or the OS gave it, never a fixed one."""
from __future__ import annotations

import os
import re
import runpy
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from service.settings import DEFAULT_METRICS_LISTENER, Settings
from conftest import ROOT, free_port, wait_until_up

GUNICORN = Path(sys.executable).parent / "gunicorn"


def test_the_default_metrics_port_is_no_exporter_s(monkeypatch):
    """Prometheus gives its exporters 9100-9999 (9100: node_exporter, on many hosts already):
    the default is outside that range, and not the service's own default port."""
    monkeypatch.delenv("METRICS_HOST", raising=False)
    monkeypatch.delenv("METRICS_PORT", raising=False)
    monkeypatch.delenv("PORT", raising=False)
    host, port = Settings.from_env({}).metrics_listener
    assert (host, port) == DEFAULT_METRICS_LISTENER == ("127.0.0.1", 8011)
    assert not 9100 <= port <= 9999
    # gunicorn binds the public port only; the metrics listener (prometheus_client's server in the
    # master) is another port
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert conf["bind"] == ["127.0.0.1:8000"] and conf["_metrics"] == ("127.0.0.1", port)


@pytest.fixture
def held_port():
    """A loopback port some other program listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield other.getsockname()[1]


def start(env: dict[str, str]) -> subprocess.CompletedProcess:
    environment = {**os.environ, "HOST": "127.0.0.1", "WEB_CONCURRENCY": "1", **env}
    environment.pop("NINGBO_SCORE_LISTENING", None)
    return subprocess.run([str(GUNICORN), "-c", "gunicorn.conf.py", "app:app"], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("variable", ["PORT", "METRICS_PORT"])
def test_a_taken_port_is_one_line_naming_the_variable(held_port, variable):
    other = "METRICS_PORT" if variable == "PORT" else "PORT"
    out = start({variable: str(held_port), other: str(free_port())})
    assert out.returncode != 0
    assert out.stderr == (f"127.0.0.1:{held_port} is in use: set {variable} to a free port "
                          f"(e.g. {variable}={held_port + 1})\n"), out.stderr
    assert out.stdout == ""


def test_an_address_not_of_this_machine_names_host():
    # 192.0.2.1: TEST-NET-1 (RFC 5737), an address no machine has
    out = start({"HOST": "192.0.2.1", "PORT": str(free_port()), "METRICS_PORT": "0"})
    assert out.returncode != 0 and "Traceback" not in out.stderr
    (line,) = out.stderr.splitlines()
    assert line.startswith("can't listen on 192.0.2.1:") and line.endswith("set HOST to an address of this machine "
                                                                             "(e.g. HOST=127.0.0.1)"), line


def fake_venv(where: Path) -> Path:
    """A venv for the Makefile whose install steps are done: this one's python (a script that
    runs it: a link to it would not find its venv) and gunicorn."""
    (where / "bin").mkdir(parents=True)
    (where / "bin" / "gunicorn").symlink_to(Path(sys.executable).parent / "gunicorn")
    python = where / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    for stamp in (".runtime", ".build", ".package"):
        (where / stamp).touch()
    return where


def make_run(venv: Path, **env: str) -> subprocess.Popen:
    environment = {**os.environ, "WEB_CONCURRENCY": "1", **env}
    environment.pop("NINGBO_SCORE_LISTENING", None)
    environment.pop("MAKEFLAGS", None)
    return subprocess.Popen(["make", "-s", "run", f"VENV={venv}"], cwd=ROOT, env=environment, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def test_make_run_says_where_to_open_the_page_and_the_docs(tmp_path):
    port = free_port()
    proc = make_run(fake_venv(tmp_path / "venv"), HOST="127.0.0.1", PORT=str(port), METRICS_PORT=str(free_port()))
    try:
        wait_until_up(f"http://127.0.0.1:{port}/healthz", proc)
        first = proc.stdout.readline()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=60)
    assert first == (f"ningbo-score: the page at http://127.0.0.1:{port}/ "
                     f"and the API docs at http://127.0.0.1:{port}/docs\n")


def test_make_run_on_a_taken_port(tmp_path, held_port):
    proc = make_run(fake_venv(tmp_path / "venv"), HOST="127.0.0.1", PORT=str(held_port),
                    METRICS_PORT=str(free_port()))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0
    assert out.startswith("ningbo-score: the page at http://127.0.0.1:")
    # gunicorn's one line, then make's own
    lines = err.splitlines()
    assert lines[0] == f"127.0.0.1:{held_port} is in use: set PORT to a free port (e.g. PORT={held_port + 1})"
    # make's own last word ("make[1]: ***" when make runs it from make, as `make test` does)
    assert len(lines) == 2 and re.match(r"make(\[\d+\])?: \*\*\*", lines[1]), err


@pytest.mark.parametrize("workers", ["abc", "", "2.5"])
def test_make_run_with_a_bad_web_concurrency_is_one_line(tmp_path, workers):
    """gunicorn reads WEB_CONCURRENCY as it loads its own settings (a traceback for a
    non-number): `python -m service` names the variable first, and gunicorn never starts."""
    proc = make_run(fake_venv(tmp_path / "venv"), HOST="127.0.0.1", PORT=str(free_port()),
                    METRICS_PORT=str(free_port()), WEB_CONCURRENCY=workers)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0 and out.startswith("ningbo-score: the page at ") and out.count("\n") == 1
    lines = err.splitlines()
    assert lines[0] == f"WEB_CONCURRENCY must be an integer, not '{workers}'", err
    assert len(lines) == 2 and re.match(r"make(\[\d+\])?: \*\*\*", lines[1]), err
