"""Property tests: every input to the decoders and validators is accepted or cleanly rejected
with the layer's own exception; never a crash, a hang or unbounded work."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.wire.errors import ProtocolError
from p2pcards.wire.framing import FrameDecoder, FrameError, Limits, decode, encode, encode_frame
from p2pcards.wire.identity import Identity
from p2pcards.wire.log import Log, Rejected
from p2pcards.wire.messages import Entry, Fetch, make_hello, parse_message, sign_entry
from p2pcards.wire.transcript import (
    MAGIC,
    TranscriptEnd,
    TranscriptError,
    TranscriptWriter,
    read_transcript,
    roster_header,
)

TABLE = bytes(range(16))
FUZZ = settings(
    max_examples=150, deadline=1000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

PLAYERS = [Identity.generate() for _ in range(3)]
ROSTER = [p.public for p in PLAYERS]


def _sample_stream() -> tuple[bytes, list[Entry]]:
    log = Log(TABLE, None, ROSTER)
    entries = []
    for i in range(4):
        entry = log.make_entry(
            PLAYERS[i % 3], i % 3, "action", {"type": "play", "cards": [i, i + 1], "blob": b"\x00" * 8}
        )
        entries.append(entry)
    hello = make_hello(PLAYERS[0], name="ann", games={"cals-bs": "1"})
    fetch = Fetch(TABLE, 1, 0)
    messages = [hello.to_wire(), *(e.to_wire() for e in entries), fetch.to_wire()]
    return b"".join(encode_frame(m) for m in messages), entries


STREAM, ENTRIES = _sample_stream()


def _transcript_bytes(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("fuzz") / "t.p2pt"
    header = roster_header(
        TABLE, [(f"p{i}", k) for i, k in enumerate(ROSTER)], game="highcard", rules="1", options={}, lobby=None
    )
    with TranscriptWriter.create(path, header) as writer:
        writer.append_entries(ENTRIES)
        writer.write_end(TranscriptEnd("finished", {"winners": [0]}))
    return path.read_bytes()


@pytest.fixture(scope="module")
def transcript_bytes(tmp_path_factory) -> bytes:
    return _transcript_bytes(tmp_path_factory)


@st.composite
def mutated(draw, data: bytes, max_edits: int = 4) -> bytes:
    """``data`` with a few byte flips, insertions, deletions or a truncation."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, max_edits))):
        op = draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate"]))
        if not out:
            break
        pos = draw(st.integers(0, len(out) - 1))
        if op == "flip":
            out[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "set":
            out[pos] = draw(st.integers(0, 255))
        elif op == "insert":
            out[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del out[pos : pos + draw(st.integers(1, 8))]
        else:
            del out[pos:]
    return bytes(out)


def feed_all(data: bytes, chunk: int, limits: Limits = Limits()) -> list:
    decoder = FrameDecoder(limits)
    out = []
    for i in range(0, len(data), chunk):
        out += decoder.feed(data[i : i + chunk])
    decoder.feed_eof()
    return out


def digest(messages) -> None:
    """Push decoded messages through validation and a log, as a session would."""
    log = Log(TABLE, None, ROSTER)
    for obj in messages:
        try:
            message = parse_message(obj, peer="fuzz")
        except ProtocolError:
            continue
        if isinstance(message, Entry):
            try:
                if log.append(message, via=0):
                    log.check_seen(message)
                    log.missing(message)
            except Rejected:
                pass
        elif isinstance(message, Fetch) and message.table == log.table:
            log.entries(message.seat, message.start)


@FUZZ
@given(st.binary(max_size=2048), st.integers(1, 64))
def test_random_bytes_to_frame_decoder(data, chunk):
    try:
        digest(feed_all(data, chunk, Limits(max_frame=4096)))
    except FrameError:
        pass


@FUZZ
@given(st.binary(max_size=512))
def test_random_frame_bodies(body):
    # A plausible length prefix, so the msgpack decoder itself gets the garbage.
    try:
        digest(feed_all(len(body).to_bytes(4, "big") + body, 1 << 20))
    except FrameError:
        pass


@FUZZ
@given(mutated(STREAM), st.integers(1, 512))
def test_mutated_streams(data, chunk):
    try:
        digest(feed_all(data, chunk))
    except FrameError:
        pass


wire_data = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(1 << 63), (1 << 64) - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=15,
)


@FUZZ
@given(wire_data)
def test_encode_decode_round_trip(obj):
    body = encode(obj)
    assert decode(body) == obj
    assert encode(decode(body)) == body


KEYS = [
    "type",
    "table",
    "from",
    "seq",
    "kind",
    "prev",
    "body",
    "sig",
    "protocol",
    "program",
    "name",
    "ed25519",
    "x25519",
    "games",
    "nonce",
    "seat",
    "start",
    "reason",
]
VALUES = st.one_of(
    wire_data,
    st.sampled_from(["entry", "hello", "auth", "fetch", "bye", "action"]),
    st.binary(min_size=16, max_size=16),
    st.binary(min_size=32, max_size=32),
    st.binary(min_size=64, max_size=64),
    st.integers(-2, 20),
    st.just(TABLE),
)


@FUZZ
@given(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=len(KEYS)))
def test_message_validation(obj):
    digest([obj])


@FUZZ
@given(st.sampled_from([e.to_wire() for e in ENTRIES]), st.sampled_from(KEYS), VALUES)
def test_entries_with_one_field_replaced(wire, key, value):
    digest([{**wire, key: value}])


@FUZZ
@given(st.sampled_from(ENTRIES[:3]), wire_data | st.lists(st.lists(VALUES, max_size=3), max_size=4))
def test_signed_entries_with_any_head_echo(entry, seen):
    # Validly signed, so the log's check of the head echo itself gets the garbage.
    body = {**entry.body, "seen": seen}
    resigned = sign_entry(
        PLAYERS[entry.sender],
        table=entry.table,
        sender=entry.sender,
        seq=entry.seq,
        kind=entry.kind,
        prev=entry.prev,
        body=body,
    )
    digest([resigned.to_wire()])


@FUZZ
@given(st.data())
def test_mutated_transcripts(transcript_bytes, data):
    sample = data.draw(mutated(transcript_bytes))
    for allow_torn in (False, True):
        try:
            read_transcript(sample, allow_torn=allow_torn)
        except TranscriptError:
            pass


@FUZZ
@given(st.binary(max_size=1024))
def test_random_transcripts(tail):
    for data in (tail, MAGIC + tail):
        try:
            read_transcript(data)
        except TranscriptError:
            pass
