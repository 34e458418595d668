"""Live-table helpers (docs/rules.md §8): who deals next, who takes a discard, levels, escape penalty.

Pure functions on typed input (:class:`NextHandInput`, :class:`ClaimsInput`,
:class:`EscapeInput`, made by the request schemas of ningbo_score.readers.request_schemas, which check every
shape and type: those problems are 400 ``invalid_request``); each returns the 200 body, or raises
:class:`~ningbo_score.errors.ScoreError` with every problem found.  A well-formed claim list that
cannot happen at a table (the discarder claiming its own discard, a seat claiming twice, a chow
from a seat other than the discarder's 下家, two seats both punging/konging one discard) is
``invalid_request`` with status 422, through the internal code ``invalid_claims`` of
:mod:`ningbo_score.errors` — the same status the rule book gives a claim naming the winner's own
seat (docs/rules.md §10.13).

Players and seats
-----------------
``next_hand`` speaks of *players* by position 0–3 in play order: position ``p + 1 (mod 4)`` is the
player after ``p`` (下家; the play direction of the sources, 逆时针 "counter-clockwise").  Their
seat winds change with the dealer.  ``claims`` speaks of *seats* (winds) of one hand, whose play
order is E → S → W → N → E (the dealer is E).
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import Problem, ScoreError
from .rules import PRESETS, Rules
from .tiles import SEAT_ZH, SEATS

CLAIM_TYPES = ("win", "kong", "pung", "chow")
_CLAIM_ZH = {"win": "胡", "kong": "杠", "pung": "碰", "chow": "吃"}
# Priority of docs/rules.md §8: win > pung/kong > chow (pung and kong share a rank).
_CLAIM_RANK = {"win": 0, "kong": 1, "pung": 1, "chow": 2}

ESCAPE_MULTIPLIER = 24  # 000 "逃跑扣 24 倍基础分", 002 "逃跑扣 24 倍基礎分"

# The level table of 000, 《“宁波麻将”游戏介绍》 (456游戏, 2010-9-19), "积分与级别设置":
# (level, 级别名称, 积分 = points needed, 对局分 = base points, English gloss).
# The English glosses are ours (*interpretation*): the names are ranks of the Chinese civil
# service, section (科) < division (处) < bureau (局) < city (市) < province (省), each with its
# assistant (助), deputy (副) and chief; the last, 雀神, is "the mahjong god".
LEVEL_SOURCE = PRESETS["ningbo-456"]["source"]    # the document, by title and date
_LEVELS: tuple[tuple[int, str, int, int, str], ...] = (
    (0, "科员", 0, 1, "Clerk"),
    (1, "助科", 50, 5, "Assistant section chief"),
    (2, "副科", 100, 10, "Deputy section chief"),
    (3, "科长", 200, 20, "Section chief"),
    (4, "助处", 500, 30, "Assistant division chief"),
    (5, "副处", 3000, 40, "Deputy division chief"),
    (6, "处长", 10000, 60, "Division chief"),
    (7, "助局", 30000, 80, "Assistant bureau chief"),
    (8, "副局", 50000, 100, "Deputy bureau chief"),
    (9, "局长", 150000, 150, "Bureau chief"),
    (10, "助市", 300000, 200, "Assistant mayor"),
    (11, "副市", 500000, 260, "Deputy mayor"),
    (12, "市长", 1000000, 300, "Mayor"),
    (13, "助省", 2000000, 400, "Assistant governor"),
    (14, "副省", 4000000, 500, "Deputy governor"),
    (15, "省长", 8000000, 600, "Governor"),
    (16, "雀神", 20000000, 700, "Mahjong god"),
)
_BASE_BY_LEVEL = {lv: base for lv, _, _, base, _ in _LEVELS}
MAX_LEVEL = _LEVELS[-1][0]


@dataclass(frozen=True, slots=True)
class NextHandInput:
    """The hand just played (docs/rules.md §8): see :func:`next_hand`."""
    dealer: int                 # 0-3
    round_wind: str             # E S W N
    dealers_this_round: int     # 1-4
    winner: int | None          # 0-3, or None for a draw
    draw: bool
    rules: Rules                # its draw_keeps_dealer says who deals after a draw


@dataclass(frozen=True, slots=True)
class ClaimsInput:
    """A discard and the claims on it: see :func:`claims`."""
    discarder: str
    claims: list[tuple[str, str]]      # (seat, type) in the order given


@dataclass(frozen=True, slots=True)
class EscapeInput:
    """The game's base points, or a level giving them: exactly one (see :func:`escape`); the rules
    say who receives the penalty (``escape_penalty_to``)."""
    base_points: int | None
    level: int | None
    rules: Rules


def _bad(problems: list[Problem], path: str, en: str, zh: str, code: str = "invalid_request") -> None:
    problems.append(Problem(code, path, en, zh))


# --------------------------------------------------------------------------------------------
# Dealer and round wind.

def seat_winds(dealer: int) -> dict[str, str]:
    """Every player's seat wind when ``dealer`` deals: the dealer E, then S, W, N in play order."""
    return {str(p): SEATS[(p - dealer) % 4] for p in range(4)}


def next_hand(req: NextHandInput) -> dict[str, object]:
    """The table state of the next hand (docs/rules.md §8).

    Request::

        {"dealer": 0-3, "round_wind": "E"|"S"|"W"|"N", "dealers_this_round": 1-4,
         "result": {"winner": 0-3} | {"draw": true}, "rules": preset id | rules object (optional)}

    The state is three fields.  ``dealer`` is the position of the player who dealt the hand just
    played.  ``round_wind`` is the wind of the round (圈风) that hand belonged to.
    ``dealers_this_round`` is how many different players have dealt in that round, the current
    dealer included: 1 for the round's first dealer, 4 for its last.  A game starts with
    ``round_wind`` E and ``dealers_this_round`` 1, the first dealer chosen by dice.  (So the
    round's first dealer is position ``dealer - dealers_this_round + 1`` mod 4.)

    Transitions, as in 001/002 ("庄家糊牌，则庄家继续做庄，闲家糊牌，则庄家的下一家坐庄。荒庄，则庄家
    继续坐庄"):

    - the dealer wins: nothing changes (连庄);
    - a draw (流局/荒庄): nothing changes where the rules' ``draw_keeps_dealer`` is on (001, 002,
      000's "流局算连庄"); where it is off (004: "莊家沒胡，則讓給下家坐莊…也無連莊"), the next
      position deals, as when another player wins.  ``rules`` is a preset id or a rules object as
      in ``/v1/score`` (default: the default preset);
    - another player wins: the dealer's next position (``dealer + 1`` mod 4, the 下家 — not
      necessarily the winner) deals and ``dealers_this_round`` grows by one; but when it was 4
      the deal returns to the round's first dealer, so the round wind advances
      E → S → W → N → E and ``dealers_this_round`` restarts at 1 ("当 D 下庄，A 重新上庄后，
      该圈变为南风圈"). After the North round comes an East round again (001: "圈风顺序：东南西北，
      周而复始"; docs/rules.md §8).

    Response::

        {"dealer": pos, "round_wind": W, "dealers_this_round": n,
         "seat_winds": {"0": "E", "1": "S", "2": "W", "3": "N"},
         "dealer_changed": bool, "round_changed": bool}

    ``dealer``, ``round_wind`` and ``dealers_this_round`` are the state of the next hand: send
    them back unchanged, with that hand's ``result``, to get the hand after it.  ``seat_winds``
    gives every position's wind for the next hand (its ``seat_wind`` for ``/v1/score``).
    """
    dealer, round_wind, count, winner, draw = req.dealer, req.round_wind, req.dealers_this_round, req.winner, req.draw
    if winner == dealer or (draw and req.rules.draw_keeps_dealer):
        new_dealer, new_wind, new_count = dealer, round_wind, count
    else:
        new_dealer = (dealer + 1) % 4
        if count == 4:
            new_wind, new_count = _next_seat(round_wind), 1
        else:
            new_wind, new_count = round_wind, count + 1
    return {
        "dealer": new_dealer,
        "round_wind": new_wind,
        "dealers_this_round": new_count,
        "seat_winds": seat_winds(new_dealer),
        "dealer_changed": new_dealer != dealer,
        "round_changed": new_wind != round_wind,
    }


# --------------------------------------------------------------------------------------------
# Claims on a discard.

def claims(req: ClaimsInput, lang: str = "en") -> dict[str, object]:
    """Which claim takes a discard (docs/rules.md §8: win > pung/kong > chow; one win per discard).

    Request::

        {"discarder": "E"|"S"|"W"|"N",
         "claims": [{"seat": "S", "type": "win"|"kong"|"pung"|"chow"}, ...]}

    ``claims`` is required and may be empty.  Each seat states one claim (its choice; a player
    who could win or pung says which it makes).  Refused with 422 ``invalid_request``: the
    discarder claiming its own discard, a seat claiming twice, a chow from any seat but the
    discarder's 下家 (the next seat in play order E → S → W → N → E), and two pung/kong claims
    (a pung takes two copies, a kong three, and there are four of a kind with the discard).

    Response::

        {"taker": {"seat": "W", "type": "win"} | null,
         "rule": "none"|"win"|"intercept"|"pung_kong"|"chow",
         "reason": "...",                       # in ``lang`` ("en" or "zh")
         "overridden": [{"seat", "type"}, ...]} # the other claims, in play order after the discarder

    Several wins: the first winner in play order after the discarder takes it (截胡, ``rule``
    ``intercept``); there are no multiple winners (没有一炮多响).  No claims: ``taker`` null.
    """
    problems: list[Problem] = []
    discarder = req.discarder
    parsed = [(i, seat, kind) for i, (seat, kind) in enumerate(req.claims)]
    # Table-impossible claims (422).
    seen: dict[str, int] = {}
    for i, seat, kind in parsed:
        where = f"claims.{i}.seat"
        if seat == discarder:
            _bad(problems, where, f"{seat} is the discarder: a player can't claim its own discard",
                 f"{seat}（{SEAT_ZH[seat]}）是出牌者，不能吃碰杠胡自己打出的牌", "invalid_claims")
        if seat in seen:
            _bad(problems, where,
                 f"{seat} already claims at claims.{seen[seat]}: one claim per seat",
                 f"{seat}（{SEAT_ZH[seat]}）已在 claims.{seen[seat]} 中声明：每家只能声明一次",
                 "invalid_claims")
        else:
            seen[seat] = i
        if kind == "chow" and seat != discarder:
            nxt = _next_seat(discarder)
            if seat != nxt:
                _bad(problems, f"claims.{i}.type",
                     f"only {nxt}, the seat after the discarder {discarder}, may chow "
                     f"({seat} may pung, kong or win)",
                     f"只有出牌者 {discarder} 的下家 {nxt}（{SEAT_ZH[nxt]}）可以吃"
                     f"（{seat} 只能碰、杠或胡）", "invalid_claims")
    melders = [(i, seat) for i, seat, kind in parsed if kind in ("pung", "kong")]
    if len({seat for _, seat in melders}) > 1:
        i, _ = melders[1]
        _bad(problems, f"claims.{i}.type",
             "only one seat can pung or kong a discard: with the discard there are four of a kind",
             "同一张牌只能有一家碰或杠：连同打出的这张，每种牌只有四张", "invalid_claims")
    if problems:
        raise ScoreError(problems)

    ordered = sorted(((seat, kind) for _, seat, kind in parsed),
                     key=lambda c: (_CLAIM_RANK[c[1]], _distance(discarder, c[0])))
    if not ordered:
        return {"taker": None, "rule": "none", "reason": _claim_reason("none", lang, discarder),
                "overridden": []}
    seat, kind = ordered[0]
    rest = sorted(ordered[1:], key=lambda c: _distance(discarder, c[0]))
    wins = [c for c in ordered if c[1] == "win"]
    if kind == "win":
        rule = "intercept" if len(wins) > 1 else "win"
    elif kind in ("pung", "kong"):
        rule = "pung_kong"
    else:
        rule = "chow"
    return {
        "taker": {"seat": seat, "type": kind},
        "rule": rule,
        "reason": _claim_reason(rule, lang, discarder, seat, kind, rest, [w[0] for w in wins]),
        "overridden": [{"seat": s, "type": k} for s, k in rest],
    }


def _next_seat(seat: str) -> str:
    """The seat (or wind) after ``seat`` in play order: its 下家, or the next round's wind."""
    return SEATS[(SEATS.index(seat) + 1) % 4]


def _distance(discarder: str, seat: str) -> int:
    """1 for the discarder's 下家, 2 for the seat opposite, 3 for its 上家."""
    return (SEATS.index(seat) - SEATS.index(discarder)) % 4


def _claim_reason(rule: str, lang: str, discarder: str, seat: str = "", kind: str = "",
                  rest: list[tuple[str, str]] | None = None, winners: list[str] | None = None) -> str:
    zh = lang == "zh"
    if rule == "none":
        nxt = _next_seat(discarder)
        return (f"无人声明：{discarder} 打出的牌无人要，轮到下家 {nxt} 摸牌" if zh else
                f"no claims: nobody takes {discarder}'s discard; {nxt} draws next")
    rest = rest or []
    others_en = ", ".join(f"{s} {k}" for s, k in rest)
    others_zh = "、".join(f"{s}{_CLAIM_ZH[k]}" for s, k in rest)
    if rule == "intercept":
        names = ", ".join(winners or [])
        names_zh = "、".join(winners or [])
        return (f"{names_zh} 都能胡，一炮只许一家胡（截胡）：按出牌者 {discarder} 之后的顺序，{seat} 最先，由 {seat} 胡"
                if zh else
                f"{names} can each win, but one discard makes one winner (截胡): {seat} comes first "
                f"in play order after the discarder {discarder}")
    if rule == "win":
        if rest:
            return (f"{seat} 胡牌，胡优先于碰、杠、吃（{others_zh}）" if zh else
                    f"{seat} wins on the discard: a win comes before pung, kong and chow ({others_en})")
        return f"{seat} 胡 {discarder} 打出的牌" if zh else f"{seat} wins on {discarder}'s discard"
    if rule == "pung_kong":
        verb_zh = _CLAIM_ZH[kind]
        if rest:
            return (f"{seat}{verb_zh}，碰、杠优先于吃（{others_zh}）" if zh else
                    f"{seat} {kind}s the discard: pung and kong come before chow ({others_en})")
        return (f"{seat}{verb_zh} {discarder} 打出的牌" if zh else f"{seat} {kind}s {discarder}'s discard")
    return (f"{seat} 是 {discarder} 的下家，吃这张牌" if zh else
            f"{seat}, the seat after {discarder}, chows the discard")


# --------------------------------------------------------------------------------------------
# Levels and the escape penalty.

def levels() -> dict[str, object]:
    """The level table of 000 (456游戏, "积分与级别设置"), as in docs/rules.md §8.

    ``{"source": "《“宁波麻将”游戏介绍》, 456游戏, 2010-9-19", "levels": [{"level": 0, "name": "科员",
    "name_en": "Clerk", "threshold": 0, "base_points": 1}, ...]}``: ``threshold`` is the 积分
    (points) a player needs for the level, ``base_points`` its 对局分 (the base points of a game).
    """
    return {
        "source": LEVEL_SOURCE,
        "levels": [
            {"level": lv, "name": name, "name_en": name_en, "threshold": threshold,
             "base_points": base}
            for lv, name, threshold, base, name_en in _LEVELS
        ],
    }


def escape_shares(base: int, rules: Rules) -> tuple[int, int]:
    """(what the leaver pays, what each other player gains) for an escape (逃跑) at ``base`` points
    (docs/rules.md §8): 24 × base (000, 002); where ``escape_penalty_to`` is ``house`` (000:
    "其他剩余玩家不得分") nobody at the table gains, where it is ``table`` (*interpretation*, a
    table with no house) each of the three others gains 8 × base."""
    penalty = ESCAPE_MULTIPLIER * base
    return penalty, (penalty // 3 if rules.escape_penalty_to == "table" else 0)


def escape(req: EscapeInput) -> dict[str, object]:
    """The penalty for leaving a game (逃跑/强退): 24 × base points (000, 002; docs/rules.md §8).

    Request: ``{"base_points": int ≥ 1}`` or ``{"level": 0-16}`` (the base points of that level
    of :func:`levels`), exactly one, and optional ``rules``.  Response: ``{"penalty": 24 ×
    base_points, "multiplier": 24, "base_points": n, "level": the level given or null, "to":
    escape_penalty_to, "each_other": n}``: the penalty is what the leaver loses on top of whatever
    it owes; ``each_other`` what each other player gains from it (:func:`escape_shares`: 0 where
    it goes to the house).
    """
    base, level = req.base_points, req.level
    if level is not None:
        base = _BASE_BY_LEVEL[level]
    assert base is not None, "an EscapeInput gives base_points or level"    # (the request schema: exactly one)
    penalty, each_other = escape_shares(base, req.rules)
    return {
        "penalty": penalty,
        "multiplier": ESCAPE_MULTIPLIER,
        "base_points": base,
        "level": level,
        "to": req.rules.escape_penalty_to,
        "each_other": each_other,
    }
