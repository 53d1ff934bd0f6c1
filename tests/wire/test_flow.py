"""Two peers talking through bytes only, the way the network session drives this package."""

import pytest

from p2pcards.wire import (
    Auth,
    Entry,
    Fetch,
    FrameDecoder,
    FrameError,
    Hello,
    Log,
    ProtocolError,
    Rejected,
    encode_frame,
    handshake_proof,
    make_hello,
    open_body,
    open_table_words,
    parse_message,
    seal_body,
    table_auth_words,
    version_mismatch,
    words_commitment,
)
from p2pcards.wire.identity import new_words_nonce

TABLE = bytes(range(16))


class Peer:
    def __init__(self, identity, seat, name):
        self.identity, self.seat, self.name = identity, seat, name
        self.decoder = FrameDecoder()
        self.hello = make_hello(identity, name=name, games={"highcard": "1"})
        self.log = None

    def receive(self, data: bytes, sender: str):
        return [parse_message(obj, peer=sender) for obj in self.decoder.feed(data)]


def test_handshake_then_table_traffic(players, roster):
    a, b = Peer(players[0], 0, "ann"), Peer(players[1], 1, "bob")
    # 1. hellos cross.
    [hello_b] = a.receive(encode_frame(b.hello.to_wire()), "bob")
    [hello_a] = b.receive(encode_frame(a.hello.to_wire()), "ann")
    assert isinstance(hello_b, Hello) and isinstance(hello_a, Hello)
    assert version_mismatch(a.hello, hello_b, game="highcard") is None
    # 2. proofs cross.
    proof_b = handshake_proof(b.identity, b.hello, hello_a)
    proof_a = handshake_proof(a.identity, a.hello, hello_b)
    [auth_b] = a.receive(encode_frame(proof_b.to_wire()), "bob")
    [auth_a] = b.receive(encode_frame(proof_a.to_wire()), "ann")
    assert isinstance(auth_a, Auth)
    auth_b.check(a.hello, hello_b, "bob")
    auth_a.check(b.hello, hello_a, "ann")
    # 3. both build the log from the same roster and lobby header, and compare words aloud.
    seated = [players[0].public, players[1].public]
    for peer in (a, b):
        peer.log = Log(TABLE, {"game": "highcard"}, seated)
    # Each committed to a words nonce before either revealed one (the lobby's sit and start).
    nonces = [new_words_nonce(), new_words_nonce()]
    commits = [words_commitment(n) for n in nonces]
    header = {"table": TABLE, "seats": [{"ed25519": k.ed25519, "x25519": k.x25519} for k in seated]}
    seen_by_b = {
        "table": TABLE,
        "seats": [{"ed25519": k.ed25519, "x25519": k.x25519} for k in (hello_a.keys, hello_b.keys)],
    }
    assert open_table_words(header, commits, nonces).words == open_table_words(seen_by_b, commits, nonces).words
    assert len(table_auth_words(header, nonces)) == 5
    # 4. both send at once: a public entry from ann, a private one from bob, each made (signed
    # and appended) locally before the other's arrives.
    first = a.log.make_entry(a.identity, 0, "action", {"type": "play"})
    body = seal_body(
        b.identity,
        table=TABLE,
        seat=1,
        seq=b.log.next_seq(1),
        kind="deck",
        to=0,
        recipient=roster[0],
        payload={"k": b"\x01" * 32},
    )
    private = b.log.make_entry(b.identity, 1, "deck", body)
    [got] = b.receive(encode_frame(first.to_wire()), "ann")
    assert b.log.append(got, via=0) is True
    [got] = a.receive(encode_frame(private.to_wire()), "bob")
    assert isinstance(got, Entry)
    assert a.log.append(got, via=1) is True
    assert a.log.check_seen(got) == [] and b.log.check_seen(first) == []
    assert a.log.seen() == b.log.seen()
    assert list(a.log.canonical()) == list(b.log.canonical()) == [first, private]
    assert open_body(a.identity, 0, got, roster[1]) == {"k": b"\x01" * 32}
    # 5. catch-up: a fresh copy of ann's log asks bob for each seat's entries.
    c = Peer(players[0], 0, "ann again")
    c.log = Log(TABLE, {"game": "highcard"}, seated)
    for seat in range(2):
        [fetch] = b.receive(encode_frame(Fetch(TABLE, seat, c.log.next_seq(seat)).to_wire()), "ann")
        assert isinstance(fetch, Fetch) and fetch.table == b.log.table
        answer = b"".join(encode_frame(e.to_wire()) for e in b.log.entries(fetch.seat, fetch.start))
        for entry in c.receive(answer, "bob"):
            assert c.log.append(entry, via=1)
    assert c.log.seen() == a.log.seen()
    # 6. a replayed entry changes nothing; a forged one and garbage are rejected, naming bob.
    [again] = a.receive(encode_frame(private.to_wire()), "bob")
    assert a.log.append(again, via=1) is False
    forged = Entry(TABLE, 0, 1, "action", a.log.head(0), {"seen": a.log.seen()}, b.identity.sign(b"x"))
    [got] = a.receive(encode_frame(forged.to_wire()), "bob")
    with pytest.raises(Rejected) as info:
        a.log.append(got, via=1)
    assert info.value.blame.seat == 1 and info.value.code == "bad-signature"
    with pytest.raises(ProtocolError, match="bob"):
        a.receive(encode_frame({"type": "entry", "seq": "x"}), "bob")
    with pytest.raises(FrameError):
        a.receive(b"\xff\xff\xff\xff", "bob")
