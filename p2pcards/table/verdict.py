"""The table's verdicts on goodbyes, stops and seats that never came back (protocol/table.md
section 5), with the one wording the live table and ``p2pcards verify`` both give them. Sans-IO
and pure: :class:`~p2pcards.table.protocol.TableProtocol` calls these as signed entries
arrive, and verify (:mod:`p2pcards.verify.stops`, :mod:`p2pcards.verify.seedless`) calls them on
the signed entries of a transcript.

Where one transcript knows less than a live seat, the rule says nobody rather than guess: a
live seat knows which of its links went silent and which closed; a file does not.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from ..text import printable

__all__ = [
    "goodbye",
    "goodbye_reason",
    "goodbye_words",
    "halted",
    "peer_words",
    "left_without_seed",
    "signed_after_stop",
    "stopped_on_private",
    "stopped_on_private_reason",
    "withheld_opening",
]


def goodbye_reason(body: Any) -> str:
    """The reason a signed ``bye`` entry gives (its author's own account of why it left), as
    it wrote it: never a verdict's reason (:func:`goodbye`); shown only as its words
    (:func:`goodbye_words`)."""
    reason = body.get("reason") if isinstance(body, dict) else None
    return reason if isinstance(reason, str) else "no reason given"


#: The leaver's own words are shown up to this many characters (a ``bye`` may carry 64 KiB).
WORDS_SHOWN = 200


def peer_words(text: str) -> str:
    """A peer's own text as we may show it, marked as its words by the caller: every character
    a terminal must not be handed escaped (text.printable), cut to WORDS_SHOWN."""
    words = printable(text)
    return words if len(words) <= WORDS_SHOWN else words[: WORDS_SHOWN - 1] + "\u2026"


def goodbye_words(body: Any) -> str:
    """The leaver's own reason, to show beside the verdict, marked as its words."""
    return peer_words(goodbye_reason(body))


def goodbye(name: str, body: Any) -> str:
    """The verdict on a seat that signed a ``bye`` before the result: it left, and the game
    ends as abandoned by it, whoever the game was waiting for. Our words only: a verdict never
    repeats a peer's (its reason is shown apart, as its words: :func:`goodbye_words`).
    ``body`` is its entry's body, read for nothing here."""
    return f"{name} left the table (its signed goodbye)"


def halted(name: str) -> str:
    """The verdict of a seat whose game stops because a seat it waits on signed a ``stop``: it
    names nobody. The stopper's reason and the seat it blames are its word, not proof, and are
    not repeated here (the table shows them as what that seat said)."""
    return f"{name} stopped its game (its signed stop entry; whom it blames is its word, not proof)"


def withheld_opening(name: str, what: str) -> str:
    """The verdict on a follower whose commitment to a free-order response is in but whose
    opening never came (protocol/table.md section 9): its client opens by itself once the
    round is sealed, so this is withholding, like a deck message never sent. It is not
    passed for: that would let it see the others' openings and turn its doubt into a pass."""
    return f"{name} committed to a response and withheld its {what} (its client opens by itself)"


def signed_after_stop(kind: str) -> str:
    """The verdict on a seat that signed a move, result, statement or deck step (but its seed)
    after its own ``stop`` entry: proven by its chain."""
    return (
        f"it signed a {kind} entry after its own stop entry (a seat that stops signs nothing for "
        f"the game but its evidence and its seed)"
    )


def left_without_seed(waited_on: int, unrevealed: Collection[int], players: int) -> bool:
    """A game stopped waiting for ``waited_on``, which never revealed its deck seed (every seat
    reveals it when its game stops): does one transcript show that it left?

    Only if it alone kept its seed while at least two other seats revealed theirs. A seat cut
    off from every other one holds only its own seed (no other reached it), and from its file
    "the others left" and "I was cut off" look the same; so does the file of either side of a
    table split in two. Nobody is named then (a live seat in that place knows which of its
    links went silent, and names nobody too). With only two seats, one file can never tell."""
    others = players - 1
    return set(unrevealed) == {waited_on} and others >= 2


def stopped_on_private(
    before: Sequence[int], stop: Sequence[int], private: Iterable[tuple[int, int, Collection[int]]], seat: int
) -> list[tuple[int, int]]:
    """A seat the game waited on stopped, holding every message it needed: did it stop on a
    private entry to it? ``before`` and ``stop``: the head echoes (entries held, per seat) of
    the entry it signed before its stop entry (zeros: none) and of its stop entry; ``private``:
    (sender, seq, recipients) of the private deck entries of the other seats. Those to ``seat``
    that its stop entry counts and its entry before did not, as (sender, seq) in order; empty
    if there are none.

    Its stop is then the first thing it signed after receiving a box only it can open (and a
    box that does not open proves nothing to anyone): from the file, "a box was junk" and "it
    stopped for no reason" look the same, so nobody is named (the live table names nobody for a
    stop either; only the receiver, which opened it, names the sender)."""
    return sorted(
        (sender, seq)
        for sender, seq, to in private
        if sender != seat and seat in to and before[sender] <= seq < stop[sender]
    )


def stopped_on_private_reason(name: str, what: str, stop_seq: int, entries: Sequence[tuple[str, int]]) -> str:
    """The wording of :func:`stopped_on_private` (it names nobody): ``entries`` are (sender's
    name, seq) of the private entries it stopped on."""
    listed = ", ".join(f"{sender}'s #{seq}" for sender, seq in entries)
    return (
        f"the game stopped waiting for {name}'s {what}, but {name} stopped (log #{stop_seq}) "
        f"as the first thing it signed after receiving private entries to it ({listed}), which "
        f"only it can open: it may have found one faulty (a box that does not open), and the "
        f"transcript cannot tell"
    )
