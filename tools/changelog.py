"""CHANGELOG.md's release sections (``## [X.Y.Z] - YYYY-MM-DD``), for ``make release`` (the tag's
message is its version's section) and tests/build/test_release.py (each dated section has its tag).
Standard library only: ``make release`` runs it with any python3, in a clone without the venv.

    python3 tools/changelog.py section 3.0.0     the section's text (exit 1: no such section)
    python3 tools/changelog.py dated             the dated versions, newest first
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

CHANGELOG = Path(__file__).resolve().parent.parent / "CHANGELOG.md"
_HEAD = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?[ \t]*$", re.M)


def sections(text: str) -> dict[str, tuple[str | None, str]]:
    """version -> (its date or None, its section: the heading line and the text to the next one)."""
    heads = list(_HEAD.finditer(text))
    ends = [h.start() for h in heads[1:]] + [len(text)]
    return {h["version"]: (h["date"], text[h.start():end].strip() + "\n") for h, end in zip(heads, ends)}


def dated(text: str) -> list[str]:
    """The released versions: those whose section has a date (not ``[Unreleased]``)."""
    return [version for version, (date, _) in sections(text).items() if date is not None]


def main(argv: list[str]) -> int:
    text = CHANGELOG.read_text(encoding="utf-8")
    if argv[:1] == ["dated"] and len(argv) == 1:
        print("\n".join(dated(text)))
        return 0
    if argv[:1] == ["section"] and len(argv) == 2:
        found = sections(text).get(argv[1])
        if found is None:
            print(f"CHANGELOG.md has no [{argv[1]}]", file=sys.stderr)
            return 1
        sys.stdout.write(found[1])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
