"""The table's verdicts on goodbyes, stops and seats that never came back (protocol/table.md
section 5), with the one wording the live table and ``p2pcards verify`` both give them. Sans-IO
and pure: :class:`~p2pcards.table.protocol.TableProtocol` calls these as signed entries
arrive, and verify (:mod:`p2pcards.verify.stops`, :mod:`p2pcards.verify.seedless`) calls them on
the signed entries of a transcript.

Where one transcript knows less than a live seat, the rule says nobody rather than guess: a
live seat knows which of its links went silent and which closed; a file does not.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..text import printable

__all__ = [
    "PlayedAfterStop",
    "goodbye",
    "goodbye_overtaken",
    "goodbye_overtaken_reason",
    "goodbye_reason",
    "goodbye_words",
    "halted",
    "peer_words",
    "ended_its_game",
    "left_without_stop",
    "played_after_stop",
    "plays_on",
    "signed_after_stop",
    "stop_excused_by_unstopped",
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
    return f"{name} left the table (a signed goodbye)"


def goodbye_overtaken(author: int, bye_seq: int, stops: Iterable[tuple[int, int, int]]) -> tuple[int, int] | None:
    """A seat's signed ``bye`` (entry #``bye_seq`` of ``author``) ends the game at every seat
    it reaches before that seat's game stopped; a seat that had stopped already keeps its own
    reason (the first reason stays). ``stops``: ``(seat, seq, count)`` of each other seat's
    ``stop`` entry, ``count`` the entries of ``author`` its head echo counts. The first stop
    that does not count the goodbye, as ``(seat, seq)``: that seat's game had stopped without
    it, so whom the end names depends on the seat (the goodbye's author at the seats it
    reached, another at that one), and one file cannot say which seat wrote it; else None.
    (Issue 28: verify named an honest player who quit while the table stalled, from the file
    of a seat that had stopped on the staller before the goodbye came.)"""
    for seat, seq, count in stops:
        if seat != author and count <= bye_seq:
            return seat, seq
    return None


def goodbye_overtaken_reason(author: str, bye_seq: int, stopper: str, stop_seq: int) -> str:
    """The wording of :func:`goodbye_overtaken` (it names nobody)."""
    return (
        f"{author} signed a goodbye (log #{bye_seq}), but {stopper}'s program had stopped the game without "
        f"it (its stop entry, log #{stop_seq}, does not count it): the goodbye ended the game only "
        f"where it came first, and the transcript does not say which seat wrote it"
    )


def halted(name: str) -> str:
    """The verdict of a seat whose game stops because a seat it waits on signed a ``stop``: it
    names nobody. The stopper's reason and the seat it blames are its word, not proof, and are
    not repeated here (the table shows them as what that seat said)."""
    return f"{name}'s program stopped the game (its signed stop entry; whom it blames is its word, not proof)"


def box_missing(sender: str, receiver: str, *, ended: str = "result") -> str:
    """The verdict of a seat whose game reached its result while ``sender`` signed its own
    result (``ended`` "result"; "stop": its ``stop``) before a private deck message it owed
    ``receiver`` (which only ``receiver`` waits for; every box of a chain comes before its
    result or stop), or (``ended`` "none") signed neither, nor that message, by the time we
    stopped waiting for the others' results: the table's game did not end as a whole. Nobody
    is named here; the stop is judged as every stop is, by the transcript."""
    if ended == "none":
        return (
            f"{sender} never sent its private deck message to {receiver}, nor its result: the "
            f"game did not end as a whole at every seat (nobody is named for it here)"
        )
    did = "stopped its game" if ended == "stop" else "signed its result"
    return (
        f"{sender} {did} before its private deck message to {receiver}: the game "
        f"did not end as a whole at every seat (nobody is named for it here)"
    )


def withheld_opening(name: str, what: str) -> str:
    """The verdict on a follower whose commitment to a free-order response is in but whose
    opening never came (protocol/table.md section 9): its client opens by itself once the
    round is sealed, so this is withholding, like a deck message never sent. It is not
    passed for: that would let it see the others' openings and turn its doubt into a pass."""
    return f"{name} committed to a response and withheld its {what} (its client opens by itself)"


def signed_after_stop(kind: str) -> str:
    """The verdict on a seat that signed a move, result, statement or deck step after its own
    ``stop`` entry: proven by its chain."""
    return (
        f"it signed a {kind} entry after its own stop entry (a seat that stops signs nothing for "
        f"the game but its evidence)"
    )


def signed_after_drop(kind: str) -> str:
    """The verdict on a seat that signed a move, an opening or an absent statement after its
    own drop-out move (issue 30): proven by its chain, at every seat and in verify alike."""
    return f"signed an {kind} entry after dropping out (a seat that dropped out makes no more moves)"


def plays_on(kind: str, body: Any) -> bool:
    """An entry that a seat which has signed its ``stop`` entry must not sign: a move (or the
    opening of a sealed one), an ``absent`` statement, a result or a deck step (protocol/table.md
    section 5; since protocol version 12 no seed reveal follows a stop). Its evidence
    (``blame``), its ``bye`` and chat are not part of the game."""
    return kind in ("action", "open", "absent", "result", "deck")


@dataclass(frozen=True)
class PlayedAfterStop:
    """Seat ``seat`` signed entry #``seq`` (of kind ``kind``) after its own ``stop`` entry
    #``stop``: its fault, proven by its own chain."""

    seat: int
    seq: int
    kind: str
    stop: int

    def reason(self, name: str) -> str:
        return f"{name}: {signed_after_stop(self.kind)} (its stop: log #{self.stop})"


def played_after_stop(players: int, chain: Callable[[int], Iterable[Any]]) -> PlayedAfterStop | None:
    """The first seat, in seat order, whose chain (``chain(seat)``: its signed entries in
    ``seq`` order, each with ``kind``, ``seq`` and ``body``) holds an entry that plays on
    (:func:`plays_on`) after the seat's own first ``stop`` entry.

    One rule for the live table and ``p2pcards verify``: verify names that seat from the
    transcript, and a live seat whose game stopped naming nobody names it too once that entry
    is in its log, which its transcript is written from (issue 28: a seat that stopped on the
    cheater's stop named nobody, and verify of its file named the cheater)."""
    for seat in range(players):
        stopped = None
        for entry in chain(seat):
            if entry.kind == "stop" and stopped is None:
                stopped = entry
            elif stopped is not None and plays_on(entry.kind, entry.body):
                return PlayedAfterStop(seat, entry.seq, entry.kind, stopped.seq)
    return None


def ended_its_game(kinds: Iterable[str]) -> bool:
    """A seat's chain (the kinds of its signed entries) shows that its game ended: it signed its
    ``stop`` or its ``bye`` (every seat signs one when its game stops or it leaves, protocol/
    table.md section 5), or its ``result`` (its game reached its end). Since protocol version 12
    this is what a seed reveal showed before: no seed is revealed any more."""
    return any(kind in ("stop", "bye", "result") for kind in kinds)


def left_without_stop(waited_on: int, unstopped: Collection[int], players: int) -> bool:
    """A game stopped waiting for ``waited_on``, which never signed its ``stop`` or ``bye``
    (every seat signs one when its game stops: :func:`ended_its_game`): does one transcript
    show that it left?

    Only if it alone signed neither while at least two other seats signed theirs. A seat cut
    off from every other one holds only its own stop (no other reached it), and from its file
    "the others left" and "I was cut off" look the same; so does the file of either side of a
    table split in two. Nobody is named then (a live seat in that place knows which of its
    links went silent, and names nobody too). With only two seats, one file can never tell."""
    others = players - 1
    return set(unstopped) == {waited_on} and others >= 2


def stop_excused_by_unstopped(waited_on: int, stopped_after_use: bool, unstopped: Collection[int]) -> bool:
    """The seat the game waited on signed a ``stop`` past everything the game used of it
    (``stopped_after_use``), while other seats never signed theirs (``unstopped``): a seat stops
    when another is gone past its grace period (protocol/table.md section 5), and whether one
    was, or a link failed, one transcript cannot tell; so it is not named as a staller (the
    live table names nobody for a stop either)."""
    return bool(unstopped) and waited_on not in unstopped and stopped_after_use


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
