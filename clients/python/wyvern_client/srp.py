"""The client's half of SRP-6a, computing exactly what the server's tssrp6a does
(docs/PROTOCOL.md, "SRP-6a, exactly"): RFC 5054's 2048-bit group, SHA-512, and

    I  = account name lower-cased (passed along but hashed nowhere)
    k  = H(PAD(N) | PAD(g))             x  = H(bytes(s) | H(password))
    v  = g^x                            A  = g^a
    u  = H(PAD(A) | PAD(B))             S  = (B - k.g^x)^(a + u.x)
    M1 = H(bytes(A) | bytes(B) | bytes(S))
    M2 = H(bytes(A) | bytes(M1) | bytes(S))

all mod N, where bytes(n) is n big-endian without leading zeros (0 is one zero byte) and PAD
left-pads to the length of N. Big integers travel on the wire as bytes(n).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from .constants import SRP_G as g
from .constants import SRP_HASH, SRP_N as N, SRP_PAD_BYTES

#: Salt length for new accounts: the Register salt field's maximum.
SALT_BYTES = 64


def to_bytes(n: int) -> bytes:
    """n as unsigned big-endian bytes without leading zeros (0 is the single byte 00)."""
    return n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")


def from_bytes(b: bytes) -> int:
    """An unsigned big-endian integer; an empty field reads as 0."""
    return int.from_bytes(b, "big")


def _pad(n: int) -> bytes:
    return n.to_bytes(SRP_PAD_BYTES, "big")


def _h(*parts: bytes) -> int:
    h = hashlib.new(SRP_HASH)
    for p in parts:
        h.update(p)
    return from_bytes(h.digest())


def identity(account: str) -> str:
    return account.lower()


K = _h(_pad(N), _pad(g))


def compute_x(salt: int, password: str) -> int:
    inner = hashlib.new(SRP_HASH, password.encode("utf-8")).digest()
    return _h(to_bytes(salt), inner)


def make_verifier(password: str, salt: int | None = None) -> tuple[int, int]:
    """(salt, verifier) for Register: a fresh random salt unless one is given."""
    if salt is None:
        salt = from_bytes(secrets.token_bytes(SALT_BYTES))
    return salt, pow(g, compute_x(salt, password), N)


def random_secret() -> int:
    """1 <= a < N: as tssrp6a draws it (bytes of N's length, mod N, again on 0)."""
    while True:
        a = from_bytes(secrets.token_bytes(SRP_PAD_BYTES)) % N
        if a != 0:
            return a


class SrpError(Exception):
    pass


@dataclass
class Proof:
    """Step 2's answer: send A and M1 in LoginProof, then check the server's M2."""

    A: int
    M1: int
    S: int

    def expected_m2(self) -> int:
        return _h(to_bytes(self.A), to_bytes(self.M1), to_bytes(self.S))

    def verify_server(self, m2: int) -> bool:
        return hmac.compare_digest(to_bytes(self.expected_m2()), to_bytes(m2))


def answer_challenge(password: str, salt: int, B: int, a: int | None = None) -> Proof:
    """The proof for a LoginChallenge (salt, B); raises SrpError on B = 0 mod N."""
    if B % N == 0:
        raise SrpError("the server's B is 0 mod N")
    if a is None:
        a = random_secret()
    x = compute_x(salt, password)
    A = pow(g, a, N)
    u = _h(_pad(A), _pad(B))
    base = (B - K * pow(g, x, N)) % N
    S = pow(base, a + u * x, N)
    M1 = _h(to_bytes(A), to_bytes(B), to_bytes(S))
    return Proof(A, M1, S)
