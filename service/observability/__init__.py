"""Observability and browser-facing hardening, one concern a module:

- ``ids``: the request ID (``X-Request-ID``) and W3C trace context;
- ``logs``: JSON log lines, and the logging configuration gunicorn applies;
- ``metrics``: Prometheus metrics, the middleware that counts every request, the metrics listener
  and gunicorn's multiprocess hooks;
- ``headers``: security headers, HSTS and CORS;
- ``readiness``: ``GET /readyz``.

:func:`init_app` wires them into a Flask app (``create_app()`` calls it last).
"""
from __future__ import annotations

import flask

from service.observability import headers, ids, logs, metrics


def init_app(app: flask.Flask) -> flask.Flask:
    logs.configure_logging()
    m = metrics.metrics()
    headers.init_cors(app)

    @app.before_request
    def _request_id_and_route() -> None:
        environ = flask.request.environ
        rid = environ.get(ids.ENV_REQUEST_ID)
        if rid is None:  # the app called without the middleware (e.g. app.wsgi_app directly)
            rid = environ[ids.ENV_REQUEST_ID] = ids.request_id_of(flask.request.headers.get(ids.REQUEST_ID_HEADER))
        flask.g.request_id = rid
        rule = flask.request.url_rule
        route = rule.rule if rule is not None else metrics.rule_of_405(flask.request)
        if route is not None:
            environ[metrics.ENV_ROUTE] = route

    app.wsgi_app = metrics.ObservabilityMiddleware(app.wsgi_app, m)  # type: ignore[method-assign]
    return app
