"""Hostile review of two referee changes of issue 29's flake hunt:

* 6956185: ``Party.boxes_missing(leaving=True)`` at a seat's last count (net/table.play_seat,
  after ``_linger``): any other seat owing a private deck box to a third seat, whether or not
  its result or stop came, makes our finished game stop naming nobody, and verify of our own
  file (``_judge_the_stopper``) then names whom it names;
* eedfa31: ``TableAborted.excused_by`` (table/referee.Wait._waits_elsewhere): nobody named only
  on the word of the waited-on seat's ``links`` notice (stall rule 6); once that seat's stop is
  in our log, verify of our file is adopted if it names a seat the notice named.

Each attack is a cheating seat among honest ones, a whole table in-process on trio's autojump
clock over loopback (127.0.0.1). The question for each: can it get an honest seat named (live
or by ``p2pcards verify``), or make an honest seat's live verdict and verify's of its file
disagree? :func:`run_table` fails on the latter by itself (tests/adversarial/agreement.py)."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from p2pcards.table.protocol import TableAborted
from p2pcards.table.timeouts import Timeouts

from . import adv_table
from .adv_table import blamed, run_table, verify
from .cheaters import Cheater, CheatingSeat, stop_naming
from .test_links_liars import LinksLiar

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck: seconds of crypto each

CHEATER = 1


@pytest.fixture
def judged(monkeypatch) -> list[tuple[int, TableAborted, TableAborted]]:
    """Every ``_judge_the_stopper`` call of the tables: (seat, the verdict it was given, the
    verdict it returned), to see which path an attack took (the excused one of eedfa31, the
    box count of 6956185)."""
    from p2pcards.net import table as net_table

    calls: list[tuple[int, TableAborted, TableAborted]] = []
    judge = net_table._judge_the_stopper

    async def recording(peer, aborted, path):
        after = await judge(peer, aborted, path)
        calls.append((peer.seat, aborted, after))
        return after

    monkeypatch.setattr(net_table, "_judge_the_stopper", recording)
    return calls


def _paths(judged) -> list[str]:
    return [
        f"seat {seat}: {before.seat}/{before.step} excused_by={before.excused_by} -> {after.seat}/{after.step}"
        f" ({after.reason[:90]})"
        for seat, before, after in judged
    ]


def _named(outcome) -> set[int]:
    seats = blamed(outcome.peer)
    if outcome.aborted is not None and outcome.aborted.seat is not None:
        seats.add(outcome.aborted.seat)
    return seats


def _check(run, faulty: set[int]) -> dict[int, tuple[set[int], Any]]:
    """No honest seat names, live or by verify of its file, a seat outside ``faulty``. Returns
    each honest seat's (named live, verify's seat)."""
    info = run.describe() + (f"\n{run.cheater_peer.notes}" if run.cheater_peer is not None else "")
    found = {}
    for seat, outcome in run.honest.items():
        assert outcome is not None, info
        named = _named(outcome)
        assert named <= faulty - {seat}, f"seat {seat} named {named}:\n{info}"
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert problem.get("seat") in {None} | (faulty - {seat}), f"seat {seat}'s transcript: {problem}\n{info}"
        found[seat] = (named, problem.get("seat"))
    return found


# -- 1. a false "I wait on X" notice, then a stop at a chosen moment (eedfa31) ------------------


class _StallsLead(CheatingSeat):
    """At its first lead (a turn nobody may pass for), waits ``late`` seconds (None: for good),
    then moves as an honest seat would."""

    async def choose(self, session, seat):
        peer = self.peer
        if peer.stall_began is None and session.game.absent_action(session.state, seat) is None:
            peer.stall_began = trio.current_time()
            peer.cheated = True
            peer.notes.append(f"stalls its lead at turn {peer.turns}, t={peer.stall_began:.2f}")
            if peer.late is None:
                await trio.sleep_forever()
            await trio.sleep(peer.late)
            peer.notes.append(f"moves late, t={trio.current_time():.2f}")
        return await super().choose(session, seat)


class BlamesHonestInNotice(LinksLiar):
    """Stalls at its first lead, and says in its ``links`` notices (twice a second) that it waits
    on the statements of one honest seat, the victim (a claim nobody can refute: an "away" claim
    is refuted by the victim's own notice). ``stop_after`` seconds into the stall (None: never on
    its own) it signs a stop naming the victim; ``hide``: that stop's head echo leaves out the
    victim's last entry (as if it never got it). ``late``: it moves after all, that late."""

    deviation = "false notice that it waits on an honest seat, then a timed stop"
    claims = ("statements",)
    stalls = True
    stop_after: float | None = None
    hide = False
    late: float | None = None

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.stall_began: float | None = None
        self.session.seats[self.seat] = _StallsLead(self, self.session.seats[self.seat].agent)

    @property
    def victim(self) -> int:
        return (self.seat + 1) % self.header.players

    def links_notice(self):
        from p2pcards.wire.messages import LinksNotice

        return LinksNotice(self.header.table, tuple(self.others), ((self.victim, "statements"),))

    async def misbehave(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(super().misbehave)
            if self.stop_after is not None:
                await self.until(lambda: self.stall_began is not None)
                await trio.sleep(self.stop_after)
                if self.aborted is None:
                    victim = self.victim
                    self.notes.append(f"stops naming the victim, t={trio.current_time():.2f}")
                    stop_naming(self, victim, f"seat-{victim} did not state in time", "action", hide=self.hide)
            # (the notices go on until the table cancels us)


#: Timeouts of test_liveness_cheats: a turn's last call is a few virtual seconds in.
TIMEOUTS = Timeouts(deck=2.0, turn=2.0, grace=1.0)


def _hand(players, cls, transcript_dir, seed, **kwargs):
    """One hand of Cal's BS with ``cls`` in the cheater's seat, on :data:`TIMEOUTS`."""
    return run_table(
        "cals-bs",
        players,
        {"match_target": 1},
        cheater=CHEATER,
        peer_factory=cls,
        transcript_dir=transcript_dir,
        timeouts=TIMEOUTS,
        seed=seed,
        **kwargs,
    )


STOPS = {
    "never": {},
    "before-deadline": {"stop_after": 1.0},
    "at-last-call": {"stop_after": 11.0},
    "past-last-call": {"stop_after": 12.5},
    "well-past": {"stop_after": 16.0},
    "hidden-past": {"stop_after": 12.5, "hide": True},
    "moves-at-last-call": {"late": 11.0},
    "moves-past-last-call": {"late": 12.5},
}


# 4 of the 16 cases (two tables each), drawn from the sample seed; all with --full.
@pytest.mark.sample(4)
@pytest.mark.parametrize("when", list(STOPS))
@pytest.mark.parametrize("players", [3, 4])
def test_a_false_wait_on_an_honest_seat_never_gets_it_named(tmp_path, monkeypatch, judged, players, when):
    """Whatever the stop's moment (or a late move instead), no honest seat is named, and each
    honest seat's live verdict is verify's of its file (run_table's agreement check)."""
    monkeypatch.setattr(adv_table, "TABLE_SECONDS", 120.0)
    cls = type(f"BlamesHonestInNotice_{when}", (BlamesHonestInNotice,), STOPS[when])
    cheated = 0
    for seed in range(2):
        run = _hand(players, cls, tmp_path / str(seed), seed)
        cheated += bool(run.cheater_peer is not None and run.cheater_peer.stall_began is not None)
        verdicts = _check(run, {CHEATER})
        print(f"\n{when} {players} seed {seed}: {verdicts}\n  " + "\n  ".join(_paths(judged)))
        print(run.describe() + f"\n{run.cheater_peer.notes if run.cheater_peer else ''}")
        judged.clear()
    assert cheated, "the cheater never led"


class CutsAndBlamesHonest(BlamesHonestInNotice):
    """As :class:`BlamesHonestInNotice`, but at its stalled lead it truly cuts its link to the
    victim (closes it, refuses its redials, sends it nothing) and says it waits on the victim
    as away: the victim's own notice then bears the claim out, so a seat waiting on the
    cheater's move names nobody at the last call on its word (stall rule 6, ``excused_by``),
    and the cheater's stop (``stop_after``) is what eedfa31 then judges by verify."""

    deviation = "cuts its link to an honest seat at its lead, says it waits on it, then stops"
    claims = ("away",)

    @property
    def cut(self) -> bool:
        return self.stall_began is not None

    def links_notice(self):
        from p2pcards.wire.messages import LinksNotice

        connected = tuple(s for s in self.others if not (self.cut and s == self.victim))
        return LinksNotice(self.header.table, connected, ((self.victim, "away"),))

    async def serve_connection(self, seat, conn):
        if seat == self.victim and self.cut:
            await conn.aclose()
            return
        await super().serve_connection(seat, conn)

    def entry_to(self, seat, entry):
        return not (seat == self.victim and self.cut)

    def answers_fetch(self, seat, fetch):
        return not (seat == self.victim and self.cut)

    def message_to(self, seat, message):
        return None if (seat == self.victim and self.cut) else message

    async def misbehave(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(super().misbehave)
            await self.until(lambda: self.cut)
            conn = self.connections.get(self.victim)
            if conn is not None:
                await conn.aclose()


#: When the cheater stops (or moves), from the start of its stalled lead. With TIMEOUTS the
#: honest seats' last call on its move falls about 11 virtual seconds in.
CUT_STOPS = {when: how for when, how in STOPS.items() if when != "moves-at-last-call"}
#: The stops that reach the others' logs after their last call (eedfa31's path: excused_by, then
#: the excuser's stop, then verify of our file).
STOPPED_AFTER = ("at-last-call", "past-last-call", "hidden-past")
#: The cheater signs no stop the others hold (it is cancelled, or its stop comes after they
#: closed): eedfa31 never runs verify.
NO_STOP = ("never", "well-past", "moves-past-last-call")


def _cut_tables(tmp_path, judged, players, when, seeds):
    """Yield each table's run of :class:`CutsAndBlamesHonest` (``when``), played with a known
    disagreement allowed (the tests judge ``run.agreement`` themselves), after checking that no
    honest seat named an innocent, live or by verify."""
    cls = type(f"CutsAndBlamesHonest_{when}", (CutsAndBlamesHonest,), CUT_STOPS[when])
    for seed in seeds:
        run = _hand(
            players,
            cls,
            tmp_path / f"{players}-{when}-{seed}",
            seed,
            known_disagreement="sometimes: review 29x, rule 6 spares the cheater live; verify names it",
        )
        verdicts = _check(run, {CHEATER})
        print(f"\n{when} {players} seed {seed}: {verdicts}\n  " + "\n  ".join(_paths(judged)))
        judged.clear()
        yield run


@pytest.mark.sample(2)  # (of the cases, two tables each; all with --full)
@pytest.mark.parametrize("when", list(CUT_STOPS))
@pytest.mark.parametrize("players", [3, 4])
def test_a_cut_link_to_an_honest_seat_and_a_timed_stop_never_get_it_named(tmp_path, monkeypatch, judged, players, when):
    """The victim (an honest seat the cheater cut itself off from, and said it waits on) is
    never named, live or by verify, by any honest seat, whenever the cheater stops or moves.
    (Whether live agrees with verify: the xfail tests below.)"""
    monkeypatch.setattr(adv_table, "TABLE_SECONDS", 120.0)
    runs = list(_cut_tables(tmp_path, judged, players, when, range(2)))
    assert any(r.cheater_peer is not None and r.cheater_peer.stall_began is not None for r in runs)
    if when == "before-deadline":  # (its stop ends every wait: judged as every stop, and agreed)
        assert all(r.agreement.ok for r in runs), "\n".join(str(r.agreement) for r in runs)


def test_a_cut_link_then_a_stop_after_the_last_call_live_agrees_with_verify(tmp_path, monkeypatch, judged, sample):
    """The cheater cuts its link to the victim at its lead, says it waits on it (away), and stops
    just after the others' last call: a seat that waited on its move names nobody on its word
    (excused_by = (cheater, {victim})); the cheater's stop comes; verify of that seat's file names
    the cheater (it stopped its own game where it owed its move). Measured on eedfa31, 3 seats,
    seeds 2-6 of at-last-call and past-last-call: 6 and 8 tables in 10 (two runs) disagreed,
    each at a seat whose verdict was excused, verify naming the cheater; none named an innocent.
    With ``found.seat not in aborted.excused_by[1] | {excuser}`` in _judge_the_stopper (adopt
    a verdict on the excuser too: now on main), 10 in 10 agreed, and so does every seat here
    but the victim, whose file never gets the stop (the test below, xfail)."""
    monkeypatch.setattr(adv_table, "TABLE_SECONDS", 120.0)
    found = []
    for players in sample.pick([3, 4], 1):  # (both with --full: 28 s of a CI run)
        victim = (CHEATER + 1) % players  # (its file never gets the stop: the test below, xfail)
        for when in STOPPED_AFTER:
            for run in _cut_tables(tmp_path, judged, players, when, range(1)):
                found += [str(s) for s in run.agreement.disagreements if s.seat != victim]
    assert not found, "\n".join(found)


@pytest.mark.xfail(
    strict=True,
    reason="review 29x, before eedfa31 too: stall rule 6 names nobody on the waited-on seat's word "
    "(live only); verify of the same file, without notices, names it for leaving without a stop",
)
def test_a_cut_link_and_no_stop_live_agrees_with_verify(tmp_path, monkeypatch, judged):
    """As above, but no stop of the cheater reaches the others: nothing of eedfa31 runs, and the
    seats spared on its word name nobody while verify names it ("never signed its stop: it left
    the table"). Measured: every table of NO_STOP at 3 and 4 seats disagreed at some seat."""
    monkeypatch.setattr(adv_table, "TABLE_SECONDS", 120.0)
    found = []
    for when in NO_STOP:
        for run in _cut_tables(tmp_path, judged, 3, when, range(1)):
            found += [str(s) for s in run.agreement.disagreements]
    assert not found, "\n".join(found)


# -- 2. a box withheld from a third seat, then gone without a result (6956185) ------------------


class WithholdsBoxThenVanishes(Cheater):
    """From turn ``after`` on, never sends a private opening (the keys of a card another seat
    draws or picks up); ``silent`` seconds after the first one withheld, every send of it is
    lost (no entry, fetch answer or notice reaches anyone; no bye), so no result or stop of it
    ever comes, as a client that vanished."""

    deviation = "withholds a private box, then vanishes without a result"
    after = 1
    silent = 0.5
    bye = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.began: float | None = None
        self.gone = False

    def tamper_deck(self, to, message):
        if message.get("type") == "open" and to is not None and to != self.seat and self.turns >= self.after:
            if self.began is None:
                self.began = trio.current_time()
                self.notes.append(f"withholds its opening to seat {to} at turn {self.turns}")
            return None
        return message

    async def misbehave(self):
        await self.until(lambda: self.began is not None)
        await trio.sleep(self.silent)
        self.gone = True
        self.notes.append(f"vanishes, t={trio.current_time():.2f}")
        if self.bye:
            from p2pcards.wire.messages import Bye

            for conn in list(self.connections.values()):
                await conn.send(Bye("link lost").to_wire())

    def entry_to(self, seat, entry):
        return not self.gone

    def answers_fetch(self, seat, fetch):
        return not self.gone

    def message_to(self, seat, message):
        return None if self.gone else message


VANISH = {
    "never": {"silent": 1e9},
    "at-once": {"silent": 0.0},
    "soon": {"silent": 0.5},
    "late": {"silent": 3.0},
    "at-once-bye": {"silent": 0.0, "bye": True},
}


@pytest.mark.sample(2)  # (of the ways to vanish; all with --full)
@pytest.mark.parametrize("how", list(VANISH))
def test_a_pile_box_withheld_then_gone_names_nobody_innocent(tmp_path, monkeypatch, judged, how):
    """Cal's BS, four seats: the cheater withholds the keys of its cards in a pile another seat
    picks up (or draws), then vanishes. A seat that finished while the box was owed stops naming
    nobody at its last count (6956185: the cheater's result never came) and takes verify's
    verdict on its file; nobody honest is named, and live agrees with verify at every seat."""
    monkeypatch.setattr(adv_table, "TABLE_SECONDS", 120.0)
    cls = type(f"WithholdsBoxThenVanishes_{how}", (WithholdsBoxThenVanishes,), VANISH[how])
    cheated = 0
    for seed in range(5):  # (a game may end before it owes a box: 2 tables where it did)
        if cheated == 2:
            break
        run = run_table(
            "cals-bs",
            4,
            {"match_target": 1},
            cheater=CHEATER,
            peer_factory=cls,
            transcript_dir=tmp_path / str(seed),
            seed=seed,
        )
        cheated += bool(run.cheater_peer is not None and run.cheater_peer.began is not None)
        verdicts = _check(run, {CHEATER})
        print(f"\n{how} seed {seed}: {verdicts}\n  " + "\n  ".join(_paths(judged)))
        judged.clear()
    assert cheated, "the cheater never withheld a box"


def _drawer_tables(tmp_path, timeouts, tables=2, tries=6):
    """``tables`` tables in which the cheater withheld a box (a game may end before the next
    seat draws: the deal is random), playing at most ``tries``; each is checked as it ends."""
    cls = type("WithholdsDrawBox", (WithholdsBoxThenVanishes,), {"silent": 1e9})  # (it never vanishes)
    found = []
    for seed in range(tries):
        run = run_table(
            "crazy-eights",
            3,
            {},
            cheater=CHEATER,
            peer_factory=cls,
            transcript_dir=tmp_path / str(seed),
            timeouts=timeouts,
            seed=seed,
        )
        _check(run, {CHEATER})
        assert run.agreement.ok, str(run.agreement)
        if run.cheater_peer is not None and run.cheater_peer.began is not None:
            found.append(run)
            if len(found) == tables:
                return found
    pytest.fail(f"the cheater withheld a box in {len(found)} of {tries} tables, not {tables}")


def test_a_draw_box_withheld_names_only_the_withholder_when_a_deck_step_is_shorter_than_a_turn(tmp_path):
    """Crazy Eights, three seats: the cheater withholds its key of a card the next seat draws.
    The drawer waits on it (a deck step) and names it; the third seat, waiting on the drawer's
    move, hears the drawer's stop before its own turn bound, and verify agrees everywhere."""
    _drawer_tables(tmp_path, Timeouts(deck=2.0, turn=4.0, grace=0.5))


@pytest.mark.parametrize("turn", [4.0, 3.0])
def test_a_draw_box_withheld_names_only_the_withholder_when_turns_are_as_short_as_deck_steps(tmp_path, turn):
    """As above with a turn timeout no longer than the deck timeout (4 s; a host's
    --turn-timeout and --deck-timeout allow it). The third seat's wait on the drawer's move and
    the drawer's on the withheld box fall due together, or the third seat's first: it named the
    innocent drawer "did not move in time" at every table (review 29x: 4 in 4 at 4 s, 3 in 3 at
    3 s; none at 5 s). The drawer was owed a box that had not reached the third seat either, so
    its verdict now waits for the drawer's stop and takes the verdict of its own file, which
    names the withholder (referee ``Wait.look``, ``owed_by``)."""
    _drawer_tables(tmp_path, Timeouts(deck=4.0, turn=turn, grace=0.5))
