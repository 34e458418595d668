"""API tests through Flask's test client: every endpoint and every error code of docs/api.md.

Every response goes through ``client`` (conftest.py), which also validates it against
openapi.yaml.  Expected results are worked out by hand from docs/rules.md; the arithmetic is in the
comments.
"""
from __future__ import annotations

import copy
import json
import logging
import re
import subprocess
import typing
from pathlib import Path

import pytest

from helpers import has_chinese

import ningbo_score
from ningbo_score import ScoreError
from tools import examples

ROOT = Path(__file__).resolve().parents[2]

PROBLEM_KEYS = {"type", "title", "status", "detail", "code"}


def items_of(body: dict) -> list[tuple]:
    return [(it["id"], it["tai"], tuple(it.get("tiles", ()))) for it in body["items"]]


def payments_of(body: dict) -> set[tuple]:
    return {(p["from"], p["to"], p["amount"], p["multiplier"], p["reason"], p["liability"])
            for p in body["payments"]}


def assert_problem(response, status: int, code: str, paths: list[str] | None = None) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert PROBLEM_KEYS <= set(body), body
    assert body["status"] == status and body["code"] == code
    assert body["type"] == f"urn:ningbo-score:problem:{code}"
    text = response.get_data(as_text=True)
    assert "Traceback" not in text and "<html" not in text.lower()
    if paths is not None:
        assert list(body.get("errors", {})) == paths, body
    return body


# --- POST /v1/score: hands worked out by hand --------------------------------------------------

def test_api_md_worked_example(client):
    response = client.score(examples.API_MD)
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    body = response.get_json()
    # Two-sided wait on 4m (2-3-4m), not 平胡 (a pung of C) → 排胡 0; 自摸 1; no 5p (the caishen)
    # among the concealed tiles → 硬胡 1; pung of 中 → 1; 2f is South's flower → 正花 1.
    assert items_of(body) == [("pai_hu", 0, ()), ("self_draw", 1, ()), ("no_caishen", 1, ()),
                              ("dragon_pung", 1, ("C",)), ("seat_flower", 1, ("2f",))]
    # 0 + 1 + 1 + 1 + 1 = 4 台, no bonus item, min 4 → eligible
    assert (body["tai"], body["counted_tai"], body["min_tai"], body["eligible"]) == (4, 4, 4, True)
    assert body["reasons"] == []
    # linear: 1 × (1 + 4) = 5; self-draw, nobody related (W claimed 1 < 3): each pays 1 × 5
    assert body["points"] == 5
    assert payments_of(body) == {("E", "S", 5, 1, "self_draw", None), ("W", "S", 5, 1, "self_draw", None),
                                 ("N", "S", 5, 1, "self_draw", None)}
    assert body["net"] == {"E": -5, "S": 15, "W": -5, "N": -5}
    assert body["caishen"]["kinds"] == ["5p"]  # indicator rule: the indicator's own kind
    assert body["rules"]["preset"] == "ningbo" and body["rules"]["hand_cap"] == 1000
    d = body["decomposition"]
    assert d["pair"] == ["9s", "9s"] and d["wait"] == "two_sided" and d["caishen"] == []
    assert {(s["type"], tuple(s["tiles"]), s["source"]) for s in d["sets"]} == {
        ("chow", ("2m", "3m", "4m"), "concealed"), ("chow", ("6m", "7m", "8m"), "concealed"),
        ("pung", ("C", "C", "C"), "meld"), ("kong", ("1s", "1s", "1s", "1s"), "meld")}


def test_discard_win_with_a_related_player(client):
    body = client.score(examples.DISCARD_LIABILITY).get_json()
    # 8s in the middle of 7-8-9s → 夹 1; no 1p among the concealed tiles → 硬胡 1;
    # pung of 发 → 1; 6f is South's flower → 正花 1.  4 台 (no 自摸: a discard).
    assert items_of(body) == [("closed_wait", 1, ()), ("no_caishen", 1, ()),
                              ("dragon_pung", 1, ("F",)), ("seat_flower", 1, ("6f",))]
    assert (body["tai"], body["counted_tai"], body["eligible"]) == (4, 4, True)
    # linear: 2 × (1 + 4) = 10.  South claimed 3 melds from East → East related (RULES §7).
    # Discard by W: W pays 2 × 10 = 20; related East pays +2 → 20; North pays nothing (not listed).
    assert body["points"] == 10
    assert payments_of(body) == {("W", "S", 20, 2, "discard", None), ("E", "S", 20, 2, "discard", "related")}
    assert body["net"] == {"E": -20, "S": 40, "W": -20, "N": 0}


def test_same_hand_under_456_rules_doubles(client):
    body = client.score(examples.DISCARD_LIABILITY_456).get_json()
    assert body["rules"]["preset"] == "ningbo-456" and body["rules"]["points"] == "doubling"
    assert body["tai"] == 4
    # doubling: 2 × 2^(4 − 4) = 2; W pays 2 × 2 = 4, related E 2 × 2 = 4 (cap 5 not reached)
    assert body["points"] == 2
    assert payments_of(body) == {("W", "S", 4, 2, "discard", None), ("E", "S", 4, 2, "discard", "related")}
    assert body["net"] == {"E": -4, "S": 8, "W": -4, "N": 0}


def test_ineligible_hand_pays_nothing(client):
    body = client.score(examples.INELIGIBLE).get_json()
    # all chows, two-sided on 4m (4-5-6m), pair 5s is no wind → 平胡 1; no caishen → 硬胡 1
    assert items_of(body) == [("ping_hu", 1, ()), ("no_caishen", 1, ())]
    # 2 台 < 4 → not eligible: points 0, no payments, net all 0
    assert (body["tai"], body["counted_tai"], body["eligible"]) == (2, 2, False)
    assert len(body["reasons"]) == 1 and "2" in body["reasons"][0] and "4" in body["reasons"][0]
    assert body["points"] == 0 and body["payments"] == []
    assert body["net"] == {"E": 0, "S": 0, "W": 0, "N": 0}


def test_item_tai_override_drops_an_item(client):
    body = client.score(examples.ITEM_TAI_OVERRIDE).get_json()
    # docs/api.md's hand with 硬胡 worth 0: 0 + 1 + 1 + 1 = 3 台 < 4 → not eligible
    assert [i for i, _, _ in items_of(body)] == ["pai_hu", "self_draw", "dragon_pung", "seat_flower"]
    assert (body["tai"], body["eligible"], body["points"]) == (3, False, 0)
    assert body["rules"]["item_tai"] == {"no_caishen": 0}
    assert body["caishen"]["kinds"] == ["5p"]  # 五饼 is 5p


def test_caishen_as_wildcard(client):
    body = client.score({
        "seat_wind": "E", "round_wind": "E", "caishen": {"indicator": "4p"},
        "hand": {"concealed": "123m 456m 789m 23s 4p EE", "winning_tile": "2s", "flowers": "15f"},
        "win": {"by": "self_draw"},
    }).get_json()
    # The 4p (caishen) completes 2-3s: as 1s the 2s is in the middle (夹 1), as 4s it is an end
    # (two-sided; pair EE is the seat wind → no 平胡 → 排胡 0).  Best: 1s.  自摸 1; 1f and 5f are
    # East's flowers → 正花 1 each; a caishen in hand → no 硬胡.  1 + 1 + 1 + 1 = 4 台.
    assert items_of(body) == [("closed_wait", 1, ()), ("self_draw", 1, ()), ("seat_flower", 1, ("1f",)),
                              ("seat_flower", 1, ("5f",))]
    assert body["decomposition"]["caishen"] == [{"tile": "4p", "face": "1s"}]
    assert body["decomposition"]["wait"] == "closed" and body["decomposition"]["winning_tile"] == "2s"
    # 1 × (1 + 4) = 5 from each of S, W, N
    assert body["points"] == 5 and body["net"] == {"E": 15, "S": -5, "W": -5, "N": -5}


def test_three_tile_forms_give_the_same_score(client):
    as_codes = client.score(examples.API_MD).get_json()
    compact = copy.deepcopy(examples.API_MD)
    compact["hand"].update(concealed="234m 678m 99s", flowers="2f")
    compact["hand"]["melds"][0]["tiles"] = "CCC"
    chinese = copy.deepcopy(examples.API_MD)
    chinese["hand"].update(concealed=["二万", "三萬", "四万", "六万", "七万", "八万", "九条", "九索"],
                           winning_tile="四萬", flowers=["夏"])
    chinese["hand"]["melds"][0]["tiles"] = ["中", "红中", "紅中"]
    chinese["caishen"] = {"indicator": "五筒"}
    assert client.score(compact).get_json() == as_codes
    assert client.score(chinese).get_json() == as_codes


def test_null_in_an_optional_field_means_absent(client):
    plain = client.score(examples.INELIGIBLE).get_json()
    nulls = copy.deepcopy(examples.INELIGIBLE)
    nulls.update(rules=None, caishen=None, claims_from_winner=None, base_points=None)
    nulls["hand"].update(melds=None, flowers=None)
    nulls["win"].update(kong_replacement=None, kong_fed_by=None, last_tile=None, heavenly=None,
                        earthly=None, discarded_caishen=None)
    assert client.score(nulls).get_json() == plain
    # inside a rules object too, except where null is a value ("none")
    with_rules = copy.deepcopy(examples.API_MD)
    with_rules["rules"] = {"preset": None, "min_tai": None, "points": None, "item_tai": None}
    body = client.score(with_rules).get_json()
    assert body["rules"]["preset"] == "ningbo" and body["rules"]["min_tai"] == 4 and body["points"] == 5
    with_rules["rules"] = {"hand_cap": None, "caishen_discard_restriction": None}
    rules = client.score(with_rules).get_json()["rules"]
    assert rules["hand_cap"] is None and rules["caishen_discard_restriction"] is None


def test_rule_options_are_applied(client):
    body = copy.deepcopy(examples.API_MD)
    # min_tai 5: 4 台 < 5 → not eligible
    body["rules"] = {"preset": "ningbo", "min_tai": 5}
    assert client.score(body).get_json()["eligible"] is False
    # hand cap 10: each would pay 5, the winner 15 > 10 → scaled to 10 × 5/15 = 3.33 each: 3 each,
    # the one unit left goes to the first of the tied remainders in seat order (E)
    body["rules"] = {"preset": "ningbo", "hand_cap": 10}
    answer = client.score(body).get_json()
    assert {p["from"]: p["amount"] for p in answer["payments"]} == {"E": 4, "W": 3, "N": 3}
    assert answer["net"] == {"E": -4, "S": 10, "W": -3, "N": -3}


def test_json_variants_of_the_content_type_are_accepted(client):
    data = json.dumps(examples.API_MD)
    for content_type in ("application/json; charset=utf-8", "application/json;charset=UTF-8",
                         "application/vnd.ningbo+json"):
        response = client.post("/v1/score", data=data, content_type=content_type)
        assert response.status_code == 200, content_type


# --- other endpoints -----------------------------------------------------------------------------

# docs/rules.md §9, read off the table
PRESET_OPTIONS = {
    "ningbo": dict(caishen_rule="indicator", white_dragon_substitutes=False, min_tai=4, required_patterns=[],
                   discard_wins=True, caishen_discard_restriction="single_wait",
                   robbing_needs_no_caishen_discarded=False, points="linear", chi_counts_for_liability=True,
                   related_discarder="add", kong_bloom_others_pay=False,
                   liability_others_pay=False, liability_cap=None, hand_cap=1000,
                   three_caishen_bonus=False, draw_keeps_dealer=True,
                   chow_swap_allowed=False, robbed_kong_liability=False, escape_penalty_to="house"),
    "ningbo-456": dict(caishen_rule="indicator", white_dragon_substitutes=False, min_tai=4, required_patterns=[],
                       discard_wins=True, caishen_discard_restriction="any_group",
                       robbing_needs_no_caishen_discarded=False, points="doubling",
                       chi_counts_for_liability=True, related_discarder="add", kong_bloom_others_pay=True,
                       liability_others_pay=False,
                       liability_cap=5, hand_cap=None, three_caishen_bonus=False, draw_keeps_dealer=True,
                       chow_swap_allowed=True, robbed_kong_liability=True, escape_penalty_to="house"),
    "ningbo-bianfeng": dict(caishen_rule="indicator", white_dragon_substitutes=False, min_tai=4,
                            required_patterns=[], discard_wins=True, caishen_discard_restriction="single_wait",
                            robbing_needs_no_caishen_discarded=False, points="linear",
                            chi_counts_for_liability=True, related_discarder="add", kong_bloom_others_pay=False,
                            liability_others_pay=False,
                            liability_cap=None, hand_cap=None, three_caishen_bonus=True, draw_keeps_dealer=True,
                            chow_swap_allowed=True, robbed_kong_liability=False, escape_penalty_to="house"),
    "ningbo-taishu": dict(caishen_rule="indicator", white_dragon_substitutes=False, min_tai=0,
                          required_patterns=["full_flush", "half_flush", "all_honors", "all_pungs"],
                          discard_wins=True, caishen_discard_restriction="any_group",
                          robbing_needs_no_caishen_discarded=False, points="linear",
                          chi_counts_for_liability=False, related_discarder="five", kong_bloom_others_pay=False,
                          liability_others_pay=False,
                          liability_cap=5, hand_cap=None, three_caishen_bonus=False, draw_keeps_dealer=False,
                          chow_swap_allowed=True, robbed_kong_liability=False, escape_penalty_to="house"),
    "ningbo-7baida": dict(caishen_rule="indicator_and_next", white_dragon_substitutes=False, min_tai=4,
                          required_patterns=[], discard_wins=False, caishen_discard_restriction=None,
                          robbing_needs_no_caishen_discarded=True, points="linear",
                          chi_counts_for_liability=False, related_discarder="five", kong_bloom_others_pay=True,
                          liability_others_pay=True,
                          liability_cap=5, hand_cap=None, three_caishen_bonus=False, draw_keeps_dealer=False,
                          chow_swap_allowed=True, robbed_kong_liability=False, escape_penalty_to="house"),
}
# docs/rules.md §5: id → (台, bonus); three_caishen is a bonus only under three_caishen_bonus
# (ningbo-bianfeng, rule book 2)
ITEM_TABLE = {
    "pai_hu": (0, False), "ping_hu": (1, False), "edge_wait": (1, False), "closed_wait": (1, False),
    "single_wait": (1, False), "dual_pung_wait": (1, False), "big_single_wait": (1, False),
    "all_pungs": (2, False), "self_draw": (1, False), "kong_bloom": (1, False), "robbing_kong": (1, False),
    "last_tile": (1, False), "heavenly": (8, False), "earthly": (6, False), "no_caishen": (1, False),
    "three_caishen": (3, False), "full_flush": (4, False), "half_flush": (2, False), "all_honors": (8, False),
    "dragon_pung": (1, False), "seat_wind_pung": (1, False), "round_wind_pung": (1, False),
    "seat_flower": (1, False), "flower_set": (2, False), "all_flowers": (8, False),
}


def test_rules_lists_every_preset(client):
    response = client.get("/v1/rules")
    assert response.status_code == 200
    presets = response.get_json()["presets"]
    assert [p["id"] for p in presets] == list(PRESET_OPTIONS)
    for p in presets:
        assert p["options"] == PRESET_OPTIONS[p["id"]], p["id"]
        bonus = p["options"]["three_caishen_bonus"]
        assert {it["id"]: (it["tai"], it["bonus"]) for it in p["items"]} == \
            {**ITEM_TABLE, "three_caishen": (3, bonus)}
        # a source by its title (and date), not a file name that isn't shipped
        assert p["name"] and p["name_en"] and p["source"] and ".txt" not in p["source"]


def test_rules_name_every_option_in_both_languages(client):
    """GET /v1/rules' option_labels (issue 37): every option of every preset and item_tai has a
    name of its own in English and in Chinese (the page shows these, it keeps no copy)."""
    body = client.get("/v1/rules").get_json()
    labels = body["option_labels"]
    assert set(labels) == {*PRESET_OPTIONS["ningbo"], "item_tai"}
    for lang in ("en", "zh"):
        names = [labels[k][lang] for k in labels]
        assert all(names) and len(set(names)) == len(names), lang
    assert all(re.search(r"[\u4e00-\u9fff]", labels[k]["zh"]) for k in labels)
    assert labels["min_tai"] == {"en": "Minimum 台", "zh": "起胡台数"}
    assert labels["draw_keeps_dealer"] == {"en": "A draw keeps the dealer", "zh": "流局连庄"}


@pytest.mark.parametrize("preset_id", list(PRESET_OPTIONS))
def test_one_preset(client, preset_id):
    response = client.get(f"/v1/rules/{preset_id}")
    assert response.status_code == 200
    body = response.get_json()
    assert body["id"] == preset_id and body["options"] == PRESET_OPTIONS[preset_id]
    names = {it["id"]: it["name"] for it in body["items"]}
    assert names["pai_hu"] == "排胡" and names["all_flowers"] == "八花"


def test_unknown_preset_is_404(client):
    body = assert_problem(client.get("/v1/rules/ningbo-xx"), 404, "not_found")
    assert "ningbo-xx" in body["detail"]


def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.get_json() == {"status": "ok"}


def test_openapi_yaml_is_served(client):
    response = client.get("/openapi.yaml")
    assert response.status_code == 200 and response.mimetype == "application/yaml"
    assert response.get_data() == (ROOT / "openapi.yaml").read_bytes()


def test_docs_page_uses_local_assets_only(client):
    response = client.get("/docs")
    assert response.status_code == 200 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert client.client.get("/docs/").get_data(as_text=True) == html  # (not in the spec: an alias)
    assert not re.search(r"(?:src|href)=\"(?:https?:)?//", html), "no asset from another host"
    assets = re.findall(r"(?:src|href)=\"([^\"]+)\"", html)
    assert "/docs/static/swagger-ui-bundle.js" in assets
    for asset in assets:
        served = client.client.get(asset)
        assert served.status_code == 200 and len(served.get_data()) > 0, asset
    init = client.client.get("/docs/swagger-initializer.js").get_data(as_text=True)
    assert '"/openapi.yaml"' in init and "validatorUrl: null" in init


# --- errors ------------------------------------------------------------------------------------

def test_malformed_json(client):
    response = client.post("/v1/score", data=b'{"seat_wind": "E",', content_type="application/json")
    assert_problem(response, 400, "malformed_json")
    assert_problem(client.post("/v1/score", data=b"", content_type="application/json"), 400, "malformed_json")
    assert_problem(client.post("/v1/score", data=b'{"a": NaN}', content_type="application/json"),
                   400, "malformed_json")
    assert_problem(client.post("/v1/score", data=b'"\xff"', content_type="application/json"),
                   400, "malformed_json")


def test_field_problems_are_400_keyed_by_path(client):
    body = copy.deepcopy(examples.API_MD)
    body["hand"]["melds"][0]["tiles"] = ["C", "C", "Q"]      # unknown tile code
    body["hand"]["melds"][1]["extra"] = 1                      # unknown field
    body["win"]["last_tile"] = 1                               # 1 is no boolean
    body["base_points"] = 2.5                                  # 2.5 is no count (2.0 is 2)
    body["claims_from_winner"]["W"] = True                     # true is no count
    body["hand"]["flowers"] = "2x"                             # bad compact string
    body["color"] = "red"                                      # unknown top-level field
    problem = assert_problem(client.score(body), 400, "invalid_request")
    assert set(problem["errors"]) == {"hand.melds.0.tiles.2", "hand.melds.1.extra", "win.last_tile",
                                      "base_points", "claims_from_winner.W", "hand.flowers", "color"}
    assert problem["detail"].startswith(next(iter(problem["errors"])) + ": ")


@pytest.mark.parametrize("field,value", [
    ("seat_wind", "X"), ("seat_wind", "东"), ("round_wind", 1), ("base_points", 0), ("base_points", "1"),
    ("base_points", True), ("rules", "ningbo-xx"), ("rules", 5), ("caishen", "5p"), ("hand", []),
])
def test_wrong_types_and_values_are_400(client, field, value):
    body = copy.deepcopy(examples.API_MD)
    body[field] = value
    problem = assert_problem(client.score(body), 400, "invalid_request")
    assert list(problem["errors"]) == [field]


def test_wrong_rule_options_are_400(client):
    body = copy.deepcopy(examples.API_MD)
    body["rules"] = {"preset": "ningbo", "min_tai": -1, "points": "tripling", "discard_wins": "yes",
                     "item_tai": {"no_caishen": 1.5, "bogus": 1}, "surprise": True,
                     "required_patterns": ["full_flush", "nope"]}
    problem = assert_problem(client.score(body), 400, "invalid_request")
    assert set(problem["errors"]) == {"rules.min_tai", "rules.points", "rules.discard_wins",
                                      "rules.item_tai.no_caishen", "rules.item_tai.bogus", "rules.surprise",
                                      "rules.required_patterns.1"}


@pytest.mark.parametrize("body", [[], "score", 1, None])
def test_body_not_an_object_is_400(client, body):
    problem = assert_problem(client.post("/v1/score", data=json.dumps(body), content_type="application/json"),
                             400, "invalid_request")
    assert "errors" not in problem  # a problem of the body as a whole, no field


def test_missing_required_fields(client):
    problem = assert_problem(client.score({"hand": {}, "win": {}}), 400, "invalid_request")
    assert set(problem["errors"]) == {"seat_wind", "round_wind", "hand.concealed", "hand.winning_tile", "win.by"}


def test_an_empty_win_is_refused_by_the_library_too():
    # /v1/score asks the library first: `win: {}` must not slip through it as a win with no `by`
    body = copy.deepcopy(examples.API_MD)
    body["win"] = {}
    with pytest.raises(ScoreError) as caught:
        ningbo_score.score(body)
    assert caught.value.status == 400 and [p.path for p in caught.value.problems] == ["win.by"]


def test_caishen_needs_exactly_one_of_indicator_and_kinds(client):
    body = copy.deepcopy(examples.API_MD)
    for caishen in ({}, {"indicator": "5p", "kinds": ["5p"]}, {"indicator": None, "kinds": None}):
        body["caishen"] = caishen
        assert_problem(client.score(body), 400, "invalid_request", ["caishen"])
    body["caishen"] = {"kinds": []}  # no caishen: 4 台 as before (硬胡 still holds)
    assert client.score(body).get_json()["tai"] == 4


# The library's bounds and the schema's agree: just inside is well-formed, just outside a 400.
@pytest.mark.parametrize("mutate,inside", [
    (lambda b, v: b.update(base_points=v), (1_000_000, 1_000_001)),
    (lambda b, v: b["claims_from_winner"].update(W=v), (100, 101)),
    (lambda b, v: b.update(rules={"item_tai": {"self_draw": v}}), (100, 101)),
    (lambda b, v: b.update(rules={"min_tai": v}), (2**53 - 1, 2**53)),
])
def test_bounds(client, mutate, inside):
    ok, too_big = inside
    body = copy.deepcopy(examples.API_MD)
    mutate(body, ok)
    assert client.score(body).status_code == 200
    body = copy.deepcopy(examples.API_MD)
    mutate(body, too_big)
    assert_problem(client.score(body), 400, "invalid_request")


def test_melds_bound(client):
    # docs/rules.md §10.12: more than 4 melds is wrong_tile_count (422), however many are given
    body = copy.deepcopy(examples.API_MD)
    pung = {"type": "pung", "tiles": "CCC", "from": "E"}
    for n in (5, 16, 40):
        body["hand"]["melds"] = [pung] * n
        assert_problem(client.score(body), 422, "wrong_tile_count", ["hand.melds"])


SEAT_S = {"seat_wind": "S", "round_wind": "E"}
PLAIN = {"concealed": "123m 456m 789m 123s 11p", "winning_tile": "1m"}


@pytest.mark.parametrize("code,body,paths", [
    # 5 copies of 1m: at most 4 exist (RULES §1)
    ("too_many_copies", {**SEAT_S, "hand": {"concealed": "11111m 234p 567p 999s", "winning_tile": "1m"},
                         "win": {"by": "self_draw"}}, ["hand.concealed"]),
    # 13 concealed tiles without melds: 14 − 3 × 0 = 14 needed
    ("wrong_tile_count", examples.WRONG_TILE_COUNT, ["hand.concealed"]),
    # South's 上家 is East: a chow from West is impossible
    ("invalid_meld", {**SEAT_S, "hand": {"concealed": "456m 789m 111s 22s", "winning_tile": "2s",
                                         "melds": [{"type": "chow", "tiles": "123p", "from": "W"}]},
                      "win": {"by": "self_draw"}}, ["hand.melds.0.from"]),
    # indicator 5p → the other 5p are caishen: they can't be punged
    ("caishen_in_meld", {**SEAT_S, "caishen": {"indicator": "5p"},
                         "hand": {"concealed": "123m 456m 789m 11s", "winning_tile": "1s",
                                  "melds": [{"type": "pung", "tiles": "555p", "from": "W"}]},
                         "win": {"by": "self_draw"}}, ["hand.melds.0.tiles"]),
    ("winning_tile_not_in_hand", {**SEAT_S, "hand": {**PLAIN, "winning_tile": "E"}, "win": {"by": "self_draw"}},
     ["hand.winning_tile"]),
    # a self-drawn win has no discarder
    ("inconsistent_win_context", {**SEAT_S, "hand": PLAIN, "win": {"by": "self_draw", "from": "W"}},
     ["win.from"]),
    ("not_a_winning_hand", examples.NOT_A_WINNING_HAND, ["hand.concealed"]),
    # the winning tile 4p is a caishen: a discarded caishen can't be claimed (RULES §10.10)
    ("caishen_needs_self_draw", {**SEAT_S, "caishen": {"indicator": "4p"},
                                 "hand": {"concealed": "123m 456m 789m 234s 5s 4p", "winning_tile": "4p"},
                                 "win": {"by": "discard", "from": "W"}}, ["hand.winning_tile"]),
    # W can only pair with the caishen 4p: a single wait on a caishen, no discard win (single_wait)
    ("caishen_needs_self_draw", {**SEAT_S, "caishen": {"indicator": "4p"},
                                 "hand": {"concealed": "123m 456m 789m EEE W 4p", "winning_tile": "W"},
                                 "win": {"by": "discard", "from": "N"}}, ["win.by"]),
    # 7百搭: only self-draw wins
    ("discard_win_not_allowed", {**SEAT_S, "rules": "ningbo-7baida", "hand": PLAIN,
                                 "win": {"by": "discard", "from": "W"}}, ["win.by"]),
    # RULES §10.13: the winner's own seat as a key of claims_from_winner
    ("invalid_request", {**SEAT_S, "hand": PLAIN, "win": {"by": "self_draw"}, "claims_from_winner": {"S": 1}},
     ["claims_from_winner.S"]),
    # RULES §10.12: a non-flower among the flowers
    ("invalid_request", {**SEAT_S, "hand": {**PLAIN, "flowers": ["E"]}, "win": {"by": "self_draw"}},
     ["hand.flowers.0"]),
])
def test_impossible_hands_are_422(client, code, body, paths):
    assert_problem(client.score(body), 422, code, paths)


def test_payload_too_large(client):
    padding = " " * (64 * 1024)
    response = client.post("/v1/score", data=json.dumps(examples.API_MD) + padding, content_type="application/json")
    assert_problem(response, 413, "payload_too_large")
    # just under the limit is read
    data = json.dumps(examples.API_MD)
    response = client.post("/v1/score", data=data + " " * (64 * 1024 - len(data.encode())),
                           content_type="application/json")
    assert response.status_code == 200


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "application/json; charset=latin-1", "text/json"])
def test_unsupported_media_type(client, content_type):
    kwargs = {"data": json.dumps(examples.API_MD)}
    if content_type:
        kwargs["content_type"] = content_type
    assert_problem(client.post("/v1/score", **kwargs), 415, "unsupported_media_type")


def test_unknown_route_is_404_problem(client):
    assert_problem(client.get("/v2/score"), 404, "not_found")
    assert_problem(client.post("/v1/scores", json={}), 404, "not_found")


@pytest.mark.parametrize("method,path,allowed", [
    ("GET", "/v1/score", {"POST", "OPTIONS"}),
    ("DELETE", "/v1/rules", {"GET", "HEAD", "OPTIONS"}),
    ("PUT", "/v1/rules/ningbo", {"GET", "HEAD", "OPTIONS"}),
    ("POST", "/healthz", {"GET", "HEAD", "OPTIONS"}),
])
def test_wrong_method_is_405_with_allow(client, method, path, allowed):
    response = client.open(method, path)
    assert_problem(response, 405, "method_not_allowed")
    assert {m.strip() for m in response.headers["Allow"].split(",")} == allowed


def test_unexpected_error_is_500_problem_without_stack_trace(client, monkeypatch, caplog):
    def broken(*_args):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(ningbo_score, "score", broken)
    with caplog.at_level(logging.ERROR):
        response = client.score(examples.API_MD)
    body = assert_problem(response, 500, "internal_error")
    assert "secret internals" not in response.get_data(as_text=True) and "RuntimeError" not in body["detail"]
    assert any("secret internals" in (r.exc_text or str(r.exc_info)) for r in caplog.records)


# --- language ------------------------------------------------------------------------------------

@pytest.mark.parametrize("header,lang", [
    (None, "en"), ("zh", "zh"), ("zh-CN", "zh"), ("zh-CN,zh;q=0.9,en;q=0.8", "zh"), ("en-US,en;q=0.9,zh;q=0.8", "en"),
    ("en;q=0.5, zh;q=0.9", "zh"), ("zh;q=0.1, en", "en"), ("fr", "en"), ("fr, zh-TW;q=0.5", "zh"), ("*", "en"),
])
def test_accept_language(client, header, lang):
    headers = {"Accept-Language": header} if header else {}
    problem = client.score(examples.NOT_A_WINNING_HAND, headers=headers).get_json()
    assert problem["title"] == ("不是胡牌" if lang == "zh" else "Not a winning hand")


@pytest.mark.parametrize("name,call", [
    ("invalid_request", lambda c, h: c.score(examples.INVALID_REQUEST, headers=h)),
    ("malformed_json", lambda c, h: c.post("/v1/score", data=b"{", content_type="application/json", headers=h)),
    ("unsupported_media_type", lambda c, h: c.post("/v1/score", data=b"x", content_type="text/plain", headers=h)),
    ("payload_too_large", lambda c, h: c.post("/v1/score", data=b" " * 70000, content_type="application/json",
                                              headers=h)),
    ("not_found", lambda c, h: c.get("/nowhere", headers=h)),
    ("not_found", lambda c, h: c.get("/v1/rules/nowhere", headers=h)),
    ("method_not_allowed", lambda c, h: c.open("DELETE", "/v1/score", headers=h)),
    ("wrong_tile_count", lambda c, h: c.score(examples.WRONG_TILE_COUNT, headers=h)),
])
def test_every_problem_speaks_chinese(client, name, call):
    en = call(client, {}).get_json()
    zh = call(client, {"Accept-Language": "zh-CN"}).get_json()
    assert en["code"] == zh["code"] == name
    assert not has_chinese(en["title"]) and has_chinese(zh["title"])
    assert has_chinese(zh["detail"])
    for path, messages in zh.get("errors", {}).items():
        assert all(has_chinese(m) for m in messages), (path, messages)


# --- the README's curl examples give the README's outputs ---------------------------------------

#: Where the curl examples are: the README's one, and docs/examples.md's for every endpoint.
EXAMPLE_DOCS = ("README.md", "docs/examples.md")


def readme_examples() -> list[tuple[str, str]]:
    """(command, output) pairs of the README: a ```sh block holding one `curl` command followed by
    a ```json or ```text block with what it prints."""
    text = "\n".join((ROOT / name).read_text(encoding="utf-8") for name in EXAMPLE_DOCS)
    blocks = re.findall(r"```(\w+)\n(.*?)```", text, flags=re.S)
    out = []
    for (lang, body), (next_lang, next_body) in zip(blocks, blocks[1:]):
        if lang == "sh" and body.lstrip().startswith("curl ") and next_lang in ("json", "text"):
            out.append((body.strip(), next_body.rstrip("\n")))
    return out


def test_readme_has_a_curl_example_per_endpoint():
    commands = " ".join(c for c, _ in readme_examples())
    for path in ("/v1/score", "/v1/rules", "/v1/rules/ningbo-456", "/healthz", "/openapi.yaml", "/docs"):
        assert f"localhost:8000{path}" in commands, path


@pytest.mark.parametrize("command,output", readme_examples())
def test_readme_curl_examples(client, command, output):
    """Each README command, its request sent to the app and its pipes applied, prints exactly
    what the README says."""
    request, filters = _parse_command(command)
    kwargs = {"headers": request["headers"]}
    if "data" in request:
        kwargs["data"] = request["data"]
        kwargs["content_type"] = request["headers"].pop("Content-Type", None)
    method = request.get("method", "POST" if "data" in request else "GET")
    response = client.client.open(request["path"], method=method, **kwargs)
    printed = response.get_data(as_text=True)
    for name, arg in filters:
        if name == "json.tool":  # python3 -m json.tool --no-ensure-ascii
            printed = json.dumps(json.loads(printed), indent=4, ensure_ascii=False) + "\n"
        elif name == "head":  # head -n N
            printed = "".join(printed.splitlines(keepends=True)[:arg])
        else:  # any other command (python3 -c '…'), run as the shell would, the answer on its input
            printed = subprocess.run(arg, shell=True, input=printed, capture_output=True, text=True,
                                     check=True, timeout=60).stdout
    assert printed.rstrip("\n") == output


def _parse_command(command: str) -> tuple[dict, list[tuple[str, typing.Any]]]:
    import shlex

    stages = [s.strip() for s in command.replace("\\\n", " ").split(" | ")]
    filters: list[tuple[str, typing.Any]] = []
    for stage in stages[1:]:
        if stage == "python3 -m json.tool --no-ensure-ascii":
            filters.append(("json.tool", 0))
        elif m := re.fullmatch(r"head -n (\d+)", stage):
            filters.append(("head", int(m.group(1))))
        else:
            filters.append(("shell", stage))
    words = shlex.split(stages[0])
    assert words[0] == "curl"
    request: dict = {"headers": {}}
    i = 1
    while i < len(words):
        w = words[i]
        if w in ("-s", "--silent"):
            pass
        elif w in ("-X", "--request"):
            i += 1
            request["method"] = words[i]
        elif w in ("-H", "--header"):
            i += 1
            name, value = words[i].split(":", 1)
            request["headers"][name.strip()] = value.strip()
        elif w in ("-d", "--data", "--data-binary"):
            i += 1
            request["data"] = words[i].encode()
        elif w.startswith("http://localhost:8000"):
            request["path"] = w[len("http://localhost:8000"):]
        else:
            raise AssertionError(f"unexpected curl word {w!r}")
        i += 1
    return request, filters


def test_readme_commands_are_the_two_of_the_makefile():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make run" in readme and "make test" in readme
    # (--no-print-directory: under `make test` this make is a sub-make, which would say
    # "make[1]: Leaving directory …" last)
    targets = subprocess.run(["make", "--no-print-directory", "-n", "run"], cwd=ROOT, capture_output=True, text=True)
    assert targets.stdout.endswith("/bin/python -m service\n")    # service/__main__.py: gunicorn.conf.py, app:app


def test_readme_preset_table_is_the_presets():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    header = re.search(r"^\| option \|(.*)\|$", text, re.M)
    assert header, "no preset table"
    ids = [c.strip().strip("`") for c in header.group(1).split("|")]
    assert ids == list(PRESET_OPTIONS)

    def shown(v):
        if v is None or v == []:
            return "—"
        if isinstance(v, bool):
            return "yes" if v else "no"
        return ", ".join(v) if isinstance(v, list) else str(v)

    for option in PRESET_OPTIONS["ningbo"]:
        row = re.search(rf"^\| `{option}` \|(.*)\|$", text, re.M)
        assert row, option
        cells = [c.strip() for c in row.group(1).split("|")]
        assert cells == [shown(PRESET_OPTIONS[p][option]) for p in ids], option


def test_huge_points_are_refused_on_base_points(client):
    """Doubling points with no hand cap grow past 2^53 − 1: since rule book 2 no answer holds such
    a number, the request is a 422 invalid_request on base_points (docs/api.md)."""
    every_item = {item: 100 for item in ITEM_TABLE}
    body = {"rules": {"preset": "ningbo-456", "min_tai": 0, "item_tai": every_item},
            "seat_wind": "E", "round_wind": "E",
            "hand": {"concealed": "EEE CCC FFF PPP SS", "winning_tile": "S", "flowers": "12345678f"},
            "win": {"by": "self_draw", "heavenly": True, "last_tile": True, "kong_replacement": True},
            "base_points": 1_000_000}
    # single wait (S pair), all pungs, self-draw, kong bloom (flower replacement), last tile,
    # heavenly, no caishen, all honors, three dragon pungs, seat and round wind (E), all eight
    # flowers: 14 occurrences × 100 (the largest item value) = 1400 台, all counted; min_tai 0 →
    # P = 1 000 000 × 2^(1400 − 0), far past 2^53 − 1
    problem = assert_problem(client.score(body), 422, "invalid_request")
    assert list(problem["errors"]) == ["base_points"]
    assert str(2**53 - 1) in problem["errors"]["base_points"][0]
