"""Every error as an RFC 9457 ``application/problem+json`` answer, built by ``ScoreError.to_problem``
in the request's language: the library's refusals, marshmallow's, Flask's and werkzeug's own
(404, 405, 413, …), /readyz's and anything unexpected (500), through the one handler of each
kind :func:`register_error_handlers` installs.  The problem's code is counted where its answer is
built (:func:`problem_response`, service/observability/metrics.py's ``count_problem``).
"""
from __future__ import annotations

import logging
import typing

from flask import Flask, Response, request
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from ningbo_score.readers import fields
from ningbo_score import ScoreError
from ningbo_score.errors import HTTP_STATUS_CODES, shown
from service.bodies import PROBLEM_TYPE, json_response, language, problem, too_large
from service.observability import metrics

log = logging.getLogger("ningbo_score.http")


def problem_response(err: ScoreError, headers: typing.Mapping[str, str] | None = None) -> Response:
    """The problem answer of ``err`` (with the headers it asks for, e.g. /readyz's
    ``Cache-Control``), its code counted in the metrics."""
    metrics.count_problem(err.code, err.status)
    own = getattr(err, "headers", None)
    if own:
        headers = {**own, **(headers or {})}
    return json_response(err.to_problem(language()), status=err.status, content_type=PROBLEM_TYPE,
                         headers=headers)


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ScoreError)
    def _score_error(err: ScoreError):
        return problem_response(err)

    @app.errorhandler(ValidationError)
    def _validation_error(err: ValidationError):
        return problem_response(fields.validation_problem(err))

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        return problem_response(*http_problem(err))

    @app.errorhandler(Exception)
    def _unexpected(err: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        return problem_response(problem("internal_error", "An unexpected error occurred; it has been logged.",
                                        "发生了意外错误，已记录。"))


#: werkzeug's 4xx other than those http_problem words itself, in Chinese
_HTTP_NAMES_ZH = {
    400: "请求格式错误", 401: "未授权", 403: "禁止访问", 406: "无法提供可接受的内容类型", 408: "请求超时",
    409: "冲突", 410: "已不存在", 411: "需要 Content-Length", 412: "前提条件不满足", 414: "地址过长",
    416: "请求的范围无法满足", 417: "无法满足期望头的要求", 418: "我是茶壶", 421: "请求发错了服务器",
    422: "无法处理的内容", 423: "已锁定", 424: "依赖的请求失败", 428: "需要前提条件", 429: "请求过多",
    431: "请求头字段过大", 451: "因法律原因不可用",
}


def http_problem(err: HTTPException) -> tuple[ScoreError, dict[str, str]]:
    """Flask's and werkzeug's own errors as problems."""
    status = err.code or 500
    headers: dict[str, str] = {}
    if status == 404:
        path = shown(request.path)
        return problem("not_found", f"There is nothing at {path}.", f"{path} 不存在。"), headers
    if status == 405:
        allowed = sorted(getattr(err, "valid_methods", None) or [])
        if isinstance(err, MethodNotAllowed) and allowed:
            headers["Allow"] = ", ".join(allowed)
        allowed_text = ", ".join(allowed)
        path = shown(request.path)
        return problem("method_not_allowed", f"{request.method} is not allowed on {path}; allowed: {allowed_text}.",
                       f"{path} 不支持 {request.method}；可用：{allowed_text}。"), headers
    if status == 413:
        return too_large(request.max_content_length), headers
    if status == 415:
        return problem("unsupported_media_type", "The body must be JSON (Content-Type: application/json).",
                       "请求体必须是 JSON（Content-Type: application/json）。"), headers
    if status >= 500:
        return problem("internal_error", "An unexpected error occurred.", "发生了意外错误。"), headers
    zh = _HTTP_NAMES_ZH.get(status, f"HTTP {status}")
    # werkzeug's 4xx status kept (e.g. 400 for a bad request line): each has its code in CODES
    code = HTTP_STATUS_CODES.get(status, "bad_request")
    return ScoreError.one(code, "", f"{err.name}: {err.description}", f"请求无效：{zh}。"), headers
