"""The calculator page, round four (issue 42, points 4–8 and the minor points), at phone size
(390 × 844 and 360 × 640, touch) in headless Chromium: each test fails on the page before the fix.

Expected values are worked out by hand from docs/rules.md in the comments beside them.
"""
from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from test_page import application, base_url, browser, hand_tiles, idle, make_page, open_page  # noqa: F401

PHONES = pytest.mark.parametrize("size", [
    {"width": 390, "height": 844, "has_touch": True, "is_mobile": True},
    {"width": 360, "height": 640, "has_touch": True, "is_mobile": True},
], ids=["390x844", "360x640"])

# How far each element sticks out of the nearest box that clips it (0: whole).
CLIPPED_JS = """(els) => els.map((el) => {
  const r = el.getBoundingClientRect();
  let out = 0;
  for (let a = el.parentElement; a; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const q = a.getBoundingClientRect();
    out = Math.max(out, q.top - r.top, r.bottom - q.bottom, q.left - r.left, r.right - q.right);
  }
  return [el.dataset.tile || el.className, Math.round(out * 10) / 10];
})"""
BAR_PARTS = "#hand .tile, #hand .cs-badge, #hand .slot-mark, #bar-melds .tile, #bar-melds .cs-badge"


def tap(pg, locator) -> None:
    locator.tap()
    idle(pg)


def tile(pg, code: str):
    return pg.locator(f'#palette button[data-tile="{code}"]')


def page_y(pg, selector: str) -> float:
    """Where an element is on the page (not on the screen: scrolling does not change it)."""
    return pg.locator(selector).evaluate("e => e.getBoundingClientRect().top + window.scrollY")


def clipped(pg) -> list:
    return [x for x in pg.locator(BAR_PARTS).evaluate_all(CLIPPED_JS) if x[1] > 0.5]


# --- 4. the whole hand and every meld in view ---------------------------------------------------

@PHONES
def test_the_bar_shows_the_whole_hand_and_every_meld(make_page, base_url, size):
    pg = make_page(**size)
    # 14 tiles, caishen 1m (indicator 1m: its own kind, docs/rules.md §2) with its 财 badge, 7–9 条 on the
    # second row; then the winning tile chosen by tapping: the top row keeps its numerals
    open_page(pg, base_url, "#lang=zh&c=1m&h=1m2m3m4m5m6m7m8m9m7s8s9s1p1p")
    assert len(hand_tiles(pg)) == 14
    assert pg.locator("#hand .cs-badge").count() == 1
    assert clipped(pg) == []
    tap(pg, pg.locator('.modes button[data-mode="win"]'))
    tap(pg, pg.locator('#hand button[data-tile="9s"]'))
    expect(pg.locator("#hand .tile.win")).to_have_attribute("data-tile", "9s")
    assert clipped(pg) == []
    # four melds (two pungs, an exposed and a concealed kong): every tile of the meld strip whole
    open_page(pg, base_url, "#lang=en&c=5p&h=E&w=E&m=p111m-N_p222p-N_k3333s-N_k4444s!")
    assert pg.locator("#bar-melds .tile").count() == 14
    assert clipped(pg) == []
    # and the bar's block keeps its height, whatever it holds (the palette never moves under a finger)
    open_page(pg, base_url, "#lang=en")
    pg.evaluate("window.scrollTo(0, document.getElementById('palette-card').offsetTop - "
                "document.getElementById('bar').offsetHeight)")
    before = page_y(pg, "#palette")
    for code in ["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "1s", "1s", "7s", "8s", "9s"]:
        tap(pg, tile(pg, code))              # (at 640 px the lower rows are scrolled to: the page, not the layout)
        assert page_y(pg, "#palette") == before, code
    assert clipped(pg) == []
