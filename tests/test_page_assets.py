"""static_assets.py: the page's files compressed and cacheable (issue 17), through the app's
test client (tests/test_page_flow.py checks the same headers as Chromium receives them)."""
from __future__ import annotations

import gzip
import os
import re

import pytest

import app as app_module
import static_assets


@pytest.fixture
def client():
    return app_module.create_app().test_client()


def test_gzip_only_where_the_client_takes_it(client):
    raw = (static_assets.STATIC_DIR / "calc.css").read_bytes()
    for accept, gzipped in [("gzip", True), ("gzip, deflate, br", True), ("*", True), ("br", False),
                            ("gzip;q=0", False), ("identity", False), (None, False)]:
        r = client.get("/static/calc.css", headers={"Accept-Encoding": accept} if accept else {})
        assert r.status_code == 200, accept
        assert r.headers["Vary"] == "Accept-Encoding"
        assert r.headers.get("Content-Encoding") == ("gzip" if gzipped else None), accept
        assert (gzip.decompress(r.data) if gzipped else r.data) == raw, accept
    assert r.mimetype == "text/css" and r.mimetype_params["charset"] == "utf-8"


def test_hashed_urls_are_immutable_and_change_with_the_file(client, tmp_path, monkeypatch):
    html = client.get("/").get_data(as_text=True)
    refs = dict(re.findall(r'(?:src|href)="/static/([^"?]+)\?v=([0-9a-f]{12})"', html))
    assert set(refs) == {"calc.css", "tiles.js", "calc.js", "manifest.webmanifest", "icon.svg"}
    for name, version in refs.items():
        r = client.get(f"/static/{name}?v={version}")
        assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        etag = r.headers["ETag"]
        again = client.get(f"/static/{name}?v={version}", headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.data == b""
    assert client.get("/").headers["Cache-Control"] == "no-cache"
    assert client.get("/static/calc.css").headers["Cache-Control"] == "no-cache"

    # a copy of static/ whose calc.css changes: a new hash in the page, the old URL revalidated
    for path in static_assets.STATIC_DIR.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(static_assets, "STATIC_DIR", tmp_path)
    monkeypatch.setattr(static_assets, "_cache", {})
    before = static_assets.version("calc.css")
    (tmp_path / "calc.css").write_text("body { color: red; }\n" * 20)
    os.utime(tmp_path / "calc.css", ns=(1, 1))
    after = static_assets.version("calc.css")
    assert after != before
    assert f"/static/calc.css?v={after}" in client.get("/").get_data(as_text=True)
    assert client.get(f"/static/calc.css?v={before}").headers["Cache-Control"] == "no-cache"


def test_nothing_outside_static_and_not_the_page_twice(client):
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/%2e%2e/app.py").status_code == 404
    assert client.get("/static/nope.js").status_code == 404
    assert client.get("/static/index.html").status_code == 404      # the page lives at /
    assert client.get("/").status_code == 200
