"""SRP-6a against the worked example docs/PROTOCOL.md prints (computed by the server's tssrp6a)."""

import unittest

from wyvern_client import srp
from wyvern_client.constants import SRP_EXAMPLE as E


class WorkedExample(unittest.TestCase):
    def test_k_x_and_the_verifier(self):
        self.assertEqual(srp.K, E["k"])
        self.assertEqual(srp.compute_x(E["salt"], E["password"]), E["x"])
        self.assertEqual(srp.make_verifier(E["password"], E["salt"]), (E["salt"], E["v"]))

    def test_the_proofs(self):
        proof = srp.answer_challenge(E["password"], E["salt"], E["B"], a=E["a"])
        self.assertEqual(proof.A, E["A"])
        self.assertEqual(proof.S, E["S"])
        self.assertEqual(proof.M1, E["M1"])
        self.assertTrue(proof.verify_server(E["M2"]))
        self.assertFalse(proof.verify_server(E["M2"] ^ 1))

    def test_a_wrong_password_gives_another_proof(self):
        proof = srp.answer_challenge("password124", E["salt"], E["B"], a=E["a"])
        self.assertNotEqual(proof.M1, E["M1"])

    def test_a_zero_b_is_refused(self):
        with self.assertRaises(srp.SrpError):
            srp.answer_challenge("pw", 1, 0)
        with self.assertRaises(srp.SrpError):
            srp.answer_challenge("pw", 1, srp.N * 2)

    def test_big_integers_travel_without_leading_zeros(self):
        self.assertEqual(srp.to_bytes(0), b"\x00")
        self.assertEqual(srp.to_bytes(0x0102), b"\x01\x02")
        self.assertEqual(srp.from_bytes(b"\x00\x00\x01\x02"), 0x0102)
        self.assertEqual(srp.from_bytes(b""), 0)


if __name__ == "__main__":
    unittest.main()
