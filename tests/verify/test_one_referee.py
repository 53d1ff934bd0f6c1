"""Verify judges as the live table does, and says nobody where one file knows less than a live
seat (issue 28, "One referee"): transcripts of real games, cut or extended the way a network
cut or a cheater would leave them."""

from __future__ import annotations

from p2pcards.verify import EXIT_FAILED, verify_file
from p2pcards.wire.messages import sign_entry
from p2pcards.wire.transcript import TranscriptEnd

from .verify_tables import backed, chains_of, write


def _heads(entries) -> dict[int, object]:
    heads = {}
    for entry in entries:
        heads[entry.sender] = entry
    return heads


def _append(identity, entries, seat: int, kind: str, body: dict) -> list:
    """``entries`` and one more entry of ``seat``, echoing every chain as far as it goes."""
    heads = _heads(entries)
    players = len(heads[seat].body["seen"])
    seen = [[heads[s].seq + 1, heads[s].hash] if s in heads else [0, b"\x00" * 32] for s in range(players)]
    own = heads[seat]
    entry = sign_entry(
        identity, table=own.table, sender=seat, seq=own.seq + 1, kind=kind, prev=own.hash, body={**body, "seen": seen}
    )
    return [*entries, entry]


def _stopped_file(table, tmp_path, *, waited_on: int, stopped: list[int], name: str):
    """A file of a game stopped in play while it waited on ``waited_on``'s move: every chain up
    to that move, then the stop (naming nobody) of each seat of ``stopped``, and no other
    seat's (no seed follows a stop since protocol version 12). With one seat stopped, it is the
    file of that seat cut off from every other one."""
    transcript = table.read()
    moves = [e for e in transcript.entries if e.kind == "action"]
    # The first move of ``waited_on`` after the third move: the cut comes just before it.
    cut = next(e for e in moves[3:] if e.sender == waited_on)
    turn = cut.body["turn"]
    chains = chains_of(transcript.entries)
    counts = {}
    for seat, chain in chains.items():
        # Every entry signed before the move of that turn came: its echo counts no move at or
        # after the turn.
        counts[seat] = next(
            (
                i
                for i, e in enumerate(chain)
                if (e.kind == "action" and e.body["turn"] >= turn) or e.kind in ("result", "stop")
            ),
            len(chain),
        )
    entries = backed(chains, counts)
    for seat in stopped:
        entries = _append(table.identities[seat], entries, seat, "stop", {"reason": "cut off", "seat": None})
    end = TranscriptEnd("aborted", None, (), "stopped")
    return write(tmp_path / name, transcript, entries, end=end)


def test_the_file_of_a_seat_cut_off_from_every_other_names_nobody(bs_table, tmp_path):
    """From one seat's file "the others left" and "I was cut off" look the same: after a cut in
    play, the cut seat's own file (its stop the only one signed) names nobody, not the seat
    the game waited on, which was alive throughout (issue 28, section 2)."""
    report = verify_file(_stopped_file(bs_table, tmp_path, waited_on=0, stopped=[2], name="cut.p2pt"))
    assert report.status == EXIT_FAILED
    assert report.problem is not None and report.problem.seat is None, report.problem_line()


def test_a_seat_that_alone_signed_no_stop_while_the_others_signed_theirs_left(bs_table, tmp_path):
    """The control: the file of a seat that can still reach another one (both their stops in
    it) names the seat the game waited on, which alone signed no stop (since protocol version
    12 the reading of "kept its seed"), as having left (protocol/table.md section 5), as the
    live seats name it after the grace period."""
    report = verify_file(_stopped_file(bs_table, tmp_path, waited_on=0, stopped=[1, 2], name="left.p2pt"))
    assert report.status == EXIT_FAILED
    assert report.problem is not None and report.problem.seat == 0, report.problem_line()
    assert "left the table" in report.problem.reason
