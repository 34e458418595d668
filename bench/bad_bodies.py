"""Refused bodies do bounded work (issue 14): time and answer size of the worst refused bodies,
in process (Flask's test client, no network), one at a time.

    NINGBO_SCORE_PURE=1 python bench/bad_bodies.py [--runs 5]

Bodies:
- ``melds_64k``: a /v1/score body whose ``hand.melds`` is 21,800 ``{}`` (64 KiB, the body limit);
  target: at most 100 ms and an answer of at most 64 KiB.
- ``batch_1mib_bad``: a /v1/score/batch body of 200 bad items filling 1 MiB (each item: wrong
  types everywhere, 14 unknown tiles, 4 empty melds, 8 bad flowers and unknown fields up to about
  5 KiB); target: at most 1 s and an answer of at most 1 MiB.
- ``batch_1mib_many``: 1 MiB of ``{}`` items (far more than 200).
- ``claims_64k``: /v1/table/claims with 64 KiB of ``{}`` claims.
- ``unknown_64k``: a /v1/score body with 64 KiB of unknown fields.
- ``replay_noise``: a /v1/replay log of 400 events of noise (the most allowed: E drawing again
  and again; the first illegal event is event 1); ``replay_bad_events``: 400 events each
  malformed (unknown tiles, unknown fields); ``replay_batch_1mib``: 50 such noise logs padded
  to 1 MiB.  Targets as above (100 ms and 64 KiB; the batch 1 s and 1 MiB).

Prints, per body: the status, the median and worst time in ms and the answer's size in bytes,
and whether the targets hold (exit status 1 if one does not).
"""
from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service import create_app  # noqa: E402
from service.routes import MAX_BATCH_BODY_BYTES, MAX_BODY_BYTES  # noqa: E402
from tools import examples  # noqa: E402


def _fill(prefix: str, unit: str, suffix: str, limit: int) -> bytes:
    n = (limit - len(prefix) - len(suffix) + 1) // (len(unit) + 1)
    return (prefix + ",".join([unit] * n) + suffix).encode()


def bad_item(size: int) -> dict:
    item = {"seat_wind": 1, "round_wind": "Q", "caishen": {"indicator": 7, "kinds": "x"},
            "hand": {"concealed": ["zz"] * 14, "winning_tile": [], "melds": [{}] * 4, "flowers": ["x"] * 8},
            "win": {"by": "now", "last_tile": "yes"}, "base_points": 0.5}
    i = 0
    while len(json.dumps(item)) < size:
        item[f"unknown_{i}"] = i
        i += 1
    return item


def bodies() -> dict[str, tuple[str, bytes, int, float]]:
    """name -> (path, body, answer size limit, time limit in s)."""
    head = json.dumps({k: v for k, v in examples.API_MD.items() if k != "hand"})[:-1]
    melds = _fill(head + ', "hand": {"concealed": "123m", "winning_tile": "1m", "melds": [', "{}", "]}}",
                  MAX_BODY_BYTES)
    items = [bad_item(5 * 1024 - 10) for _ in range(200)]
    batch = json.dumps({"requests": items}).encode()
    assert len(batch) <= MAX_BATCH_BODY_BYTES, len(batch)
    many = _fill('{"requests": [', "{}", "]}", MAX_BATCH_BODY_BYTES)
    claims = _fill('{"discarder": "E", "claims": [', "{}", "]}", MAX_BODY_BYTES)
    unknown = {**examples.API_MD}
    i = 0
    while len(json.dumps(unknown)) < MAX_BODY_BYTES - 40:
        unknown[f"x{i}"] = 0
        i += 1
    noise = {**examples.REPLAY_DRAW, "events": [{"t": "draw", "seat": "E", "tile": "C"}] * 400}
    bad_events = {**examples.REPLAY_DRAW, "events": [{"t": "draw", "seat": "E", "tile": "zz", "x": 1}] * 400}
    width = 1                    # JSON white space after each comma: 50 noise logs fill 1 MiB
    while len(json.dumps({"logs": [noise] * 50}, separators=("," + " " * (width + 1), ":"))) <= MAX_BATCH_BODY_BYTES:
        width += 1
    replay_batch = json.dumps({"logs": [noise] * 50}, separators=("," + " " * width, ":")).encode()
    assert len(replay_batch) <= MAX_BATCH_BODY_BYTES, len(replay_batch)
    return {
        "replay_noise": ("/v1/replay", json.dumps(noise).encode(), 64 * 1024, 0.1),
        "replay_bad_events": ("/v1/replay", json.dumps(bad_events).encode(), 64 * 1024, 0.1),
        "replay_batch_1mib": ("/v1/replay/batch", replay_batch, 1024 * 1024, 1.0),
        "melds_64k": ("/v1/score", melds, 64 * 1024, 0.1),
        "batch_1mib_bad": ("/v1/score/batch", batch, 1024 * 1024, 1.0),
        "batch_1mib_many": ("/v1/score/batch", many, 1024 * 1024, 1.0),
        "claims_64k": ("/v1/table/claims", claims, 64 * 1024, 0.1),
        "unknown_64k": ("/v1/score", json.dumps(unknown).encode(), 64 * 1024, 0.1),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    runs = ap.parse_args().runs
    logging.disable(logging.INFO)
    client = create_app({"TESTING": False}).test_client()
    client.post("/v1/score", json=examples.API_MD)            # warm up (imports, first-request work)
    ok = True
    for name, (path, body, size_limit, time_limit) in bodies().items():
        times, answer, status = [], b"", 0
        for _ in range(runs):
            started = time.perf_counter()
            response = client.post(path, data=body, content_type="application/json")
            times.append(time.perf_counter() - started)
            answer, status = response.get_data(), response.status_code
        worst = max(times)
        # refused (4xx), or a batch answered item by item (200)
        refused = 400 <= status < 500 or (status == 200 and path in ("/v1/score/batch", "/v1/replay/batch"))
        fits = worst <= time_limit and len(answer) <= size_limit and refused
        ok &= fits
        print(f"{name:<16} body {len(body):>8} B  status {status}  median {statistics.median(times) * 1000:7.1f} ms"
              f"  worst {worst * 1000:7.1f} ms  answer {len(answer):>7} B  "
              f"(targets {time_limit * 1000:.0f} ms, {size_limit} B: {'met' if fits else 'MISSED'})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
