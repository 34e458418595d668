"""service/static.py: the page's files compressed and cacheable (issue 17), served by WhiteNoise
from a set fixed at start (issue 26 C1), through the app's test client
(tests/page/test_page_flow.py checks the same headers as Chromium receives them)."""
from __future__ import annotations

import gzip
import hashlib
import re

import pytest

import app as app_module
from service import static as static_assets


@pytest.fixture
def client():
    return app_module.create_app().test_client()


def test_gzip_where_the_client_names_it(client):
    raw = (static_assets.STATIC_DIR / "calc.css").read_bytes()
    # WhiteNoise's negotiation: gzip when the header names it (q-values are not read)
    for accept, gzipped in [("gzip", True), ("gzip, deflate, br", True), ("br", False), ("identity", False),
                            (None, False)]:
        r = client.get("/static/calc.css", headers={"Accept-Encoding": accept} if accept else {})
        assert r.status_code == 200, accept
        assert r.headers["Vary"] == "Accept-Encoding"
        assert r.headers.get("Content-Encoding") == ("gzip" if gzipped else None), accept
        assert (gzip.decompress(r.data) if gzipped else r.data) == raw, accept
    assert r.mimetype == "text/css" and r.mimetype_params["charset"] == "utf-8"


def test_hashed_names_are_immutable_and_change_with_the_file(client, tmp_path):
    html = client.get("/").get_data(as_text=True)
    refs = re.findall(r'(?:src|href)="/static/([^"]+)"', html)
    # the page's own files, and its manifest and icon (the installable page)
    assert sorted(re.sub(r"\.[0-9a-f]{12}\.", ".", r) for r in refs) == \
        ["calc.css", "calc.js", "icon.svg", "manifest.webmanifest", "tiles.js"]
    for ref in refs:
        stem, digest, ext = re.fullmatch(r"(\w+)\.([0-9a-f]{12})\.(\w+)", ref).groups()
        data = (static_assets.STATIC_DIR / f"{stem}.{ext}").read_bytes()
        assert hashlib.sha256(data).hexdigest()[:12] == digest        # the name is the content's
        r = client.get(f"/static/{ref}")
        assert r.status_code == 200 and r.data == data
        assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        etag = r.headers["ETag"]
        again = client.get(f"/static/{ref}", headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.data == b""
    assert client.get("/").headers["Cache-Control"] == "no-cache"
    assert client.get("/static/calc.css").headers["Cache-Control"] == "no-cache"

    # a copy of static/ whose calc.css changes: a new hashed name in the page
    for path in static_assets.STATIC_DIR.iterdir():
        (tmp_path / "src").mkdir(exist_ok=True)
        (tmp_path / "src" / path.name).write_bytes(path.read_bytes())
    before = static_assets.prepare(tmp_path / "src", str(tmp_path / "build"))
    (tmp_path / "src" / "calc.css").write_text("body { color: red; }\n" * 20)
    after = static_assets.prepare(tmp_path / "src", str(tmp_path / "build"))
    assert after.hashed["calc.css"] != before.hashed["calc.css"]
    assert after.root != before.root and (after.root / "calc.css.gz").is_file()
    assert f"/static/{after.hashed['calc.css']}".encode() in after.page
    assert after.hashed["calc.js"] == before.hashed["calc.js"]


@pytest.mark.parametrize("path", [
    "/static/../app.py", "/static/%2e%2e/app.py", "/static/nope.js", "/static/index.html",
    # other names of a file that exists: only the canonical one is served
    "/static/./calc.js", "/static/x1/../calc.js", "/static/x%2f..%2fcalc.js", "/static//calc.js",
    "/static/calc.js/", "/static/CALC.JS", "/static/calc.js.gz",
    # names the file system refuses (500 before issue 26)
    "/static/%00", "/static/calc.js%00", "/static/" + "a" * 300, "/static/" + "é" * 200,
])
def test_only_canonical_names_and_every_other_path_a_404(client, path):
    r = client.get(path)
    assert r.status_code == 404 and r.mimetype == "application/problem+json", path
    assert len(r.data) < 400                           # the path is shown cut short


def test_nothing_is_read_or_kept_per_request(client, monkeypatch):
    """The files are listed once at start: requests for new names add nothing anywhere."""
    served = client.application.wsgi_app
    while not isinstance(served, static_assets.StaticFiles):
        served = served.wsgi_app if hasattr(served, "wsgi_app") else served.application
    before = dict(served.files)
    for i in range(200):
        assert client.get(f"/static/x{i}/../calc.js").status_code == 404
        assert client.get(f"/static/./calc.js?v={i}").status_code == 404
    assert served.files == before
    assert client.get("/").status_code == 200


def test_the_web_app_manifest_has_its_media_type(client):
    """The manifest (W3C App Manifest: application/manifest+json) under its plain and its hashed
    name; WhiteNoise's table gave it application/octet-stream (issue 38)."""
    page = client.get("/").get_data(as_text=True)
    hashed = re.search(r'href="(/static/manifest\.[0-9a-f]+\.webmanifest)"', page)
    assert hashed, page[:500]
    for path in ("/static/manifest.webmanifest", hashed.group(1)):
        answer = client.get(path)
        assert answer.status_code == 200 and answer.mimetype == "application/manifest+json", path
