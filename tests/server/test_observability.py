"""Observability and browser-facing hardening (service/observability/): request IDs, JSON logs,
Prometheus metrics (one process and across gunicorn workers), /readyz, CORS on /v1/*, security
headers on every response, and a Content-Security-Policy the two pages of the app live with."""
from __future__ import annotations

import copy
import gzip
import io
import json
import logging
import os
import re
import runpy
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service import create_app
from service import observability
from service import settings as service_settings
from service.observability import ids as obs_ids
from service.observability import logs as obs_logs
from service.observability import metrics as obs_metrics
from service.settings import Settings, SettingsError
from conftest import threaded_server
from tools import examples

ROOT = Path(__file__).resolve().parents[2]

# docs/api.md's worked example (4 台, 5 points; see docs/api.md).
API_MD = copy.deepcopy(examples.API_MD)
HEX32 = re.compile(r"[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}")  # a version-4 UUID, hex


@pytest.fixture(scope="module")
def app():
    return create_app()


def scrape(**headers: str):
    """A scrape of what the metrics listener answers (obs_metrics.metrics_app, in-process)."""
    from werkzeug.test import Client

    return Client(obs_metrics.metrics_app()).get("/metrics", headers=headers)


@pytest.fixture
def client(app):
    return app.test_client()


# --- request IDs --------------------------------------------------------------------------------

@pytest.mark.parametrize("rid", ["abc", "a", "x" * 128, "req-1.2_3", "0f8fad5b-d9cb-469f-a165-70867728950e",
                                 "A.B-C_d"])
def test_valid_request_id_is_echoed(client, rid):
    r = client.get("/healthz", headers={"X-Request-ID": rid})
    assert r.status_code == 200
    assert r.headers["X-Request-ID"] == rid


@pytest.mark.parametrize("rid", ["", "x" * 129, "has space", "semi;colon", "slash/", "é", "中文", "<script>",
                                 "a,b", "tab\there", "new%0Aline"])
def test_invalid_request_id_is_replaced(client, rid):
    r = client.get("/healthz", headers={"X-Request-ID": rid})
    got = r.headers["X-Request-ID"]
    assert got != rid and HEX32.fullmatch(got), got


def test_request_id_generated_when_absent_and_unique(client):
    import uuid

    ids = {client.get("/healthz").headers["X-Request-ID"] for _ in range(200)}
    assert len(ids) == 200 and all(HEX32.fullmatch(i) for i in ids)
    assert {uuid.UUID(hex=i).version for i in ids} == {4}


def test_generated_ids_differ_across_forked_workers():
    """gunicorn forks its workers from one master: each must draw different ids."""
    import os

    read, write = os.pipe()
    # os.fork itself, not the shim `make test`'s coverage (slipcover) puts over it: the shim's
    # bookkeeping of the child's coverage file ended the run with "I/O operation on closed file"
    # after every test had passed; the child runs one line of the house
    fork = getattr(os.fork, "__wrapped__", os.fork)
    pid = fork()
    if pid == 0:  # the child: one id to the parent, then out without running pytest's teardown
        os.write(write, obs_ids.new_request_id().encode())
        os._exit(0)
    os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read)
    os.close(write)
    assert HEX32.fullmatch(child) and child != obs_ids.new_request_id()


def test_request_id_on_every_kind_of_response(client):
    responses = [
        client.post("/v1/score", json=API_MD, headers={"X-Request-ID": "r-200"}),
        client.post("/v1/score", data="{", content_type="application/json", headers={"X-Request-ID": "r-400"}),
        client.get("/nowhere", headers={"X-Request-ID": "r-404"}),
        client.delete("/v1/score", headers={"X-Request-ID": "r-405"}),
        client.post("/v1/score", data="x" * (70 * 1024), content_type="application/json",
                    headers={"X-Request-ID": "r-413"}),
        client.post("/v1/score", data="{}", content_type="text/plain", headers={"X-Request-ID": "r-415"}),
    ]
    assert [r.status_code for r in responses] == [200, 400, 404, 405, 413, 415]
    assert [r.headers["X-Request-ID"] for r in responses] == ["r-200", "r-400", "r-404", "r-405", "r-413", "r-415"]


def test_request_id_is_on_flask_g(app):
    with app.test_request_context("/healthz", headers={"X-Request-ID": "from-header"}):
        app.preprocess_request()
        import flask

        assert flask.g.request_id == "from-header"


# --- JSON logs ----------------------------------------------------------------------------------

@pytest.fixture
def json_log():
    """The root logger's JSON handler, writing into a buffer: the same formatter and filter as
    under gunicorn (obs_logs.logconfig_dict)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(obs_logs.JsonFormatter())
    handler.addFilter(obs_logs.RequestIdFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
    finally:
        root.removeHandler(handler)


def test_log_lines_are_json_with_the_request_id(json_log):
    app = create_app()

    @app.get("/_test/log")  # a route that logs through the engine's and the app's loggers
    def _log_route():
        logging.getLogger("ningbo_score.engine").warning("engine says %s", "hi")
        app.logger.error("app says hello")
        return {"ok": True}

    client = app.test_client()
    client.get("/_test/log", headers={"X-Request-ID": "log-me-1"})
    client.post("/v1/score", data="{", content_type="application/json", headers={"X-Request-ID": "log-me-2"})
    lines = json_log()
    engine = [entry for entry in lines if entry["message"] == "engine says hi"]
    own = [entry for entry in lines if entry["message"] == "app says hello"]
    problem = [entry for entry in lines if entry.get("code") == "malformed_json"]
    assert len(engine) == 1 and engine[0]["request_id"] == "log-me-1"
    assert engine[0]["level"] == "WARNING" and engine[0]["logger"] == "ningbo_score.engine"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", engine[0]["time"])
    assert len(own) == 1 and own[0]["request_id"] == "log-me-1" and own[0]["level"] == "ERROR"
    assert len(problem) == 1 and problem[0]["request_id"] == "log-me-2" and problem[0]["status"] == 400


def test_log_line_outside_a_request_has_a_null_request_id(json_log):
    logging.getLogger("ningbo_score").warning("no request here")
    (line,) = [entry for entry in json_log() if entry["message"] == "no request here"]
    assert line["request_id"] is None


def test_gunicorn_access_record_becomes_structured_json():
    """gunicorn logs an access line as (format, atoms); the id comes from the response header."""
    atoms = {"h": "127.0.0.1", "m": "POST", "U": "/v1/score", "q": "", "s": "200", "B": 512,
             "D": 1534, "a": 'curl/8 "x"'.replace('"', '\\"'), "{x-request-id}o": "abc-123",
             "r": "POST /v1/score HTTP/1.1"}
    record = logging.LogRecord("gunicorn.access", logging.INFO, __file__, 1, '%(h)s "%(r)s" %(s)s', atoms, None)
    obs_logs.RequestIdFilter().filter(record)
    line = json.loads(obs_logs.JsonFormatter().format(record))
    assert line["request_id"] == "abc-123"
    assert (line["method"], line["path"], line["status"], line["bytes"]) == ("POST", "/v1/score", 200, 512)
    assert line["duration_ms"] == 1.534 and line["user_agent"] == 'curl/8 "x"'
    assert line["message"] == '127.0.0.1 "POST /v1/score HTTP/1.1" 200'


# W3C Trace Context §3.2: 00-<trace id, 32 hex>-<parent id, 16 hex>-<flags, 2 hex>
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


@pytest.mark.parametrize("value, expected", [
    (TRACEPARENT, TRACE_ID),
    (f"00-{TRACE_ID}-00f067aa0ba902b7-00", TRACE_ID),              # not sampled: still its trace
    (f"01-{TRACE_ID}-00f067aa0ba902b7-01-what-comes-later", TRACE_ID),  # a later version may add fields
    (f"00-{TRACE_ID}-00f067aa0ba902b7-01-extra", None),           # version 00 has exactly four
    (f"ff-{TRACE_ID}-00f067aa0ba902b7-01", None),                 # version ff is invalid
    (f"00-{'0' * 32}-00f067aa0ba902b7-01", None),                 # all-zero trace id
    (f"00-{TRACE_ID}-{'0' * 16}-01", None),                       # all-zero parent id
    (f"00-{TRACE_ID.upper()}-00f067aa0ba902b7-01", None),         # lowercase hex only
    (f"00-{TRACE_ID[:-1]}-00f067aa0ba902b7-01", None),            # 31 digits
    ("", None), (None, None), ("garbage", None),
])
def test_trace_id_of_a_traceparent(value, expected):
    assert obs_ids.trace_id_of(value) == expected


def test_trace_id_is_logged_on_the_request_lines(json_log):
    app = create_app()
    client = app.test_client()
    client.post("/v1/score", data="{", content_type="application/json",
                headers={"X-Request-ID": "traced-1", "traceparent": TRACEPARENT})
    client.post("/v1/score", data="{", content_type="application/json",
                headers={"X-Request-ID": "traced-2", "traceparent": "00-zz-bad-01"})
    lines = {line["request_id"]: line for line in json_log() if line.get("code") == "malformed_json"}
    assert lines["traced-1"]["trace_id"] == TRACE_ID
    assert lines["traced-2"]["trace_id"] is None                  # invalid: ignored


def test_gunicorn_access_record_has_the_trace_id():
    atoms = {"h": "127.0.0.1", "m": "GET", "U": "/healthz", "q": "", "s": "200", "B": 15, "D": 800,
             "a": "-", "{x-request-id}o": "abc", "{traceparent}i": TRACEPARENT, "r": "GET /healthz HTTP/1.1"}
    record = logging.LogRecord("gunicorn.access", logging.INFO, __file__, 1, "%(r)s", atoms, None)
    obs_logs.RequestIdFilter().filter(record)
    assert json.loads(obs_logs.JsonFormatter().format(record))["trace_id"] == TRACE_ID
    atoms["{traceparent}i"] = "-"                                  # gunicorn's atom for no header
    record = logging.LogRecord("gunicorn.access", logging.INFO, __file__, 1, "%(r)s", atoms, None)
    obs_logs.RequestIdFilter().filter(record)
    assert json.loads(obs_logs.JsonFormatter().format(record))["trace_id"] is None


def test_build_info_metric(client, monkeypatch):
    import ningbo_score

    text = scrape().get_data(as_text=True)
    version = ningbo_score.__version__
    compiled = "true" if ningbo_score.USING_COMPILED else "false"
    assert value(samples(text), "ningbo_score_build_info", version=version, revision=obs_metrics.revision(Settings()),
                 compiled=compiled) == 1
    # the checkout's commit (40 hex digits), or the image's build argument
    assert re.fullmatch(r"[0-9a-f]{40}", obs_metrics.revision(Settings()))
    assert obs_metrics.revision(Settings.from_env({"NINGBO_SCORE_REVISION": "0123abc"})) == "0123abc"
    monkeypatch.setattr(ningbo_score, "USING_COMPILED", not ningbo_score.USING_COMPILED)
    assert obs_metrics.build_info() == (version, "false" if compiled == "true" else "true")


def test_metrics_only_on_the_metrics_listener(client, monkeypatch):
    # the public port: no /metrics (404 problem), on whatever port the request came in
    for port in ("8000", "9100"):
        r = client.get("/metrics", environ_overrides={"SERVER_PORT": port})
        assert r.status_code == 404 and r.get_json()["code"] == "not_found"
    r = scrape()
    assert r.status_code == 200 and "ningbo_score_http_requests_total" in r.get_data(as_text=True)
    # configurable (METRICS_PORT), and off altogether with 0
    assert Settings.from_env({"METRICS_PORT": "9555"}).metrics_listener == ("127.0.0.1", 9555)
    assert Settings.from_env({"METRICS_PORT": "0"}).metrics_listener is None
    with pytest.raises(SettingsError, match=r"^METRICS_PORT must be a port number \(0: none\), not 'http'$"):
        Settings.from_env({"METRICS_PORT": "http"})


def test_gunicorn_conf_uses_the_hooks_and_json_logs(monkeypatch):
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert conf["on_starting"] is obs_metrics.on_starting
    # when_ready starts the metrics listener in the master (and HEALTH_PORT's, where set)
    started = []
    monkeypatch.setattr(obs_metrics, "when_ready", started.append)
    conf["when_ready"]("the server")
    assert started == ["the server"]
    assert conf["child_exit"] is obs_metrics.child_exit
    assert conf["on_exit"] is obs_metrics.on_exit
    assert conf.get("preload_app", False) is False  # prometheus_client must load in the workers
    logs = conf["logconfig_dict"]
    json_formatters = {name for name, f in logs["formatters"].items()
                       if f.get("()") == "service.observability.logs.JsonFormatter"}
    for logger in ("gunicorn.error", "gunicorn.access"):
        for handler in logs["loggers"][logger]["handlers"]:
            assert logs["handlers"][handler]["formatter"] in json_formatters, (logger, handler)
            assert any(logs["filters"][f].get("()") == "service.observability.logs.RequestIdFilter"
                       for f in logs["handlers"][handler].get("filters", [])), (logger, handler)
    for handler in logs["root"]["handlers"]:
        assert logs["handlers"][handler]["formatter"] in json_formatters


def test_on_starting_prepares_the_metrics_directory(tmp_path, monkeypatch):
    # set: created, and the counts of an earlier run (*.db) removed
    target = tmp_path / "prom"
    target.mkdir()
    (target / "counter_123.db").write_bytes(b"old")
    (target / "keep.txt").write_text("not ours")
    monkeypatch.setattr(service_settings, "_current", Settings(multiproc_dir=str(target)))
    obs_metrics.on_starting(None)
    assert sorted(p.name for p in target.iterdir()) == ["keep.txt"]
    # unset: a private directory is made and named in the environment and in the settings (the
    # workers inherit both), and on_exit removes it
    monkeypatch.setattr(service_settings, "_current", Settings())
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    obs_metrics.on_starting(None)
    made = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    assert service_settings.current().multiproc_dir == str(made)
    assert made.is_dir() and made.name.startswith("ningbo-score-prometheus-")
    obs_metrics.on_exit(None)
    assert not made.exists()
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")


# --- metrics ------------------------------------------------------------------------------------

def samples(text: str) -> dict[tuple[str, frozenset], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def value(snapshot: dict, name: str, **labels) -> float:
    return snapshot.get((name, frozenset(labels.items())), 0.0)


def test_metrics_count_requests_by_route_method_status_and_problems_by_code(client):
    before = samples(scrape().get_data(as_text=True))
    for _ in range(3):
        client.get("/healthz")
    client.post("/v1/score", json=API_MD)
    client.post("/v1/score", json=API_MD)
    client.post("/v1/score", data="{", content_type="application/json")
    client.get("/v1/rules/ningbo")
    client.get("/v1/rules/ningbo-456")
    client.get("/no/such/path")
    client.put("/v1/score")
    client.post("/v1/rules/ningbo")
    r = scrape()
    assert r.status_code == 200 and r.mimetype == "text/plain"
    after = samples(r.get_data(as_text=True))

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    total = "ningbo_score_http_requests_total"
    assert delta(total, route="/healthz", method="GET", status="200") == 3
    assert delta(total, route="/v1/score", method="POST", status="200") == 2
    assert delta(total, route="/v1/score", method="POST", status="400") == 1
    # the URL rule, not the raw path: two presets, one series
    assert delta(total, route="/v1/rules/<preset>", method="GET", status="200") == 2
    assert delta(total, route="unmatched", method="GET", status="404") == 1
    # a 405 is counted under the rule its path matched
    assert delta(total, route="/v1/score", method="PUT", status="405") == 1
    assert delta(total, route="/v1/rules/<preset>", method="POST", status="405") == 1
    refused = "ningbo_score_errors_total"
    assert delta(refused, route="/v1/score", code="method_not_allowed") == 1
    assert delta(refused, route="unmatched", code="method_not_allowed") == 0
    assert not any("ningbo-456" in str(k) or "/no/such/path" in str(k) for k in after)
    # the latency histogram has the same labels; its count moves with the counter
    hist = "ningbo_score_http_request_duration_seconds_count"
    assert delta(hist, route="/v1/score", method="POST", status="200") == 2
    assert value(after, "ningbo_score_http_request_duration_seconds_bucket",
                 route="/v1/score", method="POST", status="200", le="+Inf") >= 2
    errors = "ningbo_score_errors_total"
    assert delta(errors, route="/v1/score", code="malformed_json") == 1
    assert delta(errors, route="unmatched", code="not_found") == 1


def test_each_problem_answer_counts_its_code_where_it_is_built(client, monkeypatch):
    """issue 24: the code is counted where the problem answer is built (service/problems.py), never
    read back from its body: a 422, a 400, a 404 and a 503 readiness, each under its route."""
    import ningbo_score

    wrong = copy.deepcopy(API_MD)
    wrong["hand"]["winning_tile"] = "1p"         # not among the concealed tiles: 422
    name = "ningbo_score_errors_total"
    before = samples(scrape().get_data(as_text=True))
    answers = [client.post("/v1/score", json=wrong),
               client.post("/v1/score", data='{"rules": 1, "rules": 2}', content_type="application/json"),
               client.get("/v1/no/such/route")]
    monkeypatch.setattr(ningbo_score, "score", lambda request: {"tai": 0})
    answers.append(client.get("/readyz"))
    after = samples(scrape().get_data(as_text=True))
    expected = [(422, "/v1/score", "winning_tile_not_in_hand"), (400, "/v1/score", "malformed_json"),
                (404, "unmatched", "not_found"), (503, "/readyz", "not_ready")]
    assert [(r.status_code, r.get_json()["code"]) for r in answers] == [(s, c) for s, _, c in expected]
    for _, route, code in expected:
        assert value(after, name, route=route, code=code) - value(before, name, route=route, code=code) == 1, code
    # nothing in the metrics reads a body back
    source = Path(obs_metrics.__file__).read_text(encoding="utf-8")
    assert "get_data" not in source and "loads(" not in source


def test_record_problem_counts_a_code(app):
    before = samples(scrape().get_data(as_text=True))
    obs_metrics.record_problem("too_many_copies", route="/v1/score/batch")
    obs_metrics.record_problem("not a code!", route="/v1/score/batch")
    after = samples(scrape().get_data(as_text=True))
    name = "ningbo_score_errors_total"
    assert value(after, name, route="/v1/score/batch", code="too_many_copies") - \
        value(before, name, route="/v1/score/batch", code="too_many_copies") == 1
    assert value(after, name, route="/v1/score/batch", code="other") - \
        value(before, name, route="/v1/score/batch", code="other") == 1


# --- /readyz ------------------------------------------------------------------------------------

def test_readyz_ready(client):
    r = client.get("/readyz")
    assert r.status_code == 200 and r.mimetype == "application/json"
    assert r.get_json() == {"status": "ready", "checks": {"engine": "ok"}}


def test_readyz_not_ready_when_the_engine_fails(client, monkeypatch):
    import ningbo_score

    def broken(request):
        raise RuntimeError("engine down")

    monkeypatch.setattr(ningbo_score, "score", broken)
    r = client.get("/readyz")
    assert r.status_code == 503 and r.mimetype == "application/problem+json"
    body = r.get_json()
    assert body["code"] == "not_ready" and body["status"] == 503
    assert body["errors"] == {"engine": ["RuntimeError: engine down"]}
    assert set(body) == {"type", "title", "status", "detail", "code", "errors"}
    assert body["type"] == "urn:ningbo-score:problem:not_ready"
    zh = client.get("/readyz", headers={"Accept-Language": "zh-CN"}).get_json()
    assert zh["title"] == "未就绪" and zh["detail"] == "服务未就绪：engine: 出错：RuntimeError: engine down"


def test_readyz_not_ready_when_the_engine_answers_wrong(client, monkeypatch):
    import ningbo_score

    real = ningbo_score.score
    monkeypatch.setattr(ningbo_score, "score", lambda req: {**real(req), "tai": 3})
    r = client.get("/readyz")
    assert r.status_code == 503 and r.get_json()["code"] == "not_ready"


def test_readyz_not_ready_when_the_metrics_dir_is_missing(tmp_path):
    # the readiness check only: prometheus_client keeps the mode it was imported in
    client = create_app(settings=Settings(multiproc_dir=str(tmp_path / "missing"))).test_client()
    r = client.get("/readyz")
    assert r.status_code == 503
    assert "not a writable directory" in r.get_json()["errors"]["metrics_dir"][0]
    zh = client.get("/readyz", headers={"Accept-Language": "zh"}).get_json()
    assert zh["errors"]["metrics_dir"] == [f"{tmp_path / 'missing'} 不是可写的目录"]
    (tmp_path / "missing").mkdir()
    assert client.get("/readyz").status_code == 200


# --- CORS ---------------------------------------------------------------------------------------

def test_cors_preflight_on_score(client):
    r = client.options("/v1/score", headers={
        "Origin": "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, x-request-id",
    })
    assert r.status_code == 200
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in r.headers["Access-Control-Allow-Methods"]
    allowed = {h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "x-request-id"} <= allowed
    assert r.headers["Access-Control-Max-Age"] == "600"
    assert "Access-Control-Allow-Credentials" not in r.headers


def test_cors_on_score_response_exposes_the_request_id(client):
    r = client.post("/v1/score", json=API_MD, headers={"Origin": "https://app.example"})
    assert r.status_code == 200
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    assert "x-request-id" in r.headers["Access-Control-Expose-Headers"].lower()
    # errors too: a browser must be able to read a problem
    r = client.post("/v1/score", data="{", content_type="application/json", headers={"Origin": "https://app.example"})
    assert r.status_code == 400 and r.headers["Access-Control-Allow-Origin"] == "*"
    r = client.get("/v1/rules", headers={"Origin": "https://app.example"})
    assert r.headers["Access-Control-Allow-Origin"] == "*"


def test_no_cors_outside_v1(client):
    for path in ("/healthz", "/metrics", "/readyz", "/openapi.yaml"):
        r = client.get(path, headers={"Origin": "https://app.example"})
        assert "Access-Control-Allow-Origin" not in r.headers, path
    r = scrape(Origin="https://app.example")
    assert r.status_code == 200 and "Access-Control-Allow-Origin" not in r.headers


def test_cors_preflight_accepts_trace_context():
    # W3C trace context: a browser app that traces its calls sends traceparent and tracestate
    r = create_app().test_client().options("/v1/score", headers={
        "Origin": "https://app.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, traceparent, tracestate"})
    assert r.status_code == 200 and r.headers["Access-Control-Allow-Origin"] == "*"
    allowed = {h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "traceparent", "tracestate"} <= allowed


@pytest.mark.parametrize("origins", ["*", ["https://a.example", "https://b.example"]])
def test_cors_origins_are_configurable(origins):
    client = create_app({"CORS_ORIGINS": origins}).test_client()
    for origin in ("https://a.example", "https://elsewhere.example"):
        r = client.get("/v1/rules", headers={"Origin": origin})
        allowed = r.headers.get("Access-Control-Allow-Origin")
        if origins == "*":
            assert allowed == "*"
        else:
            assert allowed == (origin if origin in origins else None), (origin, allowed)


def test_cors_is_plain_flask_cors():
    # nothing wraps flask-cors's after_request function or hides state in the environ
    funcs = create_app().after_request_funcs[None]
    assert any(f.__name__ == "cors_after_request" for f in funcs)
    from service.observability import headers

    assert not any(hasattr(module, name) for module in (observability, headers, obs_metrics)
                   for name in ("RememberedCors", "ENV_CORS"))


# --- security headers ---------------------------------------------------------------------------

EXPECTED_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def test_security_headers_on_every_response(client):
    responses = {
        "healthz": client.get("/healthz"),
        "score 200": client.post("/v1/score", json=API_MD),
        "score 400": client.post("/v1/score", data="{", content_type="application/json"),
        "score 415": client.post("/v1/score", data="{}", content_type="text/plain"),
        "score 413": client.post("/v1/score", data="x" * (70 * 1024), content_type="application/json"),
        "404": client.get("/nowhere"),
        "405": client.put("/v1/score"),
        "rules": client.get("/v1/rules"),
        "docs": client.get("/docs"),
        "docs js": client.get("/docs/swagger-initializer.js"),
        "swagger css": client.get("/docs/static/swagger-ui.css"),
        "openapi": client.get("/openapi.yaml"),
        "metrics": client.get("/metrics"),
        "readyz": client.get("/readyz"),
        "preflight": client.options("/v1/score", headers={"Origin": "https://a.example",
                                                          "Access-Control-Request-Method": "POST"}),
    }
    for name, r in responses.items():
        assert r.status_code < 500, name
        for header, expected in EXPECTED_HEADERS.items():
            assert r.headers.get(header) == expected, (name, header, r.headers.get(header))
        csp = r.headers.get("Content-Security-Policy", "")
        directives = dict((d.strip().split(" ", 1) + [""])[:2] for d in csp.split(";") if d.strip())
        assert directives.get("default-src") == "'self'", (name, csp)
        assert directives.get("frame-ancestors") == "'none'", (name, csp)
        assert directives.get("object-src") == "'none'", (name, csp)
        assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp, (name, csp)
        assert "Strict-Transport-Security" not in r.headers, name  # plain http
        assert r.headers.get("X-Request-ID"), name


def test_hsts_only_over_https(app):
    r = app.test_client().get("/healthz", base_url="https://score.example")
    assert r.headers["Strict-Transport-Security"].startswith("max-age=31536000")


def test_no_debug_and_no_stack_trace(app, monkeypatch):
    import ningbo_score

    assert app.debug is False

    def boom(request):
        raise RuntimeError("secret internals at 0xdeadbeef")

    monkeypatch.setattr(ningbo_score, "score", boom)
    r = app.test_client().post("/v1/score", json=API_MD)
    assert r.status_code == 500 and r.mimetype == "application/problem+json"
    text = r.get_data(as_text=True)
    assert "Traceback" not in text and "secret internals" not in text and "deadbeef" not in text
    assert r.get_json()["code"] == "internal_error"


# --- the pages under the Content-Security-Policy, in Chromium -----------------------------------

@pytest.fixture(scope="module")
def live_server():
    with threaded_server(create_app()) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    try:
        from _chromium import chromium_path
    except ImportError:
        def chromium_path() -> str:
            return "/usr/bin/chromium"
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(),
                              args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        yield b
        b.close()


WATCH_CSP = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber);
});
"""


def open_watched(browser, url: str):
    ctx = browser.new_context()
    page = ctx.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    page.add_init_script(WATCH_CSP)
    response = page.goto(url)
    return ctx, page, response, console


def test_swagger_ui_works_under_the_csp(browser, live_server):
    ctx, page, response, console = open_watched(browser, live_server + "/docs")
    try:
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        ops = page.locator(".opblock")
        ops.first.wait_for(timeout=15000)
        assert ops.count() >= 3
        # try POST /v1/score with its example body and read the live answer
        score_op = page.locator(".opblock-post").filter(has_text="/v1/score").first
        score_op.locator(".opblock-summary").click()
        score_op.get_by_role("button", name="Try it out").click()
        score_op.locator("button.execute").click()
        code = score_op.locator(".live-responses-table .response .response-col_status").first
        code.wait_for(timeout=15000)
        assert code.inner_text().strip().startswith("200")
        # the logo's inline <style> is allowed by its hash, so it is applied
        fill = page.evaluate("""() => { const e = document.querySelector('.logo_small_svg__cls-3');
                                         return e ? getComputedStyle(e).fill : null; }""")
        assert fill in (None, "rgb(133, 234, 45)")
        assert page.evaluate("window.__cspViolations") == []
        assert not [c for c in console if "Content Security Policy" in c], console
    finally:
        ctx.close()


def test_calculator_page_works_under_the_csp(browser, live_server):
    ctx, page, response, console = open_watched(browser, live_server + "/")
    try:
        assert response.status == 200
        # the page fetched the presets from /v1/rules (connect-src 'self') and drew its palette
        page.locator("#palette button").first.wait_for(timeout=15000)
        # docs/rules.md §9 has five presets; the select is filled from GET /v1/rules
        page.locator("#preset option").nth(4).wait_for(state="attached", timeout=15000)
        assert page.locator("#preset option").count() == 5
        assert page.evaluate("window.__cspViolations") == []
        assert not [c for c in console if "Content Security Policy" in c], console
    finally:
        ctx.close()


# --- across gunicorn workers --------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gunicorn-obs")
    port, metrics_port = free_port(), free_port()
    prom = tmp / "prom"
    prom.mkdir()
    (prom / "counter_99999.db").write_bytes(b"stale")  # left by an earlier run: on_starting removes it
    log_path = tmp / "gunicorn.log"
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "WEB_CONCURRENCY": "2",
           "METRICS_PORT": str(metrics_port), "PROMETHEUS_MULTIPROC_DIR": str(prom)}
    log = open(log_path, "wb")
    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "gunicorn"), "-c", "gunicorn.conf.py", "app:app"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, log_path.read_text()
        try:
            if get(base + "/readyz")[0] == 200:
                break
        except OSError:
            pass
        assert time.monotonic() < deadline, log_path.read_text()
        time.sleep(0.2)
    yield base, proc, prom, log_path, f"http://127.0.0.1:{metrics_port}"
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    log.close()


def worker_pids(master: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{master}/task").iterdir():
        out |= {int(p) for p in (task / "children").read_text().split()}
    return out


def test_metrics_add_up_across_workers_and_restarts(gunicorn):
    """Counts made by workers that are gone still add up, whichever worker answers the scrape:
    40 requests, then every worker is replaced (SIGHUP), then the new workers (which counted
    nothing themselves) report all 40."""
    base, proc, prom, _, metrics_base = gunicorn
    assert not (prom / "counter_99999.db").exists()  # on_starting removed the stale file
    n = 40
    threads = [threading.Thread(target=lambda: get(base + "/v1/rules/ningbo")) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    route = dict(route="/v1/rules/<preset>", method="GET", status="200")

    def scrape() -> dict:
        status, _, body = get(metrics_base + "/metrics")
        assert status == 200
        return samples(body.decode())

    for _ in range(4):
        assert value(scrape(), "ningbo_score_http_requests_total", **route) == n

    old = worker_pids(proc.pid)
    assert len(old) == 2
    proc.send_signal(signal.SIGHUP)  # gunicorn: start new workers, stop the old ones gracefully
    deadline = time.monotonic() + 30
    while True:
        now = worker_pids(proc.pid)
        if len(now) == 2 and not (now & old):
            break
        assert time.monotonic() < deadline, (old, now)
        time.sleep(0.2)
    deadline = time.monotonic() + 10
    while get(base + "/readyz")[0] != 200:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    for _ in range(4):
        snap = scrape()
        assert value(snap, "ningbo_score_http_requests_total", **route) == n
        assert value(snap, "ningbo_score_http_request_duration_seconds_count", **route) == n
        # only live workers count in the in-progress gauge, and the scrape is none of theirs
        # (the master answers it): nothing is in progress
        assert value(snap, "ningbo_score_http_requests_in_progress") == 0
    # child_exit dropped the old workers' live-gauge files and folded the rest into the archive
    # files (the 40 above are in them): no file of an old worker is left
    names = {f.name for f in prom.iterdir()}
    assert not [name for name in names for pid in old if name.endswith(f"_{pid}.db")], names
    assert "counter_archive.db" in names and "histogram_archive.db" in names


def test_the_metrics_listener_answers_while_every_worker_is_stopped(gunicorn):
    """prometheus_client's server in the master: a scrape waits for no worker (here every
    worker is stopped, SIGSTOP), gzipped when the scraper takes gzip, OpenMetrics when it asks,
    with process_* of the master and each worker and python_info."""
    _, proc, _, _, metrics_base = gunicorn
    workers = worker_pids(proc.pid)
    for pid in workers:
        os.kill(pid, signal.SIGSTOP)
    try:
        status, headers, body = get(metrics_base + "/metrics", {"Accept-Encoding": "gzip"})
        status_om, headers_om, body_om = get(metrics_base + "/metrics", {
            "Accept": "application/openmetrics-text; version=1.0.0; charset=utf-8"})
    finally:
        for pid in workers:
            os.kill(pid, signal.SIGCONT)
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    text = gzip.decompress(body).decode()
    assert status_om == 200 and headers_om["Content-Type"].startswith("application/openmetrics-text")
    assert body_om.decode().endswith("# EOF\n")
    found = samples(text)
    roles = {dict(labels)["pid"]: dict(labels)["process"] for name, labels in found
             if name == "process_resident_memory_bytes"}
    assert roles == {str(proc.pid): "master", **{str(pid): "worker" for pid in workers}}
    assert any(name == "python_info" for name, _ in found)
    assert any(name == "ningbo_score_build_info" and dict(labels)["revision"] for name, labels in found)


def test_real_server_headers_and_json_logs(gunicorn):
    base, proc, prom, log_path, metrics_base = gunicorn
    status, headers, _ = get(base + "/healthz", {"X-Request-ID": "gunicorn-rid-1"})
    assert status == 200 and headers["X-Request-ID"] == "gunicorn-rid-1"
    assert headers.get("Server", "gunicorn") == "gunicorn"  # no version in the Server header
    assert headers["X-Content-Type-Options"] == "nosniff"
    status, _, _ = get(base + "/nowhere", {"X-Request-ID": "gunicorn-rid-2"})
    assert status == 404
    assert get(base + "/healthz", {"X-Request-ID": "gunicorn-rid-3", "traceparent": TRACEPARENT})[0] == 200
    # /metrics: on its own listener only, with the Host header of no help; the listener is
    # prometheus_client's, nothing of the app (its answer has none of the app's headers)
    assert get(base + "/metrics")[0] == 404
    assert get(base + "/metrics", {"Host": urlsplit(metrics_base).netloc})[0] == 404
    status, headers, _ = get(metrics_base + "/metrics")
    assert status == 200 and "X-Request-ID" not in headers
    time.sleep(0.5)
    lines = [text for text in log_path.read_text().splitlines() if text.strip()]
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            pytest.fail(f"not a JSON log line: {line!r}")
    access = [p for p in parsed if p.get("logger") == "gunicorn.access"]
    hit = [p for p in access if p.get("request_id") == "gunicorn-rid-1"]
    assert len(hit) == 1 and hit[0]["path"] == "/healthz" and hit[0]["status"] == 200
    assert hit[0]["method"] == "GET" and hit[0]["duration_ms"] >= 0
    traced = [p for p in access if p.get("request_id") == "gunicorn-rid-3"]
    assert len(traced) == 1 and traced[0]["trace_id"] == TRACE_ID
    problem = [p for p in parsed if p.get("request_id") == "gunicorn-rid-2"]
    assert {p["logger"] for p in problem} == {"gunicorn.access", "ningbo_score.http"}
    assert any(p["logger"] == "gunicorn.error" for p in parsed)  # boot lines are JSON too


def test_refused_hands_of_a_batch_are_counted_by_code():
    # a batch of one good hand and two refused ones (a 13-tile hand: wrong_tile_count; an unknown
    # seat: invalid_request) answers 200, and /metrics counts the two refusals by their code
    import copy

    from service import create_app
    from service.observability.readiness import READY_HAND

    client = create_app({"TESTING": False}).test_client()
    short = copy.deepcopy(READY_HAND)
    short["hand"]["concealed"] = short["hand"]["concealed"][:-1]
    bad_seat = dict(READY_HAND, seat_wind="X")
    before = scrape().get_data(as_text=True)
    answer = client.post("/v1/score/batch", json={"requests": [READY_HAND, short, bad_seat]})
    assert answer.status_code == 200 and answer.get_json()["failed"] == 2
    after = scrape().get_data(as_text=True)

    def count(text, code):
        line = next((ln for ln in text.splitlines() if ln.startswith("ningbo_score_errors_total{")
                     and 'route="/v1/score/batch"' in ln and f'code="{code}"' in ln), None)
        return float(line.rsplit(" ", 1)[1]) if line else 0.0

    assert count(after, "wrong_tile_count") == count(before, "wrong_tile_count") + 1
    assert count(after, "invalid_request") == count(before, "invalid_request") + 1
