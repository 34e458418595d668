"""The calculator page measured at phone size (390 × 844, touch) in headless Chromium: for four
hands entered from a blank page as a player would, the taps, the distance scrolled to reach the
next control, and the time from the last tap to the verdict in the bar (a local server); and an
evening of five hands recorded with one correction (issue 42): its taps, the distance scrolled,
and the time from the last tap to the settled evening on the page.

    PYTHONPATH=$PWD python bench/page_taps.py [--static DIR] [--runs 5]

``--static DIR`` serves another copy of static/ (an older page, say, for a before/after). The
taps are counted, not timed: the time is the median over the runs of each hand."""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import app as app_module  # noqa: E402
from service import static as static_assets  # noqa: E402
from _chromium import chromium_path  # noqa: E402
from conftest import threaded_server  # noqa: E402

# (name, actions): ("tile", code), ("mode", name), ("seat", wind), ("by", value), ("claim", wind), and
# ("ctx", "") / ("done", "") to open and close the win's controls under the bar (the new page only)
HANDS = [
    ("A 111m 222p 333s EE + NNN, self-draw (seat E)",
     [("tile", c) for c in ["1m", "1m", "1m", "2p", "2p", "2p", "3s", "3s", "3s", "E", "E", "N", "N", "N"]]),
    ("B docs/api.md's worked example (pung, concealed kong, flower, 包)",
     [("seat", "S"), ("mode", "indicator"), ("tile", "5p"), ("tile", "9s"), ("tile", "9s"), ("mode", "run"),
      ("tile", "6m"), ("tile", "2m"), ("mode", "pung"), ("tile", "C"), ("mode", "ckong"), ("tile", "1s"),
      ("tile", "2f"), ("claim", "W")]),
    ("C 123m 456m 789p 11s 24s + 3s off North's discard",
     [("by", "discard")] + [("tile", c) for c in ["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "1s", "1s",
                                                  "2s", "4s", "3s"]]),
    ("B' the same, the win's controls opened from the bar",
     [("ctx", ""), ("seat", "S"), ("claim", "W"), ("done", ""), ("mode", "indicator"), ("tile", "5p"), ("tile", "9s"),
      ("tile", "9s"), ("mode", "run"), ("tile", "6m"), ("tile", "2m"), ("mode", "pung"), ("tile", "C"),
      ("mode", "ckong"), ("tile", "1s"), ("tile", "2f")]),
    ("C' the same, the win's controls opened from the bar",
     [("ctx", ""), ("by", "discard"), ("done", "")] + [("tile", c) for c in ["1m", "2m", "3m", "4m", "5m", "6m", "7p",
                                                                           "8p", "9p", "1s", "1s", "2s", "4s", "3s"]]),
    ("D 111m 222p 333s EE NN 9s, no win: what to discard",
     [("tile", c) for c in ["1m", "1m", "1m", "2p", "2p", "2p", "3s", "3s", "3s", "E", "E", "N", "N", "9s"]]),
]

# The time of the last tap (pointer up) and of the verdict line's last change, in the page's clock.
PROBE = """
window.__tap = 0; window.__verdict = 0; window.__evening = 0;
addEventListener('pointerup', () => { window.__tap = performance.now(); }, true);
addEventListener('DOMContentLoaded', () => {
  new MutationObserver(() => { window.__verdict = performance.now(); })
    .observe(document.getElementById('verdict'), {childList: true, characterData: true, subtree: true});
  new MutationObserver(() => { window.__evening = performance.now(); })
    .observe(document.getElementById('session-body'), {childList: true, characterData: true, subtree: true});
});
"""


def locate(pg, action):
    kind, arg = action
    return {
        "tile": lambda: pg.locator(f'#palette button[data-tile="{arg}"]'),
        "mode": lambda: pg.locator(f'.modes button[data-mode="{arg}"]'),
        "seat": lambda: pg.locator(f'#seat button[data-seat="{arg}"]'),
        "by": lambda: pg.locator(f'input[name="by"][value="{arg}"]').locator("xpath=.."),
        "claim": lambda: pg.locator(f'#claims button[data-seat="{arg}"][data-step="1"]'),
        "ctx": lambda: pg.locator("#bar-context"),       # the win's controls, opened under the bar
        "done": lambda: pg.locator("#ctx-done"),
        "start": lambda: pg.locator("#ses-start"),        # the evening: its four names as they are
        # record the hand (or save the one corrected): the bar's button beside the verdict where the page
        # has one (issue 42), else the evening card's
        "add": lambda: pg.locator("#bar-record:visible, #ses-add").first,
        "edit": lambda: pg.locator(f'button.ses-edit[data-index="{arg}"]'),
    }[kind]()


def idle(pg):
    pg.wait_for_selector('#app[data-busy="0"]', state="attached")


def open_phone(browser, base: str):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="en-US")
    ctx.add_init_script(PROBE)
    pg = ctx.new_page()
    pg.goto(base + "/#lang=en")
    idle(pg)
    return ctx, pg


def play(pg, actions) -> tuple[int, int]:
    """Each action tapped as a player would (scrolled to first): the taps and the distance scrolled."""
    taps = scrolled = 0
    for action in actions:
        before = pg.evaluate("scrollY")
        loc = locate(pg, action)
        loc.scroll_into_view_if_needed()
        scrolled += abs(pg.evaluate("scrollY") - before)
        loc.tap()
        taps += 1
        idle(pg)
    pg.wait_for_timeout(300)                       # the verdict settled: no later change
    return taps, int(scrolled)


def measure(browser, base: str, actions) -> tuple[int, int, float, str]:
    ctx, pg = open_phone(browser, base)
    taps, scrolled = play(pg, actions)
    ms = pg.evaluate("window.__verdict - window.__tap")
    verdict = pg.locator("#verdict").inner_text()
    ctx.close()
    return taps, scrolled, ms, verdict


A = HANDS[0][1]
B = HANDS[1][1]
# Five wins recorded (A by seat E, then the worked example by seat S, in turn); then hand 1
# corrected: won on North's discard, not by self-draw (docs/rules.md: 4 台, still a win).
EVENING = ([("start", "")] + A + [("add", "")] + B + [("add", "")] + A + [("add", "")] + B + [("add", "")] + A +
           [("add", ""), ("edit", "0"), ("by", "discard"), ("add", "")])
# The same evening by the bar's routes: hand B's seat and claim through the win's controls opened from the
# bar (B'), and the correction's change too
B2 = HANDS[3][1]
EVENING_BAR = ([("start", "")] + A + [("add", "")] + B2 + [("add", "")] + A + [("add", "")] + B2 + [("add", "")] + A +
               [("add", ""), ("edit", "0"), ("ctx", ""), ("by", "discard"), ("done", ""), ("add", "")])


def measure_evening(browser, base: str, actions=EVENING) -> tuple[int, int, float, str]:
    ctx, pg = open_phone(browser, base)
    taps, scrolled = play(pg, actions)
    ms = pg.evaluate("window.__evening - window.__tap")
    totals = " ".join(pg.locator("#ses-table tfoot td").all_inner_texts())
    rows = pg.locator("#ses-table tbody tr").count()
    ctx.close()
    return taps, scrolled, ms, f"{rows} hands, totals {totals}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--static", type=Path, help="serve this static/ folder instead")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if args.static:
        static_assets.STATIC_DIR = args.static.resolve()
    application = app_module.create_app()
    if args.static:
        application.static_folder = str(args.static.resolve())
    with threaded_server(application) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"])
        for name, actions in HANDS:
            runs = [measure(browser, base, actions) for _ in range(args.runs)]
            taps, scrolled, _, verdict = runs[-1]
            ms = statistics.median(r[2] for r in runs)
            print(f"{name}: {taps} taps, {scrolled} px scrolled, last tap -> verdict {ms:.0f} ms median "
                  f"of {args.runs} ({verdict!r})")
        runs = [measure_evening(browser, base) for _ in range(args.runs)]
        taps, scrolled, _, shown = runs[-1]
        ms = statistics.median(r[2] for r in runs)
        print(f"E an evening of five hands with one correction: {taps} taps, {scrolled} px scrolled, last tap -> "
              f"evening settled {ms:.0f} ms median of {args.runs} ({shown})")
        runs = [measure_evening(browser, base, EVENING_BAR) for _ in range(args.runs)]
        taps, scrolled, _, shown = runs[-1]
        ms = statistics.median(r[2] for r in runs)
        print(f"E' the same evening by the bar's routes (B', the correction's change from the bar): {taps} taps, "
              f"{scrolled} px scrolled, last tap -> evening settled {ms:.0f} ms median of {args.runs} ({shown})")
        browser.close()


if __name__ == "__main__":
    main()
