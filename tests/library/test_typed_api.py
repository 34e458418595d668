"""The Python library is typed: ``score(body: Mapping[str, object]) -> ScoreAnswer`` and the rest,
the answers TypedDicts generated from the response schemas (tools/gen_answers.py), the table's
helpers at the top level; ``mypy --strict`` reads a caller's use of them (and refuses
``score(42)``), and the real answers have exactly the types their TypedDicts say."""
from __future__ import annotations

import copy
import subprocess
import sys
import textwrap
import types
import typing
from pathlib import Path

import pytest

import ningbo_score
from ningbo_score import answers
from tools import examples
from tools.gen_answers import generate

ROOT = Path(__file__).resolve().parents[2]


def test_committed_answers_are_the_generated_ones():
    """`python -m tools.gen_answers` regenerates ningbo_score/answers.py; this fails when a response
    schema changed and nobody did."""
    assert (ROOT / "ningbo_score" / "answers.py").read_text(encoding="utf-8") == generate(), \
        "ningbo_score/answers.py is stale: run `python -m tools.gen_answers`"


def test_the_table_helpers_are_at_the_top_level(client):
    for name in ("score", "waits", "analyze", "score_batch", "next_hand", "claims", "escape", "levels", "replay",
                 "replay_batch", "settle"):
        assert name in ningbo_score.__all__ and callable(getattr(ningbo_score, name)), name
    assert ningbo_score.levels() == client.get("/v1/levels").get_json()
    assert ningbo_score.escape({"level": 3}) == client.post("/v1/table/escape", json={"level": 3}).get_json()
    next_hand = client.post("/v1/table/next", json=examples.NEXT_DRAW).get_json()
    assert ningbo_score.next_hand(examples.NEXT_DRAW) == next_hand
    assert ningbo_score.claims(examples.CLAIMS_INTERCEPT, "zh") == client.post(
        "/v1/table/claims", json=examples.CLAIMS_INTERCEPT, headers={"Accept-Language": "zh"}).get_json()
    assert ningbo_score.replay(examples.REPLAY_HAND, "zh") == client.post(
        "/v1/replay", json=examples.REPLAY_HAND, headers={"Accept-Language": "zh"}).get_json()
    assert ningbo_score.settle(examples.SESSION) == client.post("/v1/sessions/settle", json=examples.SESSION).get_json()


def test_the_replay_module_keeps_its_name():
    """``ningbo_score.replay`` is the function (as ``ningbo_score.score``); the module it calls is
    still ``ningbo_score.replay`` to an import (``from ningbo_score.replay import …``)."""
    import importlib
    import sys

    from ningbo_score.replay import REASONS, replay_loaded

    module = importlib.import_module("ningbo_score.replay")
    assert sys.modules["ningbo_score.replay"] is module and module.REASONS is REASONS
    assert callable(ningbo_score.replay) and ningbo_score.replay is not module
    assert ningbo_score.replay(examples.REPLAY_HAND) == replay_loaded(module.read_replay(examples.REPLAY_HAND))


# --- the real answers have the types their TypedDicts say ---------------------------------------

def conforms(value: typing.Any, kind: typing.Any, path: str = "$") -> list[str]:
    """Where ``value`` is not of the type ``kind`` (a TypedDict, Literal, list, dict, union, or
    int/bool/str/None): a TypedDict's required keys present, no other keys, each value of its type."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is object:                      # any JSON value (a replay's evidence, its request)
        return []
    if kind is type(None) or kind is None:
        return [] if value is None else [f"{path}: {value!r} is not None"]
    if origin in (typing.Union, types.UnionType):
        tries = [conforms(value, a, path) for a in args]
        return [] if any(not t for t in tries) else [f"{path}: {value!r} is none of {args}: {tries}"]
    if origin is typing.Literal:
        return [] if value in args and type(value) in {type(a) for a in args} else [f"{path}: {value!r} not in {args}"]
    if origin is list:
        if type(value) is not list:
            return [f"{path}: not a list"]
        return [e for i, v in enumerate(value) for e in conforms(v, args[0], f"{path}.{i}")]
    if origin is dict:
        if type(value) is not dict:
            return [f"{path}: not a dict"]
        return [e for k, v in value.items() for e in conforms(k, args[0], path) + conforms(v, args[1], f"{path}.{k}")]
    if typing.is_typeddict(kind):
        if type(value) is not dict:
            return [f"{path}: not an object"]
        hints = typing.get_type_hints(kind)
        found = [f"{path}: {k} missing" for k in kind.__required_keys__ if k not in value]
        found += [f"{path}: {k} is no field of {kind.__name__}" for k in value if k not in hints]
        return found + [e for k, v in value.items() if k in hints for e in conforms(v, hints[k], f"{path}.{k}")]
    if kind in (int, str, bool):
        return [] if type(value) is kind else [f"{path}: {value!r} is not {kind.__name__}"]
    raise AssertionError(f"no check for {kind}")


def _waiting(body):
    body = copy.deepcopy(body)
    body["hand"]["concealed"].remove(body["hand"].pop("winning_tile"))
    body["win"] = {}
    return body


CALLS = [
    (lambda: ningbo_score.score(examples.API_MD), answers.ScoreAnswer),
    (lambda: ningbo_score.score(examples.DISCARD_LIABILITY), answers.ScoreAnswer),
    (lambda: ningbo_score.waits(_waiting(examples.API_MD)), answers.WaitsAnswer),
    (lambda: ningbo_score.waits(examples.WAITS_ANY_TILE), answers.WaitsAnswer),
    (lambda: ningbo_score.analyze(examples.ANALYZE_DRAWN), answers.AnalyzeAnswer),
    # before the draw: ANALYZE_DRAWN without its 9s (13 tiles, tenpai on 2m)
    (lambda: ningbo_score.analyze({**examples.ANALYZE_DRAWN, "hand": {"concealed": "13m 567m 789m EEE SS"}}),
     answers.AnalyzeAnswer),
    (lambda: ningbo_score.score_batch(examples.BATCH), answers.BatchAnswer),
    (lambda: ningbo_score.next_hand(examples.NEXT_ROUND_CHANGE), answers.NextHandAnswer),
    (lambda: ningbo_score.claims(examples.CLAIMS_INTERCEPT), answers.ClaimsAnswer),
    (lambda: ningbo_score.claims(examples.CLAIMS_NONE), answers.ClaimsAnswer),
    (lambda: ningbo_score.escape({"level": 3}), answers.EscapeAnswer),
    (lambda: ningbo_score.levels(), answers.LevelsAnswer),
    (lambda: ningbo_score.preset("ningbo-7baida"), answers.Preset),
    (lambda: ningbo_score.rulebook(), answers.Rulebook),
    (lambda: ningbo_score.replay(examples.REPLAY_HAND), answers.ReplayAnswer),
    (lambda: ningbo_score.replay(examples.REPLAY_DRAW, "zh"), answers.ReplayAnswer),
    (lambda: ningbo_score.replay_batch({"logs": [examples.REPLAY_HAND, examples.REPLAY_OUT_OF_TURN]}),
     answers.ReplayBatchAnswer),
    (lambda: ningbo_score.settle(examples.SESSION), answers.SessionAnswer),
]


@pytest.mark.parametrize("call,kind", CALLS)
def test_answers_have_their_declared_types(call, kind):
    assert conforms(call(), kind) == []


def test_the_type_check_can_fail():
    answer = ningbo_score.score(examples.API_MD)
    assert conforms({**answer, "tai": "4"}, answers.ScoreAnswer) == ["$.tai: '4' is not int"]
    assert conforms({**answer, "extra": 1}, answers.ScoreAnswer) == ["$: extra is no field of ScoreAnswer"]
    bad = copy.deepcopy(answer)
    bad["payments"][0]["from"] = "X"
    assert conforms(bad, answers.ScoreAnswer)[0].startswith("$.payments.0.from: 'X' not in")


# --- mypy --strict reads a caller's code -------------------------------------------------------

CALLER = '''
import ningbo_score

answer = ningbo_score.score({"seat_wind": "S", "round_wind": "E", "hand": {"concealed": "234678m 99s",
                            "winning_tile": "4m"}, "win": {"by": "self_draw"}})
reveal_type(answer["tai"])
reveal_type(answer["payments"][0]["from"])
reveal_type(ningbo_score.levels()["levels"][0]["base_points"])
reveal_type(ningbo_score.waits({})["waits"][0]["self_draw"])
total: int = answer["tai"] + answer["points"]
replayed = ningbo_score.replay({"deal": {}, "events": []}, "zh")
reveal_type(replayed["next"]["dealer"])
reveal_type(ningbo_score.settle({})["transfers"][0]["amount"])
reveal_type(ningbo_score.replay_batch({"logs": []})["results"][0]["outcome"])
'''


def _mypy(tmp_path, code: str) -> str:
    (tmp_path / "caller.py").write_text(textwrap.dedent(code), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir",
                          str(tmp_path / "cache"), "--config-file", str(ROOT / "pyproject.toml"),
                          str(tmp_path / "caller.py")], cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env={"MYPYPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return out.stdout + out.stderr


def test_mypy_strict_reads_the_answers_and_refuses_a_wrong_call(tmp_path):
    bad = "ningbo_score.score(42)\nningbo_score.score({}, 'zh')['no_such_field']\nningbo_score.escape([1])\n"
    said = _mypy(tmp_path, CALLER + bad)
    lines = [line.split("caller.py:", 1)[1] for line in said.splitlines() if "caller.py:" in line]
    assert lines[0].endswith('Revealed type is "int"'), said
    assert lines[1].endswith("""Revealed type is "Literal['E'] | Literal['S'] | Literal['W'] | Literal['N']\""""), said
    assert lines[2].endswith('Revealed type is "int"'), said
    # a wait's value: a score or the problem that refuses it, told apart by `outcome` (issue 25)
    assert "ningbo_score.answers.WinScored" in lines[3] and "ningbo_score.answers.WinRefused" in lines[3], said
    # the replay and the session are typed as the score is (issue 38: they were dict[str, Any])
    assert lines[4].endswith('Revealed type is "int"'), said
    assert lines[5].endswith('Revealed type is "int"'), said
    assert lines[6].endswith('''Revealed type is "Literal['replayed'] | Literal['refused']"'''), said
    errors = [line for line in lines if ": error:" in line]
    # exactly the three wrong calls: an int is no body, no such key, a list is no body
    assert len(errors) == 3, said
    assert 'Argument 1 to "score" has incompatible type "int"' in errors[0], said
    assert '"ScoreAnswer" has no key "no_such_field"' in errors[1], said
    assert 'Argument 1 to "escape" has incompatible type "list[int]"' in errors[2], said
