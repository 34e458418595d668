"""Clients generated from the served ``/openapi.yaml`` the way an integrator would, with each
generator's defaults, against the real server (gunicorn on a free loopback port), and Redocly's
linter over the same document (issue 15).

- Python: openapi-python-client (requirements-dev.txt) with no config file; the package it
  writes is put on ``sys.path`` (its few dependencies, httpx and attrs, come with the tool).
- TypeScript: openapi-typescript (default options) types for openapi-fetch, type-checked with
  ``tsc --strict``, then run with node.
- Redocly CLI's ``recommended`` rules: no error.

The Node tools are pinned in tools/node/package.json and package-lock.json and installed here
with ``npm ci`` when missing.  Nothing generated is kept.

Each client sends docs/api.md's worked example (tools/examples.API_MD), worked out by hand: South
self-draws; 排胡 0 + 自摸 1 + 硬胡 1 (no caishen in the hand) + 中 pung 1 + 正花 (2f, South's
flower) 1 = 4 台 ≥ min 4; linear points 1 × (1 + 4) = 5 from each of E, W and N: S +15, the
others −5 each.
"""
from __future__ import annotations

import copy
import importlib
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, VENV_BIN, gunicorn_server, threaded_server
from tools import examples

NODE_DIR = ROOT / "tools" / "node"
NODE_BIN = NODE_DIR / "node_modules" / ".bin"
EXPECTED = {"tai": 4, "points": 5, "net": {"E": -5, "S": 15, "W": -5, "N": -5}}  # worked out above

pytestmark = pytest.mark.slow


def run(args: list[str], cwd: Path, timeout: float = 300, env: dict | None = None) -> str:
    """``args`` run to completion; its output, or a failure that shows it."""
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, f"{args[0]} exited {done.returncode}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def node_tools() -> Path:
    """tools/node/node_modules, installed from the lock file (``npm ci``) if it isn't."""
    assert shutil.which("npm"), "npm is needed (Node.js 20.19+ or 22.12+)"
    lock = NODE_DIR / "package-lock.json"
    stamp = NODE_DIR / "node_modules" / ".package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
        run(["npm", "ci", "--no-audit", "--no-fund"], NODE_DIR, timeout=600)
    return NODE_BIN


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    with gunicorn_server({"HOME": str(home), "XDG_RUNTIME_DIR": str(home), "WEB_CONCURRENCY": "1"}) as (base, _):
        yield base


@pytest.fixture(scope="module")
def served_spec(server, tmp_path_factory) -> Path:
    """The document as the server serves it."""
    path = tmp_path_factory.mktemp("spec") / "openapi.yaml"
    with urllib.request.urlopen(f"{server}/openapi.yaml", timeout=10) as response:
        path.write_bytes(response.read())
    assert path.read_bytes() == (ROOT / "openapi.yaml").read_bytes()
    return path


def test_redocly_recommended_rules_find_no_error(node_tools, served_spec):
    """`redocly lint` (its built-in `recommended` rules, no config file) exits 0 only without
    errors; the one warning left (a GET that takes no input has no 4xx of its own) is the one
    tools/node/README.md tells."""
    out = run([str(node_tools / "redocly"), "lint", str(served_spec), "--format=json"], served_spec.parent)
    problems = json.loads(out[out.index("{"):])["problems"]
    errors = [p for p in problems if p["severity"] == "error"]
    assert not errors, errors
    warnings = sorted((p["ruleId"], p["location"][0]["pointer"]) for p in problems if p["severity"] == "warn")
    assert warnings == sorted(("operation-4xx-response", f"#/paths/{path}/get/responses")
                              for path in ("~1healthz", "~1readyz", "~1v1~1levels", "~1v1~1rules")), warnings


@pytest.fixture(scope="module")
def python_client(served_spec, tmp_path_factory):
    """The package openapi-python-client writes from the served document, importable."""
    generator = VENV_BIN / "openapi-python-client"
    assert generator.exists(), "openapi-python-client is in requirements-dev.txt"
    work = tmp_path_factory.mktemp("python-client")
    out = run([str(generator), "generate", "--path", str(served_spec)], work,
              env={"PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"})  # its ruff hook
    assert "Warning" not in out, out
    project = work / "ningbo-mahjong-scoring-api-client"  # named after the ASCII title
    assert (project / "pyproject.toml").exists()
    sys.path.insert(0, str(project))
    try:
        yield importlib.import_module("ningbo_mahjong_scoring_api_client")
    finally:
        sys.path.remove(str(project))
        for name in [m for m in sys.modules if m.startswith("ningbo_mahjong_scoring_api_client")]:
            del sys.modules[name]


def test_python_client_from_openapi_python_client(server, python_client):
    package = python_client
    api = importlib.import_module("ningbo_mahjong_scoring_api_client.api.scoring.score")
    models = importlib.import_module("ningbo_mahjong_scoring_api_client.models")

    client = package.Client(base_url=server, raise_on_unexpected_status=True)
    body = models.ScoreRequest.from_dict(examples.API_MD)
    assert isinstance(body.caishen, models.CaishenIndicator) and body.caishen.indicator == models.Tile.BING_5
    assert body.seat_wind == models.Seat.SOUTH
    response = api.sync_detailed(client=client, body=body, x_request_id="py-client-1")
    assert response.status_code == 200 and response.headers["X-Request-ID"] == "py-client-1"
    answer = response.parsed
    assert isinstance(answer, models.ScoreResponse)
    assert (answer.tai, answer.points) == (EXPECTED["tai"], EXPECTED["points"])
    assert answer.net.to_dict() == EXPECTED["net"]
    assert {item.id.value for item in answer.items} == {"pai_hu", "self_draw", "no_caishen", "dragon_pung",
                                                        "seat_flower"}
    assert all(p.to == models.Seat.SOUTH and p.amount == 5 for p in answer.payments)

    # a refused hand: the typed Problem, its code one of the known ones
    wrong = models.ScoreRequest.from_dict(examples.WRONG_TILE_COUNT)
    refused = api.sync_detailed(client=client, body=wrong)
    assert refused.status_code == 422 and isinstance(refused.parsed, models.Problem)
    assert refused.parsed.code == models.KnownProblemCode.WRONG_TILE_COUNT

    # a batch: typed results, told apart by their class
    batch = importlib.import_module("ningbo_mahjong_scoring_api_client.api.scoring.score_batch")
    request = models.BatchRequest.from_dict({"requests": [examples.API_MD, examples.WRONG_TILE_COUNT]})
    results = batch.sync(client=client, body=request).results
    assert [type(r).__name__ for r in results] == ["BatchScoreResult", "BatchProblemResult"]
    assert results[0].score.points == 5 and results[1].problem.status == 422
    assert [r.outcome for r in results] == ["scored", "refused"]

    # a wait's values: a typed score or a typed problem, each with its outcome
    waits = importlib.import_module("ningbo_mahjong_scoring_api_client.api.scoring.waits")
    body = models.WaitsRequest.from_dict(WAITING)
    found = waits.sync(client=client, body=body).waits
    assert [(w.tile.value, type(w.self_draw).__name__, type(w.discard).__name__) for w in found] == WAITING_VALUES
    assert {w.discard.code for w in found} == {models.KnownProblemCode.CAISHEN_NEEDS_SELF_DRAW}

    # the seat winds: a map of the positions, not field_0…field_3
    table = importlib.import_module("ningbo_mahjong_scoring_api_client.api.table.next_hand")
    following = table.sync(client=client, body=models.NextHandRequest.from_dict(NEXT_HAND))
    assert following.seat_winds.to_dict() == NEXT_SEAT_WINDS
    assert following.seat_winds["1"] == models.Seat.EAST


#: docs/api.md's "lone caishen" (tools/examples.py): the caishen 6p (indicator 5p) pairs with any
#: tile, so every kind wins by self-draw, and a discard would leave it beside the winning tile
#: (ningbo's single_wait restriction): refused, ``caishen_needs_self_draw``.  With the same
#: tiles of the same outcome are grouped: under 1m, 1p and E.
WAITING = examples.WAITS_EXAMPLES["any_tile"][1]
WAITING_VALUES = [(tile, "WinScored", "WinRefused") for tile in ("1m", "1p", "E")]
#: Position 2 (not the dealer, 0) wins: the deal passes to position 1, East now; the others follow
#: in play order: 2 South, 3 West, 0 North.
NEXT_HAND = {"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": 2}}
NEXT_SEAT_WINDS = {"0": "N", "1": "E", "2": "S", "3": "W"}

TS_EXAMPLE = """\
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

declare const process: { argv: string[] };  // node's (no @types/node needed)
type ScoreRequest = components["schemas"]["ScoreRequest"];

// docs/api.md's worked example, as the README shows it
const body: ScoreRequest = %(body)s;

const client = createClient<paths>({ baseUrl: process.argv[2] });
const { data, error, response } = await client.POST("/v1/score", {
  body,
  params: { header: { "X-Request-ID": "ts-client-1" } },
});
if (error !== undefined) {
  // the service's problem, or a proxy's page in front of it (text/html: nginx's 413)
  throw new Error(typeof error === "string" ? `refused: ${response.status}` : `refused: ${error.code} ${error.detail}`);
}
const south: number = data.net.S;
const items: components["schemas"]["OpenItemId"][] = data.items.map((item) => item.id);
console.log(JSON.stringify({
  tai: data.tai, points: data.points, net: data.net, south, items,
  requestId: response.headers.get("X-Request-ID"),
}));
"""


def ts_types(node_tools: Path, served_spec: Path, tmp_path: Path) -> Path:
    """A Node project holding the types openapi-typescript writes from the served document."""
    work = tmp_path / "ts"
    work.mkdir()
    (work / "node_modules").symlink_to(NODE_DIR / "node_modules", target_is_directory=True)
    (work / "package.json").write_text('{"type": "module", "private": true}\n')
    run([str(node_tools / "openapi-typescript"), str(served_spec), "-o", str(work / "api.d.ts")], work)
    return work


def ts_run(node_tools: Path, work: Path, name: str, source: str, *args: str) -> dict:
    """``source`` type-checked with ``tsc --strict`` (a type error fails here), then run with
    node: the JSON it prints."""
    (work / f"{name}.ts").write_text(source, encoding="utf-8")
    (work / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "strict": True,
        "skipLibCheck": False, "outDir": "out", "types": []}, "files": [f"{name}.ts"]}))
    run([str(node_tools / "tsc"), "-p", "tsconfig.json"], work)
    return json.loads(run(["node", f"out/{name}.js", *args], work, timeout=60))


def tsc_refuses(node_tools: Path, work: Path, body: dict) -> str:
    """tsc's output on ``body`` typed as a ScoreRequest, which it must refuse."""
    (work / "bad.ts").write_text('import type { components } from "./api.js";\n'
                                 f'const body: components["schemas"]["ScoreRequest"] = {json.dumps(body)};\n'
                                 "export default body;\n")
    done = subprocess.run([str(node_tools / "tsc"), "--noEmit", "--strict", "bad.ts"], cwd=work,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0, done.stdout
    return done.stdout


def test_typescript_client_from_openapi_typescript(node_tools, server, served_spec, tmp_path):
    work = ts_types(node_tools, served_spec, tmp_path)
    source = TS_EXAMPLE % {"body": json.dumps(examples.API_MD, ensure_ascii=False, indent=2)}
    answer = ts_run(node_tools, work, "example", source, server)
    assert {k: answer[k] for k in EXPECTED} == EXPECTED and answer["south"] == 15
    assert answer["requestId"] == "ts-client-1"
    assert set(answer["items"]) == {"pai_hu", "self_draw", "no_caishen", "dragon_pung", "seat_flower"}


def test_typescript_types_refuse_a_wrong_body(node_tools, served_spec, tmp_path):
    """The type check can fail: a seat that is no seat and a missing `win` are tsc errors."""
    work = ts_types(node_tools, served_spec, tmp_path)
    bad = {k: v for k, v in examples.API_MD.items() if k != "win"} | {"seat_wind": "X"}
    out = tsc_refuses(node_tools, work, bad)
    assert "'\"X\"'" in out or '"X"' in out, out


# --- answers of a later version: values this version doesn't know (issue 22) --------------------

#: what a later version might send: an item id, a payment reason, a preset, a rule book, an option
#: value, a wait shape and a 包 relation that this version doesn't know
FUTURE = {"item": "hand_of_the_moon", "reason": "moon_bloom", "preset": "ningbo-2030", "rulebook": 5,
          "points": "tripling", "wait": "moon_wait", "liability": "triple"}


def get(server: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{server}{path}", data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def future_answers(server: str) -> tuple[dict, dict]:
    """A real /v1/score answer and a real GET /v1/rules answer, each given the values above."""
    score = get(server, "/v1/score", examples.API_MD)
    score["items"].append({**score["items"][0], "id": FUTURE["item"]})
    score["payments"][0].update(reason=FUTURE["reason"], liability=FUTURE["liability"])
    score["rules"].update(preset=FUTURE["preset"], rulebook=FUTURE["rulebook"], points=FUTURE["points"])
    score["decomposition"]["wait"] = FUTURE["wait"]
    rules = get(server, "/v1/rules")
    rules["rulebook"] = FUTURE["rulebook"]
    rules["changes"].append({"id": FUTURE["item"], "presets": [FUTURE["preset"]], "change": "a new item"})
    preset = copy.deepcopy(rules["presets"][0])
    preset.update(id=FUTURE["preset"], rulebook=FUTURE["rulebook"])
    preset["options"]["points"] = FUTURE["points"]
    preset["items"].append({**preset["items"][0], "id": FUTURE["item"]})
    rules["presets"].append(preset)
    return score, rules


def test_python_client_parses_values_it_does_not_know(server, python_client):
    models = importlib.import_module("ningbo_mahjong_scoring_api_client.models")
    score, rules = future_answers(server)
    answer = models.ScoreResponse.from_dict(score)
    assert answer.items[-1].id == FUTURE["item"] and answer.items[0].id == models.ItemId.PAI_HU
    assert answer.payments[0].reason == FUTURE["reason"] and answer.payments[0].liability == FUTURE["liability"]
    assert answer.payments[1].reason == models.PaymentReason.SELF_DRAW
    assert (answer.rules.preset, answer.rules.rulebook, answer.rules.points) == \
        (FUTURE["preset"], FUTURE["rulebook"], FUTURE["points"])
    assert answer.decomposition.wait == FUTURE["wait"]
    assert answer.to_dict() == score                  # nothing lost on the way back
    listed = models.PresetList.from_dict(rules)
    assert listed.rulebook == FUTURE["rulebook"] and listed.presets[-1].id == FUTURE["preset"]
    assert listed.presets[0].id == models.PresetId.NINGBO and listed.changes[-1].presets == [FUTURE["preset"]]
    assert listed.presets[-1].items[-1].id == FUTURE["item"]
    assert listed.to_dict() == rules
    # a known value still comes out as its enum member, the request enum closed
    assert models.PresetId("ningbo") is models.PresetId.NINGBO
    with pytest.raises(ValueError):
        models.PresetId(FUTURE["preset"])


TS_FUTURE = """\
import type { components } from "./api.js";

type ScoreResponse = components["schemas"]["ScoreResponse"];
type PresetList = components["schemas"]["PresetList"];

// answers of a later version, typed as this version's: tsc must accept them
const score: ScoreResponse = %(score)s;
const rules: PresetList = %(rules)s;
const parsed: ScoreResponse = JSON.parse(JSON.stringify(score));
const known: components["schemas"]["ItemId"] = "pai_hu";
console.log(JSON.stringify({
  item: parsed.items[parsed.items.length - 1].id, reason: parsed.payments[0].reason,
  preset: parsed.rules.preset, rulebook: parsed.rules.rulebook, points: parsed.rules.points,
  wait: parsed.decomposition.wait, presets: rules.presets.map((p) => p.id), rulesRulebook: rules.rulebook, known,
}));
"""


def test_typescript_client_accepts_values_it_does_not_know(node_tools, server, served_spec, tmp_path):
    work = ts_types(node_tools, served_spec, tmp_path)
    score, rules = future_answers(server)
    source = TS_FUTURE % {"score": json.dumps(score, ensure_ascii=False),
                          "rules": json.dumps(rules, ensure_ascii=False)}
    out = ts_run(node_tools, work, "future", source)  # a closed enum would fail tsc here
    assert out == {"item": FUTURE["item"], "reason": FUTURE["reason"], "preset": FUTURE["preset"],
                   "rulebook": FUTURE["rulebook"], "points": FUTURE["points"], "wait": FUTURE["wait"],
                   "presets": [p["id"] for p in rules["presets"]], "rulesRulebook": FUTURE["rulebook"],
                   "known": "pai_hu"}


def test_typescript_types_refuse_an_unknown_value_in_a_request(node_tools, served_spec, tmp_path):
    """The open sets are only in answers: a request's preset is still checked by tsc."""
    work = ts_types(node_tools, served_spec, tmp_path)
    out = tsc_refuses(node_tools, work, {**examples.API_MD, "rules": {"preset": FUTURE["preset"]}})
    assert FUTURE["preset"] in out, out


TS_UNIONS = """\
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

declare const process: { argv: string[] };
type Seat = components["schemas"]["Seat"];

const client = createClient<paths>({ baseUrl: process.argv[2] });
const batch = await client.POST("/v1/score/batch", { body: { requests: %(requests)s } });
if (batch.data === undefined) throw new Error("batch refused");
// each result narrowed on its outcome: `score` exists only on a scored one, `problem` on a refused one
const results = batch.data.results.map((r) =>
  r.outcome === "scored" ? { points: r.score.points, status: r.status } : { code: r.problem.code, status: r.status });

const waits = await client.POST("/v1/waits", { body: %(waiting)s });
if (waits.data === undefined) throw new Error("waits refused");
const values = waits.data.waits.map((w) => [
  w.tile,
  w.self_draw.outcome === "scored" ? w.self_draw.points : w.self_draw.code,
  w.discard.outcome === "scored" ? w.discard.points : w.discard.code,
]);

const next = await client.POST("/v1/table/next", { body: %(next)s });
if (next.data === undefined) throw new Error("next refused");
const east: Seat | undefined = next.data.seat_winds["1"];
console.log(JSON.stringify({ results, values, east, winds: next.data.seat_winds }));
"""

#: Without narrowing, `score` is no property of every result: tsc must refuse this.
TS_UNNARROWED = """\
import type { components } from "./api.js";
declare const r: components["schemas"]["BatchResult"];
export const points: number = r.score.points;
"""


def test_typescript_narrows_the_unions_on_their_outcome(node_tools, server, served_spec, tmp_path):
    """Batch results and a wait's values are unions told apart by `outcome` (issue 25): under
    tsc --strict a client reads `score` or `problem` only after testing it, and the seat winds
    are a map of the positions."""
    work = tmp_path / "ts"
    work.mkdir()
    (work / "node_modules").symlink_to(NODE_DIR / "node_modules", target_is_directory=True)
    (work / "package.json").write_text('{"type": "module", "private": true}\n')
    run([str(node_tools / "openapi-typescript"), str(served_spec), "-o", str(work / "api.d.ts")], work)
    (work / "unions.ts").write_text(TS_UNIONS % {
        "requests": json.dumps([examples.API_MD, examples.WRONG_TILE_COUNT], ensure_ascii=False),
        "waiting": json.dumps(WAITING, ensure_ascii=False), "next": json.dumps(NEXT_HAND)}, encoding="utf-8")
    (work / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "strict": True,
        "skipLibCheck": False, "outDir": "out", "types": []}, "files": ["unions.ts"]}))
    run([str(node_tools / "tsc"), "-p", "tsconfig.json"], work)
    answer = json.loads(run(["node", "out/unions.js", server], work, timeout=60))
    # the worked example scores 5 points (module docstring); the 13-tile hand is a 422
    assert answer["results"] == [{"points": EXPECTED["points"], "status": 200},
                                 {"code": "wrong_tile_count", "status": 422}]
    assert [v[0] for v in answer["values"]] == [tile for tile, _, _ in WAITING_VALUES]
    assert all(isinstance(v[1], int) and v[2] == "caishen_needs_self_draw" for v in answer["values"])
    assert answer["east"] == "E" and answer["winds"] == NEXT_SEAT_WINDS

    (work / "unnarrowed.ts").write_text(TS_UNNARROWED)
    done = subprocess.run([str(node_tools / "tsc"), "--noEmit", "--strict", "--module", "nodenext",
                           "--moduleResolution", "nodenext", "unnarrowed.ts"], cwd=work,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "'score'" in done.stdout, done.stdout


# --- what a proxy or this service answers besides the documented (issue 38) ------------------------

#: nginx's own page for a body over `client_max_body_size` (ingress-nginx's proxy-body-size), as
#: it sends it: text/html, no JSON
NGINX_413 = (b"<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n"
             b"<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n"
             b"</body>\r\n</html>\r\n")
#: what the stub answers, chosen by the request's X-Request-ID: (status, content type, body, headers)
EDGE_ANSWERS = {
    "429": (429, "application/problem+json", json.dumps({
        "type": "about:blank", "title": "Too Many Requests", "status": 429, "code": "too_many_requests",
        "detail": "Slow down: 10 requests a second."}).encode(), {"Retry-After": "3"}),
    # a code this version does not know (an open set: a later version's, or a gateway's)
    "503": (503, "application/problem+json", json.dumps({
        "type": "about:blank", "title": "Service Unavailable", "status": 503, "code": "draining",
        "detail": "The service is restarting."}).encode(), {"Retry-After": "5"}),
    "413": (413, "text/html", NGINX_413, {}),
}


@pytest.fixture(scope="module")
def edge():
    """A stand-in for what sits in front of the service (a proxy, a gateway): it answers any
    request with the answer EDGE_ANSWERS names by the request's X-Request-ID, after reading the body."""
    from http import HTTPStatus

    def application(environ, start_response):
        environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        status, kind, body, headers = EDGE_ANSWERS[environ["HTTP_X_REQUEST_ID"]]
        start_response(f"{status} {HTTPStatus(status).phrase}",
                       [("Content-Type", kind), ("Content-Length", str(len(body))), *headers.items()])
        return [body]

    with threaded_server(application) as base:
        yield base


def test_python_client_parses_a_429_a_503_and_nginx_s_html_413(edge, python_client):
    """A 429 and a 503 are the `default` problem (typed, an unknown code kept as its string);
    nginx's HTML 413 is text, read as it is (it was a JSONDecodeError, and a 429 or 503 an
    UnexpectedStatus, before openapi.yaml had them)."""
    api = importlib.import_module("ningbo_mahjong_scoring_api_client.api.scoring.score")
    models = importlib.import_module("ningbo_mahjong_scoring_api_client.models")
    client = python_client.Client(base_url=edge, raise_on_unexpected_status=True)
    body = models.ScoreRequest.from_dict(examples.API_MD)
    busy = api.sync_detailed(client=client, body=body, x_request_id="429")
    assert busy.status_code == 429 and isinstance(busy.parsed, models.Problem)
    assert busy.parsed.code == "too_many_requests" and busy.headers["Retry-After"] == "3"
    down = api.sync_detailed(client=client, body=body, x_request_id="503")
    assert down.status_code == 503 and isinstance(down.parsed, models.Problem)
    assert (down.parsed.code, down.parsed.status) == ("draining", 503)
    large = api.sync_detailed(client=client, body=body, x_request_id="413")
    assert large.status_code == 413 and isinstance(large.parsed, str)
    assert "413 Request Entity Too Large" in large.parsed


TS_EDGE = """\
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

declare const process: { argv: string[] };
type Problem = components["schemas"]["Problem"];

const client = createClient<paths>({ baseUrl: process.argv[2] });
const body: components["schemas"]["ScoreRequest"] = %(body)s;
const seen: Record<string, unknown> = {};
for (const id of ["429", "503", "413"]) {
  const params = { header: { "X-Request-ID": id } };
  const { data, error, response } = await client.POST("/v1/score", { body, params });
  if (data !== undefined) throw new Error("not an error");
  // an error is the service's problem, or a proxy's page as text (a string only where openapi.yaml
  // says one may come: with Problem the only error type, `error` is `never` here and tsc refuses)
  if (typeof error === "string") {
    seen[id] = { status: response.status, page: error.includes("413 Request Entity Too Large") };
  } else {
    const problem: Problem = error;
    seen[id] = { status: response.status, code: problem.code, retry: response.headers.get("Retry-After") };
  }
}
console.log(JSON.stringify(seen));
"""


def test_typescript_client_parses_a_429_a_503_and_nginx_s_html_413(node_tools, edge, served_spec, tmp_path):
    """The error type is the problem or a string (the 413's `text/html`): tsc --strict accepts
    the client that tells them apart (it refused `typeof error === "string"` when the only error
    type was Problem), and each answer comes out as it was sent."""
    work = ts_types(node_tools, served_spec, tmp_path)
    source = TS_EDGE % {"body": json.dumps(examples.API_MD, ensure_ascii=False)}
    seen = ts_run(node_tools, work, "edge", source, edge)
    assert seen == {"429": {"status": 429, "code": "too_many_requests", "retry": "3"},
                    "503": {"status": 503, "code": "draining", "retry": "5"},
                    "413": {"status": 413, "page": True}}
