"""Entity records, the body of a WorldUpdate (docs/PROTOCOL.md, "Entity records"), and the
motion references that make its moveBy records and HERE paths readable.

    body    := record*
    record  := idDelta varint . tag u8 . fields of the tag's kind
               id = idDelta when the tag has BASE (0x08), else previous id + idDelta
    tag     := kind (low 3 bits) | BASE 0x08 | flags (high 4 bits)

    kind 0 move     x coord . y coord . angle [. speed u16 if SPEED] [. age varint if AGE]
    kind 1 path     [x coord . y coord unless HERE] [. speed u16 if SPEED]
                    [. count u8 unless ONE] . (x coord . y coord) x count [. age varint if AGE]
    kind 2 spawn    entity u8 . template u16 . name string(16) . level u8 . health varint .
                    maxHealth varint . speed u16 . appearance u8            (ALIVE 0x10)
    kind 3 despawn  reason u8
    kind 4 health   health varint . maxHealth varint
    kind 5 death    killer varint
    kind 6 respawn  x coord . y coord . health varint . maxHealth varint
    kind 7 moveBy   dx zigzag . dy zigzag [. angle u8 unless SAME_ANGLE] [. speed u16 if SPEED]
                    [. age varint if AGE]

coord: u16 of COORD_MAX / 65535 units; angle: u8 of 2pi/256; speed: u16 of 1/16 unit/s.

MotionRefs keeps, per entity, the state of its newest move, moveBy or path record in wire
steps (the reference), exactly as the server does, and `resolve` turns a decoded WorldUpdate
into absolute form: the head's deltas summed, moveBy records into moves, HERE paths into paths
from a point (or standing moves where they stop), aged paths carried to the frame's time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar, Union

from . import constants as C
from .codec import DecodeError, EncodeError, Reader, Writer, js_round

COORD_SCALE = 65535 / C.COORD_MAX
COORD_STEP = C.COORD_MAX / 65535
ANGLE_STEP = math.pi * 2 / 256
KIND_MASK = 0x07


@dataclass
class Point:
    x: float
    y: float


@dataclass
class MoveRecord:
    id: int
    x: float
    y: float
    angle: float
    moving: bool
    jump: bool
    speed: float | None = None
    age: int | None = None
    kind: ClassVar[str] = "move"


@dataclass
class PathRecord:
    id: int
    x: float
    y: float
    speed: float | None
    waypoints: list[Point]
    age: int | None = None
    kind: ClassVar[str] = "path"


@dataclass
class PathHereRecord:
    """A path from where the entity's reference puts it: MotionRefs resolves it."""

    id: int
    speed: float | None
    waypoints: list[Point]
    age: int | None = None
    kind: ClassVar[str] = "pathHere"


@dataclass
class MoveByRecord:
    """A move relative to the entity's reference: MotionRefs resolves it."""

    id: int
    dx: int
    dy: int
    angle: float | None
    moving: bool
    speed: float | None = None
    age: int | None = None
    kind: ClassVar[str] = "moveBy"


@dataclass
class SpawnRecord:
    id: int
    entity: str
    template: int
    name: str
    level: int
    health: int
    max_health: int
    speed: float
    appearance: int
    alive: bool
    kind: ClassVar[str] = "spawn"
    WIRE_NAMES: ClassVar[tuple[str, ...]] = (
        "id", "entity", "template", "name", "level", "health", "maxHealth", "speed", "appearance", "alive",
    )


@dataclass
class DespawnRecord:
    id: int
    reason: str
    kind: ClassVar[str] = "despawn"


@dataclass
class HealthRecord:
    id: int
    health: int
    max_health: int
    kind: ClassVar[str] = "health"
    WIRE_NAMES: ClassVar[tuple[str, ...]] = ("id", "health", "maxHealth")


@dataclass
class DeathRecord:
    id: int
    killer_id: int
    kind: ClassVar[str] = "death"
    WIRE_NAMES: ClassVar[tuple[str, ...]] = ("id", "killerId")


@dataclass
class RespawnRecord:
    id: int
    x: float
    y: float
    health: int
    max_health: int
    kind: ClassVar[str] = "respawn"
    WIRE_NAMES: ClassVar[tuple[str, ...]] = ("id", "x", "y", "health", "maxHealth")


EntityRecord = Union[
    MoveRecord, PathRecord, PathHereRecord, MoveByRecord, SpawnRecord, DespawnRecord, HealthRecord,
    DeathRecord, RespawnRecord,
]


def record_to_wire(r: EntityRecord) -> dict:
    """A record as the TypeScript decoder's object: `kind` first, wire names, no None."""
    from .codec import to_wire

    return {"kind": r.kind, **to_wire(r)}


# ------------------------------------------------------------------ scalar steps

def quantize_coord(v: float) -> int:
    return min(max(js_round(v * COORD_SCALE), 0), 65535)


def dequantize_coord(q: int) -> float:
    return q * COORD_STEP


def quantize_angle(a: float) -> int:
    turns = a / (math.pi * 2)
    return js_round((turns - math.floor(turns)) * 256) & 0xFF


def dequantize_angle(q: int) -> float:
    return q * ANGLE_STEP


def quantize_speed(s: float) -> int:
    return min(max(js_round(s * 16), 0), 0xFFFF)


def dequantize_speed(q: int) -> float:
    return q / 16


def zigzag(n: int) -> int:
    return n * 2 if n >= 0 else -n * 2 - 1


def unzigzag(z: int) -> int:
    return z // 2 if z % 2 == 0 else -(z + 1) // 2


# ------------------------------------------------------------------ reading

def _coord(r: Reader) -> float:
    return r.u16() * COORD_STEP


def _speed(r: Reader) -> float:
    return r.u16() / 16


def _read_record(r: Reader, id: int, tag: int) -> EntityRecord:
    flags = tag & 0xF0
    kind = tag & KIND_MASK
    if kind == C.RECORD_MOVE:
        x, y, angle = _coord(r), _coord(r), r.u8() * ANGLE_STEP
        speed = _speed(r) if flags & C.SPEED else None
        age = r.varint() if flags & C.AGE else None
        return MoveRecord(id, x, y, angle, bool(flags & C.MOVING), bool(flags & C.JUMP), speed, age)
    if kind == C.RECORD_MOVE_BY:
        dx, dy = unzigzag(r.varint()), unzigzag(r.varint())
        angle = None if flags & C.SAME_ANGLE else r.u8() * ANGLE_STEP
        speed = _speed(r) if flags & C.SPEED else None
        age = r.varint() if flags & C.AGE else None
        return MoveByRecord(id, dx, dy, angle, bool(flags & C.MOVING), speed, age)
    if kind == C.RECORD_PATH:
        here = bool(flags & C.HERE)
        x = 0.0 if here else _coord(r)
        y = 0.0 if here else _coord(r)
        speed = _speed(r) if flags & C.SPEED else None
        n = 1 if flags & C.ONE else r.u8()
        if n > C.MAX_PATH_POINTS:
            raise DecodeError("ERR_LIST_TOO_LONG", f"path of {n} waypoints exceeds {C.MAX_PATH_POINTS}")
        waypoints = [Point(_coord(r), _coord(r)) for _ in range(n)]
        age = r.varint() if flags & C.AGE else None
        if here:
            return PathHereRecord(id, speed, waypoints, age)
        return PathRecord(id, x, y, speed, waypoints, age)
    if kind == C.RECORD_SPAWN:
        if flags & ~C.ALIVE:
            raise DecodeError("ERR_BAD_ENUM", f"spawn record flags 0x{flags:x}")
        e = r.u8()
        if e >= len(C.ENTITY_KIND):
            raise DecodeError("ERR_BAD_ENUM", f"entity kind {e} is not below {len(C.ENTITY_KIND)}")
        return SpawnRecord(
            id=id,
            entity=C.ENTITY_KIND[e],
            template=r.u16(),
            name=r.string(C.NAME_MAX),
            level=r.u8(),
            health=r.varint(),
            max_health=r.varint(),
            speed=_speed(r),
            appearance=r.u8(),
            alive=bool(flags & C.ALIVE),
        )
    if flags:
        raise DecodeError("ERR_BAD_ENUM", f"record kind {kind} takes no flags, got 0x{flags:x}")
    if kind == C.RECORD_DESPAWN:
        i = r.u8()
        if i >= len(C.DESPAWN_REASON):
            raise DecodeError("ERR_BAD_ENUM", f"despawn reason {i} is not below {len(C.DESPAWN_REASON)}")
        return DespawnRecord(id, C.DESPAWN_REASON[i])
    if kind == C.RECORD_HEALTH:
        return HealthRecord(id, r.varint(), r.varint())
    if kind == C.RECORD_DEATH:
        return DeathRecord(id, r.varint())
    # The kind is 3 bits and every value is a kind: this is respawn.
    return RespawnRecord(id, _coord(r), _coord(r), r.varint(), r.varint())


def read_records(r: Reader) -> list[EntityRecord]:
    """Reads records to the end of the payload."""
    out: list[EntityRecord] = []
    id = 0
    while r.pos < r.end:
        delta = r.varint()
        tag = r.u8()
        id = delta if tag & C.BASE else id + delta
        if id > 0xFFFFFFFF:
            raise DecodeError("ERR_BAD_VARINT", f"entity id {id} beyond u32")
        out.append(_read_record(r, id, tag))
    return out


# ------------------------------------------------------------------ writing

def _finite(v: float, what: str) -> float:
    if not isinstance(v, (int, float)) or not math.isfinite(v):
        raise EncodeError(f"{what} must be finite: {v!r}")
    return v


def _write_coord(w: Writer, v: float) -> None:
    w.u16(quantize_coord(_finite(v, "coord")))


def _write_speed(w: Writer, v: float) -> None:
    w.u16(quantize_speed(_finite(v, "speed")))


def _write_record(w: Writer, delta: int, r: EntityRecord, base: bool) -> None:
    b = C.BASE if base else 0
    w.varint(delta)
    if isinstance(r, MoveRecord):
        aged = bool(r.age)
        w.u8(C.RECORD_MOVE | b | (C.MOVING if r.moving else 0) | (C.JUMP if r.jump else 0)
             | (C.SPEED if r.speed is not None else 0) | (C.AGE if aged else 0))
        _write_coord(w, r.x)
        _write_coord(w, r.y)
        w.u8(quantize_angle(_finite(r.angle, "angle")))
        if r.speed is not None:
            _write_speed(w, r.speed)
        if aged:
            w.varint(r.age)
    elif isinstance(r, MoveByRecord):
        aged = bool(r.age)
        w.u8(C.RECORD_MOVE_BY | b | (C.MOVING if r.moving else 0) | (C.SAME_ANGLE if r.angle is None else 0)
             | (C.SPEED if r.speed is not None else 0) | (C.AGE if aged else 0))
        for d in (r.dx, r.dy):
            if not isinstance(d, int) or not -65535 <= d <= 65535:
                raise EncodeError(f"moveBy step out of range: {d!r}")
            w.varint(zigzag(d))
        if r.angle is not None:
            w.u8(quantize_angle(_finite(r.angle, "angle")))
        if r.speed is not None:
            _write_speed(w, r.speed)
        if aged:
            w.varint(r.age)
    elif isinstance(r, (PathRecord, PathHereRecord)):
        n = len(r.waypoints)
        if n > C.MAX_PATH_POINTS:
            raise EncodeError(f"path of {n} waypoints exceeds {C.MAX_PATH_POINTS}")
        here = isinstance(r, PathHereRecord)
        aged = bool(r.age)
        w.u8(C.RECORD_PATH | b | (C.HERE if here else 0) | (C.ONE if n == 1 else 0)
             | (C.SPEED if r.speed is not None else 0) | (C.AGE if aged else 0))
        if not here:
            _write_coord(w, r.x)
            _write_coord(w, r.y)
        if r.speed is not None:
            _write_speed(w, r.speed)
        if n != 1:
            w.u8(n)
        for p in r.waypoints:
            _write_coord(w, p.x)
            _write_coord(w, p.y)
        if aged:
            w.varint(r.age)
    elif isinstance(r, SpawnRecord):
        w.u8(C.RECORD_SPAWN | b | (C.ALIVE if r.alive else 0))
        w.enum(C.ENTITY_KIND, r.entity)
        w.u16(r.template)
        w.string(r.name, C.NAME_MAX)
        w.u8(r.level)
        w.varint(r.health)
        w.varint(r.max_health)
        _write_speed(w, r.speed)
        w.u8(r.appearance)
    elif isinstance(r, DespawnRecord):
        w.u8(C.RECORD_DESPAWN | b)
        w.enum(C.DESPAWN_REASON, r.reason)
    elif isinstance(r, HealthRecord):
        w.u8(C.RECORD_HEALTH | b)
        w.varint(r.health)
        w.varint(r.max_health)
    elif isinstance(r, DeathRecord):
        w.u8(C.RECORD_DEATH | b)
        w.varint(r.killer_id)
    elif isinstance(r, RespawnRecord):
        w.u8(C.RECORD_RESPAWN | b)
        _write_coord(w, r.x)
        _write_coord(w, r.y)
        w.varint(r.health)
        w.varint(r.max_health)
    else:
        raise EncodeError(f"not an entity record: {r!r}")


def write_records(w: Writer, records: list[EntityRecord]) -> None:
    """Writes records as blocks: a new block (BASE) starts wherever an id goes down."""
    prev = None
    for r in records:
        if not isinstance(r.id, int) or not 0 <= r.id <= 0xFFFFFFFF:
            raise EncodeError(f"entity id out of range: {r.id!r}")
        base = prev is None or r.id < prev
        _write_record(w, r.id if base else r.id - prev, r, base)
        prev = r.id


# ------------------------------------------------------------------ motion references

def reckon_ref(e: "_Entry", t: float) -> tuple[int, int]:
    """Where a move reference puts its entity at server time t, in coord steps: standing,
    its position; walking, q + round(cos/sin(angle) * speed * dt * 65535 / COORD_MAX),
    in IEEE doubles, rounded half up, clamped to [0, 65535]."""
    if not e.moving or t == e.t:
        return e.qx, e.qy
    d = ((e.qs / 16) * (t - e.t) * COORD_SCALE) / 1000
    a = e.qa & 0xFF
    x = math.floor(e.qx + C.COS_STEPS[a] * d + 0.5)
    y = math.floor(e.qy + C.SIN_STEPS[a] * d + 0.5)
    return min(max(x, 0), 65535), min(max(y, 0), 65535)


def reckon_path(e: "_Entry", t: float) -> tuple[int, int, int, int]:
    """Where a path reference puts its entity at t: (qx, qy, facing step, index of the first
    waypoint not yet reached; len(pts) // 2 once arrived)."""
    pts = e.pts or []
    left = ((e.qs / 16) * (t - e.t) * COORD_SCALE) / 1000 if t > e.t else 0
    fx, fy, qa = e.qx, e.qy, e.qa
    for i in range(0, len(pts), 2):
        tx, ty = pts[i], pts[i + 1]
        dx, dy = tx - fx, ty - fy
        length = math.sqrt(dx * dx + dy * dy)
        if length > 0:
            qa = quantize_angle(math.atan2(dy, dx))
        if left < length:
            f = left / length
            return math.floor(fx + dx * f + 0.5), math.floor(fy + dy * f + 0.5), qa, i // 2
        left -= length
        fx, fy = tx, ty
    return fx, fy, qa, len(pts) // 2


@dataclass
class _Entry:
    qx: int = 0
    qy: int = 0
    qa: int = 0
    moving: bool = False
    qs: int = 0
    t: float = 0
    spawn_qs: int = 0
    held: bool = False
    pts: list[int] | None = field(default=None)


def _points(waypoints: list[Point]) -> list[int]:
    out: list[int] = []
    for p in waypoints:
        out += (quantize_coord(p.x), quantize_coord(p.y))
    return out


class MotionRefs:
    """The receiving half of a WorldUpdate's stateful parts; one per connection.

    Call `enter(tick, time)` on EnterWorld and on ZoneChanged, then `resolve(update)` on
    every WorldUpdate in order. A moveBy or HERE path for an entity without a reference (the
    client's own entity, which it predicts) is dropped.
    """

    def __init__(self) -> None:
        self.tick = 0
        self.time = 0.0
        self._refs: dict[int, _Entry] = {}

    def enter(self, tick: int, time: float) -> None:
        self.tick = tick
        self.time = time
        self._refs.clear()

    def _reckon(self, e: _Entry, t: float) -> tuple[int, int, int, int]:
        if e.pts:
            return reckon_path(e, t)
        qx, qy = reckon_ref(e, t)
        return qx, qy, e.qa, 0

    def _start_path(self, e: _Entry, qx: int, qy: int, qa: int, qs: int, pts: list[int], t: float) -> None:
        e.qx, e.qy, e.qa, e.t, e.held = qx, qy, qa, t, True
        e.qs = qs if qs >= 0 else e.spawn_qs
        if pts:
            e.moving, e.pts = True, list(pts)
        else:
            # Stopped: a standing move reference, facing along the way it came.
            e.moving, e.pts = False, None

    def resolve(self, update) -> None:
        """Rewrites a decoded WorldUpdate in place into its absolute form."""
        self.tick += update.tick
        self.time += update.time
        update.tick, update.time = self.tick, self.time
        out: list[EntityRecord] = []
        for r in update.records:
            resolved = self._resolve(r)
            if resolved is not None:
                out.append(resolved)
        update.records = out

    def _resolve(self, r: EntityRecord) -> EntityRecord | None:
        refs = self._refs
        if isinstance(r, SpawnRecord):
            e = refs.get(r.id)
            if e is None:
                refs[r.id] = _Entry(spawn_qs=quantize_speed(r.speed))
            else:
                e.spawn_qs, e.held, e.pts = quantize_speed(r.speed), False, None
            return r
        if isinstance(r, DespawnRecord):
            refs.pop(r.id, None)
            return r
        if isinstance(r, MoveRecord):
            e = refs.get(r.id)
            if e is None:
                e = refs[r.id] = _Entry()
            qs = -1 if r.speed is None else quantize_speed(r.speed)
            e.pts = None
            e.qx, e.qy, e.qa = quantize_coord(r.x), quantize_coord(r.y), quantize_angle(r.angle)
            e.moving = r.moving
            e.qs = qs if qs >= 0 else e.spawn_qs
            e.t = self.time - (r.age or 0)
            e.held = True
            return r
        if isinstance(r, MoveByRecord):
            e = refs.get(r.id)
            if e is None or not e.held:
                return None
            t = self.time - (r.age or 0)
            qx, qy, qa, _ = self._reckon(e, t)
            if e.pts:
                # From a path reference: a move reference from here on, facing as it walked.
                e.qa, e.pts = qa, None
            e.qx = min(max(qx + r.dx, 0), 65535)
            e.qy = min(max(qy + r.dy, 0), 65535)
            if r.angle is not None:
                e.qa = quantize_angle(r.angle)
            e.moving = r.moving
            e.qs = quantize_speed(r.speed) if r.speed is not None else e.spawn_qs
            e.t = t
            return MoveRecord(
                id=r.id,
                x=dequantize_coord(e.qx),
                y=dequantize_coord(e.qy),
                angle=dequantize_angle(e.qa),
                moving=e.moving,
                jump=False,
                speed=None if r.speed is None else dequantize_speed(e.qs),
                age=r.age or None,
            )
        if isinstance(r, PathRecord):
            e = refs.get(r.id)
            if e is None:
                e = refs[r.id] = _Entry()
            qs = -1 if r.speed is None else quantize_speed(r.speed)
            self._start_path(e, quantize_coord(r.x), quantize_coord(r.y), e.qa, qs, _points(r.waypoints),
                             self.time - (r.age or 0))
            return self._carried(e, r) if r.age else r
        if isinstance(r, PathHereRecord):
            e = refs.get(r.id)
            if e is None or not e.held:
                return None
            t = self.time - (r.age or 0)
            qx, qy, qa, _ = self._reckon(e, t)
            qs = -1 if r.speed is None else quantize_speed(r.speed)
            self._start_path(e, qx, qy, qa, qs, _points(r.waypoints), t)
            path = PathRecord(r.id, dequantize_coord(qx), dequantize_coord(qy), r.speed, r.waypoints)
            return self._carried(e, path)
        return r

    def _carried(self, e: _Entry, r: PathRecord) -> EntityRecord:
        """A path as of the frame's time: from where the entity is then through the waypoints
        not yet reached, or a standing move where it has arrived (or stopped)."""
        qx, qy, qa, nxt = self._reckon(e, self.time)
        x, y = dequantize_coord(qx), dequantize_coord(qy)
        if not e.pts or nxt * 2 >= len(e.pts):
            return MoveRecord(r.id, x, y, dequantize_angle(qa), False, False)
        if nxt == 0 and e.t == self.time:
            return r
        return PathRecord(r.id, x, y, r.speed, r.waypoints[nxt:])
