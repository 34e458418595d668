"""The JSON Schema of tiles for openapi.yaml (tools/gen_openapi.py registers these components),
derived from the parser's own tables (ningbo_score.tiles).  OpenAPI-only: kept out of the
library, whose every import would otherwise pay for the scan of all code points below.
"""
from __future__ import annotations

import re
import typing

from ningbo_score.tiles import ALIASES, CODES, SUIT_ZH

# JSON Schema for tiles, derived from the parser's own tables (ningbo_score.tiles).
TILE_NAMES: tuple[str, ...] = tuple(CODES) + tuple(ALIASES)
# Characters the parser skips in compact strings: exactly those for which str.isspace() holds.


def _space_class() -> str:
    """A regex class of exactly the characters for which ``str.isspace()`` holds."""
    spaces = [c for c in range(0x110000) if chr(c).isspace()]
    runs: list[list[int]] = []
    for c in spaces:
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    parts = [f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in runs]
    return "[" + "".join(parts) + "]"


_SPACE_CLASS = _space_class()
_ALIAS_ALT = "|".join(re.escape(a) for a in sorted(ALIASES, key=lambda a: (-len(a), a)))
# digits (white space may come between them and before the suit letter), honor letters, names
TILE_STRING_PATTERN = (f"^(?:{_SPACE_CLASS}|[1-9](?:{_SPACE_CLASS}|[1-9])*[mps{''.join(SUIT_ZH)}]"
                       f"|[1-8](?:{_SPACE_CLASS}|[1-8])*f"
                       f"|[ESWNCFP]|{_ALIAS_ALT})*$")
_TILE_DESCRIPTION = (
    "One tile: a code of docs/rules.md §1 (`1m`…`9m`, `1p`…`9p`, `1s`…`9s`, `E S W N`, `C F P`, "
    "`1f`…`8f`) or its Chinese name (`一万`, `1万`, `東風`, `红中`, `春`…)."
)


_HONOR_NAMES = {"E": "EAST", "S": "SOUTH", "W": "WEST", "N": "NORTH", "C": "RED", "F": "GREEN", "P": "WHITE"}
_SUIT_NAMES = {"m": "WAN", "p": "BING", "s": "TIAO", "f": "FLOWER"}


def code_name(code: str) -> str:
    """An identifier for a tile code (``5p`` → ``BING_5``, ``C`` → ``RED``): the enum member names
    of generated clients (``x-enum-varnames``), since codes that start with a digit and Chinese
    names are no identifiers."""
    return _HONOR_NAMES.get(code) or f"{_SUIT_NAMES[code[1]]}_{code[0]}"


def _tile_names() -> list[str]:
    """``x-enum-varnames`` of :data:`TILE_NAMES`: a code's name, its Chinese names ``…_ZH``,
    ``…_ZH_2``… in the parser's order (``一万`` → ``WAN_1_ZH``, ``一萬`` → ``WAN_1_ZH_2``)."""
    out = [code_name(code) for code in CODES]
    seen: dict[int, int] = {}
    for kind in ALIASES.values():
        seen[kind] = seen.get(kind, 0) + 1
        out.append(f"{code_name(CODES[kind])}_ZH" + (f"_{seen[kind]}" if seen[kind] > 1 else ""))
    return out


#: Components of openapi.yaml (registered by tools/gen_openapi.py) that the tile fields refer to.
TILE_COMPONENTS: dict[str, dict[str, typing.Any]] = {
    "TileCode": {"type": "string", "enum": list(CODES), "x-enum-varnames": [code_name(c) for c in CODES],
                 "description": "A tile code (docs/rules.md §1)."},
    "Tile": {"type": "string", "enum": list(TILE_NAMES), "x-enum-varnames": _tile_names(),
             "description": _TILE_DESCRIPTION},
    "Tiles": {
        "description": "Tiles: an array of tile codes or Chinese names, or one compact string.",
        "oneOf": [
            {"type": "array", "items": {"$ref": "#/components/schemas/Tile"}},
            {"type": "string", "pattern": TILE_STRING_PATTERN,
             "description": "A compact string: digits followed by `m`, `p`, `s` or `f` (or a suit's "
                            "character: `123万`), the honor letters `E S W N C F P` and Chinese names; white "
                            "space is ignored.",
             "examples": ["123m 456p EE C", "一万二万三万 东东", "123万 456筒 东东"]},
        ],
    },
}
