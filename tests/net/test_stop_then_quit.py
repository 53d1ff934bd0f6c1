"""A seat whose game has stopped (another seat's doing) and whose player then quits does not sign
a ``bye``: verify names the author of a signed goodbye before anyone else, so a bye after the
stop would name this honest seat for a stop another seat caused."""

from __future__ import annotations

from p2pcards.table.protocol import TableAborted

from .peer_support import make_peer


async def test_quitting_after_the_game_stopped_signs_no_goodbye_but_the_stop():
    peer = make_peer()
    await peer.deck.start()  # the seed commitment: from here a stop is signed
    peer._playing = True
    peer.abort(TableAborted("seat 2 did not move in time", 2, "action"))
    await peer.say_goodbye("quit before the game ended")
    kinds = [entry.kind for entry in peer.log.entries(0)]
    assert "bye" not in kinds
    assert kinds[-1] == "stop"  # (no seed follows it: none is revealed since protocol version 12)
