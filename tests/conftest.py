"""Shared fixtures of the HTTP tests: the app, a test client whose every response is checked
against ``openapi.yaml`` (JSON Schema 2020-12), and helpers to run the real server."""
from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import typing
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parent.parent
OPENAPI_FILE = ROOT / "openapi.yaml"
VENV_BIN = Path(sys.executable).parent


class Contract:
    """Checks responses against openapi.yaml: the status is documented for the operation, the
    content type is the documented one and the body validates against its schema."""

    URI = "urn:ningbo-score:openapi"

    def __init__(self, document: dict):
        self.document = document
        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        self.registry = Registry().with_resource(self.URI, resource)
        self._templates = [
            (re.compile("^" + re.sub(r"\{[^/}]+\}", "[^/]+", template) + "$"), template)
            for template in document["paths"]
        ]

    def validator(self, pointer: str) -> Draft202012Validator:
        return Draft202012Validator({"$ref": f"{self.URI}#{pointer}"}, registry=self.registry)

    def schema_errors(self, pointer: str, instance: typing.Any) -> list[str]:
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in self.validator(pointer).iter_errors(instance)]

    def template(self, path: str) -> str | None:
        for pattern, template in self._templates:
            if pattern.match(path):
                return template
        return None

    def check(self, method: str, path: str, response) -> None:
        path = path.split("?")[0]
        template = self.template(path)
        operation = self.document["paths"].get(template, {}).get(method.lower()) if template else None
        media = response.mimetype
        if operation is None:
            if media != "application/problem+json":
                # a page of the service that is no part of the API: a route of service.routes.ROUTES with no
                # operation id, or /static/ (the calculator page's files, WhiteNoise's)
                import app as app_module
                from service import routes

                if path.startswith("/static/"):
                    return

                endpoint, _ = app_module.app.url_map.bind("localhost").match(path, method)
                pages = {r.endpoint for r in routes.ROUTES if r.operation is None}
                assert endpoint in pages, (method, path, response.status_code, media)
                return
            # not an operation of the spec (an unknown route, a method a route lacks): a problem
            assert response.status_code in (404, 405), (method, path, response.status_code)
            pointer = "/components/schemas/Problem"
        else:
            responses = operation["responses"]
            status = str(response.status_code)
            assert status in responses, f"{method} {template}: status {status} is not documented"
            content = responses[status].get("content", {})
            assert media in content, f"{method} {template} {status}: {media} is not documented ({list(content)})"
            schema = content[media]["schema"]
            if "$ref" not in schema:
                return  # text (the YAML document, the HTML page)
            pointer = schema["$ref"][1:]
        body = response.get_json()
        errors = self.schema_errors(pointer, body)
        assert not errors, f"{method} {path} {response.status_code} breaks {pointer}: {errors}"


@pytest.fixture(scope="session")
def openapi_document() -> dict:
    return yaml.safe_load(OPENAPI_FILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def contract(openapi_document) -> Contract:
    return Contract(openapi_document)


@pytest.fixture
def app():
    from service import create_app

    return create_app({"TESTING": False})


class CheckedClient:
    """Flask's test client; every response is checked against openapi.yaml."""

    def __init__(self, client, contract: Contract):
        self.client = client
        self.contract = contract

    def open(self, method: str, path: str, **kwargs):
        response = self.client.open(path, method=method, **kwargs)
        self.contract.check(method, path, response)
        if response.status_code == 200 and response.mimetype == "application/json":
            # the app sends the library's result as it is: its schema's dump must not change it
            from service.routes import RESPONSE_SCHEMAS

            endpoint, _ = self.client.application.url_map.bind("localhost").match(path.split("?")[0], method)
            body = response.get_json()
            assert RESPONSE_SCHEMAS[endpoint].dump(body) == body, f"{method} {path}: the schema dump changes it"
        return response

    def get(self, path: str, **kwargs):
        return self.open("GET", path, **kwargs)

    def post(self, path: str, **kwargs):
        return self.open("POST", path, **kwargs)

    def score(self, body: typing.Any, **kwargs):
        return self.open("POST", "/v1/score", json=body, **kwargs)


@pytest.fixture
def client(app, contract) -> CheckedClient:
    return CheckedClient(app.test_client(), contract)


# --- a real server on a free loopback port --------------------------------------------------------

_GIVEN_PORTS: set[int] = set()


def free_port() -> int:
    """A loopback port the OS says is free, never one this session was given before (a server's
    PORT and METRICS_PORT asked for one after the other must differ)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _GIVEN_PORTS:
            _GIVEN_PORTS.add(port)
            return port


# a deadline, not a measure: a busy 2-core machine may take long to start the server
def wait_until_up(url: str, proc: subprocess.Popen | None = None, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, OSError) as err:
            last = err
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not come up: {last}")


@contextlib.contextmanager
def gunicorn_server(extra_env: dict[str, str] | None = None, log_path: Path | None = None):
    """The real gunicorn with the project's gunicorn.conf.py on a free loopback port."""
    port = free_port()
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "WEB_CONCURRENCY": "2",
           "METRICS_PORT": str(free_port()), **(extra_env or {})}
    # stdout (the access log) to log_path, stderr (the error log) to log_path + ".err"
    log = open(log_path, "wb") if log_path else subprocess.DEVNULL
    err = open(str(log_path) + ".err", "wb") if log_path else subprocess.DEVNULL
    proc = subprocess.Popen(
        [str(VENV_BIN / "gunicorn"), "-c", "gunicorn.conf.py", "app:app"],
        cwd=ROOT, env=env, stdout=log, stderr=err, start_new_session=True,
    )
    try:
        wait_until_up(f"http://127.0.0.1:{port}/healthz", proc)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        if log_path:
            log.close()
            err.close()


@contextlib.contextmanager
def threaded_server(application) -> typing.Iterator[str]:
    """``application`` on a free loopback port, served by werkzeug in a thread: its base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, application, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(10)
