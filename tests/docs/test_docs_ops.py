"""docs/operations.md, docs/api.md and the README against what the service runs with: the limits
table against gunicorn.conf.py and service/routes.py, the /readyz body against the API description, no
`GET /metrics` on the public port (a 404 there), one Docker tag: the version's."""
from __future__ import annotations

import json
import re
import runpy

import pytest
import yaml

import ningbo_score
from service import create_app, routes
from conftest import ROOT

OPERATIONS = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")


def limits_table() -> dict[str, tuple[str, str]]:
    """{limit: (value, where)} of the table of "Limits and bounded work"."""
    section = OPERATIONS.split("## Limits and bounded work", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split(" | ")]
            for line in section.splitlines() if line.startswith("| ")]
    assert rows[0] == ["limit", "value", "where"], rows[0]
    return {limit: (value, where) for limit, value, where in rows[1:]}


@pytest.fixture(scope="module")
def conf() -> dict:
    """gunicorn.conf.py as gunicorn reads it (what `make run` and the image run with)."""
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def test_the_header_limits_are_gunicorn_s(conf):
    value, where = limits_table()["request line / header count / header size"]
    assert where == "gunicorn.conf.py"
    line, count, size = (int(n) for n in re.fullmatch(
        r"(\d+) B \(414\) / (\d+) \(431\) / (\d+) B each \(431\)", value).groups())
    assert (line, count, size) == (conf["limit_request_line"], conf["limit_request_fields"],
                                   conf["limit_request_field_size"])


def test_the_worker_limits_are_gunicorn_s(conf):
    table = limits_table()
    assert table["worker timeout (a stuck worker is killed and replaced)"] == (f"{conf['timeout']} s",
                                                                               "gunicorn.conf.py")
    assert table["graceful shutdown (in-flight requests finish)"] == (f"{conf['graceful_timeout']} s",
                                                                      "gunicorn.conf.py")
    assert table["worker recycling"] == (f"every {conf['max_requests']:,} ± {conf['max_requests_jitter']:,} requests",
                                         "gunicorn.conf.py")


def test_the_body_limits_are_the_app_s():
    """The limits table says the route table's limits, each route over the app's named (it once
    named /v1/score/batch alone while /v1/replay/batch and /v1/sessions/settle took 1 MiB too)."""
    from tools.gen_openapi import body_limits

    value, where = limits_table()["request body"]
    assert where.startswith("service/routes.py")
    assert value.startswith(f"{body_limits()}, else 413 `payload_too_large`")
    larger = [r for r in routes.ROUTES if r.max_body is not None and r.max_body > routes.MAX_BODY_BYTES]
    assert {r.path for r in larger} == {"/v1/score/batch", "/v1/sessions/settle", "/v1/replay/batch"}
    assert all(f"`{r.method} {r.path}`" in value for r in larger)


def test_the_readyz_body_is_the_api_s():
    documented = re.search(r"`GET /readyz` answers 200\s+`(\{.*?\})`", OPERATIONS, re.S).group(1)
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    example = spec["paths"]["/readyz"]["get"]["responses"]["200"]["content"]["application/json"]["examples"]
    assert json.loads(documented) == example["ready"]["value"]


def test_metrics_are_not_documented_on_the_public_port():
    assert create_app().test_client().get("/metrics").status_code == 404
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert "`GET /metrics`" not in api and "/metrics` is a 404 here" in api
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    assert "/metrics" not in spec["paths"]
    assert "`/metrics` is a 404 here" in spec["info"]["description"]


def test_one_docker_tag_the_version():
    tags = set()
    for path in ("README.md", "docs/operations.md", "Dockerfile", "deploy/README.md"):
        tags |= set(re.findall(r"ningbo-score:(\d+\.\d+\.\d+)", (ROOT / path).read_text(encoding="utf-8")))
    assert tags == {ningbo_score.__version__}
