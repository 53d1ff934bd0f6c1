"""The order of a free-order round's responses from their signed entries (protocol/table.md
section 9): a response comes after every response its author had seen when it signed (its
head echo counts that response's entry); concurrent ones go to the seat nearest the opener's
left. The same at every seat and in ``p2pcards verify``, from the log alone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import order_round
from ..game import Action, Round
from ..wire.messages import Entry

__all__ = ["order_by_echoes"]


def order_by_echoes(
    step: Round, responses: Mapping[int, Action], entries: Mapping[int, Entry | None], players: int
) -> list[tuple[int, Action]]:
    """``responses[seat]`` was signed in ``entries[seat]``; ``None`` for a seat the table
    passed for (it was gone: absence.py), which comes after every signed response."""
    saw = {
        seat: {other for other in responses if other != seat and _had(entries[seat], entries[other])}
        for seat in responses
    }
    return order_round(dict(responses), saw, step.after, players)


def _had(later: Entry | None, earlier: Entry | None) -> bool:
    """``later``'s author held ``earlier`` when it signed ``later`` (a pass made for an
    absent seat comes after every signed response)."""
    if later is None or earlier is None:
        return later is None and earlier is not None
    seen: Any = later.body["seen"]
    return seen[earlier.sender][0] > earlier.seq
