"""Content codings, representations and byte ranges (issue 41's low points): ``q=0`` refuses a
coding for every kind of answer, a content-encoded request body is refused, openapi.yaml and the
rule book are compressed once and their 304 touches no body, each representation of a file has
its own ETag, and ``bytes=-0`` is a 416."""
from __future__ import annotations

import pytest

from service import create_app, factory
from tools import examples

#: one answer of each kind: the app's JSON (Flask-Compress), a cacheable document, the page, a
#: file of the page (WhiteNoise), a file of the docs page (WhiteNoise)
PATHS = ["/v1/rules", "/openapi.yaml", "/", "/static/calc.js", "/docs/static/swagger-ui.css"]


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": False}).test_client()


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("accept", ["gzip;q=0", "gzip;q=0, identity", "br;q=0, gzip;q=0, zstd;q=0",
                                    "*;q=0, identity", "gzip; q=0.0", "*, gzip;q=0, br;q=0, zstd;q=0"])
def test_a_coding_refused_with_q_0_is_never_sent(client, path, accept):
    response = client.get(path, headers={"Accept-Encoding": accept})
    assert response.status_code == 200
    assert "Content-Encoding" not in response.headers, (path, accept, response.headers.get("Content-Encoding"))


@pytest.mark.parametrize("path", PATHS)
def test_gzip_is_still_sent_to_a_client_that_takes_it(client, path):
    response = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert response.headers["Content-Encoding"] == "gzip", path


@pytest.mark.parametrize("header, expected", [
    ("gzip;q=0", ""),
    ("gzip;q=0.5, br;q=0.9", "gzip;q=0.5, br;q=0.9"),        # preferences kept
    ("*;q=0.3, gzip;q=0", "br;q=0.3, zstd;q=0.3"),           # * stands for the others only
    ("identity, gzip;q=0", "identity"),
    ("gzip;q=x", ""),                                         # an unreadable q: not acceptable
])
def test_accepted_codings(header, expected):
    assert factory.accepted_codings(header) == expected


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "gzip, identity"])
def test_a_content_encoded_body_is_refused_unread(client, coding):
    """Plain JSON labelled ``Content-Encoding: gzip`` was read as it was; a compressed body is
    never inflated.  Either way: 415, before the body is read."""
    for lang, words in (("en", "must not be content-encoded"), ("zh-CN", "不能经过内容编码")):
        response = client.post("/v1/score", json=examples.API_MD,
                               headers={"Content-Encoding": coding, "Accept-Language": lang})
        assert response.status_code == 415
        problem = response.get_json()
        assert problem["code"] == "unsupported_media_type" and words in problem["detail"], problem
    identity = client.post("/v1/score", json=examples.API_MD, headers={"Content-Encoding": "identity"})
    assert identity.status_code == 200


@pytest.mark.parametrize("path", ["/openapi.yaml", "/v1/rules", "/v1/rules/ningbo"])
def test_a_document_is_compressed_once_and_its_304_touches_no_body(client, path, monkeypatch):
    """openapi.yaml (226 KB) was gzipped by Flask-Compress on every request, and its 304 cost as
    much as its 200 (the ETag compared after compressing)."""
    first = client.get(path, headers={"Accept-Encoding": "gzip"})     # made (and cached) here
    import flask_compress.flask_compress as fc

    calls = []
    real = fc._compress_data
    monkeypatch.setattr(fc, "_compress_data", lambda *a, **k: calls.append(1) or real(*a, **k))
    for _ in range(3):
        again = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert again.get_data() == first.get_data() and again.headers["Content-Encoding"] == "gzip"
        not_modified = client.get(path, headers={"Accept-Encoding": "gzip", "If-None-Match": first.headers["ETag"]})
        assert not_modified.status_code == 304 and not_modified.get_data() == b""
        assert not_modified.headers["ETag"] == first.headers["ETag"]
    assert calls == []
    plain = client.get(path, headers={"Accept-Encoding": "identity"})
    assert plain.headers["ETag"] != first.headers["ETag"]                 # two representations
    assert client.get(path, headers={"If-None-Match": plain.headers["ETag"]}).status_code == 304
    # the gzip form's tag does not validate the plain form, nor the other way round
    assert client.get(path, headers={"If-None-Match": first.headers["ETag"]}).status_code == 200


@pytest.mark.parametrize("path", ["/", "/static/calc.js", "/docs/static/swagger-ui.css"])
def test_the_plain_and_gzip_forms_of_a_file_have_different_etags(client, path):
    plain = client.get(path, headers={"Accept-Encoding": "identity"})
    packed = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain.headers
    assert plain.headers["ETag"] != packed.headers["ETag"]
    for tag, coding in ((plain.headers["ETag"], "identity"), (packed.headers["ETag"], "gzip")):
        assert client.get(path, headers={"Accept-Encoding": coding, "If-None-Match": tag}).status_code == 304
    # a tag of the other representation is no match: the body is sent
    assert client.get(path, headers={"Accept-Encoding": "gzip",
                                     "If-None-Match": plain.headers["ETag"]}).status_code == 200


@pytest.mark.parametrize("path", ["/static/calc.js", "/docs/static/swagger-ui.css"])
def test_byte_ranges_as_rfc_9110_has_them(client, path):
    whole = client.get(path, headers={"Accept-Encoding": "identity"}).get_data()
    size = len(whole)

    def ask(spec: str):
        return client.get(path, headers={"Range": spec, "Accept-Encoding": "identity"})

    empty = ask("bytes=-0")                   # the last 0 bytes: nothing to send
    assert empty.status_code == 416 and empty.headers["Content-Range"] == f"bytes */{size}"
    assert ask(f"bytes={size}-").status_code == 416                  # starts past the end
    one = ask("bytes=5-5")
    assert one.status_code == 206 and one.get_data() == whole[5:6]
    tail = ask("bytes=-10")
    assert tail.status_code == 206 and tail.get_data() == whole[-10:]
    assert tail.headers["Content-Range"] == f"bytes {size - 10}-{size - 1}/{size}"
    assert ask("bytes=10-5").status_code == 200                       # invalid: ignored
