"""Behind a proxy (issue 25): with ``FORWARDED_ALLOW_IPS`` naming it, the client's address and
scheme that an ingress forwards are the ones logged, and an HTTPS client gets HSTS; without it
(the default) nobody's ``X-Forwarded-*`` headers are believed."""
from __future__ import annotations

import json
import time
import urllib.request

import pytest

from service import create_app
from service.settings import Settings, SettingsError, trusted_proxies
from conftest import gunicorn_server

FORWARDED = {"X-Forwarded-For": "198.51.100.7, 203.0.113.9", "X-Forwarded-Proto": "https"}


def test_forwarded_headers_of_a_trusted_peer_are_believed():
    client = create_app(settings=Settings.from_env({"FORWARDED_ALLOW_IPS": "10.0.0.0/8, 192.0.2.1"})).test_client()
    for peer in ("10.1.2.3", "192.0.2.1"):
        got = client.get("/healthz", headers=FORWARDED, environ_base={"REMOTE_ADDR": peer})
        assert got.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    for peer in ("192.0.2.2", "11.0.0.1", "not an address"):
        got = client.get("/healthz", headers=FORWARDED, environ_base={"REMOTE_ADDR": peer})
        assert "Strict-Transport-Security" not in got.headers, peer


def test_by_default_no_proxy_is_trusted():
    client = create_app().test_client()
    got = client.get("/healthz", headers=FORWARDED, environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert "Strict-Transport-Security" not in got.headers
    assert trusted_proxies("") is None and trusted_proxies(" , ") is None
    assert [str(n) for n in trusted_proxies("*")] == ["0.0.0.0/0", "::/0"]
    with pytest.raises(ValueError, match="FORWARDED_ALLOW_IPS"):
        trusted_proxies("10.0.0.1/8")          # host bits set: a mistake, refused at start
    with pytest.raises(SettingsError, match=r"^FORWARDED_ALLOW_IPS: 10.0.0.1/8 has host bits set$"):
        Settings.from_env({"FORWARDED_ALLOW_IPS": "10.0.0.1/8"})


def _access_line(log_path, path: str) -> dict:
    for _ in range(50):
        for line in log_path.read_text().splitlines():
            if line.startswith("{") and json.loads(line).get("path") == path:
                return json.loads(line)
        time.sleep(0.1)
    raise AssertionError(f"no access line for {path}")


@pytest.mark.slow
@pytest.mark.parametrize("allowed", ["", "127.0.0.1"])
def test_gunicorn_logs_the_client_behind_a_trusted_proxy(tmp_path, allowed):
    log_path = tmp_path / "access.log"
    with gunicorn_server({"FORWARDED_ALLOW_IPS": allowed, "WEB_CONCURRENCY": "1"}, log_path) as (base, _):
        request = urllib.request.Request(f"{base}/v1/levels", headers=FORWARDED)
        with urllib.request.urlopen(request, timeout=10) as answer:
            hsts = answer.headers.get("Strict-Transport-Security")
        line = _access_line(log_path, "/v1/levels")
    if allowed:     # the last proxy's view: the address it saw the client at, and its scheme
        assert line["remote_addr"] == "203.0.113.9" and hsts is not None
    else:
        assert line["remote_addr"] == "127.0.0.1" and hsts is None
