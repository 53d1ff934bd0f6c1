"""Fuzzing the network-facing side of a live Peer (in-process, no sockets): random and mutated
frames through Peer.serve_connection, and validly signed entries with random bodies through
Peer.accept / Peer.dispatch into the deck Party and the session. Every input is accepted or
cleanly refused with the sender named; never a crash or a hang (bounded sizes and time).

The wire decoders alone are fuzzed in tests/wire/test_fuzz.py; here the inputs go further in.
"""

from __future__ import annotations

import random

import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.deck.party import Party
from p2pcards.net.peer import Peer, TableAborted
from p2pcards.net.runner import bot_agent
from p2pcards.net.transport import Connection
from p2pcards.table.header import Seat, TableHeader
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.framing import encode_frame
from p2pcards.wire.identity import Identity
from p2pcards.wire.log import Log, Rejected, encode_header
from p2pcards.wire.messages import Entry, sign_entry
from p2pcards.wire.sealed import seal_body

from .adv_table import plugins

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
PLAYERS = 3
IDS = [Identity.generate() for _ in range(PLAYERS)]
TABLE = bytes(range(16))
SEED = [bytes([s]) * 32 for s in range(PLAYERS)]


def header() -> TableHeader:
    game = plugins().game("cals-bs")
    options = game.resolve_options({"match_target": 1}, PLAYERS)
    seats = tuple(Seat(f"p{s}", IDS[s].public, "127.0.0.1", 1000 + s) for s in range(PLAYERS))
    return TableHeader(TABLE, "cals-bs", game.rules_version, options, seats, 1, Timeouts(1, 1, 1))


class Table:
    """Seat 0 is the Peer under test; seats 1 and 2 are honest Parties plus signing logs, so
    the fuzzer can send validly signed entries that reach the deck and the game."""

    def __init__(self):
        self.header = header()
        game = plugins().game("cals-bs")
        self.peer = Peer(
            IDS[0],
            self.header,
            0,
            game,
            bot_agent(plugins(), game, "random", random.Random(0))(game, 0, self.header.options),
            seed=SEED[0],
        )
        wire = self.header.to_wire()
        cards = game.deck(self.header.options, PLAYERS)
        self.parties = {s: Party(s, PLAYERS, encode_header(wire), cards, SEED[s]) for s in (1, 2)}
        self.logs = {s: Log(TABLE, wire, [i.public for i in IDS]) for s in (1, 2)}

    def sign(self, seat: int, kind: str, body: dict) -> Entry:
        log = self.logs[seat]
        for other in self.peer.log.canonical():  # the sender has seen what we hold
            if other.sender != seat and log.next_seq(other.sender) == other.seq:
                log.append(other)
        try:
            return log.make_entry(IDS[seat], seat, kind, body)
        except Rejected:  # its own log refuses it (an unknown kind): signed by hand, as a cheater would
            return sign_entry(
                IDS[seat],
                table=TABLE,
                sender=seat,
                seq=log.next_seq(seat),
                kind=kind,
                prev=log.head(seat),
                body={**body, "seen": log.seen()},
            )

    async def setup_deck(self) -> None:
        """Commits and nonces of seats 1 and 2 (seat 0's own come from its NetworkDeck)."""
        await self.peer.deck.start()
        party_of = {0: self.peer.party, **self.parties}
        sends = {s: [x.message for x in p.start().sends] for s, p in self.parties.items()}
        for s, p in self.parties.items():
            for o in range(PLAYERS):
                if o != s:
                    sends[s] += [x.message for x in p.receive(o, {"type": "commit", **_commit(party_of[o])}).sends]
        for step in range(2):  # every commit first, then the nonces
            for s in self.parties:
                await self.peer.accept(self.sign(s, "deck", {"msg": sends[s][step]}), via=s)

    def check(self, sender: int) -> None:
        """Nothing but ``sender`` may be named."""
        for blame in self.peer.blames:
            assert blame.startswith(f"seat {sender} "), blame
        aborted = self.peer.aborted or (
            TableAborted(str(self.peer.deck.blame), self.peer.deck.blame.seat) if self.peer.deck.blame else None
        )
        if aborted is not None:
            assert aborted.seat == sender, aborted.reason


def _commit(party: Party) -> dict:
    from p2pcards.deck.derive import nonce_commitment, seed_commitment

    return {
        "seed": seed_commitment(party.context, party.seat, party._seed),
        "nonce": nonce_commitment(party.context, party.seat, party.nonce),
    }


def _commit_of_peer(peer: Peer) -> dict:
    return _commit(peer.party)


# -- strategies --------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.binary(max_size=40),
    st.sampled_from([bytes(32), b"\xff" * 32]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=8), inner, max_size=6)),
    max_leaves=30,
)
DECK_TYPES = ["commit", "nonce", "shuffle", "relock", "open", "rehandle", "accuse", "seed", "bogus"]
deck_messages = st.fixed_dictionaries(
    {"type": st.sampled_from(DECK_TYPES)},
    optional={
        "op": st.one_of(st.integers(-2, 40), values),
        "points": st.one_of(st.lists(st.binary(min_size=32, max_size=32), max_size=60), values),
        "key": values,
        "keys": st.one_of(st.lists(st.binary(min_size=32, max_size=32), max_size=60), values),
        "proof": st.one_of(
            st.fixed_dictionaries({}, optional={k: values for k in ("points", "scalars", "fb", "fw", "fc", "c", "f")}),
            values,
        ),
        "moved": st.one_of(st.lists(st.integers(-1, 60), max_size=5), values),
        "handles": st.one_of(st.lists(st.integers(-1, 60), max_size=5), values),
        "scalars": values,
        "chains": values,
        "seat": st.one_of(st.integers(-1, 4), values),
        "step": st.sampled_from(["open", "shuffle", "relock", "decode", "x"]),
        "evidence": values,
        "seed": values,
        "nonce": values,
        "reason": st.text(max_size=10),
    },
)
actions = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "pass", "doubt", "quads", "x"])},
    optional={
        "cards": st.one_of(st.lists(st.integers(-1, 2**25), max_size=7), values),
        "rank": st.one_of(st.sampled_from(["7", "A", "Z"]), values),
        "plus": values,
    },
)
bodies = st.one_of(
    st.builds(lambda m: ("deck", {"msg": m}), deck_messages),
    st.builds(
        lambda to, box: ("deck", {"to": to, "box": box}),
        st.one_of(st.integers(0, 3), values),
        st.one_of(st.binary(max_size=80), values),
    ),
    st.builds(
        lambda t, a: ("action", {"turn": t, "action": a}),
        st.one_of(st.integers(-1, 3), values),
        st.one_of(actions, values),
    ),
    st.builds(
        lambda kind, body: (kind, body),
        st.sampled_from(["chat", "result", "zzz", "deck", "action"]),
        st.dictionaries(st.text(max_size=8), values, max_size=5),
    ),
)


@pytest.mark.slow  # many signed entries through a peer
@FUZZ
@given(st.lists(st.tuples(st.sampled_from([1, 2]), bodies), min_size=1, max_size=6))
def test_signed_entries_with_random_bodies_are_accepted_or_refused_naming_their_signer(items):
    async def main():
        table = Table()
        await table.setup_deck()
        assert table.peer.party.game_id is not None and table.peer.blames == []
        with trio.fail_after(10):
            for seat, (kind, body) in items:
                body = {k: v for k, v in body.items() if k != "seen"}
                await table.peer.accept(table.sign(seat, kind, body), via=seat)
                senders = {seat for seat, _ in items}
                if len(senders) == 1:
                    table.check(seat)

    trio.run(main)


@pytest.mark.slow  # many deck messages through a peer
@FUZZ
@given(st.sampled_from([1, 2]), deck_messages)
def test_sealed_deck_messages_with_random_content(seat, message):
    """A private deck message that opens fine but holds anything."""

    async def main():
        table = Table()
        await table.setup_deck()
        seq = table.logs[seat].next_seq(seat)
        body = seal_body(
            IDS[seat], table=TABLE, seat=seat, seq=seq, kind="deck", to=0, recipient=IDS[0].public, payload=message
        )
        with trio.fail_after(10):
            await table.peer.accept(table.sign(seat, "deck", body), via=seat)
        table.check(seat)

    trio.run(main)


def _valid_stream() -> list[bytes]:
    table = Table()
    frames = []
    for i in range(3):
        frames.append(encode_frame(table.sign(1, "chat", {"text": f"hi {i}"}).to_wire()))
    frames.append(encode_frame({"type": "fetch", "table": TABLE, "seat": 1, "start": 0}))
    return frames


STREAM = b"".join(_valid_stream())


@FUZZ
@given(
    st.one_of(
        st.binary(max_size=2000),
        st.builds(
            lambda pos, byte: STREAM[:pos] + bytes([byte]) + STREAM[pos + 1 :],
            st.integers(0, len(STREAM) - 1),
            st.integers(0, 255),
        ),
        st.builds(lambda cut: STREAM[:cut], st.integers(0, len(STREAM))),
        st.builds(
            lambda junk, pos: STREAM[:pos] + junk + STREAM[pos:], st.binary(max_size=64), st.integers(0, len(STREAM))
        ),
    )
)
def test_random_and_mutated_frames_on_a_live_connection(data):
    async def main():
        table = Table()
        ours, theirs = trio.testing.memory_stream_pair()
        conn = Connection(ours, "seat 1")
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(table.peer.serve_connection, 1, conn)
                await theirs.send_all(data)
                await theirs.aclose()
        table.check(1)
        assert conn.closed

    trio.run(main)


def test_a_private_entry_that_does_not_open_is_refused_naming_its_sender_even_before_play():
    """A sealed box for us that does not open names its sender. Entries are served as soon as
    a connection is up, before Peer.play starts (play_seat waits for the full mesh first)."""

    async def main():
        table = Table()
        body = {"to": 0, "box": b"\x00" * 40}
        with trio.fail_after(5):
            await table.peer.accept(table.sign(1, "deck", body), via=1)
        assert table.peer.aborted is not None and table.peer.aborted.seat == 1

    trio.run(main)
