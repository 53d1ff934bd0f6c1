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
    """End the game (the deck's audit, every seed revealed), then every face the seeds derive:
    the deck tests' check of the deck itself. ``open_all`` returns only the faces the table saw
    (every card opened to all, issue 32), the same at every seat, all the game's audit reads."""
    from p2pcards.deck.audit import audit

    shown = deck.open_all()
    party = deck.playing[0]
    assert all(shown == p.public_faces for p in deck.playing)
    faces = dict(audit(party, full=False).faces)
    assert all(faces.get(h, c) == c for h, c in shown.items())
    return {**faces, **shown}
