"""Contract tests: schemathesis generates requests from openapi.yaml (valid and invalid ones),
sends them to the app in-process and runs every check on each response: no 5xx, status codes,
content types, headers and bodies as documented, invalid data refused, valid data accepted."""
from __future__ import annotations

import typing

import schemathesis
from hypothesis import HealthCheck, settings

from service import create_app

# A request that JSON Schema finds valid can still be impossible at a table (13 tiles, a fifth
# copy, a chow of 1m 5p 9s, no 4 sets and a pair; for /v1/waits the same; for /v1/table/claims
# a chow from the wrong seat or two pungs of one discard): docs/api.md answers those with 422 and
# documents them.  So "valid data accepted" means 2xx or 422; everything else as schemathesis
# defaults; POST /v1/score/batch refuses a `requests` array over its `maxItems` (200) with a
# 400, like any schema violation.
# The in-process WSGI transport does not undo a Content-Encoding (an HTTP client would), so the
# cases ask for the answers as they are; compression is tested in tests/http/test_compression.py.
CONFIG = schemathesis.Config.from_dict({
    "headers": {"Accept-Encoding": "identity"},
    "generation": {"max-examples": 100},
    "checks": {
        "positive_data_acceptance": {"expected-statuses": ["2xx", "422"]},
    },
    "operations": [{
        "include-path": "/v1/score/batch",
        "checks": {
            "positive_data_acceptance": {"expected-statuses": ["2xx"]},
            "negative_data_rejection": {"expected-statuses": ["400", "415"]},
        },
    }, {
        # A session's `score` and `replay` hands are opaque objects in openapi.yaml (each is read
        # by its own endpoint's reader, and its refusal comes back with `hand_index`, as
        # docs/api.md says), so a schema-valid session may carry `{"score": {}}`: a 400.
        "include-path": "/v1/sessions/settle",
        "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "400", "422"]}},
    }, {
        # the preset id is open (as /v1/rules lists them: a later version's id is a string too), so
        # any string is schema-valid; one this version does not know is its documented 404
        "include-path": "/v1/rules/{preset}",
        "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "404"]}},
    }],
})

schema = schemathesis.openapi.from_wsgi("/openapi.yaml", create_app(), config=CONFIG)


def _integral_floats_as_ints(value: typing.Any) -> typing.Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral_floats_as_ints(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral_floats_as_ints(v) for k, v in value.items()}
    return value


def map_body(context, body):
    """JSON Schema's data model has one number 2 = 2.0, so `type: integer` admits `2.0`, and since
    rule book 2 so does the server (docs/api.md; tested in test_rulebook2.py).  The two spellings
    are the same JSON Schema instance, so writing generated integral floats as integers changes no
    case's validity; it keeps the cases to the spelling the library's own readers take too."""
    return _integral_floats_as_ints(body)


# every operation of openapi.yaml: those of docs/api.md and those of the live table (issue 4)
OPERATIONS = {(op.method.upper(), op.path) for op in (result.ok() for result in schema.get_all_operations())}


def test_the_live_table_operations_are_covered():
    assert {("POST", "/v1/waits"), ("POST", "/v1/analyze"), ("POST", "/v1/score/batch"), ("POST", "/v1/table/next"),
            ("POST", "/v1/table/claims"), ("GET", "/v1/levels"), ("POST", "/v1/table/escape"),
            ("GET", "/healthz"), ("GET", "/readyz")} <= OPERATIONS


@schema.hooks.apply(map_body)
@schema.parametrize()
@settings(suppress_health_check=list(HealthCheck), deadline=None)
def test_api_conforms_to_openapi(case):
    case.call_and_validate()
