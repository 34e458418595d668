"""The calculator's scoring with no signal: the body of POST /v1/score, /v1/waits or /v1/analyze
in, the answer out as the service writes it (status and JSON text), by the same library running
in the browser (Pyodide; offline/worker.js calls :func:`answer`).

The service's JSON is orjson's compact UTF-8; ``json.dumps`` with these separators and
``ensure_ascii=False`` writes the same bytes for these answers (ints, strings, lists, objects;
the float values of /v1/analyze in Python's shortest repr, which orjson also writes).
tests/page/test_page_offline.py compares the two on the golden cases."""
from __future__ import annotations

import json

from ningbo_score import ScoreError, analyze, score, waits

ENDPOINTS = {"/v1/score": score, "/v1/waits": waits, "/v1/analyze": analyze}


def answer(path: str, body_text: str, lang: str) -> tuple[int, str]:
    """(status, JSON text) of the endpoint ``path`` for the body ``body_text``: 200 and the
    answer, or the problem of a refused body (400/422) with its status, in ``lang``."""
    try:
        out, status = ENDPOINTS[path](json.loads(body_text), lang), 200
    except ScoreError as err:
        out, status = err.to_problem(lang), err.status
    return status, json.dumps(out, ensure_ascii=False, separators=(",", ":"))
