"""Cheating seats around a drop-out, at the deck (protocol/deck.md §4.6, issue 30): a dropper
that publishes a wrong key, withholds keys, or keys for other cards is named by every other
seat, at step "drop"; a seat that sends a drop-out message for a drop it is not making changes
nothing (only the dropping seat's own message counts, and only when the table's state says
that seat drops out)."""

from __future__ import annotations

import copy

import pytest

from p2pcards.deck.backend import DeckFault
from p2pcards.deck.group import prf_scalar

from ..deck.deck_helpers import make_deck

DROPPER = 1


def tamper_drop(change, sender=DROPPER):
    def hook(s, r, message):
        if message.get("type") == "drop" and s == sender:
            return change(copy.deepcopy(message))
        return message

    return hook


def dealt(deck, players=4):
    handles = deck.shuffle()
    deck.deal({h: i % players for i, h in enumerate(handles[: 2 * players])})
    return handles


def verdicts(info) -> set[tuple[str, int]]:
    fault: DeckFault = info.value
    return {(b.step, b.seat) for seat, b in fault.blames.items() if seat != DROPPER}


def test_a_wrong_key_names_the_dropper():
    def wrong(message):
        message["scalars"][3] = prf_scalar(b"\x07" * 32, "not-the-key")
        return message

    deck = make_deck(4, tamper=tamper_drop(wrong))
    dealt(deck)
    with pytest.raises(DeckFault) as info:
        deck.drop_out(DROPPER)
    assert verdicts(info) == {("drop", DROPPER)}
    assert set(info.value.blames) == {0, 2, 3}
    assert "not the one behind its public key" in info.value.blames[0].reason


def test_another_seats_key_in_its_place_names_the_dropper():
    """The key of another lock of that card (one the dropper was never sent) or a key of its
    own for another card: checked against the dropper's own public key of that card."""

    def swapped(message):
        message["scalars"][0], message["scalars"][1] = message["scalars"][1], message["scalars"][0]
        return message

    deck = make_deck(4, tamper=tamper_drop(swapped))
    dealt(deck)
    with pytest.raises(DeckFault) as info:
        deck.drop_out(DROPPER)
    assert verdicts(info) == {("drop", DROPPER)}


def test_withheld_keys_name_the_dropper():
    deck = make_deck(4, tamper=tamper_drop(lambda message: None))  # never sent
    dealt(deck)
    with pytest.raises(DeckFault) as info:
        deck.drop_out(DROPPER)
    blame = next(iter(info.value.blames.values()))
    assert (blame.step, blame.seat) == ("drop", DROPPER)
    assert blame.reason == "no message before the step timeout"


@pytest.mark.parametrize("cut", ["one key short", "one card short", "its own card too"])
def test_keys_for_other_cards_name_the_dropper(cut):
    def change(message):
        if cut == "one key short":
            message["scalars"].pop()
        elif cut == "one card short":
            message["handles"].pop()
            message["scalars"].pop()
        else:  # keys for a card of its own: they would open a set-aside card (refused)
            message["handles"] = [DROPPER, *message["handles"]]
            message["scalars"] = [message["scalars"][0], *message["scalars"]]
        return message

    deck = make_deck(4, tamper=tamper_drop(change))
    dealt(deck)
    with pytest.raises(DeckFault) as info:
        deck.drop_out(DROPPER)
    assert verdicts(info) == {("drop", DROPPER)}


def test_a_drop_message_from_a_seat_that_is_not_dropping_changes_nothing():
    """Seat 2 sends a drop-out message of its own while seat 1 drops out: it is not the op's
    (only the dropping seat's message is read), seat 2 still owes its part of everything after,
    and the card keys of seat 1 are still the ones the others check."""
    deck = make_deck(4)
    handles = dealt(deck)
    party2 = deck.parties[2]
    forged = {"type": "drop", "op": len(party2.ops), "handles": [], "scalars": []}
    for seat in (0, 3):
        deck.net.call(seat, deck.parties[seat].receive, 2, forged)
    deck.net.run()
    deck.drop_out(DROPPER)
    assert deck.gone == {DROPPER} and all(p.dropped == {DROPPER: 1} for p in deck.playing)
    # Seat 2 is still needed to open a stock card: it is not taken for gone.
    assert deck.reveal([handles[-1]], None)
    assert deck.parties[0].seats_of(1) == [0, 2, 3]
