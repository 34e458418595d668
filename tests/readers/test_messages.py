"""One set of messages: every 400 in English and Chinese after Accept-Language, the same words
on every route, the language chosen by q-value per primary tag, the engine's ``reasons`` in the
request's language, and a refused /v1/score scored at most once."""
from __future__ import annotations

import copy

import pytest

from helpers import CJK
from service import bodies
import ningbo_score
from tools import examples



@pytest.mark.parametrize("header,lang", [
    # what mobile apps send: Chinese first, English as a fallback (werkzeug's best_match picked en)
    ("zh-CN,en;q=0.8", "zh"), ("zh-TW,en;q=0.8", "zh"), ("zh-Hans-CN;q=1.0, en;q=0.9", "zh"),
    ("en;q=0.8, zh-Hant-HK", "zh"), ("en-GB,en;q=0.9,zh-CN;q=0.8", "en"), ("zh-CN;q=0.5, en-US;q=0.5", "en"),
    ("zh;q=0", "en"), ("fr, *;q=0.1", "en"), ("", "en"), ("zh-CN;q=x", "en"),
])
def test_language_by_q_value_of_the_primary_tag(header, lang):
    assert bodies.language_of(header) == lang


def test_mobile_headers_get_chinese_answers(client):
    for header in ("zh-CN,en;q=0.8", "zh-TW,en;q=0.8", "zh-Hans-CN;q=1.0, en;q=0.9"):
        problem = client.score(examples.NOT_A_WINNING_HAND, headers={"Accept-Language": header}).get_json()
        assert problem["title"] == "不是胡牌", header


def _bad_seat() -> dict:
    body = copy.deepcopy(examples.API_MD)
    body["seat_wind"] = "X"
    return body


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_same_words_on_every_route(client, lang):
    """seat_wind "X": the same message from /v1/score, inside /v1/score/batch and from /v1/waits."""
    headers = {"Accept-Language": lang}
    alone = client.score(_bad_seat(), headers=headers).get_json()
    batch = client.post("/v1/score/batch", json={"requests": [_bad_seat()]}, headers=headers).get_json()
    waits_body = copy.deepcopy(examples.API_MD)
    waits_body["seat_wind"] = "X"
    del waits_body["hand"]["winning_tile"]
    waits_body["hand"]["concealed"].remove(examples.API_MD["hand"]["winning_tile"])
    waits_body["win"] = {}
    waits = client.post("/v1/waits", json=waits_body, headers=headers).get_json()
    in_batch = batch["results"][0]["problem"]
    assert alone["errors"]["seat_wind"] == in_batch["errors"]["seat_wind"] == waits["errors"]["seat_wind"]
    assert alone == in_batch
    words = alone["errors"]["seat_wind"][0]
    assert bool(CJK.search(words)) == (lang == "zh")
    # and the library called with a dict says the same
    with pytest.raises(ningbo_score.ScoreError) as err:
        ningbo_score.score(_bad_seat())
    assert err.value.to_problem(lang) == alone


@pytest.mark.parametrize("path,body", [
    ("/v1/score", {"seat_wind": 1, "round_wind": "Q", "hand": {"concealed": ["1x", 3], "winning_tile": [],
                                                               "melds": [{"type": "x", "tiles": 5, "added": 1}],
                                                               "flowers": {}},
                   "win": {"by": "now", "last_tile": "yes"}, "caishen": {"indicator": "5p", "kinds": []},
                   "claims_from_winner": {"Q": 1, "E": -1}, "base_points": 2.5, "extra": None,
                   "rules": {"preset": "x", "min_tai": True, "item_tai": {"nope": 1}, "hand_cap": 0, "q": 1}}),
    ("/v1/waits", {"seat_wind": "E", "round_wind": "E", "hand": {"concealed": "12x", "winning_tile": "1m"},
                   "win": {"by": "self_draw"}}),
    ("/v1/table/next", {"dealer": "0", "round_wind": 5, "dealers_this_round": 9, "result": {"draw": False}}),
    ("/v1/table/claims", {"discarder": "X", "claims": [{"seat": 1, "type": "ron"}, 7]}),
    ("/v1/table/escape", {"base_points": 0, "level": 99}),
    ("/v1/score/batch", {"requests": [1], "x": 2}),
])
def test_every_400_message_in_both_languages(client, path, body):
    en = client.post(path, json=body).get_json()
    zh = client.post(path, json=body, headers={"Accept-Language": "zh"}).get_json()
    assert en["status"] == zh["status"] == 400 and en["code"] == zh["code"] == "invalid_request"
    assert list(en["errors"]) == list(zh["errors"])
    for key in en["errors"]:
        assert all(not CJK.search(m) for m in en["errors"][key]), (key, en["errors"][key])
        assert all(CJK.search(m) for m in zh["errors"][key]), (key, zh["errors"][key])


def test_reasons_in_the_request_language(client):
    # the worked example under min_tai 5: counted 台 4 < 5, so ineligible with one reason
    body = copy.deepcopy(examples.API_MD)
    body["rules"] = {"preset": "ningbo", "min_tai": 5}
    en = client.score(body).get_json()
    zh = client.score(body, headers={"Accept-Language": "zh-CN,en;q=0.8"}).get_json()
    assert en["eligible"] is zh["eligible"] is False and en["counted_tai"] == 4
    assert en["reasons"] == ["counted 台 4 is below the minimum of 5"]
    assert len(zh["reasons"]) == 1 and CJK.search(zh["reasons"][0].replace("台", "")) and "4" in zh["reasons"][0]
    assert ningbo_score.score(copy.deepcopy(body), "zh")["reasons"] == zh["reasons"]
    batch = client.post("/v1/score/batch", json={"requests": [body]}, headers={"Accept-Language": "zh"}).get_json()
    assert batch["results"][0]["score"]["reasons"] == zh["reasons"]


def test_a_refused_score_runs_the_engine_once(client, monkeypatch):
    from ningbo_score import api

    calls = []
    real = api.score_hand

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "score_hand", counting)
    assert client.score(examples.NOT_A_WINNING_HAND).status_code == 422
    assert len(calls) == 1
    calls.clear()
    assert client.score(_bad_seat()).status_code == 400 and not calls     # refused before the engine
