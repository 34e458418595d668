"""Rule book 4 (docs/rules.md, "Rule book versions"): the rule book's version wherever rules are
echoed, the release notes of `GET /v1/rules`, and the three new options of §9 with their values
per preset.  (The play of §11 is tested in tests/test_replay.py; the robbed kong's 包 partner and
the escape penalty's receiver in tests/test_payments_rulebook4.py and tests/test_sessions.py.)
"""
from __future__ import annotations

import copy

import ningbo_score
from ningbo_score.rules import PRESETS

from test_rulebook2 import SIMPLE  # noqa: E402


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
