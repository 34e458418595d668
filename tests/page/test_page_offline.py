"""Scoring with no signal (issue 42, point 8): the ningbo_score library running in the browser on
Pyodide, offered as an explicit download with its size, kept by the service worker, used only
when the server can't be reached, and answering the golden cases byte for byte as the server does.

Needs ``make offline`` (build/offline/: Pyodide from the npm registry, the pure-Python wheels);
without it the page says the download is not offered (checked too), and the library's own tests
here are skipped with that reason.
"""
from __future__ import annotations

import gzip
import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from service.bodies import language_of
from service.offline import OFFLINE_DIR
from test_page import application, base_url, browser, idle, make_page, open_page  # noqa: F401

PHONE = {"width": 390, "height": 844, "has_touch": True, "is_mobile": True}
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "cases.jsonl.gz"
LOCAL = ("/v1/score", "/v1/waits", "/v1/analyze")
BUILT = (OFFLINE_DIR / "manifest.json").is_file()
needs_build = pytest.mark.skipif(not BUILT, reason="build/offline/ missing: run `make offline` (npm registry)")


def _server(base_url: str, case: dict) -> tuple[int, bytes]:
    req = urllib.request.Request(base_url + case["path"], data=json.dumps(case["json"]).encode(), method="POST",
                                 headers={"Content-Type": "application/json", **case["headers"]})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def _download(pg) -> dict:
    manifest = json.loads((OFFLINE_DIR / "manifest.json").read_text())
    box = pg.locator("#offline-box")
    size = f"{manifest['gzip_bytes'] / 1e6:.1f}"
    button = box.get_by_role("button", name=f"下载（{size} 兆）")
    expect(button).to_be_visible()
    button.tap()
    expect(box.locator("#off-state")).to_have_text("已下载：连不上服务时在这部手机上算。", timeout=120000)
    return manifest


@needs_build
def test_offline_library_answers_the_golden_cases_as_the_server_does(make_page, base_url):
    pg = make_page(**PHONE, locale="zh-CN")
    open_page(pg, base_url, "#lang=zh")
    manifest = _download(pg)
    started = time.monotonic()
    ready = pg.evaluate("window.nbOffline.start()")
    start_s = time.monotonic() - started
    cases = [c for c in map(json.loads, gzip.open(GOLDEN, "rt")) if c["path"] in LOCAL and "json" in c]
    assert len(cases) > 2000
    mismatched = []
    for i in range(0, len(cases), 100):
        chunk = cases[i:i + 100]
        calls = [[c["path"], json.dumps(c["json"]), language_of(c["headers"].get("Accept-Language"))] for c in chunk]
        local = pg.evaluate("async (calls) => { const out = []; for (const [p, b, l] of calls) {"
                            " const r = await window.nbOffline.answer(p, b, l); out.push([r.status, r.text]); }"
                            " return out; }", calls)
        for case, (status, text) in zip(chunk, local):
            server_status, server_body = _server(base_url, case)
            if (status, text.encode()) != (server_status, server_body):
                mismatched.append((case["path"], case["json"], status, text[:200], server_body[:200]))
    assert mismatched == [], (len(mismatched), mismatched[:3])
    print(f"\noffline: download {manifest['gzip_bytes']} B gzipped ({manifest['bytes']} B), start {start_s:.1f} s "
          f"(worker's own {ready['ms']} ms), wasm memory {ready['memory']} B, {len(cases)} golden cases identical")


@needs_build
def test_offline_scoring_is_used_only_without_the_server(make_page, base_url):
    pg = make_page(**PHONE, locale="zh-CN")
    open_page(pg, base_url, "#lang=zh")
    _download(pg)
    pg.reload()                                          # under the service worker
    idle(pg)
    # with the server: its answer, not the phone's
    open_page(pg, base_url, "#lang=zh&s=E&r=E&h=111m222p333sEENN")
    pg.locator('#palette button[data-tile="N"]').tap()
    idle(pg)
    expect(pg.locator("#tai-total")).to_have_text("5")
    expect(pg.locator("#local-note")).to_have_count(0)
    # no signal: the same hand scored on the phone.  111m 222p 333s NNN EE won on N by self-draw,
    # seat E: 碰碰胡 2 + 自摸 1 + 硬胡 1 + 对倒 1 = 5 台, P = 6, each of the three pays 6
    pg.context.set_offline(True)
    started = time.monotonic()
    pg.locator("#undo").tap()                           # 13 tiles: the waits, from the phone
    expect(pg.locator("#local-note")).to_have_text("离线：这是在这部手机上算的。", timeout=120000)
    first_answer_s = time.monotonic() - started
    expect(pg.locator("table.waits tbody tr")).to_have_count(2)          # on E or on N (对倒)
    idle(pg)
    pg.locator('#palette button[data-tile="N"]').tap()
    idle(pg)
    expect(pg.locator("#local-note")).to_be_visible()
    expect(pg.locator("#tai-total")).to_have_text("5")
    expect(pg.locator("#verdict")).to_contain_text("5 台")
    print(f"\noffline: last tap to the first offline verdict {first_answer_s:.1f} s (the library started in that time)")
    pg.context.set_offline(False)


def test_offline_without_the_download_says_why(make_page, base_url):
    pg = make_page(**PHONE, locale="zh-CN")
    open_page(pg, base_url, "#lang=zh&s=E&r=E&h=111m222p333sEENN")
    if BUILT:
        expect(pg.locator("#off-download")).to_be_visible()
        why = "这部手机没有下载离线计分，所以没有在本机算"
    else:
        expect(pg.locator("#off-state")).to_have_text("这台服务器没有提供离线计分。")
        why = "这台服务器没有提供离线计分，所以没有在本机算。"
    pg.context.set_offline(True)
    pg.locator('#palette button[data-tile="N"]').tap()
    idle(pg)
    expect(pg.locator("#offline-why")).to_contain_text(why)
    pg.context.set_offline(False)
