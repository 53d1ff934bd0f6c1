"""A hostile review of passing for absent followers (protocol/table.md section 9, "Absent
followers"; p2pcards/table/absence.py, RemoteSeat/LocalSeat in p2pcards/net/seats.py,
Peer.state_absent/_on_absent, and the replay of p2pcards/verify/).

Over loopback with real peers (adv_table.run_table): one cheater, and where the attack needs
it, an honest seat whose network fails the way a Wi-Fi link does (a blip within the grace
period, a link to one seat that drops), or a seat whose client is gone for good. In process:
two plain bugs of the local seat.

Each test was a bug the review found (marked xfail until it was fixed).
"""

from __future__ import annotations

import pytest
import trio

from p2pcards.game import Round
from p2pcards.net import table as net_table
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.log import Log

from ..net.peer_support import IDS, fetched, make_peer  # tests/net: a Peer in process
from .adv_table import named, play_until_cheated, run_table, verify
from .cheaters import CHEATERS

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck: seconds of crypto each

MODES = {"clockwise": {"match_target": 1}, "free": {"match_target": 1, "turn_mode": "free"}}
#: The grace period is longer than the blips below, as it is meant to be.
TIMEOUTS = Timeouts(deck=6.0, turn=6.0, grace=3.0)
CHEATER = 1
# The tables run on trio's autojump clock (adv_table's ``virtual_time``, the default), but for
# those with a seat whose links blip (LinkBlip, QuickBotBlip): its links drop while the first
# shuffle runs, and on virtual time the shuffle (crypto, no waiting) takes no time, so the seat
# never sees it running and never blips.


@pytest.fixture
def slow_redial(monkeypatch):
    """A dropped link stays down about a second (the seat that redials waits that long first):
    long enough for the seats on the other side to notice, well within the grace period."""
    monkeypatch.setattr(net_table, "REDIAL_FIRST", 1.0)


def passes_for(outcome, seat):
    return sorted(outcome.peer.session.seats[seat].passed)


def verdicts(run, seats):
    """``p2pcards verify`` on each of ``seats``' transcripts: seat -> (status, problem)."""
    out = {}
    for seat in seats:
        status, report = verify(run.outcomes[seat].transcript)
        out[seat] = (status, report.get("problem") or {})
    return out


# ----------------------------------------------------------------------------------------------
# 1. A present player's moves vanish: statements for turns that do not exist yet.


@pytest.mark.parametrize("mode", MODES)
def test_statements_for_future_turns_pass_for_a_seat_that_is_back(tmp_path, slow_redial, mode):
    victim = 2
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        3,
        MODES[mode],
        "StatesFutureTurnsAbsent",
        cheater=CHEATER,
        timeouts=TIMEOUTS,
        others={victim: CHEATERS["LinkBlip"]},
        virtual_time=False,  # real time: the blip needs the shuffle to take time (see the top)
        ready=lambda r: r.outcomes[victim] is not None and r.outcomes[victim].peer.back_turn is not None,
    )
    info = run.describe()
    back = run.outcomes[victim].peer.back_turn
    # The table itself holds together: every honest seat finishes the same game, nobody is
    # named, and verify accepts every transcript (it cannot tell the blip from the cheat).
    for seat, outcome in run.honest.items():
        assert outcome.aborted is None and outcome.peer.blames == [], info
        status, report = verify(outcome.transcript)
        assert status == 0, f"seat {seat}: {report.get('problem')}\n{info}"
    # The victim was back (connected to every seat) from turn ``back`` on; the table passed
    # for it at these turns all the same.
    after = [t for t in passes_for(run.outcomes[0], victim) if t > back]
    assert after == [], (
        f"seat {victim} was back at turn {back}, yet passed for at turns {after} "
        f"(verify accepted every transcript)\n{info}"
    )


def test_a_blip_alone_passes_for_nobody_once_the_seat_is_back(tmp_path, slow_redial):
    """The control for the test above (kept: nothing else covers a seat that blips): without
    the cheater, a seat whose links drop during the shuffle plays every turn of its own."""
    victim = 2
    run = run_table(
        "cals-bs",
        3,
        MODES["clockwise"],
        cheater=victim,
        peer_factory=CHEATERS["LinkBlip"],
        virtual_time=False,  # real time: the blip needs the shuffle to take time (see the top)
        transcript_dir=tmp_path,
        timeouts=TIMEOUTS,
    )
    info = run.describe()
    assert run.cheater_peer.cheated and run.cheater_peer.back_turn is not None, info
    for seat, outcome in run.honest.items():
        assert outcome.aborted is None and outcome.peer.blames == [], info
        assert passes_for(outcome, victim) == [], info
        status, report = verify(outcome.transcript)
        assert status == 0, f"seat {seat}: {report.get('problem')}\n{info}"


# ----------------------------------------------------------------------------------------------
# 2. The seat passed for signs its move anyway: the honest seats disagree.


def test_a_seat_passed_for_plays_the_same_game_as_the_others(tmp_path, slow_redial):
    victim = 2
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        3,
        MODES["clockwise"],
        "StatesFutureTurnsAbsent",
        cheater=CHEATER,
        timeouts=TIMEOUTS,
        others={victim: CHEATERS["QuickBotBlip"]},
        virtual_time=False,  # real time: the blip needs the shuffle to take time (see the top)
        ready=lambda r: r.outcomes[victim] is not None and r.outcomes[victim].peer.back_turn is not None,
    )
    info = run.describe()
    other = run.outcomes[0]
    passed = set(passes_for(other, victim))
    signed = sorted(
        e.body["turn"]
        for e in run.outcomes[victim].peer.log.entries(victim)
        if e.kind == "action" and e.body["turn"] in passed
    )
    found = verdicts(run, run.honest)
    assert signed == [], (
        f"seat {victim} signed and applied moves for turns {signed}, which the "
        f"others passed for it; verify: {found}\n{info}"
    )
    for _seat, outcome in run.honest.items():
        assert named(outcome) <= {CHEATER}, info


# ----------------------------------------------------------------------------------------------
# 3. A seat that never answers a statement gets the follower who moved named (and verify names
#    the seat that waited).


def test_a_seat_that_never_answers_a_statement_gets_nobody_named(tmp_path, slow_redial):
    follower = 2
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        3,
        MODES["clockwise"],
        "WithholdsAbsentAnswer",
        cheater=CHEATER,
        # Real time: on the autojump clock a fresh-clone run had seat 2 name honest seat 0 at a
        # deck timeout that virtual time reached before the statements were settled.
        virtual_time=False,
        timeouts=TIMEOUTS,
        others={follower: CHEATERS["DropsLinkAsFollower"]},
        ready=lambda r: r.outcomes[follower] is not None and r.outcomes[follower].peer.dropped_turn is not None,
        # The cheater gets its chance only when the dropped link leads to a statement, which
        # depends on timing: on a loaded machine 4 tables in a row missed it (3 loops in 140
        # beside CPU burners, issue 29).
        attempts=8,
    )
    info = run.describe()
    turn = run.outcomes[follower].peer.dropped_turn
    waiter = run.outcomes[0]
    found = verdicts(run, run.honest)
    evidence = (
        f"seat 0 holds seat {follower}'s move for turn {turn}: "
        f"{waiter.peer.protocol.holds_move(follower, turn)}; seat 0 named {named(waiter)}, "
        f"seat {follower} named {named(run.outcomes[follower])}; verify: {found}\n{info}"
    )
    for _seat, outcome in run.honest.items():
        assert named(outcome) <= {CHEATER}, evidence
    for _seat, (_status, problem) in found.items():
        assert problem.get("seat") in (None, CHEATER), evidence


# ----------------------------------------------------------------------------------------------
# 4. A statement withheld from one seat: the seat after it names that seat.


def test_a_statement_withheld_from_one_seat_gets_nobody_honest_named(tmp_path):
    gone, stuck = 3, 0
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        4,
        MODES["clockwise"],
        "WithholdsStatementFromNext",
        cheater=CHEATER,
        virtual_time=True,
        timeouts=TIMEOUTS,
        others={gone: CHEATERS["GoneAtItsPassableTurn"]},  # (statements to withhold in every table)
    )
    info = run.describe()
    honest = {s: o for s, o in run.honest.items() if s != gone}
    found = verdicts(run, honest)
    for seat, (_status, problem) in found.items():
        assert problem.get("seat") in (None, CHEATER, gone), f"seat {seat}: {problem}\n{info}"
    for seat, outcome in honest.items():
        assert stuck not in named(outcome), f"seat {seat} named seat {stuck}; verify: {found}\n{info}"


# ----------------------------------------------------------------------------------------------
# 5. A transcript cut short: verify reads a removed move as a pass and names an honest seat.


@pytest.mark.parametrize("mode", MODES)
def test_a_move_cut_from_the_file_is_not_read_as_a_pass(tmp_path, mode):
    from p2pcards.table.absence import Absences
    from p2pcards.wire.transcript import TranscriptWriter, read_transcript

    # StatesAbsentEarly states every follower absent at once: the seats that hold the move
    # answer, so many moves stand on complete statements that count them.
    run = play_until_cheated(tmp_path, "cals-bs", 3, MODES[mode], "StatesAbsentEarly", cheater=CHEATER)
    original = run.outcomes[0].transcript
    assert verify(original)[0] == 0, run.describe()
    transcript = read_transcript(original)
    log = transcript.log()
    absences = Absences(3)
    for entry in log.canonical():
        if entry.kind == "absent":
            absences.add(entry)
    victim = 2
    # A doubt or a play (a pass cut out would read as the same pass).
    # (In free order a response is sealed: what it was, its opening says.)
    opened = {e.body["turn"]: e.body["open"] for e in log.entries(victim) if e.kind == "open"}
    stood = [
        e
        for e in log.entries(victim)
        if e.kind == "action"
        and (e.body.get("action") or opened.get(e.body["turn"]) or {"type": "pass"}).get("type") != "pass"
        and absences.passed(e.body["turn"], victim, log.entries(victim)) is False
    ]
    if not stood:
        pytest.skip(f"seat {victim} never doubted or played on complete statements: {run.describe()}")
    wrong = []
    for cut in stood[:4]:
        # The file with seat 2's chain cut just before that move (a hash chain can lose its tail).
        tampered = tmp_path / f"cut-{cut.seq}.p2pt"
        writer = TranscriptWriter.create(tampered, transcript.header)
        kept = [e for e in transcript.entries if not (e.sender == victim and e.seq >= cut.seq)]
        writer.append_entries(kept)
        for blame in transcript.blames:
            writer.append_blame(blame)
        writer.write_end(transcript.end)
        writer.close()
        status, report = verify(tampered)
        problem = report.get("problem") or {}
        if not (status == 1 and problem.get("seat") is None and "removed" in problem.get("reason", "")):
            where = f"cut before seat {victim}'s move for turn {cut.body['turn']} (log #{cut.seq})"
            wrong.append((where, problem))
    assert wrong == [], wrong


# ----------------------------------------------------------------------------------------------
# 6. Plain bugs of the local seat, in process (tests/net/peer_support.py: seat 0 of three).


def _signed(log: Log, seat: int, kind: str, body: dict):
    return log.make_entry(IDS[seat], seat, kind, body)


def _log_of(peer) -> Log:
    """A log of the same table, where the other seats sign what the test needs."""
    return Log(peer.header.table, peer.header_wire, [s.keys for s in peer.header.seats])


def test_a_resumed_seat_replays_its_absent_statements():
    from ..net.peer_support import Recorder

    async def main():
        peer = make_peer()  # seat 0 of 3
        log = _log_of(peer)
        commit = _signed(log, 0, "deck", {"msg": {"type": "commit", "op": 0}})
        theirs = _signed(log, 1, "absent", {"turn": 5, "seat": 2})  # seat 2 was away at turn 5
        ours = _signed(log, 0, "absent", {"turn": 5, "seat": 2})  # and we said so too
        after = _signed(log, 0, "deck", {"msg": {"type": "shuffle", "op": 1}})
        # Then we crashed; seat 2 is back by the time we are (it was passed for at turn 5).
        peer.load_journal([commit, theirs, ours, after])
        for seat in (1, 2):
            peer.attach(seat, Recorder())
        await peer.replay()
        for seat in (1, 2):
            await peer.deliver(seat, fetched(3))
        with trio.fail_after(2):
            await peer.recover_own()
        assert await peer.publish("deck", {"msg": {"type": "commit", "op": 0}}) is commit  # re-used
        await peer._dispatch_ready()  # seat 1's statement, which had seen our commit
        # As before the crash, every other seat has stated seat 2 absent for turn 5.
        assert peer.protocol.passed_for(5, 2) is True and peer.stated_absent(5, 2)
        assert await peer.publish("deck", {"msg": {"type": "shuffle", "op": 1}}) is after

    trio.run(main)


def test_a_late_pass_for_a_seat_passed_for_is_ordered_as_at_the_others():
    async def main():
        peer = make_peer()
        me = peer.seat
        earlier, _ = peer.protocol.sign("action", lambda: {"turn": 0, "action": {"type": "pass"}})
        peer.session.seats[me].last_entry = earlier  # our response to an earlier round
        peer.turns = turn = 3  # a later round, opened by seat 2, that we did not answer (we were away)
        log = _log_of(peer)
        log.append(earlier)
        statements = [_signed(log, s, "absent", {"turn": turn, "seat": me}) for s in (1, 2)]
        doubt = _signed(log, 1, "action", {"turn": turn, "action": {"type": "doubt"}})  # it saw `earlier`
        for entry in (*statements, doubt):
            peer.protocol.log.append(entry)
            if entry.kind == "absent":
                peer.protocol.absences.add(entry)
        assert peer.protocol.passed_for(turn, me) is True
        # Seat 1's doubt decided the round before our player acted: the session asks for our
        # late pass, and there is none to sign (the others passed for us).
        await peer.session.seats[me].pass_late(peer.session, me, {"type": "pass"})
        peer.session.seats[1].last_entry = doubt
        here = peer.session.round_order(Round((me, 1), 2), {me: {"type": "pass"}, 1: {"type": "doubt"}}, [1, me])
        # At every other seat and in verify the pass made for us (no entry) comes after every
        # signed response: the doubt decides, our pass is void.
        assert [seat for seat, _ in here] == [1, me], here

    trio.run(main)


def test_a_statement_we_cannot_sign_stops_our_game_and_nothing_else():
    import dataclasses

    async def main():
        peer = make_peer()
        await peer.publish("chat", {"text": "hello"})  # our entry #0
        peer.log.budget = dataclasses.replace(peer.log.budget, entries=1)  # our last one
        log = _log_of(peer)
        move = _signed(log, 2, "action", {"turn": 4, "action": {"type": "pass"}})
        await peer.deliver(2, move.to_wire())  # we hold seat 2's move for turn 4
        statement = _signed(log, 1, "absent", {"turn": 4, "seat": 2})  # seat 1 did not get it
        await peer.deliver(1, statement.to_wire())  # we answer: past our budget
        assert peer.aborted is not None

    trio.run(main)
