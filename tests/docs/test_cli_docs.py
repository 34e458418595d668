"""docs/cli.md as a user reads it (issue 38): every ``$ ningbo-score …`` block runs as written from
the checkout's root and prints what the block shows (a block ending in ``...`` shows the first
lines), the example files it names are in the repository, and ``--lang`` after the command works
for every command that speaks (``replay`` and ``settle`` refused it before)."""
from __future__ import annotations

import json
import re
import shlex

import pytest

from conftest import ROOT
from test_cli import cli
from tools import examples

DOCS = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
#: (command line, what it prints) of each ``$ ningbo-score`` block
BLOCKS = [(m[1].replace("\\\n", " "), m[2]) for m in
          re.finditer(r"^```\n\$ (ningbo-score (?:[^\n]*\\\n)*[^\n]*)\n(.*?)^```", DOCS, re.M | re.S)]


def test_the_page_has_its_blocks():
    commands = [shlex.split(command)[1] for command, _ in BLOCKS]
    assert commands == ["score", "analyze", "replay", "actions", "settle"], BLOCKS


@pytest.mark.parametrize(("command", "printed"), BLOCKS, ids=[c.split()[1] for c, _ in BLOCKS])
def test_each_block_prints_what_it_shows(command, printed):
    out = cli(*shlex.split(command)[1:], cwd=ROOT)
    assert out.returncode == 0 and out.stderr == "", (command, out.stderr)
    if printed.endswith("  ...\n"):
        shown = printed.removesuffix("  ...\n")
        assert out.stdout.startswith(shown), (command, out.stdout)
    else:
        assert out.stdout == printed, (command, out.stdout)


def test_the_example_files_it_names_are_shipped():
    named = set(re.findall(r"docs/examples/[\w.-]+\.json", DOCS))
    assert named == {"docs/examples/hand.json", "docs/examples/replay.json", "docs/examples/session.json",
                     "docs/examples/actions.json"}
    for path in named:
        json.loads((ROOT / path).read_text(encoding="utf-8"))
    # the hand is docs/api.md's worked example, the log the replay example of openapi.yaml
    assert json.loads((ROOT / "docs/examples/hand.json").read_text(encoding="utf-8")) == examples.API_MD
    assert json.loads((ROOT / "docs/examples/replay.json").read_text(encoding="utf-8")) == examples.REPLAY_HAND
    # the referee's prefix: docs/examples.md's hand cut after E discards 3s
    actions = json.loads((ROOT / "docs/examples/actions.json").read_text(encoding="utf-8"))
    assert actions == examples.ACTIONS_PUNG_AND_WIN
    # the --help examples' hand.json is that file
    out = cli("score", "docs/examples/hand.json", "--lang", "zh", cwd=ROOT)
    assert out.returncode == 0 and out.stdout.splitlines()[0] == "4 台 (计入起胡 4, 起胡 4): 可以胡"


@pytest.mark.parametrize("command", ["replay docs/examples/replay.json", "settle docs/examples/session.json"])
def test_lang_after_the_command(command):
    """`--lang` after the command is the same as before it (docs/cli.md promises it for every
    command that speaks)."""
    after = cli(*command.split(), "--lang", "zh", cwd=ROOT)
    before = cli("--lang", "zh", *command.split(), cwd=ROOT)
    english = cli(*command.split(), cwd=ROOT)
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout != english.stdout
    assert re.search(r"[\u4e00-\u9fff]", after.stdout)
