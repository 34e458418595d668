"""Every form a Chinese player types for a tile is read (docs/api.md "Tiles in requests", and the
Arabic digit with the suit's character), in arrays and in compact strings; a near miss is told
what it most likely meant, and a number out of range is told the range.  The tiles and their
names are those of the rule book's §1 table."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import ningbo_score
from ningbo_score.tiles import parse_tile, parse_tiles

ROOT = Path(__file__).resolve().parents[2]

# RULES.md §1: 万 characters 1m-9m, 饼/筒 dots 1p-9p, 条/索 bamboo 1s-9s, winds 东南西北 E S W N,
# dragons 中 发 白 C F P, flowers 春夏秋冬 1f-4f, 梅兰竹菊 5f-8f
NUMERALS = "一二三四五六七八九"
SUITS = {"m": "万萬", "p": "饼餅筒", "s": "条條索"}
HONORS = {"E": ["东", "東", "东风", "東風"], "S": ["南", "南风", "南風"], "W": ["西", "西风", "西風"],
          "N": ["北", "北风", "北風"], "C": ["中", "红中", "紅中"], "F": ["发", "發", "发财", "發財"],
          "P": ["白", "白板"]}
FLOWERS = {"1f": "春", "2f": "夏", "3f": "秋", "4f": "冬", "5f": "梅", "6f": "兰", "7f": "竹", "8f": "菊"}


def _names():
    for suit, chars in SUITS.items():
        for rank in range(1, 10):
            for char in chars:
                yield f"{rank}{suit}", NUMERALS[rank - 1] + char     # 一万
                yield f"{rank}{suit}", f"{rank}{char}"               # 1万
    for code, names in HONORS.items():
        for name in names:
            yield code, name
    for code, name in FLOWERS.items():
        yield code, name
    yield "6f", "蘭"


NAMES = list(_names())


def test_every_name_is_one_tile_alone_and_in_an_array():
    # 9 ranks x (2 + 3 + 3 suit characters) x 2 numeral forms = 144; honour names 4 + 3 + 3 + 3
    # (winds) + 3 + 4 + 2 (dragons) = 22; flower names 8 + 蘭 = 9
    assert len(NAMES) == 144 + 22 + 9
    for code, name in NAMES:
        assert parse_tile(name) == code, name
    assert parse_tiles([name for _, name in NAMES]) == [code for code, _ in NAMES]


def test_every_name_in_a_compact_string():
    text = " ".join(name for _, name in NAMES)
    assert parse_tiles(text) == [code for code, _ in NAMES]
    # written together, with no space, the longest name is read first (东风 is one tile, not 东 + 风)
    assert parse_tiles("1万2万3万东风东风红中發財白板") == ["1m", "2m", "3m", "E", "E", "C", "F", "P"]


def test_arabic_digits_run_before_a_chinese_suit():
    # as 123m is 1m 2m 3m, 123万 is 1万 2万 3万
    assert parse_tiles("123万 456筒 789条 11索") == ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1s", "1s"]


def test_the_worked_example_in_chinese_scores_as_in_codes():
    # docs/api.md's worked example: 4 台, S collects 3 x 5 = 15 (as tests/http/test_golden.py)
    from tools import examples

    body = {**examples.API_MD, "hand": {**examples.API_MD["hand"]}}
    body["hand"]["concealed"] = "2万3万4万 6万7万8万 9条9条"
    body["hand"]["winning_tile"] = "4万"
    body["hand"]["melds"] = [{**m, "tiles": "红中红中红中" if m["tiles"] == ["C", "C", "C"] else m["tiles"]}
                             for m in examples.API_MD["hand"]["melds"]]
    assert ningbo_score.score(body)["payments"] == ningbo_score.score(examples.API_MD)["payments"]


def _messages(value, one=False):
    with pytest.raises(ningbo_score.ScoreError) as err:
        (parse_tile if one else parse_tiles)(value)
    return [(p.path, p.en, p.zh) for p in err.value.problems]


@pytest.mark.parametrize("typed,meant", [("1M", "1m"), ("9S", "9s"), ("e", "E"), ("n", "N"), ("c", "C"),
                                         ("Ｅ", "E"), ("５万", "5万"), (" 1m", "1m"), ("5z", "P"), ("1z", "E")])
def test_a_near_miss_says_what_it_meant(typed, meant):
    # tenhou's honours: 1z-4z the winds E S W N, 5z white (P), 6z green (F), 7z red (C)
    for path, en, zh in _messages(typed, one=True) + _messages([typed]):
        assert f"did you mean {meant!r}?" in en and f"是不是 {meant!r}？" in zh, (path, en, zh)


def test_a_near_miss_in_a_compact_string():
    [(_, en, zh)] = _messages("123M 456p")
    assert en == "'123M' at character 1: did you mean '123m'?" and zh == "第 1 个字符处的 '123M'：是不是 '123m'？"
    [(_, en, _)] = _messages("123m e")
    assert en == "unknown tile 'e' at character 6: did you mean 'E'?"
    [(_, en, zh)] = _messages("１２３ｍ")
    assert en == "full-width characters: did you mean '123m'?" and "全角" in zh


@pytest.mark.parametrize("typed", ["10m", "0p", "10s"])
def test_a_number_out_of_range_says_the_range(typed):
    # a suit tile's rank is 1-9 (§1): 10m is no tile, and not "unknown tile '0m'"
    [(_, en, zh)] = _messages(typed)
    assert en == f"{typed!r} at character 1: a suit tile's number is 1 to 9"
    assert zh == f"第 1 个字符处的 {typed!r}：数牌的点数是 1 到 9"
    [(_, en, zh)] = _messages(typed, one=True)
    assert en == f"{typed!r} is no tile: a suit tile's number is 1 to 9" and "1 到 9" in zh


def test_nine_flowers_say_the_rule():
    # 8 flowers, 1 each (§1): 9f is none, and a hand sets aside at most 8
    [(_, en, _)] = _messages("123456789f")
    assert en == "'123456789f' at character 1: the flowers are 1f to 8f"
    [(_, en, _)] = _messages(["9f"])
    assert en == "'9f' is no tile: the flowers are 1f to 8f"
    from tools import examples

    body = {**examples.API_MD, "hand": {**examples.API_MD["hand"], "flowers": ["1f"] * 9}}
    with pytest.raises(ningbo_score.ScoreError) as err:
        ningbo_score.score(body)
    assert err.value.errors() == {"hand.flowers": ["A hand sets aside at most 8 flowers: one each of 1f to 8f."]}
    assert err.value.errors("zh") == {"hand.flowers": ["一手牌最多补 8 张花牌：1f 到 8f 各一张。"]}


def test_several_tiles_in_one_element():
    [(path, en, zh)] = _messages(["123m", "E"])
    assert (path, en) == ("tiles.0", "'123m' is 3 tiles, not one: give each tile on its own")
    assert "3 张牌" in zh


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js on this machine")
def test_the_calculator_page_reads_the_same_tiles(tmp_path):
    """static/tiles.js's quick input (the page's "type tiles" box) reads what the service reads."""
    texts = ["1万 123筒 9条 三条 一万 东风 红中 白板 發財", "123m 456p 789s EE C 2f", "12万 3萬 4饼 5餅 6條 7索 夏"]
    script = tmp_path / "read.js"
    script.write_text(
        "global.window = {};\n"
        f"require({json.dumps(str(ROOT / 'static' / 'tiles.js'))});\n"
        f"console.log(JSON.stringify({json.dumps(texts)}.map(t => window.NBTiles.parseCompact(t))));\n",
        encoding="utf-8")
    out = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for text, read in zip(texts, json.loads(out.stdout), strict=True):
        assert read == {"tiles": parse_tiles(text), "bad": []}, text
