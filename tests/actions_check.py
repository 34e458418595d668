"""The referee's exactness checks over generated logs (tests/play/test_actions.py runs a seeded
sample, bench/actions_sweep.py the full sweep).

For every prefix of a legal log (tests/replaygen.py):

* the log's next event is listed by ``ningbo_score.actions`` (compared as the answer writes an
  action: seat, ``t``, the tile of a discard/flower/own kong, the sorted tiles of a claim; a draw
  without its tile);
* every listed event, appended, is accepted: replay's :class:`~ningbo_score.replay.Table` folds
  the prefix (once per log, kept step by step), a *deep* copy of it takes the listed event with
  the ordinary checks (the 422 path, not the referee's trial copies), and a listed win scores
  what the action says;
* on a sample of prefixes (``brute``), a brute force: every candidate (each seat × each event
  type × each kind it holds and one it doesn't, a draw of several kinds, each chow/pung/kong of
  the last discard, the win, the exhaustive draw) is appended to the prefix and the whole log is
  replayed by the public ``ningbo_score.replay.replay_loaded``: accepted exactly when listed.
  Accepted means replay answers 200, or refuses the log only as ``log_not_ended`` after the
  candidate (a win under the minimum is refused: ``below_minimum``, rule book 4).
"""
from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter

from ningbo_score.actions import actions_loaded
from ningbo_score.errors import ScoreError
from ningbo_score.replay import Table, replay_loaded
from ningbo_score.readers.replay_requests import REPLAY_REQUEST, ActionsInput, Event, ReplayLog
from ningbo_score.tiles import CODES, SEAT_INDEX, SEATS

N_KINDS = len(CODES)
OWN_TILE = ("discard", "flower", "concealed_kong", "added_kong")


def key_of_event(ev: Event) -> tuple:
    """An event as the answer lists an action: (t, seat, tile, tiles)."""
    tile = ev.tile if ev.t in OWN_TILE else None
    return (ev.t, ev.seat, tile, tuple(sorted(ev.tiles)))


def key_of_action(a: dict) -> tuple:
    seat = SEAT_INDEX[a["seat"]] if "seat" in a else None
    tile = CODES.index(a["tile"]) if "tile" in a else None
    return (a["t"], seat, tile, tuple(sorted(CODES.index(t) for t in a.get("tiles", ()))))


def event_of_action(a: dict, table: Table) -> Event:
    """The event a listed action stands for; a draw takes the first kind the wall still has
    (counted here from the deal, the indicator and the draws of the log)."""
    t, seat, tile, tiles = key_of_action(a)
    if t == "draw":
        tile = next(k for k in range(N_KINDS) if in_play(table)[k] < (1 if CODES[k].endswith("f") else 4))
    return Event(t, seat, tile, tiles, None, ())


def in_play(table: Table) -> Counter:
    log = table.log
    c: Counter = Counter(t for d in log.deal for t in d)
    if log.indicator is not None:
        c[log.indicator] += 1
    c.update(e.tile for e in log.events if e.t == "draw")
    return c


def replay_accepts(log: ReplayLog, ev: Event) -> dict | None:
    """Whether the public replay accepts ``ev`` after ``log``'s events: None if not, else the
    replay answer (``{}`` when the log simply has not ended)."""
    n = len(log.events)
    try:
        answer = replay_loaded(dataclasses.replace(log, events=log.events + (ev,)))
    except ScoreError as err:
        extra = err.extra or {}
        if extra.get("reason") == "log_not_ended" and extra.get("event_index") == n + 1:
            return {}
        return None
    return answer


def step_accepts(table: Table, ev: Event) -> Table | None:
    """A deep copy of the folded table takes ``ev`` with the ordinary checks (the 422 path)."""
    t = copy.deepcopy(table, {id(table.log): table.log, id(table.rules): table.rules})
    try:
        t.step(len(table.log.events), ev)
    except ScoreError:
        return None
    return t


def brute_candidates(table: Table) -> list[Event]:
    out: list[Event] = []
    last = table.last_discard
    for s, st in enumerate(table.seats):
        held = [k for k in range(N_KINDS) if st.held[k]]
        not_held = [k for k in range(N_KINDS) if not st.held[k]][:1]
        for t in OWN_TILE:
            out.extend(Event(t, s, k, (), None, ()) for k in held + not_held)
        out.extend(Event("draw", s, k, (), None, ()) for k in range(N_KINDS))
        out.append(Event("win", s, None, (), None, ()))
        if last is not None:
            d = last[1]
            out.append(Event("pung", s, None, (d,) * 3, None, ()))
            out.append(Event("kong", s, None, (d,) * 4, None, ()))
            if d < 27:
                out.extend(Event("chow", s, None, (lo, lo + 1, lo + 2), None, ())
                           for lo in range(d - 2, d + 1) if lo // 9 == d // 9 and (lo + 2) // 9 == d // 9 and lo >= 0)
    out.append(Event("exhaustive_draw", None, None, (), None, ()))
    return out


@dataclasses.dataclass
class Counts:
    logs: int = 0
    prefixes: int = 0
    listed: int = 0
    tried: int = 0
    brute_prefixes: int = 0
    brute_candidates: int = 0
    mismatches: list = dataclasses.field(default_factory=list)
    phases: Counter = dataclasses.field(default_factory=Counter)
    kinds: Counter = dataclasses.field(default_factory=Counter)

    def line(self) -> str:
        return (f"logs {self.logs}, prefixes {self.prefixes}, listed actions {self.listed}, appended and "
                f"accepted {self.tried}, brute-force prefixes {self.brute_prefixes}, candidates tried "
                f"{self.brute_candidates}, mismatches {len(self.mismatches)}")


def check_log(body: dict, counts: Counts, brute: float = 0.0, rng: random.Random | None = None,
              seat_views: bool = True) -> None:
    """Every check of the module doc over every prefix of one legal log (``brute``: the share
    of prefixes brute-forced)."""
    full: ReplayLog = REPLAY_REQUEST.load(body)
    events = full.events
    counts.logs += 1
    table = Table(dataclasses.replace(full, events=()), "en")
    table.check_deal()
    for n in range(len(events) + 1):
        prefix = dataclasses.replace(full, events=events[:n])
        table.log = prefix
        answer = actions_loaded(ActionsInput(prefix, None))
        counts.prefixes += 1
        counts.phases[answer["phase"]] += 1
        listed = {key_of_action(a): a for a in answer["actions"]}
        if len(listed) != len(answer["actions"]):
            counts.mismatches.append((n, "an action listed twice", answer["actions"]))
        counts.listed += len(listed)
        if n < len(events):
            want = key_of_event(events[n])
            if want[0] == "draw":
                want = ("draw", want[1], None, ())
            if want not in listed:
                counts.mismatches.append((n, "next event not listed", events[n], answer["actions"]))
            elif events[n].t == "win" and n == len(events) - 1:
                scored = replay_loaded(full)["score"]
                got = listed[want]["score"]
                if any(got[k] != scored[k] for k in ("tai", "counted_tai", "eligible", "points")):
                    counts.mismatches.append((n, "the logged win's value", got, scored))
        for key, a in listed.items():
            counts.kinds[key[0]] += 1
            after = step_accepts(table, event_of_action(a, table))
            counts.tried += 1
            if after is None:
                counts.mismatches.append((n, "listed but refused", a))
            elif a["t"] == "win":
                scored = after.scored
                if any(a["score"][k] != scored[k] for k in ("tai", "counted_tai", "eligible", "points")) or \
                        a["score"]["by"] != after.score_request["win"]["by"]:
                    counts.mismatches.append((n, "a listed win's value", a, scored))
        if seat_views:
            for s in range(4):
                mine = actions_loaded(ActionsInput(prefix, s))
                own = [a for a in answer["actions"]
                       if a.get("seat") == SEATS[s] or ("seat" not in a and answer["turn"] == SEATS[s])]
                if mine["actions"] != own:
                    counts.mismatches.append((n, f"for {SEATS[s]}", mine["actions"], own))
        if rng is not None and brute and rng.random() < brute:
            counts.brute_prefixes += 1
            accepted: set[tuple] = set()
            for ev in brute_candidates(table):
                counts.brute_candidates += 1
                if replay_accepts(prefix, ev) is not None:
                    k = key_of_event(ev)
                    accepted.add(("draw", k[1], None, ()) if ev.t == "draw" else k)
            if accepted != set(listed):
                counts.mismatches.append((n, "brute force", sorted(accepted ^ set(listed), key=str)))
        if n < len(events):
            table.step(n, events[n])
