"""Two peers talking through bytes only, the way the network session drives this package."""

import pytest

from p2pcards.wire import (
    Auth,
    Entry,
    FrameDecoder,
    FrameError,
    Hello,
    Log,
    ProtocolError,
    Rejected,
    encode_frame,
    genesis_hash,
    handshake_proof,
    make_hello,
    open_body,
    parse_message,
    seal_body,
    table_auth_words,
    version_mismatch,
)

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
        peer.log = Log(TABLE, seated, genesis_hash(TABLE, {"game": "highcard"}))
    assert table_auth_words(TABLE, seated) == table_auth_words(TABLE, [hello_a.keys, hello_b.keys])
    # 4. a public entry and a private one, each appended locally and sent.
    first = a.log.make_entry(a.identity, 0, "game.action", {"type": "play"})
    a.log.append(first)
    body = seal_body(b.identity, table=TABLE, seat=1, seq=b.log.next_seq(1), kind="deck.keys",
                     to=0, recipient=roster[0], payload={"k": b"\x01" * 32})
    [got] = b.receive(encode_frame(first.to_wire()), "ann")
    b.log.append(got, via=0)
    private = b.log.make_entry(b.identity, 1, "deck.keys", body)
    b.log.append(private)
    [got] = a.receive(encode_frame(private.to_wire()), "bob")
    assert isinstance(got, Entry)
    a.log.append(got, via=1)
    assert a.log.head == b.log.head
    assert open_body(a.identity, 0, got, roster[1]) == {"k": b"\x01" * 32}
    # 5. a replayed entry, then garbage: both rejected, naming the sender.
    [again] = a.receive(encode_frame(private.to_wire()), "bob")
    with pytest.raises(Rejected) as info:
        a.log.append(again, via=1)
    assert info.value.blame.seat == 1 and info.value.code == "replay"
    with pytest.raises(ProtocolError, match="bob"):
        a.receive(encode_frame({"type": "entry", "seq": "x"}), "bob")
    with pytest.raises(FrameError):
        a.receive(b"\xff\xff\xff\xff", "bob")
