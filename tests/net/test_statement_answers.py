"""A seat that holds a follower's move answers another seat's ``absent`` statement about it
(protocol/table.md section 9, "Absent followers"), also once its own game has ended.

Issue 29, from CI (test_wifi_cut.py, 1 table in about 150): a seat cut off from the others
stated a follower absent; the others went on without it to the game's end and signed their
results. When its links came back, a seat that had signed its result answered nothing, so the
cut seat waited on the statements for ever while the others waited on its result ("did not
all come"). Fed directly to a live Peer (tests/net/peer_support.py): the path is rare in a
played table, where it needs the rest of the game to go by without the cut seat."""

from __future__ import annotations

import msgpack
import trio

from p2pcards.table.protocol import TableAborted
from p2pcards.wire.log import Log

from .peer_support import IDS, TABLE, Recorder, make_peer

TURN = 5


async def _stated_after(end) -> tuple:
    """Seat 0 (a live Peer) gets seat 1's move for TURN; then ``end(peer)`` ends its game (its
    result, or its stop); then comes seat 2's statement that it holds no such move (its log
    never got it). The peer, and seat 2's connection (what the peer wrote on it)."""
    peer = make_peer()
    one, two = Recorder(), Recorder()
    peer.attach(1, one)
    peer.attach(2, two)
    ones = Log(TABLE, peer.header_wire, [i.public for i in IDS])
    move = ones.make_entry(IDS[1], 1, "action", {"turn": TURN, "action": {"type": "pass"}})
    twos = Log(TABLE, peer.header_wire, [i.public for i in IDS])
    statement = twos.make_entry(IDS[2], 2, "absent", {"turn": TURN, "seat": 1})
    await peer.deliver(1, move.to_wire(), one)
    end(peer)
    await peer.deliver(2, statement.to_wire(), two)
    return peer, two


def _answers(peer) -> list:
    return [e for e in peer.log.chain(0) if e.kind == "absent"]


def _result_signed(peer) -> None:
    peer.protocol.over = True  # (as play() sets it, just before it signs our result)


def test_a_seat_whose_game_has_ended_answers_a_statement_about_a_move_it_holds():
    async def main():
        peer, two = await _stated_after(_result_signed)
        answers = _answers(peer)
        assert [a.body["turn"] for a in answers] == [TURN] and answers[0].body["seat"] == 1
        assert answers[0].body["seen"][1][0] == 1  # its echo counts the move: the move stands
        assert peer.protocol.passed_for(TURN, 1) is False
        # ... and went out to the seat that stated (a frame: a length, then the entry)
        sent = [msgpack.unpackb(frame[4:]) for frame in two.frames]
        assert any(m.get("kind") == "absent" and m["body"]["seat"] == 1 for m in sent), sent

    trio.run(main)


def test_a_seat_whose_game_has_stopped_answers_nothing():
    async def main():
        peer, _ = await _stated_after(lambda p: p.abort(TableAborted("stopped for the test", None, "action")))
        assert _answers(peer) == []  # (a statement signed after our stop would be our fault)

    trio.run(main)
