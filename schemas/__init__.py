"""The answers' marshmallow schemas: what generates openapi.yaml's responses and the library's
TypedDicts (tools/gen_answers.py), and nothing else.

Every request is read by the library's readers (``ningbo_score.readers``: they build its typed
input, and a Python caller with a dict goes through them too); the routes take their request
schemas from there.  The answer schemas' instances are built once, at import: the routes share
them (marshmallow schemas are safe to reuse across requests and threads once built).
"""
from __future__ import annotations

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
    SessionSettleResponseSchema,
    PresetListSchema,
    PresetSchema,
    ProblemSchema,
    ScoreResponseSchema,
    WaitSchema,
    WaitsResponseSchema,
    ReplayBatchResponseSchema,
    ReplayBatchResultSchema,
    ReplayResponseSchema,
    ActionsResponseSchema,
)

score_response = ScoreResponseSchema()
session_response = SessionSettleResponseSchema()
preset_list = PresetListSchema()
preset_one = PresetSchema()
health = HealthSchema()
ready = ReadySchema()
waits_response = WaitsResponseSchema()
analyze_response = AnalyzeResponseSchema()
batch_response = BatchResponseSchema()
next_hand_response = NextHandResponseSchema()
claims_response = ClaimsResponseSchema()
levels_response = LevelsSchema()
escape_response = EscapeResponseSchema()
replay_response = ReplayResponseSchema()
replay_batch_response = ReplayBatchResponseSchema()
actions_response = ActionsResponseSchema()


__all__ = [
    "ActionsResponseSchema",
    "AnalyzeResponseSchema",
    "AnalyzedWaitSchema",
    "BatchResponseSchema",
    "BatchResultSchema",
    "ClaimsResponseSchema",
    "DiscardSchema",
    "EscapeResponseSchema",
    "HealthSchema",
    "ImprovingSchema",
    "LevelSchema",
    "LevelsSchema",
    "NextHandResponseSchema",
    "PROBLEM_CODES",
    "PresetListSchema",
    "PresetSchema",
    "ProblemSchema",
    "ReadySchema",
    "ReplayBatchResponseSchema",
    "ReplayBatchResultSchema",
    "ReplayResponseSchema",
    "ScoreResponseSchema",
    "SessionSettleResponseSchema",
    "WaitSchema",
    "WaitValueSchema",
    "WaitsResponseSchema",
    "actions_response",
    "analyze_response",
    "batch_response",
    "claims_response",
    "escape_response",
    "health",
    "levels_response",
    "next_hand_response",
    "preset_list",
    "preset_one",
    "ready",
    "replay_batch_response",
    "replay_response",
    "score_response",
    "session_response",
    "waits_response",
]
