"""What happens when the player presses Enter: console commands, moves, and clear refusals.

The controller knows nothing of prompt-toolkit either. :meth:`TableController.handle` takes the
typed line and returns a :class:`Feedback`: a message, whether the input line keeps its text
(always, when something was wrong, so the player can fix a typo instead of retyping), and an
``intent`` for the app (``help``, ``new``, ``quit``).

It also turns the session's legal actions into text the game's own grammar reads back
(:meth:`TableController.move_choices`): that is what Tab completion offers. When the player has
exactly one legal action (:meth:`TableController.forced_move`: Calypso's set-aside, a turn where
only ``pass`` is left) an empty Enter plays it; the status line says so. Nothing is played
without that key press: the person sees the move before it is made.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..cards import Card, CardParseError, parse_card
from ..game import Action, IllegalAction
from ..session import TableEvent, TableSession
from ..text import command_words
from .viewmodel import TableTracker

__all__ = ["Feedback", "ForcedMove", "MoveChoice", "TableController", "console_words"]


@dataclass(frozen=True)
class Feedback:
    message: str = ""
    error: bool = False
    keep_text: bool = False
    intent: str | None = None


@dataclass(frozen=True)
class MoveChoice:
    """A legal move as the player would type it, and as the game says it."""

    text: str
    description: str


@dataclass(frozen=True)
class ForcedMove:
    """The one legal action now, which an empty Enter plays."""

    action: Action
    description: str  # the command form of the game's text: "set aside 3♣ 5♣", "pass"
    text: str | None  # what the player could type for it, if the game's grammar reads one back


_HELP = {"help", "?", "h"}
_LEGAL = {"legal", "moves"}
_QUIT = {"quit", "exit", "leave"}
_NEW = {"new", "again"}


def console_words(game_over: bool) -> list[str]:
    """Console commands to offer in completion."""
    words = ["help", "legal", "say "]
    return words + (["new", "quit"] if game_over else ["quit"])


# A card in a game's text, Unicode or ASCII ("7♦", "10s"); used to make typed forms ASCII.
_CARD_WORD = re.compile(r"(?<![\w+#])(?:10|[2-9JQKA])[shdc♠♥♦♣](?![\w#])")
_SEAT_PREFIX = re.compile(r"^seat \d+ ")


def _cards_as(text: str, unicode: bool) -> str:
    """Every card in ``text`` written in ASCII (``7h``) or with its suit symbol (``7♥``)."""

    def swap(match: re.Match[str]) -> str:
        try:
            card = parse_card(match.group(0))
        except CardParseError:
            return match.group(0)
        return card.unicode() if unicode else str(card)

    return _CARD_WORD.sub(swap, text)


def _unconjugate(text: str) -> str:
    """ "plays 7h" -> "play 7h": a game's description often reads as a sentence."""
    head, sep, rest = text.partition(" ")
    if head.endswith(("sses", "shes", "ches", "xes")):  # "passes" -> "pass"
        return head[:-2] + sep + rest
    if head.endswith("s") and len(head) > 3 and not head.endswith("ss"):
        return head[:-1] + sep + rest
    return text


def _action_faces(action: Action, known: Mapping[int, Card]) -> list[str]:
    """The arguments of an action as a player types them: handles become faces."""
    out: list[str] = []
    for key, value in action.items():
        if key == "type":
            continue
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, int) and not isinstance(item, bool) and item in known:
                out.append(str(known[item]))
            elif isinstance(item, str):
                out.append(item)
    return out


class TableController:
    """Input handling for one table."""

    def __init__(self, session: TableSession, tracker: TableTracker):
        self.session = session
        self.tracker = tracker
        self._choices_key: tuple[int, bool] | None = None
        self._choices: list[MoveChoice] = []
        self._forced_key: tuple[int, bool] | None = None
        self._forced: ForcedMove | None = None
        # A move handed to the session but not played yet: until it is, another Enter (a fast
        # typist, a paste) must not queue a second move for a later turn.
        self.move_pending = False
        session.subscribe(self._on_event)

    def _on_event(self, event: TableEvent) -> None:
        # A free-order answer is played when it comes in ("responded"), even if the set was
        # decided before it (it is then void and never an "action"); a sealed one (a networked
        # table) when its commitment is signed ("answered": shown as "has answered" until the
        # round is opened).
        mine = event.kind in ("action", "responded", "answered") and event.data.get("seat") == self.session.me
        if event.kind in ("error", "done") or mine:
            self.move_pending = False

    # -- legal moves as text --------------------------------------------------------------

    def _same(self, a: Action, b: Action) -> bool:
        if a == b:
            return True
        # Another physical copy of the same face (Calypso has four packs) is the same move.
        return self._describe(a) == self._describe(b)

    def _describe(self, action: Action) -> str:
        """The local seat's words for one of its legal moves (only a seated player has any)."""
        me = self.session.me
        assert me is not None, "a watcher has no moves to describe"
        return self.session.describe(me, action)

    def typed_form(self, action: Action) -> str | None:
        """Text that the game's grammar parses back into ``action``, or ``None``."""
        session = self.session
        described = self._describe(action)
        tries: list[str] = []
        # ASCII first (easy to type anywhere), then the game's own symbols: a grammar may
        # misread an ASCII card that is also a word ("As", the ace of spades, next to "as").
        # The imperative first ("play 7h", not "plays 7h"): a grammar may also read the log's
        # third person back, but a player types (and the help shows) the command.
        for text in (_cards_as(described, False), _cards_as(described, True)):
            stripped = _SEAT_PREFIX.sub("", text)
            tries += [_unconjugate(stripped), stripped, text]
        args = " ".join(_action_faces(action, session.known()))
        verbs = [str(action.get("type", ""))] + command_words(session.game.commands_help())
        tries += [f"{verb} {args}".strip() for verb in verbs if verb]
        # A verb alone, for a move whose arguments the game works out itself (Calypso's
        # "aside" sets aside every card of the removed suit; "set aside 3c 5c" does not parse).
        tries += [verb for verb in verbs if verb]
        for text in dict.fromkeys(tries):  # in order, without repeats
            try:
                parsed = session.parse(text)
            except (IllegalAction, ValueError):
                continue
            if self._same(parsed, action):
                return text
        return None

    def move_choices(self) -> list[MoveChoice]:
        """The legal moves now, typed forms first; cached until the next table event."""
        key = (self.session.published, self.session.my_turn)
        if key != self._choices_key:
            self._choices_key = key
            choices: dict[str, MoveChoice] = {}
            for action in self.session.legal_actions():
                description = self._describe(action)
                text = self.typed_form(action)
                if text is not None and text not in choices:
                    choices[text] = MoveChoice(text, description)
            self._choices = list(choices.values())
        return self._choices

    def forced_move(self) -> ForcedMove | None:
        """The local seat's only legal action, when it has exactly one and may play it now
        (its turn, no move of its own still on the way); ``None`` otherwise. Cached until the
        next table event."""
        session = self.session
        if not session.my_turn or self.move_pending or session.result is not None:
            return None
        key = (session.published, session.my_turn)
        if key != self._forced_key:
            self._forced_key = key
            legal = list(session.legal_actions())
            self._forced = None
            if len(legal) == 1 and session.game.lists_every_action:  # (not one of a sample)
                action = legal[0]
                described = _SEAT_PREFIX.sub("", self._describe(action))
                self._forced = ForcedMove(action, _unconjugate(described), self.typed_form(action))
        return self._forced

    # -- Enter ----------------------------------------------------------------------------

    def handle(self, line: str) -> Feedback:
        text = line.strip()
        if not text:
            return self._play_forced()
        head, _, rest = text.partition(" ")
        word = head.lower()
        game_over = self.session.result is not None
        if word in _HELP:
            if rest:  # "help me", "help play": the help is what they want
                return Feedback(
                    f"'{head}' needs no words after it: here is the help (F1 or Esc closes it)", intent="help"
                )
            return Feedback(intent="help")
        if word in _LEGAL and not rest:
            return self._legal()
        if word == "say":
            return self._say(rest)
        if word in _QUIT and not rest:
            return Feedback(intent="quit")
        if word in _NEW and not rest:
            if not game_over:
                return Feedback("the game is still on: finish it, or 'quit' to leave", error=True, keep_text=True)
            return Feedback(intent="new")
        if game_over:
            return Feedback("the game is over: type 'new' for another, or 'quit'", error=True, keep_text=True)
        return self._move(text)

    def _legal(self) -> Feedback:
        if self.session.result is not None:
            return Feedback("the game is over: type 'new' for another, or 'quit'")
        if not self.session.my_turn or self.move_pending:
            return Feedback(self._not_your_turn(), error=True)
        choices = self.move_choices()
        if not choices:
            described = [self._describe(a) for a in self.session.legal_actions()]
            return Feedback("legal now: " + "; ".join(described))
        # A move with a comma in it ("play 8c, naming spades" in a game's words) would read as
        # two: then the moves are set apart by semicolons.
        shown = ("; " if any("," in c.text for c in choices) else ", ").join(c.text for c in choices[:12])
        more = f" (and {len(choices) - 12} more: press Tab)" if len(choices) > 12 else ""
        return Feedback(f"legal now: {shown}{more}")

    def _say(self, text: str) -> Feedback:
        if not text.strip():
            return Feedback("say what? e.g. say good luck", error=True, keep_text=True)
        self.session.say(text)
        return Feedback()

    def _not_your_turn(self) -> str:
        turn = self.tracker.turn
        if self.session.me is None:
            return "you are watching this table"
        if self.move_pending:
            return "wait: your last move is still being played"
        if self.session.phase != "playing":
            return f"wait: the table is {self.session.phase}"
        if turn is None:  # a round just closed (a free-order race): the next turn is on its way
            return "wait: the table is between turns"
        if turn == self.session.me:
            return "wait a moment: the table is catching up"
        return f"wait: it is {self.session.names[turn]}'s turn, not yours"

    def _play_forced(self) -> Feedback:
        """An empty Enter: the only legal move, if there is exactly one; otherwise nothing."""
        forced = self.forced_move()
        if forced is None:
            return Feedback()
        return self._submit(forced.action)

    def _move(self, text: str) -> Feedback:
        session = self.session
        if not session.my_turn or self.move_pending:
            return Feedback(self._not_your_turn(), error=True, keep_text=True)
        try:
            action = session.parse(text)
        except (IllegalAction, ValueError) as exc:
            return Feedback(f"can't read that: {exc} (Tab shows your legal moves)", error=True, keep_text=True)
        return self._submit(action)

    def _submit(self, action: Action) -> Feedback:
        session = self.session
        try:
            # Same thread as trio (guest mode), so handing the move to the session is direct.
            session.submit(action)
        except IllegalAction as exc:
            return Feedback(f"not allowed: {exc}", error=True, keep_text=True)
        self.move_pending = True
        return Feedback()
