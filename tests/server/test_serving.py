"""The server against unlucky and hostile clients (service/serving.py, gunicorn.conf.py, service/bodies.py's body
reading): the real gunicorn with the project's gunicorn.conf.py on a free loopback port, with
short deadlines (HEADER_TIMEOUT=1, IO_TIMEOUT=1, BODY_TIMEOUT=2 s, keep-alive 1 s) so that each
runs out within the test.  How much load it stands is measured by bench/attack.py, not here."""
from __future__ import annotations

import json
import random
import re
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from service import create_app, gunicorn_patches, heavy, http_strict, serving, turns
from service.settings import current
from conftest import gunicorn_server
from tools import examples

import handgen  # noqa: E402

DEADLINES = {"HEADER_TIMEOUT": "1", "IO_TIMEOUT": "1", "BODY_TIMEOUT": "2", "WRITE_TIMEOUT": "1",
             "GUNICORN_CMD_ARGS": "--keep-alive 1"}
POST_ROUTES = sorted(rule.rule for rule in create_app().url_map.iter_rules() if "POST" in rule.methods)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("serving") / "gunicorn.log"
    with gunicorn_server(DEADLINES, log_path=log) as (base, proc):
        parts = urlsplit(base)
        yield (parts.hostname, parts.port), log, proc


def connect(addr, timeout: float = 10) -> socket.socket:
    return socket.create_connection(addr, timeout=timeout)


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (a reset after an answer ends it too)."""
    data = b""
    try:
        while part := sock.recv(65536):
            data += part
    except ConnectionResetError:
        pass
    return data


def answer(data: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
    return int(lines[0].split()[1]), headers, body


def exchange(addr, data: bytes, half_close: bool = False) -> tuple[int, dict[str, str], bytes]:
    with connect(addr) as s:
        s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        return answer(read_all(s))


def get(addr, path: str = "/healthz") -> tuple[int, float]:
    started = time.monotonic()
    status, _, _ = exchange(addr, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    return status, time.monotonic() - started


def chunked_head(path: str) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n").encode()


def assert_problem(status: int, headers: dict, body: bytes, expected_status: int,
                   code: str = "invalid_request") -> dict:
    assert status == expected_status, (status, body[:300])
    assert headers["content-type"] == "application/problem+json", headers
    problem = json.loads(body)
    assert problem["status"] == expected_status and problem["code"] == code, problem
    return problem


def server_errors(log: Path) -> list[str]:
    """Lines of the error log that tell of a 5xx or an unhandled exception."""
    text = Path(str(log) + ".err").read_text()
    return [line for line in text.splitlines()
            if '"status": 5' in line or '"status":5' in line or "Traceback" in line or "Error handling" in line]


# --- framing -----------------------------------------------------------------------------------

FRAMINGS = {
    "bad size": (b"zz\r\n{}\r\n0\r\n\r\n", False),
    "bad extension": (b"2;\x01\r\n{}\r\n0\r\n\r\n", False),
    "missing terminator": (b"2\r\n{}XX0\r\n\r\n", False),
    "disconnect mid-chunk": (b"10\r\n{}", True),          # 16 bytes announced, 2 sent, then EOF
}


def test_the_post_routes_are_known():
    # the routes below are the app's own list; the API's POST routes are all in it
    assert {"/v1/score", "/v1/score/batch", "/v1/waits", "/v1/table/next"} <= set(POST_ROUTES)


@pytest.mark.parametrize("framing", sorted(FRAMINGS))
@pytest.mark.parametrize("path", POST_ROUTES)
def test_malformed_chunked_framing_is_a_400_problem(server, path, framing):
    addr, log, _ = server
    body, half_close = FRAMINGS[framing]
    problem = assert_problem(*exchange(addr, chunked_head(path) + body, half_close), 400)
    expected = "ended before" if framing == "disconnect mid-chunk" else "chunked body is malformed"
    assert expected in problem["detail"], problem


def test_no_framing_error_was_a_5xx(server):
    addr, log, _ = server
    for body, half_close in FRAMINGS.values():
        exchange(addr, chunked_head("/v1/score") + body, half_close)
    time.sleep(0.3)
    assert server_errors(log) == []


def test_a_body_shorter_than_its_length_is_a_400(server):
    addr, _, _ = server
    data = (b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n"
            b'{"rules":')
    problem = assert_problem(*exchange(addr, data, half_close=True), 400)
    assert "ended before" in problem["detail"]


def test_a_large_body_is_read_whole_or_refused_when_cut_short(server):
    """A body over app.READ_PART_BYTES is read a part at a time into one buffer: a batch of
    several parts is scored like any other, and one that ends before its length is a 400."""
    addr, _, _ = server
    batch = heavy_batch(11)
    body = batch[:-1] + b" " * (3 * 65536) + b"}"              # three parts and more of blanks
    assert len(body) > 3 * 65536
    status, _, answer_ = exchange(addr, post("/v1/score/batch", body))
    assert status == 200 and json.loads(answer_)["ok"] == 200
    head = (f"POST /v1/score/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    problem = assert_problem(*exchange(addr, head + body[:-70000], half_close=True), 400)
    assert "ended before" in problem["detail"]


# --- gunicorn's own refusals as problem+json --------------------------------------------------------

@pytest.mark.parametrize("request_bytes, status", [
    (b"GE\x01T / HTTP/1.1\r\nHost: x\r\n\r\n", 400),                                  # a bad method
    (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),                  # line over 4094
    (b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(40)) + b"\r\n", 431),
    (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 5000 + b"\r\n\r\n", 431),       # field over 4094
    (b"GET / HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n", 400),                       # a space in a name
])
def test_gunicorn_refusals_are_problems(server, request_bytes, status):
    addr, _, _ = server
    assert_problem(*exchange(addr, request_bytes), status)


def test_server_problem_statuses():
    from gunicorn.http import errors

    assert http_strict.server_problem(errors.LimitRequestLine(5000, 4094))[0] == 414
    assert http_strict.server_problem(errors.LimitRequestHeaders("x"))[0] == 431
    assert http_strict.server_problem(errors.InvalidChunkSize(b"zz"))[0] == 400
    assert http_strict.server_problem(errors.InvalidRequestMethod("GE\x01T"))[0] == 400
    assert http_strict.server_problem(ValueError("a bug"))[0] == 500


# --- redirects ----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["//v1//rules", "/v1//rules", "//healthz", "/v1/rules/", "/docs/", "/docs",
                                  "//v1/rules/ningbo"])
def test_no_redirect_to_a_foreign_host(path):
    r = create_app().test_client().get(path, headers={"Host": "evil.example"})
    assert not 300 <= r.status_code < 400 or "evil.example" not in r.headers.get("Location", ""), \
        (path, r.status_code, r.headers.get("Location"))
    assert "Location" not in r.headers, (path, r.status_code, r.headers.get("Location"))


def test_no_redirect_to_a_foreign_host_over_http(server):
    addr, _, _ = server
    status, headers, body = exchange(
        addr, b"GET //v1//rules HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
    assert status == 404 and "location" not in headers
    assert json.loads(body)["code"] == "not_found"


# --- slow, idle and non-reading clients --------------------------------------------------------------

def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Does the server close ``sock`` within ``seconds`` (without sending anything)?"""
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_slow_headers_are_cut_off_and_others_are_served_meanwhile(server):
    addr, _, _ = server
    slow = [connect(addr) for _ in range(20)]
    try:
        for s in slow:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHo")             # and nothing more
        for _ in range(5):
            status, took = get(addr)
            assert status == 200 and took < 1.0, took
        # HEADER_TIMEOUT is 1 s: closed without an answer soon after it
        assert all(closed_within(s, 3.0) for s in slow)
    finally:
        for s in slow:
            s.close()


def test_an_idle_connection_is_closed(server):
    addr, _, _ = server
    with connect(addr) as s:                                       # never sends a byte
        started = time.monotonic()
        assert closed_within(s, 5.0)
        assert 0.8 <= time.monotonic() - started < 3.0             # HEADER_TIMEOUT = 1 s
    with connect(addr) as s:                                       # kept alive after an answer
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while b'{"status":"ok"}' not in data:
            data += s.recv(4096)
        assert closed_within(s, 5.0)                               # keep-alive = 1 s


def test_a_body_that_stops_coming_is_408(server):
    addr, _, _ = server
    with connect(addr) as s:
        s.sendall(b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100\r\n\r\n" + b"{" + b" " * 9)   # 10 of 100 bytes, then silence
        started = time.monotonic()
        problem = assert_problem(*answer(read_all(s)), 408, "request_timeout")
        assert time.monotonic() - started < 3.0                    # IO_TIMEOUT = 1 s
    assert "stopped coming" in problem["detail"]


def test_a_body_trickling_past_the_body_deadline_is_408(server):
    addr, _, _ = server
    with connect(addr) as s:
        s.sendall(b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100\r\n\r\n{")
        started = time.monotonic()
        s.settimeout(0.4)
        data = b""
        for _ in range(20):                                        # a byte every 0.4 s: under IO_TIMEOUT
            try:
                s.sendall(b" ")
                data += s.recv(65536)
                break
            except TimeoutError:
                continue
            except OSError:
                break
        s.settimeout(5)
        data += read_all(s)
    took = time.monotonic() - started
    problem = assert_problem(*answer(data), 408, "request_timeout")
    assert "did not arrive within 2 s" in problem["detail"] and 1.5 <= took < 4.0, took


def heavy_batch(seed: int) -> bytes:
    rng = random.Random(seed)
    hands = [handgen.compact_form(handgen.random_request(rng, n_caishen=7, presets=("ningbo-7baida",)))
             for _ in range(200)]
    return json.dumps({"requests": hands}, separators=(",", ":")).encode()


def post(path: str, body: bytes, extra: str = "", close: bool = True) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"{extra}{'Connection: close' + chr(13) + chr(10) if close else ''}\r\n").encode() + body


def test_clients_that_never_read_do_not_block_the_others(server):
    addr, _, _ = server
    body = heavy_batch(3)
    body += b" " * (1024 * 1024 - len(body))                       # a 1 MiB batch
    hogs = []
    try:
        for _ in range(4):
            s = connect(addr)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(post("/v1/score/batch", body))
            hogs.append(s)                                         # never read
        for _ in range(5):
            status, took = get(addr)
            assert status == 200 and took < 1.0, took
    finally:
        for s in hogs:
            s.close()


# --- connections and work -----------------------------------------------------------------------

def test_a_kept_alive_connection_is_closed_after_its_100th_request(server):
    addr, _, _ = server
    with connect(addr) as s:
        reader = s.makefile("rb")
        for n in range(1, serving.KEEPALIVE_REQUESTS + 1):
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            status_line = reader.readline()
            headers = {}
            while (line := reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            reader.read(int(headers["content-length"]))
            assert status_line.startswith(b"HTTP/1.1 200"), (n, status_line)
            assert headers["connection"] == ("close" if n == serving.KEEPALIVE_REQUESTS else "keep-alive"), n
        assert reader.read(1) == b""                               # and closed after it


def test_kept_alive_connections_take_turns(tmp_path):
    """A client that always has its next request waiting (here: 90 requests pipelined in one
    write) must not keep the worker to itself: a request that comes on another connection while
    the first one is served is answered after a few of its requests, not after all 90.  One
    worker, so that both connections are its; the access log is in the order of the answers."""
    log = tmp_path / "gunicorn.log"
    n = 90                                                          # under KEEPALIVE_REQUESTS
    assert n < serving.KEEPALIVE_REQUESTS
    with gunicorn_server({"WEB_CONCURRENCY": "1"}, log_path=log) as (base, _):
        parts = urlsplit(base)
        addr = (parts.hostname, parts.port)
        with connect(addr) as busy, connect(addr) as other:
            busy.sendall(b"".join(f"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: busy-{i}\r\n\r\n".encode()
                                  for i in range(n)))
            got = busy.recv(65536)                                  # the worker is serving it now
            other.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: other\r\nConnection: close\r\n\r\n")
            status, _, _ = answer(read_all(other))
            assert status == 200
            while got.count(b"HTTP/1.1 200") < n and (part := busy.recv(65536)):
                got += part
            assert got.count(b"HTTP/1.1 200") == n
        time.sleep(0.5)                                             # the access log is written
    order = [json.loads(line)["request_id"] for line in log.read_text().splitlines()
             if '"gunicorn.access"' in line and ('"busy-' in line or '"other"' in line)]
    assert len(order) == n + 1, order
    # without the turns: 'other' after every busy-i (index n); with them, soon after it came in:
    # within 5 on a quiet machine, 9 seen with two CPU hogs beside (the client that sends it may
    # wait its turn for the CPU while the worker answers busy-i): well before the middle
    assert order.index("other") < n // 2, order.index("other")


def test_batches_whose_client_has_gone_are_dropped(server):
    addr, log, _ = server
    for i in range(3):
        with connect(addr) as s:
            s.sendall(post("/v1/score/batch", heavy_batch(100 + i), f"X-Request-ID: gone-{i}\r\n"))
        # closed at once: the batch is dropped before its first hand or between two
    statuses = access_statuses(log, "gone-", 3)
    assert statuses == {"gone-0": 499, "gone-1": 499, "gone-2": 499}, statuses


def access_statuses(log: Path, prefix: str, n: int, deadline_s: float = 180) -> dict[str, int]:
    """{request id: status} of the access-log lines of the requests whose id starts with
    ``prefix``, once there are ``n`` of them (a loaded machine may take long to get there)."""
    deadline = time.monotonic() + deadline_s
    while True:
        lines = [json.loads(line) for line in log.read_text().splitlines() if f'"{prefix}' in line]
        statuses = {line["request_id"]: line["status"] for line in lines if line.get("logger") == "gunicorn.access"}
        if len(statuses) >= n or time.monotonic() > deadline:
            return statuses
        time.sleep(0.1)


def test_a_batch_is_answered_whole_when_its_client_stays(server):
    addr, _, _ = server
    status, _, body = exchange(addr, post("/v1/score/batch", heavy_batch(7)))
    answer_ = json.loads(body)
    assert status == 200 and answer_["ok"] == 200 and len(answer_["results"]) == 200


def test_turns_outside_gevent_do_nothing():
    # the Flask test client and any plain WSGI server: no waiting, a function that does nothing
    environ: dict = {}
    plain = turns.Turns()
    plain.take(environ, 10 * heavy.HEAVY_BODY_BYTES, heavy=True)
    assert heavy.TURN_ENV not in environ and environ == {}
    assert plain.between(environ)() is None
    assert not serving.client_gone({})


def test_client_gone_sees_a_closed_peer():
    a, b = socket.socketpair()
    try:
        assert not serving.client_gone({serving.SOCKET_ENV: a})
        b.sendall(b"GET / HTTP/1.1\r\n\r\n")                       # a pipelined request is no goodbye
        assert not serving.client_gone({serving.SOCKET_ENV: a})
        b.close()
        assert serving.client_gone({serving.SOCKET_ENV: a})
    finally:
        a.close()


def test_the_api_example_scores_over_the_server(server):
    addr, _, _ = server
    status, _, body = exchange(addr, post("/v1/score", json.dumps(examples.API_MD).encode()))
    # docs/api.md: 0 + 1 + 1 + 1 + 1 = 4 台; 1 × (1 + 4) = 5 points
    assert status == 200 and json.loads(body)["points"] == 5


def test_an_error_no_greenlet_caught_is_a_json_log_line():
    """gevent's hub would print such an error as a plain traceback on stderr, breaking the
    one-JSON-object-a-line logs: the worker logs it through its error log instead."""
    import gevent

    from service import serving

    class Log:
        def __init__(self):
            self.calls = []

        def error(self, message, *args, exc_info=None):
            self.calls.append((message % args, exc_info))

    worker = serving.ServingWorker.__new__(serving.ServingWorker)
    worker.log = Log()
    hub = gevent.get_hub()
    saved = hub.print_exception
    hub.print_exception = worker.log_greenlet_error
    try:
        gevent.spawn(lambda: 1 / 0).join()
    finally:
        hub.print_exception = saved
    ((message, exc_info),) = worker.log.calls
    assert message.startswith("Unhandled error in") and exc_info[0] is ZeroDivisionError


def test_a_connection_handled_after_its_listener_closed_is_still_served():
    """A connection accepted just before a stop (SIGHUP, SIGTERM) may start being handled after
    close_listeners closed the listening socket.  gunicorn's handle asks the listener its name
    first: with the socket itself that was EBADF, the connection dropped and the client reset
    (bench/attack.py's recycle scenario saw it: one probe in 441).  The handler is given the
    name, which answers after the close."""
    import socket

    from service import serving

    seen = []
    worker = serving.ServingWorker.__new__(serving.ServingWorker)
    worker.handle = lambda listener, client, addr: seen.append((listener.getsockname(), client, addr))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    name = listener.getsockname()
    handler = worker.handler_for(listener)
    listener.close()
    handler("client", ("127.0.0.1", 5))           # what the StreamServer calls for the connection
    assert seen == [(name, "client", ("127.0.0.1", 5))]


def test_a_refused_protocol_is_a_warning_line_not_an_error_traceback():
    """HTTP/1.2 (505) and Transfer-Encoding: gzip, chunked (501) refuse what the client sent:
    a warning line each, not an ERROR with a traceback (a 100-byte request made 2.5 KB of log);
    a real fault (500) keeps its traceback."""
    import gevent
    import gevent.socket

    from service import serving

    class Log:
        def __init__(self):
            self.lines = []

        def exception(self, message, *args):
            self.lines.append(("exception", message % args))

        def warning(self, message, *args):
            self.lines.append(("warning", message % args))

        def debug(self, message, *args):
            pass

    worker = serving.ServingWorker.__new__(serving.ServingWorker)
    for exc, status, level in ((http_strict.VersionNotSupported((1, 2)), b"505", "warning"),
                               (http_strict.BadTransferCoding("gzip, chunked"), b"501", "warning"),
                               (RuntimeError("a bug"), b"500", "exception")):
        worker.log = Log()
        ours, theirs = gevent.socket.socketpair()
        with ours:
            with theirs:
                answering = gevent.spawn(worker.handle_error, None, ours, ("127.0.0.1", 5), exc)
                theirs.settimeout(5)
                assert theirs.recv(65536).split(b" ")[1] == status
            answering.join(5)                     # (its linger ends when this end closes)
        assert [lvl for lvl, _ in worker.log.lines] == [level], worker.log.lines


# --- unread bodies, 100 Continue, strict HTTP, bounded framing (issue 26) -------------------------

def test_an_unread_body_closes_the_connection_after_the_answer(server):
    """A body the app does not read (a GET's, one over the cap) is not drained on a kept-alive
    connection (gunicorn's drain has no deadline): the answer says Connection: close, and the
    rest of the body is read for at most serving.LINGER_S / LINGER_BYTES."""
    addr, _, _ = server
    over = b"x" * (64 * 1024 + 1)
    cases = [
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + b"j" * 1000,
        post("/v1/score", over, close=False)[:300],                # 413 before the body is in
    ]
    for data in cases:
        with connect(addr) as s:
            s.sendall(data)
            s.settimeout(5)
            started = time.monotonic()
            reply = read_all(s)                  # the server closes (the client never sends the rest)
            status, headers, _ = answer(reply)
            assert headers["connection"] == "close", headers
            assert status in (200, 413)
            assert time.monotonic() - started < serving.LINGER_S + 1.5


def test_a_body_read_whole_keeps_the_connection(server):
    addr, _, _ = server
    body = json.dumps(examples.API_MD).encode()
    with connect(addr) as s:
        s.sendall(post("/v1/score", body, close=False) + post("/v1/score", body))
        replies = read_all(s)
    assert replies.count(b"HTTP/1.1 200 OK") == 2 and b"Connection: keep-alive" in replies


def test_100_continue_only_for_a_body_the_app_reads(server):
    addr, _, _ = server
    body = json.dumps(examples.API_MD).encode()
    with connect(addr) as s:
        s.sendall(post("/v1/score", body, extra="Expect: 100-continue\r\n")[:-len(body)])
        assert s.recv(100).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        s.sendall(body)
        assert b"HTTP/1.1 200 OK" in read_all(s)
    head = (b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 70000\r\nExpect: 100-continue\r\n\r\n")
    with connect(addr) as s:
        s.sendall(head)
        status, headers, body_ = answer(read_all(s))
    assert status == 413 and headers["connection"] == "close" and b"100 Continue" not in body_


@pytest.mark.parametrize("request_bytes, status", [
    (b"GET /healthz HTTP/1.2\r\nHost: x\r\n\r\n", 505),
    (b"GET /healthz HTTP/1.9\r\nHost: x\r\n\r\n", 505),
    (b"GET /healthz HTTP/1.1\r\n\r\n", 400),                                       # no Host
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400),
    (b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501),
    (b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501),
])
def test_strict_http(server, request_bytes, status):
    addr, _, _ = server
    status_, headers, body = exchange(addr, request_bytes)
    assert status_ == status, body
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body)["status"] == status
    assert "HTTP/1.2" not in read_status_line(addr, request_bytes)


def read_status_line(addr, data: bytes) -> str:
    with connect(addr) as s:
        s.sendall(data)
        return read_all(s).split(b"\r\n", 1)[0].decode()


def test_http_1_0_without_host_is_served(server):
    addr, _, _ = server
    status, _, _ = exchange(addr, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert status == 200


def test_no_server_header(server):
    addr, _, _ = server
    for data in (b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                 b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                 b"GET /static/calc.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"):
        status, headers, _ = exchange(addr, data)
        assert "server" not in headers, (status, headers)


@pytest.mark.parametrize("framing, why", [
    (b"FFFFFFFFFFFF\r\n{}", "over the largest body"),                 # a 281 TB chunk announced
    (b"2\r\n{}\r\n" + b"0" * 100 + b"1\r\n \r\n0\r\n\r\n", "size line over"),   # a long size line
    (b"1\r\n{\r\n" + b"1\r\n \r\n" * 5000 + b"1\r\n}\r\n0\r\n\r\n", f"more than {gunicorn_patches.MAX_CHUNKS} chunks"),
])
def test_chunked_framing_is_bounded(server, framing, why):
    """A chunk size past any body, a long size line or too many chunks: a 400 at once, not a
    wait for the announced bytes (the body deadline) or 6 MB on the wire for a 1 MiB body."""
    addr, _, _ = server
    started = time.monotonic()
    problem = assert_problem(*exchange(addr, chunked_head("/v1/score") + framing), 400)
    assert why in problem["detail"], problem
    assert time.monotonic() - started < 1.0


def test_an_answer_nobody_reads_is_dropped_at_its_write_deadline(tmp_path):
    """Answers pipelined to a client that reads nothing: with a socket timeout (IO_TIMEOUT) of
    60 s, the write deadline (WRITE_TIMEOUT=1 s + the answer's size over serving.MIN_WRITE_RATE:
    about 8 s for /openapi.yaml) is what resets the connection."""
    env = {**DEADLINES, "IO_TIMEOUT": "60", "WRITE_TIMEOUT": "1", "WEB_CONCURRENCY": "1"}
    with gunicorn_server(env, log_path=tmp_path / "g.log") as (base, _):
        parts = urlsplit(base)
        spec = b"GET /openapi.yaml HTTP/1.1\r\nHost: x\r\n\r\n"
        with connect((parts.hostname, parts.port)) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(spec * 60)                   # 60 answers of ~225 KB: far past any buffer
            time.sleep(20)                         # the deadline of the answer that waits, not 60 s
            got, reset = 0, False
            s.settimeout(5)
            try:
                while part := s.recv(1 << 20):
                    got += len(part)
            except ConnectionResetError:
                reset = True
        assert reset and got < 60 * 200_000
        assert "write deadline" in Path(str(tmp_path / "g.log") + ".err").read_text()


def test_write_deadline():
    write_timeout = current().write_timeout
    assert serving.write_deadline(0) == write_timeout
    # 1 MiB at 32 KiB/s: 32 s more
    assert serving.write_deadline(1024 * 1024) == write_timeout + 32


ALL_KINDS = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p",
             "9p", "1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "E", "S", "W", "N", "C", "F", "P"]
#: the issue's 308 B body: every kind a caishen, 14 tiles to analyse (each discard's 34 waits)
EVERY_KIND_CAISHEN = {"seat_wind": "E", "round_wind": "E", "hand": {"concealed": "13m 567m 789m EEE SS 9s"},
                      "caishen": {"kinds": ALL_KINDS}}


def test_which_hands_are_heavy():
    from service.routes import heavy_hand
    from ningbo_score.api import analysis, load
    from ningbo_score.readers.request_schemas import ANALYZE_REQUEST

    def hand(**body):
        loaded: analysis.AnalyzeInput = load(ANALYZE_REQUEST, {**EVERY_KIND_CAISHEN, **body})
        return loaded.hand

    assert heavy_hand(hand())                                              # 34 kinds
    assert heavy_hand(hand(caishen={"kinds": ["1m", "2m", "3m"]}))         # 3 kinds
    assert heavy_hand(hand(caishen={"kinds": ["E", "S"]}))                 # EEE SS: 5 caishen in hand
    assert not heavy_hand(hand(caishen={"kinds": ["E"]}))                  # EEE: 3 in hand
    assert not heavy_hand(hand(caishen={"kinds": ["S"]}))
    assert not heavy_hand(hand(caishen=None))


def test_an_analysis_by_value_is_heavy_work():
    # objective value weighs up to ningbo_score.advice.MAX_STATES hands: always a heavy turn, as
    # an expensive hand is; by ukeire only the hand decides
    from service.routes import _heavy_analysis
    from ningbo_score.api import load
    from ningbo_score.readers.request_schemas import ANALYZE_REQUEST

    plain = {**EVERY_KIND_CAISHEN, "caishen": None}
    assert not _heavy_analysis(load(ANALYZE_REQUEST, dict(plain)))
    assert not _heavy_analysis(load(ANALYZE_REQUEST, {**plain, "objective": "ukeire"}))
    assert _heavy_analysis(load(ANALYZE_REQUEST, {**plain, "objective": "value"}))
    assert _heavy_analysis(load(ANALYZE_REQUEST, dict(EVERY_KIND_CAISHEN)))


def test_expensive_analyses_take_turns(server):
    """Four connections analysing the every-kind-caishen hand over and over: each takes a heavy
    turn and yields between its waits, so /healthz is answered meanwhile."""
    addr, _, _ = server
    body = json.dumps(EVERY_KIND_CAISHEN).encode()
    hogs = [connect(addr, timeout=60) for _ in range(4)]
    try:
        for s in hogs:
            s.sendall(post("/v1/analyze", body, close=False) * 3)
        time.sleep(0.2)
        for _ in range(5):
            status, took = get(addr)
            assert status == 200 and took < 1.0, took
        hogs[0].settimeout(30)
        status, _, _ = answer(hogs[0].recv(1 << 16))
        assert status == 200
    finally:
        for s in hogs:
            s.close()


#: light requests of the heavy class: a one-hand batch, and /v1/waits of a hand with 3 caishen kinds
ONE_HAND_BATCH = {"requests": [examples.API_MD]}
THREE_CAISHEN_WAITS = {"seat_wind": "E", "round_wind": "E", "hand": {"concealed": "123m 456m 789p 11s 23s"},
                       "caishen": {"kinds": ["1m", "2m", "3m"]}}


def test_a_light_heavy_request_is_served_within_1_s_while_eight_clients_flood(server):
    """Issue 41: eight clients looping on the most expensive body (every kind a caishen,
    /v1/analyze, ~0.7 s each alone) made a one-hand batch or a 3-caishen /v1/waits wait 2.6-4.7 s
    behind them (one FIFO).  Heavy work now goes round the clients one item each: the light
    request waits about one item of each flooding client."""
    addr, _, _ = server
    body = json.dumps(EVERY_KIND_CAISHEN).encode()
    hogs = [connect(addr, timeout=120) for _ in range(8)]
    try:
        for s in hogs:
            s.sendall(post("/v1/analyze", body, close=False) * 4)
        time.sleep(0.5)                       # the flood under way in both workers
        for _ in range(3):
            for path, light in (("/v1/score/batch", ONE_HAND_BATCH), ("/v1/waits", THREE_CAISHEN_WAITS)):
                started = time.monotonic()
                status, _, answer_body = exchange(addr, post(path, json.dumps(light).encode()))
                took = time.monotonic() - started
                assert status == 200, answer_body[:200]
                assert took < 1.0, (path, took)
    finally:
        for s in hogs:
            s.close()


def one_response(sock: socket.socket) -> bytes:
    """One whole answer read from a kept-alive connection: its head, then Content-Length bytes
    (a recv may end anywhere: inside the head, or between the head and the body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        part = sock.recv(65536)
        if not part:
            return data
        data += part
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)[1])
    while len(body) < length:
        part = sock.recv(65536)
        if not part:
            break
        body += part
    return head + b"\r\n\r\n" + body


def test_slow_bodies_on_kept_alive_connections_hold_no_turn(server):
    """Kept-alive requests take one of serving.KEPT_ALIVE_AT_ONCE turns while the app runs, but
    not while their body comes: 40 kept-alive connections trickling a body can't keep another
    kept-alive connection's next request waiting."""
    addr, _, _ = server
    assert serving.KEPT_ALIVE_AT_ONCE < 20
    hello = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    slow = []
    try:
        for _ in range(40):
            s = connect(addr)
            s.sendall(hello)
            assert b"200 OK" in one_response(s)
            s.sendall(b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100\r\n\r\n{")
            slow.append(s)
        with connect(addr) as s:
            s.sendall(hello)
            assert b"200 OK" in one_response(s)
            started = time.monotonic()
            s.sendall(hello)
            assert b"200 OK" in one_response(s)
            # a turn held by a trickling body would keep it waiting until that body's deadline
            # (BODY_TIMEOUT, 20 s); a loaded machine answers within a few seconds
            assert time.monotonic() - started < 10.0
    finally:
        for s in slow:
            s.close()


# --- kernel memory of a client that never reads (issue 41) ---------------------------------------------

def server_side(port: int, client_port: int) -> tuple[int, str] | None:
    """(bytes in its send queue, TCP state) of the server's side of the connection from
    ``client_port`` (an orphaned socket too), or None when it is gone."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote = int(fields[1].rsplit(":", 1)[1], 16), int(fields[2].rsplit(":", 1)[1], 16)
            if local == port and remote == client_port:
                return int(fields[4].split(":")[0], 16), fields[3]
    return None


@pytest.mark.parametrize("path", ["/openapi.yaml", "/v1/rules"])
def test_an_answer_nobody_reads_leaves_a_bounded_send_queue_and_no_orphan(server, path):
    """200 GETs never read left 515 MiB of TCP memory for 300 s: each answer sat in a send buffer
    autotuned up to 4 MiB, kept by the kernel after the close.  Now the send buffer is
    SEND_BUFFER_BYTES and a closed connection whose bytes don't drain is reset: the server's side
    holds at most about 2 × that (the kernel doubles it), and is gone once the deadlines and the
    drain have run (keep-alive or socket timeout 1 s here, then DRAIN_S + its bytes over
    MIN_WRITE_RATE), not orphaned."""
    addr, _, _ = server
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(addr)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n".encode())
        mine = s.getsockname()[1]
        time.sleep(0.5)
        queued, _ = server_side(addr[1], mine)
        assert queued <= 2 * serving.SEND_BUFFER_BYTES + 16384, queued
        drain = serving.DRAIN_S + 2 * serving.SEND_BUFFER_BYTES / serving.MIN_WRITE_RATE
        deadline = time.monotonic() + 1 + 1 + drain + 3
        while server_side(addr[1], mine) is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server_side(addr[1], mine) is None, server_side(addr[1], mine)


def test_a_connection_closed_after_a_drained_answer_is_not_reset(server):
    """The drained close is no reset for a client that reads: it gets the whole answer and a FIN."""
    addr, _, _ = server
    with connect(addr) as s:
        s.sendall(b"GET /openapi.yaml HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n")
        status, headers, body = answer(read_all(s))
    assert status == 200 and len(body) == int(headers["content-length"])
