"""The request schemas' quick object loop (ningbo_score.readers.strict.StrictSchema._deserialize) loads
exactly what marshmallow's own loop loads, and refuses with the same messages at the same paths,
on every request body of the golden cases (tests/golden/cases.jsonl.gz)."""
from __future__ import annotations

import copy
import gzip
import json

import pytest
from marshmallow import ValidationError
from marshmallow.fields import Nested

from ningbo_score import ScoreError
from ningbo_score.readers import request_schemas
from ningbo_score.readers.fields import Integer, String, flatten_errors
from ningbo_score.readers.strict import StrictSchema
from tools.make_golden import GOLDEN

SCHEMAS = {"/v1/score": request_schemas.ScoreRequestSchema, "/v1/waits": request_schemas.WaitsRequestSchema,
           "/v1/score/batch": request_schemas.BatchRequestSchema,
           "/v1/table/next": request_schemas.NextHandRequestSchema,
           "/v1/table/claims": request_schemas.TableClaimsRequestSchema,
           "/v1/table/escape": request_schemas.EscapeRequestSchema}
BODIES = [(c["path"], c["json"]) for c in map(json.loads, gzip.open(GOLDEN, "rt", encoding="utf-8"))
          if c["path"] in SCHEMAS and "json" in c]


def _marshmallow_loop(schema_class):
    """An instance whose objects (its own and every nested one) go through marshmallow's loop."""
    schema = schema_class()
    stack = [schema]
    while stack:
        s = stack.pop()
        s._fast = False
        for f in s.fields.values():
            inner = getattr(f, "inner", None)
            for candidate in (f, inner):
                nested = getattr(candidate, "schema", None)
                if not isinstance(candidate, Nested) and isinstance(nested, StrictSchema):
                    # a schema held by a field of ours (a batch's items, a rules object) is one
                    # instance shared by every copy of the field: switch a fresh one instead
                    nested = candidate.schema = type(nested)()
                if isinstance(nested, StrictSchema):
                    stack.append(nested)
    return schema


def _all_fast(schema):
    stack, seen = [schema], 0
    while stack:
        s = stack.pop()
        if not s._fast:
            return False
        seen += 1
        for f in s.fields.values():
            for candidate in (f, getattr(f, "inner", None)):
                nested = getattr(candidate, "schema", None)
                if isinstance(nested, StrictSchema):
                    stack.append(nested)
    return seen > 0


def _comparable(loaded):
    if isinstance(loaded, request_schemas.BatchInput):      # a refused item: its problems (no identity)
        return [sorted((p.code, p.path, p.en, p.zh) for p in item.problems) if isinstance(item, ScoreError)
                else item for item in loaded.items]
    return loaded


def _outcome(schema, body):
    try:
        return "loaded", _comparable(schema.load(copy.deepcopy(body)))
    except ValidationError as err:
        return "refused", sorted((path, str(m), getattr(m, "zh", None)) for path, m in flatten_errors(err.messages))


def test_the_cases_reach_every_schema():
    assert {path for path, _ in BODIES} == set(SCHEMAS) and len(BODIES) > 2000


@pytest.mark.parametrize("path", sorted(SCHEMAS))
def test_the_quick_loop_is_marshmallows(path):
    quick, reference = SCHEMAS[path](), _marshmallow_loop(SCHEMAS[path])
    assert quick._fast and not reference._fast
    assert _all_fast(quick)                 # the reference shares no switched schema with it
    seen = {"loaded": 0, "refused": 0}
    for where, body in BODIES:
        if where != path:
            continue
        got, want = _outcome(quick, body), _outcome(reference, body)
        assert got == want, body
        seen[got[0]] += 1
    assert seen["loaded"] and seen["refused"], seen


class _Hooked(StrictSchema):
    """Fields with their own hooks (marshmallow 4's ``pre_load`` / ``post_load`` functions)."""
    shout = String(required=True, post_load=[str.upper])
    trimmed = String(required=False, pre_load=[str.strip], post_load=[lambda s: s + "!"])
    count = Integer(required=False, allow_none=True, post_load=[lambda n: n * 2])


@pytest.mark.parametrize("body", [
    {"shout": "hi"},
    {"shout": "hi", "trimmed": "  x ", "count": 3},
    {"shout": "hi", "count": None},
    {"shout": 5},
    {"trimmed": "y"},
    {"shout": "a", "other": 1},
])
def test_the_quick_loop_applies_field_hooks_as_marshmallow_does(body):
    fast = _Hooked()
    assert fast._fast
    slow = _Hooked()
    slow._fast = False
    assert _outcome(fast, body) == _outcome(slow, body)
    if body == {"shout": "hi", "trimmed": "  x ", "count": 3}:
        # the hooks ran: "hi" upper-cased; "  x " stripped, then "!"; 3 doubled
        assert fast.load(body) == {"shout": "HI", "trimmed": "x!", "count": 6}


def test_the_quick_loop_refuses_a_marshmallow_of_another_shape():
    from ningbo_score.readers.strict import check_marshmallow

    check_marshmallow()                                     # the installed one: the loop's shape

    class OtherSchema(StrictSchema):
        def _deserialize(self, data, *, error_store, many=False, partial=None, unknown=None, index=None,
                         infer_missing=False):
            return {}

    with pytest.raises(RuntimeError, match="written for marshmallow 4"):
        check_marshmallow(schema=OtherSchema)
