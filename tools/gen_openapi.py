"""Generate ``openapi.yaml``: components from the marshmallow schemas (apispec), paths written
here, examples answered by the app itself.

    python -m tools.gen_openapi -o openapi.yaml       (make openapi)
    python -m tools.gen_openapi -o openapi.yaml --check

``tests/http/test_openapi.py`` regenerates it and compares with the committed file.
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
from ningbo_score.readers import request_schemas
from service.observability import ids as obs_ids
from service.routes import MAX_BODY_BYTES, ROUTES, Route
from tools.tile_schema import TILE_COMPONENTS, code_name
from ningbo_score.advice import OBJECTIVES
from ningbo_score.hand import MELD_TYPES, WIN_BY
from ningbo_score.actions import ACTION_TYPES, PHASES
from ningbo_score.replay import REASONS
from ningbo_score.readers.replay_requests import EVENT_TYPES, SEAT_OF
from ningbo_score.rules import OPTION_KINDS, RULEBOOK
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

* JSON in, JSON out, UTF-8; {limits},
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


def example_set(route: Route) -> dict[str, tuple[str, typing.Any, examples.How]]:
    """``name -> (summary, body or path arguments, how)`` of the route's examples (its ``examples``
    names the set in tools/examples.py), in openapi.yaml's order: the set's own, then for a route
    with a body :data:`examples.BODY_PROBLEMS`, then the set's examples marked ``last``."""
    assert route.examples is not None
    found = {**getattr(examples, f"{route.examples}_EXAMPLES"),
             **getattr(examples, f"{route.examples}_ERROR_EXAMPLES", {})}
    entries: dict[str, tuple[str, typing.Any, examples.How]] = {
        name: (value[0], value[1], value[2] if len(value) > 2 else {}) for name, value in found.items()}
    out = {name: entry for name, entry in entries.items() if not entry[2].get("last")}
    if route.request is not None:
        out.update(examples.BODY_PROBLEMS)
    out.update((name, entry) for name, entry in entries.items() if entry[2].get("last"))
    return out


def answered(client, route: Route) -> dict[str, tuple[str, typing.Any, int, typing.Any]]:
    """``name -> (summary, the request shown or None, status, answer)``: the app's own answers to
    the route's examples (so openapi.yaml's examples are real output)."""
    out: dict[str, tuple[str, typing.Any, int, typing.Any]] = {}
    for name, (summary, body, how) in example_set(route).items():
        if "answer" in how:
            out[name] = (summary, None, 200, how["answer"])
            continue
        headers = how.get("headers")
        if route.request is None:            # a GET: the example's path arguments
            response = client.open(route.path.format(**(body or {})), method=route.method, headers=headers)
            out[name] = (summary, None, response.status_code, response.get_json(force=True))
            continue
        limit = route.max_body
        assert limit is not None
        if how.get("too_large"):
            summary = summary.format(limit=_size(limit))
            sent: dict[str, typing.Any] = {"data": b" " * (limit + 1), "content_type": "application/json"}
        elif "data" in how:
            sent = {"data": how["data"], "content_type": how["content_type"]}
        else:
            sent = {"json": body}
        response = client.open(route.path, method=route.method, headers=headers, **sent)
        shown = None if "json" not in sent or how.get("hidden") else body
        out[name] = (summary, shown, response.status_code, response.get_json(force=True))
    return out


def body_limits() -> str:
    """The body limits of the route table in a few words: the app's, and each larger one's routes
    (openapi.yaml's description; docs/operations.md's limits table says the same, tests/docs/test_docs_ops.py)."""
    larger: dict[int, list[str]] = {}
    for route in ROUTES:
        if route.max_body is not None and route.max_body != MAX_BODY_BYTES:
            larger.setdefault(route.max_body, []).append(f"`{route.method} {route.path}`")
    def listed(names: list[str]) -> str:
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    more = "; ".join(f"{_size(limit)} for {listed(names)}" for limit, names in larger.items())
    return _size(MAX_BODY_BYTES) + (f" ({more})" if more else "")


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit // 1024} KiB"


#: What any operation may answer besides what it documents: a problem of this service (404 for a
#: path it does not have, 405, 408, 429, 503 …), in the shape of every problem.
DEFAULT = _problem("Any other status: a problem of this service (`not_found`, `method_not_allowed`, "
                   "`request_timeout`, `too_many_requests`, …), told by its `status` and `code` (an open set).")


def _too_large(route: Route) -> dict:
    """413: the app's problem past the route's limit, or the HTML page of a proxy in front that
    refuses the body first (ingress-nginx's, deploy/: its limits are the routes'), listed first so
    that a client generated from this document reads such a page as text instead of failing on it."""
    assert route.max_body is not None
    return {"description": f"The body is over {_size(route.max_body)} (`payload_too_large`); a proxy in front "
                           "that refuses it first answers with its own page (`text/html`).",
            "content": {"text/html": {"schema": {"type": "string"}}}}


def operation(route: Route, answers: dict[str, tuple[str, typing.Any, int, typing.Any]]) -> dict:
    """The route's operation of openapi.yaml: its row (id, tag, summary, description, parameters,
    request and answer schemas, errors) with the app's answers to its examples, a 413 for a body
    over its limit, 500 and ``default``."""
    def by_status(status: int) -> dict[str, dict]:
        return {name: _example(summary, answer, shown) for name, (summary, shown, code, answer) in answers.items()
                if code == status}

    errors = dict(route.errors)
    if route.request is not None:
        errors[413] = ""
    unexpected = {code for _, _, code, _ in answers.values()} - {200, *errors}
    assert not unexpected, f"{route.path}: undocumented statuses {unexpected} (its Route's errors)"
    op: dict[str, typing.Any] = {"operationId": route.operation, "tags": [route.tag], "summary": route.summary}
    if route.description is not None:
        op["description"] = route.description
    op["parameters"] = [{"name": name, "in": "path", "required": True, "description": text, "schema": schema,
                         "example": example} for name, (text, schema, example) in route.parameters.items()]
    op["parameters"].append(LANG)
    assert route.response is not None, f"{route.path}: an operation needs its response schema"
    if route.request is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": {"$ref": f"#/components/schemas/{component_name(route.request)}"},
            "examples": {name: _example(summary, shown) for name, (summary, shown, status, _) in answers.items()
                         if shown is not None and status != 400 and not name.endswith("_zh")}}}}
    ok = _json(route.ok, by_status(200))
    ok["content"]["application/json"]["schema"] = {"$ref": f"#/components/schemas/{component_name(route.response)}"}
    responses = {"200": ok}
    for status, text in sorted(errors.items()):
        if status == 413:
            html = _too_large(route)
            problem = _problem(html["description"], by_status(413))
            responses["413"] = {"description": html["description"],
                                "content": {**html["content"], **problem["content"]}}
        else:
            responses[str(status)] = _problem(text, by_status(status))
    responses["500"] = INTERNAL
    responses["default"] = DEFAULT
    op["responses"] = responses
    return op


def _example(summary: str, value: typing.Any, sent: typing.Any = None) -> dict:
    """An example; an error's tells the request that it answers (a bad body is no request
    example: each example validates against its own schema)."""
    out = {"summary": summary, "value": value}
    if sent is not None:
        out["description"] = f"The answer to `{json.dumps(sent, ensure_ascii=False, separators=(', ', ': '))}`."
    return out


def the_route_table(client) -> dict[str, dict]:
    """Every operation of openapi.yaml: one per row of service.routes.ROUTES with an operation id
    (a row without one is a page of the service, no operation), in the table's order."""
    out: dict[str, dict] = {}
    for route in ROUTES:
        if route.operation is not None:
            out.setdefault(route.path, {})[route.method.lower()] = operation(route, answered(client, route))
    return out


def build() -> dict:
    """The OpenAPI document as a dict."""
    from service import create_app  # the app answers the examples

    plugin = Plugin()
    spec = APISpec(
        title=TITLE,
        version=VERSION,
        openapi_version="3.1.0",
        plugins=[plugin],
        info={"description": DESCRIPTION.replace("{limits}", f"bodies up to {body_limits()}"), "license": LICENSE},
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
        operations = the_route_table(client)
    finally:
        logging.disable(logging.NOTSET)
    for path, ops in operations.items():
        spec.path(path=path, operations=ops)
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
        "PresetId": (request_schemas.PRESET_IDS, "A rule preset of docs/rules.md §9."),
        "ItemId": (request_schemas.ITEM_IDS, "A 台 item of docs/rules.md §5."),
        "WinBy": (WIN_BY, "How the hand was won: by self-draw (自摸), on a discard, or by robbing "
                                          "a kong (抢杠)."),
        "MeldType": (MELD_TYPES, "A chow (吃), a pung (碰) or a kong (杠)."),
        "LogSeat": (tuple(SEAT_OF), "A seat as a hand's log (`/v1/replay`) names it: `E`, `S`, `W`, `N` or "
                                    "东, 南, 西, 北 (東)."),
        "ReplayEventType": (EVENT_TYPES, "The type (`t`) of an event of a hand's log (`/v1/replay`)."),
        "ReplayReason": (REASONS, "Why `/v1/replay` refused an event (`illegal_event`): the first rule it breaks, in "
                                  "this order (docs/api.md)."),
        "ReplayOutcome": (("win", "draw"), "How a replayed hand ended: a win, or an exhaustive draw (荒庄)."),
        "ActionType": (ACTION_TYPES, "The type (`t`) of an action of `/v1/table/actions`: the event `/v1/replay` "
                                     "would accept next."),
        "TablePhase": (PHASES, "Where a hand is (`/v1/table/actions`): a seat's `turn`, its `replacement` draw, "
                               "the `claims` of a discard or a robbable kong, the `draw` of the next seat, the "
                               "`opening` flowers of the deal, or `ended`."),
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
    An enum with no name stays inline (tests/http/test_openapi.py fails on it: name it here).

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
