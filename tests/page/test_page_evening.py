"""The calculator page, round four (issue 42, points 1–3): an evening you can trust, at phone size
(390 × 844 and 360 × 640, touch) in headless Chromium.

1. a second tap on "Add this hand" records nothing (the hand is cleared once recorded), and every
   recorded hand can be corrected or deleted, the evening settled again with the same players;
2. a hand recorded with no signal is settled when the connection returns;
3. an evening link opened on a phone that has an evening asks: keep mine, open theirs, keep both.

Expected values are worked out by hand from docs/rules.md in the comments beside them.
"""
from __future__ import annotations

import base64
import json

import pytest
from playwright.sync_api import expect

from test_page import WORKED_LINK, application, base_url, browser, hand_tiles, idle, make_page, open_page  # noqa: F401

PHONES = pytest.mark.parametrize("size", [
    {"width": 390, "height": 844, "has_touch": True, "is_mobile": True},
    {"width": 360, "height": 640, "has_touch": True, "is_mobile": True},
], ids=["390x844", "360x640"])
# seat E (the dealer), round E: 111m 222p 333s EE NN won on N discarded by North: 碰碰胡 2 + 硬胡 1 +
# 对倒 1 (N completed the pung; E would have too) = 4 台 (N is no seat or round wind of E): P = 1 + 4 = 5,
# and on a discard win the discarder alone pays, 2 × 5 = 10 (docs/rules.md §7)
DEALER_WINS_OFF_NORTH = "#lang=en&s=E&r=E&h=111m222p333sEENN&w=N&by=discard&from=N"


def tap(pg, locator) -> None:
    locator.tap()
    idle(pg)


def start_evening(pg, base_url: str) -> None:
    open_page(pg, base_url, "#lang=en")
    tap(pg, pg.locator("#session-card").get_by_role("button", name="Start"))     # Ann, Bo, Cy, Di
    expect(pg.locator("#ses-next")).to_have_text("Hand 1 · Ann deals · East round")


def record(pg, base_url: str, link: str) -> None:
    open_page(pg, base_url, link)
    add = pg.locator("#ses-add")
    expect(add).to_be_enabled()
    tap(pg, add)


def rows(pg) -> list[str]:
    return pg.locator("#ses-table tbody .ses-what").all_inner_texts()


def totals(pg):
    return pg.locator("#ses-table tfoot td")


@PHONES
def test_a_second_tap_records_nothing_and_hands_can_be_corrected_or_deleted(make_page, base_url, size):
    pg = make_page(**size)
    pg.on("dialog", lambda d: d.accept())
    start_evening(pg, base_url)
    # hand 1: the worked example, South (Bo) by self-draw, 4 台, P = 5: Ann −5, Bo +15, Cy −5, Di −5
    open_page(pg, base_url, WORKED_LINK)
    add = pg.locator("#ses-add")
    add.evaluate("b => { b.click(); b.click(); }")      # a double tap: the second before any answer
    idle(pg)
    assert rows(pg) == ["Bo wins 4 台, self-draw"]
    expect(totals(pg)).to_have_text(["−5", "+15", "−5", "−5"])
    assert hand_tiles(pg) == []           # cleared for the next hand: nothing left to record twice
    expect(add).to_be_disabled()
    # the dealer (Ann) did not win: Bo deals hand 2 and sits East
    expect(pg.locator("#ses-next")).to_have_text("Hand 2 · Bo deals · East round")
    # hand 2: Bo (East) wins off North (Ann): Ann −10, Bo +10; in all Ann −15, Bo +25, Cy −5, Di −5
    record(pg, base_url, DEALER_WINS_OFF_NORTH)
    assert rows(pg) == ["Bo wins 4 台, self-draw", "Bo wins 4 台 off Ann"]
    expect(totals(pg)).to_have_text(["−15", "+25", "−5", "−5"])

    # hand 1 deleted: Bo's win off Ann is now hand 1, dealt by Ann: the same players (Bo sits South,
    # Ann East), still 4 台 (N is no wind of South either): Ann −10, Bo +10, Cy 0, Di 0; Bo deals next
    tap(pg, pg.get_by_role("button", name="Delete hand 1"))
    assert rows(pg) == ["Bo wins 4 台 off Ann"]
    expect(pg.locator('#ses-table tbody tr[data-hand="0"] .ses-dealer')).to_have_text("Ann deals · East round")
    expect(totals(pg)).to_have_text(["−10", "+10", "0", "0"])
    expect(pg.locator("#ses-next")).to_have_text("Hand 2 · Bo deals · East round")

    # hand 1 corrected: it was a self-draw.  碰碰胡 2 + 自摸 1 + 硬胡 1 + 对倒 1 = 5 台, P = 6, each of
    # the three pays 6: Ann −6, Bo +18, Cy −6, Di −6
    tap(pg, pg.get_by_role("button", name="Edit hand 1"))
    expect(pg.locator("#ses-editing")).to_contain_text("Correcting hand 1")
    # (the winning N too)
    assert sorted(hand_tiles(pg)) == sorted(["1m"] * 3 + ["2p"] * 3 + ["3s"] * 3 + ["E", "E", "N", "N", "N"])
    expect(pg.locator('#seat button[data-seat="S"]')).to_have_text("South Bo")     # who sat there then
    tap(pg, pg.locator('input[name="by"][value="self_draw"]'))
    save = pg.locator("#ses-add")
    expect(save).to_have_text("Save hand 1")
    tap(pg, save)
    assert rows(pg) == ["Bo wins 5 台, self-draw"]
    expect(totals(pg)).to_have_text(["−6", "+18", "−6", "−6"])
    expect(pg.locator("#ses-editing")).to_have_count(0)
    # kept through a reload
    pg.reload()
    idle(pg)
    assert rows(pg) == ["Bo wins 5 台, self-draw"]
    expect(totals(pg)).to_have_text(["−6", "+18", "−6", "−6"])


@PHONES
def test_a_hand_recorded_offline_is_settled_when_the_signal_returns(make_page, base_url, size):
    pg = make_page(**size)
    start_evening(pg, base_url)
    record(pg, base_url, WORKED_LINK)          # Bo wins: Bo deals hand 2
    expect(pg.locator("#ses-next")).to_have_text("Hand 2 · Bo deals · East round")
    pg.context.set_offline(True)
    tap(pg, pg.locator("#session-card").get_by_role("button", name="Draw"))
    expect(pg.locator("#ses-problem")).to_have_text(
        "Offline: the hands are kept; they are settled once you are online.")
    pg.reload()                                # still offline, and reloaded: the draw is kept, unsettled
    idle(pg)
    pg.context.set_offline(False)
    # back online: the draw is settled by itself.  ningbo keeps the dealer on a draw (draw_keeps_dealer):
    # hand 3 is Bo's deal again, Bo East
    expect(pg.locator("#ses-problem")).to_have_count(0)
    idle(pg)
    assert rows(pg) == ["Bo wins 4 台, self-draw", "Draw"]
    expect(pg.locator("#ses-next")).to_have_text("Hand 3 · Bo deals · East round")
    expect(pg.locator('#seat button[data-seat="E"]')).to_have_text("East Bo · dealer")
    expect(totals(pg)).to_have_text(["−5", "+15", "−5", "−5"])


def _evening_link(base_url: str, evening: dict) -> str:
    raw = base64.urlsafe_b64encode(json.dumps(evening).encode()).decode().rstrip("=")
    return f"{base_url}/#ev={raw}"


@PHONES
def test_an_evening_link_asks_before_it_replaces_the_phones_evening(make_page, base_url, size):
    pg = make_page(**size)
    start_evening(pg, base_url)
    record(pg, base_url, WORKED_LINK)                                  # mine: Ann, Bo, Cy, Di; one win
    theirs = {"players": ["Xu", "Yi", "Zo", "Wu"], "first_dealer": "Xu", "hands": [{"draw": True}]}
    link = _evening_link(base_url, theirs)
    box = pg.locator("#ses-incoming")

    pg.goto(link)
    idle(pg)
    expect(box).to_be_visible()
    expect(box).to_contain_text("On this phone: Ann, Bo, Cy, Di (1 hand)")
    expect(box).to_contain_text("In the link: Xu, Yi, Zo, Wu (1 hand)")
    expect(pg.locator("#ses-table thead th.num")).to_have_text(["#", "Ann", "Bo", "Cy", "Di"])   # nothing replaced yet
    tap(pg, box.get_by_role("button", name="Keep mine"))
    expect(box).to_be_hidden()
    assert rows(pg) == ["Bo wins 4 台, self-draw"]

    pg.goto("about:blank")
    pg.goto(link)
    idle(pg)
    tap(pg, box.get_by_role("button", name="Keep both"))
    expect(pg.locator("#ses-table thead th.num")).to_have_text(["#", "Xu", "Yi", "Zo", "Wu"])
    assert rows(pg) == ["Draw"]
    # mine was put aside, and comes back from the evening's card
    saved = pg.locator(".ses-saved")
    expect(saved).to_have_text("Ann, Bo, Cy, Di (1 hand) Switch to it")
    tap(pg, saved.get_by_role("button", name="Switch to it"))
    expect(pg.locator("#ses-table thead th.num")).to_have_text(["#", "Ann", "Bo", "Cy", "Di"])
    expect(totals(pg)).to_have_text(["−5", "+15", "−5", "−5"])
    expect(pg.locator(".ses-saved")).to_have_text("Xu, Yi, Zo, Wu (1 hand) Switch to it")

    pg.goto("about:blank")
    pg.goto(link)
    idle(pg)
    tap(pg, box.get_by_role("button", name="Open theirs"))
    expect(pg.locator("#ses-table thead th.num")).to_have_text(["#", "Xu", "Yi", "Zo", "Wu"])
    # a link to the evening this phone already has opens it without asking
    pg.goto("about:blank")
    pg.goto(link)
    idle(pg)
    expect(box).to_be_hidden()
