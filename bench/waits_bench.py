#!/usr/bin/env python3
"""Latency benchmark of ``ningbo_score.waits`` (听牌), the heaviest call of the live-table API.

Run from the project root:  ``.venv/bin/python bench/waits_bench.py [--n 100] [--rounds 3]``

Seeded random tenpai hands (a winning hand of tests/handgen.py less its winning tile) with 0, 3
and 7 caishen in the concealed hand (7: preset ``ningbo-7baida``).  Each hand is timed
``--rounds`` times and keeps its fastest run.  Target (issue: live-table features): worst case
with 7 caishen under 50 ms.  Exit status 1 if it fails.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import handgen  # noqa: E402
from ningbo_score import waits  # noqa: E402

CLASSES = {0: ("ningbo",), 3: ("ningbo",), 7: ("ningbo-7baida",)}
TARGET_WORST_7_MS = 50.0


def waits_request(tenpai: dict) -> dict:
    """A waits request: no `win.by` (and no flags of the winning draw), the discarder kept."""
    win = tenpai.get("win") or {}
    kept = {k: win[k] for k in ("from", "discarded_caishen") if k in win}
    out = {k: v for k, v in tenpai.items() if k != "win"}
    if kept:
        out["win"] = kept
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100, help="hands per class (default 100)")
    ap.add_argument("--rounds", type=int, default=3, help="runs per hand, fastest kept (default 3)")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"# ningbo_score.waits latency — {args.n} tenpai hands per class, best of {args.rounds} per hand, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}\n")
    print("| caishen in hand | n | median ms | p99 ms | worst ms | waits listed (median) |")
    print("|---|---:|---:|---:|---:|---:|")
    worst7 = None
    for k, presets in CLASSES.items():
        hands = [waits_request(handgen.random_tenpai(rng, n_caishen=k, presets=presets)[0])
                 for _ in range(args.n)]
        waits(hands[0])                       # warm-up
        best, listed = [], []
        for h in hands:
            runs = []
            for _ in range(args.rounds):
                t0 = time.perf_counter_ns()
                answer = waits(h)
                runs.append((time.perf_counter_ns() - t0) / 1e6)
            best.append(min(runs))
            listed.append(len(answer["tiles"]))
        best.sort()
        p99 = best[min(len(best) - 1, int(0.99 * len(best)))]
        print(f"| {k} | {len(best)} | {statistics.median(best):.2f} | {p99:.2f} | {best[-1]:.2f} | "
              f"{statistics.median(listed):.0f} |")
        if k == 7:
            worst7 = best[-1]
    ok = worst7 < TARGET_WORST_7_MS
    print(f"\n{'PASS' if ok else 'FAIL'}  worst with 7 caishen {worst7:.1f} ms < {TARGET_WORST_7_MS:.0f} ms")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
