"""The command-line client: logs in, enters the world and prints what happens near the
character as readable lines; commands come from stdin, one per line, typed or piped.

    python3 -m wyvern_client --host 127.0.0.1 --port 7777 --user NAME --password PW
    printf 'move 300 300\\n/say hello\\nwait 2000\\n' | python3 -m wyvern_client --user NAME --password PW

At the end of piped input it lingers for --linger ms, logs out and exits 0. The password may
come from WYVERN_PASSWORD instead. When the connection drops (not a goodbye from the server),
it reconnects with backoff and resumes: the server keeps the character in the world for a few
seconds, so it is back where it stood.
"""

from __future__ import annotations

import argparse
import math
import os
import queue
import sys
import threading
import time
from typing import Any

from . import constants as C
from . import packets as P
from .client import Client, WyvernError, now_ms, reconnect
from .world import Entity, Ground, MoveSender, WorldView

COMMANDS = """Commands:
  /say TEXT, /s TEXT       say (heard nearby)
  /zone TEXT, /z TEXT      say to the whole zone
  /w NAME TEXT             whisper
  move X Y                 walk there (sliding along walls)
  where                    where you are
  look                     what is in view, where it is now
  who                      who is online
  wait MS                  do nothing for MS milliseconds
  quit                     log out and exit"""

WORLD_COMMANDS = {"/say", "/s", "/zone", "/z", "/w", "/whisper", "move", "who"}
DESPAWN_WORDS = {"outOfRange": "leaves view", "left": "left the world", "corpse": "is gone"}


def out(line: str) -> None:
    print(line, flush=True)


class Session:
    def __init__(self, client: Client, world: WorldView) -> None:
        self.client = client
        self.world = world
        self.moved: set[int] = set()
        self.last_summary = time.monotonic()
        self.finishing = False
        world.listeners.append(self.on_world)
        self.attach(client)

    def attach(self, client: Client) -> None:
        """From now on commands go to, and lines come from, `client` (a resumed connection)."""
        self.client = client
        client.on(P.ChatMessage, self.on_chat)
        client.on(P.ZoneChanged, lambda z: out(f"You are in {z.zone} now."))
        client.on(P.PositionCorrection,
                  lambda c: out(f"Position corrected to {round(c.x)},{round(c.y)} ({c.reason})"))
        client.on(P.Bye, lambda b: out(f"The server says goodbye ({b.reason}){': ' + b.message if b.message else ''}"))
        client.on(P.CombatEvent, self.on_combat)
        client.on_error = lambda e: out(f"Error: {e}")

    # ---- naming --------------------------------------------------------------------------

    def name(self, id: int) -> str:
        if id == self.world.self_id:
            return "You"
        e = self.world.entities.get(id)
        return e.name if e and e.name else f"#{id}"

    @staticmethod
    def describe(e: Entity) -> str:
        return f"{e.name or '#' + str(e.id)} (lvl {e.level}, {e.kind} #{e.id})"

    # ---- what happens --------------------------------------------------------------------

    def on_chat(self, m: P.ChatMessage) -> None:
        if m.channel == "system":
            out(f"[system] {m.text}")
        elif m.channel == "whisper":
            mine = m.from_id == self.world.self_id
            out(f"[whisper to {m.to}] {m.text}" if mine else f"[whisper from {m.from_}] {m.text}")
        else:
            out(f"[{m.channel}] {m.from_}: {m.text}")

    def on_combat(self, c: P.CombatEvent) -> None:
        verb = "heals" if c.kind == "heal" else "hits"
        out(f"{self.name(c.source_id)} {verb} {self.name(c.target_id)} for {c.amount}{' (critical)' if c.crit else ''}")

    def on_world(self, change: str, e: Entity | None, detail: Any) -> None:
        if e is None or e.is_self and change in ("spawn", "move", "path"):
            return
        if change == "spawn":
            out(f"{self.describe(e)} appears at {round(e.x)},{round(e.y)}{'' if e.alive else ' (dead)'}")
        elif change == "despawn":
            self.moved.discard(e.id)
            out(f"{e.name}'s corpse decays" if detail == "corpse" else f"{e.name or '#' + str(e.id)} {DESPAWN_WORDS[detail]}")
        elif change in ("move", "path"):
            self.moved.add(e.id)
        elif change == "death":
            killer = f", killed by {self.name(detail)}" if detail else ""
            out(f"{self.name(e.id)} {'die' if e.is_self else 'dies'}{killer}")
        elif change == "respawn":
            out(f"{self.name(e.id)} {'respawn' if e.is_self else 'respawns'} at {round(e.x)},{round(e.y)} "
                f"({e.health}/{e.max_health} hp)")

    def tick(self) -> None:
        """Once a second: how many others moved."""
        if time.monotonic() - self.last_summary < 1:
            return
        self.last_summary = time.monotonic()
        if self.moved:
            n = len(self.moved)
            self.moved.clear()
            out(f"{n} {'entity' if n == 1 else 'entities'} moved")

    def pump(self, seconds: float) -> None:
        """Handles the connection for `seconds` (returns early if it closes)."""
        end = time.monotonic() + seconds
        while not self.client.closed:
            left = end - time.monotonic()
            self.client.pump(max(0.0, min(left, 0.05)))
            self.tick()
            if left <= 0:
                return

    # ---- commands ------------------------------------------------------------------------

    def command(self, line: str) -> bool:
        """Runs one command line; False on quit."""
        text = line.strip()
        if not text or text.startswith("#"):
            return True
        head, _, rest = text.partition(" ")
        cmd, rest = head.lower(), rest.strip()
        c = self.client
        if cmd in WORLD_COMMANDS and c.state != "inWorld":
            out(f"Not in the world right now{' (reconnecting)' if c.closed else ''}.")
            return True
        if cmd in ("/say", "/s", "/zone", "/z"):
            if rest:
                c.say(rest, "zone" if cmd in ("/zone", "/z") else "say")
        elif cmd in ("/w", "/whisper"):
            to, _, msg = rest.partition(" ")
            if not to or not msg.strip():
                out("Usage: /w NAME TEXT")
            else:
                c.whisper(to, msg.strip())
        elif cmd == "move":
            try:
                x, y = (float(v) for v in rest.split())
            except ValueError:
                out("Usage: move X Y")
                return True
            self.walk_to(x, y)
        elif cmd == "where":
            me = self.world.me
            if not me:
                out("Not in the world.")
            else:
                zone = c.zone.zone if c.zone else "?"
                out(f"You are at {round(me.x)},{round(me.y)} in {zone} ({me.health}/{me.max_health} hp)")
        elif cmd == "look":
            now = c.server_now()
            others = [e for e in self.world.entities.values() if not e.is_self]
            out(f"{len(others)} in view")
            for e in sorted(others, key=lambda e: e.id):
                x, y, _ = self.world.position_at(e, now)
                state = "dead" if not e.alive else "walking" if e.walking else "standing"
                out(f"  {self.describe(e)} at {x:.1f},{y:.1f} {state}")
        elif cmd == "who":
            try:
                w = c.who()
                names = ", ".join(f"{p.name} (lvl {p.level}, {p.zone})" for p in w.players)
                out(f"{w.total} online{': ' + names if names else ''}")
            except WyvernError as e:
                out(f"Error: {e}")
        elif cmd in ("wait", "sleep"):
            try:
                self.pump(max(0.0, float(rest)) / 1000)
            except ValueError:
                out("Usage: wait MS")
        elif cmd in ("quit", "exit", "logout"):
            return False
        elif cmd in ("help", "?"):
            out(COMMANDS)
        else:
            out(f'Unknown command "{head}" (type help)')
        return True

    def walk_to(self, x: float, y: float) -> None:
        """Walks toward (x, y) at the character's speed, predicting each 1/MOVE_SEND_HZ s and
        sending movement states when MoveSender says (start, turns, heartbeat, the stop)."""
        c = self.client
        me = self.world.me
        if not me or not c.zone:
            out("Not in the world.")
            return
        ground, zone_name = Ground.of(c.zone), c.zone.zone
        gx, gy = ground.clamp(x, y)
        # A little under full speed: the server's check must never see an input as too fast.
        speed = (me.speed or C.PLAYER_SPEED) * 0.95
        sender = MoveSender()
        sender.reset(now_ms(), me.x, me.y, me.facing)
        corrected: list[Any] = []
        off = c.on(P.PositionCorrection, corrected.append)
        out(f"Walking to {round(gx)},{round(gy)}")
        last = time.monotonic()
        stuck = 0
        try:
            while not c.closed:
                self.pump(1 / C.MOVE_SEND_HZ)
                me = self.world.me
                if c.closed or me is None:
                    return
                if corrected:
                    # The server stands a corrected walker where it says: a new start from there.
                    sender.reset(now_ms(), me.x, me.y, me.facing)
                    corrected.clear()
                if not me.alive:
                    out("You cannot move while dead.")
                    break
                now = time.monotonic()
                elapsed, last = min(now - last, 0.25), now
                left = math.hypot(gx - me.x, gy - me.y)
                if left < 0.5:
                    out(f"Arrived at {round(me.x)},{round(me.y)}")
                    break
                step = min(left, speed * elapsed)
                if c.zone is not None and c.zone.zone != zone_name:
                    # Into the zone beside: its ground and walls from now on.
                    ground, zone_name = Ground.of(c.zone), c.zone.zone
                nx, ny = ground.slide(me.x, me.y, me.x + (gx - me.x) / left * step, me.y + (gy - me.y) / left * step)
                moved = math.hypot(nx - me.x, ny - me.y)
                if moved < 0.01:
                    stuck += 1
                    if stuck >= 3:
                        out(f"Blocked at {round(me.x)},{round(me.y)}")
                        break
                    continue
                stuck = 0
                heading = math.atan2(ny - me.y, nx - me.x) % math.tau
                # Along a wall the walk is slower than the step asked for: that speed is sent.
                walk_speed = speed * moved / step if moved < step - 0.01 else speed
                self.world.set_self_position(nx, ny, heading)
                state = sender.update(now_ms(), nx, ny, heading, True, walk_speed)
                if state:
                    c.send_move(state.x, state.y, state.angle, True, state.speed)
            me = self.world.me
            if me and not c.closed:
                stop = sender.update(now_ms(), me.x, me.y, me.facing, False, 0)
                if stop:
                    c.send_move(stop.x, stop.y, stop.angle, False, 0)
        finally:
            off()


def stdin_lines(q: "queue.Queue[str | None]") -> None:
    for line in sys.stdin:
        q.put(line)
    q.put(None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m wyvern_client", description="Wyvern command-line client (TCP).",
                                 epilog=COMMANDS, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--host", default="127.0.0.1", help="server host (default 127.0.0.1)")
    ap.add_argument("--port", type=int, default=7777, help="server TCP port (default 7777)")
    ap.add_argument("--user", required=True, help="account name")
    ap.add_argument("--password", default=os.environ.get("WYVERN_PASSWORD"), help="password (or WYVERN_PASSWORD)")
    ap.add_argument("--register", action="store_true",
                    help="register the account first (otherwise only when the login fails and the name is free)")
    ap.add_argument("--character", help="play this character (created if missing; default: the first one)")
    ap.add_argument("--linger", type=int, default=0, help="at the end of piped input, wait this many ms")
    ap.add_argument("--timeout", type=float, default=15.0, help="connect and request timeout in seconds")
    ap.add_argument("--reconnect-attempts", type=int, default=8,
                    help="after a dropped connection, tries to resume this many times (0: never)")
    args = ap.parse_args(argv)
    if not args.password:
        ap.error("--password (or WYVERN_PASSWORD) is required")
    try:
        return run(args)
    except (WyvernError, OSError) as e:
        print(f"Error: {e}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        return 130


def authenticate(c: Client, user: str, password: str, register_first: bool) -> None:
    def register() -> bool:
        if len(password) < C.MIN_PASSWORD_LENGTH:
            raise WyvernError("ERR_BAD_PASSWORD", f"choose a password of at least {C.MIN_PASSWORD_LENGTH} characters")
        try:
            c.register(user, password)
            out(f"Registered account {user}")
            return True
        except WyvernError as e:
            if e.code == "ERR_ACCOUNT_TAKEN":
                return False
            raise

    queue_line = lambda pos, n: out(f"In the login queue: {pos} of {n}")  # noqa: E731
    if register_first and not register():
        out(f"Account {user} exists already; logging in")
    try:
        c.login(user, password, queue_line)
    except WyvernError as e:
        # An unknown account and a wrong password look alike (by design); a free name means the former.
        if register_first or e.code != "ERR_BAD_LOGIN" or not register():
            raise
        c.login(user, password, queue_line)
    out(f"Logged in as {c.account}")


def run(args: argparse.Namespace) -> int:
    world = WorldView()
    connect = lambda: Client.connect(args.host, args.port, world, args.timeout)  # noqa: E731
    c = connect()
    out(f"Connected to {args.host}:{args.port}")
    w = c.hello()
    out(f"Server: {w.server_name} (protocol {w.protocol_version}, {w.tick_rate} ticks/s)")
    authenticate(c, args.user, args.password, args.register)

    characters = c.list_characters()
    wanted = args.character
    character = next((ch for ch in characters if ch.name.lower() == wanted.lower()), None) if wanted else (
        characters[0] if characters else None)
    if character is None:
        name = wanted or "".join(ch for ch in args.user if ch.isalpha())[:16].capitalize()
        character = c.create_character(name, 0)
        out(f"Created character {character.name}")

    session = Session(c, world)
    entered = c.enter_world(character.id)
    e = entered.enter
    out(f"Entered {entered.zone.zone} as {e.name} (lvl {e.level}, player #{e.entity_id}) at "
        f"{round(e.x)},{round(e.y)}: {e.health}/{e.max_health} hp, {e.mana}/{e.max_mana} mana")
    out("Spells: " + (", ".join(f"{i + 1} {s.name} (#{s.id})" for i, s in enumerate(entered.spells.spells)) or "none"))

    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=stdin_lines, args=(lines,), daemon=True).start()
    eof = False
    while True:
        if c.closed:
            out(f"Disconnected: {c.closed_reason}")
            if c.bye is not None or args.reconnect_attempts == 0 or not c.resume_token:
                return 1
            dropped = time.monotonic()
            try:
                c, resumed, back = reconnect(connect, c.account or args.user, c.resume_token,
                                             args.reconnect_attempts, args.password, out, session.attach)
            except (OSError, WyvernError) as err:
                out(f"Could not get back in: {err}")
                return 1
            if back is None:
                back = c.enter_world(character.id)
            how = "Resumed" if resumed is not None and resumed.character_id else "Entered again"
            out(f"{how} in {(time.monotonic() - dropped) * 1000:.0f} ms: at {round(back.enter.x)},"
                f"{round(back.enter.y)}, {back.enter.health}/{back.enter.max_health} hp")
            continue
        if eof:
            break
        try:
            line = lines.get_nowait()
        except queue.Empty:
            session.pump(0.05)
            continue
        if line is None:
            eof = True
            session.pump(args.linger / 1000)
            continue
        if not session.command(line):
            break
    if c.state == "inWorld":
        try:
            c.logout()
            out("Logged out.")
        except WyvernError as err:
            out(f"Logout failed: {err}")
    c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
