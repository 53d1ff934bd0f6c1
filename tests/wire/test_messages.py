import pytest

from p2pcards import PROTOCOL_VERSION
from p2pcards.wire.errors import ProtocolError, VersionMismatch
from p2pcards.wire.framing import FrameDecoder, encode_frame
from p2pcards.wire.messages import (
    Auth,
    Bye,
    Entry,
    Fetch,
    Fetched,
    Hello,
    common_games,
    handshake_proof,
    make_hello,
    parse_message,
    seat_genesis,
    sign_entry,
    version_mismatch,
)

TABLE = bytes(range(16))  # the table id of new_log (conftest.py)


def wire_round_trip(obj):
    [decoded] = FrameDecoder().feed(encode_frame(obj))
    return decoded


def test_entry_round_trip_and_signature(players, roster):
    entry = sign_entry(
        players[1],
        table=TABLE,
        sender=1,
        seq=0,
        kind="deck.commit",
        prev=b"\x00" * 32,
        body={"commit": b"c" * 32, "n": [1, 2]},
    )
    parsed = parse_message(wire_round_trip(entry.to_wire()), peer=1)
    assert parsed == entry and parsed.hash == entry.hash
    assert parsed.verify(roster[1]) and not parsed.verify(roster[0])


def test_signature_binds_every_header_field(players, roster):
    entry = sign_entry(
        players[0], table=TABLE, sender=0, seq=3, kind="game.action", prev=b"\x11" * 32, body={"type": "pass"}
    )
    changes = {
        "table": b"\x01" * 16,
        "from": 1,
        "seq": 4,
        "kind": "game.other",
        "prev": b"\x22" * 32,
        "body": {"type": "play"},
    }
    for key, value in changes.items():
        tampered = Entry.from_wire({**entry.to_wire(), key: value})
        assert not tampered.verify(roster[0]), key


@pytest.mark.parametrize(
    "change",
    [
        {"seq": -1},
        {"seq": "1"},
        {"from": 99},
        {"table": b"short"},
        {"prev": b"x"},
        {"kind": "Bad Kind"},
        {"kind": ""},
        {"sig": b"x" * 10},
        {"extra": 1},
        {"type": "entry2"},
    ],
)
def test_entry_schema_names_the_sender(players, change):
    entry = sign_entry(players[0], table=TABLE, sender=0, seq=0, kind="k", prev=b"\x00" * 32, body=None)
    wire = {**entry.to_wire(), **change}
    with pytest.raises(ProtocolError) as info:
        parse_message(wire, peer="seat 2 (bob)")
    assert "seat 2 (bob)" in str(info.value)


def test_missing_fields_and_non_maps():
    for obj in ([], 1, None, {"type": "entry"}, {"type": 5}, {"type": "nope"}, {}):
        with pytest.raises(ProtocolError):
            parse_message(obj, peer=0)


def test_hello_round_trip_and_tamper(players):
    hello = make_hello(players[0], name="ann", games={"cals-bs": "3", "calypso": "1"})
    parsed = parse_message(wire_round_trip(hello.to_wire()), "x")
    assert isinstance(parsed, Hello) and parsed.keys == players[0].public
    assert parsed.protocol == PROTOCOL_VERSION
    for key, value in {"name": "eve", "x25519": b"\x09" * 32, "games": {}}.items():
        with pytest.raises(ProtocolError, match="signature"):
            parse_message({**hello.to_wire(), key: value}, "x")


def test_hello_of_another_protocol_version_names_both_versions(players):
    hello = make_hello(players[0], name="ann", games={}, protocol=PROTOCOL_VERSION + 1, program="9.9")
    wire = {**hello.to_wire(), "brand_new_field": [1]}
    with pytest.raises(VersionMismatch) as info:
        parse_message(wire, peer="peer ann")
    text = str(info.value)
    assert f"protocol {PROTOCOL_VERSION + 1}" in text
    assert f"we run protocol {PROTOCOL_VERSION}" in text
    assert "9.9" in text


def test_hello_keeps_unknown_fields_under_the_signature(players):
    hello = make_hello(players[0], name="ann", games={})
    draft = {**hello.to_wire(), "future": "x"}
    draft.pop("sig")
    draft.pop("type")
    from p2pcards.wire.framing import encode
    from p2pcards.wire.messages import HELLO_DOMAIN

    sig = players[0].sign(HELLO_DOMAIN + encode(draft))
    parsed = parse_message({**draft, "type": "hello", "sig": sig}, "x")
    assert parsed.extra == {"future": "x"}


def test_version_mismatch_messages(players):
    a = make_hello(players[0], name="ann", games={"cals-bs": "3", "calypso": "1"})
    b = make_hello(players[1], name="bob", games={"cals-bs": "2", "calypso": "1"})
    assert version_mismatch(a, b) is None
    assert version_mismatch(a, b, game="calypso") is None
    err = version_mismatch(a, b, game="cals-bs")
    assert isinstance(err, VersionMismatch)
    assert str(err) == "peer bob: game cals-bs: we have rules 3, peer has 2"
    without = make_hello(players[1], name="c", games={})
    assert "peer does not have" in str(version_mismatch(a, without, game="calypso"))
    newer = make_hello(players[1], name="bob", games={}, protocol=PROTOCOL_VERSION + 1, program="0.9")
    assert f"runs protocol {PROTOCOL_VERSION + 1} (p2pcards 0.9), we run protocol {PROTOCOL_VERSION}" in str(
        version_mismatch(a, newer)
    )
    # A peer of deck protocol 1 (passes without proofs), or of protocol 2 (table words without
    # commitments), cannot sit at a table of ours.
    for old in (1, 2):
        them = make_hello(players[1], name="bob", games={}, protocol=old, program="0.1.0")
        assert f"runs protocol {old} (p2pcards 0.1.0), we run protocol {PROTOCOL_VERSION}" in str(
            version_mismatch(a, them)
        )
    assert common_games(a, b) == {"calypso": "1"}


def test_handshake_proof(players):
    a = make_hello(players[0], name="ann", games={})
    b = make_hello(players[1], name="bob", games={})
    proof = parse_message(wire_round_trip(handshake_proof(players[1], b, a).to_wire()))
    assert isinstance(proof, Auth)
    proof.check(ours=a, theirs=b)
    # A proof made for another connection (another nonce of ours) does not pass.
    a2 = make_hello(players[0], name="ann", games={})
    with pytest.raises(ProtocolError):
        proof.check(ours=a2, theirs=b)
    # Nor one made by someone else who copied bob's hello.
    forged = handshake_proof(players[2], b, a)
    with pytest.raises(ProtocolError):
        forged.check(ours=a, theirs=b)
    with pytest.raises(ProtocolError, match="own identity"):
        handshake_proof(players[0], a2, a).check(ours=a, theirs=a2)


def test_fetch_bye_round_trip():
    fetch = Fetch(TABLE, 2, 3)
    assert parse_message(wire_round_trip(fetch.to_wire())) == fetch
    assert fetch.to_wire() == {"type": "fetch", "table": TABLE, "seat": 2, "start": 3}
    for bad in ({"seat": 16}, {"seat": -1}, {"start": -1}, {"seat": None}):
        with pytest.raises(ProtocolError):
            parse_message({**fetch.to_wire(), **bad}, peer=0)
    with pytest.raises(ProtocolError, match="unknown message type"):
        parse_message({"type": "head"}, peer=0)  # the old head echo is gone: entries carry it
    assert parse_message(wire_round_trip(Bye("bye").to_wire())) == Bye("bye")


def test_fetched_round_trip():
    fetched = Fetched(TABLE, 1, 12)
    assert parse_message(wire_round_trip(fetched.to_wire())) == fetched
    assert fetched.to_wire() == {"type": "fetched", "table": TABLE, "seat": 1, "count": 12}
    for bad in ({"seat": 16}, {"count": -1}, {"count": "12"}, {"table": b"short"}):
        with pytest.raises(ProtocolError):
            parse_message({**fetched.to_wire(), **bad}, peer=0)


def test_seat_genesis_binds_table_header_and_seat():
    base = seat_genesis(TABLE, {"game": "x"}, 0)
    assert len(base) == 32
    others = {
        seat_genesis(TABLE, {"game": "x"}, 1),
        seat_genesis(b"\x01" * 16, {"game": "x"}, 0),
        seat_genesis(TABLE, {"game": "y"}, 0),
    }
    assert base not in others and len(others) == 3
    with pytest.raises(ValueError):
        seat_genesis(TABLE, None, 16)


@pytest.mark.parametrize("name", ["bob\nverdict: VERIFIED", "bob\r", "\x1b[2Jbob", "bob\u202eevil", "a\u2028b"])
def test_a_name_a_terminal_cannot_show_as_it_is_is_refused(players, name):
    """A name (or a reason) from a peer is shown on other people's screens: a newline could
    print a fake line (a verdict over a failing report), an escape sequence move the cursor, a
    right-to-left override reverse what follows."""
    with pytest.raises(ProtocolError) as info:  # ours is refused before it is sent
        make_hello(players[0], name=name, games={})
    assert "control or format character" in str(info.value)
    ok = make_hello(players[0], name="bob", games={}).to_wire()
    with pytest.raises(ProtocolError):  # and a peer's when it arrives
        parse_message(wire_round_trip({**ok, "name": name}))
    with pytest.raises(ProtocolError):
        parse_message(wire_round_trip(Bye(f"left: {name}").to_wire()))
    ok = make_hello(players[0], name="Zoë 🂡 Ω", games={})
    assert parse_message(wire_round_trip(ok.to_wire())).name == "Zoë 🂡 Ω"
