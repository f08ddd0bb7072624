/**
 * CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor.
 * Check value: crc16("123456789") === 0x29B1.
 *
 * Every frame is checksummed on both ends, so this runs over every byte sent and received.
 * Slicing-by-4: T[k][x] is the CRC register after byte x followed by k zero bytes, and the
 * CRC is linear over XOR, so four bytes fold into the register with four lookups and no
 * dependency between them.
 */
const T0 = new Uint16Array(256);
const T1 = new Uint16Array(256);
const T2 = new Uint16Array(256);
const T3 = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let crc = i << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
  T0[i] = crc & 0xffff;
}
for (const [prev, next] of [
  [T0, T1],
  [T1, T2],
  [T2, T3],
] as const) {
  for (let i = 0; i < 256; i++) next[i] = ((prev[i]! & 0xff) << 8) ^ T0[prev[i]! >> 8]!;
}

export function crc16(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffff;
  let i = start;
  for (; i + 3 < end; i += 4) {
    crc =
      T3[(crc >> 8) ^ bytes[i]!]! ^
      T2[(crc & 0xff) ^ bytes[i + 1]!]! ^
      T1[bytes[i + 2]!]! ^
      T0[bytes[i + 3]!]!;
  }
  for (; i < end; i++) crc = ((crc << 8) & 0xff00) ^ T0[(crc >> 8) ^ bytes[i]!]!;
  return crc;
}
