"""The wire primitives: frames, CRC-16/CCITT-FALSE and the field types (docs/PROTOCOL.md).

Frame layout (every packet, on every transport), little-endian:

    offset  size  field
    0       2     size    u16, the whole frame including this 6-byte header
    2       2     opcode  u16
    4       2     crc     u16, CRC-16/CCITT-FALSE of the payload
    6       ...   payload (size - 6 bytes): the packet's fields in declaration order

Field layouts (the Reader and Writer methods of the same names):

    u8 i8 u16 i16 u32 i32 f32 f64   fixed width; f32/f64 must be finite
    bool                            u8, 0 or 1
    varint                          unsigned LEB128, 1-5 bytes, shortest form, <= 2^32-1
    string(max)                     length (u8 if max <= 255, else u16) + UTF-8 bytes
    bytes(max)                      length (u8 if max <= 255, else u16) + bytes
    list(of, max)                   count (u8 if max <= 255, else u16) + items
    optional(of)                    u8 presence (0 or 1) + item when 1
    enum(values)                    u8 index into the declared values
    quantized(min, max)             u16: round((v - min) / (max - min) * 65535), clamped
    angle                           u8: the angle in [0, 2pi) in 256 steps

Decoding errors carry the same stable codes as the server's (ERR_SHORT, ERR_BAD_CRC, ...).
Rounding follows JavaScript's Math.round (half up), not Python's round (half to even), so
both ends put a value on the same step.
"""

from __future__ import annotations

import dataclasses
import math
import struct
from typing import Any, Callable, Iterable, Sequence, TypeVar

HEADER_SIZE = 6
MAX_FRAME_SIZE = 0xFFFF
TAU = math.pi * 2
ANGLE_STEP = TAU / 256

T = TypeVar("T")


class DecodeError(Exception):
    """Bytes from the network that are not a valid frame or packet; `code` is stable."""

    def __init__(self, code: str, message: str, opcode: int = 0) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.reason = message
        self.opcode = opcode


class EncodeError(ValueError):
    """A value that cannot be put on the wire: a bug on the sending side."""


def js_round(v: float) -> int:
    """JavaScript's Math.round: the nearest integer, halves rounded up (towards +infinity)."""
    r = math.floor(v)
    return int(r + 1 if v - r >= 0.5 else r)


# ------------------------------------------------------------------ CRC-16/CCITT-FALSE

def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor."""
    crc = 0xFFFF
    table = _CRC_TABLE
    for b in bytes(data):
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ b]
    return crc


# ------------------------------------------------------------------ reading

def _prefix(max_len: int) -> int:
    return 1 if max_len <= 0xFF else 2


class Reader:
    """Reads fields from one payload; every method raises DecodeError on bad bytes."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data: bytes, pos: int = 0, end: int | None = None) -> None:
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end

    @property
    def left(self) -> int:
        return self.end - self.pos

    def _need(self, n: int) -> int:
        at = self.pos
        if at + n > self.end:
            raise DecodeError("ERR_SHORT", f"need {n} byte(s) at offset {at}, payload has {self.end - at} left")
        self.pos = at + n
        return at

    def _unpack(self, fmt: str, n: int) -> Any:
        at = self._need(n)
        return struct.unpack_from(fmt, self.data, at)[0]

    def u8(self) -> int:
        at = self._need(1)
        return self.data[at]

    def i8(self) -> int:
        return self._unpack("<b", 1)

    def u16(self) -> int:
        return self._unpack("<H", 2)

    def i16(self) -> int:
        return self._unpack("<h", 2)

    def u32(self) -> int:
        return self._unpack("<I", 4)

    def i32(self) -> int:
        return self._unpack("<i", 4)

    def f32(self) -> float:
        v = self._unpack("<f", 4)
        if not math.isfinite(v):
            raise DecodeError("ERR_BAD_NUMBER", f"non-finite number {v}")
        return v

    def f64(self) -> float:
        v = self._unpack("<d", 8)
        if not math.isfinite(v):
            raise DecodeError("ERR_BAD_NUMBER", f"non-finite number {v}")
        return v

    def bool(self) -> bool:
        b = self.u8()
        if b > 1:
            raise DecodeError("ERR_BAD_BOOL", f"bool byte {b} is not 0 or 1")
        return b == 1

    def varint(self) -> int:
        value = 0
        for i in range(5):
            b = self.u8()
            value |= (b & 0x7F) << (7 * i)
            if b & 0x80 == 0:
                if b == 0 and i > 0:
                    raise DecodeError("ERR_BAD_VARINT", "varint not in shortest form")
                if value > 0xFFFFFFFF:
                    raise DecodeError("ERR_BAD_VARINT", "varint above 2^32-1")
                return value
        raise DecodeError("ERR_BAD_VARINT", "varint longer than 5 bytes")

    def angle(self) -> float:
        return self.u8() * ANGLE_STEP

    def quantized(self, lo: float, hi: float) -> float:
        return lo + self.u16() * ((hi - lo) / 65535)

    def _length(self, max_len: int) -> int:
        return self.u8() if _prefix(max_len) == 1 else self.u16()

    def string(self, max_bytes: int) -> str:
        n = self._length(max_bytes)
        if n > max_bytes:
            raise DecodeError("ERR_STRING_TOO_LONG", f"string of {n} bytes exceeds {max_bytes}")
        at = self._need(n)
        try:
            # Strict UTF-8 (no surrogates, no overlong forms); a leading U+FEFF is kept.
            return bytes(self.data[at : at + n]).decode("utf-8")
        except UnicodeDecodeError:
            raise DecodeError("ERR_BAD_UTF8", "string is not valid UTF-8") from None

    def bytes(self, max_len: int) -> bytes:
        n = self._length(max_len)
        if n > max_len:
            raise DecodeError("ERR_BYTES_TOO_LONG", f"bytes of length {n} exceed {max_len}")
        at = self._need(n)
        return bytes(self.data[at : at + n])

    def list(self, max_len: int, item: Callable[[], T]) -> list[T]:
        n = self._length(max_len)
        if n > max_len:
            raise DecodeError("ERR_LIST_TOO_LONG", f"list of {n} items exceeds {max_len}")
        return [item() for _ in range(n)]

    def optional(self, item: Callable[[], T]) -> T | None:
        return item() if self.bool() else None

    def enum(self, values: Sequence[T]) -> T:
        i = self.u8()
        if i >= len(values):
            raise DecodeError("ERR_BAD_ENUM", f"enum index {i} is not below {len(values)}")
        return values[i]


# ------------------------------------------------------------------ writing

def _check_int(v: Any, lo: int, hi: int, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or v > hi:
        raise EncodeError(f"{what} out of range: {v!r}")
    return v


def _check_finite(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise EncodeError(f"{what} must be a finite number: {v!r}")
    return float(v)


class Writer:
    """Appends fields to a payload."""

    __slots__ = ("buf",)

    def __init__(self) -> None:
        self.buf = bytearray()

    def u8(self, v: int) -> None:
        self.buf.append(_check_int(v, 0, 0xFF, "u8"))

    def i8(self, v: int) -> None:
        self.buf += struct.pack("<b", _check_int(v, -0x80, 0x7F, "i8"))

    def u16(self, v: int) -> None:
        self.buf += struct.pack("<H", _check_int(v, 0, 0xFFFF, "u16"))

    def i16(self, v: int) -> None:
        self.buf += struct.pack("<h", _check_int(v, -0x8000, 0x7FFF, "i16"))

    def u32(self, v: int) -> None:
        self.buf += struct.pack("<I", _check_int(v, 0, 0xFFFFFFFF, "u32"))

    def i32(self, v: int) -> None:
        self.buf += struct.pack("<i", _check_int(v, -0x80000000, 0x7FFFFFFF, "i32"))

    def f32(self, v: float) -> None:
        try:
            packed = struct.pack("<f", _check_finite(v, "f32"))
        except OverflowError:
            raise EncodeError(f"f32 out of range: {v!r}") from None
        self.buf += packed

    def f64(self, v: float) -> None:
        self.buf += struct.pack("<d", _check_finite(v, "f64"))

    def bool(self, v: bool) -> None:
        self.buf.append(1 if v else 0)

    def varint(self, v: int) -> None:
        v = _check_int(v, 0, 0xFFFFFFFF, "varint")
        while v >= 0x80:
            self.buf.append((v & 0x7F) | 0x80)
            v >>= 7
        self.buf.append(v)

    def angle(self, v: float) -> None:
        turns = _check_finite(v, "angle") / TAU
        self.buf.append(js_round((turns - math.floor(turns)) * 256) & 0xFF)

    def quantized(self, v: float, lo: float, hi: float) -> None:
        q = js_round((_check_finite(v, "quantized") - lo) * (65535 / (hi - lo)))
        self.buf += struct.pack("<H", min(max(q, 0), 65535))

    def _length(self, n: int, max_len: int) -> None:
        if _prefix(max_len) == 1:
            self.buf.append(n)
        else:
            self.buf += struct.pack("<H", n)

    def string(self, v: str, max_bytes: int) -> None:
        if not isinstance(v, str):
            raise EncodeError(f"not a string: {v!r}")
        data = v.encode("utf-8")
        if len(data) > max_bytes:
            raise EncodeError(f"string of {len(data)} bytes exceeds {max_bytes}")
        self._length(len(data), max_bytes)
        self.buf += data

    def bytes(self, v: bytes, max_len: int) -> None:
        if len(v) > max_len:
            raise EncodeError(f"bytes of length {len(v)} exceed {max_len}")
        self._length(len(v), max_len)
        self.buf += v

    def list(self, v: Sequence[T], max_len: int, item: Callable[[T], None]) -> None:
        if len(v) > max_len:
            raise EncodeError(f"list of {len(v)} items exceeds {max_len}")
        self._length(len(v), max_len)
        for x in v:
            item(x)

    def optional(self, v: T | None, item: Callable[[T], None]) -> None:
        if v is None:
            self.buf.append(0)
        else:
            self.buf.append(1)
            item(v)

    def enum(self, values: Sequence[T], v: T) -> None:
        try:
            self.buf.append(values.index(v))
        except ValueError:
            raise EncodeError(f"{v!r} is not one of {', '.join(map(str, values))}") from None


# ------------------------------------------------------------------ frames

def frame(opcode: int, payload: bytes | bytearray) -> bytes:
    """One whole frame: the 6-byte header, then the payload."""
    size = HEADER_SIZE + len(payload)
    if size > MAX_FRAME_SIZE:
        raise EncodeError(f"frame of {size} bytes is too large")
    return struct.pack("<HHH", size, opcode, crc16(payload)) + bytes(payload)


class FrameDecoder:
    """Turns a byte stream into (opcode, payload) frames.

    `push` a chunk, then call `next()` until it returns None, which means "need more bytes"
    and is never an error. A bad size or CRC raises DecodeError; the stream is unusable
    after that and the connection should be closed.
    """

    def __init__(self, max_frame_size: int = MAX_FRAME_SIZE) -> None:
        self.max_frame_size = max_frame_size
        self._buf = bytearray()
        self._pos = 0

    @property
    def buffered(self) -> int:
        return len(self._buf) - self._pos

    def push(self, chunk: bytes) -> None:
        if self._pos > 0 and self._pos == len(self._buf):
            self._buf.clear()
            self._pos = 0
        elif self._pos > 65536:
            del self._buf[: self._pos]
            self._pos = 0
        self._buf += chunk

    def next(self) -> tuple[int, bytes] | None:
        buf, at = self._buf, self._pos
        left = len(buf) - at
        if left < 2:
            return None
        size = buf[at] | (buf[at + 1] << 8)
        if size < HEADER_SIZE or size > self.max_frame_size:
            raise DecodeError("ERR_FRAME_SIZE", f"frame size {size} outside [{HEADER_SIZE}, {self.max_frame_size}]")
        if left < size:
            return None
        opcode, crc = struct.unpack_from("<HH", buf, at + 2)
        payload = bytes(buf[at + HEADER_SIZE : at + size])
        actual = crc16(payload)
        if crc != actual:
            raise DecodeError(
                "ERR_BAD_CRC",
                f"crc 0x{crc:x} does not match payload crc 0x{actual:x} (opcode {opcode})",
                opcode,
            )
        self._pos = at + size
        return opcode, payload

    def frames(self, chunk: bytes = b"") -> Iterable[tuple[int, bytes]]:
        """Pushes `chunk` and yields every whole frame now buffered."""
        if chunk:
            self.push(chunk)
        while (f := self.next()) is not None:
            yield f


# ------------------------------------------------------------------ plain values

def to_wire(value: Any) -> Any:
    """A packet or record as plain data under its wire names (as the golden vectors print
    values): dataclasses become dicts keyed by wire name, bytes lowercase hex, and None
    fields are left out (JSON.stringify drops undefined)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = getattr(value, "WIRE_NAMES", None)
        out: dict[str, Any] = {}
        kind = getattr(type(value), "kind", None)
        if isinstance(kind, str):
            out["kind"] = kind
        for i, f in enumerate(dataclasses.fields(value)):
            v = getattr(value, f.name)
            if v is None:
                continue
            out[names[i] if names else f.name] = to_wire(v)
        return out
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return [to_wire(v) for v in value]
    return value
