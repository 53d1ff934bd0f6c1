"""The deck nobody sees: mental poker on edwards25519 as a sans-IO state machine.

See protocol/deck.md for the specification. :class:`Party` is one seat's side;
:mod:`p2pcards.deck.backend` runs N parties in one process as an engine deck backend (it is the
only module here that imports the engine); :mod:`p2pcards.deck.bench` times the setup.
"""

from .party import (
    AuditOp,
    Blame,
    CoinOp,
    DealOp,
    Op,
    OpDone,
    Output,
    Party,
    RevealOp,
    Send,
    ShuffleOp,
    TransferOp,
)

__all__ = [
    "AuditOp",
    "Blame",
    "CoinOp",
    "DealOp",
    "Op",
    "OpDone",
    "Output",
    "Party",
    "RevealOp",
    "Send",
    "ShuffleOp",
    "TransferOp",
]
