import { DecodeError, DecodeErrorCode } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Short ASCII strings (names, most chat) skip TextDecoder, whose call costs more than the
 * whole rest of a small packet: one String.fromCharCode call with every byte as an argument,
 * generated once per length, is several times faster than building the string char by char.
 */
const MAX_ASCII_FAST = 32;
const asciiOfLength = Array.from(
  { length: MAX_ASCII_FAST + 1 },
  (_, n) =>
    new Function(
      'b',
      'at',
      `return String.fromCharCode(${Array.from({ length: n }, (_, i) => `b[at + ${i}]`).join(', ')});`,
    ) as (b: Uint8Array, at: number) => string,
);

/**
 * A bounds-checked little-endian reader. Every read that would run past the end throws a
 * DecodeError with ERR_SHORT; nothing else (no RangeError) escapes.
 */
export class Reader {
  bytes: Uint8Array = new Uint8Array(0);
  pos = 0;
  end = 0;
  // Creating a DataView costs more than decoding a small packet, so one is kept per
  // underlying ArrayBuffer and made only when a float is read.
  private view: DataView | undefined;
  viewBase = 0;

  constructor(bytes?: Uint8Array, start = 0, end = bytes?.length ?? 0) {
    if (bytes) this.reset(bytes, start, end);
  }

  /** Points the reader at new bytes, keeping what can be kept. */
  reset(bytes: Uint8Array, start = 0, end = bytes.length): this {
    if (bytes !== this.bytes) {
      this.bytes = bytes;
      this.view = undefined;
      this.viewBase = bytes.byteOffset;
    }
    this.pos = start;
    this.end = end;
    return this;
  }

  /** A DataView over the whole underlying buffer; index it with `viewBase + pos`. */
  dataView(): DataView {
    return (this.view ??= new DataView(this.bytes.buffer));
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number): number {
    const at = this.pos;
    if (at + n > this.end) {
      throw new DecodeError(
        DecodeErrorCode.Short,
        `need ${n} byte(s) at offset ${at}, payload has ${this.end - at} left`,
      );
    }
    this.pos = at + n;
    return at;
  }

  u8(): number {
    return this.bytes[this.need(1)]!;
  }

  i8(): number {
    return (this.bytes[this.need(1)]! << 24) >> 24;
  }

  u16(): number {
    const at = this.need(2);
    const b = this.bytes;
    return b[at]! | (b[at + 1]! << 8);
  }

  i16(): number {
    return (this.u16() << 16) >> 16;
  }

  u32(): number {
    return this.i32() >>> 0;
  }

  i32(): number {
    const at = this.need(4);
    const b = this.bytes;
    return b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24);
  }

  f32(): number {
    const at = this.need(4);
    return finite(this.dataView().getFloat32(this.viewBase + at, true));
  }

  f64(): number {
    const at = this.need(8);
    return finite(this.dataView().getFloat64(this.viewBase + at, true));
  }

  bool(): boolean {
    const b = this.u8();
    if (b > 1) throw new DecodeError(DecodeErrorCode.BadBool, `bool byte ${b} is not 0 or 1`);
    return b === 1;
  }

  /** Unsigned LEB128 in its shortest form, at most 5 bytes and 2^32-1. */
  varint(): number {
    // Most varints on the wire (ids, deltas, small counts) are one byte: kept small enough
    // to be inlined into the readers that call it.
    const at = this.pos;
    if (at < this.end) {
      const first = this.bytes[at]!;
      if (first < 0x80) {
        this.pos = at + 1;
        return first;
      }
    }
    return this.longVarint();
  }

  private longVarint(): number {
    let value = 0;
    let scale = 1;
    const bytes = this.bytes;
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.end) this.need(1);
      const b = bytes[this.pos++]!;
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) {
        if (b === 0 && i > 0) {
          throw new DecodeError(DecodeErrorCode.BadVarint, 'varint not in shortest form');
        }
        if (value > 0xffffffff) throw new DecodeError(DecodeErrorCode.BadVarint, 'varint above 2^32-1');
        return value;
      }
      scale *= 128;
    }
    throw new DecodeError(DecodeErrorCode.BadVarint, 'varint longer than 5 bytes');
  }

  /** Steps over the next `n` bytes (reading none of them). */
  skip(n: number): void {
    this.need(n);
  }

  /** Steps over a string written by `Writer.string`, checking only its length. */
  skipString(maxBytes: number, prefixBytes: 1 | 2): void {
    const len = prefixBytes === 1 ? this.u8() : this.u16();
    if (len > maxBytes) {
      throw new DecodeError(DecodeErrorCode.StringTooLong, `string of ${len} bytes exceeds ${maxBytes}`);
    }
    this.need(len);
  }

  /** A view (no copy) of the next `n` bytes. */
  raw(n: number): Uint8Array {
    const at = this.need(n);
    return this.bytes.subarray(at, at + n);
  }

  string(maxBytes: number, prefixBytes: 1 | 2): string {
    const len = prefixBytes === 1 ? this.u8() : this.u16();
    if (len > maxBytes) {
      throw new DecodeError(DecodeErrorCode.StringTooLong, `string of ${len} bytes exceeds ${maxBytes}`);
    }
    const at = this.need(len);
    const b = this.bytes;
    if (len <= MAX_ASCII_FAST) {
      let i = at;
      const end = at + len;
      while (i < end && b[i]! < 0x80) i++;
      if (i === end) return asciiOfLength[len]!(b, at);
    }
    try {
      return utf8.decode(b.subarray(at, at + len));
    } catch {
      throw new DecodeError(DecodeErrorCode.BadUtf8, 'string is not valid UTF-8');
    }
  }
}

function finite(v: number): number {
  if (!Number.isFinite(v)) throw new DecodeError(DecodeErrorCode.BadNumber, `non-finite number ${v}`);
  return v;
}
