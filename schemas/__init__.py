"""marshmallow schemas of every request and response of API.md.

Instances are built once, at import: the routes share them (marshmallow schemas are safe to
reuse across requests and threads once built).
"""
from __future__ import annotations

import typing

from marshmallow import ValidationError

from ningbo_score.errors import Problem, ScoreError

from .fields import Msg, message
from .requests import (
    CLAIM_TYPES,
    AnalyzeHandSchema,
    AnalyzeRequestSchema,
    ITEM_IDS,
    PRESET_IDS,
    SEATS,
    BatchRequestSchema,
    CaishenSchema,
    ClaimsSchema,
    EscapeRequestSchema,
    HandResultSchema,
    HandSchema,
    MeldSchema,
    NextHandRequestSchema,
    RulesObjectSchema,
    ScoreRequestSchema,
    TableClaimSchema,
    TableClaimsRequestSchema,
    WaitsHandSchema,
    WaitsRequestSchema,
    WaitsWinSchema,
    WinSchema,
)
from .responses import (
    PROBLEM_CODES,
    AnalyzedWaitSchema,
    AnalyzeResponseSchema,
    DiscardSchema,
    ImprovingSchema,
    WaitValueSchema,
    BatchResponseSchema,
    BatchResultSchema,
    ClaimsResponseSchema,
    EscapeResponseSchema,
    HealthSchema,
    ReadySchema,
    LevelSchema,
    LevelsSchema,
    NextHandResponseSchema,
    PresetListSchema,
    PresetSchema,
    ProblemSchema,
    ScoreResponseSchema,
    WaitSchema,
    WaitsResponseSchema,
)

score_request = ScoreRequestSchema()
score_response = ScoreResponseSchema()
preset_list = PresetListSchema()
preset_one = PresetSchema()
health = HealthSchema()
ready = ReadySchema()
waits_request = WaitsRequestSchema()
waits_response = WaitsResponseSchema()
analyze_request = AnalyzeRequestSchema()
analyze_response = AnalyzeResponseSchema()
batch_request = BatchRequestSchema()
batch_response = BatchResponseSchema()
next_hand_request = NextHandRequestSchema()
next_hand_response = NextHandResponseSchema()
claims_request = TableClaimsRequestSchema()
claims_response = ClaimsResponseSchema()
levels_response = LevelsSchema()
escape_request = EscapeRequestSchema()
escape_response = EscapeResponseSchema()


def flatten_errors(messages: typing.Any, prefix: str = "") -> list[tuple[str, typing.Any]]:
    """marshmallow's nested error messages as ``(dotted path, message)`` pairs, in order.

    ``{"hand": {"melds": {0: {"tiles": ["…"]}}}}`` gives ``("hand.melds.0.tiles", "…")``;
    ``_schema`` (an error of an object as a whole) stands for the object's own path, and the
    body itself has the path ``""``.
    """
    out: list[tuple[str, typing.Any]] = []

    def walk(node: typing.Any, path: str) -> None:
        if isinstance(node, dict):
            if node and set(node) <= {"key", "value"}:
                # a Dict field's entry: its key or its value is wrong; the path ends at the key
                for value in node.values():
                    walk(value, path)
                return
            for key, value in node.items():
                if key == "_schema":
                    walk(value, path)
                else:
                    walk(value, f"{path}.{key}" if path else str(key))
        elif isinstance(node, (list, tuple)):
            for value in node:
                walk(value, path)
        else:
            out.append((path, node))

    walk(messages, prefix)
    return out


def validation_problem(err: ValidationError) -> ScoreError:
    """A schema ValidationError as the library's ScoreError (code ``invalid_request``, 400),
    so that every 400 body is made the same way (``ScoreError.to_problem``)."""
    problems = [
        Problem("invalid_request", path, message(text, "en"), message(text, "zh"))
        for path, text in flatten_errors(err.messages)
    ]
    if not problems:  # pragma: no cover - marshmallow always gives a message
        problems = [Problem("invalid_request", "", "Invalid request.", "请求无效。")]
    return ScoreError(problems)


__all__ = [
    "CLAIM_TYPES",
    "AnalyzeHandSchema",
    "AnalyzeRequestSchema",
    "AnalyzeResponseSchema",
    "AnalyzedWaitSchema",
    "DiscardSchema",
    "ImprovingSchema",
    "WaitValueSchema",
    "analyze_request",
    "analyze_response",
    "ITEM_IDS",
    "PRESET_IDS",
    "PROBLEM_CODES",
    "SEATS",
    "BatchRequestSchema",
    "BatchResponseSchema",
    "BatchResultSchema",
    "CaishenSchema",
    "ClaimsResponseSchema",
    "ClaimsSchema",
    "EscapeRequestSchema",
    "EscapeResponseSchema",
    "HandResultSchema",
    "HandSchema",
    "HealthSchema",
    "ReadySchema",
    "LevelSchema",
    "LevelsSchema",
    "MeldSchema",
    "Msg",
    "NextHandRequestSchema",
    "NextHandResponseSchema",
    "PresetListSchema",
    "PresetSchema",
    "ProblemSchema",
    "RulesObjectSchema",
    "ScoreRequestSchema",
    "ScoreResponseSchema",
    "TableClaimSchema",
    "TableClaimsRequestSchema",
    "WaitSchema",
    "WaitsHandSchema",
    "WaitsRequestSchema",
    "WaitsResponseSchema",
    "WaitsWinSchema",
    "WinSchema",
    "batch_request",
    "batch_response",
    "claims_request",
    "claims_response",
    "escape_request",
    "escape_response",
    "flatten_errors",
    "health",
    "ready",
    "levels_response",
    "next_hand_request",
    "next_hand_response",
    "preset_list",
    "preset_one",
    "score_request",
    "score_response",
    "validation_problem",
    "waits_request",
    "waits_response",
]
