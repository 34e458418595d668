"""Discard advice by value (``POST /v1/analyze`` with ``objective: value``, docs/api.md): the chance
to win an eligible hand by self-draw within ``draws_left`` draws, and the points it is worth on
average, under one stated model, computed exactly (no sampling).

The model (docs/api.md, "Advice by value"):

* each draw is a kind ``k`` with probability ``u_k / U`` (``u_k`` the unseen copies as the
  analysis counts them, ``U`` their sum), with replacement: the counts never change;
* after a draw, 14 − 3m tiles that are an eligible self-drawn win by `/v1/score` (the request's
  seat, round, caishen, melds, flowers and rules; ``win.by`` ``self_draw``, the drawn tile the
  winning tile) win, worth that answer's ``points``; otherwise the player discards to maximise
  the expected points of the draws left (between equal expected points, the higher chance to
  win), among the discards that leave the least shanten reachable from those 14 tiles;
* when that least shanten is the one before the draw, the drawn tile may go (the hand is kept),
  and another discard that leaves the same shanten (a *sideways swap*) is allowed
  once (:data:`SWAPS`) in all the draws to come; a draw that lowers the shanten (a step
  forward) may be followed by any discard that keeps it there, every time;
* ``V_0 = 0``; a hand `/v1/score` refuses is no win (a fifth copy included).

So, for a hand ``h`` of 13 − 3m tiles and ``d`` draws to come,

    V_d(h, s) = Σ_k p_k · (points(h + k)                if h + k is an eligible win
                           max_x V_{d−1}(h + k − x, s')  otherwise, x among the allowed discards)

with ``s`` the sideways swaps left (``s' = s − 1`` after a swap, ``s`` otherwise; each root
starts with :data:`SWAPS`), and the chance to win follows the same choices.  A hand at shanten
``t`` needs ``t + 1`` draws at least: ``V_d(h, s) = 0`` when ``t ≥ d``, so it is never expanded.

Why the swaps are bounded: with every sideways swap allowed, the hands to weigh grow about
eight-fold per draw (for the tenpai 123m 456p 789s EE 35m: 23 hands at 2 draws, 259 at 3, about
2,100 at 4), about two million at 8 draws.  One swap keeps what matters most to a hand that
needs 4 台, moving a wait below the minimum to one above it, and the graph small: its hands are
(hand, swaps left) pairs, a forward step lowers the shanten and a swap spends one, so the graph
has no cycle but a hand keeping itself.  With 2 draws or fewer the bound changes nothing (a
second swap would come after the last draw).

How it is computed: the hands reachable from the roots (each discard's 13 − 3m tiles, or the
request's hand) are found once, breadth first, each with its draws and, for each draw, the win's
points or the allowed discards (the hands they leave); this graph does not depend on the
probabilities, so the discards of one request share it, and its scorings (each distinct 14-tile
hand with its winning tile scored once, by :func:`ningbo_score.engine.value`, the value path of
`/v1/score` without its answer).  Then, per root (each discard counts its own tile as seen, so
its probabilities are its own), ``V_1 … V_D`` are computed level by level over the hands that
root reaches.  The shanten of every child comes from :func:`~ningbo_score.shanten.draw_shanten`
of the hand less one tile (its shanten after each draw): at most 14 calls per hand, and only for
a hand that may step forward or swap.

The work and the memory are bounded: at most :data:`MAX_STATES` hands and :data:`MAX_SCORINGS`
scorings per request, caches emptied past :data:`AFTER_CACHE` and :data:`MEMO_CACHE` entries
(:data:`REQUEST_BYTES` in all); past a bound the request's values are ``null`` with a
``value_note`` (:class:`TooMany`): with 8 draws, hands of shanten 0-2 fit (bench/README.md),
most of shanten 3 do not.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeAlias

from .completion import Memo, candidates, unseen
from .engine import value
from .errors import ScoreError
from .hand import WaitingHand, check, complete
from .shanten import draw_shanten
from .tiles import N_KINDS

#: ``objective``: today's ranking (shanten, counted 进张) or the ranking by value
OBJECTIVES = ("ukeire", "value")
MIN_DRAWS, MAX_DRAWS = 1, 20
#: ``draws_left`` when the request gives no ``live_tiles``
DEFAULT_DRAWS = 8
#: the hands one request may expand (its graph); past it the values are null (TooMany)
MAX_STATES = 6_000
#: What one request may hold at most, in bytes: its hands (about 650 B each with their draws),
#: the shanten passes remembered (AFTER_CACHE), its scorings (MAX_SCORINGS) and their
#: decomposition memo (MEMO_CACHE); bench/value_bench.py checks the peak (tracemalloc) stays under
#: it on hands that reach the bounds.
REQUEST_BYTES = 32 * 1024 * 1024
#: the wins one request may score (each distinct 14-tile hand with its winning tile, once);
#: past it the values are null (TooMany), as past MAX_STATES
MAX_SCORINGS = 10_000
#: the decomposition memo of the scorings is emptied when it holds this many entries
MEMO_CACHE = 20_000
#: the shanten tables of hands kept within a request (each about 250 bytes: 5 MB at most)
AFTER_CACHE = 20_000
#: the sideways swaps allowed along a line of play: after a draw that does not lower the
#: shanten, a discard other than the drawn tile that keeps it (the model's one bound)
SWAPS = 1
#: how many hands are expanded between two calls of ``before_each`` (the server's other work)
YIELD_EVERY = 200
#: two expected values closer than this (relative) are equal: the chance to win decides
TIE = 1e-12

#: The model, as openapi.yaml states it (the objective's description) and docs/api.md.
MODEL = (
    "The model, computed exactly (no sampling): each draw is a kind k with probability u_k / U, u_k its "
    "unseen copies (as `improving` counts them; in a discard entry the discarded tile counts as seen) "
    "and U their sum, with replacement (the counts never change); flowers are never drawn (a caishen "
    "flower is a caishen and is). After a draw, if the 14 − 3 × melds tiles are an eligible self-drawn "
    "win by `/v1/score` (the request's seat, round, caishen, melds, flowers and rules; `win.by` "
    "`self_draw`, the drawn tile the winning tile), the hand wins, worth that answer's `points`; "
    "otherwise the player discards to maximise the expected points of the draws left (between equal "
    "expected points, the higher chance to win), among the discards that leave the least shanten "
    "reachable from those tiles (no backward moves). When that least shanten is the shanten before the "
    "draw, the drawn tile may go (the hand is kept) and, at most once in all the draws to come, another "
    "tile that leaves the same shanten (a sideways swap); a draw that lowers the shanten may be followed "
    "by any discard that keeps it lowered, as often as it comes. No claims, no discard wins, nobody else wins; "
    "V_0 = 0; a hand `/v1/score` refuses is no win (a fifth copy included). `win_probability` and "
    "`expected_points` are those of the 13 − 3 × melds tiles with `draws_left` draws to come.")

#: a hand: the copies of each drawable kind (candidates(hand), in order)
State: TypeAlias = tuple[int, ...]


def default_draws(live_tiles: int | None) -> int:
    """``draws_left`` when not given: ⌈live_tiles ÷ 4⌉ capped at MAX_DRAWS (at least 1), else 8."""
    if live_tiles is None:
        return DEFAULT_DRAWS
    return max(MIN_DRAWS, min(MAX_DRAWS, math.ceil(live_tiles / 4)))


class TooMany(Exception):
    """The request's hands are more than MAX_STATES: its values are not computed."""


@dataclass
class Node:
    """A hand of 13 − 3m tiles in the graph: its shanten, the fewest draws it is reached in, and
    once expanded, per drawable kind (index) either the points of the eligible win (an int) or
    the allowed hands after the discard that may still win (node ids), for ``rest`` draws after
    that one."""
    state: State
    shanten: int
    depth: int
    swaps: int                                           # the sideways swaps still allowed
    draws: list[int | tuple[int, ...]] | None = None     # None: not expanded (V = 0 at every d it needs)
    rest: int = -1


class Graph:
    """The hands reachable from some roots, with ``draws`` draws to come, and their scorings."""

    def __init__(self, hand: WaitingHand, draws: int, lang: str, memo: Memo,
                 before_each: Callable[[], None] | None = None, max_states: int = MAX_STATES):
        self.hand = hand
        self.kinds = candidates(hand)
        self.draws = draws
        self.lang = lang
        self.memo = memo
        self.before_each = before_each
        self.max_states = max_states
        self.caishen = [k in hand.caishen_kinds for k in self.kinds]
        self.face = [hand.face(k) for k in self.kinds]
        self.melds = len(hand.melds)
        self.ids: dict[tuple[State, int], int] = {}          # (hand, swaps left) → node id
        self.nodes: list[Node] = []
        self.scored: dict[tuple[State, int], int] = {}     # (hand, drawn kind) → points (0: no win)
        self.drawable: list[int] = []                      # kinds with a copy unseen by some root
        self._pending: list[int] = []
        self._afters: dict[bytes, bytes] = {}
        self._held: tuple[State, WaitingHand] | None = None     # the last hand scored, as typed input

    def state_of(self, concealed: tuple[int, ...]) -> State:
        counts = [0] * len(self.kinds)
        index = {k: i for i, k in enumerate(self.kinds)}
        for t in concealed:
            counts[index[t]] += 1
        return tuple(counts)

    def _shape(self, state: State) -> tuple[list[int], int]:
        counts = [0] * N_KINDS
        caishen = 0
        for i, n in enumerate(state):
            if n:
                if self.caishen[i]:
                    caishen += n
                else:
                    counts[self.face[i]] += n
        return counts, caishen

    def _after(self, state: State) -> tuple[int, bytes]:
        """(shanten of the tiles, the shanten of the tiles plus kind i, plus 1, at i): the 13 − 3m
        tiles less one and each draw, or the 13 − 3m tiles and each draw's 14 with its best
        discard (draw_shanten).  Remembered (at most AFTER_CACHE hands): the hands less one tile
        are shared by neighbours (h − x = h' − k for h' = h − x + k)."""
        key = bytes(state)
        hit = self._afters.get(key)
        if hit is None:
            counts, caishen = self._shape(state)
            before, after, after_caishen = draw_shanten(counts, caishen, self.melds)
            hit = bytes([before + 1] + [(after_caishen if self.caishen[i] else after[self.face[i]]) + 1
                                        for i in range(len(self.kinds))])
            if len(self._afters) >= AFTER_CACHE:
                self._afters.clear()
            self._afters[key] = hit
        return hit[0] - 1, hit[1:]

    def _due(self, node: Node) -> bool:
        """Whether a hand must be (re-)expanded: it may win in the draws it has left, and it was
        expanded for fewer."""
        left = self.draws - node.depth
        return node.shanten < left and node.rest < left - 1

    def add(self, state: State, depth: int, swaps: int, shanten: int | None = None) -> int:
        """The node of a hand with ``swaps`` sideways swaps left (added, to be expanded, if new;
        its depth lowered if reached sooner)."""
        nid = self.ids.get((state, swaps))
        if nid is not None:
            node = self.nodes[nid]
            if depth < node.depth:
                node.depth = depth
                if self._due(node):
                    self._pending.append(nid)
            return nid
        if len(self.nodes) >= self.max_states:
            raise TooMany()
        if shanten is None:
            shanten = self._after(state)[0]
        nid = len(self.nodes)
        self.ids[(state, swaps)] = nid
        node = Node(state, shanten, depth, swaps)
        self.nodes.append(node)
        if self._due(node):
            self._pending.append(nid)
        return nid

    def expand_all(self, drawable: list[int]) -> None:
        """Expand every pending hand, breadth first (``drawable``: the kinds some root may draw)."""
        self.drawable = drawable
        done = 0
        while self._pending:
            pending = sorted(set(self._pending), key=lambda i: self.nodes[i].depth)
            self._pending = []
            for nid in pending:
                if self._due(self.nodes[nid]):
                    self._expand(nid)
                    done += 1
                    if self.before_each is not None and done % YIELD_EVERY == 0:
                        self.before_each()

    def _expand(self, nid: int) -> None:
        node = self.nodes[nid]
        state, t, depth, swaps_left = node.state, node.shanten, node.depth, node.swaps
        rest = self.draws - depth - 1                # the draws after the next one
        _, best = self._after(state)                 # each draw's 14 tiles: shanten after the best discard
        swaps: list[tuple[int, bytes]] | None = None  # (x, 1 + shanten of state − x + k at k), when needed
        draws: list[int | tuple[int, ...]] = [()] * len(self.kinds)
        for k in self.drawable:
            least = best[k] - 1
            if least < 0:                            # a winning shape: is it an eligible win?
                points = self._points(state, k)
                if points > 0:
                    draws[k] = points
                    continue
                least = 0
            if least >= rest:                        # what is kept cannot win in the draws left
                continue
            children: list[int] = []
            if least == t:                           # the drawn tile itself may go
                children.append(nid)
            if least < t or swaps_left:              # a step forward, or a sideways swap
                if swaps is None:
                    swaps = []
                    for x, n in enumerate(state):
                        if n:
                            less = list(state)
                            less[x] -= 1
                            swaps.append((x, self._after(tuple(less))[1]))
                left = swaps_left if least < t else swaps_left - 1
                for x, after in swaps:
                    if after[k] == least + 1 and x != k:
                        child = list(state)
                        child[x] -= 1
                        child[k] += 1
                        children.append(self.add(tuple(child), depth + 1, left, least))
            draws[k] = tuple(children)
        node.draws = draws
        node.rest = rest

    def _points(self, state: State, k: int) -> int:
        """The points of the self-drawn win of ``state`` plus kind ``k`` (0: refused or not
        eligible), scored once."""
        key = (state, k)
        points = self.scored.get(key)
        if points is None:
            if len(self.scored) >= MAX_SCORINGS:
                raise TooMany()
            if len(self.memo) >= MEMO_CACHE:
                self.memo.clear()
            if self._held is None or self._held[0] is not state:      # a node's draws come together
                concealed = tuple(kind for kind, n in zip(self.kinds, state) for _ in range(n))
                self._held = (state, replace(self.hand, concealed=concealed))
            held = self._held[1]
            try:
                v = value(check(complete(held, self.kinds[k], "self_draw", None)), self.memo, self.lang)
                points = v.points if v.eligible else 0
            except ScoreError:
                points = 0
            self.scored[key] = points
        return points

    def solve(self, roots: list[int], probabilities: list[float]) -> dict[int, tuple[float, float]]:
        """(expected points, chance to win) of each hand of ``roots`` with ``self.draws`` draws to
        come, each kind ``i`` drawn with ``probabilities[i]``."""
        nodes = self.nodes
        # the hands the roots reach, with the most draws each has to come (breadth first: the
        # first time a hand is met is the soonest)
        left = dict.fromkeys(roots, self.draws)
        order = list(left)
        for nid in order:
            draws = nodes[nid].draws
            if draws is None:
                continue
            after = left[nid] - 1
            for k, what in enumerate(draws):
                if probabilities[k] and isinstance(what, tuple):
                    for c in what:
                        if c not in left:
                            left[c] = after
                            order.append(c)
        # per hand: the wins' share (points and chance) and the draws with a choice of hands
        terms = [(i, p) for i, p in enumerate(probabilities) if p]
        live = []
        for nid in order:
            draws = nodes[nid].draws
            if draws is None:
                continue
            points = chance = 0.0
            choices: list[tuple[float, tuple[int, ...]]] = []
            for i, p in terms:
                what = draws[i]
                if isinstance(what, int):
                    points += p * what
                    chance += p
                elif what:
                    choices.append((p, what))
            live.append((nid, nodes[nid].shanten, left[nid], points, chance, choices))
        ev = [0.0] * len(nodes)
        win = [0.0] * len(nodes)
        for d in range(1, self.draws + 1):
            ev_d = [0.0] * len(nodes)
            win_d = [0.0] * len(nodes)
            for nid, shanten, most, e, w, choices in live:
                if shanten >= d or most < d:
                    continue
                for p, what in choices:
                    be = bw = 0.0
                    for c in what:
                        ce = ev[c]
                        if ce > be + TIE * be or (ce >= be - TIE * be and win[c] > bw):
                            be, bw = ce, win[c]
                    e += p * be
                    w += p * bw
                ev_d[nid] = e
                win_d[nid] = w
            ev, win = ev_d, win_d
        return {r: (ev[r], win[r]) for r in roots}


def probabilities(kinds: list[int], seen: list[int]) -> list[float]:
    """Each drawable kind's chance: its unseen copies over their sum (all 0 if none is unseen)."""
    u = [max(0, unseen(seen, k)) for k in kinds]
    total = sum(u)
    return [n / total if total else 0.0 for n in u]


def solve_hands(template: WaitingHand, hands: list[tuple[int, ...]], seen: list[int], draws: int, lang: str,
                memo: Memo, before_each: Callable[[], None] | None = None,
                max_states: int = MAX_STATES) -> list[tuple[float, float]] | None:
    """(expected points, chance to win) of each of ``hands`` (13 − 3m concealed tiles each, in
    the melds, flowers, seat and rules of ``template``), ``seen`` the copies of each kind seen:
    None when they reach more than ``max_states`` hands."""
    graph = Graph(template, draws, lang, memo, before_each, max_states)
    chances = probabilities(graph.kinds, seen)
    try:
        roots = [graph.add(graph.state_of(c), 0, SWAPS) for c in hands]
        graph.expand_all([i for i, p in enumerate(chances) if p])
    except TooMany:
        return None
    result = graph.solve(roots, chances)
    return [result[r] for r in roots]
