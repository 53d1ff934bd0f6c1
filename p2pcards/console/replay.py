"""``p2pcards replay``: step through a transcript in the console.

Three parts, the first two without a terminal:

* :func:`replay_model` -- one step as the table screen's :class:`~.viewmodel.TableModel`, built
  with the live console's own helpers from the game's ``view`` for the chosen seat (or every
  face, once the audit opened them), so a replay looks like the table did;
* :class:`ReplayCursor` -- where the replay is and what the commands do (``n``, ``p``,
  ``hand 3``, ``trick 5``, ``turn 12``, ``seat 2``, ``all``, ``first``, ``last``, ``quit``);
* :class:`ReplayApp` -- the full-screen prompt-toolkit program, and :func:`print_replay`, every
  step as text for a pipe or a script (``--print``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_to_text
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.widgets import TextArea

from ..cards import Card
from ..replay import SPECTATOR, Replay
from ..text import printable
from .controller import Feedback
from .render import (
    UNICODE,
    Glyphs,
    ScreenTextControl,
    card_fragments,
    choose_glyphs,
    colour_enabled,
    console_style,
    hand_fragments,
    lines_fragments,
    log_fragments,
    seats_fragments,
    text_fragments,
)
from .viewmodel import LogLine, SeatLine, TableModel, acting_seat, hand_cards, name_seats, seat_facts, table_lines

__all__ = ["REPLAY_HELP", "ReplayApp", "ReplayCursor", "print_replay", "replay_model", "run_replay"]

REPLAY_HELP = (
    "n, Space, Right or Enter: next step  p or Left: previous  first, last (Home, End)  "
    "hand N  trick N  turn N  seat N, all or table  q: quit"
)


# --------------------------------------------------------------------------------------------
# One step as a table screen.


def replay_model(replay: Replay, index: int, seat: int | None) -> TableModel:
    """Step ``index`` as the table screen showed it to ``seat`` (``None``: every face, with no
    hand of its own; :func:`all_hands` has every seat's; :data:`~p2pcards.replay.SPECTATOR`:
    as a spectator saw it, no hand)."""
    view = replay.view(index, seat)
    names = list(replay.speaking_names)
    over = index == len(replay.steps) - 1 and replay.report.result is not None
    acting = None if over else acting_seat(view)
    facts = seat_facts(view, replay.players)
    seats = tuple(SeatLine(s, names[s], tuple(facts[s]), s == acting, s == seat) for s in range(replay.players))
    if seat is not None and seat != SPECTATOR:
        hand, label = hand_cards(view, replay.known(index, seat))
        whose = "your" if names[seat] == "you" else f"{names[seat]}'s"
        label = f"{whose} hand" if label == "your hand" else f"cards {names[seat]} could see"
    else:
        hand, label = [], ""
    if over:
        status = f"game over: {replay.result_line()}"
    elif isinstance(view.get("status"), str) and view["status"]:
        status = name_seats(view["status"], names)
    elif acting is not None:
        status = f"{names[acting]} to play"
    else:
        status = ""
    return TableModel(
        title=replay.game.name if replay.game else "",
        seats=seats,
        table=tuple(table_lines(view, names)),
        hand=tuple(hand),
        hand_label=label,
        status=status,
    )


def all_hands(replay: Replay, index: int) -> list[tuple[str, list[Card]]]:
    """Every seat's name and hand at step ``index`` (the audit's faces)."""
    return list(zip(replay.names, replay.hands(index)))


def where(replay: Replay, index: int, dot: str = "·") -> str:
    """ "step 12 of 131 · hand 1 · trick 3 · turn 7" """
    step = replay.steps[index]
    parts = [f"step {index + 1} of {len(replay.steps)}"]
    if step.hand:
        parts.append(f"hand {step.hand}")
    if step.trick is not None:
        parts.append(f"trick {step.trick}")
    if step.turn is not None:
        parts.append(f"turn {step.turn}")
    return f" {dot} ".join(parts)


# --------------------------------------------------------------------------------------------
# Moving about.


@dataclass
class ReplayCursor:
    """The step shown and whose eyes it is seen through (``seat``; ``None``: every face), and
    the commands that move them."""

    replay: Replay
    seat: int | None = 0
    index: int = 0
    log: list[LogLine] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.seat is None and self.replay.faces is None:
            self.seat = 0
        self._refresh()

    @property
    def viewer(self) -> str:
        if self.seat is None:
            return "every hand (the audit opened every card)"
        if self.seat == SPECTATOR:
            return "the table"
        return self.replay.report.names()[self.seat]  # a name; "(seat 2)" only where two share one

    def _refresh(self) -> None:
        self.log = [LogLine(kind, text) for kind, text in self.replay.log(self.index, self.seat)]

    def go(self, index: int) -> Feedback:
        last = len(self.replay.steps) - 1
        if index < 0:
            self.index = 0
            return Feedback("this is the first step", error=True)
        if index > last:
            self.index = last
            stopped = self.replay.stopped_line()
            return Feedback(f"this is the last step{f': {stopped}' if stopped else ''}", error=True)
        self.index = index
        self._refresh()
        return Feedback()

    def handle(self, text: str) -> Feedback:
        """What a typed line does."""
        words = text.strip().lower().split()
        if not words:
            return self.go(self.index + 1)
        verb, args = words[0], words[1:]
        if verb in ("q", "quit", "exit"):
            return Feedback(intent="quit")
        if verb in ("n", "next") and not args:
            return self.go(self.index + 1)
        if verb in ("p", "prev", "previous", "back") and not args:
            return self.go(self.index - 1)
        if verb in ("first", "start") and not args:
            return self.go(0)
        if verb in ("last", "end") and not args:
            return self.go(len(self.replay.steps) - 1)
        if verb in ("help", "h", "?") and not args:
            return Feedback(REPLAY_HELP)
        if verb == "all" and not args:
            return self.show_seat(None)
        if verb == "table" and not args:
            return self.show_seat(SPECTATOR)
        number = _number(args)
        if verb == "seat":
            if args == ["all"]:
                return self.show_seat(None)
            if number is None:
                last = self.replay.players - 1
                return Feedback(f"say which seat: seat 0 to seat {last}, all or table", keep_text=True, error=True)
            return self.show_seat(number)
        if verb in ("hand", "deal", "trick", "turn", "step", "move") and number is None:
            return Feedback(f"say which {verb}: {verb} N", error=True, keep_text=True)
        if verb in ("hand", "deal"):
            found = self.replay.hand_start(number)  # type: ignore[arg-type]
            last = self.replay.hand_count
            if found is None:
                return Feedback(f"no {verb} {number}: this game has {verb}s 1 to {last}", error=True, keep_text=True)
            return self.go(found)
        if verb == "trick":
            if not self.replay.has_tricks:
                return Feedback("this game has no tricks: try hand N or turn N", error=True, keep_text=True)
            found = self.replay.trick_start(number, self.index)  # type: ignore[arg-type]
            if found is None:
                return Feedback(f"no trick {number} in this hand", error=True, keep_text=True)
            return self.go(found)
        if verb in ("turn", "move"):
            found = self.replay.turn_step(number)  # type: ignore[arg-type]
            if found is None:
                return Feedback(f"no turn {number} (verify numbers the moves from 0)", error=True, keep_text=True)
            return self.go(found)
        if verb == "step":
            return self.go(number - 1)  # type: ignore[operator]
        return Feedback(f"unknown command {printable(words[0])!r}: {REPLAY_HELP}", error=True, keep_text=True)

    def show_seat(self, seat: int | None) -> Feedback:
        if seat is None and self.replay.faces is None:
            return Feedback(
                "every hand can be shown only once the audit opened every card, and this "
                "transcript's did not: choose a seat",
                error=True,
            )
        if seat is not None and seat != SPECTATOR and not 0 <= seat < self.replay.players:
            return Feedback(f"no seat {seat}: seats 0 to {self.replay.players - 1}", error=True, keep_text=True)
        self.seat = seat
        self._refresh()
        if seat == SPECTATOR:
            return Feedback("now showing what the table saw face up (no hidden hand)")
        return Feedback(f"now showing what {self.viewer} saw" if seat is not None else f"now showing {self.viewer}")


def _number(args: Sequence[str]) -> int | None:
    return int(args[0]) if len(args) == 1 and args[0].isdigit() else None


# --------------------------------------------------------------------------------------------
# As text (--print).


def _plain(line: str) -> str:
    """A line of game text with its cards as symbols, as the screen shows them."""
    return fragment_list_to_text(text_fragments(line, UNICODE))


def step_text(replay: Replay, index: int, seat: int | None) -> list[str]:
    """Step ``index`` as lines of text: where, what happened, the table, the hand(s)."""
    model = replay_model(replay, index, seat)
    out = [f"== {where(replay, index)}"]
    out += [_plain(text) for _, text in replay.describe(index, seat)]
    for line in model.table:
        out.append(f"   | {_plain(line)}")
    if seat == SPECTATOR:
        pass  # a spectator saw no hand
    elif seat is not None:
        out.append(f"   {model.hand_label}: {' '.join(c.unicode() for c in model.hand) or '(no cards)'}")
    else:
        for name, hand in all_hands(replay, index):
            out.append(f"   {name}: {' '.join(c.unicode() for c in hand) or '(no cards)'}")
    if model.status:
        out.append(f"   status: {_plain(model.status)}")
    return [printable(line) for line in out]


def _seen(replay: Replay, seat: int | None) -> str:
    if seat is None:
        return "every hand"
    if seat == SPECTATOR:
        return "what the table saw face up, as a spectator saw it (no seat's hidden hand)"
    return f"what {replay.report.names()[seat]} saw"  # a name; a seat only if shared


def print_replay(replay: Replay, seat: int | None) -> str:
    """The whole replay as text: the verdict, then every step."""
    seen = _seen(replay, seat)
    whose = " (a spectator's, saved by p2pcards watch)" if replay.from_spectator else ""
    lines = [
        f"transcript: {replay.report.file}{whose}",
        f"verdict: {replay.verdict_line()}",
        f"{replay.game.name if replay.game else replay.report.game.get('id', '')}: {seen}",
    ]
    stopped = replay.stopped_line()
    for index in range(len(replay.steps)):
        lines += step_text(replay, index, seat)
    if stopped:
        lines.append(f"== {stopped}")
    return "\n".join(printable(line) for line in lines)


# --------------------------------------------------------------------------------------------
# The screen.


class ReplayApp:
    """The full-screen replay: the verdict on top, the table as the chosen seat saw it on the
    left, its log up to this step on the right, and a line to type commands. With an empty
    line, single keys move: n, Space, Right or Enter forward, p or Left back, Home and End,
    q quits."""

    def __init__(
        self,
        replay: Replay,
        seat: int | None = 0,
        *,
        glyphs: Glyphs | None = None,
        colour: bool | None = None,
        input: Input | None = None,
        output: Output | None = None,
    ):
        self.replay = replay
        self.cursor = ReplayCursor(replay, seat)
        self.glyphs = glyphs or choose_glyphs()
        self.colour = colour_enabled() if colour is None else colour
        keys = (
            "n or Space: next step, p: previous, hand N, trick N, seat N, all, q: quit"
            if replay.has_tricks
            else "n or Space: next step, p: previous, hand N, turn N, seat N, all, q: quit"
        )
        if replay.from_spectator:
            keys = "a spectator's transcript: what the table saw face up. " + keys
        self.message = Feedback(keys)
        self.input_area = TextArea(
            multiline=False,
            prompt=[("class:prompt", "> ")],
            history=InMemoryHistory(),
            accept_handler=self._accept,
            height=1,
        )
        self.application: Application[None] = Application(
            layout=Layout(self._root(), focused_element=self.input_area),
            key_bindings=self._keys(),
            style=console_style(self.colour),
            full_screen=True,
            mouse_support=False,
            color_depth=None if self.colour else ColorDepth.MONOCHROME,
            input=input,
            output=output,
        )

    def run(self) -> None:
        self.application.run()

    # -- input ----------------------------------------------------------------------------

    def _do(self, feedback: Feedback) -> bool:
        self.message = feedback
        if feedback.intent == "quit":
            self.application.exit()
        self.application.invalidate()
        return feedback.keep_text

    def _accept(self, buffer: Buffer) -> bool:
        return self._do(self.cursor.handle(buffer.text))

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        empty = Condition(lambda: not self.input_area.text)

        def step(by: int) -> None:
            self._do(self.cursor.go(self.cursor.index + by))

        for key in ("n", " ", "right", "pagedown"):
            kb.add(key, filter=empty)(lambda event: step(+1))
        for key in ("p", "left", "pageup"):
            kb.add(key, filter=empty)(lambda event: step(-1))
        kb.add("home", filter=empty)(lambda event: self._do(self.cursor.go(0)))
        kb.add("end", filter=empty)(lambda event: self._do(self.cursor.go(len(self.replay.steps) - 1)))
        kb.add("q", filter=empty)(lambda event: self._do(Feedback(intent="quit")))

        @kb.add("c-c")
        @kb.add("c-d", filter=empty)
        def _(event: KeyPressEvent) -> None:
            self.application.exit()

        return kb

    # -- layout ---------------------------------------------------------------------------

    def _root(self) -> HSplit:
        from .app import WrappedTextControl

        def section(title: Any) -> Window:
            return Window(ScreenTextControl(lambda: [("class:section", f" {title()} ")]), height=1)

        left = HSplit(
            width=Dimension(weight=5),
            children=[
                section(lambda: "Seats"),
                Window(ScreenTextControl(self._seats), dont_extend_height=True, wrap_lines=True),
                Window(height=1, char=" "),
                section(lambda: "Table"),
                Window(WrappedTextControl(self._table), wrap_lines=True),
                section(self._hand_title),
                Window(WrappedTextControl(self._hand), dont_extend_height=True, wrap_lines=True),
            ],
        )
        log = HSplit(
            width=Dimension(weight=3),
            children=[
                section(self._log_title),
                Window(WrappedTextControl(self._log, cursor_at_end=True), wrap_lines=True),
            ],
        )
        line = "│" if self.glyphs.unicode else "|"
        body = VSplit([left, Window(width=1, char=line, style="class:seat.label"), log])
        return HSplit(
            [
                Window(ScreenTextControl(self._title), height=1, style="class:title"),
                Window(
                    WrappedTextControl(self._verdict),
                    height=Dimension(min=1, max=3),
                    wrap_lines=True,
                    dont_extend_height=True,
                ),
                body,
                Window(ScreenTextControl(self._status), height=1),
                Window(WrappedTextControl(self._message), height=Dimension(min=1, max=2), wrap_lines=True),
                self.input_area,
                Window(ScreenTextControl(self._toolbar), height=1, style="class:bottom-toolbar"),
            ]
        )

    def model(self) -> TableModel:
        return replay_model(self.replay, self.cursor.index, self.cursor.seat)

    def _title(self) -> StyleAndTextTuples:
        dot = self.glyphs.dot
        game = self.replay.game.name if self.replay.game else ""
        players = f"{self.replay.players} players"
        return [("", f" p2pcards {dot} replay {dot} {game} {dot} {players} {dot} {self.replay.report.file}")]

    def _verdict(self) -> StyleAndTextTuples:
        if self.replay.verified:
            mark = "✓ " if self.glyphs.unicode else ""
            return [("class:end.title", f" {mark}{self.replay.verdict_line()}")]
        mark = "✗ " if self.glyphs.unicode else "! "
        out: StyleAndTextTuples = [("class:end.bad", f" {mark}{self.replay.verdict_line()}")]
        stopped = self.replay.stopped_line()
        if stopped:
            out.append(("class:message.error", f" ({stopped})"))
        return out

    def _seats(self) -> StyleAndTextTuples:
        return seats_fragments(self.model(), self.glyphs)

    def _table(self) -> StyleAndTextTuples:
        return lines_fragments(self.model().table, self.glyphs)

    def _hand_title(self) -> str:
        if self.cursor.seat is None:
            return "Every hand (the cards the table saw)"
        if self.cursor.seat == SPECTATOR:
            return "Hands: hidden from the table"
        model = self.model()
        count = len(model.hand)
        return f"{model.hand_label}: {count} card{'s' * (count != 1)}"

    def _hand(self) -> StyleAndTextTuples:
        if self.cursor.seat == SPECTATOR:
            return []
        if self.cursor.seat is not None:
            return hand_fragments(self.model(), self.glyphs)
        out: StyleAndTextTuples = []
        for name, hand in all_hands(self.replay, self.cursor.index):
            out.append(("class:seat.label", f"{printable(name)}: "))
            for i, card in enumerate(hand):
                out += ([("", " ")] if i else []) + card_fragments(card, self.glyphs)
            out.append(("", "\n"))
        return out

    def _log_title(self) -> str:
        return f"Log: what {self.cursor.viewer} saw" if self.cursor.seat is not None else "Log: every card"

    def _log(self) -> StyleAndTextTuples:
        """The log up to this step; this step's lines marked and in bold."""
        log = self.cursor.log
        now = len(self.replay.describe(self.cursor.index, self.cursor.seat))
        out = log_fragments(log[:-now], self.glyphs)
        for line in log[-now:]:
            out += [("", "\n")] if out else []
            out += [("class:seat.turn", f"{self.glyphs.turn} ")]
            out += text_fragments(line.text, self.glyphs, f"class:log.{line.kind} class:status")
        return out

    def _status(self) -> StyleAndTextTuples:
        return text_fragments(f" {self.model().status}", self.glyphs, "class:status")

    def _message(self) -> StyleAndTextTuples:
        message = self.message
        if not message.message:
            return []
        style = "class:message.error" if message.error else "class:message.info"
        mark = ("✗ " if self.glyphs.unicode else "! ") if message.error else ""
        return [(style, f" {mark}{message.message}")]

    def _toolbar(self) -> StyleAndTextTuples:
        dot = self.glyphs.dot
        seat = self.cursor.seat
        seen = "every hand" if seat is None else "the table" if seat == SPECTATOR else self.replay.names[seat]
        return [
            ("class:toolbar.turn", f" {where(self.replay, self.cursor.index, dot)} "),
            ("", f" {dot} seeing: {seen} {dot} n/p step  hand N  seat N|all|table  q quit"),
        ]


def run_replay(replay: Replay, seat: int | None, *, ascii: bool | None = None) -> None:
    """Run the replay screen until the player quits (blocking)."""
    ReplayApp(replay, seat, glyphs=choose_glyphs(ascii)).run()
