"""The seam for a modified client: what a peer that deviates from the protocol does differently.

The threat model of this project is that every other seat may run a modified client. To test
that the honest seats (and ``p2pcards verify``) name the deviating seat, and only it, the test
suite runs such clients (tests/adversarial/cheaters.py). They deviate through the hooks below,
which :class:`~p2pcards.net.peer.Peer` inherits and calls each at exactly one point, rather
than by overriding the peer's private methods: the peer's internals can then change without
breaking every cheater, and a cheater says in its code what it does on the wire.

Each hook does nothing in an honest peer (it returns what it is given); overriding one is how a
seat deviates. A hook sees only what the peer is about to do, and what it returns is what
happens (a message dropped, changed, delayed). To inject what a modified client *sends*, a test
can also call :meth:`~p2pcards.net.peer.Peer.deliver` on an honest peer: the frame is read as
if it came on that seat's connection.

==================  =====================================================================
hook                called
==================  =====================================================================
``deck_output``     with the deck party's messages, before they are signed and published
``before_signing``  before our new entries are signed (``publish``, ``publish_deck``)
``outgoing``        with the body of a new entry of ours, just before it is signed
``entry_to``        for each entry of ours and each connected seat, as it is sent
``answers_fetch``   when a seat asks us for entries (a ``fetch``)
``message_to``      with each message that is not an entry (a fetch, a notice) for a seat
``deliver``         (on ``Peer``) with each frame read from a seat's connection
==================  =====================================================================

What lies below the peer is not part of this seam: the head echo an entry carries is made by
the log (wire/log.py), the deck's cryptography by the party (deck/party.py). A cheater that
must lie there replaces that object's method, and says why in a comment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..deck.party import Send
    from ..wire.messages import Entry, Fetch

__all__ = ["PeerHooks"]


class PeerHooks:
    """The hooks a modified client overrides (see the module's docstring); in an honest peer
    each one leaves things as they are, at no cost."""

    async def deck_output(self, sends: list[Send]) -> list[Send]:
        """The deck party's messages (``Send``: a recipient seat, or ``None`` for every seat,
        and the message) about to be published, each public one in an entry of its own and
        private ones sealed to their recipients. Returned as they are; a cheater returns
        them changed, fewer (a message withheld), more (one of its own), or waits first (a
        slow client). This includes the seed a stopped game reveals."""
        return sends

    async def before_signing(self, kinds: Sequence[str]) -> None:
        """New entries of ours of these ``kinds`` are about to be signed and sent (not those
        re-used from our journal after a restart, nor our ``stop`` entry, signed the moment
        our game stops). Returns at once; a client that went silent waits here forever."""
        return None

    def outgoing(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """The body of our next entry of ``kind``, just made, before it is signed (the log
        adds the head echo, ``seen``). A private deck body is sealed already (``box`` or
        ``boxes``). Returned as it is; a cheater returns another body."""
        return body

    def entry_to(self, seat: int, entry: Entry) -> bool:
        """Whether our signed ``entry`` goes to ``seat`` now, on its connection, as we send
        it to every connected seat (fresh entries, and ours re-sent after a restart). True;
        a cheater withholds it from one seat (which may still get it by a fetch, from us or
        from the others), or sends it later itself (a slow link)."""
        return True

    def answers_fetch(self, seat: int, fetch: Fetch) -> bool:
        """Whether we answer ``seat``'s ``fetch`` (the entries of a chain that it asks for).
        True; a cheater leaves a seat's fetches unanswered."""
        return True

    def message_to(self, seat: int, message: Any) -> Any | None:
        """A message that is not an entry (a ``fetch`` we send, our ``links`` or ``watchers``
        notice) about to go to ``seat``: returned as it is; a cheater returns another, or
        ``None`` for nothing."""
        return message
