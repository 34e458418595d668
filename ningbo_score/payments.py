"""Hand points (docs/rules.md §6) and who pays what (§7)."""
from __future__ import annotations

import typing

from .errors import Problem, ScoreError
from .hand import Hand
from .rules import MAX_SAFE_INTEGER
from .tiles import SEATS

#: doubling's 基准: 4 台 pay 1×, 5 台 2× (000: "以4台为基准，4台为1倍，5台为2倍")
DOUBLING_BASE_TAI = 4

if typing.TYPE_CHECKING:
    from typing import TypedDict

    #: a row of the response's ``payments``
    Payment = TypedDict("Payment", {"from": str, "to": str, "amount": int, "multiplier": int, "reason": str,
                                    "liability": str | None})


def hand_points(h: Hand, tai: int) -> int:
    """linear: base × (1 + tai); doubling: base × 2^max(0, tai − 4), ``tai`` the total with the
    bonus items (a bonus 台 doubles too).  The base of doubling is the number 4 (000: 以4台为基准),
    not ``min_tai``, which only decides eligibility (rule book 3)."""
    if h.rules.points == "linear":
        return h.base_points * (1 + tai)
    points: int = h.base_points * 2 ** max(0, tai - DOUBLING_BASE_TAI)     # (2 ** a non-negative int)
    return points


def check_safe(points: int, net: dict[str, int]) -> None:
    """No answer holds a number past 2^53 − 1 (JavaScript's safe integers): the points, a payment
    (a payer's net) or the winner's net past it is a 422 ``invalid_request`` on ``base_points``."""
    largest = max(points, max(abs(v) for v in net.values()))
    if largest > MAX_SAFE_INTEGER:
        raise ScoreError([Problem(
            "points_too_large", "base_points",
            f"this hand would come to {largest} points, past the largest safe integer {MAX_SAFE_INTEGER} "
            f"(2^53 − 1): lower base_points (or item_tai)",
            f"这手牌的分数 {largest} 超过了最大安全整数 {MAX_SAFE_INTEGER}（2^53 − 1）："
            f"请降低 base_points（或 item_tai）")])


def liability(h: Hand) -> list[int]:
    """The relation of each seat to the winner, by seat (the winner's own is 0): 0 unrelated,
    1 related, 2 mutual (双包).

    Related: the winner claimed ≥ 3 of its melds from that seat, or that seat claimed ≥ 3 melds
    from the winner (``claims_from_winner``, used as given).  Chows count only where
    ``chi_counts_for_liability``; a concealed kong is no claim; an added kong is its pung, once.
    """
    claimed = [0, 0, 0, 0]
    chi_counts = h.rules.chi_counts_for_liability
    for m in h.melds:
        if m.from_seat is not None and (chi_counts or m.type != "chow"):
            claimed[m.from_seat] += 1
    claims = h.claims
    rel = [0, 0, 0, 0]
    for s in _OTHERS[h.seat]:
        rel[s] = (claimed[s] >= 3) + (claims.get(s, 0) >= 3)
    return rel


#: The most a winner's net can come to, in hand points: 3 payers at the largest multiplier, 15
#: (the player who fed a kong-bloom kong and is related twice over: 5 + 5 × 2; caps only lower it).
MAX_NET_POINTS = 3 * 15


def check_points(h: Hand, points: int) -> None:
    """:func:`check_safe` for a hand's ``points`` without settling it, unless its payments could
    come past the safe integers (:data:`MAX_NET_POINTS`): then they are settled to see."""
    if points * MAX_NET_POINTS > MAX_SAFE_INTEGER:
        check_safe(points, settle(h, points)[1])


#: the other seats of each winner, in seat order
_OTHERS = tuple(tuple(s for s in range(4) if s != w) for w in range(4))
_RELATION = (None, "related", "mutual")


def multipliers(h: Hand) -> tuple[str, list[int], list[int]]:
    """(event, multiplier by seat, relation by seat) before the caps; the winner's entries are 0.
    (Lists by seat rather than dicts: this runs for every scored hand.)"""
    rel = liability(h)
    r = h.rules
    w = h.seat
    mult = [0, 0, 0, 0]
    if h.by == "discard":
        event = "discard"
        five = r.related_discarder == "five"
        for s in _OTHERS[w]:
            lf = rel[s]
            if s == h.win_from:
                mult[s] = 5 * lf if (lf and five) else 2 + 2 * lf
            else:
                mult[s] = 2 * lf
    elif h.by == "robbing_kong":
        event = "robbing_kong"
        if r.robbed_kong_liability:     # 000: a 包 partner pays as on a self-draw (5, mutual 10)
            for s in _OTHERS[w]:
                mult[s] = 5 * rel[s]
        # the robbed player pays 5, whatever the 包 relations
        mult[h.win_from] = 5  # type: ignore[index]  # check() refuses a robbing_kong win without `from`
    elif h.kong_fed_by is not None:
        event = "kong_bloom"
        others_pay = 1 if r.kong_bloom_others_pay else 0
        for s in _OTHERS[w]:
            lf = rel[s]
            if s == h.kong_fed_by:
                mult[s] = 5 + 5 * lf                 # §10.14: whatever related_discarder says
            else:
                mult[s] = 5 * lf or others_pay
    else:
        event = "self_draw"
        related = rel[0] or rel[1] or rel[2] or rel[3]
        others_pay = 1 if r.liability_others_pay else 0     # unrelated players under 包 (7百搭: 1 each)
        for s in _OTHERS[w]:
            mult[s] = (5 * rel[s] or others_pay) if related else 1
    cap = r.liability_cap
    if cap is not None:
        for s in _OTHERS[w]:
            if mult[s] > cap:
                mult[s] = cap
    return event, mult, rel


def _apply_cap(amounts: list[int], payers: list[int], cap: int) -> None:
    """§7 per-hand cap, in place on the payers' amounts (by seat): each payer at most `cap`; a
    total over `cap` is scaled by cap/total, rounded down, and the units left go one each to the
    largest remainders (ties in seat order)."""
    total = 0
    for s in payers:
        if amounts[s] > cap:
            amounts[s] = cap
        total += amounts[s]
    if total <= cap:
        return
    capped = list(amounts)
    left = cap
    for s in payers:
        amounts[s] = capped[s] * cap // total
        left -= amounts[s]
    by_remainder = sorted(payers, key=lambda s: (-(capped[s] * cap % total), s))
    for s in by_remainder[:left]:
        amounts[s] += 1


def settle(h: Hand, points: int) -> tuple[list[Payment], dict[str, int]]:
    """The payment rows and the net of every seat."""
    event, mult, rel = multipliers(h)
    payers = [s for s in _OTHERS[h.seat] if mult[s] > 0]
    amounts = [0, 0, 0, 0]
    for s in payers:
        amounts[s] = mult[s] * points
    cap = h.rules.hand_cap
    if cap is not None:
        _apply_cap(amounts, payers, cap)
    winner = SEATS[h.seat]
    rows: list[Payment] = []
    net = [0, 0, 0, 0]
    for s in payers:
        amount = amounts[s]
        rows.append({"from": SEATS[s], "to": winner, "amount": amount, "multiplier": mult[s], "reason": event,
                     "liability": _RELATION[rel[s]]})
        net[s] -= amount
        net[h.seat] += amount
    return rows, dict(zip(SEATS, net))
