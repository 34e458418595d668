"""openapi.yaml: valid OpenAPI 3.1 with valid JSON Schema 2020-12, in step with the marshmallow
schemas it is generated from, and saying exactly what the server accepts."""
from __future__ import annotations

import copy
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from marshmallow import ValidationError
from openapi_spec_validator import validate as validate_openapi

import ningbo_score
import schemas
from ningbo_score.rules import OPTION_KINDS
from ningbo_score.tiles import ALIASES, CODES, parse_tiles
from tools import examples
from tools.gen_openapi import generate

from conftest import OPENAPI_FILE


def test_openapi_is_valid_3_1(openapi_document):
    assert openapi_document["openapi"].startswith("3.1")
    validate_openapi(openapi_document)


def _schemas_in(node: typing.Any, key: str | None = None) -> typing.Iterator[dict]:
    if isinstance(node, dict):
        if key == "schema":
            yield node
        for k, v in node.items():
            yield from _schemas_in(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from _schemas_in(v)


def test_every_schema_is_valid_json_schema_2020_12(openapi_document):
    for name, schema in openapi_document["components"]["schemas"].items():
        Draft202012Validator.check_schema(schema)
    inline = list(_schemas_in(openapi_document["paths"]))
    assert len(inline) > 10
    for schema in inline:
        Draft202012Validator.check_schema(schema)


def test_committed_file_is_the_generated_one():
    """`make openapi` regenerates it; this fails when someone forgot to."""
    assert OPENAPI_FILE.read_text(encoding="utf-8") == generate(), "openapi.yaml is stale: run `make openapi`"


def test_every_operation_documents_its_errors(openapi_document):
    score = openapi_document["paths"]["/v1/score"]["post"]["responses"]
    assert {"200", "400", "413", "415", "422", "500"} <= set(score)
    for status in ("400", "413", "415", "422", "500"):
        assert list(score[status]["content"]) == ["application/problem+json"]
    assert "404" in openapi_document["paths"]["/v1/rules/{preset}"]["get"]["responses"]
    codes = set(openapi_document["components"]["schemas"]["Problem"]["properties"]["code"]["enum"])
    assert {"malformed_json", "invalid_request", "payload_too_large", "unsupported_media_type", "too_many_copies",
            "wrong_tile_count", "invalid_meld", "caishen_in_meld", "winning_tile_not_in_hand",
            "inconsistent_win_context", "not_a_winning_hand", "caishen_needs_self_draw", "discard_win_not_allowed",
            "not_found", "method_not_allowed", "internal_error"} <= codes


def test_examples_validate_and_are_real_output(openapi_document, contract, client):
    operation = openapi_document["paths"]["/v1/score"]["post"]
    requests = operation["requestBody"]["content"]["application/json"]["examples"]
    assert "api_md" in requests and len(requests) >= 5
    for name, example in requests.items():
        response = client.score(example["value"])  # checked against the spec by the client
        valid = not contract.schema_errors("/components/schemas/ScoreRequest", example["value"])
        assert valid == (response.status_code != 400), name  # the 400 example is ill-formed on purpose
        documented = operation["responses"][str(response.status_code)]["content"][response.mimetype]["examples"]
        assert documented[name]["value"] == response.get_json(), name
    for path, item in openapi_document["paths"].items():
        for method, op in item.items():
            for status, answer in op["responses"].items():
                for media, content in answer.get("content", {}).items():
                    for name, example in content.get("examples", {}).items():
                        errors = contract.schema_errors(content["schema"]["$ref"][1:], example["value"])
                        assert not errors, (path, method, status, name, errors)


# --- the spec says exactly what the schemas accept ------------------------------------------------

def schema_accepts(body) -> bool:
    try:
        schemas.score_request.load(body)
    except ValidationError:
        return False
    return True


def spec_accepts(contract, body) -> bool:
    return not contract.schema_errors("/components/schemas/ScoreRequest", body)


def _with(path: str, value):
    body = copy.deepcopy(examples.API_MD)
    node = body
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if k.isdigit() else node[k]
    last = keys[-1]
    if value is _DELETE:
        del node[last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return body


_DELETE = object()

PROBES = [
    ("base_points", 5), ("base_points", 5.5), ("base_points", "5"), ("base_points", True), ("base_points", 0),
    ("base_points", None), ("base_points", -1), ("win.last_tile", True), ("win.last_tile", "yes"),
    ("win.last_tile", 1), ("win.last_tile", None), ("win.by", "tsumo"), ("win.by", None), ("win.by", _DELETE),
    ("win.from", "W"), ("win.from", "w"), ("win.from", None), ("win.extra", 1), ("seat_wind", "东"),
    ("seat_wind", None), ("hand.concealed", "234m 678m 99s"), ("hand.concealed", "234m 678m 9s 9s\u3000"),
    ("hand.concealed", "0m"), ("hand.concealed", "9f"), ("hand.concealed", "10m"), ("hand.concealed", "m"),
    ("hand.concealed", "一万二萬 東風 红中"), ("hand.concealed", ["1m", 2]), ("hand.concealed", ["1m", "1M"]),
    ("hand.concealed", []), ("hand.concealed", ""), ("hand.concealed", None), ("hand.concealed", {"a": 1}),
    ("hand.winning_tile", "四万"), ("hand.winning_tile", "4m4m"), ("hand.winning_tile", ["4m"]),
    ("hand.melds", []), ("hand.melds", None), ("hand.melds.0", None), ("hand.melds.0.type", "chi"),
    ("hand.melds.0.from", "X"), ("hand.melds.0.concealed", None), ("hand.melds.0.added", 0),
    ("hand.flowers", "春 夏"), ("hand.flowers", None), ("caishen", None), ("caishen", {}),
    ("caishen", {"kinds": []}), ("caishen", {"kinds": "5p6p"}), ("caishen", {"indicator": "5p", "kinds": None}),
    ("caishen", {"indicator": None, "kinds": None}), ("caishen", {"indicator": "5p", "kinds": ["5p"]}),
    ("caishen", {"indicator": "5p", "extra": 1}), ("claims_from_winner", {"E": 3}),
    ("claims_from_winner", {"E": -1}), ("claims_from_winner", {"X": 1}), ("claims_from_winner", {"E": None}),
    ("claims_from_winner", {"E": 101}), ("rules", "ningbo-456"), ("rules", "nb"), ("rules", None), ("rules", 1),
    ("rules", {}), ("rules", {"preset": None}), ("rules", {"preset": "x"}), ("rules", {"hand_cap": None}),
    ("rules", {"hand_cap": 0}), ("rules", {"min_tai": None}), ("rules", {"min_tai": 2**53}),
    ("rules", {"item_tai": {"self_draw": 3}}), ("rules", {"item_tai": {"self_draw": None}}),
    ("rules", {"item_tai": {"nope": 3}}), ("rules", {"item_tai": {"self_draw": 1001}}),
    ("rules", {"required_patterns": ["all_pungs"]}), ("rules", {"required_patterns": ["x"]}),
    ("rules", {"caishen_discard_restriction": "any_group"}), ("rules", {"caishen_discard_restriction": "x"}),
    ("rules", {"points": "doubling", "white_dragon_substitutes": True}), ("rules", {"color": "red"}),
    ("hand.melds", [{"type": "pung", "tiles": "CCC", "from": "E"}] * 17),
]


@pytest.mark.parametrize("path,value", PROBES, ids=[f"{p}={v!r}"[:60] for p, v in PROBES])
def test_spec_and_schema_agree(contract, path, value):
    body = _with(path, value)
    assert spec_accepts(contract, body) == schema_accepts(body)


def test_integers_written_as_floats_are_the_one_documented_difference(contract):
    # JSON Schema's data model has one number 2 = 2.0; the server wants JSON integers (API.md)
    body = _with("base_points", 2.0)
    assert spec_accepts(contract, body) and not schema_accepts(body)


TILE_ALPHABET = "0123456789mpsfESWNCFPMx " + "\t\n\u3000\u00a0\x1c\ufeff\u200b" + "一二九万萬饼条索东東风風南西北中红紅发發财財白板春兰蘭竹菊"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=TILE_ALPHABET, max_size=12))
def test_tile_string_pattern_is_the_parser(contract, text):
    """The compact-string pattern of openapi.yaml accepts exactly what the parser accepts."""
    try:
        parse_tiles(text, "t")
        parsed = True
    except ningbo_score.ScoreError:
        parsed = False
    assert (not contract.schema_errors("/components/schemas/Tiles", text)) == parsed, repr(text)


def test_tile_names_are_the_parser_s(openapi_document):
    enum = openapi_document["components"]["schemas"]["Tile"]["enum"]
    assert set(enum) == set(CODES) | set(ALIASES)
    assert openapi_document["components"]["schemas"]["TileCode"]["enum"] == list(CODES)


def test_rule_options_are_the_library_s(openapi_document):
    documented = openapi_document["components"]["schemas"]["RulesObject"]["properties"]
    assert set(documented) == {"preset", "item_tai", *OPTION_KINDS}
    assert set(documented) - {"item_tai"} == {"preset", *ningbo_score.preset("ningbo")["options"]}
    for name, (kind, allowed) in OPTION_KINDS.items():
        if allowed:
            enum = [v for v in documented[name]["enum"] if v is not None]
            assert enum == list(allowed), name
    assert documented["preset"]["enum"][:-1] == [p["id"] for p in ningbo_score.presets()]


# --- the live-table operations (issue 4): the spec accepts what their schemas accept ----------------

_WAITS = {"seat_wind": "S", "round_wind": "E", "hand": {"concealed": "23456m 789p 234s 55s"}}
_NEXT = {"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": 2}}
_CLAIMS = {"discarder": "E", "claims": [{"seat": "S", "type": "chow"}]}

LIVE_PROBES = [
    # (component, marshmallow schema, body)
    ("WaitsRequest", schemas.waits_request, _WAITS),
    ("WaitsRequest", schemas.waits_request, {**_WAITS, "win": {"from": "W", "discarded_caishen": True}}),
    ("WaitsRequest", schemas.waits_request, {**_WAITS, "win": None}),
    ("WaitsRequest", schemas.waits_request, {**_WAITS, "win": {}}),
    ("WaitsRequest", schemas.waits_request, {**_WAITS, "win": {"by": "self_draw"}}),
    ("WaitsRequest", schemas.waits_request, {**_WAITS, "win": {"from": "X"}}),
    ("WaitsRequest", schemas.waits_request, {**_WAITS, "hand": {"concealed": "123m", "winning_tile": "1m"}}),
    ("WaitsRequest", schemas.waits_request, {**_WAITS, "hand": {"concealed": "123m", "melds": []}}),
    ("WaitsRequest", schemas.waits_request, {**_WAITS, "hand": {}}),
    ("WaitsRequest", schemas.waits_request, {**_WAITS, "caishen": {"indicator": "5p"}, "rules": "ningbo-7baida"}),
    ("WaitsRequest", schemas.waits_request, {**_WAITS, "base_points": 0}),
    ("AnalyzeRequest", schemas.analyze_request, _WAITS),
    ("AnalyzeRequest", schemas.analyze_request, {**_WAITS, "hand": {"concealed": "23456m 789p 234s 55s 9s"}}),
    ("AnalyzeRequest", schemas.analyze_request, {**_WAITS, "visible": "2m 2m E"}),
    ("AnalyzeRequest", schemas.analyze_request, {**_WAITS, "visible": ["2m", "东"]}),
    ("AnalyzeRequest", schemas.analyze_request, {**_WAITS, "visible": None}),
    ("AnalyzeRequest", schemas.analyze_request, {**_WAITS, "visible": ["9x"]}),
    ("AnalyzeRequest", schemas.analyze_request, {**_WAITS, "visible": 3}),
    ("AnalyzeRequest", schemas.analyze_request, {**_WAITS, "win": {"by": "self_draw"}}),
    ("AnalyzeRequest", schemas.analyze_request, {**_WAITS, "hand": {"concealed": "123m", "winning_tile": "1m"}}),
    ("AnalyzeRequest", schemas.analyze_request, {**_WAITS, "seen": "2m"}),
    ("BatchRequest", schemas.batch_request, {"requests": []}),
    ("BatchRequest", schemas.batch_request, {"requests": [{}, {"anything": [1, 2]}]}),
    ("BatchRequest", schemas.batch_request, {"requests": [{}, 1]}),
    ("BatchRequest", schemas.batch_request, {"requests": [None]}),
    ("BatchRequest", schemas.batch_request, {"requests": {}}),
    ("BatchRequest", schemas.batch_request, {"requests": None}),
    ("BatchRequest", schemas.batch_request, {}),
    ("BatchRequest", schemas.batch_request, {"requests": [], "more": 1}),
    ("NextHandRequest", schemas.next_hand_request, _NEXT),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "result": {"draw": True}}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "result": {"draw": True, "winner": None}}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "result": {"draw": False}}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "result": {"draw": True, "winner": 1}}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "result": {}}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "result": None}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "result": {"winner": 4}}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "dealer": -1}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "dealer": None}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "dealers_this_round": 4}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "dealers_this_round": 0}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "round_wind": "东"}),
    ("NextHandRequest", schemas.next_hand_request, {**_NEXT, "seat": "E"}),
    ("TableClaimsRequest", schemas.claims_request, _CLAIMS),
    ("TableClaimsRequest", schemas.claims_request, {**_CLAIMS, "claims": []}),
    ("TableClaimsRequest", schemas.claims_request, {**_CLAIMS, "claims": None}),
    ("TableClaimsRequest", schemas.claims_request, {**_CLAIMS, "claims": [None]}),
    ("TableClaimsRequest", schemas.claims_request, {**_CLAIMS, "claims": [{"seat": "S"}]}),
    ("TableClaimsRequest", schemas.claims_request, {**_CLAIMS, "claims": [{"seat": "S", "type": "ron"}]}),
    ("TableClaimsRequest", schemas.claims_request, {**_CLAIMS, "claims": [{"seat": "S", "type": "pung", "x": 1}]}),
    ("TableClaimsRequest", schemas.claims_request, {**_CLAIMS, "discarder": None}),
    ("EscapeRequest", schemas.escape_request, {"base_points": 2}),
    ("EscapeRequest", schemas.escape_request, {"level": 16}),
    ("EscapeRequest", schemas.escape_request, {"level": 16, "base_points": None}),
    ("EscapeRequest", schemas.escape_request, {"level": 17}),
    ("EscapeRequest", schemas.escape_request, {"base_points": 1_000_001}),
    ("EscapeRequest", schemas.escape_request, {"base_points": 2, "level": 3}),
    ("EscapeRequest", schemas.escape_request, {"base_points": None, "level": None}),
    ("EscapeRequest", schemas.escape_request, {}),
    ("EscapeRequest", schemas.escape_request, {"base_points": True}),
]


@pytest.mark.parametrize("component,schema,body", LIVE_PROBES,
                         ids=[f"{c}:{b!r}"[:70] for c, _, b in LIVE_PROBES])
def test_live_spec_and_schemas_agree(contract, component, schema, body):
    try:
        schema.load(copy.deepcopy(body))
        accepted = True
    except ValidationError:
        accepted = False
    assert (not contract.schema_errors(f"/components/schemas/{component}", body)) == accepted


def test_batch_over_200_is_refused_by_the_spec_and_by_the_library(contract):
    """The one place the spec refuses what the batch schema loads: more than `maxItems` (200)
    requests, which the library answers with 413 `batch_too_large` (tests/test_api_live.py)."""
    body = {"requests": [{}] * (ningbo_score.MAX_BATCH + 1)}
    assert contract.schema_errors("/components/schemas/BatchRequest", body)
    assert not contract.schema_errors("/components/schemas/BatchRequest", {"requests": [{}] * ningbo_score.MAX_BATCH})
    assert schemas.batch_request.load(body)
    with pytest.raises(ningbo_score.ScoreError) as err:
        ningbo_score.score_batch(body)
    assert (err.value.code, err.value.status) == ("batch_too_large", 413)
