"""A hostile review of passing for absent followers (protocol/table.md section 9, "Absent
followers"; p2pcards/table/absence.py, RemoteSeat/LocalSeat in p2pcards/net/seats.py,
Peer.state_absent/_on_absent, and the replay of p2pcards/verify.py).

Over loopback with real peers (adv_table.run_table): one cheater, and where the attack needs
it, an honest seat whose network fails the way a Wi-Fi link does (a blip within the grace
period, a link to one seat that drops), or a seat whose client is gone for good. In process:
two plain bugs of the local seat.

Tests marked xfail(strict=True) are real bugs, described in their reason: they fail today, and
turn red the day the bug is fixed, so the marker is removed then.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio
from adv_table import blamed, play_until_cheated, run_table, verify
from cheaters import CHEATERS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "net"))
from peer_support import IDS, fetched, make_peer  # noqa: E402  (tests/net: a Peer in process)

from p2pcards.game import Round
from p2pcards.net import table as net_table
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.log import Log

MODES = {"clockwise": {"match_target": 1}, "free": {"match_target": 1, "turn_mode": "free"}}
#: The grace period is longer than the blips below, as it is meant to be.
TIMEOUTS = Timeouts(deck=6.0, turn=6.0, grace=3.0)
CHEATER = 1


@pytest.fixture
def slow_redial(monkeypatch):
    """A dropped link stays down about a second (the seat that redials waits that long first):
    long enough for the seats on the other side to notice, well within the grace period."""
    monkeypatch.setattr(net_table, "REDIAL_FIRST", 1.0)


def passes_for(outcome, seat):
    return sorted(outcome.peer.session.seats[seat].passed)


def named(outcome) -> set[int]:
    """The seats an honest seat named: during its game, or as the seat its game stopped for."""
    seats = blamed(outcome.peer)
    if outcome.aborted is not None and outcome.aborted.seat is not None:
        seats.add(outcome.aborted.seat)
    return seats


def verdicts(run, seats):
    """``p2pcards verify`` on each of ``seats``' transcripts: seat -> (status, problem)."""
    out = {}
    for seat in seats:
        status, report = verify(run.outcomes[seat].transcript)
        out[seat] = (status, report.get("problem") or {})
    return out


# ----------------------------------------------------------------------------------------------
# 1. A present player's moves vanish: statements for turns that do not exist yet.


@pytest.mark.xfail(strict=True, reason=(
    "Peer._on_absent (p2pcards/net/peer.py) answers a statement about a seat that is not "
    "connected right now with one of its own whatever the turn, and Absences.passed decides as "
    "soon as every other seat has stated: a cheater that states a seat absent for every future "
    "turn during a blip gets the honest seats to co-sign them all, and the table then passes "
    "for that seat at each of its follower turns for the rest of the game though it is back "
    "(it can never doubt the cheater); verify accepts the transcripts"))
@pytest.mark.parametrize("mode", MODES)
def test_statements_for_future_turns_pass_for_a_seat_that_is_back(tmp_path, slow_redial, mode):
    victim = 2
    run = play_until_cheated(tmp_path, "cals-bs", 3, MODES[mode], "StatesFutureTurnsAbsent", cheater=CHEATER,
                             timeouts=TIMEOUTS, others={victim: CHEATERS["LinkBlip"]},
                             ready=lambda r: r.outcomes[victim] is not None
                             and r.outcomes[victim].peer.back_turn is not None)
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
    assert after == [], (f"seat {victim} was back at turn {back}, yet passed for at turns {after} "
                         f"(verify accepted every transcript)\n{info}")


def test_a_blip_alone_passes_for_nobody_once_the_seat_is_back(tmp_path, slow_redial):
    """The control for the test above (kept: nothing else covers a seat that blips): without
    the cheater, a seat whose links drop during the shuffle plays every turn of its own."""
    victim = 2
    run = run_table("cals-bs", 3, MODES["clockwise"], cheater=victim, peer_factory=CHEATERS["LinkBlip"],
                    transcript_dir=tmp_path, timeouts=TIMEOUTS)
    info = run.describe()
    assert run.cheater_peer.cheated and run.cheater_peer.back_turn is not None, info
    for seat, outcome in run.honest.items():
        assert outcome.aborted is None and outcome.peer.blames == [], info
        assert passes_for(outcome, victim) == [], info
        status, report = verify(outcome.transcript)
        assert status == 0, f"seat {seat}: {report.get('problem')}\n{info}"


# ----------------------------------------------------------------------------------------------
# 2. The seat passed for signs its move anyway: the honest seats disagree.


@pytest.mark.xfail(strict=True, reason=(
    "LocalSeat._unless_passed_for (p2pcards/net/seats.py) returns the agent's choice whenever "
    "the chooser task finished, even when the statements had already passed for us: a bot "
    "that answers without a checkpoint (no thinking delay, clockwise) completes inside the "
    "cancelled scope, so the seat signs and applies a move for a turn every other seat passed "
    "for. Its game diverges from theirs with no stop (its _on_absent ran before it signed), it "
    "names an innocent seat for an 'illegal' move, and verify of its transcript may name one"))
def test_a_seat_passed_for_plays_the_same_game_as_the_others(tmp_path, slow_redial):
    victim = 2
    run = play_until_cheated(tmp_path, "cals-bs", 3, MODES["clockwise"], "StatesFutureTurnsAbsent",
                             cheater=CHEATER, timeouts=TIMEOUTS, others={victim: CHEATERS["QuickBotBlip"]},
                             ready=lambda r: r.outcomes[victim] is not None
                             and r.outcomes[victim].peer.back_turn is not None)
    info = run.describe()
    other = run.outcomes[0]
    passed = set(passes_for(other, victim))
    signed = sorted(e.body["turn"] for e in run.outcomes[victim].peer.log.entries(victim)
                    if e.kind == "action" and e.body["turn"] in passed)
    found = verdicts(run, run.honest)
    assert signed == [], (f"seat {victim} signed and applied moves for turns {signed}, which the "
                          f"others passed for it; verify: {found}\n{info}")
    for seat, outcome in run.honest.items():
        assert named(outcome) <= {CHEATER}, info


# ----------------------------------------------------------------------------------------------
# 3. A seat that never answers a statement gets the follower who moved named (and verify names
#    the seat that waited).


@pytest.mark.xfail(strict=True, reason=(
    "RemoteSeat.choose (p2pcards/net/seats.py) defers a follower's move once we stated it "
    "absent and waits for every other seat's statement; a seat that holds the move and never "
    "answers leaves the statements incomplete, and at the turn timeout we name the follower "
    "('did not move in time') although we hold its move. _Replay.next_action (p2pcards/"
    "verify.py) then uses the move (the statements decide nothing) and names the seat that "
    "waited for the statements as a staller; the cheater, whose chain shows it held both the "
    "statement and the move, is never named"))
def test_a_seat_that_never_answers_a_statement_gets_nobody_named(tmp_path, slow_redial):
    follower = 2
    run = play_until_cheated(tmp_path, "cals-bs", 3, MODES["clockwise"], "WithholdsAbsentAnswer",
                             cheater=CHEATER,
                             timeouts=TIMEOUTS, others={follower: CHEATERS["DropsLinkAsFollower"]},
                             ready=lambda r: r.outcomes[follower] is not None
                             and r.outcomes[follower].peer.dropped_turn is not None)
    info = run.describe()
    turn = run.outcomes[follower].peer.dropped_turn
    waiter = run.outcomes[0]
    found = verdicts(run, run.honest)
    evidence = (f"seat 0 holds seat {follower}'s move for turn {turn}: "
                f"{waiter.peer.protocol.holds_move(follower, turn)}; seat 0 named {named(waiter)}, "
                f"seat {follower} named {named(run.outcomes[follower])}; verify: {found}\n{info}")
    for seat, outcome in run.honest.items():
        assert named(outcome) <= {CHEATER}, evidence
    for seat, (status, problem) in found.items():
        assert problem.get("seat") in (None, CHEATER), evidence


# ----------------------------------------------------------------------------------------------
# 4. A statement withheld from one seat: the seat after it names that seat.


@pytest.mark.xfail(strict=True, reason=(
    "RemoteSeat._absent (p2pcards/net/seats.py) asks around only for the gone seat's chain, "
    "never for the chains of the seats whose statements are missing: a cheater that sends its "
    "statement to every seat but the one after the gone follower leaves that seat waiting for "
    "good, while the seats that have every statement move on and name it at the turn timeout "
    "('did not move in time'). Verify names nobody here"))
def test_a_statement_withheld_from_one_seat_gets_nobody_honest_named(tmp_path):
    gone, stuck = 3, 0
    run = play_until_cheated(tmp_path, "cals-bs", 4, MODES["clockwise"], "WithholdsStatementFromNext",
                             cheater=CHEATER, timeouts=TIMEOUTS, others={gone: CHEATERS["GoneForGood"]})
    info = run.describe()
    honest = {s: o for s, o in run.honest.items() if s != gone}
    found = verdicts(run, honest)
    for seat, (status, problem) in found.items():
        assert problem.get("seat") in (None, CHEATER, gone), f"seat {seat}: {problem}\n{info}"
    for seat, outcome in honest.items():
        assert stuck not in named(outcome), f"seat {seat} named seat {stuck}; verify: {found}\n{info}"


# ----------------------------------------------------------------------------------------------
# 5. A transcript cut short: verify reads a removed move as a pass and names an honest seat.


@pytest.mark.xfail(strict=True, reason=(
    "_Replay.next_action (p2pcards/verify.py) calls Absences.passed with the file's chain of the "
    "follower, which may hold fewer entries than the statements' echoes count (passed() needs "
    "at least that many): with the follower's chain cut before a move that every statement "
    "counted (it stood at the table), chain[:counted] holds no move and verify passes for the "
    "seat instead of reporting entries removed from the file (_not_in_file). The replay then "
    "leaves the game the table played and names a seat whose later move no longer fits"))
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
    stood = [e for e in log.entries(victim) if e.kind == "action" and e.body["action"].get("type") != "pass"
             and absences.passed(e.body["turn"], victim, log.entries(victim)) is False]
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


@pytest.mark.xfail(strict=True, reason=(
    "A seat's own absent statements are re-used on replay only if the replay happens to re-make "
    "them (TableProtocol.sign pops the journal in order, and nothing rebuilds Peer._stated or "
    "puts our statements back in Absences): they were made because a seat was away, which it "
    "no longer is after our restart, so the replay never re-makes them. The statements stay "
    "undecided here (the others passed for that seat), and the next entry the replay makes "
    "meets our journal's absent entry: TableAborted('our journal has a absent entry where the "
    "replay makes a deck one'), naming ourselves"))
def test_a_resumed_seat_replays_its_absent_statements():
    from peer_support import Recorder

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
            await peer._on_message(seat, None, fetched(3))
        with trio.fail_after(2):
            await peer.recover_own()
        assert await peer.publish("deck", {"msg": {"type": "commit", "op": 0}}) is commit  # re-used
        await peer._dispatch_ready()  # seat 1's statement, which had seen our commit
        # As before the crash, every other seat has stated seat 2 absent for turn 5.
        assert peer.protocol.passed_for(5, 2) is True and peer.stated_absent(5, 2)
        assert await peer.publish("deck", {"msg": {"type": "shuffle", "op": 1}}) is after

    trio.run(main)


@pytest.mark.xfail(strict=True, reason=(
    "LocalSeat.pass_late (p2pcards/net/seats.py) returns without signing when the other seats "
    "passed for us, but leaves last_entry at our previous move's entry: Peer._round_order then "
    "orders our pass before every response whose author had seen that old entry, while every "
    "other seat (and verify) puts the pass made for us after every signed response. A doubt "
    "after it: we apply our pass, the others void it, and our turn count runs one ahead (our "
    "next move is 'for turn n+1 during turn n': we are named)"))
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
        here = peer._round_order(Round((me, 1), 2), {me: {"type": "pass"}, 1: {"type": "doubt"}}, [1, me])
        # At every other seat and in verify the pass made for us (no entry) comes after every
        # signed response: the doubt decides, our pass is void.
        assert [seat for seat, _ in here] == [1, me], here

    trio.run(main)


@pytest.mark.xfail(strict=True, reason=(
    "Peer._on_absent and the MoveIn branch of Peer._carry_out (p2pcards/net/peer.py) sign a "
    "statement from the connection's receive loop; TableProtocol.sign raises TableAborted when "
    "that entry is past our budget (or our game stopped meanwhile), and nothing there catches "
    "it: it escapes serve_connection and takes the seat's whole nursery down instead of "
    "stopping the game (a cheater whose statements an honest seat answers one for one spends "
    "that seat's entry budget with its own)"))
def test_a_statement_we_cannot_sign_stops_our_game_and_nothing_else():
    import dataclasses

    async def main():
        peer = make_peer()
        await peer.publish("chat", {"text": "hello"})  # our entry #0
        peer.log.budget = dataclasses.replace(peer.log.budget, entries=1)  # our last one
        statement = _signed(_log_of(peer), 1, "absent", {"turn": 4, "seat": 2})  # seat 2: not connected
        await peer._on_message(1, None, statement.to_wire())
        assert peer.aborted is not None

    trio.run(main)
