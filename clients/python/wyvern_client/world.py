"""What the client knows of the world near its character, and the movement rules it predicts
its own character with.

The view holds every entity the server spawned in view, kept up to date from the (resolved)
records of each WorldUpdate, plus the client's own entity from EnterWorld. Movement is state:
each entity keeps its newest motion state (where it was at a server time, whether it walks,
its heading and speed) or the path it walks, and `position_at` dead-reckons from it, at most
MAX_DEAD_RECKON_MS past the state (a walker whose updates stall is held where it got to).
Pure bookkeeping: no sockets, no clock; times are server milliseconds passed in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from . import constants as C
from .records import (
    DeathRecord, DespawnRecord, EntityRecord, HealthRecord, MoveRecord, PathRecord, RespawnRecord,
    SpawnRecord,
)


@dataclass
class Motion:
    """A motion state: at (x, y) at server time t; walking along `angle` at `speed` or standing."""

    x: float
    y: float
    t: float
    moving: bool = False
    angle: float = 0.0
    speed: float = 0.0


@dataclass
class Path:
    """A walk from (x, y) at server time t through the waypoints at `speed`, then a stop."""

    x: float
    y: float
    t: float
    waypoints: list[tuple[float, float]]
    speed: float
    facing: float


@dataclass
class Entity:
    id: int
    kind: str
    name: str
    level: int
    health: int
    max_health: int
    alive: bool
    speed: float
    template: int = 0
    appearance: int = 0
    is_self: bool = False
    motion: Motion | Path | None = None
    #: The newest known position and facing (the client's own prediction for its own entity).
    x: float = 0.0
    y: float = 0.0
    facing: float = 0.0

    @property
    def walking(self) -> bool:
        return isinstance(self.motion, Path) or (isinstance(self.motion, Motion) and self.motion.moving)


def reckon(m: Motion, t: float) -> tuple[float, float]:
    """Where a motion state puts its entity at t: never before the state, never past the hold."""
    if not m.moving:
        return m.x, m.y
    dt = min(max(0.0, t - m.t), C.MAX_DEAD_RECKON_MS) / 1000
    return m.x + math.cos(m.angle) * m.speed * dt, m.y + math.sin(m.angle) * m.speed * dt


def along_path(p: Path, t: float) -> tuple[float, float, float, bool]:
    """Where a path puts its walker at t: (x, y, facing, arrived)."""
    left = p.speed * max(0.0, t - p.t) / 1000
    fx, fy, facing = p.x, p.y, p.facing
    for tx, ty in p.waypoints:
        seg = math.hypot(tx - fx, ty - fy)
        if seg > 0:
            facing = math.atan2(ty - fy, tx - fx) % math.tau
        if left < seg:
            f = left / seg
            return fx + (tx - fx) * f, fy + (ty - fy) * f, facing, False
        left -= seg
        fx, fy = tx, ty
    return fx, fy, facing, True


Listener = Callable[[str, Entity | None, Any], None]


class WorldView:
    """Entities by id. Listeners get (change, entity, detail): 'enter', 'spawn', 'despawn'
    (detail: reason), 'move', 'path', 'health', 'death' (detail: killer id), 'respawn', 'reset'."""

    def __init__(self) -> None:
        self.entities: dict[int, Entity] = {}
        self.self_id: int | None = None
        self.zone: Any = None
        self.listeners: list[Listener] = []

    @property
    def me(self) -> Entity | None:
        return None if self.self_id is None else self.entities.get(self.self_id)

    def _emit(self, change: str, entity: Entity | None, detail: Any = None) -> None:
        for listener in list(self.listeners):
            listener(change, entity, detail)

    def reset(self) -> None:
        self.entities.clear()
        self.self_id = None
        self._emit("reset", None)

    def enter(self, e: Any, zone: Any) -> Entity:
        """Starts over from EnterWorld (and the ZoneInfo before it)."""
        self.entities.clear()
        self.zone = zone
        me = Entity(e.entity_id, "player", e.name, e.level, e.health, e.max_health, e.health > 0, e.speed,
                    is_self=True, x=e.x, y=e.y, facing=e.facing)
        self.self_id = me.id
        self.entities[me.id] = me
        self._emit("enter", me)
        return me

    def position_at(self, e: Entity, t: float) -> tuple[float, float, float]:
        """(x, y, facing) of an entity at server time t; the own entity is where it was put."""
        m = e.motion
        if e.is_self or m is None:
            return e.x, e.y, e.facing
        if isinstance(m, Path):
            x, y, facing, _ = along_path(m, t)
            return x, y, facing
        x, y = reckon(m, t)
        return x, y, m.angle

    def set_self_position(self, x: float, y: float, facing: float) -> None:
        me = self.me
        if me:
            me.x, me.y, me.facing = x, y, facing

    def apply_records(self, records: list[EntityRecord], at: float) -> None:
        """One resolved WorldUpdate's records, which happened at server time `at`."""
        i = 0
        while i < len(records):
            r = records[i]
            if isinstance(r, SpawnRecord):
                nxt = records[i + 1] if i + 1 < len(records) else None
                placed = nxt if isinstance(nxt, (MoveRecord, PathRecord)) and nxt.id == r.id else None
                if placed is not None:
                    i += 1
                self._spawn(r, placed, at)
            elif isinstance(r, (MoveRecord, PathRecord)):
                e = self.entities.get(r.id)
                if e and not e.is_self:
                    self._place(e, r, at)
                    self._emit("move" if isinstance(r, MoveRecord) else "path", e, getattr(r, "jump", False))
            elif isinstance(r, DespawnRecord):
                e = self.entities.get(r.id)
                if e and not e.is_self:
                    del self.entities[r.id]
                    self._emit("despawn", e, r.reason)
            elif isinstance(r, HealthRecord):
                e = self.entities.get(r.id)
                if e:
                    e.health, e.max_health = r.health, r.max_health
                    self._emit("health", e)
            elif isinstance(r, DeathRecord):
                e = self.entities.get(r.id)
                if e:
                    # It stops where it fell.
                    x, y, facing = self.position_at(e, at)
                    e.x, e.y, e.facing = x, y, facing
                    if not e.is_self:
                        e.motion = Motion(x, y, at, False, facing)
                    e.alive, e.health = False, 0
                    self._emit("death", e, r.killer_id)
            elif isinstance(r, RespawnRecord):
                e = self.entities.get(r.id)
                if e:
                    e.alive, e.health, e.max_health = True, r.health, r.max_health
                    e.x, e.y = r.x, r.y
                    if not e.is_self:
                        e.motion = Motion(r.x, r.y, at, False, e.facing)
                    self._emit("respawn", e)
            i += 1

    def _spawn(self, r: SpawnRecord, placed: MoveRecord | PathRecord | None, at: float) -> None:
        if r.id == self.self_id:
            return
        e = Entity(r.id, r.entity, r.name, r.level, r.health, r.max_health, r.alive, r.speed,
                   template=r.template, appearance=r.appearance)
        self.entities[r.id] = e
        if placed is not None:
            self._place(e, placed, at)
        self._emit("spawn", e)

    def _place(self, e: Entity, r: MoveRecord | PathRecord, at: float) -> None:
        if isinstance(r, MoveRecord):
            speed = (r.speed if r.speed is not None else e.speed) if r.moving else 0.0
            # A player's state is dated when its input took effect: `age` ms before the update.
            e.motion = Motion(r.x, r.y, at - (r.age or 0), r.moving, r.angle, speed)
            e.facing = r.angle
        else:
            speed = r.speed if r.speed is not None else e.speed
            e.motion = Path(r.x, r.y, at, [(p.x, p.y) for p in r.waypoints], speed, e.facing)
        e.x, e.y = r.x, r.y


# ------------------------------------------------------------------ movement rules


def blocked(x: float, y: float, obstacles: list[Any], radius: float = C.ENTITY_RADIUS) -> bool:
    """Whether a box of half-size `radius` at (x, y) overlaps any wall (the server's check)."""
    for o in obstacles:
        if x + radius > o.x and x - radius < o.x + o.w and y + radius > o.y and y - radius < o.y + o.h:
            return True
    return False


@dataclass
class Ground:
    """Where a player may walk: its zone and the zones beside it, and the walls ZoneInfo lists."""

    x: float
    y: float
    width: float
    height: float
    obstacles: list[Any] = field(default_factory=list)

    @classmethod
    def of(cls, zone: Any) -> "Ground":
        areas = [zone, *zone.neighbours]
        x0 = min(a.x for a in areas)
        y0 = min(a.y for a in areas)
        x1 = max(a.x + a.width for a in areas)
        y1 = max(a.y + a.height for a in areas)
        return cls(x0, y0, x1 - x0, y1 - y0, list(zone.obstacles))

    def clamp(self, x: float, y: float, radius: float = C.ENTITY_RADIUS) -> tuple[float, float]:
        return (min(max(x, self.x + radius), self.x + self.width - radius),
                min(max(y, self.y + radius), self.y + self.height - radius))

    def slide(self, fx: float, fy: float, tx: float, ty: float) -> tuple[float, float]:
        """A step from (fx, fy) toward (tx, ty), sliding along walls: the full step, else each
        axis alone, else none (as the server moves its own walkers)."""
        tx, ty = self.clamp(tx, ty)
        for x, y in ((tx, ty), (tx, fy), (fx, ty)):
            if not blocked(x, y, self.obstacles):
                return x, y
        return fx, fy


def angle_between(a: float, b: float) -> float:
    d = abs(a - b) % math.tau
    return math.tau - d if d > math.pi else d


class MoveSender:
    """When to send the own movement state: on start and stop, on a turn of more than
    CLIENT_TURN_EPSILON or a speed change of more than 1 unit/s, and every CLIENT_HEARTBEAT_MS
    while walking; never otherwise. Times are the client's own milliseconds."""

    def __init__(self) -> None:
        self.last = Motion(0, 0, -math.inf)

    def reset(self, now: float, x: float, y: float, facing: float) -> None:
        self.last = Motion(x, y, now, False, facing, 0.0)

    def update(self, now: float, x: float, y: float, heading: float, moving: bool, speed: float) -> Motion | None:
        last = self.last
        send = False
        if moving != last.moving:
            send = True
        elif moving:
            send = (angle_between(heading, last.angle) > C.CLIENT_TURN_EPSILON or abs(speed - last.speed) > 1
                    or now - last.t >= C.CLIENT_HEARTBEAT_MS)
        else:
            send = angle_between(heading, last.angle) > C.CLIENT_TURN_EPSILON
        if not send:
            return None
        self.last = Motion(x, y, now, moving, heading, speed if moving else 0.0)
        return self.last
