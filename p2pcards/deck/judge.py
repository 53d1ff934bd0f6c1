"""The judge of deck accusations (protocol/deck.md section 6): the rules that decide, from what a
seat holds as an accusation arrives, whether it names the accused or the accuser, with the one
wording every verdict of them carries. Sans-IO and pure: the live table's deck party
(:meth:`~p2pcards.deck.party.Party._judge`) and ``p2pcards verify`` (which rebuilds what a seat
held from the signed entries) call the same functions, so they cannot judge one accusation
two ways.

Each rule returns a :class:`Verdict` or ``None`` where it does not decide. A verdict's reason is
always our own text, chosen by the rule: never the accuser's ``reason``, nor any other field a
peer wrote (threat model: every byte from a peer is hostile, and a verdict that repeats it
would let a cheater write the table's judgement).

What each side must supply:

* the accuser's latest ``shuffle``/``relock`` pass before the accusation (:func:`finished_hand`):
  at the table, what its chain delivered before it; in a transcript, its signed entries before
  it. Both are the accuser's own chain, in the same order everywhere (causal delivery).
* the accused public message as the judging seat holds it when the accusation arrives
  (:func:`on_copy`): at the table, the party's copy; in a transcript, the accused seat's signed
  message of that step and operation among the entries the accusation's head echo counts.
  Causal delivery hands the accusation on only after everything its author had seen, so the
  two are the same message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

from .group import is_valid_point
from .passes import PassError, check_pass_shape

__all__ = [
    "PUBLIC_STEPS",
    "Verdict",
    "finished_hand",
    "is_public",
    "NotAnOpening",
    "ChainEnded",
    "PrivateBoxes",
    "is_opening",
    "malformed",
    "no_opening",
    "on_copy",
    "opens_no_cards",
    "unknown_kind",
    "without_evidence",
]

#: Accusations about a public message (no evidence: every seat checks its own copy), by step.
PUBLIC_STEPS = frozenset({"shuffle", "relock", "rehandle"})

#: The step of a verdict that names the accuser.
ACCUSE = "accuse"


@dataclass(frozen=True)
class Verdict:
    """``seat`` is to blame at ``step`` (``accuse`` when the accuser is named, else the step of
    the accused message), for ``reason``; ``op``: the operation of the accused message, when the
    accused is named."""

    step: str
    seat: int
    reason: str
    op: int | None = None


def _is_int(value: object) -> TypeGuard[int]:
    return type(value) is int  # not a bool, not a float that equals one


def malformed(accuser: int, message: Any, players: int) -> Verdict | None:
    """An accusation whose ``seat`` is not a seat or whose ``op`` is not a non-negative integer
    names its accuser, as it arrives."""
    accused = message.get("seat") if isinstance(message, dict) else None
    op = message.get("op") if isinstance(message, dict) else None
    if _is_int(accused) and 0 <= accused < players and _is_int(op) and op >= 0:
        return None
    return Verdict(ACCUSE, accuser, "malformed accusation")


def finished_hand(accuser: int, op: Any, later: int) -> Verdict | None:
    """An accusation about an operation below ``later``, the operation of a ``shuffle`` or
    ``relock`` pass its accuser had sent before it (-1: none): its accuser had finished that
    hand, and an honest seat accuses only during the operation it is in. Refused as it arrives,
    whatever it says (protocol/deck.md section 6, "Finished hands")."""
    if not _is_int(op) or op >= later:
        return None
    return Verdict(
        ACCUSE,
        accuser,
        f"accusation about operation {op}, of a hand it had finished (it had sent its pass of operation {later})",
    )


def is_public(message: Any) -> bool:
    """An accusation about a public message (a pass or a re-handling, no evidence): judged as it
    arrives, on the judging seat's own copy (:func:`on_copy`)."""
    if not isinstance(message, dict) or not isinstance(message.get("step"), str):
        return False  # (a list or a map as the step could not even be looked up)
    return message["step"] in PUBLIC_STEPS and message.get("evidence") is None


def on_copy(accuser: int, message: dict[str, Any], copy: Any, cards: int) -> Verdict:
    """An accusation about a public message (:func:`is_public`; its form checked by
    :func:`malformed`), judged on ``copy``: the accused message as the judging seat holds it as
    the accusation arrives (``None``: it holds none). Every seat holds the same copy then, the
    one the accuser had received, so every seat decides alike, whatever its progress and
    whether the operation is finished or not: no copy, or a copy of the right shape whose every
    point is in the group, names the accuser; a malformed copy, or one with a point outside the
    group, names the accused. ``cards``: the size of the deck (a pass holds one point each)."""
    step, accused, op = message["step"], message["seat"], message["op"]
    if copy is None:
        return Verdict(
            ACCUSE,
            accuser,
            f"accusation about a {step} message of seat {accused} in operation {op} that it had not received",
        )
    fault = _copy_fault(step, copy, cards)
    if fault:
        return Verdict(step, accused, fault, op)
    return Verdict(ACCUSE, accuser, f"false accusation against seat {accused} ({step})")


def _copy_fault(step: str, copy: Any, cards: int) -> str:
    """What is wrong with the accused public message (empty: nothing the accusation can name)."""
    if step != "rehandle":  # a re-handling's shape is checked where it is applied
        try:
            check_pass_shape(step, copy, cards)
        except PassError as exc:
            return str(exc)
    points = copy.get("points") if isinstance(copy, dict) else None
    if not isinstance(points, list):
        return f"malformed {step} message"
    bad = next((j for j, p in enumerate(points) if not is_valid_point(p)), None)
    return "" if bad is None else f"invalid point at position {bad}"


def is_opening(payload: Any) -> bool:
    """A private deck message's payload is an opening of an operation: a map of type ``open``
    whose ``op`` is an operation's number (a non-negative integer; not a bool, nor a float).
    Only openings go to one seat, so an honest seat signs no other private payload."""
    if not isinstance(payload, dict) or payload.get("type") != "open":
        return False
    op = payload.get("op")
    return _is_int(op) and op >= 0


@dataclass(frozen=True)
class NotAnOpening:
    """A private deck payload that is no opening of an operation (:func:`is_opening`), as the
    table layer hands it to the deck party: received (``receive(sender, NotAnOpening(...))``)
    or opened from an accusation's evidence with its revealed key (the ``message`` of the
    evidence). Nothing a peer sends decodes to it: only the table layer, which knows the
    payload came in a box, makes one."""

    payload: Any


@dataclass(frozen=True)
class PrivateBoxes:
    """A signed private deck entry of the sender carried boxes to ``seats``, as the table layer
    hands it to the deck party at every seat, whether or not this seat can open one of them
    (``receive(sender, PrivateBoxes(...))``, before the opened payload of a box to this seat).
    The party counts them: at the end-of-game audit every operation is known, and a sender
    with more boxes to a seat than the operations' openings call for signed one the protocol
    never called for (protocol/deck.md section 7; transcript.md section 5 item 11). Nothing
    a peer sends decodes to it."""

    seats: tuple[int, ...]


@dataclass(frozen=True)
class ChainEnded:
    """The sender's signed ``result`` or ``stop`` entry came (the table layer hands it to the
    deck party, in the order of the sender's chain): every private box of that chain came before
    it, so the party may count them (``Party.boxes_missing``). No seed marks the end of a chain
    (none is revealed since protocol version 12); a seat's result is signed after all its deck
    steps, and a stopped seat signs no deck step after its stop. Nothing a peer sends decodes
    to it."""


def no_opening(accuser: int, accused: int, sender: int) -> Verdict:
    """An accusation whose evidence is ``sender``'s signed private entry to the accuser,
    opened with the revealed message key to a payload that is no opening of an operation
    (:func:`is_opening`; wrong for any operation, so judged as it arrives, whatever operation
    the accusation names): the sender is named if it is the accused, else the accuser. The
    box authenticates under the key only the two share, in an entry only the sender signed:
    the accuser cannot make one up (protocol/deck.md section 6)."""
    if sender != accused:
        return Verdict(ACCUSE, accuser, f"accusation names seat {accused}, the evidence seat {sender}")
    return Verdict(
        "open",
        sender,
        f"its private deck message to seat {accuser} (opened with the key seat {accuser} revealed) "
        f"is no opening of an operation",
    )


def without_evidence(accuser: int) -> Verdict:
    """An accusation about a private opening whose evidence names no private message of that
    operation to the accuser (none, or its entry is not one, or the key does not open it)
    names its accuser, as it arrives."""
    return Verdict(ACCUSE, accuser, "accusation without valid evidence")


def unknown_kind(accuser: int) -> Verdict:
    """An accusation of no kind deck.md section 6 knows names its accuser, as it arrives (its
    step is the accuser's word: not repeated)."""
    return Verdict(ACCUSE, accuser, "accusation of no kind the deck protocol knows")


def opens_no_cards(accuser: int, step: str, op: int) -> Verdict:
    """A private-opening or reused-key accusation about an operation that opens no
    cards names its accuser, once its operation is reached; so does one about an operation at
    or past the end-of-game audit, where nobody accuses."""
    return Verdict(ACCUSE, accuser, f"accusation ({step}) about operation {op}, which opens no cards")
