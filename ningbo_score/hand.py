"""Reading a request: strict types first (400), then what the rule book makes impossible (422).

Every problem found is collected; :class:`~ningbo_score.errors.ScoreError` orders them as
RULES.md §10.15 says.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .caishen import derive_kinds, substitute_kind
from .errors import Problem, ScoreError
from .rules import DEFAULT_PRESET, PRESETS, Rules, preset_rules, resolve_rules
from .tiles import (_SINGLE, CODES, FLOWER0, SEAT_INDEX, SEATS, WHITE, _read_compact, compact_or_none, is_flower,
                    is_suited, rank, tile_index, tile_indices, wind_tile)

TOP_FIELDS = {"rules", "seat_wind", "round_wind", "caishen", "hand", "win", "claims_from_winner", "base_points"}
HAND_FIELDS = {"concealed", "winning_tile", "melds", "flowers"}
MELD_FIELDS = {"type", "tiles", "from", "concealed", "added"}
CAISHEN_FIELDS = {"indicator", "kinds"}
WIN_FIELDS = {"by", "from", "kong_replacement", "kong_fed_by", "last_tile", "heavenly", "earthly",
              "discarded_caishen"}
WAITS_WIN_FIELDS = {"from", "discarded_caishen"}   # a waits request: the hand before its winning tile
WIN_FLAGS = ("kong_replacement", "last_tile", "heavenly", "earthly", "discarded_caishen")
WIN_BY = ("self_draw", "discard", "robbing_kong")
MELD_TYPES = ("chow", "pung", "kong")
MAX_BASE_POINTS = 1_000_000
MAX_CLAIMS = 100


@dataclass(slots=True)
class Meld:
    type: str
    tiles: list[int]          # physical tiles as given
    faces: list[int]          # with white_dragon_substitutes applied
    from_seat: int | None
    concealed: bool
    added: bool
    from_given: bool = False  # `from` was in the request (a concealed kong must have none)

    @property
    def exposed_kong(self) -> bool:
        return self.type == "kong" and not self.concealed and not self.added


@dataclass(slots=True)
class Hand:
    """A request that passed every check."""
    rules: Rules
    seat: int
    round: int
    caishen_kinds: frozenset
    indicator: int | None
    concealed: list[int]
    winning: int
    melds: list[Meld]
    flowers: list[int]
    by: str
    win_from: int | None
    kong_replacement: bool
    kong_fed_by: int | None
    last_tile: bool
    heavenly: bool
    earthly: bool
    discarded_caishen: bool
    claims: dict[int, int]
    base_points: int
    substitute: int | None = None         # the kind P tiles stand for (white_dragon_substitutes)
    # derived
    naturals: tuple = field(default=())   # sorted faces of the non-caishen concealed tiles
    caishen_tiles: list[int] = field(default_factory=list)   # physical caishen among concealed
    # problems that leave the tiles readable: reported together with `not_a_winning_hand`
    deferred: list[Problem] = field(default_factory=list)

    @property
    def seat_tile(self) -> int:
        return wind_tile(self.seat)

    @property
    def round_tile(self) -> int:
        return wind_tile(self.round)

    def face(self, k: int) -> int:
        return self.substitute if (self.substitute is not None and k == 33) else k

    @property
    def winning_is_caishen(self) -> bool:
        return self.winning in self.caishen_kinds


def _p(problems, path, en, zh, code="invalid_request"):
    problems.append(Problem(code, path, en, zh))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _object(value, path, fields, problems) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        _p(problems, path or "$", "must be a JSON object", "必须是 JSON 对象")
        return None
    if value.keys() - fields:
        for key in value:
            if key not in fields:
                _p(problems, f"{path}.{key}" if path else str(key), "unknown field", "未知字段")
    return value


def _required(obj: dict, key: str, path: str, problems) -> bool:
    if obj.get(key) is None:
        _p(problems, f"{path}.{key}" if path else key, "is required", "必填")
        return False
    return True


def _bool(obj: dict, key: str, path: str, problems) -> bool:
    v = obj.get(key)
    if v is None:
        return False
    if not isinstance(v, bool):
        _p(problems, f"{path}.{key}", "must be true or false", "必须是 true 或 false")
        return False
    return v


def _seat(v, path, problems) -> int | None:
    if v is None:
        return None
    if isinstance(v, str) and v in SEAT_INDEX:
        return SEAT_INDEX[v]
    _p(problems, path, "must be one of E, S, W, N", "必须是 E、S、W、N 之一")
    return None


def parse(request, waiting: bool = False, or_drawn: bool = False) -> Hand:
    """The request as a :class:`Hand`; raises ScoreError listing every problem.

    ``waiting``: a `/v1/waits` request, the hand before its winning tile (13 − 3 × melds
    concealed tiles, no `winning_tile`, no `win.by`; `win` optional with `from`, the discarder
    to assume, and `discarded_caishen`).  ``or_drawn`` (with ``waiting``): a `/v1/analyze`
    request, whose hand may also have drawn its next tile (14 − 3 × melds).

    A score request is first read by :func:`_read_valid`, which gives up at the first thing it
    does not expect; only then does :func:`parse_and_report` read it again, collecting every
    problem.  Both give the same :class:`Hand` for a valid request (tests/test_properties.py).
    """
    if not waiting:
        h = _read_valid(request)
        if h is not None:
            return h
    return parse_and_report(request, waiting, or_drawn)


def parse_and_report(request, waiting: bool = False, or_drawn: bool = False) -> Hand:
    """:func:`parse`, field by field, every problem collected with its path and message."""
    problems: list[Problem] = []
    req = _object(request, "", TOP_FIELDS, problems)
    if req is None:
        if not problems:
            _p(problems, "$", "the body must be a JSON object", "请求体必须是 JSON 对象")
        raise ScoreError(problems)
    rules = resolve_rules(req.get("rules"), problems)
    for key in ("seat_wind", "round_wind", "hand") if waiting else ("seat_wind", "round_wind", "hand", "win"):
        _required(req, key, "", problems)
    seat = _seat(req.get("seat_wind"), "seat_wind", problems)
    round_ = _seat(req.get("round_wind"), "round_wind", problems)

    # caishen
    indicator, kinds = None, None
    cs = _object(req.get("caishen"), "caishen", {"indicator", "kinds"}, problems)
    if cs is not None:
        has_i, has_k = cs.get("indicator") is not None, cs.get("kinds") is not None
        if has_i == has_k:
            _p(problems, "caishen", "give exactly one of indicator or kinds", "indicator 与 kinds 必须且只能给一个")
        elif has_i:
            indicator = tile_index(cs["indicator"], "caishen.indicator", problems)
        else:
            kinds = tile_indices(cs["kinds"], "caishen.kinds", problems)

    # hand
    concealed, winning, melds, flowers = [], None, [], []
    hand = _object(req.get("hand"), "hand", HAND_FIELDS - {"winning_tile"} if waiting else HAND_FIELDS, problems)
    if hand is not None:
        if _required(hand, "concealed", "hand", problems):
            concealed = tile_indices(hand["concealed"], "hand.concealed", problems)
        if not waiting and _required(hand, "winning_tile", "hand", problems):
            winning = tile_index(hand["winning_tile"], "hand.winning_tile", problems)
        if hand.get("flowers") is not None:
            flowers = tile_indices(hand["flowers"], "hand.flowers", problems)
        raw_melds = hand.get("melds")
        if raw_melds is not None and not isinstance(raw_melds, list):
            _p(problems, "hand.melds", "must be an array of melds", "必须是副露的数组")
        elif raw_melds:
            for i, m in enumerate(raw_melds):       # more than 4: wrong_tile_count (§10.12)
                melds.append(_parse_meld(m, f"hand.melds.{i}", problems))

    # win
    given_win = _object(req.get("win"), "win", WAITS_WIN_FIELDS if waiting else WIN_FIELDS, problems)
    win = given_win or {}
    by = win.get("by")
    if by is not None and by not in WIN_BY:
        _p(problems, "win.by", "must be one of self_draw, discard, robbing_kong",
           "必须是 self_draw、discard、robbing_kong 之一")
    if given_win is not None and by is None and not waiting:     # `win: {}` too
        _required(win, "by", "win", problems)
    win_from = _seat(win.get("from"), "win.from", problems)
    fed_by = _seat(win.get("kong_fed_by"), "win.kong_fed_by", problems)
    flags = {f: (_bool(win, f, "win", problems) if f in win else False) for f in WIN_FLAGS}

    # claims and base points
    claims: dict[int, int] = {}
    raw_claims = req.get("claims_from_winner")
    if raw_claims is not None:
        if not isinstance(raw_claims, dict):
            _p(problems, "claims_from_winner", "must be an object of seat → count", "必须是 座位 → 次数 的对象")
        else:
            for key, v in raw_claims.items():
                path = f"claims_from_winner.{key}"
                if key not in SEAT_INDEX:
                    _p(problems, path, "unknown seat; seats are E, S, W, N", "未知座位；座位为 E、S、W、N")
                elif v is None:
                    continue
                elif not (_is_int(v) and 0 <= v <= MAX_CLAIMS):
                    _p(problems, path, f"must be an integer from 0 to {MAX_CLAIMS}", f"必须是 0 到 {MAX_CLAIMS} 的整数")
                else:
                    claims[SEAT_INDEX[key]] = v
    base = req.get("base_points")
    if base is None:
        base = 1
    elif not (_is_int(base) and 1 <= base <= MAX_BASE_POINTS):
        _p(problems, "base_points", f"must be an integer from 1 to {MAX_BASE_POINTS}",
           f"必须是 1 到 {MAX_BASE_POINTS} 的整数")
    if problems:
        raise ScoreError(problems)

    h = Hand(rules=rules, seat=seat, round=round_, caishen_kinds=frozenset(), indicator=indicator,
             concealed=concealed, winning=winning, melds=melds, flowers=flowers, by=by, win_from=win_from,
             kong_replacement=flags["kong_replacement"], kong_fed_by=fed_by, last_tile=flags["last_tile"],
             heavenly=flags["heavenly"], earthly=flags["earthly"],
             discarded_caishen=flags["discarded_caishen"], claims=claims, base_points=base)
    h.caishen_kinds = derive_kinds(rules.caishen_rule, indicator, kinds)
    if rules.white_dragon_substitutes:
        h.substitute = substitute_kind(h.caishen_kinds)
    for m in melds:
        m.faces = [h.face(t) for t in m.tiles] if h.substitute is not None else m.tiles
    _check(h, waiting, or_drawn)
    return h


def _parse_meld(m, path, problems) -> Meld:
    meld = Meld("pung", [], [], None, False, False)
    obj = _object(m, path, MELD_FIELDS, problems)
    if obj is None:
        if m is None:
            _p(problems, path, "must be a meld object", "必须是副露对象")
        return meld
    t = obj.get("type")
    if t is None:
        _required(obj, "type", path, problems)
    elif t not in MELD_TYPES:
        _p(problems, f"{path}.type", "must be one of chow, pung, kong", "必须是 chow、pung、kong 之一")
    else:
        meld.type = t
    if _required(obj, "tiles", path, problems):
        meld.tiles = tile_indices(obj["tiles"], f"{path}.tiles", problems)
    meld.from_seat = _seat(obj.get("from"), f"{path}.from", problems)
    meld.concealed = _bool(obj, "concealed", path, problems)
    meld.added = _bool(obj, "added", path, problems)
    meld.from_given = obj.get("from") is not None
    return meld


# --- the fast reading of a valid score request -------------------------------------------------
# Most requests are valid.  This reads one in a single pass, with no path or message built, and
# returns None at the first thing that is not plainly right (parse then reads the request again
# with parse_and_report, which says what is wrong).  It accepts nothing parse_and_report refuses
# and reads the same Hand (tests/test_properties.py checks both on generated and mutated requests).

def _tiles_or_none(value) -> list[int] | None:
    if type(value) is list:
        try:
            return [_SINGLE[t] for t in value]
        except (KeyError, TypeError):
            return None
    if type(value) is str:
        out = compact_or_none(value)
        if out is None:                   # names, or a mistake: the full reader
            problems: list[Problem] = []
            out = _read_compact(value, "", problems)
            if problems:
                return None
        return out
    return None


def _seat_or_none(value) -> int | None:
    return SEAT_INDEX[value] if type(value) is str and value in SEAT_INDEX else None


def _tile_or_none(value) -> int | None:
    return _SINGLE[value] if type(value) is str and value in _SINGLE else None


def _flag(obj: dict, key: str) -> bool | None:
    """False when absent or null, the value when a bool, None (give up) otherwise."""
    v = obj.get(key)
    if v is None:
        return False
    return v if type(v) is bool else None


def _keys_in(obj: dict, fields: set) -> bool:
    """Whether every key of ``obj`` is one of ``fields``."""
    for key in obj:
        if key not in fields:
            return False
    return True


def _read_valid(request) -> Hand | None:
    # hand.pxd types the objects read here as dicts: each is checked before it is named
    if type(request) is not dict or not _keys_in(request, TOP_FIELDS):
        return None
    req = request
    value = req.get("rules")
    if value is None:
        rules = preset_rules(DEFAULT_PRESET)
    elif type(value) is str and value in PRESETS:     # a preset id, as resolve_rules reads it
        rules = preset_rules(value)
    else:
        problems: list[Problem] = []
        rules = resolve_rules(value, problems)
        if problems:
            return None
    seat, round_ = _seat_or_none(req.get("seat_wind")), _seat_or_none(req.get("round_wind"))
    if seat is None or round_ is None:
        return None

    indicator, kinds = None, None
    value = req.get("caishen")
    if value is not None:
        if type(value) is not dict or not _keys_in(value, CAISHEN_FIELDS):
            return None
        cs = value
        i, k = cs.get("indicator"), cs.get("kinds")
        if (i is None) == (k is None):
            return None
        if i is not None:
            indicator = _tile_or_none(i)
            if indicator is None:
                return None
        else:
            kinds = _tiles_or_none(k)
            if kinds is None:
                return None
    kinds = derive_kinds(rules.caishen_rule, indicator, kinds)
    substitute = substitute_kind(kinds) if rules.white_dragon_substitutes else None

    value = req.get("hand")
    if type(value) is not dict or not _keys_in(value, HAND_FIELDS):
        return None
    hand = value
    concealed = _tiles_or_none(hand.get("concealed"))
    winning = _tile_or_none(hand.get("winning_tile"))
    flowers = hand.get("flowers")
    flowers = [] if flowers is None else _tiles_or_none(flowers)
    if concealed is None or winning is None or flowers is None:
        return None
    melds = []
    raw_melds = hand.get("melds")
    if raw_melds is not None:
        if type(raw_melds) is not list:
            return None
        for value in raw_melds:
            if type(value) is not dict or not _keys_in(value, MELD_FIELDS):
                return None
            meld = value
            t, tiles, frm = meld.get("type"), _tiles_or_none(meld.get("tiles")), meld.get("from")
            from_seat = None if frm is None else _seat_or_none(frm)
            conc, added = _flag(meld, "concealed"), _flag(meld, "added")
            if (t not in MELD_TYPES or tiles is None or (frm is not None and from_seat is None)
                    or conc is None or added is None):
                return None
            faces = tiles if substitute is None else [substitute if f == WHITE else f for f in tiles]
            melds.append(Meld(t, tiles, faces, from_seat, conc, added, frm is not None))

    value = req.get("win")
    if type(value) is not dict or not _keys_in(value, WIN_FIELDS):
        return None
    win = value
    by, frm, fed = win.get("by"), win.get("from"), win.get("kong_fed_by")
    win_from = None if frm is None else _seat_or_none(frm)
    fed_by = None if fed is None else _seat_or_none(fed)
    kong_replacement, last_tile = _flag(win, "kong_replacement"), _flag(win, "last_tile")
    heavenly, earthly = _flag(win, "heavenly"), _flag(win, "earthly")
    discarded_caishen = _flag(win, "discarded_caishen")
    if (by not in WIN_BY or (frm is not None and win_from is None) or (fed is not None and fed_by is None)
            or kong_replacement is None or last_tile is None or heavenly is None or earthly is None
            or discarded_caishen is None):
        return None

    claims: dict[int, int] = {}
    value = req.get("claims_from_winner")
    if value is not None:
        if type(value) is not dict:
            return None
        raw_claims = value
        for key, v in raw_claims.items():
            s = _seat_or_none(key)
            if s is None:
                return None
            if v is not None:
                if type(v) is not int or not 0 <= v <= MAX_CLAIMS:
                    return None
                claims[s] = v
    base = req.get("base_points")
    if base is None:
        base = 1
    elif type(base) is not int or not 1 <= base <= MAX_BASE_POINTS:
        return None

    if not _all_right(seat, kinds, concealed, winning, melds, flowers, indicator, by, claims):
        return None
    caishen_tiles, naturals = _derived(concealed, kinds, substitute)
    # every field, in Hand's order (positional: the cheapest call of the dataclass's __init__)
    h = Hand(rules, seat, round_, kinds, indicator, concealed, winning, melds, flowers, by, win_from,
             kong_replacement, fed_by, last_tile, heavenly, earthly, discarded_caishen, claims, base,
             substitute, naturals, caishen_tiles, [])
    problems = []
    _check_win(h, problems, SEATS[seat])
    return None if problems else h


def _all_right(seat, kinds, concealed, winning, melds, flowers, indicator, by, claims) -> bool:
    """:func:`_check` of a valid hand, with no message, on the fields read (the melds' faces
    set): True when it finds nothing wrong but for the win context (:func:`_check_win`), False
    at the first problem."""
    flower0 = FLOWER0        # hand.pxd: the tiles and counts here are C ints
    counts = [0] * 42        # copies of each kind: at most 4 of a kind, 1 of a flower
    upper = (seat + 3) % 4
    for m in melds:
        tiles, mtype = m.tiles, m.type
        n = len(tiles)
        if n != (4 if mtype == "kong" else 3):
            return False
        for t in tiles:
            if t >= flower0 or t in kinds:
                return False
            c = counts[t] + 1
            if c > 4:
                return False
            counts[t] = c
        faces = m.faces
        f0 = faces[0]
        if mtype == "chow":
            f1, f2 = faces[1], faces[2]
            low = f0 if f0 < f1 else f1
            if f2 < low:
                low = f2
            # three different faces from low to low + 2, of one suit
            if low + 2 >= 27 or low % 9 > 6 or f0 == f1 or f1 == f2 or f0 == f2 \
                    or f0 > low + 2 or f1 > low + 2 or f2 > low + 2:
                return False
        elif faces.count(f0) != n:
            return False
        if mtype == "kong" and m.concealed:
            if m.added or m.from_given:
                return False
        elif m.concealed or m.added and mtype != "kong" or m.from_seat is None or m.from_seat == seat \
                or (mtype == "chow" and m.from_seat != upper):
            return False
    for t in flowers:
        if t < flower0 or t in kinds or counts[t]:
            return False
        counts[t] = 1
    if len(melds) > 4 or len(concealed) != 14 - 3 * len(melds) or (winning in kinds and by != "self_draw") \
            or seat in claims:
        return False
    held = False             # the winning tile among the concealed ones
    for t in concealed:
        c = counts[t] + 1
        if t >= flower0:
            if c > 1 or t not in kinds:
                return False
        elif c > 4:
            return False
        counts[t] = c
        if t == winning:
            held = True
    if not held:
        return False
    if indicator is not None:
        t = indicator
        return counts[t] < (1 if t >= flower0 else 4)
    return True


# --- 422: what the rule book makes impossible -------------------------------------------------

def _check(h: Hand, waiting: bool = False, or_drawn: bool = False) -> None:
    problems: list[Problem] = []
    seat_code = SEATS[h.seat]
    upper = (h.seat + 3) % 4

    # melds, in list order
    for i, m in enumerate(h.melds):
        path = f"hand.melds.{i}"

        def bad(en, zh, sub="tiles"):
            _p(problems, f"{path}.{sub}" if sub else path, en, zh, "invalid_meld")

        if not h.caishen_kinds.isdisjoint(m.tiles):
            _p(problems, f"{path}.tiles", "a caishen can't be chowed, punged or konged",
               "财神不能吃、碰、杠", "caishen_in_meld")
        size = 3 if m.type in ("chow", "pung") else 4
        if m.tiles and max(m.tiles) >= FLOWER0:
            bad("a flower can't be part of a meld", "花牌不能组成副露")
        elif len(m.tiles) != size:
            bad(f"a {m.type} has {size} tiles, not {len(m.tiles)}", f"{m.type} 应有 {size} 张牌，而不是 {len(m.tiles)} 张")
        elif m.type == "chow":
            f = sorted(m.faces)
            if not (all(is_suited(t) for t in f) and f[1] == f[0] + 1 and f[2] == f[0] + 2 and rank(f[0]) <= 7):
                bad("a chow is three consecutive tiles of one suit", "吃必须是同一花色的三张顺牌")
        elif len(set(m.faces)) != 1:
            bad(f"a {m.type} is {size} identical tiles", f"{m.type} 必须是 {size} 张相同的牌")
        if m.type != "kong" and (m.concealed or m.added):
            bad("only a kong can be concealed or added", "只有杠可以是暗杠或加杠", "concealed" if m.concealed else "added")
        if m.concealed and m.added:
            bad("a kong is concealed or added, not both", "杠不能既是暗杠又是加杠", "added")
        if m.type == "kong" and m.concealed:
            if m.from_given:
                bad("a concealed kong has no `from`", "暗杠没有 from", "from")
        elif m.from_seat is None:
            bad(f"`from` is required: the seat this {m.type} was claimed from", f"必须给出 from：{m.type} 从哪个座位得来", "from")
        elif m.from_seat == h.seat:
            bad(f"a meld is never claimed from the winner's own seat {seat_code}", f"副露不能来自胡牌者自己的座位 {seat_code}", "from")
        elif m.type == "chow" and m.from_seat != upper:
            bad(f"a chow is claimed only from the winner's 上家 {SEATS[upper]}, not {SEATS[m.from_seat]}",
                f"吃只能吃上家 {SEATS[upper]} 的牌，不能吃 {SEATS[m.from_seat]}", "from")

    # flowers
    for i, f in enumerate(h.flowers):
        if not is_flower(f):
            _p(problems, f"hand.flowers.{i}", f"{CODES[f]} is not a flower", f"{CODES[f]} 不是花牌", "invalid_flowers")
        elif f in h.caishen_kinds:
            _p(problems, f"hand.flowers.{i}", f"{CODES[f]} is a caishen this hand, not a flower",
               f"{CODES[f]} 本局是财神，不是花牌", "invalid_flowers")
    if h.concealed and max(h.concealed) >= FLOWER0:
        for t in h.concealed:
            if t >= FLOWER0 and t not in h.caishen_kinds:
                _p(problems, "hand.concealed", f"the flower {CODES[t]} is set aside, not held: put it in hand.flowers",
                   f"花牌 {CODES[t]} 应补花放入 hand.flowers，不能留在手牌中", "invalid_flowers")

    # tile count
    want = 14 - 3 * len(h.melds) - waiting
    if len(h.melds) > 4:
        _p(problems, "hand.melds", f"{len(h.melds)} melds; a hand has at most 4",
           f"{len(h.melds)} 个副露；一手牌最多 4 个", "wrong_tile_count")
    elif or_drawn and len(h.concealed) not in (want, want + 1):
        _p(problems, "hand.concealed",
           f"{len(h.concealed)} concealed tiles; with {len(h.melds)} meld{'s' if len(h.melds) != 1 else ''} "
           f"the hand holds {want} (13 − 3 × melds: before its draw) or {want + 1} (14 − 3 × melds: after it)",
           f"暗牌 {len(h.concealed)} 张；{len(h.melds)} 个副露时应为 {want} 张（13 − 3 × 副露数，摸牌前）"
           f"或 {want + 1} 张（14 − 3 × 副露数，摸牌后）", "wrong_tile_count")
    elif len(h.concealed) != want and not or_drawn:
        _p(problems, "hand.concealed",
           f"{len(h.concealed)} concealed tiles; with {len(h.melds)} meld{'s' if len(h.melds) != 1 else ''} "
           f"the hand holds {want} " + ("(13 − 3 × melds: the hand before its winning tile)" if waiting
                                        else "(14 − 3 × melds, the winning tile included)"),
           f"暗牌 {len(h.concealed)} 张；{len(h.melds)} 个副露时应为 {want} 张" + ("（13 − 3 × 副露数，不含胡的那张）" if waiting
                                                                         else "（14 − 3 × 副露数，含胡的那张）"),
           "wrong_tile_count")

    # copies: concealed, melds, flowers and the indicator
    meld_tiles = [t for m in h.melds for t in m.tiles]
    counts = Counter(h.concealed + meld_tiles + h.flowers + ([h.indicator] if h.indicator is not None else []))
    over = [k for k, n in counts.items() if n > (1 if k >= FLOWER0 else 4)]
    for k in sorted(over):
        n, limit = counts[k], (1 if k >= FLOWER0 else 4)
        where = next(path for path, tiles in (("hand.concealed", h.concealed), ("hand.melds", meld_tiles),
                                              ("hand.flowers", h.flowers), ("caishen.indicator", [h.indicator]))
                     if k in tiles)
        extra = " (the indicator counts as one)" if h.indicator == k else ""
        extra_zh = "（翻出的财神指示牌算一张）" if h.indicator == k else ""
        _p(problems, where, f"{n} copies of {CODES[k]}; at most {limit} exist{extra}",
           f"{CODES[k]} 有 {n} 张；最多只有 {limit} 张{extra_zh}", "too_many_copies")

    # claims
    if h.seat in h.claims:
        _p(problems, f"claims_from_winner.{seat_code}", "the winner's own seat can't be a key",
           "不能以胡牌者自己的座位为键", "invalid_claims")

    if waiting:
        if h.win_from == h.seat:
            _p(problems, "win.from", f"the discarder is another player, not {seat_code}",
               f"放冲者必须是别家，不能是 {seat_code}", "inconsistent_win_context")
        if problems:
            raise ScoreError(problems)
        return

    # the winning tile
    if h.winning not in h.concealed:
        _p(problems, "hand.winning_tile", f"{CODES[h.winning]} is not among the concealed tiles (they include it)",
           f"{CODES[h.winning]} 不在暗牌中（暗牌应包含胡的那张）", "winning_tile_not_in_hand")

    blocking = any(p.code in _BLOCKING for p in problems)
    _check_win(h, problems, seat_code)
    if h.winning_is_caishen and h.by in ("discard", "robbing_kong"):
        _p(problems, "hand.winning_tile", f"{CODES[h.winning]} is a caishen: a discarded caishen can't be "
           "claimed, so it wins only by self-draw", f"{CODES[h.winning]} 是财神：打出的财神不能被吃胡，只能自摸",
           "caishen_winning_tile")
    if blocking:
        raise ScoreError(problems)
    h.deferred = problems          # the tiles can still be read: the engine adds what it finds
    _derive(h)


def _derive(h: Hand) -> None:
    """The caishen tiles held and the faces of the natural ones."""
    h.caishen_tiles, h.naturals = _derived(h.concealed, h.caishen_kinds, h.substitute)


def _derived(concealed: list[int], kinds: frozenset, substitute: int | None) -> tuple[list[int], tuple]:
    """:func:`_derive`'s two fields: the caishen among the concealed tiles, sorted, and the sorted
    faces of the others (P as ``substitute`` when there is one)."""
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
        for i in range(len(others)):
            if others[i] == WHITE:
                others[i] = substitute
    others.sort()
    return caishen, tuple(others)


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
                     f"a {by} win needs `from`: the seat that " + ("discarded" if by == "discard" else "added to its pung"),
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
                     "a kong-replacement win needs a kong among the melds or a flower", "杠上开花需要副露中有杠或有花牌")
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
            _win_bad(problems, "win.heavenly", "a heavenly hand is won on the dealt hand, by self-draw", "天胡必须是自摸")
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
    if by == "robbing_kong" and h.winning is not None:
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
                     f"robbed copy, not {held}", f"抢 {CODES[w]} 的杠：被抢者已有三张，胡牌者只能有被抢的那一张，而不是 {held} 张")
    rules = h.rules
    if by == "discard" and not rules.discard_wins:
        _p(problems, "win.by", "these rules allow no win on a discard (只有自摸才可以胡牌)",
           "本规则不允许捉冲（只有自摸才可以胡牌）", "discard_win_not_allowed")
    if by == "robbing_kong" and h.discarded_caishen and rules.robbing_needs_no_caishen_discarded:
        _p(problems, "win.discarded_caishen", "a player who discarded a caishen can't rob a kong (抛百搭的不能拉别人的杠)",
           "抛过百搭的不能抢杠", "discard_win_not_allowed")


def _has_kong(melds: list[Meld], fed_by: int | None) -> bool:
    """Whether a meld is a kong (``fed_by`` None) or an exposed kong claimed from ``fed_by``."""
    for m in melds:
        if m.type == "kong" and (fed_by is None or (m.exposed_kong and m.from_seat == fed_by)):
            return True
    return False
