#!/usr/bin/env python3
"""Latency benchmark of ``ningbo_score.analyze`` (``POST /v1/analyze``: shanten, improving tiles,
discards, the waits' values).

Run from the project root:  ``.venv/bin/python bench/analyze_bench.py [--n 300] [--seed 16]``

(a) 13-tile caishen-free hands dealt from a 136-tile wall: the analysis's shanten work
    (``shanten.draw_shanten``: the hand and each of the 34 draws, then the improving tiles) and
    the whole ``analyze()`` call, against riichi ``mahjong`` 2.1.0 doing the same work on the
    same hands in this process: ``calculate_shanten_for_regular_hand`` of the hand and after each
    of the 34 draws.  Target: ratio ≤ 1.0 (ours / riichi, per-hand medians and totals), with the
    shanten tables cold (cleared before the pass) and warm (a second pass).
(b) 14-tile hands with 3 caishen (preset ``ningbo``): median ≤ 30 ms.
(c) 14-tile hands with 7 caishen (preset ``ningbo-7baida``): worst ≤ 300 ms.
    (b) and (c) each on two kinds of hands: *dealt* (random tiles and the caishen: mostly far
    from tenpai, few waits to value) and *near a win* (a winning hand of tests/handgen.py before
    its discard: every discard leaves a tenpai hand, so every discard's waits are scored, the
    heaviest kind of request).  The targets are checked on both.
Each hand is timed once (best of ``--rounds`` runs); the figures go to stdout and, with
``--out``, to a file (bench/results/analyze.txt).  Exit status 1 if a target fails.
"""
from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import handgen  # noqa: E402
from mahjong.shanten import Shanten  # noqa: E402

import ningbo_score  # noqa: E402
from ningbo_score import analyze, shanten  # noqa: E402

KINDS = handgen.KINDS
TARGET_RATIO = 1.0
TARGET_MEDIAN_3_MS = 30.0
TARGET_WORST_7_MS = 300.0


def dealt_13(rng: random.Random) -> list[int]:
    wall = [k for k in range(34) for _ in range(4)]
    counts = [0] * 34
    for k in rng.sample(wall, 13):
        counts[k] += 1
    return counts


def request_of(counts: list[int]) -> dict:
    return {"seat_wind": "S", "round_wind": "E",
            "hand": {"concealed": [KINDS[k] for k in range(34) for _ in range(counts[k])]}}


def dealt_14(rng: random.Random, n_caishen: int, preset: str) -> dict:
    """14 random tiles, ``n_caishen`` of them caishen (indicator 5p; ningbo-7baida: 5p and 6p)."""
    kinds = {"ningbo": ("5p",), "ningbo-7baida": ("5p", "6p")}[preset]
    caishen_pool = ["5p"] * 3 + (["6p"] * 4 if preset == "ningbo-7baida" else [])
    wall = [k for k in KINDS if k not in kinds for _ in range(4)]
    tiles = rng.sample(wall, 14 - n_caishen) + rng.sample(caishen_pool, n_caishen)
    return {"rules": preset, "seat_wind": rng.choice("ESWN"), "round_wind": "E",
            "caishen": {"indicator": "5p"}, "hand": {"concealed": tiles}}


def near_win_14(rng: random.Random, n_caishen: int, preset: str) -> dict:
    """A winning hand of tests/handgen.py as an analyze body: its 14 − 3m tiles before the discard."""
    won = handgen.random_request(rng, n_caishen=n_caishen, presets=(preset,))
    out = {k: v for k, v in won.items() if k != "win"}
    out["hand"] = {k: v for k, v in won["hand"].items() if k != "winning_tile"}
    kept = {k: won["win"][k] for k in ("from", "discarded_caishen") if k in won["win"]}
    if kept:
        out["win"] = kept
    return out


def timed(fn, arg, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        fn(arg)
        best = min(best, time.perf_counter_ns() - t0)
    return best / 1e6


RIICHI = Shanten()


def riichi_work(counts: list[int]) -> list[int]:
    riichi = RIICHI
    before = riichi.calculate_shanten_for_regular_hand(counts)
    improving = []
    for k in range(34):
        counts[k] += 1
        if riichi.calculate_shanten_for_regular_hand(counts) < before:
            improving.append(k)
        counts[k] -= 1
    return improving


def our_work(counts: list[int]) -> list[int]:
    before, after, _ = shanten.draw_shanten(counts)
    return [k for k in range(34) if after[k] < before]


def stats(ms: list[float]) -> tuple[float, float, float]:
    ms = sorted(ms)
    return statistics.median(ms), ms[min(len(ms) - 1, int(0.99 * len(ms)))], ms[-1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="13-tile hands for (a) (default 300)")
    ap.add_argument("--n14", type=int, default=60, help="14-tile hands per kind for (b) and (c) (default 60)")
    ap.add_argument("--rounds", type=int, default=3, help="runs per hand, fastest kept (default 3)")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--out", help="also write the figures to this file")
    args = ap.parse_args(argv)
    out = io.StringIO()

    def say(line: str = "") -> None:
        print(line)
        out.write(line + "\n")

    mode = "compiled" if ningbo_score.USING_COMPILED else "plain Python"
    say(f"# ningbo_score.analyze latency — {mode}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, "
        f"seed {args.seed}, best of {args.rounds} per hand\n")
    ok = True
    rng = random.Random(args.seed)

    # (a)
    hands = [dealt_13(rng) for _ in range(args.n)]
    for counts in hands:                      # the same answers, or the comparison means nothing
        theirs = riichi_work(list(counts))
        if our_work(list(counts)) != theirs and max(counts) < 4:
            raise SystemExit(f"improving tiles differ from riichi's on {counts}")
    say(f"## (a) 13 tiles, no caishen: shanten + improving tiles, {len(hands)} dealt hands, ms per hand\n")
    say("| work | median ms | total ms | ratio to riichi (median) | ratio (total) |")
    say("|---|---:|---:|---:|---:|")
    riichi_ms = [timed(riichi_work, list(c), args.rounds) for c in hands]
    r_med, r_tot = statistics.median(riichi_ms), sum(riichi_ms)
    say(f"| riichi `mahjong` 2.1.0: 35 × calculate_shanten_for_regular_hand | {r_med:.3f} | {r_tot:.1f} | 1 | 1 |")
    rows = []
    for label, fn, arg_of, cold in (
        ("ours: shanten.draw_shanten, tables cold", our_work, list, True),
        ("ours: shanten.draw_shanten, tables warm", our_work, list, False),
        ("ours: the whole analyze() call (reading, unseen counts, answer)", analyze, request_of, False),
    ):
        if cold:
            shanten.clear_tables()
            ms = [timed(fn, arg_of(c), 1) for c in hands]     # one run each: the first is the cold one
        else:
            ms = [timed(fn, arg_of(c), args.rounds) for c in hands]
        med, tot = statistics.median(ms), sum(ms)
        rows.append((med / r_med, tot / r_tot))
        say(f"| {label} | {med:.3f} | {tot:.1f} | {med / r_med:.3f} | {tot / r_tot:.3f} |")
    worst_ratio = max(max(r) for r in rows)
    passed = worst_ratio <= TARGET_RATIO
    ok &= passed
    say(f"\n{'PASS' if passed else 'FAIL'}  (a) every ratio ≤ {TARGET_RATIO} (largest {worst_ratio:.3f})\n")

    # (b), (c)
    say(f"## (b), (c) 14 tiles with caishen: the whole analyze() call, {args.n14} hands per row, ms\n")
    say("| caishen | hands | median ms | p99 ms | worst ms | discards at tenpai (median) |")
    say("|---|---|---:|---:|---:|---:|")
    figures = {}
    for n_caishen, preset in ((3, "ningbo"), (7, "ningbo-7baida")):
        for kind, make in (("dealt", dealt_14), ("near a win", near_win_14)):
            bodies = [make(rng, n_caishen, preset) for _ in range(args.n14)]
            analyze(bodies[0])
            ms = [timed(analyze, b, args.rounds) for b in bodies]
            tenpai = [sum(d["shanten"] == 0 for d in analyze(b)["discards"]) for b in bodies]
            med, p99, worst = stats(ms)
            figures[(n_caishen, kind)] = (med, worst)
            say(f"| {n_caishen} ({preset}) | {kind} | {med:.2f} | {p99:.2f} | {worst:.2f} | "
                f"{statistics.median(tenpai):.0f} |")
    say()
    for kind in ("dealt", "near a win"):
        med = figures[(3, kind)][0]
        passed = med <= TARGET_MEDIAN_3_MS
        ok &= passed
        say(f"{'PASS' if passed else 'FAIL'}  (b) 3 caishen, {kind}: median {med:.1f} ms ≤ {TARGET_MEDIAN_3_MS:.0f} ms")
    for kind in ("dealt", "near a win"):
        worst = figures[(7, kind)][1]
        passed = worst <= TARGET_WORST_7_MS
        ok &= passed
        say(f"{'PASS' if passed else 'FAIL'}  (c) 7 caishen, {kind}: worst {worst:.1f} ms ≤ {TARGET_WORST_7_MS:.0f} ms")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(out.getvalue())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
