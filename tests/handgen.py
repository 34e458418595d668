"""Generators of valid ``POST /v1/score`` requests for property tests and the benchmark.

Two front ends share one generator:

* :func:`random_request` / :func:`random_tenpai` take a seeded :class:`random.Random` and need
  nothing but the standard library (the benchmark uses them);
* :func:`winning_requests` / :func:`tenpai_hands` are hypothesis strategies (they draw every
  choice through hypothesis, so failures shrink to small hands).

A generated request is a *valid winning hand* by construction, worked out from docs/rules.md and
docs/api.md only (nothing here asks the engine):

* 0-4 melds: a chow only from the winner's 上家, a pung or exposed kong from another seat, a
  concealed kong (no ``from``) or an added kong (``from`` the seat its pung came from);
* the concealed part (14 − 3 × melds tiles) is sets + one pair, the winning tile one of them;
* at most 4 copies of each kind over concealed tiles, meld tiles and the caishen indicator; no
  natural tile (concealed or melded) of a caishen kind, so the number of caishen in the hand is
  exactly what was asked for;
* flowers each at most once, never the indicator and never a caishen flower;
* ``n_caishen`` concealed tiles are then replaced by physical caishen tiles of the hand's
  caishen kinds (a caishen may stand for any face, docs/rules.md §2, so the hand still reads as a
  win); a hand with caishen is always won by self-draw, so no discard restriction applies;
* what a preset changes is read from its options in ``ningbo_score.rules.PRESETS`` (the rule
  book's table of docs/rules.md §9, not the engine): a preset with ``white_dragon_substitutes``
  uses no natural ``P``, so the hand means the same with or without the substitution; one without
  ``discard_wins`` (``ningbo-7baida``) is won by self-draw only; its ``caishen_rule`` gives the
  caishen kinds.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any
from collections.abc import Sequence

from ningbo_score.rules import DEFAULT_PRESET
from ningbo_score.rules import PRESETS as _RULE_PRESETS

SEATS = ("E", "S", "W", "N")
SUITS = ("m", "p", "s")
WINDS = SEATS                     # the wind tiles are named as the seats
DRAGONS = ("C", "F", "P")
HONORS = WINDS + DRAGONS
KINDS: tuple[str, ...] = tuple(f"{r}{s}" for s in SUITS for r in range(1, 10)) + HONORS
FLOWERS: tuple[str, ...] = tuple(f"{r}f" for r in range(1, 9))
#: every preset, in the rule book's order, and the options the generator reads of each
PRESETS: tuple[str, ...] = tuple(_RULE_PRESETS)
_OPTIONS = {p: _RULE_PRESETS[p]["options"] for p in PRESETS}
#: presets whose eligibility is just ``counted_tai >= min_tai`` (no required_patterns)
PRESETS_WITHOUT_PATTERNS = tuple(p for p in PRESETS if not _OPTIONS[p].required_patterns)
_CAISHEN_RULE = {p: o.caishen_rule for p, o in _OPTIONS.items()}
_NO_DISCARD_WIN = {p for p, o in _OPTIONS.items() if not o.discard_wins}
_WHITE_SUBSTITUTES = {p for p, o in _OPTIONS.items() if o.white_dragon_substitutes}


# --------------------------------------------------------------------------- tile helpers

def is_suited(t: str) -> bool:
    return len(t) == 2 and t[1] in SUITS


def is_flower(t: str) -> bool:
    return len(t) == 2 and t[1] == "f"


def upper_seat(seat: str) -> str:
    """The 上家 of a seat (docs/rules.md §1): E←N, S←E, W←S, N←W."""
    return SEATS[(SEATS.index(seat) - 1) % 4]


def next_kind(t: str) -> str:
    """The kind after ``t`` for ``indicator_and_next`` (docs/rules.md §2): 9 wraps to 1,
    E→S→W→N→E, C→F→P→C."""
    if is_suited(t):
        r = int(t[0])
        return f"{1 if r == 9 else r + 1}{t[1]}"
    if t in WINDS:
        return WINDS[(WINDS.index(t) + 1) % 4]
    return DRAGONS[(DRAGONS.index(t) + 1) % 3]


def preset_of(request: dict) -> str:
    rules = request.get("rules") or DEFAULT_PRESET
    if isinstance(rules, dict):
        return rules.get("preset") or DEFAULT_PRESET
    return rules


def caishen_tiles(request: dict) -> tuple[set[str], Counter]:
    """(caishen kinds, physical caishen copies in play) of a request, derived from docs/rules.md §2
    (flower groups included), independently of the engine."""
    spec = request.get("caishen")
    if not spec:
        return set(), Counter()
    if "kinds" in spec:
        kinds = set(spec["kinds"])
        return kinds, Counter({k: (1 if is_flower(k) else 4) for k in kinds})
    ind = spec["indicator"]
    rule = _CAISHEN_RULE[preset_of(request)]
    if isinstance(request.get("rules"), dict) and "caishen_rule" in request["rules"]:
        rule = request["rules"]["caishen_rule"]
    if is_flower(ind):
        group = FLOWERS[:4] if int(ind[0]) <= 4 else FLOWERS[4:]
        kinds = set(FLOWERS if rule == "indicator_and_next" else group) - {ind}
        return kinds, Counter({k: 1 for k in kinds})
    if rule == "indicator_and_next":
        nxt = next_kind(ind)
        return {ind, nxt}, Counter({ind: 3, nxt: 4})
    return {ind}, Counter({ind: 3})


def copies(request: dict) -> Counter:
    """Physical copies of each kind in a request: concealed + meld tiles + the indicator."""
    hand = request["hand"]
    c = Counter(hand["concealed"])
    for m in hand.get("melds") or []:
        c.update(m["tiles"])
    spec = request.get("caishen") or {}
    if spec.get("indicator"):
        c[spec["indicator"]] += 1
    return c


def to_compact(tiles: Sequence[str]) -> str:
    """Codes as one compact string of docs/api.md, keeping the order: ``["1m","2m","E","5p"]`` →
    ``"12m E 5p"``."""
    parts: list[str] = []
    digits, suit = "", ""
    for t in tiles:
        if len(t) == 2 and t[1] in "mpsf":
            if suit and t[1] != suit:
                parts.append(digits + suit)
                digits = ""
            digits += t[0]
            suit = t[1]
        else:
            if suit:
                parts.append(digits + suit)
                digits, suit = "", ""
            parts.append(t)
    if suit:
        parts.append(digits + suit)
    return " ".join(parts)


def compact_form(request: dict) -> dict:
    """The same request with every tile list written as a compact string."""
    out = dict(request)
    hand = dict(request["hand"])
    hand["concealed"] = to_compact(hand["concealed"])
    if hand.get("melds"):
        hand["melds"] = [{**m, "tiles": to_compact(m["tiles"])} for m in hand["melds"]]
    if hand.get("flowers"):
        hand["flowers"] = to_compact(hand["flowers"])
    out["hand"] = hand
    return out


# --------------------------------------------------------------------------- choosers

class RandomChooser:
    """Choices from a seeded ``random.Random``."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[self.rng.randrange(len(seq))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def subset(self, seq: Sequence[Any], p: float) -> list:
        return [x for x in seq if self.rng.random() < p]

    def permutation(self, seq: Sequence[Any]) -> list:
        out = list(seq)
        self.rng.shuffle(out)
        return out


class DrawChooser:
    """Choices drawn through hypothesis (``draw`` of ``st.composite`` or ``st.data().draw``)."""

    def __init__(self, draw):
        from hypothesis import strategies as st
        self.st = st
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))

    def choice(self, seq: Sequence[Any]) -> Any:
        return self.draw(self.st.sampled_from(list(seq)))

    def chance(self, p: float) -> bool:
        # shrinks towards False; ``p`` is a hint only (hypothesis chooses freely)
        return self.draw(self.st.booleans())

    def subset(self, seq: Sequence[Any], p: float) -> list:
        return [x for x in seq if self.draw(self.st.booleans())]

    def permutation(self, seq: Sequence[Any]) -> list:
        return self.draw(self.st.permutations(list(seq)))


class GenerationFailed(Exception):
    """The random choices ran into copy limits; the caller retries."""


# --------------------------------------------------------------------------- the generator

def _choose_caishen(ch, preset: str, n_caishen: int, caishen_mode: str | None) -> tuple[dict | None, set[str], Counter]:
    """A caishen spec for the request, its kinds and the physical caishen copies in play."""
    rule = _CAISHEN_RULE[preset]
    if caishen_mode is None:
        if n_caishen == 0:
            modes = ["none", "indicator", "kinds", "flower_indicator"]
        elif n_caishen <= (7 if rule == "indicator_and_next" else 3):
            modes = ["indicator", "kinds"]
        else:
            modes = ["kinds"]
        caishen_mode = ch.choice(modes)
    if caishen_mode == "none":
        return (None if ch.chance(0.5) else {"kinds": []}), set(), Counter()
    if caishen_mode == "flower_indicator":
        ind = ch.choice(FLOWERS)
        spec = {"indicator": ind}
    elif caishen_mode == "indicator":
        spec = {"indicator": ch.choice(KINDS)}
    elif caishen_mode == "kinds":
        need_kinds = max(1, -(-n_caishen // 4))
        nk = ch.integer(need_kinds, max(need_kinds, 2))
        kinds: list[str] = []
        for _ in range(20):
            k = ch.choice(KINDS)
            if k not in kinds:
                kinds.append(k)
            if len(kinds) == nk:
                break
        else:
            raise GenerationFailed("no distinct caishen kinds")
        spec = {"kinds": kinds}
    else:
        raise ValueError(f"unknown caishen_mode {caishen_mode!r}")
    kinds, physical = caishen_tiles({"rules": preset, "caishen": spec})
    if n_caishen and sum(v for k, v in physical.items() if not is_flower(k)) < n_caishen:
        raise GenerationFailed("not enough caishen copies")
    return spec, kinds, physical


def build_request(
    ch,
    *,
    n_caishen: int = 0,
    presets: Sequence[str] = PRESETS,
    caishen_mode: str | None = None,
    max_melds: int = 4,
    win_by: Sequence[str] | None = None,
    extras: bool = True,
    min_tai_override: bool = False,
) -> dict:
    """One valid winning request (raises :class:`GenerationFailed` on a dead end; retry).

    ``n_caishen``: physical caishen tiles in the concealed hand (then won by self-draw).
    ``caishen_mode``: ``"none"``, ``"indicator"``, ``"flower_indicator"``, ``"kinds"`` or
    None (any that fits). ``win_by``: allowed ways to win (default: all that fit).
    ``extras``: flowers, win flags, claims and base points. ``min_tai_override``: use the rules
    object form with a random ``min_tai`` (0-8), to see both eligible and ineligible hands.
    """
    preset = ch.choice(list(presets))
    seat = ch.choice(SEATS)
    round_wind = ch.choice(SEATS)
    spec, ck, physical = _choose_caishen(ch, preset, n_caishen, caishen_mode)

    left = Counter({k: 4 for k in KINDS})
    if spec and spec.get("indicator"):
        left[spec["indicator"]] -= 1
    for k in ck:
        left[k] = 0  # no natural tile of a caishen kind
    if preset in _WHITE_SUBSTITUTES:
        left["P"] = 0

    def take(tiles: list[str]) -> bool:
        need = Counter(tiles)
        if any(left[k] < n for k, n in need.items()):
            return False
        left.subtract(need)
        return True

    def random_set(kind_of: str) -> list[str] | None:
        if kind_of == "chow":
            suit = ch.choice(SUITS)
            start = ch.integer(1, 7)
            tiles = [f"{start + i}{suit}" for i in range(3)]
        else:
            k = ch.choice(KINDS)
            tiles = [k] * (4 if kind_of == "kong" else 3)
        return tiles if take(tiles) else None

    hi = min(max_melds, (14 - n_caishen) // 3)
    n_melds = ch.integer(0, hi)
    others = [s for s in SEATS if s != seat]
    melds: list[dict] = []
    for _ in range(n_melds):
        for _attempt in range(30):
            mtype = ch.choice(["chow", "pung", "kong"])
            tiles = random_set(mtype)
            if tiles is not None:
                break
        else:
            raise GenerationFailed("no meld fits")
        if mtype == "chow":
            meld = {"type": "chow", "tiles": tiles, "from": upper_seat(seat)}
        elif mtype == "pung":
            meld = {"type": "pung", "tiles": tiles, "from": ch.choice(others)}
        else:
            how = ch.choice(["exposed", "concealed", "added"])
            if how == "concealed":
                meld = {"type": "kong", "tiles": tiles, "concealed": True}
            elif how == "added":
                meld = {"type": "kong", "tiles": tiles, "added": True, "from": ch.choice(others)}
            else:
                meld = {"type": "kong", "tiles": tiles, "from": ch.choice(others)}
        melds.append(meld)

    concealed: list[str] = []
    for _ in range(4 - n_melds):
        for _attempt in range(30):
            tiles = random_set(ch.choice(["chow", "pung"]))
            if tiles is not None:
                break
        else:
            raise GenerationFailed("no set fits")
        concealed += tiles
    for _attempt in range(30):
        k = ch.choice(KINDS)
        if take([k, k]):
            concealed += [k, k]
            break
    else:
        raise GenerationFailed("no pair fits")

    # replace n concealed tiles by physical caishen tiles
    if n_caishen:
        pool = [k for k, v in sorted(physical.items()) if not is_flower(k) for _ in range(v)]
        pool = ch.permutation(pool)[:n_caishen]
        if len(pool) < n_caishen:
            raise GenerationFailed("not enough caishen")
        positions = ch.permutation(range(len(concealed)))[:n_caishen]
        for pos, tile in zip(positions, pool):
            concealed[pos] = tile

    # how the hand was won
    if n_caishen or preset in _NO_DISCARD_WIN:
        allowed = ["self_draw"]
    else:
        allowed = ["self_draw", "discard"]
    if win_by is not None:
        allowed = [w for w in allowed if w in win_by]
        if not allowed:
            raise GenerationFailed("no way to win fits")
    by = ch.choice(allowed)
    winning = ch.choice(concealed)
    win: dict = {"by": by}
    if by == "discard":
        win["from"] = ch.choice(others)

    flowers: list[str] = []
    request: dict = {"rules": preset, "seat_wind": seat, "round_wind": round_wind}
    if extras:
        usable = [f for f in FLOWERS if f not in ck and f != (spec or {}).get("indicator")]
        if ch.chance(0.5):
            flowers = ch.subset(usable, 0.3)
        flag = ch.choice(["none", "none", "kong_replacement", "last_tile", "heavenly", "earthly",
                          "robbing_kong", "kong_fed_by"])
        has_kong = any(m["type"] == "kong" for m in melds)
        if flag in ("kong_replacement", "last_tile") and by == "self_draw":
            if flag == "last_tile" or has_kong or flowers:
                win[flag] = True
        elif flag == "kong_fed_by" and by == "self_draw":
            fed = [m["from"] for m in melds if m["type"] == "kong" and m.get("from") and not m.get("added")]
            if fed:
                win["kong_replacement"] = True
                win["kong_fed_by"] = ch.choice(fed)
        elif flag == "heavenly" and by == "self_draw" and seat == "E" and not melds:
            win["heavenly"] = True
        elif flag == "earthly" and by == "discard" and seat != "E" and not melds:
            win["from"] = "E"
            win["earthly"] = True
        elif flag == "robbing_kong" and by == "discard":
            # the robbed player held a pung of the winning tile: the winner holds only this
            # copy (docs/rules.md §10.9) and the indicator is not another one
            if copies({"hand": {"concealed": concealed, "melds": melds}, "caishen": spec})[winning] == 1 \
                    and winning not in ck:
                win = {"by": "robbing_kong", "from": win["from"]}
        if ch.chance(0.3):
            request["claims_from_winner"] = {s: ch.integer(0, 4) for s in others}
        if ch.chance(0.3):
            request["base_points"] = ch.integer(1, 10)
    if min_tai_override:
        request["rules"] = {"preset": preset, "min_tai": ch.integer(0, 8)}
    if spec is not None:
        request["caishen"] = spec
    hand: dict = {"concealed": ch.permutation(concealed), "winning_tile": winning}
    if melds or ch.chance(0.5):
        hand["melds"] = melds
    if flowers:
        hand["flowers"] = flowers
    request["hand"] = hand
    request["win"] = win
    return request


def random_request(rng: random.Random, *, tries: int = 1000, **kw) -> dict:
    """A valid winning request from a seeded ``random.Random`` (keywords of
    :func:`build_request`)."""
    ch = RandomChooser(rng)
    for _ in range(tries):
        try:
            return build_request(ch, **kw)
        except GenerationFailed:
            continue
    raise RuntimeError(f"no hand generated with {kw}")


def tenpai_of(request: dict) -> tuple[dict, str]:
    """A tenpai hand from a winning one: the request with the winning tile taken out of the
    concealed tiles (13 − 3 × melds left) and ``winning_tile`` dropped, and the removed tile
    (one tile known to complete it)."""
    hand = dict(request["hand"])
    concealed = list(hand["concealed"])
    w = hand.pop("winning_tile")
    concealed.remove(w)
    hand["concealed"] = concealed
    return {**request, "hand": hand}, w


def random_tenpai(rng: random.Random, **kw) -> tuple[dict, str]:
    return tenpai_of(random_request(rng, **kw))


# --------------------------------------------------------------------------- hypothesis

def winning_requests(**kw):
    """Hypothesis strategy of valid winning requests (keywords of :func:`build_request`)."""
    from hypothesis import assume, strategies as st

    @st.composite
    def _strategy(draw):
        try:
            return build_request(DrawChooser(draw), **kw)
        except GenerationFailed:
            assume(False)

    return _strategy()


def tenpai_hands(**kw):
    """Hypothesis strategy of (tenpai request, a tile completing it)."""
    return winning_requests(**kw).map(tenpai_of)


def total_tiles_ok(request: dict) -> bool:
    """Self-check of a generated request against the counting rules (used by the tests)."""
    hand = request["hand"]
    melds = hand.get("melds") or []
    if len(hand["concealed"]) != 14 - 3 * len(melds):
        return False
    if hand["winning_tile"] not in hand["concealed"]:
        return False
    kinds, physical = caishen_tiles(request)
    c = copies(request)
    for n in c.values():
        if n > 4:
            return False
    for k in kinds:
        if not is_flower(k) and Counter(hand["concealed"])[k] > physical[k]:
            return False
    flowers = hand.get("flowers") or []
    return len(set(flowers)) == len(flowers) and not (set(flowers) & kinds)
