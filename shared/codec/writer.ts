import { EncodeError } from './errors.js';

const utf8 = new TextEncoder();

/**
 * A growable little-endian byte writer. One Writer is reused for many packets: `reset()`
 * rewinds it without freeing its buffer, so the steady state allocates only the copy that
 * `finish()` hands out (one per distinct packet, shared by all its recipients).
 */
export class Writer {
  /** The backing store; generated struct encoders write into it directly (see fields.ts). */
  buf: Uint8Array;
  view: DataView;
  pos = 0;

  constructor(initialCapacity = 1024) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  reset(): this {
    this.pos = 0;
    return this;
  }

  /** A copy of the bytes written since the last reset. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  /** A view of the written bytes, valid only until the next write or reset. */
  peek(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  i8(v: number): void {
    this.u8(v & 0xff);
  }

  u16(v: number): void {
    this.ensure(2);
    const b = this.buf;
    const at = this.pos;
    b[at] = v;
    b[at + 1] = v >>> 8;
    this.pos = at + 2;
  }

  i16(v: number): void {
    this.u16(v & 0xffff);
  }

  u32(v: number): void {
    this.ensure(4);
    const b = this.buf;
    const at = this.pos;
    b[at] = v;
    b[at + 1] = v >>> 8;
    b[at + 2] = v >>> 16;
    b[at + 3] = v >>> 24;
    this.pos = at + 4;
  }

  i32(v: number): void {
    this.u32(v >>> 0);
  }

  f32(v: number): void {
    this.ensure(4);
    this.view.setFloat32(this.pos, v, true);
    this.pos += 4;
  }

  f64(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** Unsigned LEB128, at most 5 bytes (0 .. 2^32-1). */
  varint(v: number): void {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) {
      throw new EncodeError(`varint out of range: ${v}`);
    }
    this.ensure(5);
    const b = this.buf;
    let at = this.pos;
    while (v >= 0x80) {
      b[at++] = (v & 0x7f) | 0x80;
      v >>>= 7; // exact: v is a u32 here
    }
    b[at++] = v;
    this.pos = at;
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** src[start, end), without making a view of it: short runs byte by byte (faster than a set below ~16 bytes). */
  rawRange(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.ensure(n);
    const dst = this.buf;
    let at = this.pos;
    if (n <= 16) for (let i = start; i < end; i++) dst[at++] = src[i]!;
    else dst.set(src.subarray(start, end), at);
    this.pos += n;
  }

  /**
   * UTF-8 with a length prefix of `prefixBytes` (1 or 2) holding the byte length.
   * Throws EncodeError when the encoded string is longer than `maxBytes`.
   */
  string(s: string, maxBytes: number, prefixBytes: 1 | 2): void {
    const start = this.pos;
    this.ensure(prefixBytes + s.length * 3);
    const body = start + prefixBytes;
    const b = this.buf;
    const n = s.length;
    // Copy while it is ASCII (names, most chat); anything else goes through TextEncoder.
    let i = 0;
    if (n <= 64) {
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        b[body + i] = c;
      }
    }
    const len = i === n ? n : utf8.encodeInto(s, b.subarray(body)).written;
    if (len > maxBytes) throw new EncodeError(`string of ${len} bytes exceeds ${maxBytes}`);
    if (prefixBytes === 1) this.buf[start] = len;
    else this.view.setUint16(start, len, true);
    this.pos = body + len;
  }

  /** Overwrites a u16 at an earlier position (frame headers are filled in last). */
  patchU16(at: number, v: number): void {
    this.buf[at] = v;
    this.buf[at + 1] = v >>> 8;
  }

  /** The underlying buffer, for checksumming what was just written. */
  bytes(): Uint8Array {
    return this.buf;
  }
}
