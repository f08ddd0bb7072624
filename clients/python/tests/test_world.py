"""The world view's dead reckoning and the movement rules the client predicts with."""

import math
import unittest

from wyvern_client import constants as C
from wyvern_client.packets import ZoneInfo, ZoneInfoNeighbour, ZoneInfoObstacle
from wyvern_client.records import MoveRecord, PathRecord, Point, SpawnRecord
from wyvern_client.world import Ground, MoveSender, WorldView


def spawned(view: WorldView, motion, at=1000.0):
    view.apply_records([SpawnRecord(7, "player", 0, "Ann", 1, 10, 10, 100.0, 0, True), motion], at)
    return view.entities[7]


class DeadReckoning(unittest.TestCase):
    def test_a_walker_is_reckoned_on_and_held_past_the_cap(self):
        view = WorldView()
        e = spawned(view, MoveRecord(7, 100, 100, 0, True, False))
        self.assertEqual(view.position_at(e, 1500)[:2], (150, 100))
        held = 100 + 100 * C.MAX_DEAD_RECKON_MS / 1000
        self.assertEqual(view.position_at(e, 1000 + C.MAX_DEAD_RECKON_MS + 5000)[:2], (held, 100))

    def test_an_aged_state_is_dated_before_the_update(self):
        view = WorldView()
        e = spawned(view, MoveRecord(7, 100, 100, math.pi / 2, True, False, speed=10, age=500))
        x, y, _ = view.position_at(e, 1000)
        self.assertAlmostEqual(x, 100)
        self.assertAlmostEqual(y, 105)

    def test_a_path_is_walked_and_ends_standing(self):
        view = WorldView()
        e = spawned(view, PathRecord(7, 0, 0, 10, [Point(10, 0), Point(10, 10)]))
        self.assertEqual(view.position_at(e, 1500)[:2], (5, 0))
        x, y, facing = view.position_at(e, 2500)
        self.assertEqual((x, y), (10, 5))
        self.assertAlmostEqual(facing, math.pi / 2)
        self.assertEqual(view.position_at(e, 9000)[:2], (10, 10))


class Movement(unittest.TestCase):
    zone = ZoneInfo(zone="Z", x=0, y=0, width=500, height=500, obstacles=[ZoneInfoObstacle(450, 0, 20, 500)],
                    neighbours=[ZoneInfoNeighbour("Y", 500, 0, 500, 500)], cell_size=64, respawn_delay=1000)

    def test_the_ground_covers_the_zone_and_its_neighbours(self):
        g = Ground.of(self.zone)
        self.assertEqual((g.x, g.y, g.width, g.height), (0, 0, 1000, 500))
        self.assertEqual(g.clamp(-5, 600), (C.ENTITY_RADIUS, 500 - C.ENTITY_RADIUS))

    def test_a_step_stops_short_of_a_wall_by_the_entity_radius_and_slides_along_it(self):
        g = Ground.of(self.zone)
        self.assertEqual(g.slide(441.9, 100, 442.1, 100), (441.9, 100))
        self.assertEqual(g.slide(440, 100, 445, 110), (440, 110))

    def test_states_are_sent_on_start_turn_heartbeat_and_stop_only(self):
        s = MoveSender()
        s.reset(0, 0, 0, 0)
        self.assertIsNotNone(s.update(10, 1, 0, 0, True, 100))
        self.assertIsNone(s.update(60, 6, 0, 0.01, True, 100))
        self.assertIsNotNone(s.update(110, 11, 0, 0.5, True, 100))
        self.assertIsNone(s.update(200, 20, 0, 0.5, True, 100))
        self.assertIsNotNone(s.update(110 + C.CLIENT_HEARTBEAT_MS, 30, 0, 0.5, True, 100))
        self.assertFalse(s.update(400, 30, 0, 0.5, False, 0).moving)


if __name__ == "__main__":
    unittest.main()
