"""The HTTP service over the ``ningbo_score`` library (docs/architecture.md draws it file by file).

``create_app()`` builds its Flask app (service/factory.py); the top-level ``app.py`` is the entry
point gunicorn serves (``app:app``), and ``python -m service`` starts it (service/__main__.py).
``create_app`` is imported on first use: the launcher and gunicorn.conf.py import parts of this
package in gunicorn's master, which must not load the app (nor prometheus_client) before it forks.
"""
from __future__ import annotations

import typing

__all__ = ["create_app"]

if typing.TYPE_CHECKING:
    from service.factory import create_app


def __getattr__(name: str) -> typing.Any:
    if name == "create_app":
        from service.factory import create_app

        return create_app
    raise AttributeError(f"module 'service' has no attribute {name!r}")
