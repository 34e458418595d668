"""The library's typed input and its one-way life: the request schema (ningbo_score.readers.request_schemas)
makes a :class:`Hand` (a winning hand) or a :class:`WaitingHand` (before its winning tile),
frozen, by keyword; :func:`complete` makes a Hand of a WaitingHand and a tile; the rule book's
checks (:func:`check`, :func:`check_waiting`: the 422s) make a Hand a :class:`Checked`, the only
input the scorer takes.

The schema has checked every type and field name; what is left here is what the rule book makes
impossible.  Every problem found is collected; :class:`~ningbo_score.errors.ScoreError` orders
them as docs/rules.md §10.15 says.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import NamedTuple

from .caishen import derive_kinds, face_of, substitute_kind
from .errors import Problem, ScoreError
from .rules import Rules
from .tiles import CODES, COPIES, FLOWER0, SEATS, is_suited, rank, upper, wind_tile

WIN_BY = ("self_draw", "discard", "robbing_kong")
MELD_TYPES = ("chow", "pung", "kong")
MAX_BASE_POINTS = 1_000_000
MAX_CLAIMS = 100
MAX_MELDS = 4                 # more: wrong_tile_count (docs/rules.md §10.12), refused before they are read
MAX_CONCEALED = 14            # more: wrong_tile_count, whatever the melds
MAX_FLOWERS = 8               # there are 8 flowers


class Meld(NamedTuple):
    """A meld as given (made by keyword by the request schema; frozen as a named tuple, which a
    request builds per meld at a third of a frozen dataclass's cost)."""
    type: str
    tiles: tuple[int, ...]    # physical tiles as given
    faces: tuple[int, ...]    # with white_dragon_substitutes applied (hand.face)
    from_seat: int | None
    concealed: bool
    added: bool
    from_given: bool = False  # `from` was in the request (a concealed kong must have none)

    @property
    def exposed_kong(self) -> bool:
        return self.type == "kong" and not self.concealed and not self.added


def caishen_of(rules: Rules, indicator: int | None, kinds: list[int] | None) -> tuple[frozenset[int], int | None]:
    """The caishen kinds (from the indicator by the rules' ``caishen_rule``, or the kinds given)
    and the kind ``P`` stands for under ``white_dragon_substitutes`` (None: P is itself)."""
    caishen_kinds = derive_kinds(rules.caishen_rule, indicator, kinds)
    return caishen_kinds, substitute_kind(caishen_kinds) if rules.white_dragon_substitutes else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Held:
    """What a hand holds and the table around it, before or after its winning tile: tiles as
    indices (ningbo_score.tiles), seats as 0-3 (E = 0), the rules resolved.  The win's facts that
    hold before the tile (the flags of ``win``) are here too: a waiting hand has them all false."""
    rules: Rules
    seat: int
    round: int
    caishen_kinds: frozenset[int]
    indicator: int | None
    substitute: int | None                # the kind P tiles stand for (caishen_of)
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    flowers: tuple[int, ...]
    claims: Mapping[int, int]
    base_points: int
    discarded_caishen: bool = False
    kong_replacement: bool = False
    kong_fed_by: int | None = None
    last_tile: bool = False
    heavenly: bool = False
    earthly: bool = False

    @property
    def seat_tile(self) -> int:
        return wind_tile(self.seat)

    @property
    def round_tile(self) -> int:
        return wind_tile(self.round)

    def face(self, k: int) -> int:
        return face_of(k, self.substitute)

    def seen(self) -> list[int]:
        """How many of each kind (all 42) the hand's owner sees: in its concealed tiles, melds,
        flowers and the indicator."""
        return _copies(self)[0]


@dataclass(frozen=True, slots=True, kw_only=True)
class WaitingHand(Held):
    """A hand before its winning tile (``/v1/waits``, ``/v1/analyze``; the latter's may also
    have drawn and be due to discard): :func:`complete` makes a :class:`Hand` of it."""
    discarder: int | None                 # `win.from` as given (None: the default, waits.discarder)

    def without(self, k: int) -> WaitingHand:
        """This hand with one tile of kind ``k`` taken out of its concealed tiles."""
        rest = list(self.concealed)
        rest.remove(k)
        return replace(self, concealed=tuple(rest))


@dataclass(frozen=True, slots=True, kw_only=True)
class Hand(Held):
    """A winning hand (a ``/v1/score`` request) as typed input; :func:`check` makes the only
    thing the scorer takes of it, a :class:`Checked`."""
    winning: int
    by: str
    win_from: int | None = None

    def before(self, k: int) -> WaitingHand:
        """This hand before a tile of kind ``k`` (one taken out of its concealed tiles): 天胡 reads
        a dealt hand with each kind as the winning tile (ningbo_score.engine)."""
        held = {name: getattr(self, name) for name in _HELD}
        rest = list(self.concealed)
        rest.remove(k)
        held["concealed"] = tuple(rest)
        return WaitingHand(**held, discarder=self.win_from)


#: the fields of Held, copied by :func:`complete` (a Held's fields are a WaitingHand's and a Hand's)
_HELD = tuple(f.name for f in fields(Held))


def winning_count(melds: int) -> int:
    """How many concealed tiles a winning hand with ``melds`` melds holds: 14 − 3 × melds."""
    return 14 - 3 * melds


def complete(hand: Held, tile: int, by: str, discarder: int | None) -> Hand:
    """``hand`` won on a tile of kind ``tile`` (added to its concealed tiles), ``by`` a way of
    winning, from ``discarder`` (None for a self-draw): waits, analysis and 天胡 all make their
    winning hands here."""
    held = {name: getattr(hand, name) for name in _HELD}
    held["concealed"] = (*hand.concealed, tile)
    return Hand(**held, winning=tile, by=by, win_from=discarder)


class Checked(NamedTuple):
    """A hand :func:`check` passed, with what follows from its tiles: the only input the scorer
    (ningbo_score.engine) takes.  (Frozen as a named tuple: made once per scoring, it is built
    at a third of a frozen dataclass's cost.)"""
    hand: Hand
    naturals: tuple[int, ...]             # sorted faces of the non-caishen concealed tiles
    caishen_tiles: tuple[int, ...]        # the physical caishen among the concealed tiles, sorted
    deferred: tuple[Problem, ...]         # problems that leave the tiles readable: reported
                                          # together with what the scorer finds (not_a_winning_hand)


# --- 422: what the rule book makes impossible -------------------------------------------------

def _p(problems: list[Problem], path: str, en: str, zh: str, code: str) -> None:
    problems.append(Problem(code, path, en, zh))


def _copies(h: Held) -> tuple[list[int], list[int]]:
    """How many of each kind the hand shows (its concealed tiles, melds, flowers and the
    indicator), and the kinds past the set's copies (:data:`~ningbo_score.tiles.COPIES`), each
    once (counted in one pass: a second pass over the 42 kinds, or a collections.Counter, costs
    more: callgrind, 167,700 instructions a 0-caishen scoring with a Counter against 159,800)."""
    counts = [0] * len(CODES)
    over: list[int] = []
    for tiles in (h.concealed, h.flowers, *[m.tiles for m in h.melds], () if h.indicator is None else (h.indicator,)):
        for k in tiles:
            n = counts[k] + 1
            counts[k] = n
            if n == COPIES[k] + 1:
                over.append(k)
    return counts, over


#: the kinds a chow starts on: a suited tile of rank 1 to 7
_CHOW_STARTS = frozenset(k for k in range(FLOWER0) if is_suited(k) and rank(k) <= 7)


#: docs/rules.md §2: no caishen in a meld (code, field under the meld's path, English, Chinese);
#: /v1/replay refuses such a claim or kong with it too
CAISHEN_IN_MELD = ("caishen_in_meld", "tiles", "a caishen can't be chowed, punged or konged", "财神不能吃、碰、杠")


def _meld_problems(m: Meld, seat: int, upper_seat: int,
                   caishen_kinds: frozenset[int]) -> list[tuple[str, str, str, str]]:
    """What :func:`check` finds wrong with meld ``m``: (code, field under the meld's path,
    English, Chinese) each, in the order of the checks; an empty list for a good meld."""
    found: list[tuple[str, str, str, str]] = []
    tiles, kind = m.tiles, m.type
    if not caishen_kinds.isdisjoint(tiles):
        found.append(CAISHEN_IN_MELD)
    size = 3 if kind in ("chow", "pung") else 4
    if tiles and max(tiles) >= FLOWER0:
        found.append(("invalid_meld", "tiles", "a flower can't be part of a meld", "花牌不能组成副露"))
    elif len(tiles) != size:
        found.append(("invalid_meld", "tiles", f"a {kind} has {size} tiles, not {len(tiles)}",
                      f"{kind} 应有 {size} 张牌，而不是 {len(tiles)} 张"))
    elif kind == "chow":
        run = sorted(m.faces)
        first = run[0]
        if not (first in _CHOW_STARTS and run[1] == first + 1 and run[2] == first + 2):
            found.append(("invalid_meld", "tiles", "a chow is three consecutive tiles of one suit",
                          "吃必须是同一花色的三张顺牌"))
    elif len(set(m.faces)) != 1:
        found.append(("invalid_meld", "tiles", f"a {kind} is {size} identical tiles",
                      f"{kind} 必须是 {size} 张相同的牌"))
    if kind != "kong" and (m.concealed or m.added):
        found.append(("invalid_meld", "concealed" if m.concealed else "added",
                      "only a kong can be concealed or added", "只有杠可以是暗杠或加杠"))
    if m.concealed and m.added:
        found.append(("invalid_meld", "added", "a kong is concealed or added, not both", "杠不能既是暗杠又是加杠"))
    if kind == "kong" and m.concealed:
        if m.from_given:
            found.append(("invalid_meld", "from", "a concealed kong has no `from`", "暗杠没有 from"))
    elif m.from_seat is None:
        found.append(("invalid_meld", "from", f"`from` is required: the seat this {kind} was claimed from",
                      f"必须给出 from：{kind} 从哪个座位得来"))
    elif m.from_seat == seat:
        found.append(("invalid_meld", "from", f"a meld is never claimed from the winner's own seat {SEATS[seat]}",
                      f"副露不能来自胡牌者自己的座位 {SEATS[seat]}"))
    elif kind == "chow" and m.from_seat != upper_seat:
        found.append(("invalid_meld", "from",
                      f"a chow is claimed only from the winner's 上家 {SEATS[upper_seat]}, not {SEATS[m.from_seat]}",
                      f"吃只能吃上家 {SEATS[upper_seat]} 的牌，不能吃 {SEATS[m.from_seat]}"))
    return found


def check_waiting(h: WaitingHand, or_drawn: bool = False) -> None:
    """Raise :class:`ScoreError` with every problem the rule book finds in a hand before its
    winning tile (``/v1/waits``); ``or_drawn``: or after its next draw, due to discard
    (``/v1/analyze``: 13 − 3 × melds or 14 − 3 × melds concealed tiles)."""
    problems = _held_problems(h, True, or_drawn)
    if h.discarder == h.seat:
        _p(problems, "win.from", f"the discarder is another player, not {SEATS[h.seat]}",
           f"放冲者必须是别家，不能是 {SEATS[h.seat]}", "inconsistent_win_context")
    if problems:
        raise ScoreError(problems)


def check(h: Hand) -> Checked:
    """The hand, checked: raise :class:`ScoreError` with every problem that the rule book finds
    in ``h`` and that leaves its tiles unreadable; keep the others (``Checked.deferred``) for the
    scorer to report with what it finds."""
    problems = _held_problems(h, False, False)
    # the winning tile
    if h.winning not in h.concealed:
        _p(problems, "hand.winning_tile", f"{CODES[h.winning]} is not among the concealed tiles (they include it)",
           f"{CODES[h.winning]} 不在暗牌中（暗牌应包含胡的那张）", "winning_tile_not_in_hand")

    blocking = bool(problems) and any(p.code in _BLOCKING for p in problems)
    _check_win(h, problems, SEATS[h.seat])
    if h.by in ("discard", "robbing_kong") and h.winning in h.caishen_kinds:
        _p(problems, "hand.winning_tile", f"{CODES[h.winning]} is a caishen: a discarded caishen can't be "
           "claimed, so it wins only by self-draw", f"{CODES[h.winning]} 是财神：打出的财神不能被吃胡，只能自摸",
           "caishen_winning_tile")
    if blocking:
        raise ScoreError(problems)
    caishen, naturals = derived_tiles(h.concealed, h.caishen_kinds, h.substitute)
    return Checked(h, naturals, caishen, tuple(problems))


def _held_problems(h: Held, waiting: bool, or_drawn: bool) -> list[Problem]:
    """What the rule book finds wrong with the tiles of a hand (its melds, flowers, tile count,
    copies) and its claims; ``waiting``, ``or_drawn``: as :func:`check_waiting`."""
    problems: list[Problem] = []
    seat, melds, flowers, concealed, kinds = h.seat, h.melds, h.flowers, h.concealed, h.caishen_kinds
    # melds, in list order (a meld's findings are made only when it has some)
    for i, m in enumerate(melds):
        found = _meld_problems(m, seat, upper(seat), kinds)
        if found:
            path = f"hand.melds.{i}"
            for code, sub, en, zh in found:
                _p(problems, f"{path}.{sub}", en, zh, code)

    # flowers
    for i, f in enumerate(flowers):
        if f < FLOWER0:
            _p(problems, f"hand.flowers.{i}", f"{CODES[f]} is not a flower", f"{CODES[f]} 不是花牌", "invalid_flowers")
        elif f in kinds:
            _p(problems, f"hand.flowers.{i}", f"{CODES[f]} is a caishen this hand, not a flower",
               f"{CODES[f]} 本局是财神，不是花牌", "invalid_flowers")
    if concealed and max(concealed) >= FLOWER0:
        for t in concealed:
            if t >= FLOWER0 and t not in kinds:
                _p(problems, "hand.concealed", f"the flower {CODES[t]} is set aside, not held: put it in hand.flowers",
                   f"花牌 {CODES[t]} 应补花放入 hand.flowers，不能留在手牌中", "invalid_flowers")

    # tile count (more than MAX_MELDS melds: refused by the schema before they are read)
    want = winning_count(len(melds)) - waiting
    if or_drawn and len(concealed) not in (want, want + 1):
        _p(problems, "hand.concealed",
           f"{len(concealed)} concealed tiles; with {len(melds)} meld{'s' if len(melds) != 1 else ''} "
           f"the hand holds {want} (13 − 3 × melds: before its draw) or {want + 1} (14 − 3 × melds: after it)",
           f"暗牌 {len(concealed)} 张；{len(melds)} 个副露时应为 {want} 张（13 − 3 × 副露数，摸牌前）"
           f"或 {want + 1} 张（14 − 3 × 副露数，摸牌后）", "wrong_tile_count")
    elif len(concealed) != want and not or_drawn:
        _p(problems, "hand.concealed",
           f"{len(concealed)} concealed tiles; with {len(melds)} meld{'s' if len(melds) != 1 else ''} "
           f"the hand holds {want} " + ("(13 − 3 × melds: the hand before its winning tile)" if waiting
                                        else "(14 − 3 × melds, the winning tile included)"),
           f"暗牌 {len(concealed)} 张；{len(melds)} 个副露时应为 {want} 张"
           + ("（13 − 3 × 副露数，不含胡的那张）" if waiting else "（14 − 3 × 副露数，含胡的那张）"),
           "wrong_tile_count")

    # copies: concealed, melds, flowers and the indicator
    counts, over = _copies(h)
    meld_tiles = [t for m in melds for t in m.tiles] if over else []
    for k in sorted(over):
        n, limit = counts[k], COPIES[k]
        where = next(path for path, tiles in (("hand.concealed", concealed), ("hand.melds", meld_tiles),
                                              ("hand.flowers", flowers), ("caishen.indicator", [h.indicator]))
                     if k in tiles)
        extra = " (the indicator counts as one)" if h.indicator == k else ""
        extra_zh = "（翻出的财神指示牌算一张）" if h.indicator == k else ""
        _p(problems, where, f"{n} copies of {CODES[k]}; at most {limit} exist{extra}",
           f"{CODES[k]} 有 {n} 张；最多只有 {limit} 张{extra_zh}", "too_many_copies")

    # claims
    if seat in h.claims:
        _p(problems, f"claims_from_winner.{SEATS[seat]}", "the winner's own seat can't be a key",
           "不能以胡牌者自己的座位为键", "invalid_claims")

    return problems


def derived_tiles(concealed: tuple[int, ...], kinds: frozenset[int],
             substitute: int | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:class:`Checked`'s two fields: the caishen among the concealed tiles, sorted, and the
    sorted faces of the others (P as ``substitute`` when there is one)."""
    caishen: list[int] = []
    if kinds:
        others = []
        for t in concealed:
            if t in kinds:
                caishen.append(t)
            else:
                others.append(t)
        caishen.sort()
    else:
        others = list(concealed)
    if substitute is not None:
        others = [face_of(t, substitute) for t in others]
    others.sort()
    return tuple(caishen), tuple(others)


# problems after which the tiles can't be read as a hand at all
_BLOCKING = {"caishen_in_meld", "invalid_meld", "invalid_flowers", "wrong_tile_count", "too_many_copies",
             "winning_tile_not_in_hand"}


def _win_bad(problems: list[Problem], path: str, en: str, zh: str) -> None:
    _p(problems, path, en, zh, "inconsistent_win_context")


def _check_win(h: Hand, problems: list[Problem], seat_code: str) -> None:
    by, win_from, seat, melds = h.by, h.win_from, h.seat, h.melds
    if by == "discard" or by == "robbing_kong":
        if win_from is None:
            _win_bad(problems, "win.from",
                     f"a {by} win needs `from`: the seat that "
                     + ("discarded" if by == "discard" else "added to its pung"),
                     "捉冲/抢杠必须给出 from：" + ("放冲者" if by == "discard" else "被抢杠者"))
        elif win_from == seat:
            _win_bad(problems, "win.from", f"`from` is another player, not the winner's own seat {seat_code}",
                     f"from 必须是别家，不能是胡牌者自己 {seat_code}")
    elif win_from is not None:
        _win_bad(problems, "win.from", "a self-drawn win has no `from`", "自摸没有 from")
    if h.kong_replacement:
        if by != "self_draw":
            _win_bad(problems, "win.kong_replacement", "a kong-replacement win is a self-draw", "杠上开花必须是自摸")
        elif not h.flowers and not _has_kong(melds, None):
            _win_bad(problems, "win.kong_replacement",
                     "a kong-replacement win needs a kong among the melds or a flower",
                     "杠上开花需要副露中有杠或有花牌")
    fed_by = h.kong_fed_by
    if fed_by is not None:
        if not h.kong_replacement:
            _win_bad(problems, "win.kong_fed_by", "kong_fed_by needs kong_replacement",
                     "kong_fed_by 需要 kong_replacement")
        elif fed_by == seat:
            _win_bad(problems, "win.kong_fed_by", "the kong was fed by another player", "放杠的必须是别家")
        elif not _has_kong(melds, fed_by):
            who = SEATS[fed_by]
            _win_bad(problems, "win.kong_fed_by",
                     f"needs an exposed kong claimed from {who}'s discard (not concealed, not added)",
                     f"需要一个明杠来自 {who} 打出的牌（不是暗杠或加杠）")
    if h.last_tile and by != "self_draw":
        _win_bad(problems, "win.last_tile", "海底 is a self-draw of the wall's last tile", "海底捞月必须是自摸")
    if h.heavenly:
        if seat != 0:
            _win_bad(problems, "win.heavenly", "only the dealer (seat E) wins a heavenly hand", "天胡只能是庄家（东）")
        if by != "self_draw":
            _win_bad(problems, "win.heavenly", "a heavenly hand is won on the dealt hand, by self-draw",
                     "天胡必须是自摸")
        if melds:
            _win_bad(problems, "win.heavenly", "a heavenly hand has no melds", "天胡不能有副露")
    if h.earthly:
        if seat == 0:
            _win_bad(problems, "win.earthly", "an earthly hand is won by a non-dealer", "地胡只能是闲家")
        if by != "discard" or win_from != 0:
            _win_bad(problems, "win.earthly", "an earthly hand is won on the dealer's (E) first discard",
                     "地胡必须胡庄家（东）打出的第一张牌")
        if melds:
            _win_bad(problems, "win.earthly", "an earthly hand has no melds", "地胡不能有副露")
    if by == "robbing_kong":
        w = h.face(h.winning)
        held = 0
        for t in h.concealed:
            if t not in h.caishen_kinds and h.face(t) == w:
                held += 1
        for m in melds:
            held += m.faces.count(w)
        if held > 1:
            _win_bad(problems, "hand.winning_tile",
                     f"robbing a kong of {CODES[w]}: the robbed player held three, so the winner holds only the "
                     f"robbed copy, not {held}",
                     f"抢 {CODES[w]} 的杠：被抢者已有三张，胡牌者只能有被抢的那一张，而不是 {held} 张")
    rules = h.rules
    if by == "discard" and not rules.discard_wins:
        _p(problems, "win.by", "these rules allow no win on a discard (只有自摸才可以胡牌)",
           "本规则不允许捉冲（只有自摸才可以胡牌）", "discard_win_not_allowed")
    if by == "robbing_kong" and h.discarded_caishen and rules.robbing_needs_no_caishen_discarded:
        _p(problems, "win.discarded_caishen",
           "a player who discarded a caishen can't rob a kong (抛百搭的不能拉别人的杠)", "抛过百搭的不能抢杠",
           "discard_win_not_allowed")


def _has_kong(melds: tuple[Meld, ...], fed_by: int | None) -> bool:
    """Whether a meld is a kong (``fed_by`` None) or an exposed kong claimed from ``fed_by``."""
    for m in melds:
        if m.type == "kong" and (fed_by is None or (m.exposed_kong and m.from_seat == fed_by)):
            return True
    return False
