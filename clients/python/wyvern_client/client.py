"""A Wyvern client over TCP, single-threaded: `pump` reads what the socket has, decodes each
frame, keeps the client's own books (state, clock, motion references, world view) and calls
the handlers registered with `on`; requests (hello, login, enter_world, ...) send and pump
until their answer, and raise WyvernError on a refusal (an Error packet carrying the request's
opcode), a fatal Error, a timeout or a closed connection.

After a dropped connection, `reconnect` opens a new one and resumes with the newest resume
token: the server keeps the character in the world for a few seconds, so it is back where it
stood, in the world, without the password.
"""

from __future__ import annotations

import random
import select
import socket
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from . import constants as C
from . import packets as P
from . import srp
from .codec import DecodeError, FrameDecoder
from .records import MotionRefs
from .world import WorldView


def now_ms() -> float:
    """The client's clock: ms since the Unix epoch."""
    return time.time() * 1000


class WyvernError(Exception):
    """A refusal or failure; `code` is the server's error code or one of the client's own
    (ERR_TIMEOUT, ERR_CLOSED, ERR_PROTOCOL, ERR_BAD_SERVER_PROOF)."""

    def __init__(self, code: str, reason: str = "", fatal: bool = False, opcode: int = 0) -> None:
        self.code = code
        self.reason = reason
        self.fatal = fatal
        self.opcode = opcode
        super().__init__(f"{C.error_message(code) if code.startswith('ERR_') else code} ({code}{': ' + reason if reason else ''})")


@dataclass
class Entered:
    zone: P.ZoneInfo
    spells: P.SpellBook
    enter: P.EnterWorld


class ClockSync:
    """Server clock offset from Ping/Pong round trips: the sample with the smallest RTT wins."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.rtt = float("inf")

    def add(self, sent: float, server_time: float, received: float | None = None) -> None:
        received = now_ms() if received is None else received
        rtt = max(0.0, received - sent)
        if rtt <= self.rtt:
            self.rtt = rtt
            self.offset = server_time - (sent + rtt / 2)

    def server_now(self) -> float:
        return now_ms() + self.offset


Handler = Callable[[Any], None]


class Client:
    PING_EVERY_MS = 5000

    def __init__(self, sock: socket.socket, world: WorldView | None = None, timeout: float = 15.0) -> None:
        self.sock = sock
        self.sock.setblocking(False)
        self.world = world if world is not None else WorldView()
        self.timeout = timeout
        self.decoder = FrameDecoder()
        self.refs = MotionRefs()
        self.clock = ClockSync()
        self.state = "handshake"
        self.closed_reason: str | None = None
        self.welcome: P.Welcome | None = None
        self.account: str | None = None
        self.account_id: int | None = None
        self.resume_token: bytes | None = None
        self.zone: P.ZoneInfo | None = None
        self.spell_book: P.SpellBook | None = None
        self.bye: P.Bye | None = None
        self.move_epoch = 0
        self.move_seq = 0
        self.last_tick: tuple[int, float] | None = None
        #: A server Error no request took (fatal ones included).
        self.on_error: Callable[[WyvernError], None] | None = None
        self._handlers: dict[type, list[Handler]] = {}
        self._fatal: WyvernError | None = None
        self._refusal: WyvernError | None = None
        self._ping_seq = 0
        self._pings: dict[int, float] = {}
        self._last_ping = 0.0
        self._hello_sent: float | None = None

    @classmethod
    def connect(cls, host: str, port: int, world: WorldView | None = None, timeout: float = 15.0) -> "Client":
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(sock, world, timeout)

    @property
    def closed(self) -> bool:
        return self.state == "closed"

    def server_now(self) -> float:
        return self.clock.server_now()

    # ---- sending and receiving -----------------------------------------------------------

    def send(self, packet: Any) -> bool:
        """Sends one packet; False when the connection is closed."""
        if self.closed:
            return False
        data = P.encode(packet)
        try:
            self.sock.setblocking(True)
            self.sock.sendall(data)
        except OSError as e:
            self._close(f"send failed: {e}")
            return False
        finally:
            if not self.closed:
                self.sock.setblocking(False)
        return True

    def on(self, cls: type, handler: Handler) -> Callable[[], None]:
        """Calls `handler(packet)` for every `cls` packet received; returns the unsubscribe."""
        self._handlers.setdefault(cls, []).append(handler)
        return lambda: self._handlers[cls].remove(handler) if handler in self._handlers[cls] else None

    def pump(self, timeout: float = 0.0) -> None:
        """Handles whatever arrives within `timeout` seconds (at least what is there now)."""
        if self.closed:
            return
        self._keep_alive()
        try:
            ready, _, _ = select.select([self.sock], [], [], max(0.0, timeout))
        except (OSError, ValueError) as e:
            self._close(f"socket error: {e}")
            return
        if not ready:
            return
        while not self.closed:
            try:
                chunk = self.sock.recv(65536)
            except BlockingIOError:
                return
            except OSError as e:
                self._close(f"connection lost: {e}")
                return
            if not chunk:
                self._close("the server closed the connection")
                return
            self._receive(chunk)

    def run(self, seconds: float) -> None:
        """Handles the connection for `seconds` (returns early if it closes)."""
        end = time.monotonic() + seconds
        while not self.closed:
            left = end - time.monotonic()
            if left <= 0:
                return
            self.pump(min(left, 0.25))

    def wait_for(self, cls: type, predicate: Callable[[Any], bool] | None = None,
                 timeout: float | None = None, refused_by: Iterable[int] = ()) -> Any:
        """The next `cls` packet (that passes `predicate`)."""
        got: list[Any] = []

        def take(p: Any) -> None:
            if not got and (predicate is None or predicate(p)):
                got.append(p)

        off = self.on(cls, take)
        try:
            return self._until(lambda: got[0] if got else None, cls.__name__, timeout, refused_by)
        finally:
            off()

    def request(self, packet: Any, reply: type, predicate: Callable[[Any], bool] | None = None) -> Any:
        """Sends `packet` and waits for `reply`; a refusal of `packet` raises."""
        got: list[Any] = []
        off = self.on(reply, lambda p: got.append(p) if not got and (predicate is None or predicate(p)) else None)
        try:
            self.send(packet)
            return self._until(lambda: got[0] if got else None, reply.__name__, None, [packet.OPCODE])
        finally:
            off()

    def close(self, reason: str = "closed by the client") -> None:
        if not self.closed:
            try:
                self.sock.close()
            finally:
                self._close(reason)

    def drop(self) -> None:
        """Cuts the connection without a word, as a network failure would."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close("dropped")

    # ---- session ---------------------------------------------------------------------------

    def hello(self, client_name: str = "wyvern-python", kind: str = "native") -> P.Welcome:
        self._hello_sent = now_ms()
        return self.request(P.Hello(protocol_version=C.PROTOCOL_VERSION, client_kind=kind, client_name=client_name),
                            P.Welcome)

    def register(self, account: str, password: str) -> P.Registered:
        """Creates an account from a salt and verifier computed here: the password is not sent."""
        salt, verifier = srp.make_verifier(password)
        return self.request(P.Register(account=account, salt=srp.to_bytes(salt), verifier=srp.to_bytes(verifier)),
                            P.Registered)

    def login(self, account: str, password: str, on_queue: Callable[[int, int], None] | None = None) -> P.LoginOk:
        """SRP-6a: LoginStart -> (LoginQueue) -> LoginChallenge -> LoginProof -> LoginOk,
        whose M2 must prove that the server holds the verifier."""
        off = self.on(P.LoginQueue, lambda q: on_queue(q.position, q.queue_length) if on_queue else None)
        try:
            challenge = self.request(P.LoginStart(account=account), P.LoginChallenge)
        finally:
            off()
        try:
            proof = srp.answer_challenge(password, srp.from_bytes(challenge.salt), srp.from_bytes(challenge.b))
        except srp.SrpError as e:
            self.close("bad SRP challenge")
            raise WyvernError("ERR_PROTOCOL", str(e), True) from None
        ok = self.request(P.LoginProof(a=srp.to_bytes(proof.A), m1=srp.to_bytes(proof.M1)), P.LoginOk)
        if not proof.verify_server(srp.from_bytes(ok.m2)):
            self.close("the server failed to prove the account")
            raise WyvernError("ERR_BAD_SERVER_PROOF", "LoginOk M2 does not match", True)
        self._authenticated(ok.account_id, ok.account, ok.resume_token)
        return ok

    def resume(self, account: str, token: bytes) -> tuple[P.Resumed, Entered | None]:
        """Resume -> Resumed with a token from LoginOk or Resumed (each works once). When the
        character is still in the world, this connection takes it back: ZoneInfo, SpellBook
        and EnterWorld follow, without EnterWorldRequest."""
        entered: list[P.EnterWorld] = []
        off = self.on(P.EnterWorld, entered.append)
        try:
            ok = self.request(P.Resume(account=account, token=token), P.Resumed)
            self._authenticated(ok.account_id, ok.account, ok.resume_token)
            if ok.character_id == 0:
                return ok, None
            enter = entered[0] if entered else self.wait_for(P.EnterWorld)
        finally:
            off()
        return ok, Entered(self.zone, self.spell_book, enter)

    def list_characters(self) -> list[Any]:
        return self.request(P.ListCharacters(), P.CharacterList).characters

    def create_character(self, name: str, appearance: int = 0) -> Any:
        return self.request(P.CreateCharacter(name=name, appearance=appearance), P.CharacterCreated).character

    def enter_world(self, character_id: int) -> Entered:
        """EnterWorldRequest -> ZoneInfo, SpellBook, EnterWorld."""
        enter = self.request(P.EnterWorldRequest(character_id=character_id), P.EnterWorld)
        return Entered(self.zone, self.spell_book, enter)

    def logout(self) -> None:
        """LogoutRequest -> LogoutStarted -> LogoutComplete (raises if cancelled)."""
        started = self.request(P.LogoutRequest(), P.LogoutStarted)
        cancelled: list[Any] = []
        off = self.on(P.LogoutCancelled, cancelled.append)
        try:
            self._until(lambda: cancelled or None, "LogoutComplete", started.delay / 1000 + self.timeout, [],
                        done_when=lambda: self.state == "authenticated")
        finally:
            off()
        if cancelled:
            raise WyvernError("ERR_LOGOUT_CANCELLED", "the server cancelled the logout")

    # ---- in the world ----------------------------------------------------------------------

    def send_move(self, x: float, y: float, facing: float, moving: bool = False, speed: float = 0.0) -> int:
        """The own character's movement state (already predicted here); returns its seq."""
        self.move_seq += 1
        self.send(P.MoveInput(seq=self.move_seq, x=x, y=y, facing=facing % (2 * 3.141592653589793), moving=moving,
                              speed=speed, client_time=now_ms(), epoch=self.move_epoch))
        self.world.set_self_position(x, y, facing)
        return self.move_seq

    def say(self, text: str, channel: str = "say") -> bool:
        return self.send(P.ChatSend(channel=channel, text=text))

    def whisper(self, to: str, text: str) -> bool:
        return self.send(P.Whisper(to=to, text=text))

    def who(self) -> P.WhoList:
        return self.request(P.Who(), P.WhoList)

    def ping(self) -> None:
        self._ping_seq = (self._ping_seq + 1) & 0xFFFFFFFF
        sent = now_ms()
        self._pings[self._ping_seq] = sent
        self._last_ping = sent
        self.send(P.Ping(seq=self._ping_seq, client_time=sent))

    # ---- internals -------------------------------------------------------------------------

    def _keep_alive(self) -> None:
        # A Ping every few seconds keeps the clock fresh and the idle timeout away.
        if self.state in ("authenticated", "inWorld") and now_ms() - self._last_ping >= self.PING_EVERY_MS:
            self.ping()

    def _until(self, done: Callable[[], Any], what: str, timeout: float | None, refused_by: Iterable[int],
               done_when: Callable[[], bool] | None = None) -> Any:
        refused = list(refused_by)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        self._refusal = None
        while True:
            value = done()
            if value is not None:
                return value
            if done_when is not None and done_when():
                return None
            if self._refusal is not None and self._refusal.opcode in refused:
                err, self._refusal = self._refusal, None
                raise err
            if self.closed:
                raise self._fatal or WyvernError("ERR_CLOSED", self._closed_words(), True)
            left = deadline - time.monotonic()
            if left <= 0:
                raise WyvernError("ERR_TIMEOUT", f"no {what} within {self.timeout if timeout is None else timeout} s")
            self.pump(min(left, 0.25))

    def _closed_words(self) -> str:
        if self.bye is not None:
            return f"the server said goodbye ({self.bye.reason}{': ' + self.bye.message if self.bye.message else ''})"
        return self.closed_reason or "closed"

    def _authenticated(self, account_id: int, account: str, token: bytes) -> None:
        if self.state != "inWorld":
            self.state = "authenticated"
        self.account_id, self.account, self.resume_token = account_id, account, token

    def _close(self, reason: str) -> None:
        if self.closed:
            return
        self.state = "closed"
        self.closed_reason = reason
        try:
            self.sock.close()
        except OSError:
            pass

    def _receive(self, chunk: bytes) -> None:
        try:
            for opcode, payload in self.decoder.frames(chunk):
                d = P.BY_OPCODE.get(opcode)
                if d is None or d.cls.DIRECTION != "s2c":
                    continue  # a newer server may know packets this client does not
                packet = P.decode(opcode, payload)
                if isinstance(packet, P.WorldUpdate):
                    self.refs.resolve(packet)  # everything after this sees absolute records
                self._bookkeep(packet)
                for handler in list(self._handlers.get(type(packet), ())):
                    handler(packet)
                if self.closed:
                    return
        except DecodeError as e:
            self._fatal = WyvernError("ERR_PROTOCOL", f"{e.code}: {e.reason}", True)
            self._close(f"protocol error from the server: {e.code}")

    def _bookkeep(self, p: Any) -> None:
        if isinstance(p, P.Welcome):
            self.welcome, self.state = p, "login"
            if self._hello_sent is not None:
                self.clock.add(self._hello_sent, p.server_time)
        elif isinstance(p, P.Pong):
            sent = self._pings.pop(p.seq, None)
            if sent is not None:
                self.clock.add(sent, p.server_time)
        elif isinstance(p, P.Error):
            err = WyvernError(p.code, p.reason, p.fatal, p.opcode)
            if p.fatal:
                self._fatal = err
            else:
                self._refusal = err
            if self.on_error:
                self.on_error(err)
        elif isinstance(p, P.Bye):
            self.bye = p
        elif isinstance(p, P.WorldUpdate):
            self.last_tick = (p.tick, p.time)
            self.world.apply_records(p.records, p.time)
        elif isinstance(p, P.ZoneInfo):
            self.zone = p
            self.world.zone = p
        elif isinstance(p, P.SpellBook):
            self.spell_book = p
        elif isinstance(p, P.ZoneChanged):
            # Handed to the next zone's host: heads and references count from its tick and time.
            self.refs.enter(p.tick, p.server_time)
        elif isinstance(p, P.EnterWorld):
            self.refs.enter(p.tick, p.server_time)
            self.state = "inWorld"
            self.move_seq = 0
            self.move_epoch = p.move_epoch
            self.world.enter(p, self.zone)
        elif isinstance(p, P.PositionCorrection):
            self.move_epoch = p.epoch
            self.world.set_self_position(p.x, p.y, p.facing)
        elif isinstance(p, P.LogoutComplete):
            self.state = "authenticated"
            self.world.reset()


def backoff_delay(attempt: int, base_ms: float = 250, max_ms: float = 8000) -> float:
    """Ms before attempt `attempt` (1-based; the first has none): exponential, half jittered."""
    if attempt <= 1:
        return 0.0
    ceiling = min(max_ms, base_ms * 2 ** (attempt - 2))
    return ceiling / 2 + random.random() * ceiling / 2


def reconnect(connect: Callable[[], Client], account: str, token: bytes, attempts: int = 8,
              password: str | None = None, on_event: Callable[[str], None] | None = None,
              prepare: Callable[[Client], None] | None = None) -> tuple[Client, P.Resumed | None, Entered | None]:
    """Connects and resumes, with backoff, until it works, the token is refused or the
    attempts run out. With `password`, a refused token logs in instead (then the result has
    no Resumed and the character must be entered again)."""
    last: Exception | None = None
    for attempt in range(1, max(1, attempts) + 1):
        delay = backoff_delay(attempt)
        if delay > 0:
            if on_event:
                on_event(f"Reconnecting in {delay / 1000:.1f} s (attempt {attempt} of {attempts})...")
            time.sleep(delay / 1000)
        client: Client | None = None
        try:
            client = connect()
            if prepare:
                prepare(client)
            client.hello()
            try:
                resumed, entered = client.resume(account, token)
                return client, resumed, entered
            except WyvernError as e:
                if e.code != "ERR_BAD_RESUME" or password is None or client.closed:
                    raise
                client.login(account, password)
                return client, None, None
        except (OSError, WyvernError) as e:
            last = e
            if client is not None:
                client.close("resume failed")
            if on_event:
                on_event(f"Reconnect attempt {attempt} failed: {e}")
            if isinstance(e, WyvernError) and e.code == "ERR_BAD_RESUME":
                break
    raise last if last else WyvernError("ERR_CLOSED", "could not reconnect")
