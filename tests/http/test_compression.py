"""Small answers on slow networks (issue 25): compressed when the client accepts it and the body
is worth it (Flask-Compress), ``Vary`` and ``Content-Language`` where the answer depends on the
request's headers, and ``ETag``/``Cache-Control`` with 304 on what only a release changes."""
from __future__ import annotations

import gzip
import re
import types
from pathlib import Path

import brotli
import pytest
from backports import zstd

from tools import examples

DECODE = {"gzip": gzip.decompress, "br": brotli.decompress, "zstd": zstd.decompress}

#: one request of each kind of answer: (method, path, JSON body or None)
ANSWERS = [
    ("POST", "/v1/score", examples.API_MD),
    ("POST", "/v1/waits", next(iter(examples.WAITS_EXAMPLES.values()))[1]),
    ("POST", "/v1/analyze", next(iter(examples.ANALYZE_EXAMPLES.values()))[1]),
    ("POST", "/v1/score/batch", next(iter(examples.BATCH_EXAMPLES.values()))[1]),
    ("GET", "/v1/rules", None),
    ("GET", "/v1/rules/ningbo", None),
    ("GET", "/v1/levels", None),
    ("GET", "/openapi.yaml", None),
]


@pytest.fixture
def plain(app):
    """The app's own test client (the checked one validates bodies, which these are not)."""
    return app.test_client()


def ask(plain, method: str, path: str, body, **headers):
    return plain.open(path, method=method, json=body, headers=headers)


@pytest.mark.parametrize(("method", "path", "body"), ANSWERS, ids=[f"{m} {p}" for m, p, _ in ANSWERS])
def test_an_answer_is_gzipped_when_the_client_takes_gzip(plain, method, path, body):
    identity = ask(plain, method, path, body)
    assert identity.status_code == 200 and "Content-Encoding" not in identity.headers
    assert len(identity.data) >= 500          # worth compressing (COMPRESS_MIN_SIZE)
    zipped = ask(plain, method, path, body, **{"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert int(zipped.headers["Content-Length"]) == len(zipped.data) < len(identity.data) * 0.6
    assert gzip.decompress(zipped.data) == identity.data
    assert "Accept-Encoding" in zipped.headers["Vary"] and "Accept-Encoding" in identity.headers["Vary"]


@pytest.mark.parametrize(("accept", "coding"), [
    ("br", "br"), ("zstd", "zstd"), ("gzip;q=0.5, br;q=0.9", "br"),
    ("gzip, deflate, br, zstd", "gzip"),      # a tie (a browser's header): gzip, the fastest here
    ("identity", None), ("deflate", None), ("", None),
])
def test_the_coding_is_the_one_the_client_prefers(plain, accept, coding):
    identity = ask(plain, "GET", "/v1/rules", None)
    got = ask(plain, "GET", "/v1/rules", None, **{"Accept-Encoding": accept})
    assert got.headers.get("Content-Encoding") == coding
    assert (DECODE[coding](got.data) if coding else got.data) == identity.data


def test_a_small_answer_is_sent_as_it_is(plain):
    got = plain.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert got.status_code == 200 and "Content-Encoding" not in got.headers and got.get_json() == {"status": "ok"}


def test_an_answer_in_the_request_s_language_says_so(plain):
    for lang, header in (("en", None), ("zh", "zh-CN,zh;q=0.9"), ("en", "en-GB,zh;q=0.5")):
        headers = {"Accept-Language": header} if header else {}
        scored = plain.post("/v1/score", json=examples.API_MD, headers=headers)
        refused = plain.post("/v1/score", json=examples.WRONG_TILE_COUNT, headers=headers)
        missing = plain.get("/v1/rules/nowhere", headers=headers)
        for answer in (scored, refused, missing):
            assert answer.headers["Content-Language"] == lang
            assert {"Accept-Language", "Accept-Encoding"} <= {v.strip() for v in answer.headers["Vary"].split(",")}
    # the rule book is the same in every language: no Content-Language, no Vary on it
    rules = plain.get("/v1/rules", headers={"Accept-Language": "zh"})
    assert "Content-Language" not in rules.headers and "Accept-Language" not in rules.headers["Vary"]


def test_the_route_table_says_which_answers_speak_the_request_s_language(plain):
    """Each operation's 200 carries Content-Language and Vary: Accept-Language exactly when its
    Route says ``localized`` (no second list beside the table); /v1/replay and /v1/replay/batch
    answer in the request's language (their score's reasons) and say so (issue 38)."""
    from service.routes import ROUTES
    from tools.gen_openapi import example_set

    localized = {r.path for r in ROUTES if r.localized}
    assert {"/v1/replay", "/v1/replay/batch", "/v1/score", "/v1/waits"} <= localized
    # docs/api.md's list is the table's
    api = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    said = api.split("- **Language.**", 1)[1].split("- **", 1)[0]
    assert set(re.findall(r"`(/v1/[\w/]+)`", said)) == localized
    for route in ROUTES:
        if route.operation is None:
            continue
        name, (_, body, how) = next(iter(example_set(route).items()))
        if "answer" in how:                                   # (readiness: not asked of the app)
            continue
        headers = {"Accept-Language": "zh", "Accept-Encoding": "identity"}
        if route.request is None:
            answer = plain.open(route.path.format(**(body or {})), method=route.method, headers=headers)
        else:
            answer = plain.open(route.path, method=route.method, json=body, headers=headers)
        assert answer.status_code == 200, (route.path, name)
        assert answer.headers.get("Content-Language") == ("zh" if route.localized else None), route.path
        assert ("Accept-Language" in answer.headers.get("Vary", "")) == route.localized, route.path


@pytest.mark.parametrize("path", ["/v1/rules", "/v1/rules/ningbo", "/v1/rules/ningbo-456", "/openapi.yaml"])
@pytest.mark.parametrize("coding", [None, "gzip"])
def test_what_a_release_changes_is_cached_and_revalidated(plain, path, coding):
    headers = {"Accept-Encoding": coding} if coding else {}
    first = plain.get(path, headers=headers)
    assert first.status_code == 200 and first.headers["Cache-Control"] == "public, max-age=300"
    etag = first.headers["ETag"]
    assert etag.startswith('"') and etag.endswith(f':{coding}"' if coding else '"')
    again = plain.get(path, headers={**headers, "If-None-Match": etag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == etag
    other = plain.get(path, headers={**headers, "If-None-Match": '"0123"'})
    assert other.status_code == 200 and other.data == first.data
    # the same body, the same validator: another worker or a restart answers 304 too
    assert plain.get(path, headers=headers).headers["ETag"] == etag


@pytest.mark.parametrize("path", ["/v1/rules/ningbo-456", "/openapi.yaml"])
def test_the_same_body_is_the_same_gzip_bytes_at_any_time(plain, monkeypatch, path):
    """The cause of the revalidation test's one failure on a fresh clone: gzip's header held the
    second of compression (RFC 1952 MTIME), so the same answer asked across a second's boundary
    came out as other bytes under the same strong ETag.  Two clocks a day apart give the same
    bytes now, with no time stamp (MTIME 0)."""
    answers = []
    for now in (1_800_000_000.0, 1_800_086_400.0):
        monkeypatch.setattr(gzip, "time", types.SimpleNamespace(time=lambda now=now: now))  # gzip's clock only
        answers.append(plain.get(path, headers={"Accept-Encoding": "gzip"}))
    one, two = answers
    assert one.headers["Content-Encoding"] == two.headers["Content-Encoding"] == "gzip"
    assert one.data[4:8] == b"\0\0\0\0" and one.data == two.data and one.headers["ETag"] == two.headers["ETag"]
    assert gzip.decompress(one.data) == plain.get(path).data


def test_the_rule_book_s_etag_follows_its_bytes(plain):
    one, two = plain.get("/v1/rules/ningbo"), plain.get("/v1/rules/ningbo-7baida")
    assert one.headers["ETag"] != two.headers["ETag"]
    assert plain.get("/v1/rules/ningbo", headers={"If-None-Match": two.headers["ETag"]}).status_code == 200


def test_an_answer_for_one_request_has_no_validator(plain):
    scored = plain.post("/v1/score", json=examples.API_MD)
    assert "ETag" not in scored.headers and "Cache-Control" not in scored.headers


def test_the_docs_page_files_are_gzipped(client):
    """/docs's Swagger UI files (the bundle is over 1 MB) go gzipped to a client that takes gzip
    (WhiteNoise, from copies made once at start), and plain to one that doesn't."""
    plain = client.get("/docs/static/swagger-ui-bundle.js")
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    packed = client.get("/docs/static/swagger-ui-bundle.js", headers={"Accept-Encoding": "gzip"})
    assert packed.status_code == 200 and packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.data) == plain.data
    assert len(packed.data) < len(plain.data) / 3
    assert client.get("/docs/static/no-such-file.js").status_code == 404
