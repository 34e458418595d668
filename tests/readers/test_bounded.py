"""A refused request does bounded work (issue 14; docs/api.md "Additions for rule book 2"): at most
50 problems listed, the first in the order of docs/rules.md §10.15, ``more_errors`` saying how many
more were found; array caps checked before their items are read; reading stops soon after the
first 50 problems.  (Times are measured by bench/bad_bodies.py, not here.)"""
from __future__ import annotations

import copy
import json

import pytest

import ningbo_score
from ningbo_score.errors import MAX_PROBLEMS, Problem, ScoreError
from tools import examples


def test_at_most_50_problems_listed_first_by_rank():
    # 60 invalid_meld problems listed after 10 wrong_tile_count ones: sorted by §10.15, melds
    # (invalid_meld) come first, so the 50 listed are all invalid_meld and 20 are left off
    problems = [Problem("wrong_tile_count", f"w{i}", "w", "w") for i in range(10)]
    problems += [Problem("invalid_meld", f"m{i}", "m", "m") for i in range(60)]
    body = ScoreError(problems).to_problem()
    assert MAX_PROBLEMS == 50
    assert list(body["errors"]) == [f"m{i}" for i in range(50)]
    assert body["more_errors"] == 70 - 50 and body["code"] == "invalid_meld"


def test_no_more_errors_when_all_are_listed():
    body = ScoreError([Problem("invalid_request", f"p{i}", "x", "x") for i in range(50)]).to_problem()
    assert len(body["errors"]) == 50 and "more_errors" not in body


def _score_body(**hand) -> dict:
    body = copy.deepcopy(examples.API_MD)
    body["hand"].update(hand)
    return body


def _bench_body(name: str):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import bad_bodies

    return bad_bodies.bodies()[name]


def test_21800_empty_melds_are_one_problem(client):
    # the 64 KiB body of issue 14: the cap (4 melds) is checked before any meld is read
    path, body, _, _ = _bench_body("melds_64k")
    assert body.count(b"{}") > 21000
    response = client.post(path, data=body, content_type="application/json")
    answer = response.get_json()
    assert response.status_code == 422 and answer["code"] == "wrong_tile_count"
    assert answer["errors"] == {"hand.melds": ["A hand has at most 4 melds."]}
    assert len(response.get_data()) < 1024


@pytest.mark.parametrize("field,value,code", [
    ("concealed", ["zz"] * 1000, "wrong_tile_count"),      # no problem per unknown tile
    ("concealed", "z" * 5000, "wrong_tile_count"),         # a compact string past 8 characters a tile
    ("flowers", ["zz"] * 1000, "invalid_request"),
])
def test_tile_arrays_are_capped_before_they_are_read(field, value, code):
    with pytest.raises(ScoreError) as err:
        ningbo_score.score(_score_body(**{field: value}))
    assert err.value.code == code and [p.path for p in err.value.problems] == [f"hand.{field}"]


def test_batch_over_200_is_refused_before_its_items_are_read():
    with pytest.raises(ScoreError) as err:
        ningbo_score.score_batch({"requests": [{"bad": i} for i in range(5000)]})
    assert [p.path for p in err.value.problems] == ["requests"] and err.value.status == 400


@pytest.mark.parametrize("n", [200, 5000])
def test_reading_stops_after_the_first_problems(client, n):
    # unknown fields: the answer is the same whatever the body's size past them (every array is
    # capped before its items are read: test_claims_capped_before_they_are_read)
    unknown = {**copy.deepcopy(examples.API_MD), **{f"x{i}": 0 for i in range(n)}}
    answer_u = client.post("/v1/score", json=unknown).get_json()
    # (Flask's test client sends the keys sorted)
    assert list(answer_u["errors"]) == sorted(f"x{i}" for i in range(n))[:MAX_PROBLEMS]
    # 51 unknown keys read (one past the 50 listed), then the reading stops
    assert answer_u["more_errors"] == 1


def test_a_1_mib_batch_of_bad_items_answers_within_1_mib(client):
    path, body, size_limit, _ = _bench_body("batch_1mib_bad")
    response = client.post(path, data=body, content_type="application/json")
    answer = response.get_json()
    assert response.status_code == 200 and answer["failed"] == 200
    assert len(response.get_data()) <= size_limit
    for result in answer["results"]:
        problem = result["problem"]
        assert problem["status"] == 400
        assert sum(len(m) for m in problem["errors"].values()) <= MAX_PROBLEMS
        assert problem["more_errors"] >= 1


def _held_after(call) -> int:
    """Bytes still allocated once ``call()`` has returned and its result is dropped, with the
    garbage collector off: what only a collection would free (reference cycles)."""
    import gc
    import tracemalloc

    call()                                      # caches and lazy imports first
    gc.collect()
    gc.disable()
    tracemalloc.start()
    try:
        call()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        gc.enable()
    return held


@pytest.mark.parametrize("route", ["score", "batch"])
def test_a_refused_body_is_freed_at_once(route):
    """A refusal keeps none of the body alive in reference cycles (marshmallow raises its error
    from a frame that holds it and the data): 200 items of 1,000 empty melds each are about 15 MB
    once parsed; before, all of it stayed until the garbage collector ran."""
    item = {"hand": {"melds": [{} for _ in range(1000)]}}
    if route == "score":
        def call():
            body = {"hand": {"melds": [{} for _ in range(200 * 1000)]}}
            with pytest.raises(ScoreError):
                ningbo_score.score(body)
    else:
        def call():
            body = {"requests": [copy.deepcopy(item) for _ in range(200)]}
            answer = ningbo_score.score_batch(body)
            assert answer["failed"] == 200
    assert _held_after(call) < 2_000_000


# --- every list capped, no repeats where they mean nothing, keys shown cut short (issue 26) ---------

def _with_rules(**rules) -> dict:
    return {**copy.deepcopy(examples.API_MD), "rules": {"preset": "ningbo", **rules}}


def test_required_patterns_capped_and_each_once(client):
    from ningbo_score.readers.request_schemas import ITEM_IDS

    # every item id once: the most there can be, taken (a hand needs one of them)
    assert client.post("/v1/score", json=_with_rules(required_patterns=list(ITEM_IDS))).status_code == 200
    # 2,100 requests of 5,000 ids each took a worker to 516 MiB through the rules cache
    for value in (list(ITEM_IDS) + ["self_draw"], ["self_draw"] * 5_000):
        answer = client.post("/v1/score", json=_with_rules(required_patterns=value)).get_json()
        assert answer["status"] == 400
        assert answer["errors"] == {"rules.required_patterns": [f"Must have at most {len(ITEM_IDS)} items."]}
    answer = client.post("/v1/score", json=_with_rules(required_patterns=["self_draw", "self_draw"])).get_json()
    assert answer["errors"] == {"rules.required_patterns": ["Must not repeat an item."]}


def test_caishen_kinds_capped_before_they_are_read(client):
    from ningbo_score.readers.request_schemas import MAX_CAISHEN_KINDS

    assert MAX_CAISHEN_KINDS == 34 + 8        # every kind and every flower
    body = {**copy.deepcopy(examples.API_MD), "caishen": {"kinds": [0] * 30_000}}
    data = json.dumps(body, separators=(",", ":"))
    assert len(data) < 64 * 1024
    answer = client.post("/v1/score", data=data, content_type="application/json").get_json()
    # one problem for the array (a 64 KiB body of 32,686 integers had 32,636 problems counted)
    assert answer["errors"] == {"caishen.kinds": ["Must have at most 42 items."]} and "more_errors" not in answer


def test_item_tai_keys_capped_and_a_long_key_shown_cut_short(client):
    from ningbo_score.errors import MAX_SHOWN
    from ningbo_score.readers.request_schemas import ITEM_IDS

    many = {f"k{i}": 1 for i in range(len(ITEM_IDS) + 1)}
    answer = client.post("/v1/score", json=_with_rules(item_tai=many)).get_json()
    assert answer["errors"] == {"rules.item_tai": [f"Must have at most {len(ITEM_IDS)} keys."]}
    # a 60 KB bad key got a 120,832 B answer: now the key is shown in 64 characters
    body = _with_rules(item_tai={"k" * 60_000: 1})
    response = client.post("/v1/score", json=body)
    (path,) = response.get_json()["errors"]
    assert path == "rules.item_tai." + "k" * (MAX_SHOWN - 1) + "…"
    assert len(response.get_data()) < 1024


def test_claims_capped_before_they_are_read(client):
    from ningbo_score.readers.request_schemas import MAX_CLAIM_ITEMS

    answer = client.post("/v1/table/claims", json={"discarder": "E", "claims": [{}] * 5000}).get_json()
    assert answer["errors"] == {"claims": [f"Must have at most {MAX_CLAIM_ITEMS} items."]}


@pytest.mark.parametrize("text, repeated", [
    (b'{"seat_wind": "E", "seat_wind": "S"}', '"seat_wind"'),
    (b'{"hand": {"concealed": "1m", "winning_tile": "1m", "winning_tile": "2m"}}', '"winning_tile"'),
    (b'{"requests": [{"a": 1}, {"b": 1, "b": 2}]}', '"b"'),
])
def test_a_repeated_key_is_refused(client, text, repeated):
    """orjson keeps the last of repeated keys; a proxy that keeps the first would see another
    request: a 400 malformed_json naming the key."""
    path = "/v1/score/batch" if text.startswith(b'{"requests"') else "/v1/score"
    answer = client.post(path, data=text, content_type="application/json").get_json()
    assert answer["status"] == 400 and answer["code"] == "malformed_json"
    assert repeated in answer["detail"]


def test_colons_in_strings_are_no_repeat(client):
    # more colons than keys sends the body to the standard library, which finds no repeat
    body = {**copy.deepcopy(examples.API_MD), "x:y": "a:b:c"}
    answer = client.post("/v1/score", json=body).get_json()
    assert answer["errors"] == {"x:y": ["Unknown field."]}


def test_repeated_key_count():
    from service import bodies

    assert bodies.repeated_key(b'{"a": {"b": [1, {"c": 2}]}}', {"a": {"b": [1, {"c": 2}]}}) is None
    assert bodies.repeated_key(b'{"a": 1, "a": 2}', {"a": 2}) == '"a"'
    for scalar in (b"null", b"1", b'"a:b"'):
        assert bodies.repeated_key(scalar, json.loads(scalar)) is None
    long_key = "k" * 1000
    shown = bodies.repeated_key(f'{{"{long_key}": 1, "{long_key}": 2}}'.encode(), {long_key: 2})
    assert shown is not None and len(shown) == 64
