"""Length-prefixed msgpack frames, strictly decoded, with hard limits (sans-IO).

A frame is a 4-byte big-endian unsigned length ``n`` (1 <= n <= ``Limits.max_frame``) followed by
exactly ``n`` bytes holding one msgpack object. Decoding is strict: map keys must be strings and
unique, ext types (the msgpack timestamp included) are refused, and nesting, container sizes and
string/binary lengths are bounded. Nothing here ever unpickles or evaluates anything.

:func:`encode` is the *canonical* encoding used for everything that is hashed or signed: map keys
sorted by their UTF-8 bytes, the shortest integer form, binary as ``bin``, text as ``str``, floats
as 64-bit. Two peers that decode the same object re-encode it to the same bytes.

:class:`FrameDecoder` is fed bytes as they arrive and returns whole messages; it never holds more
than one frame plus the chunk it was given. After an error the stream cannot be re-synchronised,
so the decoder stays failed and the connection should be closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack

__all__ = [
    "ContainerBudget",
    "FrameDecoder",
    "FrameError",
    "Limits",
    "DEFAULT_LIMITS",
    "check_value",
    "decode",
    "encode",
    "encode_frame",
    "frame_of",
]

LENGTH_PREFIX = 4


class FrameError(ValueError):
    """Bytes that are not an acceptable frame or message; ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Limits:
    """Hard limits on what a peer may send. The defaults fit the largest deck pass (four packs
    of 208 points of 32 bytes is about 7 KiB) with a wide margin."""

    max_frame: int = 1 << 20  # bytes in one frame body
    max_depth: int = 32  # nesting of arrays and maps; a scalar at top level has depth 0
    max_array_len: int = 65_536
    max_map_len: int = 4_096
    max_str_len: int = 65_536  # bytes of UTF-8
    max_bin_len: int = 1 << 20
    # Lists and maps in one message. Each costs 60-200 bytes of memory for one byte of msgpack,
    # so without it a frame of empty maps would decode to a hundred times its size. The largest
    # entry of a real game holds a few dozen.
    max_containers: int = 16_384


DEFAULT_LIMITS = Limits()

_SCALARS = (bool, int, float, str, bytes, type(None))
# Items that need no look inside: neither nesting nor an integer range to check.
_FLAT = frozenset({bytes, str})
_NESTED = frozenset({list, dict})


def _refuse_ext(code: int, data: bytes) -> Any:
    raise FrameError(f"msgpack ext type {code} is not allowed")


class ContainerBudget:
    """How many more lists and maps decoding may build: one per message by default
    (``Limits.max_containers``), or one shared by every message of a file (a transcript)."""

    def __init__(self, containers: int, what: str = "the message"):
        self.containers = self.left = containers
        self.what = what

    def take(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise FrameError(f"{self.what} holds more than {self.containers} lists and maps")


def _pairs_to_dict(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if not isinstance(key, str):
            raise FrameError(f"map key {key!r} is not a string")
        if key in out:
            raise FrameError(f"map key {key!r} appears twice")
        out[key] = value
    return out


def check_value(obj: Any, limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise :class:`FrameError` unless ``obj`` is plain wire data within ``limits``: None, bool,
    int (64-bit), float, str, bytes, lists/tuples and str-keyed dicts, nested at most
    ``limits.max_depth`` deep. Iterative, so hostile depth cannot exhaust the Python stack."""
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, tuple)):
            if depth >= limits.max_depth:
                raise FrameError(f"nesting deeper than {limits.max_depth}")
            if len(value) > limits.max_array_len:
                raise FrameError(f"array of {len(value)} items exceeds {limits.max_array_len}")
            if not _FLAT.issuperset(map(type, value)):  # a deck pass: skip 200 pushes
                stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, dict):
            if depth >= limits.max_depth:
                raise FrameError(f"nesting deeper than {limits.max_depth}")
            if len(value) > limits.max_map_len:
                raise FrameError(f"map of {len(value)} items exceeds {limits.max_map_len}")
            for key, item in value.items():
                if not isinstance(key, str):
                    raise FrameError(f"map key {key!r} is not a string")
                stack.append((item, depth + 1))
        elif isinstance(value, int) and not isinstance(value, bool):
            if not -(1 << 63) <= value < (1 << 64):
                raise FrameError("integer does not fit in 64 bits")
        elif not isinstance(value, _SCALARS):
            # msgpack.Timestamp (ext -1) lands here, as does any object a caller slipped in.
            raise FrameError(f"{type(value).__name__} is not allowed on the wire")


# Values with nothing inside to reorder.
_LEAVES = frozenset({bytes, str, int, bool, float, type(None)})


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        # Keys are str; ordering str by code point is ordering their UTF-8 bytes.
        return {k: _canonical(value[k]) for k in sorted(value)}
    if isinstance(value, (list, tuple)):
        if _LEAVES.issuperset(map(type, value)):
            return value  # nothing inside to sort
        return [_canonical(v) for v in value]
    return value


def encode(obj: Any, limits: Limits = DEFAULT_LIMITS, *, checked: bool = False) -> bytes:
    """The canonical msgpack encoding of ``obj`` (see the module doc); raises
    :class:`FrameError` for anything that :func:`check_value` refuses. ``checked=True`` skips
    that check for data already checked (decoded from a frame, or signed by us)."""
    if not checked:
        check_value(obj, limits)
    return msgpack.packb(_canonical(obj), use_bin_type=True, use_single_float=False)


def decode(body: bytes, limits: Limits = DEFAULT_LIMITS, budget: ContainerBudget | None = None) -> Any:
    """Decode one complete msgpack object strictly; raise :class:`FrameError` on anything
    malformed, trailing, too big, too deep, or not plain wire data. ``budget``: the lists and
    maps it may build (default: ``limits.max_containers``), counted as they are built."""
    if len(body) > limits.max_frame:
        raise FrameError(f"message of {len(body)} bytes exceeds {limits.max_frame}")
    message = ContainerBudget(limits.max_containers)
    shared = budget

    def count() -> None:
        message.take()
        if shared is not None:
            shared.take()

    def pairs_to_dict(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
        count()
        return _pairs_to_dict(pairs)

    def counted_list(items: list[Any]) -> list[Any]:
        count()
        return items

    try:
        obj = msgpack.unpackb(
            body,
            raw=False,
            use_list=True,
            strict_map_key=False,  # checked by _pairs_to_dict, with a clearer message
            object_pairs_hook=pairs_to_dict,
            list_hook=counted_list,
            ext_hook=_refuse_ext,
            max_str_len=limits.max_str_len,
            max_bin_len=limits.max_bin_len,
            max_array_len=limits.max_array_len,
            max_map_len=limits.max_map_len,
            max_ext_len=0,
        )
    except FrameError:
        raise
    except msgpack.ExtraData:
        raise FrameError("bytes left over after the message") from None
    except msgpack.StackError:
        raise FrameError(f"nesting deeper than {limits.max_depth}") from None
    except UnicodeDecodeError:
        raise FrameError("a string is not valid UTF-8") from None
    except (ValueError, TypeError, OverflowError) as exc:
        raise FrameError(f"malformed msgpack: {exc or type(exc).__name__}") from None
    # What the unpacker returns is plain data already (ext types refused, keys checked by the
    # hook, lengths capped, integers within 64 bits): only the nesting is left to check.
    _check_depth(obj, limits.max_depth)
    return obj


def _check_depth(obj: Any, max_depth: int) -> None:
    """Raise like :func:`check_value` if a list or map sits ``max_depth`` levels deep; one
    level at a time, looking only at containers."""
    level = [obj] if type(obj) in _NESTED else []
    depth = 0
    while level:
        if depth >= max_depth:
            raise FrameError(f"nesting deeper than {max_depth}")
        level = [
            item
            for value in level
            for item in (value.values() if type(value) is dict else value)
            if type(item) in _NESTED
        ]
        depth += 1


def encode_frame(obj: Any, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """One frame: the length prefix and the canonical encoding of ``obj``."""
    return frame_of(encode(obj, limits), limits)


def frame_of(body: bytes, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """One frame around ``body``, bytes :func:`encode` made (kept to be sent more than once)."""
    if len(body) > limits.max_frame:
        raise FrameError(f"message of {len(body)} bytes exceeds {limits.max_frame}")
    return len(body).to_bytes(LENGTH_PREFIX, "big") + body


class FrameDecoder:
    """Turns a byte stream into messages: ``feed(data)`` returns every message completed by
    ``data`` (possibly none). Raises :class:`FrameError` on the first bad frame and on every
    call after it; ``feed_eof()`` raises if the stream ended inside a frame."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS):
        self.limits = limits
        self._buffer = bytearray()
        self._failed: FrameError | None = None
        self.frames = 0  # frames decoded so far, for error messages and statistics

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a whole frame."""
        return len(self._buffer)

    def feed(self, data: bytes | bytearray) -> list[Any]:
        if self._failed is not None:
            raise self._failed
        self._buffer += data
        messages: list[Any] = []
        try:
            while len(self._buffer) >= LENGTH_PREFIX:
                size = int.from_bytes(self._buffer[:LENGTH_PREFIX], "big")
                if size == 0:
                    raise FrameError(f"frame {self.frames}: empty frame")
                if size > self.limits.max_frame:
                    raise FrameError(
                        f"frame {self.frames}: length {size} exceeds the limit of {self.limits.max_frame} bytes"
                    )
                end = LENGTH_PREFIX + size
                if len(self._buffer) < end:
                    break
                body = bytes(self._buffer[LENGTH_PREFIX:end])
                del self._buffer[:end]
                try:
                    messages.append(decode(body, self.limits))
                except FrameError as exc:
                    raise FrameError(f"frame {self.frames}: {exc.reason}") from None
                self.frames += 1
        except FrameError as exc:
            self._failed = exc
            self._buffer.clear()
            raise
        return messages

    def feed_eof(self) -> None:
        """The peer closed the stream: fine between frames, an error inside one."""
        if self._failed is not None:
            raise self._failed
        if self._buffer:
            have = len(self._buffer)
            if have < LENGTH_PREFIX:
                reason = f"stream ended inside the length prefix of frame {self.frames}"
            else:
                size = int.from_bytes(self._buffer[:LENGTH_PREFIX], "big")
                reason = f"stream ended inside frame {self.frames}: {have - LENGTH_PREFIX} of {size} bytes"
            self._failed = FrameError(reason)
            self._buffer.clear()
            raise self._failed
