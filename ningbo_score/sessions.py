"""Settle a session (``POST /v1/sessions/settle``): its hands in order, the rotation of the deal,
each player's running total, what is owed to the house, the fewest transfers that settle the
rest, and per-player stats.

The request is read by ningbo_score.readers.session_requests into a :class:`SessionInput`; each of its
hands is then scored by its own endpoint's code: a ``score`` hand is a ``/v1/score`` body read by
the ``/v1/score`` schema and scored by the engine, a ``replay`` hand a ``/v1/replay`` body given
to :func:`ningbo_score.replay.replay`.  The deal moves after every hand by
:func:`ningbo_score.table.next_hand`, the code of ``/v1/table/next`` (docs/rules.md §8).

Players and seats
-----------------
``players`` are positions 0–3 in play order, as in :func:`~ningbo_score.table.next_hand`; in a
hand dealt by position ``d`` the seat wind ``SEATS[k]`` is the player ``(d + k) % 4``.  A hand's
request names a seat of that hand or a player (``net``, ``escape``); a score's ``net`` speaks of
seats.  The answer names each player once, in ``players``: its hands give players by their
position there (``dealer``, ``winner``, ``from``) and gains in that order (``net``, ``totals``),
so that an answer grows with its hands, not with the length of the names (docs/api.md); the
session's ``totals``, ``house``, ``transfers``, ``stats`` and ``next`` name them.
"""
from __future__ import annotations

import typing
from dataclasses import dataclass
from itertools import combinations

from . import api
from .errors import Problem, ScoreError
from .readers.fields import load
from .replay import replay
from .rules import MAX_SAFE_INTEGER
from .readers.session_requests import HAND_KINDS, MAX_HANDS, MAX_NAME, SEAT, SESSION_REQUEST, SessionInput, Who
from .table import NextHandInput, escape_shares, next_hand
from .tiles import SEAT_ZH, SEATS

if typing.TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = ["HAND_KINDS", "MAX_HANDS", "MAX_NAME", "SessionInput", "fewest_transfers", "settle"]


@dataclass(slots=True)
class _Result:
    """How one hand ended, by seat of that hand."""
    outcome: str                        # win, draw, net, penalty
    net: list[int]                      # by seat (E S W N)
    winner: int | None = None           # a seat
    by: str | None = None
    from_: int | None = None            # a seat: the discarder or the robbed player
    tai: int | None = None
    eligible: bool | None = None
    house: int = 0                      # what the hand's players owe the house (an escape penalty's)
    house_from: int | None = None       # a seat: who owes it


def settle(request: Mapping[str, object] | SessionInput, lang: str = "en",
           before_each: Callable[[], None] | None = None) -> dict[str, typing.Any]:
    """The 200 body of ``POST /v1/sessions/settle`` for its body (or its loaded input).

    ``before_each()``, when given, is called before each hand is scored (a server lets its other
    work run there).  A hand that fails raises its endpoint's :class:`ScoreError` with
    ``hand_index`` among its ``extra`` (a replay's carries its ``event_index`` and ``reason``)."""
    s = request if isinstance(request, SessionInput) else load(SESSION_REQUEST, request)
    names = s.players
    dealer, wind, count = s.first_dealer, "E", 1
    totals = [0, 0, 0, 0]
    house = [0, 0, 0, 0]                # what each player owes the house, by position
    stats = [{"wins": 0, "self_draws": 0, "dealt_in": 0, "best_tai": None} for _ in range(4)]
    hands: list[dict[str, typing.Any]] = []
    for index, (kind, value) in enumerate(s.hands):
        if before_each is not None:
            before_each()
        try:
            result = _play(kind, value, s, (dealer, wind, count), lang)
            player_net = [result.net[(p - dealer) % 4] for p in range(4)]
            for p in range(4):
                totals[p] += player_net[p]
            if result.house_from is not None:
                house[(dealer + result.house_from) % 4] += result.house
            _check_totals(totals + house)
        except ScoreError as err:
            err.extra["hand_index"] = index
            raise
        if result.winner is not None:
            _count_win(stats, result, dealer)
        hands.append({
            "index": index, "kind": kind, "dealer": dealer, "round_wind": wind, "outcome": result.outcome,
            "winner": _position(dealer, result.winner), "by": result.by, "from": _position(dealer, result.from_),
            "tai": result.tai, "eligible": result.eligible, "net": player_net, "totals": list(totals),
        })
        winner = None if result.winner is None else (dealer + result.winner) % 4
        after = next_hand(NextHandInput(dealer, wind, count, winner, winner is None, s.rules))
        dealer, wind, count = (typing.cast(int, after["dealer"]), typing.cast(str, after["round_wind"]),
                               typing.cast(int, after["dealers_this_round"]))
    # what the players settle among themselves: each total plus what it owes the house (summing to 0)
    among = [totals[p] + house[p] for p in range(4)]
    return {
        "players": list(names),
        "hands": hands,
        "totals": dict(zip(names, totals)),
        "house": [{"from": names[p], "amount": house[p]} for p in range(4) if house[p]],
        "transfers": [{"from": names[f], "to": names[t], "amount": a} for f, t, a in fewest_transfers(among)],
        "stats": dict(zip(names, stats)),
        "next": {"dealer": names[dealer], "round_wind": wind, "seats": _seats(names, dealer)},
    }


def _seats(names: Sequence[str], dealer: int) -> dict[str, str]:
    """Each seat wind's player when ``dealer`` (a position) deals."""
    return {SEATS[k]: names[(dealer + k) % 4] for k in range(4)}


def _position(dealer: int, seat: int | None) -> int | None:
    """The position in ``players`` of the player at ``seat`` (E = 0) when ``dealer`` deals."""
    return None if seat is None else (dealer + seat) % 4


def _count_win(stats: list[dict[str, typing.Any]], result: _Result, dealer: int) -> None:
    """A won hand (every win of a settled session is eligible: :func:`_won`) in the winner's
    stats, and in the discarder's ``dealt_in`` (discards only:
    *interpretation*, docs/api.md's "discards that fed a win"; a robbed kong is no discard)."""
    assert result.winner is not None and result.tai is not None
    mine = stats[(dealer + result.winner) % 4]
    mine["wins"] += 1
    if result.by == "self_draw":
        mine["self_draws"] += 1
    if mine["best_tai"] is None or result.tai > mine["best_tai"]:
        mine["best_tai"] = result.tai
    if result.by == "discard" and result.from_ is not None:
        stats[(dealer + result.from_) % 4]["dealt_in"] += 1


def _check_totals(totals: list[int]) -> None:
    """No answer holds a number past 2^53 − 1 (docs/api.md): a running total past it is a 422."""
    largest = max(abs(t) for t in totals)
    if largest > MAX_SAFE_INTEGER:
        raise ScoreError([Problem(
            "points_too_large", "",
            f"a running total would reach {largest}, past the largest safe integer {MAX_SAFE_INTEGER} (2^53 − 1)",
            f"累计分数将达到 {largest}，超过了最大安全整数 {MAX_SAFE_INTEGER}（2^53 − 1）")])


# --------------------------------------------------------------------------------------------
# One hand, by its kind.

def _play(kind: str, value: typing.Any, s: SessionInput, table: tuple[int, str, int], lang: str) -> _Result:
    """The hand, given the table it is played at: (dealer, round wind, dealers this round)."""
    if kind == "draw":
        return _Result("draw", [0, 0, 0, 0])
    dealer = table[0]
    if kind == "net":
        net = [0, 0, 0, 0]
        named: list[bool] = [False] * 4
        for who, gain in value:
            seat = _seat(who, dealer)
            if named[seat]:
                raise ScoreError.one(
                    "seat_named_twice", "net",
                    f"the seat {SEATS[seat]} of this hand ({s.players[(dealer + seat) % 4]}) is named twice: "
                    f"name each seat once, by its seat wind or its player",
                    f"本局的 {SEAT_ZH[SEATS[seat]]} 位（{s.players[(dealer + seat) % 4]}）出现了两次："
                    f"每个座位只能以座位风或玩家名字给出一次")
            named[seat] = True
            net[seat] = gain
        return _Result("net", net)
    if kind == "penalty":
        escaped = _seat(value["escape"], dealer)
        penalty, each_other = escape_shares(value.get("base_points") or s.base_points or 1, s.rules)
        return _Result("penalty", [-penalty if k == escaped else each_other for k in range(4)],
                       house=penalty - 3 * each_other, house_from=escaped)
    body = _filled(value, s, table, kind == "replay")
    if kind == "score":
        h = api.read_score(body)
        return _won(api.score(h, lang), h.seat, h.by, h.win_from, lang)
    answer = replay(body, lang)
    if answer["outcome"] != "win":
        return _Result("draw", [0, 0, 0, 0])
    win = answer["score_request"]["win"]
    return _won(answer["score"], SEATS.index(answer["winner"]), win["by"],
                None if win.get("from") is None else SEATS.index(win["from"]), lang)


def _seat(who: Who, dealer: int) -> int:
    """The seat (E = 0) of a hand dealt by position ``dealer`` that a hand names: a seat, or a
    player (docs/api.md: its name is read where a seat is)."""
    kind, n = who
    return n if kind == SEAT else (n - dealer) % 4


def _won(score: typing.Mapping[str, typing.Any], seat: int, by: str, from_: int | None, lang: str) -> _Result:
    """A win, which a session records only where it is one: a hand under the minimum is no win
    (docs/rules.md §11: 诈胡; it pays nothing and must not move the deal), a 422 ``below_minimum``."""
    if not score["eligible"]:
        # the engine's reasons come in the client's language: the message of that language holds them
        why = "; ".join(score["reasons"])
        en = why if lang == "en" else f"{score['counted_tai']} 台 counted, {score['min_tai']} needed"
        zh = why if lang == "zh" else f"计 {score['counted_tai']} 台，起胡须 {score['min_tai']} 台"
        raise ScoreError.one(
            "below_minimum", "",
            f"this win is not eligible ({en}): a declared win under the minimum is no win (docs/rules.md §11) "
            f"and can't be recorded as one",
            f"这手胡牌不够起胡（{zh}）：不够起胡的胡牌不算胡（诈胡，规则 §11），不能记作胡牌")
    net = score["net"]
    return _Result("win", [net[w] for w in SEATS], seat, by, from_, score["tai"], score["eligible"])


def _filled(value: Mapping[str, typing.Any], s: SessionInput, table: tuple[int, str, int],
            replay: bool) -> dict[str, typing.Any]:
    """A ``score`` or ``replay`` body with the session's ``rules`` and ``base_points`` where it
    has none, and the rotation's round wind (and for a replay, its ``dealers_this_round``) where
    it gives none; one that gives others is a 422 ``dealer_sequence``."""
    dealer, wind, count = table
    body = dict(value)
    given = body.get("round_wind")
    if given is None:
        body["round_wind"] = wind
    elif given != wind and given in SEATS:       # (another value: the body's own schema refuses it)
        raise _out_of_sequence(
            "round_wind", f"round_wind is {given}, but the deal has come to the {wind} round",
            f"round_wind 为 {given}，但按轮庄已到{SEAT_ZH[wind]}风圈", s.players[dealer])
    if replay:
        dealers = body.get("dealers_this_round")
        if dealers is None:
            body["dealers_this_round"] = count
        elif dealers != count and type(dealers) is int and 1 <= dealers <= 4:
            raise _out_of_sequence(
                "dealers_this_round",
                f"dealers_this_round is {dealers}, but {count} players have dealt in this round",
                f"dealers_this_round 为 {dealers}，但本圈已有 {count} 位玩家坐庄", s.players[dealer])
    if body.get("rules") is None and s.rules_value is not None:
        body["rules"] = s.rules_value
    if body.get("base_points") is None and s.base_points is not None:
        body["base_points"] = s.base_points
    return body


def _out_of_sequence(path: str, en: str, zh: str, dealer: str) -> ScoreError:
    return ScoreError.one("dealer_sequence", path,
                          f"{en} ({dealer} deals; docs/rules.md §8): leave {path} out to have it filled",
                          f"{zh}（{dealer} 坐庄；规则 §8）：不填 {path} 即自动补上")


# --------------------------------------------------------------------------------------------
# The fewest transfers.

def fewest_transfers(totals: Sequence[int]) -> list[tuple[int, int, int]]:
    """``(from, to, amount)`` transfers, by position, that settle ``totals`` (summing to 0) with
    the fewest transfers (docs/api.md); among those, the one whose largest transfer is smallest,
    then the first when each candidate's transfers, sorted by (from, to), are compared as lists.
    Every transfer goes from a player who lost (total < 0) to one who won (total > 0)
    (*interpretation*: docs/api.md does not say it, but a winner who pays someone to pass it on
    settles nothing a direct transfer does not; it never takes fewer transfers).  Sorted by
    (from, to).

    Exact, by search: a settlement with the fewest transfers is a forest on the players whose
    totals are not 0 (a cycle of transfers can be shifted until one of them is 0), each tree a
    group summing to 0, and the transfers of a forest follow from it: across an edge goes what
    one side of it owes the other.  So every forest of losers-to-winners edges with 1, 2, …
    edges is tried, and the first size that settles gives the candidates (with 4 players, at
    most 4 + 6 + 4 edge sets)."""
    people = [p for p, t in enumerate(totals) if t != 0]
    if not people:
        return []
    pairs = [(u, v) for u, v in combinations(people, 2) if (totals[u] < 0) != (totals[v] < 0)]
    for size in range(1, len(people)):
        best: tuple[tuple[int, list[tuple[int, int]]], list[tuple[int, int, int]]] | None = None
        for edges in combinations(pairs, size):
            flows = _forest_flows(edges, people, totals)
            if flows is None:
                continue
            flows.sort()
            key = (max(a for _, _, a in flows), [(f, t) for f, t, _ in flows])
            if best is None or key < best[0]:
                best = (key, flows)
        if best is not None:
            return best[1]
    raise ValueError(f"totals that do not sum to 0: {list(totals)}")


def _forest_flows(edges: Sequence[tuple[int, int]], people: Sequence[int],
                  totals: Sequence[int]) -> list[tuple[int, int, int]] | None:
    """The transfers along a forest's edges that settle ``totals``, or None: the edges make a
    cycle, a tree does not sum to 0, or an edge would carry nothing or carry it from a winner."""
    parent = {p: p for p in people}

    def root(p: int) -> int:
        while parent[p] != p:
            p = parent[p]
        return p

    for u, v in edges:
        ru, rv = root(u), root(v)
        if ru == rv:
            return None
        parent[ru] = rv
    sums: dict[int, int] = {}
    for p in people:
        sums[root(p)] = sums.get(root(p), 0) + totals[p]
    if any(sums.values()):
        return None
    out = []
    for i, (u, v) in enumerate(edges):
        side = _side(u, [e for j, e in enumerate(edges) if j != i])
        owed = sum(totals[p] for p in side)        # what u's side has won (< 0: it owes)
        payer, payee, amount = (u, v, -owed) if owed < 0 else (v, u, owed)
        if amount == 0 or totals[payer] > 0:
            return None
        out.append((payer, payee, amount))
    return out


def _side(start: int, edges: Sequence[tuple[int, int]]) -> set[int]:
    """The players joined to ``start`` by ``edges``."""
    seen, todo = {start}, [start]
    while todo:
        p = todo.pop()
        for u, v in edges:
            for a, b in ((u, v), (v, u)):
                if a == p and b not in seen:
                    seen.add(b)
                    todo.append(b)
    return seen
