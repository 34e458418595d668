"""The ``ningbo-score`` command (ningbo_score/cli.py), run as a separate process the way a user
runs it (``python -m ningbo_score``, the same ``main`` as the console script that pyproject.toml
declares; tests/build/test_package.py runs the installed script itself), from a directory outside the
project.

The expected answers are worked out by hand from docs/rules.md (ningbo preset: min_tai 4, linear
points P = base_points × (1 + tai), §6; self-draw: every other player pays 1 × P, §7)."""
from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import typing
import urllib.request

import pytest

import ningbo_score
from conftest import ROOT, free_port, wait_until_up
from service.settings import DEFAULT_METRICS_LISTENER
from tools import examples as tool_examples

# docs/api.md's worked example: seat S, caishen indicator 5p (the kind 5p; none in the hand), melds
# 中中中 from E and a concealed kong of 1s, flower 2f, self-drawn 4m completing 2-3-4m.
WORKED = ["234678m 99s", "--win", "4m", "--seat", "S", "--caishen", "5p", "--meld", "pung:CCC:E",
          "--meld", "kong:1111s:concealed", "--flowers", "2f", "--claims", "W=1"]
WORKED_BODY = {
    "rules": "ningbo", "seat_wind": "S", "round_wind": "E", "caishen": {"indicator": "5p"},
    "hand": {"concealed": ["2m", "3m", "4m", "6m", "7m", "8m", "9s", "9s"], "winning_tile": "4m",
             "melds": [{"type": "pung", "tiles": ["C", "C", "C"], "from": "E"},
                       {"type": "kong", "tiles": ["1s", "1s", "1s", "1s"], "concealed": True}],
             "flowers": ["2f"]},
    "win": {"by": "self_draw"}, "claims_from_winner": {"E": 0, "W": 1, "N": 0}, "base_points": 1,
}
# 排胡 0 (4m ends 2-3-4m on the open side: two-sided; not 平胡, there are pungs) + 自摸 1
# + 硬胡 1 (no 5p in the hand) + 中 pung 1 + 正花 1 (2f is south's flower) = 4 台 >= 4: eligible.
# P = 1 × (1 + 4) = 5; nobody related (W claimed 1 meld, fewer than 3): E, W, N pay 5 each.
WORKED_NET = {"E": -5, "S": 15, "W": -5, "N": -5}


def cli(*args: str, stdin: str | None = None, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", **(env or {})}
    environment.pop("LC_ALL", None)
    environment.pop("LC_MESSAGES", None)
    return subprocess.run([sys.executable, "-m", "ningbo_score", *args], input=stdin, env=environment,
                          cwd=cwd or ROOT.parent, capture_output=True, text=True, timeout=120)


def test_scores_the_worked_example_from_a_compact_string():
    out = cli("score", *WORKED)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "4 台 (counted 4, minimum 4): may be won"
    assert "points: 5" in lines
    assert "payments: E→S 5, W→S 5, N→S 5" in lines
    assert lines[-1] == "net: E -5  S +15  W -5  N -5"
    for name in ("Plain win (排胡)", "Self-draw (自摸)", "No caishen (硬胡)", "Dragon pung (中发白刻/杠) [C]",
                 "Seat flower (正花) [2f]"):
        assert any(line.strip().endswith(name) for line in lines), name


def test_json_output_is_the_api_answer():
    out = cli("score", *WORKED, "--json")
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    assert (body["tai"], body["counted_tai"], body["points"], body["net"]) == (4, 4, 5, WORKED_NET)
    assert {i["id"]: i["tai"] for i in body["items"]} == {
        "pai_hu": 0, "self_draw": 1, "no_caishen": 1, "dragon_pung": 1, "seat_flower": 1}


def test_scores_a_json_file_and_standard_input(tmp_path):
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(WORKED_BODY), encoding="utf-8")
    from_file = cli("score", str(hand), "--json")
    from_stdin = cli("score", "-", "--json", stdin=json.dumps(WORKED_BODY))
    for out in (from_file, from_stdin):
        assert out.returncode == 0, out.stderr
        body = json.loads(out.stdout)
        assert (body["tai"], body["points"], body["net"]) == (4, 5, WORKED_NET)


def test_below_the_minimum_is_exit_status_1():
    # the worked example without its flower: 0 + 1 + 1 + 1 = 3 台 < 4, so no points
    without_flower = [a for a in WORKED if a not in ("--flowers", "2f")]
    out = cli("score", *without_flower)
    assert out.returncode == 1, out.stderr
    assert out.stdout.splitlines()[0] == "3 台 (counted 3, minimum 4): not eligible"
    assert "points: 0" in out.stdout.splitlines()


def test_chinese_output_by_option_and_by_locale():
    by_option = cli("--lang", "zh", "score", *WORKED)
    by_locale = cli("score", *WORKED, env={"LANG": "zh_CN.UTF-8"})
    for out in (by_option, by_locale):
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[0] == "4 台 (计入起胡 4, 起胡 4): 可以胡"
        assert "分: 5" in lines and lines[-1] == "输赢: E -5  S +15  W -5  N -5"
        assert "Self-draw" not in out.stdout and any(line.strip() == "1  自摸" for line in lines)


def test_a_refused_hand_is_exit_status_3_with_the_problem():
    out = cli("score", "123m 456p 789s 234s 55m", "--win", "7m")        # 7m is not in the hand
    assert out.returncode == 3
    assert out.stdout == ""
    assert "winning_tile_not_in_hand" in out.stderr and "HTTP 422" in out.stderr
    assert "hand.winning_tile:" in out.stderr
    zh = cli("--lang", "zh", "score", "123m 456p 789s 234s 55m", "--win", "7m")
    assert zh.returncode == 3 and "胡的牌不在手牌中" in zh.stderr


def test_a_file_that_is_not_json_is_refused_like_the_api(tmp_path):
    bad = tmp_path / "hand.json"
    bad.write_text('{"seat_wind": "E"', encoding="utf-8")
    out = cli("score", str(bad))
    assert out.returncode == 3 and "malformed_json" in out.stderr and "HTTP 400" in out.stderr


@pytest.mark.parametrize("args", [
    ["score", "123m 456p 789s 234s 55m"],                  # no --win with a compact string
    ["score", "123m 456p 789s 234s 55m", "--win", "5m", "--seat", "X"],
    ["score", "123m 456p 789s 234s 55m", "--win", "5m", "--meld", "triple:CCC"],
    ["score", "no-such-file.json"],
    ["frobnicate"],
    [],
])
def test_usage_errors_are_exit_status_2(args):
    out = cli(*args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.strip() and out.stdout == ""


def test_waits_lists_the_tiles_that_complete_the_hand():
    # 23m 678m 99s + 中中中 + a concealed kong of 1s: only 1m or 4m completes 2-3m (6-7-8m and
    # 9-9s are whole); 4 unseen copies of each.  By self-draw: 排胡 0 + 自摸 1 + 硬胡 1 + 中 1
    # = 3 台 (below 4); on E's discard (S's 上家): 0 + 1 + 1 = 2 台.
    args = ["23m 678m 99s", "--seat", "S", "--meld", "pung:CCC:E", "--meld", "kong:1111s:concealed"]
    out = cli("waits", *args, "--json")
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    assert body["tiles"] == ["1m", "4m"] and body["unseen_total"] == 8 and body["discard_from"] == "E"
    assert [(w["self_draw"]["tai"], w["discard"]["tai"]) for w in body["waits"]] == [(3, 2), (3, 2)]
    text = cli("waits", *args)
    assert text.returncode == 0 and text.stdout.splitlines()[0] == "waits: 1m 4m  (unseen 8)"


def test_no_waits_is_exit_status_1():
    # 1m 3m 5m 8m 2s 9s E (+ two melds): one more tile can't make two sets and a pair of these
    # eight (at most one set could form, from 1-3-5m with 2m or 4m)
    out = cli("waits", "135m 8m 29s E", "--seat", "S", "--meld", "pung:CCC:E", "--meld", "kong:1111s:concealed")
    assert out.returncode == 1, out.stderr
    assert out.stdout.strip() == "no tile completes this hand"


def test_analyze_calls_the_library():
    # 23m 678m 99s with a pung of 中 and a concealed kong: 13 tiles, 3 sets and a pair but for
    # 2-3m, which 1m or 4m completes: tenpai (shanten 0), improving 1m and 4m, 4 unseen each
    # (no copy in the hand, the melds or an indicator)
    out = cli("analyze", "23m 678m 99s", "--seat", "S", "--meld", "pung:CCC:E", "--meld", "kong:1111s:concealed",
              "--json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["shanten"] == 0
    assert [(i["tile"], i["unseen"]) for i in answer["improving"]] == [("1m", 4), ("4m", 4)]


def test_version_and_help():
    version = cli("--version")
    assert version.returncode == 0
    assert version.stdout.split()[:2] == ["ningbo-score", ningbo_score.__version__]
    helped = cli("--help")
    assert helped.returncode == 0
    for line in ("0  done", "1  the answer is no", "2  usage error", "3  the hand is refused",
                 "4  the command can't run"):
        assert line in helped.stdout, line
    for command in ("score", "waits", "analyze", "serve"):
        assert command in helped.stdout
        assert cli(command, "--help").returncode == 0


def test_serve_runs_the_service_with_the_given_port(tmp_path):
    port = free_port()
    # from a directory that is not the checkout: the service is found beside the package
    # (the metrics listener too on a free port: its default may be taken here)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WEB_CONCURRENCY": "3", "HOME": str(tmp_path),
           "METRICS_PORT": str(free_port())}
    proc = subprocess.Popen([sys.executable, "-m", "ningbo_score", "serve", "--host", "127.0.0.1",
                             "--port", str(port), "--workers", "1"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_until_up(f"http://127.0.0.1:{port}/healthz", proc)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/score", data=json.dumps(WORKED_BODY).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            body = json.loads(answer.read())
        assert (body["tai"], body["points"], body["net"]) == (4, 5, WORKED_NET)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()[-2000:]
    # --workers 1 overrode WEB_CONCURRENCY=3: gunicorn booted exactly one worker
    assert err.decode().count("Booting worker") == 1, err.decode()[-2000:]


def test_serve_outside_a_checkout_is_exit_status_4(tmp_path):
    out = cli("serve", "--root", str(tmp_path))
    assert out.returncode == 4 and "not part of the installed package" in out.stderr


def test_the_docs_show_what_the_command_prints():
    """docs/cli.md: its worked example is the command's real output, and its exit status table
    has the statuses of --help."""
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    example = docs.split("$ ningbo-score score ", 1)[1].split("```", 1)[0]
    command, _, printed = example.partition("\n4 台")
    out = cli("score", *WORKED)
    assert out.returncode == 0 and out.stdout == "4 台" + printed
    assert shlex.split(command.replace("\\\n", " ")) == WORKED
    documented = re.findall(r"^\| (\d) \| ", docs, re.M)
    helped = re.findall(r"^  (\d)  ", cli("--help").stdout, re.M)
    assert documented == helped == ["0", "1", "2", "3", "4"]


def test_chinese_output_gives_the_library_s_reasons_in_chinese():
    # the worked example without its flower: 3 台 < 4 (docs/rules.md §5), so the library says why,
    # and in Chinese when the command speaks Chinese
    without_flower = [a for a in WORKED if a not in ("--flowers", "2f")]
    out = cli("--lang", "zh", "score", *without_flower)
    assert out.returncode == 1, out.stderr
    reasons = out.stdout.splitlines()[1:]
    assert any("4" in line and any("\u4e00" <= ch <= "\u9fff" for ch in line) and "台" in line
               for line in reasons), out.stdout
    assert "counted" not in out.stdout and "minimum" not in out.stdout


# --- the help's examples, the language option anywhere, a closed pipe, the tables -----------------

def _help_examples() -> list[str]:
    """The examples of ``ningbo-score --help``, continuation lines joined, as a shell reads them."""
    text = cli("--help").stdout.split("examples:\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in text.replace("\\\n", " ").splitlines() if line.strip()]


@contextlib.contextmanager
def _held(address: tuple[str, int]) -> typing.Iterator[None]:
    """``address`` taken while inside (if it is free: if not, someone else holds it already)."""
    with socket.socket() as s:
        try:
            s.bind(address)
            s.listen()
        except OSError:
            pass
        yield


def stop(proc: subprocess.Popen) -> str:
    """Stop a server started in its own session; one that has already exited (its port was taken,
    say) is no error here: its own words say why (no ProcessLookupError hiding them)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    return proc.communicate(timeout=60)[1].decode(errors="replace")


def test_every_help_example_runs_as_written(tmp_path):
    """Each example of --help, run by a shell in a folder holding hand.json (docs/api.md's worked
    example, as the examples assume), session.json (docs/api.md's session) and log.json (the referee's
    hand cut after 30 events, docs/api.md); serve's on a free
    port instead of its 8000."""
    examples = _help_examples()
    assert len(examples) >= 6 and any("hand.json --lang zh" in e for e in examples)
    (tmp_path / "hand.json").write_text(json.dumps(WORKED_BODY), encoding="utf-8")
    (tmp_path / "session.json").write_text(json.dumps(tool_examples.SESSION), encoding="utf-8")  # docs/api.md's session
    (tmp_path / "log.json").write_text(json.dumps(tool_examples.ACTIONS_PUNG_AND_WIN), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", "HOME": str(tmp_path)}
    env.pop("LC_ALL", None)
    define = f'set -o pipefail; ningbo-score() {{ {shlex.quote(sys.executable)} -m ningbo_score "$@"; }}\n'
    for example in examples:
        if " serve " in example:
            # the metrics listener on a free port too: the default one (8011) may be another
            # server's, as it is here while this test holds it (make test must pass then too)
            port, served = free_port(), {**env, "METRICS_PORT": str(free_port())}
            with _held(DEFAULT_METRICS_LISTENER):
                proc = subprocess.Popen(["bash", "-c", define + example.replace("8000", str(port))], cwd=tmp_path,
                                        env=served, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        start_new_session=True)
                try:
                    wait_until_up(f"http://127.0.0.1:{port}/healthz", proc)
                except Exception as err:
                    said = stop(proc)
                    raise AssertionError(f"{example}: {err}; the server said: {said[-2000:]!r}") from None
                stop(proc)
            continue
        out = subprocess.run(["bash", "-c", define + example], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0 and out.stderr == "", (example, out.stdout, out.stderr)
        if "hand.json --lang zh" in example:
            # the worked example: 4 台, eligible, S collects 15 (above)
            assert out.stdout.splitlines()[0] == "4 台 (计入起胡 4, 起胡 4): 可以胡", out.stdout
        if "2万3万4万" in example:
            # the worked example in Chinese names, no caishen and no claims: the same 4 台 (硬胡
            # needs no caishen in the hand), the same payments
            assert out.stdout.splitlines()[-1] == "输赢: E -5  S +15  W -5  N -5", out.stdout
        if "| head -c 40" in example:
            assert len(out.stdout.encode()) == 40 and out.stdout.startswith("{")


@pytest.mark.parametrize("where", ["before", "after"])
def test_the_language_option_before_or_after_the_hand(tmp_path, where):
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(WORKED_BODY), encoding="utf-8")
    args = ["--lang", "zh", "score", str(hand)] if where == "before" else ["score", str(hand), "--lang", "zh"]
    out = cli(*args, env={"LANG": "en_US.UTF-8"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "4 台 (计入起胡 4, 起胡 4): 可以胡"
    # after the command it wins over the one before it, as the later option does
    assert cli("--lang", "zh", "score", str(hand), "--lang", "en").stdout.startswith("4 台 (counted 4")


@pytest.mark.parametrize("args", [["score", *WORKED, "--json"], ["score", *WORKED], ["waits", "23m 678m 99s",
                                  "--seat", "S", "--meld", "pung:CCC:E", "--meld", "kong:1111s:concealed", "--json"]])
def test_a_closed_pipe_ends_quietly(args):
    """The reader has gone before the answer is written (as `| head -c1` once it has its byte):
    no BrokenPipeError traceback, and the answer's own exit status."""
    read_end, write_end = os.pipe()
    os.close(read_end)                                      # every write now fails with EPIPE
    try:
        out = subprocess.run([sys.executable, "-m", "ningbo_score", *args], stdout=write_end,
                             stderr=subprocess.PIPE, text=True, timeout=120,
                             env={**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"})
    finally:
        os.close(write_end)
    assert out.stderr == "" and out.returncode == 0, out.stderr


WAITING = ["23m 678m 99s", "--seat", "S", "--meld", "pung:CCC:E", "--meld", "kong:1111s:concealed"]


def test_waits_prints_a_table():
    # as test_waits_lists_the_tiles_that_complete_the_hand: 1m and 4m, 4 unseen each; self-draw
    # 3 台 (below 4: 0 points), on E's discard 2 台
    lines = cli("waits", *WAITING).stdout.splitlines()
    assert lines == ["waits: 1m 4m  (unseen 8)",
                     "  tile  unseen  self-draw               on a discard from E",
                     "  1m    4       3 台, 0 (not eligible)  2 台, 0 (not eligible)",
                     "  4m    4       3 台, 0 (not eligible)  2 台, 0 (not eligible)"]
    zh = cli("--lang", "zh", "waits", *WAITING).stdout.splitlines()
    # 台 and the Chinese words take two columns each: the columns still line up on screen
    assert zh[1:3] == ["  牌  未见  自摸                E 放冲", "  1m  4     3 台, 0 (不够起胡)  2 台, 0 (不够起胡)"]


def test_analyze_prints_a_table_before_and_after_the_draw():
    # 13 tiles: tenpai on 1m/4m as above
    before = cli("analyze", *WAITING)
    assert before.returncode == 0, before.stderr
    assert before.stdout.splitlines()[:3] == ["13 tiles: shanten 0 (tenpai)", "improving: 1m 4m  (unseen 8)",
                                              "  tile  unseen  self-draw               on a discard from E"]
    # 14 tiles with 5p drawn: discarding 5p is back to that tenpai (shanten 0, 1m 4m, 8 unseen, and
    # neither wait reaches 4 台: 0 winning unseen), the best row; discarding 7m breaks 6-7-8m
    # (shanten 1)
    after = cli("analyze", WAITING[0] + " 5p", *WAITING[1:])
    lines = after.stdout.splitlines()
    assert lines[0] == "14 tiles: shanten 0 (tenpai); discard one of:"
    assert lines[1].split() == ["discard", "shanten", "improving", "unseen", "winning", "unseen"]
    assert lines[2].split() == ["5p", "0", "1m", "4m", "8", "0"]
    assert any(line.split()[:2] == ["7m", "1"] for line in lines[3:])


def test_usage_errors_and_bad_files_in_chinese(tmp_path):
    cjk = re.compile(r"[\u4e00-\u9fff]")
    bad = tmp_path / "bad.json"
    bad.write_text('{"seat_wind": "E",}', encoding="utf-8")
    cases = [
        (["score", "123m 456p 789s 234s 55m"], 2, "--win"),                      # no winning tile
        (["score", str(tmp_path / "missing.json")], 2, "文件不存在"),
        (["score", "123m 456p 789s 234s 55m", "--win", "5m", "--caishen", "5p", "--caishen-kinds", "E"], 2,
         "只能给出一个"),
        (["score", str(bad)], 3, "第 1 行第 19 列）：此处应为双引号括起的键名"),       # the comma before }
    ]
    for args, status, words in cases:
        out = cli("--lang", "zh", *args)
        assert out.returncode == status and words in out.stderr and cjk.search(out.stderr), (args, out.stderr)
        english = cli("--lang", "en", *args)
        assert english.returncode == status and not cjk.search(english.stderr), (args, english.stderr)
    stdin = cli("--lang", "zh", "score", "-", stdin="{")
    assert stdin.returncode == 3 and "标准输入 不是 JSON" in stdin.stderr, stdin.stderr
