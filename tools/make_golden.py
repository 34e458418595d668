"""Write tests/golden/cases.jsonl.gz: seeded requests over every route with today's answers.

    python -m tools.make_golden            # (NINGBO_SCORE_PURE=1 or compiled: same answers)

Each line is one case: ``method``, ``path``, ``headers``, the body (``json``, or ``raw`` text
with its ``content_type``), and what the app answered: ``status`` and ``answer`` (the JSON
body).  tests/http/test_golden.py replays every case and compares the answers after
:func:`normalise` (which drops message wording only: ``detail``, the messages in ``errors`` and
the engine's ``reasons`` in a Chinese request, while keeping every status, code, title, field
path and every other 200 field).  The seed is fixed, so the same cases come out on every run.

The requests: valid winning hands from tests/handgen.py (0-7 caishen on every preset, each
input form), mutations of them (a field dropped, replaced by junk, a near miss or a plausible
value, an unknown field, a list item duplicated, as tests/readers/test_fuzz.py does), hand-written
refusals of every 400/413/415/422 code, batches of those, waits of tenpai hands and their
mutations, and valid and invalid bodies of every table route, the rules, levels and the docs,
and analyses (the waits bodies, some after a draw) and their mutations.
"""
from __future__ import annotations

import copy
import gzip
import json
import random
import sys
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "cases.jsonl.gz"
SEED = 20261201

sys.path.insert(0, str(ROOT / "tests"))
import handgen  # type: ignore[import-not-found]  # noqa: E402  # tests/handgen.py, by the sys.path above

PRESETS = handgen.PRESETS
SEATS = handgen.SEATS
TILES = list(handgen.KINDS) + list(handgen.FLOWERS)
LANGS = [None, None, None, "en", "zh", "zh-CN", "en-US,en;q=0.9"]
NEAR: list[object] = [0, 1, -1, 2, 5, 99, 2**63, True, False, None, [], {}, [[]], "", "E", ["1m"] * 5, ["C"] * 20,
        1.5, 2.0, "1x", "0m", "10m", "东", "一万", "春", "123m 456p EE", "EE C", "🀄", "1m\x00", " ",
        "self_draw", "discard", "robbing_kong", "chow", "pung", "kong", "ningbo", "ningbo-7baida"]
KEYS = ["rules", "preset", "seat_wind", "hand", "concealed", "melds", "tiles", "from", "win", "by",
        "kong_replacement", "flowers", "item_tai", "min_tai", "E", "x", "zz", ""]


# --- what the golden test compares ------------------------------------------------------------

def _is_problem(node: dict) -> bool:
    return isinstance(node.get("type"), str) and node["type"].startswith("urn:ningbo-score:problem:")


#: Fields added to the answers since the cases were recorded (an addition changes no answer a
#: client reads): ``outcome`` of a batch result and of a wait's values (issue 25; its own tests
#: are in tests/library/test_batch.py and tests/library/test_waits.py).
ADDED = frozenset({"outcome"})


def normalise(answer: typing.Any, lang: str) -> typing.Any:
    """The answer without its message wording: a problem object keeps type, title, status, code
    and its error paths (the messages under each path are dropped, and its detail), in order for a
    422 (docs/rules.md §10.15), sorted for a 400 (marshmallow lists unknown fields in set order);
    ``reasons`` of a request answered in Chinese keep only their number; all else is kept."""
    if isinstance(answer, list):
        return [normalise(v, lang) for v in answer]
    if not isinstance(answer, dict):
        return answer
    if ADDED.intersection(answer):
        answer = {k: v for k, v in answer.items() if k not in ADDED}
    if _is_problem(answer):
        out = {k: v for k, v in answer.items() if k not in ("detail", "errors")}
        if "errors" in answer:
            found = list(answer["errors"])
            out["errors"] = found if answer.get("status") == 422 else sorted(found)
        return out
    out = {}
    for k, v in answer.items():
        if k == "reasons" and lang == "zh" and isinstance(v, list):
            out[k] = len(v)
        elif k == "reason" and lang == "zh":
            out[k] = "…"
        else:
            out[k] = normalise(v, lang)
    return out


def language_of(headers: dict) -> str:
    """The language a case's answer comes in, as the service picks it for the LANGS above."""
    value = (headers or {}).get("Accept-Language") or ""
    return "zh" if value.lower().startswith("zh") else "en"


# --- generators -------------------------------------------------------------------------------

def junk(rng: random.Random, depth: int = 0) -> typing.Any:
    roll = rng.random()
    if depth < 2 and roll < 0.12:
        return [junk(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 2 and roll < 0.22:
        return {rng.choice(KEYS): junk(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return rng.choice([None, True, False, 0, -3, 7, 2**70, 0.5, 2.0, "", "zz", "1m", "E", rng.choice(TILES)])


def plausible(rng: random.Random, value: typing.Any) -> typing.Any:
    if isinstance(value, bool):
        return rng.choice([True, False])
    if isinstance(value, int):
        return rng.randint(0, 5)
    if isinstance(value, str):
        if value in SEATS:
            return rng.choice(SEATS)
        if value in TILES:
            return rng.choice(TILES)
        if value in ("self_draw", "discard", "robbing_kong"):
            return rng.choice(["self_draw", "discard", "robbing_kong"])
        if value in ("chow", "pung", "kong"):
            return rng.choice(["chow", "pung", "kong"])
        if value in PRESETS:
            return rng.choice(PRESETS)
        return rng.choice([value, rng.choice(TILES) + rng.choice(TILES)])
    return copy.deepcopy(value)


def paths(value: typing.Any, prefix: tuple = ()) -> list[tuple]:
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            out.append(prefix + (k,))
            out += paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.append(prefix + (i,))
            out += paths(v, prefix + (i,))
    return out


def mutate(rng: random.Random, request: dict) -> dict:
    request = copy.deepcopy(request)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        where = paths(request)
        if not where:
            break
        path = rng.choice(where)
        parent = request
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        op = rng.choice(["plausible", "plausible", "plausible", "drop", "junk", "near", "extra", "dup"])
        if op == "plausible":
            parent[last] = plausible(rng, parent[last])
        elif op == "drop":
            del parent[last]
        elif op == "junk":
            parent[last] = junk(rng)
        elif op == "extra" and isinstance(parent[last], dict):
            parent[last][rng.choice(KEYS)] = junk(rng)
        elif op == "dup" and isinstance(parent[last], list) and parent[last]:
            parent[last].append(copy.deepcopy(parent[last][0]))
        else:
            parent[last] = copy.deepcopy(rng.choice(NEAR))
    return request


def valid_score(rng: random.Random, n_caishen: int, preset: str) -> dict | None:
    for mode in (None, "kinds"):
        try:
            req = handgen.random_request(rng, tries=60, n_caishen=n_caishen, presets=[preset], caishen_mode=mode,
                                         min_tai_override=rng.random() < 0.2)
        except RuntimeError:
            continue
        form = rng.random()
        if form < 0.25:
            req = handgen.compact_form(req)
        return req
    return None


def worked_example() -> dict:
    return {"rules": "ningbo", "seat_wind": "S", "round_wind": "E", "caishen": {"indicator": "4p"},
            "hand": {"concealed": ["2m", "3m", "4m", "6m", "7m", "8m", "9s", "9s"], "winning_tile": "4m",
                     "melds": [{"type": "pung", "tiles": ["C", "C", "C"], "from": "E"},
                               {"type": "kong", "tiles": ["1s", "1s", "1s", "1s"], "from": "N"}],
                     "flowers": ["2f"]},
            "win": {"by": "self_draw"}}


def refusals() -> list[object]:
    """Hand-written refusals: one or more of every code a score request can get."""
    base = worked_example()

    def with_(**changes) -> dict:
        req = copy.deepcopy(base)
        for dotted, value in changes.items():
            node = req
            keys = dotted.split("__")
            for k in keys[:-1]:
                node = node[int(k)] if isinstance(node, list) else node[k]
            last = keys[-1]
            if value is KeyError:
                del node[last]
            elif isinstance(node, list):
                node[int(last)] = value
            else:
                node[last] = value
        return req

    chow_from_wrong = with_(hand__melds=[{"type": "chow", "tiles": ["1p", "2p", "3p"], "from": "W"},
                                         {"type": "kong", "tiles": ["1s"] * 4, "from": "N"}])
    out = [
        with_(seat_wind="X"), with_(seat_wind=KeyError), with_(round_wind=3), with_(rules="nope"),
        with_(rules={"preset": "nope"}), with_(rules={"min_tai": -1}), with_(rules={"min_tai": True}),
        with_(rules={"item_tai": {"self_draw": 101}}), with_(rules={"item_tai": {"bogus": 1}}),
        with_(rules={"required_patterns": ["bogus"]}), with_(rules={"caishen_discard_restriction": "x"}),
        with_(rules={"hand_cap": 0}), with_(rules={"liability_cap": None, "hand_cap": None}),
        with_(rules={"bogus": 1}), with_(rules=7),
        with_(caishen={"indicator": "4p", "kinds": ["5p"]}), with_(caishen={}), with_(caishen={"indicator": "zz"}),
        with_(caishen={"kinds": "5p 6p"}), with_(caishen={"kinds": ["5p", 3]}), with_(caishen=[]),
        with_(hand__concealed="2m3m4m 6m7m8m 9s9s"), with_(hand__concealed="2m3m4m 6m7m8x 9s9s"),
        with_(hand__concealed=["2m", "3m", "4m", "6m", "7m", "8m", "9s"]),
        with_(hand__concealed=["2m", "3m", "4m", "6m", "7m", "8m", "9s", "9s", "9s"]),
        with_(hand__winning_tile="5m"), with_(hand__winning_tile=KeyError), with_(hand__winning_tile=4),
        with_(hand__melds=[{}] * 3), with_(hand__melds=[{"type": "pung", "tiles": ["C", "C", "C"]}] * 5),
        with_(hand__melds__0__tiles=["C", "C", "F"]), with_(hand__melds__0__tiles=["4p", "4p", "4p"]),
        with_(hand__melds__0__tiles=["1f", "1f", "1f"]), with_(hand__melds__0__type="chow"),
        with_(hand__melds__0__from="S"), with_(hand__melds__0__concealed=True),
        with_(hand__melds__1__concealed=True), with_(hand__melds__1__added=True, hand__melds__1__concealed=True),
        with_(hand__melds__0__type="bogus"), with_(hand__melds__0__x=1), with_(hand__melds=3),
        with_(hand__flowers=["1m"]), with_(hand__flowers=["2f", "2f"]), with_(hand__flowers="2f 3f"),
        with_(hand__concealed=["2m", "3m", "4m", "6m", "7m", "8m", "9s", "1f"]),
        with_(hand__concealed=["1s", "3m", "4m", "6m", "7m", "8m", "9s", "9s"], hand__winning_tile="1s"),
        with_(hand__concealed=["C", "C", "4m", "6m", "7m", "8m", "9s", "9s"]),
        with_(win={"by": "discard"}),
        with_(win={"by": "discard", "from": "S"}),
        with_(win={"by": "self_draw", "from": "E"}),
        with_(win={"by": "self_draw", "kong_replacement": 1}),
        with_(win={"by": "discard", "from": "E", "kong_replacement": True}),
        with_(win={"by": "self_draw", "kong_fed_by": "E"}),
        with_(win={"by": "self_draw", "kong_fed_by": "N", "kong_replacement": True}),
        with_(win={"by": "self_draw", "kong_fed_by": "E", "kong_replacement": True}),
        with_(win={"by": "discard", "from": "E", "last_tile": True}), with_(win={"by": "self_draw", "heavenly": True}),
        with_(win={"by": "self_draw", "earthly": True}), with_(win={"by": "robbing_kong", "from": "E"}),
        with_(win={"by": "zz"}), with_(win={}), with_(win=KeyError), with_(win={"by": "self_draw", "x": 1}),
        with_(rules="ningbo-7baida", win={"by": "discard", "from": "E"}),
        with_(rules="ningbo-7baida", win={"by": "robbing_kong", "from": "E", "discarded_caishen": True}),
        with_(hand__concealed=["2m", "3m", "4p", "6m", "7m", "8m", "9s", "9s"], hand__winning_tile="4p",
              win={"by": "discard", "from": "E"}),
        with_(hand__concealed=["2m", "3m", "5m", "6m", "7m", "8m", "9s", "9s"], hand__winning_tile="5m"),
        with_(hand__concealed=["2m", "4p", "5m", "6m", "7m", "8m", "9s", "9s"], hand__winning_tile="9s",
              win={"by": "discard", "from": "E"}),
        with_(claims_from_winner={"S": 1}), with_(claims_from_winner={"E": -1}), with_(claims_from_winner={"X": 1}),
        with_(claims_from_winner=[1]), with_(base_points=0), with_(base_points=1_000_001), with_(base_points=2.0),
        with_(base_points="5"), with_(bogus=1), chow_from_wrong, [], "x", 5, None, {},
        with_(hand={"concealed": "1m" * 200, "winning_tile": "1m"}),
        with_(hand__melds=[{}] * 40), with_(hand__concealed=["zz"] * 60),
    ]
    return out


def tenpai(rng: random.Random) -> dict:
    req, _ = handgen.random_tenpai(rng, n_caishen=rng.choice([0, 0, 1, 2]), presets=[rng.choice(PRESETS)])
    req = copy.deepcopy(req)
    win = req.pop("win")
    if rng.random() < 0.5 and win.get("from"):
        req["win"] = {"from": win["from"]}
    elif rng.random() < 0.3:
        req["win"] = {"discarded_caishen": rng.random() < 0.5}
    return req


def analysis(rng: random.Random, waiting: dict) -> dict:
    """A `/v1/analyze` body from a `/v1/waits` one: as it is (13 − 3m tiles) or after a draw of a
    random tile (14 − 3m), with or without some tiles seen elsewhere."""
    req = copy.deepcopy(waiting)
    if rng.random() < 0.6:
        concealed = req["hand"]["concealed"]
        if isinstance(concealed, str):
            concealed = concealed + " " + rng.choice(handgen.KINDS)
        else:
            concealed = list(concealed) + [rng.choice(handgen.KINDS)]
        req["hand"]["concealed"] = concealed
    if rng.random() < 0.5:
        req["visible"] = [rng.choice(handgen.KINDS) for _ in range(rng.randint(0, 12))]
    return req


def table_next(rng: random.Random) -> typing.Any:
    body = {"dealer": rng.randint(0, 3), "round_wind": rng.choice(SEATS), "dealers_this_round": rng.randint(1, 4),
            "result": rng.choice([{"winner": rng.randint(0, 3)}, {"draw": True}])}
    return mutate(rng, body) if rng.random() < 0.5 else body


def table_claims(rng: random.Random) -> typing.Any:
    body = {"discarder": rng.choice(SEATS),
            "claims": [{"seat": rng.choice(SEATS), "type": rng.choice(["win", "kong", "pung", "chow"])}
                       for _ in range(rng.randint(0, 3))]}
    return mutate(rng, body) if rng.random() < 0.4 else body


def table_escape(rng: random.Random) -> typing.Any:
    body = rng.choice([{"base_points": rng.randint(1, 100)}, {"level": rng.randint(0, 16)}])
    return mutate(rng, body) if rng.random() < 0.5 else body


def cases() -> list[dict]:
    rng = random.Random(SEED)
    out: list[dict] = []

    def add(method: str, path: str, body: typing.Any = None, raw: str | None = None,
            content_type: str | None = None, lang: str | None = None) -> None:
        case: dict = {"method": method, "path": path, "headers": {}}
        if lang is None and rng.random() < 0.35:
            lang = rng.choice(LANGS)
        if lang:
            case["headers"]["Accept-Language"] = lang
        if raw is not None:
            case["raw"] = raw
            case["content_type"] = content_type
        elif method == "POST":
            case["json"] = body
        out.append(case)

    valid: list[dict] = []
    for n in range(8):
        for preset in PRESETS:
            for _ in range(14):
                req = valid_score(rng, n, preset)
                if req is not None:
                    valid.append(req)
    for req in valid:
        add("POST", "/v1/score", req)
    add("POST", "/v1/score", worked_example())
    for _ in range(1100):
        add("POST", "/v1/score", mutate(rng, rng.choice(valid)))
    for refusal in refusals():
        add("POST", "/v1/score", refusal)
        add("POST", "/v1/score", refusal, lang="zh")
    # batches: mixes of valid, mutated and refused bodies; and bad shapes
    bad = refusals()
    body: object
    for _ in range(60):
        items = []
        for _ in range(rng.randint(0, 8)):
            roll = rng.random()
            items.append(rng.choice(valid) if roll < 0.4 else mutate(rng, rng.choice(valid)) if roll < 0.8
                         else rng.choice(bad))
        add("POST", "/v1/score/batch", {"requests": items})
    for body in ({}, {"requests": {}}, {"requests": [1, "x", None]}, {"requests": [], "x": 1}, [],
                 {"requests": [worked_example()] * 201}, {"requests": [{}] * 200}):
        add("POST", "/v1/score/batch", body)
    # waits
    waits_valid = [tenpai(rng) for _ in range(160)]
    for req in waits_valid:
        add("POST", "/v1/waits", req)
    for _ in range(300):
        add("POST", "/v1/waits", mutate(rng, rng.choice(waits_valid)))
    # table routes
    for _ in range(150):
        add("POST", "/v1/table/next", table_next(rng))
        add("POST", "/v1/table/claims", table_claims(rng))
        add("POST", "/v1/table/escape", table_escape(rng))
    for path in ("/v1/table/next", "/v1/table/claims", "/v1/table/escape"):
        for body in ({}, [], None, "x", {"x": 1}):
            add("POST", path, body)
    # rules, levels, health, errors of the HTTP layer
    add("GET", "/v1/rules")
    for preset in list(PRESETS) + ["nope", "NINGBO"]:
        add("GET", f"/v1/rules/{preset}")
    add("GET", "/v1/levels")
    add("GET", "/healthz")
    add("GET", "/v1/nothing")
    add("GET", "/v1/score")
    add("DELETE", "/v1/rules")
    for path in ("/v1/score", "/v1/score/batch", "/v1/waits", "/v1/table/next"):
        add("POST", path, raw="{not json", content_type="application/json")
        add("POST", path, raw="", content_type="application/json")
        add("POST", path, raw="{}", content_type="text/plain")
        add("POST", path, raw=json.dumps(worked_example()), content_type="application/json; charset=latin-1")
        add("POST", path, raw=" " * (70 * 1024), content_type="application/json")
    add("POST", "/v1/score/batch", raw=json.dumps({"requests": [worked_example()] * 3000}),
        content_type="application/json")
    # analyses (after every other case, so that those come out of the seed as before): the waits
    # bodies as they are or after a draw, and their mutations
    analyze_valid = [analysis(rng, req) for req in waits_valid[:80]]
    for req in analyze_valid:
        add("POST", "/v1/analyze", req)
    for _ in range(120):
        add("POST", "/v1/analyze", mutate(rng, rng.choice(analyze_valid)))
    for body in ({}, [], None, {"x": 1}, {**analyze_valid[0], "visible": ["1m"] * 145}):
        add("POST", "/v1/analyze", body)
    return out


def run(case: dict, client) -> typing.Any:
    kwargs: dict = {"headers": case["headers"]}
    if "raw" in case:
        kwargs["data"] = case["raw"].encode()
        kwargs["content_type"] = case["content_type"]
    elif case["method"] == "POST":
        kwargs["json"] = case["json"]
    response = client.open(case["path"], method=case["method"], **kwargs)
    answer = response.get_json(silent=True) if response.is_json else None
    return response.status_code, answer


def main() -> None:
    import logging

    from service import create_app

    logging.disable(logging.INFO)            # one log line per refused request otherwise

    client = create_app({"TESTING": False}).test_client()
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for case in cases():
        case["status"], case["answer"] = run(case, client)
        lines.append(json.dumps(case, ensure_ascii=False))
    with gzip.GzipFile(GOLDEN, "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())
    print(f"{len(lines)} cases -> {GOLDEN.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
