"""Each 台 item declares the fields it reads (items.py ``reads``), and the engine remembers item
answers keyed on exactly those (engine.ItemGroup).  These tests fail when an item reads a field
it does not declare, which would otherwise answer from a memo keyed without it."""
import random

import pytest

import handgen
from ningbo_score import score
from ningbo_score.decompose import BAD_ANY, BAD_SINGLE, WAIT_SHIFT, WAITS
from ningbo_score.engine import (CONTEXT_GROUPS, FLOWERS, SEAT_SHAPE, SHAPE, SHAPE_GROUPS, VIEW_BITS, WIN, WinFacts,
                                 ItemGroup, View)
from ningbo_score import read_score
from ningbo_score.hand import check
from ningbo_score.items import CONTEXT_ITEMS, ITEMS, SHAPE_ITEMS, Item


class Recorder:
    """Passes attribute reads through to ``obj``, noting each name (``ctx.``-prefixed under ctx)."""

    def __init__(self, obj, seen: set, prefix: str = ""):
        self._obj, self._seen, self._prefix = obj, seen, prefix

    def __getattr__(self, name):
        if name == "ctx":
            return Recorder(self._obj.ctx, self._seen, "ctx.")
        self._seen.add(self._prefix + name)
        return getattr(self._obj, name)


def _contexts() -> list[WinFacts]:
    rng = random.Random(5)
    out = []
    for n in (0, 0, 1, 3):
        for _ in range(60):
            hand = read_score(handgen.random_request(rng, n_caishen=n))
            out.append(WinFacts(check(hand)))      # the rule book's checks: a hand that is a win
    return out


CONTEXTS = _contexts()
#: every key of 14 bits whose wait is one of decompose.WAITS
KEYS = [key for key in range(1 << 14) if (key >> WAIT_SHIFT) & 7 < len(WAITS)]
VIEWS = [View(ctx, key, dragon_pungs) for ctx in CONTEXTS[::40] for key in KEYS[::11] for dragon_pungs in (0, 1, 3)]


def _read(it: Item, views) -> set:
    seen: set = set()
    for v in views:
        it.test(Recorder(v, seen))
    return seen


@pytest.mark.parametrize("it", SHAPE_ITEMS, ids=lambda it: it.id)
def test_each_shape_item_reads_what_it_declares(it):
    assert _read(it, VIEWS) == set(it.reads)


@pytest.mark.parametrize("it", CONTEXT_ITEMS, ids=lambda it: it.id)
def test_each_context_item_reads_what_it_declares(it):
    assert _read(it, CONTEXTS) == set(it.reads)


def test_an_item_reading_a_field_it_does_not_declare_is_caught():
    """The check above finds it, and the engine refuses to answer it from the memo: it evaluates
    items on a namespace with only the declared fields."""
    sneaky = Item("sneaky", 1, "偷看", "Sneaky", False, True, lambda h: h.wait == "edge" and h.suits == 1, ("wait",))
    assert _read(sneaky, VIEWS) == {"wait", "suits"}
    group = ItemGroup((sneaky,))
    signature, values = (("sneaky", 1),), group.values(CONTEXTS[0])
    edge = 4 << WAIT_SHIFT
    single = 1 << WAIT_SHIFT
    assert group.reading(signature, values, single, 0)[0] == 0     # the declared field reads
    with pytest.raises(AttributeError):
        group.reading(signature, values, edge, 0)
    peeking = Item("peeking", 1, "偷看", "Peeking", False, False, lambda h: h.ctx.last_tile, ("ctx.by",))
    group = ItemGroup((peeking,))
    with pytest.raises(AttributeError):
        group.answer((("peeking", 1),), group.values(CONTEXTS[0]), 0, 0)


def test_an_item_declaring_a_field_no_view_has_is_refused():
    odd = Item("odd", 1, "怪", "Odd", False, True, lambda h: h.colour, ("colour",))
    with pytest.raises(ValueError):
        ItemGroup((odd,))


@pytest.mark.parametrize("field", sorted(VIEW_BITS))
def test_each_view_field_is_made_from_its_key_bits_only(field):
    # the field is the same with the other bits cleared
    ctx = CONTEXTS[0]
    for key in KEYS:
        assert getattr(View(ctx, key, 0), field) == getattr(View(ctx, key & VIEW_BITS[field], 0), field), key


def test_the_groups_cover_every_item_and_their_keys_are_what_they_declare():
    groups = SHAPE_GROUPS + CONTEXT_GROUPS
    assert sorted(it.id for g in groups for it in g.items) == sorted(it.id for it in ITEMS)   # each item once
    assert {it.id for g in SHAPE_GROUPS for it in g.items} == {it.id for it in SHAPE_ITEMS}
    for g in groups:
        assert set(g.ctx_fields) == {r[4:] for it in g.items for r in it.reads if r.startswith("ctx.")}
    assert not any(g.view_fields for g in CONTEXT_GROUPS)
    # the shape items read no discard-restriction bit: readings that differ only there share an answer
    assert not any(g.key_bits & (BAD_ANY | BAD_SINGLE) for g in SHAPE_GROUPS)
    # the split: the reading alone keys SHAPE, and the flowers key FLOWERS alone
    assert SHAPE.ctx_fields == () and SEAT_SHAPE.ctx_fields
    assert "flowers" in FLOWERS.ctx_fields and "flowers" not in WIN.ctx_fields


def test_answers_are_the_same_with_the_item_memos_empty_or_full():
    rng = random.Random(11)
    requests = [handgen.random_request(rng, n_caishen=n, presets=(p,))
                for n, p in ((0, "ningbo"), (2, "ningbo"), (3, "ningbo-7baida"), (1, "ningbo-456")) for _ in range(10)]
    warm = [score(r) for r in requests]
    for r, want in zip(requests, warm):
        for group in SHAPE_GROUPS + CONTEXT_GROUPS:
            group.answer.cache_clear()
        assert score(r) == want
    for group in SHAPE_GROUPS + CONTEXT_GROUPS:
        info = group.answer.cache_info()
        assert info.maxsize is not None and info.currsize <= info.maxsize
