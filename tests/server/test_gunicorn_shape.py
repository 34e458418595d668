"""gunicorn's shape, as service/serving.py was written for it (issue 24).

serving.ServingWorker overrides methods of gunicorn's GeventWorker and its bases (``run`` is a
rewrite of GeventWorker.run), calls AsyncWorker.handle past GeventWorker's, and patches
gunicorn's chunked reader and response headers.  gunicorn is pinned to 27.0.1 by the lock file
only: here each of those gunicorn functions is recorded as of 27.0.1 (its signature and a hash
of its source), so an upgrade that changes one fails here, naming what to re-read in service/serving.py.
After re-reading (and adapting service/serving.py), record the new values and the new version.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import re
import subprocess
import sys
import types

import gunicorn
import pytest
from gunicorn.config import Config
from gunicorn.workers.ggevent import GeventWorker

from service import fair_worker
from service import serving
from conftest import ROOT, free_port

WRITTEN_FOR = "27.0.1"

#: "module:Class.function": (signature, first 16 hex digits of the sha256 of its source), as of
#: gunicorn 27.0.1.  First every definition, along GeventWorker's MRO, of a method that
#: ServingWorker, FairServingWorker or fair_worker.FairShare overrides; then what service/serving.py
#: calls past them, patches, or reads the internals of.
SHAPE = {
    # overridden
    "gunicorn.workers.base_async:AsyncWorker.__init__": ("(self, *args, **kwargs)", "a3c8f332bcc51b1b"),
    "gunicorn.workers.base:Worker.__init__": ("(self, age, ppid, sockets, app, timeout, cfg, log)", "e0f1de2d60574066"),
    "gunicorn.workers.ggevent:GeventWorker.handle": ("(self, listener, client, addr)", "0ea41a12296421e4"),
    "gunicorn.workers.base_async:AsyncWorker.handle": ("(self, listener, client, addr)", "6eb3b127e6ba7e84"),
    "gunicorn.workers.base:Worker.handle_error": ("(self, req, client, addr, exc)", "75426448389bbac9"),
    "gunicorn.workers.base:Worker.handle_exit": ("(self, sig, frame)", "e2f7159c426d379c"),
    "gunicorn.workers.ggevent:GeventWorker.handle_request":
        ("(self, listener_name, req, sock, addr)", "46750b15c6e4d4b4"),
    "gunicorn.workers.base_async:AsyncWorker.handle_request":
        ("(self, listener_name, req, sock, addr)", "913e17a9542aa70d"),
    "gunicorn.workers.ggevent:GeventWorker.init_process": ("(self)", "c8f6804aeb441964"),
    "gunicorn.workers.base:Worker.init_process": ("(self)", "114caccd7a0e3c21"),
    "gunicorn.workers.base:Worker.load_wsgi": ("(self)", "18b02fc35e964f2b"),
    "gunicorn.workers.ggevent:GeventWorker.run": ("(self)", "50119854ef8be38c"),
    "gunicorn.workers.base:Worker.run": ("(self)", "49ab292508f4cc5c"),
    "gunicorn.workers.ggevent:GeventWorker.timeout_ctx": ("(self)", "8239bec284f0e6d6"),
    "gunicorn.workers.base_async:AsyncWorker.timeout_ctx": ("(self)", "5952df87da62bb6d"),
    # called, patched or read
    "gunicorn.workers.ggevent:GeventWorker.patch": ("(self)", "e755a4b317f558e7"),
    "gunicorn.workers.ggevent:GeventWorker.notify": ("(self)", "10266ff4bf204499"),
    "gunicorn.workers.base:Worker.notify": ("(self)", "7f509bc4046b0e97"),
    "gunicorn.http.body:ChunkedReader.__init__": ("(self, req, unreader)", "74626d236eb5d4ec"),
    "gunicorn.http.body:ChunkedReader.parse_chunk_size": ("(self, unreader, data=None)", "997c6693156b4f8a"),
    "gunicorn.http.body:ChunkedReader.read_into": ("(self, unreader, buf)", "a1d5fb6ddbefc649"),
    "gunicorn.http.body:LengthReader.__init__": ("(self, unreader, length)", "1c04507563bb19e2"),
    "gunicorn.http.body:LengthReader.read": ("(self, size)", "be99a0aa587fc555"),
    "gunicorn.http.body:Body.__init__": ("(self, reader)", "db5ff256b7b94ba1"),
    "gunicorn.http.wsgi:Response.default_headers": ("(self)", "cb490cea5d6f5408"),
    "gunicorn.http.wsgi:Response.force_close": ("(self)", "656092cce3c31f66"),
    "gunicorn.http.message:Request.__init__": ("(self, cfg, unreader, peer_addr, req_number=1)", "f1feb7cdea229ec5"),
    "gunicorn.config:Config.is_ssl": ("(self)", "209bc8c1d463aa18"),
}


def function(qualified: str) -> types.FunctionType:
    """gunicorn's own function (past service/serving.py's patches, which keep it as ``__wrapped__``)."""
    module, path = qualified.split(":")
    owner, name = path.split(".")
    found = vars(getattr(importlib.import_module(module), owner))[name]
    if isinstance(found, property):
        found = found.fget
    return inspect.unwrap(found)


def shape(qualified: str) -> tuple[str, str]:
    f = function(qualified)
    return str(inspect.signature(f)), hashlib.sha256(inspect.getsource(f).encode()).hexdigest()[:16]


def test_gunicorn_is_the_version_of_the_lock_file():
    pinned = re.search(r"^gunicorn==(\S+)", (ROOT / "requirements.txt").read_text(), re.M)
    assert pinned and pinned[1] == gunicorn.__version__ == WRITTEN_FOR, (
        f"gunicorn {gunicorn.__version__} is installed, requirements.txt pins {pinned and pinned[1]}, and "
        f"service/serving.py was written for {WRITTEN_FOR}: re-read service/serving.py against it (this file's SHAPE)")


def test_every_override_is_recorded():
    """A method service/serving.py overrides is in SHAPE, each of its definitions along GeventWorker's
    MRO, so a new override can't go unrecorded."""
    overridden = {name for cls in (serving.ServingWorker, serving.FairServingWorker, fair_worker.FairShare)
                  for name, value in vars(cls).items() if callable(value)}
    expected = {f"{cls.__module__}:{cls.__qualname__}.{name}"
                for cls in GeventWorker.__mro__ if cls is not object
                for name in overridden & set(vars(cls))}
    assert expected <= set(SHAPE), f"record these in SHAPE: {sorted(expected - set(SHAPE))}"
    # and nothing recorded as overridden that is not
    assert {"run", "handle", "handle_request", "handle_error", "timeout_ctx"} <= overridden


@pytest.mark.parametrize("qualified", sorted(SHAPE))
def test_gunicorn_s_shape_is_unchanged(qualified):
    assert shape(qualified) == SHAPE[qualified], (
        f"service/serving.py overrides or relies on {qualified}, written for gunicorn {WRITTEN_FOR}: "
        f"it changed in gunicorn {gunicorn.__version__}; re-read it (and service/serving.py), then record "
        f"{shape(qualified)} here")


def test_a_changed_function_is_caught():
    """The hash sees a change of one character in a function's source."""
    source = inspect.getsource(function("gunicorn.workers.ggevent:GeventWorker.run"))
    assert hashlib.sha256(source.replace("1.0", "2.0", 1).encode()).hexdigest()[:16] != SHAPE[
        "gunicorn.workers.ggevent:GeventWorker.run"][1]


# --- TLS: refused at start (ServingWorker.run serves plain sockets) ------------------------------

def test_a_tls_setting_is_refused_by_the_worker_class():
    for setting in ("certfile", "keyfile"):
        cfg = Config()
        cfg.set(setting, "/somewhere/tls.pem")
        with pytest.raises(SystemExit) as refused:
            serving.FairServingWorker.check_config(cfg, None)
        assert str(refused.value) == serving.TLS_REFUSED
    serving.FairServingWorker.check_config(Config(), None)       # no TLS: nothing said


def test_gunicorn_with_a_certificate_ends_in_one_line(tmp_path):
    (tmp_path / "cert.pem").touch()
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(free_port()), "METRICS_PORT": "0", "WEB_CONCURRENCY": "1"}
    env.pop("NINGBO_SCORE_LISTENING", None)
    out = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py",
                          "--certfile", str(tmp_path / "cert.pem"), "--keyfile", str(tmp_path / "cert.pem"), "app:app"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.splitlines()[-1] == serving.TLS_REFUSED
    assert "TLS is not supported" in serving.TLS_REFUSED and "proxy" in serving.TLS_REFUSED
