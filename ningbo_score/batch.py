"""Batch scoring: many hands in one call, one result each; a bad hand never fails the batch."""
from __future__ import annotations

from .engine import score
from .errors import Problem, ScoreError

MAX_BATCH = 200


def score_batch(requests, lang: str = "en", before_each=None) -> dict:
    """The body of ``POST /v1/score/batch``: ``{"requests": [...]}`` in, ``{"results": [...]}`` out.

    Each result is ``{"index", "status": 200, "score": …}`` or ``{"index", "status": 4xx,
    "problem": …}``.  More than :data:`MAX_BATCH` requests: ScoreError ``batch_too_large`` (413).
    """
    problems = []
    if not isinstance(requests, dict) or not isinstance(requests.get("requests"), list):
        problems.append(Problem("invalid_request", "requests", 'must be an object {"requests": [score request, …]}',
                                '必须是 {"requests": [计分请求, …]} 形式的对象'))
    elif requests.keys() - {"requests"}:
        for key in requests.keys() - {"requests"}:
            problems.append(Problem("invalid_request", key, "unknown field", "未知字段"))
    if problems:
        raise ScoreError(problems)
    items = requests["requests"]
    if len(items) > MAX_BATCH:
        raise ScoreError([Problem("batch_too_large", "requests",
                                  f"{len(items)} requests; a batch holds at most {MAX_BATCH}",
                                  f"{len(items)} 个请求；每批最多 {MAX_BATCH} 个")])
    results = []
    for i, item in enumerate(items):
        if before_each is not None:
            before_each()
        try:
            results.append({"index": i, "status": 200, "score": score(item)})
        except ScoreError as e:
            results.append({"index": i, "status": e.status, "problem": e.to_problem(lang)})
    ok = sum(1 for r in results if r["status"] == 200)
    return {"ok": ok, "failed": len(results) - ok, "results": results}
