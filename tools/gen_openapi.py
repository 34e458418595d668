"""Generate ``openapi.yaml``: components from the marshmallow schemas (apispec), paths written
here, examples answered by the app itself.

    python -m tools.gen_openapi -o openapi.yaml       (make openapi)
    python -m tools.gen_openapi -o openapi.yaml --check

``tests/test_openapi.py`` regenerates it and compares with the committed file.
"""
from __future__ import annotations

import argparse
import copy
import inspect
import json
import logging
import sys
from pathlib import Path
import typing

import marshmallow
import yaml
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import resolve_schema_instance
from marshmallow import INCLUDE

import ningbo_score
import schemas
from service.observability import ids as obs_ids
from service.routes import ROUTES
from tools.tile_schema import TILE_COMPONENTS, code_name
from ningbo_score.advice import OBJECTIVES
from ningbo_score.hand import MELD_TYPES, WIN_BY
from ningbo_score.replay import REASONS
from ningbo_score.replay_requests import EVENT_TYPES, MAX_LOGS
from ningbo_score.rules import OPTION_KINDS, RULEBOOK
from ningbo_score.session_requests import MAX_HANDS
from ningbo_score.table import CLAIM_TYPES
from ningbo_score.tiles import SEATS
from schemas import responses as response_schemas
from tools import examples

TITLE = "Ningbo Mahjong Scoring API"
VERSION = ningbo_score.__version__      # the distribution's version (ningbo_score/_version.py)
LICENSE = {"name": "MIT", "identifier": "MIT"}
#: The first, relative, is the server that serves this document (what /docs tries requests on).
SERVERS = [{"url": "/", "description": "The server that serves this document"},
           {"url": "http://127.0.0.1:8000", "description": "`make run` on your machine"}]
#: What each tag of service.routes.ROUTES holds.
TAGS = {
    "scoring": "Score a hand, many hands, or what a hand waits on.",
    "rules": "The rule book and its presets.",
    "table": "A live table: the next dealer, claims on a discard, levels, the escape penalty.",
    "ops": "Liveness and readiness probes (for a load balancer or Kubernetes).",
    "sessions": "A session of hands: the rotation of the deal, the totals and who pays whom.",
}
DESCRIPTION = """\
宁波麻将计分: scores a winning hand of Ningbo mahjong (宁波麻将): the 台 items, the points and who
pays whom, under the presets of the rule book (`docs/rules.md` in the project, version 4; every
answer that echoes rules says `"rulebook": 4`) or your own options. This document is the
machine-readable form of the HTTP contract, `docs/api.md`.

* JSON in, JSON out, UTF-8; bodies up to 64 KiB (1 MiB for `POST /v1/score/batch` and `POST /v1/sessions/settle`),
  `Content-Type: application/json`.
* Tiles are codes (`1m`…`9m`, `1p`…`9p`, `1s`…`9s`, `E S W N`, `C F P`, `1f`…`8f`), Chinese names
  (`一万`, `東風`, `红中`, `春`…), or one compact string such as `"123m 456p EE C"`.
* Every error is `application/problem+json` (RFC 9457) with a stable `code` and, for field
  problems, `errors` keyed by field path (`hand.melds.0.tiles`). Unknown routes answer 404
  `not_found`, a method a route does not have 405 `method_not_allowed` with an `Allow` header.
* Counts are JSON Schema integers: `2.0` is the count 2, `2.5` and `"2"` are no count. Flags are
  JSON booleans (`1` is no boolean). No answer holds a number past 2^53 − 1: a hand whose points,
  a payment or a net would pass it is a 422 `invalid_request` on `base_points`.
* Send `Accept-Language: zh` for Chinese titles and messages of errors.
* `null` in an optional field means absent; in the rule options `caishen_discard_restriction`,
  `liability_cap` and `hand_cap` it means "none".
* Every answer carries an `X-Request-ID` header: the request's own when it sent a valid one
  (1–128 of `A-Z a-z 0-9 . _ -`), else a new one. Logs name it.
* Answers may gain fields, and their value sets new values, in later versions: `Problem.code`, item
  ids, payment reasons, presets, `rulebook`, option values (each `Open…` component: the known
  values, or any other). Clients should ignore or show what they don't know. Request value sets
  are closed.
* The service also serves pages that are not part of this API: the hand calculator (`/`, files
  under `/static/`), this document (`/openapi.yaml`) with a page to read it (`/docs`), and
  Prometheus metrics, not on this port (`/metrics` is a 404 here) but on a listener of their
  own, `METRICS_HOST:METRICS_PORT` (127.0.0.1:8011 by default).
"""


class Converter(OpenAPIConverter):
    """apispec's converter with the schema docstring as description, ``additionalProperties:
    false`` from ``unknown`` on requests only (responses stay open: ``OPENAPI_OPEN``), a request's
    defaults in its descriptions and its ``OPENAPI_VARIANTS`` (exactly one of some fields) as a
    ``oneOf`` of components (:func:`variants`)."""

    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None:
        super().__init__(*args, **kwargs)
        self.variant_components: dict[str, dict] = {}

    def schema2jsonschema(self, schema):
        out = super().schema2jsonschema(schema)
        instance = resolve_schema_instance(schema)
        open_ = getattr(instance, "OPENAPI_OPEN", False)
        if open_:
            out.pop("additionalProperties", None)
        else:
            out["additionalProperties"] = instance.unknown == INCLUDE
            for prop in out.get("properties", {}).values():
                _default_in_description(prop)
        doc = inspect.getdoc(type(instance))
        if doc and type(instance).__doc__:
            out["description"] = doc.split("\n\n")[0].replace("\n", " ")
        if getattr(instance, "OPENAPI_SCHEMA", None):   # the schema says how it is written
            out = {**copy.deepcopy(instance.OPENAPI_SCHEMA), "description": out["description"]}
        out.update(getattr(instance, "OPENAPI_KEYWORDS", {}))      # more keywords of the object's own
        if getattr(instance, "OPENAPI_VARIANTS", None):
            out, parts = variants(out, instance.OPENAPI_VARIANTS)
            self.variant_components.update(parts)
        if getattr(instance, "OPENAPI_SHAPES", None):
            out, parts = shapes(out, instance.OPENAPI_SHAPES)
            self.variant_components.update(parts)
        return out


def shapes(base: dict,
           parts: dict[str, tuple[str, str, tuple[str, ...], tuple[str, ...]]]) -> tuple[dict, dict[str, dict]]:
    """An object whose members depend on the value of one of them (a replay event's ``t``), as
    ``oneOf`` one component per value (``parts``: component name -> (the telling property, its
    value, the properties required beside it, the optional ones)); in each, the other properties
    are left out and the required ones are not null."""
    components: dict[str, dict] = {}
    props = base.get("properties", {})
    for name, (key, value, need, may) in parts.items():
        properties = {key: {**_not_null(props[key]), "const": value}}
        properties.pop("enum", None)
        properties[key].pop("enum", None)
        properties[key].pop("$ref", None)
        properties[key]["type"] = "string"
        for field in need:
            properties[field] = _not_null(props[field])
        for field in may:
            properties[field] = copy.deepcopy(props[field])
        component: dict[str, typing.Any] = {"type": "object", "properties": properties, "required": [key, *need]}
        if "additionalProperties" in base:
            component["additionalProperties"] = base["additionalProperties"]
        component["description"] = f"{base.get('description', '')} This one is `{key}: {value}`.".strip()
        components[name] = component
    out: dict[str, typing.Any] = {"oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in parts]}
    if "description" in base:
        out["description"] = base["description"]
    return out, components


def _default_in_description(prop: dict) -> None:
    """A request property's ``default`` told in its description instead: openapi-typescript makes
    a property with a default required (``defaultNonNullable``), and a client need not send it."""
    if "default" not in prop:
        return
    value = prop.pop("default")
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    prop["description"] = f"{prop.get('description', '').rstrip()} Default: `{shown}`.".lstrip()


def _not_null(prop: dict) -> dict:
    """``prop`` without ``null`` among its values."""
    out = copy.deepcopy(prop)
    if isinstance(out.get("type"), list):
        out["type"] = [t for t in out["type"] if t != "null"]
        if len(out["type"]) == 1:
            out["type"] = out["type"][0]
    if "enum" in out:
        out["enum"] = [v for v in out["enum"] if v is not None]
    for key in ("oneOf", "anyOf"):
        if key in out:
            rest = [s for s in out[key] if s != {"type": "null"}]
            if len(rest) == 1:
                del out[key]
                out = {**rest[0], **out}
            else:
                out[key] = rest
    return out


def variants(base: dict, parts: dict[str, tuple[str, dict]]) -> tuple[dict, dict[str, dict]]:
    """An object of which exactly one of some fields is given, as ``oneOf`` one component per
    field (``parts``: component name -> (its field, more property constraints, e.g. the
    ``const`` of another property that tells them apart)).  In each, that field is required and
    not null, and the group's other fields are left out.  (The server also takes the other one
    sent as ``null`` for absent; the spec does not say so, since a property that can only be
    ``null`` is one that openapi-fetch's request types forbid: its ``Writable`` takes it for
    ``readOnly``.)"""
    group = {field for field, _ in parts.values()}
    components: dict[str, dict] = {}
    for name, (field, more) in parts.items():
        properties: dict[str, typing.Any] = {}
        for key, prop in base.get("properties", {}).items():
            if key == field:
                properties[key] = _not_null(prop)
            elif key not in group:
                properties[key] = copy.deepcopy(prop)
        for key, constraint in more.items():
            # a constant replaces the property's enum (the values it tells apart)
            kept = {k: v for k, v in properties.get(key, {}).items() if "const" not in constraint or k != "enum"}
            properties[key] = {**kept, **constraint}
        component: dict[str, typing.Any] = {"type": "object", "properties": properties,
                                            "required": [*base.get("required", []), field]}
        if "additionalProperties" in base:
            component["additionalProperties"] = base["additionalProperties"]
        component["description"] = f"{base.get('description', '')} This one gives `{field}`.".strip()
        components[name] = component
    out: dict[str, typing.Any] = {"oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in parts]}
    # a string property constant in every part tells them apart: the OpenAPI discriminator
    for key in next(iter(parts.values()))[1]:
        consts = {name: more.get(key, {}).get("const") for name, (_, more) in parts.items()}
        if all(isinstance(v, str) for v in consts.values()):
            out["discriminator"] = {"propertyName": key,
                                    "mapping": {v: f"#/components/schemas/{name}" for name, v in consts.items()}}
            break
    if "description" in base:
        out["description"] = base["description"]
    return out, components


class Plugin(MarshmallowPlugin):
    Converter = Converter


def custom_field(self, field, ret: dict, **kwargs) -> dict:
    """Fields with no single JSON type describe themselves (``openapi_schema``)."""
    ref = field.metadata.get("openapi_ref")
    if ref:
        return {"$ref": f"#/components/schemas/{ref}"}
    describe = getattr(field, "openapi_schema", None)
    if describe is None:
        return {}
    return describe(self, ret)


def dict_keys(self, field, ret: dict, **kwargs) -> dict:
    """``propertyNames`` for a Dict field whose keys are restricted (apispec leaves them out)."""
    key_field = getattr(field, "key_field", None)
    if not isinstance(field, marshmallow.fields.Dict) or key_field is None:
        return {}
    names = self.field2property(key_field)
    if names.get("enum"):
        return {"propertyNames": names}
    # keys of a bounded length (a session's `net`: seat winds or players' names)
    bounds = {k: names[k] for k in ("minLength", "maxLength") if k in names}
    return {"propertyNames": {"type": "string", **bounds}} if bounds else {}


def _problem(description: str, examples_: dict[str, dict] | None = None) -> dict:
    content: dict[str, typing.Any] = {"schema": {"$ref": "#/components/schemas/Problem"}}
    if examples_:
        content["examples"] = examples_
    return {"description": description, "content": {"application/problem+json": content}}


def _json(description: str, examples_: dict[str, dict] | None = None) -> dict:
    """A 200 answer; its schema is its route's ``response`` (:func:`from_the_route_table`)."""
    content: dict[str, typing.Any] = {"schema": {}}
    if examples_:
        content["examples"] = examples_
    return {"description": description, "content": {"application/json": content}}


INTERNAL = _problem("Unexpected error (`internal_error`): a defect, whatever the input.")
LANG = "AcceptLanguage"  # apispec turns a component name into a $ref


def _answers(client) -> dict[str, typing.Any]:
    """The app's own answers to the examples (so they are real output)."""
    def post(body: typing.Any, **kwargs) -> tuple[int, typing.Any]:
        response = client.post("/v1/score", json=body, **kwargs) if "data" not in kwargs else \
            client.post("/v1/score", **kwargs)
        return response.status_code, response.get_json(force=True)

    out: dict[str, typing.Any] = {}
    for name, (summary, body) in {**examples.SCORE_EXAMPLES, **examples.SCORE_ERROR_EXAMPLES}.items():
        out[name] = (summary, body) + post(body)
    out["malformed_json"] = ("A body that is not JSON", None) + post(
        None, data=b'{"seat_wind": "E",', content_type="application/json")
    out["unsupported_media_type"] = ("A body that is not JSON", None) + post(
        None, data=b"seat_wind=E", content_type="application/x-www-form-urlencoded")
    limit = _body_limit("/v1/score")
    out["payload_too_large"] = (f"A body over {_size(limit)}", None) + post(
        None, data=b" " * (limit + 1), content_type="application/json")
    out["invalid_request_zh"] = ("The same, in Chinese (Accept-Language: zh)",
                                 examples.INVALID_REQUEST) + post(examples.INVALID_REQUEST,
                                                                  headers={"Accept-Language": "zh"})
    for kind in ("rules", "rules_one", "rules_missing", "health", "levels"):
        path = {"rules": "/v1/rules", "rules_one": "/v1/rules/ningbo", "rules_missing": "/v1/rules/ningbo-xx",
                "health": "/healthz", "levels": "/v1/levels"}[kind]
        response = client.get(path)
        out[kind] = (path, None, response.status_code, response.get_json(force=True))
    return out


#: The POST operations of the live table (issue 4): path -> (request examples, error examples).
LIVE_EXAMPLES: dict[str, tuple[dict, dict]] = {
    "/v1/waits": (examples.WAITS_EXAMPLES, examples.WAITS_ERROR_EXAMPLES),
    "/v1/analyze": (examples.ANALYZE_EXAMPLES, examples.ANALYZE_ERROR_EXAMPLES),
    "/v1/score/batch": (examples.BATCH_EXAMPLES, examples.BATCH_ERROR_EXAMPLES),
    "/v1/sessions/settle": (examples.SESSION_EXAMPLES, examples.SESSION_ERROR_EXAMPLES),
    "/v1/table/next": (examples.NEXT_EXAMPLES, examples.NEXT_ERROR_EXAMPLES),
    "/v1/table/claims": (examples.CLAIMS_EXAMPLES, examples.CLAIMS_ERROR_EXAMPLES),
    "/v1/table/escape": (examples.ESCAPE_EXAMPLES, examples.ESCAPE_ERROR_EXAMPLES),
    "/v1/replay": (examples.REPLAY_EXAMPLES, examples.REPLAY_ERROR_EXAMPLES),
    "/v1/replay/batch": (examples.REPLAY_BATCH_EXAMPLES, examples.REPLAY_BATCH_ERROR_EXAMPLES),
}


def _live_answers(client, path: str) -> dict[str, tuple]:
    """``name -> (summary, request body or None, status, answer)`` for one POST operation:
    its examples, and a body that is not JSON, one of another type and one over the limit."""
    def post(**kwargs) -> tuple[int, typing.Any]:
        response = client.post(path, **kwargs)
        return response.status_code, response.get_json(force=True)

    good, bad = LIVE_EXAMPLES[path]
    out: dict[str, tuple] = {}
    for name, (summary, body) in {**good, **bad}.items():
        out[name] = (summary, body) + post(json=body)
    out["malformed_json"] = ("A body that is not JSON", None) + post(data=b"{", content_type="application/json")
    out["unsupported_media_type"] = ("A body that is not JSON", None) + post(
        data=b"a=1", content_type="application/x-www-form-urlencoded")
    limit = _body_limit(path)
    out["payload_too_large"] = (f"A body over {_size(limit)}", None) + post(
        data=b" " * (limit + 1), content_type="application/json")
    if path == "/v1/score/batch":
        too_many: dict[str, list[dict[str, object]]] = {"requests": [{}] * (ningbo_score.MAX_BATCH + 1)}
        out["batch_too_large"] = (f"{ningbo_score.MAX_BATCH + 1} requests (400 invalid_request)", None) + post(
            json=too_many)
    if path == "/v1/replay/batch":
        logs: dict[str, list[dict[str, object]]] = {"logs": [{}] * (MAX_LOGS + 1)}
        out["batch_too_large"] = (f"{MAX_LOGS + 1} logs (400 invalid_request)", None) + post(json=logs)
    if path == "/v1/table/claims":
        body = examples.CLAIMS_INTERCEPT
        out["intercept_zh"] = ("The same intercept, in Chinese (Accept-Language: zh)", body) + post(
            json=body, headers={"Accept-Language": "zh"})
    if path == "/v1/sessions/settle":
        hands = {**examples.SESSION, "hands": [{"draw": True}] * (MAX_HANDS + 1)}
        out["too_many_hands"] = (f"{MAX_HANDS + 1} hands (400 invalid_request)", None) + post(json=hands)
    return out


def _body_limit(path: str) -> int:
    """The most bytes ``POST path`` takes: its route's ``body_limit``, else the app's."""
    from service.routes import MAX_BODY_BYTES

    return next(r.body_limit for r in ROUTES if r.path == path and r.method == "POST") or MAX_BODY_BYTES


def _too_large(path: str) -> str:
    return f"The body is over {_size(_body_limit(path))} (`payload_too_large`)."


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit // 1024} KiB"


def _live_operation(by_path: dict[str, dict[str, tuple]], path: str, *, ok: str, errors: dict[int, str]) -> dict:
    """A documented POST operation whose examples are the app's answers (its 413: past its
    route's body limit)."""
    answers = by_path[path]
    errors = {**errors, 413: _too_large(path)}
    def by_status(status: int) -> dict[str, dict]:
        return {name: _example(summary_, body, sent) for name, (summary_, sent, code, body) in answers.items()
                if code == status}

    unexpected = {code for _, _, code, _ in answers.values()} - {200, *errors}
    assert not unexpected, f"{ok} undocumented statuses {unexpected}"
    responses = {"200": _json(ok, by_status(200))}
    for status, text in sorted(errors.items()):
        responses[str(status)] = _problem(text, by_status(status))
    responses["500"] = INTERNAL
    request_examples = {name: _example(summary_, body) for name, (summary_, body, status, _) in answers.items()
                        if body is not None and status != 400 and not name.endswith("_zh")}
    return {"post": {
        "parameters": [LANG],
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {}, "examples": request_examples}}},
        "responses": responses,
    }}


NOT_JSON = "Not JSON (`malformed_json`), or wrong types, unknown fields or missing fields (`invalid_request`)."
NOT_JSON_TYPE = "The body is not `application/json` (`unsupported_media_type`)."


def live_paths(client) -> dict[str, dict]:
    """The operations of the live table (issue 4): waits, batch scoring and the table helpers."""
    answers = {path: _live_answers(client, path) for path in LIVE_EXAMPLES}
    levels = client.get("/v1/levels")
    common = {400: NOT_JSON, 415: NOT_JSON_TYPE}
    # a waiting hand's 422s (/v1/waits and /v1/analyze take the same hands)
    hand_errors = {**common, 422: "Well-formed but impossible (`wrong_tile_count`, `too_many_copies`, "
                                  "`invalid_meld`, `caishen_in_meld`, `inconsistent_win_context`, "
                                  "`invalid_request`)."}
    return {
        "/v1/waits": _live_operation(
            answers, "/v1/waits",
            ok="The waits.",
            errors=hand_errors),
        "/v1/analyze": _live_operation(
            answers, "/v1/analyze",
            ok="The analysis.",
            errors=hand_errors),
        "/v1/score/batch": _live_operation(
            answers, "/v1/score/batch",
            ok="One result per request.",
            errors={400: "Not JSON (`malformed_json`), or not `{\"requests\": [object, …]}` with at most "
                         "200 requests (`invalid_request`).",
                    415: NOT_JSON_TYPE}),
        "/v1/table/next": _live_operation(
            answers, "/v1/table/next",
            ok="The next hand's table.",
            errors=common),
        "/v1/table/claims": _live_operation(
            answers, "/v1/table/claims",
            ok="The claim that takes it.",
            errors={**common, 422: "Claims that can't happen at a table (`invalid_request`): the discarder "
                                   "claiming its own discard, a seat claiming twice, a chow from a seat other "
                                   "than the discarder's next, two seats both punging or konging."}),
        "/v1/levels": {"get": {
            "parameters": [LANG],
            "responses": {
                "200": _json("The levels.", {"levels": _example(
                    "The 17 levels of 000 (456游戏, 2010-9-19)", levels.get_json())}),
                "500": INTERNAL,
            },
        }},
        "/v1/replay": _live_operation(
            answers, "/v1/replay",
            ok="The hand replayed.",
            errors={**common, 422: "An illegal event (`illegal_event`, with `event_index`, `reason`, `expected`, "
                                   "`state`), or a win `/v1/score` refuses (its code, with `event_index` and "
                                   "`score_request`)."}),
        "/v1/replay/batch": _live_operation(
            answers, "/v1/replay/batch",
            ok="One result per log.",
            errors={400: "Not JSON (`malformed_json`), or not `{\"logs\": [object, …]}` with at most 50 logs "
                         "(`invalid_request`).",
                    415: NOT_JSON_TYPE}),
        "/v1/table/escape": _live_operation(
            answers, "/v1/table/escape",
            ok="The penalty.", errors=common),
        "/v1/sessions/settle": _live_operation(
            answers, "/v1/sessions/settle",
            ok="The session settled.",
            errors={400: "Not JSON (`malformed_json`), or not a session of at most "
                         f"{MAX_HANDS} hands, or a hand's body refused by its own schema (`invalid_request`).",
                    415: NOT_JSON_TYPE,
                    422: "A hand refused by its endpoint (its code, with `hand_index`), a declared win under "
                         "the minimum (`below_minimum`, with `hand_index`), a hand whose "
                         "`round_wind` contradicts the rotation (`dealer_sequence`), a `net` that does not "
                         "sum to 0, a name of nobody at the table, a seat named twice or a running total past "
                         "2^53 − 1 (`invalid_request`)."}),
    }


def _example(summary: str, value: typing.Any, sent: typing.Any = None) -> dict:
    """An example; an error's tells the request that it answers (a bad body is no request
    example: each example validates against its own schema)."""
    out = {"summary": summary, "value": value}
    if sent is not None:
        out["description"] = f"The answer to `{json.dumps(sent, ensure_ascii=False, separators=(', ', ': '))}`."
    return out


def paths(answers: dict[str, typing.Any]) -> dict[str, dict]:
    def by_status(status: int) -> dict[str, dict]:
        return {name: _example(summary, body, sent if status != 200 else None)
                for name, (summary, sent, code, body) in answers.items() if code == status and name in names}

    names = set(examples.SCORE_EXAMPLES) | set(examples.SCORE_ERROR_EXAMPLES) | {
        "malformed_json", "unsupported_media_type", "payload_too_large", "invalid_request_zh"}
    request_examples = {name: _example(summary, body) for name, (summary, body) in
                        {**examples.SCORE_EXAMPLES, **examples.SCORE_ERROR_EXAMPLES}.items()
                        if answers[name][2] != 400}
    return {
        "/v1/score": {"post": {
            "parameters": [LANG],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {},
                "examples": request_examples}}},
            "responses": {
                "200": _json("The score.", by_status(200)),
                "400": _problem("Not JSON (`malformed_json`), or wrong types, unknown fields or unknown "
                                "tiles (`invalid_request`).", by_status(400)),
                "413": _problem(_too_large("/v1/score"), by_status(413)),
                "415": _problem("The body is not `application/json` (`unsupported_media_type`).",
                                by_status(415)),
                "422": _problem("Well-formed but impossible, or not a win (`wrong_tile_count`, "
                                "`too_many_copies`, `invalid_meld`, `caishen_in_meld`, "
                                "`winning_tile_not_in_hand`, `inconsistent_win_context`, "
                                "`discard_win_not_allowed`, `caishen_needs_self_draw`, "
                                "`not_a_winning_hand`, `invalid_request`).", by_status(422)),
                "500": INTERNAL,
            },
        }},
        "/v1/rules": {"get": {
            "parameters": [LANG],
            "responses": {
                "200": _json("The rule book's version, its changes and the presets.", {
                    "presets": _example(
                    "The five presets of docs/rules.md §9", answers["rules"][3])}),
                "500": INTERNAL,
            },
        }},
        "/v1/rules/{preset}": {"get": {
            "parameters": [
                {"name": "preset", "in": "path", "required": True, "description": "A preset id.",
                 "schema": {"type": "string", "enum": list(schemas.PRESET_IDS)}, "example": "ningbo"},
                LANG,
            ],
            "responses": {
                "200": _json("The preset.", {"ningbo": _example(
                    "The default preset", answers["rules_one"][3])}),
                "404": _problem("No such preset (`not_found`).", {"not_found": _example(
                    "An unknown preset", answers["rules_missing"][3])}),
                "500": INTERNAL,
            },
        }},
        "/healthz": {"get": {
            "responses": {
                "200": _json("The service is up.", {"ok": _example("Up", answers["health"][3])}),
                "500": INTERNAL,
            },
        }},
        "/readyz": {"get": {
            "responses": {
                "200": _json("Ready to serve.", {"ready": _example(
                    "Ready", {"status": "ready", "checks": {"engine": "ok", "metrics_dir": "ok"}})}),
                "503": _problem("Not ready (`not_ready`): `errors` names the failing checks."),
                "500": INTERNAL,
            },
        }},
    }


def build() -> dict:
    """The OpenAPI document as a dict."""
    from service import create_app  # the app answers the examples

    plugin = Plugin()
    spec = APISpec(
        title=TITLE,
        version=VERSION,
        openapi_version="3.1.0",
        plugins=[plugin],
        info={"description": DESCRIPTION, "license": LICENSE},
        tags=[{"name": name, "description": text} for name, text in TAGS.items()],
    )
    used = {route.tag for route in ROUTES if route.tag is not None}
    if used != set(TAGS):
        raise SystemExit(f"the tags of service.routes.ROUTES and gen_openapi.TAGS differ: {sorted(used ^ set(TAGS))}")
    converter = plugin.converter
    assert isinstance(converter, Converter)  # made by APISpec(plugins=[plugin])
    converter.add_attribute_function(custom_field)
    converter.add_attribute_function(dict_keys)
    for name, component in TILE_COMPONENTS.items():
        spec.components.schema(name, component=copy.deepcopy(component))
    spec.components.schema("Preset", schema=schemas.PresetSchema)  # before PresetList, which nests it
    spec.components.schema("Problem", schema=schemas.ProblemSchema)
    for route in ROUTES:
        for schema in (route.request, route.response):
            if schema is not None and component_name(schema) not in spec.components.schemas:
                spec.components.schema(component_name(schema), schema=type(schema))
    spec.components.parameter("AcceptLanguage", "header", {
        "name": "Accept-Language",
        "required": False,
        "description": "`zh` (or `zh-CN`, …) for Chinese problem titles and messages; English otherwise.",
        "schema": {"type": "string"},
        "example": "zh-CN,zh;q=0.9,en;q=0.8",
    })
    logging.disable(logging.CRITICAL)  # the error examples would log their problems
    try:
        client = create_app().test_client()
        answers = _answers(client)
        live = live_paths(client)
    finally:
        logging.disable(logging.NOTSET)
    for path, operations in from_the_route_table({**paths(answers), **live}).items():
        spec.path(path=path, operations=operations)
    document = spec.to_dict()
    document["servers"] = copy.deepcopy(SERVERS)
    document["security"] = []  # no authentication
    component_schemas = document["components"]["schemas"]
    component_schemas.update(converter.variant_components)
    _refs_without_type(document)
    enums = name_enums(document)
    document["components"]["schemas"] = {**{k: v for k, v in component_schemas.items() if k in TILE_COMPONENTS},
                                          **enums, **component_schemas}
    with_request_id(document)
    return document


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def enum_names() -> dict[str, tuple[tuple, str]]:
    """component name -> (values, description) of every value set an enum of openapi.yaml has."""
    named: dict[str, tuple[tuple, str]] = {
        "Rulebook": ((RULEBOOK,), "A version of the rule book (docs/rules.md, \"Rule book versions\"): this "
                                  "service scores by the one it lists."),
        "Seat": (SEATS, "A seat wind: `E` (the dealer's), `S`, `W` or `N`; also a round wind."),
        "PresetId": (schemas.PRESET_IDS, "A rule preset of docs/rules.md §9."),
        "ItemId": (schemas.ITEM_IDS, "A 台 item of docs/rules.md §5."),
        "WinBy": (WIN_BY, "How the hand was won: by self-draw (自摸), on a discard, or by robbing "
                                          "a kong (抢杠)."),
        "MeldType": (MELD_TYPES, "A chow (吃), a pung (碰) or a kong (杠)."),
        "ReplayEventType": (EVENT_TYPES, "The type (`t`) of an event of a hand's log (`/v1/replay`)."),
        "ReplayReason": (REASONS, "Why `/v1/replay` refused an event (`illegal_event`): the first rule it breaks, in "
                                  "this order (docs/api.md)."),
        "ReplayOutcome": (("win", "draw"), "How a replayed hand ended: a win, or an exhaustive draw (荒庄)."),
        "ClaimType": (tuple(CLAIM_TYPES), "A claim on a discard: `win` (胡), `kong` (杠), `pung` (碰) or "
                                          "`chow` (吃)."),
        "ClaimRule": (response_schemas.CLAIM_RULES, "The rule of docs/rules.md §8 that gave the discard to its taker."),
        "SetSource": (response_schemas.SET_SOURCES, "Where a set comes from: the concealed tiles or a meld."),
        "WaitShape": (response_schemas.WAITS, "The wait the winning tile completed (docs/rules.md §4)."),
        "PaymentReason": (response_schemas.PAYMENT_REASONS, "Why a payment is due."),
        "Position": (response_schemas.POSITIONS, "A player's position at the table, `0` to `3`, as a key of "
                                                 "`seat_winds`."),
        "Liability": (tuple(v for v in response_schemas.LIABILITY if v is not None),
                      "包 (docs/rules.md §7): a related or a mutual payer."),
        "SessionHandKind": (response_schemas.SESSION_HAND_KINDS, "How a hand of a session was given."),
        "SessionOutcome": (response_schemas.SESSION_OUTCOMES, "How a hand of a session ended."),
        "AnalyzeObjective": (OBJECTIVES, "How `/v1/analyze` ranks the discards: by shanten and unseen improving "
                                         "tiles (`ukeire`), or by the expected points of a win (`value`)."),
    }
    for option, (_, allowed) in OPTION_KINDS.items():
        if allowed:
            named.setdefault(_pascal(option), (tuple(allowed), f"The values of the rule option `{option}` "
                                                              f"(docs/rules.md §9)."))
    return named


#: The enum of known problem codes, and the open set that ``Problem.code`` is.
PROBLEM_CODE_COMPONENTS: dict[str, dict[str, typing.Any]] = {
    "KnownProblemCode": {"type": "string", "enum": list(schemas.PROBLEM_CODES),
                         "description": "The problem codes of this version (docs/api.md)."},
    "ProblemCode": {
        "description": "A stable id of the error: one of `KnownProblemCode`, or a code added by a later "
                       "version (an open set: a client must accept a code it does not know, e.g. by its "
                       "`status`).",
        "anyOf": [{"$ref": "#/components/schemas/KnownProblemCode"}, {"type": "string"}],
    },
}


def _walk(node: typing.Any) -> typing.Iterator[dict]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _refs_without_type(document: dict) -> None:
    """apispec writes ``type`` beside a field's ``$ref``: the component says it."""
    for node in _walk(document):
        if "$ref" in node and "type" in node:
            del node["type"]


#: Value sets the game fixes (four winds; the tiles are their own components): closed in answers
#: too.  Every other value set of an answer is open (:func:`name_enums`).
CLOSED_IN_ANSWERS = frozenset({"Seat"})


def _open_name(name: str) -> str:
    return f"Open{name}"


def _refs(node: typing.Any) -> set[str]:
    return {n["$ref"].rsplit("/", 1)[1] for n in _walk(node)
            if isinstance(n.get("$ref"), str) and n["$ref"].startswith("#/components/schemas/")}


def _reach(document: dict, roots: set[str]) -> set[str]:
    """The components ``roots`` name and every component they name, transitively."""
    components = document["components"]["schemas"]
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in components:
            continue
        seen.add(name)
        todo.extend(_refs(components[name]))
    return seen


def answer_components(document: dict) -> set[str]:
    """The components an answer holds (reached from a response, not from a request body or a
    parameter).  One component in both would be an enum both open and closed: refused here."""
    requests: set[str] = set()
    answers: set[str] = set()
    for item in document["paths"].values():
        for operation in item.values():
            requests |= _refs({k: v for k, v in operation.items() if k in ("requestBody", "parameters")})
            answers |= _refs(operation.get("responses", {}))
    requests, answers = _reach(document, requests), _reach(document, answers)
    if requests & answers:
        raise SystemExit(f"components in both requests and answers: {sorted(requests & answers)}")
    return answers


def name_enums(document: dict) -> dict[str, dict]:
    """Every inline enum of a named value set (:func:`enum_names`) as a ``$ref`` to its component,
    a one-value enum as a ``const``; returns the components used, in :func:`enum_names` order.
    An enum with no name stays inline (tests/test_openapi.py fails on it: name it here).

    In a request a value set is closed (the component's ``enum``).  In an answer it is open
    (``Open<Name>``: one of the known values, or any other of that type), as ``ProblemCode`` is, so
    that a client generated from this document parses the answers of a later version (a new item
    id, payment reason, preset, rule book, option value); only :data:`CLOSED_IN_ANSWERS` stay closed."""
    by_values = {values: name for name, (values, _) in enum_names().items()}
    answers = answer_components(document)
    used: set[str] = set()
    opened: set[str] = set()
    in_answers = [(False, node) for node in _walk(document["paths"])]
    for component, schema in document["components"]["schemas"].items():
        in_answers += [(component in answers, node) for node in _walk(schema)]
    for in_answer, node in in_answers:
        enum = node.get("enum")
        if not isinstance(enum, list) or node.get("x-enum-varnames"):
            continue
        values = tuple(v for v in enum if v is not None)
        nullable = len(values) < len(enum)
        name = by_values.get(values)
        if name is None and len(values) == 1:
            node.pop("enum")
            node["const"] = values[0]
            continue
        if name is None:
            continue
        used.add(name)
        if in_answer and name not in CLOSED_IN_ANSWERS:
            opened.add(name)
            name = _open_name(name)
        for key in ("enum", "type"):
            node.pop(key, None)
        ref = {"$ref": f"#/components/schemas/{name}"}
        if nullable:
            node["oneOf"] = [ref, {"type": "null"}]
        else:
            node.update(ref)
    out: dict[str, dict[str, typing.Any]] = {}
    for name, (values, description) in enum_names().items():
        if name not in used:
            continue
        kind = "integer" if all(isinstance(v, int) for v in values) else "string"
        out[name] = {"type": kind, "enum": list(values), "description": description}
        if name in opened:
            out[_open_name(name)] = {
                "description": f"One of `{name}`, or a value a later version adds (an open set, as `ProblemCode` "
                               f"is: a client must accept a value it does not know).",
                "anyOf": [{"$ref": f"#/components/schemas/{name}"}, {"type": kind}]}
    if "Rulebook" in out:  # numbers are no identifiers
        out["Rulebook"]["x-enum-varnames"] = [f"RULEBOOK_{v}" for v in out["Rulebook"]["enum"]]
    if "Seat" in out:  # a seat's name is its wind tile's (EAST…)
        out["Seat"]["x-enum-varnames"] = [code_name(seat) for seat in out["Seat"]["enum"]]
    out.update(copy.deepcopy(PROBLEM_CODE_COMPONENTS))
    return out


REQUEST_ID = "RequestId"


def with_request_id(document: dict) -> None:
    """``X-Request-ID`` on every operation: an optional request header, and a header of every
    answer (service/observability/ids.py)."""
    pattern = obs_ids.REQUEST_ID_RE.pattern
    document["components"].setdefault("parameters", {})[REQUEST_ID] = {
        "name": obs_ids.REQUEST_ID_HEADER,
        "in": "header",
        "required": False,
        "description": f"An id for this request, echoed in the answer's `{obs_ids.REQUEST_ID_HEADER}` and "
                       f"written in the logs when it is 1–128 of `A-Z a-z 0-9 . _ -` (`{pattern}`); any other "
                       f"value is replaced by a new id.",
        "schema": {"type": "string"},
        "example": "phone-7f3a-0001",
    }
    document["components"]["headers"] = {obs_ids.REQUEST_ID_HEADER: {
        "description": "The request's id: the one it sent, if valid, else a new one.",
        "required": True,
        "schema": {"type": "string", "pattern": f"^{pattern}$"},
    }}
    header_ref = {"$ref": f"#/components/headers/{obs_ids.REQUEST_ID_HEADER}"}
    for item in document["paths"].values():
        for operation in item.values():
            operation.setdefault("parameters", []).insert(0, {"$ref": f"#/components/parameters/{REQUEST_ID}"})
            for answer in operation["responses"].values():
                answer.setdefault("headers", {})[obs_ids.REQUEST_ID_HEADER] = copy.deepcopy(header_ref)


def component_name(schema) -> str:
    """The component of a schema instance: its class name without ``Schema``."""
    return type(schema).__name__.removesuffix("Schema")


def from_the_route_table(documented: dict[str, dict]) -> dict[str, dict]:
    """The operations written above, checked against service.routes.ROUTES (the same routes, no more, no
    fewer: a route with no operation id is a service page, no operation) and given the table's
    operation id, tag, summary and description (its ``doc``) and request and 200 response schemas."""
    in_table = {(r.path, r.method.lower()): r for r in ROUTES if r.operation is not None}
    written = {(path, method) for path, ops in documented.items() for method in ops}
    if written != set(in_table):
        raise SystemExit(f"openapi paths and service.routes.ROUTES differ: {sorted(written ^ set(in_table))}")
    out: dict[str, dict] = {}
    for (path, method), route in in_table.items():
        op: dict[str, typing.Any] = {"operationId": route.operation, "tags": [route.tag], "summary": route.summary}
        if route.description is not None:
            op["description"] = route.description
        op.update(documented[path][method])
        if route.request is not None:
            op["requestBody"]["content"]["application/json"]["schema"] = {
                "$ref": f"#/components/schemas/{component_name(route.request)}"}
        assert route.response is not None, f"{path}: an operation of service.routes.ROUTES needs its response schema"
        op["responses"]["200"]["content"]["application/json"]["schema"] = {
            "$ref": f"#/components/schemas/{component_name(route.response)}"}
        out.setdefault(path, {})[method] = op
    return out


class _Dumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks (readable descriptions)."""


def _str(dumper: yaml.SafeDumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)
ORDER = ("openapi", "info", "servers", "security", "tags", "paths", "components")


def generate() -> str:
    """The OpenAPI document as YAML text (what ``openapi.yaml`` holds)."""
    document = build()
    info = document["info"]
    document["info"] = {"title": info.pop("title"), "version": info.pop("version"), **info}
    ordered = {key: document[key] for key in ORDER if key in document}
    ordered.update((k, v) for k, v in document.items() if k not in ordered)
    return yaml.dump(ordered, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.gen_openapi", description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, help="write to this file (default: standard output)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the output file differs")
    args = parser.parse_args(argv)
    text = generate()
    if args.output is None:
        sys.stdout.write(text)
        return 0
    if args.check:
        same = args.output.exists() and args.output.read_text(encoding="utf-8") == text
        print(f"{args.output}: {'up to date' if same else 'stale; run make openapi'}", file=sys.stderr)
        return 0 if same else 1
    args.output.write_text(text, encoding="utf-8")  # written whole, after a successful generation
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
