"""StrictSchema: a marshmallow schema with its own object loop, fenced here.

It replaces a private method of marshmallow's, ``Schema._deserialize``, so it is written for
one marshmallow: :data:`WRITTEN_FOR`.  Importing this module checks that the installed one still
has the shape the loop relies on (:func:`check_marshmallow`: the private method's arguments,
``Field.deserialize``'s steps, the fields' ``pre_load``/``post_load`` lists) and refuses to
start otherwise, rather than load bodies differently from marshmallow.

What it pays: the docs/api.md worked example (``/v1/score``'s body) loads in 29 µs with this
loop against 79 µs with marshmallow's (median of 3,000 loads, plain Python, one process, on the
shared 2-core machine; 23 µs against 74 µs on a quiet one).  tests/readers/test_schemas.py checks the
two load the same on every golden body, and on fields with ``pre_load`` and ``post_load``.
"""
from __future__ import annotations

import typing

from marshmallow import RAISE, Schema, ValidationError, missing
from marshmallow.fields import Field

from ..errors import MAX_PROBLEMS
from .fields import Msg, drop_frames

if typing.TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from marshmallow import types
    from marshmallow.error_store import ErrorStore

    class _ErrorStore(typing.Protocol):
        """What :meth:`StrictSchema._deserialize` calls of the error store marshmallow hands it
        (an ``ErrorStore``, whose methods are not annotated)."""

        def store_error(self, messages: typing.Any, field_name: str = ..., index: int | None = None) -> None: ...


#: The marshmallow the loop was written for (its 4.x line; checked on 4.4.0).
WRITTEN_FOR = "marshmallow 4 (4.4.0)"
#: ``Schema._deserialize``'s arguments in marshmallow 4, which the loop takes and passes on.
_DESERIALIZE_ARGS = ("self", "data", "error_store", "many", "partial", "unknown", "index")
#: What ``Field.deserialize`` does in marshmallow 4, in its order, which the loop repeats.
_FIELD_STEPS = ("_validate_missing", "load_default", "pre_load", "allow_none", "_deserialize", "_validate",
                "post_load")


def check_marshmallow(schema: type[Schema] = Schema, field: type[Field[typing.Any]] = Field) -> None:
    """Raise RuntimeError unless ``schema`` and ``field`` (marshmallow's) have the shape
    :class:`StrictSchema`'s loop was written for (:data:`WRITTEN_FOR`)."""
    code = schema._deserialize.__code__
    args = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    steps = field.deserialize.__code__.co_names
    field_args = field.__init__.__code__.co_varnames
    missing_steps = [s for s in _FIELD_STEPS if s not in steps]
    if args != _DESERIALIZE_ARGS or missing_steps or "post_load" not in field_args:
        raise RuntimeError(
            f"ningbo_score.readers.strict.StrictSchema was written for {WRITTEN_FOR}: the installed marshmallow's "
            f"Schema._deserialize takes {args} (expected {_DESERIALIZE_ARGS}), Field.deserialize lacks "
            f"{missing_steps}; check the loop against it before use")


check_marshmallow()


class StrictSchema(Schema):
    """Unknown fields raise.  A loaded optional field may be ``None`` (absent): the body's
    ``post_load`` reads it so.  A field with ``pre_load`` or ``post_load`` functions, a null or a
    missing value go through marshmallow's own ``Field.deserialize``.

    Its object loop (:meth:`_deserialize`) gives what marshmallow's gives for these schemas (no
    ``many``, no ``partial``, ``unknown`` RAISE, no ``load_default``), at a fraction of the cost:
    an absent optional field costs a dict lookup (marshmallow builds a closure for every declared
    field and calls it), a given one its field's ``_deserialize`` and validators (every validator
    of ningbo_score.readers.fields raises its own message), and unknown keys are listed in the body's
    order (no more than MAX_PROBLEMS + 1) (tests/readers/test_schemas.py compares the two on the golden
    cases)."""

    class Meta:
        unknown = RAISE

    error_messages = {
        "unknown": Msg("Unknown field.", "未知字段。"),
        "type": Msg("Must be an object.", "必须是对象。"),
    }

    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None:
        super().__init__(*args, **kwargs)
        #: (key in the body, attribute, field, required) in declaration order
        self._plan: tuple[tuple[str, str, Field[typing.Any], bool], ...] = tuple(
            (f.data_key or name, f.attribute or name, f, f.required) for name, f in self.load_fields.items())
        self._keys = frozenset(key for key, _, _, _ in self._plan)
        plain = all(f.load_default is missing for _, _, f, _ in self._plan)
        self._fast = plain and self.unknown == RAISE and not self.many and not self.partial

    def _deserialize(self, data: Mapping[str, typing.Any] | Sequence[Mapping[str, typing.Any]], *,
                     error_store: _ErrorStore, many: bool = False,
                     partial: bool | types.StrSequenceOrSet | None = None, unknown: types.UnknownOption = RAISE,
                     index: int | None = None) -> typing.Any:
        if not self._fast or many or partial or unknown != RAISE:
            # (the rare path: marshmallow's loop, given marshmallow's own store)
            return super()._deserialize(data, error_store=typing.cast("ErrorStore", error_store), many=many,
                                        partial=partial, unknown=unknown, index=index)
        out: dict[str, typing.Any] = {}
        if not isinstance(data, dict):
            error_store.store_error([self.error_messages["type"]], index=index)
            return out
        for key, attr, field, required in self._plan:
            raw = data.get(key, missing)
            if raw is missing and not required:
                continue
            try:
                if raw is None or raw is missing or field.pre_load or field.post_load:
                    out[attr] = field.deserialize(raw, key, data)      # null, required, a field's
                                                                        # own hooks: marshmallow's way
                else:                                               # what deserialize does then
                    value = field._deserialize(raw, key, data)
                    for validator in field.validators:               # each raises with its Msg
                        validator(value)
                    out[attr] = value
            except ValidationError as err:
                drop_frames(err)
                error_store.store_error(err.messages, key, index=index)
                if err.valid_data:
                    out[attr] = err.valid_data
        if len(data) > len(out) and not data.keys() <= self._keys:
            unknown_keys = 0
            for key in data:
                if key not in self._keys:
                    error_store.store_error([self.error_messages["unknown"]], key, index)
                    unknown_keys += 1
                    if unknown_keys > MAX_PROBLEMS:        # the answer lists no more
                        break
        return out
