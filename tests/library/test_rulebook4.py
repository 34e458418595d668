"""Rule book 4 (docs/rules.md, "Rule book versions"): the rule book's version wherever rules are
echoed, the release notes of `GET /v1/rules`, and the three new options of §9 with their values
per preset.  (The play of §11 is tested in tests/play/test_replay.py; the robbed kong's 包 partner and
the escape penalty's receiver below and in tests/play/test_sessions.py.)
"""
from __future__ import annotations

import copy

import ningbo_score
from ningbo_score.rules import PRESETS

from test_rulebook2 import SIMPLE, by_id, paid  # noqa: E402
from test_rulebook3 import liable  # noqa: E402


def test_rulebook_in_every_echo(client):
    assert client.score(SIMPLE).get_json()["rules"]["rulebook"] == 4
    batch = client.post("/v1/score/batch", json={"requests": [SIMPLE]}).get_json()
    assert batch["results"][0]["score"]["rules"]["rulebook"] == 4
    waits_body = copy.deepcopy(SIMPLE)
    del waits_body["hand"]["winning_tile"], waits_body["win"]
    waits_body["hand"]["concealed"] = "23m 456m 789p 234s 55s"
    waits = client.post("/v1/waits", json=waits_body).get_json()
    assert waits["waits"] and all(w["self_draw"]["rules"]["rulebook"] == 4 for w in waits["waits"])
    for preset in PRESETS:
        assert client.get(f"/v1/rules/{preset}").get_json()["rulebook"] == 4
    assert ningbo_score.RULEBOOK == 4 and ningbo_score.rulebook()["rulebook"] == 4


def test_rules_lists_the_changes_since_rule_book_3(client):
    answer = client.get("/v1/rules").get_json()
    assert answer["rulebook"] == 4
    by = {c["id"]: c for c in answer["changes"]}
    # "Rule book versions" 4: the play (every preset), 吃张打张 (ningbo), the robbed kong's 包
    # partner (ningbo-456), the escape penalty's receiver (every preset)
    assert set(by) == {"play", "chow_swap_allowed", "robbed_kong_liability", "escape_penalty_to"}
    assert by["chow_swap_allowed"]["presets"] == ["ningbo"]
    assert by["robbed_kong_liability"]["presets"] == ["ningbo-456"]
    assert by["play"]["presets"] == by["escape_penalty_to"]["presets"] == list(PRESETS)
    assert all(c["change"] for c in answer["changes"])


# RULES.md §9: chow_swap_allowed no only in ningbo (001: "不能吃张打张"); robbed_kong_liability
# yes only in ningbo-456 (000's 包 rule); escape_penalty_to house everywhere.
def test_the_three_options_per_preset(client):
    for preset in PRESETS:
        options = client.get(f"/v1/rules/{preset}").get_json()["options"]
        assert options["chow_swap_allowed"] is (preset != "ningbo"), preset
        assert options["robbed_kong_liability"] is (preset == "ningbo-456"), preset
        assert options["escape_penalty_to"] == "house", preset


def test_the_new_options_are_echoed_and_validated(client):
    given = {"preset": "ningbo", "chow_swap_allowed": True, "robbed_kong_liability": True,
             "escape_penalty_to": "table"}
    echoed = client.score(dict(SIMPLE, rules=given)).get_json()["rules"]
    assert {k: echoed[k] for k in given} == given and echoed["rulebook"] == 4
    for option, bad in (("chow_swap_allowed", "no"), ("robbed_kong_liability", 1), ("escape_penalty_to", "winner"),
                        ("escape_penalty_to", True)):
        response = client.score(dict(SIMPLE, rules={"preset": "ningbo", option: bad}))
        assert response.status_code == 400, (option, bad)
        assert list(response.get_json()["errors"]) == [f"rules.{option}"]
    # null is "the preset's value" (as for every option that has no "none")
    echoed = client.score(dict(SIMPLE, rules={"preset": "ningbo", "escape_penalty_to": None})).get_json()["rules"]
    assert echoed["escape_penalty_to"] == "house"


# --- a robbed kong's 包 partner pays where robbed_kong_liability (§7 robbing row, ningbo-456) -----
# W in the E round, indicator 5m (no caishen held).  W claimed pungs of 2m, 4p and 9s, all from S
# (S related: 3 melds claimed from it); concealed 345s CC, and W robs an added kong of 4s: the
# middle of 3-4-5 -> 夹 1; 抢杠 1; 硬胡 1; W's flowers 3f 7f -> 正花 2.  5 台 >= 4.
# ningbo-456 (doubling): P = 1 × 2^(5 − 4) = 2.

def robbed(rules, frm, claims=None) -> dict:
    return liable(rules, claims=claims, by="robbing_kong", frm=frm)


def test_456_robbed_kong_with_a_related_partner():
    # robbed from N: N pays 5 × 2 = 10; S is related to W and pays as on a self-draw: 5 × 2 = 10;
    # E unrelated: 0.  W +20 (rule book 3: N 10 alone).
    r = robbed("ningbo-456", "N")
    assert by_id(r) == {"closed_wait": 1, "robbing_kong": 1, "no_caishen": 1, "seat_flower": 2}
    assert r["tai"] == 5 and r["points"] == 2
    assert paid(r) == {"N": (10, 5), "S": (10, 5)}
    assert r["net"] == {"E": 0, "S": -10, "W": 20, "N": -10}
    rows = {p["from"]: (p["reason"], p["liability"]) for p in r["payments"]}
    assert rows == {"N": ("robbing_kong", None), "S": ("robbing_kong", "related")}


def test_456_robbed_kong_mutual_partner_is_capped():
    # S also claimed 3 melds from W: mutual, 10 × 2 = 20, but liability_cap 5 -> 5 × 2 = 10;
    # N 5 × 2 = 10.  W +20.  Without the cap: S 10 × 2 = 20, W +30.
    r = robbed("ningbo-456", "N", claims={"S": 3})
    assert paid(r) == {"N": (10, 5), "S": (10, 5)} and r["net"]["W"] == 20
    r = robbed({"preset": "ningbo-456", "liability_cap": None}, "N", claims={"S": 3})
    assert paid(r) == {"N": (10, 5), "S": (20, 10)} and r["net"]["W"] == 30


def test_456_robbed_kong_from_the_partner_pays_5_whatever():
    # robbed from S itself: S pays 5 × 2 = 10, whatever its relation (not 5 + 5); E, N unrelated.
    # Mutual and uncapped, still 5.
    r = robbed("ningbo-456", "S")
    assert paid(r) == {"S": (10, 5)} and r["net"] == {"E": 0, "S": -10, "W": 10, "N": 0}
    r = robbed({"preset": "ningbo-456", "liability_cap": None}, "S", claims={"S": 3})
    assert paid(r) == {"S": (10, 5)}


def test_robbed_kong_liability_off_is_the_robbed_alone_and_on_in_another_preset():
    # ningbo-456 with the option off: N 10 alone (rule book 3).  ningbo (linear) with it on:
    # P = 1 + 5 = 6, N 5 × 6 = 30, S 5 × 6 = 30 (no liability_cap), W +60; ningbo's default: N 30.
    r = robbed({"preset": "ningbo-456", "robbed_kong_liability": False}, "N")
    assert paid(r) == {"N": (10, 5)} and r["net"]["W"] == 10
    r = robbed({"preset": "ningbo", "robbed_kong_liability": True}, "N")
    assert r["points"] == 6 and paid(r) == {"N": (30, 5), "S": (30, 5)} and r["net"]["W"] == 60
    r = robbed({"preset": "ningbo", "robbed_kong_liability": True}, "N", claims={"S": 3})
    assert paid(r) == {"N": (30, 5), "S": (60, 10)} and r["net"]["W"] == 90     # mutual, no cap: 10 × 6
    assert paid(robbed("ningbo", "N")) == {"N": (30, 5)}
