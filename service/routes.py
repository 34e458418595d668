"""The routes of docs/api.md: Flask routes over the ``ningbo_score`` library.

Each route is declared once, in ``ROUTES`` (:class:`Route`), and one view serves them all
(:func:`answer`): the route's marshmallow schema (ningbo_score.readers.request_schemas, the one reader of
every body) loads and checks the body (service/bodies.py reads it) into the library's typed
input, the route's call computes and its result is sent as it is.  Every error, Flask's own
404/405/413 included, is an RFC 9457 ``application/problem+json`` body (service/problems.py).
"""
from __future__ import annotations

import re
import typing
from dataclasses import dataclass, field

from flask import Flask, Response, request
from marshmallow import Schema

import ningbo_score
import schemas
from ningbo_score.readers import fields, replay_requests, session_requests
from ningbo_score.readers import request_schemas
from ningbo_score import sessions, table
from ningbo_score.hand import Hand
from ningbo_score.replay import replay_batch, replay_loaded
from ningbo_score.readers.replay_requests import MAX_LOGS
from service import turns
from service.bodies import PROBLEM_TYPE, json_body, json_response, language
from service.observability import metrics, readiness
from service.pages import (calculator, docs, docs_init, docs_static, get_rules, healthz, list_rules, openapi_yaml,
                           service_worker)

MAX_BODY_BYTES = 64 * 1024
#: ``POST /v1/score/batch`` holds up to 200 ``/v1/score`` bodies: the docs/api.md worked example alone
#: is 384 bytes as compact JSON (about 1 KiB pretty-printed), so 200 of them are past 64 KiB.
#: 1 MiB leaves about 5 KiB for each of 200 items (a request with every rule option and every
#: item_tai override, pretty-printed, is under 2 KiB).
MAX_BATCH_BODY_BYTES = 1024 * 1024
#: ``POST /v1/sessions/settle``: up to 200 hands, each a ``/v1/score`` body (as a batch) or a
#: ``/v1/replay`` log (a whole hand's log is about 3 KiB as compact JSON): the batch's limit, so
#: that the server takes it as heavy work as it takes a batch (service/heavy.py).
MAX_SESSION_BODY_BYTES = MAX_BATCH_BODY_BYTES

#: What the problems of a route's body mean (each route's ``errors``, in openapi.yaml)
NOT_JSON = "Not JSON (`malformed_json`), or wrong types, unknown fields or missing fields (`invalid_request`)."
NOT_JSON_TYPE = "The body is not `application/json` (`unsupported_media_type`)."
BODY_ERRORS = {400: NOT_JSON, 415: NOT_JSON_TYPE}


def batch_errors(items: str, most: int) -> dict[int, str]:
    """A batch's problems: only its body's (each item's problem is its own result)."""
    return {400: f"Not JSON (`malformed_json`), or not `{{\"{items}\": [object, …]}}` with at most {most} {items} "
                 "(`invalid_request`).",
            415: NOT_JSON_TYPE}


#: a waiting hand's 422s (/v1/waits and /v1/analyze take the same hands)
HAND_ERRORS = {**BODY_ERRORS, 422: "Well-formed but impossible (`wrong_tile_count`, `too_many_copies`, "
                                   "`invalid_meld`, `caishen_in_meld`, `inconsistent_win_context`, "
                                   "`invalid_request`)."}


def language_headers(response: Response) -> Response:
    """``Content-Language`` and ``Vary: Accept-Language`` on an answer in the request's language:
    every problem, and the 200 answers of a route whose row says ``localized``."""
    route = BY_ENDPOINT.get(request.endpoint or "")
    if response.mimetype == PROBLEM_TYPE or (route is not None and route.localized and response.status_code == 200):
        response.headers["Content-Language"] = language()
        response.vary.add("Accept-Language")
    return response


def _count_refused(run: typing.Callable[..., typing.Any]) -> typing.Callable[..., typing.Any]:
    """A batch's call whose refused items count by code in the metrics, like refused requests
    (each item is loaded on its own by the schema: a bad one is its own result, never the batch's)."""
    def call(items: typing.Any, lang: str, before_each: typing.Callable[[], None] | None) -> typing.Any:
        answer = run(items, lang, before_each)
        for result in answer["results"]:
            if "problem" in result:
                metrics.record_problem(result["problem"]["code"])
        return answer
    return call


#: a hand whose waits or analysis is expensive: this many caishen kinds or caishen tiles in hand
#: (every wait is scored twice, each scoring trying the caishen's placements)
HEAVY_CAISHEN_KINDS = 3
HEAVY_CAISHEN_TILES = 4


def heavy_hand(hand: Hand) -> bool:
    kinds = hand.caishen_kinds
    return len(kinds) >= HEAVY_CAISHEN_KINDS or sum(t in kinds for t in hand.concealed) >= HEAVY_CAISHEN_TILES


def _heavy_analysis(loaded: typing.Any) -> bool:
    """An analysis is heavy work for an expensive hand, and always by value (``objective: value``:
    up to ningbo_score.advice.MAX_STATES hands weighed, its work yielding between steps)."""
    return loaded.objective == "value" or heavy_hand(loaded.hand)


# --- the route table ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Route:
    """One route, declared once: its path as openapi.yaml writes it (``{preset}``;
    ``{filename:path}`` for a Flask converter), its operation id and tag in openapi.yaml (None for
    a page of the service that is no part of the API, so no call of a generated client: the
    calculator page, the docs page and its assets, openapi.yaml itself), the schemas of its request
    body and of its 200 answer, and what it calls.  (The metrics are no route: prometheus_client
    serves them on a listener of their own, service/observability/metrics.py.)

    What the route's answers are, besides its 200: ``errors``, each problem status it answers with
    what it means (openapi.yaml documents them; a route with a body also answers 413 over its
    ``body_limit``, every route 500 and any other status as a problem: written by
    tools/gen_openapi.py for all), and ``examples``, the name of its example set in
    tools/examples.py (``<NAME>_EXAMPLES`` and ``<NAME>_ERROR_EXAMPLES``: request bodies, or a GET's
    path arguments, that the app answers for openapi.yaml; the service does not import tools/).
    ``localized``: its 200 answer depends on Accept-Language (``Content-Language`` and ``Vary:
    Accept-Language`` on it; a problem always has them).  ``ok``: what its 200 answer is, in a few
    words.  ``parameters``: its path parameters, name -> (description, JSON schema, example).
    ``typed``: the name of the TypedDict of its 200 answer that the library's function returns
    (ningbo_score/answers.py, generated from ``response`` by tools/gen_answers.py).

    A route with a ``request`` schema (:func:`answer`) reads the body within ``body_limit`` bytes
    (None: the app's ``MAX_CONTENT_LENGTH``), loads it with the schema and calls
    ``call(loaded, language, before_each)``, sending its result as JSON.  ``heavy``: True for a
    route whose every request is heavy work (it waits for a heavy turn of the worker and yields
    between its items, service/turns.py's take and between); a predicate on the loaded
    body for one whose hand decides it (waits, analysis); False for the rest.  A route without a
    body calls ``call(**path_args)``: a Response is sent as it is, anything else as JSON.  ``doc``:
    the operation's summary in openapi.yaml, then after a blank line its description.  The Flask
    endpoint is the operation id, or else the call's name."""
    method: str
    path: str
    operation: str | None
    tag: str | None
    request: Schema | None
    response: Schema | None
    call: typing.Callable[..., typing.Any]
    body_limit: int | None = None
    heavy: bool | typing.Callable[[typing.Any], bool] = False
    doc: str = ""
    ok: str = ""
    errors: typing.Mapping[int, str] = field(default_factory=dict)
    examples: str | None = None
    localized: bool = False
    parameters: typing.Mapping[str, tuple[str, dict[str, typing.Any], str]] = field(default_factory=dict)
    typed: str | None = None

    def __post_init__(self) -> None:
        assert (self.operation is None) == (self.tag is None), self.path
        assert self.request is not None or (self.body_limit is None and self.heavy is False), self.path
        # an operation of openapi.yaml says what its 200 is and has examples; a page has neither
        assert (self.operation is None) == (not self.ok) == (self.examples is None), self.path
        assert self.request is None or {400, 415} <= set(self.errors), f"{self.path}: a body's 400 and 415"
        assert 413 not in self.errors and 500 not in self.errors, f"{self.path}: 413 and 500 are every route's"

    @property
    def max_body(self) -> int | None:
        """The most bytes its body may hold (None: no body)."""
        return None if self.request is None else (self.body_limit or MAX_BODY_BYTES)

    @property
    def endpoint(self) -> str:
        return self.operation or self.call.__name__

    @property
    def flask_path(self) -> str:
        return re.sub(r"\{(\w+)(?::(\w+))?\}", lambda m: f"<{m[2]}:{m[1]}>" if m[2] else f"<{m[1]}>", self.path)

    @property
    def summary(self) -> str:
        return self.doc.split("\n\n", 1)[0]

    @property
    def description(self) -> str | None:
        parts = self.doc.split("\n\n", 1)
        return parts[1] if len(parts) > 1 else None


def answer(route: Route, path_args: dict[str, typing.Any]) -> Response:
    """The one view of every route (:class:`Route`)."""
    if route.request is None:
        result = route.call(**path_args)
        return result if isinstance(result, Response) else json_response(result)
    loaded = fields.load(route.request, json_body(route.body_limit, heavy=route.heavy is True))
    before_each = None
    if route.heavy is True:
        before_each = turns.get().between(request.environ)      # other requests run between its items
    elif route.heavy and route.heavy(loaded):
        # an expensive hand: wait for a heavy turn, then yield between its waits (as a batch)
        turns.get().take(request.environ, 0, heavy=True)
        before_each = turns.get().between(request.environ)
    return json_response(route.call(loaded, language(), before_each))


#: Every route of the service, each declared here alone.  It drives the Flask routes
#: (:func:`register_routes`, one view: :func:`answer`), openapi.yaml's operations, their ids,
#: tags, summaries, descriptions, request/response schemas and body limits, and which routes are
#: in it at all (tools/gen_openapi.py), and the response schema each 200 is checked against
#: (RESPONSE_SCHEMAS, tests/conftest.py).
ROUTES: tuple[Route, ...] = (
    Route("POST", "/v1/score", "score", "scoring", request_schemas.SCORE_REQUEST, schemas.score_response,
          lambda hand, lang, _: ningbo_score.score(hand, lang),
          typed="ScoreAnswer", ok="The score.", examples="SCORE", localized=True,
          errors={400: "Not JSON (`malformed_json`), or wrong types, unknown fields or unknown tiles "
                       "(`invalid_request`).",
                  415: NOT_JSON_TYPE,
                  422: "Well-formed but impossible, or not a win (`wrong_tile_count`, `too_many_copies`, "
                       "`invalid_meld`, `caishen_in_meld`, `winning_tile_not_in_hand`, `inconsistent_win_context`, "
                       "`discard_win_not_allowed`, `caishen_needs_self_draw`, `not_a_winning_hand`, "
                       "`invalid_request`)."},
          doc=(
              "Score a winning hand\n\n"
              "台 items, points and payments of one hand (docs/api.md). A well-formed hand that is "
              "impossible or not a win is a 422; one below the minimum 台 is a 200 with `eligible: false` "
              "and the `reasons`.")),
    Route("GET", "/v1/rules", "listRules", "rules", None, schemas.preset_list, list_rules,
          typed="Rulebook", ok="The rule book's version, its changes and the presets.", examples="RULES",
          doc="The rule book: its version, what rule book 4 changed, every preset"),
    Route("GET", "/v1/rules/{preset}", "getRules", "rules", None, schemas.preset_one, get_rules,
          typed="Preset", ok="The preset.", examples="PRESET", errors={404: "No such preset (`not_found`)."},
          # open, as the ids /v1/rules lists: a client may ask for any id it was given
          parameters={"preset": ("A preset id: one of `GET /v1/rules`'s (an id this version does not know is a 404 "
                                 "`not_found`).", {"$ref": "#/components/schemas/OpenPresetId"}, "ningbo")},
          doc="One preset with its options and item table"),
    Route("GET", "/healthz", "health", "ops", None, schemas.health, healthz,
          ok="The service is up.", examples="HEALTH",
          doc="Liveness"),
    Route("GET", "/readyz", "ready", "ops", None, schemas.ready, readiness.readyz,
          ok="Ready to serve.", examples="READY",
          errors={503: "Not ready (`not_ready`): `errors` names the failing checks."},
          doc="Readiness: the engine scores docs/api.md's worked example right"),
    Route("POST", "/v1/waits", "waits", "scoring", request_schemas.WAITS_REQUEST, schemas.waits_response,
          lambda hand, lang, turns: ningbo_score.waits(hand, lang, turns), heavy=heavy_hand,
          typed="WaitsAnswer", ok="The waits.", examples="WAITS", errors=HAND_ERRORS, localized=True,
          doc=(
              "What a hand waits on (听牌), and what each wait is worth\n\n"
              "The `/v1/score` request with the hand *before* its winning tile (13 − 3 × melds concealed "
              "tiles; no `hand.winning_tile`, no `win.by`). Every tile that completes the hand and has a "
              "copy left, with the `/v1/score` answer for a self-draw of it and for a win on a discard "
              "from `win.from` (default: the player's 上家), or the problem that refuses that win. A hand "
              "that waits on nothing is a 200 with `waits: []`. When every tile completes it (caishen), "
              "`any_tile` is true and tiles with the same outcome share one entry (`same_for`).")),
    Route("POST", "/v1/analyze", "analyze", "scoring", request_schemas.ANALYZE_REQUEST, schemas.analyze_response,
          lambda loaded, lang, turns: ningbo_score.analyze(loaded, lang, turns), heavy=_heavy_analysis,
          typed="AnalyzeAnswer", ok="The analysis.", examples="ANALYZE", errors=HAND_ERRORS, localized=True,
          doc=(
              "What to do with a hand that has not won: shanten (向听), improving tiles, discards\n\n"
              "A `/v1/waits` body whose hand holds 13 − 3 × melds concealed tiles (waiting to draw) or 14 "
              "− 3 × melds (it has drawn), and `visible`, the tiles seen elsewhere. The shanten (caishen "
              "stand for any tile; copy limits ignored), every tile that lowers it with its unseen copies, "
              "and at tenpai each wait with its value by self-draw and by discard as `/v1/waits` gives it. "
              "14 tiles: one entry per kind that can be discarded, best first. With `objective: value`, each "
              "discard (or the 13-tile hand) also gets `win_probability` and `expected_points` over "
              "`draws_left` draws (the exact model of docs/api.md, \"Advice by value\") and the discards are "
              "ranked by them. Bad input gets what `/v1/waits` gives it.")),
    Route("POST", "/v1/score/batch", "scoreBatch", "scoring", request_schemas.BATCH_REQUEST, schemas.batch_response,
          _count_refused(lambda items, lang, each: ningbo_score.score_batch(items, lang, each)),
          body_limit=MAX_BATCH_BODY_BYTES, heavy=True, typed="BatchAnswer", ok="One result per request.",
          examples="BATCH",
          localized=True,
          errors=batch_errors("requests", ningbo_score.MAX_BATCH),
          doc=(
              "Score up to 200 hands in one call\n\n"
              "`{\"requests\": [score request, …]}`: one result per request, in order, each the `/v1/score` "
              "answer (`score`) or its problem (`problem`, with the status `/v1/score` would have "
              "answered). A bad hand never fails the batch; each item must be a JSON object and is checked "
              "on its own. Bodies up to 1 MiB.")),
    Route("POST", "/v1/table/next", "nextHand", "table", request_schemas.NEXT_HAND_REQUEST, schemas.next_hand_response,
          lambda loaded, _lang, _: table.next_hand(loaded),
          typed="NextHandAnswer", ok="The next hand's table.", examples="NEXT", errors=BODY_ERRORS,
          doc=(
              "Who deals the next hand, every seat wind and the round wind\n\n"
              "docs/rules.md §8. Players are positions 0–3 in play order. The dealer keeps the deal when "
              "it wins, and when the hand is drawn where the rules' `draw_keeps_dealer` is on (连庄; `rules` "
              "as in `/v1/score`, default `ningbo`: on); otherwise the dealer's next position deals, and "
              "after the round's fourth dealer the deal returns to the round's first dealer and the round "
              "wind advances (E → S → W → N → E). Send the answer's `dealer`, `round_wind` and "
              "`dealers_this_round` back with the next hand's `result`.")),
    Route("POST", "/v1/sessions/settle", "settleSession", "sessions", session_requests.SESSION_REQUEST,
          schemas.session_response, lambda hands, lang, each: sessions.settle(hands, lang, each),
          body_limit=MAX_SESSION_BODY_BYTES, heavy=True, typed="SessionAnswer", ok="The session settled.",
          examples="SESSION",
          errors={400: "Not JSON (`malformed_json`), or not a session of at most "
                       f"{sessions.MAX_HANDS} hands, or a hand's body refused by its own schema (`invalid_request`).",
                  415: NOT_JSON_TYPE,
                  422: "A hand refused by its endpoint (its code, with `hand_index`), a declared win under "
                       "the minimum (`below_minimum`, with `hand_index`), a hand whose "
                       "`round_wind` contradicts the rotation (`dealer_sequence`), a `net` that does not "
                       "sum to 0, a name of nobody at the table, a seat named twice or a running total past "
                       "2^53 − 1 (`invalid_request`)."},
          doc=(
              "Settle a session: rotation, running totals and the fewest transfers\n\n"
              "Four `players` in seating order, the `first_dealer` and the `hands` in play order (at most "
              f"{sessions.MAX_HANDS}): each a `/v1/replay` log (`replay`), a `/v1/score` body "
              "(`score`, the winner by its "
              "`seat_wind`), a `draw`, a `net` scored elsewhere (by seat or player, summing to 0) or a "
              "`penalty` (`escape`: that seat or player pays 24 × base points; the session's "
              "`escape_penalty_to` says who receives it: `house`, nobody at the table, or `table`, 8 × base "
              "to each other player). A declared win under the minimum is no win: a 422 `below_minimum` "
              "(`illegal_event` for a replay) with `hand_index`. The deal moves "
              "after each hand as `/v1/table/next` moves it (docs/rules.md §8, the session's "
              "`draw_keeps_dealer`; a `net` or `penalty` moves it like a draw); a hand may leave its "
              "`round_wind` out, and one that contradicts the rotation is a 422 `dealer_sequence`. A "
              "hand's `rules` and `base_points` default to the session's. The answer: the `players`, each "
              "hand with its dealer, winner, net and running totals (players by their position in "
              "`players`), the `totals`, what is owed to the `house`, the fewest `transfers` that "
              "settle the rest (exact; ties: the smallest largest transfer, then the first by (from, to) in "
              "`players` order), `stats` per player and the `next` hand's table. A hand that fails is its "
              "own endpoint's problem with `hand_index` (and, for a replay, `event_index` and `reason`); "
              "its field paths are within that hand's body. Bodies up to 1 MiB.")),
    Route("POST", "/v1/table/claims", "claims", "table", request_schemas.CLAIMS_REQUEST, schemas.claims_response,
          lambda loaded, lang, _: table.claims(loaded, lang),
          typed="ClaimsAnswer", ok="The claim that takes it.", examples="CLAIMS", localized=True,
          errors={**BODY_ERRORS, 422: "Claims that can't happen at a table (`invalid_request`): the discarder "
                                      "claiming its own discard, a seat claiming twice, a chow from a seat other "
                                      "than the discarder's next, two seats both punging or konging."},
          doc=(
              "Which claim takes a discard\n\n"
              "docs/rules.md §8: a win beats a pung or kong, which beats a chow; of several wins the first "
              "in play order after the discarder takes it (截胡; one discard, one winner). A chow is only "
              "for the discarder's next seat. `reason` follows `Accept-Language`.")),
    Route("GET", "/v1/levels", "levels", "table", None, schemas.levels_response, lambda: table.levels(),
          typed="LevelsAnswer", ok="The levels.", examples="LEVELS",
          doc=(
              "The level table (级别) of the 456 rules\n\n"
              "Each level's name, the points (积分) it needs and its base points (对局分).")),
    Route("POST", "/v1/table/escape", "escape", "table", request_schemas.ESCAPE_REQUEST, schemas.escape_response,
          lambda loaded, _lang, _: table.escape(loaded),
          typed="EscapeAnswer", ok="The penalty.", examples="ESCAPE", errors=BODY_ERRORS,
          doc=(
              "The penalty for leaving a game (逃跑)\n\n"
              "24 × the base points, given directly or as a level of `GET /v1/levels` (docs/rules.md §8). "
              "Who receives it is the `rules`' `escape_penalty_to` (`to`): `house` in every preset, so the "
              "others gain nothing from it (`each_other` 0); `table`: 8 × base to each other player.")),
    Route("POST", "/v1/replay", "replay", "scoring", replay_requests.REPLAY_REQUEST, schemas.replay_response,
          lambda log, lang, _: replay_loaded(log, lang),
          typed="ReplayAnswer", ok="The hand replayed.", examples="REPLAY", localized=True,
          errors={**BODY_ERRORS, 422: "An illegal event (`illegal_event`, with `event_index`, `reason`, `expected`, "
                                      "`state`), or a win `/v1/score` refuses (its code, with `event_index` and "
                                      "`score_request`)."},
          doc=(
              "Replay a hand's log: check every event, derive the win, score it\n\n"
              "One hand's log (the deal and every event in play order, ending in `win` or "
              "`exhaustive_draw`; at most 400 events) is checked event by event against the rule book. At "
              "the win, the `/v1/score` body its context makes (`score_request`: `win.by`/`from`, "
              "`kong_replacement`, `kong_fed_by`, `last_tile`, `heavenly`, `earthly`, `discarded_caishen`, "
              "`claims_from_winner`, the melds' `from`) is scored as `/v1/score` scores it (`score`); "
              "`evidence` names the events that decided each field; `next` is the `/v1/table/next` answer. "
              "A log that breaks a rule: 422 `illegal_event` with `event_index`, `reason`, `expected` and "
              "`state`; a win `/v1/score` refuses: its code with the win's `event_index`.")),
    Route("POST", "/v1/replay/batch", "replayBatch", "scoring", replay_requests.REPLAY_BATCH_REQUEST,
          schemas.replay_batch_response,
          _count_refused(lambda logs, lang, each: replay_batch(logs, lang, each)),
          body_limit=MAX_BATCH_BODY_BYTES, heavy=True, typed="ReplayBatchAnswer", ok="One result per log.",
          examples="REPLAY_BATCH",
          localized=True,
          errors=batch_errors("logs", MAX_LOGS),
          doc=(
              "Replay up to 50 logs in one call\n\n"
              "`{\"logs\": [replay request, …]}`: one result per log, in order, each the `/v1/replay` answer "
              "(`replay`) or its problem (`problem`, with the status `/v1/replay` would have answered). A "
              "bad log never fails the batch. Bodies up to 1 MiB.")),
    Route("POST", "/v1/table/actions", "tableActions", "table", replay_requests.ACTIONS_REQUEST,
          schemas.actions_response,
          lambda loaded, lang, _: ningbo_score.actions(loaded, lang),
          typed="ActionsAnswer", ok="What each seat may do now.", examples="ACTIONS",
          errors={**BODY_ERRORS, 422: "A prefix that breaks a rule: the `/v1/replay` 422 at its first illegal event "
                                      "(`illegal_event`, with `event_index`, `reason`, `expected`, `state`, or a win "
                                      "`/v1/score` refuses)."},
          doc=(
              "The referee: what each seat may do now\n\n"
              "A `/v1/replay` body whose `events` stop anywhere (the empty log included), optionally `for` a "
              "seat. The answer's `phase`, `turn` and `state` (live tiles, tiles per seat, melds, flowers, the "
              "last discard) and `actions`: every event `/v1/replay` would accept as the log's next one, each "
              "once (a `draw` without its tile; a `win` only where it scores a win, with its `score`; "
              "`priority` on the claims of a discard: win 1, pung/kong 2, chow 3, the draw 4). `for` a seat: "
              "its actions only, and no tile of another seat's hand. A prefix that breaks a rule: the "
              "`/v1/replay` 422 at that event.")),
    # the service's pages (no operations of openapi.yaml); WhiteNoise serves the calculator's
    # files under /static/ (service/static.py)
    Route("GET", "/", None, None, None, None, calculator),
    Route("GET", "/sw.js", None, None, None, None, service_worker),
    Route("GET", "/docs", None, None, None, None, docs),
    Route("GET", "/docs/", None, None, None, None, docs),
    Route("GET", "/docs/swagger-initializer.js", None, None, None, None, docs_init),
    Route("GET", "/docs/static/{filename:path}", None, None, None, None, docs_static),
    Route("GET", "/openapi.yaml", None, None, None, None, openapi_yaml),
)

# The library's results already have exactly the shapes of the response schemas, so they are
# sent as they are: a marshmallow dump per request would only copy them, at about twice the cost
# of scoring a hand.  The tests dump every 200 answer through its schema here and require it to
# come out unchanged (tests/conftest.py), besides validating it against openapi.yaml.
RESPONSE_SCHEMAS: dict[str, Schema] = {r.endpoint: r.response for r in ROUTES if r.response is not None}
#: each route by its Flask endpoint (/docs and /docs/ share one)
BY_ENDPOINT: dict[str, Route] = {r.endpoint: r for r in ROUTES}


def _view(route: Route) -> typing.Callable[..., Response]:
    def view(**path_args: typing.Any) -> Response:
        return answer(route, path_args)
    view.__name__ = route.endpoint
    return view


def register_routes(app: Flask) -> None:
    views: dict[str, typing.Callable[..., Response]] = {}   # one view per endpoint (/docs and /docs/ share one)
    for route in ROUTES:
        view = views.setdefault(route.endpoint, _view(route))
        app.add_url_rule(route.flask_path, endpoint=route.endpoint, view_func=view, methods=[route.method])
