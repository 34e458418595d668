"""The calculator page, round two (issue 17): the flow on a phone (375 × 812, touch) and on a
desktop (1280 × 900), in headless Chromium driven by Playwright.

Each test works the page as a player would and checks one point of the issue; expected values are
worked out by hand from docs/rules.md / docs/api.md in the comments next to them.
"""
from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from test_page import (WORKED_LINK, application, base_url, browser, build_worked_example,  # noqa: F401
                       check_worked_example_result, hand_tiles, idle, make_page, mode, notice, open_page, page, tap,
                       type_tiles)

PHONE = {"width": 375, "height": 812, "has_touch": True, "is_mobile": True}
DESKTOP = {"width": 1280, "height": 900}
SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
CJK = re.compile(r"[\u3400-\u9fff]")
API_CALL = re.compile(r"/v1/(score|waits|analyze)$")

# The page's own scripts measure boxes and colours (a locator's evaluate: no eval in the page).
# WCAG contrast: rgb() of a computed colour, its relative luminance, the ratio of two.
RATIO_JS = """
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
"""
CONTRAST_JS = """
(els) => {
""" + RATIO_JS + """  const behind = (el) => {
    for (let e = el.parentElement; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return els.filter((el) => el.offsetParent !== null).map((el) => {
    const s = getComputedStyle(el);
    return [el.id || el.className || el.tagName, ratio(rgb(s.borderTopColor).slice(0, 3), behind(el)),
            s.borderTopWidth];
  });
}
"""


# The words a reader sees in main: its visible text, tile faces (pictures) left out.
SHOWN_TEXT_JS = """
(m) => {
  const out = [];
  const walk = document.createTreeWalker(m, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const el = walk.currentNode.parentElement;
    if (el.closest('svg') || !el.checkVisibility()) continue;
    out.push(walk.currentNode.data);
  }
  return out.join(' ');
}
"""


def phone(make_page, **extra):
    return make_page(**{**PHONE, **extra})


def in_view(pg, selector: str) -> bool:
    box = pg.locator(selector).first.bounding_box()
    vp = pg.viewport_size
    return box is not None and box["y"] >= -0.5 and box["y"] + box["height"] <= vp["height"] + 0.5


def press(pg, locator, counter: list | None = None) -> None:
    """One tap on a touch screen (a click on a desktop), counted."""
    if pg.context and pg.viewport_size["width"] < 600:
        locator.tap()
    else:
        locator.click()
    idle(pg)
    if counter is not None:
        counter.append(1)


def tile(pg, code: str):
    return pg.locator(f'#palette button[data-tile="{code}"]')


def count_api_calls(pg) -> list[str]:
    calls: list[str] = []
    pg.on("request", lambda r: calls.append(r.url) if API_CALL.search(r.url) else None)
    return calls


# --- always in view ---------------------------------------------------------------------------

@SIZES
def test_hand_count_and_verdict_stay_in_view_while_tapping(make_page, base_url, size):
    pg = make_page(**size)
    open_page(pg, base_url, "#lang=en")
    # 111m 222p 333s EE NN + N: the 14th tile is in the honors rows, below the suits
    for code in ["1m", "1m", "1m", "2p", "2p", "2p", "3s", "3s", "3s", "E", "E", "N", "N", "N"]:
        tile(pg, code).scroll_into_view_if_needed()
        press(pg, tile(pg, code))
        for sel in ("#hand", "#hand-count", "#verdict"):
            assert in_view(pg, sel), (code, sel)
        assert in_view(pg, f'#palette button[data-tile="{code}"]')
    # the flowers are the last palette row: scrolled to, the bar is still on screen
    tile(pg, "8f").scroll_into_view_if_needed()
    assert in_view(pg, "#hand") and in_view(pg, "#verdict")
    assert pg.evaluate("window.scrollY") > 0 or size is DESKTOP
    # 111m 222p 333s NNN + EE pair, won on N by self-draw, seat E round E: 碰碰胡 2 + 自摸 1 +
    # 硬胡 1 + 对倒 1 (N completed the pung; E would have too) = 5 台 (no wind 台: N is no seat or
    # round wind of E/E): P = 1 x (1 + 5) = 6, a win
    expect(pg.locator("#verdict")).to_have_text("On North wind · 5 台 · win, 6 pts")
    expect(pg.locator("#hand-count")).to_have_text("14 / 14 tiles")
    # the desktop's result column fits its window below the bar (it scrolls on its own)
    if size is DESKTOP:
        pg.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        col = pg.locator(".col-result").bounding_box()
        assert col["y"] + col["height"] <= 900 + 0.5, col


# --- undo -----------------------------------------------------------------------------------------

def test_undo_button_ctrl_z_and_clear_and_back_leaves(make_page, base_url):
    page = phone(make_page)
    page.goto("about:blank")
    open_page(page, base_url, "#lang=en")
    undo = page.get_by_role("button", name="Undo")
    expect(undo).to_be_disabled()
    for code in ["1m", "2m", "3m", "4m"]:
        tap(page, code)
    undo.click()
    idle(page)
    assert hand_tiles(page) == ["1m", "2m", "3m"]
    page.keyboard.press("Control+z")
    idle(page)
    assert hand_tiles(page) == ["1m", "2m"]
    page.keyboard.press("Meta+z")
    idle(page)
    assert hand_tiles(page) == ["1m"]
    tap(page, "9p")
    page.get_by_role("button", name="Clear").click()
    idle(page)
    assert hand_tiles(page) == []
    undo.click()                                    # Clear can be undone
    idle(page)
    assert hand_tiles(page) == ["1m", "9p"]
    assert page.url.startswith(base_url + "/#")
    # the hand survives a reload (the URL holds it, and so does the phone)
    page.reload()
    idle(page)
    assert hand_tiles(page) == ["1m", "9p"]
    # Back is no undo: after 8 taps, undos and a clear, one press of Back leaves the page
    page.go_back()
    assert page.url == "about:blank"


# --- the palette ----------------------------------------------------------------------------------

def test_palette_shows_copies_left_and_dims_used_up_tiles(page, base_url):
    open_page(page, base_url, "#lang=en")
    b = tile(page, "1m")
    expect(b).to_have_attribute("data-left", "4")
    expect(b.locator(".left")).to_have_text("4")
    for left in ["3", "2", "1", "0"]:
        b.click()
        idle(page)
        expect(b).to_have_attribute("data-left", left)
        expect(b.locator(".left")).to_have_text(left)
    # used up: dimmed (the face at a third of its opacity, grey) and said so in its label
    expect(b).to_have_class(re.compile(r"\bused-up\b"))
    assert float(b.locator(".face").evaluate("e => getComputedStyle(e).opacity")) < 0.5
    assert b.get_attribute("aria-label") == "Add 1 Characters · all used"
    assert float(tile(page, "2m").locator(".face").evaluate("e => getComputedStyle(e).opacity")) == 1
    # the indicator takes a copy (docs/rules.md §2: it is out of play), a flower has one copy
    mode(page, "indicator")
    tap(page, "5p")
    expect(tile(page, "5p")).to_have_attribute("data-left", "3")
    tap(page, "2f")
    expect(tile(page, "2f")).to_have_attribute("data-left", "0")


# --- no call for an incomplete hand -------------------------------------------------------------

@pytest.mark.parametrize("lang,more", [("en", "3 more tiles"), ("zh", "还差 3 张")])
def test_no_call_for_an_incomplete_hand(make_page, base_url, lang, more):
    pg = make_page()
    open_page(pg, base_url, f"#lang={lang}")
    calls = count_api_calls(pg)
    codes = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p"]
    for code in codes:
        tap(pg, code)
    assert calls == []                       # ten taps, no request: 13 tiles are needed for waits
    expect(pg.locator("#verdict")).to_have_text(more)      # 13 - 10 = 3
    for code in ["1p", "2p"]:
        tap(pg, code)
    assert calls == []
    tap(pg, "3p")                            # 13 tiles: the waits are asked for, once
    assert len(calls) == 1 and calls[0].endswith("/v1/waits")


# --- waits at full value --------------------------------------------------------------------------

def test_waits_below_the_minimum_are_not_eligible(page, base_url):
    open_page(page, base_url, "#lang=en")
    # seat E: 123m 456m 789p 11s 24s waits on 3s (closed, 夹).  Self-draw: 夹 1 + 自摸 1 + 硬胡 1
    # = 3 台 < 4; discard: 夹 1 + 硬胡 1 = 2 台 < 4 (docs/rules.md §5: not 平胡, a closed wait).
    type_tiles(page, "123m 456m 789p 11s 24s")
    row = page.locator('tr[data-wait="3s"]')
    expect(row).to_have_attribute("data-eligible", "false")
    expect(row.locator("td.ok-cell")).to_have_text("✗ cannot win")
    expect(row.locator("td.self")).to_have_text("✗ 3 台 · below 4 台")
    expect(row.locator("td.disc")).to_have_text("✗ 2 台 · below 4 台")
    expect(page.locator("#verdict")).to_have_text("Waiting on 1 · 0 can win")


# --- one language ---------------------------------------------------------------------------------

def test_one_language_reasons_and_items(make_page, base_url):
    zh = make_page(locale="zh-CN")
    # seat E, 123m 456m 789p 11s 3s4s… won on 3s by self-draw: 夹 1 + 自摸 1 + 硬胡 1 = 3 < 4
    open_page(zh, base_url, "#s=E&r=E&h=123456m789p11s24s&w=3s")
    expect(zh.locator("#tai-total")).to_have_text("3")
    expect(zh.locator("#eligible")).to_have_text("不够台，不能胡")
    # the library's reason, in Chinese (the page sends Accept-Language: zh-CN)
    reasons = zh.locator("#reasons li").all_inner_texts()
    assert reasons and all(CJK.search(r) and not re.search(r"[A-Za-z]{3,}", r) for r in reasons), reasons
    # the 台 table: one name column, in Chinese
    assert zh.locator("table.items thead th").all_inner_texts() == ["项目", "台", "牌"]
    assert zh.locator("table.items td.item-name").all_inner_texts() == ["夹", "自摸", "硬胡"]
    words = set(re.findall(r"[A-Za-z]{3,}", zh.locator("main").evaluate(SHOWN_TEXT_JS)))
    assert words <= {"ningbo", "bianfeng", "taishu", "baida", "API", "score", "waits", "analyze", "rules"}, words

    en = make_page(locale="en-US")
    open_page(en, base_url, "#s=E&r=E&h=123456m789p11s24s&w=3s")
    reasons = en.locator("#reasons li").all_inner_texts()
    assert reasons and not any(CJK.search(r.replace("台", "")) for r in reasons), reasons
    assert en.locator("table.items td.item-name").all_inner_texts() == ["Closed wait", "Self-draw", "No caishen"]
    # 台 and 包 are the game's own words; the rest is English (tile faces are pictures)
    left = set(CJK.findall(en.locator("main").evaluate(SHOWN_TEXT_JS))) - set("台包双财")
    assert not left, left


# --- touch targets and contrast ----------------------------------------------------------------

@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_touch_targets_outlines_and_caishen_mark(make_page, base_url, scheme):
    pg = phone(make_page, color_scheme=scheme)
    open_page(pg, base_url, WORKED_LINK)
    small = pg.locator("button, select, input[type=text], input[type=number], a[href]:not(.skip)").evaluate_all(
        """els => els.filter(e => e.offsetParent !== null).map(e => [e.id || e.className || e.tagName,
            e.getBoundingClientRect()]).filter(([, r]) => r.width < 44 || r.height < 44)
            .map(([n, r]) => n + ' ' + r.width + 'x' + r.height)""")
    assert small == []
    # a radio button or check box is tapped through its label: the label is the target
    labels = pg.locator("label:has(input[type=radio]), label:has(input[type=checkbox])").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect()).filter(r => r.width < 44 || r.height < 44).length")
    assert labels == 0
    # control outlines: at least 3:1 against what is behind them
    ratios = pg.locator("button:not(.tile):not(.notice-x), select, input[type=text], input[type=number]").evaluate_all(
        CONTRAST_JS)
    assert ratios and all(r >= 3 for _, r, _w in ratios), [x for x in ratios if x[1] < 3]
    # a tile's outline (its face's edge) against the card behind it
    stroke = tile(pg, "1m").locator("svg rect").first.get_attribute("stroke")
    assert stroke == "#8a8068"        # sRGB (138, 128, 104): 3.9:1 on white, 3.5:1 on the page's #f3f1ea
    # the caishen (5p's other copies, docs/rules.md §2) carries a 财 letter and a dashed outline
    cs = tile(pg, "5p")
    expect(cs.locator(".cs-badge")).to_have_text("财")
    expect(cs.locator(".cs-badge")).to_be_visible()
    assert cs.evaluate("e => getComputedStyle(e).outlineStyle") == "dashed"
    assert "caishen" in cs.get_attribute("aria-label")
    if scheme == "dark":
        bg = pg.evaluate("getComputedStyle(document.body).backgroundColor")
        ink = pg.evaluate("getComputedStyle(document.body).color")
        assert bg == "rgb(21, 24, 27)" and ink == "rgb(232, 230, 223)"     # --bg #15181b, --ink #e8e6df


# --- faster melds ---------------------------------------------------------------------------------

def test_hand_b_in_at_most_15_taps(make_page, base_url):
    """docs/api.md's worked example (hand b: a claimed 中 pung, a concealed kong and 夏), from a blank
    page on a phone, every tap counted (a select would count as two: open and pick)."""
    pg = phone(make_page)
    open_page(pg, base_url, "#lang=en")
    taps: list[int] = []
    press(pg, pg.locator('#seat button[data-seat="S"]'), taps)                 # 1  seat S
    press(pg, pg.locator('.modes button[data-mode="indicator"]'), taps)       # 2
    press(pg, tile(pg, "5p"), taps)                                           # 3  indicator 5p
    press(pg, tile(pg, "9s"), taps)                                           # 4
    press(pg, tile(pg, "9s"), taps)                                           # 5  the pair
    press(pg, pg.locator('.modes button[data-mode="run"]'), taps)             # 6
    press(pg, tile(pg, "6m"), taps)                                           # 7  678m
    press(pg, tile(pg, "2m"), taps)                                           # 8  234m, 4m last
    press(pg, pg.locator('.modes button[data-mode="pung"]'), taps)            # 9
    assert pg.locator("#meld-from").input_value() == "E"                      # S's 上家, no tap
    press(pg, tile(pg, "C"), taps)                                            # 10 中 pung from E
    press(pg, pg.locator('.modes button[data-mode="ckong"]'), taps)           # 11
    press(pg, tile(pg, "1s"), taps)                                           # 12 concealed 1s kong
    press(pg, tile(pg, "2f"), taps)                                           # 13 夏
    press(pg, pg.locator('#claims button[data-seat="W"][data-step="1"]'), taps)   # 14 W claimed 1
    assert len(taps) == 14 <= 15
    assert hand_tiles(pg) == ["2m", "3m", "6m", "7m", "8m", "9s", "9s", "4m"]
    check_worked_example_result(pg)


# --- links ----------------------------------------------------------------------------------------

def test_impossible_link_says_so_and_taps_still_work(make_page, base_url):
    pg = make_page()
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=11111m")
    problem = pg.locator("#link-problem")
    expect(problem).to_be_visible()
    expect(problem).to_contain_text("This link holds a hand that cannot exist")
    expect(problem.locator("li")).to_have_text("5 copies of 1m; at most 4 exist")
    tap(pg, "2m")                                  # not refused: the fifth 1m was not this tap's doing
    assert hand_tiles(pg) == ["1m"] * 5 + ["2m"]
    problem.get_by_role("button", name="Clear and start over").click()
    idle(pg)
    assert hand_tiles(pg) == []
    expect(problem).to_be_hidden()


def test_links_keep_the_readers_language(make_page, base_url):
    sender = make_page(locale="zh-CN")
    open_page(sender, base_url, "#lang=zh")
    tap(sender, "1m")
    link = sender.url
    assert "lang=" not in link
    reader = make_page(locale="en-US")             # an English reader of a Chinese player's link
    open_page(reader, base_url, link[len(base_url) + 1:])
    expect(reader.locator("#h-result")).to_have_text("Result")
    assert reader.locator("html").get_attribute("lang") == "en"
    named = make_page(locale="en-US")              # ... unless the link names a language
    open_page(named, base_url, link[len(base_url) + 1:] + "&lang=zh")
    expect(named.locator("#h-result")).to_have_text("结果")


# --- friendly errors ------------------------------------------------------------------------------

def test_errors_without_field_paths_and_offline_with_retry(make_page, base_url):
    pg = make_page()
    # seat E, a chow claimed from S (only N, the 上家, may give a chow): the API refuses it
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=1112223339p&w=9p&m=c234m-S")
    body = pg.locator("#result-body")
    expect(body.locator(".problem")).to_be_visible()
    text = body.inner_text()
    assert not re.search(r"hand\.|melds\.\d|\bwin\.|claims_from_winner|concealed", text), text
    assert body.locator("code").count() == 0

    # offline: the request fails; the page says so in words and offers a retry
    pg2 = make_page()
    open_page(pg2, base_url, "#lang=en&s=E&r=E&h=111m222p333sEENN")   # 13 tiles: waits are asked for
    pg2.route(re.compile(r".*/v1/.*"), lambda route: route.abort())
    tap(pg2, "N")                                    # 14 tiles: /v1/score fails
    offline = pg2.locator("#offline")
    expect(offline).to_contain_text("The scoring service cannot be reached")
    assert "TypeError" not in pg2.locator("main").inner_text()
    expect(pg2.locator("#verdict")).to_have_text("Service unreachable")
    pg2.unroute(re.compile(r".*/v1/.*"))
    offline.get_by_role("button", name="Try again").click()
    idle(pg2)
    # won on N by self-draw, seat E round E: 碰碰胡 2 + 对倒 1 + 自摸 1 + 硬胡 1 = 5 台 (no wind
    # 台: N is neither E's seat wind nor the round's), P = 1 x (1 + 5) = 6
    expect(pg2.locator("#tai-total")).to_have_text("5")
    expect(pg2.locator("#points")).to_have_text("6")
    expect(pg2.locator("#offline")).to_have_count(0)


# --- comforts ---------------------------------------------------------------------------------

def test_copyable_summary_and_history_of_hands(make_page, base_url):
    pg = make_page(permissions=["clipboard-read", "clipboard-write"])
    open_page(pg, base_url, WORKED_LINK)
    check_worked_example_result(pg)
    text = pg.locator("#result-text").inner_text()
    assert text.splitlines() == [
        "Ningbo mahjong score · Ningbo (default)",
        "Seat South · round East",
        "Hand 23678m99s win on 4m · Melds CCC 1111s · Flowers 2f · Caishen 5p",
        "台: Plain win 0, Self-draw 1, No caishen 1, Dragon pung (Red dragon) 1, Seat flower 1 = 4 台",
        "4 台 · win, 5 pts",
        "Net: East −5, South +15, West −5, North −5",
    ]
    pg.get_by_role("button", name="Copy the result as text").click()
    expect(pg.locator("#verdict")).to_have_text("Result copied")
    assert pg.evaluate("navigator.clipboard.readText()") == text

    # the hand is in this browser's recent hands: a new page of the same browser lists it
    fresh = pg.context.new_page()
    fresh.goto(base_url + "/#lang=en")
    idle(fresh)
    entry = fresh.locator("#history li a")
    expect(entry).to_have_count(1)
    expect(entry).to_contain_text("4 台 ✓")
    entry.click()
    idle(fresh)
    check_worked_example_result(fresh)
    fresh.close()


# --- assets ---------------------------------------------------------------------------------------

def _get(url: str, headers: dict) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


def test_assets_are_compressed_and_cacheable(page, base_url):
    import gzip
    from pathlib import Path
    seen: dict[str, dict] = {}
    page.on("response", lambda r: seen.__setitem__(re.sub(r"\.[0-9a-f]{12}\.", ".", r.url.split("/")[-1]), r.headers)
            if "/static/" in r.url else None)
    open_page(page, base_url, "#lang=en")
    for name in ("calc.js", "calc.css", "tiles.js"):
        assert seen[name].get("content-encoding") == "gzip", name          # Chromium takes gzip
        assert seen[name].get("cache-control") == "public, max-age=31536000, immutable", name
    status, head, body = _get(base_url + "/", {"Accept-Encoding": "gzip"})
    assert status == 200 and head["content-encoding"] == "gzip" and head["cache-control"] == "no-cache"
    html = gzip.decompress(body).decode()
    src = re.search(r'src="(/static/calc\.[0-9a-f]{12}\.js)"', html).group(1)
    static = Path(__file__).resolve().parents[2] / "static"
    status, head, body = _get(base_url + src, {"Accept-Encoding": "gzip, br"})
    assert head["content-encoding"] == "gzip" and head["vary"] == "Accept-Encoding"
    assert gzip.decompress(body) == (static / "calc.js").read_bytes()
    # the modules calc.js imports, under their plain names (issue 37): gzipped, revalidated
    for name in ("calc-results.js", "calc-session.js", "calc-strings.js"):
        assert seen[name].get("content-encoding") == "gzip" and seen[name].get("cache-control") == "no-cache", name
        status, head4, packed = _get(base_url + "/static/" + name, {"Accept-Encoding": "gzip"})
        assert gzip.decompress(packed) == (static / name).read_bytes()
        assert len(packed) < len((static / name).read_bytes()) / 3, name
    # a client that takes no gzip gets the file as it is; a known ETag gets a 304
    status, head2, plain = _get(base_url + src, {"Accept-Encoding": "identity"})
    assert "content-encoding" not in head2 and plain == (static / "calc.js").read_bytes()
    # the gzip form's ETag revalidates the gzip form (each representation has its own, issue 41)
    status, _, empty = _get(base_url + src, {"If-None-Match": head["etag"], "Accept-Encoding": "gzip"})
    assert status == 304 and empty == b""
    status, _, _ = _get(base_url + src, {"If-None-Match": head2["etag"]})
    assert status == 304
    # the plain name is revalidated, never kept as it is; an old hashed name is gone
    status, head3, _ = _get(base_url + "/static/calc.js", {})
    assert status == 200 and head3["cache-control"] == "no-cache"
    assert _get(base_url + "/static/calc.000000000000.js", {})[0] == 404


# --- live region, stable layout -------------------------------------------------------------

def test_only_the_verdict_is_live_and_refusals_do_not_move_the_palette(make_page, base_url):
    pg = phone(make_page)
    open_page(pg, base_url, "#lang=en")
    assert pg.locator("[aria-live]").evaluate_all("els => els.map(e => e.id)") == ["verdict"]
    assert pg.locator("#result").get_attribute("aria-live") is None
    assert pg.locator("#result [aria-live], #result [role=alert], #result [role=status]").count() == 0
    for _ in range(4):
        press(pg, tile(pg, "1m"))
    before = pg.locator("#palette").bounding_box()
    press(pg, tile(pg, "1m"))                    # a fifth 1m: refused
    assert notice(pg) == "5 copies of 1m; at most 4 exist"
    assert pg.locator("#palette").bounding_box() == before
    assert pg.locator('.modes').bounding_box()["y"] == pg.locator('.modes').bounding_box()["y"]
    assert hand_tiles(pg) == ["1m"] * 4


# --- rule options -----------------------------------------------------------------------------

def test_rule_options_from_the_api(page, base_url):
    open_page(page, base_url, "#lang=en")
    rules = json.loads(urllib.request.urlopen(base_url + "/v1/rules", timeout=10).read())
    ningbo = next(p for p in rules["presets"] if p["id"] == "ningbo")
    page.locator("#rule-details summary").click()
    shown = page.locator("#rule-options .opt").evaluate_all("os => os.map(o => o.dataset.option)")
    assert shown == [k for k in ningbo["options"] if k != "rulebook"]
    # every option has a label of its own (none shows its bare id), the new rule book 2 ones too
    labels = page.locator("#rule-options dt").all_inner_texts()
    assert not set(labels) & set(ningbo["options"]), labels
    # the labels are the API's (issue 37: written once, in ningbo_score.rules), in the page's language
    assert labels == [rules["option_labels"][k]["en"] for k in shown]
    assert labels[shown.index("min_tai")] == "Minimum 台"
    page.locator("#lang-zh").click()
    idle(page)
    labels_zh = page.locator("#rule-options dt").all_inner_texts()
    assert labels_zh == [rules["option_labels"][k]["zh"] for k in shown]
    assert labels_zh[shown.index("draw_keeps_dealer")] == "流局连庄"
    page.locator("#lang-en").click()
    idle(page)
    expect(page.locator('#rule-options .opt[data-option="min_tai"] dd')).to_have_text("4")   # docs/rules.md §9
    book = ningbo["options"].get("rulebook", rules.get("rulebook", ningbo.get("rulebook")))
    if book is not None:
        expect(page.locator("#rulebook")).to_have_text(f"Scored by rule book {book}")


# --- what to discard (POST /v1/analyze) -----------------------------------------------------------

@SIZES
def test_what_to_discard_panel(make_page, base_url, size):
    pg = make_page(**size)
    # seat E, 14 tiles 111m 222p 333s EE NN 9s: no winning shape (9s is alone), so the page asks
    # what to discard.  Discarding 9s leaves 111m 222p 333s EE NN: tenpai (shanten 0) on E or N
    # (对倒), each with 4 − 2 in hand = 2 unseen; both waits reach the minimum (E: 6 台 on a
    # discard, 7 on a self-draw; N: 4 and 5, see test_page.py), so 2 + 2 = 4 unseen tiles win.
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=111m222p333sEENN9s")
    expect(pg.locator("#verdict")).to_have_text("Not a winning hand")
    rows = pg.locator("table.discards tbody tr")
    expect(rows).to_have_count(6)                       # 1m 2p 3s E N 9s: six kinds to discard
    first = rows.first
    expect(first).to_have_attribute("data-discard", "9s")
    expect(first.locator("td.shanten")).to_have_text("tenpai")
    assert first.locator("td.improving .tcount").evaluate_all(
        "cs => cs.map(c => c.dataset.tile + ':' + c.querySelector('.n').innerText)") == ["E:2", "N:2"]
    expect(first.locator(".imp-total")).to_have_text("4 in all")
    assert first.locator("td.eligible-waits .tcount").evaluate_all(
        "cs => cs.map(c => c.dataset.tile + ':' + c.querySelector('.n').innerText)") == ["E:2", "N:2"]
    expect(first.locator(".elig-total")).to_have_text("4 in all")
    # discarding an E instead: 111m 222p 333s E NN 9s is one tile from tenpai (1-shanten): 7s or 8s
    # (with 9s), 9s (a second pair), E (its pair) or N (its pung) help: unseen 4 + 4 + (4 − 1) +
    # (4 − 1 in hand − 1 discarded) + (4 − 2) = 15
    east = pg.locator('tr[data-discard="E"]')
    expect(east.locator("td.shanten")).to_have_text("1-shanten")
    assert east.locator("td.improving .tcount").evaluate_all(
        "cs => cs.map(c => c.dataset.tile + ':' + c.querySelector('.n').innerText)") == ["7s:4", "8s:4", "9s:3",
                                                                           "E:2", "N:2"]
    expect(east.locator(".imp-total")).to_have_text("15 in all")
    expect(east.locator("td.eligible-waits")).to_have_text("—")
    # discarding from the panel leaves the 13 tiles and their waits
    first.get_by_role("button", name="Discard 9 Bamboo").click()
    idle(pg)
    expect(pg.locator("table.waits tbody tr")).to_have_count(2)
    expect(pg.locator("#verdict")).to_have_text("Waiting on 2 · 2 can win")


# --- round three (issue 29): the moment of the answer, at phone size (390 × 844, touch) -----------

PHONE3 = {"width": 390, "height": 844, "has_touch": True, "is_mobile": True}
RACK = ["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "1s", "1s", "2s", "3s", "4s"]


def phone3(make_page, **extra):
    return make_page(**{**PHONE3, **extra})


def item_ids(pg) -> list[str]:
    return pg.locator("table.items tbody tr").evaluate_all("rs => rs.map(r => r.dataset.item)")


def test_winning_tile_has_its_own_slot(make_page, base_url):
    pg = phone3(make_page)
    open_page(pg, base_url, "#lang=en")
    slot = pg.locator("#win-slot")
    expect(slot).to_be_visible()                       # an empty, labelled slot from the start
    expect(slot).to_have_attribute("aria-label", "Winning tile (tap here, then a tile)")
    for code in RACK[:13]:
        press(pg, tile(pg, code))
    expect(slot).to_have_class(re.compile(r"\bempty\b"))      # 13 tiles: the slot still waits
    press(pg, tile(pg, "4s"))                                 # the 14th tile goes into the slot, seen
    expect(slot).to_have_attribute("data-tile", "4s")
    expect(pg.locator("#verdict")).to_contain_text("On 4 Bamboo")      # and the bar names it
    # 123m 456m 789p 11s 234s on 4s: a two-sided wait (2s3s), every set a chow, the pair 1s carries
    # no 台: 平胡 1 (docs/rules.md §5), not 单吊
    assert "ping_hu" in item_ids(pg) and "single_wait" not in item_ids(pg)
    # the player won on 1s (the pair: 单吊): tap the slot, then the 1s of the hand — two taps
    press(pg, slot)
    expect(slot).to_have_attribute("aria-pressed", "true")
    press(pg, pg.locator('#hand button[data-role="hand"][data-tile="1s"]').first)
    expect(slot).to_have_attribute("data-tile", "1s")
    assert hand_tiles(pg) == ["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "1s", "2s", "3s", "4s", "1s"]
    expect(pg.locator("#wait-kind")).to_have_text("single")
    assert "single_wait" in item_ids(pg) and "ping_hu" not in item_ids(pg)
    expect(pg.locator("#verdict")).to_contain_text("On 1 Bamboo")
    # or a palette tile straight into the slot: it replaces the winning tile (the 1s is gone)
    press(pg, slot)
    press(pg, tile(pg, "7s"))
    expect(slot).to_have_attribute("data-tile", "7s")
    expect(pg.locator("#hand-count")).to_have_text("14 / 14 tiles")
    assert hand_tiles(pg)[-2:] == ["4s", "7s"]


def test_to_result_never_hides_the_results_top(make_page, base_url):
    pg = phone3(make_page, reduced_motion="reduce")
    open_page(pg, base_url, WORKED_LINK)
    press(pg, pg.locator("#to-result"))
    bar = pg.locator("#bar").bounding_box()
    for sel in ("#h-result", "#tai-total", "#eligible"):
        box = pg.locator(sel).bounding_box()
        assert box["y"] >= bar["y"] + bar["height"] - 0.5, (sel, box, bar)
        assert box["y"] + box["height"] <= 844


def test_win_context_beside_the_hand_and_named_in_the_bar(make_page, base_url):
    pg = phone3(make_page)
    open_page(pg, base_url, WORKED_LINK)
    ctx = pg.locator("#bar-context")
    # seat S, round E, self-draw, W claimed one meld, caishen 5p (docs/api.md's worked example)
    expect(ctx).to_have_text("South · East round · self-draw · West claimed 1 · caishen 5 Dots")
    # the win's controls come right after the tiles, not 800 px below them
    pal = pg.locator("#palette-card").bounding_box()
    win = pg.locator("#win-card").bounding_box()
    assert 0 <= win["y"] - (pal["y"] + pal["height"]) <= 12, (pal, win)
    # tapping the line in the bar opens them right under it, beside the hand; nothing below moves
    palette = pg.locator("#palette").bounding_box()
    press(pg, ctx)
    expect(ctx).to_have_attribute("aria-expanded", "true")
    bar = pg.locator("#bar").bounding_box()
    panel = pg.locator("#bar-panel").bounding_box()
    assert abs(panel["y"] - (bar["y"] + bar["height"])) <= 3, (bar, panel)         # (over the bar's border)
    assert panel["y"] + panel["height"] <= 844
    for sel in ("#seat", "#win-card fieldset.by", "#win-from"):
        expect(pg.locator(sel)).to_be_in_viewport()
    assert pg.evaluate("scrollY") == 0
    press(pg, pg.get_by_label("Last tile"))
    expect(ctx).to_have_text("South · East round · self-draw · Last tile · West claimed 1 · caishen 5 Dots")
    press(pg, pg.get_by_label("Last tile"))
    press(pg, pg.get_by_role("radio", name="Discard"))
    expect(ctx).to_have_text("South · East round · discard by East · West claimed 1 · caishen 5 Dots")
    press(pg, pg.get_by_role("button", name="Done"))
    expect(pg.locator("#bar-panel")).to_be_hidden()
    assert pg.locator("#palette").bounding_box() == palette
    win = pg.locator("#win-card").bounding_box()             # back in its place after the palette
    assert 0 <= win["y"] - (pal["y"] + pal["height"]) <= 12


def test_who_pays_what_is_in_the_bar(make_page, base_url):
    pg = phone3(make_page)
    open_page(pg, base_url, WORKED_LINK)
    # self-draw, 4 台, P = 5: E, W, N each pay 5, S collects 15 (check_worked_example_result)
    expect(pg.locator("#bar-pay")).to_have_text("East, West, North pay 5 each → South +15")
    # seat E, 111m 222p 333s EE NN won on N discarded by N: 碰碰胡 2 + 对倒 1 + 硬胡 1 = 4 台 (no
    # wind 台 for N), P = 5, the discarder pays 2 × 5 = 10 (docs/rules.md §7)
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=111m222p333sEENN&w=N&by=discard&from=N")
    expect(pg.locator("#bar-pay")).to_have_text("North pays 10 → East +10")
    # below the minimum: the bar says nobody pays
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=123456m789p11s24s&w=3s")
    expect(pg.locator("#bar-pay")).to_have_text("Below the minimum: nobody pays")


def test_busy_state_greys_the_stale_verdict(make_page, base_url):
    pg = phone3(make_page)
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=111m222p333sEENN")
    expect(pg.locator("#verdict")).to_have_text("Waiting on 2 · 2 can win")
    held: list = []
    pg.route(re.compile(r".*/v1/score$"), lambda route: held.append(route))
    tile(pg, "N").tap()
    expect(pg.locator("#bar")).to_have_attribute("data-busy", "1")
    expect(pg.locator("#verdict")).to_have_css("opacity", "0.4")       # the old verdict, greyed
    expect(pg.locator("#busy-mark")).to_have_css("opacity", "1")
    expect(pg.locator("#result")).to_have_attribute("aria-busy", "true")
    assert held
    for r in held:
        r.continue_()
    idle(pg)
    expect(pg.locator("#verdict")).to_have_text("On North wind · 5 台 · win, 6 pts")
    expect(pg.locator("#verdict")).to_have_css("opacity", "1")


def test_palette_never_moves_under_a_finger(make_page, base_url):
    pg = phone3(make_page)
    open_page(pg, base_url, "#lang=en")
    # scrolled so that the palette sits under the sticky bar: every tile of it is on screen at once
    pg.evaluate("window.scrollTo(0, document.getElementById('palette-card').offsetTop - "
                "document.getElementById('bar').offsetHeight)")
    bar = pg.locator("#bar").bounding_box()
    before = pg.locator("#palette").bounding_box()
    assert before["y"] >= bar["y"] + bar["height"] and before["y"] + before["height"] <= 844, (bar, before)
    scroll = pg.evaluate("window.scrollY")
    # 111m 234m 555p 678p + 9s 9s: the hand wraps to a second row at the 9th tile, fills, scores
    for i, code in enumerate(["1m", "1m", "1m", "2m", "3m", "4m", "5p", "5p", "5p", "6p", "7p", "8p", "9s", "9s"]):
        press(pg, tile(pg, code))
        assert pg.locator("#palette").bounding_box() == before, (i + 1, code)
    assert pg.evaluate("window.scrollY") == scroll
    expect(pg.locator("#tai-total")).to_be_visible()
    # a meld, a flower and a refusal move nothing either
    press(pg, pg.locator('.modes button[data-mode="pung"]'))
    assert pg.locator("#palette").bounding_box() == before
    press(pg, tile(pg, "C"))
    press(pg, tile(pg, "1f"))
    assert pg.locator("#palette").bounding_box() == before


@pytest.mark.parametrize("status,words", [(500, "出错"), (503, "忙"), (429, "请等 7 秒"), (0, "连不上")])
def test_errors_in_the_pages_language_with_a_retry(make_page, base_url, status, words):
    pg = phone3(make_page, locale="zh-CN")
    open_page(pg, base_url, "#lang=zh&s=E&r=E&h=111m222p333sEENN")

    def fail(route):
        if status == 0:
            route.abort()
        else:
            route.fulfill(status=status, content_type="application/problem+json",
                          headers={"Retry-After": "7"} if status == 429 else {},
                          body=json.dumps({"title": "Service Unavailable" if status == 503 else "Error",
                                           "status": status}))
    pg.route(re.compile(r".*/v1/score$"), fail)
    press(pg, tile(pg, "N"))
    box = pg.locator("#offline")
    expect(box).to_contain_text(words)
    shown = box.inner_text() + pg.locator("#verdict").inner_text()
    assert not re.search(r"[A-Za-z]{2,}", shown), shown              # no English title in Chinese mode
    assert CJK.search(pg.locator("#verdict").inner_text())
    pg.unroute(re.compile(r".*/v1/score$"))
    press(pg, box.get_by_role("button", name="重试"))
    # won on N by self-draw, seat E: 5 台, P = 6 (test_errors_without_field_paths_and_offline_with_retry)
    expect(pg.locator("#tai-total")).to_have_text("5")
    expect(pg.locator("#offline")).to_have_count(0)


# --- one language throughout (issue 29) ----------------------------------------------------------

# Visible text of the whole page, tile faces (pictures) and elements in a language of their own
# (the 中文 / English switch) left out.
PAGE_TEXT_JS = """
() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const page = document.documentElement.lang;
  while (walk.nextNode()) {
    const el = walk.currentNode.parentElement;
    if (el.closest('svg') || !el.checkVisibility()) continue;
    const own = el.closest('[lang]');
    if (own && own !== document.documentElement && own.lang !== page) continue;
    out.push(walk.currentNode.data);
  }
  return out.join(' ');
}
"""
LATIN_WORD = re.compile(r"[A-Za-z]{2,}|\b[1-9][mpsf]\b|(?<![A-Za-z])[ESWNCFP](?![A-Za-z])")
SCAN_LINKS = [
    WORKED_LINK,                                              # a scored win: items, decomposition, payments
    "#s=E&r=E&h=111m222p333sEENN",                            # 13 tiles: waits at full value
    "#s=E&r=E&h=111m222p333sEENN9s",                          # 14 tiles, no win: what to discard
    "#s=E&r=E&h=123m459m789p14s29s",                          # 13 tiles, not ready: how far
    "#s=E&r=E&h=1112223339p&w=9p&m=c234m-S",                  # refused: a chow from the wrong seat
    "#p=ningbo-456&s=E&r=E&c=5p&h=123456m789p11s24s&w=3s&by=discard&from=N",   # another preset
]


def scan(pg, lang):
    pg.locator("#rule-details summary").click()               # the rule options, opened
    for more in pg.locator("#analysis-show, #more-discards").all():
        more.click()
        idle(pg)
    text = pg.evaluate(PAGE_TEXT_JS)
    if lang == "zh":
        return sorted(set(LATIN_WORD.findall(text)))
    return sorted(set(CJK.findall(text)) - set("台包双财上家"))   # 台, 包, 上家: the game's own words


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_language_shows_none_of_the_others_words(make_page, base_url, lang):
    pg = phone3(make_page, locale="zh-CN" if lang == "zh" else "en-US")
    for link in SCAN_LINKS:
        open_page(pg, base_url, re.sub(r"lang=\w+&?", "", link).replace("#", f"#lang={lang}&", 1))
        assert scan(pg, lang) == [], link
    # the history of hands (kept in the browser) and the copied text too
    text = pg.locator("#history").inner_text() + pg.locator("#result-text").inner_text()
    if lang == "zh":
        assert not LATIN_WORD.findall(text), text
        # the plain words a Ningbo player uses, not the jargon
        body = pg.evaluate(PAGE_TEXT_JS)
        assert not re.search("副露|向听|顺子入手", body)


# --- the smaller points (issue 29) ------------------------------------------------------------------

def test_concealed_kong_lies_face_down_and_is_no_claimed_meld(make_page, base_url):
    pg = phone3(make_page, locale="zh-CN")
    open_page(pg, base_url, WORKED_LINK.replace("lang=en", "lang=zh"))
    group = pg.locator(".decomp .group.ckong")                # the concealed 1s kong
    expect(group.locator("figcaption")).to_have_text("暗杠")
    assert group.locator("[data-tile]").evaluate_all("ts => ts.map(t => t.dataset.down || '')") == ["1", "", "", "1"]
    expect(pg.locator(".decomp figcaption", has_text="吃碰杠")).to_have_count(1)     # the 中 pung only
    expect(pg.locator("#melds .meld").nth(1).locator(".meld-name")).to_have_text("第 2 组 · 暗杠")
    expect(pg.locator("#bar-melds [data-down]")).to_have_count(2)


def test_the_hand_cap_is_explained_where_it_cuts_the_payment(make_page, base_url):
    pg = phone3(make_page)
    # the worked example at base 300: P = 300 × (1 + 4) = 1500 a share, 3 shares = 4500, but 001's
    # cap (hand_cap 1000, docs/rules.md §7) gives S 1000: 1000/4500 of each share, 333.3 each, the
    # unit left over to E (seat order): E 334, W 333, N 333
    open_page(pg, base_url, WORKED_LINK + "&b=300")
    expect(pg.locator("#cap-note")).to_have_text(
        "Hand cap 1000: the shares come to 4500, the winner collects 1000, each payer scaled down.")
    expect(pg.locator("#bar-pay")).to_have_text(
        "East pays 334, West pays 333, North pays 333 → South +1000 (capped at 1000)")
    open_page(pg, base_url, WORKED_LINK)
    expect(pg.locator("#cap-note")).to_have_count(0)           # P = 5: no cap, no note


def test_the_bar_names_waits_best_discard_shanten_and_caishen(make_page, base_url):
    pg = phone3(make_page)
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=111m222p333sEENN")
    expect(pg.locator("#bar-pay")).to_have_text("Waits: East wind, North wind")
    # 14 tiles, no win: discarding 9s leaves the E/N 对倒 wait (test_what_to_discard_panel)
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=111m222p333sEENN9s")
    expect(pg.locator("#bar-pay")).to_have_text("Best discard: 9 Bamboo, then 2 waits")
    # the list is short: the best three, the rest behind a button
    rows = pg.locator("table.discards tbody tr")
    expect(rows).to_have_count(6)
    assert rows.evaluate_all("rs => rs.filter(r => !r.hidden).length") == 3
    press(pg, pg.get_by_role("button", name="Show 3 more"))
    assert rows.evaluate_all("rs => rs.filter(r => !r.hidden).length") == 6
    # 13 tiles not ready: 123m 789p are sets, 45m and 12s two partial sets, no pair: 8 − 2 × 2 − 2
    # = 2 tiles from ready (the usual count: 8 − 2 × sets − partial sets − pair)
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=123m459m789p14s29s")
    expect(pg.locator("#analysis-shanten")).to_have_text("2-shanten")
    expect(pg.locator("#bar-pay")).to_have_text("2 tiles from ready")
    open_page(pg, base_url, "#lang=zh&s=E&r=E&h=123m459m789p14s29s")
    expect(pg.locator("#bar-pay")).to_have_text("还差 2 张听牌")
    # the caishen in the bar's context line
    open_page(pg, base_url, WORKED_LINK.replace("lang=en", "lang=zh"))
    expect(pg.locator("#bar-context")).to_contain_text("财神 五饼")


def test_lang_query_share_touch_action_and_rules_kept(make_page, base_url):
    pg = phone3(make_page, locale="en-US")
    rules_calls: list[str] = []
    pg.on("request", lambda r: rules_calls.append(r.url) if r.url.endswith("/v1/rules") else None)
    pg.add_init_script("""navigator.share = (d) => { window.__shared = d; return Promise.resolve(); };""")
    pg.goto(base_url + "/?lang=zh")
    idle(pg)
    assert pg.locator("html").get_attribute("lang") == "zh-CN"
    expect(pg.locator("#h-result")).to_have_text("结果")
    # Web Share where the phone has it
    tap(pg, "1m")
    press(pg, pg.get_by_role("button", name="分享"))
    assert pg.evaluate("window.__shared.url").startswith(base_url + "/?lang=zh#")
    # no double-tap zoom delay on the tiles
    assert tile(pg, "2m").evaluate("b => getComputedStyle(b).touchAction") == "manipulation"
    # /v1/rules: once; a reload takes the copy kept on the phone
    pg.reload()
    idle(pg)
    assert len(rules_calls) == 1, rules_calls
    expect(pg.locator("#preset option")).to_have_count(5)


BADGE_CONTRAST_JS = """
(els) => {
""" + RATIO_JS + """  return els.filter((el) => el.checkVisibility()).map((el) => {
    const s = getComputedStyle(el);
    return [el.className + ' ' + el.textContent, ratio(rgb(s.color), rgb(s.backgroundColor))];
  });
}
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_badges_text_contrast(make_page, base_url, scheme):
    pg = phone3(make_page, color_scheme=scheme)
    open_page(pg, base_url, WORKED_LINK)               # 2f is used: its count badge is the red 0
    expect(tile(pg, "2f")).to_have_attribute("data-left", "0")
    ratios = pg.locator(".badge, .left, .cs-badge").evaluate_all(BADGE_CONTRAST_JS)
    assert len(ratios) > 40
    low = [r for r in ratios if r[1] < 4.5]
    assert low == [], low


# --- an evening (POST /v1/sessions/settle) ---------------------------------------------------------

def _has_sessions(application) -> bool:
    return any(str(rule) == "/v1/sessions/settle" for rule in application.url_map.iter_rules())


def test_an_evening_of_hands_with_running_totals(make_page, base_url, application):
    if not _has_sessions(application):
        pytest.skip("POST /v1/sessions/settle is not in this tree yet (branch sessions)")
    pg = phone3(make_page, permissions=["clipboard-read", "clipboard-write"])
    open_page(pg, base_url, "#lang=en")
    card = pg.locator("#session-card")
    press(pg, card.get_by_role("button", name="Start"))             # Ann, Bo, Cy, Di: Ann deals first
    expect(pg.locator("#ses-next")).to_have_text("Hand 1 · Ann deals · East round")
    expect(pg.locator('#seat button[data-seat="S"]')).to_have_text("South Bo")
    # hand 1: the worked example, South (Bo) by self-draw: 4 台, P = 5, E W N pay 5 each
    # (check_worked_example_result): Ann −5, Bo +15, Cy −5, Di −5
    open_page(pg, base_url, WORKED_LINK)
    press(pg, card.get_by_role("button", name="Add this hand"))
    expect(pg.locator("#ses-table tbody tr")).to_have_count(1)
    expect(pg.locator('#ses-table tbody tr[data-hand="0"] .ses-what')).to_have_text("Bo wins 4 台, self-draw")
    expect(pg.locator('#ses-table tbody tr[data-hand="0"] .ses-dealer')).to_have_text("Ann deals · East round")
    # the dealer (Ann) did not win: the deal passes to the next seat, Bo (docs/rules.md §8)
    expect(pg.locator("#ses-next")).to_have_text("Hand 2 · Bo deals · East round")
    # hand 2: a draw keeps the dealer (ningbo: draw_keeps_dealer)
    press(pg, card.get_by_role("button", name="Draw"))
    expect(pg.locator("#ses-next")).to_have_text("Hand 3 · Bo deals · East round")
    # hand 3: Bo, now East, wins 111m 222p 333s EE NN on N discarded by North (Ann): 4 台, P = 5, the
    # discarder pays 2 × 5 = 10 (test_who_pays_what_is_in_the_bar): Ann −15, Bo +25, Cy −5, Di −5
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=111m222p333sEENN&w=N&by=discard&from=N")
    expect(pg.locator('#seat button[data-seat="N"]')).to_have_text("North Ann")
    press(pg, pg.get_by_role("button", name="Add to the evening (hand 3)"))       # from the result
    totals = pg.locator("#ses-table tfoot td")
    expect(totals).to_have_text(["−15", "+25", "−5", "−5"])
    expect(pg.locator('#ses-table tbody tr[data-hand="1"] .ses-what')).to_have_text("Draw")
    expect(pg.locator('#ses-table tbody tr[data-hand="2"] .ses-dealer')).to_have_text(
        "Bo deals · East round · dealer again")
    expect(pg.locator('#ses-table tbody tr[data-hand="2"] .ses-what')).to_have_text("Bo wins 4 台 off Ann")
    # who pays whom: three debtors, so three transfers at the fewest
    expect(pg.locator("#ses-pays .ses-pay")).to_have_text(["Ann pays Bo 15", "Cy pays Bo 5", "Di pays Bo 5"])
    # kept on the phone: a reload shows the same evening
    pg.reload()
    idle(pg)
    expect(pg.locator("#ses-table tbody tr")).to_have_count(3)
    expect(totals).to_have_text(["−15", "+25", "−5", "−5"])
    # and in a link: another phone opens the same evening
    press(pg, card.get_by_role("button", name="Copy the evening’s link"))
    link = pg.evaluate("navigator.clipboard.readText()")
    other = phone3(make_page)
    other.goto(link)
    idle(other)
    expect(other.locator("#ses-table tfoot td")).to_have_text(["−15", "+25", "−5", "−5"])
    expect(other.locator("#ses-next")).to_have_text("Hand 4 · Bo deals · East round")


# --- no signal: an installable page that works offline ---------------------------------------------

def test_installable_and_keeps_hand_and_evening_offline(make_page, base_url):
    manifest = json.loads(urllib.request.urlopen(base_url + "/static/manifest.webmanifest", timeout=10).read())
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        assert urllib.request.urlopen(base_url + icon["src"], timeout=10).status == 200
    status, head, _ = _get(base_url + "/sw.js", {})
    assert status == 200 and "javascript" in head["content-type"] and head["cache-control"] == "no-cache"

    pg = phone3(make_page)
    open_page(pg, base_url, "#lang=en")
    # the manifest under its plain or its content-hashed name (static_assets rewrites the page's references)
    assert re.fullmatch(r"/static/manifest(\.[0-9a-f]{12})?\.webmanifest",
                        pg.locator('link[rel="manifest"]').get_attribute("href"))
    assert pg.evaluate("navigator.serviceWorker.ready.then(r => !!r.active)")
    pg.reload()                                     # now under the worker: what the page loads is kept
    idle(pg)
    assert pg.evaluate("!!navigator.serviceWorker.controller")
    press(pg, pg.locator("#session-card").get_by_role("button", name="Start"))
    for code in ["1m", "2m", "3m", "E"]:
        press(pg, tile(pg, code))

    pg.context.set_offline(True)
    pg.reload()
    idle(pg)
    # the page came up from the phone, with its hand, its evening and a word that it is offline
    assert hand_tiles(pg) == ["1m", "2m", "3m", "E"]
    expect(pg.locator("#net-state")).to_have_text("Offline")
    expect(pg.locator("#offline-note")).to_contain_text("Offline: the hand and the evening stay on this phone")
    expect(pg.locator("#ses-next")).to_have_text("Hand 1 · Ann deals · East round")
    expect(pg.locator("#preset option")).to_have_count(5)     # /v1/rules, kept
    for code in ["4m", "5m", "6m", "7p", "8p", "9p", "E", "N", "N"]:     # 13 tiles: a call, with no answer
        press(pg, tile(pg, code))
    expect(pg.locator("#offline")).to_contain_text("The scoring service cannot be reached")
    assert len(hand_tiles(pg)) == 13                          # every tap kept
    pg.context.set_offline(False)                # back online: the page asks again by itself
    expect(pg.locator("#net-state")).to_be_hidden()
    idle(pg)
    expect(pg.locator("#offline")).to_have_count(0)
    # seat E, 123m 456m 789p EE NN waits on E or N (对倒).  On E (seat and round wind): self-draw 自摸 1
    # + 硬胡 1 + 对倒 1 + 位风 1 + 圈风 1 = 5 ≥ 4.  On N: at most 自摸 1 + 硬胡 1 + 对倒 1 = 3 < 4
    expect(pg.locator("#verdict")).to_have_text("Waiting on 2 · 1 can win")


# --- advice by value (issue 40): each discard's chance to win and points, both languages ---------

def test_each_discard_shows_its_chance_and_points(make_page, base_url):
    # the page asks /v1/analyze by value over the next 2 draws; each row shows the answer's
    # win_probability as a percentage (1 decimal) and expected_points (2 decimals), or a dash
    import ningbo_score
    pg = make_page(**DESKTOP)
    answer = ningbo_score.analyze({"seat_wind": "E", "round_wind": "E", "hand": {"concealed": "111m222p333sEENN9s"},
                                   "win": {}, "objective": "value", "draws_left": 2})
    best = answer["discards"][0]
    assert best["discard"] == "9s" and best["expected_points"] > 0
    chance, points = f"{100 * best['win_probability']:.1f}", f"{best['expected_points']:.2f}"
    open_page(pg, base_url, "#lang=en&s=E&r=E&h=111m222p333sEENN9s")
    first = pg.locator("table.discards tbody tr").first
    expect(first).to_have_attribute("data-discard", "9s")
    expect(first.locator("td.value")).to_have_text(f"win {chance}% · {points} pts")
    expect(pg.locator("table.discards thead")).to_contain_text("Chance to win in 2 draws · points on average")
    open_page(pg, base_url, "#lang=zh&s=E&r=E&h=111m222p333sEENN9s")
    first = pg.locator("table.discards tbody tr").first
    expect(first.locator("td.value")).to_have_text(f"胡 {chance}% · 均 {points} 分")
    expect(pg.locator("table.discards thead")).to_contain_text("2 摸内胡牌的机会 · 平均得分")
