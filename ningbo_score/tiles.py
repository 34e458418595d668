"""Tiles: codes, indices and the three input forms of docs/api.md.

Internally a tile kind is an index: 0-8 ``1m``-``9m``, 9-17 ``1p``-``9p``, 18-26 ``1s``-``9s``,
27-30 the winds ``E S W N``, 31-33 the dragons ``C F P`` and 34-41 the flowers ``1f``-``8f``.
"""
from __future__ import annotations

import unicodedata

from .errors import Problem, ScoreError

CODES: tuple[str, ...] = tuple(
    [f"{r}{s}" for s in "mps" for r in range(1, 10)] + list("ESWNCFP") + [f"{r}f" for r in range(1, 9)]
)
INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}

N_KINDS = 34          # kinds that can be in a hand's sets (no flowers)
EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30     # the first honour: the suited kinds are those below EAST
RED, GREEN, WHITE = 31, 32, 33
DRAGONS = (RED, GREEN, WHITE)
FLOWER0 = 34
#: how many tiles of each kind the set holds (docs/rules.md §1): 4, or 1 of a flower
COPIES = tuple(1 if k >= FLOWER0 else 4 for k in range(len(CODES)))
#: the tiles a wall may still give after the deal: the set's 144 less the 52 dealt
MAX_LIVE_TILES = 144 - 52

#: the seats (and winds) in play order, E the dealer; a seat's number is its place here (E = 0)
SEATS = ("E", "S", "W", "N")
SEAT_INDEX = {s: i for i, s in enumerate(SEATS)}
#: each seat's Chinese name, as the messages write it
SEAT_ZH = {"E": "东", "S": "南", "W": "西", "N": "北"}

# suit bits used for flush checks: m, p, s, honours
SUIT_BIT = tuple([1] * 9 + [2] * 9 + [4] * 9 + [8] * 7)


def is_suited(k: int) -> bool:
    return k < EAST


def is_flower(k: int) -> bool:
    return k >= FLOWER0


def rank(k: int) -> int:
    """1..9 for suited tiles."""
    return k % 9 + 1


def wind_tile(seat: int) -> int:
    return EAST + seat


def upper(seat: int) -> int:
    """The seat before ``seat`` in play order (its 上家)."""
    return (seat + 3) % 4


def next_kind(k: int) -> int:
    """The kind after k for the `indicator_and_next` rule (docs/rules.md §2).

    9 wraps to 1 within a suit; E→S→W→N→E and C→F→P→C (*interpretation*).
    """
    if is_suited(k):
        return k - 8 if rank(k) == 9 else k + 1
    if k <= NORTH:
        return EAST + (k - EAST + 1) % 4
    return RED + (k - RED + 1) % 3


_NUM = "一二三四五六七八九"
SUIT_ZH = {"万": "m", "萬": "m", "饼": "p", "餅": "p", "筒": "p", "条": "s", "條": "s", "索": "s"}
ALIASES: dict[str, int] = {}
for _i, _n in enumerate(_NUM):
    for _zh, _s in SUIT_ZH.items():
        ALIASES[_n + _zh] = INDEX[f"{_i + 1}{_s}"]
for _names, _code in (
    ("东 東 东风 東風", "E"), ("南 南风 南風", "S"), ("西 西风 西風", "W"), ("北 北风 北風", "N"),
    ("中 红中 紅中", "C"), ("发 發 发财 發財", "F"), ("白 白板", "P"),
    ("春", "1f"), ("夏", "2f"), ("秋", "3f"), ("冬", "4f"),
    ("梅", "5f"), ("兰 蘭", "6f"), ("竹", "7f"), ("菊", "8f"),
):
    for _name in _names.split():
        ALIASES[_name] = INDEX[_code]
# what a Chinese keyboard gives as often: an Arabic digit and the suit's character (1万, 5筒, 9条)
for _i in range(9):
    for _zh, _s in SUIT_ZH.items():
        ALIASES[f"{_i + 1}{_zh}"] = INDEX[f"{_i + 1}{_s}"]
_SINGLE: dict[str, int] = {**INDEX, **ALIASES}   # what one array element or single field may be
_MAX_ALIAS = max(len(a) for a in ALIASES)


def _bad(path: str, en: str, zh: str) -> ScoreError:
    return ScoreError([Problem("invalid_request", path, en, zh)])


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _parse_compact(text: str, path: str, problems: list[Problem]) -> list[int]:
    """A compact string's tiles (problems appended): a plain one by :func:`compact_or_none`,
    any other by :func:`_read_compact`."""
    plain = compact_or_none(text)
    return plain if plain is not None else _read_compact(text, path, problems)


#: the suit of a digit in a compact string: a letter, or a Chinese suit's character (123万)
_SUIT_OF: dict[str, str] = {"m": "m", "p": "p", "s": "s", "f": "f", **SUIT_ZH}
#: tenhou's honour digits (1z-7z), a near miss of the letters
_TENHOU_HONORS = "ESWNPFC"


def _out_of_range(suit: str) -> tuple[str, str]:
    """Why a digit is no tile of ``suit`` (a letter of :data:`_SUIT_OF`'s values), en and zh."""
    if suit == "f":
        return "the flowers are 1f to 8f", "花牌是 1f 到 8f"
    return "a suit tile's number is 1 to 9", "数牌的点数是 1 到 9"


def _near(text: str) -> str | None:
    """What a near miss of one tile (``1M``, ``e``, ``５万``, tenhou's ``5z``, `` 1m``) most likely
    meant, as a code or name the reader takes; None if nothing is near."""
    for form in (text, unicodedata.normalize("NFKC", text)):
        t = form.strip()
        if not t:
            continue
        for cand in (t, t[:-1] + t[-1].lower(), t.upper(), t.lower()):
            if cand in _SINGLE:
                return cand
        if len(t) == 2 and t[1] in "zZ" and "1" <= t[0] <= "7":
            return _TENHOU_HONORS[int(t[0]) - 1]
    return None


def _why_not_a_tile(text: str) -> tuple[str, str]:
    """Why the string ``text``, given for one tile, is none: en and zh."""
    shown = _show(text)
    near = _near(text)
    if near is not None:
        return f"unknown tile {shown}: did you mean {near!r}?", f"牌 {shown} 不存在：是不是 {near!r}？"
    t = unicodedata.normalize("NFKC", text).strip()
    found: list[Problem] = []
    several = _read_compact(t, "", found) if 1 < len(t) <= 64 else []
    if not found and len(several) > 1:
        return (f"{shown} is {len(several)} tiles, not one: give each tile on its own",
                f"{shown} 是 {len(several)} 张牌，不是一张：每张牌分开写")
    if t[:-1].isdigit() and t[:-1].isascii() and t[-1:] in _SUIT_OF:      # 10m, 0p, 9f
        en, zh = _out_of_range(_SUIT_OF[t[-1]])
        return f"{shown} is no tile: {en}", f"{shown} 不是牌：{zh}"
    return f"unknown tile {shown}", f"牌 {shown} 不存在"


def _readable(text: str) -> bool:
    """Does ``text`` read as a compact string with no problem?"""
    found: list[Problem] = []
    _read_compact(text, "", found)
    return not found


def _read_compact(text: str, path: str, problems: list[Problem]) -> list[int]:
    """Every form of compact string, character by character, saying what is wrong."""
    out: list[int] = []
    found: list[Problem] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if "0" <= ch <= "9":
            j = i
            digits = ""
            while j < n and ("0" <= text[j] <= "9" or text[j].isspace()):
                if not text[j].isspace():      # white space is ignored, even between digits
                    digits += text[j]
                j += 1
            letter = text[j] if j < n else ""
            suit = _SUIT_OF.get(letter)
            run = digits + letter
            if suit is None and letter:
                lower = letter.lower()
                near = (digits + lower if lower in "mpsf" and all(d + lower in INDEX for d in digits) else
                        "".join(_TENHOU_HONORS[int(d) - 1] for d in digits)
                        if letter in "zZ" and all("1" <= d <= "7" for d in digits) else None)
                if near is not None:
                    found.append(Problem(
                        "invalid_request", path, f"{run!r} at character {i + 1}: did you mean {near!r}?",
                        f"第 {i + 1} 个字符处的 {run!r}：是不是 {near!r}？"))
                    i = j + 1
                    continue
            if suit is None:
                found.append(Problem(
                    "invalid_request", path,
                    f"digits {digits!r} at character {i + 1} need a suit after them: m, p, s or f",
                    f"第 {i + 1} 个字符处的数字 {digits!r} 后面需要花色：m、p、s、f 或 万、筒、条"))
                i = j if j > i else i + 1
                continue
            if any(d + suit not in INDEX for d in digits):
                en, zh = _out_of_range(suit)
                found.append(Problem("invalid_request", path, f"{run!r} at character {i + 1}: {en}",
                                     f"第 {i + 1} 个字符处的 {run!r}：{zh}"))
            else:
                out.extend(INDEX[d + suit] for d in digits)
            i = j + 1
            continue
        if ch in "ESWNCFP":
            out.append(INDEX[ch])
            i += 1
            continue
        for size in range(min(_MAX_ALIAS, n - i), 0, -1):
            k = ALIASES.get(text[i:i + size])
            if k is not None:
                out.append(k)
                i += size
                break
        else:
            near = _near(ch)
            if near is not None:
                found.append(Problem(
                    "invalid_request", path, f"unknown tile {ch!r} at character {i + 1}: did you mean {near!r}?",
                    f"第 {i + 1} 个字符处的 {ch!r} 不是牌：是不是 {near!r}？"))
            else:
                found.append(Problem(
                    "invalid_request", path, f"unknown tile {ch!r} at character {i + 1}",
                    f"第 {i + 1} 个字符处的 {ch!r} 不是牌"))
            i += 1
    if found:
        wide = unicodedata.normalize("NFKC", text)
        if wide != text and _readable(wide):           # full-width digits or letters (NFKC is idempotent)
            shown = _show(wide)
            found = [Problem("invalid_request", path, f"full-width characters: did you mean {shown}?",
                             f"含有全角字符：是不是 {shown}？")]
        problems.extend(found)
    return out


# The usual compact string (digits and a suit letter, honour letters, white space) is read by
# compact_or_none in one pass; anything else (names, white space between digits, mistakes) is left
# to _read_compact, which reads every form and says what is wrong.  The plain strings are exactly
# those this regular expression matches in full (tests/library/test_tiles_and_options.py):
#     (?:\s*(?:[1-9]+[mps]|[1-8]+f|[ESWNCFP]))*\s*
# (\s, like str.isspace, is any Unicode white space).  tiles.pxd gives the loop C types.


def compact_or_none(text: str) -> list[int] | None:
    """A plain compact string's tiles, as :func:`_read_compact` reads them; None if the string
    is not plain."""
    s = text if type(text) is str else str.__str__(text)     # a str subclass: its characters
    out: list[int] = []
    i, n = 0, len(s)
    while i < n:
        ch = s[i]
        if "1" <= ch <= "9":
            j = i + 1                       # the run of digits is s[i:j], its suit s[j]
            while j < n and "1" <= s[j] <= "9":
                j += 1
            if j == n:
                return None
            suit = s[j]
            if suit == "m":
                first = 0                   # the index of 1m
            elif suit == "p":
                first = 9
            elif suit == "s":
                first = 18
            elif suit == "f":
                first = FLOWER0
            else:
                return None
            while i < j:
                d = ord(s[i]) - 49          # "1" is 0
                if d == 8 and suit == "f":  # no 9f
                    return None
                out.append(first + d)
                i += 1
            i = j + 1
        elif ch in "ESWNCFP":
            out.append(INDEX[ch])
            i += 1
        elif ch.isspace():
            i += 1
        else:
            return None
    return out


def tile_indices(value: object, path: str, problems: list[Problem]) -> list[int]:
    """A tile list (array of codes/names or a compact string) as indices; problems appended."""
    if isinstance(value, str):
        return _parse_compact(value, path, problems)
    if isinstance(value, list):
        try:
            return [_SINGLE[item] for item in value]
        except (KeyError, TypeError):
            pass                          # say which element is wrong below
        out = []
        for i, item in enumerate(value):
            k = _SINGLE.get(item) if isinstance(item, str) else None
            if k is None:
                if isinstance(item, str):
                    problems.append(Problem("invalid_request", f"{path}.{i}", *_why_not_a_tile(item)))
                else:
                    problems.append(Problem(
                        "invalid_request", f"{path}.{i}", "a tile must be a string",
                        "牌必须是字符串"))
            else:
                out.append(k)
        return out
    problems.append(Problem(
        "invalid_request", path, "must be an array of tiles or a compact string like \"123m 456p EE\"",
        "必须是牌的数组或形如 \"123m 456p EE\" 的字符串"))
    return []


def tile_index(value: object, path: str, problems: list[Problem]) -> int | None:
    """One tile (code or Chinese name) as an index; problems appended."""
    k = _SINGLE.get(value) if isinstance(value, str) else None
    if k is None:
        if isinstance(value, str):
            problems.append(Problem("invalid_request", path, *_why_not_a_tile(value)))
        else:
            problems.append(Problem("invalid_request", path, "must be one tile code or name",
                                    "必须是一张牌的代码或名称"))
    return k


def parse_tiles(value: object, path: str = "tiles") -> list[str]:
    """Parse any of the three input forms into codes; raises ScoreError (400) on a bad tile."""
    problems: list[Problem] = []
    out = tile_indices(value, path, problems)
    if problems:
        raise ScoreError(problems)
    return [CODES[k] for k in out]


def parse_tile(value: object, path: str = "tile") -> str:
    """Parse one tile code or Chinese name; raises ScoreError (400)."""
    problems: list[Problem] = []
    k = tile_index(value, path, problems)
    if problems or k is None:            # (k is None exactly when a problem was appended)
        raise ScoreError(problems)
    return CODES[k]
