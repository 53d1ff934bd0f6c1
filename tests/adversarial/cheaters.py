"""Cheating peers: each deviates from the protocol in exactly one way, and is otherwise an honest
bot peer (:class:`~p2pcards.net.peer.Peer`).

A cheater is a :class:`Peer` subclass; :func:`adv_table.run_table` seats one of them among
honest peers through the ``peer_factory`` hook of :func:`~p2pcards.net.table.play_seat`.

How to write a cheating seat
----------------------------
Subclass :class:`Cheater` and override one of its ways in (each is called at one point, and
does nothing in an honest peer):

* :meth:`Cheater.tamper_deck` changes (or drops: ``None``) one deck message this seat's honest
  :class:`~p2pcards.deck.party.Party` produced, before it is signed and sent; for the whole
  batch (to add a message of its own, or to wait first), the hook ``deck_output``;
* :meth:`Cheater.cheat_move` chooses a move for this seat's turn that is sent without the
  local legality check an honest client makes;
* :meth:`Cheater.misbehave` runs alongside the game (raw bytes on a connection with
  ``send_raw``/``send_object``, extra or forged entries with ``forge``/``send_entry`` ...);
* the peer's hooks (p2pcards/net/hooks.py, documented there and in docs/testing.md):
  ``before_signing`` (go silent), ``outgoing`` (another body before signing), ``entry_to``
  (withhold or delay an entry on one link), ``answers_fetch`` (leave a seat's fetches
  unanswered), ``message_to`` (a fetch or notice we send), ``deliver`` (each frame read).

Set ``cheated`` once the deviation actually happened in this run (a game may end before the
chance comes, for example the cheater never leads), and register the class in ``CHEATERS``.
Do not override the peer's private methods: they change with every refactor. What lies below
the seam (the log's head echo, the deck's cryptography, the table protocol's own rules) may be
replaced on that object, with a comment saying why (a few cheaters here do).
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import msgpack
import trio
from nacl import bindings as na

from p2pcards.deck.group import multiply, prf_scalar
from p2pcards.deck.party import DealOp, Party, Send
from p2pcards.game import Round, Turn
from p2pcards.net.lobby import HostedLobby, dial_seat
from p2pcards.net.peer import Peer, TableAborted
from p2pcards.net.seats import LocalSeat
from p2pcards.table import rounds
from p2pcards.table.header import TableHeader
from p2pcards.wire.framing import encode_frame
from p2pcards.wire.identity import Identity, PublicIdentity
from p2pcards.wire.messages import Bye, Entry, Fetch, sign_entry
from p2pcards.wire.sealed import entry_message_key, open_body, recipients

__all__ = ["CHEATERS", "Cheater"]


def random_point() -> bytes:
    return na.crypto_core_ed25519_from_uniform(os.urandom(32))


WRONG_SCALAR = prf_scalar(b"x" * 32, "wrong")
TAG_SCALAR = prf_scalar(b"t" * 32, "tag")
SMALL_ORDER = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")  # order 8


def stop_naming(peer: Peer, victim: int, reason: str, step: str, *, hide: bool = False) -> None:
    """``peer`` stops its game blaming ``victim`` (its word only). ``hide``: its stop's head
    echo claims it never got ``victim``'s last entry (a modified client's forged echo, for this
    one entry)."""
    if hide:
        count = peer.log.next_seq(victim)
        forged = peer.log.seen()
        forged[victim] = [count - 1, peer.log._hash(victim, count - 2)]
        peer.log.seen = lambda: [list(item) for item in forged]  # type: ignore[method-assign]
    peer.abort(TableAborted(reason, victim, step))


class CheatingSeat(LocalSeat):
    """This seat's own turns: the cheater's move once (sent without any check), then honest."""

    async def choose(self, session, seat):
        peer: Cheater = self.peer
        if not peer.cheated:
            action = peer.cheat_move(session, seat)
            if action is not None:
                peer.cheated = True
                await self._sign(action)  # (sealed in a free-order round, as an honest seat's)
                if peer.hang_after_move:
                    # Its own replica refuses the move too; a cheater just waits.
                    await trio.sleep_forever()
                return action
        return await super().choose(session, seat)


class Cheater(Peer):
    """An honest peer with hooks for one deviation."""

    deviation = "none"
    #: After a cheating move its own rules refuse, stop playing (see CheatingSeat).
    hang_after_move = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.cheated = False
        self.notes: list[str] = []
        self._wire_lock = trio.Lock()  # a raw write never splits one of our frames
        me = self.seat
        self.session.seats[me] = CheatingSeat(self, self.session.seats[me].agent)

    # -- hooks ----------------------------------------------------------------------------

    def tamper_deck(self, to: int | None, message: dict[str, Any]) -> dict[str, Any] | None:
        return message

    def cheat_move(self, session: Any, seat: int) -> dict[str, Any] | None:
        return None

    async def misbehave(self) -> None:
        return None

    # -- plumbing -------------------------------------------------------------------------

    async def publish(self, kind: str, body: dict[str, Any]) -> Entry:
        async with self._wire_lock:
            return await super().publish(kind, body)

    async def deck_output(self, sends: list[Send]) -> list[Send]:
        kept = []
        for send in sends:
            changed = self.tamper_deck(send.to, send.message)
            if changed is not send.message:
                self.cheated = True
            if changed is not None:  # None: never sent
                kept.append(Send(send.to, changed))
        return kept

    async def play(self) -> Any:
        outcome: tuple[str, Any] = ("error", TableAborted("no outcome"))
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.misbehave)
            try:
                outcome = ("result", await super().play())
            except TableAborted as exc:
                outcome = ("error", exc)
            nursery.cancel_scope.cancel()
        if outcome[0] == "error":
            raise outcome[1]
        return outcome[1]

    @property
    def others(self) -> list[int]:
        return [s for s in range(self.header.players) if s != self.seat]

    async def until(self, predicate) -> None:
        while not predicate():
            await trio.sleep(0.005)

    async def until_turns(self, n: int) -> None:
        await self.until(lambda: self.turns >= n)

    async def until_other_turn(self, n: int = 1) -> None:
        """Until turn ``n`` or later is another seat's (it is not our turn)."""
        await self.until(
            lambda: self.turns >= n and isinstance(self.session.step, Turn) and self.session.step.seat != self.seat
        )

    async def send_raw(self, seat: int, data: bytes) -> None:
        conn = self.connections[seat]
        # Internal: bytes past the framing, under the connection's own lock (no frame of ours is
        # split), and with no send timeout (send_frame would close a link the other stops reading).
        async with self._wire_lock, conn._send_lock:
            await conn.stream.send_all(data)

    async def send_object(self, seat: int, obj: Any) -> None:
        """A frame holding any msgpack object (not checked against our own limits)."""
        body = msgpack.packb(obj, use_bin_type=True)
        await self.send_raw(seat, len(body).to_bytes(4, "big") + body)

    async def send_entry(self, seat: int, entry: Entry) -> None:
        async with self._wire_lock:
            await self.connections[seat].send(entry.to_wire())

    def forge(
        self, identity: Identity, sender: int, seq: int, prev: bytes, kind: str, body: Mapping[str, Any]
    ) -> Entry:
        return sign_entry(
            identity, table=self.header.table, sender=sender, seq=seq, kind=kind, prev=prev, body=dict(body)
        )


# ----------------------------------------------------------------------------------------------
# The deck.


class WrongKey(Cheater):
    """Its first private opening carries a wrong per-card key (a scalar that does not open the
    lock commitment)."""

    deviation = "wrong key"

    def tamper_deck(self, to, message):
        if self.cheated or to is None or message.get("type") != "open":
            return message
        message = {**message, "scalars": [list(map(list, s)) for s in message["scalars"]]}
        message["scalars"][0][0][1] = WRONG_SCALAR
        return message


class SubstitutedCard(Cheater):
    """Its first shuffle pass replaces one card with a point of its own (a valid, distinct
    point: every check on receipt passes)."""

    deviation = "substituted card"

    def tamper_deck(self, to, message):
        if self.cheated or message.get("type") != "shuffle":
            return message
        points = list(message["points"])
        points[5] = random_point()
        return {**message, "points": points}


class DuplicatedCard(Cheater):
    """Its first shuffle pass holds one card twice (another one dropped)."""

    deviation = "duplicated card"

    def tamper_deck(self, to, message):
        if self.cheated or message.get("type") != "shuffle":
            return message
        points = list(message["points"])
        points[1] = points[0]
        return {**message, "points": points}


class CopiesCard(Cheater):
    """Its first shuffle pass puts one card at two positions (the second under an extra factor
    of its own, so the points differ): the attack of deck v1, where the last shuffler dealt
    itself a copy of a victim's card and read it at the deal. Its proof no longer holds."""

    deviation = "copied card"

    def tamper_deck(self, to, message):
        if self.cheated or message.get("type") != "shuffle":
            return message
        points = list(message["points"])
        points[1] = multiply(TAG_SCALAR, points[0])
        return {**message, "points": points}


class SumsCards(Cheater):
    """Its first shuffle pass holds the sum of two cards at one position (decoding it and a
    meet-in-the-middle search would read both)."""

    deviation = "summed cards"

    def tamper_deck(self, to, message):
        if self.cheated or message.get("type") != "shuffle":
            return message
        points = list(message["points"])
        points[0] = na.crypto_core_ed25519_add(points[0], points[1])
        return {**message, "points": points}


class CopiesCardHidesSeed(CopiesCard):
    """Copies a card and never reveals its seed: the proofs name it without any seed, at the
    table and in ``p2pcards verify``. (Since protocol version 12 no seat reveals its seed, so
    this is :class:`CopiesCard`; kept as the case written when withholding the seed was a
    cheater's choice.)"""

    deviation = "copied card, seed withheld"


class SubstitutesAtRehandleHidesSeed(Cheater):
    """Picking up cards, re-handles one of them as a point of its own (still sorted), and never
    reveals its seed: the re-handling's proof names it at the table and in ``p2pcards verify``,
    which checks it from the moved handles the message names."""

    deviation = "substituted card at a pickup, seed withheld"
    substituted = False

    def tamper_deck(self, to, message):
        # (No seed to withhold since protocol version 12: no seat reveals one.)
        if self.substituted or message.get("type") != "rehandle":
            return message
        self.substituted = True
        points = list(message["points"])
        points[0] = random_point()
        return {**message, "points": sorted(points)}

    async def deck_output(self, sends: list[Send]) -> list[Send]:
        # Its chance is a pickup of its own (a game may end before it picks up any pile, 1 in
        # 12 here: then it is played again).
        kept = await super().deck_output(sends)
        self.cheated = self.substituted
        return kept


class TaggedCard(Cheater):
    """Its first re-lock pass marks one card: an extra secret factor on one point, so the pass
    is not the permutation its keys say (a card it could recognise later)."""

    deviation = "tagged card"

    def tamper_deck(self, to, message):
        if self.cheated or message.get("type") != "relock":
            return message
        points = list(message["points"])
        points[7] = multiply(TAG_SCALAR, points[7])
        return {**message, "points": points}


class InvalidFinalPoint(Cheater):
    """As the last re-locker (seat 1 of 3), puts points outside the prime-order group into the
    final deck. Nobody validates that deck on receipt; the first seat to multiply one of those
    points (the holder decoding it at the deal) accuses, and every seat checks the public pass."""

    deviation = "invalid point in the final deck"

    def tamper_deck(self, to, message):
        if self.cheated or message.get("type") != "relock" or self.seat != self.header.players - 2:
            return message
        points = list(message["points"])  # six of them, so an honest seat holds one
        points[:6] = [na.crypto_core_ed25519_add(p, SMALL_ORDER) for p in points[:6]]
        return {**message, "points": points}


class InvalidRehandle(Cheater):
    """Re-handling the first cards it picks up, publishes one point outside the prime-order
    group (the list still sorted). Nobody multiplies it on arrival; it is caught where it is
    first used: the card's opening later (its chain does not lead to it), the next holder's
    re-handling, or the end-of-game audit."""

    deviation = "invalid re-handled point"

    def tamper_deck(self, to, message):
        if self.cheated or message.get("type") != "rehandle":
            return message
        points = list(message["points"])
        points[0] = na.crypto_core_ed25519_add(points[0], SMALL_ORDER)
        return {**message, "points": sorted(points)}


class WrongScalarOfMovedCard(Cheater):
    """Passing on a card it picked up (a re-handled card, Cal's BS: its placed set picked up by
    another seat), sends a wrong cumulative scalar for it (deck protocol 3, protocol/deck.md
    §4.2): the receiver cannot open the card to one of the table, accuses with the signed entry,
    and every seat (and ``p2pcards verify``) names the sender."""

    deviation = "wrong scalar of a moved card"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        seat = self.session.seats[self.seat]
        seat.agent = _PlaysMovedCards(seat.agent, self)

    def tamper_deck(self, to, message):
        if self.cheated or to is None or message.get("type") != "open":
            return message
        scalars = [list(map(list, s)) for s in message["scalars"]]
        for item in scalars:
            if len(item) == 1 and item[0][0] == self.header.players:  # lock N: a moved card's scalar
                item[0][1] = WRONG_SCALAR
                return {**message, "scalars": scalars}
        return message


class _DoubtsEveryClaim:
    """An agent that doubts every claim it may doubt, and otherwise plays as ``inner``."""

    def __init__(self, inner: Any):
        self.inner = inner

    async def choose(self, session: Any, seat: int) -> Any:
        doubt = {"type": "doubt"}
        legal = session.game.legal_actions(session.replica.state, seat, session.deck.known(seat))
        if doubt in legal:
            return doubt
        return await self.inner.choose(session, seat)

    def __getattr__(self, name: str) -> Any:  # observe, delay, ... as the inner agent's
        return getattr(self.inner, name)


class _PlaysMovedCards:
    """Plays as ``inner``, but a set it places is one card: one it picked up, when it holds
    one (claimed as its own rank when it leads), else a lie (a legal move). When the seat after
    it doubts every claim (``DoubtsEveryClaim``), each lie makes it pick up the pile, and each
    set it places after shows a moved card, which the doubter picks up if the claim was true."""

    def __init__(self, inner: Any, peer: Cheater):
        self.inner, self.peer = inner, peer

    async def choose(self, session: Any, seat: int) -> Any:
        action = await self.inner.choose(session, seat)
        if action.get("type") != "play" or "rank" not in action:
            return action
        state, known = session.replica.state, session.deck.known(seat)
        ranked = [h for h in state.hands[seat] if h in known and known[h].rank is not None]
        moved = [h for h in ranked if self.peer.party.cards_by_handle[h].link is not None]
        if moved:
            true = [h for h in moved if known[h].rank.symbol == action["rank"]]
            if state.must_lead:  # its own rank: a true claim
                return {**action, "cards": moved[:1], "rank": known[moved[0]].rank.symbol}
            return {**action, "cards": (true or moved)[:1]}
        lies = [h for h in ranked if known[h].rank.symbol != action["rank"]]
        return {**action, "cards": lies[:1]} if lies else action

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class DoubtsEveryClaim(Peer):
    """An honest seat whose bot doubts every claim (Cal's BS): after a cheater that plays the
    cards it picked up (``_PlaysMovedCards``), it gives it its chance in every game."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        seat = self.session.seats[self.seat]
        seat.agent = _DoubtsEveryClaim(seat.agent)


class FalseFaceOfMovedCard(Cheater):
    """Showing a card it picked up to everyone (a doubted set), names another face with the
    proof of the true one (deck protocol 3, §5.3): every seat checks the face proof as it
    arrives and names it."""

    deviation = "false face of a moved card shown to all"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        seat = self.session.seats[self.seat]
        seat.agent = _PlaysMovedCards(seat.agent, self)

    def tamper_deck(self, to, message):
        if self.cheated or to is not None or message.get("type") != "open":
            return message
        faces = list(message.get("faces") or [])
        for i, shown in enumerate(faces):
            if shown is not None:
                faces[i] = [(shown[0] + 1) % 54, shown[1]]
                return {**message, "faces": faces}
        return message


class JamsThenWrongKey(WrongKey):
    """As the first deal begins, accuses seat 0 of a reused key in a deck operation no game
    reaches (every seat keeps it aside until then), then sends a wrong private key. The
    receiver accuses it; the accusation kept aside must not hold that one up, or the seats
    would wait for the accuser (which stopped) and name it for leaving."""

    deviation = "far-future accusation, then a wrong key"
    FAR = 1_000_000

    def jam(self) -> dict[str, Any]:
        return {
            "type": "accuse",
            "op": self.FAR,
            "step": "open",
            "seat": 0,
            "reason": "reused key",
            "evidence": {"scalar": WRONG_SCALAR, "author": 0, "places": [[0, 0], [1, 0]]},
        }

    async def deck_output(self, sends: list[Send]) -> list[Send]:
        if not getattr(self, "jammed", False) and any(s.message.get("type") == "open" for s in sends):
            self.jammed = True
            sends = [Send(None, self.jam())] + list(sends)
        return await super().deck_output(sends)


class AccusesUnreceivedPass(JamsThenWrongKey):
    """The same, accusing seat 0's shuffle pass of an operation far ahead: a message it cannot
    have received, so every seat refuses the accusation as it arrives."""

    deviation = "accusation about a pass it never received, then a wrong key"

    def jam(self):
        return {"type": "accuse", "op": self.FAR, "step": "shuffle", "seat": 0, "reason": "bad pass", "evidence": None}


class _OffSeedParty(Party):
    """Shuffles (with a valid proof) by another permutation than its seed derives. (Internal: the
    deck's cryptography is below the peer's seam, deck/party.py.)"""

    def _permutation(self, epoch):
        return super()._permutation(epoch)[::-1]


class ShufflesOffSeed(Cheater):
    """Every shuffle pass is a proven, fair shuffle, but not the one its committed seed derives.
    Before protocol version 12 the end-of-game audit recomputed the passes from the revealed
    seeds and named the shuffle; with no seed revealed and every pass proven, it is a fair
    shuffle like any: no fault, nothing to name, at the table or in ``p2pcards verify``."""

    deviation = "shuffle off its seed"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.party.__class__ = _OffSeedParty
        self.cheated = True


class SendsSeed(Cheater):
    """Still reveals its deck seed, as every seat did before protocol version 12: a public
    ``seed`` deck message, sent with its first shuffle or re-lock pass. It is of no known type
    now: every honest seat names its signer as the message arrives, and so does ``p2pcards
    verify`` (a public deck message of no known type)."""

    deviation = "a seed message (none since protocol version 12)"

    async def deck_output(self, sends: list[Send]) -> list[Send]:
        kept = await super().deck_output(sends)
        if not self.cheated and any(s.to is None and s.message.get("type") in ("shuffle", "relock") for s in kept):
            self.cheated = True
            kept.append(Send(None, {"type": "seed", "seed": self.party._seed}))
        return kept


class StallsDeck(Cheater):
    """Never sends its first shuffle or re-lock pass."""

    deviation = "stalling (deck)"

    def tamper_deck(self, to, message):
        if self.cheated or message.get("type") not in ("shuffle", "relock"):
            return message
        return None


class ForgesAccusation(Cheater):
    """Accuses the first seat that sends it a private opening of a wrong key, through the
    honest publishing path: the evidence on the wire is that message's signed entry and its
    true message key (wire.md section 8), so everyone opens the box, finds the opening right,
    and names the accuser."""

    deviation = "false accusation (true message key)"

    def evidence(self, entry: Entry, message: dict[str, Any]) -> Any:
        forged = {**message, "scalars": [list(map(list, s)) for s in message["scalars"]]}
        forged["scalars"][0][0][1] = WRONG_SCALAR
        return {"sender": entry.sender, "message": forged}  # Peer replaces it by the key

    async def accuse(self, accusation: dict[str, Any]) -> None:
        await self.publish_deck([Send(None, accusation)])

    async def dispatch(self, entry: Entry) -> None:
        await super().dispatch(entry)
        body = entry.body
        if self.cheated or entry.kind != "deck" or self.seat not in recipients(body):
            return
        message = open_body(self.identity, self.seat, entry, self.header.seats[entry.sender].keys)
        if message.get("type") != "open":
            return
        self.cheated = True
        accusation = {
            "type": "accuse",
            "op": message["op"],
            "step": "open",
            "seat": entry.sender,
            "reason": "wrong key",
            "evidence": self.evidence(entry, message),
        }
        async with self.send_lock:
            await self.accuse(accusation)


class ForgesPlaintextEvidence(ForgesAccusation):
    """The same accusation with a made-up plaintext copy of the message as its evidence (a
    wrong key in it), signed and sent as is: nothing its sender signed, so it proves nothing."""

    deviation = "false accusation (forged plaintext evidence)"

    async def accuse(self, accusation):
        await self.publish("deck", {"msg": accusation})


class RevealsWrongKey(ForgesAccusation):
    """The same accusation naming the right entry with a made-up message key: the box does not
    open with it."""

    deviation = "false accusation (a key that does not open the box)"

    def evidence(self, entry, message):
        return {"sender": entry.sender, "entry": entry.seq, "key": os.urandom(32)}

    async def accuse(self, accusation):
        await self.publish("deck", {"msg": accusation})


class AccusesReusedKeyTwice(Cheater):
    """Once a deal has opened cards to it (so it knows every seat's per-card key of them),
    accuses another seat of a reused key with evidence that names one lock twice: ``[h, v]``
    and ``[h, v - N]``, the same lock of the same handle through a negative index. The scalar
    is truly behind that lock, so a check that indexes the lock list with the peer's number
    finds it "behind both public keys". Its reason text is its own words, which no verdict
    may repeat. The victim is the seat after it (never seat 0, never itself)."""

    deviation = "reused-key accusation naming one lock twice (a negative index)"
    REASON = "accuser's own words: seat is a cheater"

    def places(self, handle: int, victim: int) -> list[list[int]]:
        return [[handle, victim], [handle, victim - self.header.players]]

    def accusation(self) -> dict[str, Any] | None:
        party = self.party
        victim = (self.seat + 1) % self.header.players or 2
        for index, op in enumerate(party.ops[: party.current]):
            if not isinstance(op, DealOp):
                continue
            for handle, seat in sorted(op.to.items()):
                card = party.cards_by_handle.get(handle)
                if seat == self.seat and card is not None and victim in card.scalars and card.link is None:
                    evidence = {"scalar": card.scalars[victim], "author": victim, "places": self.places(handle, victim)}
                    return {
                        "type": "accuse",
                        "op": index,
                        "step": "open",
                        "seat": victim,
                        "reason": self.REASON,
                        "evidence": evidence,
                    }
        return None

    async def dispatch(self, entry: Entry) -> None:
        await super().dispatch(entry)
        if self.cheated or self.party.blame is not None:
            return
        accusation = self.accusation()
        if accusation is None:
            return
        self.cheated = True
        async with self.send_lock:
            await self.accuse(accusation)

    async def accuse(self, accusation: dict[str, Any]) -> None:
        await self.publish_deck([Send(None, accusation)])


class AccusesDecodeFailure(AccusesReusedKeyTwice):
    """Once a deal has opened a card to it, accuses a decode failure of that card with its every
    true lock (the protocol-version-10 form, which aborted the game into an audit with every seed
    revealed). Since protocol version 11 there is no such accusation: every pass is proven and
    every lock checked, so no card can fail to decode (issue 32). Its reason is its own words."""

    deviation = "decode-failure accusation (no such kind since protocol version 11)"

    def accusation(self) -> dict[str, Any] | None:
        party = self.party
        for index, op in enumerate(party.ops[: party.current]):
            if not isinstance(op, DealOp):
                continue
            for handle, seat in sorted(op.to.items()):
                card = party.cards_by_handle.get(handle)
                if seat == self.seat and card is not None and card.link is None:
                    pairs = [[lock, card.scalars[lock]] for lock in range(self.header.players)]
                    evidence = {"handles": [handle], "scalars": [pairs]}
                    return {
                        "type": "accuse",
                        "op": index,
                        "step": "decode",
                        "seat": self.seat,
                        "reason": self.REASON,
                        "evidence": evidence,
                    }
        return None


#: Numbers a peer may put where an index goes (see tests/deck/test_evidence.py).
ODD_NUMBERS = [0, 1, 2, 3, -1, -2, -3, True, False, 1.0, 2**31, -(2**63), None, "1", b"\x01"]


def junk(rng: random.Random, depth: int = 0) -> Any:
    """A random msgpack value."""
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return rng.choice(ODD_NUMBERS)
    if kind == 1:
        return rng.randrange(-(2**63), 2**64)
    if kind == 2:
        return os.urandom(rng.choice([0, 1, 31, 32, 33]))
    if kind == 3:
        return rng.choice(["", "open", "decode", "shuffle", "x" * 40])
    if kind == 4:
        return rng.random() * 10
    if kind == 5:
        return [junk(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["scalar", "places", "handles", "sender", "entry", "key", "z"]): junk(rng, depth + 1)}


def mutate(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """``value`` with a part replaced, dropped, duplicated or retyped."""
    roll = rng.randrange(10)
    if roll == 0:
        return junk(rng)
    if roll == 1 and not isinstance(value, (list, dict)):
        return rng.choice(ODD_NUMBERS)
    if isinstance(value, list) and value and depth < 4:
        out, i = list(value), rng.randrange(len(value))
        what = rng.randrange(3)
        if what == 0:
            out[i] = mutate(rng, out[i], depth + 1)
        elif what == 1:
            out.append(out[i])
        else:
            del out[i]
        return out
    if isinstance(value, dict) and value and depth < 4:
        out, key = dict(value), rng.choice(sorted(value))
        what = rng.randrange(3)
        if what == 0:
            out[key] = mutate(rng, out[key], depth + 1)
        elif what == 1:
            del out[key]
        else:
            out[rng.choice(["z", "message", "scalar", "chains"])] = junk(rng)
        return out
    return value


class FuzzesAccusation(AccusesReusedKeyTwice):
    """Once a deal has opened cards to it, signs one accusation drawn at random (``seed``):
    a well-formed reused-key, decode, private-message (on the wire: the signed entry and its
    message key) or public-step accusation built from what it knows, or random fields, then
    mutated a few times. Signed as is, past our own publishing path (so its evidence is exactly
    what it chose). Whatever it is, only the accuser (or nobody) may be named."""

    deviation = "a random or mutated accusation"
    seed = 0

    def template(self, rng: random.Random, index: int, handle: int) -> dict[str, Any]:
        party, players = self.party, self.header.players
        scalars = party.cards_by_handle[handle].scalars
        seat = rng.randrange(players)
        base = {"type": "accuse", "op": index, "seat": seat, "reason": self.REASON}
        kind = rng.choice(["reuse", "decode", "private", "public", "random"])
        if kind == "reuse":
            lock = rng.randrange(players)
            places = [[handle, lock], [handle, rng.choice([lock, lock - players, players])]]
            return {**base, "step": "open", "evidence": {"scalar": scalars[lock], "author": seat, "places": places}}
        if kind == "decode":
            pairs = [[lock, scalars[lock]] for lock in range(players)]
            evidence = {"handles": [handle], "scalars": [pairs], "chains": [[]]}
            return {**base, "step": "decode", "seat": self.seat, "evidence": evidence}
        if kind == "private":
            # Internal: which entry holds each private opening to us (table/protocol.py keeps it).
            senders = [s for s in self.others if (s, index) in self.protocol._private_in]
            if senders:
                sender = rng.choice(senders)
                entry = self.log.entry(sender, self.protocol._private_in[(sender, index)])
                key = entry_message_key(self.identity, self.seat, entry, self.header.seats[sender].keys)
                return {**base, "step": "open", "evidence": {"sender": sender, "entry": entry.seq, "key": key}}
        if kind == "public":
            return {**base, "op": 0, "step": rng.choice(["shuffle", "relock", "rehandle"]), "evidence": None}
        return {
            **base,
            "op": rng.choice(ODD_NUMBERS),
            "seat": rng.choice(ODD_NUMBERS),
            "step": junk(rng),
            "evidence": junk(rng),
        }

    def accusation(self) -> dict[str, Any] | None:
        found = super().accusation()
        if found is None:
            return None
        rng = random.Random(self.seed)
        handle = found["evidence"]["places"][0][0]
        message: Any = self.template(rng, found["op"], handle)
        for _ in range(rng.randrange(4)):
            message = mutate(rng, message)
        if isinstance(message, dict):
            message = {**message, "type": "accuse", "reason": self.REASON}
        self.notes.append(repr(message))
        return message

    async def accuse(self, accusation: dict[str, Any]) -> None:
        await self.publish("deck", {"msg": accusation})


# ----------------------------------------------------------------------------------------------
# Moves.


class PlaysCardNotHeld(Cheater):
    """Cal's BS: leads (or follows) with a handle from another seat's hand."""

    deviation = "card not held"
    hang_after_move = True

    def cheat_move(self, session, seat):
        state = session.state
        if state.in_quads_context:
            return None
        other = self.others[0]
        handle = state.hands[other][0]
        rank = "7" if state.must_lead else state.current_rank.symbol
        return {"type": "play", "cards": [handle], "rank": rank}


class FakeQuads(Cheater):
    """Cal's BS with quads: leads four cards that are not four of a kind (its client skips
    check_own; every public check passes). Its claim cannot be proven (deck protocol 3): it
    goes without a proof, and every seat refuses the lead as it arrives, naming it."""

    deviation = "fake quads"
    hang_after_move = True  # its own replica refuses the lead too

    def cheat_move(self, session, seat):
        from p2pcards_cals_bs.rules import is_valid_quads

        state = session.state
        if not (state.quads and state.must_lead) or len(state.hands[seat]) < 4:
            return None
        known = session.deck.known(seat)
        hand = sorted(state.hands[seat], key=lambda h: str(known[h]))
        for start in range(len(hand) - 3):
            four = hand[start : start + 4]
            if not is_valid_quads([known[h] for h in four]):
                return {"type": "quads", "cards": four}
        return None


class FakeQuadsWithAnotherProof(FakeQuads):
    """Leads fake quads with a proof that holds, but of another claim: that its four cards lie
    in the set of their own four faces (made by its party, bound to this move and seat). Every
    seat checks the claim the rules make (four of one rank, over the 13 ranks), refuses the lead
    and names it; so does ``p2pcards verify``."""

    deviation = "fake quads with the proof of another claim"

    def cheat_move(self, session, seat):
        action = super().cheat_move(session, seat)
        if action is None:
            return None
        handles = action["cards"]
        faces = [self.party.known[h] for h in handles]
        # (below the seam: the party proves any claim true of its cards, here one of its own making)
        proof = self.party.prove_claim(len(session.replica.actions), handles, [faces])
        return {**action, "proof": proof}


class Revokes(Cheater):
    """Calypso (revokes not allowed): once, plays another suit while holding the led suit."""

    deviation = "revoke"

    def cheat_move(self, session, seat):
        state = session.state
        if not state.trick or state.unrevealed is not None:
            return None
        led = state.led_suit()
        known = session.deck.known(seat)
        hand = state.hands[seat]
        follow = [h for h in hand if known[h].suit == led]
        off = [h for h in hand if known[h].suit != led]
        if follow and off:
            return {"type": "play", "card": off[0]}
        return None


class LiesGoingOutFaceUp(Cheater):
    """Cal's BS (going out face up): once, goes out with cards that are not all the declared
    rank, none of them public yet (its client skips check_own; every public check passes). The
    set is turned up at the table: the liar takes the pile (rule 35) and the game goes on; the
    audit, which reads only the faces shown at the table since protocol version 11, names it at
    that move at every seat, and so does ``p2pcards verify``."""

    deviation = "false face-up going out"

    def cheat_move(self, session, seat):
        state = session.state
        hand = list(state.hands[seat])
        if state.in_quads_context or not 1 <= len(hand) <= 6 or any(h in state.faces for h in hand):
            return None
        rank = "A" if state.must_lead else state.current_rank.symbol
        known = session.deck.known(seat)
        if all(known[h].is_joker or known[h].rank.symbol == rank for h in hand):
            return None
        return {"type": "play", "cards": hand, "rank": rank}


class StallsTurnSeat(CheatingSeat):
    async def choose(self, session, seat):
        self.peer.cheated = True
        await trio.sleep_forever()


class StallsTurnPeer(Cheater):
    deviation = "stalling (turn)"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = StallsTurnSeat(self, self.session.seats[self.seat].agent)


class OutOfTurn(Cheater):
    """Signs and sends a move ("pass") while it is another seat's turn."""

    deviation = "acting out of turn"

    async def misbehave(self):
        await self.until_other_turn(1)
        self.cheated = True
        await self.publish("action", {"turn": self.turns, "action": {"type": "pass"}})


# ----------------------------------------------------------------------------------------------
# The log.


class FloodsChat(Cheater):
    """Fills its chat budget (wire.md section 7) with signed chat lines, then signs one more,
    sent to the lowest other seat only: that seat names it, and the others are convinced by the
    signed entry it publishes as proof (checked against their own copy of the chain)."""

    deviation = "chat over its budget"

    async def misbehave(self):
        # At once, from the start (one at a time, a short game ends before they are out).
        lines = [("chat", lambda n=n: {"text": f"spam {n} " + "x" * 400}) for n in range(self.log.budget.chat_entries)]
        async with self._wire_lock:
            await self._publish(lines)  # (internal: one batch; one publish at a time is too slow)
            # Its own log would refuse to sign it: signed by hand, on top of its chain.
            seq, prev = self.log.next_seq(self.seat), self.log.head(self.seat)
            extra = self.forge(
                self.identity, self.seat, seq, prev, "chat", {"text": "one more", "seen": self.log.seen()}
            )
            self.cheated = True
            await self.connections[self.others[0]].send(extra.to_wire())


class SignsUnknownKind(Cheater):
    """Signs an entry of a kind the table protocol does not have, with a bulky body, and sends
    it to every seat (a seat could otherwise grow every transcript with such entries)."""

    deviation = "entry of an unknown kind"

    async def misbehave(self):
        await self.until_other_turn(1)
        async with self._wire_lock:
            seq, prev = self.log.next_seq(self.seat), self.log.head(self.seat)
            junk = self.forge(
                self.identity, self.seat, seq, prev, "junk", {"pad": os.urandom(64 << 10), "seen": self.log.seen()}
            )
            self.cheated = True
            for seat in self.others:
                await self.connections[seat].send(junk.to_wire())


class Equivocates(Cheater):
    """Signs two different chat entries with one seq: one version to the lowest other seat,
    the other version to the rest; then goes on from the first version."""

    deviation = "equivocation"
    #: More fields for both versions (a subclass makes them as deep or as large as it likes).
    padding: dict[str, Any] = {}

    async def misbehave(self):
        await self.until_turns(1)
        async with self._wire_lock:
            first = self.log.make_entry(self.identity, self.seat, "chat", {"text": "I have the ace", **self.padding})
            if self.journal is not None:
                self.journal.append_entry(first)
            body = {**first.body, "text": "I have no ace"}
            second = self.forge(self.identity, self.seat, first.seq, first.prev, "chat", body)
            self.cheated = True
            for index, seat in enumerate(self.others):
                await self.connections[seat].send((first if index == 0 else second).to_wire())


class Replays(Cheater):
    """Sends copies of old entries again (its own first ones and another seat's)."""

    deviation = "replay"

    async def misbehave(self):
        await self.until_turns(2)
        old = self.log.entries(self.seat)[:2] + self.log.entries(self.others[0])[:1]
        self.cheated = True
        for seat in self.others:
            for entry in old:
                await self.send_entry(seat, entry)


class BadSignature(Cheater):
    """Sends an entry claiming to be another seat's next one, and one of its own, both with
    signatures that do not verify."""

    deviation = "bad signature"

    async def misbehave(self):
        await self.until_turns(1)
        victim = self.others[0]
        outsider = Identity.generate()
        seen = self.log.seen()
        forged = self.forge(
            outsider,
            victim,
            self.log.next_seq(victim),
            self.log.head(victim),
            "chat",
            {"text": "I resign", "seen": seen},
        )
        own = self.forge(
            outsider,
            self.seat,
            self.log.next_seq(self.seat),
            self.log.head(self.seat),
            "chat",
            {"text": "hello", "seen": seen},
        )
        self.cheated = True
        for seat in self.others:
            await self.send_entry(seat, forged)
            await self.send_entry(seat, own)


class RelaysStranger(Cheater):
    """Relays an entry signed by a key that is not seated, claiming a seat beyond the roster."""

    deviation = "stranger (relayed entry)"

    async def misbehave(self):
        await self.until_turns(1)
        stranger = Identity.generate()
        entry = self.forge(stranger, self.header.players, 0, b"\x00" * 32, "chat", {"text": "let me in", "seen": []})
        self.cheated = True
        for seat in self.others:
            await self.send_entry(seat, entry)


class FalseEcho(Cheater):
    """Signs a chat entry whose head echo names a made-up hash for another seat's last entry:
    it claims that seat told it something else."""

    deviation = "false head echo"

    async def misbehave(self):
        victim = self.others[0]
        await self.until(lambda: self.turns >= 1 and self.log.next_seq(victim) >= 2)
        async with self._wire_lock:
            seen = self.log.seen()
            seen[victim] = [seen[victim][0], bytes(32 * [7])]
            seq, prev = self.log.next_seq(self.seat), self.log.head(self.seat)
            entry = self.forge(self.identity, self.seat, seq, prev, "chat", {"text": "hi", "seen": seen})
            self.log.append(entry)
            if self.journal is not None:
                self.journal.append_entry(entry)
            self.cheated = True
            for seat in self.others:
                await self.connections[seat].send(entry.to_wire())


# ----------------------------------------------------------------------------------------------
# Bytes on the wire.


class RawBytes(Cheater):
    """Writes bytes that are not a valid frame on its connection to one seat, then reconnects
    to that seat (as any peer whose connection dropped does) and plays on honestly."""

    payload = b""
    reconnect = True
    away = 0.3  # seconds before it reconnects

    async def misbehave(self):
        target = self.others[0]
        await self.until_other_turn(1)
        async with self._wire_lock:
            conn = self.connections[target]
            await conn.send_frame(self.payload)  # (written as they are: send_frame does not check)
            self.cheated = True
            if not self.reconnect:
                return
            # The target closes the connection; we come back on a fresh one after a while
            # (as a peer whose connection dropped does).
            from .adv_table import plugins

            with trio.move_on_after(2):
                await self.until(lambda: conn.closed)
            # While away it says so (its entry reaches the others, not the target; catch-up
            # on reconnection is what brings the target up to date).
            await Peer.publish(self, "chat", {"text": "brb"})
            await trio.sleep(self.away)
            new = await dial_seat(self.identity, self.header, self.seat, target, games=plugins().rules_versions())
            self.attach(target, new)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.serve_connection, target, new)


class MalformedFrame(RawBytes):
    deviation = "malformed frame"
    payload = b"\x00\x00\x00\x05" + b"\xc1" * 5  # 0xc1 is never used by msgpack


class OversizedFrame(RawBytes):
    deviation = "oversized frame"
    payload = (2 << 20).to_bytes(4, "big") + b"\x00" * 1024  # announces 2 MiB (limit 1 MiB)


class GarbageBytes(RawBytes):
    deviation = "garbage bytes"
    payload = b"\x00\x00\x01\x00" + random.Random(8).randbytes(256 + 64)


class GarbageMessages(Cheater):
    """Well-framed msgpack that is not a protocol message: a str, an unknown type, an entry
    with fields missing, a lobby message on the mesh."""

    deviation = "garbage messages"

    async def misbehave(self):
        await self.until_other_turn(1)
        self.cheated = True
        for seat in self.others:
            for obj in (
                "hello?",
                {"type": "nonsense"},
                {"type": "entry", "table": b"x"},
                {"type": "lobby", "op": "sit", "host": "x", "port": 1, "commit": bytes(32)},
                [1, 2, 3],
            ):
                await self.send_object(seat, obj)


class FetchesUnseatedSeat(Cheater):
    """Asks every other seat for the entries of seats beyond the roster (the schema allows
    seats 0..15; this table has 3): unsigned frames that must be refused, naming the asker."""

    deviation = "fetch for a seat that is not at the table"

    async def misbehave(self):
        await self.until_other_turn(1)
        self.cheated = True
        for seat in self.others:
            for other in (self.header.players, 15):
                await self.send_object(seat, Fetch(self.header.table, other, 0).to_wire())


class StopsReading(Cheater):
    """Once the deck has started, stops reading its connection to the lowest other seat and
    floods it with fetches, whose answers fill that seat's socket buffers: a seat that sends
    but never reads. It holds the socket open (as a hostile program would, whatever its own
    game does) for longer than a table may take. The other seat must close the connection
    and name it, not wait on it forever."""

    deviation = "stops reading"
    HOLD = 60.0

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.deaf = False

    async def deliver(self, seat, raw, conn=None):
        if self.deaf and seat == self.others[0]:
            await trio.sleep_forever()
        await super().deliver(seat, raw, conn)

    async def misbehave(self):
        await self.until(lambda: all(self.log.next_seq(s) >= 1 for s in range(self.header.players)))
        target = self.others[0]
        held = os.dup(self.connections[target].stream.socket.fileno())
        trio.lowlevel.spawn_system_task(_close_after, held, self.HOLD)
        self.deaf = self.cheated = True
        fetches = (
            b"".join(encode_frame(Fetch(self.header.table, s, 0).to_wire()) for s in range(self.header.players)) * 500
        )
        with trio.move_on_after(10):
            for _ in range(400):
                try:
                    await self.send_raw(target, fetches)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    return


async def _close_after(fd: int, seconds: float) -> None:
    try:
        await trio.sleep(seconds)
    finally:
        os.close(fd)


CHEATERS = {
    cls.__name__: cls
    for cls in (
        WrongKey,
        SubstitutedCard,
        DuplicatedCard,
        CopiesCard,
        SumsCards,
        CopiesCardHidesSeed,
        SubstitutesAtRehandleHidesSeed,
        TaggedCard,
        InvalidFinalPoint,
        InvalidRehandle,
        WrongScalarOfMovedCard,
        FalseFaceOfMovedCard,
        StallsDeck,
        ShufflesOffSeed,
        SendsSeed,
        JamsThenWrongKey,
        AccusesUnreceivedPass,
        ForgesAccusation,
        ForgesPlaintextEvidence,
        RevealsWrongKey,
        AccusesReusedKeyTwice,
        FuzzesAccusation,
        PlaysCardNotHeld,
        FakeQuads,
        FakeQuadsWithAnotherProof,
        Revokes,
        LiesGoingOutFaceUp,
        StallsTurnPeer,
        OutOfTurn,
        Equivocates,
        Replays,
        BadSignature,
        RelaysStranger,
        FalseEcho,
        MalformedFrame,
        OversizedFrame,
        GarbageBytes,
        GarbageMessages,
        FetchesUnseatedSeat,
        StopsReading,
        FloodsChat,
        SignsUnknownKind,
    )
}


class SlowLink(Cheater):
    """Not a cheater: an honest peer whose link to one seat (the lowest other one) is slow,
    every entry arriving there ``delay`` seconds late. Entries of different seats then reach
    that seat out of their causal order (another seat's reply before this seat's message)."""

    deviation = "none (a slow link)"
    delay = 0.3

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.slow_send, self.slow_receive = trio.open_memory_channel(1000)

    def entry_to(self, seat, entry):
        if seat != self.others[0]:
            return True
        self.slow_send.send_nowait((trio.current_time() + self.delay, seat, entry))
        self.cheated = True
        return False  # it goes later (misbehave)

    async def misbehave(self):
        async for due, seat, entry in self.slow_receive:
            await trio.sleep_until(due)
            await self.send_entry(seat, entry)


CHEATERS["SlowLink"] = SlowLink


class LeavesOneOut(Cheater):
    """Not a cheater either: an honest peer whose entries #2 to #4 never reach one seat (the
    lowest other one) directly; it answers fetches as usual. That seat learns of them from the
    others' head echoes (or a gap in our chain) and fetches them."""

    deviation = "none (entries lost on one link)"
    lost = range(2, 5)

    def entry_to(self, seat, entry):
        if seat == self.others[0] and entry.sender == self.seat and entry.seq in self.lost:
            self.cheated = True
            return False
        return True


CHEATERS["LeavesOneOut"] = LeavesOneOut


class LinkDown(Cheater):
    """Not a cheater: an honest peer whose link to one seat (the lowest other one) goes down
    for ``outage`` seconds from turn 3 (closed, and a connection made meanwhile closed again
    at once; test_link_down.py also makes its redials fail), while its links to the others
    work. What it sends reaches that seat through the others (it asks
    around), so the table goes on meanwhile; nobody is named."""

    deviation = "none (one link down for a while)"
    outage = 10.0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.down_until: float | None = None
        self.turns_when_down = self.turns_when_up = -1

    def down(self) -> bool:
        return self.down_until is not None and trio.current_time() < self.down_until

    async def serve_connection(self, seat, conn):
        if seat == self.others[0] and self.down():
            await conn.aclose()  # the link is down: a redial gets no further
            return
        await super().serve_connection(seat, conn)

    async def misbehave(self):
        await self.until_turns(3)
        self.cheated = True
        self.turns_when_down = self.turns
        self.down_until = trio.current_time() + self.outage
        conn = self.connections.get(self.others[0])
        if conn is not None:
            await conn.aclose()
        await trio.sleep(self.outage)
        self.turns_when_up = self.turns


CHEATERS["LinkDown"] = LinkDown


class WithholdsFromNext(Cheater):
    """Sends its shuffle and re-lock passes and its moves to every seat but the next one (the
    one whose step waits on them), and does not answer that seat's fetches: without help the
    next seat would seem to stall and be named at the timeout. Every honest seat that waits on
    a step asks the others for what they hold, so the next seat gets it from them: the game
    goes on and nobody is named."""

    deviation = "withholds its messages from the next seat"

    @property
    def victim(self) -> int:
        return (self.seat + 1) % self.header.players

    def withheld(self, entry: Entry) -> bool:
        msg = entry.body.get("msg") if entry.kind == "deck" else None
        return entry.kind == "action" or (isinstance(msg, dict) and msg.get("type") in ("shuffle", "relock"))

    def entry_to(self, seat, entry):
        if seat == self.victim and self.withheld(entry):
            self.cheated = True
            return False
        return True

    def answers_fetch(self, seat, fetch):
        return seat != self.victim


class SaysByeUnsigned(Cheater):
    """While another seat is to move, says goodbye on every connection without signing a
    ``bye`` entry, then goes silent (its sockets stay open). An unsigned goodbye proves
    nothing, so it must not stop the game at once (that used to leave the seat to move named
    by verify): the others play on and name the leaver when the game needs it and it does
    not come back."""

    deviation = "unsigned goodbye mid-turn"

    async def misbehave(self):
        await self.until_other_turn(2)
        for conn in list(self.connections.values()):
            await conn.send(Bye("gone").to_wire())
        self.cheated = True
        await trio.sleep_forever()

    async def before_signing(self, kinds):
        if self.cheated:
            await trio.sleep_forever()  # gone: it signs nothing more

    # Gone means silent: nothing more goes out, not even the ``stop`` its own program signs
    # when its wait on the others times out (that stop raced the others' timeouts, and when it
    # won, every seat stopped on it naming nobody: a different cheat from the one tested here).
    def entry_to(self, seat, entry):
        return not self.cheated

    def answers_fetch(self, seat, fetch):
        return not self.cheated

    def message_to(self, seat, message):
        return None if self.cheated else message


class QuitsSigned(Cheater):
    """Not a cheater: a player who quits while another seat is to move, as the console's
    ``quit`` does (a signed ``bye`` entry, its seed, a goodbye on every connection). The
    others end the game at once naming the leaver, and so does verify."""

    deviation = "none (quits mid-turn)"

    async def misbehave(self):
        await self.until_other_turn(2)
        self.cheated = True
        await self.say_goodbye("quit before the game ended")
        await trio.sleep_forever()


CHEATERS.update({cls.__name__: cls for cls in (WithholdsFromNext, SaysByeUnsigned, QuitsSigned)})


class EchoesUnsignedEntry(Cheater):
    """Signs its first shuffle or re-lock pass (or move) with a head echo that claims entries of
    a third seat that seat never signed. Every honest seat accepts the pass into its log (its
    signature and chain are fine) but can never hand it on: what it had seen never comes. The
    seats name the cheater at the timeout; ``p2pcards verify`` used to replay the pass anyway
    (it is in the file) and then name the next seat, whose step never came because it never got
    the pass, for stalling."""

    deviation = "a head echo naming entries that do not exist"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # The head echo is made by the log (wire/log.py), below the peer's seam: it signs through
        # its own wrapper of the protocol's sign, with the log's echo replaced for one entry.
        self._honest_sign = self.protocol.sign
        self.protocol.sign = self.lying_sign

    @property
    def victim(self) -> int:
        return (self.seat + 1) % self.header.players

    def _target(self, kind, made) -> bool:
        msg = made.get("msg") if kind == "deck" else None
        return kind == "action" or (isinstance(msg, dict) and msg.get("type") in ("shuffle", "relock"))

    def lying_sign(self, kind, body):
        made = body()
        if self.cheated or not self._target(kind, made):
            return self._honest_sign(kind, lambda: made)
        log = self.protocol.log
        third = next(s for s in self.others if s != self.victim)
        honest_seen = log.seen

        def seen():
            claimed = honest_seen()
            claimed[third] = [claimed[third][0] + 1000, bytes(32 * [9])]
            return claimed

        log.seen = seen
        try:
            signed = self._honest_sign(kind, lambda: made)
        finally:
            del log.seen
        self.cheated = True
        return signed


CHEATERS["EchoesUnsignedEntry"] = EchoesUnsignedEntry


class _ForgetsSeat(set):
    """A set of seats that never holds ``seat``."""

    def __init__(self, seat: int, seats: Any = ()):
        super().__init__(s for s in seats if s != seat)
        self.seat = seat

    def add(self, seat: int) -> None:
        if seat != self.seat:
            super().add(seat)


class StopsThenPlaysOn(Cheater):
    """Holds back its first shuffle pass and signs a ``stop`` entry (its game has not stopped):
    every seat waiting on it stops its game, naming nobody (a stopped seat will not act). As
    soon as the first other seat's ``stop`` entry arrives, it sends the pass: that seat may
    already hold it when it signs its stop. The transcript then shows the pass and a next seat
    that never answered it, though it had stopped for the cheater's stop, which came first: the
    pass after its own stop names the cheater (protocol/table.md section 5)."""

    deviation = "a stop entry, then the withheld pass once another seat stops"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.held: dict[str, Any] | None = None
        self._holding = True

    async def misbehave(self):
        await self.until(lambda: self.held is not None)  # nothing more of ours is due
        # An honest seat's protocol signs no step after its own stop: this one forgets it did.
        # (Internal: the rule is table/protocol.py's, below the peer's seam.)
        self.protocol._stopped = _ForgetsSeat(self.seat, self.protocol._stopped)
        await self.publish("stop", {"reason": "pretending to stop"})

    def tamper_deck(self, to, message):
        if self._holding and to is None and message.get("type") == "shuffle":
            self._holding = False
            self.held = message
            return None
        return message

    async def dispatch(self, entry):
        await super().dispatch(entry)
        if entry.kind == "stop" and entry.sender != self.seat and self.held is not None:
            held, self.held = self.held, None
            self.cheated = True
            await self.publish_deck([Send(None, held)])  # (tamper_deck holds it no more)


CHEATERS["StopsThenPlaysOn"] = StopsThenPlaysOn


class RespondsTwice(Cheater):
    """In a free-order round (Cal's BS, turn_mode=free) it commits twice to one set: to a
    pass, then to a doubt (sealed, as honest commitments are). A follower responds once per
    set (protocol/table.md section 9): the second is its signed fault."""

    deviation = "two commitments to one free-order round"

    async def misbehave(self):
        await self.until(
            lambda: isinstance(self.session.step, Round) and self.seat in self.session.step.seats and self.turns >= 2
        )
        self.cheated = True
        turn = self.turns
        secret = self.identity.secret(rounds.IDENTITY_LABEL)
        for action in ({"type": "pass"}, {"type": "doubt"}):
            await self.publish("action", rounds.sealed_body(secret, self.header.table, self.seat, turn, action))


#: The brief's name for it: since protocol version 8 its responses are commitments.
CommitsTwice = RespondsTwice


CHEATERS["RespondsTwice"] = RespondsTwice
CHEATERS["CommitsTwice"] = RespondsTwice


class StatesAbsentEarly(Cheater):
    """Tries to make present players' moves vanish: the moment another seat may respond (a
    clockwise follower, or every follower of a free-order round), it signs an ``absent``
    statement for it, before its move can have come. A statement alone decides nothing: the
    seats that hold the move state so too (their echoes count it), so the move stands and the
    game goes on as if nothing happened (protocol/table.md section 9, "Absent followers")."""

    deviation = "states present followers absent"

    async def misbehave(self):
        stated = set()
        for _ in range(100_000):  # bounded: a game has far fewer steps
            step = self.session.step
            seats = step.seats if isinstance(step, Round) else (step.seat,) if isinstance(step, Turn) else ()
            for seat in seats:
                if (
                    seat != self.seat
                    and (self.turns, seat) not in stated
                    and self.session.game.absent_action(self.session.state, seat) is not None
                ):
                    stated.add((self.turns, seat))
                    self.cheated = True
                    await self.publish("absent", {"turn": self.turns, "seat": seat})
            await trio.sleep(0.002)


CHEATERS["StatesAbsentEarly"] = StatesAbsentEarly


class EchoesUnsignedResponse(EchoesUnsignedEntry):
    """In a free-order round, signs its response with a head echo claiming entries that were
    never signed, to be ordered after (or before) responses it never saw: no honest seat can
    hand that response on, so it never counts; the round waits on it and the seats name the
    cheater at the turn timeout, or nobody (protocol/table.md section 9, "Fairness")."""

    deviation = "a free-order response whose echo names entries that do not exist"

    def _target(self, kind, made) -> bool:
        return kind == "action" and isinstance(self.session.step, Round) and self.turns >= 2


class WithholdsResponses(WithholdsFromNext):
    """Sends its free-order responses (its commitments and its openings) to every seat but the
    next one, and does not answer that seat's fetches: that seat gets them from the others
    (waiting asks around, for an opening as for a deck message), so the round is decided alike
    everywhere and nobody is named."""

    deviation = "withholds its free-order responses from the next seat"

    def withheld(self, entry: Entry) -> bool:
        return entry.kind in ("action", "open") and isinstance(self.session.step, Round)


CHEATERS.update({cls.__name__: cls for cls in (EchoesUnsignedResponse, WithholdsResponses)})


# ----------------------------------------------------------------------------------------------
# Absent followers, a hostile review (tests/adversarial/test_absent_review.py). The seats with
# a faulty network here are honest: they model a Wi-Fi blip, the case the grace period is for.


class LinkBlip(Cheater):
    """Not a cheater: an honest peer (the highest seat) whose network drops once, during the
    first shuffle (before any move), for as long as its first redial waits. Nothing of the
    game needs it meanwhile but its deck messages, which the deck waits for. ``back_turn``:
    the turn at which every link was up again."""

    deviation = "none (every link drops once, during the shuffle)"
    leaves = False
    #: Its bot's thinking time, as a person's: it chooses after a checkpoint (see QuickBotBlip).
    think = 0.01

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.back_turn: int | None = None
        self.session.seats[self.seat].agent.delay = self.think

    async def misbehave(self):
        await self.until(lambda: self.session.phase == "shuffling" and self.log.next_seq(self.seat) >= 1)
        for conn in list(self.connections.values()):
            await conn.aclose()
        self.cheated = True
        await trio.sleep(0.05)
        await self.until(lambda: all(self.connected(s) for s in self.others))
        self.back_turn = self.turns


class QuickBotBlip(LinkBlip):
    """A :class:`LinkBlip` whose bot answers at once (no thinking time, as the bots of
    ``p2pcards host --bots`` and ``simulate``): in LocalSeat._unless_passed_for its choice is
    made before the cancellation that the statements' decision asks for takes effect."""

    deviation = "none (every link drops once; a bot without thinking time)"
    think = 0.0


class StatesFutureTurnsAbsent(Cheater):
    """The moment another seat's links drop (a blip: it comes back within the grace period),
    states it absent for every turn of the rest of the game, before those turns exist. Every
    honest seat answers a statement about a seat that is not connected to it with its own
    (Peer._on_absent), whatever the turn, so the statements for every future turn are complete
    at once: from then on the table passes for that seat at each of its follower turns, though
    it is back and connected (protocol/table.md section 9, "Absent followers")."""

    deviation = "states a seat that blipped absent for every future turn"
    horizon = 400  # turns stated (a 3-seat game to one point has far fewer moves)

    @property
    def target(self) -> int:
        return self.header.players - 1  # the LinkBlip seat

    async def misbehave(self):
        await self.until(lambda: self.target in self.connections and not self.connected(self.target))
        await trio.sleep(0.1)  # the others have seen its links drop too
        start = self.turns
        self.cheated = True
        for turn in range(start, start + self.horizon):
            await self.state_absent(turn, self.target)


class _DropsLinkSeat(CheatingSeat):
    """The seat of a :class:`DropsLinkAsFollower`: its link to seat 0 drops just as it is
    first to respond as a follower, before its move goes out."""

    async def choose(self, session, seat):
        peer: DropsLinkAsFollower = self.peer
        if (
            not peer.cheated
            and session.game.absent_action(session.state, seat) is not None
            and peer.turns >= 2
            and peer.connected(0)
        ):
            peer.cheated = True
            peer.dropped_turn = peer.turns
            await peer.connections[0].aclose()
        return await super().choose(session, seat)


class DropsLinkAsFollower(Cheater):
    """Not a cheater: an honest peer (the highest seat) whose link to seat 0 alone drops just
    as it is to respond as a follower; it moves at once, its move reaches the other seats but
    not seat 0, and the link is back (its redial) well within the grace period."""

    deviation = "none (the link to seat 0 drops at a follower turn)"
    leaves = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.dropped_turn: int | None = None
        self.session.seats[self.seat] = _DropsLinkSeat(self, self.session.seats[self.seat].agent)


class WithholdsAbsentAnswer(Cheater):
    """Never signs an ``absent`` statement: in particular not the answer an honest seat gives
    to another's statement about a follower whose move it holds (Peer._on_absent). A seat that
    stated that follower absent while its link to it was down then defers the move it later
    gets, waits for the statements that never complete, and names the follower at the turn
    timeout, although it holds the move."""

    deviation = "never answers an absent statement"

    async def state_absent(self, turn, seat):
        if self.protocol.holds_move(seat, turn):
            self.cheated = True  # an honest seat would state now, its echo counting the move
        return None


class GoneForGood(SaysByeUnsigned):
    """Not the cheater here: a seat whose client is gone (an unsigned goodbye, then silence),
    as in test_absent_followers.py, next to a cheater."""

    leaves = True


class GoneAtItsPassableTurn(GoneForGood):
    """Not the cheater here: a seat whose client is gone (an unsigned goodbye, then silence)
    at its first move from turn 2 on that the game may pass for (a follower's, rule 28), as it
    is about to sign it. The others then wait on a move the game passes for once every seat
    has stated it absent, so the cheater surely has a statement to withhold: with
    :class:`GoneForGood` (gone while another seat is to move) the gone seat's next turn was
    often a lead, which cannot be passed for, and the table ended naming it before any
    statement (in CI, 8 tables of one case of test_review28c.py in a row, and 4 of
    test_absent_review.py in a loaded run, issue 29)."""

    async def misbehave(self):
        return None  # (it leaves in before_signing, not while another seat is to move)

    async def before_signing(self, kinds):
        session = self.session
        if (
            not self.cheated
            and "action" in kinds
            and self.turns >= 2
            and session.game.absent_action(session.state, self.seat) is not None
        ):
            for conn in list(self.connections.values()):
                await conn.send(Bye("gone").to_wire())
            self.cheated = True
        await super().before_signing(kinds)


class WithholdsStatementFromNext(WithholdsFromNext):
    """States a gone seat absent last (once every other seat has: no honest statement then
    echoes its own, which would let seat 0 fetch it from that seat), sends its ``absent``
    statements to every seat but seat 0, and answers none of seat 0's fetches. Seat 0 (next
    after the gone seat 3, clockwise) lacks one statement; the others decide and move on. Seat
    0 asks the others for the chains of the seats whose statements it lacks, so it gets it from
    them, and nobody honest is named."""

    deviation = "withholds its absent statements from seat 0"
    victim = 0

    def withheld(self, entry: Entry) -> bool:
        return entry.kind == "absent"

    async def state_absent(self, turn, seat):
        # Called again at each statement that comes and each time its seat looks again.
        if set(self.others) - {seat} <= self.protocol.absences.stated(turn, seat):
            await super().state_absent(turn, seat)


CHEATERS.update(
    {
        cls.__name__: cls
        for cls in (
            LinkBlip,
            QuickBotBlip,
            StatesFutureTurnsAbsent,
            DropsLinkAsFollower,
            WithholdsAbsentAnswer,
            GoneForGood,
            GoneAtItsPassableTurn,
            WithholdsStatementFromNext,
        )
    }
)


# ----------------------------------------------------------------------------------------------
# Free order: a seat that answers last (issue 28, protocol/table.md section 9, "Late answers").


def _distance(seat: int, after: int, players: int) -> int:
    """How far ``seat`` sits from ``after``'s left (0: next to it): concurrent responses go to
    the nearest."""
    return (seat - after - 1) % players


def _response(peer: Peer, seat: int, turn: int) -> Any:
    """``seat``'s response for ``turn`` as far as ``peer`` can read it: its action, once its
    opening is here (a commitment says nothing of it: protocol version 8), else ``None``."""
    for entry in reversed(peer.log.entries(seat, -8)):
        if entry.kind == "open" and entry.body.get("turn") == turn:
            return entry.body.get("open")
    return None


def _committed(peer: Peer, seat: int, turn: int) -> bool:
    """``peer`` holds ``seat``'s commitment (or, before version 8, response) for ``turn``."""
    return any(e.kind == "action" and e.body.get("turn") == turn for e in peer.log.entries(seat, -8))


class _AnswersLastSeat(CheatingSeat):
    """Its free-order responses: waits, unmoved by a round decided meanwhile, until every
    other follower has answered (their commitments are in); then, if it can read a doubt or
    play from a seat further from the placer's left, it doubts (when it may), signed with the
    head echo it had as the round opened: "it had not seen them yet". Otherwise a pass, signed
    with that stale echo too. Sealed responses leave it nothing to read: the others open only
    once its own commitment is in, so it never pre-empts anyone (issue 28)."""

    async def choose(self, session, seat):
        peer: AnswersLast = self.peer
        step = session.step
        if not isinstance(step, Round) or peer.turns < 2:
            return await super().choose(session, seat)
        turn, stale = peer.turns, peer.log.seen()  # what it holds as the round opens
        others = [s for s in step.seats if s != seat]
        with trio.CancelScope(shield=True), trio.move_on_after(20):
            await peer.until(lambda: all(_committed(peer, s, turn) for s in others))
        players = peer.header.players
        mine = _distance(seat, step.after, players)
        beaten = [
            s
            for s in others
            if _distance(s, step.after, players) > mine
            and (_response(peer, s, turn) or {}).get("type") not in (None, "pass")
        ]
        doubt: dict[str, Any] = {"type": "doubt"}
        legal = session.game.legal_actions(session.state, seat, session.known())
        action = doubt if beaten and doubt in legal else {"type": "pass"}
        peer.cheated = True
        if peer.first_cheat is None:
            peer.first_cheat = len(session.replica.actions)
        if action is doubt:
            peer.preempted.append((turn, beaten))
        with shielded_():  # (as an honest seat signs a response: never cut off once begun)
            await peer.before_stale_answer()
            log = peer.log

            def stale_seen() -> list[list[Any]]:
                seen = [list(item) for item in stale]
                seen[seat] = [log.next_seq(seat), log.head(seat)]  # its own chain as it is
                return seen

            # (The head echo is the log's, below the peer's seam: replaced for this one entry.)
            log.seen = stale_seen  # type: ignore[method-assign]
            # A modified client: its own log does not hold its echo to its last entry's.
            log._previous_counts = lambda _seat: [0] * players  # type: ignore[method-assign]
            try:
                await self._sign(action)
            finally:
                del log.seen, log._previous_counts
        return action


def shielded_():
    return trio.CancelScope(shield=True)


class AnswersLast(Cheater):
    """In a free-order round it waits for every other follower's answer, then pre-empts a
    doubt or play from a seat further from the placer's left with a doubt of its own whose head
    echo is the one it had when the round opened (it never signs anything in between, so its
    echo does not go back). The log cannot tell this from a seat whose incoming link was slow
    (protocol/table.md section 9, "Late answers")."""

    deviation = "answers a free-order round last, with the head echo it had as the round opened"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.preempted: list[tuple[int, list[int]]] = []
        #: The move number of the first round it answered last (before it, it plays honestly).
        self.first_cheat: int | None = None
        self.session.seats[self.seat] = _AnswersLastSeat(self, self.session.seats[self.seat].agent)

    async def before_stale_answer(self) -> None:
        return None


class AnswersLastEchoBack(AnswersLast):
    """As :class:`AnswersLast`, but it first says something at the table (a chat line, signed
    with its true head echo, which counts the answers it waited for): its stale answer then
    counts less than its own entry before it, and every seat names it (the echo went back)."""

    deviation = "answers a free-order round with a head echo older than its own last entry's"

    async def before_stale_answer(self) -> None:
        await self.publish("chat", {"text": "hmm"})


CHEATERS.update({cls.__name__: cls for cls in (AnswersLast, AnswersLastEchoBack)})


# -- sealed responses (protocol version 8, protocol/table.md section 9): the opening step ---------


def _other_followers(peer: Peer) -> list[int]:
    step = peer.session.step
    return [s for s in step.seats if s != peer.seat] if isinstance(step, Round) else []


class _OpensOtherSeat(CheatingSeat):
    async def open(self, turn):
        peer = self.peer
        if peer.cheated or turn < 2 or self.committed is None:
            return await super().open(turn)
        committed = self.committed[1]
        other = {"type": "doubt"} if committed.get("type") == "pass" else {"type": "pass"}
        peer.cheated = True
        body = rounds.opening_body(self._secret(), peer.header.table, peer.seat, turn, other)
        with shielded_():
            await peer.publish("open", body)
        self.committed = None
        return other


class OpensOtherThanCommitted(Cheater):
    """Opens its sealed response to a free-order round with another response than the one it
    committed to (a pass turned into a doubt, or the reverse): the opening does not match the
    commitment's hash, its signed fault, named at every seat and by verify."""

    deviation = "opens another response than it committed to"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _OpensOtherSeat(self, self.session.seats[self.seat].agent)


class _OpensEarlySeat(CheatingSeat):
    early: tuple[int, Any] | None = None

    async def choose(self, session, seat):
        peer = self.peer
        if peer.cheated or not isinstance(session.step, Round) or peer.turns < 2:
            return await super().choose(session, seat)
        turn, action = peer.turns, {"type": "pass"}  # at once: before the others commit
        await self._sign(action)
        if any(not _committed(peer, s, turn) for s in _other_followers(peer)):
            peer.cheated = True
            self.early = (turn, action)
            await super().open(turn)  # before the round is sealed
        return action

    async def open(self, turn):
        if self.early is not None and self.early[0] == turn:
            return self.early[1]  # opened already
        return await super().open(turn)


class OpensBeforeSealed(Cheater):
    """Commits to a pass at once and opens it before every other follower has committed
    (its opening's head echo does not count their commitments): an opening before the round
    is sealed is its signed fault, named at every seat and by verify."""

    deviation = "opens its sealed response before the round is sealed"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _OpensEarlySeat(self, self.session.seats[self.seat].agent)


class _WithholdsOpeningSeat(CheatingSeat):
    async def open(self, turn):
        peer = self.peer
        if peer.cheated or turn < 2:
            return await super().open(turn)
        others = _other_followers(peer)
        # It waits to see the others' openings (they open once every commitment is in, its
        # own included), then withholds its own: a selective abort.
        with trio.move_on_after(20):
            await peer.until(lambda: all(_response(peer, s, turn) is not None for s in others))
        peer.cheated = True
        await trio.sleep_forever()


class WithholdsOpening(Cheater):
    """Commits to its free-order response, waits for the others' openings, and never opens
    its own. It is not passed for (that would let it turn a committed doubt into a pass once it
    saw the others'): the table waits the deck timeout, then stops naming it (withheld)."""

    deviation = "never opens its sealed response"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _WithholdsOpeningSeat(self, self.session.seats[self.seat].agent)


CHEATERS.update({cls.__name__: cls for cls in (OpensOtherThanCommitted, OpensBeforeSealed, WithholdsOpening)})


class OpensIllegal(Cheater):
    """Commits to a play of a card from another seat's hand in a free-order round (sealed:
    nobody can refuse it before it is opened), and opens it as committed. Where the opened
    play is applied (it decides the round), the rules refuse it and every seat names it, as
    does verify; where an earlier response decided the round it is void, never applied, and
    the game goes on."""

    deviation = "commits to, and opens, an illegal free-order response"

    def cheat_move(self, session, seat):
        state, step = session.state, session.step
        if not isinstance(step, Round) or self.turns < 2:
            return None
        others = [s for s in range(self.header.players) if s != seat and state.hands[s]]
        if not others:
            return None
        return {"type": "play", "cards": [state.hands[others[0]][0]], "rank": state.rank_to_follow().symbol}


CHEATERS["OpensIllegal"] = OpensIllegal


# Cheating hosts: a host is a seat like the others once the game runs, but in the lobby it
# writes the header. These subclass the host's lobby (:class:`~p2pcards.net.lobby.HostedLobby`)
# and change what its public :meth:`~p2pcards.net.lobby.HostedLobby.header` returns.


class SwapsEncryptionKey(HostedLobby):
    """A host that puts an X25519 key of its own in a joiner's seat of the header (the
    joiner's Ed25519 key, name and address are left as they are): everything sealed to that
    seat would open for the host, and the joiner could not read its own cards. ``victim``: the
    seat whose key it swaps."""

    victim: int = 1
    #: The host's own X25519 key (it holds the private half), put in the victim's seat.
    swapped: bytes = Identity.generate().public.x25519

    def header(self) -> TableHeader:
        honest = super().header()
        seats = list(honest.seats)
        seat = seats[self.victim]
        seats[self.victim] = replace(seat, keys=PublicIdentity(seat.keys.ed25519, self.swapped))
        return replace(honest, seats=tuple(seats))
