import msgpack
import pytest

from p2pcards.wire.framing import FrameDecoder, FrameError, Limits, decode, encode, encode_frame


def frame(body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + body


MESSAGE = {"type": "entry", "n": 1, "data": b"\x00\x01", "list": [1, "two", None, True, 1.5]}


def test_round_trip_in_one_piece_and_byte_by_byte():
    stream = encode_frame(MESSAGE) + encode_frame({"b": 2})
    assert FrameDecoder().feed(stream) == [MESSAGE, {"b": 2}]
    decoder, out = FrameDecoder(), []
    for i in range(len(stream)):
        out += decoder.feed(stream[i : i + 1])
    assert out == [MESSAGE, {"b": 2}]
    decoder.feed_eof()


def test_encoding_is_canonical():
    a = encode({"b": 1, "a": {"y": 2, "x": 1}})
    b = encode({"a": {"x": 1, "y": 2}, "b": 1})
    assert a == b
    assert encode((1, 2)) == encode([1, 2])


def test_map_keys_are_ordered_by_their_utf8_bytes():
    keys = ["z", "a", "é", "€", "\U0001d11e", "ab", "a\x00", "A", "\uffff", "\u00ff"]
    value = {k: [k, {"y": 1, "x": [2, 3]}] for k in keys}
    body = encode(value)
    unpacked = msgpack.unpackb(body, raw=False)
    assert list(unpacked) == sorted(keys, key=lambda k: k.encode())
    assert list(unpacked[keys[0]][1]) == ["x", "y"]


def test_oversized_frame_is_refused_from_its_length_alone():
    decoder = FrameDecoder(Limits(max_frame=100))
    with pytest.raises(FrameError, match="exceeds the limit"):
        decoder.feed((101).to_bytes(4, "big"))
    with pytest.raises(FrameError):  # the decoder stays failed
        decoder.feed(encode_frame(1))


def test_encoder_refuses_oversized_messages():
    with pytest.raises(FrameError):
        encode_frame(b"x" * 200, Limits(max_frame=100, max_bin_len=1000))


def test_empty_frame():
    with pytest.raises(FrameError, match="empty"):
        FrameDecoder().feed(b"\x00\x00\x00\x00")


def test_deep_nesting():
    deep = b"\x91" * 40 + b"\xc0"
    with pytest.raises(FrameError, match="nesting"):
        FrameDecoder().feed(frame(deep))
    very_deep = b"\x91" * 5000 + b"\xc0"  # past msgpack's own stack
    with pytest.raises(FrameError, match="nesting"):
        FrameDecoder().feed(frame(very_deep))
    with pytest.raises(FrameError, match="nesting"):
        encode_frame([[[[1]]]], Limits(max_depth=3))
    assert decode(b"\x91" * 32 + b"\xc0") is not None


def test_decode_refuses_nesting_exactly_where_encode_does():
    """Decoding checks only the depth (the unpacker guarantees the rest): lists and maps,
    mixed, at every depth around the limit, refused by both or by neither."""
    limits = Limits(max_depth=4)
    for depth in range(1, 8):
        for outer in (list, dict):
            value = [b"x", 1]
            for level in range(depth):
                value = {"k": value, "n": 2} if (level % 2) == (outer is dict) else [value, "s"]
            try:
                encode(value, limits)
                refused = False
            except FrameError:
                refused = True
            body = msgpack.packb(value, use_bin_type=True)
            if refused:
                with pytest.raises(FrameError, match="nesting"):
                    decode(body, limits)
            else:
                assert decode(body, limits) == value


def test_non_string_map_keys():
    with pytest.raises(FrameError, match="not a string"):
        FrameDecoder().feed(frame(msgpack.packb({1: 2})))
    with pytest.raises(FrameError, match="not a string"):
        decode(msgpack.packb({b"k": 2}, use_bin_type=True))
    with pytest.raises(FrameError):
        encode({1: 2})


def test_duplicate_map_keys():
    body = b"\x82\xa1a\x01\xa1a\x02"  # {"a": 1, "a": 2}
    with pytest.raises(FrameError, match="twice"):
        decode(body)


def test_ext_types_and_timestamps():
    with pytest.raises(FrameError, match="ext"):
        decode(msgpack.packb(msgpack.ExtType(5, b"abc")))
    with pytest.raises(FrameError):
        decode(msgpack.packb(msgpack.Timestamp(1, 0)))


def test_container_and_string_limits():
    limits = Limits(max_array_len=3, max_map_len=2, max_str_len=4, max_bin_len=4)
    for obj in ([1, 2, 3, 4], {"a": 1, "b": 2, "c": 3}, "hello", b"hello"):
        with pytest.raises(FrameError):
            decode(msgpack.packb(obj, use_bin_type=True), limits)


def test_malformed_and_trailing_bytes():
    for body in (b"\xc1", b"\x92\x01", b"\x01\x02", b"\xa2\xff\xfe"):
        with pytest.raises(FrameError):
            FrameDecoder().feed(frame(body))


def test_truncated_stream_is_reported_at_eof():
    stream = encode_frame(MESSAGE)
    for cut in (2, 4, len(stream) - 1):
        decoder = FrameDecoder()
        assert decoder.feed(stream[:cut]) == []
        with pytest.raises(FrameError, match="stream ended inside"):
            decoder.feed_eof()


def test_buffer_stays_bounded():
    decoder = FrameDecoder(Limits(max_frame=1000))
    decoder.feed((1000).to_bytes(4, "big") + b"\x00" * 500)
    assert decoder.pending == 504
    with pytest.raises(FrameError):  # never waits for the body of a frame over the limit
        FrameDecoder(Limits(max_frame=1000)).feed((2000).to_bytes(4, "big"))


def test_objects_that_are_not_wire_data():
    for obj in (object(), {1, 2}, 2**64, msgpack.Timestamp(1, 0)):
        with pytest.raises(FrameError):
            encode(obj)


def test_a_frame_of_many_small_containers_is_refused_before_it_is_decoded_whole():
    # 1 MiB of empty maps would decode to about 100 MiB: counted as they are built, refused early
    bomb = msgpack.packb([[{}] * 60_000] * 17)
    assert len(bomb) < (1 << 20)
    with pytest.raises(FrameError, match="more than 16384 lists and maps"):
        decode(bomb)
    decode(msgpack.packb([[{}] * 100] * 100))  # 10,101 of them: a legitimate (if odd) message
    assert FrameDecoder(Limits(max_containers=2)).feed(frame(msgpack.packb({"a": []}))) == [{"a": []}]
    with pytest.raises(FrameError, match="more than 2"):
        FrameDecoder(Limits(max_containers=2)).feed(frame(msgpack.packb({"a": [[]]})))
