"""A seeded generator of legal hands' logs for ``POST /v1/replay`` (tests/play/test_replay.py,
bench/replay_bench.py).

:func:`random_log` deals a shuffled set (an indicator flipped first, or caishen kinds given, or
none), then plays it by the rule book (RULES.md §1, §2, §7, §8 and API.md's event rules), with a
random but sensible policy: flowers of the deal set aside before play (出牌前补花, RULES.md §11.2:
the dealer from its first draw, then S, W, N in turn, chains of flowers included) or on the holder's
first turn, flowers drawn in play set aside on the holder's turn and replaced, concealed and
added kongs, chows from the 上家, pungs and kongs of discards, claim priority (win > pung/kong >
chow, the first winner after the discarder; 吃张打张 avoided where ``chow_swap_allowed`` is off),
robbed added kongs, wins on replacement draws (a replacement for a flower of the deal is no 杠上开花),
wins only where eligible (a hand under the minimum is no win, §11.6: each such moment is kept in
``below`` for the mutation tests),
walls cut short (``live_tiles``) so hands end on the last tile or in an exhaustive draw.  Some
hands are *rigged* (the deal arranged) to reach the rare cases: a heavenly hand, an earthly hand,
a robbed added kong.

Besides the log, the generator writes the ``/v1/score`` body it expects the replay to derive
(``expected``): its win context is what the generator *did* (it knows a draw was a replacement,
which kong it followed, who fed it), not a reading of the log, so comparing it with the replay's
``score_request`` checks the replay's derivation.  To decide whether a seat may win, the
generator asks ``ningbo_score.score`` with that body (a hand /v1/score refuses is played on):
only the choice of *when* to win uses the library; what the win is, it states itself.
"""
from __future__ import annotations

import random
import typing
from collections import Counter
from typing import Any

import ningbo_score
from ningbo_score.rules import PRESETS as RULE_PRESETS
from ningbo_score.shanten import is_winning_shape
from ningbo_score.tiles import INDEX

SEATS = ("E", "S", "W", "N")
SUITED = tuple(f"{r}{s}" for s in "mps" for r in range(1, 10))
HONORS = ("E", "S", "W", "N", "C", "F", "P")
KINDS = SUITED + HONORS
FLOWERS = tuple(f"{r}f" for r in range(1, 9))
#: every preset, and what the generator reads of its options (RULES.md §9, ningbo_score.rules.PRESETS)
PRESETS: tuple[str, ...] = tuple(RULE_PRESETS)
#: the presets whose caishen rule is indicator_and_next
NEXT_RULE = {p for p in PRESETS if RULE_PRESETS[p]["options"].caishen_rule == "indicator_and_next"}
#: whether each preset counts chows for 包 (chi_counts_for_liability)
CHI_COUNTS = {p: RULE_PRESETS[p]["options"].chi_counts_for_liability for p in PRESETS}
#: whether each preset allows 吃张打张 (RULES.md §9 chow_swap_allowed: only ningbo forbids it)
CHOW_SWAP = {p: RULE_PRESETS[p]["options"].chow_swap_allowed for p in PRESETS}


_ZH_NUM = "一二三四五六七八九"
_ZH_SUIT = {"m": "万", "p": "饼", "s": "条"}
_ZH_HONOR = {"E": "东", "S": "南", "W": "西", "N": "北", "C": "中", "F": "发", "P": "白"}
_ZH_FLOWER = "春夏秋冬梅兰竹菊"


def chinese(k: str) -> str:
    """A tile's Chinese name (API.md, "Tiles in requests")."""
    if k in _ZH_HONOR:
        return _ZH_HONOR[k]
    if k[1] == "f":
        return _ZH_FLOWER[int(k[0]) - 1]
    return _ZH_NUM[int(k[0]) - 1] + _ZH_SUIT[k[1]]


def next_kind(k: str) -> str:
    """RULES.md §2 indicator_and_next: 9 wraps to 1; E→S→W→N→E, C→F→P→C."""
    if k in HONORS:
        group = "ESWN" if k in "ESWN" else "CFP"
        return group[(group.index(k) + 1) % len(group)]
    r, s = int(k[0]), k[1]
    return f"{r % 9 + 1}{s}"


def caishen_kinds(rule_next: bool, indicator: str | None, kinds: list[str] | None) -> set[str]:
    """RULES.md §2, written from the rule book."""
    if kinds is not None:
        return set(kinds)
    if indicator is None:
        return set()
    if indicator in FLOWERS:
        n = int(indicator[0])
        if rule_next:
            return {f for f in FLOWERS if f != indicator}
        group = range(1, 5) if n <= 4 else range(5, 9)
        return {f"{g}f" for g in group if g != n}
    return {indicator, next_kind(indicator)} if rule_next else {indicator}


def swap_kinds(claimed: str, own: list[str]) -> set[str]:
    """吃张打张 (RULES.md §11.4): after chowing ``claimed`` with ``own`` (two tiles), the claimed kind
    and any kind that makes a chow with ``own``: 2m3m with a claimed 1m forbid 1m and 4m."""
    suit = own[0][1]
    a, b = sorted(int(t[0]) for t in own)
    out = {claimed}
    if b - a == 1:
        out.update(f"{r}{suit}" for r in (a - 1, b + 1) if 1 <= r <= 9)
    return out


def full_set() -> list[str]:
    return [k for k in KINDS for _ in range(4)] + list(FLOWERS)


def suit_run(k: str) -> list[str] | None:
    """The chow k, k+1, k+2 (None past 7)."""
    if k in HONORS or int(k[0]) > 7:
        return None
    r, s = int(k[0]), k[1]
    return [f"{r}{s}", f"{r + 1}{s}", f"{r + 2}{s}"]


class Hand:
    """One simulated hand; :meth:`play` fills ``events`` and ``expected``."""

    def __init__(self, rng: random.Random, preset: str | None = None, rig: str | None = None) -> None:
        self.rng = rng
        self.preset = preset or rng.choice(PRESETS)
        self.rules: Any = self.preset
        self.chi_counts = CHI_COUNTS[self.preset]
        self.chow_swap = CHOW_SWAP[self.preset]
        if rng.random() < 0.15:          # a rules object, sometimes overriding 包's chow counting or 吃张打张
            self.chi_counts = rng.random() < 0.5
            self.rules = {"preset": self.preset, "chi_counts_for_liability": self.chi_counts}
            if rng.random() < 0.3:
                self.chow_swap = not self.chow_swap
                self.rules["chow_swap_allowed"] = self.chow_swap
            if rng.random() < 0.5:       # a lower minimum: wins /v1/score scores under the preset's
                self.rules["min_tai"] = rng.randint(0, 3)
        self.rig = rig
        wall = full_set()
        rng.shuffle(wall)
        mode = rng.random()
        self.indicator: str | None = None
        self.kinds_given: list[str] | None = None
        if mode < 0.65:
            self.indicator = wall.pop()
        elif mode < 0.8:
            self.kinds_given = rng.sample(list(KINDS), rng.randint(0, 2))
        self.caishen = caishen_kinds(self.preset in NEXT_RULE, self.indicator, self.kinds_given)
        self.hands = [Counter() for _ in SEATS]
        self.deal: list[list[str]] = [[] for _ in SEATS]
        self.keep_seat: int | None = None        # a rigged seat: keeps its hand, discards its draw
        self.last_plan: str | None = None
        self.fed_plan: tuple[int, str] | None = None
        self.rob_plan: tuple[int, int, int, str] | None = None
        self.earthly_tile: str | None = None
        rigged = self._rig(wall) if rig else None
        for s in range(4):
            while len(self.deal[s]) < 13:
                self.deal[s].append(wall.pop())
            self.hands[s].update(self.deal[s])
        for t in reversed(rigged or []):  # the first draws, arranged
            wall.append(t)
        self.wall = wall                  # drawn from the end
        self.live = len(wall)
        if rng.random() < 0.3 and not rig:
            self.live = rng.randint(2, 40)
        if rig == "heavenly" and rng.random() < 0.3:
            self.live = 1                 # the dealer's first draw is the last live tile
        if self.last_plan is not None:
            self.live = 5                 # E, S, W, N, E draw if nobody claims
            wall.insert(len(wall) - 4, self.last_plan)
        self.draws = 0
        self.melds: list[list[dict[str, Any]]] = [[] for _ in SEATS]
        self.flowers: list[list[str]] = [[] for _ in SEATS]
        self.events: list[dict[str, Any]] = []       # tiles as codes (the generator reads them back)
        self.sent: list[dict[str, Any]] = []         # the same events as the request sends them
        self._body: dict[str, Any] | None = None
        self.discarded_caishen = [False] * 4
        self.claims = [[0] * 4 for _ in SEATS]   # claims[claimant][discarder], counted as §7 counts them
        self.any_discard = False
        self.any_claim = False
        self.first_discard = False
        self.expected: dict[str, Any] | None = None
        self.outcome: str | None = None
        self.features: set[str] = set()
        #: the flowers of the deal (RULES.md §11.2): dealt, the dealer's first draw, drawn replacing them
        self.deal_flowers = {t for h in self.deal for t in h if t in FLOWERS}
        self.last_drawn: list[tuple[str, int]] = [("", 0)] * 4    # each seat's last draw: tile, draw number
        #: (event index, seat) where a seat could have declared a win /v1/score scores as not eligible
        self.below: list[tuple[int, int]] = []
        #: (event index, seat, forbidden kinds) of each discard after a chow where 吃张打张 is refused
        self.swap_discards: list[tuple[int, int, set[str]]] = []

    # --- rigging the deal --------------------------------------------------------------------

    def _take(self, wall: list[str], tiles: list[str]) -> bool:
        need = Counter(tiles)
        have = Counter(wall)
        if any(have[t] < n for t, n in need.items()):
            return False
        for t in tiles:
            wall.remove(t)
        return True

    def _sets(self, wall: list[str], n: int, avoid: set[str]) -> list[str] | None:
        """n random sets and a pair of natural tiles taken out of the wall (None if it fails)."""
        out: list[str] = []
        for _ in range(60):
            if len(out) == 3 * n:
                break
            k = self.rng.choice(KINDS)
            tiles = suit_run(k) if self.rng.random() < 0.6 else [k] * 3
            if tiles and not (set(tiles) & self.caishen or set(tiles) & avoid) and self._take(wall, tiles):
                out += tiles
        for _ in range(60):
            k = self.rng.choice(KINDS)
            if len(out) == 3 * n and k not in self.caishen and k not in avoid and self._take(wall, [k, k]):
                return out + [k, k]
        return None

    def _rig(self, wall: list[str]) -> list[str] | None:
        rng = self.rng
        if self.rig == "heavenly":
            tiles = self._sets(wall, 4, set())
            if tiles is None:
                return None
            rng.shuffle(tiles)
            self.deal[0] = tiles[:13]
            return [tiles[13]]
        if self.rig == "earthly":
            seat = rng.randint(1, 3)
            tiles = self._sets(wall, 4, set())
            if tiles is None:
                return None
            x = tiles.pop(rng.randrange(14))
            self.deal[seat] = tiles
            if not self._take(wall, [x]):
                return None
            self.deal[0] = [x]
            self.earthly_tile = x
            return None
        if self.rig in ("bloom", "fed_bloom"):
            # bloom: E dealt K K K K and 3 sets, draws p, konges, draws p: 杠上开花 on a concealed kong.
            # fed_bloom: X dealt K K K, 3 sets and w; E dealt K and discards it first; X konges it and
            # draws w: 杠上开花 fed by E (RULES.md §7)
            for _ in range(20):
                k = rng.choice(KINDS)
                if k in self.caishen or not self._take(wall, [k] * 4):
                    continue
                rest = self._sets(wall, 4, {k})
                if rest is None:
                    return None
                pair = rest[-2:]
                if self.rig == "bloom":
                    self.deal[0] = [k] * 4 + rest[:9]
                    return pair                   # the dealer's first draw, then its replacement
                x = rng.randint(1, 3)
                self.deal[x] = [k] * 3 + rest[:9] + [pair[0]]
                plain = [t for t in wall if t not in FLOWERS][:13]   # no flower: E's first draw is not replaced
                for t in plain:
                    wall.remove(t)
                self.deal[0] = [k] + plain[:12]
                self.fed_plan = (x, k)
                return [plain[12], pair[1]]
            return None
        if self.rig == "last":
            # E dealt a hand waiting on p; the wall cut so that, if nobody claims, E's second draw
            # is the last live tile and is p (海底捞月)
            tiles = self._sets(wall, 4, set())
            if tiles is None:
                return None
            p = tiles.pop(rng.randrange(14))
            self.deal[0] = tiles
            self.keep_seat = 0
            self.last_plan = p
            return None
        if self.rig == "rob":
            # A (the adder) dealt K K K; C dealt K, discards it first; B waits on K holding none
            a, b, c = rng.sample(range(4), 3)
            for _ in range(20):
                k = rng.choice(SUITED)
                r = int(k[0])
                if k in self.caishen or not 2 <= r <= 8 or not self._take(wall, [k] * 4):
                    continue
                side = [f"{r - 1}{k[1]}", f"{r + 1}{k[1]}"]
                if set(side) & self.caishen or not self._take(wall, side):
                    wall += [k] * 4
                    continue
                rest = self._sets(wall, 3, {k})
                if rest is None:
                    return None
                self.deal[a] = [k] * 3
                self.deal[c] = [k]
                self.deal[b] = rest + side
                self.rob_plan = (a, b, c, k)
                self.keep_seat = b
                return None
        return None

    # --- emitting ----------------------------------------------------------------------------

    def emit(self, t: str, seat: int | None = None, **more: Any) -> None:
        ev: dict[str, Any] = {"t": t}
        if seat is not None:
            ev["seat"] = SEATS[seat]
        ev.update(more)
        self.events.append(ev)
        if "tile" in ev:                  # the log as sent: the tile now and then by its Chinese name
            self.sent.append({**ev, "tile": self.one_tile(ev["tile"])})
        else:
            self.sent.append(ev)

    def tile_form(self, tiles: list[str]) -> Any:
        """Tiles in one of the forms /v1/score reads: an array of codes, a compact string, or
        Chinese names (an array, or one string)."""
        r = self.rng.random()
        if r < 0.45:
            return " ".join(tiles)
        if r < 0.9:
            return list(tiles)
        names = [chinese(t) for t in tiles]
        return names if r < 0.95 else " ".join(names)

    def one_tile(self, t: str) -> str:
        """One tile: its code, or now and then its Chinese name."""
        return chinese(t) if self.rng.random() < 0.05 else t

    def draw(self, seat: int, deal_flower: bool = False) -> str:
        """The seat draws; ``deal_flower``: the draw replaces a flower of the deal (a flower so drawn
        is of the deal too)."""
        t = self.wall.pop()
        self.draws += 1
        self.hands[seat][t] += 1
        self.last_drawn[seat] = (t, self.draws)
        if deal_flower and t in FLOWERS:
            self.deal_flowers.add(t)
            if self.events:
                self.features.add("flower_chain")
        self.emit("draw", seat, tile=t)
        return t

    def set_aside(self, seat: int, f: str) -> bool:
        """The seat sets aside flower f and draws its replacement; whether f was of the deal."""
        of_deal = f in self.deal_flowers
        self.hands[seat][f] -= 1
        self.flowers[seat].append(f)
        self.emit("flower", seat, tile=f)
        self.draw(seat, of_deal)
        return of_deal

    def opening(self) -> None:
        """出牌前补花 (RULES.md §11.2): after the dealer's first draw, the dealer, then S, W, N each
        set aside their flowers (each replaced, chains included); a seat may keep them for its
        first turn instead.  Rigged hands keep theirs (their walls are arranged)."""
        for seat in range(4):
            if self.rig is not None or (seat and self.rng.random() < 0.25):
                continue
            while self.draws < self.live:
                flowers = [t for t in FLOWERS if self.hands[seat][t] and t not in self.caishen]
                if not flowers:
                    break
                self.set_aside(seat, flowers[0])
                if seat:
                    self.features.add("opening_flowers")

    # --- a hand's win, as the generator states it ---------------------------------------------

    def win_body(self, seat: int, by: str, tile: str, frm: int | None, flags: dict[str, Any]) -> dict[str, Any]:
        concealed = Counter(self.hands[seat])
        if by != "self_draw":
            concealed[tile] += 1
        win: dict[str, Any] = {"by": by}
        if frm is not None:
            win["from"] = SEATS[frm]
        win.update({k: v for k, v in flags.items() if v})
        if self.discarded_caishen[seat]:
            win["discarded_caishen"] = True
        body: dict[str, Any] = {"rules": self.rules, "seat_wind": SEATS[seat], "round_wind": self.round_wind,
                                "hand": {"concealed": sorted(concealed.elements(), key=INDEX.__getitem__),
                                         "winning_tile": tile}, "win": win}
        if self.indicator is not None:
            body["caishen"] = {"indicator": self.indicator}
        elif self.kinds_given is not None:
            body["caishen"] = {"kinds": list(self.kinds_given)}
        if self.melds[seat]:
            body["hand"]["melds"] = [dict(m, tiles=sorted(m["tiles"], key=INDEX.__getitem__)) for m in self.melds[seat]]
        if self.flowers[seat]:
            body["hand"]["flowers"] = list(self.flowers[seat])
        claims = {SEATS[o]: self.claims[o][seat] for o in range(4) if o != seat and self.claims[o][seat]}
        if claims:
            body["claims_from_winner"] = claims
        return body

    def shape_wins(self, seat: int, extra: str | None) -> bool:
        counts = [0] * 34
        caishen = 0
        tiles = Counter(self.hands[seat])
        if extra is not None:
            tiles[extra] += 1
        for t, n in tiles.items():
            if t in self.caishen:
                caishen += n
            elif t in FLOWERS:
                return False
            else:
                counts[INDEX[t]] += n
        return is_winning_shape(counts, caishen, len(self.melds[seat]))

    def try_win(self, seat: int, by: str, tile: str, frm: int | None, flags: dict[str, Any]) -> dict[str, Any] | None:
        if not self.shape_wins(seat, None if by == "self_draw" else tile):
            return None
        body = self.win_body(seat, by, tile, frm, flags)
        try:
            scored = ningbo_score.score(body)
        except ningbo_score.ScoreError:
            return None
        if not scored["eligible"]:              # no win (RULES.md §11.6): a moment for a mutation
            self.below.append((len(self.events), seat))
            return None
        return body

    def won(self, seat: int, body: dict[str, Any], declined: list[dict[str, str]] | None = None) -> None:
        more = {"declined": declined} if declined else {}
        self.emit("win", seat, **more)
        self.expected = body
        self.outcome = "win"
        win = body["win"]
        self.features.add(f"by_{win['by']}")
        self.features.update(k for k in win if k not in ("by", "from"))
        if body.get("claims_from_winner"):
            self.features.add("claims_from_winner")

    # --- the policy --------------------------------------------------------------------------

    def usefulness(self, seat: int, t: str) -> float:
        if t in self.caishen:
            return 100.0
        if t in FLOWERS:
            return -10.0
        h = self.hands[seat]
        score = 3.0 * (h[t] - 1)
        if t not in HONORS:
            r, s = int(t[0]), t[1]
            for d, w in ((1, 1.5), (2, 0.7)):
                for rr in (r - d, r + d):
                    if 1 <= rr <= 9 and h[f"{rr}{s}"]:
                        score += w
        return score + self.rng.random() * 1.5

    def choose_discard(self, seat: int, avoid: set[str] | None = None) -> str:
        h = self.hands[seat]
        held = [t for t, n in h.items() if n > 0 and not (avoid and t in avoid)]
        if self.earthly_tile and seat == 0 and not self.any_discard and h[self.earthly_tile]:
            return self.earthly_tile
        if self.fed_plan and seat == 0 and not self.any_discard and h[self.fed_plan[1]]:
            return self.fed_plan[1]
        last = self.events[-1]
        if seat == self.keep_seat and last["t"] == "draw" and last.get("seat") == SEATS[seat] and not avoid:
            return typing.cast(str, last["tile"])
        if self.rob_plan:
            a, b, c, k = self.rob_plan
            if seat == c and h[k]:
                return k
            held = [t for t in held if not (seat == a and t == k)] or held
        caishen = [t for t in held if t in self.caishen]
        if caishen and self.rng.random() < 0.03:
            return self.rng.choice(caishen)
        return min(held, key=lambda t: (self.usefulness(seat, t), INDEX[t]))

    def turn(self, seat: int, source: str | None, kong_from: int | None) -> int | None:
        """The seat has drawn (``source``: None for its turn's draw, else "kong" or "flower" for a
        replacement; ``kong_from``: the discarder of the kong the chain follows).  Plays its turn to
        its discard; returns the discarder, or None when the hand ended."""
        rng = self.rng
        while True:
            drawn, number = self.last_drawn[seat]
            flags = {"kong_replacement": source is not None, "kong_fed_by": None,
                     "last_tile": number == self.live,
                     "heavenly": seat == 0 and not self.any_discard and not self.melds[0]}
            if source is not None and kong_from is not None:
                flags["kong_fed_by"] = SEATS[kong_from]
            if rng.random() < 0.97:
                body = self.try_win(seat, "self_draw", drawn, None, flags)
                if body is not None:
                    self.won(seat, body)
                    return None
            h = self.hands[seat]
            can_replace = self.draws < self.live
            flowers = [t for t in FLOWERS if h[t] and t not in self.caishen]
            if flowers and can_replace:
                if self.set_aside(seat, flowers[0]):      # of the deal: no 杠上开花 (RULES.md §11.2)
                    source, kong_from = None, None
                    self.features.add("deal_flower_in_turn")
                else:
                    source = "flower"
                continue
            quads = [t for t in KINDS if h[t] == 4 and t not in self.caishen]
            if quads and can_replace and rng.random() < 0.8:
                k = quads[0]
                h[k] -= 4
                self.melds[seat].append({"type": "kong", "tiles": [k] * 4, "concealed": True})
                self.emit("concealed_kong", seat, tile=k)
                self.features.add("concealed_kong")
                self.draw(seat)
                source, kong_from = "kong", None
                continue
            adds = [m for m in self.melds[seat] if m["type"] == "pung" and h[m["tiles"][0]]]
            if adds and can_replace and rng.random() < 0.8:
                m = adds[0]
                k = m["tiles"][0]
                h[k] -= 1
                m.update(type="kong", tiles=[k] * 4, added=True)
                self.emit("added_kong", seat, tile=k)
                self.features.add("added_kong")
                for d in (1, 2, 3):
                    robber = (seat + d) % 4
                    body = self.try_win(robber, "robbing_kong", k, seat, {})
                    if body is not None and rng.random() < 0.95:
                        self.won(robber, body)
                        return None
                self.draw(seat)
                source, kong_from = "kong", None
                continue
            t = self.choose_discard(seat)
            h[t] -= 1
            if t in self.caishen:
                self.discarded_caishen[seat] = True
            first = not self.any_discard
            self.any_discard = True
            self.emit("discard", seat, tile=t)
            self.first_discard = first
            return seat

    def after_discard(self, d: int) -> tuple[int, str | None, int | None] | None:
        """Claims on d's discard, else the next draw: (the seat to play, its source, kong_from),
        or None when the hand ended."""
        rng = self.rng
        t = self.events[-1]["tile"]
        earthly = d == 0 and self.first_discard and not self.any_claim
        order = [(d + k) % 4 for k in (1, 2, 3)]
        wins = []
        for s in order:
            if self.rob_plan and s == self.rob_plan[1] and t == self.rob_plan[3]:
                continue                  # the rigged robber waits for the added kong
            body = self.try_win(s, "discard", t, d, {"earthly": earthly and not self.melds[s]})
            if body is not None and rng.random() < 0.9:
                wins.append((s, body))
        natural = t not in self.caishen and t not in FLOWERS
        pungs = [s for s in order if natural and self.hands[s][t] >= 2] if natural else []
        chow_seat = order[0]
        chows = []
        if natural and t not in HONORS:
            r, suit = int(t[0]), t[1]
            h = self.hands[chow_seat]
            for lo in (r - 2, r - 1, r):
                run = [f"{x}{suit}" for x in (lo, lo + 1, lo + 2)] if 1 <= lo <= 7 else None
                if run and all(x == t or (h[x] and x not in self.caishen) for x in run):
                    chows.append(run)
        declined: list[dict[str, str]] = []
        if wins:
            s, body = wins[0]
            for other, _ in wins[1:]:
                declined.append({"seat": SEATS[other], "claim": "win"})
            if pungs and pungs[0] != s and pungs[0] not in [o for o, _ in wins] and rng.random() < 0.5:
                declined.append({"seat": SEATS[pungs[0]], "claim": "pung"})
            self.won(s, body, declined)
            return None
        can_replace = self.draws < self.live
        plan = self.rob_plan
        pungs = [s for s in pungs if s != self.keep_seat]
        for s in pungs:
            rigged = plan is not None and s == plan[0] and t == plan[3]
            fed = self.fed_plan is not None and (s, t) == self.fed_plan
            if self.hands[s][t] >= 3 and can_replace and not rigged and (fed or rng.random() < 0.5):
                return self.claim(s, d, "kong", [t] * 4, chows, chow_seat)
            if rigged or rng.random() < 0.6:
                return self.claim(s, d, "pung", [t] * 3, chows, chow_seat)
        if not self.chow_swap:        # 吃张打张 refused: a chow that leaves no other discard is not made
            chows = [c for c in chows if self.swap_free(chow_seat, t, c)]
        if chows and chow_seat != self.keep_seat and rng.random() < 0.5:
            return self.claim(chow_seat, d, "chow", rng.choice(chows), [], chow_seat)
        if self.draws < self.live:
            s = order[0]
            self.draw(s)
            return s, None, None
        self.emit("exhaustive_draw")
        self.outcome = "draw"
        self.features.add("exhaustive_draw")
        return None

    def claim(self, s: int, d: int, kind: str, tiles: list[str], chows: list[list[str]],
              chow_seat: int) -> tuple[int, str | None, int | None] | None:
        rng = self.rng
        discarded = self.events[-1]["tile"]
        own = list(tiles)
        own.remove(discarded)
        for x in own:
            self.hands[s][x] -= 1
        self.melds[s].append({"type": kind, "tiles": list(tiles), "from": SEATS[d]})
        if kind != "chow" or self.chi_counts:
            self.claims[s][d] += 1
        self.any_claim = True
        more: dict[str, Any] = {}
        if rng.random() < 0.3:
            more["from"] = SEATS[d]
        if kind != "chow" and chows and chow_seat != s and rng.random() < 0.6:
            more["declined"] = [{"seat": SEATS[chow_seat], "claim": "chow"}]
        self.emit(kind, s, tiles=self.tile_form(tiles), **more)
        self.features.add(kind)
        if kind == "kong":
            self.draw(s)
            return s, "kong", d
        avoid = swap_kinds(discarded, own) if kind == "chow" and not self.chow_swap else set()
        t = self.choose_discard(s, avoid)
        self.hands[s][t] -= 1
        if t in self.caishen:
            self.discarded_caishen[s] = True
        if avoid:
            self.swap_discards.append((len(self.events), s, avoid))
            self.features.add("chow_swap_refused")
        self.emit("discard", s, tile=t)
        self.first_discard = False
        return s, "discarded", None

    def swap_free(self, seat: int, claimed: str, run: list[str]) -> bool:
        """Whether, after chowing ``run`` with ``claimed``, the seat holds a tile 吃张打张 allows."""
        own = list(run)
        own.remove(claimed)
        left = Counter(self.hands[seat])
        left.subtract(own)
        avoid = swap_kinds(claimed, own)
        return any(n > 0 and t not in avoid for t, n in left.items())

    def play(self) -> None:
        self.round_wind = self.rng.choice(SEATS)
        self.draw(0, deal_flower=True)       # the 14th tile is part of the deal (RULES.md §11.2)
        self.opening()
        seat: int | None = 0
        source: str | None = None
        kong_from: int | None = None
        while seat is not None:
            if source == "discarded":
                d = seat
            else:
                d_or_none = self.turn(seat, source, kong_from)
                if d_or_none is None:
                    return
                d = d_or_none
            nxt = self.after_discard(d)
            if nxt is None:
                return
            seat, source, kong_from = nxt

    def body(self) -> dict[str, Any]:
        """The request (made once: its tile forms are drawn from the generator's rng)."""
        if self._body is None:
            self._body = self._make_body()
        return self._body

    def _make_body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rules": self.rules, "round_wind": self.round_wind}
        if self.indicator is not None:
            out["caishen"] = {"indicator": self.indicator}
        elif self.kinds_given is not None:
            out["caishen"] = {"kinds": list(self.kinds_given)}
        if self.live != 91:
            out["live_tiles"] = self.live
        out["deal"] = {SEATS[s]: self.tile_form(self.deal[s]) for s in range(4)}
        out["events"] = self.sent
        return out


RIGS = (None,) * 14 + ("heavenly", "earthly", "rob", "bloom", "fed_bloom", "last")


def random_log(rng: random.Random, preset: str | None = None) -> Hand:
    """One legal hand's log, played out (``hand.body()`` is the request; ``hand.expected`` the
    /v1/score body the winner's context makes, None for an exhaustive draw)."""
    hand = Hand(rng, preset, rng.choice(RIGS))
    hand.play()
    return hand


def logs(seed: int, n: int) -> list[Hand]:
    """n hands from one seed, the presets in turn."""
    rng = random.Random(seed)
    return [random_log(rng, PRESETS[i % len(PRESETS)]) for i in range(n)]
