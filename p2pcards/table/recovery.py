"""A seat coming back after a crash takes back its own entries that its journal lost.

A seat's own entries are written to its journal's file before they are sent, and fsynced later
(``Peer.keep_journal_synced``): a killed program loses nothing, a power cut can take the last
ones. The seats they were sent to still hold them. So a restarted seat first asks every other
seat for its own chain from where its journal ends (``fetch``), takes back what they send, and
signs nothing, nor acts on anything, until each has said how much of that chain it holds
(``fetched``). Signing one of those entries again would make a second version of it, which is
what a cheater sends (protocol/table.md section 6).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..wire.identity import PublicIdentity
from ..wire.messages import Entry, Fetch, Fetched

__all__ = ["OwnChainRecovery"]


class OwnChainRecovery:
    """What the other seats hold of seat ``seat``'s own chain beyond ``journal`` (its own
    entries, in order, as the journal kept them); ``head`` is its seat genesis."""

    def __init__(
        self, table: bytes, seat: int, players: int, keys: PublicIdentity, journal: Sequence[Entry], head: bytes
    ):
        self.table = table
        self.seat = seat
        self.players = players
        self.keys = keys
        self.count = len(journal)  # our entries known so far: the journal's, then those taken back
        self.head = journal[-1].hash if journal else head
        self.done = False  # every other seat has answered
        self._answered: set[int] = set()

    def fetch(self) -> Fetch:
        """What to ask each seat for, first thing on each connection."""
        return Fetch(self.table, self.seat, self.count)

    def missing_answers(self) -> list[int]:
        """Seats that have not yet said how much of our chain they hold."""
        return [s for s in range(self.players) if s != self.seat and s not in self._answered]

    def take(self, entry: Entry) -> Entry | None:
        """One of our entries, as a seat sent it back: the entry if it is the next one of our
        chain (signed by us, after the last one we know), ``None`` if we have it already.
        :class:`ValueError` if we never signed it."""
        if entry.seq != self.count:
            return None  # one we have (several seats hold it), or not the next: nothing to take
        if entry.prev != self.head or not entry.verify(self.keys):
            raise ValueError(f"a version of our own entry #{entry.seq} that we did not sign")
        self.count += 1
        self.head = entry.hash
        return entry

    def answered(self, seat: int, message: Fetched) -> str | None:
        """Seat ``seat`` says how much of our chain it holds (having sent it all before). What
        is wrong with the answer, if anything; :attr:`done` once every seat answered."""
        if message.table != self.table or message.seat != self.seat:
            return None  # the end of an answer about another chain
        self._answered.add(seat)
        if not self.missing_answers():
            self.done = True
        if message.count > self.count:
            # An honest seat sends every entry it holds before it says how many it holds.
            return f"says it holds {message.count} of our entries but sent {self.count}"
        return None
