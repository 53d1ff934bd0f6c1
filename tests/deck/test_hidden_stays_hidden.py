"""Hidden stays hidden (issue 32): given every message of a finished game (every transcript put
together, private openings included) and the secrets of every seat but one (their data
folders: their seeds), a decoder must not find the face of any card of that seat that was
never shown at the table: neither a card dealt to it, nor one passed to it (re-handled by it).

The decoder tries everything it can find: the seeds it holds, every 32-byte value in any message
that opens a seat's seed commitment (a revealed seed), and every scalar any message carried.
Since protocol version 12 no seed is revealed at the end of a game (before, it found the last
seat's seed in its ``seed`` message and decoded every card). The same decoder, given that seat's
seed too, decodes every card (it works)."""

from __future__ import annotations

import pytest

from p2pcards.deck import group
from p2pcards.deck.derive import Secrets, seed_commitment
from p2pcards.deck.party import FIRST_REHANDLED

from .deck_helpers import make_deck
from .test_privacy_fairness import _leaves

PLAYERS, CARDS, VICTIM = 3, 20, 2


def _finished_game():
    """Shuffle, deal 4 cards each, the victim shows one of its cards to all, seat 0 passes
    two of its cards to the victim (re-handled by the victim, never shown), a stock card is
    shown; the game's end (the deck's message-free end step). Every message any seat sent, to anyone."""
    pooled: list[dict] = []

    def record(sender, receiver, message):
        pooled.append(message)
        return message

    deck = make_deck(PLAYERS, CARDS, tamper=record)
    handles = deck.shuffle()
    deal = {h: i % PLAYERS for i, h in enumerate(handles[: 4 * PLAYERS])}
    deck.deal(deal)
    victim_dealt = [h for h, s in deal.items() if s == VICTIM]
    shown = set(deck.reveal([victim_dealt[0]], VICTIM))
    passed = [h for h, s in deal.items() if s == 0][:2]
    moved = deck.transfer(passed, VICTIM)
    shown |= set(deck.reveal([handles[4 * PLAYERS]], None))
    deck.open_all()
    hidden = [h for h in victim_dealt + list(moved) if h not in shown]
    return deck, pooled, hidden, moved


def _decodable(deck, pooled, folders: dict[int, bytes], hidden) -> set[int]:
    """The handles of ``hidden`` a decoder finds from ``pooled`` and the seeds in ``folders``."""
    party = deck.parties[0]
    game_id, table = party.game_id, set(party.table)
    seeds = dict(folders)
    leaves = [v for v in _leaves(pooled) if isinstance(v, bytes) and len(v) == 32]
    for seat in range(PLAYERS):
        for leaf in leaves:
            if seat not in seeds and seed_commitment(party.context, seat, leaf) == party.seed_commits[seat]:
                seeds[seat] = leaf  # a seed revealed in a message
    secrets = {seat: Secrets(seed, game_id) for seat, seed in seeds.items()}
    scalars = set()
    for leaf in leaves:
        try:
            scalars.add(group.check_scalar(leaf))
        except group.InvalidScalar:
            pass
    found = set()
    for handle in hidden:
        point = party.cards_by_handle[handle].point
        if handle < FIRST_REHANDLED:
            known = [secrets[s].card_key(handle) for s in secrets]
            stripped = group.multiply(group.invert(group.scalar_product(known)), point)
            tries = [stripped] if len(secrets) == PLAYERS else []
            tries += [group.multiply(group.invert(k), stripped) for k in scalars]
        else:
            # A re-handled card: x = z_j * y * x_parent, x_parent one of the moved cards'
            # (every lock of it, each known from a seed or carried by an opening), y and z_j
            # the receiver's (from its seed, if found).
            op = next(op for op, new in party.rehandled.items() if handle in new)
            j = list(party.rehandled[op]).index(handle)
            tries = []
            if VICTIM in secrets:
                factor = group.mul(secrets[VICTIM].rehandle_factor(op, j), secrets[VICTIM].rehandle_key(op))
                for parent in deck.parties[0].ops[op].handles:
                    if len(secrets) == PLAYERS:
                        x = group.scalar_product(secrets[s].card_key(parent) for s in range(PLAYERS))
                        tries.append(group.multiply(group.invert(group.mul(factor, x)), point))
            tries += [group.multiply(group.invert(k), point) for k in scalars]
        if any(t in table for t in tries):
            found.add(handle)
    return found


@pytest.mark.slow  # a whole small game with proofs
def test_no_card_of_a_seat_never_shown_is_decodable_from_everything_else():
    deck, pooled, hidden, moved = _finished_game()
    assert hidden and set(moved) & set(hidden), "hidden dealt cards and hidden passed cards"
    folders = {s: deck.parties[s]._seed for s in range(PLAYERS) if s != VICTIM}
    assert _decodable(deck, pooled, folders, hidden) == set()


@pytest.mark.slow
def test_the_decoder_works_with_the_seats_own_seed():
    deck, pooled, hidden, _moved = _finished_game()
    folders = {s: deck.parties[s]._seed for s in range(PLAYERS)}
    assert _decodable(deck, [], folders, hidden) == set(hidden)
