#!/usr/bin/env python3
"""Speed of ``POST /v1/table/actions`` in-process (issue 39): a prefix of 150 events.

Run from the project root:  ``.venv/bin/python bench/actions_bench.py``  (``--help`` for options)

Prefixes: the first 150 events of ``--hands`` generated logs (tests/replaygen.py, seeded) that
have more than 150.  For each, timed ``--runs`` times after a warm-up (the median is the figure),
the three taken in turn within each run (interleaved: a slow spell of the machine falls on all
three alike):

* ``actions``: ``ningbo_score.actions(body)`` (the schema's reading, the prefix folded by the
  replay's checks, every candidate tried, the wins among them scored);
* ``replay``: ``/v1/replay`` on the same events (``ningbo_score.replay(body)``: it reads,
  checks every event, and refuses the prefix as ``log_not_ended``);
* ``wins``: the wins it tries: each seat's ``win`` after the folded prefix, through the replay's
  own win step (``Table.try_next``: its turn checks, then the scorer's reading of the tiles,
  ``engine.no_reading``, and where they make 4 sets and a pair the derived ``/v1/score`` body
  scored, or refused); a win out of turn costs a few µs, one whose tiles make no winning hand
  about 15 µs, one that is scored the ``/v1/score`` call.

The target: ``actions`` ≤ 1.5 × (``replay`` + ``wins``) for each prefix, and a median ≤ 3 ms
compiled (plain Python is reported, not judged).

``--wsgi N`` adds a load figure: the service's WSGI app called in-process as gunicorn calls it
(bench/load.py's ``_drive``, no sockets), N requests of ``GET /healthz`` and N of ``POST
/v1/table/actions`` with prefixes of generated logs cut at random points, and the ratio of their
throughputs (target ≥ 0.3: the actions route at least 0.3 × the no-op's requests per second).

Writes bench/results/actions_bench.txt.
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

import replaygen  # noqa: E402

import ningbo_score  # noqa: E402
from ningbo_score.errors import ScoreError  # noqa: E402
from ningbo_score.replay import Refused, Table, read_replay  # noqa: E402
from ningbo_score.readers.replay_requests import Event  # noqa: E402

RATIO = 1.5
TARGET_MS = 3.0
PREFIX = 150
RESULTS = ROOT / "bench" / "results"


def prefixes(seed: int, n: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for _ in range(20000):
        hand = replaygen.random_log(rng)
        if len(hand.events) > PREFIX:
            body = hand.body()
            out.append({**body, "events": body["events"][:PREFIX]})
            if len(out) == n:
                return out
    raise SystemExit(f"no {n} generated logs of more than {PREFIX} events")


def medians_ms(fns: list, runs: int) -> list[float]:
    """The median time of each of ``fns`` over ``runs`` rounds, the functions taken in turn within
    a round (interleaved, so a slow spell of the machine falls on all of them alike, as
    bench/load.py alternates its targets), after one warm-up round."""
    for fn in fns:
        fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for fn, out in zip(fns, times):
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return [statistics.median(t) * 1e3 for t in times]


def replay_of(body: dict) -> None:
    try:
        ningbo_score.replay(body)
    except ScoreError:
        pass


def win_of(table: Table, seat: int) -> None:
    try:
        table.try_next(Event("win", seat, None, (), None, ()))
    except Refused:
        pass


def wsgi_figure(n: int, seed: int) -> str:
    import json
    import os

    sys.path.insert(0, str(ROOT / "bench"))
    from load import _drive, _wsgi_environs  # noqa: PLC0415

    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    import app as app_module  # noqa: PLC0415

    wsgi = app_module.create_app()
    rng = random.Random(seed)
    bodies = []
    for _ in range(50):
        body = replaygen.random_log(rng).body()
        bodies.append(json.dumps({**body, "events": body["events"][:rng.randint(0, len(body["events"]))]}).encode())
    _drive(wsgi, _wsgi_environs(bodies, 100, "/v1/table/actions", "POST"))          # warm-up
    per = {}
    for label, path, method, bs in (("healthz", "/healthz", "GET", []),
                                    ("actions", "/v1/table/actions", "POST", bodies)):
        envs = _wsgi_environs(bs, n, path, method)
        start = time.perf_counter()
        _drive(wsgi, envs)
        per[label] = (time.perf_counter() - start) / n * 1e6
    ratio = per["healthz"] / per["actions"]
    return (f"in-process WSGI, {n} requests each: GET /healthz {per['healthz']:.0f} µs, POST /v1/table/actions "
            f"(generated prefixes, cut at random) {per['actions']:.0f} µs a request: throughput ratio {ratio:.2f} "
            f"(target ≥ 0.3)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=101)
    ap.add_argument("--hands", type=int, default=12)
    ap.add_argument("--seed", type=int, default=150)
    ap.add_argument("--wsgi", type=int, default=0, help="requests of each kind for the in-process load figure")
    args = ap.parse_args()
    ningbo_score.warm_up()
    rows = []
    for body in prefixes(args.seed, args.hands):
        answer = ningbo_score.actions(body)
        table = Table(read_replay(body), "en")
        table.fold()
        t_actions, t_replay, *wins = medians_ms(
            [lambda b=body: ningbo_score.actions(b), lambda b=body: replay_of(b)]
            + [lambda t=table, s=seat: win_of(t, s) for seat in range(4)], args.runs)
        t_wins = sum(wins)
        rows.append((answer["phase"], len(answer["actions"]), t_actions, t_replay, t_wins))
    mode = "compiled" if ningbo_score.USING_COMPILED else "plain Python"
    lines = [f"POST /v1/table/actions in-process, {PREFIX}-event prefixes ({mode}; median of {args.runs} "
             "interleaved runs each)",
             f"{'phase':<12} {'actions':>7} {'actions ms':>10} {'replay ms':>9} {'+wins ms':>8} {'ratio':>6}"]
    ratios = []
    for phase, listed, t_a, t_r, t_w in rows:
        ratio = t_a / (t_r + t_w)
        ratios.append(ratio)
        lines.append(f"{phase:<12} {listed:>7} {t_a:>10.2f} {t_r:>9.2f} {t_w:>8.2f} {ratio:>6.2f}")
    med = statistics.median(r[2] for r in rows)
    ok_ratio = max(ratios) <= RATIO
    lines.append(f"median actions {med:.2f} ms (target ≤ {TARGET_MS} ms compiled); ratio to replay + wins: "
                 f"median {statistics.median(ratios):.2f}, worst {max(ratios):.2f} (target ≤ {RATIO}): "
                 f"{'ok' if ok_ratio else 'OVER'}")
    if args.wsgi:
        lines.append(wsgi_figure(args.wsgi, args.seed))
    text = "\n".join(lines) + "\n"
    print(text, end="")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "actions_bench.txt").write_text(text, encoding="utf-8")
    failed = not ok_ratio or (ningbo_score.USING_COMPILED and med > TARGET_MS)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
