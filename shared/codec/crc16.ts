/**
 * CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor.
 * Check value: crc16("123456789") === 0x29B1.
 */
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[i] = crc & 0xffff;
  }
  return table;
})();

export function crc16(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) {
    crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]!) & 0xff]!) & 0xffff;
  }
  return crc;
}
