"""``p2pcards replay``: a transcript as a list of steps to walk through, seat by seat.

:func:`load_replay` runs :func:`p2pcards.verify.verify_file` once, with a
:class:`~p2pcards.verify.Watch` that keeps, after every event of the verify timeline (a
shuffle, a coin, a deal, a reveal, a transfer, a move), a copy of the game's state and the faces
each seat knew at that moment (its own cards, cards shown to everyone, cards passed to it), as
the re-simulated deck parties knew them. Nothing is replayed twice and nothing here plays the
game: the steps are what verification replayed, so a file that does not verify is still there
as far as it replayed.

A seat's view of a step is the game's own ``view(state, seat, known)`` with that seat's faces,
as the console showed it at the table; every face of the game (``all``) is offered only once the
end-of-game audit opened them (:attr:`Replay.faces`); the table's view (:data:`SPECTATOR`) is
what a spectator saw: the game's view for no seat, with only the faces turned up for everyone
so far. The text of each step is written for the viewer too: another seat's face-down play is
shown without its faces, and the seat whose file it is (:attr:`Replay.own`) is "you", as its
own console said it.

No IO besides reading the file, no terminal: :mod:`p2pcards.console.replay` draws these.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cards import Card, sort_cards
from .game import Game, Reveal, Transfer, agree, result_words
from .plugins import load_plugins
from .table.protocol import left_to_bot_words
from .text import command_words, name_seats, second_person, third_person
from .verify import (
    EXIT_FAILED,
    EXIT_LEFT,
    EXIT_NOT_STARTED,
    EXIT_PLUGIN,
    EXIT_UNREADABLE,
    EXIT_VERIFIED,
    Report,
    verify_file,
)

__all__ = ["SPECTATOR", "Replay", "ReplayStep", "is_spectator_file", "load_replay"]

#: The viewer "the table" (a spectator): no seat's hidden cards, only what was turned up for
#: everyone. Passed where a seat number goes (``None`` there is every face the table saw).
SPECTATOR = -1


@dataclass(frozen=True)
class ReplayStep:
    """One event of the game and the table just after it.

    ``event`` is the verify timeline's event, with handles (``kind``: ``shuffle``, ``coin``,
    ``deal``, ``reveal``, ``transfer`` or ``move``); ``state`` a copy of the game's state after
    it; ``known[seat]`` the faces that seat knew then. ``hand`` counts the game's hands (deals),
    ``trick`` the trick within it where the game has tricks."""

    index: int
    event: Mapping[str, Any]
    state: Any
    known: tuple[Mapping[int, Card], ...]
    hand: int
    trick: int | None

    @property
    def kind(self) -> str:
        return str(self.event["kind"])

    @property
    def turn(self) -> int | None:
        """The move's turn number (as ``verify`` names it), for a move."""
        return self.event.get("turn") if self.kind == "move" else None


class _Recorder:
    """The :class:`~p2pcards.verify.Watch`: copies the state and every seat's faces."""

    def __init__(self) -> None:
        self.steps: list[tuple[Mapping[str, Any], Any, tuple[Mapping[int, Card], ...]]] = []
        self.faces: dict[int, Card] | None = None
        self._last: tuple[Mapping[int, Card], ...] = ()

    def step(self, event: Mapping[str, Any], state: Any, known: Sequence[Mapping[int, Card]]) -> None:
        seats = []
        for seat, faces in enumerate(known):
            # A seat's faces only grow: the same count is the same faces (most events change
            # no seat's): share the last copy then.
            last = self._last[seat] if seat < len(self._last) else None
            seats.append(last if last is not None and len(last) == len(faces) else dict(faces))
        self._last = tuple(seats)
        self.steps.append((copy.deepcopy(dict(event)), copy.deepcopy(state), self._last))

    def opened(self, faces: Mapping[int, Card]) -> None:
        self.faces = dict(faces)


@dataclass
class Replay:
    """A verified (or not) transcript as steps. ``faces``: every face, once the audit opened
    them (``None`` before: then only one seat's view can be shown)."""

    report: Report
    game: Game | None
    names: tuple[str, ...]
    steps: list[ReplayStep] = field(default_factory=list)
    faces: dict[int, Card] | None = None
    #: The seat whose transcript this is (``<table>-seatN.p2pt``), named "you" in the text of
    #: the steps as its console named it; ``None`` for a spectator's file or a file whose name
    #: does not say.
    own: int | None = None
    #: The file was saved by a spectator (``p2pcards watch``): the replay starts as the table
    #: saw it (:data:`SPECTATOR`) and says whose file it is.
    from_spectator: bool = False
    _revealed_cache: dict[int, int] | None = field(default=None, init=False, repr=False, compare=False)
    _public_cache: list[Mapping[int, Card]] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def speaking_names(self) -> tuple[str, ...]:
        """The names the steps' text uses: :attr:`names`, with "you" for :attr:`own`."""
        own = self.own
        if own is None or not 0 <= own < self.players:
            return self.names
        return tuple("you" if s == own else n for s, n in enumerate(self.names))

    @property
    def verified(self) -> bool:
        return self.report.status == EXIT_VERIFIED

    @property
    def readable(self) -> bool:
        return self.report.status != EXIT_UNREADABLE

    def verdict_line(self) -> str:
        """What ``verify`` says, in one line."""
        if self.report.status == EXIT_VERIFIED:
            return "VERIFIED: signatures, shuffles, every move and the result check out"
        if self.report.status == EXIT_FAILED:
            return f"FAILED at {self.report.problem_line()}"
        if self.report.status == EXIT_LEFT:
            return self.report.left_line()
        if self.report.status == EXIT_NOT_STARTED:
            return self.report.not_started_line()
        if self.report.status == EXIT_PLUGIN:
            return f"PLUGIN FAILED at {self.report.problem_line()}"
        return f"UNREADABLE: {self.report.problem_line()}"

    def stopped_line(self) -> str | None:
        """For a file that does not verify: how far the replay got."""
        if self.verified:
            return None
        if not self.steps:
            return "nothing could be replayed"
        last = self.steps[-1]
        where = f"turn {last.turn}" if last.turn is not None else f"step {len(self.steps)}"
        return f"replayed as far as {where}; what comes after was not checked"

    # -- what a seat sees ---------------------------------------------------------------------

    def known(self, index: int, seat: int | None) -> Mapping[int, Card]:
        """The faces shown at step ``index``: ``seat``'s, every face (``None``, once the
        audit opened them), or those turned up for everyone so far (:data:`SPECTATOR`)."""
        if seat is None:
            if self.faces is None:
                raise ValueError("the audit did not open every card: choose a seat")
            return self.faces
        if seat == SPECTATOR:
            return self._public()[index]
        return self.steps[index].known[seat]

    def view(self, index: int, seat: int | None) -> dict[str, Any]:
        """The game's view at step ``index``: what ``seat`` saw, or a view for no seat: with
        every face (``None``), or as a spectator saw it (:data:`SPECTATOR`)."""
        assert self.game is not None, "a replay with steps has its game"
        return self.game.view(self.steps[index].state, _game_seat(seat), self.known(index, seat))

    def _public(self) -> list[Mapping[int, Card]]:
        """For each step, the faces turned up for everyone by then: each handle a reveal
        opened, with the face the seats learnt from it. A card handed on hidden afterwards has a
        new handle nobody outside its holder can name: not among them, as at the table."""
        if self._public_cache is None:
            built: list[Mapping[int, Card]] = []
            faces: dict[int, Card] = {}
            for step in self.steps:
                if step.kind == "reveal":
                    faces = dict(faces)
                    for h in step.event.get("handles", ()):
                        face = next((k[h] for k in step.known if h in k), None)
                        if face is None and self.faces is not None:
                            face = self.faces.get(h)
                        if face is not None:
                            faces[h] = face
                built.append(faces)  # (shared by the steps between two reveals)
            self._public_cache = built
        return self._public_cache

    def hands(self, index: int) -> list[list[Card]]:
        """Every seat's hand at step ``index``, with the audit's faces."""
        assert self.game is not None, "a replay with steps has its game"
        faces = self.known(index, None)
        out = []
        for seat in range(self.players):
            view = self.game.view(self.steps[index].state, seat, faces)
            hand = view.get("hand")
            out.append([c for c in hand if isinstance(c, Card)] if isinstance(hand, (list, tuple)) else [])
        return out

    def describe(self, index: int, seat: int | None) -> list[tuple[str, str]]:
        """Step ``index`` as log lines ``(kind, text)`` for the viewer (``seat``, or every
        face): the live console's wording, with faces only where the viewer saw them, then the
        story the game told after it (:meth:`~p2pcards.game.Game.story`), as at the table."""
        told = self._told(index)
        if self.steps[index].kind == "coin" and told:
            return told  # the coin's own line ("bob cuts a queen"), not its label
        lines = self._event_lines(index, seat)
        if self.steps[index].kind == "reveal" and self._reveal_owner(index) is None and told:
            # Cards from the stock that the game's line names ("the flop: K♣ 5♣ 2♦"): its line alone.
            known = self.known(index, seat)
            faces = [known[h] for h in self.steps[index].event.get("handles", ()) if h in known]
            words = {w for _, text in told for w in text.replace(",", " ").split()}
            if faces and all(str(c) in words or c.unicode() in words for c in faces):
                lines = []
        return self._left_lines(index, before=True) + lines + told + self._left_lines(index)

    def _left_lines(self, index: int, *, before: bool = False) -> list[tuple[str, str]]:
        """A player who left and let a bot play the seat to the end, as the table said it live
        (verify's ``left_to_bot``): before the first move the bot signed; after the last step
        when it signed none."""
        step = self.steps[index]
        out = []
        for seat, turn in sorted(self.report.left_to_bot.items()):
            if not 0 <= seat < self.players:
                continue
            here = (
                step.kind == "move" and step.event.get("seat") == seat and step.turn == turn
                if before
                else turn is None and index == len(self.steps) - 1
            )
            if here:
                name = self.speaking_names[seat]
                words = "you left; a bot plays your seat to the end" if name == "you" else left_to_bot_words(name)
                out.append(("notice", words))
        return out

    def _told(self, index: int) -> list[tuple[str, str]]:
        """The game's story entries that step ``index`` added, as lines."""
        if self.game is None:
            return []
        try:
            before = len(self.game.story(self.steps[index - 1].state)) if index > 0 else 0
            state = self.steps[index].state
            names = self.speaking_names
            return [("story", self.game.tell(state, e, names)) for e in list(self.game.story(state))[before:]]
        except Exception:  # a plugin's wording must not stop the replay
            return []

    def _event_lines(self, index: int, seat: int | None) -> list[tuple[str, str]]:
        step = self.steps[index]
        event, kind = step.event, step.kind
        known = self.known(index, seat)
        names = self.speaking_names
        if kind == "shuffle":
            return [("shuffle", "the deck is shuffled")]
        if kind == "coin":
            return [("coin", f"{event['label']}: {event['value']}")]
        if kind == "deal":
            to: Mapping[int, int] = event["to"]
            receivers = sorted(set(to.values()))
            count = len(to)
            head = f"{count} card{'s' * (count != 1)} dealt"
            if len(receivers) == 1 and self.players > 1:  # a draw: say who took it
                head += f" to {names[receivers[0]]}"

            def got(receiver: int) -> str:
                faces = sort_cards(known[h] for h, s in to.items() if s == receiver and h in known)
                return " ".join(c.unicode() for c in faces)

            if seat is not None and seat != SPECTATOR:  # one line: what the viewer got, if anything
                mine = got(seat) if seat in receivers else ""
                if not mine:
                    return [("deal", head)]
                gets = f"{names[seat]} {agree(names[seat], 'gets')} {mine}"
                return [("deal", f"{head}: {mine}" if len(receivers) == 1 else f"{head}; {gets}")]
            return [("deal", head)] + [
                ("deal", f"  {names[r]} {agree(names[r], 'gets')} {got(r)}") for r in receivers if got(r)
            ]
        if kind == "reveal":
            faces = " ".join(known[h].unicode() for h in event["handles"] if h in known)
            # As the live table says it: whose cards they are ("bob shows 2♦ 4♣"), or none's.
            owner = self._reveal_owner(index)
            if owner is not None and 0 <= owner < len(names):
                return [("reveal", f"{names[owner]} {agree(names[owner], 'shows')} {faces}")]
            return [("reveal", f"turned face up from the stock: {faces}")]
        if kind == "transfer":
            handles, to_seat = event["handles"], event["to"]
            count = len(handles)
            go = f"{count} card{'s go' if count != 1 else ' goes'} to {names[to_seat]}"
            # As the live table says it: cards turned face up before (a doubted set in the
            # pile) are no secret, and the line does not call them hidden.
            revealed = self._revealed_at()
            given = self._given_handles(index) or handles  # the event names the new handles
            seen = len({h for h in given if revealed.get(h, index) < index})
            also = "" if not seen else " (seen face up)" if seen == count else f" ({seen} of them seen face up)"
            if all(h in known for h in handles):
                shown = " ".join(c.unicode() for c in sort_cards(known[h] for h in handles))
                return [("transfer", f"{go}{also}: {shown}")]
            if seen:
                return [("transfer", go + also)]
            return [("transfer", f"{count} hidden card{'s go' if count != 1 else ' goes'} to {names[to_seat]}")]
        if kind == "move":
            return [("action", self._move_text(step, known))]
        return [(kind, kind)]

    def _asked_for(self, index: int) -> object | None:
        """What the game asked for at step ``index``: its next step from the state before it
        (``None``: no game, the first step, or a plugin's bug, which must not stop the replay)."""
        if self.game is None or index == 0:
            return None
        try:
            return self.game.next_step(self.steps[index - 1].state)
        except Exception:
            return None

    def _reveal_owner(self, index: int) -> int | None:
        """The seat whose cards step ``index`` turned face up, as the game asked for it
        (``None``: nobody's, or not known)."""
        step = self._asked_for(index)
        owner = step.owner if isinstance(step, Reveal) else None
        return owner if isinstance(owner, int) else None

    def _given_handles(self, index: int) -> tuple[int, ...] | None:
        """The handles a transfer moved, as the game asked for them (the transcript's event
        names the cards' new handles)."""
        step = self._asked_for(index)
        return tuple(step.handles) if isinstance(step, Transfer) else None

    def _revealed_at(self) -> dict[int, int]:
        """Each handle turned face up for everyone, and the first step that did it."""
        cached = self._revealed_cache
        if cached is None:
            cached = {}
            for i, step in enumerate(self.steps):
                if step.kind == "reveal":
                    for h in step.event.get("handles", ()):
                        cached.setdefault(h, i)
            self._revealed_cache = cached
        return cached

    def _move_text(self, step: ReplayStep, known: Mapping[int, Card]) -> str:
        assert self.game is not None, "a replay with steps has its game"
        seat, action = step.event["seat"], step.event["action"]
        name = self.speaking_names[seat] if 0 <= seat < self.players else f"seat {seat}"
        try:
            text = f"{name} {self.game.format_action(step.state, seat, action, known)}"
        except Exception:  # a plugin's wording must not stop the replay
            text = f"{name} {action.get('type', 'moves')}"
        if name == "you":  # as the live console says it (console/viewmodel.py)
            return second_person(text)
        return third_person(text, name, command_words(self.game.commands_help()))

    def log(self, index: int, seat: int | None) -> list[tuple[str, str]]:
        """Every line up to and including step ``index``, as the viewer read them."""
        out: list[tuple[str, str]] = []
        for i in range(index + 1):
            out += self.describe(i, seat)
        return out

    def result_line(self) -> str | None:
        result = self.report.result
        if result is None:
            return None
        return name_seats(result_words(self.game, result), self.speaking_names)

    # -- finding steps ------------------------------------------------------------------------

    def hand_start(self, number: int) -> int | None:
        """The first step of hand (deal) ``number``."""
        return next((s.index for s in self.steps if s.hand == number), None)

    def trick_start(self, number: int, at: int) -> int | None:
        """The first step of trick ``number`` in the hand of step ``at``."""
        hand = self.steps[at].hand
        return next((s.index for s in self.steps if s.hand == hand and s.trick == number), None)

    def turn_step(self, turn: int) -> int | None:
        """The step of move ``turn`` (``verify`` numbers moves from 0)."""
        return next((s.index for s in self.steps if s.turn == turn), None)

    @property
    def has_tricks(self) -> bool:
        return any(s.trick is not None for s in self.steps)

    @property
    def hand_count(self) -> int:
        return max((s.hand for s in self.steps), default=0)


def _numbers(game: Game, state: Any, shuffles: int) -> tuple[int, int | None]:
    """The hand (deal) and trick numbers the game reports in its view (Cal's BS:
    ``hand_number``; Calypso: ``deal`` and ``trick_number``), else hands counted by shuffles."""
    try:
        view = game.view(state, None, {})
    except Exception:
        view = {}
    hand: int | None = None
    for key in ("hand_number", "deal"):
        value = view.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            hand = value
            break
    trick = view.get("trick_number")
    trick = trick if isinstance(trick, int) and not isinstance(trick, bool) and trick > 0 else None
    return (shuffles if hand is None else hand), trick


def _game_seat(seat: int | None) -> int | None:
    """The seat to ask the game's ``view`` for: none for every face and for the table's view."""
    return None if seat is None or seat == SPECTATOR else seat


def is_spectator_file(path: str | Path) -> bool:
    """Whether the file is a spectator's, by the name ``p2pcards watch`` saves it under
    (``watch-<table>.p2pt``; a seat's own is ``<table>-seat2.p2pt``). The bytes are the
    players' own transcript: only the name says who saved it."""
    import re

    return re.fullmatch(r"watch-[0-9a-f]+\.p2pt", Path(path).name) is not None


def seat_of_file(path: str | Path, players: int) -> int:
    """The seat whose transcript this is, from the name the table saves it under
    (``<table>-seat2.p2pt``); seat 0 when the name does not say."""
    import re

    found = re.search(r"-seat(\d+)\.p2pt$", Path(path).name)
    seat = int(found.group(1)) if found else 0
    return seat if seat < players else 0


def load_replay(path: str | Path, *, progress: Callable[[float], None] | None = None) -> Replay:
    """Verify the transcript at ``path`` and keep every step of its replay. Never raises for
    anything in the file: an unreadable one has no steps (see ``report``). ``progress``: as
    :func:`~p2pcards.verify.verify_file`'s."""
    recorder = _Recorder()
    report = verify_file(path, watch=recorder, progress=progress)
    names = tuple(str(p["name"]) for p in report.players)
    game: Game | None = None
    if report.game.get("id"):
        game = load_plugins().games.get(report.game["id"])
    replay = Replay(report, game, names, faces=recorder.faces)
    if game is None:
        return replay
    shuffles = 0
    for index, (event, state, known) in enumerate(recorder.steps):
        if event["kind"] == "shuffle":
            shuffles += 1
        hand, trick = _numbers(game, state, shuffles)
        replay.steps.append(ReplayStep(index, event, state, known, hand, trick))
    return replay
