"""The codec against every golden vector (test/protocol/golden/*.hex) and bad bytes."""

import json
import math
import os
import unittest
from pathlib import Path

from wyvern_client import packets
from wyvern_client.codec import DecodeError, EncodeError, FrameDecoder, crc16, frame, to_wire

GOLDEN = Path(os.environ.get("WYVERN_GOLDEN_DIR", Path(__file__).resolve().parents[3] / "test/protocol/golden"))


def load_golden(path: Path) -> tuple[dict, bytes]:
    value = None
    data = bytearray()
    for line in path.read_text("utf-8").splitlines():
        if line.startswith("# value: "):
            value = json.loads(line[len("# value: "):])
        elif line and not line.startswith("#"):
            data += bytes.fromhex(line)
    assert value is not None, f"{path.name} has no value line"
    return value, bytes(data)


def same(a, b) -> bool:
    """Equal as JSON values, numbers compared exactly (ints and floats alike)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    return a == b


class GoldenVectors(unittest.TestCase):
    def test_there_is_a_vector_for_every_packet(self):
        names = {p.stem for p in GOLDEN.glob("*.hex")}
        self.assertEqual(names, {p.name for p in packets.PACKETS})

    def test_every_vector_decodes_to_its_value_and_encodes_back(self):
        for path in sorted(GOLDEN.glob("*.hex")):
            with self.subTest(packet=path.stem):
                value, data = load_golden(path)
                frames = list(FrameDecoder().frames(data))
                self.assertEqual(len(frames), 1)
                opcode, payload = frames[0]
                self.assertEqual(packets.BY_OPCODE[opcode].name, path.stem)
                decoded = packets.decode(opcode, payload)
                self.assertTrue(same(to_wire(decoded), value), f"{to_wire(decoded)}\n!=\n{value}")
                self.assertEqual(packets.encode(decoded).hex(), data.hex())

    def test_every_vector_decodes_when_split_at_every_byte(self):
        for path in sorted(GOLDEN.glob("*.hex")):
            _, data = load_golden(path)
            stream = data * 2
            for cut in range(len(stream) + 1):
                d = FrameDecoder()
                got = list(d.frames(stream[:cut])) + list(d.frames(stream[cut:]))
                self.assertEqual(len(got), 2, f"{path.stem} cut at {cut}")
                self.assertEqual(d.buffered, 0)


class Frames(unittest.TestCase):
    def test_crc_check_value(self):
        self.assertEqual(crc16(b"123456789"), 0x29B1)
        self.assertEqual(crc16(b""), 0xFFFF)

    def test_list_characters_frame(self):
        self.assertEqual(packets.encode(packets.ListCharacters()).hex(), "06000102ffff")

    def test_a_bad_crc_is_refused(self):
        data = bytearray(packets.encode(packets.Ping(seq=1, client_time=2.5)))
        data[-1] ^= 1
        with self.assertRaises(DecodeError) as e:
            list(FrameDecoder().frames(bytes(data)))
        self.assertEqual(e.exception.code, "ERR_BAD_CRC")

    def test_a_size_below_the_header_is_refused(self):
        with self.assertRaises(DecodeError) as e:
            list(FrameDecoder().frames(b"\x05\x00\x01\x00"))
        self.assertEqual(e.exception.code, "ERR_FRAME_SIZE")

    def test_a_partial_frame_waits_for_more(self):
        d = FrameDecoder()
        self.assertEqual(list(d.frames(b"\x06\x00\x01")), [])
        self.assertEqual(list(d.frames(b"\x02\xff\xff")), [(0x0201, b"")])


class Payloads(unittest.TestCase):
    def decode_error(self, opcode: int, payload: bytes) -> str:
        with self.assertRaises(DecodeError) as e:
            packets.decode(opcode, payload)
        return e.exception.code

    def test_truncated_at_every_length_is_short(self):
        for path in sorted(GOLDEN.glob("*.hex")):
            _, data = load_golden(path)
            opcode = int.from_bytes(data[2:4], "little")
            for n in range(len(data) - 6):
                with self.subTest(packet=path.stem, length=n):
                    try:
                        packets.decode(opcode, data[6 : 6 + n])
                    except DecodeError as e:
                        self.assertEqual(e.code, "ERR_SHORT")
                    else:
                        # Records run to the end of the payload: a cut between two is valid.
                        self.assertEqual(path.stem, "WorldUpdate")

    def test_a_trailing_byte_is_overlong(self):
        self.assertEqual(self.decode_error(0x0201, b"\x00"), "ERR_OVERLONG")

    def test_field_errors_have_their_codes(self):
        self.assertEqual(self.decode_error(0x0302, b"\x01\x00\x00"), "ERR_SHORT")  # MoveAck u32
        self.assertEqual(self.decode_error(0x0005, b"\x00\x00\x00\x00\x02"), "ERR_BAD_BOOL")
        self.assertEqual(self.decode_error(0x0006, b"\x04\x00"), "ERR_BAD_ENUM")  # Bye reason
        self.assertEqual(self.decode_error(0x0206, b"\x80\x00"), "ERR_BAD_VARINT")  # not shortest
        self.assertEqual(self.decode_error(0x0206, b"\xff\xff\xff\xff\x10"), "ERR_BAD_VARINT")
        self.assertEqual(self.decode_error(0x0102, b"\x21" + b"a" * 33), "ERR_STRING_TOO_LONG")
        self.assertEqual(self.decode_error(0x0102, b"\x02\xc0\xaf"), "ERR_BAD_UTF8")
        self.assertEqual(self.decode_error(0x0102, b"\x03\xed\xa0\x80"), "ERR_BAD_UTF8")  # surrogate
        nan = b"\x00\x00\xc0\x7f"
        correction = b"\x00" * 4 + nan + b"\x00" * 7  # PositionCorrection with x = NaN
        self.assertEqual(self.decode_error(0x0303, correction), "ERR_BAD_NUMBER")
        self.assertEqual(self.decode_error(0x7777, b""), "ERR_UNKNOWN_OPCODE")

    def test_a_leading_byte_order_mark_is_kept(self):
        p = packets.Registered(account="\ufeffabc")
        opcode, payload = next(FrameDecoder().frames(packets.encode(p)))
        self.assertEqual(packets.decode(opcode, payload).account, "\ufeffabc")

    def test_values_that_do_not_fit_are_refused_on_encode(self):
        with self.assertRaises(EncodeError):
            packets.encode(packets.MoveAck(seq=-1))
        with self.assertRaises(EncodeError):
            packets.encode(packets.Registered(account="x" * 33))
        with self.assertRaises(EncodeError):
            packets.encode(packets.ChatSend(channel="shout", text="hi"))
        with self.assertRaises(EncodeError):
            packets.encode(packets.Ping(seq=1, client_time=math.inf))

    def test_angles_round_half_up_like_the_server(self):
        # 2.5 steps: JavaScript's Math.round gives 3 where Python's round would give 2.
        p = packets.MoveInput(seq=1, x=0, y=0, facing=2.5 * math.tau / 256, moving=False, speed=0,
                              client_time=0, epoch=0)
        self.assertEqual(packets.encode(p)[6 + 12], 3)


if __name__ == "__main__":
    unittest.main()
