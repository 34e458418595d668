"""Replaying one hand's log (``POST /v1/replay``, docs/api.md): check every event against the rule
book, derive the winner's ``/v1/score`` body and score it through the same front door,
:func:`ningbo_score.api.score`.

The log is read by ningbo_score.readers.replay_requests (shape and types: 400).  :class:`Table` then folds
the events one by one: each is checked in the contract's order of reasons (:data:`REASONS`) against
the state the events before it left, and applied.  The first event that breaks a rule raises a
:class:`~ningbo_score.errors.ScoreError` with code ``illegal_event`` (422) and, as members of the
problem, ``event_index``, ``reason``, ``expected`` (the events legal there, by seat and type) and
``state`` (live tiles left, each seat's concealed tile count, the last discard).  The work a log
costs stops at that event.

At the ``win``, what the hand's context decides (``win.by``/``from``, ``kong_replacement``,
``kong_fed_by``, ``last_tile``, ``heavenly``, ``earthly``, ``discarded_caishen``,
``claims_from_winner``, every meld's ``from``/``concealed``/``added``, the flowers) is written into
a ``/v1/score`` body, ``score_request``, and scored by ningbo_score.score: the answer's ``score`` is
what posting ``score_request`` to ``/v1/score`` answers, byte for byte.  Nothing ``/v1/score``
checks (the winner's shape, its copies, the win context, the discard restrictions…) is checked
here again; its refusal comes back with its own code and the win's ``event_index``.

What the contract leaves open is decided here, each marked *interpretation* (docs/api.md lists
them): the deal is checked before event 0 (a seat dealt other than 13 tiles is ``hand_size``, a
fifth copy ``too_many_copies``, both at ``event_index`` 0); two reasons the contract's list lacks,
``not_a_flower`` (setting aside a tile that is no flower) and ``invalid_meld`` (a claim whose tiles
are no chow/pung/kong of the discard, by ningbo_score.hand's own meld check), sit before
``claim_priority`` in the order; a win on a discarded caishen is left to ``/v1/score``
(``caishen_needs_self_draw``, docs/rules.md §10.10), the claim checks refuse chows, pungs and kongs of it
(``caishen_claimed``); ``next`` numbers the players 0-3 as this hand's E, S, W, N.
"""
from __future__ import annotations

import typing

from . import api
from .batch import refused_result
from .engine import no_reading
from .errors import ScoreError
from .readers.fields import load
from .hand import CAISHEN_IN_MELD, Meld, _meld_problems, caishen_of
from .items import ITEMS
from .caishen import face_of, faces_of
from .replay_facts import DerivedWin, MeldRecord, Replayed
from .readers.replay_requests import (DEFAULT_LIVE_TILES, MAX_EVENTS, MAX_LOGS, REPLAY_BATCH_REQUEST, REPLAY_REQUEST,
                                      Event, ReplayBatchInput, ReplayLog)
from .rules import Rules, option_values, preset_rules
from .table import ClaimsInput, NextHandInput, claims, next_hand
from .tiles import ALIASES, CODES, COPIES, FLOWER0, SEAT_ZH, SEATS, is_suited, upper

if typing.TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = ["replay", "replay_loaded", "replay_result", "replay_batch", "read_replay", "Replayed", "DerivedWin",
           "REASONS", "MAX_EVENTS", "MAX_LOGS",
           "DEFAULT_LIVE_TILES"]

#: The stable sub-codes of ``illegal_event``, in the contract's order: where one event breaks
#: several rules, the first that applies here is reported.  ``not_a_flower`` and
#: ``invalid_meld`` are ours (*interpretation*); ``log_not_ended`` is the log's, not an event's.
REASONS: tuple[str, ...] = (
    "event_after_end", "out_of_turn", "no_discard_to_claim", "missing_replacement_draw",
    "too_many_copies", "wall_exhausted", "tile_not_held", "caishen_flower_set_aside", "not_a_flower",
    "chow_not_from_upper_seat", "caishen_claimed", "caishen_in_meld", "invalid_meld", "claim_priority",
    "second_win_on_discard", "added_kong_without_pung", "rob_not_on_added_kong", "chow_swap_discard", "hand_size",
    "below_minimum", "log_not_ended",
)

#: each event type (and each claim of ``declined``) in the words of a Chinese table
_ZH_EVENT = {"draw": "摸牌", "flower": "补花", "discard": "出牌", "chow": "吃", "pung": "碰", "kong": "杠",
             "concealed_kong": "暗杠", "added_kong": "加杠", "win": "胡", "exhaustive_draw": "荒庄"}
#: each tile by its first Chinese name of ningbo_score.tiles (一万, 东, 中, 春…)
_ZH_TILE: dict[int, str] = {}
for _name, _k in ALIASES.items():
    _ZH_TILE.setdefault(_k, _name)


def _zh_seat(seat: int | str) -> str:
    """A seat as a Chinese table names it: 东家, 南家, 西家, 北家."""
    return SEAT_ZH[seat if isinstance(seat, str) else SEATS[seat]] + "家"


def _zh_tile(k: int) -> str:
    return _ZH_TILE[k]


def _zh_tiles(tiles: typing.Iterable[int]) -> str:
    return "、".join(_ZH_TILE[k] for k in tiles)
_N_CODES = len(CODES)


def _legal(seat: int, t: str) -> dict[str, str]:
    """An entry of ``expected``."""
    return {"seat": SEATS[seat], "t": t}


def _zh_indicator(log: ReplayLog, k: int) -> str:
    return "（翻出的财神指示牌算一张）" if log.indicator == k else ""


# --- the phases of a hand ------------------------------------------------------------------------
# What the next event may be, for the seat ``Table.actor``:
START = "start"              # nothing yet: the dealer's first draw
ACT = "act"                  # the actor has drawn: discard, set aside a flower, kong, or win by self-draw
MUST_DISCARD = "must_discard"  # the actor chowed or punged: it discards
REPLACEMENT = "replacement"  # the actor made a kong or set aside a flower: its replacement draw
ROB = "rob"                  # the actor added to a pung: its replacement draw, or another seat robs
DISCARDED = "discarded"      # the actor discarded: a claim of it, or the next seat's draw
ENDED = "ended"              # a win or an exhaustive draw: nothing may follow


class SeatState:
    """One seat's explicit state: tiles held (counts by kind), melds, flowers, and what the
    derived fields need (its caishen discards, the claims it made from each seat)."""

    __slots__ = ("held", "count", "melds", "flowers", "caishen_discards", "claims_from")

    def __init__(self, dealt: tuple[int, ...]) -> None:
        self.held = [0] * _N_CODES
        for t in dealt:
            self.held[t] += 1
        self.count = len(dealt)
        self.melds: list[MeldRecord] = []
        self.flowers: list[int] = []
        self.caishen_discards: list[int] = []
        #: seat -> event indices of the melds claimed from that seat's discards (counted as §7 counts)
        self.claims_from: dict[int, tuple[int, ...]] = {}

    def take(self, tiles: typing.Iterable[int]) -> None:
        held = self.held
        for t in tiles:
            held[t] -= 1
            self.count -= 1

    def copy(self) -> SeatState:
        """A copy that the events of one seat may change without changing this one (its melds are
        frozen records, shared)."""
        c = SeatState.__new__(SeatState)
        c.held, c.count, c.flowers = list(self.held), self.count, list(self.flowers)
        c.melds = list(self.melds)
        c.caishen_discards = list(self.caishen_discards)
        c.claims_from = self.claims_from.copy()       # its values are tuples
        return c

    def holds(self, tiles: Sequence[int]) -> bool:
        held = self.held
        for t in tiles:
            if held[t] < tiles.count(t):
                return False
        return True


class Refused(Exception):
    """An event :meth:`Table.try_next` refuses (its ``args[0]``: the reason), without a message."""


class Table:
    """The state machine of one hand: :meth:`play` folds the log's events, raising the first
    illegal one; :meth:`answer` builds the 200 body."""

    #: :meth:`try_next`'s copies: a refusal raises :class:`Refused`, not the 422
    trial = False

    def __init__(self, log: ReplayLog, lang: str) -> None:
        self.log = log
        self.lang = lang
        rules = log.rules
        self.rules = rules
        self.kinds, self.substitute = caishen_of(rules, log.indicator, None if log.kinds is None else list(log.kinds))
        self.seats = [SeatState(d) for d in log.deal]
        self.seen = [0] * _N_CODES             # copies in play: the deal, the draws and the indicator
        self.draws = 0
        self.phase = START
        self.actor = 0
        self.index = 0                         # the event being checked
        self.last_discard: tuple[int, int, int] | None = None    # (seat, tile, event index)
        self.kong_added: tuple[int, int, int] | None = None      # (seat, tile, event index) of ROB
        self.replacing: int | None = None      # the kong or flower event the coming draw replaces
        self.chain_kong: int | None = None     # the last kong event of the current replacement chain
        #: the kong or flower *in play* the actor's last draw replaced (None: a turn draw, or a
        #: replacement for a flower of the deal: no 杠上开花, docs/rules.md §11.2)
        self.chain_source: int | None = None
        self.last_draw: int | None = None      # the event of the actor's last draw
        self.last_draw_number = 0              # ... and how many draws the wall had given with it
        #: the flowers of the deal (docs/rules.md §11.2): dealt, the dealer's first draw, and those
        #: drawn while replacing them; a replacement for one of them is no 杠上开花
        self.deal_flowers: frozenset[int] = frozenset()
        #: the opening 补花 (出牌前补花, §11.2): the seat now setting aside its flowers of the deal
        #: (0, the dealer, from its first draw), the others following in turn; None once closed
        self.opening: int | None = None
        #: after a chow where chow_swap_allowed is off: the kinds its claimant may not discard (§11.4)
        self.swap_kinds: frozenset[int] = frozenset()
        self.any_discard = False
        self.any_claim = False
        self.first_discard: int | None = None
        self.outcome: str | None = None
        self.winner: int | None = None
        self.win_event: int | None = None
        #: at the win: what the log decides, the /v1/score body derived and its answer
        self.win: DerivedWin | None = None
        self.score_request: dict[str, typing.Any] | None = None
        self.scored: dict[str, typing.Any] | None = None

    # --- refusing ----------------------------------------------------------------------------

    def fail(self, reason: str, en: str, zh: str, index: int | None = None,
             more: Mapping[str, typing.Any] | None = None, deal: str | None = None) -> typing.NoReturn:
        """Refuse the log at event ``index`` (default: the event being checked); ``deal``: the
        problem is the deal's (its field, ``deal`` or ``deal.<seat>``), found before event 0."""
        if self.trial:
            raise Refused(reason)
        i = self.index if index is None else index
        events = self.log.events
        where = deal or (f"events.{i}" if i < len(events) else "events")
        if deal is not None:
            en, zh = f"the deal: {en}", f"发牌：{zh}"
        elif i < len(events):
            ev = events[i]
            who = "" if ev.seat is None else f" by {SEATS[ev.seat]}"
            who_zh = "" if ev.seat is None else _zh_seat(ev.seat)
            en, zh = f"event {i} ({ev.t}{who}): {en}", f"第 {i} 个事件（{who_zh}{_ZH_EVENT[ev.t]}）：{zh}"
        raise ScoreError.one("illegal_event", where, f"{reason}: {en}", zh, extra={
            "event_index": i, "reason": reason, "expected": self.expected(), "state": self.state(), **(more or {})})

    def refuse(self, reason: str, messages: Callable[[], tuple[str, str]]) -> typing.NoReturn:
        """:meth:`fail` with its messages (English, Chinese) made only where they are shown: a
        trial (:meth:`try_next`) is refused without them, and the referee's candidates are refused
        by the dozen a request (the commonest refusals use this)."""
        if self.trial:
            raise Refused(reason)
        self.fail(reason, *messages())

    def state(self) -> dict[str, typing.Any]:
        last = self.last_discard
        return {
            "live_tiles": self.log.live_tiles - self.draws,
            "tiles": {SEATS[s]: st.count for s, st in enumerate(self.seats)},
            "last_discard": None if last is None else {"seat": SEATS[last[0]], "tile": CODES[last[1]],
                                                       "event_index": last[2]},
        }

    def expected(self) -> list[dict[str, str]]:
        """The events legal at this point, by seat and type (a ``win`` where the turn allows one:
        whether the hand wins is ``/v1/score``'s answer)."""
        phase, actor = self.phase, self.actor
        if phase == START:
            return [_legal(0, "draw")]
        if phase == REPLACEMENT:
            return [_legal(actor, "draw")]
        if phase == ROB:
            return [_legal(actor, "draw"), *(_legal(s, "win") for s in self._others(actor))]
        if phase == MUST_DISCARD:
            return [_legal(actor, "discard")]
        if phase == ACT:
            return self._expected_on_turn(actor)
        if phase == DISCARDED:
            return self._expected_after_discard(actor)
        return []

    def _holds_flower(self, seat: int) -> bool:
        held, kinds = self.seats[seat].held, self.kinds
        return any(held[f] and f not in kinds for f in range(FLOWER0, _N_CODES))

    def _expected_on_turn(self, actor: int) -> list[dict[str, str]]:
        """On ``actor``'s turn after a draw: its discard, flower, kongs, self-drawn win, and during
        the opening 补花 the flowers of the seats whose turn of it is still to come (§11.2)."""
        st = self.seats[actor]
        held, kinds = st.held, self.kinds
        out = [_legal(actor, "discard")]
        if self._holds_flower(actor):
            out.append(_legal(actor, "flower"))
        if any(held[k] == 4 and k not in kinds for k in range(FLOWER0)):
            out.append(_legal(actor, "concealed_kong"))
        if any(m.kind == "pung" and held[m.tiles[0]] for m in st.melds):
            out.append(_legal(actor, "added_kong"))
        out.append(_legal(actor, "win"))
        if self.opening is not None and actor == 0:
            out += [_legal(s, "flower") for s in range(max(1, self.opening), 4) if self._holds_flower(s)]
        return out

    def _expected_after_discard(self, actor: int) -> list[dict[str, str]]:
        """After ``actor``'s discard: the next seat's draw (or the exhaustive draw), the claims."""
        tile = self.last_discard[1] if self.last_discard else 0
        nxt = (actor + 1) % 4
        out = [_legal(nxt, "draw")] if self.draws < self.log.live_tiles else [{"t": "exhaustive_draw"}]
        if tile in self.kinds or tile >= FLOWER0:      # a discarded caishen or flower is claimed by nobody (§2)
            return out
        for s in self._others(actor):
            held = self.seats[s].held
            if s == nxt and is_suited(tile) and self._can_chow(held, tile):
                out.append(_legal(s, "chow"))
            if held[tile] >= 2:
                out.append(_legal(s, "pung"))
            if held[tile] >= 3:
                out.append(_legal(s, "kong"))
            out.append(_legal(s, "win"))
        return out

    def _can_chow(self, held: list[int], tile: int) -> bool:
        r = tile % 9
        kinds = self.kinds
        for lo in (tile - 2, tile - 1, tile):
            if lo // 9 != tile // 9 or lo < tile - r or lo + 2 > tile - r + 8:
                continue
            others = [k for k in (lo, lo + 1, lo + 2) if k != tile]
            if all(held[k] and k not in kinds for k in others):
                return True
        return False

    @staticmethod
    def _others(seat: int) -> list[int]:
        return [(seat + d) % 4 for d in (1, 2, 3)]

    # --- the deal ----------------------------------------------------------------------------

    def check_deal(self) -> None:
        """Before event 0 (*interpretation*): every seat dealt 13 tiles, no kind past its copies
        (the indicator counts as one, docs/rules.md §2).  A problem here is the deal's: its field
        is ``deal.<seat>`` (or ``deal`` for the copies), its message says "the deal", and its
        ``event_index`` is 0, the event it comes before."""
        seen = self.seen
        log = self.log
        if log.indicator is not None:
            seen[log.indicator] += 1
        for dealt in log.deal:
            for t in dealt:
                seen[t] += 1
                if t >= FLOWER0:
                    self.deal_flowers |= {t}
        over = [k for k in range(_N_CODES) if seen[k] > COPIES[k]]
        if over:
            k = over[0]
            extra = " (the indicator counts as one)" if log.indicator == k else ""
            self.fail("too_many_copies", f"{seen[k]} copies of {CODES[k]}; at most {COPIES[k]} exist{extra}",
                      f"有 {seen[k]} 张{_zh_tile(k)}；最多只有 {COPIES[k]} 张{_zh_indicator(log, k)}", 0,
                      deal="deal")
        for s, dealt in enumerate(log.deal):
            if len(dealt) != 13:
                self.fail("hand_size", f"{SEATS[s]} was dealt {len(dealt)} tiles, not 13",
                          f"{_zh_seat(s)}发到 {len(dealt)} 张牌，应为 13 张", 0, deal=f"deal.{SEATS[s]}")

    # --- the events --------------------------------------------------------------------------

    def play(self) -> None:
        self.fold()
        if self.phase != ENDED:
            self.index = len(self.log.events)
            self.fail("log_not_ended", "the log stops before its win or exhaustive_draw",
                      "记录在胡牌或荒庄之前就结束了")

    def fold(self) -> None:
        """Check the deal, then check and apply every event of the log (which may stop anywhere)."""
        self.check_deal()
        for i, ev in enumerate(self.log.events):
            self.step(i, ev)

    def step(self, i: int, ev: Event) -> None:
        """Check the event ``i`` against the state the events before it left, then apply it."""
        self.index = i
        if self.phase == ENDED:
            self.fail("event_after_end", "the hand has ended: nothing may follow its win or exhaustive draw",
                      "本局已结束：胡牌或荒庄之后不能再有事件")
        if ev.t not in ("draw", "flower"):
            self.opening = None            # the dealer plays: the opening 补花 is over (§11.2)
        _STEPS[ev.t](self, i, ev)

    def try_next(self, ev: Event) -> Table:
        """The table after ``ev`` as the log's next event, with the same checks as :meth:`step`,
        on a copy (this table is left as it was); :class:`Refused` (its reason, or the code of a
        win ``/v1/score`` refuses) where they refuse it.  A refusal here builds no 422 (its
        messages and ``expected``): ningbo_score.actions tries many.  A win whose tiles make no
        4 sets and a pair (engine.no_reading: the scorer's own reading of them) is refused
        ``not_a_winning_hand`` before its ``/v1/score`` body is made and scored (the scorer's
        code may be another of its problems there: a refusal all the same)."""
        t = Table.__new__(Table)
        t.__dict__ = self.__dict__.copy()      # a third of the cost of updating the new one's
        t.trial = True
        if ev.t == "draw":
            t.seen = list(self.seen)           # a draw's copy in play (the one step that counts one)
        t.seats = list(self.seats)             # the seat the event changes is copied then (_changing)
        try:
            t.step(len(self.log.events), ev)
        except ScoreError as err:             # a win /v1/score refuses
            raise Refused(err.code) from None
        return t

    def _out_of_turn(self, ev: Event) -> typing.NoReturn:
        who = SEATS[ev.seat] if ev.seat is not None else "anyone"
        self.refuse("out_of_turn", lambda: (
            f"it is not {who}'s turn to {ev.t} here",
            f"此时{'不能' if ev.seat is None else '轮不到' + _zh_seat(ev.seat)}{_ZH_EVENT[ev.t]}"))

    def _own_turn(self, ev: Event, after_draw: bool) -> None:
        """The turn checks of an event of the seat's own turn (a discard: ``after_draw`` False, also
        after a chow or pung; a flower, a kong of its own, a self-drawn win: True)."""
        phase, actor = self.phase, self.actor
        if ev.seat == actor and (phase == ACT or (phase == MUST_DISCARD and not after_draw)):
            return
        if ev.seat == actor and phase in (REPLACEMENT, ROB):
            self.refuse("missing_replacement_draw", lambda: (f"{SEATS[actor]} owes its replacement draw first",
                                                              f"{_zh_seat(actor)}应先摸补牌"))
        self._out_of_turn(ev)

    def _own_tile(self, ev: Event, after_draw: bool, copies: int = 1) -> tuple[int, int]:
        """The turn checks of :meth:`_own_turn`, then that the seat holds ``copies`` of the event's
        tile: its seat and its tile."""
        self._own_turn(ev, after_draw)
        seat, tile = typing.cast(int, ev.seat), typing.cast(int, ev.tile)
        if self.seats[seat].held[tile] < copies:
            self._not_held(seat, (tile,) * copies)
        return seat, tile

    def _changing(self, seat: int) -> SeatState:
        """The state of the seat an event changes, once its checks have passed: in a trial
        (:meth:`try_next`) a copy, so that the table tried from keeps its own (every step reads
        the seats through ``self.seats`` and changes one only through this)."""
        st = self.seats[seat]
        if self.trial:
            st = self.seats[seat] = st.copy()
        return st

    def _draw(self, i: int, ev: Event) -> None:
        seat, tile = typing.cast(int, ev.seat), typing.cast(int, ev.tile)
        phase, actor = self.phase, self.actor
        if phase == START and seat == 0:
            source = None
        elif phase in (REPLACEMENT, ROB) and seat == actor:
            source = self.replacing
        elif phase == DISCARDED and seat == (actor + 1) % 4:
            source = None
        else:
            self._out_of_turn(ev)
        seen = self.seen
        if seen[tile] + 1 > COPIES[tile]:
            extra = " (the indicator counts as one)" if self.log.indicator == tile else ""
            self.fail("too_many_copies", f"a copy of {CODES[tile]} beyond the {COPIES[tile]} that exist{extra}",
                      f"{_zh_tile(tile)}超过了实有的 {COPIES[tile]} 张{_zh_indicator(self.log, tile)}")
        if self.draws >= self.log.live_tiles:
            self.fail("wall_exhausted", f"all {self.log.live_tiles} live tiles have been drawn",
                      f"{self.log.live_tiles} 张活牌已摸完")
        seen[tile] += 1                        # the one change of seen (try_next copies it for a draw)
        self.draws += 1
        st = self._changing(seat)
        st.held[tile] += 1
        st.count += 1
        self.replacing = None
        if phase == START or (source is not None and self._replaces_deal_flower(source)):
            if tile >= FLOWER0:                # drawn while replacing the deal's flowers: of the deal too
                self.deal_flowers |= {tile}
            source = None                      # no 杠上开花 (§11.2)
            if seat != 0 and self.opening is not None:
                self.phase, self.actor = ACT, 0   # an opening 补花: back to the dealer's first turn
                return
        if phase == START:
            self.opening = 0
        if source is None:
            self.chain_kong = None
        self.chain_source = source
        self.last_draw, self.last_draw_number = i, self.draws
        self.phase, self.actor = ACT, seat

    def _replaces_deal_flower(self, source: int) -> bool:
        ev = self.log.events[source]
        return ev.t == "flower" and ev.tile in self.deal_flowers

    def _flower(self, i: int, ev: Event) -> None:
        seat, tile = self._opening_flower(ev) if self._in_opening(ev) else self._own_tile(ev, True)
        if seat == 0 and self.opening:
            self.opening = None      # the dealer after another seat's opening 补花: its own first turn (§11.2)
        if tile in self.kinds:
            self.refuse("caishen_flower_set_aside", lambda: (
                f"{CODES[tile]} is a caishen this hand: no flower, never set aside (docs/rules.md §2)",
                f"{_zh_tile(tile)}本局是财神，不是花牌，不能补花"))
        if tile < FLOWER0:
            self.refuse("not_a_flower", lambda: (f"{CODES[tile]} is no flower", f"{_zh_tile(tile)}不是花牌"))
        st = self._changing(seat)
        st.take((tile,))
        st.flowers.append(tile)
        self.phase, self.actor, self.replacing = REPLACEMENT, seat, i

    def _in_opening(self, ev: Event) -> bool:
        """A flower of another seat than the dealer while the dealer's first turn waits (§11.2)."""
        return self.opening is not None and ev.seat != 0 and self.phase == ACT and self.actor == 0

    def _opening_flower(self, ev: Event) -> tuple[int, int]:
        """The opening 补花 of a seat other than the dealer: in turn E, S, W, N; its seat and tile."""
        seat, tile = typing.cast(int, ev.seat), typing.cast(int, ev.tile)
        opening = typing.cast(int, self.opening)
        if seat < opening:
            self.fail("out_of_turn", f"the opening 补花 goes E, S, W, N: {SEATS[seat]} comes before "
                      f"{SEATS[opening]}, who has set aside its flowers already (docs/rules.md §11.2)",
                      f"出牌前补花按东、南、西、北的顺序：{_zh_seat(seat)}在{_zh_seat(opening)}之前，"
                      f"{_zh_seat(opening)}已经补过花")
        if not self.seats[seat].held[tile]:
            self._not_held(seat, (tile,))
        self.opening = seat
        return seat, tile

    def _not_held(self, seat: int, tiles: typing.Iterable[int]) -> typing.NoReturn:
        shown = tuple(tiles)
        self.refuse("tile_not_held", lambda: (f"{SEATS[seat]} does not hold {' '.join(CODES[t] for t in shown)}",
                                              f"{_zh_seat(seat)}手中没有{_zh_tiles(shown)}"))

    def _discard(self, i: int, ev: Event) -> None:
        seat, tile = self._own_tile(ev, False)
        if self.swap_kinds:
            if self._face(tile) in self.swap_kinds:
                shown = " ".join(CODES[k] for k in sorted(self.swap_kinds))
                self.fail("chow_swap_discard", f"{SEATS[seat]} has just chowed: it may not discard {CODES[tile]} "
                          f"(吃张打张: not {shown}; docs/rules.md §11.4, chow_swap_allowed off)",
                          f"{_zh_seat(seat)}刚吃牌，不能打出{_zh_tile(tile)}（不能吃张打张："
                          f"{'、'.join(_zh_tile(k) for k in sorted(self.swap_kinds))}）")
            self.swap_kinds = frozenset()
        st = self._changing(seat)
        st.take((tile,))
        if tile in self.kinds:
            st.caishen_discards.append(i)
        if self.first_discard is None:
            self.first_discard = i
        self.any_discard = True
        self.last_discard = (seat, tile, i)
        self.phase = DISCARDED

    def _on_discard(self, ev: Event) -> tuple[int, int]:
        """The turn checks of a claim or a win on the last discard: (discarder, tile)."""
        seat = typing.cast(int, ev.seat)
        if self.phase != DISCARDED:
            self.fail("no_discard_to_claim", "the last event is no discard: there is nothing to claim",
                      "上一个事件不是出牌：没有可以吃碰杠胡的牌")
        discarder = self.actor
        if seat == discarder:
            self.fail("out_of_turn", "a seat can't claim its own discard", "不能吃碰杠胡自己打出的牌")
        if ev.from_seat is not None and ev.from_seat != discarder:
            self.fail("no_discard_to_claim", f"the last discard is {SEATS[discarder]}'s, not {SEATS[ev.from_seat]}'s",
                      f"上一张牌是{_zh_seat(discarder)}打出的，不是{_zh_seat(ev.from_seat)}")
        self._declined_turn(ev, discarder)
        last = typing.cast("tuple[int, int, int]", self.last_discard)
        return discarder, last[1]

    def _declined_turn(self, ev: Event, discarder: int) -> None:
        if not ev.declined:
            return
        seen = {ev.seat}
        for s, _ in ev.declined:
            if s == discarder or s in seen:
                self.fail("out_of_turn", f"`declined` names {SEATS[s]}: the discarder, the claimant or a seat twice",
                          f"`declined` 中的{_zh_seat(s)}是出牌者、吃碰杠胡者或重复的座位")
            seen.add(s)

    def _priority(self, ev: Event, taker: int, claim: str) -> None:
        """§8 against ``declined``: win > pung/kong > chow; of several wins the first in play order
        after the discarder (table.claims decides, the same code as /v1/table/claims)."""
        discarder = self.actor
        for s, c in ev.declined:
            if c == "chow" and upper(s) != discarder:
                self.fail("chow_not_from_upper_seat", f"`declined`: {SEATS[s]} can't chow {SEATS[discarder]}'s discard "
                          "(a chow is only from one's 上家, docs/rules.md §1)",
                          f"`declined`：{_zh_seat(s)}不能吃{_zh_seat(discarder)}的牌（只能吃上家）")
        if not ev.declined:
            return
        try:
            got = claims(ClaimsInput(SEATS[discarder], [(SEATS[taker], claim)]
                                     + [(SEATS[s], c) for s, c in ev.declined]))
        except ScoreError:       # two pung/kong claims on one discard: there are four of a kind
            self.fail("claim_priority", "two pung or kong claims on one discard can't both be declared",
                      "一张牌不能同时有两家碰或杠")
        won = typing.cast("dict[str, str]", got["taker"])
        if won["seat"] != SEATS[taker]:
            if claim == "win" and won["type"] == "win":
                self.fail("second_win_on_discard", f"{won['seat']} wins first: of several wins on one discard only the "
                          "first in play order after the discarder stands (docs/rules.md §8)",
                          f"{_zh_seat(won['seat'])}先胡：一炮只能一家胡，按出牌者之后的顺序（截胡）")
            self.fail("claim_priority",
                      f"{won['seat']}'s {won['type']} comes first (win > pung/kong > chow, docs/rules.md §8)",
                      f"{_zh_seat(won['seat'])}的{_ZH_EVENT[won['type']]}优先（胡 > 碰/杠 > 吃）")

    def _meld_checks(self, seat: int, kind: str, tiles: tuple[int, ...], from_seat: int | None,
                     claimed: int | None) -> None:
        """caishen_in_meld, then invalid_meld: the shape of a meld, by ningbo_score.hand's own
        meld check (the same rule as /v1/score's)."""
        kinds = self.kinds
        own = list(tiles)
        if claimed is not None and claimed in own:
            own.remove(claimed)
        if not kinds.isdisjoint(own):
            self._caishen_in_meld()
        meld = Meld(kind, tuple(tiles), faces_of(tuple(tiles), self.substitute), from_seat,
                    from_seat is None and kind == "kong", False, from_seat is not None)
        found = [f for f in _meld_problems(meld, seat, upper(seat), frozenset()) if f[0] == "invalid_meld"]
        if claimed is not None and claimed not in tiles:
            found.insert(0, ("invalid_meld", "tiles", f"the meld does not hold the discard {CODES[claimed]}",
                             f"副露中没有被吃碰杠的{_zh_tile(claimed)}"))
        if found:
            self.fail("invalid_meld", found[0][2], found[0][3])

    def _caishen_in_meld(self) -> typing.NoReturn:
        """docs/rules.md §2, in the words of /v1/score's meld check (ningbo_score.hand)."""
        code, _, en, zh = CAISHEN_IN_MELD
        self.fail(code, en, zh)

    def _claim(self, i: int, ev: Event) -> None:
        discarder, tile = self._on_discard(ev)
        seat, kind, tiles = typing.cast(int, ev.seat), ev.t, ev.tiles
        own = list(tiles)
        if tile in own:
            own.remove(tile)
        if not self.seats[seat].holds(own):
            self._not_held(seat, own)
        if kind == "chow" and upper(seat) != discarder:
            self.refuse("chow_not_from_upper_seat", lambda: (
                f"{SEATS[seat]} chows only from its 上家 {SEATS[upper(seat)]}, not {SEATS[discarder]} "
                "(docs/rules.md §1)",
                f"{_zh_seat(seat)}只能吃上家{_zh_seat(upper(seat))}的牌，不能吃{_zh_seat(discarder)}的牌"))
        if tile in self.kinds:
            self.refuse("caishen_claimed", lambda: (
                f"{CODES[tile]} is a caishen: a discarded caishen can't be claimed (docs/rules.md §2)",
                f"{_zh_tile(tile)}是财神：打出的财神不能吃碰杠"))
        self._meld_checks(seat, kind, tiles, discarder, tile)
        self._priority(ev, seat, kind)
        st = self._changing(seat)
        st.take(own)
        st.melds.append(MeldRecord(kind, tuple(sorted(tiles)), discarder, False, False, (i,)))
        if kind != "chow" or self.rules.chi_counts_for_liability:     # docs/rules.md §7
            st.claims_from[discarder] = (*st.claims_from.get(discarder, ()), i)
        self.any_claim = True
        self.actor = seat
        if kind == "kong":
            self.phase, self.replacing, self.chain_kong = REPLACEMENT, i, i
        else:
            self.phase = MUST_DISCARD
        if kind == "chow" and not self.rules.chow_swap_allowed:
            self.swap_kinds = self._swap_kinds(tile, own)

    def _face(self, tile: int) -> int:
        """The kind a tile counts as: a white dragon as the caishen kind where it substitutes (§10.8)."""
        return face_of(tile, self.substitute)

    def _swap_kinds(self, claimed: int, own: list[int]) -> frozenset[int]:
        """吃张打张 (docs/rules.md §11.4): the claimed tile's kind and every kind that makes a chow
        with the two tiles of the claimant's own that it melded."""
        a, b = sorted(self._face(t) for t in own)
        out = {self._face(claimed)}
        if b - a == 1:
            out.update(k for k in (a - 1, b + 1) if k // 9 == a // 9)
        return frozenset(out)

    def _concealed_kong(self, i: int, ev: Event) -> None:
        seat, tile = self._own_tile(ev, True, copies=4)
        self._meld_checks(seat, "kong", (tile,) * 4, None, None)
        st = self._changing(seat)
        st.take((tile,) * 4)
        st.melds.append(MeldRecord("kong", (tile,) * 4, None, True, False, (i,)))
        self.phase, self.replacing, self.chain_kong = REPLACEMENT, i, i

    def _added_kong(self, i: int, ev: Event) -> None:
        seat, tile = self._own_tile(ev, True)
        if tile in self.kinds:
            self._caishen_in_meld()
        face = self._face(tile)
        melds = self.seats[seat].melds
        n = next((n for n, m in enumerate(melds) if m.kind == "pung" and self._face(m.tiles[0]) == face), None)
        if n is None:
            self.refuse("added_kong_without_pung", lambda: (
                f"{SEATS[seat]} has no exposed pung of {CODES[tile]} to add to",
                f"{_zh_seat(seat)}没有{_zh_tile(tile)}的明刻，不能加杠"))
        st = self._changing(seat)
        st.take((tile,))
        st.melds[n] = st.melds[n].added_to(tile, i)
        self.phase, self.replacing, self.chain_kong = ROB, i, i
        self.kong_added = (seat, tile, i)

    def _win(self, i: int, ev: Event) -> None:
        seat = typing.cast(int, ev.seat)
        phase, actor = self.phase, self.actor
        if phase == ACT and seat == actor:
            if ev.declined:
                self.fail("no_discard_to_claim", "a self-drawn win has no `declined`: nothing was discarded",
                          "自摸没有 `declined`：没有人出牌")
            drawn = typing.cast(int, self.last_draw)
            by, winning, frm = "self_draw", typing.cast(int, self.log.events[drawn].tile), None
        elif phase == ROB and seat != actor:
            self._declined_turn(ev, actor)
            self._priority(ev, seat, "win")
            by, winning, frm = "robbing_kong", typing.cast("tuple[int, int, int]", self.kong_added)[1], actor
        elif phase == REPLACEMENT and seat != actor and self.replacing == self.chain_kong:
            self.fail("rob_not_on_added_kong", "only an added kong may be robbed (docs/rules.md §5 抢杠)",
                      "只有加杠可以被抢")
        elif phase in (ACT, MUST_DISCARD, START, REPLACEMENT) and seat != actor:
            self._on_discard(ev)
            raise AssertionError("unreachable")     # pragma: no cover - _on_discard refused it
        elif phase == DISCARDED:
            discarder, winning = self._on_discard(ev)
            self._priority(ev, seat, "win")
            by, frm = "discard", discarder
        else:
            self._own_turn(ev, True)
            self._out_of_turn(ev)
        win = self._derive(i, seat, by, winning, frm)
        if self.trial and no_reading(win.concealed, len(win.melds), winning, self.kinds, self.substitute, seat,
                                     self.log.round_wind):
            raise Refused("not_a_winning_hand")     # what /v1/score would refuse, before its body is made
        body, scored = self._score(i, win)
        if not scored["eligible"]:
            self._below_minimum(seat, body, scored)
        self.winner, self.win_event = seat, i
        self.phase, self.outcome = ENDED, "win"
        self.win, self.score_request, self.scored = win, body, scored

    def _below_minimum(self, seat: int, body: dict[str, typing.Any], scored: dict[str, typing.Any]) -> typing.NoReturn:
        """A declared win that /v1/score scores but not as eligible is no win (诈胡, docs/rules.md
        §11.6): judged last, it carries the score request and the score."""
        counted, least = scored["counted_tai"], scored["min_tai"]
        if counted < least:
            en = f"{SEATS[seat]}'s hand counts {counted} 台, under the minimum of {least}"
            zh = f"{_zh_seat(seat)}的牌只有 {counted} 台，不够起胡的 {least} 台"
        else:
            names = {it.id: it for it in ITEMS}
            wanted = [names[p] for p in self.rules.required_patterns if p in names]
            en = (f"{SEATS[seat]}'s hand has none of the patterns the rules require "
                  f"({', '.join(it.name_en for it in wanted)})")
            zh = f"{_zh_seat(seat)}的牌没有规则要求的牌型（{'、'.join(it.name for it in wanted)}）"
        self.fail("below_minimum", f"{en}: a declared win that may not be won is no win (docs/rules.md §11.6)",
                  f"{zh}：不能胡的牌宣布胡牌不算胡（诈胡）", more={"score_request": body, "score": scored})

    def _exhaustive(self, i: int, ev: Event) -> None:
        if self.phase != DISCARDED or self.draws < self.log.live_tiles:
            self.fail("out_of_turn", "an exhaustive draw comes after the last live tile's discard, unclaimed",
                      "荒庄只能在最后一张活牌打出且无人吃碰杠胡之后")
        self.phase, self.outcome = ENDED, "draw"

    # --- the win -----------------------------------------------------------------------------

    def _derive(self, i: int, seat: int, by: str, winning: int, frm: int | None) -> DerivedWin:
        """What the log decides about the win of ``seat`` at event ``i`` (docs/api.md, "Derived")."""
        st = self.seats[seat]
        self_draw = by == "self_draw"
        concealed: list[int] = []
        for k, n in enumerate(st.held):
            if n:
                concealed += (k,) * n
        if not self_draw:
            concealed.append(winning)
            concealed.sort()
        before = typing.cast(int, self.last_draw) if self_draw else i - 1   # the winning draw, discard or kong
        source, fed = (self.chain_source, self._fed_by(st)) if self_draw else (None, None)
        return DerivedWin(
            seat=seat, by=by, from_seat=frm, winning_tile=winning,
            concealed=tuple(concealed), melds=tuple(st.melds),
            flowers=tuple(st.flowers), by_event=before, kong_replacement_event=source,
            kong_fed_by=None if fed is None else fed[0], kong_fed_by_event=None if fed is None else fed[1],
            last_tile=self_draw and self.last_draw_number == self.log.live_tiles,
            heavenly=self_draw and seat == 0 and not self.any_discard and not st.melds,
            earthly=(by == "discard" and seat != 0 and frm == 0 and self.first_discard == i - 1
                     and not self.any_claim and not st.melds),
            caishen_discards=tuple(st.caishen_discards), claims=self._claims_from(seat))

    def _fed_by(self, st: SeatState) -> tuple[int, int] | None:
        """(the discarder, the kong event) where the winning replacement chain's kong was claimed
        (``kong``) from a discard (docs/rules.md §10.11)."""
        kong = self.chain_kong
        if self.chain_source is None or kong is None or self.log.events[kong].t != "kong":
            return None
        meld = next(m for m in st.melds if m.made[0] == kong)
        return typing.cast(int, meld.from_seat), kong

    def _claims_from(self, seat: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """For each other seat with any, the events of the melds it claimed from ``seat``'s discards."""
        out = []
        for other in self._others(seat):
            made = self.seats[other].claims_from.get(seat)
            if made:
                out.append((other, tuple(made)))
        return tuple(out)

    def _request(self, win: DerivedWin) -> dict[str, typing.Any]:
        """The winner's ``/v1/score`` body (``score_request``)."""
        log = self.log
        body: dict[str, typing.Any] = {"rules": _rules_body(self.rules), "seat_wind": SEATS[win.seat],
                                       "round_wind": SEATS[log.round_wind]}
        if log.indicator is not None:
            body["caishen"] = {"indicator": CODES[log.indicator]}
        elif log.kinds is not None:
            body["caishen"] = {"kinds": [CODES[k] for k in log.kinds]}
        body["hand"] = win.hand_json()
        body["win"] = win.win_json()
        claims = win.claims_json()
        if claims:
            body["claims_from_winner"] = claims
        if log.base_points is not None:
            body["base_points"] = log.base_points
        return body

    def _score(self, i: int, win: DerivedWin) -> tuple[dict[str, typing.Any], dict[str, typing.Any]]:
        """The score request of the win at event ``i`` and the answer of ningbo_score.score (its
        refusal raised with ``event_index`` and the request)."""
        body = self._request(win)
        try:
            return body, dict(api.score(body, self.lang))
        except ScoreError as err:
            raise err.with_extra(event_index=i, score_request=body) from None

    def result(self) -> Replayed:
        """The hand's result, once :meth:`play` has folded the whole log."""
        log = self.log
        nxt = next_hand(NextHandInput(0, SEATS[log.round_wind], log.dealers_this_round, self.winner,
                                      self.outcome == "draw", self.rules))
        return Replayed(typing.cast(str, self.outcome), len(log.events), self.win, self.score_request,
                        self.scored, nxt)

    def answer(self) -> dict[str, typing.Any]:
        """The 200 body (:meth:`result`'s)."""
        return self.result().answer()


_STEPS: dict[str, Callable[[Table, int, Event], None]] = {
    "draw": Table._draw, "flower": Table._flower, "discard": Table._discard, "chow": Table._claim,
    "pung": Table._claim, "kong": Table._claim, "concealed_kong": Table._concealed_kong,
    "added_kong": Table._added_kong, "win": Table._win, "exhaustive_draw": Table._exhaustive,
}


def _rules_body(rules: Rules) -> str | dict[str, typing.Any]:
    """The ``rules`` of the score request: the preset id, or a rules object with the options that
    differ from the preset and the 台 overrides."""
    base = preset_rules(rules.preset)
    if rules is base:
        return rules.preset
    out: dict[str, typing.Any] = {"preset": rules.preset}
    preset_values = option_values(base)
    for k, v in option_values(rules).items():
        if v != preset_values[k]:
            out[k] = v
    if rules.overrides:
        out["item_tai"] = dict(rules.overrides)
    return out



# --- the front door ------------------------------------------------------------------------------

def read_replay(body: typing.Any) -> ReplayLog:
    """A ``POST /v1/replay`` body as a :class:`ReplayLog` (the schema's checks only; ScoreError 400)."""
    log: ReplayLog = load(REPLAY_REQUEST, body)
    return log


def replay_loaded(log: ReplayLog, lang: str = "en") -> dict[str, typing.Any]:
    """Replay a loaded log (what :func:`read_replay` or the schema gives): the 200 body, or a
    ScoreError (``illegal_event`` with ``event_index``/``reason``/``expected``/``state`` in its
    ``extra``, or the win's ``/v1/score`` refusal with ``event_index``)."""
    return replay_result(log, lang).answer()


def replay_result(body: Mapping[str, object] | ReplayLog, lang: str = "en") -> Replayed:
    """Replay one hand as :func:`replay` does, but give the typed result (its ``win`` a
    :class:`~ningbo_score.replay_facts.DerivedWin`: ``seat``, ``by``, ``from_seat``…), for a
    caller that reads the facts rather than the answer's JSON (a session's replay hand)."""
    table = Table(body if isinstance(body, ReplayLog) else read_replay(body), lang)
    table.play()
    return table.result()


def replay(body: Mapping[str, object] | ReplayLog, lang: str = "en") -> dict[str, typing.Any]:
    """Replay one hand: the body of ``POST /v1/replay`` (or its loaded :class:`ReplayLog`) in, the
    200 body out; ``lang`` ("en" or "zh") is the language of the score's ``reasons`` and of the
    messages of a refusal."""
    return replay_loaded(body if isinstance(body, ReplayLog) else read_replay(body), lang)


#: a replayed log's ``outcome`` in a batch (a refused one's is the score batch's, ``refused``)
REPLAYED = "replayed"


def replay_batch(request: typing.Any, lang: str = "en",
                 before_each: Callable[[], None] | None = None) -> dict[str, typing.Any]:
    """The body of ``POST /v1/replay/batch`` (``{"logs": [...]}``, or its loaded input) in; each log
    answered alone, as ``/v1/score/batch`` answers: ``{"ok", "failed", "results": [{"index",
    "outcome": "replayed", "status": 200, "replay": …} | {"index", "outcome": "refused", "status":
    4xx, "problem": …}]}``."""
    loaded = request if isinstance(request, ReplayBatchInput) else load(REPLAY_BATCH_REQUEST, request)
    results: list[dict[str, typing.Any]] = []
    for i, item in enumerate(loaded.logs):
        if before_each is not None:
            before_each()
        if isinstance(item, ScoreError):
            results.append(refused_result(i, item, lang))
            continue
        try:
            results.append({"index": i, "outcome": REPLAYED, "status": 200, "replay": replay_loaded(item, lang)})
        except ScoreError as e:
            results.append(refused_result(i, e, lang))
    ok = sum(1 for r in results if r["status"] == 200)
    return {"ok": ok, "failed": len(results) - ok, "results": results}
