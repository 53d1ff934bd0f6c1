"""Text from peers and files, made safe to show on a terminal.

A name, a reason, a chat line or a move written by another seat (or read from a transcript, a
zeroconf record, a saved file) is hostile. Handed to a terminal as it is, a newline or a
carriage return prints a line that looks like ours ("verdict: VERIFIED"), an escape sequence
clears the screen or moves the cursor, a right-to-left override (U+202E) reverses what follows,
and a lone surrogate makes ``print`` raise. :func:`printable` shows every such character as an
escape (``\\x1b``, ``\\u202e``), the way ``repr`` does, so the text is still readable and our own
lines stay ours. Schemas refuse these characters in names and reasons (:func:`unshowable`,
``wire.schema.Text``); what is shown is escaped anyway, at the point where it is shown.

Everything here is plain functions on strings, below every other layer.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

__all__ = [
    "UNSHOWABLE_CATEGORIES",
    "command_words",
    "name_seats",
    "printable",
    "printable_json",
    "second_person",
    "names_table",
    "table_called",
    "third_person",
    "unshowable",
]

#: Unicode categories a terminal must not be handed as they are: control characters (Cc:
#: newline, carriage return, escape), format characters (Cf: bidi overrides and isolates,
#: zero-width joiners), surrogates (Cs), private use (Co), unassigned code points (Cn), and the
#: line and paragraph separators (Zl, Zp).
UNSHOWABLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _unshowable_char(char: str) -> bool:
    return unicodedata.category(char) in UNSHOWABLE_CATEGORIES


def unshowable(text: str) -> str | None:
    """The first character of ``text`` a terminal must not be handed as is, or None."""
    return next((c for c in text if _unshowable_char(c)), None)


_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: Any) -> str:
    """``text`` (or ``str(text)``) with every :func:`unshowable` character written as an
    escape, as ``repr`` writes it: ``"a\\nb"`` is shown as ``a\\nb`` on one line, ESC as
    ``\\x1b``, U+202E as ``\\u202e``. Other characters, a backslash included, are kept as they are."""
    text = text if isinstance(text, str) else str(text)
    if unshowable(text) is None:  # the common case: nothing to do
        return text
    return "".join(_escape(c) if _unshowable_char(c) else c for c in text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def printable_json(data: Any, **dumps: Any) -> str:
    """``json.dumps(data, ensure_ascii=False, **dumps)`` with every :func:`unshowable`
    character inside a string written as a ``\\uXXXX`` escape: the same JSON to a parser, and
    nothing a terminal acts on. (Outside strings JSON has only the newlines and spaces of
    ``indent``; json already escapes control characters inside strings, so each newline left
    in the text is one of ``indent``'s.)"""
    text = json.dumps(data, ensure_ascii=False, **dumps)
    return "".join(_json_escape(c) if c != "\n" and _unshowable_char(c) else c for c in text)


# --------------------------------------------------------------------------------------------
# Seats by name. A game's own text (a result's summary, a view's lines) names seats "seat N";
# what people read names the players (the console, the printout after a game, ``verify``).

# One pattern, one pass: a name put in ("bot (seat 0)") is never read again as a seat.
_SEAT_NAMES = re.compile(r"\bseats (\d+(?:, \d+)*),? and (\d+)\b|\bseat (\d+)('s)?\b")


def name_seats(text: str, names: Sequence[str]) -> str:
    """ "seat 2 to play" -> "bot 2 to play"; "seat 0's card" -> "your card" when seat 0 is you;
    "seats 1 and 3 win" -> "bot 1 and bot 3 win"; "seat 0 wins" -> "you win"."""

    def name(match: re.Match[str]) -> str:
        if match.group(3) is None:  # "seats 1, 2 and 3"
            seats = [int(n) for n in re.findall(r"\d+", match.group(0))]
            if any(seat >= len(names) for seat in seats):
                return match.group(0)
            return ", ".join(names[s] for s in seats[:-1]) + " and " + names[seats[-1]]
        seat = int(match.group(3))
        if seat >= len(names):
            return match.group(0)
        if not match.group(4):
            return names[seat]
        return "your" if names[seat] == "you" else f"{names[seat]}'s"

    named = _SEAT_NAMES.sub(name, text)
    return second_person(named) if named.startswith("you ") and not text.startswith("you ") else named


def second_person(text: str) -> str:
    """ "you plays Q♥" -> "you play Q♥", "you passes" -> "you pass"."""
    head, verb, rest = (text.split(" ", 2) + ["", ""])[:3]
    if head != "you" or len(verb) < 4 or not verb.isalpha() or not verb.endswith("s") or verb.endswith("ss"):
        return text
    verb = verb[:-2] if verb.endswith(("sses", "shes", "ches", "xes")) else verb[:-1]
    return " ".join(w for w in ("you", verb, rest) if w)


def command_words(help_text: str) -> list[str]:
    """The verbs a game's commands start with (``Game.commands_help``, one command a line)."""
    words = []
    for line in help_text.splitlines():
        first = line.split()[0].lower() if line.split() else ""
        if first.isalpha() and first not in words:
            words.append(first)
    return words


def third_person(text: str, name: str, verbs: Sequence[str]) -> str:
    """ "bot 1 play a card" -> "bot 1 plays a card": for a game that words its actions as the
    commands a player types ("play 9h", "draw"), said of another seat."""
    if not text.startswith(name + " "):
        return text
    verb, sep, rest = text[len(name) + 1 :].partition(" ")
    if verb not in verbs:
        return text
    verb += "es" if verb.endswith(("s", "sh", "ch", "x")) else "s"
    return f"{name} {verb}{sep}{rest}"


def table_called(name: str) -> str:
    """A table as every screen names it (the lobby, ``list``, ``host``, ``join``): a table
    named for its host, as it is unless ``--table-name`` says otherwise ("alice"), is "alice's
    table"; a name that says table already ("Friday poker table") is itself."""
    return name if re.search(r"\btable\b", name, re.IGNORECASE) else f"{name}'s table"


def names_table(typed: str, name: str) -> bool:
    """Whether ``typed`` (what a person gave ``join`` or ``watch``) names the table called
    ``name``: its name, or the name as :func:`table_called` says it ("alice's table")."""
    return typed in (name, table_called(name))
