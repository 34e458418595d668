"""Scoring with no signal on a throttled phone profile (issue 42, point 8): the calculator page in
headless Chromium at 390 × 844 (touch), its CPU slowed 4 times (DevTools Protocol
``Emulation.setCPUThrottlingRate``) and its network DevTools' "Fast 3G" (``Network.
emulateNetworkConditions``: 562.5 ms round trip, 1.44 Mbit/s down, 675 kbit/s up), a local server.

Measured: the page's first load; the 离线计分 download (tap to "已下载"); with the signal gone, the
time from the tap that completes a hand to its verdict scored on the phone (the library's cold
start in its worker: Pyodide, the two wheels, the import) and to the next answer; and the memory
(the worker's WebAssembly heap, the page's JavaScript heap).

    make offline && PYTHONPATH=$PWD python bench/offline_phone.py

Needs build/offline/ (``make offline``).  ``--cpu 1``: the same with the CPU at full speed (a
control: Chromium's CPU throttle is the page's; the library runs in a dedicated worker)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import app as app_module  # noqa: E402
from service.offline import OFFLINE_DIR  # noqa: E402
from _chromium import chromium_path  # noqa: E402
from conftest import threaded_server  # noqa: E402

# DevTools' "Fast 3G" preset (its throughput is 90 % of the nominal 1.6 / 0.75 Mbit/s)
FAST_3G = {"offline": False, "latency": 562.5, "downloadThroughput": 1.6e6 / 8 * 0.9,
           "uploadThroughput": 0.75e6 / 8 * 0.9}
CPU_SLOWDOWN = 4
HAND = "#lang=zh&s=E&r=E&h=111m222p333sEENN"       # 13 tiles: the 14th (N) makes the hand to score
LONG = 900_000                                      # ms: the throttled library may take minutes


def throttle(ctx, pg, network: bool = True):
    cdp = ctx.new_cdp_session(pg)
    if network:
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", FAST_3G)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    return cdp


def idle(pg):
    expect(pg.locator("#app")).to_have_attribute("data-busy", "0", timeout=LONG)


def phone(browser, **options):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True,
                              locale="zh-CN", **options)
    return ctx, ctx.new_page()


def download(pg):
    button = pg.locator("#off-download")
    button.scroll_into_view_if_needed()
    started = time.monotonic()
    button.tap()
    expect(pg.locator("#off-state")).to_have_text("已下载：连不上服务时在这部手机上算。", timeout=LONG)
    return time.monotonic() - started


def main() -> None:
    global CPU_SLOWDOWN
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", type=float, default=CPU_SLOWDOWN, help="the CPU slowdown (1: none)")
    CPU_SLOWDOWN = ap.parse_args().cpu
    manifest_file = OFFLINE_DIR / "manifest.json"
    if not manifest_file.is_file():
        raise SystemExit("build/offline/ missing: run `make offline` first")
    manifest = json.loads(manifest_file.read_text())
    with threaded_server(app_module.create_app()) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"])
        # 1. the page and the download over Fast 3G.  (The service worker's own requests are not the
        # page's target, so the emulation would miss them: here the page fetches with no service
        # worker, the same requests at the same speed.)
        ctx, pg = phone(browser, service_workers="block")
        throttle(ctx, pg)
        started = time.monotonic()
        pg.goto(base + "/" + HAND, timeout=LONG)
        idle(pg)
        load_s = time.monotonic() - started
        download_s = download(pg)
        ctx.close()

        # 2. a phone that has it (downloaded at full speed, not measured), no signal, the CPU slowed
        ctx, pg = phone(browser)
        pg.goto(base + "/" + HAND)
        idle(pg)
        download(pg)
        pg.reload()                                      # under the service worker, as a phone opens it again
        idle(pg)
        throttle(ctx, pg, network=False)
        ctx.set_offline(True)                            # the page's, its worker's and the service worker's
        started = time.monotonic()
        pg.locator('#palette button[data-tile="N"]').tap()
        expect(pg.locator("#local-note")).to_be_visible(timeout=LONG)
        expect(pg.locator("#tai-total")).to_have_text("5", timeout=LONG)
        first_s = time.monotonic() - started
        idle(pg)
        started = time.monotonic()
        pg.locator("#undo").tap()                        # 13 tiles: its waits, from the library already started
        expect(pg.locator("table.waits tbody tr")).to_have_count(2, timeout=LONG)
        expect(pg.locator("#local-note")).to_be_visible()
        next_s = time.monotonic() - started
        ready = pg.evaluate("window.nbOffline.start()")
        js_heap = pg.evaluate("performance.memory ? performance.memory.usedJSHeapSize : null")
        browser.close()

    print(f"Chromium 390 × 844, CPU ÷{CPU_SLOWDOWN:g}, Fast 3G (562.5 ms, 1.44 Mbit/s down) for the page and "
          "the download:")
    print(f"  download offered: {manifest['gzip_bytes']:,} B as sent (gzip), {manifest['bytes']:,} B kept")
    print(f"  first load of the page: {load_s:.1f} s")
    print(f"  the download (tap -> kept): {download_s:.1f} s")
    print(f"  no signal, tap -> the first offline verdict (cold start of the library): {first_s:.1f} s "
          f"(the worker's own start {ready.get('ms')} ms)")
    print(f"  the next offline answer (tap -> waits): {next_s:.2f} s")
    print(f"  memory: WebAssembly heap {ready.get('memory'):,} B; the page's JavaScript heap {js_heap:,} B")


if __name__ == "__main__":
    main()
