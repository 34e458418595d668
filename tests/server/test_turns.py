"""What the app asks of the server (service/turns.py) and the fair heavy queue of the gevent worker
(service/heavy.py), in process: the web layer's no-op default, a yield between every item a
batch's reader loads, the bound on a body's arrays and objects, the 503 a shed request gets in
the client's language, and the queue's order, bounds, time limit and stop (issue 41).  The same
under the real server: tests/server/test_serving.py."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import gevent
import pytest

from service import bodies, create_app, heavy, turns
from tools import examples

ROOT = Path(__file__).resolve().parents[2]


# --- the web layer does not import the worker ---------------------------------------------------------

WEB_LAYER = ["service/bodies.py", "service/routes.py", "service/pages.py", "service/problems.py",
             "service/factory.py", "service/static.py", "service/turns.py"]


@pytest.mark.parametrize("path", WEB_LAYER)
def test_the_web_layer_imports_neither_gevent_nor_gunicorn_nor_the_worker(path):
    tree = ast.parse((ROOT / path).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
            imported |= {f"{node.module}.{alias.name}" for alias in node.names}
    bad = {name for name in imported
           if name.split(".")[0] in ("gevent", "gunicorn") or name in ("service.serving", "service.heavy")}
    assert not bad, (path, bad)


# --- a counting server ---------------------------------------------------------------------------------

class Counting(turns.Turns):
    def __init__(self) -> None:
        self.pauses = 0
        self.taken = 0

    def pause(self) -> None:
        self.pauses += 1

    def take(self, environ, body_bytes, heavy=False) -> None:
        self.taken += 1


@pytest.fixture
def counting():
    server = Counting()
    turns.install(server)
    try:
        yield server
    finally:
        turns.install(turns.Turns())


def test_a_replay_batch_yields_before_every_log_it_loads(counting):
    client = create_app({"TESTING": False}).test_client()
    logs = [examples.REPLAY_HAND] * 20
    response = client.post("/v1/replay/batch", json={"logs": logs})
    assert response.status_code == 200, response.get_data()[:300]
    assert counting.taken == 1
    assert counting.pauses >= 20          # one before each log the reader loads (ningbo_score.readers.fields.Each)


def test_the_walk_for_repeated_keys_yields(counting):
    data = json.dumps({"requests": [{"a": 1}] * 10_000}).encode()
    assert bodies.repeated_key(data, json.loads(data)) is None
    assert counting.pauses >= 10_000 // bodies.PAUSE_EVERY
    before = counting.pauses
    with_colons = json.dumps({"requests": [{"a": "x:y"}] * 10_000}).encode()   # colons in strings: re-read
    assert bodies.repeated_key(with_colons, json.loads(with_colons)) is None
    assert counting.pauses - before >= 2 * (10_000 // bodies.PAUSE_EVERY)


def test_a_body_of_too_many_arrays_is_refused_before_it_is_parsed():
    client = create_app({"TESTING": False}).test_client()
    # the 1 MiB shape: 340,000 empty arrays (108 ms to parse, 102 ms to walk in one piece)
    data = b'{"logs":[' + b",".join([b"[]"] * 340_000) + b"]}"
    assert len(data) <= 1024 * 1024
    response = client.post("/v1/replay/batch", data=data, content_type="application/json",
                           headers={"Accept-Language": "zh-CN"})
    assert response.status_code == 400
    problem = response.get_json()
    assert problem["code"] == "invalid_request" and "340002" in problem["detail"] and "32768" in problem["detail"]
    # at the bound: read (a batch whose items are not objects: refused by the schema instead)
    data = b'{"logs":[' + b",".join([b"[]"] * (bodies.MAX_CONTAINERS - 2)) + b"]}"   # with the outer two
    response = client.post("/v1/replay/batch", data=data, content_type="application/json")
    assert response.status_code == 400 and "arrays and objects" not in response.get_json()["detail"]


def test_a_shed_request_is_a_503_with_retry_after_in_the_client_s_language():
    class Full(turns.Turns):
        def take(self, environ, body_bytes, heavy=False) -> None:
            if heavy:
                raise turns.Overloaded("64 heavy requests are waiting already.", "已有 64 个繁重请求在等待。", 2)

    turns.install(Full())
    try:
        client = create_app({"TESTING": False}).test_client()
        for lang, words in (("en", "The server is busy"), ("zh-CN", "服务器繁忙")):
            response = client.post("/v1/score/batch", json=examples.BATCH, headers={"Accept-Language": lang})
            assert response.status_code == 503
            assert response.headers["Retry-After"] == "2"
            assert response.mimetype == "application/problem+json"
            problem = response.get_json()
            assert problem["code"] == "overloaded" and problem["status"] == 503 and words in problem["detail"]
        assert client.post("/v1/score", json=examples.API_MD).status_code == 200     # light: never shed
    finally:
        turns.install(turns.Turns())


# --- the fair queue (gevent, in process) ----------------------------------------------------------------

def env(client: str, port: int = 1, forwarded: bool = False) -> dict:
    out = {"REMOTE_ADDR": client, "REMOTE_PORT": str(port)}
    if forwarded:                       # through a trusted proxy: the client is the address
        out[heavy.FORWARDED_ORIG] = {}
    return out


def run_items(queue: heavy.HeavyQueue, done: list[str], name: str, environ: dict, items: int) -> None:
    import time

    queue.take(environ)
    try:
        each = queue.between(environ)
        for i in range(items):
            each()
            time.sleep(0.002)           # an item's CPU (not a gevent wait)
            done.append(f"{name}{i}")
    finally:
        queue.release(environ)


@pytest.mark.parametrize("flooders", [1, 8])
def test_heavy_work_goes_round_the_clients_one_item_each(flooders):
    """Clients flooding 3 requests of 6 items each, then another client with one item: it runs
    after at most one item of each flooding client, not after their 18 × flooders."""
    queue = heavy.HeavyQueue()
    done: list[str] = []
    flood = [gevent.spawn(run_items, queue, done, f"c{c}r{r}.", env(f"10.0.1.{c}", r, forwarded=True), 6)
             for c in range(flooders) for r in range(3)]
    while len(done) < 2:                # the flood is under way
        gevent.sleep(0.001)
    arrived = len(done)
    light = gevent.spawn(run_items, queue, done, "light.", env("10.0.0.2"), 1)
    gevent.joinall([*flood, light], timeout=30)
    assert len(done) == 18 * flooders + 1
    # it waits for at most one item of each flooding client (the one running when it came in)
    assert done.index("light.0") - arrived <= flooders + 1, (arrived, done[:40])


def test_a_client_that_asks_for_little_runs_its_items_ahead_of_the_flood():
    """The turn goes to the waiting client that held it least lately: a light request of 5 items
    (a 3-caishen /v1/waits) arriving while 8 clients flood runs its items one after another,
    not one in every 9."""
    queue = heavy.HeavyQueue()
    done: list[str] = []
    flood = [gevent.spawn(run_items, queue, done, f"c{c}.", env(f"10.0.1.{c}", forwarded=True), 16)
             for c in range(8)]
    while len(done) < 80:               # every flooding client has held the turn for ~10 items
        gevent.sleep(0.001)
    arrived = len(done)
    light = gevent.spawn(run_items, queue, done, "light.", env("10.0.0.2"), 5)
    gevent.joinall([*flood, light], timeout=30)
    at = [done.index(f"light.{i}") for i in range(5)]
    assert at[0] - arrived <= 2 and at[-1] - at[0] == 4, (arrived, at)


def test_the_queue_is_bounded_in_all_and_per_client(monkeypatch):
    monkeypatch.setattr(heavy, "MAX_WAITING", 4)
    monkeypatch.setattr(heavy, "MAX_WAITING_PER_CLIENT", 2)
    queue = heavy.HeavyQueue()
    holder = env("10.0.0.9")
    queue.take(holder)                                  # the turn
    waiting = [gevent.spawn(queue.take, env("203.0.113.1", p, forwarded=True)) for p in (1, 2)]
    gevent.sleep(0.01)
    with pytest.raises(turns.Overloaded, match="this client has 2 heavy requests waiting") as third:
        queue.take(env("203.0.113.1", 3, forwarded=True))        # the same client's third
    assert third.value.headers == {"Retry-After": str(heavy.RETRY_AFTER_S)}
    waiting += [gevent.spawn(queue.take, env("10.0.0.3", p)) for p in (1, 2)]    # two connections
    gevent.sleep(0.01)
    with pytest.raises(turns.Overloaded, match="4 heavy requests are waiting"):
        queue.take(env("10.0.0.4"))
    gevent.killall(waiting)
    queue.release(holder)


def test_a_request_that_waits_past_the_time_limit_is_shed(monkeypatch):
    monkeypatch.setattr(heavy, "MAX_WAIT_S", 0.05)
    queue = heavy.HeavyQueue()
    holder = env("10.0.0.9")
    queue.take(holder)
    with pytest.raises(turns.Overloaded, match="waited 0.05 s"):
        queue.take(env("10.0.0.1"))
    queue.release(holder)
    assert not queue.busy and not queue.lines          # nobody left in line, the turn free
    queue.take(env("10.0.0.1"))                        # and the next one takes it at once


def test_a_stopping_worker_goes_on_until_the_margin_then_sheds():
    queue = heavy.HeavyQueue()
    holder = env("10.0.0.9")
    queue.take(holder)
    waiter = gevent.spawn(queue.take, env("10.0.0.1"))
    gevent.sleep(0.01)
    queue.stop(graceful_s=heavy.STOP_MARGIN_S + 0.2)    # 0.2 s of work left
    queue.between(holder)()                             # still starts items
    queue.release(holder)
    gevent.sleep(0.05)
    assert waiter.ready() and waiter.exception is None   # the waiting one got its turn
    late = gevent.spawn(queue.take, env("10.0.0.2"))
    gevent.sleep(0.3)                                   # past the margin: the waiting one is shed
    assert isinstance(late.exception, turns.Overloaded)


def test_a_stopping_worker_sheds_what_has_not_started_and_stops_starting_items():
    queue = heavy.HeavyQueue()
    holder = env("10.0.0.9")
    queue.take(holder)
    waiters = [gevent.spawn(queue.take, env(f"10.0.0.{n}")) for n in range(1, 4)]
    gevent.sleep(0.01)
    queue.stop(graceful_s=heavy.STOP_MARGIN_S)          # items start until the margin: none now
    gevent.joinall(waiters, timeout=5)
    assert all(isinstance(w.exception, turns.Overloaded) for w in waiters)
    assert all("stopping" in str(w.exception.problems[0].en) for w in waiters)
    with pytest.raises(turns.Overloaded):
        queue.between(holder)()                         # a started request: shed at its next item
    with pytest.raises(turns.Overloaded):
        queue.take(env("10.0.0.5"))                     # a new one: shed at once
    queue.release(holder)


def test_a_forwarded_client_is_its_address_a_direct_one_its_connection():
    assert heavy.client_of({"REMOTE_ADDR": "10.1.2.3", "REMOTE_PORT": "5"}) != \
        heavy.client_of({"REMOTE_ADDR": "10.1.2.3", "REMOTE_PORT": "6"})
    forwarded = {"REMOTE_ADDR": "203.0.113.7", "REMOTE_PORT": "5", heavy.FORWARDED_ORIG: {}}
    assert heavy.client_of(forwarded) == heavy.client_of({**forwarded, "REMOTE_PORT": "6"})
