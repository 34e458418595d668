"""Generate ``ningbo_score/answers.py``: the library's answers as TypedDicts, from the response
schemas of schemas/responses.py (the ones the HTTP answers are checked against), so that
``ningbo_score.score(...)`` is typed ``ScoreAnswer`` and ``mypy --strict`` reads its fields.

    python -m tools.gen_answers -o ningbo_score/answers.py

``tests/library/test_typed_api.py`` regenerates it and compares with the committed file.
"""
from __future__ import annotations

import argparse
import json
import keyword
import sys
import textwrap
import typing
from pathlib import Path

from marshmallow import Schema, fields, validate

from ningbo_score.readers.request_schemas import ITEM_IDS, PRESET_IDS
from ningbo_score.tiles import CODES, SEATS
from schemas import responses as r
from service.routes import ROUTES

OUT = Path(__file__).resolve().parent.parent / "ningbo_score" / "answers.py"

#: The answers the library returns, by the name of their TypedDict: each route's ``typed`` (its
#: row of service.routes.ROUTES names it; its ``response`` is the schema).
ANSWERS: dict[str, type[Schema]] = {r.typed: type(r.response) for r in ROUTES
                                    if r.typed is not None and r.response is not None}
#: Names of other schemas where dropping "Schema" would clash with the library's own names.
RENAMED: dict[type[Schema], str] = {r.ProblemSchema: "ProblemBody", r.SetSchema: "DecompositionSet",
                                    r._PresetIdSchema: "RulesPreset"}
#: Value sets written once, as a Literal alias each.
ALIASES: dict[tuple[typing.Any, ...], str] = {
    tuple(CODES): "TileCode", tuple(SEATS): "Seat", tuple(ITEM_IDS): "ItemId", tuple(PRESET_IDS): "PresetId",
    tuple(r.PROBLEM_CODES): "ProblemCode",
}
_REF_ALIASES = {"TileCode": "TileCode", "ProblemCode": "ProblemCode"}


class _Converter:
    """What a field's ``openapi_schema(converter, ret)`` calls: a nested schema comes back as a
    marker of its TypedDict."""

    def __init__(self, gen: Generator) -> None:
        self.gen = gen

    def resolve_nested_schema(self, schema: typing.Any) -> dict[str, typing.Any]:
        return {"typed": self.gen.name_of(schema if isinstance(schema, type) else type(schema))}


class Generator:
    def __init__(self) -> None:
        self.names: dict[type[Schema], str] = {s: n for n, s in ANSWERS.items()}
        self.names.update(RENAMED)
        self.order: list[type[Schema]] = []
        self.bodies: dict[type[Schema], str] = {}
        self.variants: dict[str, type[Schema]] = {}

    def name_of(self, cls: type[Schema]) -> str:
        if cls not in self.names:
            self.names[cls] = cls.__name__.lstrip("_").removesuffix("Schema")
        if cls not in self.bodies:
            self.bodies[cls] = ""            # being written (a cycle refers to it by name)
            self.bodies[cls] = self.typed_dict(cls)
            self.order.append(cls)
        return self.names[cls]

    def literal(self, choices: typing.Sequence[typing.Any]) -> str:
        values = [c for c in choices if c is not None]
        alias = ALIASES.get(tuple(values))
        text = alias or f"Literal[{', '.join(_py(v) for v in values)}]"
        return f"{text} | None" if None in choices else text

    def from_openapi(self, spec: dict[str, typing.Any]) -> str:
        if "typed" in spec:
            return spec["typed"]
        if "oneOf" in spec:
            return " | ".join(self.from_openapi(s) for s in spec["oneOf"])
        if "$ref" in spec:
            return _REF_ALIASES[spec["$ref"].rsplit("/", 1)[1]]
        if spec.get("type") == "null":
            return "None"
        raise ValueError(f"no Python type for {spec}")

    def variant(self, name: str, schema: type[Schema], outcome: str) -> type[Schema]:
        """The component ``name`` of a union (schemas.responses.outcome_union): ``schema`` with its
        constant `outcome`, as a schema of its own (made once)."""
        if name not in self.variants:
            self.variants[name] = type(name, (schema,), {r.OUTCOME: fields.String(
                required=True, validate=validate.OneOf([outcome]))})
        return self.variants[name]

    def type_of(self, field: fields.Field[typing.Any]) -> str:
        if hasattr(field, "VARIANTS"):         # an answer's union told apart by its `outcome`
            text = " | ".join(self.name_of(self.variant(name, schema, outcome))
                              for name, (schema, outcome) in field.VARIANTS.items())
        elif hasattr(field, "openapi_schema"):
            text = self.from_openapi(field.openapi_schema(_Converter(self), {}))
        elif isinstance(field, fields.Nested):
            nested = field.nested
            text = self.name_of(nested if isinstance(nested, type) else type(nested))
        elif isinstance(field, fields.List):
            text = f"list[{self.type_of(field.inner)}]"
        elif isinstance(field, fields.Dict):
            # a map of any JSON values (a problem's `state`, `score_request`) where no value field is named
            values = "object" if field.value_field is None else self.type_of(field.value_field)
            text = f"dict[str, {values}]"
        elif isinstance(field, fields.Float):
            text = "float"
        elif isinstance(field, (fields.Integer, fields.Boolean, fields.String)):
            choices = [c for v in field.validators for c in getattr(v, "choices", ())]
            ref = field.metadata.get("openapi_ref")
            if choices:
                return self.literal(choices)
            plain = {fields.Integer: "int", fields.Boolean: "bool"}.get(_base(field), "str")
            text = _REF_ALIASES[ref] if ref else plain
        elif type(field) is fields.Raw:          # any JSON value (a replay state's table, a request echoed)
            text = "object"
        else:
            raise ValueError(f"no Python type for {field!r}")
        return f"{text} | None" if field.allow_none and "None" not in text else text

    def bases(self, cls: type[Schema]) -> tuple[list[str], set[str]]:
        """The TypedDicts ``cls``'s TypedDict extends (those of its response-schema bases whose
        fields it does not declare again: a TypedDict cannot change an inherited key) and the
        fields they hold."""
        names: list[str] = []
        held: set[str] = set()
        declared = cls._declared_fields               # (marshmallow takes the fields out of the class body)
        own = {k for k, f in declared.items()
               if all(getattr(b, "_declared_fields", {}).get(k) is not f for b in cls.__mro__[1:])}
        for base in cls.__bases__:
            if issubclass(base, r.OutSchema) and base is not r.OutSchema:
                base_fields = set(base().fields)
                if not own & base_fields:
                    names.append(self.name_of(base))
                    held |= base_fields
        return names, held

    def typed_dict(self, cls: type[Schema]) -> str:
        name = self.names[cls]
        doc = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
        bases, held = self.bases(cls)
        rows = []
        for attr, field in cls().fields.items():
            if attr in held:
                continue
            key = field.data_key or attr
            kind = self.type_of(field)
            rows.append((key, kind if field.required else f"NotRequired[{kind}]"))
        if bases or all(k.isidentifier() and not keyword.iskeyword(k) for k, _ in rows):
            lines = [f"class {name}({', '.join(bases) or 'TypedDict'}):"]
            if doc:
                lines += [*textwrap.wrap(f'"""{doc}"""', 116, initial_indent="    ", subsequent_indent="    "), ""]
            lines += [f"    {k}: {t}" for k, t in rows]
            return "\n".join(lines)
        items = "".join(f"\n    {_py(k)}: {t}," for k, t in rows)
        comment = "".join(f"{line}\n" for line in textwrap.wrap(doc, 116, initial_indent="#: ",
                                                                 subsequent_indent="#: "))
        return f"{comment}{name} = TypedDict({_py(name)}, {{{items}\n}})"


def _py(value: typing.Any) -> str:
    """A value as Python source, strings in double quotes (the project's style)."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)


def _base(field: fields.Field[typing.Any]) -> type:
    for base in (fields.Integer, fields.Boolean, fields.String):
        if isinstance(field, base):
            return base
    raise ValueError(field)


HEADER = '''"""The library's answers as types: one TypedDict per 200 body of docs/api.md (``ScoreAnswer``
for :func:`ningbo_score.score`, ``WaitsAnswer``, ``AnalyzeAnswer``…), so a type checker reads
their fields.  GENERATED by ``python -m tools.gen_answers -o ningbo_score/answers.py`` from the
response schemas (schemas/responses.py); do not edit: tests/library/test_typed_api.py compares.
"""
from typing import Literal, NotRequired, TypedDict
'''


def generate() -> str:
    gen = Generator()
    for cls in ANSWERS.values():
        gen.name_of(cls)
    aliases = "\n".join(f"{name} = Literal[{', '.join(_py(v) for v in values)}]"
                        for values, name in ALIASES.items())
    parts = [HEADER, aliases, *[gen.bodies[cls] for cls in gen.order]]
    names = sorted([*ALIASES.values(), *(gen.names[c] for c in gen.order)])
    body = "\n\n\n".join(parts[1:])
    return parts[0] + "\n" + _wrap(body) + "\n\n\n__all__ = [\n" + "".join(f"    {_py(n)},\n" for n in names) + "]\n"


def _wrap(text: str, width: int = 120) -> str:
    """Long Literal aliases split after their commas, to stay within the line length."""
    out = []
    for line in text.splitlines():
        while len(line) > width and ", " in line[:width]:
            cut = line.rindex(", ", 0, width) + 1
            out.append(line[:cut])
            line = "    " + line[cut:].lstrip()
        out.append(line)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.output.write_text(generate(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
