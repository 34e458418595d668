"""The referee, ``POST /v1/table/actions`` (docs/api.md; issue 39): what each seat may do now.

* Three decisions of one hand worked out by hand from docs/rules.md (tools/examples.ACTIONS_HAND,
  walked in docs/api.md and docs/examples.md): a turn with a concealed kong and a flower, a
  robbable added kong, a discard with a pung and a win on it; each whole answer written here.
* ``for`` a seat: its actions only, no tile of another seat's hand.
* A prefix that breaks a rule: the ``/v1/replay`` 422 at that event, and no more work than the
  events up to it.
* Exactness both ways over generated legal logs (tests/actions_check.py; the full sweep is
  bench/actions_sweep.py): every prefix's next event listed, every listed event accepted when
  appended (a listed win scoring what it says), and a brute force on a seeded sample of prefixes.
* The HTTP route (contract-checked client), openapi.yaml's examples, the command.
"""
from __future__ import annotations

import json
import random
import subprocess

import pytest

import ningbo_score
from ningbo_score.replay import MAX_EVENTS
from ningbo_score.actions import ACTION_TYPES
from ningbo_score.replay import Table

import actions_check  # noqa: E402
import replaygen  # noqa: E402

from tools import examples  # noqa: E402

# --- three decisions, by hand -------------------------------------------------------------------
# The deal (ningbo: linear points, min_tai 4; no caishen; round wind E):
#   E 1m2m3m 9m9m 2p3p4p 6p7p8p 3s 6s   S 7m×4 2m 5m 8m 1p 4p 7p 3s3s N
#   W 6s6s 1m 4m 9p 2p 5p 8p E E S W P   N CCC FFF 1s2s3s4s5s 9s N

NO_MELDS: dict = {}


def test_a_turn_with_a_concealed_kong_and_a_flower():
    # events 0-2: E draws 1p and discards it; S draws the flower 1f.  S holds 14: 7m×4 2m 5m 8m
    # 1p 4p 7p 3s3s N 1f.  On its turn S may: kong its four 7m (concealed, §11.5: 4 in hand on
    # one's turn), set 1f aside (a flower, no caishen this hand), or discard any kind it holds
    # (10 kinds: 2m 5m 7m 8m 1p 4p 7p 3s N 1f).  No win: S's hand is no 4 sets and a pair.
    # Live tiles: 91 − 2 draws = 89; tiles: E 14 − 1 = 13, S 13 + 1 = 14.
    got = ningbo_score.actions(examples.ACTIONS_KONG_AND_FLOWER)
    s = lambda t, tile: {"seat": "S", "t": t, "tile": tile}  # noqa: E731
    assert got == {
        "events": 3, "phase": "turn", "turn": "S",
        "state": {"live_tiles": 89, "tiles": {"E": 13, "S": 14, "W": 13, "N": 13}, "melds": NO_MELDS,
                  "flowers": {}, "last_discard": {"seat": "E", "tile": "1p", "event_index": 1}},
        "actions": [s("concealed_kong", "7m"), s("flower", "1f"),
                    *(s("discard", k) for k in ("2m", "5m", "7m", "8m", "1p", "4p", "7p", "3s", "N", "1f"))],
    }


def test_a_robbable_added_kong():
    # event 13: E discards 6s, W pungs it (14); event 22 W draws the 4th 6s and adds it (23).
    # N holds CCC FFF 1s2s3s4s5s 9s9s (it drew 9s at 16 and let N go at 17): waiting on 3s or 6s.
    # Phase claims (an added kong may be robbed, §11.5); turn W (its replacement draw, priority 4
    # when nobody robs).  N robs 6s: 1s2s3s 4s5s6s 9s9s CCC FFF, 6s on 4s5s: two-sided (排胡 0);
    # 抢杠 1 + 硬胡 1 (no caishen) + 混一色 2 (s and honors) + 中 pung 1 + 发 pung 1 = 6 台,
    # counted 6 ≥ min_tai 4: eligible; points 1 × (1 + 6) = 7.  E and S hold no hand that wins
    # on 6s.  Sorted from W in play order: W's draw, then N.
    # Tiles: S 13 +1 −4 +1 −1 +1 −1 (+1 −1 at 20-21) = 10; W 13 +1 −1 −2 (pung) −1 +1 −1 = 10.
    # Live: 11 draws so far (events 0 2 4 6 8 10 12 16 18 20 22): 91 − 11 = 80.
    got = ningbo_score.actions(examples.ACTIONS_ROBBABLE_KONG)
    assert got == {
        "events": 24, "phase": "claims", "turn": "W",
        "state": {"live_tiles": 80, "tiles": {"E": 13, "S": 10, "W": 10, "N": 13},
                  "melds": {"S": [{"type": "kong", "tiles": ["7m"] * 4, "concealed": True}],
                            "W": [{"type": "kong", "tiles": ["6s"] * 4, "from": "E", "added": True}]},
                  "flowers": {"S": ["1f"]}, "last_discard": {"seat": "S", "tile": "8s", "event_index": 21}},
        "actions": [{"seat": "W", "t": "draw", "priority": 4},
                    {"seat": "N", "t": "win", "priority": 1,
                     "score": {"tai": 6, "counted_tai": 6, "eligible": True, "points": 7, "by": "robbing_kong"}}],
    }


def test_a_discard_with_a_pung_and_a_win_on_it():
    # W draws its replacement (24) and the hand goes on; E discards 3s (29).  S holds 3s3s: it may
    # pung (2); S, E's next seat, may not chow 3s (no 1s2s, 2s4s or 4s5s) and draws if nobody
    # claims (4).  N wins on 3s: 1s2s3s 3s4s5s 9s9s CCC FFF, the best reading 3s on 1s2s (边, 1):
    # 边 1 + 硬胡 1 + 混一色 2 + 中 1 + 发 1 = 6 台, eligible, 1 × (1 + 6) = 7 points, by discard.
    # W holds no 3s.  Sorted from S (turn): S's pung, S's draw, then N's win.
    got = ningbo_score.actions(examples.ACTIONS_PUNG_AND_WIN)
    assert got["phase"] == "claims" and got["turn"] == "S" and got["events"] == 30
    assert got["state"]["last_discard"] == {"seat": "E", "tile": "3s", "event_index": 29}
    assert got["state"]["live_tiles"] == 91 - 14      # and draws at 24 26 28
    assert got["actions"] == [
        {"seat": "S", "t": "pung", "tiles": ["3s", "3s", "3s"], "priority": 2},
        {"seat": "S", "t": "draw", "priority": 4},
        {"seat": "N", "t": "win", "priority": 1,
         "score": {"tai": 6, "counted_tai": 6, "eligible": True, "points": 7, "by": "discard"}},
    ]
    # and the log's own win (event 30) is what replay scores
    assert ningbo_score.replay(examples.ACTIONS_HAND)["score"]["points"] == 7


def test_for_a_seat_names_no_tile_of_another_hand():
    # For W at the robbable kong: W's own draw only; S's concealed kong shows no tiles; for S, its
    # own concealed kong keeps them.
    w = ningbo_score.actions(examples.actions_prefix(24, **{"for": "W"}))
    assert w["actions"] == [{"seat": "W", "t": "draw", "priority": 4}]
    assert w["state"]["melds"]["S"] == [{"type": "kong", "concealed": True}]
    assert ningbo_score.actions(examples.actions_prefix(24, **{"for": "西"})) == w     # a seat by its Chinese name
    s = ningbo_score.actions(examples.actions_prefix(24, **{"for": "S"}))
    assert s["actions"] == [] and s["state"]["melds"]["S"][0]["tiles"] == ["7m"] * 4
    n = ningbo_score.actions(examples.actions_prefix(30, **{"for": "N"}))
    assert [a["t"] for a in n["actions"]] == ["win"]
    # the empty log: the dealer's first draw, for E only
    assert ningbo_score.actions(examples.actions_prefix(0, **{"for": "E"}))["actions"] == [{"seat": "E", "t": "draw"}]
    assert ningbo_score.actions(examples.actions_prefix(0, **{"for": "S"}))["actions"] == []


def test_ended_and_exhaustive_draw():
    done = ningbo_score.actions(examples.ACTIONS_HAND)
    assert (done["phase"], done["turn"], done["actions"]) == ("ended", None, [])
    # REPLAY_DRAW: one live tile; E draws it and discards C; nobody claims: the exhaustive draw
    # (priority 4, the draw nobody can make), nothing else (W, N hold no C pair).
    last = ningbo_score.actions({**examples.REPLAY_DRAW, "events": examples.REPLAY_DRAW["events"][:2]})
    assert last["state"]["live_tiles"] == 0
    assert last["actions"] == [{"t": "exhaustive_draw", "priority": 4}]


# --- rule book 4's play rules reach the menu (docs/rules.md §11) ----------------------------------

def test_opening_flowers_of_the_deal():
    # S is dealt 2f instead of its N.  After E's first draw (1p) it is the dealer's first turn:
    # phase opening (§11.2: the flowers of the deal are replaced before the dealer's first
    # discard), turn E.  E may discard any of its 13 kinds (no flower, no four of a kind, no win);
    # S may set its dealt 2f aside now (the others hold no flower).  Sorted from E.
    hand = {**examples.ACTIONS_HAND, "deal": {**examples.ACTIONS_HAND["deal"],
                                             "S": "7m 7m 7m 7m 2m 5m 8m 1p 4p 7p 3s 3s 2f"}}
    first = hand["events"][:1]
    got = ningbo_score.actions({**hand, "events": first})
    assert (got["phase"], got["turn"]) == ("opening", "E")
    e_kinds = ["1m", "2m", "3m", "9m", "1p", "2p", "3p", "4p", "6p", "7p", "8p", "3s", "6s"]
    assert got["actions"] == [*({"seat": "E", "t": "discard", "tile": k} for k in e_kinds),
                              {"seat": "S", "t": "flower", "tile": "2f"}]
    # S sets 2f aside: it owes its replacement draw, still in the opening
    got = ningbo_score.actions({**hand, "events": [*first, {"t": "flower", "seat": "S", "tile": "2f"}]})
    assert (got["phase"], got["turn"], got["actions"]) == ("opening", "S", [{"seat": "S", "t": "draw"}])


def test_no_chow_swap_discard():
    # S holds 2p3p4p: it chows E's 1p with 2p3p (events 0-2).  ningbo has chow_swap_allowed off
    # (§11.4 吃张打张): S may discard neither 1p (the claimed kind; it holds none) nor 4p (4p
    # would make a chow with its 2p3p).  It holds 4p 7m×3 2m 5m 8m 9p 3s3s N: 8 kinds, 7 listed.
    # With chow_swap_allowed on, 4p is listed too.
    hand = {**examples.ACTIONS_HAND, "deal": {**examples.ACTIONS_HAND["deal"],
                                             "S": "2p 3p 4p 7m 7m 7m 2m 5m 8m 9p 3s 3s N"}}
    events = [*hand["events"][:2], {"t": "chow", "seat": "S", "tiles": "1p2p3p"}]
    got = ningbo_score.actions({**hand, "events": events})
    kinds = ["2m", "5m", "7m", "8m", "9p", "3s", "N"]
    assert (got["phase"], got["turn"]) == ("turn", "S")
    assert got["actions"] == [{"seat": "S", "t": "discard", "tile": k} for k in kinds]
    allowed = ningbo_score.actions({**hand, "rules": {"preset": "ningbo", "chow_swap_allowed": True},
                                    "events": events})
    assert [a["tile"] for a in allowed["actions"]] == ["2m", "5m", "7m", "8m", "4p", "9p", "3s", "N"]


def test_a_win_under_the_minimum_is_not_listed():
    # The same hand with min_tai 7: N's win on E's 3s is worth 6 台 (above) < 7, no win (rule
    # book 4: below_minimum), so only S's pung and draw are left; N's rob of 6s likewise.
    rules = {"preset": "ningbo", "min_tai": 7}
    got = ningbo_score.actions(examples.actions_prefix(30, rules=rules))
    assert got["actions"] == [{"seat": "S", "t": "pung", "tiles": ["3s", "3s", "3s"], "priority": 2},
                              {"seat": "S", "t": "draw", "priority": 4}]
    got = ningbo_score.actions(examples.actions_prefix(24, rules=rules))
    assert got["actions"] == [{"seat": "W", "t": "draw", "priority": 4}]


# --- a prefix that breaks a rule ---------------------------------------------------------------

@pytest.mark.parametrize("concealed, winning, kinds, scorer, none", [
    # 123m 456m 789m 123p and the pair 55p: a reading; the scorer scores it
    ("123m456m789m123p55p", "5p", None, "scored", False),
    # 14 kinds, one of each: no pair, so no 4 sets and a pair; the scorer refuses it
    ("123m456m789m123p56p", "6p", None, "not_a_winning_hand", True),
    # 5s a caishen: 5p with it is the pair
    ("123m456m789m123p5p5s", "5s", ["5s"], "scored", False),
    # 1p 4p 7p 9s and one caishen must make a set and a pair: no two of the four are alike or within
    # a chow's reach (3 apart, or another suit), so the one caishen makes the set or the pair, not both
    ("123m456m789m1p4p7p9s5s", "5s", ["5s"], "not_a_winning_hand", True),
    # not what readings read: a flower held (the scorer refuses it before), 13 tiles (likewise)
    ("123m456m789m123p5p1f", "5p", None, "invalid_request", False),
    ("123m456m789m123p5p", "5p", None, "wrong_tile_count", False),
])
def test_a_trial_win_asks_the_scorers_own_reading(concealed, winning, kinds, scorer, none):
    """replay's trial wins (the referee's) skip the /v1/score call where engine.no_reading says
    the tiles make no 4 sets and a pair: exactly where the scorer refuses not_a_winning_hand, and
    never where it would say something else first."""
    from ningbo_score.engine import no_reading
    from ningbo_score.errors import ScoreError
    from ningbo_score.hand import caishen_of
    from ningbo_score.rules import preset_rules
    from ningbo_score.tiles import INDEX, parse_tiles

    body: dict = {"seat_wind": "S", "round_wind": "E", "hand": {"concealed": concealed, "winning_tile": winning},
                  "win": {"by": "self_draw"}}
    if kinds:
        body["caishen"] = {"kinds": kinds}
    try:
        ningbo_score.score(body)
        got = "scored"
    except ScoreError as err:
        got = err.code
    assert got == scorer
    caishen, substitute = caishen_of(preset_rules("ningbo"), None, [INDEX[k] for k in kinds] if kinds else None)
    tiles = tuple(sorted(INDEX[c] for c in parse_tiles(concealed)))
    assert no_reading(tiles, 0, INDEX[winning], caishen, substitute, 1, 0) is none


def test_an_illegal_prefix_is_the_replay_422_and_costs_no_more(monkeypatch):
    body = examples.ACTIONS_ERROR_EXAMPLES["out_of_turn"][1]
    with pytest.raises(ningbo_score.ScoreError) as err:
        ningbo_score.actions(body)
    with pytest.raises(ningbo_score.ScoreError) as want:
        ningbo_score.replay(body)
    assert err.value.to_problem("en") == want.value.to_problem("en")
    assert (err.value.extra["reason"], err.value.extra["event_index"]) == ("out_of_turn", 2)
    # 400 events whose event 1 is illegal (E draws twice): the fold stops there
    steps = []
    real = Table.step
    monkeypatch.setattr(Table, "step", lambda self, i, ev: (steps.append(i), real(self, i, ev))[1])
    noise = {**examples.REPLAY_DRAW, "events": [{"t": "draw", "seat": "E", "tile": "C"}] * MAX_EVENTS}
    with pytest.raises(ningbo_score.ScoreError) as err:
        ningbo_score.actions(noise)
    assert (err.value.extra["reason"], err.value.extra["event_index"]) == ("out_of_turn", 1)
    assert steps == [0, 1]


def test_bad_bodies_are_400():
    for bad in ({**examples.ACTIONS_HAND, "for": "X"}, {**examples.ACTIONS_HAND, "events": "x"},
                {**examples.ACTIONS_HAND, "events": [{"t": "draw"}] * (MAX_EVENTS + 1)}):
        with pytest.raises(ningbo_score.ScoreError) as err:
            ningbo_score.actions(bad)
        assert err.value.status == 400


# --- exact both ways, over generated logs ----------------------------------------------------------

SEED = 39
#: the rigged hands reach the rare cases (heavenly, earthly, robbed kongs, blooms, last tiles);
#: then plain ones, every preset in turn
RIGGED = ("heavenly", "earthly", "rob", "bloom", "fed_bloom", "last")
PLAIN = 44
BRUTE_SHARE = 0.03


def _sample() -> list[dict]:
    rng = random.Random(SEED)
    hands = [replaygen.Hand(rng, replaygen.PRESETS[i % 5], rig) for i, rig in enumerate(RIGGED)]
    for h in hands:
        h.play()
    hands += [replaygen.random_log(rng, replaygen.PRESETS[i % 5]) for i in range(PLAIN)]
    return [h.body() for h in hands]


def test_exact_both_ways_over_generated_logs():
    counts = actions_check.Counts()
    rng = random.Random(SEED)
    for body in _sample():
        actions_check.check_log(body, counts, brute=BRUTE_SHARE, rng=rng)
    print(counts.line())
    assert counts.mismatches == []
    assert counts.brute_prefixes >= 20 and counts.brute_candidates >= 4000
    # every kind of action was listed and checked, every phase met
    assert set(counts.kinds) == set(ACTION_TYPES), counts.kinds
    assert set(counts.phases) == {"turn", "replacement", "claims", "draw", "opening", "ended"}, counts.phases


# --- the route, openapi.yaml, the command ----------------------------------------------------------

def test_route_answers_as_the_library(client):
    for body in (examples.ACTIONS_ROBBABLE_KONG, examples.actions_prefix(30, **{"for": "N"})):
        response = client.post("/v1/table/actions", json=body)
        assert response.status_code == 200 and response.get_json() == ningbo_score.actions(body)
    response = client.post("/v1/table/actions", json=examples.ACTIONS_ERROR_EXAMPLES["out_of_turn"][1])
    problem = response.get_json()
    assert response.status_code == 422
    assert (problem["code"], problem["reason"], problem["event_index"]) == ("illegal_event", "out_of_turn", 2)
    assert client.post("/v1/table/actions", json={**examples.ACTIONS_HAND, "for": "X"}).status_code == 400


def test_openapi_examples_are_real_output(openapi_document, contract, client):
    operation = openapi_document["paths"]["/v1/table/actions"]["post"]
    request_schema = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"][1:]
    for name, example in operation["requestBody"]["content"]["application/json"]["examples"].items():
        response = client.post("/v1/table/actions", json=example["value"])
        assert (not contract.schema_errors(request_schema, example["value"])) == (response.status_code != 400), name
        documented = operation["responses"][str(response.status_code)]["content"][response.mimetype]["examples"]
        assert documented[name]["value"] == response.get_json(), name


def test_cli_actions(tmp_path):
    """`ningbo-score actions LOG`: docs/cli.md shows what it prints; --json is the library's
    answer; an illegal prefix is exit status 3 with its event on standard error."""
    from conftest import ROOT
    from test_cli import cli as run

    def cli(*args: str) -> subprocess.CompletedProcess:
        return run(*args, cwd=tmp_path)

    (tmp_path / "log.json").write_text(json.dumps(examples.ACTIONS_PUNG_AND_WIN), encoding="utf-8")
    (tmp_path / "bad.json").write_text(json.dumps(examples.ACTIONS_ERROR_EXAMPLES["out_of_turn"][1]), encoding="utf-8")
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    shown = docs.split("$ ningbo-score actions docs/examples/actions.json\n", 1)[1].split("```", 1)[0]
    out = cli("actions", "log.json")
    assert out.returncode == 0 and out.stdout == shown
    out = cli("actions", "log.json", "--json", "--for", "N")
    assert json.loads(out.stdout) == ningbo_score.actions({**examples.ACTIONS_PUNG_AND_WIN, "for": "N"})
    out = cli("actions", "bad.json")
    assert out.returncode == 3 and "event 2: out_of_turn" in out.stderr


def test_docs_api_walk_is_real_output():
    """docs/api.md walks ACTIONS_HAND through its three decisions: the hand, then the answers
    after 3, 24 and 30 events and after 30 for N, each what the library answers."""
    import re

    from conftest import ROOT

    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8").split("## POST /v1/table/actions", 1)[1]
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, flags=re.S)]
    assert blocks[0] == examples.ACTIONS_HAND
    assert blocks[1:] == [ningbo_score.actions(examples.actions_prefix(3)),
                          ningbo_score.actions(examples.actions_prefix(24)),
                          ningbo_score.actions(examples.actions_prefix(30)),
                          ningbo_score.actions(examples.actions_prefix(30, **{"for": "N"}))]
