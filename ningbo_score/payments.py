"""Hand points (RULES.md §6) and who pays what (§7)."""
from __future__ import annotations

from .hand import Hand
from .tiles import SEATS


def hand_points(h: Hand, tai: int, counted_tai: int) -> int:
    """linear: base × (1 + tai); doubling: base × 2^(counted_tai − min_tai)."""
    if h.rules.points == "linear":
        return h.base_points * (1 + tai)
    return h.base_points * 2 ** max(0, counted_tai - h.rules.min_tai)


def liability(h: Hand) -> dict[int, int]:
    """0 unrelated, 1 related, 2 mutual (双包), for each seat other than the winner.

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
    return {s: (claimed[s] >= 3) + (claims.get(s, 0) >= 3) for s in _OTHERS[h.seat]}


_OTHERS = tuple(tuple(s for s in range(4) if s != w) for w in range(4))


def multipliers(h: Hand) -> tuple[str, dict[int, int], dict[int, int]]:
    """(event, multiplier per payer, relation per payer) before the caps."""
    rel = liability(h)
    r = h.rules
    mult = {s: 0 for s in rel}
    if h.by == "discard":
        event = "discard"
        for s, lf in rel.items():
            if s == h.win_from:
                mult[s] = 5 * lf if (lf and r.related_discarder == "five") else 2 + 2 * lf
            else:
                mult[s] = 2 * lf
    elif h.by == "robbing_kong":
        event = "robbing_kong"
        for s, lf in rel.items():
            mult[s] = (5 if s == h.win_from else 0) + 5 * lf
    elif h.kong_fed_by is not None:
        event = "kong_bloom"
        for s, lf in rel.items():
            if s == h.kong_fed_by:
                mult[s] = 5 + 5 * lf                 # §10.14: whatever related_discarder says
            else:
                mult[s] = 5 * lf or (1 if r.kong_bloom_others_pay else 0)
    else:
        event = "self_draw"
        if any(rel.values()):
            mult = {s: 5 * lf for s, lf in rel.items()}
        else:
            mult = {s: 1 for s in rel}
    if r.liability_cap is not None:
        mult = {s: min(m, r.liability_cap) for s, m in mult.items()}
    return event, mult, rel


def _apply_cap(amounts: dict[int, int], cap: int) -> dict[int, int]:
    """§7 per-hand cap: each payer at most `cap`; a total over `cap` is scaled by cap/total, rounded
    down, and the units left go one each to the largest remainders (ties in seat order)."""
    amounts = {s: min(a, cap) for s, a in amounts.items()}
    total = sum(amounts.values())
    if total <= cap:
        return amounts
    scaled = {s: a * cap // total for s, a in amounts.items()}
    left = cap - sum(scaled.values())
    by_remainder = sorted(amounts, key=lambda s: (-(amounts[s] * cap % total), s))
    for s in by_remainder[:left]:
        scaled[s] += 1
    return scaled


def settle(h: Hand, points: int) -> tuple[list[dict], dict[str, int]]:
    """The payment rows and the net of every seat."""
    event, mult, rel = multipliers(h)
    payers = [s for s in sorted(mult) if mult[s] > 0]
    amounts = {s: mult[s] * points for s in payers}
    if h.rules.hand_cap is not None:
        amounts = _apply_cap(amounts, h.rules.hand_cap)
    winner = SEATS[h.seat]
    rows = [{"from": SEATS[s], "to": winner, "amount": amounts[s], "multiplier": mult[s], "reason": event,
             "liability": (None, "related", "mutual")[rel[s]]} for s in payers]
    net = {seat: 0 for seat in SEATS}
    for s in payers:
        net[SEATS[s]] -= amounts[s]
        net[winner] += amounts[s]
    return rows, net
