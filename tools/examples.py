"""Example requests of ``openapi.yaml``: docs/api.md's worked example and hands worked out by hand in
``tests/http/test_api.py`` (the expected results, with their arithmetic, are there)."""
from __future__ import annotations

import copy
import typing

from ningbo_score import MAX_BATCH
from ningbo_score.readers.replay_requests import MAX_LOGS
from ningbo_score.readers.session_requests import MAX_HANDS
from service.observability.readiness import READY_HAND

# Each route of service/routes.py names its example set here (its ``examples``): ``<NAME>_EXAMPLES``
# and, if it has any, ``<NAME>_ERROR_EXAMPLES``, each ``name -> (summary, body[, how])``: a POST's
# request body, or a GET's path arguments (None: none).  tools/gen_openapi.py sends each to the app
# and writes the answer into openapi.yaml under its status.  ``how`` (:class:`How`) says how an
# example is sent or shown where that is not a JSON body shown as it is.


class How(typing.TypedDict, total=False):
    headers: dict[str, str]     # request headers (Accept-Language: zh)
    data: bytes                 # the body as these bytes, of ``content_type``, not as JSON
    content_type: str
    too_large: bool             # a body one byte over the route's limit (its summary's {limit} filled in)
    hidden: bool                # the request is too big to show (no request example, no "The answer to …")
    last: bool                  # after the body problems of BODY_PROBLEMS (the order of openapi.yaml's examples)
    answer: typing.Any          # the answer as given, not asked of the app (readiness in production)


#: What every route with a body answers to a body that is no JSON, or too large (added by
#: tools/gen_openapi.py to every such route's examples).
BODY_PROBLEMS: dict[str, tuple[str, typing.Any, How]] = {
    "malformed_json": ("A body that is not JSON", None, {"data": b"{", "content_type": "application/json"}),
    "unsupported_media_type": ("A body that is not JSON", None,
                               {"data": b"a=1", "content_type": "application/x-www-form-urlencoded"}),
    "payload_too_large": ("A body over {limit}", None, {"too_large": True}),
}
ZH: How = {"headers": {"Accept-Language": "zh"}, "last": True}

# docs/api.md: 排胡 0 + 自摸 1 + 硬胡 1 + 中 pung 1 + 正花 1 = 4 台; linear: 1 × (1 + 4) = 5 from each.
# The same hand the readiness check scores (one copy of it in the code).
API_MD = copy.deepcopy(READY_HAND)

# South wins on West's discard, 8s in the middle of 7s-8s-9s; three melds were claimed from East,
# so East is related (包).  夹 1 + 硬胡 1 + 发 pung 1 + 正花 (6f) 1 = 4 台.
DISCARD_LIABILITY = {
    "rules": "ningbo",
    "seat_wind": "S",
    "round_wind": "E",
    "caishen": {"indicator": "1p"},
    "hand": {
        "concealed": "789s 44s",
        "winning_tile": "8s",
        "melds": [
            {"type": "chow", "tiles": "123m", "from": "E"},
            {"type": "pung", "tiles": "555p", "from": "E"},
            {"type": "pung", "tiles": ["发", "发", "发"], "from": "E"},
        ],
        "flowers": ["6f"],
    },
    "win": {"by": "discard", "from": "W"},
    "base_points": 2,
}

# The same hand under the 456 rules: doubling points and a liability cap.
DISCARD_LIABILITY_456 = {**DISCARD_LIABILITY, "rules": {"preset": "ningbo-456"}}

# All chows, two-sided wait on 4m, no caishen this hand: 平胡 1 + 硬胡 1 = 2 台 < 4: not eligible.
INELIGIBLE = {
    "seat_wind": "N",
    "round_wind": "E",
    "hand": {"concealed": "123m 456m 789p 234s 55s", "winning_tile": "4m"},
    "win": {"by": "discard", "from": "W"},
}

# Compact strings, Chinese names and an item_tai override: docs/api.md's hand with 硬胡 worth 0.
ITEM_TAI_OVERRIDE = {
    "rules": {"preset": "ningbo", "item_tai": {"no_caishen": 0}},
    "seat_wind": "S",
    "round_wind": "E",
    "caishen": {"indicator": "五饼"},
    "hand": {
        "concealed": "234m 678m 9s9s",
        "winning_tile": "4m",
        "melds": [
            {"type": "pung", "tiles": "CCC", "from": "E"},
            {"type": "kong", "tiles": "1111s", "concealed": True},
        ],
        "flowers": "夏",
    },
    "win": {"by": "self_draw"},
}

# 422: 13 concealed tiles where a hand without melds holds 14.
WRONG_TILE_COUNT = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": "123m 456m 789p 234s 5s", "winning_tile": "5s"},
    "win": {"by": "self_draw"},
}

# 422: 14 tiles that make no 4 sets and a pair.
NOT_A_WINNING_HAND = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": "135m 246p 1357s EE SS", "winning_tile": "E"},
    "win": {"by": "self_draw"},
}

# 400: an unknown tile code and an unknown field.
INVALID_REQUEST = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": ["1m", "2m", "3x"], "winning_tile": "1m"},
    "win": {"by": "self_draw", "when": "now"},
}

SCORE_EXAMPLES = {
    "api_md": ("docs/api.md's worked example: self-draw, 4 台", API_MD),
    "discard_liability": ("A discard win with a related player (包)", DISCARD_LIABILITY),
    "discard_liability_456": ("The same hand under the 456 rules (doubling)", DISCARD_LIABILITY_456),
    "ineligible": ("A hand below the minimum of 4 台", INELIGIBLE),
    "item_tai_override": ("Compact strings, Chinese names and an item_tai override", ITEM_TAI_OVERRIDE),
}
SCORE_ERROR_EXAMPLES: dict[str, tuple[str, typing.Any] | tuple[str, typing.Any, How]] = {
    "invalid_request": ("An unknown tile and an unknown field (400)", INVALID_REQUEST),
    "wrong_tile_count": ("13 tiles without melds (422)", WRONG_TILE_COUNT),
    "not_a_winning_hand": ("No 4 sets and a pair (422)", NOT_A_WINNING_HAND),
    "invalid_request_zh": ("The same, in Chinese (Accept-Language: zh)", INVALID_REQUEST, ZH),
}

# --- the GET routes: their path arguments ----------------------------------------------------

RULES_EXAMPLES = {"presets": ("The five presets of docs/rules.md §9", None)}
PRESET_EXAMPLES = {"ningbo": ("The default preset", {"preset": "ningbo"})}
PRESET_ERROR_EXAMPLES = {"not_found": ("An unknown preset", {"preset": "ningbo-xx"})}
HEALTH_EXAMPLES = {"ok": ("Up", None)}
#: (as a pod answers it: the metrics' directory is checked where gunicorn gives one)
READY_EXAMPLES: dict[str, tuple[str, typing.Any, How]] = {"ready": ("Ready", None, {"answer": {
    "status": "ready", "checks": {"engine": "ok", "metrics_dir": "ok"}}})}
LEVELS_EXAMPLES = {"levels": ("The 17 levels of 000 (456游戏, 2010-9-19)", None)}


# --- POST /v1/waits (expected answers worked out in tests/http/test_api_live.py) --------------------

# S, round E, no caishen: 23456m 789p 234s 55s waits on 1m, 4m and 7m (三面听).
WAITS_THREE_SIDED = {
    "rules": "ningbo",
    "seat_wind": "S",
    "round_wind": "E",
    "hand": {"concealed": "23456m 789p 234s 55s", "flowers": "2f"},
}

# E (the dealer), round E: 13m 567m 789m EEE SS waits on 2m only (夹).
WAITS_CLOSED = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": "13m 567m 789m EEE SS"},
}

# A hand that waits on nothing (not 听牌): 200 with no waits.
WAITS_NOTHING = {
    "seat_wind": "S",
    "round_wind": "E",
    "hand": {"concealed": "147m 147p 147s ESWN"},
}

# Four melds and a lone caishen (indicator 5p): any tile completes it, but only by self-draw.
WAITS_ANY_TILE = {
    "seat_wind": "S",
    "round_wind": "E",
    "caishen": {"indicator": "5p"},
    "hand": {
        "concealed": "5p",
        "melds": [
            {"type": "chow", "tiles": "123m", "from": "E"},
            {"type": "pung", "tiles": "999m", "from": "W"},
            {"type": "chow", "tiles": "456m", "from": "E"},
            {"type": "pung", "tiles": "777m", "from": "N"},
        ],
    },
}

# 400: a waits hand has no winning tile yet.
WAITS_WITH_WINNING_TILE = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": "13m 567m 789m EEE SS", "winning_tile": "2m"},
}

# 422: 14 tiles where the hand before its winning tile holds 13.
WAITS_FOURTEEN = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": "123m 567m 789m EEE SS"},
}

WAITS_EXAMPLES = {
    "closed": ("One wait: 2m in the middle of 1-3m", WAITS_CLOSED),
    "any_tile": ("A lone caishen: any tile, by self-draw only", WAITS_ANY_TILE),
    "nothing": ("A hand that waits on nothing", WAITS_NOTHING),
}
WAITS_ERROR_EXAMPLES = {
    "invalid_request": ("A winning tile in a waits request (400)", WAITS_WITH_WINNING_TILE),
    "wrong_tile_count": ("14 tiles where 13 are due (422)", WAITS_FOURTEEN),
}

# --- POST /v1/analyze -------------------------------------------------------------------------

# E (the dealer), round E, after its draw: 13m 567m 789m EEE SS 9s.  Discarding 9s leaves the
# closed wait on 2m; the other player has discarded a 2m (visible).
ANALYZE_DRAWN = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": "13m 567m 789m EEE SS 9s"},
    "visible": "2m",
}

# S, round E, before its draw, one tile from tenpai (shanten 1), a caishen (indicator 5p) in hand.
ANALYZE_WAITING = {
    "seat_wind": "S",
    "round_wind": "E",
    "caishen": {"indicator": "5p"},
    "hand": {"concealed": "13m 468p 24s EEE C 5p"},
}

# 422: 12 tiles, where 13 (before a draw) or 14 (after it) are due.
ANALYZE_TWELVE = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": "13m 567m 789m EEE S"},
}

ANALYZE_EXAMPLES = {
    "drawn": ("14 tiles: what to discard", ANALYZE_DRAWN),
    "waiting": ("13 tiles with a caishen: the shanten and the improving tiles", ANALYZE_WAITING),
}
ANALYZE_ERROR_EXAMPLES = {
    "invalid_request": ("A winning tile, as in a waits request (400)", WAITS_WITH_WINNING_TILE),
    "wrong_tile_count": ("12 tiles where 13 or 14 are due (422)", ANALYZE_TWELVE),
}

# --- POST /v1/score/batch ---------------------------------------------------------------------

BATCH = {"requests": [API_MD, WRONG_TILE_COUNT, {**INELIGIBLE, "seat_wind": "X"}]}
BATCH_EXAMPLES = {
    "mixed": ("docs/api.md's example, 13 tiles (422) and an unknown seat (400)", BATCH),
}
BATCH_ERROR_EXAMPLES: dict[str, tuple[str, typing.Any] | tuple[str, typing.Any, How]] = {
    "invalid_request": ("`requests` is not an array (400)", {"requests": API_MD}),
    "batch_too_large": (f"{MAX_BATCH + 1} requests (400 invalid_request)", {"requests": [{}] * (MAX_BATCH + 1)},
                        {"hidden": True, "last": True}),
}

# --- POST /v1/sessions/settle -----------------------------------------------------------------

def _no_round(body: dict) -> dict:
    """A /v1/score body without its round_wind: the session fills in the rotation's."""
    return {k: v for k, v in body.items() if k != "round_wind"}


# Ann deals first.  Bo (S) self-draws docs/api.md's hand (4 台, 5 from each); Bo deals and the
# hand is drawn (Bo deals again); Cy (S under Bo) wins the 包 hand on Di's (W) discard, base 2:
# 4 台, 2 × (1 + 4) = 10, Di pays 2 × 10 and Bo (E, 3 melds claimed from it) 2 × 10; Cy deals a
# hand scored elsewhere (E +6); Bo (N under Cy) leaves the game: 24 × 1, 8 to each other.
SESSION = {
    "rules": "ningbo",
    "players": ["Ann", "Bo", "Cy", "Di"],
    "first_dealer": "Ann",
    "hands": [
        {"score": _no_round(API_MD)},
        {"draw": True},
        {"score": _no_round(DISCARD_LIABILITY)},
        {"net": {"E": 6, "S": -2, "W": -2, "N": -2}},
        {"penalty": {"escape": "N"}},
    ],
}
SESSION_EXAMPLES = {
    "session": ("Two wins, a draw, a hand scored elsewhere and an escape (owed to the house)", SESSION),
    "names": ("Seats named by players' names; an escape paid to the table (escape_penalty_to)",
              {**SESSION, "rules": {"preset": "ningbo", "escape_penalty_to": "table"},
               "hands": [{"draw": True}, {"net": {"Ann": 6, "Bo": -2, "Cy": -2, "Di": -2}},
                         {"penalty": {"escape": "Cy"}}]}),
}
SESSION_ERROR_EXAMPLES: dict[str, tuple[str, typing.Any] | tuple[str, typing.Any, How]] = {
    "dealer_sequence": ("A hand in the South round while the East round is on (422)",
                        {**SESSION, "hands": [SESSION["hands"][0], {"score": {**API_MD, "round_wind": "S"}}]}),
    "wrong_tile_count": ("A hand refused as /v1/score refuses it, with its hand_index (422)",
                         {**SESSION, "hands": [{"draw": True}, {"score": WRONG_TILE_COUNT}]}),
    "invalid_request": ("A hand that is both a draw and a penalty (400)",
                        {**SESSION, "hands": [{"draw": True, "penalty": {"escape": "W"}}]}),
    "below_minimum": ("A declared win under the minimum: no win, not recorded (422)",
                      {**SESSION, "hands": [{"score": {"seat_wind": "S", "win": {"by": "discard", "from": "W"},
                                                       "hand": {"concealed": "123m 456m 789p 234s 55s",
                                                                "winning_tile": "4m"}}}]}),
    "too_many_hands": (f"{MAX_HANDS + 1} hands (400 invalid_request)",
                       {**SESSION, "hands": [{"draw": True}] * (MAX_HANDS + 1)}, {"hidden": True, "last": True}),
}


# --- POST /v1/table/next ----------------------------------------------------------------------

NEXT_OTHER_WINS = {"dealer": 0, "round_wind": "E", "dealers_this_round": 1, "result": {"winner": 2}}
NEXT_ROUND_CHANGE = {"dealer": 3, "round_wind": "E", "dealers_this_round": 4, "result": {"winner": 1}}
NEXT_DEALER_WINS = {"dealer": 1, "round_wind": "S", "dealers_this_round": 2, "result": {"winner": 1}}
NEXT_DRAW = {"dealer": 2, "round_wind": "W", "dealers_this_round": 3, "result": {"draw": True}}
NEXT_EXAMPLES = {
    "other_wins": ("Another player wins: the deal passes to the dealer's next", NEXT_OTHER_WINS),
    "round_change": ("The round's fourth dealer loses the deal: the South round begins", NEXT_ROUND_CHANGE),
    "dealer_wins": ("The dealer wins: the dealer deals again (连庄)", NEXT_DEALER_WINS),
    "draw": ("A draw: the dealer deals again", NEXT_DRAW),
    "draw_taishu": ("A draw under ningbo-taishu (draw_keeps_dealer off): the next position deals",
                    {**NEXT_DRAW, "rules": "ningbo-taishu"}),
}
NEXT_ERROR_EXAMPLES = {
    "invalid_request": ("A winner and a draw (400)",
                        {"dealer": 0, "round_wind": "E", "dealers_this_round": 5,
                         "result": {"winner": 1, "draw": True}}),
}

# --- POST /v1/table/claims --------------------------------------------------------------------

CLAIMS_INTERCEPT = {"discarder": "S", "claims": [{"seat": "E", "type": "win"}, {"seat": "N", "type": "win"},
                                                 {"seat": "W", "type": "pung"}]}
CLAIMS_PUNG_OVER_CHOW = {"discarder": "E", "claims": [{"seat": "S", "type": "chow"}, {"seat": "N", "type": "pung"}]}
CLAIMS_NONE = {"discarder": "W", "claims": []}
CLAIMS_EXAMPLES = {
    "intercept": ("Two wins and a pung: the first winner after the discarder takes it (截胡)", CLAIMS_INTERCEPT),
    "pung_over_chow": ("A pung beats a chow", CLAIMS_PUNG_OVER_CHOW),
    "none": ("Nobody claims", CLAIMS_NONE),
}
CLAIMS_ERROR_EXAMPLES: dict[str, tuple[str, typing.Any] | tuple[str, typing.Any, How]] = {
    "invalid_request": ("An unknown claim type (400)", {"discarder": "E", "claims": [{"seat": "S", "type": "ron"}]}),
    "invalid_request_422": ("A chow from a seat other than the discarder's next (422)",
                            {"discarder": "E", "claims": [{"seat": "W", "type": "chow"}]}),
    "intercept_zh": ("The same intercept, in Chinese (Accept-Language: zh)", CLAIMS_INTERCEPT, ZH),
}

# --- POST /v1/table/escape --------------------------------------------------------------------

ESCAPE_EXAMPLES = {
    "base_points": ("From the base points", {"base_points": 2}),
    "level": ("From a level of GET /v1/levels (科长: base points 20)", {"level": 3}),
    "table": ("To the table: 8 × base to each other player (escape_penalty_to)",
              {"base_points": 2, "rules": {"preset": "ningbo", "escape_penalty_to": "table"}}),
}
ESCAPE_ERROR_EXAMPLES = {
    "invalid_request": ("Both base_points and level (400)", {"base_points": 2, "level": 3}),
}

# --- POST /v1/replay, /v1/replay/batch ---------------------------------------------------------

#: A whole hand from deal to win (docs/examples.md walks through it): N chows W's 5s (event 10) and
#: punges W's white dragon (26), E chows N's 8m (20), and N wins on E's 4s (37): single wait, 硬胡,
#: 白 pung, seat and round wind pung of N = 5 台.
REPLAY_HAND: dict[str, typing.Any] = {
    "rules": "ningbo", "round_wind": "N", "caishen": {"indicator": "9s"},
    "deal": {"E": "S 3m 3p C W W 2p 7m C 6m 1s 5p 2f", "S": "3s 1m F S 2p 8p 7m 7p 6s 8s 5m F E",
             "W": "1m 8s 9p 7p 4p 9p P 5p 6m 7m 8p 6p 2s", "N": "3s 2s N 2m 8p 8m 4s 4s 4m P E N 3m"},
    "events": [
        {"t": "draw", "seat": "E", "tile": "5f"}, {"t": "flower", "seat": "E", "tile": "2f"},
        {"t": "draw", "seat": "E", "tile": "2p"}, {"t": "flower", "seat": "E", "tile": "5f"},
        {"t": "draw", "seat": "E", "tile": "9m"}, {"t": "discard", "seat": "E", "tile": "1s"},
        {"t": "draw", "seat": "S", "tile": "S"}, {"t": "discard", "seat": "S", "tile": "3s"},
        {"t": "draw", "seat": "W", "tile": "5s"}, {"t": "discard", "seat": "W", "tile": "5s"},
        {"t": "chow", "seat": "N", "tiles": "3s4s5s"}, {"t": "discard", "seat": "N", "tile": "E"},
        {"t": "draw", "seat": "E", "tile": "9s"}, {"t": "discard", "seat": "E", "tile": "3m"},
        {"t": "draw", "seat": "S", "tile": "4p"}, {"t": "discard", "seat": "S", "tile": "E"},
        {"t": "draw", "seat": "W", "tile": "7p"}, {"t": "discard", "seat": "W", "tile": "8s"},
        {"t": "draw", "seat": "N", "tile": "P"}, {"t": "discard", "seat": "N", "tile": "8m"},
        {"t": "chow", "seat": "E", "tiles": "7m8m9m"}, {"t": "discard", "seat": "E", "tile": "6m"},
        {"t": "draw", "seat": "S", "tile": "3p"}, {"t": "discard", "seat": "S", "tile": "1m"},
        {"t": "draw", "seat": "W", "tile": "2m"}, {"t": "discard", "seat": "W", "tile": "P"},
        {"t": "pung", "seat": "N", "tiles": "PPP"}, {"t": "discard", "seat": "N", "tile": "2s"},
        {"t": "draw", "seat": "E", "tile": "5p"}, {"t": "discard", "seat": "E", "tile": "S"},
        {"t": "draw", "seat": "S", "tile": "2p"}, {"t": "discard", "seat": "S", "tile": "8s"},
        {"t": "draw", "seat": "W", "tile": "P"}, {"t": "discard", "seat": "W", "tile": "P"},
        {"t": "draw", "seat": "N", "tile": "N"}, {"t": "discard", "seat": "N", "tile": "8p"},
        {"t": "draw", "seat": "E", "tile": "4s"}, {"t": "discard", "seat": "E", "tile": "4s"},
        {"t": "win", "seat": "N"},
    ],
}
#: The same log with W drawing where S's turn is (event 6): 422 illegal_event out_of_turn.
REPLAY_OUT_OF_TURN = {**REPLAY_HAND, "events": [*REPLAY_HAND["events"][:6], {"t": "draw", "seat": "W", "tile": "S"},
                                                 *REPLAY_HAND["events"][7:]]}
#: The log cut before its win: 422 illegal_event log_not_ended, event_index 38.
REPLAY_NOT_ENDED = {**REPLAY_HAND, "events": REPLAY_HAND["events"][:-1]}
#: S claims the win on E's 4s instead: S's hand makes no 4 sets and a pair (/v1/score's 422, event_index 38).
REPLAY_REFUSED_WIN = {**REPLAY_HAND, "events": [*REPLAY_HAND["events"][:-1], {"t": "win", "seat": "S"}]}
#: A wall of one live tile: E draws it, discards, nobody claims: 荒庄.
REPLAY_DRAW = {
    "round_wind": "E", "live_tiles": 1,
    "deal": {"E": "123m 456m 789m 123p E", "S": "123s 456s 789s 456p S", "W": "111m 222p 333s 999p W",
             "N": "444s 555s 666p 777p N"},
    "events": [{"t": "draw", "seat": "E", "tile": "C"}, {"t": "discard", "seat": "E", "tile": "C"},
               {"t": "exhaustive_draw"}],
}
REPLAY_EXAMPLES = {
    "whole_hand": ("A whole hand, deal to win (docs/examples.md)", REPLAY_HAND),
    "exhaustive_draw": ("One live tile, drawn and discarded: an exhaustive draw", REPLAY_DRAW),
}
REPLAY_ERROR_EXAMPLES = {
    "out_of_turn": ("W draws in S's turn (422 illegal_event, reason out_of_turn)", REPLAY_OUT_OF_TURN),
    "log_not_ended": ("A log cut before its win (422 illegal_event, reason log_not_ended)", REPLAY_NOT_ENDED),
    "not_a_winning_hand": ("A win /v1/score refuses: its code, with the win's event_index", REPLAY_REFUSED_WIN),
    "invalid_request": ("An unknown event type (400)",
                        {**REPLAY_DRAW, "events": [{"t": "ron", "seat": "S"}]}),
}
# --- POST /v1/table/actions ----------------------------------------------------------------------

#: A hand walked through three decisions (docs/examples.md, docs/api.md; tests/play/test_actions.py
#: works each answer out by hand): S draws a flower holding four 7m (prefix 3: a concealed kong
#: and a flower), W adds the fourth 6s to its pung while N waits on 3s/6s (prefix 24: N may rob
#: it), E discards 3s that S may pung and N may win on (prefix 30); N wins.
ACTIONS_HAND: dict[str, typing.Any] = {
    "rules": "ningbo", "round_wind": "E",
    "deal": {"E": "1m 2m 3m 9m 9m 2p 3p 4p 6p 7p 8p 3s 6s", "S": "7m 7m 7m 7m 2m 5m 8m 1p 4p 7p 3s 3s N",
             "W": "6s 6s 1m 4m 9p 2p 5p 8p E E S W P", "N": "C C C F F F 1s 2s 3s 4s 5s 9s N"},
    "events": [
        {"t": "draw", "seat": "E", "tile": "1p"}, {"t": "discard", "seat": "E", "tile": "1p"},
        {"t": "draw", "seat": "S", "tile": "1f"},
        {"t": "concealed_kong", "seat": "S", "tile": "7m"}, {"t": "draw", "seat": "S", "tile": "9p"},
        {"t": "flower", "seat": "S", "tile": "1f"}, {"t": "draw", "seat": "S", "tile": "S"},
        {"t": "discard", "seat": "S", "tile": "S"},
        {"t": "draw", "seat": "W", "tile": "1m"}, {"t": "discard", "seat": "W", "tile": "1m"},
        {"t": "draw", "seat": "N", "tile": "8s"}, {"t": "discard", "seat": "N", "tile": "8s"},
        {"t": "draw", "seat": "E", "tile": "W"}, {"t": "discard", "seat": "E", "tile": "6s"},
        {"t": "pung", "seat": "W", "tiles": "6s6s6s"}, {"t": "discard", "seat": "W", "tile": "P"},
        {"t": "draw", "seat": "N", "tile": "9s"}, {"t": "discard", "seat": "N", "tile": "N"},
        {"t": "draw", "seat": "E", "tile": "7s"}, {"t": "discard", "seat": "E", "tile": "7s"},
        {"t": "draw", "seat": "S", "tile": "8s"}, {"t": "discard", "seat": "S", "tile": "8s"},
        {"t": "draw", "seat": "W", "tile": "6s"}, {"t": "added_kong", "seat": "W", "tile": "6s"},
        {"t": "draw", "seat": "W", "tile": "2s"}, {"t": "discard", "seat": "W", "tile": "2s"},
        {"t": "draw", "seat": "N", "tile": "5p"}, {"t": "discard", "seat": "N", "tile": "5p"},
        {"t": "draw", "seat": "E", "tile": "8m"}, {"t": "discard", "seat": "E", "tile": "3s"},
        {"t": "win", "seat": "N"},
    ],
}


def actions_prefix(n: int, **more: typing.Any) -> dict[str, typing.Any]:
    """ACTIONS_HAND cut after its first ``n`` events (a /v1/table/actions body)."""
    return {**ACTIONS_HAND, "events": ACTIONS_HAND["events"][:n], **more}


#: the three decisions: S's turn (a concealed kong and a flower), W's added kong (N may rob it),
#: E's 3s (S may pung, N may win)
ACTIONS_KONG_AND_FLOWER = actions_prefix(3)
ACTIONS_ROBBABLE_KONG = actions_prefix(24)
ACTIONS_PUNG_AND_WIN = actions_prefix(30)
ACTIONS_EXAMPLES = {
    "kong_and_flower": ("S's turn: a concealed kong of 7m, the flower 1f, or a discard", ACTIONS_KONG_AND_FLOWER),
    "robbable_kong": ("W adds 6s to its pung: N may rob it (win 1), else W's replacement draw (4)",
                      ACTIONS_ROBBABLE_KONG),
    "pung_and_win": ("E discards 3s: N may win on it (1), S may pung it (2), else S draws (4)", ACTIONS_PUNG_AND_WIN),
    "for_a_seat": ("The same discard, for N only", actions_prefix(30, **{"for": "N"})),
    "empty_log": ("Before any event: the dealer draws", actions_prefix(0)),
}
ACTIONS_ERROR_EXAMPLES = {
    "out_of_turn": ("A prefix that breaks a rule: the /v1/replay 422 at that event",
                    {**ACTIONS_HAND, "events": [*ACTIONS_HAND["events"][:2], {"t": "draw", "seat": "W", "tile": "S"}]}),
    "invalid_request": ("`for` is no seat (400)", actions_prefix(3, **{"for": "X"})),
}
REPLAY_BATCH_EXAMPLES = {
    "mixed": ("The whole hand, the exhaustive draw and an out-of-turn draw",
              {"logs": [REPLAY_HAND, REPLAY_DRAW, REPLAY_OUT_OF_TURN]}),
}
REPLAY_BATCH_ERROR_EXAMPLES: dict[str, tuple[str, typing.Any] | tuple[str, typing.Any, How]] = {
    "invalid_request": ("`logs` is not an array (400)", {"logs": REPLAY_DRAW}),
    "batch_too_large": (f"{MAX_LOGS + 1} logs (400 invalid_request)", {"logs": [{}] * (MAX_LOGS + 1)},
                        {"hidden": True, "last": True}),
}
