"""Accusations about operations that have not begun (protocol/deck.md section 6): refused, or
kept aside until the operation is reached, and never in the way of judging another one.

One seat (the jammer) accuses as the first deal begins, about an operation far ahead or not
begun; then a seat sends a wrong private key. Every honest seat must name a cheater, and the
same one: the accusation it could judge, never the honest seat that accused rightly."""

from __future__ import annotations

import copy

import pytest

from p2pcards.deck import Party, Send
from p2pcards.deck.backend import DeckFault
from p2pcards.deck.group import prf_scalar
from p2pcards.deck.local import _decode
from p2pcards.deck.party import DealOp

from .deck_helpers import make_deck

FAR = 1000  # an operation index no game here reaches


def jam(kind: str, accuser: Party) -> dict:
    """The jammer's accusation of seat 0 (or of itself, for a decode failure)."""
    base = {"type": "accuse", "op": FAR, "seat": 0, "reason": "made up"}
    if kind == "shuffle far":
        return {**base, "step": "shuffle", "evidence": None}
    if kind == "relock not begun":  # the next shuffle's re-lock: it will exist, but not yet
        return {**base, "op": len(accuser.ops) + 1, "step": "relock", "evidence": None}
    if kind == "rehandle far":
        return {**base, "step": "rehandle", "evidence": None}
    if kind == "open far":
        message = {"type": "open", "op": FAR, "handles": [0], "scalars": [[[0, b"\x01" * 32]]], "chains": [[]]}
        return {**base, "step": "open", "evidence": {"sender": 0, "message": message}}
    if kind == "open, no evidence":
        return {**base, "step": "open", "evidence": {"sender": 0, "message": None}}
    if kind == "reused key far":
        return {**base, "step": "open", "evidence": {"scalar": b"\x02" * 32, "author": 0, "places": [[0, 0], [1, 0]]}}
    if kind == "decode far":
        return {**base, "step": "decode", "seat": accuser.seat, "evidence": {"handles": [0], "scalars": [[]]}}
    raise ValueError(kind)


#: Refused as they arrive: a public message the accuser cannot have received, or no evidence;
#: a decode failure, an accusation of no known kind since protocol version 11 (issue 32: every
#: pass is proven and every lock checked, so no card fails to decode).
REFUSED = ["shuffle far", "relock not begun", "rehandle far", "open, no evidence", "decode far"]
#: Kept aside until their operation is reached (here: never, so until the end of the game).
KEPT = ["open far", "reused key far"]


def jammer(kind: str):
    class Jammer(Party):
        """Sends its accusation as the first deal begins, ahead of its own openings."""

        jammed = False

        def begin(self, op):
            out = super().begin(op)
            if isinstance(op, DealOp) and not self.jammed:
                self.jammed = True
                out.sends.insert(0, Send(None, jam(kind, self)))
            return out

    return Jammer


def wrong_key_from(sender: int, receiver: int):
    def hook(s, r, message):
        if message.get("type") == "open" and s == sender and r == receiver:
            message = copy.deepcopy(message)
            message["scalars"][0][0][1] = prf_scalar(b"x" * 32, "wrong")
        return message

    return hook


def table(players: int, kind: str, jam_seat: int, **kwargs):
    cls = jammer(kind)
    return make_deck(
        players, party_factory=lambda seat, *a, **k: (cls if seat == jam_seat else Party)(seat, *a, **k), **kwargs
    )


def verdicts(fault: DeckFault, honest) -> dict[int, tuple[str, int]]:
    return {s: (fault.blames[s].step, fault.blames[s].seat) for s in honest if s in fault.blames}


# With 3 players the jammer also sends the wrong key; with 4 they are two seats, and an honest
# seat (3) that received neither has only the accusations to go on.
SETUPS = {3: dict(jam_seat=1, wrong=1, honest=[0, 2]), 4: dict(jam_seat=2, wrong=1, honest=[0, 3])}


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("kind", KEPT)
def test_a_kept_aside_accusation_does_not_hold_up_a_true_one(players, kind):
    setup = SETUPS[players]
    deck = table(players, kind, setup["jam_seat"], tamper=wrong_key_from(setup["wrong"], 0))
    handles = deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.deal({h: 0 for h in handles[:3]})
    got = verdicts(info.value, setup["honest"])
    assert got == {s: ("open", setup["wrong"]) for s in setup["honest"]}, info.value.blames
    assert all(info.value.blames[s].op == 1 for s in setup["honest"])


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("kind", REFUSED)
def test_an_accusation_about_what_the_accuser_never_received_is_refused_at_once(players, kind):
    """No wrong key here: the deal alone shows every seat refusing it as it arrives."""
    setup = SETUPS[players]
    deck = table(players, kind, setup["jam_seat"])
    handles = deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.deal({h: 0 for h in handles[:3]})
    others = [s for s in range(players) if s != setup["jam_seat"]]
    assert verdicts(info.value, others) == {s: ("accuse", setup["jam_seat"]) for s in others}, info.value.blames


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("kind", REFUSED)
def test_a_refused_accusation_and_a_wrong_key_name_only_cheaters(players, kind):
    """Whichever reaches a seat first decides there; both name a cheater."""
    setup = SETUPS[players]
    deck = table(players, kind, setup["jam_seat"], tamper=wrong_key_from(setup["wrong"], 0))
    handles = deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.deal({h: 0 for h in handles[:3]})
    got = verdicts(info.value, setup["honest"])
    assert set(got) == set(setup["honest"]), info.value.blames
    assert {seat for _, seat in got.values()} <= {setup["jam_seat"], setup["wrong"]}, info.value.blames


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("kind", KEPT)
def test_an_accusation_about_an_operation_that_never_comes_names_its_accuser_at_the_end(players, kind):
    setup = SETUPS[players]
    deck = table(players, kind, setup["jam_seat"])
    handles = deck.shuffle()
    deck.deal({h: h % players for h in handles[: 2 * players]})  # the game goes on meanwhile
    deck.reveal(handles[:players], None)
    deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.open_all()
    others = [s for s in range(players) if s != setup["jam_seat"]]
    assert verdicts(info.value, others) == {s: ("accuse", setup["jam_seat"]) for s in others}, info.value.blames


def test_a_true_accusation_waits_at_a_seat_behind_and_is_judged_when_it_gets_there():
    """Seat 2 has not begun the deal when seat 0's accusation about it arrives (its begin comes
    later): the accusation is kept until then, and judged alike."""
    deck = make_deck(3, tamper=wrong_key_from(1, 0))
    handles = deck.shuffle()
    parties, net = deck.parties, deck.net
    op = DealOp({h: 0 for h in handles[:3]})
    for party in parties[:2]:
        net.call(party.seat, party.begin, op)
    late = parties[2]
    for _ in range(1000):  # deliver everything but to seat 2 first
        pending = [item for item in net.queue if item[3] != 2]
        if not pending:
            break
        net.queue.remove(pending[0])
        sent_at, _, sender, to, data = pending[0]
        net.call(to, parties[to].receive, sender, _decode(data))
    assert parties[0].blame is not None and (parties[0].blame.step, parties[0].blame.seat) == ("open", 1)
    net.run()  # seat 2 gets the accusation before its own begin: kept aside
    assert late.blame is None and late._kept
    net.call(2, late.begin, op)
    net.run()
    assert (late.blame.step, late.blame.seat, late.blame.op) == ("open", 1, 1), late.blame
