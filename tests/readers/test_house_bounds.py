"""Bounds as a property of the house, not of each feature (issue 26).

Each hole of issue 26 came in with a feature (the page's static cache, the rules cache,
analysis).  These tests walk what exists, so a new route or cache is covered without anyone
remembering to:

- every route's request schema, field by field: every array at its cap and one past it (an
  array without a cap fails the test), every string and every key at 60,000 characters, every
  map with many keys.  Each answer is a 2xx or a 4xx; a refusal no bigger than its body (or 2
  KiB), an answer no bigger than its body or the route's body cap (64 KiB, 1 MiB for a batch:
  issue 26's "≤ 64 KiB for 64 KiB bodies"), within a loose time bound (a hole
  costs seconds, not milliseconds: speed itself is measured in bench/), and the caches stay
  within their bounds;
- every cache in the code (functools caches, module-level dicts named ``*CACHE*``): a bound
  in entries (or a finite domain, named here), and a bound in bytes: the largest entry after
  the walk, times the bound, under :data:`CACHE_BUDGET`, and no entry over
  :data:`ENTRY_BUDGET`.
"""
from __future__ import annotations

import copy
import functools
import gc
import importlib
import json
import pkgutil
import sys
import time
import typing

import pytest
from marshmallow import Schema
from marshmallow import fields as mfields

import app as app_module
import ningbo_score
import service
from service import routes
from ningbo_score.readers import fields as nf
from tools import examples

LONG = 60_000
TIME_BOUND_S = 3.0
ENTRY_BUDGET = 8 * 1024            # bytes of one cache entry (key and value)
CACHE_BUDGET = 64 * 1024 * 1024    # bytes of one cache at its bound

POST_ROUTES = [r for r in routes.ROUTES if r.request is not None]


def example(path: str) -> dict:
    """The first example of the route's example set (its row's ``examples``)."""
    route = next(r for r in routes.ROUTES if r.path == path and r.request is not None)
    good = getattr(examples, f"{route.examples}_EXAMPLES")
    return copy.deepcopy(next(iter(good.values()))[1])


def _cap(field: mfields.Field) -> int | None:
    if isinstance(field, nf.Each):
        return field.max_items
    cap = getattr(field, "_cap", None)
    return cap[0] if cap else None


def walk(schema: Schema, path: tuple = ()) -> typing.Iterator[tuple[tuple, mfields.Field]]:
    """(path in the body, field) of every field reachable from ``schema``; an array's items are
    at index 0, a rules object under its field."""
    for name, field in schema.load_fields.items():
        here = path + (field.data_key or name,)
        yield here, field
        inner = None
        if isinstance(field, (mfields.Nested, nf.PresetOrObject, nf.Each)):
            inner = field.schema
            if isinstance(field, nf.Each):
                here += (0,)
        elif isinstance(field, mfields.List) and isinstance(field.inner, mfields.Nested):
            inner, here = field.inner.schema, here + (0,)
        if inner is not None:
            yield from walk(inner, here)


def put(body: dict, path: tuple, value: typing.Any) -> dict:
    """``body`` with ``value`` at ``path`` (making the objects and arrays on the way)."""
    node: typing.Any = body
    for step, nxt in zip(path, path[1:]):
        want: typing.Any = [{}] if isinstance(nxt, int) else {}
        if isinstance(step, int):
            if not node:
                node.append(want[0] if isinstance(nxt, int) else {})
            if not isinstance(node[0], (dict, list)):
                node[0] = want
            node = node[0]
            continue
        child = node.get(step)
        if isinstance(child, str) and not isinstance(nxt, int):       # a preset id: its object
            child = {"preset": child}
        if not isinstance(child, type(want)) or (isinstance(want, list) and not child):
            child = copy.deepcopy(want)
        node[step] = child
        node = child
    last = path[-1]
    if isinstance(last, int):
        node[:] = [value]
    else:
        node[last] = value
    return body


def item_of(field: mfields.Field, path: str) -> typing.Any:
    if isinstance(field, nf.Tiles):
        return "1m"
    if isinstance(field, nf.Each):
        return example("/v1/score")
    inner = field.inner
    if isinstance(inner, mfields.Nested):
        return {}
    choices = [getattr(v, "choices", None) for v in inner.validators]
    return next((c[0] for c in choices if c), "x")


def mutations(route) -> typing.Iterator[tuple[str, dict]]:
    base = example(route.path)
    for path, field in walk(route.request):
        name = ".".join(map(str, path))
        if isinstance(field, (mfields.List, nf.Tiles, nf.Each)):
            cap = _cap(field)
            assert cap is not None, f"{route.path} {name}: an array without a cap"
            item = item_of(field, name)
            for n in (cap, cap + 1):
                yield f"{name} × {n}", put(copy.deepcopy(base), path, [copy.deepcopy(item) for _ in range(n)])
            if isinstance(field, nf.Tiles):
                yield f"{name} long string", put(copy.deepcopy(base), path, "1" * LONG + "m")
        elif isinstance(field, mfields.Dict):
            assert field.max_keys is not None, f"{route.path} {name}: a map without a cap"
            for n in (field.max_keys + 1, 2000):
                yield f"{name} {n} keys", put(copy.deepcopy(base), path, {f"k{i}": 1 for i in range(n)})
            yield f"{name} long key", put(copy.deepcopy(base), path, {"k" * LONG: 1})
        elif isinstance(field, (mfields.String, nf.Tile, nf.PresetOrObject)):
            yield f"{name} long string", put(copy.deepcopy(base), path, "x" * LONG)
        elif isinstance(field, mfields.Nested):
            yield f"{name} many keys", put(copy.deepcopy(base), path, {f"x{i}": 0 for i in range(3000)})
        elif isinstance(field, mfields.Integer):
            yield f"{name} huge", put(copy.deepcopy(base), path, 2 ** 62)
    yield "many unknown keys", {**base, **{f"x{i}": 0 for i in range(3000)}}
    yield "a key past 60,000 characters", {**base, "x" * LONG: 0}


def limit_of(route) -> int:
    return routes.MAX_BATCH_BODY_BYTES if route.path == "/v1/score/batch" else routes.MAX_BODY_BYTES


@pytest.fixture(scope="module")
def plain_client():
    import logging

    logging.disable(logging.INFO)
    try:
        yield app_module.create_app({"TESTING": False}).test_client()
    finally:
        logging.disable(logging.NOTSET)


@pytest.mark.parametrize("route", POST_ROUTES, ids=lambda r: r.path)
def test_every_field_at_and_past_its_bound(plain_client, route):
    base = json.dumps(example(route.path), separators=(",", ":")).encode()
    example_answer = len(plain_client.post(route.path, data=base, content_type="application/json").get_data())
    tried = 0
    for what, body in mutations(route):
        data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        if len(data) > limit_of(route):
            continue                                      # the body cap answers it (413)
        started = time.monotonic()
        response = plain_client.post(route.path, data=data, content_type="application/json")
        took = time.monotonic() - started
        answer = response.get_data()
        assert response.status_code < 500, (route.path, what, answer[:300])
        # a refusal is no bigger than its body (or a short problem); an answer no bigger than its
        # body or than the largest a route gives to a body of the same cap (issue 26's bar: "≤ 64
        # KiB for 64 KiB bodies")
        most = 2048 if response.status_code >= 400 else max(limit_of(route), example_answer)
        assert len(answer) <= max(len(data), most), (route.path, what, len(data), len(answer))
        assert took < TIME_BOUND_S, (route.path, what, took)
        tried += 1
    assert tried >= 3, route.path
    check_caches()


# --- every cache, bounded in entries and in bytes ----------------------------------------------------

#: caches of a finite domain, no maxsize needed: (module, name) → the domain's size
FINITE: dict[tuple[str, str], int] = {
    # one entry per count of a kind in a hand, 0-14: advice by value draws with replacement (issue
    # 40), so a hand may hold more than the four copies of a kind
    ("ningbo_score.shanten", "_kind_table"): 15,
    ("ningbo_score.rules", "_CACHE"): len(ningbo_score.rules.PRESETS),   # one Rules per preset
}


def modules() -> list[typing.Any]:
    names = ["app", "schemas"]
    names += [m.name for m in pkgutil.walk_packages(service.__path__, "service.") if m.name != "service.__main__"]
    names += [f"ningbo_score.{m.name}" for m in pkgutil.iter_modules(ningbo_score.__path__) if m.name != "__main__"]
    return [importlib.import_module(n) for n in names]


def caches() -> list[tuple[str, str, typing.Any, int | None]]:
    """(module, name, the cache, its bound in entries) of every cache in the code."""
    found = []
    for module in modules():
        for name, value in vars(module).items():
            if isinstance(value, functools._lru_cache_wrapper) and value.__module__ == module.__name__:
                bound = value.cache_info().maxsize
                found.append((module.__name__, name, value, bound if bound is not None
                              else FINITE.get((module.__name__, name))))
            elif isinstance(value, dict) and "CACHE" in name.upper() and not name.endswith("LIMIT"):
                bound = getattr(module, f"{name}_LIMIT", None) or FINITE.get((module.__name__, name))
                found.append((module.__name__, name, value, bound))
            elif type(value).__module__ == module.__name__ and hasattr(value, "__dict__"):
                # a cache an object of the module holds (engine's item groups: one each)
                for attr, held in vars(value).items():
                    if isinstance(held, functools._lru_cache_wrapper):
                        found.append((module.__name__, f"{name}.{attr}", held, held.cache_info().maxsize))
    return found


_ATOMS = (int, float, bool, str, bytes, type(None))


def size_of(obj: typing.Any, seen: set[int]) -> int:
    """Bytes of ``obj`` and the containers it holds (objects of the library's own classes counted
    shallowly: they are shared, e.g. the item groups)."""
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    total = sys.getsizeof(obj)
    if isinstance(obj, dict):
        total += sum(size_of(k, seen) + size_of(v, seen) for k, v in obj.items())
    elif isinstance(obj, (tuple, list, set, frozenset)):
        total += sum(size_of(v, seen) for v in obj)
    elif not isinstance(obj, _ATOMS) and type(obj).__module__.startswith("ningbo_score") and hasattr(obj, "__dict__"):
        pass
    return total


def entries(cache: typing.Any) -> list[tuple[typing.Any, typing.Any]]:
    if isinstance(cache, dict):
        return list(cache.items())
    store = next(r for r in gc.get_referents(cache) if type(r) is dict and len(r) == cache.cache_info().currsize)
    out = []
    for key, elem in store.items():
        held = [r for r in gc.get_referents(elem) if r is not key and type(r).__name__ != "_lru_list_elem"]
        out.append((key, held))
    return out


def check_caches() -> None:
    for module, name, cache, bound in caches():
        assert bound is not None, f"{module}.{name}: a cache without a bound in entries"
        items = entries(cache)
        assert len(items) <= bound, (module, name, len(items), bound)
        biggest = max((size_of(entry, set()) for entry in items), default=0)
        assert biggest <= ENTRY_BUDGET, (module, name, biggest)
        assert biggest * bound <= CACHE_BUDGET, (module, name, biggest, bound)


def test_every_cache_is_bounded_in_entries_and_bytes(plain_client):
    ningbo_score.warm_up()
    for route in POST_ROUTES:                      # the examples fill the caches a little
        plain_client.post(route.path, json=example(route.path))
    found = caches()
    names = {f"{m}.{n}" for m, n, _, _ in found}
    # the walk finds the caches it must (a new one is found the same way)
    assert {"ningbo_score.engine.SHAPE.answer", "ningbo_score.engine.FLOWERS.answer",
            "ningbo_score.rules._OBJECT_CACHE"} <= names, names
    check_caches()


def test_a_rules_object_entry_stays_small(plain_client):
    """The rules cache held 10,000-id required_patterns: now one id each at most."""
    from ningbo_score.readers.request_schemas import ITEM_IDS

    body = {**example("/v1/score"), "rules": {"preset": "ningbo", "required_patterns": list(ITEM_IDS),
                                              "item_tai": {i: 1 for i in ITEM_IDS}}}
    assert plain_client.post("/v1/score", json=body).status_code == 200
    entry = next(e for e in ningbo_score.rules._OBJECT_CACHE.items()
                 if e[0][1] and dict(e[0][1]).get("required_patterns") == tuple(ITEM_IDS))
    assert size_of(entry, set()) <= ENTRY_BUDGET * 4


# --- every answer bounded by what asked for it (issue 41) ----------------------------------------------

#: an answer may be as large as this whatever its body, or this many times its body: a /v1/score
#: answer is about 9 × the most compact body that asks for it (it names the rules and lists every
#: item), so a batch of 200 such hands is too (27 KB → 248 KB); no answer comes near 16 ×
ANSWER_FLOOR = 64 * 1024
ANSWER_PER_BODY_BYTE = 16


def _filled(route) -> typing.Iterator[tuple[str, dict]]:
    """The route's body with each of its batch arrays (``Each``) filled to its cap with each good
    example of the route that takes one item (the largest answer a batch can ask for)."""
    base = example(route.path)
    singles = {type(r.request): r for r in POST_ROUTES}
    for path, field in walk(route.request):
        if not isinstance(field, nf.Each):
            continue
        single = singles.get(type(field.schema))
        items = [example(single.path)] if single is not None else []
        if single is not None and single.path == "/v1/score":
            items = [copy.deepcopy(body) for _, body in examples.SCORE_EXAMPLES.values()]
        for i, item in enumerate(items):
            yield f"{'.'.join(map(str, path))} × {field.max_items} of example {i}", \
                put(copy.deepcopy(base), path, [copy.deepcopy(item) for _ in range(field.max_items)])


def _examples_of(route) -> typing.Iterator[tuple[str, dict]]:
    """The route's own examples and error examples (its row names the set in tools/examples.py)."""
    found = {**getattr(examples, f"{route.examples}_EXAMPLES"),
             **getattr(examples, f"{route.examples}_ERROR_EXAMPLES", {})}
    for name, value in found.items():
        yield f"example {name}", copy.deepcopy(value[1])


#: issue 41's settle body: four 64-character names and 200 drawn hands (4.1 KB, a 716 KB answer:
#: every hand named the players again)
SETTLE_NAMES = {"players": [c * 64 for c in "ABCD"], "first_dealer": "A" * 64, "hands": [{"draw": True}] * 200}


@pytest.mark.parametrize("route", POST_ROUTES, ids=lambda r: r.path)
def test_every_answer_is_bounded_by_what_asked_for_it(plain_client, route):
    """Every answer (a 2xx or a refusal) of every route, to its examples, to every field at and
    past its bound, and to every batch filled with each example item, is at most
    max(64 KiB, 16 × its body): no body small or large asks for an answer out of proportion."""
    cases = [*_examples_of(route), *mutations(route), *_filled(route)]
    tried = 0
    for what, body in cases:
        data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        if len(data) > (route.body_limit or routes.MAX_BODY_BYTES):
            continue
        answer = plain_client.post(route.path, data=data, content_type="application/json").get_data()
        assert len(answer) <= max(ANSWER_FLOOR, ANSWER_PER_BODY_BYTE * len(data)), \
            (route.path, what, len(data), len(answer))
        tried += 1
    assert tried >= 3, route.path


def test_a_session_s_answer_is_bounded_by_its_body(plain_client):
    data = json.dumps(SETTLE_NAMES, separators=(",", ":")).encode()
    answer = plain_client.post("/v1/sessions/settle", data=data, content_type="application/json").get_data()
    assert len(answer) <= max(ANSWER_FLOOR, ANSWER_PER_BODY_BYTE * len(data)), (len(data), len(answer))
