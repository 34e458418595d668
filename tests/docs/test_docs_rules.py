"""docs/rules.md and docs/api.md against the code: the item table (§5) is ``ITEMS``, the preset
table (§9) is ``PRESETS``, every option is justified, and every ``docs/*.md`` the project cites
exists (README, openapi.yaml, the code)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import ningbo_score
from ningbo_score.items import ITEMS
from ningbo_score.rules import OPTION_KINDS, PRESETS

ROOT = Path(__file__).resolve().parents[2]
RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def section(title_start: str) -> str:
    """The text of the ``## `` section whose title starts with ``title_start``."""
    match = re.search(rf"^## {re.escape(title_start)}.*?(?=^## |\Z)", RULES, flags=re.M | re.S)
    assert match, title_start
    return match.group(0)


def table_rows(text: str) -> tuple[list[list[str]], list[str]]:
    """(the rows' cells, the header's cells) of the first markdown table in ``text``."""
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    start = next(i for i, ln in enumerate(lines) if set(ln.replace("|", "").strip()) <= set("-: "))
    rows = []
    for ln in lines[start + 1:]:
        rows.append([c.strip() for c in ln.strip().strip("|").split("|")])
    return rows, [c.strip() for c in lines[start - 1].strip().strip("|").split("|")]


def test_sections_are_numbered_one_to_eleven():
    titles = re.findall(r"^## (\d+)\. ", RULES, flags=re.M)
    assert titles == [str(n) for n in range(1, 12)]
    assert re.search(r"^## Rule book versions", RULES, flags=re.M)
    assert re.search(r"^### What changed in 2", RULES, flags=re.M)
    assert re.search(r"^### What changed in 4", RULES, flags=re.M)


def test_item_table_is_the_code():
    rows, header = table_rows(section("5. "))
    assert header[:5] == ["id", "台", "中文", "English", "bonus"]
    assert [r[0].strip("`") for r in rows] == [it.id for it in ITEMS]
    for row, it in zip(rows, ITEMS):
        tai = int(re.match(r"\d+", row[1]).group(0))
        assert (tai, row[2], row[3]) == (it.tai, it.name, it.name_en), it.id
        assert row[1].endswith("each") == (row[1] != str(it.tai)), it.id
        assert row[4] == (f"`{it.bonus_when}`" if it.bonus_when else "—"), it.id


def shown(value) -> str:
    if value is None or value in ([], ()):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return ", ".join(value) if isinstance(value, (list, tuple)) else str(value)


def test_preset_table_is_the_code():
    rows, header = table_rows(section("9. "))
    ids = [c.strip("`") for c in header[1:]]
    assert ids == list(PRESETS)
    assert [r[0].strip("`") for r in rows] == list(OPTION_KINDS)
    for row in rows:
        option = row[0].strip("`")
        assert row[1:] == [shown(getattr(PRESETS[p]["options"], option)) for p in ids], option


def test_every_option_is_justified_by_a_quotation():
    why = section("9. ").split("### Why each option is set as it is")[1]
    for option in OPTION_KINDS:
        bullet = re.search(rf"^- `{option}`:(.*?)(?=^- |\Z)", why, flags=re.M | re.S)
        assert bullet, option
        assert re.search(r"\"[^\"]*[\u4e00-\u9fff][^\"]*\"", bullet.group(1)), f"{option}: no Chinese quotation"


def test_every_source_is_named_by_its_document():
    sources = RULES.split("## 1. ")[0]            # the introduction, with the table of sources
    for tag in ("001", "000", "002", "004"):
        assert re.search(rf"^\| {tag} \| 《", sources, flags=re.M), tag
    for p in PRESETS.values():
        assert ".txt" not in p["source"]


CITING = ["README.md", "openapi.yaml", "app.py"] + \
    [str(p.relative_to(ROOT)) for d in ("ningbo_score", "schemas", "tools", "service")
     for p in (ROOT / d).rglob("*.py")]


@pytest.mark.parametrize("name", CITING)
def test_cited_docs_exist(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    for cited in set(re.findall(r"docs/[\w./-]+\.md", text)):
        assert (ROOT / cited).is_file(), f"{name} cites {cited}"
    assert not re.search(r"(?<![\w/])(RULES|API)\.md", text), f"{name} cites a rule book that isn't shipped"


def test_section_citations_exist():
    """A citation ``docs/rules.md §n`` or ``§n.m`` names a section (and fine point) that is there."""
    points = {major: {int(n) for n in re.findall(r"^(\d+)\. ", section(f"{major}. "), flags=re.M)}
              for major in (10, 11)}
    for name in CITING:
        text = (ROOT / name).read_text(encoding="utf-8")
        for major, minor in re.findall(r"docs/rules\.md`? §(\d+)(?:\.(\d+))?", text):
            assert 1 <= int(major) <= 11, (name, major)
            if minor:
                assert int(major) in points and int(minor) in points[int(major)], (name, major, minor)


def test_api_worked_example_is_what_the_service_answers():
    """docs/api.md's /v1/score example: its answer (but the elided `rules`) is the library's."""
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    request, answer = (json.loads(b) for b in re.findall(r"```json\n(.*?)```", api, flags=re.S)[:2])
    got = ningbo_score.score(request)
    shown_rules = answer.pop("rules")
    assert {k: got["rules"][k] for k in shown_rules if k != "…"} == {k: v for k, v in shown_rules.items() if k != "…"}
    assert {k: v for k, v in got.items() if k != "rules"} == answer


def _paid(request: dict) -> dict[str, int]:
    return {p["from"]: p["amount"] for p in ningbo_score.score(request)["payments"]}


def test_payment_examples_of_section_7():
    """The worked examples of docs/rules.md §7 (their arithmetic is in the text)."""
    ex1 = {"seat_wind": "S", "round_wind": "E", "win": {"by": "discard", "from": "W"},
           "hand": {"concealed": "123m 456m 789p 234s 55s", "winning_tile": "4m", "flowers": "2f 6f"}}
    assert _paid(ex1) == {"W": 10}                                          # 1: 2 × 5
    melds = [{"type": "chow", "tiles": "123m", "from": "E"}, {"type": "pung", "tiles": "CCC", "from": "E"},
             {"type": "pung", "tiles": "999p", "from": "E"}]
    ex2 = {"seat_wind": "S", "round_wind": "E", "win": {"by": "self_draw"},
           "hand": {"concealed": "234s 55s", "winning_tile": "2s", "flowers": "2f", "melds": melds}}
    assert _paid(ex2) == {"E": 25}                                          # 2: 5 × 5
    assert _paid({**ex2, "claims_from_winner": {"E": 3}}) == {"E": 50}      # 3: 10 × 5
    ex4 = {"seat_wind": "S", "round_wind": "E",
           "win": {"by": "self_draw", "kong_replacement": True, "kong_fed_by": "W"},
           "hand": {"concealed": "123m 456m 234s 55s", "winning_tile": "2s", "flowers": "2f",
                    "melds": [{"type": "kong", "tiles": "8888p", "from": "W"}]}}
    assert _paid(ex4) == {"W": 25}                                          # 4: 5 × 5
    assert _paid({**ex4, "rules": "ningbo-456"}) == {"W": 5, "E": 1, "N": 1}  # P = 2^0 = 1
    assert _paid({**ex4, "claims_from_winner": {"W": 3}}) == {"W": 50}      # 4: (5 + 5) × 5
    ex5 = {**ex1, "win": {"by": "self_draw"}, "base_points": 100}
    assert _paid(ex5) == {"E": 334, "W": 333, "N": 333}                     # 5: the cap's split
    assert _paid({**ex2, "base_points": 100}) == {"E": 1000}                # 5: 2500 capped


def test_section_11_is_the_play_with_its_interpretations_marked():
    """Rule book 4: §11 in the users' words, quoting the sources it rests on, with every reading
    of ours marked (the flowers of the deal, 杠开, 天胡/地胡, 吃张打张's rule, a false win)."""
    play = section("11. ")
    for quoted in ("所有玩家拿牌后，系统自动进行一次性补花", "从庄家开始，按逆时针顺序补花", "杠牌或杠花后补牌糊牌",
                   "不能吃张打张", "能吃张打张", "必须达到4台或更高台数", "做百搭的花牌不能补花"):
        assert quoted in play, quoted
    assert "`chow_swap_allowed`" in play and "no 杠上开花" in " ".join(play.replace("**", "").split())
    assert play.count("*interpretation*") >= 5


def test_section_8_cites_the_sources_as_they_are():
    """§8: 001's "本局所有杠分花分无效" is not what makes a draw pay nothing (it presumes payments
    during a hand, which no source defines); the escape penalty's receiver is the option."""
    table = section("8. ")
    assert 'A draw pays nothing (001: "本局所有杠分花分无效")' not in table
    assert "presumes such payments" in table and "`escape_penalty_to`" in table
    assert "周而复始" in table
