#!/usr/bin/env python3
"""Instructions per scored hand (valgrind's callgrind: deterministic on a busy machine).

Run from the project root:  ``.venv/bin/python bench/instructions.py [--n 100] [--seed 2024]``

For each class of bench/score_bench.py (0, 1, 3, 7 caishen) the same seeded hands (made once,
outside valgrind) are scored in two processes under ``valgrind --tool=callgrind``: one scoring them once after a
warm-up pass,
one twice; the difference of the two totals divided by the hands is the cost of one scoring,
start-up and imports excluded.  ``typed``: ``ningbo_score.score`` of a hand loaded beforehand (read_score) (the
engine's work on typed input); ``dict``: ``score`` of the JSON body (reading included).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

# --root (before every import of the project): another checkout to measure, e.g. the code before a change
ROOT = os.path.abspath(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "bench"), os.path.join(ROOT, "tests")]


def _run(hands_file: str, path: str, passes: int) -> None:
    import copy
    import json

    from ningbo_score import read_score, score

    with open(hands_file, encoding="utf-8") as f:
        hands = json.load(f)
    if path == "typed":
        work = [(score, read_score(copy.deepcopy(h))) for h in hands]
    else:
        work = [(score, h) for h in hands]
    for fn, h in work:                      # warm-up pass (also with passes=1)
        fn(copy.deepcopy(h) if path == "dict" else h)
    # the inputs of two passes, whatever ``passes``: the counts differ by the scoring alone
    inputs = [[copy.deepcopy(h) if path == "dict" else h for _, h in work] for _ in range(2)]
    for batch in inputs[:passes]:
        for (fn, _), h in zip(work, batch):
            fn(h)


def _count(hands_file: str, path: str, passes: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
                        "--child", f"{hands_file},{path},{passes}", "--root", ROOT],
                       check=True, capture_output=True, cwd=ROOT)
        text = open(out, encoding="utf-8", errors="replace").read()
    return int(re.search(r"^totals:\s+(\d+)", text, re.MULTILINE).group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--paths", default="typed,dict")
    ap.add_argument("--classes", default="0,1,3,7")
    ap.add_argument("--root", help="the project checkout to measure (default: this one)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        hands_file, path, passes = args.child.split(",")
        _run(hands_file, path, int(passes))
        return 0
    import json

    import ningbo_score
    import score_bench

    hands = score_bench.make_hands(args.seed, args.n)
    print(f"{ROOT}, library: {'compiled' if ningbo_score.USING_COMPILED else 'plain'}; {args.n} hands per class, "
          f"seed {args.seed}\n\n| hands | path | instructions per hand |\n|---|---|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for k in map(int, args.classes.split(",")):
            hands_file = os.path.join(tmp, f"hands{k}.json")
            with open(hands_file, "w", encoding="utf-8") as f:
                json.dump(hands[k], f)
            for path in args.paths.split(","):
                per = (_count(hands_file, path, 2) - _count(hands_file, path, 1)) / args.n
                print(f"| {k} caishen | {path} | {per:,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
