"""Free-order rounds from their signed entries (protocol/table.md section 9), the same at every
seat and in ``p2pcards verify``, from the log alone.

*Sealed responses* (protocol version 8): a follower first signs a commitment to its response,
an ``action`` entry ``{"turn": t, "sealed": H, "box": B}`` with ``H`` = :func:`seal` of the
response and a nonce only it can derive (:func:`response_secrets`); ``B`` is the response
encrypted to itself, so that a seat resuming from its journal after a crash can open what it
committed to. Once a seat holds every follower's commitment, each follower signs its
*opening*, an ``open`` entry ``{"turn": t, "open": response, "nonce": N}``
(:func:`opening_problem` checks it). Commitments are ordered as responses were: a commitment
comes after every commitment its author had seen when it signed (its head echo counts that
entry); concurrent ones go to the seat nearest the opener's left (:func:`order_by_echoes`)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from .. import PROTOCOL_VERSION
from ..engine import order_round
from ..game import Action, Round
from ..wire import framing
from ..wire.messages import Entry

__all__ = [
    "BOX_BLOCK",
    "OpeningsDue",
    "IDENTITY_LABEL",
    "NONCE_BYTES",
    "SEALED",
    "SEAL_LABEL",
    "parse_commitment",
    "is_sealed",
    "moved_before_opening",
    "open_box",
    "opening_body",
    "opening_problem",
    "order_by_echoes",
    "response_secrets",
    "seal",
    "sealed_body",
]

#: Domain label of a commitment's hash (protocol/table.md section 9, "Rounds"). Like every
#: hashed domain string of the protocol it carries the version (wire.md section 9).
SEAL_LABEL = f"p2pcards/{PROTOCOL_VERSION} sealed response\x00".encode()
#: Label of the secret a seat derives from its identity for its sealed responses
#: (:meth:`~p2pcards.wire.identity.Identity.secret`), and of the per-round secret derived
#: from that (nonce and box key).
IDENTITY_LABEL = f"p2pcards/{PROTOCOL_VERSION} response secrets\x00".encode()
SECRET_LABEL = f"p2pcards/{PROTOCOL_VERSION} response round\x00".encode()
NONCE_BYTES = 32
#: What a seat's response is, to the session, between its commitment and its opening.
SEALED: Action = {"type": "sealed"}
_ZERO_NONCE = bytes(12)  # each box key seals exactly one message
#: A box's plaintext is padded to a multiple of this many bytes, so that its length does not
#: tell a pass from a doubt (their encodings differ by one byte) or from a play.
BOX_BLOCK = 256


def _padded(response: Action) -> bytes:
    """``len(enc(response))`` in two bytes, ``enc(response)``, then zero bytes up to a
    multiple of BOX_BLOCK."""
    encoded = framing.encode(response)
    if len(encoded) > 0xFFFF:
        raise framing.FrameError("a response too long to seal")
    plain = len(encoded).to_bytes(2, "big") + encoded
    return plain + bytes(-len(plain) % BOX_BLOCK)


def _unpadded(plain: bytes) -> bytes:
    size = int.from_bytes(plain[:2], "big")
    if len(plain) < 2 + size or any(plain[2 + size :]):
        raise ValueError("not a padded response")
    return plain[2 : 2 + size]


def is_sealed(action: Any) -> bool:
    return isinstance(action, dict) and action.get("type") == "sealed" and len(action) == 1


def seal(table: bytes, seat: int, turn: int, response: Action, nonce: bytes) -> bytes:
    """``H`` = SHA-256 of the label and the canonical encoding of ``[table, seat, turn,
    response, nonce]``. Raises :class:`~p2pcards.wire.errors.ProtocolError` for a response
    that is not wire data."""
    return hashlib.sha256(SEAL_LABEL + framing.encode([table, seat, turn, response, nonce])).digest()


def response_secrets(secret: bytes, table: bytes, seat: int, turn: int) -> tuple[bytes, bytes]:
    """``(nonce, box key)`` of ``seat``'s response to round ``turn``: HMAC-SHA-256 under a
    secret only that seat holds (its identity's private key), with its own label. The same
    after a restart (so a seat can open again from its journal); unknown to every other seat
    until the seat opens (the opening publishes the nonce, and the box key is never used
    again: one per table, seat and turn)."""
    base = hmac.new(secret, SECRET_LABEL + framing.encode([table, seat, turn]), hashlib.sha256).digest()
    nonce = hmac.new(base, b"nonce", hashlib.sha256).digest()
    key = hmac.new(base, b"box", hashlib.sha256).digest()
    return nonce, key


def sealed_body(secret: bytes, table: bytes, seat: int, turn: int, response: Action) -> dict[str, Any]:
    """The body of ``seat``'s commitment to ``response`` for round ``turn``."""
    nonce, key = response_secrets(secret, table, seat, turn)
    box = ChaCha20Poly1305(key).encrypt(_ZERO_NONCE, _padded(response), None)
    return {"turn": turn, "sealed": seal(table, seat, turn, response, nonce), "box": box}


def open_box(secret: bytes, table: bytes, seat: int, turn: int, box: Any) -> Action | None:
    """Our own response out of our commitment's box (after a restart); ``None`` if it does
    not open (not ours, or damaged)."""
    if not isinstance(box, bytes):
        return None
    _, key = response_secrets(secret, table, seat, turn)
    try:
        response = framing.decode(_unpadded(ChaCha20Poly1305(key).decrypt(_ZERO_NONCE, box, None)))
    except (InvalidTag, ValueError, framing.FrameError):
        return None
    return response if isinstance(response, dict) else None


def opening_body(secret: bytes, table: bytes, seat: int, turn: int, response: Action) -> dict[str, Any]:
    """The body of ``seat``'s opening of its response for round ``turn``."""
    nonce, _ = response_secrets(secret, table, seat, turn)
    return {"turn": turn, "open": response, "nonce": nonce}


def parse_commitment(body: Any) -> tuple[int, bytes] | None:
    """``(turn, H)`` of a well-formed commitment body (an ``action`` entry's), else ``None``."""
    if not isinstance(body, dict) or set(body) != {"turn", "sealed", "box", "seen"}:
        return None
    turn, sealed = body["turn"], body["sealed"]
    if not isinstance(turn, int) or isinstance(turn, bool) or turn < 0:
        return None
    if not isinstance(sealed, bytes) or len(sealed) != 32 or not isinstance(body["box"], bytes):
        return None
    return turn, sealed


def parse_opening(body: Any) -> tuple[int, Action, bytes] | None:
    """``(turn, response, nonce)`` of a well-formed ``open`` body, else ``None``."""
    if not isinstance(body, dict) or set(body) != {"turn", "open", "nonce", "seen"}:
        return None
    turn, response, nonce = body["turn"], body["open"], body["nonce"]
    if not isinstance(turn, int) or isinstance(turn, bool) or turn < 0:
        return None
    if not isinstance(response, dict) or is_sealed(response):
        return None
    if not isinstance(nonce, bytes) or len(nonce) != NONCE_BYTES:
        return None
    return turn, response, nonce


def opening_problem(
    table: bytes, opening: Entry, commitment: Entry, commitments: Mapping[int, Entry], turn: int
) -> str | None:
    """Why ``opening`` (an ``open`` entry) does not open ``commitment`` (its author's for round
    ``turn``), as a verdict in our words; ``None`` if it does. ``commitments``: every
    follower's signed commitment to that round (a follower the table passed for has none):
    the opening's head echo must count each, or it was signed before the round was sealed."""
    seat = opening.sender
    parsed = parse_opening(opening.body)
    if parsed is None:
        return "signed a malformed opening"
    got, response, nonce = parsed
    if got != turn:
        return f"signed an opening for turn {got} where its opening for turn {turn} was due"
    unseen = sorted(
        other for other, entry in commitments.items() if other != seat and opening.body["seen"][other][0] <= entry.seq
    )
    if unseen:
        return (
            f"opened its response to turn {turn} before the round was sealed (its opening's head "
            f"echo does not count the commitment of seat {unseen[0]})"
        )
    committed = parse_commitment(commitment.body)
    try:
        matches = committed is not None and hmac.compare_digest(seal(table, seat, turn, response, nonce), committed[1])
    except framing.FrameError:
        matches = False
    if not matches:
        return f"opened its response to turn {turn} with something other than it committed to"
    return None


class OpeningsDue:
    """Which ``open`` entry each seat's chain calls for (protocol/table.md section 9): one, and
    only one, after each commitment, before its next ``action`` entry. Fed every ``action``
    and ``open`` entry of the other seats in their chain's order (causal delivery at the
    table, each chain in ``seq`` order in ``p2pcards verify``): the same at every seat and in
    verify, at the moment the entry is logged, whatever round the reader's own game is at.
    An opening that no commitment of its author awaits (outside any round, or a second one)
    is one the protocol never called for and names its signer (transcript.md section 5 item
    11); whether it opens its commitment is judged once the round is sealed
    (:func:`opening_problem`)."""

    STRAY = "signed an opening that no commitment of its awaits (outside a free-order round)"

    def __init__(self) -> None:
        self._due: dict[int, int] = {}  # seat -> the turn of its commitment not opened yet

    def note(self, entry: Entry) -> str | None:
        """Why ``entry`` (the next ``action`` or ``open`` entry of its author) is an opening the
        protocol never called for, in our words; ``None`` if it is not one."""
        seat = entry.sender
        if entry.kind == "action":
            committed = parse_commitment(entry.body)
            if committed is None:
                self._due.pop(seat, None)
            else:
                self._due[seat] = committed[0]
            return None
        if entry.kind != "open":
            return None
        if self._due.pop(seat, None) is None:
            return self.STRAY
        return None


def moved_before_opening(turn: int, opening: Entry, next_move: Entry | None) -> str | None:
    """Why a follower's ``next_move`` (its first ``action`` entry after its commitment to
    round ``turn``, if any) is its fault: signed before its ``opening``, it is a second
    commitment to the round or a move for a turn that cannot have begun (the next step waits
    for the round's openings). ``None`` if there is none before the opening."""
    if next_move is None or next_move.seq > opening.seq:
        return None
    if isinstance(next_move.body, dict) and next_move.body.get("turn") == turn:
        return f"committed twice to its response to turn {turn} (log #{next_move.seq})"
    return f"signed a move (log #{next_move.seq}) before opening its response to turn {turn}"


def order_by_echoes(
    step: Round, responses: Mapping[int, Action], entries: Mapping[int, Entry | None], players: int
) -> list[tuple[int, Action]]:
    """``responses[seat]`` was committed to in ``entries[seat]``; ``None`` for a seat the table
    passed for (it was gone: absence.py), which comes after every signed commitment."""
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
