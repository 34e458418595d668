#!/usr/bin/env python3
"""Speed of ``POST /v1/replay`` in-process: a hand of about 150 events, checked, derived and scored.

Run from the project root:  ``.venv/bin/python bench/replay_bench.py``  (``--help`` for options)

The hand is the first log of tests/replaygen.py (seeded) with 145 to 160 events that ends in a
win; ``ningbo_score.replay.replay(body)`` (the schema's reading of the JSON body, every event's
checks, the derived ``/v1/score`` body and its scoring through ``ningbo_score.score``) is timed
``--runs`` times after a warm-up, and so are its parts: the reading alone
(``read_replay``) and the rest (``replay_loaded``).  The median is the figure; the target is
≤ 2 ms compiled (issue 27).  Also timed: a whole batch of the generated logs (``--logs``), per log.

Writes bench/results/replay_bench.txt (what it prints).  Exit status 1 when the target fails and
the library is compiled (plain Python is reported, not judged).
"""
from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import replaygen  # noqa: E402

import ningbo_score  # noqa: E402
replay_lib = importlib.import_module("ningbo_score.replay")  # the module (the package's `replay` is the function)

TARGET_MS = 2.0
RESULTS = ROOT / "bench" / "results"


def hand_of(seed: int, low: int = 145, high: int = 160) -> dict:
    import random

    rng = random.Random(seed)
    for _ in range(20000):
        hand = replaygen.random_log(rng)
        if hand.outcome == "win" and low <= len(hand.events) <= high:
            return hand.body()
    raise SystemExit(f"no generated win of {low}-{high} events")


def median_ms(fn, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3, min(times) * 1e3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--logs", type=int, default=200, help="generated logs for the per-log figure")
    args = ap.parse_args()
    lines: list[str] = []

    def report(line: str = "") -> None:
        print(line, flush=True)
        lines.append(line)

    body = hand_of(args.seed)
    text = json.dumps(body)
    report(f"replay bench: {'compiled' if ningbo_score.USING_COMPILED else 'plain Python (not compiled)'} library, "
           f"a {len(body['events'])}-event hand ({len(text)} bytes of JSON), {args.runs} runs after a warm-up")
    for _ in range(50):
        replay_lib.replay(body)
    loaded = replay_lib.read_replay(body)
    whole, whole_min = median_ms(lambda: replay_lib.replay(json.loads(text)), args.runs)
    read, _ = median_ms(lambda: replay_lib.read_replay(body), args.runs)
    rest, _ = median_ms(lambda: replay_lib.replay_loaded(loaded), args.runs)
    request = replay_lib.replay(body)["score_request"]
    scored, _ = median_ms(lambda: ningbo_score.score(request), args.runs)
    report(f"  replay(body), JSON parsed each time:  median {whole:.3f} ms (best {whole_min:.3f})")
    report(f"    read_replay (the schema):            median {read:.3f} ms")
    report(f"    replay_loaded (check, derive, score): median {rest:.3f} ms")
    report(f"      of which ningbo_score.score(score_request): median {scored:.3f} ms")
    logs = [h.body() for h in replaygen.logs(args.seed, args.logs)]
    start = time.perf_counter()
    for log in logs:
        replay_lib.replay(log)
    per = (time.perf_counter() - start) / len(logs) * 1e3
    mean_events = sum(len(log["events"]) for log in logs) / len(logs)
    report(f"  {len(logs)} generated logs (mean {mean_events:.0f} events): {per:.3f} ms per log")
    ok = whole <= TARGET_MS
    verdict = ("PASS" if ok else "FAIL") if ningbo_score.USING_COMPILED else "(not judged: plain Python)"
    report(f"target: median ≤ {TARGET_MS} ms compiled for a 150-event hand: {whole:.3f} ms {verdict}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "replay_bench.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 1 if ningbo_score.USING_COMPILED and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
