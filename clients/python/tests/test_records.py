"""Entity records and motion references: moveBy and HERE paths resolved as the server means them."""

import math
import unittest

from wyvern_client import constants as C
from wyvern_client import packets
from wyvern_client.codec import FrameDecoder
from wyvern_client.records import (
    MotionRefs, MoveByRecord, MoveRecord, PathHereRecord, PathRecord, Point, SpawnRecord,
    dequantize_coord, quantize_coord,
)


def through_wire(tick, time, records):
    data = packets.encode(packets.WorldUpdate(tick=tick, time=time, records=records))
    opcode, payload = next(FrameDecoder().frames(data))
    return packets.decode(opcode, payload)


def spawn(id, speed=100.0):
    return SpawnRecord(id, "player", 0, "Ann", 1, 10, 10, speed, 0, True)


class Refs(unittest.TestCase):
    def test_heads_count_on_from_enter_world(self):
        refs = MotionRefs()
        refs.enter(1000, 1_763_000_000_000)
        for tick, time, want in [(0, 0, (1000, 1_763_000_000_000)), (1, 50, (1001, 1_763_000_000_050)),
                                 (3, 151, (1004, 1_763_000_000_201))]:
            u = through_wire(tick, time, [])
            refs.resolve(u)
            self.assertEqual((u.tick, u.time), want)

    def test_a_move_by_is_relative_to_where_the_walking_reference_puts_it(self):
        refs = MotionRefs()
        refs.enter(0, 10_000)
        first = through_wire(1, 50, [spawn(3), MoveRecord(3, 100, 200, 0, True, False)])
        refs.resolve(first)
        # 500 ms later at 100 units/s east: 50 units on, in coord steps, then 2 and -1 steps more.
        u = through_wire(10, 500, [MoveByRecord(3, 2, -1, math.pi / 2, False)])
        refs.resolve(u)
        [m] = u.records
        qx = quantize_coord(100) + math.floor(C.COS_STEPS[0] * 100 * 0.5 * 65535 / 4096 + 0.5) + 2
        self.assertIsInstance(m, MoveRecord)
        self.assertEqual((m.x, m.y), (dequantize_coord(qx), dequantize_coord(quantize_coord(200) - 1)))
        self.assertFalse(m.moving)
        self.assertAlmostEqual(m.angle, math.pi / 2)

    def test_an_aged_move_by_is_reckoned_at_its_own_time(self):
        refs = MotionRefs()
        refs.enter(0, 0)
        refs.resolve(through_wire(1, 1000, [spawn(3), MoveRecord(3, 100, 200, 0, True, False)]))
        u = through_wire(1, 1000, [MoveByRecord(3, 0, 0, None, True, age=400)])
        refs.resolve(u)
        [m] = u.records
        self.assertAlmostEqual(m.x, 100 + 60, delta=0.07)
        self.assertEqual(m.age, 400)

    def test_a_move_by_without_a_reference_is_dropped(self):
        refs = MotionRefs()
        refs.enter(0, 0)
        u = through_wire(1, 50, [MoveByRecord(5, 1, 1, None, True)])
        refs.resolve(u)
        self.assertEqual(u.records, [])

    def test_a_here_path_starts_where_the_reference_is_and_one_without_waypoints_stops(self):
        refs = MotionRefs()
        refs.enter(0, 0)
        mob = C.MOB_ID_BASE + 1
        refs.resolve(through_wire(1, 100, [spawn(mob, 10), PathRecord(mob, 100, 100, None, [Point(200, 100)])]))
        u = through_wire(1, 1000, [PathHereRecord(mob, None, [Point(150, 150)])])
        refs.resolve(u)
        [p] = u.records
        self.assertIsInstance(p, PathRecord)
        self.assertAlmostEqual(p.x, 110, delta=0.07)
        self.assertAlmostEqual(p.y, 100, delta=0.07)
        stop = through_wire(1, 1000, [PathHereRecord(mob, None, [])])
        refs.resolve(stop)
        [s] = stop.records
        self.assertIsInstance(s, MoveRecord)
        self.assertFalse(s.moving)
        self.assertAlmostEqual(s.angle, math.atan2(50, 40), delta=0.02)  # along the way it walked


if __name__ == "__main__":
    unittest.main()
