"""Scenario tables: one game started from a stated position and driven action by action.

A :class:`ScenarioTable` is the game loaded as p2pcards loads it, the engine's
:class:`~p2pcards.engine.Replica` and the local open-faced dealer, stacked by a
:class:`StackedDealer` so that chosen cards reach chosen hands and coins come up as stated. Steps
that are not a seat's (shuffle, coin, deal, reveal, transfer) run by themselves, as
:func:`p2pcards.engine.play` runs them; the test acts for the seats with typed commands.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..bots import RandomBot
from ..cards import Card, parse_card, parse_cards
from ..dealer import LocalDealer
from ..engine import (
    DECK_STEPS,
    MAX_STEPS,
    DeckBackend,
    GameRecord,
    Replica,
    carry_out,
    order_round,
    play,
    seeded_rng,
)
from ..game import Action, Bot, Deal, Done, Game, Result, Reveal, Round, Step, Transfer, Turn, Violation
from ..plugins import load_plugins

__all__ = ["Cards", "ScenarioTable", "StackedDealer", "load_game", "pick_cards", "stack_deal"]

Cards = str | Iterable[str | Card]
"""Cards as a test states them: ``"7h Qs JK"`` (spaces or commas), or a list of texts or
:class:`~p2pcards.cards.Card`. Only faces count: a copy is picked from the deck."""


def load_game(game: Game | str) -> Game:
    """``game`` itself, or the installed game of that id, loaded through its entry point as
    p2pcards loads it (a plugin that fails to load is named in the error)."""
    if isinstance(game, Game):
        return game
    host = load_plugins()
    if game not in host.games:
        problems = "; ".join(str(e) for e in host.errors)
        raise LookupError(f"no game {game!r} is installed" + (f" ({problems})" if problems else ""))
    return host.game(game)


def _faces(cards: Cards) -> list[Card]:
    if isinstance(cards, str):
        return [c.face for c in parse_cards(cards)]
    return [(parse_card(c) if isinstance(c, str) else c).face for c in cards]


def pick_cards(cards: Cards, deck: Sequence[Card], taken: set[Card] | None = None) -> list[Card]:
    """The physical cards of ``deck`` for stated faces: for each, the first copy in deck order
    that is not in ``taken`` (which gains the picked cards). Raises ``ValueError`` when the deck
    has no copy of a face left."""
    taken = set() if taken is None else taken
    picked = []
    for face in _faces(cards):
        copy = next((c for c in deck if c.face == face and c not in taken), None)
        if copy is None:
            raise ValueError(f"the deck has no {'other ' if any(c.face == face for c in deck) else ''}copy of {face}")
        taken.add(copy)
        picked.append(copy)
    return picked


def stack_deal(
    deck: Sequence[Card],
    hands: Mapping[int, Cards],
    seats: Sequence[int],
    sizes: int | Mapping[int, int],
    *,
    avoid: Mapping[int, Callable[[Card], bool]] | None = None,
) -> list[Card]:
    """The top of a stock that gives each seat its stated cards, for a game that deals one card
    at a time round ``seats`` (in that order: the first receiver first).

    Each hand is filled up to its size (``sizes``: one for every seat, or by seat) from the
    cards nobody was given, in deck order, skipping those ``avoid[seat]`` refuses (e.g. a suit
    the seat must be void in). Stated cards are picked in the order ``hands`` lists them."""
    unknown = sorted(set(hands) - set(seats))
    if unknown:
        raise ValueError(f"seat {unknown[0]} is not dealt to (the deal goes to {list(seats)})")
    taken: set[Card] = set()
    chosen = {seat: pick_cards(cards, deck, taken) for seat, cards in hands.items()}
    for seat in seats:
        size = sizes if isinstance(sizes, int) else sizes[seat]
        hand = chosen.setdefault(seat, [])
        if len(hand) > size:
            raise ValueError(f"seat {seat} is dealt {size} cards, not {len(hand)}")
        refuse = (avoid or {}).get(seat)
        for card in deck:
            if len(hand) == size:
                break
            if card not in taken and not (refuse and refuse(card)):
                taken.add(card)
                hand.append(card)
        if len(hand) < size:
            raise ValueError(f"not enough cards left to fill seat {seat}'s hand to {size}")
    top: list[Card] = []
    for i in range(max((len(chosen[s]) for s in seats), default=0)):
        top.extend(chosen[seat][i] for seat in seats if i < len(chosen[seat]))
    return top


class StackedDealer(LocalDealer):
    """The local open-faced dealer (:class:`~p2pcards.dealer.LocalDealer`) with a stacked deck
    and stated coins.

    ``stacks[i]`` is the top of the stock after the game's ``i``-th shuffle (first card
    first): stated cards, each the first free copy of its face. The rest of the deck follows in
    deck order, or shuffled by ``rng`` with ``shuffle_rest``. Shuffles past the stacks are
    random (``rng``). A coin whose label is in ``coins`` comes up that value; any other is drawn
    from ``rng``. Every card a test did not state is still in the game, so the audit and a
    game's card counts see the whole deck.

    It records what it did: ``stocks`` (every shuffle's handles, in stock order) and
    ``coins_drawn`` (label -> value, in the order drawn)."""

    def __init__(
        self,
        cards: Sequence[Card],
        players: int,
        rng: random.Random | None = None,
        *,
        stacks: Sequence[Cards] = (),
        coins: Mapping[str, int] | None = None,
        shuffle_rest: bool = False,
    ):
        super().__init__(cards, players, rng or random.Random(0))
        self.stacks = [pick_cards(stack, self.cards) for stack in stacks]
        self.coins = dict(coins or {})
        self.shuffle_rest = shuffle_rest
        self.stocks: list[list[int]] = []
        self.coins_drawn: dict[str, int] = {}

    @property
    def shuffles(self) -> int:
        """How many times the deck was shuffled."""
        return len(self.stocks)

    def shuffle(self) -> list[int]:
        if len(self.stocks) < len(self.stacks):
            top = self.stacks[len(self.stocks)]
            stacked = set(top)
            rest = [card for card in self.cards if card not in stacked]
            if self.shuffle_rest:
                self.rng.shuffle(rest)
            handles = self.lay_out(top + rest)
        else:
            handles = super().shuffle()
        self.stocks.append(handles)
        return handles

    def coin(self, label: str, bound: int) -> int:
        if label in self.coins:
            value = self.coins[label]
            if not 0 <= value < bound:
                raise ValueError(f"coin {label!r} is drawn from range({bound}); {value} is not in it")
            self.use_coin_label(label)
        else:
            value = super().coin(label, bound)
        self.coins_drawn[label] = value
        return value


class ScenarioTable:
    """One game at a table in this process, started from a stated position and driven action by
    action by a test.

    ``game`` is a :class:`~p2pcards.game.Game` or the id of an installed one; ``players``
    defaults to the smallest count ``options`` allow; ``options`` are resolved as a table
    resolves them (defaults filled in, text parsed).

    The deck is a :class:`StackedDealer`, stacked in one of three ways:

    * ``hands={seat: "7h 8h 2c", ...}``: each seat is dealt these cards by the game's first deal
      (its hand filled up from the rest of the deck in deck order), and ``then`` are the next
      cards of the stock (a starter, the top of a draw pile). The table finds where the game
      deals each seat's cards by playing its first steps on an unstacked copy, so this needs
      no knowledge of the game's deal; it needs the first deal to come before any seat acts.
    * ``stacks=[top, ...]``: the top of the stock after each shuffle, in stock order, for games
      whose deal the test knows (:func:`stack_deal` builds one).
    * ``deck=factory``: ``factory(cards, players)`` returns any deck backend.

    ``coins`` maps coin labels to values (a dealer, a cut); unstated coins and unstacked
    shuffles are drawn from a generator seeded with ``seed``.

    Construction runs the game to the first step that needs a seat (:meth:`advance`). Then
    :meth:`act` plays typed commands or action dicts for the seats; :meth:`race` plays a
    free-order round; :meth:`play_out` lets bots finish the game. Between actions the test reads
    ``state`` (the game's own public state, which a test may also edit to reach a mid-hand
    position), :meth:`next_step`, ``turn``, :meth:`hand`, :meth:`legal`, :meth:`view`, what
    the table did: ``log``, ``reveals``, ``transfers``, ``deals``, and what the game told of it:
    :meth:`story`; once the game is over, ``result`` and ``violations`` (the audit).

    Subclasses (a game's own test helpers) may answer some turns by themselves by overriding
    :meth:`answer`."""

    def __init__(
        self,
        game: Game | str,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        hands: Mapping[int, Cards] | None = None,
        then: Cards = (),
        stacks: Sequence[Cards] = (),
        coins: Mapping[str, int] | None = None,
        seed: int | str = 0,
        shuffle_rest: bool = False,
        deck: Callable[[Sequence[Card], int], DeckBackend] | None = None,
    ):
        self.game = load_game(game)
        given = dict(options or {})
        self.players = players or self.game.default_players(given)
        self.options = self.game.resolve_options(given, self.players)
        self.seed = seed
        cards = self.game.deck(self.options, self.players)
        self._stated: dict[int, Counter[Card]] = {}
        if deck is not None:
            if hands is not None or stacks or coins or then:
                raise ValueError("a deck of the test's own is stacked by the test: give deck alone")
            self.deck: DeckBackend = deck(cards, self.players)
        else:
            if hands is not None and stacks:
                raise ValueError("give hands or stacks, not both")
            rng = seeded_rng(seed, "deck")
            if hands is not None:
                stacks = [self._stack_first_deal(cards, hands, then, coins or {}, rng, shuffle_rest)]
                self._stated = {seat: Counter(_faces(text)) for seat, text in hands.items()}
            elif then:
                raise ValueError("then= follows the hands: give hands too")
            self.deck = StackedDealer(cards, self.players, rng, stacks=stacks, coins=coins, shuffle_rest=shuffle_rest)
        self.replica = Replica(self.game, self.options, self.players)
        #: Every step the table met, in order: each deck step carried out, each turn or round
        #: it stopped at (once per stop) and the end.
        self.log: list[Step] = []
        #: Once the game is over: its result, and what the audit found.
        self.result: Result | None = None
        self.violations: list[Violation] | None = None
        self.advance()

    # -- stacking by hands ----------------------------------------------------------------------

    def _stack_first_deal(
        self,
        cards: Sequence[Card],
        hands: Mapping[int, Cards],
        then: Cards,
        coins: Mapping[str, int],
        rng: random.Random,
        shuffle_rest: bool,
    ) -> list[Card]:
        """The whole stock that deals ``hands`` in the game's first deal, found by running the
        game's first steps on an unstacked copy of the deck (same coins, same generator)."""
        probe_rng = random.Random()
        probe_rng.setstate(rng.getstate())
        deck = StackedDealer(cards, self.players, probe_rng, stacks=[()], coins=coins)
        probe = Replica(self.game, self.options, self.players)
        for _ in range(MAX_STEPS):
            step = probe.next_step()
            if isinstance(step, Deal) and deck.stocks:
                break
            if not isinstance(step, DECK_STEPS):
                raise ValueError(
                    f"{self.game.id} asks for {step!r} before its first deal: hands= cannot "
                    "be stacked for it; give stacks= (see stack_deal)"
                )
            carry_out(self.game, probe.state, step, deck)
        else:  # pragma: no cover - a game that loops before dealing
            raise ValueError(f"{self.game.id}: no deal after {MAX_STEPS} steps")
        position = {handle: i for i, handle in enumerate(deck.stocks[-1])}
        if any(h not in position for h in step.to):
            raise ValueError(f"{self.game.id}'s first deal is not from its last shuffle's stock")
        slots: list[Card | None] = [None] * len(position)
        by_seat: dict[int, list[int]] = {}
        for handle in sorted(step.to, key=position.__getitem__):
            by_seat.setdefault(step.to[handle], []).append(position[handle])
        taken: set[Card] = set()
        for seat, text in hands.items():
            mine, places = pick_cards(text, cards, taken), by_seat.get(seat, [])
            if len(mine) > len(places):
                raise ValueError(f"the first deal gives seat {seat} {len(places)} cards, not {len(mine)}")
            for place, card in zip(places, mine):
                slots[place] = card
        dealt = {place for places in by_seat.values() for place in places}
        after = [i for i in range(len(slots)) if slots[i] is None and i not in dealt]
        following = pick_cards(then, cards, taken)
        if len(following) > len(after):
            raise ValueError("more cards in then= than the stock holds after the deal")
        for place, card in zip(after, following):
            slots[place] = card
        rest = [card for card in cards if card not in taken]
        if shuffle_rest:  # its own generator: the game's coins come from the deck's
            seeded_rng(self.seed, "rest").shuffle(rest)
        fill = iter(rest)
        return [card if card is not None else next(fill) for card in slots]

    def _check_stated_deal(self, step: Deal) -> None:
        """The first deal gave every seat its stated cards (the probe saw the same game)."""
        stated, self._stated = self._stated, {}
        faces = self.deck.open_all()
        for seat, wanted in stated.items():
            got = Counter(faces[h].face for h, s in step.to.items() if s == seat)
            if wanted - got:
                raise ValueError(
                    f"seat {seat} was not dealt {sorted(map(str, wanted - got))}: the game "
                    "took another path than with an unstacked deck (state its coins)"
                )

    # -- running -------------------------------------------------------------------------------

    @property
    def state(self) -> Any:
        """The game's public state (the replica's): read it, or edit it to set up a position."""
        return self.replica.state

    def next_step(self) -> Step:
        """What the game needs next."""
        return self.replica.next_step()

    @property
    def turn(self) -> int | None:
        """The seat whose turn it is, or ``None`` (a free-order round, the end)."""
        step = self.next_step()
        return step.seat if isinstance(step, Turn) else None

    @property
    def done(self) -> bool:
        return self.result is not None

    def answer(self, step: Turn) -> str | Action | None:
        """What the table plays by itself at ``step`` (a typed command or an action dict), or
        ``None`` to stop and let the test act: a game's helper may answer the choices every
        scenario makes alike (Calypso's suit choices). The table never answers by default."""
        return None

    def advance(self) -> Step:
        """Carry out every step that is not a seat's, as the engine does, until a seat must act
        (and :meth:`answer` does not answer) or the game is done; returns that step. At the end
        the audit runs, over the faces the deck gives then."""
        game = self.game
        for _ in range(MAX_STEPS):
            step = self.replica.next_step()
            self.log.append(step)
            if isinstance(step, Turn):
                answer = self.answer(step)
                if answer is None:
                    return step
                self._apply(step.seat, answer, check_own=True)
            elif isinstance(step, Round):
                return step
            elif isinstance(step, Done):
                if self.result is None:
                    self.result = step.result
                    self.violations = self.audit()
                return step
            else:
                carry_out(game, self.state, step, self.deck)
                if isinstance(step, Deal) and self._stated:
                    self._check_stated_deal(step)
        raise RuntimeError(f"{game.id}: no seat to act after {MAX_STEPS} steps (a loop in the rules?)")

    # -- acting --------------------------------------------------------------------------------

    def known(self, seat: int) -> Mapping[int, Card]:
        """Every face ``seat`` can see (its hand, cards it held, public cards)."""
        return self.deck.known(seat)

    def parse(self, seat: int, text: str) -> Action:
        """What ``seat`` typed, read by the game's own grammar (raises ``IllegalAction``)."""
        return self.game.parse_action(self.state, seat, text, self.known(seat))

    def _apply(self, seat: int, action: str | Action, *, check_own: bool) -> Action:
        if isinstance(action, str):
            action = self.parse(seat, action)
        if check_own:
            self.game.check_own(self.state, seat, action, self.known(seat))
        self.replica.act(seat, action)
        return action

    def act(self, seat: int, action: str | Action, *, check_own: bool = True) -> Action:
        """Play ``action`` for ``seat`` (a typed command, or an action dict) as an honest client
        does: parse it, ``check_own`` it, then every peer's ``check`` and ``apply``; then run the
        steps that follow (:meth:`advance`). Returns the action. ``check_own=False`` skips the
        actor's own check, as a modified client could (peers still run ``check``; the audit is
        what catches it). Raises ``IllegalAction`` and leaves the state as it was if refused."""
        action = self._apply(seat, action, check_own=check_own)
        self.advance()
        return action

    def drop_out(self, seat: int) -> None:
        """``seat`` drops out where the game's rules allow it now (raises ``IllegalAction``
        otherwise, the state unchanged); then the steps that follow run (:meth:`advance`)."""
        self.replica.drop_out(seat)
        self.advance()

    def race(self, *responses: tuple[int, str | Action], saw: Mapping[int, set[int]] | None = None) -> list[int | None]:
        """A free-order round (:class:`~p2pcards.game.Round`): every ``(seat, response)`` chosen
        against the state the round opened with. ``saw[seat]``: the seats whose responses that
        seat had seen when it acted (none by default: all at once). They are applied in the
        table's order (protocol/table.md section 9); returns each response's index in the log of
        actions, or ``None`` when it was void, in the order given."""
        step = self.next_step()
        if not isinstance(step, Round):
            raise ValueError(f"race() needs a free-order round; the game is at {step!r}")
        actions = {}
        for seat, response in responses:
            actions[seat] = self.parse(seat, response) if isinstance(response, str) else response
            self.game.check_own(self.state, seat, actions[seat], self.known(seat))
        ordered = order_round(actions, dict(saw or {}), step.after, self.players)
        indices = dict(zip((seat for seat, _ in ordered), self.replica.respond(step, ordered)))
        self.advance()
        return [indices[seat] for seat, _ in responses]

    def play_out(
        self, bots: Sequence[type[Bot]] | None = None, *, rng: random.Random | None = None, check_own: bool = True
    ) -> GameRecord:
        """Let bots play the game from here to its end through :func:`p2pcards.engine.play`
        (``bots``: a class per seat; random bots by default, all drawing from ``rng``). Returns
        the engine's :class:`~p2pcards.engine.GameRecord` (result, audit, every action); the
        steps it took are added to ``log``."""
        rng = rng or seeded_rng(self.seed, "play out")
        classes: list[type[Bot]] = list(bots) if bots is not None else [RandomBot] * self.players
        seats = [cls(self.game, seat, self.options, rng) for seat, cls in enumerate(classes)]
        stopped_at = self.log[-1] if self.log else None
        first = True

        def note(step: Step) -> None:
            nonlocal first
            if not (first and step == stopped_at):  # the step the table stopped at is logged
                self.log.append(step)
            first = False

        record = play(
            self.game,
            self.options,
            self.players,
            self.deck,
            seats,
            check_own=check_own,
            replica=self.replica,
            on_step=note,
        )
        self.result, self.violations = record.result, record.violations
        return record

    # -- looking -------------------------------------------------------------------------------

    def faces(self, handles: Iterable[int]) -> list[str]:
        """The faces of handles, as text (the open-faced dealer knows every card)."""
        faces = self.deck.open_all()
        return [str(faces[h]) for h in handles]

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` sees (``None``: a spectator), from the game's own ``view``."""
        return self.game.view(self.state, seat, self.known(seat) if seat is not None else {})

    def hand(self, seat: int) -> list[str]:
        """The seat's cards as its view shows them (the ``"hand"`` key of ``view``)."""
        return [str(card) for card in self.view(seat).get("hand", [])]

    def legal(self, seat: int) -> list[str]:
        """The seat's legal actions, as the game writes them, sorted."""
        known = self.known(seat)
        actions = self.game.legal_actions(self.state, seat, known)
        return sorted(self.game.format_action(self.state, seat, a, known) for a in actions)

    def story(self, names: Sequence[str] | None = None) -> list[str]:
        """The game's story so far (:meth:`~p2pcards.game.Game.story`), each entry as the line
        :meth:`~p2pcards.game.Game.tell` says it with ``names`` (by default "player 0" ...):
        what a table publishes as ``story`` events."""
        names = list(names) if names is not None else [f"player {seat}" for seat in range(self.players)]
        return [self.game.tell(self.state, entry, names) for entry in self.game.story(self.state)]

    def audit(self) -> list[Violation]:
        """The game's audit of the actions so far, with every face open."""
        return self.game.audit(self.state, self.replica.actions, self.deck.open_all())

    @property
    def actions(self) -> list[tuple[int, Action]]:
        """Every action applied, in order, as ``(seat, action)``."""
        return list(self.replica.actions)

    @property
    def reveals(self) -> list[tuple[tuple[int, ...], int | None]]:
        """Every reveal carried out, as ``(handles, owner)``."""
        return [(s.handles, s.owner) for s in self.log if isinstance(s, Reveal)]

    @property
    def transfers(self) -> list[Transfer]:
        """Every transfer carried out."""
        return [s for s in self.log if isinstance(s, Transfer)]

    @property
    def deals(self) -> list[Deal]:
        """Every deal carried out."""
        return [s for s in self.log if isinstance(s, Deal)]
