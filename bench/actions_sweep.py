#!/usr/bin/env python3
"""The referee's full sweep (``POST /v1/table/actions``, issue 39): exact both ways over every
prefix of generated legal logs.

Run from the project root:  ``.venv/bin/python bench/actions_sweep.py [--logs N] [--brute SHARE]``

For each of ``--logs`` logs of tests/replaygen.py (seeded, the five presets in turn, the rigged
hands among them: heavenly, earthly, robbed kongs, blooms, last tiles) and every prefix of it,
tests/actions_check.py checks that the log's next event is listed, that every listed event
appended is accepted by the replay's checks (a listed win scoring the value listed), that each
seat's view (``for``) is its share of the whole answer, and on a ``--brute`` share of the
prefixes that every candidate event (each seat × each type × each kind it holds and one it
doesn't, a draw of every kind, each chow/pung/kong of the discard, the win, the exhaustive draw)
is listed exactly when the public ``replay_loaded`` accepts it.

Prints (and writes to bench/results/actions_sweep.txt) the counts: logs, prefixes, listed
actions, candidates tried, mismatches; exit status 1 on any mismatch.  tests/play/test_actions.py
runs a seeded sample of the same checks.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import actions_check  # noqa: E402
import replaygen  # noqa: E402

import ningbo_score  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--logs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=3939)
    ap.add_argument("--brute", type=float, default=0.01, help="share of prefixes brute-forced")
    ap.add_argument("--no-seat-views", action="store_true", help="skip the four `for` views of each prefix")
    args = ap.parse_args()
    counts = actions_check.Counts()
    rng = random.Random(args.seed)
    brute_rng = random.Random(args.seed + 1)
    start = time.perf_counter()
    for i in range(args.logs):
        hand = replaygen.random_log(rng, replaygen.PRESETS[i % len(replaygen.PRESETS)])
        actions_check.check_log(hand.body(), counts, brute=args.brute, rng=brute_rng,
                                seat_views=not args.no_seat_views)
        if (i + 1) % 50 == 0:
            print(f"  … {counts.line()}", flush=True)
    took = time.perf_counter() - start
    lines = [
        f"actions sweep ({'compiled' if ningbo_score.USING_COMPILED else 'plain Python'}; seed {args.seed}, "
        f"brute share {args.brute}, seat views {'off' if args.no_seat_views else 'on'}): {took:.0f} s",
        counts.line(),
        "phases: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.phases.items())),
        "listed by type: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.kinds.items())),
    ]
    lines += [f"MISMATCH {m!r}" for m in counts.mismatches[:20]]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "actions_sweep.txt").write_text(text, encoding="utf-8")
    return 1 if counts.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
