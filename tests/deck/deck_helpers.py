"""Helpers for the deck tests: tables of parties in one process, bad points (imported
relatively: tests/ is a package, so every test module's name is unique)."""

from __future__ import annotations

from nacl import bindings as na

from p2pcards.cards import build_deck
from p2pcards.deck.backend import MentalPokerDeck, simulation_seeds
from p2pcards.deck.bench import deck_of_size

P = 2**255 - 19
BASE = na.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))
ORDER_2 = (P - 1).to_bytes(32, "little")  # (0, -1), order 2


def bad_points() -> dict[str, bytes]:
    """Encodings every verifier must refuse."""
    return {
        "identity": (1).to_bytes(32, "little"),
        "small-order": ORDER_2,
        "mixed-order": na.crypto_core_ed25519_add(BASE, ORDER_2),  # B + T2
        "non-canonical": (P + 1).to_bytes(32, "little"),  # the identity with y = p + 1
        "not-on-curve": (2).to_bytes(32, "little"),
        "short": b"\x01" * 31,
    }


def make_deck(players: int, cards: int = 20, seed: object = "test", **kwargs) -> MentalPokerDeck:
    deck = deck_of_size(cards) if cards >= 52 else build_deck()[:cards]
    return MentalPokerDeck(deck, players, simulation_seeds(seed, 0, players), **kwargs)


def every_face(deck: MentalPokerDeck) -> dict:
    """Every card's face, for the deck tests' check of the deck itself (no seed is revealed since
    protocol version 12, so nothing derives them from seeds): every current card nobody holds is
    first opened to all, then the game ends (its message-free end step, which returns only the
    faces the table saw, the same at every seat); a held card is taken as its holder decoded it.
    A finished hand's stock is not opened (nothing of it can be any more): a test opens it first."""
    party = deck.playing[0]
    stock = sorted(
        h
        for h, card in party.cards_by_handle.items()
        if card.holder is None and not card.retired and not card.public and h not in party.set_aside
    )
    if stock:
        deck.reveal(stock, None)
    shown = deck.open_all()
    assert all(shown == p.public_faces for p in deck.playing)
    faces = dict(shown)
    for p in deck.playing:  # (a retired handle too; not a dropped seat's: its cards are set aside)
        for h, card in p.known.items():
            assert faces.setdefault(h, card) == card, "every seat that decoded a card agrees"
    return faces
