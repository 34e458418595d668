"""The ``ningbo-score`` command: score a hand, list its waits, analyse it, replay a hand's log, list
what each seat may do after a log's prefix (``actions``), or serve the HTTP API.

A hand is given either as a compact string of its concealed tiles (docs/api.md: ``"123m 456p EE C"``,
Chinese names too) with options for the rest, or as a JSON file holding a ``/v1/score`` (or
``/v1/waits``) request body, ``-`` for standard input.  Only the library's public calls are used
(:func:`ningbo_score.score`, :func:`ningbo_score.waits`, ``ningbo_score.analyze`` where the
library has it), so the answers are those of the HTTP API.
"""
from __future__ import annotations

import argparse
import errno
import importlib.util
import json
import os
import sys
import typing
import unicodedata
from pathlib import Path
from typing import Any

import ningbo_score
from ningbo_score.answers import (AnalyzeAnswer, AnalyzedWait, ProblemBody, ReplayAnswer, ScoreAnswer, ScoredItem,
                                  SessionAnswer, SessionHandResult, Wait, WaitsAnswer, WaitValue)
from ningbo_score.tiles import SEATS

#: Exit statuses (also in ``ningbo-score --help``).
OK, NOT_ELIGIBLE, USAGE, REFUSED, UNAVAILABLE = 0, 1, 2, 3, 4
EXIT_CODES = f"""exit status:
  {OK}  done: the hand is scored and may be won / has waits / the server stopped cleanly
  {NOT_ELIGIBLE}  the answer is no: the hand scores below the minimum 台 (not eligible), or no
     tile completes it
  {USAGE}  usage error: a bad option, an unreadable file
  {REFUSED}  the hand is refused, as the HTTP API would with a 4xx problem (not JSON, an
     impossible hand, not a win...): the problem is printed on standard error
  {UNAVAILABLE}  the command can't run here (serve outside a checkout of the service, or
     without its requirements)
"""

#: ``ningbo-score --help``'s examples (tests/library/test_cli.py runs each as written, hand.json being
#: docs/api.md's worked example)
EXAMPLES = (
    "ningbo-score score '234678m 99s' --win 4m --seat S --caishen 5p \\\n"
    "      --meld pung:CCC:E --meld kong:1111s:concealed --flowers 2f --claims W=1",
    "ningbo-score score hand.json --lang zh",
    "ningbo-score --lang zh score '2万3万4万 6万7万8万 9条9条' --win 4万 --seat S \\\n"
    "      --meld pung:中中中:E --meld kong:1111条:concealed --flowers 夏",
    "ningbo-score score hand.json --json | head -c 40",
    "ningbo-score waits '23m 678m 99s' --seat S --meld pung:CCC:E --meld kong:1111s:concealed",
    "ningbo-score analyze '23m 678m 99s 5p' --seat S --meld pung:CCC:E --meld kong:1111s:concealed",
    "ningbo-score settle session.json",
    "ningbo-score actions log.json --for N",
    "ningbo-score serve --port 8000",
)

WIN_FLAGS = ("kong_replacement", "last_tile", "heavenly", "earthly", "discarded_caishen")

TEXT = {
    "en": {"tai": "台", "counted": "counted", "minimum": "minimum", "eligible": "may be won",
           "not_eligible": "not eligible", "points": "points", "payments": "payments", "net": "net",
           "waits": "waits", "none": "no tile completes this hand", "unseen": "unseen",
           "self_draw": "self-draw", "discard": "on a discard from {seat}", "any_tile": "any tile completes it",
           "refused": "refused", "tile": "tile", "tiles": "{n} tiles", "shanten": "shanten", "tenpai": "tenpai",
           "won": "a winning shape", "improving": "improving", "discard_col": "discard",
           "eligible_unseen": "winning unseen", "discard_one": "discard one of"},
    "zh": {"tai": "台", "counted": "计入起胡", "minimum": "起胡", "eligible": "可以胡",
           "not_eligible": "不够起胡", "points": "分", "payments": "付分", "net": "输赢",
           "waits": "听牌", "none": "没有牌能胡", "unseen": "未见",
           "self_draw": "自摸", "discard": "{seat} 放冲", "any_tile": "任何牌都能胡",
           "refused": "请求被拒", "tile": "牌", "tiles": "{n} 张", "shanten": "向听", "tenpai": "听牌",
           "won": "已成胡牌形", "improving": "进张", "discard_col": "打出",
           "eligible_unseen": "能胡的未见张数", "discard_one": "打出一张"},
}


def default_language() -> str:
    """``zh`` when the locale (LC_ALL, LC_MESSAGES or LANG, the first one set) is Chinese."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


class UsageError(Exception):
    """A problem with the command line or its files (exit status 2), in English and Chinese."""

    def __init__(self, en: str, zh: str) -> None:
        super().__init__(en)
        self.zh = zh

    def message(self, lang: str) -> str:
        return self.zh if lang == "zh" else str(self)


#: Python's reasons for refusing a JSON document (json.decoder), in Chinese
_JSON_REASONS_ZH = {
    "Expecting value": "此处应为一个 JSON 值",
    "Expecting property name enclosed in double quotes": "此处应为双引号括起的键名",
    "Expecting ':' delimiter": "此处应为 ':'",
    "Expecting ',' delimiter": "此处应为 ','",
    "Extra data": "文档结束后还有多余的内容",
    "Unterminated string starting at": "字符串没有结束",
    "Invalid control character at": "字符串中有未转义的控制字符",
    "Invalid \\escape": "无效的转义",
    "Invalid \\uXXXX escape": "无效的 \\u 转义",
    "Unexpected UTF-8 BOM (decode using utf-8-sig)": "不支持 UTF-8 字节顺序标记",
}
_OS_ERRORS_ZH = {errno.ENOENT: "文件不存在", errno.EACCES: "没有读取权限", errno.EISDIR: "这是一个目录"}


# --- building a request body -------------------------------------------------------------------

def meld(text: str) -> dict[str, Any]:
    """``TYPE:TILES[:FROM]`` with ``concealed`` or ``added`` as an extra part of a kong:
    ``pung:CCC:E``, ``chow:123m:N``, ``kong:1111s:concealed``, ``kong:5555p:added:W``."""
    parts = text.split(":")
    if len(parts) < 2 or parts[0] not in ("chow", "pung", "kong"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected TYPE:TILES[:FROM], TYPE chow, pung or kong")
    out: dict[str, Any] = {"type": parts[0], "tiles": parts[1]}
    for part in parts[2:]:
        if part in ("concealed", "added"):
            out[part] = True
        elif part in SEATS:
            out["from"] = part
        else:
            raise argparse.ArgumentTypeError(f"{text!r}: {part!r} is neither a seat (E S W N) nor concealed/added")
    return out


def claims(text: str) -> dict[str, int]:
    """``E=0,W=1``: melds each seat claimed from the winner's discards."""
    out = {}
    for part in filter(None, text.replace(" ", ",").split(",")):
        seat, _, count = part.partition("=")
        if seat not in SEATS or not count.isdigit():
            raise argparse.ArgumentTypeError(f"{part!r}: expected SEAT=COUNT, e.g. W=1")
        out[seat] = int(count)
    return out


def read_json(source: str) -> Any:
    """The JSON body in a file (``-``: standard input).  Not JSON: refused like the HTTP API."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = ("不是 UTF-8 文本" if isinstance(err, UnicodeDecodeError)
               else _OS_ERRORS_ZH.get(err.errno or 0, "无法读取"))
        raise UsageError(f"{source}: {err}", f"{source}：{why}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        name, name_zh = ("standard input", "标准输入") if source == "-" else (source, source)
        reason = _JSON_REASONS_ZH.get(err.msg, "语法错误")
        raise ningbo_score.ScoreError.one(
            "malformed_json", "", f"{name} is not JSON: {err}",
            f"{name_zh} 不是 JSON（第 {err.lineno} 行第 {err.colno} 列）：{reason}") from None


def is_json_source(hand: str) -> bool:
    return hand == "-" or hand.endswith(".json") or Path(hand).is_file()


def request_body(args: argparse.Namespace, waiting: bool) -> Any:
    """The request body: the JSON file as it is, or one made from the compact string and the
    options (only the options given: the library applies its defaults to the others)."""
    if is_json_source(args.hand):
        return read_json(args.hand)
    hand: dict[str, Any] = {"concealed": args.hand}
    if not waiting:
        if args.win is None:
            raise UsageError("--win TILE is required with a compact string (the winning tile, one of the concealed)",
                             "给出暗牌字符串时必须用 --win 指定胡的牌（暗牌中的一张）")
        hand["winning_tile"] = args.win
    if args.meld:
        hand["melds"] = args.meld
    if args.flowers:
        hand["flowers"] = args.flowers
    body: dict[str, Any] = {"seat_wind": args.seat, "round_wind": args.round, "hand": hand}
    if args.rules:
        body["rules"] = args.rules
    if args.caishen and args.caishen_kinds is not None:
        raise UsageError("give --caishen (the indicator) or --caishen-kinds, not both",
                         "--caishen（翻出的指示牌）与 --caishen-kinds 只能给出一个")
    if args.caishen:
        body["caishen"] = {"indicator": args.caishen}
    elif args.caishen_kinds is not None:
        body["caishen"] = {"kinds": args.caishen_kinds if args.caishen_kinds.strip() else []}
    win: dict[str, Any] = {} if waiting else {"by": args.by}
    if args.win_from:
        win["from"] = args.win_from
    if not waiting:
        if args.kong_fed_by:
            win["kong_fed_by"] = args.kong_fed_by
        for flag in WIN_FLAGS:
            if getattr(args, flag):
                win[flag] = True
    if win or not waiting:
        body["win"] = win
    if args.claims:
        body["claims_from_winner"] = args.claims
    if not waiting and args.base_points is not None:
        body["base_points"] = args.base_points
    return body


# --- output ------------------------------------------------------------------------------------

def print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def item_name(item: ScoredItem, lang: str) -> str:
    return item["name"] if lang == "zh" else f"{item['name_en']} ({item['name']})"


def print_score(result: ScoreAnswer, lang: str) -> None:
    t = TEXT[lang]
    verdict = t["eligible"] if result["eligible"] else t["not_eligible"]
    print(f"{result['tai']} {t['tai']} ({t['counted']} {result['counted_tai']}, {t['minimum']} {result['min_tai']}): "
          f"{verdict}")
    for item in result["items"]:
        tiles = f" [{' '.join(item['tiles'])}]" if item.get("tiles") else ""
        print(f"  {item['tai']:>3}  {item_name(item, lang)}{tiles}")
    for reason in result.get("reasons", []):
        print(f"  - {reason if isinstance(reason, str) else json.dumps(reason, ensure_ascii=False)}")
    print(f"{t['points']}: {result['points']}")
    if result["payments"]:
        print(f"{t['payments']}: " + ", ".join(
            f"{p['from']}→{p['to']} {p['amount']}" + (f" (×{p['multiplier']})" if p["multiplier"] != 1 else "")
            for p in result["payments"]))
    net = typing.cast("dict[str, int]", result["net"])
    print(f"{t['net']}: " + "  ".join(f"{seat} {net[seat]:+d}" for seat in SEATS))


def outcome(result: ScoreAnswer | WaitValue | ProblemBody, lang: str) -> str:
    if "code" in result:                       # a problem (a score has no code)
        return f"{TEXT[lang]['refused']}: {typing.cast('ProblemBody', result)['code']}"
    value = result
    verdict = TEXT[lang]["eligible"] if value["eligible"] else TEXT[lang]["not_eligible"]
    return f"{value['tai']} {TEXT[lang]['tai']}, {value['points']} ({verdict})"


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: 2 for each wide (CJK) character."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def print_table(header: list[str], rows: list[list[str]], indent: str = "  ") -> None:
    """Rows in aligned columns under their header (wide characters counted as two columns)."""
    widths = [max(display_width(row[i]) for row in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        cells = [cell + " " * (w - display_width(cell)) for cell, w in zip(row, widths, strict=True)]
        print((indent + "  ".join(cells)).rstrip())


def wait_rows(waits: list[Wait] | list[AnalyzedWait], lang: str) -> list[list[str]]:
    rows = []
    for each in waits:
        w = typing.cast("Wait", each)            # (an analysed wait: a wait without any_tile's fields)
        rows.append([" ".join(w.get("same_for", [w["tile"]])), str(w.get("unseen_total", w["unseen"])),
                     outcome(w["self_draw"], lang), outcome(w["discard"], lang)])
    return rows


def wait_header(discard_from: str, lang: str) -> list[str]:
    t = TEXT[lang]
    return [t["tile"], t["unseen"], t["self_draw"], t["discard"].format(seat=discard_from)]


def print_waits(result: WaitsAnswer, lang: str) -> None:
    t = TEXT[lang]
    if not result["waits"]:
        print(t["none"])
        return
    print(f"{t['waits']}: {' '.join(result['tiles'])}  ({t['unseen']} {result['unseen_total']})"
          + (f"; {t['any_tile']}" if result["any_tile"] else ""))
    print_table(wait_header(result["discard_from"], lang), wait_rows(result["waits"], lang))


def shanten_text(shanten: int, lang: str) -> str:
    t = TEXT[lang]
    said = {-1: t["won"], 0: t["tenpai"]}.get(shanten)
    return f"{t['shanten']} {shanten}" + (f" ({said})" if said else "")


def print_analysis(result: AnalyzeAnswer, lang: str) -> None:
    """``/v1/analyze``'s answer as text: before a draw, the shanten, the improving tiles and (at
    tenpai) the waits' table; after it, one row per discard, best first."""
    t = TEXT[lang]
    head = f"{t['tiles'].format(n=result['tiles'])}: {shanten_text(result['shanten'], lang)}"
    if result["tiles"] == 14:
        print(f"{head}; {t['discard_one']}:")
        rows = [[d["discard"], str(d["shanten"]), " ".join(i["tile"] for i in d["improving"]),
                 str(d["improving_unseen"]), str(d["eligible_unseen"]) if "eligible_unseen" in d else ""]
                for d in result["discards"]]
        print_table([t["discard_col"], t["shanten"], t["improving"], t["unseen"], t["eligible_unseen"]], rows)
        return
    print(head)
    improving = " ".join(i["tile"] for i in result["improving"])
    print(f"{t['improving']}: {improving}  ({t['unseen']} {result['improving_unseen']})")
    if result.get("waits"):
        print_table(wait_header(result["discard_from"], lang), wait_rows(result["waits"], lang))


def print_problem(err: ningbo_score.ScoreError, lang: str) -> None:
    problem = err.to_problem(lang)
    print(f"ningbo-score: {problem['title']} ({problem['code']}, HTTP {problem['status']})", file=sys.stderr)
    for path, messages in problem.get("errors", {"": [problem["detail"]]}).items():
        for message in messages:
            print(f"  {path}: {message}" if path and path != "$" else f"  {message}", file=sys.stderr)


# --- commands ----------------------------------------------------------------------------------

def cmd_score(args: argparse.Namespace) -> int:
    result = ningbo_score.score(request_body(args, waiting=False), args.lang)
    args.status = OK if result["eligible"] else NOT_ELIGIBLE     # (kept if the reader goes: main)
    if args.json:
        print_json(result)
    else:
        print_score(result, args.lang)
    return OK if result["eligible"] else NOT_ELIGIBLE


def cmd_waits(args: argparse.Namespace) -> int:
    result = ningbo_score.waits(request_body(args, waiting=True), args.lang)
    args.status = OK if result["waits"] else NOT_ELIGIBLE
    if args.json:
        print_json(result)
    else:
        print_waits(result, args.lang)
    return OK if result["waits"] else NOT_ELIGIBLE


def cmd_analyze(args: argparse.Namespace) -> int:
    result = ningbo_score.analyze(request_body(args, waiting=True), args.lang)
    if args.json:
        print_json(result)
    else:
        print_analysis(result, args.lang)
    return OK


#: the words of ``settle``'s table
SETTLE_TEXT = {
    "en": {"hand": "hand", "round": "round", "dealer": "dealer", "totals": "totals", "transfers": "transfers",
           "none": "nobody owes anything", "next": "next: {dealer} deals, round {wind}",
           "self_draw": "{winner} self-draws", "discard": "{winner} on {from_}'s discard",
           "robbing_kong": "{winner} robs {from_}'s kong", "tai": ", {tai} 台", "house": "owed to the house",
           "draw": "draw", "net": "scored elsewhere", "penalty": "{player} leaves (penalty)",
           "failed": "hand {index} is refused"},
    "zh": {"hand": "局", "round": "圈", "dealer": "庄家", "totals": "合计", "transfers": "转账",
           "none": "无人欠款", "next": "下一局：{dealer} 坐庄，圈风 {wind}",
           "self_draw": "{winner} 自摸", "discard": "{winner} 胡 {from_} 放冲",
           "robbing_kong": "{winner} 抢 {from_} 的杠",
           "tai": " {tai} 台", "house": "付给平台", "draw": "流局", "net": "另行计分",
           "penalty": "{player} 逃跑（罚分）", "failed": "第 {index} 局被拒"},
}


def hand_summary(hand: SessionHandResult, players: list[str], lang: str) -> str:
    """One hand of a settled session in a few words (its players by position in ``players``)."""
    t = SETTLE_TEXT[lang]
    if hand["outcome"] == "win":
        source = None if hand["from"] is None else players[hand["from"]]
        winner = players[typing.cast(int, hand["winner"])]
        return t[str(hand["by"])].format(winner=winner, from_=source) + t["tai"].format(tai=hand["tai"])
    if hand["outcome"] == "penalty":
        return t["penalty"].format(player=players[min(range(4), key=hand["net"].__getitem__)])
    return t[hand["outcome"]]


def print_session(result: SessionAnswer, lang: str) -> None:
    """A settled session: a row per hand (its net per player) and the totals, then what is owed to
    the house and the transfers."""
    t = SETTLE_TEXT[lang]
    players = result["players"]
    rows = [[str(h["index"]), h["round_wind"], players[h["dealer"]], hand_summary(h, players, lang)]
            + [f"{v:+d}" if v else "0" for v in h["net"]] for h in result["hands"]]
    rows.append([t["totals"], "", "", ""] + [f"{v:+d}" if v else "0" for v in result["totals"].values()])
    header = [t["hand"], t["round"], t["dealer"], ""] + players
    widths = [max(display_width(row[i]) for row in [header] + rows) for i in range(len(header))]
    for row in [header] + rows:
        cells = [c + " " * (w - display_width(c)) if i < 4 else " " * (w - display_width(c)) + c
                 for i, (c, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())
    if result["house"]:
        print(f"{t['house']}: " + ", ".join(f"{x['from']} {x['amount']}" for x in result["house"]))
    transfers = ", ".join(f"{x['from']} → {x['to']} {x['amount']}" for x in result["transfers"])
    print(f"{t['transfers']}: {transfers or t['none']}")
    print(t["next"].format(dealer=result["next"]["dealer"], wind=result["next"]["round_wind"]))


def cmd_settle(args: argparse.Namespace) -> int:
    try:
        result = ningbo_score.settle(read_json(args.session), args.lang)
    except ningbo_score.ScoreError as err:
        if "hand_index" in err.extra:
            print(f"ningbo-score: {SETTLE_TEXT[args.lang]['failed'].format(index=err.extra['hand_index'])}",
                  file=sys.stderr)
        raise
    if args.json:
        print_json(result)
    else:
        print_session(result, args.lang)
    return OK


def service_root(given: str | None) -> Path:
    """The checkout that holds the service (app.py and gunicorn.conf.py): --root, else
    NINGBO_SCORE_ROOT, else the current directory, else the one above this package (an editable
    install or a checkout)."""
    candidates = [given] if given else [os.environ.get("NINGBO_SCORE_ROOT") or None, os.getcwd(),
                                        str(Path(ningbo_score.__file__).resolve().parent.parent)]
    for candidate in filter(None, candidates):
        root = Path(candidate)
        if (root / "app.py").is_file() and (root / "gunicorn.conf.py").is_file():
            return root
    raise FileNotFoundError(
        "the HTTP service is not part of the installed package: run this in a checkout of "
        "ningbo-score (or give --root DIR or NINGBO_SCORE_ROOT), with its requirements.txt installed")


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        root = service_root(args.root)
    except FileNotFoundError as err:
        print(f"ningbo-score: {err}", file=sys.stderr)
        return UNAVAILABLE
    if importlib.util.find_spec("gunicorn") is None:
        print("ningbo-score: gunicorn is not installed: pip install --require-hashes -r requirements.txt",
              file=sys.stderr)
        return UNAVAILABLE
    env = dict(os.environ)
    for name, value in (("HOST", args.host), ("PORT", args.port), ("WEB_CONCURRENCY", args.workers)):
        if value is not None:
            env[name] = str(value)
    os.chdir(root)
    # the same command as `make run` (service/__main__.py: the settings, then gunicorn with
    # gunicorn.conf.py), reading HOST, PORT, WEB_CONCURRENCY
    os.execve(sys.executable, [sys.executable, "-m", "service"], env)


def add_hand_options(parser: argparse.ArgumentParser, waiting: bool) -> None:
    parser.add_argument("hand", help="the concealed tiles as a compact string (" +
                        ("without the tile to wait for" if waiting else "the winning tile included") +
                        "), or a JSON file holding a /v1/" + ("waits" if waiting else "score") +
                        " body ('-': standard input); with a file, the options below are ignored")
    if not waiting:
        parser.add_argument("--win", metavar="TILE", help="the winning tile (required with a compact string)")
        parser.add_argument("--by", default="self_draw", choices=("self_draw", "discard", "robbing_kong"),
                            help="how the hand was won (default: self_draw)")
    parser.add_argument("--from", dest="win_from", choices=SEATS, metavar="SEAT",
                        help="the discarder or the robbed player" + ("" if not waiting else
                             " (default: the winner's 上家)"))
    parser.add_argument("--seat", default="E", choices=SEATS, help="the winner's seat wind (default: E, the dealer)")
    parser.add_argument("--round", default="E", choices=SEATS, help="the round wind (default: E)")
    parser.add_argument("--rules", metavar="PRESET", help="a preset id (default: the library's, ningbo)")
    parser.add_argument("--caishen", metavar="TILE", help="the caishen indicator")
    parser.add_argument("--caishen-kinds", metavar="TILES", help="the caishen kinds, given directly ('' for none)")
    parser.add_argument("--meld", action="append", type=meld, metavar="TYPE:TILES[:FROM]",
                        help="an exposed or concealed meld, repeatable: pung:CCC:E, chow:123m:N, "
                             "kong:1111s:concealed, kong:5555p:added:W")
    parser.add_argument("--flowers", metavar="TILES", help="flowers set aside, e.g. '2f 6f'")
    parser.add_argument("--claims", type=claims, metavar="SEAT=N,...",
                        help="melds each other seat claimed from the winner's discards (for 包), e.g. W=1")
    if not waiting:
        parser.add_argument("--kong-fed-by", choices=SEATS, metavar="SEAT", help="the seat whose discard made the kong")
        for flag in WIN_FLAGS:
            parser.add_argument(f"--{flag.replace('_', '-')}", action="store_true", help=f"win.{flag}")
        parser.add_argument("--base-points", type=int, metavar="N", help="对局分, 1 to 1,000,000 (default 1)")
    parser.add_argument("--json", action="store_true", help="print the API's JSON answer instead of text")
    add_lang_option(parser)


def add_lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang`` after the command and its argument too (``score hand.json --lang zh``, ``replay
    log.json --lang zh``); given before the command, as the top-level option, it is kept
    (SUPPRESS: no default here overwrites it)."""
    parser.add_argument("--lang", choices=("en", "zh"), default=argparse.SUPPRESS,
                        help="language of the output (as before the command)")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="ningbo-score", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Ningbo mahjong (宁波麻将) scoring: 台, points and payments, waits, and the HTTP API.",
        epilog="examples:\n" + "".join(f"  {example}\n" for example in EXAMPLES) + "\n" + EXIT_CODES)
    top.add_argument("--version", action="version",
                     version=f"ningbo-score {ningbo_score.__version__} "
                             f"({'compiled' if ningbo_score.USING_COMPILED else 'plain Python'})")
    top.add_argument("--lang", choices=("en", "zh"), default=None,
                     help="language of the output (default: from LC_ALL/LC_MESSAGES/LANG; zh for a Chinese locale)")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    score = commands.add_parser("score", help="score a won hand: 台 items, points, payments",
                                epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_hand_options(score, waiting=False)
    score.set_defaults(run=cmd_score)
    waits = commands.add_parser("waits", help="the tiles that complete a hand, each scored",
                                epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_hand_options(waits, waiting=True)
    waits.set_defaults(run=cmd_waits)
    analyze = commands.add_parser("analyze", help="how far a hand is from winning (where the library has it)",
                                  epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_hand_options(analyze, waiting=True)
    analyze.set_defaults(run=cmd_analyze)
    replay = commands.add_parser("replay", help="check a hand's log, derive its win and score it (POST /v1/replay)",
                                 epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_replay_options(replay)
    actions = commands.add_parser("actions", help="what each seat may do after a log's prefix "
                                                  "(POST /v1/table/actions)",
                                  epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_actions_options(actions)
    serve = commands.add_parser("serve", help="run the HTTP API (gunicorn with gunicorn.conf.py, as `make run`)",
                                epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--host", help="address to bind (default: $HOST, else 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default: $PORT, else 8000)")
    serve.add_argument("--workers", type=int, help="worker processes (default: $WEB_CONCURRENCY, else one a core)")
    serve.add_argument("--root", help="the checkout holding app.py and gunicorn.conf.py (default: see below)")
    serve.set_defaults(run=cmd_serve)
    settle = commands.add_parser("settle", help="settle a session: who deals, running totals, who pays whom",
                                 epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    settle.add_argument("session", help="a JSON file holding a /v1/sessions/settle body ('-': standard input)")
    settle.add_argument("--json", action="store_true", help="print the API's JSON answer instead of the table")
    add_lang_option(settle)
    settle.set_defaults(run=cmd_settle)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    args.lang = args.lang or default_language()
    try:
        status = int(args.run(args))
        sys.stdout.flush()                   # a closed pipe shows here, not at the exit
        return status
    except BrokenPipeError:
        # the reader has gone (`--json | head -c1`): stop quietly with the answer's status; what
        # is still buffered goes nowhere, so that the exit's flush does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(getattr(args, "status", OK))
    except UsageError as err:
        print(f"ningbo-score: {err.message(args.lang)}", file=sys.stderr)
        return USAGE
    except ningbo_score.ScoreError as err:
        print_problem(err, args.lang)
        return REFUSED


# --- replay (POST /v1/replay) ------------------------------------------------------------------

REPLAY_TEXT: dict[str, dict[str, Any]] = {
    "en": {"events": "events", "draw": "exhaustive draw (荒庄): nobody wins", "win": "{seat} wins",
           "by": {"self_draw": "by self-draw", "discard": "on {src}'s discard", "robbing_kong": "robbing {src}'s kong"},
           "derived": "derived", "event": "event", "events_of": "events", "next": "next hand",
           "dealer": "dealer position {d}, round wind {w}", "illegal": "event {i}: {reason}",
           "expected": "legal there", "state": "live tiles left {live}; tiles held {tiles}; last discard {last}"},
    "zh": {"events": "个事件", "draw": "荒庄：无人胡牌", "win": "{seat} 胡",
           "by": {"self_draw": "自摸", "discard": "捉 {src} 的冲", "robbing_kong": "抢 {src} 的杠"},
           "derived": "推得", "event": "事件", "events_of": "事件", "next": "下一局",
           "dealer": "庄家位置 {d}，圈风 {w}", "illegal": "第 {i} 个事件：{reason}",
           "expected": "此处可行", "state": "剩余活牌 {live}；各家手牌 {tiles}；上一张打出 {last}"},
}


def add_replay_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", help="a JSON file holding a POST /v1/replay body (- for standard input)")
    parser.add_argument("--json", action="store_true", help="print the JSON answer instead of an account")
    add_lang_option(parser)
    parser.set_defaults(run=cmd_replay)


def print_replay(result: ReplayAnswer, lang: str) -> None:
    t = REPLAY_TEXT[lang]
    print(f"{result['events']} {t['events']}: " + (t["draw"] if result["outcome"] == "draw" else
                                                   t["win"].format(seat=result["winner"])))
    if result["outcome"] == "win":
        # (a derived win's request and the events behind each field: JSON of any shape)
        request: dict[str, Any] = result["score_request"]
        evidence: dict[str, Any] = result["evidence"]
        win = request["win"]
        print("  " + t["by"][win["by"]].format(src=win.get("from", "")))
        print(f"  {t['derived']}:")
        for key, where in evidence.items():
            shown = where if isinstance(where, int) else ", ".join(str(i) for i in where)
            print(f"    {key} = {_derived_value(request, key)}  ({t['events_of']} {shown})")
        print_score(result["score"], lang)
    nxt = result["next"]
    print(f"{t['next']}: " + t["dealer"].format(d=nxt["dealer"], w=nxt["round_wind"]))


def _derived_value(request: dict[str, Any], key: str) -> str:
    """The value of a derived field of the score request, by its evidence key (``win.by``,
    ``hand.melds.0``, ``claims_from_winner.E``), shown briefly."""
    value: Any = request
    for part in key.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    if isinstance(value, dict):                      # a meld
        extra = [f"from {value['from']}"] if "from" in value else []
        extra += [flag for flag in ("concealed", "added") if value.get(flag)]
        return " ".join([value["type"], *value["tiles"], *extra])
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def print_refused_log(err: ningbo_score.ScoreError, lang: str) -> int:
    """A log's refusal (``replay`` and ``actions``): the problem, the event, what was legal there."""
    print_problem(err, lang)
    problem = err.to_problem(lang)
    if "reason" in problem:
        t = REPLAY_TEXT[lang]
        print("  " + t["illegal"].format(i=problem["event_index"], reason=problem["reason"]), file=sys.stderr)
        legal = ", ".join(f"{e.get('seat', '')} {e['t']}".strip() for e in problem["expected"])
        print(f"  {t['expected']}: {legal}", file=sys.stderr)
        print("  " + _state_line(problem["state"], t), file=sys.stderr)
    elif "event_index" in problem:
        print(f"  {REPLAY_TEXT[lang]['event']} {problem['event_index']}", file=sys.stderr)
    return REFUSED


def _state_line(state: dict[str, Any], t: dict[str, Any]) -> str:
    last = state["last_discard"]
    line: str = t["state"].format(
        live=state["live_tiles"], tiles=" ".join(f"{s} {n}" for s, n in state["tiles"].items()),
        last="-" if last is None else f"{last['seat']} {last['tile']} ({last['event_index']})")
    return line


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        result = ningbo_score.replay(read_json(args.log), args.lang)
    except ningbo_score.ScoreError as err:
        return print_refused_log(err, args.lang)
    if args.json:
        print_json(result)
    else:
        print_replay(result, args.lang)
    return NOT_ELIGIBLE if result["outcome"] == "win" and not result["score"]["eligible"] else OK


# --- actions (POST /v1/table/actions) ------------------------------------------------------------

ACTIONS_TEXT: dict[str, dict[str, str]] = {
    "en": {"head": "after {n} events: {phase}", "turn": ", {seat}'s turn", "none": "no actions",
           "priority": "priority {p}", "melds": "melds", "flowers": "flowers"},
    "zh": {"head": "{n} 个事件之后：{phase}", "turn": "，轮到 {seat}", "none": "无可行动作",
           "priority": "优先 {p}", "melds": "副露", "flowers": "花"},
}


def add_actions_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", help="a JSON file holding a POST /v1/table/actions body: a /v1/replay body whose "
                                    "events stop anywhere (- for standard input)")
    parser.add_argument("--for", dest="seat", choices=("E", "S", "W", "N"),
                        help="list only this seat's actions (overrides the body's `for`)")
    parser.add_argument("--json", action="store_true", help="print the JSON answer instead of a list")
    parser.set_defaults(run=cmd_actions)


def print_actions(result: ningbo_score.ActionsAnswer, lang: str) -> None:
    t = ACTIONS_TEXT[lang]
    turn = result["turn"]
    print(t["head"].format(n=result["events"], phase=result["phase"])
          + ("" if turn is None else t["turn"].format(seat=turn)))
    state = result["state"]
    print("  " + _state_line(dict(state), REPLAY_TEXT[lang]))
    for seat, melds in typing.cast("dict[str, list[dict[str, Any]]]", state["melds"]).items():
        shown = "; ".join(" ".join([m["type"], *m.get("tiles", ["?"] * 4)]) for m in melds)
        print(f"  {t['melds']} {seat}: {shown}")
    for seat, flowers in typing.cast("dict[str, list[str]]", state["flowers"]).items():
        print(f"  {t['flowers']} {seat}: {' '.join(flowers)}")
    if not result["actions"]:
        print("  " + t["none"])
    for a in result["actions"]:
        what = " ".join(p for p in (a.get("seat", "-"), a["t"], a.get("tile", ""), "".join(a.get("tiles", []))) if p)
        more = []
        if "priority" in a:
            more.append(t["priority"].format(p=a["priority"]))
        if "score" in a:
            sc = a["score"]
            more.append(f"{sc['by']}, {sc['tai']} 台, {sc['points']} points" if lang == "en" else
                        f"{sc['by']}，{sc['tai']} 台，{sc['points']} 分")
        print(f"  {what}" + (f"  ({'; '.join(more)})" if more else ""))


def cmd_actions(args: argparse.Namespace) -> int:
    body = read_json(args.log)
    if args.seat is not None and isinstance(body, dict):
        body = {**body, "for": args.seat}
    try:
        result = ningbo_score.actions(body, args.lang)
    except ningbo_score.ScoreError as err:
        return print_refused_log(err, args.lang)
    if args.json:
        print_json(result)
    else:
        print_actions(result, args.lang)
    return OK
