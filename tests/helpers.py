"""What the tests share, written once: the test-side tile shorthand, melds, a ``/v1/score`` body
and the readings of an answer.

Independent of the library on purpose: a request the tests build is explicit tile codes (not the
library's own parser's work), and what they expect stays worked out by hand from the rule book.
(``import helpers``: pytest puts tests/ on the path, pytest.ini's ``pythonpath``.)
"""
from __future__ import annotations

import re

#: the seats in play order (E the dealer)
SEATS = ("E", "S", "W", "N")
#: the seat after each (its 下家): the discarder the tests assume for a discard win by default
NEXT = {"E": "S", "S": "W", "W": "N", "N": "E"}
#: a character of Chinese text (the ``zh`` messages)
CJK = re.compile(r"[\u4e00-\u9fff]")


def has_chinese(text: str) -> bool:
    return CJK.search(text) is not None


def T(text: str) -> list[str]:
    """The test-side shorthand "123m 46p EE C" -> ["1m", "2m", "3m", "4p", "6p", "E", "E", "C"];
    white space is ignored, anything else than digits, a suit letter or an honour letter is an
    error."""
    out: list[str] = []
    digits: list[str] = []
    for ch in text.replace(" ", ""):
        if ch.isdigit():
            digits.append(ch)
        elif ch in "mpsf":
            assert digits, text
            out += [d + ch for d in digits]
            digits = []
        elif ch in "ESWNCFP":
            assert not digits, text
            out.append(ch)
        else:
            raise ValueError(text)
    assert not digits, text
    return out


def meld(kind: str, tiles: str | list[str], frm: str | None = None, **flags: object) -> dict:
    """A meld: ``tiles`` in the shorthand (or codes), ``from`` when given, then ``flags``
    (``concealed``, ``added``)."""
    m: dict = {"type": kind, "tiles": T(tiles) if isinstance(tiles, str) else tiles}
    if frm is not None:
        m["from"] = frm
    m.update(flags)
    return m


def chow(tiles: str, frm: str) -> dict:
    return meld("chow", tiles, frm)


def pung(tile: str, frm: str) -> dict:
    return meld("pung", [tile] * 3, frm)


def kong(tile: str, frm: str | None = None) -> dict:
    """An exposed kong claimed from ``frm``, or a concealed one."""
    return meld("kong", [tile] * 4, frm) if frm is not None else meld("kong", [tile] * 4, concealed=True)


def score_body(rules: object, seat: str, round_wind: str, concealed: str, *, winning: str | None = None,
               melds=(), flowers: str = "", indicator: str | None = None, caishen: dict | None = None,
               win: dict | None = None, claims: dict | None = None, base_points: int | None = None) -> dict:
    """A ``/v1/score`` body (a ``/v1/waits`` one without ``winning``): tiles in the shorthand;
    ``caishen`` as given, else ``{"indicator": indicator}`` when there is one; each of ``win``,
    ``claims`` and ``base_points`` only when given."""
    hand: dict = {"concealed": T(concealed)}
    if winning is not None:
        hand["winning_tile"] = winning
    hand.update(melds=list(melds), flowers=T(flowers))
    body: dict = {"rules": rules, "seat_wind": seat, "round_wind": round_wind, "hand": hand}
    if caishen is None and indicator is not None:
        caishen = {"indicator": indicator}
    if caishen is not None:
        body["caishen"] = caishen
    if win is not None:
        body["win"] = win
    if claims is not None:
        body["claims_from_winner"] = claims
    if base_points is not None:
        body["base_points"] = base_points
    return body


def items_by_id(answer: dict) -> dict[str, int]:
    """An answer's 台 summed by item id (docs/api.md: clients sum by id)."""
    out: dict[str, int] = {}
    for it in answer["items"]:
        out[it["id"]] = out.get(it["id"], 0) + it["tai"]
    return out


def paid(answer: dict) -> dict[str, int]:
    """An answer's payments: payer -> amount."""
    return {p["from"]: p["amount"] for p in answer["payments"]}
