#!/usr/bin/env python3
"""Benchmark of discard advice by value (``POST /v1/analyze`` with ``objective: value``,
ningbo_score.advice): its time, its memory, and what it changes.

Run from the project root:  ``.venv/bin/python bench/value_bench.py [--n 20] [--hands 1000] [--seed 40]``

(a) Time (targets of issue 40): 13-tile hands dealt from a 136-tile wall (no caishen), by
    shanten, each analysed ``--n`` times with ``--draws`` draws (default 8):
    shanten 0 and 1: median ≤ 50 ms, worst ≤ 300 ms; shanten 2: worst ≤ 2 s; shanten 3: computed
    or answered null within the same 2 s.  Then caishen hands, reported beside.  A hand whose
    values are past the bound (``advice.MAX_STATES`` hands) is answered null in that time: the
    table says how many were computed.  The same for fewer draws, to show where the exact model
    fits.  CPU time of this process (``time.process_time``), one run each.
(b) Memory: the peak of tracemalloc over one request that reaches a bound (MAX_STATES hands; a
    caishen hand, MAX_SCORINGS scorings): at most advice.REQUEST_BYTES.
(c) What it changes: ``--hands`` seeded dealt-and-drawn hands (13 dealt from the wall and one
    drawn, a caishen indicator turned from the rest, preset ``ningbo``), each analysed by
    ``ukeire`` and by ``value`` with ``--change-draws`` draws: how many change their best
    discard, how many values are null; and the product bar: on the hands whose ``ukeire`` best
    is a tenpai that can't reach the minimum (``eligible_unseen`` 0), does ``value`` rank first
    a discard with positive expected points whenever one exists.  The same on near-win hands
    (a winning hand of tests/handgen.py before its discard), where tenpai discards are common.

Exit status 1 if a time target fails.  ``--out`` writes the figures to a file too.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import handgen  # noqa: E402
from load import Server, http  # noqa: E402

import ningbo_score  # noqa: E402
from ningbo_score import advice, analyze, shanten  # noqa: E402

KINDS = handgen.KINDS
#: shanten → (median, worst) ms with 8 draws; shanten 3: computed within the same 2 s, or null as fast
TARGETS = {0: (50.0, 300.0), 1: (50.0, 300.0), 2: (None, 2000.0), 3: (None, 2000.0)}


def dealt(rng: random.Random, n: int) -> list[int]:
    wall = [k for k in range(34) for _ in range(4)]
    return rng.sample(wall, n)


def thirteen_of_shanten(rng: random.Random, want: int) -> list[str]:
    while True:
        tiles = dealt(rng, 13)
        counts = [0] * 34
        for k in tiles:
            counts[k] += 1
        if shanten.shanten(counts) == want:
            return [KINDS[k] for k in sorted(tiles)]


def cpu_ms(fn, *args):
    t = time.process_time()
    out = fn(*args)
    return (time.process_time() - t) * 1000, out


def with_caishen(rng: random.Random, caishen: int, want: int, draws: int) -> dict:
    """A 13-tile dealt hand of shanten ``want`` with a kind it holds ``caishen`` times as the caishen."""
    while True:
        tiles = dealt(rng, 13)
        held = [k for k in sorted(set(tiles)) if tiles.count(k) == caishen]
        if not held:
            continue
        body = {"seat_wind": "S", "round_wind": "E", "caishen": {"kinds": [KINDS[held[0]]]},
                "hand": {"concealed": [KINDS[k] for k in sorted(tiles)]}}
        if analyze(body)["shanten"] == want:
            return {**body, "objective": "value", "draws_left": draws}


def timed(say, bodies: list[dict], draws: int, label: str, target: tuple[float | None, float] | None,
          null_ok: bool = False) -> bool:
    """One table row: each body analysed once (CPU ms); True if a target of 8 draws fails (a null
    answer fails it too unless ``null_ok``)."""
    ms, computed = [], 0
    for body in bodies:
        t, res = cpu_ms(analyze, body)
        ms.append(t)
        computed += "value_note" not in res
    med, worst = statistics.median(ms), max(ms)
    if target is None:
        say(f"| {draws} | {label} | {computed}/{len(bodies)} | {med:.1f} | {worst:.1f} | |")
        return False
    ok = (target[0] is None or med <= target[0]) and worst <= target[1] and (null_ok or computed == len(bodies))
    text = f"median ≤ {target[0]}, worst ≤ {target[1]}" if target[0] else f"worst ≤ {target[1]}"
    if draws == 8:
        text += " " + ("ok" if ok else "FAILS")
    say(f"| {draws} | {label} | {computed}/{len(bodies)} | {med:.1f} | {worst:.1f} | {text} |")
    return draws == 8 and not ok


def over_http(bodies: dict[str, list[dict]], say) -> None:
    """Each body POSTed to /v1/analyze of the real server (bench/load.py's ``Server``: gunicorn
    with gunicorn.conf.py, one worker), one request at a time: wall ms, median and worst."""
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(1, Path(tmp) / "gunicorn.log")
        try:
            say("| shanten, 8 draws | computed | median ms | worst ms |")
            say("|---|---|---|---|")
            for label, group in bodies.items():
                ms, computed = [], 0
                for body in group:
                    status, data, seconds = http("POST", server.base + "/v1/analyze", json.dumps(body).encode())
                    assert status == 200, (status, data[:300])
                    ms.append(seconds * 1000)
                    computed += b"value_note" not in data
                say(f"| {label} | {computed}/{len(group)} | {statistics.median(ms):.1f} | {max(ms):.1f} |")
        finally:
            server.stop()


def dealt_and_drawn(rng: random.Random) -> dict:
    """13 dealt, one drawn, an indicator turned from the rest of the wall (flowers out)."""
    wall = [k for k in range(34) for _ in range(4)]
    rng.shuffle(wall)
    hand, indicator = wall[:14], wall[14]
    return {"seat_wind": rng.choice("ESWN"), "round_wind": "E", "caishen": {"indicator": KINDS[indicator]},
            "hand": {"concealed": [KINDS[k] for k in sorted(hand)]}}


def near_win(rng: random.Random) -> dict:
    won = handgen.random_request(rng, n_caishen=rng.choice((0, 0, 1)), presets=("ningbo",))
    out = {k: v for k, v in won.items() if k != "win"}
    out["hand"] = {k: v for k, v in won["hand"].items() if k != "winning_tile"}
    kept = {k: won["win"][k] for k in ("from", "discarded_caishen") if k in won["win"]}
    if kept:
        out["win"] = kept
    return out


def compare(bodies: list[dict], draws: int) -> dict:
    changed = nulls = bar_hands = bar_kept = 0
    for b in bodies:
        plain = analyze(b)
        valued = analyze({**b, "objective": "value", "draws_left": draws})
        if "value_note" in valued:
            nulls += 1
            continue
        if plain["discards"][0]["discard"] != valued["discards"][0]["discard"]:
            changed += 1
        first = plain["discards"][0]
        if first["shanten"] == 0 and first.get("eligible_unseen", 0) == 0:
            bar_hands += 1
            best = max(e["expected_points"] for e in valued["discards"])
            if best <= 0 or valued["discards"][0]["expected_points"] > 0:
                bar_kept += 1
    return {"changed": changed, "nulls": nulls, "bar_hands": bar_hands, "bar_kept": bar_kept, "n": len(bodies)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20, help="hands per shanten in (a)")
    parser.add_argument("--draws", type=int, nargs="+", default=[8, 3, 2], help="draws_left in (a)")
    parser.add_argument("--hands", type=int, default=1000, help="dealt-and-drawn hands in (c)")
    parser.add_argument("--near", type=int, default=200, help="near-win hands in (c)")
    parser.add_argument("--change-draws", type=int, nargs="+", default=[2, 8], help="draws_left in (c)")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--http", action="store_true",
                        help="(a)'s 8-draw hands of shanten 0-2 over HTTP too, to the real server")
    parser.add_argument("--out", help="also write the figures here")
    args = parser.parse_args()
    out = io.StringIO()

    def say(line: str = "") -> None:
        print(line, flush=True)
        out.write(line + "\n")

    failed = False
    say(f"{'compiled modules' if ningbo_score.USING_COMPILED else 'plain Python'} (ningbo_score.advice itself is "
        f"plain Python either way); load average {os.getloadavg()[0]:.1f}")
    say(f"(a) time, 13-tile dealt hands, no caishen, bound {advice.MAX_STATES} hands; CPU ms")
    say("| draws | shanten | computed | median ms | worst ms | target |")
    say("|---|---|---|---|---|---|")
    for draws in args.draws if args.n else ():
        for want in (0, 1, 2, 3):
            rng = random.Random(args.seed * 100 + want)
            bodies = [{"seat_wind": "S", "round_wind": "E", "objective": "value", "draws_left": draws,
                       "hand": {"concealed": thirteen_of_shanten(rng, want)}} for _ in range(args.n)]
            failed |= timed(say, bodies, draws, str(want), TARGETS.get(want), null_ok=want >= 3)
    say()
    say("the same with caishen (a kind the dealt hand holds once or twice made the caishen): "
        "reported beside, not a target")
    say("| draws | caishen, shanten | computed | median ms | worst ms | |")
    say("|---|---|---|---|---|---|")
    for draws in args.draws[:1] if args.n else ():
        for caishen in (1, 2):
            for want in (0, 1):
                rng = random.Random(args.seed * 1000 + 10 * caishen + want)
                bodies = [with_caishen(rng, caishen, want, draws) for _ in range(args.n)]
                timed(say, bodies, draws, f"{caishen}, {want}", None)
    say()

    if args.http and args.n:
        say("(a') the same 8-draw hands over HTTP: the real server (gunicorn with gunicorn.conf.py, as `make run` "
            "starts it), one worker, wall ms of one request at a time")
        groups = {}
        for want in (0, 1, 2):
            rng = random.Random(args.seed * 100 + want)
            groups[str(want)] = [{"seat_wind": "S", "round_wind": "E", "objective": "value", "draws_left": 8,
                                  "hand": {"concealed": thirteen_of_shanten(rng, want)}} for _ in range(args.n)]
        over_http(groups, say)
        say()

    say("(b) memory: the peak of one request (tracemalloc), on hands that reach the bounds")
    for name, body in (
            ("3-shanten, 8 draws (MAX_STATES)", {"seat_wind": "S", "round_wind": "E", "objective": "value",
                                                 "draws_left": 8,
                                                 "hand": {"concealed": "123m 456p 7s 9s EE 3m 5m 9p 1s"}}),
            ("2 caishen, 8 draws (MAX_SCORINGS)", {"seat_wind": "S", "round_wind": "E", "objective": "value",
                                                   "draws_left": 8, "caishen": {"kinds": ["5s"]},
                                                   "hand": {"concealed": "123m 456p 78s EE 3m 5s 5s 9p"}})):
        analyze(body)
        tracemalloc.start()
        res = analyze(body)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        ok = peak <= advice.REQUEST_BYTES
        failed |= not ok
        say(f"{name}: peak {peak / 2**20:.1f} MiB ({'null' if 'value_note' in res else 'computed'}); bound "
            f"{advice.REQUEST_BYTES / 2**20:.0f} MiB: {'ok' if ok else 'FAILS'}")
    say()

    say("(c) what value changes (best discard by ukeire vs by value)")
    say("| hands | draws | n | best discard changed | null (past the bound) | ukeire best a tenpai below the minimum | "
        "of those, value's best has positive points when any has |")
    say("|---|---|---|---|---|---|---|")
    rng = random.Random(args.seed)
    sets = {"dealt and drawn": [dealt_and_drawn(rng) for _ in range(args.hands)],
            "near a win": [near_win(rng) for _ in range(args.near)]}
    for name, bodies in sets.items():
        for draws in args.change_draws if bodies else ():
            r = compare(bodies, draws)
            say(f"| {name} | {draws} | {r['n']} | {r['changed']} | {r['nulls']} | {r['bar_hands']} | "
                f"{r['bar_kept']}/{r['bar_hands']} |")
            failed |= r["bar_kept"] != r["bar_hands"]
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(out.getvalue())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
