"""Rendering: view models to prompt-toolkit formatted text, with suit symbols and colours.

Two switches decide how cards look:

* :class:`Glyphs` -- Unicode suit symbols and markers, or an ASCII fallback (``--ascii``,
  ``P2PCARDS_ASCII=1``, or a terminal whose encoding is not UTF-8);
* colour -- red hearts and diamonds, unless ``NO_COLOR`` is set (then the app also runs with a
  monochrome colour depth, and styles keep only bold and reverse).

Names, moves, chat and reasons come from other players: each line of text shown is made
:func:`~p2pcards.text.printable` here (a newline in a name cannot start a line of its own), and
:func:`screen_fragments`, the last step before the terminal, escapes every control or format
character that is not one of our own line breaks.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import FormattedTextControl
from prompt_toolkit.styles import Style

from ..cards import Card, parse_card, parse_suit
from ..text import printable
from .viewmodel import EndModel, LogLine, TableModel

__all__ = [
    "ASCII",
    "UNICODE",
    "Glyphs",
    "card_text",
    "choose_glyphs",
    "colour_enabled",
    "console_style",
    "end_fragments",
    "end_parts",
    "fit_lines",
    "hand_fragments",
    "log_fragments",
    "screen_fragments",
    "screen_rows",
    "ScreenTextControl",
    "bell_enabled",
    "SizedTextControl",
    "WrappedTextControl",
    "seats_fragments",
    "text_fragments",
    "word_wrap",
]


@dataclass(frozen=True)
class Glyphs:
    unicode: bool
    turn: str
    me: str
    spinner: tuple[str, ...]
    dot: str


UNICODE = Glyphs(True, "▶", "•", ("⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"), "·")
ASCII = Glyphs(False, ">", "*", ("|", "/", "-", "\\"), "-")


def choose_glyphs(
    ascii: bool | None = None, env: Mapping[str, str] | None = None, encoding: str | None = None
) -> Glyphs:
    """ASCII when asked (``ascii=True`` or ``P2PCARDS_ASCII=1``) or when the terminal cannot
    show the symbols (its encoding is not UTF-8)."""
    env = os.environ if env is None else env
    if ascii is None:
        ascii = env.get("P2PCARDS_ASCII", "").strip().lower() in {"1", "yes", "true", "on"}
    if ascii:
        return ASCII
    if encoding is None:
        encoding = getattr(sys.stdout, "encoding", None) or "ascii"
    if encoding.lower().replace("-", "").replace("_", "") not in {"utf8", "utf8sig"}:
        return ASCII
    return UNICODE


def colour_enabled(env: Mapping[str, str] | None = None) -> bool:
    """No colour when ``NO_COLOR`` is set to anything non-empty (https://no-color.org)."""
    env = os.environ if env is None else env
    return not env.get("NO_COLOR")


def bell_enabled(flag: bool = False, env: Mapping[str, str] | None = None) -> bool:
    """The terminal bell when the player's turn comes: off unless asked for (``--bell``, or
    ``P2PCARDS_BELL=1``)."""
    env = os.environ if env is None else env
    return flag or env.get("P2PCARDS_BELL", "").strip().lower() in {"1", "yes", "true", "on"}


_COLOURS = {
    "title": "bold reverse",
    "section": "bold underline",
    "seat.turn": "bold fg:ansiyellow",
    "seat.me": "bold",
    "seat.fact": "",
    "seat.label": "fg:ansibrightblack",
    "card.red": "fg:ansired bold",
    "card.black": "bold",
    "card.joker": "fg:ansimagenta bold",
    "card.fresh": "reverse",
    "presence.online": "fg:ansigreen",
    "presence.away": "bold fg:ansiyellow",
    "presence.gone": "bold fg:ansired",
    "presence.bot": "fg:ansicyan",
    "log.action": "",
    "log.chat": "fg:ansicyan",
    "log.connection": "fg:ansiyellow",
    "log.error": "fg:ansired",
    "log.phase": "fg:ansibrightblack",
    "log.done": "bold fg:ansigreen",
    "log.notice": "fg:ansiblue",
    "log.reveal": "fg:ansibrightblack",
    "log.story": "bold",
    "status": "bold",
    "message.error": "bold fg:ansired",
    "message.info": "fg:ansigreen",
    "busy": "bold fg:ansiyellow",
    "end.title": "bold fg:ansigreen",
    "end.bad": "bold fg:ansired",
    "end.hint": "fg:ansicyan",
    "bottom-toolbar": "reverse",
    "toolbar.turn": "bold reverse",
    "prompt": "bold",
    "help.head": "bold underline",
    "lobby.selected": "reverse",
}
# Without colour only bold/underline/reverse survive, so the screen still has shape.
_MONO = {k: " ".join(w for w in v.split() if not w.startswith(("fg:", "bg:"))) for k, v in _COLOURS.items()}


def console_style(colour: bool = True) -> Style:
    return Style.from_dict(_COLOURS if colour else _MONO)


# --------------------------------------------------------------------------------------------
# Cards in text.

# A card such as 7h, 10s, Qd, 7♥ or JK, or a lone suit symbol. Lower-case ranks are not cards
# here ("as" is a word), and a card must stand alone (not inside "3x8" or a word).
_TOKEN = re.compile(r"(?<![\w+#])(?:(10|[2-9JQKA])([shdc♠♥♦♣])|(JK)|([♠♥♦♣]))(?![\w#])")


def card_text(card: Card, glyphs: Glyphs) -> str:
    return card.unicode() if glyphs.unicode else str(card)


def _card_style(card: Card) -> str:
    if card.is_joker or card.suit is None:  # (None together)
        return "class:card.joker"
    return "class:card.red" if card.suit.is_red else "class:card.black"


def card_fragments(card: Card, glyphs: Glyphs) -> StyleAndTextTuples:
    return [(_card_style(card), card_text(card, glyphs))]


def text_fragments(line: str, glyphs: Glyphs, style: str = "") -> StyleAndTextTuples:
    """A line of game text with every card and suit symbol shown as a card. It stays one line:
    a line break in it (from a player's name, chat or move) is shown escaped."""
    line = printable(line)
    out: StyleAndTextTuples = []
    at = 0
    for match in _TOKEN.finditer(line):
        if match.start() > at:
            out.append((style, line[at : match.start()]))
        if match.group(4):  # a lone suit symbol
            suit = parse_suit(match.group(4))
            cls = "class:card.red" if suit.is_red else "class:card.black"
            out.append((f"{style} {cls}", suit.symbol if glyphs.unicode else suit.value))
        else:
            card = parse_card(match.group(0))
            out.append((f"{style} {_card_style(card)}", card_text(card, glyphs)))
        at = match.end()
    if at < len(line):
        out.append((style, line[at:]))
    return out


def lines_fragments(lines: Sequence[str], glyphs: Glyphs, style: str = "") -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for line in lines:
        out += text_fragments(line, glyphs, style)
        out.append(("", "\n"))
    return out


# --------------------------------------------------------------------------------------------
# Sections of the table screen.


def seats_fragments(model: TableModel, glyphs: Glyphs, width: int | None = None) -> StyleAndTextTuples:
    """One line per seat: a turn marker, the name, whether the player is here (at a networked
    table: "online", "away 1:05", "gone"), then aligned ``label value`` columns. Given the
    window's ``width``, a seat's columns that do not fit go on to the next line, indented under
    the first column: a column is never cut in two."""
    # Your own row says so ("alice (you)"; a console that names its player "you" needs no more).
    names = [printable(s.name) + (" (you)" if s.me and s.name != "you" else "") for s in model.seats]
    width_name = max((len(name) for name in names), default=0)
    marks = [printable(s.presence_text or "") for s in model.seats]
    width_mark = max((len(mark) for mark in marks), default=0)
    indent = 2 + width_name + (2 + width_mark if width_mark else 0)
    out: StyleAndTextTuples = []
    for seat, name, mark in zip(model.seats, names, marks):
        marker = glyphs.turn if seat.to_act else " "
        style = "class:seat.turn" if seat.to_act else ("class:seat.me" if seat.me else "")
        out.append((style, f"{marker} {name.ljust(width_name)}"))
        if width_mark:
            out.append(("", "  "))
            out.append((f"class:presence.{seat.presence or 'online'}", mark.ljust(width_mark)))
        column = indent
        for label, value in seat.facts:
            cell = text_fragments(value, glyphs, "class:seat.fact") if value else []
            size = len(printable(label)) + (1 if value else 0) + sum(len(f[1]) for f in cell)
            if width and column > indent and column + 2 + size > width:
                out.append(("", "\n" + " " * indent))
                column = indent
            out.append(("", "  "))
            out.append(("class:seat.label", f"{printable(label)} " if value else printable(label)))
            out += cell
            column += 2 + size
        out.append(("", "\n"))
    return out


def hand_fragments(model: TableModel, glyphs: Glyphs) -> StyleAndTextTuples:
    """The hand, cards just picked up (``model.fresh``) highlighted."""
    if not model.hand:
        return [("class:seat.label", "(no cards)")]
    fresh = list(model.fresh)
    out: StyleAndTextTuples = []
    for index, card in enumerate(model.hand):
        if index:
            out.append(("", " "))
        if card in fresh:
            fresh.remove(card)
            out.append((f"{_card_style(card)} class:card.fresh", card_text(card, glyphs)))
        else:
            out += card_fragments(card, glyphs)
    return out


def log_fragments(lines: Sequence[LogLine], glyphs: Glyphs) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for index, line in enumerate(lines):
        if index:
            out.append(("", "\n"))
        out += text_fragments(line.text, glyphs, f"class:log.{line.kind}")
    return out


def end_fragments(
    end: EndModel, glyphs: Glyphs, again: str | None = "for a new game", width: int | None = None
) -> StyleAndTextTuples:
    """The game-over panel; ``again`` says what ``new`` does (``None``: there is no ``new``);
    ``width``: the panel's columns (the scores are broken into lines that fit)."""
    body, transcript, hint = end_parts(end, glyphs, again, width)
    return body + transcript + hint


def score_lines(scores: Sequence[str], glyphs: Glyphs, width: int | None = None) -> list[str]:
    """The scores after "scores: ", in lines of at most ``width`` columns (``None``: one
    line), broken between two players' scores, never in one ("strategic bot 4: 300" stays
    whole): a short panel then leaves out whole lines (:func:`fit_lines`), the first kept."""
    from prompt_toolkit.utils import get_cwidth

    head, indent = "scores: ", "  "
    lines: list[str] = []
    line = head
    for index, score in enumerate(scores):
        piece = printable(score) + (f" {glyphs.dot}" if index < len(scores) - 1 else "")
        fresh = line in (head, indent)
        longer = line + piece if fresh else f"{line} {piece}"
        if width and not fresh and get_cwidth(longer) > width:
            lines.append(line)
            line = indent + piece
        else:
            line = longer
    return lines + [line]


def end_parts(
    end: EndModel, glyphs: Glyphs, again: str | None = "for a new game", width: int | None = None
) -> tuple[StyleAndTextTuples, StyleAndTextTuples, StyleAndTextTuples]:
    """The game-over panel in three: what happened (the winner, the result, the scores, the
    audit, the command that checks the transcript), where the transcript is (one line), and
    what to type now (no line break at its end). ``width``: the panel's columns, which the
    scores' lines fit (:func:`score_lines`)."""
    out: StyleAndTextTuples = [("class:end.title", f"game over: {printable(end.winners)}\n")]
    out += text_fragments(f"result: {end.result}", glyphs) + [("", "\n")]
    # The audit before the scores: a short panel keeps its first lines (fit_lines).
    for index, line in enumerate(end.audit):
        bad = not end.audit[0].startswith("audit: clean")
        out.append(("class:end.bad" if bad and index == 0 else "", printable(line) + "\n"))
    if end.scores:
        out += [("", line + "\n") for line in score_lines(end.scores, glyphs, width)]
    transcript: StyleAndTextTuples
    if end.transcript and not end.saved:
        # One short line: the hint below must fit the panel at 80x24 (the path comes once saved).
        transcript = [("class:seat.label", "transcript: not saved yet\n")]
    elif end.transcript:
        transcript = [("", f"transcript saved to {printable(end.transcript)}\n")]
        # Above the transcript's line on the end panel (that one is never cut): it names it.
        out.append(("class:end.hint", f"check the transcript any time with: {printable(end.verify)}\n"))
    else:
        transcript = [("class:seat.label", "no transcript was saved for this table\n")]
    hint = f"type 'new' {again} or 'quit' to leave" if again else "type 'quit' to leave"
    return out, transcript, [("class:end.hint", hint)]


def screen_fragments(fragments: StyleAndTextTuples) -> StyleAndTextTuples:
    """The last guard before the terminal: every control or format character escaped (an
    escape sequence, a carriage return, a bidi override, U+2028) except the line breaks, which
    at this point are the screen's own (text from players was made one line each above)."""
    out: StyleAndTextTuples = []
    for fragment in fragments:
        text = fragment[1]
        if "\n" in text:
            text = "\n".join(printable(part) for part in text.split("\n"))
        else:
            text = printable(text)
        out.append((fragment[0], text, *fragment[2:]) if text != fragment[1] else fragment)
    return out


class ScreenTextControl(FormattedTextControl):
    """A :class:`FormattedTextControl` of a callable whose text goes through
    :func:`screen_fragments`: every window of the console shows text through one of these."""

    def __init__(self, text, **kwargs):
        super().__init__(lambda: screen_fragments(list(text())), **kwargs)


class SizedTextControl(FormattedTextControl):
    """Formatted text made for the window's width: ``text(width)`` (``None`` before the first
    layout), shown through :func:`screen_fragments`. With ``wrap`` it is then broken between
    words (:func:`word_wrap`; prompt-toolkit's own wrapping cuts anywhere). With
    ``cursor_at_end`` the (hidden) cursor sits at the end, so a window shows the last lines (the
    log). With ``whole_lines`` a window too short for the text shows as many of its first lines
    as fit, each whole (:func:`fit_lines`): never a sentence cut in its middle."""

    def __init__(
        self,
        text: Callable[[int | None], StyleAndTextTuples],
        *,
        wrap: bool = False,
        cursor_at_end: bool = False,
        whole_lines: bool = False,
        **kwargs: Any,
    ):
        self._width: int | None = None
        self._height: int | None = None  # the window's rows when drawn (None: measuring)

        def sized() -> StyleAndTextTuples:
            out = screen_fragments(list(text(self._width)))
            if whole_lines:
                out = fit_lines(out, self._width, self._height)
            if wrap:
                out = word_wrap(out, self._width)
            return out + [("[SetCursorPosition]", "")] if cursor_at_end else out

        self._whole_lines = whole_lines
        super().__init__(sized, **kwargs)

    def create_content(self, width: int, height: int | None):
        if width != self._width or (self._whole_lines and height != self._height):
            self._width = width
            self._height = height
            self._fragment_cache.clear()
        return super().create_content(width, height)


class WrappedTextControl(SizedTextControl):
    """Formatted text broken between words at the window's width (see :class:`SizedTextControl`)."""

    def __init__(
        self,
        text: Callable[[], StyleAndTextTuples],
        *,
        cursor_at_end: bool = False,
        whole_lines: bool = False,
        **kwargs: Any,
    ):
        super().__init__(
            lambda width: text(), wrap=True, cursor_at_end=cursor_at_end, whole_lines=whole_lines, **kwargs
        )


def screen_rows(fragments: StyleAndTextTuples, width: int | None) -> int:
    """The rows ``fragments`` take in a window ``width`` columns wide that breaks lines between
    words (:func:`word_wrap`) and wraps a word longer than the width (a path) itself."""
    from prompt_toolkit.formatted_text import fragment_list_to_text
    from prompt_toolkit.utils import get_cwidth

    text = fragment_list_to_text(word_wrap(fragments, width))
    if not width:
        return text.count("\n") + 1
    return sum(max(1, -(-get_cwidth(line) // width)) for line in text.split("\n"))


def fit_lines(fragments: StyleAndTextTuples, width: int | None, height: int | None) -> StyleAndTextTuples:
    """The first lines of ``fragments`` that fit ``height`` rows at ``width`` columns, each one
    whole (a line that would be cut is left out, with the lines after it); at least the first
    line. ``None`` (not drawn yet): all of them."""
    if not width or not height or screen_rows(fragments, width) <= height:
        return fragments
    lines: list[StyleAndTextTuples] = [[]]
    for style, text, *rest in fragments:
        parts = text.split("\n")
        for index, part in enumerate(parts):
            if index:
                lines.append([])
            if part:
                lines[-1].append((style, part, *rest))  # type: ignore[arg-type]
    out: StyleAndTextTuples = list(lines[0])
    for line in lines[1:]:
        longer = out + [("", "\n")] + line
        if screen_rows(longer, width) > height:
            break
        out = longer
    return out


_WORD = re.compile(r"\n| +|[^ \n]+")


def word_wrap(fragments: StyleAndTextTuples, width: int | None) -> StyleAndTextTuples:
    """Break lines between words so that none is longer than ``width`` (the window then does
    not cut a word, a card, a path or an address in two). A word may span fragments (a card's
    rank and suit in two colours). A word longer than the width stays whole (the window wraps
    it). ``None`` or a tiny width: unchanged."""
    from prompt_toolkit.utils import get_cwidth

    if not width or width < 8:
        return fragments
    # (style, token) pieces; consecutive word pieces make one word.
    pieces = [(f[0], token) for f in fragments for token in _WORD.findall(f[1])]
    out: StyleAndTextTuples = []
    column = 0
    index = 0
    while index < len(pieces):
        style, token = pieces[index]
        if token == "\n":
            out.append((style, token))
            column, index = 0, index + 1
            continue
        if token.startswith(" "):
            if column + len(token) > width:  # a space at the edge: the break goes here
                out.append((style, "\n"))
                column = 0
            else:
                out.append((style, token))
                column += len(token)
            index += 1
            continue
        end = index
        while end < len(pieces) and pieces[end][1] != "\n" and not pieces[end][1].startswith(" "):
            end += 1
        size = sum(get_cwidth(t) for _, t in pieces[index:end])
        if column and column + size > width:
            out.append((style, "\n"))
            column = 0
        out.extend(pieces[index:end])
        column += size
        index = end
    return out
