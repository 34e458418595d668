"""The golden test: seeded requests over every route answer as they did when the cases were
recorded (tools/make_golden.py wrote tests/golden/cases.jsonl.gz, with a fixed seed).

Compared exactly: the status, and the answer after ``normalise``, which keeps every 200 field,
every problem's type, title, status and code and its error paths in order, and drops only message
wording (a problem's ``detail`` and the messages under each path, and the engine's ``reasons`` in
Chinese): messages may change where the routes now share one set of words.  The messages are
checked apart: every problem still has, under each of its paths, at least one non-empty message.
"""
from __future__ import annotations

import gzip
import json
import logging

import pytest

from tools.make_golden import GOLDEN, language_of, normalise, run

CASES = [json.loads(line) for line in gzip.open(GOLDEN, "rt", encoding="utf-8") if line.strip()]


@pytest.fixture(scope="module")
def golden_client():
    from service import create_app

    logging.disable(logging.INFO)
    try:
        yield create_app({"TESTING": False}).test_client()
    finally:
        logging.disable(logging.NOTSET)


def _messages_present(answer) -> bool:
    if isinstance(answer, list):
        return all(_messages_present(v) for v in answer)
    if not isinstance(answer, dict):
        return True
    if str(answer.get("type", "")).startswith("urn:ningbo-score:problem:"):
        if not (isinstance(answer.get("detail"), str) and answer["detail"]):
            return False
        return all(isinstance(msgs, list) and msgs and all(isinstance(m, str) and m for m in msgs)
                   for msgs in answer.get("errors", {}).values())
    return all(_messages_present(v) for v in answer.values())


def test_the_cases_cover_every_route_and_code():
    routes = {(c["method"], c["path"].split("/v1/rules/")[0]) for c in CASES}
    for route in [("POST", "/v1/score"), ("POST", "/v1/score/batch"), ("POST", "/v1/waits"), ("POST", "/v1/analyze"),
                  ("POST", "/v1/table/next"), ("POST", "/v1/table/claims"), ("POST", "/v1/table/escape"),
                  ("GET", "/v1/levels"), ("GET", "/v1/rules"), ("GET", "")]:
        assert route in routes, route
    codes = {c["answer"].get("code") for c in CASES if c["status"] != 200}
    assert codes >= {"malformed_json", "invalid_request", "payload_too_large", "unsupported_media_type",
                     "too_many_copies", "wrong_tile_count", "invalid_meld", "caishen_in_meld",
                     "winning_tile_not_in_hand", "inconsistent_win_context", "not_a_winning_hand",
                     "caishen_needs_self_draw", "discard_win_not_allowed", "not_found", "method_not_allowed"}
    assert sum(c["status"] == 200 for c in CASES) > 1000 and len(CASES) > 2500


def test_golden_answers(golden_client):
    changed = []
    for i, case in enumerate(CASES):
        status, answer = run(case, golden_client)
        lang = language_of(case["headers"])
        if status != case["status"] or normalise(answer, lang) != normalise(case["answer"], lang):
            changed.append((i, case["method"], case["path"], case["status"], status))
        elif not _messages_present(answer):
            changed.append((i, case["method"], case["path"], "messages missing"))
    assert not changed, f"{len(changed)} of {len(CASES)} answers changed, first: {changed[:5]}"
