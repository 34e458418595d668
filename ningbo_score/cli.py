"""The ``ningbo-score`` command: score a hand, list its waits, analyse it, or serve the HTTP API.

A hand is given either as a compact string of its concealed tiles (docs/api.md: ``"123m 456p EE C"``,
Chinese names too) with options for the rest, or as a JSON file holding a ``/v1/score`` (or
``/v1/waits``) request body, ``-`` for standard input.  Only the library's public calls are used
(:func:`ningbo_score.score`, :func:`ningbo_score.waits`, ``ningbo_score.analyze`` where the
library has it), so the answers are those of the HTTP API.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import unicodedata
from pathlib import Path
from typing import Any

import ningbo_score
from ningbo_score import sessions

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

SEATS = ("E", "S", "W", "N")
WIN_FLAGS = ("kong_replacement", "last_tile", "heavenly", "earthly", "discarded_caishen")

TEXT = {
    "en": {"tai": "台", "counted": "counted", "minimum": "minimum", "eligible": "may be won",
           "not_eligible": "not eligible", "points": "points", "payments": "payments", "net": "net",
           "waits": "waits", "none": "no tile completes this hand", "unseen": "unseen",
           "self_draw": "self-draw", "discard": "on a discard from {seat}", "any_tile": "any tile completes it",
           "refused": "refused"},
    "zh": {"tai": "台", "counted": "计入起胡", "minimum": "起胡", "eligible": "可以胡",
           "not_eligible": "不够起胡", "points": "分", "payments": "付分", "net": "输赢",
           "waits": "听牌", "none": "没有牌能胡", "unseen": "未见",
           "self_draw": "自摸", "discard": "{seat} 放冲", "any_tile": "任何牌都能胡",
           "refused": "请求被拒"},
}


def default_language() -> str:
    """``zh`` when the locale (LC_ALL, LC_MESSAGES or LANG, the first one set) is Chinese."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


class UsageError(Exception):
    """A problem with the command line or its files (exit status 2)."""


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
        raise UsageError(f"{source}: {err}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        name = "standard input" if source == "-" else source
        raise ningbo_score.ScoreError.one(
            "malformed_json", "", f"{name} is not JSON: {err}", f"{name} 不是 JSON：{err}") from None


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
            raise UsageError("--win TILE is required with a compact string (the winning tile, one of the concealed)")
        hand["winning_tile"] = args.win
    if args.meld:
        hand["melds"] = args.meld
    if args.flowers:
        hand["flowers"] = args.flowers
    body: dict[str, Any] = {"seat_wind": args.seat, "round_wind": args.round, "hand": hand}
    if args.rules:
        body["rules"] = args.rules
    if args.caishen and args.caishen_kinds is not None:
        raise UsageError("give --caishen (the indicator) or --caishen-kinds, not both")
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


def item_name(item: dict[str, Any], lang: str) -> str:
    return item["name"] if lang == "zh" else f"{item['name_en']} ({item['name']})"


def print_score(result: dict[str, Any], lang: str) -> None:
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
    print(f"{t['net']}: " + "  ".join(f"{seat} {result['net'][seat]:+d}" for seat in SEATS))


def outcome(result: dict[str, Any], lang: str) -> str:
    if "code" in result:
        return f"{TEXT[lang]['refused']}: {result['code']}"
    verdict = TEXT[lang]["eligible"] if result["eligible"] else TEXT[lang]["not_eligible"]
    return f"{result['tai']} {TEXT[lang]['tai']}, {result['points']} ({verdict})"


def print_waits(result: dict[str, Any], lang: str) -> None:
    t = TEXT[lang]
    if not result["waits"]:
        print(t["none"])
        return
    print(f"{t['waits']}: {' '.join(result['tiles'])}  ({t['unseen']} {result['unseen_total']})"
          + (f"; {t['any_tile']}" if result["any_tile"] else ""))
    for wait in result["waits"]:
        tiles = " ".join(wait.get("same_for", [wait["tile"]]))
        print(f"  {tiles}  ({t['unseen']} {wait.get('unseen_total', wait['unseen'])})")
        print(f"      {t['self_draw']}: {outcome(wait['self_draw'], lang)}")
        print(f"      {t['discard'].format(seat=result['discard_from'])}: {outcome(wait['discard'], lang)}")


def print_problem(err: ningbo_score.ScoreError, lang: str) -> None:
    problem = err.to_problem(lang)
    print(f"ningbo-score: {problem['title']} ({problem['code']}, HTTP {problem['status']})", file=sys.stderr)
    for path, messages in problem.get("errors", {"": [problem["detail"]]}).items():
        for message in messages:
            print(f"  {path}: {message}" if path and path != "$" else f"  {message}", file=sys.stderr)


# --- commands ----------------------------------------------------------------------------------

def cmd_score(args: argparse.Namespace) -> int:
    result = ningbo_score.score(request_body(args, waiting=False), args.lang)
    if args.json:
        print_json(result)
    else:
        print_score(result, args.lang)
    return OK if result["eligible"] else NOT_ELIGIBLE


def cmd_waits(args: argparse.Namespace) -> int:
    result = ningbo_score.waits(request_body(args, waiting=True), args.lang)
    if args.json:
        print_json(result)
    else:
        print_waits(result, args.lang)
    return OK if result["waits"] else NOT_ELIGIBLE


def cmd_analyze(args: argparse.Namespace) -> int:
    print_json(ningbo_score.analyze(request_body(args, waiting=True), args.lang))
    return OK


#: the words of ``settle``'s table
SETTLE_TEXT = {
    "en": {"hand": "hand", "round": "round", "dealer": "dealer", "totals": "totals", "transfers": "transfers",
           "none": "nobody owes anything", "next": "next: {dealer} deals, round {wind}",
           "self_draw": "{winner} self-draws", "discard": "{winner} on {from_}'s discard",
           "robbing_kong": "{winner} robs {from_}'s kong", "tai": ", {tai} 台", "not_eligible": " (not eligible)",
           "draw": "draw", "net": "scored elsewhere", "penalty": "{player} leaves (penalty)",
           "failed": "hand {index} is refused"},
    "zh": {"hand": "局", "round": "圈", "dealer": "庄家", "totals": "合计", "transfers": "转账",
           "none": "无人欠款", "next": "下一局：{dealer} 坐庄，圈风 {wind}",
           "self_draw": "{winner} 自摸", "discard": "{winner} 胡 {from_} 放冲",
           "robbing_kong": "{winner} 抢 {from_} 的杠",
           "tai": " {tai} 台", "not_eligible": "（不够起胡）", "draw": "流局", "net": "另行计分",
           "penalty": "{player} 逃跑（罚分）", "failed": "第 {index} 局被拒"},
}


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: 2 for a wide (Chinese) character."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def hand_summary(hand: dict[str, Any], lang: str) -> str:
    """One hand of a settled session in a few words."""
    t = SETTLE_TEXT[lang]
    if hand["outcome"] == "win":
        text = t[hand["by"]].format(winner=hand["winner"], from_=hand["from"]) + t["tai"].format(tai=hand["tai"])
        return text + ("" if hand["eligible"] else t["not_eligible"])
    if hand["outcome"] == "penalty":
        return t["penalty"].format(player=min(hand["net"], key=hand["net"].__getitem__))
    return t[hand["outcome"]]


def print_session(result: dict[str, Any], lang: str) -> None:
    """A settled session: a row per hand (its net per player) and the totals, then the transfers."""
    t = SETTLE_TEXT[lang]
    players = list(result["totals"])
    rows = [[str(h["index"]), h["round_wind"], h["dealer"], hand_summary(h, lang)]
            + [f"{h['net'][p]:+d}" if h["net"][p] else "0" for p in players] for h in result["hands"]]
    rows.append([t["totals"], "", "", ""] + [f"{v:+d}" if v else "0" for v in result["totals"].values()])
    header = [t["hand"], t["round"], t["dealer"], ""] + players
    widths = [max(display_width(row[i]) for row in [header] + rows) for i in range(len(header))]
    for row in [header] + rows:
        cells = [c + " " * (w - display_width(c)) if i < 4 else " " * (w - display_width(c)) + c
                 for i, (c, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())
    transfers = ", ".join(f"{x['from']} → {x['to']} {x['amount']}" for x in result["transfers"])
    print(f"{t['transfers']}: {transfers or t['none']}")
    print(t["next"].format(dealer=result["next"]["dealer"], wind=result["next"]["round_wind"]))


def cmd_settle(args: argparse.Namespace) -> int:
    try:
        result = sessions.settle(read_json(args.session), args.lang)
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
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent)) or shutil.which("gunicorn")
    if gunicorn is None:
        print("ningbo-score: gunicorn is not installed: pip install --require-hashes -r requirements.txt",
              file=sys.stderr)
        return UNAVAILABLE
    env = dict(os.environ)
    for name, value in (("HOST", args.host), ("PORT", args.port), ("WEB_CONCURRENCY", args.workers)):
        if value is not None:
            env[name] = str(value)
    os.chdir(root)
    # the same command as `make run`, with gunicorn.conf.py reading HOST, PORT, WEB_CONCURRENCY
    os.execve(gunicorn, [gunicorn, "-c", "gunicorn.conf.py", "app:app"], env)


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


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="ningbo-score", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Ningbo mahjong (宁波麻将) scoring: 台, points and payments, waits, and the HTTP API.",
        epilog="examples:\n"
               "  ningbo-score score '234678m 99s' --win 4m --seat S --caishen 5p \\\n"
               "      --meld pung:CCC:E --meld kong:1111s:concealed --flowers 2f --claims W=1\n"
               "  ningbo-score score hand.json --lang zh\n"
               "  ningbo-score waits '23m 678m 99s' --seat S --meld pung:CCC:E --meld kong:1111s:concealed\n"
               "  ningbo-score settle session.json\n"
               "  ningbo-score serve --port 8000\n\n" + EXIT_CODES)
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
    settle.set_defaults(run=cmd_settle)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    args.lang = args.lang or default_language()
    try:
        return int(args.run(args))
    except UsageError as err:
        print(f"ningbo-score: {err}", file=sys.stderr)
        return USAGE
    except ningbo_score.ScoreError as err:
        print_problem(err, args.lang)
        return REFUSED
