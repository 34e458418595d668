"""marshmallow schemas of every request and response of docs/api.md.

The request schemas live in the library (ningbo_score.request_schemas: they build its typed input, and
a Python caller with a dict goes through them too); the response schemas here.  Instances are
built once, at import: the routes share them (marshmallow schemas are safe to reuse across
requests and threads once built).
"""
from __future__ import annotations

from ningbo_score.fields import Msg, flatten_errors, load, validation_problem
from ningbo_score.request_schemas import (
    ANALYZE_REQUEST,
    BATCH_REQUEST,
    CLAIMS_REQUEST,
    ESCAPE_REQUEST,
    NEXT_HAND_REQUEST,
    SCORE_REQUEST,
    WAITS_REQUEST,
    CLAIM_TYPES,
    AnalyzeHandSchema,
    AnalyzeRequestSchema,
    ITEM_IDS,
    PRESET_IDS,
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
from ningbo_score.replay_requests import (
    REPLAY_BATCH_REQUEST,
    REPLAY_REQUEST,
    DealSchema,
    DeclinedSchema,
    ReplayBatchRequestSchema,
    ReplayEventSchema,
    ReplayRequestSchema,
)
from ningbo_score.session_requests import SESSION_REQUEST
from ningbo_score.tiles import SEATS

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
)

score_request = SCORE_REQUEST
score_response = ScoreResponseSchema()
session_request = SESSION_REQUEST
session_response = SessionSettleResponseSchema()
preset_list = PresetListSchema()
preset_one = PresetSchema()
health = HealthSchema()
ready = ReadySchema()
waits_request = WAITS_REQUEST
waits_response = WaitsResponseSchema()
analyze_request = ANALYZE_REQUEST
analyze_response = AnalyzeResponseSchema()
batch_request = BATCH_REQUEST
batch_response = BatchResponseSchema()
next_hand_request = NEXT_HAND_REQUEST
next_hand_response = NextHandResponseSchema()
claims_request = CLAIMS_REQUEST
claims_response = ClaimsResponseSchema()
levels_response = LevelsSchema()
escape_request = ESCAPE_REQUEST
escape_response = EscapeResponseSchema()
replay_request = REPLAY_REQUEST
replay_response = ReplayResponseSchema()
replay_batch_request = REPLAY_BATCH_REQUEST
replay_batch_response = ReplayBatchResponseSchema()


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
    "SessionSettleResponseSchema",
    "session_request",
    "session_response",
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
    "load",
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
    "DealSchema",
    "DeclinedSchema",
    "ReplayBatchRequestSchema",
    "ReplayBatchResponseSchema",
    "ReplayBatchResultSchema",
    "ReplayEventSchema",
    "ReplayRequestSchema",
    "ReplayResponseSchema",
    "replay_request",
    "replay_response",
    "replay_batch_request",
    "replay_batch_response",
]
