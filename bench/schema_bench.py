"""The cost of reading a request body: the schema load of the docs/api.md worked example (and of a
few generated hands), beside the engine's scoring of the loaded input, in one process.

    NINGBO_SCORE_PURE=1 python bench/schema_bench.py [--n 3000]

Prints the median and p90 in microseconds of: ``load`` (the /v1/score schema turning the JSON
body into the library's typed input), ``score`` (the library scoring that input) and
``load+score`` (``ningbo_score.score(dict)``, what a Python caller with a dict runs).
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import handgen  # noqa: E402
import ningbo_score  # noqa: E402
from tools.make_golden import worked_example  # noqa: E402


def timed(fn, arg, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter_ns()
        fn(arg)
        out.append((time.perf_counter_ns() - t) / 1000)
    out.sort()
    return out


def row(name: str, us: list[float]) -> str:
    return f"{name:<28} median {statistics.median(us):8.1f} us   p90 {us[int(len(us) * 0.9)]:8.1f} us"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    n = ap.parse_args().n
    load, score_typed = ningbo_score.read_score, ningbo_score.score
    rng = random.Random(7)
    bodies = {"worked example": worked_example(),
              "generated, no caishen": handgen.random_request(rng, n_caishen=0),
              "generated, compact strings": handgen.compact_form(handgen.random_request(rng, n_caishen=1))}
    print(f"compiled: {ningbo_score.USING_COMPILED}, {n} runs each")
    for name, body in bodies.items():
        ningbo_score.score(body)
        typed = load(body)
        print(name)
        print("  " + row("load (schema)", timed(load, body, n)))
        print("  " + row("score (typed input)", timed(score_typed, typed, n)))
        print("  " + row("load+score (dict in)", timed(ningbo_score.score, body, n)))


if __name__ == "__main__":
    main()
