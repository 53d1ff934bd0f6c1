"""The faces anyone can read from the deck's public messages alone (p2pcards.deck.public),
as ``p2pcards verify`` does when a seat kept its seed: from a real table of parties."""

from __future__ import annotations

import copy

import pytest

from p2pcards.deck.passes import pass_order
from p2pcards.deck.public import NotOpened, PublicCards

from .deck_helpers import make_deck


def public_cards(deck) -> PublicCards:
    """What the public messages an onlooker received tell of every handle."""
    party = deck.parties[0]
    cards = PublicCards(party.game_id, party.table, party.cards)
    epoch = 0
    for op, messages in sorted(party.transcript.items()):
        rehandles = [(seat, m) for (kind, seat), m in messages.items() if kind == "rehandle"]
        if rehandles:
            seat, message = rehandles[0]
            cards.rehandled(party.rehandled[op][0], message["points"], message["key"], message["moved"], seat)
        elif ("relock", 0) in messages:
            last = messages[pass_order(deck.players)[-1]]["points"]
            cards.shuffled(epoch * deck.n, last, [messages[("relock", s)]["keys"] for s in range(deck.players)])
            epoch += 1
    return cards


def openings(deck, op: int) -> list[dict]:
    """The reveal's public openings, in seat order (a party keeps the others' only)."""
    every = {seat: m for party in deck.parties for (kind, seat), m in party.transcript[op].items() if kind == "open"}
    return [every[seat] for seat in sorted(every)]


@pytest.fixture(scope="module")
def table():
    """Three seats: a shuffle, a deal, a transfer of two of seat 0's cards to seat 1, then one
    reveal of a re-handled card (shown by its holder's face proof), a held card and an undealt card."""
    deck = make_deck(3, 20)
    handles = deck.shuffle()
    deck.deal({h: i % 3 for i, h in enumerate(handles[:9])})
    moved = deck.transfer([handles[0], handles[3]], 1)
    shown = [moved[0], handles[1], handles[15]]
    faces = deck.reveal(shown, None)
    return deck, shown, faces, len(deck.parties[0].ops) - 1, handles


def test_a_public_reveal_is_read_from_its_openings(table):
    deck, shown, faces, op, _ = table
    assert public_cards(deck).opened(shown, openings(deck, op)) == faces


def test_a_card_not_opened_to_everyone_is_not_read(table):
    deck, shown, faces, op, handles = table
    with pytest.raises(NotOpened):  # dealt, never revealed
        public_cards(deck).opened([handles[2]], openings(deck, op))
    with pytest.raises(NotOpened):  # one seat's opening missing
        public_cards(deck).opened(shown, openings(deck, op)[1:])


def _altered(deck, op, change) -> list[dict]:
    messages = copy.deepcopy(openings(deck, op))
    change(messages)
    return messages


@pytest.mark.parametrize("change", ["scalar", "proof", "face", "handle"])
def test_an_opening_that_does_not_check_out_shows_no_face(table, change):
    deck, shown, faces, op, _ = table
    cards = public_cards(deck)

    def alter(messages):
        for message in messages:
            for i, (handle, pairs, face) in enumerate(zip(message["handles"], message["scalars"], message["faces"])):
                if change == "scalar" and handle == shown[1]:
                    pairs[0][1] = pairs[1][1]  # another lock's key
                elif change == "proof" and face:
                    face[1] = list(reversed(face[1]))  # a broken proof
                elif change == "face" and face:
                    face[0] = (face[0] + 1) % deck.n  # a proof of one face shown as another
                elif change == "handle" and face:
                    message["handles"][i] = shown[1]  # the proof of one card shown for another

    with pytest.raises(NotOpened):
        cards.opened(shown, _altered(deck, op, alter))
