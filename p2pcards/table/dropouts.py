"""Which seats dropped out of the game (issue 30; protocol/table.md section 4, "Dropping out"),
from their signed entries, and the one rule about what a seat signs after: pure, so that the
live table (:class:`~p2pcards.table.protocol.TableProtocol`, as entries are delivered) and
``p2pcards verify`` (over each chain of a transcript) decide it alike.

A seat drops out by signing the table's drop-out move (:data:`p2pcards.engine.DROP_OUT`) as its
``action`` entry; whether the move was allowed is the game's rules' to say, at its turn
(:meth:`p2pcards.engine.Replica.turn_drop`). From that entry on, in its own chain's order, the
seat signs no move, opening or absent statement: one that it does is its fault, proven by its
chain, whether or not the drop-out was allowed."""

from __future__ import annotations

from typing import Any

from ..engine import is_drop_out
from ..wire.messages import Entry
from .verdict import signed_after_drop

__all__ = ["AFTER_DROP", "DropOuts", "is_drop_out_entry"]

#: The kinds of entry a seat may no longer sign once it dropped out.
AFTER_DROP = frozenset({"action", "open", "absent"})


def is_drop_out_entry(entry: Entry) -> bool:
    """``entry`` is its author's drop-out move (an ``action`` entry whose ``action`` is the
    table's drop-out move, well formed or not)."""
    body: Any = entry.body
    return entry.kind == "action" and isinstance(body, dict) and is_drop_out(body.get("action"))


class DropOuts:
    """The drop-out moves seen so far, each seat's chain read in order."""

    def __init__(self) -> None:
        #: seat -> the seq of its (first) drop-out entry
        self.seq: dict[int, int] = {}

    def note(self, entry: Entry) -> str | None:
        """Take ``entry`` (the next of its author's chain): the verdict on its author if it is
        a move, opening or statement signed after its author's own drop-out move, else
        ``None`` (and a drop-out move is noted)."""
        if entry.sender in self.seq and entry.seq > self.seq[entry.sender] and entry.kind in AFTER_DROP:
            return signed_after_drop(entry.kind)
        if is_drop_out_entry(entry):
            self.seq.setdefault(entry.sender, entry.seq)
        return None
