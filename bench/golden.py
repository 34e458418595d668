#!/usr/bin/env python3
"""Record, or compare against a record, the library's answers to a fixed set of seeded requests.

Run from the project root:
    .venv/bin/python bench/golden.py --record /tmp/golden.json     # before a change
    .venv/bin/python bench/golden.py --compare /tmp/golden.json    # after it (exit 1 on a difference)

The requests (tests/handgen.py, seed fixed): ``score`` with 0-7 caishen on every preset, hands
won by a discard (the caishen discard restriction), ``item_tai`` and ``min_tai`` overrides,
requests mutated into refused ones (422s and 400s), and ``waits`` of tenpai hands.  Each answer
is the 200 body, or the problem object (code, fields, messages) of the refusal.  Run it both
compiled and with ``NINGBO_SCORE_PURE=1``: both must match the same record.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import handgen  # noqa: E402
import ningbo_score  # noqa: E402

SEED = 20261201


def requests() -> list[tuple[str, dict]]:
    rng = random.Random(SEED)
    out: list[tuple[str, dict]] = []
    for n in range(8):
        for preset in handgen.PRESETS:
            if n > 4 and preset != "ningbo-7baida" and rng.random() < 0.5:
                continue
            for _ in range(40 if n < 4 else 25):
                try:
                    r = handgen.random_request(rng, n_caishen=n, presets=(preset,), tries=200,
                                               min_tai_override=rng.random() < 0.3)
                except RuntimeError:
                    continue
                out.append(("score", r))
    for _ in range(300):                      # discard wins (no caishen in the concealed hand)
        out.append(("score", handgen.random_request(rng, n_caishen=0, win_by=("discard",))))
    for _ in range(150):                      # item_tai overrides
        r = handgen.random_request(rng, n_caishen=rng.randrange(4), presets=("ningbo",))
        r["rules"] = {"preset": "ningbo", "item_tai": {rng.choice(["dragon_pung", "all_pungs", "single_wait",
                                                                    "self_draw", "half_flush", "edge_wait"]):
                                                       rng.randrange(0, 6)}}
        out.append(("score", r))
    for _ in range(250):                      # refused: a tile swapped, dropped or doubled; bad fields
        r = copy.deepcopy(handgen.random_request(rng, n_caishen=rng.randrange(3)))
        c = r["hand"]["concealed"]
        what = rng.randrange(5)
        if what == 0:
            c[rng.randrange(len(c))] = rng.choice(handgen.KINDS)
        elif what == 1:
            c.pop(rng.randrange(len(c)))
        elif what == 2:
            c.append(c[0])
        elif what == 3:
            r["seat_wind"] = rng.choice(["X", 3, None])
        else:
            r["win"]["by"] = rng.choice(["discard", "robbing_kong", "flying"])
        out.append(("score", r))
    for n in (0, 0, 1, 2, 3):
        for _ in range(40):
            tenpai, _w = handgen.random_tenpai(rng, n_caishen=n, presets=("ningbo", "ningbo-456"))
            out.append(("waits", tenpai))
    return out


def answer(route: str, request: dict):
    fn = ningbo_score.score if route == "score" else ningbo_score.waits
    try:
        return fn(copy.deepcopy(request))
    except ningbo_score.ScoreError as e:
        return e.to_problem("en")


def main() -> int:
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--record", metavar="PATH")
    g.add_argument("--compare", metavar="PATH")
    args = ap.parse_args()
    reqs = requests()
    got = [json.loads(json.dumps(answer(route, r))) for route, r in reqs]
    mode = "compiled" if ningbo_score.USING_COMPILED else "plain"
    if args.record:
        with open(args.record, "w", encoding="utf-8") as f:
            json.dump({"requests": reqs, "answers": got}, f, ensure_ascii=False)
        codes = sum(1 for a in got if "code" in a)
        print(f"recorded {len(reqs)} requests ({mode}; {codes} refused) to {args.record}")
        return 0
    with open(args.compare, encoding="utf-8") as f:
        want = json.load(f)
    assert json.loads(json.dumps(reqs)) == want["requests"], "the generated requests changed"
    bad = [i for i, (a, b) in enumerate(zip(got, want["answers"])) if a != b]
    print(f"{len(reqs)} requests ({mode}): {len(bad)} differ")
    for i in bad[:5]:
        print(json.dumps(reqs[i][1], ensure_ascii=False), "\n  want", json.dumps(want["answers"][i])[:400],
              "\n  got ", json.dumps(got[i])[:400])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
