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
from ningbo_score.readers import request_schemas
from ningbo_score.tiles import SEATS
from ningbo_score.rules import OPTION_KINDS
from ningbo_score.tiles import ALIASES, CODES, parse_tiles
from tools import examples
from tools.gen_openapi import _walk, generate

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
    for schema in openapi_document["components"]["schemas"].values():
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
    assert {"200", "400", "413", "415", "422", "500", "default"} <= set(score)
    for status in ("400", "415", "422", "500", "default"):
        assert list(score[status]["content"]) == ["application/problem+json"]
    # a proxy's HTML page first, so a generated client reads it as text (issue 38), then the app's problem
    assert list(score["413"]["content"]) == ["text/html", "application/problem+json"]
    assert "404" in openapi_document["paths"]["/v1/rules/{preset}"]["get"]["responses"]
    # every operation: the statuses its Route says, 413 where it takes a body, 500, and a
    # problem+json `default` for any other status (a 429, a 503 …)
    from service.routes import ROUTES

    for route in ROUTES:
        if route.operation is None:
            continue
        responses = openapi_document["paths"][route.path][route.method.lower()]["responses"]
        statuses = {"200", *map(str, route.errors), "500", "default"} | ({"413"} if route.request else set())
        assert set(responses) == statuses, route.path
        assert responses["default"]["content"] == {"application/problem+json": {
            "schema": {"$ref": "#/components/schemas/Problem"}}}, route.path
    components = openapi_document["components"]["schemas"]
    assert components["Problem"]["properties"]["code"] == {"$ref": "#/components/schemas/ProblemCode"}
    codes = set(components["KnownProblemCode"]["enum"])
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
                for content in answer.get("content", {}).values():
                    for name, example in content.get("examples", {}).items():
                        errors = contract.schema_errors(content["schema"]["$ref"][1:], example["value"])
                        assert not errors, (path, method, status, name, errors)


# --- the spec says exactly what the schemas accept ------------------------------------------------

def schema_accepts(body) -> bool:
    try:
        request_schemas.SCORE_REQUEST.load(body)
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
    ("caishen", {"kinds": []}), ("caishen", {"kinds": "5p6p"}),
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


# Exactly-one-of fields (caishen `indicator`/`kinds`, `result.winner`/`draw`, escape
# `base_points`/`level`): the server takes the other one sent as `null` for absent, the spec
# wants it absent (one variant schema per field, without it: tools/gen_openapi.variants).
NULL_OTHER = [
    ("ScoreRequest", request_schemas.SCORE_REQUEST, _with("caishen", {"indicator": "5p", "kinds": None})),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST,
     {"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"draw": True, "winner": None}}),
    ("EscapeRequest", request_schemas.ESCAPE_REQUEST, {"level": 16, "base_points": None}),
]


@pytest.mark.parametrize("component,schema,body", NULL_OTHER, ids=[c for c, _, _ in NULL_OTHER])
def test_the_other_of_exactly_one_as_null_is_the_server_s_leniency(contract, component, schema, body):
    schema.load(copy.deepcopy(body))
    assert contract.schema_errors(f"/components/schemas/{component}", body)
    absent = copy.deepcopy(body)
    for node in (absent, absent.get("caishen"), absent.get("result")):
        for key in [k for k, v in (node or {}).items() if v is None]:
            del node[key]
    assert not contract.schema_errors(f"/components/schemas/{component}", absent)


def test_integers_written_as_floats_are_integers_as_in_the_spec(contract):
    # JSON Schema's data model has one number 2 = 2.0: since rule book 2 the server agrees
    # (docs/api.md), and 2.5 is no integer for either
    body = _with("base_points", 2.0)
    assert spec_accepts(contract, body) and schema_accepts(body)
    body = _with("base_points", 2.5)
    assert not spec_accepts(contract, body) and not schema_accepts(body)


TILE_ALPHABET = ("0123456789mpsfESWNCFPMx " + "\t\n\u3000\u00a0\x1c\ufeff\u200b"
                 + "一二九万萬饼条索东東风風南西北中红紅发發财財白板春兰蘭竹菊筒條餅")


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


def test_tiles_have_member_names_for_generators(openapi_document):
    """`x-enum-varnames`: a generated client's names of the tiles (not VALUE_13): identifiers,
    one per value, all different; 5p is BING_5, 一万 (1m) WAN_1_ZH, 一萬 its second name."""
    for name in ("Tile", "TileCode"):
        component = openapi_document["components"]["schemas"][name]
        names = dict(zip(component["enum"], component["x-enum-varnames"], strict=True))
        assert len(set(names.values())) == len(names)
        assert all(n.isidentifier() and n.isascii() and n.isupper() for n in names.values())
    assert (names["5p"], names["1m"], names["C"], names["8f"]) == ("BING_5", "WAN_1", "RED", "FLOWER_8")
    tile = openapi_document["components"]["schemas"]["Tile"]
    names = dict(zip(tile["enum"], tile["x-enum-varnames"]))
    assert (names["一万"], names["一萬"], names["東風"]) == ("WAN_1_ZH", "WAN_1_ZH_2", "EAST_ZH_4")


def test_rule_options_are_the_library_s(openapi_document):
    components = openapi_document["components"]["schemas"]
    documented = components["RulesObject"]["properties"]
    assert set(documented) == {"preset", "item_tai", *OPTION_KINDS}
    assert set(documented) - {"item_tai"} == {"preset", *ningbo_score.preset("ningbo")["options"]}
    for name, (_kind, allowed) in OPTION_KINDS.items():
        if allowed:
            ref = documented[name]["oneOf"][0]["$ref"]  # an optional option: the enum or null
            assert components[ref.rsplit("/", 1)[1]]["enum"] == list(allowed), name
    assert documented["preset"]["oneOf"] == [{"$ref": "#/components/schemas/PresetId"}, {"type": "null"}]
    assert components["PresetId"]["enum"] == [p["id"] for p in ningbo_score.presets()]


# --- the live-table operations (issue 4): the spec accepts what their schemas accept ----------------

_WAITS = {"seat_wind": "S", "round_wind": "E", "hand": {"concealed": "23456m 789p 234s 55s"}}
_NEXT = {"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": 2}}
_CLAIMS = {"discarder": "E", "claims": [{"seat": "S", "type": "chow"}]}

LIVE_PROBES = [
    # (component, marshmallow schema, body)
    ("WaitsRequest", request_schemas.WAITS_REQUEST, _WAITS),
    ("WaitsRequest", request_schemas.WAITS_REQUEST, {**_WAITS, "win": {"from": "W", "discarded_caishen": True}}),
    ("WaitsRequest", request_schemas.WAITS_REQUEST, {**_WAITS, "win": None}),
    ("WaitsRequest", request_schemas.WAITS_REQUEST, {**_WAITS, "win": {}}),
    ("WaitsRequest", request_schemas.WAITS_REQUEST, {**_WAITS, "win": {"by": "self_draw"}}),
    ("WaitsRequest", request_schemas.WAITS_REQUEST, {**_WAITS, "win": {"from": "X"}}),
    ("WaitsRequest", request_schemas.WAITS_REQUEST, {**_WAITS, "hand": {"concealed": "123m", "winning_tile": "1m"}}),
    ("WaitsRequest", request_schemas.WAITS_REQUEST, {**_WAITS, "hand": {"concealed": "123m", "melds": []}}),
    ("WaitsRequest", request_schemas.WAITS_REQUEST, {**_WAITS, "hand": {}}),
    ("WaitsRequest", request_schemas.WAITS_REQUEST,
     {**_WAITS, "caishen": {"indicator": "5p"}, "rules": "ningbo-7baida"}),
    ("WaitsRequest", request_schemas.WAITS_REQUEST, {**_WAITS, "base_points": 0}),
    ("AnalyzeRequest", request_schemas.ANALYZE_REQUEST, _WAITS),
    ("AnalyzeRequest", request_schemas.ANALYZE_REQUEST, {**_WAITS, "hand": {"concealed": "23456m 789p 234s 55s 9s"}}),
    ("AnalyzeRequest", request_schemas.ANALYZE_REQUEST, {**_WAITS, "visible": "2m 2m E"}),
    ("AnalyzeRequest", request_schemas.ANALYZE_REQUEST, {**_WAITS, "visible": ["2m", "东"]}),
    ("AnalyzeRequest", request_schemas.ANALYZE_REQUEST, {**_WAITS, "visible": None}),
    ("AnalyzeRequest", request_schemas.ANALYZE_REQUEST, {**_WAITS, "visible": ["9x"]}),
    ("AnalyzeRequest", request_schemas.ANALYZE_REQUEST, {**_WAITS, "visible": 3}),
    ("AnalyzeRequest", request_schemas.ANALYZE_REQUEST, {**_WAITS, "win": {"by": "self_draw"}}),
    ("AnalyzeRequest", request_schemas.ANALYZE_REQUEST,
     {**_WAITS, "hand": {"concealed": "123m", "winning_tile": "1m"}}),
    ("AnalyzeRequest", request_schemas.ANALYZE_REQUEST, {**_WAITS, "seen": "2m"}),
    ("BatchRequest", request_schemas.BATCH_REQUEST, {"requests": []}),
    ("BatchRequest", request_schemas.BATCH_REQUEST, {"requests": [{}, {"anything": [1, 2]}]}),
    ("BatchRequest", request_schemas.BATCH_REQUEST, {"requests": [{}, 1]}),
    ("BatchRequest", request_schemas.BATCH_REQUEST, {"requests": [None]}),
    ("BatchRequest", request_schemas.BATCH_REQUEST, {"requests": {}}),
    ("BatchRequest", request_schemas.BATCH_REQUEST, {"requests": None}),
    ("BatchRequest", request_schemas.BATCH_REQUEST, {}),
    ("BatchRequest", request_schemas.BATCH_REQUEST, {"requests": [], "more": 1}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, _NEXT),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "result": {"draw": True}}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "result": {"draw": False}}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "result": {"draw": True, "winner": 1}}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "result": {}}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "result": None}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "result": {"winner": 4}}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "dealer": -1}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "dealer": None}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "dealers_this_round": 4}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "dealers_this_round": 0}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "round_wind": "东"}),
    ("NextHandRequest", request_schemas.NEXT_HAND_REQUEST, {**_NEXT, "seat": "E"}),
    ("TableClaimsRequest", request_schemas.CLAIMS_REQUEST, _CLAIMS),
    ("TableClaimsRequest", request_schemas.CLAIMS_REQUEST, {**_CLAIMS, "claims": []}),
    ("TableClaimsRequest", request_schemas.CLAIMS_REQUEST, {**_CLAIMS, "claims": None}),
    ("TableClaimsRequest", request_schemas.CLAIMS_REQUEST, {**_CLAIMS, "claims": [None]}),
    ("TableClaimsRequest", request_schemas.CLAIMS_REQUEST, {**_CLAIMS, "claims": [{"seat": "S"}]}),
    ("TableClaimsRequest", request_schemas.CLAIMS_REQUEST, {**_CLAIMS, "claims": [{"seat": "S", "type": "ron"}]}),
    ("TableClaimsRequest", request_schemas.CLAIMS_REQUEST,
     {**_CLAIMS, "claims": [{"seat": "S", "type": "pung", "x": 1}]}),
    ("TableClaimsRequest", request_schemas.CLAIMS_REQUEST, {**_CLAIMS, "discarder": None}),
    ("EscapeRequest", request_schemas.ESCAPE_REQUEST, {"base_points": 2}),
    ("EscapeRequest", request_schemas.ESCAPE_REQUEST, {"level": 16}),
    ("EscapeRequest", request_schemas.ESCAPE_REQUEST, {"level": 17}),
    ("EscapeRequest", request_schemas.ESCAPE_REQUEST, {"base_points": 1_000_001}),
    ("EscapeRequest", request_schemas.ESCAPE_REQUEST, {"base_points": 2, "level": 3}),
    ("EscapeRequest", request_schemas.ESCAPE_REQUEST, {"base_points": None, "level": None}),
    ("EscapeRequest", request_schemas.ESCAPE_REQUEST, {}),
    ("EscapeRequest", request_schemas.ESCAPE_REQUEST, {"base_points": True}),
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
    """More than `maxItems` (200) requests: refused by the spec and by the batch schema alike,
    as a 400 `invalid_request` at `requests` (a schema violation, before any item is read)."""
    body = {"requests": [{}] * (ningbo_score.MAX_BATCH + 1)}
    assert contract.schema_errors("/components/schemas/BatchRequest", body)
    assert not contract.schema_errors("/components/schemas/BatchRequest", {"requests": [{}] * ningbo_score.MAX_BATCH})
    with pytest.raises(ningbo_score.ScoreError) as err:
        ningbo_score.score_batch(body)
    assert (err.value.code, err.value.status, err.value.path) == ("invalid_request", 400, "requests")


def test_one_route_table_drives_flask_and_the_spec(openapi_document):
    """service.routes.ROUTES is the one list of routes: Flask serves exactly its rules (path parameters named
    as in the spec), openapi.yaml documents exactly its operations (the routes with an operation
    id) with its operation ids, tags and schemas, and RESPONSE_SCHEMAS is its response schemas."""
    import app as app_module
    from service import routes
    from tools.gen_openapi import component_name

    flask_rules = {(rule.rule, method) for rule in app_module.app.url_map.iter_rules() if rule.endpoint != "static"
                   for method in rule.methods - {"HEAD", "OPTIONS"}}
    assert flask_rules == {(r.flask_path, r.method) for r in routes.ROUTES}
    assert "/v1/rules/<preset>" in {rule for rule, _ in flask_rules}
    spec_ops = {(path, method.upper()): op for path, item in openapi_document["paths"].items()
                for method, op in item.items()}
    in_spec = [r for r in routes.ROUTES if r.operation is not None]
    assert set(spec_ops) == {(r.path, r.method) for r in in_spec}
    for r in in_spec:
        op = spec_ops[(r.path, r.method)]
        assert op["operationId"] == r.operation
        assert op["tags"] == [r.tag]
        if r.request is not None:
            assert op["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
                "/" + component_name(r.request))
        if r.response is not None:
            assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
                "/" + component_name(r.response))
            assert routes.RESPONSE_SCHEMAS[r.operation] is r.response



# --- a spec that client generators like (issue 15) --------------------------------------------------

def _component(document: dict, ref: str) -> dict:
    return document["components"]["schemas"][ref.rsplit("/", 1)[1]]


def _reachable(document: dict, node: typing.Any, seen: set[str] | None = None) -> set[str]:
    """Names of the component schemas that ``node`` refers to, directly or through others."""
    seen = set() if seen is None else seen
    if isinstance(node, dict):
        ref = node.get("$ref", "")
        if ref.startswith("#/components/schemas/") and ref not in seen:
            seen.add(ref)
            _reachable(document, _component(document, ref), seen)
        for value in node.values():
            _reachable(document, value, seen)
    elif isinstance(node, list):
        for value in node:
            _reachable(document, value, seen)
    return seen


def _nodes(node: typing.Any, path: str = "") -> typing.Iterator[tuple[str, dict]]:
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _nodes(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _nodes(value, f"{path}/{i}")


def _operations(document: dict) -> typing.Iterator[tuple[str, str, dict]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def test_every_enum_is_a_named_component(openapi_document):
    """No inline enum: each value set is one component (Seat, Tile, WinBy…) that fields refer to,
    so a generated client has one class per set.  A new enum fails here: name it in
    tools/gen_openapi.enum_names."""
    components = openapi_document["components"]["schemas"]
    inline = [path for path, node in _nodes(openapi_document) if "enum" in node
              and not (path.startswith("/components/schemas/") and path.count("/") == 3)]
    assert not inline, inline
    named = {name for name, schema in components.items() if "enum" in schema}
    assert {"Seat", "Tile", "TileCode", "WinBy", "MeldType", "PresetId", "ItemId", "KnownProblemCode",
            "ClaimType", "Rulebook"} <= named
    # each value set has one name
    value_sets = [tuple(components[name]["enum"]) for name in named]
    assert len(value_sets) == len(set(value_sets))
    assert components["Seat"]["enum"] == list(SEATS)


def test_rule_book_4_is_in_the_spec(openapi_document):
    """Rule book 2's, 3's and 4's additions, named for generators: `rulebook` (an integer, 4; open in
    answers: `OpenRulebook`) wherever rules are echoed and in `GET /v1/rules` with its `changes`,
    the new options, and the rules of `POST /v1/table/next`."""
    components = openapi_document["components"]["schemas"]
    assert components["Rulebook"] == {**components["Rulebook"], "type": "integer", "enum": [4],
                                      "x-enum-varnames": ["RULEBOOK_4"]}
    assert components["OpenRulebook"]["anyOf"] == [{"$ref": "#/components/schemas/Rulebook"}, {"type": "integer"}]
    rulebook = {"$ref": "#/components/schemas/OpenRulebook"}
    for name in ("PresetList", "Preset", "RulesEcho"):
        assert components[name]["properties"]["rulebook"].items() >= rulebook.items(), name
        assert "rulebook" in components[name]["required"], name
    changes = components["PresetList"]["properties"]["changes"]
    assert changes["items"] == {"$ref": "#/components/schemas/RulebookChange"}
    assert components["RulebookChange"]["properties"]["presets"]["items"] == \
        {"$ref": "#/components/schemas/OpenPresetId"}
    for option in ("three_caishen_bonus", "draw_keeps_dealer", "liability_others_pay", "chow_swap_allowed",
                   "robbed_kong_liability", "escape_penalty_to"):
        assert option in components["RulesObject"]["properties"], option
        assert option in components["Options"]["required"], option
    refs = [alt.get("$ref", alt.get("type")) for alt in components["NextHandRequest"]["properties"]["rules"]["oneOf"]]
    assert refs == ["#/components/schemas/PresetId", "#/components/schemas/RulesObject", "null"]
    score_rules = components["ScoreRequest"]["properties"]["rules"]["oneOf"]
    assert refs == [alt.get("$ref", alt.get("type")) for alt in score_rules]


def test_no_one_of_beside_properties(openapi_document):
    """A oneOf/anyOf next to `properties` loses the typed fields in generated clients: each
    alternative is a component of its own (CaishenIndicator | CaishenKinds, BatchScoreResult |
    BatchProblemResult…)."""
    mixed = [path for path, node in _nodes(openapi_document)
             if "properties" in node and isinstance(node["properties"], dict)
             and {"oneOf", "anyOf", "allOf", "if"} & set(node)]
    assert not mixed, mixed
    components = openapi_document["components"]["schemas"]
    assert components["Caishen"]["oneOf"] == [{"$ref": "#/components/schemas/CaishenIndicator"},
                                              {"$ref": "#/components/schemas/CaishenKinds"}]
    assert components["CaishenIndicator"]["properties"]["indicator"]["$ref"] == "#/components/schemas/Tile"
    assert components["BatchResult"]["oneOf"] == [{"$ref": "#/components/schemas/BatchScoreResult"},
                                                  {"$ref": "#/components/schemas/BatchProblemResult"}]


def _answer_schemas(document: dict) -> set[str]:
    """Every component an answer (a 200 or a problem) reaches through its $refs."""
    refs = [node["$ref"].rsplit("/", 1)[1] for path in document["paths"].values() for op in path.values()
            for answer in op["responses"].values() for node in _walk(answer.get("content", {}))
            if "$ref" in node]
    seen: set[str] = set()
    while refs:
        name = refs.pop()
        if name not in seen:
            seen.add(name)
            refs += [n["$ref"].rsplit("/", 1)[1] for n in _walk(document["components"]["schemas"][name])
                     if "$ref" in n]
    return seen


def test_every_union_of_objects_in_an_answer_has_a_discriminator(openapi_document):
    """A client tells the parts of a oneOf apart by a string field (issue 25): each part
    requires it with a constant, which the discriminator's mapping names."""
    components = openapi_document["components"]["schemas"]
    unions = []
    for name in sorted(_answer_schemas(openapi_document)):
        for node in _walk(components[name]):
            parts = node.get("oneOf", [])
            if len([p for p in parts if "$ref" in p]) < 2:      # `X | null` is no union of objects
                continue
            unions.append(name)
            key = node["discriminator"]["propertyName"]
            mapping = node["discriminator"]["mapping"]
            assert sorted(mapping.values()) == sorted(p["$ref"] for p in parts), name
            for value, ref in mapping.items():
                part = components[ref.rsplit("/", 1)[1]]
                pieces = part.get("allOf", [part])
                assert any(key in piece.get("required", []) and
                           piece.get("properties", {}).get(key) == {**piece["properties"][key], "type": "string",
                                                                   "const": value} for piece in pieces), (name, ref)
    assert sorted(set(unions)) == ["AnalyzedWait", "BatchResult", "ReplayBatchResult", "Wait"], unions


def test_variants_say_what_the_schemas_accept(contract):
    """Each variant accepts its own way and refuses the other's (the probes of the spec/schema
    agreement tests cover the rest)."""
    indicator, kinds = "/components/schemas/CaishenIndicator", "/components/schemas/CaishenKinds"
    assert not contract.schema_errors(indicator, {"indicator": "5p"})
    assert contract.schema_errors(indicator, {"kinds": ["5p"]})
    assert not contract.schema_errors(kinds, {"kinds": "5p6p"})
    assert contract.schema_errors(kinds, {"indicator": "5p"})
    score = {"index": 0, "outcome": "scored", "status": 200, "score": {}}
    assert contract.schema_errors("/components/schemas/BatchProblemResult", score)
    assert contract.schema_errors("/components/schemas/BatchScoreResult", {**score, "status": 422})
    assert contract.schema_errors("/components/schemas/BatchScoreResult", {**score, "outcome": "refused"})


def test_info_servers_and_operations(openapi_document):
    info = openapi_document["info"]
    assert info["title"] == "Ningbo Mahjong Scoring API" and info["title"].isascii()
    assert "宁波麻将" in info["description"]
    assert info["license"] == {"name": "MIT", "identifier": "MIT"}
    assert [server["url"] for server in openapi_document["servers"]] == ["/", "http://127.0.0.1:8000"]
    tags = {t["name"] for t in openapi_document["tags"]}
    ids = []
    for path, method, operation in _operations(openapi_document):
        ids.append(operation["operationId"])
        assert operation["tags"] and set(operation["tags"]) <= tags, (path, method)
    assert len(ids) == len(set(ids))


def test_service_pages_are_no_operations(openapi_document, client):
    """The pages (/, /docs…, this document) are served, but are no SDK calls: their routes in
    service.routes.ROUTES have no operation id, and openapi.yaml has no path for them (nor for /metrics,
    which is no route of the app: service/observability/metrics.py's own listener)."""
    from service import routes

    pages = {r.path for r in routes.ROUTES if r.operation is None}
    assert {"/", "/docs", "/docs/", "/openapi.yaml"} <= pages
    assert not set(openapi_document["paths"]) & (pages | {"/metrics"})
    assert {"/healthz", "/readyz"} <= set(openapi_document["paths"])
    assert openapi_document["paths"]["/healthz"]["get"]["tags"] == ["ops"]
    for page in ("/", "/docs", "/openapi.yaml"):
        assert client.get(page).status_code == 200, page
    assert client.get("/metrics").status_code == 404      # served on its own listener only


def test_request_id_is_documented_on_every_operation(openapi_document):
    components = openapi_document["components"]
    assert components["parameters"]["RequestId"]["name"] == "X-Request-ID"
    header = components["headers"]["X-Request-ID"]
    assert header["required"] and header["schema"]["pattern"] == "^[A-Za-z0-9._-]{1,128}$"
    for path, method, operation in _operations(openapi_document):
        assert {"$ref": "#/components/parameters/RequestId"} in operation["parameters"], (path, method)
        for status, answer in operation["responses"].items():
            assert answer["headers"]["X-Request-ID"] == {"$ref": "#/components/headers/X-Request-ID"}, (
                path, method, status)


def test_path_parameters_are_flask_s(openapi_document, app):
    """`{preset}` in openapi.yaml is `<preset>` in the route."""
    rules = {rule.rule for rule in app.url_map.iter_rules()}
    for path in openapi_document["paths"]:
        flask_path = path.replace("{", "<").replace("}", ">")
        assert flask_path in rules, path


def test_responses_are_open_and_problem_codes_too(openapi_document, contract):
    """A field or a problem code added later breaks no client: no response schema has
    `additionalProperties: false`, and a code of a later version is a valid Problem.code."""
    refs: set[str] = set()
    for _, _, operation in _operations(openapi_document):
        _reachable(openapi_document, operation["responses"], refs)
    assert "#/components/schemas/ScoreResponse" in refs
    closed = [ref for ref in refs if _component(openapi_document, ref).get("additionalProperties") is False]
    assert not closed, closed
    problem = {"type": "urn:ningbo-score:problem:hand_too_lucky", "title": "t", "status": 422, "detail": "d",
               "code": "hand_too_lucky"}
    assert not contract.schema_errors("/components/schemas/Problem", problem)
    assert not contract.schema_errors("/components/schemas/ScoreResponse/properties/net",
                                      {"E": -5, "S": 15, "W": -5, "N": -5, "X": 0})
    # requests stay closed: an unknown field is refused, as the server does
    assert contract.schema_errors("/components/schemas/ScoreRequest", {**examples.API_MD, "extra": 1})


FUTURE = {"item": "hand_of_the_moon", "reason": "moon_bloom", "preset": "ningbo-2030", "rulebook": 5,
          "points": "tripling", "wait": "moon_wait"}


def future_answer(answer: dict) -> dict:
    """A /v1/score answer as a later version might send it: an item id, a payment reason, a
    preset, a rule book and an option value that this version doesn't know."""
    out = copy.deepcopy(answer)
    out["items"].append({**out["items"][0], "id": FUTURE["item"]})
    out["payments"][0]["reason"] = FUTURE["reason"]
    out["rules"].update(preset=FUTURE["preset"], rulebook=FUTURE["rulebook"], points=FUTURE["points"])
    out["decomposition"]["wait"] = FUTURE["wait"]
    return out


def test_answer_value_sets_are_open_and_request_ones_closed(openapi_document, contract, client):
    """Every value set of an answer that can grow is open (`Open…`: the known values, or any other
    of the type), so a client generated from this document parses a later version's answers
    (issue 22); only the seats stay closed (four winds; tiles are their own components).  The
    same sets in requests stay closed."""
    components = openapi_document["components"]["schemas"]
    for name in ("ItemId", "PaymentReason", "PresetId", "Rulebook", "Points", "CaishenRule", "WaitShape"):
        kind = components[name]["type"]
        assert components[f"Open{name}"]["anyOf"] == [{"$ref": f"#/components/schemas/{name}"}, {"type": kind}]
    answer = client.score(examples.API_MD).get_json()
    assert not contract.schema_errors("/components/schemas/ScoreResponse", answer)
    assert not contract.schema_errors("/components/schemas/ScoreResponse", future_answer(answer))
    # requests: an unknown preset, option value or item id is refused by the spec, as by the server
    for rules in ({"preset": "ningbo-2030"}, {"points": "tripling"}, {"required_patterns": ["hand_of_the_moon"]}):
        body = {**examples.API_MD, "rules": rules}
        assert contract.schema_errors("/components/schemas/ScoreRequest", body), rules
        assert client.score(body).status_code == 400, rules


def test_request_examples_are_good_bodies(openapi_document, contract):
    """Every request example validates against its schema; bad bodies only appear as error
    answers, which name the request in their description."""
    seen = 0
    for path, _method, operation in _operations(openapi_document):
        for _media, content in operation.get("requestBody", {}).get("content", {}).items():
            for name, example in content.get("examples", {}).items():
                seen += 1
                errors = contract.schema_errors(content["schema"]["$ref"][1:], example["value"])
                assert not errors, (path, name, errors)
    for name, parameter in openapi_document["components"]["parameters"].items():
        assert not contract.schema_errors(f"/components/parameters/{name}/schema", parameter["example"]), name
    assert seen >= 15
    bad = openapi_document["paths"]["/v1/score"]["post"]["responses"]["400"]["content"][
        "application/problem+json"]["examples"]["invalid_request"]
    assert '"3x"' in bad["description"]
