"""The cost of settling a session of 200 ``/v1/score`` bodies (``POST /v1/sessions/settle``)
beside scoring the same 200 bodies as one ``POST /v1/score/batch``: in process, and over HTTP on
the real server (gunicorn with gunicorn.conf.py, one worker, on free loopback ports).

    python bench/session_bench.py [--hands 200] [--repeat 15] [--seed 2024] [--no-http]

Target (docs: bench/README.md): a session of 200 score bodies takes at most 2 × the batch of the
same 200 bodies, in process and over HTTP (median of ``--repeat`` runs, the two alternating).
The bodies are seeded random valid wins (tests/handgen.py, 0 or 1 caishen, each with its own rules); each
is sent to the batch as it is, and to the session without its ``round_wind`` (the rotation's is
filled in; the round wind moves no 台 of these hands but 圈风刻, the same work).  Exit status 1
when a target fails.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import handgen  # noqa: E402
import ningbo_score  # noqa: E402
from load import free_port, http  # noqa: E402
from ningbo_score import sessions  # noqa: E402

LIMIT = 2.0


def bodies(n: int, seed: int) -> tuple[dict, dict]:
    """(the batch body, the session body) of the same ``n`` hands."""
    rng = random.Random(seed)
    hands = [handgen.random_request(rng, n_caishen=rng.choice((0, 1))) for _ in range(n)]
    session = {"players": ["Ann", "Bo", "Cy", "Di"], "first_dealer": "Ann",
               "hands": [{"score": {k: v for k, v in h.items() if k != "round_wind"}} for h in hands]}
    return {"requests": hands}, session


def median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def in_process(batch: dict, session: dict, repeat: int) -> tuple[float, float]:
    ningbo_score.score_batch(batch)
    sessions.settle(session)
    t_batch, t_session = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        answer = ningbo_score.score_batch(batch)
        t_batch.append(time.perf_counter() - start)
        start = time.perf_counter()
        sessions.settle(session)
        t_session.append(time.perf_counter() - start)
    assert answer["failed"] == 0, answer["failed"]
    return median_ms(t_batch), median_ms(t_session)


def over_http(batch: dict, session: dict, repeat: int) -> tuple[float, float]:
    port, metrics = free_port(), free_port()
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "METRICS_PORT": str(metrics),
           "WEB_CONCURRENCY": "1", "PYTHONPATH": str(ROOT), "LOG_LEVEL": "warning"}
    gunicorn = Path(sys.executable).parent / "gunicorn"
    proc = subprocess.Popen([str(gunicorn), "-c", "gunicorn.conf.py", "app:app"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if http("GET", base + "/healthz", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("gunicorn did not come up")
            time.sleep(0.2)
        batch_bytes, session_bytes = json.dumps(batch).encode(), json.dumps(session).encode()
        for path, body in (("/v1/score/batch", batch_bytes), ("/v1/sessions/settle", session_bytes)):
            status, data, _ = http("POST", base + path, body)       # warm-up, and a check
            assert status == 200, (path, status, data[:300])
        t_batch, t_session = [], []
        for _ in range(repeat):
            t_batch.append(http("POST", base + "/v1/score/batch", batch_bytes)[2])
            t_session.append(http("POST", base + "/v1/sessions/settle", session_bytes)[2])
        return median_ms(t_batch), median_ms(t_session)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--no-http", action="store_true", help="in process only")
    args = ap.parse_args()
    batch, session = bodies(args.hands, args.seed)
    print(f"compiled: {ningbo_score.USING_COMPILED}; {args.hands} hands; median of {args.repeat} runs; "
          f"bodies {len(json.dumps(batch)) // 1024} KiB (batch), {len(json.dumps(session)) // 1024} KiB (session)")
    ok = True
    runs = [("in process", in_process)] + ([] if args.no_http else [("HTTP, 1 gunicorn worker", over_http)])
    for name, run in runs:
        t_batch, t_session = run(batch, session, args.repeat)
        ratio = t_session / t_batch
        passed = ratio <= LIMIT
        ok &= passed
        print(f"{name:<24} batch {t_batch:8.1f} ms   session {t_session:8.1f} ms   ratio {ratio:5.2f} "
              f"(<= {LIMIT}) {'PASS' if passed else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
