"""Readiness: ``GET /readyz`` (a route of service/routes.py).

200 ``{"status": "ready", "checks": {...}}`` when the scoring engine answers docs/api.md's worked
example correctly (4 台, 5 points) and, in multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``), the
metrics directory is writable; else it raises :class:`NotReady`, a ``ScoreError`` with code
``not_ready`` (503, from ``errors.CODES``) and one problem per failing check (its ``errors``),
which the service's one problem handler answers like every other error.
"""
from __future__ import annotations

import os
import typing

import flask
import orjson

from ningbo_score import ScoreError
from ningbo_score.errors import Problem
from service.settings import Settings

# docs/api.md's worked example: 排胡 0 + 自摸 1 + 硬胡 1 + 中 pung 1 + 正花 1 = 4 台; linear points
# 1 × (1 + 4) = 5; self-draw, nobody related: E, W, N pay 5 each, S gets 15.
READY_HAND = {
    "rules": "ningbo",
    "seat_wind": "S",
    "round_wind": "E",
    "caishen": {"indicator": "5p"},
    "hand": {
        "concealed": ["2m", "3m", "4m", "6m", "7m", "8m", "9s", "9s"],
        "winning_tile": "4m",
        "melds": [
            {"type": "pung", "tiles": ["C", "C", "C"], "from": "E"},
            {"type": "kong", "tiles": ["1s", "1s", "1s", "1s"], "concealed": True},
        ],
        "flowers": ["2f"],
    },
    "win": {"by": "self_draw"},
    "claims_from_winner": {"E": 0, "W": 1, "N": 0},
    "base_points": 1,
}
READY_EXPECTED = {"tai": 4, "points": 5, "net": {"E": -5, "S": 15, "W": -5, "N": -5}}


class NotReady(ScoreError):
    """The service is not ready: one problem per failing check (its path: the check's name);
    the detail names them all.  Never cached (``headers``)."""

    headers = {"Cache-Control": "no-store"}

    def __init__(self, failing: typing.Mapping[str, tuple[str, str]]) -> None:
        super().__init__([Problem("not_ready", name, en, zh) for name, (en, zh) in failing.items()])

    def detail(self, lang: str = "en") -> str:
        said = "; ".join(f"{p.path}: {p.message(lang)}" for p in self.problems)
        return f"服务未就绪：{said}" if lang == "zh" else f"The service is not ready: {said}"


def checks_in_both_languages(settings: Settings) -> dict[str, tuple[str, str]]:
    """Each readiness check and its result, in English and Chinese (``ok`` in both when it passes)."""
    checks: dict[str, tuple[str, str]] = {}
    try:
        import ningbo_score

        result = typing.cast("dict[str, object]", ningbo_score.score(READY_HAND))
        got = {key: result.get(key) for key in READY_EXPECTED}
        checks["engine"] = ("ok", "ok") if got == READY_EXPECTED else (f"unexpected result {got}",
                                                                        f"结果与预期不符：{got}")
    except Exception as err:  # noqa: BLE001 - any failure means "not ready", reported below
        checks["engine"] = (f"{type(err).__name__}: {err}", f"出错：{type(err).__name__}: {err}")
    path = settings.multiproc_dir
    if path:
        ok = os.path.isdir(path) and os.access(path, os.W_OK)
        checks["metrics_dir"] = ("ok", "ok") if ok else (f"{path} is not a writable directory",
                                                         f"{path} 不是可写的目录")
    return checks


def readyz() -> flask.Response:
    """``GET /readyz``: 200 with every check, or :class:`NotReady`."""
    checks = checks_in_both_languages(flask.current_app.extensions["settings"])
    failing = {name: both for name, both in checks.items() if both[0] != "ok"}
    if failing:
        raise NotReady(failing)
    return flask.Response(orjson.dumps({"status": "ready", "checks": {k: en for k, (en, _) in checks.items()}}),
                          content_type="application/json", headers=NotReady.headers)
