"""The one module of field helpers: strict marshmallow fields whose behaviour matches the JSON
Schema in ``openapi.yaml``, and the conversion of a schema's errors into the library's
:class:`~ningbo_score.errors.ScoreError` (:func:`validation_problem`).

marshmallow's defaults are lenient where JSON Schema is not (``Boolean`` takes ``"yes"`` and
``1``, ``Integer`` truncates ``5.5``), so the service uses these instead.  Every error message
is a :class:`Msg`: an English string that carries its Chinese text, so that one load serves
both languages and the error handler picks one.

Fields that have no single JSON type (tiles, the ``rules`` field) define
``openapi_schema(converter, ret)``, which ``tools/gen_openapi.py`` uses to describe them (the
components they refer to, the tiles' JSON Schema, are tools/tile_schema.py's: OpenAPI-only, they
are not built on every import).
"""
from __future__ import annotations

import typing

from marshmallow import ValidationError, fields
from marshmallow.validate import Validator

from ..errors import MAX_PROBLEMS, Problem, ScoreError, shown
from ..tiles import tile_index, tile_indices

if typing.TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence, Sized

    from marshmallow import Schema
    from marshmallow.types import ErrorMessages

_T = typing.TypeVar("_T")


class Msg(str):
    """An English message that also knows its Chinese text (``.zh``) and its problem code
    (``.code``: ``invalid_request`` unless a rule of the rule book is what the field refuses,
    e.g. more than 4 melds, ``wrong_tile_count``)."""

    zh: str
    code: str

    def __new__(cls, en: str, zh: str, code: str = "invalid_request") -> Msg:
        obj = super().__new__(cls, en)
        obj.zh = zh
        obj.code = code
        return obj

    def format(self, *args: typing.Any, **kwargs: typing.Any) -> Msg:
        return Msg(str.format(self, *args, **kwargs), self.zh.format(*args, **kwargs), self.code)

    def __reduce__(self) -> tuple[type[Msg], tuple[str, str, str]]:  # keep .zh through copy/pickle
        return (Msg, (str(self), self.zh, self.code))


def message(text: typing.Any, lang: str) -> str:
    """The text of one error message in ``lang`` ("en" or "zh")."""
    if isinstance(text, Msg):
        return text.zh if lang == "zh" else str(text)
    return str(text)


# ---------------------------------------------------------------------------------------------
# validators (they expose .choices / .min / .max so that apispec documents them)


def _json_text(value: typing.Any) -> str:
    """A choice as the JSON a client writes: ``null``, ``true``, ``false``, else its text."""
    return "null" if value is None else ("true" if value else "false") if isinstance(value, bool) else str(value)


class OneOf(Validator):
    """The value must be one of ``choices``."""

    error: Msg

    def __init__(self, choices: Iterable[typing.Any], error: Msg | None = None) -> None:
        self.choices = tuple(choices)
        self._set = frozenset(self.choices)
        shown = ", ".join(_json_text(c) for c in self.choices)
        self.error = error or Msg(f"Must be one of: {shown}.", f"必须是以下之一：{shown}。")

    def __call__(self, value: typing.Any) -> typing.Any:
        if value not in self._set:
            raise ValidationError(self.error)
        return value


class Range(Validator):
    """An inclusive integer range; ``max`` may be None."""

    error: Msg

    def __init__(self, min: int | None = None, max: int | None = None) -> None:
        self.min = min
        self.max = max
        if max is None:
            self.error = Msg(f"Must be at least {min}.", f"必须不小于 {min}。")
        elif min is None:
            self.error = Msg(f"Must be at most {max}.", f"必须不大于 {max}。")
        else:
            self.error = Msg(f"Must be from {min} to {max}.", f"必须在 {min} 到 {max} 之间。")

    def __call__(self, value: int) -> int:
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            raise ValidationError(self.error)
        return value


class Length(Validator):
    """An inclusive bound on the number of items of an array."""

    equal = None  # (apispec reads min/max/equal to tell a Length from a Range)
    error: Msg

    def __init__(self, min: int | None = None, max: int | None = None) -> None:
        self.min = min
        self.max = max
        if max is None:
            self.error = Msg(f"Must have at least {min} items.", f"至少需要 {min} 项。")
        elif min is None:
            self.error = Msg(f"Must have at most {max} items.", f"最多 {max} 项。")
        else:
            self.error = Msg(f"Must have {min} to {max} items.", f"必须有 {min} 到 {max} 项。")

    def __call__(self, value: Sized) -> Sized:
        n = len(value)
        if (self.min is not None and n < self.min) or (self.max is not None and n > self.max):
            raise ValidationError(self.error)
        return value


# ---------------------------------------------------------------------------------------------
# fields


class _Localized:
    """Chinese for marshmallow's generic messages (mixed in before the marshmallow field)."""

    default_error_messages: ErrorMessages = {
        "required": Msg("Missing data for required field.", "缺少必填字段。"),
        "null": Msg("Field may not be null.", "该字段不能为 null。"),
        "validator_failed": Msg("Invalid value.", "值无效。"),
    }


class String(_Localized, fields.String):
    default_error_messages = {
        "invalid": Msg("Not a valid string.", "不是有效的字符串。"),
        "invalid_utf8": Msg("Not a valid utf-8 string.", "不是有效的 UTF-8 字符串。"),
    }


class Boolean(_Localized, fields.Boolean):
    """Only the JSON booleans ``true`` and ``false``."""

    default_error_messages = {"invalid": Msg("Not a valid boolean: must be true or false.",
                                             "不是有效的布尔值：必须是 true 或 false。")}

    def _deserialize(self, value: typing.Any, attr: str | None, data: Mapping[str, typing.Any] | None,
                     **kwargs: typing.Any) -> bool:
        if value is True or value is False:
            return value
        raise self.make_error("invalid")


def as_integer(value: typing.Any) -> typing.Any:
    """JSON Schema's ``integer`` reading of a number: ``2.0`` is the int 2 (docs/api.md, rule book
    2); any other value is returned as it is."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


class Integer(_Localized, fields.Integer):
    """JSON Schema's ``integer``: a number with no fractional part, so ``2.0`` is loaded as the
    int 2 (:func:`as_integer`); no booleans, no ``2.5``, no strings."""

    default_error_messages = {"invalid": Msg("Not a valid integer (a number with no fractional part).",
                                             "不是有效的整数（必须是没有小数部分的数）。")}

    def _deserialize(self, value: typing.Any, attr: str | None, data: Mapping[str, typing.Any] | None,
                     **kwargs: typing.Any) -> int:
        value = as_integer(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.make_error("invalid")
        return value


class Nested(_Localized, fields.Nested):
    default_error_messages = {"type": Msg("Must be an object.", "必须是对象。")}


def _cap(max_items: int | None, over: Msg | None) -> tuple[int, Msg] | None:
    """An array field's cap: ``(max_items, over)``, ``over`` by default "Must have at most N items."."""
    return None if max_items is None else (max_items, over or Length(max=max_items).error)


#: an array whose items must differ (``unique``) and repeat one
REPEATED = Msg("Must not repeat an item.", "不能有重复项。")


def _repeats(items: Sequence[typing.Any]) -> bool:
    return len(set(items)) != len(items)


class List(_Localized, fields.List[_T]):
    """An array; ``max_items``: its most items, checked before any is read (refused with
    ``over``, a :class:`Msg`, or "Must have at most N items."); ``unique``: no item twice
    (where a repeat means nothing: it would only make the request, and what is kept of it,
    bigger)."""

    default_error_messages = {"invalid": Msg("Must be an array.", "必须是数组。")}

    def __init__(self, cls_or_instance: fields.Field[_T] | type[fields.Field[_T]], *, max_items: int | None = None,
                 over: Msg | None = None, unique: bool = False, **kwargs: typing.Any) -> None:
        if max_items is not None:
            kwargs.setdefault("metadata", {})["maxItems"] = max_items
        if unique:
            kwargs.setdefault("metadata", {})["uniqueItems"] = True
        super().__init__(cls_or_instance, **kwargs)
        self._cap = _cap(max_items, over)
        self.unique = unique

    def _deserialize(self, value: typing.Any, attr: str | None, data: Mapping[str, typing.Any] | None,
                     **kwargs: typing.Any) -> list[_T | None]:
        if not isinstance(value, list):                 # a JSON array only (no set, no string)
            raise self.make_error("invalid")
        cap = self._cap
        if cap is not None and len(value) > cap[0]:
            raise ValidationError(cap[1])
        # marshmallow's loop, stopping after MAX_PROBLEMS bad items (the answer lists no more)
        result: list[typing.Any] = []
        errors: dict[int, typing.Any] = {}
        inner = self.inner
        for idx, each in enumerate(value):
            try:
                result.append(inner.deserialize(each, **kwargs))
            except ValidationError as error:
                drop_frames(error)
                if error.valid_data is not None:
                    result.append(error.valid_data)
                errors[idx] = error.messages
                if len(errors) > MAX_PROBLEMS:
                    break
        if errors:
            raise ValidationError(errors, valid_data=result)
        if self.unique and _repeats(result):
            raise ValidationError(REPEATED)
        return result


class Dict(_Localized, fields.Dict):
    """An object; ``max_keys``: its most keys, checked before any key is read."""

    default_error_messages = {"invalid": Msg("Must be an object.", "必须是对象。")}

    def __init__(self, *, max_keys: int | None = None, **kwargs: typing.Any) -> None:
        if max_keys is not None:
            kwargs.setdefault("metadata", {})["maxProperties"] = max_keys
        super().__init__(**kwargs)
        self.max_keys = max_keys

    def _deserialize(self, value: typing.Any, attr: str | None, data: Mapping[str, typing.Any] | None,
                     **kwargs: typing.Any) -> dict[typing.Any, typing.Any]:
        if self.max_keys is not None and isinstance(value, dict) and len(value) > self.max_keys:
            raise ValidationError(Msg(f"Must have at most {self.max_keys} keys.", f"最多 {self.max_keys} 个键。"))
        out: dict[typing.Any, typing.Any] = super()._deserialize(value, attr, data, **kwargs)  # type: ignore[no-untyped-call]
        return out


def _tile_messages(problems: list[Problem], root: str) -> typing.Any:
    """The tile reader's problems (paths under ``root``) as marshmallow messages: a list for the
    field itself, a dict keyed by array index for single elements."""
    out: dict[typing.Any, typing.Any] = {}
    own: list[Msg] = []
    for p in problems:
        rest = p.path[len(root):] if p.path.startswith(root) else ""
        keys = [int(k) if k.isdigit() else k for k in rest.split(".")[1:]]
        msg = Msg(p.en, p.zh, p.code)
        if not keys:
            own.append(msg)
            continue
        node = out
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        node.setdefault(keys[-1], []).append(msg)
    if own and out:
        out["_schema"] = own
        return out
    return own or out


_ROOT = "@"  # placeholder path handed to the tile parser, replaced by the real field path

class OpenAPIConverter(typing.Protocol):
    """What ``openapi_schema(converter, ret)`` uses of the apispec converter tools/gen_openapi.py
    hands it."""

    def resolve_nested_schema(self, schema: Schema | type[Schema]) -> dict[str, typing.Any]: ...

    #: the apispec document being written (its ``components`` take a field's own components)
    spec: typing.Any


def _ref(name: str, nullable: bool) -> dict[str, typing.Any]:
    ref = {"$ref": f"#/components/schemas/{name}"}
    return {"oneOf": [ref, {"type": "null"}]} if nullable else ref


#: Characters a compact string may have per tile it can hold (a Chinese name is up to 3, with
#: white space between): a longer string is over its field's cap before it is read.
CHARS_PER_TILE = 8


class Tiles(_Localized, fields.Field[list[int]]):
    """A list of tiles: an array of codes/Chinese names, or one compact string
    (``"123m 456p EE C"``), loaded as tile indices by ``ningbo_score.tiles.tile_indices``.

    ``max_items``: the most tiles the field may hold; a longer array (or a compact string of more
    than ``CHARS_PER_TILE`` characters a tile) is refused with ``over`` (a :class:`Msg`, whose
    code may be a rule's; as for :class:`List`, "Must have at most N items." if not given) before
    any tile is read; ``unique``: no tile twice (:data:`REPEATED`)."""

    def __init__(self, *, max_items: int | None = None, over: Msg | None = None, unique: bool = False,
                 **kwargs: typing.Any) -> None:
        super().__init__(**kwargs)
        self._cap = _cap(max_items, over)
        self.unique = unique

    def _deserialize(self, value: typing.Any, attr: str | None, data: Mapping[str, typing.Any] | None,
                     **kwargs: typing.Any) -> list[int]:
        cap = self._cap
        if cap is not None and (type(value) is list and len(value) > cap[0]
                                or type(value) is str and len(value) > CHARS_PER_TILE * cap[0]):
            raise ValidationError(cap[1])
        problems: list[Problem] = []
        out = tile_indices(value, _ROOT, problems)
        if problems:
            raise ValidationError(_tile_messages(problems, _ROOT))
        if cap is not None and len(out) > cap[0]:
            raise ValidationError(cap[1])
        if self.unique and _repeats(out):
            raise ValidationError(REPEATED)
        return out

    def openapi_schema(self, converter: OpenAPIConverter, ret: dict[str, typing.Any]) -> dict[str, typing.Any]:
        return _ref("Tiles", self.allow_none)


class Tile(_Localized, fields.Field[int]):
    """One tile code or Chinese name, loaded as its index by ``ningbo_score.tiles.tile_index``."""

    def _deserialize(self, value: typing.Any, attr: str | None, data: Mapping[str, typing.Any] | None,
                     **kwargs: typing.Any) -> int:
        problems: list[Problem] = []
        k = tile_index(value, _ROOT, problems)
        if k is None:                    # tile_index has told why (in problems)
            raise ValidationError(_tile_messages(problems, _ROOT))
        return k

    def openapi_schema(self, converter: OpenAPIConverter, ret: dict[str, typing.Any]) -> dict[str, typing.Any]:
        return _ref("Tile", self.allow_none)


class TileCode(fields.String):
    """A tile code in a response (documented as the ``TileCode`` enum)."""

    def openapi_schema(self, converter: OpenAPIConverter, ret: dict[str, typing.Any]) -> dict[str, typing.Any]:
        return {"$ref": "#/components/schemas/TileCode"}


class PresetOrObject(fields.Field[_T]):
    """A preset id, or an object loaded by ``schema`` (``{"preset": …, options…}``); ``make``
    turns either (the id, or the loaded object) into the library's value."""

    default_error_messages = {
        **_Localized.default_error_messages,
        "invalid": Msg("Must be a preset id or an object.", "必须是规则 id 或对象。"),
    }

    def __init__(self, preset_ids: Sequence[str], schema: Schema, make: Callable[[str | dict[str, typing.Any]], _T],
                 **kwargs: typing.Any) -> None:
        super().__init__(**kwargs)
        self.preset_ids = tuple(preset_ids)
        self.preset_validator = OneOf(self.preset_ids)
        self.schema = schema  # an instance, built once
        self.make = make

    def _deserialize(self, value: typing.Any, attr: str | None, data: Mapping[str, typing.Any] | None,
                     **kwargs: typing.Any) -> _T:
        if isinstance(value, str):
            return self.make(self.preset_validator(value))
        if isinstance(value, dict):
            return self.make(self.schema.load(value))
        raise self.make_error("invalid")

    def openapi_schema(self, converter: OpenAPIConverter, ret: dict[str, typing.Any]) -> dict[str, typing.Any]:
        one_of = [
            {"type": "string", "enum": list(self.preset_ids), "description": "A preset id."},
            converter.resolve_nested_schema(self.schema),
        ]
        if self.allow_none:
            one_of.append({"type": "null"})
        return {"oneOf": one_of}


def _no_pause() -> None:
    return None


#: called before each item an :class:`Each` loads: a server that shares its CPU among requests
#: sets it (:func:`set_pause`) to yield to its other requests between two items (a 1 MiB batch
#: of 50 replay logs is ~150 ms of loading); nothing by default
_pause: list[typing.Callable[[], None]] = [_no_pause]


def set_pause(pause: typing.Callable[[], None]) -> None:
    _pause[0] = pause


class Each(fields.Field[list[typing.Any]]):
    """An array of at most ``max_items`` objects, each loaded by ``schema`` on its own: the
    loaded value, or the :class:`ScoreError` that refuses that item (a bad item never fails
    the array).  The length is checked before any item is read."""

    default_error_messages = {
        **_Localized.default_error_messages,
        "invalid": Msg("Must be an array.", "必须是数组。"),
    }

    def __init__(self, schema: Schema, *, max_items: int, **kwargs: typing.Any) -> None:
        super().__init__(**kwargs)
        self.schema = schema  # an instance, built once
        self.max_items = max_items
        self.too_many = Length(max=max_items).error
        self.not_object = Msg("Must be an object.", "必须是对象。")

    def _deserialize(self, value: typing.Any, attr: str | None, data: Mapping[str, typing.Any] | None,
                     **kwargs: typing.Any) -> list[typing.Any]:
        if type(value) is not list:
            raise self.make_error("invalid")
        if len(value) > self.max_items:
            raise ValidationError(self.too_many)
        not_objects = {i: [self.not_object] for i, item in enumerate(value) if type(item) is not dict}
        if not_objects:                  # the array itself is malformed: the request fails
            raise ValidationError(not_objects)
        out: list[typing.Any] = []
        pause = _pause[0]
        for item in value:
            pause()
            try:
                out.append(self.schema.load(item))
            except ValidationError as err:
                drop_frames(err)
                out.append(validation_problem(err))
        return out

    def openapi_schema(self, converter: OpenAPIConverter, ret: dict[str, typing.Any]) -> dict[str, typing.Any]:
        # each item is any object: a bad one is its own result (the array stays well-formed)
        out: dict[str, typing.Any] = {"type": "array", "maxItems": self.max_items,
                                      "items": {"type": "object", "additionalProperties": {}}}
        if self.metadata.get("description"):
            out["description"] = self.metadata["description"]
        return out


# ---------------------------------------------------------------------------------------------
# a schema's errors as the library's


def flatten_errors(messages: typing.Any, prefix: str = "") -> list[tuple[str, typing.Any]]:
    """marshmallow's nested error messages as ``(dotted path, message)`` pairs, in order.

    ``{"hand": {"melds": {0: {"tiles": ["…"]}}}}`` gives ``("hand.melds.0.tiles", "…")``;
    ``_schema`` (an error of an object as a whole) stands for the object's own path, and the
    body itself has the path ``""``.  A key is shown cut short (``errors.shown``): a client's
    60 KB key is not echoed.
    """
    out: list[tuple[str, typing.Any]] = []

    def walk(node: typing.Any, path: str) -> None:
        if isinstance(node, dict):
            if node and set(node) <= {"key", "value"}:
                # a Dict field's entry: its key or its value is wrong; the path ends at the key
                for value in node.values():
                    walk(value, path)
                return
            for key, value in node.items():
                if key == "_schema":
                    walk(value, path)
                else:
                    walk(value, f"{path}.{shown(str(key))}" if path else shown(str(key)))
        elif isinstance(node, (list, tuple)):
            for value in node:
                walk(value, path)
        else:
            out.append((path, node))

    walk(messages, prefix)
    return out


def drop_frames(err: BaseException) -> None:
    """Forget the tracebacks of a caught error and of the errors it was raised from.

    marshmallow raises its ValidationError from a local of ``Schema._do_load`` (``exc``), so the
    error's traceback holds that frame, the frame holds the error: a reference cycle that also
    holds the frame's ``data``.  Such a cycle is freed only by the garbage collector, not when the
    error is dropped; a refused 1 MiB batch left 26 MiB of its parsed body behind per request,
    and under 32 connections of them a worker reached 2.5 times its steady memory before a
    collection came.  Called wherever a ValidationError is caught and its messages kept."""
    seen: BaseException | None = err
    while seen is not None:
        seen.__traceback__ = None
        seen = seen.__cause__ or seen.__context__


def validation_problem(err: ValidationError) -> ScoreError:
    """A schema ValidationError as the library's ScoreError (code ``invalid_request``, 400,
    unless a message carries a rule's code), so that every refusal is made the same way."""
    problems = [
        Problem(getattr(text, "code", "invalid_request"), path, message(text, "en"), message(text, "zh"))
        for path, text in flatten_errors(err.messages)
    ]
    if not problems:  # pragma: no cover - marshmallow always gives a message
        problems = [Problem("invalid_request", "", "Invalid request.", "请求无效。")]
    return ScoreError(problems)


def load(schema: Schema, body: typing.Any) -> typing.Any:
    """``schema.load(body)``, its errors raised as a :class:`ScoreError`."""
    try:
        return schema.load(body)
    except ValidationError as err:
        drop_frames(err)
        raise validation_problem(err) from None
