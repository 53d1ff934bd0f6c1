"""The engine: runs any game to the end against any deck backend.

The engine sits between a game's pure rules and a deck that turns handles into faces. It does
not know which deck it has: the local open-faced dealer (:mod:`p2pcards.dealer`) for tests, bots
and simulations, or the mental-poker deck for real play. A deck backend is anything with the
methods of :class:`DeckBackend`.

:class:`Replica` holds one copy of a game's public state and its ordered log of actions; it is
what every peer keeps in step. :func:`play` drives a replica with bots until the game is done,
then opens every card and runs the game's audit.

Events shown to bots (``Bot.observe``) are plain dicts:

* ``{"kind": "shuffle", "handles": [...]}``
* ``{"kind": "coin", "label": str, "value": int}``
* ``{"kind": "deal", "handles": [...]}`` (the handles dealt to the observing seat)
* ``{"kind": "reveal", "faces": {handle: Card}}``
* ``{"kind": "transfer", "handles": [...], "to": seat}`` (the moved cards' new handles)
* ``{"kind": "action", "seat": seat, "action": {...}, "index": i}``
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .cards import Card
from .game import (
    Action,
    Bot,
    Coin,
    Deal,
    Done,
    Game,
    IllegalAction,
    Result,
    Reveal,
    Shuffle,
    Step,
    Transfer,
    Turn,
    Violation,
)

__all__ = ["DeckBackend", "GameRecord", "PlayerError", "Replica", "play"]

#: A generous bound on steps: no shipped game comes near it; a game that does has a loop bug.
MAX_STEPS = 200_000


class DeckBackend(Protocol):
    """What the engine needs from a deck. Every method returns once the operation is complete
    for every seat."""

    def shuffle(self) -> list[int]:
        """Shuffle the whole deck afresh; return the new handles in stock order."""

    def coin(self, label: str, bound: int) -> int:
        """A public random integer in ``range(bound)`` that no player can bias."""

    def deal(self, to: Mapping[int, int]) -> None:
        """Give each handle privately to its seat."""

    def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        """Open handles for everyone; return their faces."""

    def transfer(self, handles: Sequence[int], to: int) -> list[int]:
        """Move hidden handles to a new holder, who learns them; return the cards' new handles
        (one per distinct old handle, fresh numbers, in an order that reveals nothing about the
        old ones). ``known(to)`` gains their faces under the old and the new handles."""

    def known(self, seat: int) -> Mapping[int, Card]:
        """Every face ``seat`` can see: its own cards, cards it held, every public card."""

    def open_all(self) -> dict[int, Card]:
        """At the end: every face of every handle ever used."""


class PlayerError(RuntimeError):
    """A seat's agent produced an action the rules refuse (a bug in a bot or a cheating peer)."""

    def __init__(self, seat: int, action: Any, reason: str):
        super().__init__(f"seat {seat} made an illegal move {action!r}: {reason}")
        self.seat = seat
        self.action = action
        self.reason = reason


@dataclass
class Replica:
    """One copy of a game's public state and its log of actions."""

    game: Game
    options: Mapping[str, Any]
    players: int
    state: Any = None
    actions: list[tuple[int, Action]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.state is None:
            self.state = self.game.new_state(self.options, self.players)

    def next_step(self) -> Step:
        return self.game.next_step(self.state)

    def act(self, seat: int, action: Action) -> int:
        """Check and apply an action from ``seat``; returns its index in the log.
        Raises :class:`IllegalAction` (the state is unchanged) when public rules refuse it."""
        step = self.game.next_step(self.state)
        if not isinstance(step, Turn) or step.seat != seat:
            raise IllegalAction(f"it is not seat {seat}'s turn")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("an action must be a mapping with a 'type'")
        self.game.check(self.state, seat, action)
        self.game.apply(self.state, seat, action)
        self.actions.append((seat, action))
        return len(self.actions) - 1


@dataclass
class GameRecord:
    """What :func:`play` returns."""

    result: Result
    violations: list[Violation]
    actions: list[tuple[int, Action]]
    faces: dict[int, Card]
    steps: int


def play(
    game: Game,
    options: Mapping[str, Any],
    players: int,
    deck: DeckBackend,
    bots: Sequence[Bot],
    *,
    check_own: bool = True,
) -> GameRecord:
    """Run one whole game with ``bots[seat]`` choosing for each seat.

    ``check_own=False`` skips the actor's own-cards check, which lets a test bot cheat the
    way a modified client would, so the audit can be shown to catch it."""
    replica = Replica(game, options, players)
    state = replica.state
    # Only bots that override Bot.observe (a no-op) need to be told anything.
    watching = [seat for seat in range(players) if _observes(bots[seat])]

    def tell(event: dict[str, Any], seats: Sequence[int] | None = None) -> None:
        for seat in watching if seats is None else (s for s in seats if s in watching):
            bots[seat].observe(state, event, deck.known(seat))

    for steps in range(MAX_STEPS):
        step = replica.next_step()
        if isinstance(step, Turn):
            seat = step.seat
            known = deck.known(seat)
            action = bots[seat].choose(state, known)
            try:
                if check_own:
                    game.check_own(state, seat, action, known)
                index = replica.act(seat, action)
            except IllegalAction as exc:
                raise PlayerError(seat, action, str(exc)) from None
            tell({"kind": "action", "seat": seat, "action": action, "index": index})
        elif isinstance(step, Shuffle):
            handles = deck.shuffle()
            game.on_shuffled(state, handles)
            tell({"kind": "shuffle", "handles": list(handles)})
        elif isinstance(step, Coin):
            value = deck.coin(step.label, step.bound)
            game.on_coin(state, step.label, value)
            tell({"kind": "coin", "label": step.label, "value": value})
        elif isinstance(step, Deal):
            deck.deal(step.to)
            game.on_dealt(state, step)
            for seat in range(players):
                mine = [h for h, s in step.to.items() if s == seat]
                if mine:
                    tell({"kind": "deal", "handles": mine}, [seat])
        elif isinstance(step, Reveal):
            faces = deck.reveal(step.handles, step.owner)
            game.on_reveal(state, faces)
            tell({"kind": "reveal", "faces": faces})
        elif isinstance(step, Transfer):
            new_handles = deck.transfer(step.handles, step.to)
            game.on_transferred(state, step, new_handles)
            tell({"kind": "transfer", "handles": list(new_handles), "to": step.to})
        elif isinstance(step, Done):
            faces = deck.open_all()
            violations = game.audit(state, replica.actions, faces)
            return GameRecord(step.result, violations, replica.actions, faces, steps)
        else:  # pragma: no cover - a game returned something that is not a Step
            raise TypeError(f"{game.id}: next_step returned {step!r}, not a Step")
    raise RuntimeError(f"{game.id}: no result after {MAX_STEPS} steps (a loop in the rules?)")


def _observes(bot: Bot) -> bool:
    return getattr(bot.observe, "__func__", None) is not Bot.observe


def seeded_rng(seed: int | str, *parts: Any) -> random.Random:
    """A reproducible RNG for bots and the local dealer, independent per ``parts``."""
    return random.Random(f"{seed}/" + "/".join(map(str, parts)))
