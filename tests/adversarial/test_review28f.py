"""Hostile review of the one-way-link referee change (commits 57115eb, 5883e09): ``Links.unheard``
(a deck step after an entry of ours that no other seat has echoed is not charged until a turn's
bound), the "waits on X, away" notice no longer excusing a stall when X stopped, and
``stopped_before_the_end`` (a stop before its seed ended a game that reached its result; now a
private box owed and never sent does: ``Party.boxes_missing``). Each
table runs in-process on trio's autojump clock; :func:`run_table` checks live against verify."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from p2pcards.table.protocol import TableAborted
from p2pcards.table.timeouts import Timeouts

from . import adv_table
from .adv_table import named, run_table, verify
from .cheaters import Cheater

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck


class WithholdsOpensSilently(Cheater):
    """From turn ``after`` on, never sends its private openings (the keys of a card another seat
    draws) and signs nothing else: the drawer's move is never echoed (``unheard``), so the deck
    step it owes is waited on up to a turn's bound, not a deck step's."""

    deviation = "withholds its private openings, signing nothing"
    after = 1

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.began: float | None = None
        self.ended: float | None = None

    def tamper_deck(self, to, message):
        if message.get("type") == "open" and to is not None and to != self.seat and self.turns >= self.after:
            if self.began is None:
                self.began = trio.current_time()
            return None
        return message

    async def play(self):
        try:
            return await super().play()
        finally:
            self.ended = trio.current_time()


class WithholdsThenStops(WithholdsOpensSilently):
    """As :class:`WithholdsOpensSilently`, then, ``stop_after`` virtual seconds into its stall
    (before a turn's bound), stops its game naming the drawer as if its own wait had run out:
    its stop's echo lacks nothing it owes, so the stall goes unnamed."""

    deviation = "withholds its private openings, then stops before a turn's bound"
    stop_after = 30.0

    async def misbehave(self):
        await self.until(lambda: self.began is not None)
        await trio.sleep(self.stop_after)
        other = self.others[0]
        now = trio.current_time()
        self.notes.append(f"stopped at {now:.2f}, {now - self.began:.2f} s into the stall")
        self.abort(TableAborted(f"seat-{other} did not move in time", other, "action"))


class StopsAtTheEnd(Cheater):
    """The game is over, and instead of its result (the next thing it would sign) it signs a
    ``stop`` naming another seat as if a wait had run out: a seat that lost denying the others
    their result, as late as it can. (Until protocol version 12 it did so just before its seed,
    at the audit.)"""

    deviation = "stops its game at the end, instead of its result"

    async def before_signing(self, kinds):
        if "result" in kinds and not self.cheated and self.aborted is None:
            other = self.others[0]
            self.notes.append(f"stopped at the end, {trio.current_time():.2f}")
            self._stopped(TableAborted(f"seat-{other} did not send its deck message in time", other, "deck"))
            self.cheated = True
            await trio.sleep_forever()  # no result: misbehave ends the game here
        await super().before_signing(kinds)

    async def misbehave(self):
        await self.until(lambda: self.cheated)
        await trio.sleep(0)
        self._abort_scope.cancel()


class WithholdsThenStopsUnheard(WithholdsThenStops):
    """As :class:`WithholdsThenStops`, but its stop's head echo leaves out the drawer's last
    entry (the draw), as a seat whose incoming link broke would sign it: a stop that proves
    nothing of the drawer, and shows nothing it owed."""

    deviation = "withholds its private openings, then stops claiming it never got the draw"

    async def misbehave(self):
        await self.until(lambda: self.began is not None)
        victim = self.others[0]
        count = self.log.next_seq(victim)
        await trio.sleep(self.stop_after)
        forged = self.log.seen()
        forged[victim] = [count - 1, self.log._hash(victim, count - 2)]
        self.log.seen = lambda: [list(item) for item in forged]  # this stop's echo only
        now = trio.current_time()
        self.notes.append(f"stopped at {now:.2f}, {now - self.began:.2f} s into the stall")
        self.abort(TableAborted(f"seat-{victim} did not move in time", victim, "action"))


class CutsThenStops(Cheater):
    """From turn ``after``, when the next-but-one seat (the victim) draws, withholds its private
    opening to it and cuts its link to it (for good), so the victim truly waits on a seat away
    from it; ``stop_after`` seconds later signs a stop (reaching only the others): a seat that
    waits on the victim no longer believes its "waits on X, away" notice, and may charge it
    before it learns of the stop by asking around."""

    deviation = "withholds an opening, cuts its link to the victim, then stops"
    after = 2
    stop_after = 3.9

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.began: float | None = None

    @property
    def victim(self) -> int:
        return (self.seat + 1) % self.header.players

    def tamper_deck(self, to, message):
        if message.get("type") == "open" and to == self.victim and self.turns >= self.after:
            if self.began is None:
                self.began = trio.current_time()
            return None
        return message

    async def serve_connection(self, seat, conn):
        if seat == self.victim and self.began is not None:
            await conn.aclose()
            return
        await super().serve_connection(seat, conn)

    def entry_to(self, seat, entry):
        return not (seat == self.victim and self.began is not None)

    def answers_fetch(self, seat, fetch):
        return not (seat == self.victim and self.began is not None)

    async def misbehave(self):
        await self.until(lambda: self.began is not None)
        conn = self.connections.get(self.victim)
        if conn is not None:
            await conn.aclose()
        await trio.sleep(self.stop_after)
        other = self.others[0]
        self.notes.append(f"stopped at {trio.current_time():.2f}, {trio.current_time() - self.began:.2f} s in")
        self.abort(TableAborted(f"seat-{other} did not move in time", other, "action"))


# -- the tests -------------------------------------------------------------------------------------

#: A deck step far shorter than a turn (as the defaults are: 30 s and 600 s), in few virtual seconds.
MID = Timeouts(deck=4.0, turn=40.0, grace=0.5)
#: A turn's bound from the stall's start (``Timings.last_call`` of the turn timeout), with
#: the linger of play_seat and a moment to spare: the longest a silent staller may now hold us.
TURN_BOUND = MID.turn + MID.grace + 5.0 + 1.0 + 2.0 + adv_table.LINGER + 1.0


@pytest.fixture
def long_tables(monkeypatch):
    """MID's turn bound (48.5 virtual seconds) is past the 40 a table is given."""
    monkeypatch.setattr(adv_table, "TABLE_SECONDS", 120.0)


def _until_cheated(tmp_path, game, players, factory, timeouts=adv_table.FAST, options=None, tries=4):
    for seed in range(tries):
        run = run_table(
            game,
            players,
            options or {},
            cheater=1,
            peer_factory=factory,
            timeouts=timeouts,
            transcript_dir=tmp_path / str(seed),
            seed=seed,
        )
        if run.cheater_peer is not None and run.cheater_peer.cheated:
            return run
    pytest.fail(f"{factory.__name__}: the cheater never got its chance in {tries} games")


def _verdicts(run) -> dict[int, tuple[set[int], Any]]:
    """Each honest seat: the seats it named live, and the seat verify of its file names."""
    found = {}
    for seat, outcome in run.honest.items():
        assert outcome is not None, run.describe()
        status, report = verify(outcome.transcript)
        found[seat] = (named(outcome), (report.get("problem") or {}).get("seat"))
    return found


def test_a_silent_deck_staller_at_two_seats_is_named_by_a_turns_bound(tmp_path, long_tables):
    """At two seats the staller is the only seat that could echo our draw: our move stays
    unheard, and the deck step is charged at a turn's bound, not a deck step's (the price of
    the one-way-link rule: 602 virtual seconds with the default timeouts instead of 33). It is
    named, live and by verify, and by then."""
    run = _until_cheated(tmp_path, "crazy-eights", 2, WithholdsOpensSilently, MID)
    cheater = run.cheater_peer
    assert _verdicts(run) == {0: ({1}, 1)}, run.describe()
    assert cheater.began is not None and cheater.ended is not None
    assert MID.deck < cheater.ended - cheater.began <= TURN_BOUND, (cheater.began, cheater.ended)


def test_a_deck_staller_whose_stop_shows_the_draw_is_named(tmp_path, long_tables):
    """The staller stops before that bound, its stop's echo showing it held the draw: the
    other seat judges the stopper by its transcript and names it; verify agrees."""
    run = _until_cheated(tmp_path, "crazy-eights", 2, WithholdsThenStops, MID)
    assert _verdicts(run) == {0: ({1}, 1)}, run.describe() + f"\n{run.cheater_peer.notes}"


def test_at_three_seats_the_draw_is_heard_and_a_deck_staller_named_at_the_deck_timeout(tmp_path, long_tables):
    """The third seat's own opening echoes the draw: no wait past the deck step's, and the
    staller's later stop (its echo lacking the draw) comes too late to hide it."""
    run = _until_cheated(tmp_path, "crazy-eights", 3, WithholdsThenStopsUnheard, MID)
    assert _verdicts(run) == {0: ({1}, 1), 2: ({1}, 1)}, run.describe()
    assert not run.cheater_peer.notes, "named before it could stop"


@pytest.mark.xfail(
    strict=True,
    reason="review 28f, by design of Links.unheard: at two seats a deck staller may stop, claiming "
    "it never got the draw, up to a turn's bound (not a deck step's) and go unnamed",
)
def test_at_two_seats_a_deck_stall_past_the_deck_timeout_is_named(tmp_path, long_tables):
    """Withholds its opening for 30 of MID's seconds (deck step 4, turn 40), then stops with an
    echo that lacks the draw: before the change it was named at the deck timeout (about 7
    virtual seconds); now the other seat stops naming nobody, and verify agrees."""
    run = _until_cheated(tmp_path, "crazy-eights", 2, WithholdsThenStopsUnheard, MID)
    assert _verdicts(run) == {0: ({1}, 1)}, run.describe() + f"\n{run.cheater_peer.notes}"


@pytest.mark.parametrize("stop_after", [4.1, 4.3])
def test_a_stop_behind_a_cut_link_at_our_deadline_names_no_innocent(tmp_path, stop_after):
    """Seat 1 withholds its opening to seat 2 and cuts its link to it: seat 2 waits on seat 1,
    away from it, and says so; seat 0 waits on seat 2's move. Seat 1 stops just past seat 0's
    deadline, its stop reaching seat 0 alone. With the "stopped seat excuses nothing" rule as
    committed, seat 0 named seat 2 at once (14 tables in 20, verify of its file naming seat 1):
    seat 2 learns of the stop only at its next ask around. The claim now holds that long."""
    cls = type(f"CutsThenStops_{stop_after}", (CutsThenStops,), {"stop_after": stop_after})
    for seed in range(2):
        run = run_table(
            "crazy-eights", 3, {}, cheater=1, peer_factory=cls, transcript_dir=tmp_path / str(seed), seed=seed
        )
        for seat, (live, verified) in _verdicts(run).items():
            assert live <= {1} and verified in (None, 1), f"seat {seat}: {run.describe()}"


def test_a_stop_at_the_end_instead_of_a_result_does_not_spoil_the_finish(tmp_path):
    """The game is over; a seat (say one that lost) signs a stop instead of its result. The others
    had their result: they keep it, verify verifying (review 28f found the first rule,
    "a stop before its seed ends the game", spoiled the finish so; now only a private box a
    seat owed and never sent does: Party.boxes_missing)."""
    run = _until_cheated(tmp_path, "cals-bs", 3, StopsAtTheEnd, options={"match_target": 1})
    for outcome in run.honest.values():
        assert outcome is not None and outcome.result is not None, run.describe()
        assert named(outcome) == set()
