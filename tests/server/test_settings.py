"""service/settings.py: every environment variable read once into one frozen Settings, a bad one
refused in one line naming it (issue 24, issue 26's WEB_CONCURRENCY), nothing read or raised at
import; ``python -m service`` (service/__main__.py) reads them before gunicorn."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from service.settings import DEFAULT_METRICS_LISTENER, Settings, SettingsError, cores


def test_the_defaults():
    s = Settings.from_env({})
    assert (s.host, s.port, s.web_concurrency, s.worker_connections) == ("127.0.0.1", 8000, cores(), 1000)
    assert s.metrics_listener == DEFAULT_METRICS_LISTENER and s.health_port == 0
    assert (s.header_timeout, s.io_timeout, s.body_timeout, s.write_timeout) == (10, 10, 20, 10)
    assert s.trusted_proxies is None and s.multiproc_dir is None and s.revision is None
    assert s.static_build_dir is None and s.log_level == "info"
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.port = 1                               # type: ignore[misc]


def test_every_variable_is_read():
    env = {"HOST": "0.0.0.0", "PORT": "9000", "WEB_CONCURRENCY": "3", "WORKER_CONNECTIONS": "50",
           "METRICS_HOST": "::1", "METRICS_PORT": "9001", "HEALTH_PORT": "9002", "FORWARDED_ALLOW_IPS": "10.0.0.0/8",
           "LOG_LEVEL": "DEBUG", "HEADER_TIMEOUT": "1", "IO_TIMEOUT": "2.5", "BODY_TIMEOUT": "3", "WRITE_TIMEOUT": "4",
           "PROMETHEUS_MULTIPROC_DIR": "/tmp/prom", "NINGBO_SCORE_REVISION": " abc123 ", "STATIC_BUILD_DIR": "/tmp/s"}
    s = Settings.from_env(env)
    assert (s.host, s.port, s.web_concurrency, s.worker_connections) == ("0.0.0.0", 9000, 3, 50)
    assert s.metrics_listener == ("::1", 9001) and s.health_port == 9002
    assert [str(n) for n in s.trusted_proxies or ()] == ["10.0.0.0/8"] and s.forwarded_allow_ips == "10.0.0.0/8"
    assert (s.header_timeout, s.io_timeout, s.body_timeout, s.write_timeout) == (1, 2.5, 3, 4)
    assert (s.log_level, s.multiproc_dir, s.revision, s.static_build_dir) == ("debug", "/tmp/prom", "abc123", "/tmp/s")
    assert Settings.from_env({"METRICS_PORT": "0"}).metrics_listener is None


def test_every_bad_variable_is_one_line_naming_it():
    env = {"PORT": "eighty", "WEB_CONCURRENCY": "0", "WORKER_CONNECTIONS": "2.5", "METRICS_PORT": "-1",
           "HEALTH_PORT": "70000", "FORWARDED_ALLOW_IPS": "10.0.0.1/8", "HEADER_TIMEOUT": "soon",
           "IO_TIMEOUT": "inf", "BODY_TIMEOUT": "0", "WRITE_TIMEOUT": "nan", "LOG_LEVEL": "loud"}
    with pytest.raises(SettingsError) as refused:
        Settings.from_env(env)
    assert str(refused.value).splitlines() == [
        "PORT must be an integer, not 'eighty'",
        "WEB_CONCURRENCY must be at least 1, not 0",
        "WORKER_CONNECTIONS must be an integer, not '2.5'",
        "METRICS_PORT must be a port number (0: none), not '-1'",
        "HEALTH_PORT must be at most 65535, not 70000",
        "FORWARDED_ALLOW_IPS: 10.0.0.1/8 has host bits set",
        "HEADER_TIMEOUT must be a number of seconds, not 'soon'",
        "IO_TIMEOUT must be more than 0 s and less than a day, not 'inf'",
        "BODY_TIMEOUT must be more than 0 s and less than a day, not '0'",
        "WRITE_TIMEOUT must be more than 0 s and less than a day, not 'nan'",
        "LOG_LEVEL must be one of critical, error, warning, info, debug, not 'loud'",
    ]
    assert isinstance(refused.value, ValueError)


def test_ports_that_clash_and_an_empty_web_concurrency():
    with pytest.raises(SettingsError, match=r"^METRICS_PORT must differ from PORT \(9000\)$"):
        Settings.from_env({"PORT": "9000", "METRICS_PORT": "9000"})
    with pytest.raises(SettingsError, match=r"^HEALTH_PORT must differ from PORT and METRICS_PORT \(8011\)$"):
        Settings.from_env({"HEALTH_PORT": "8011"})
    # gunicorn reads WEB_CONCURRENCY itself with int(): set but empty is refused, not the default
    with pytest.raises(SettingsError, match=r"^WEB_CONCURRENCY must be an integer, not ''$"):
        Settings.from_env({"WEB_CONCURRENCY": ""})
    assert Settings.from_env({"PORT": ""}).port == 8000           # the others: empty is the default


def test_nothing_reads_the_environment_or_raises_at_import():
    """Every module of the service and gunicorn.conf.py's imports load under bad settings; the
    app factory is what raises (SettingsError), not an import."""
    code = ("import pkgutil, importlib, service\n"
            "for m in pkgutil.walk_packages(service.__path__, 'service.'):\n"
            "    importlib.import_module(m.name)\n"
            "from service import create_app\n"
            "from service.settings import SettingsError\n"
            "try:\n    create_app()\nexcept SettingsError as err:\n    print(err)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PORT": "x", "IO_TIMEOUT": "-1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["PORT must be an integer, not 'x'",
                                        "IO_TIMEOUT must be more than 0 s and less than a day, not '-1'"]


@pytest.mark.parametrize("env, line", [
    ({"WEB_CONCURRENCY": "abc"}, "WEB_CONCURRENCY must be an integer, not 'abc'"),
    ({"PORT": "70000"}, "PORT must be at most 65535, not 70000"),
    ({"IO_TIMEOUT": "inf"}, "IO_TIMEOUT must be more than 0 s and less than a day, not 'inf'"),
])
def test_the_launcher_says_a_bad_setting_in_one_line(env, line):
    """``python -m service`` (the image's CMD, make run, ningbo-score serve): gunicorn would read
    WEB_CONCURRENCY=abc with a traceback before gunicorn.conf.py runs; the launcher reads the
    settings first."""
    done = subprocess.run([sys.executable, "-m", "service"], cwd=ROOT, env={**os.environ, "METRICS_PORT": "0", **env},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == line + "\n"
