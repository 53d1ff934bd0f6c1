"""A Crazy Eights table for scenario tests: :class:`p2pcards.testing.ScenarioTable` with the
stated hands dealt, then the stated starter and stock on top of the rest of the pack. Steps other
than turns run by themselves, as ``p2pcards.engine.play`` runs them, and are in ``steps``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2pcards.cards import parse_cards
from p2pcards.game import Round, Turn
from p2pcards.testing import ScenarioTable, load_game

GAME_ID = "crazy-eights"


def the_game():
    return load_game(GAME_ID)


class Table(ScenarioTable):
    """Deals ``hands`` (seat -> cards text, every seat, all the same size), then turns
    ``starter`` (one or more cards), then leaves ``stock`` on top of the rest of the pack; the
    coin makes ``dealer`` the dealer (by default the last seat, so seat 0 plays first)."""

    def __init__(
        self, hands: Mapping[int, str], starter: str, stock: str = "", *, dealer: int | None = None, **options: Any
    ):
        players = len(hands)
        dealer = players - 1 if dealer is None else dealer
        sizes = {len(text.split()) for text in hands.values()}
        assert len(sizes) == 1 and set(hands) == set(range(players)), "every seat, the same number of cards"
        super().__init__(
            GAME_ID,
            players,
            {"hand_size": sizes.pop(), **options},
            hands=hands,
            then=f"{starter} {stock}",
            coins={"dealer": dealer},
        )

    @property
    def steps(self) -> list:
        """Every step carried out, and the end; not the turns."""
        return [step for step in self.log if not isinstance(step, (Turn, Round))]

    def handle(self, seat: int, text: str) -> int:
        card = parse_cards(text)[0]
        return next(h for h in self.state.hands[seat] if self.deck.faces[h] == card)

    def hand(self, seat: int) -> str:
        return " ".join(str(self.deck.faces[h]) for h in self.state.hands[seat])
