"""The repository's documents stand alone (issue 38): everything a user needs is in ``docs/`` and
the READMEs, each relative link is a file of the repository, and none names the workspace's
own copies of the contract (``../shared/spec/…``, ``API.md``, ``RULES.md``), which are not shipped."""
from __future__ import annotations

import re

import pytest

from conftest import ROOT

PAGES = sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("docs/*.md"), ROOT / "README.md",
                                                    ROOT / "deploy" / "README.md", ROOT / "bench" / "README.md"])


@pytest.mark.parametrize("name", PAGES)
def test_a_page_points_only_into_the_repository(name):
    page = ROOT / name
    text = page.read_text(encoding="utf-8")
    assert "shared/" not in text, f"{name} points outside the repository"
    assert not re.search(r"(?<![\w/])(RULES|API)\.md", text), f"{name} names a contract that isn't shipped"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", target):           # https:, mailto:
            continue
        resolved = (page.parent / target).resolve()
        assert resolved.is_relative_to(ROOT) and resolved.exists(), f"{name} links to {target}, not in the repository"
