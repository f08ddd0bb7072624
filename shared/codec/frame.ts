/**
 * Frame layout (every packet, on every transport):
 *
 *   offset  size  field
 *   0       2     size    u16 LE, the whole frame including this 6-byte header
 *   2       2     opcode  u16 LE
 *   4       2     crc     u16 LE, CRC-16/CCITT-FALSE of the payload
 *   6       ...   payload (size - 6 bytes)
 *
 * A TCP chunk may hold any part of any number of frames; a WebSocket message holds one or
 * more whole frames. One FrameDecoder per connection handles both.
 */
import { crc16 } from './crc16.js';
import { DecodeError, DecodeErrorCode } from './errors.js';

export const HEADER_SIZE = 6;
export const MAX_FRAME_SIZE = 0xffff;

/**
 * One received frame: its payload is bytes[start, end). The payload view is made only when
 * asked for, because a typed-array view costs more than decoding a small packet;
 * `def.decodeFrame(frame)` reads straight from `bytes`.
 */
export class Frame {
  constructor(
    readonly opcode: number,
    readonly bytes: Uint8Array,
    readonly start: number,
    readonly end: number,
  ) {}

  /** A view into received bytes: valid until the decoder is pushed more data. */
  get payload(): Uint8Array {
    return this.bytes.subarray(this.start, this.end);
  }

  get size(): number {
    return this.end - this.start + HEADER_SIZE;
  }
}

const EMPTY = new Uint8Array(0);

/**
 * Called with a frame's opcode and size as soon as the first 4 bytes of its header have
 * arrived, before the rest of the frame: throw a DecodeError to refuse it there (a receiver
 * that knows which opcodes it takes and how large each may be need not buffer a frame it
 * will refuse anyway). Called at most once per frame.
 */
export type HeaderJudge = (opcode: number, size: number) => void;

/**
 * Turns a byte stream into frames. `push` a chunk, then call `next()` until it returns
 * undefined, which means "need more bytes" and is never an error. A bad size or CRC throws
 * DecodeError, as does whatever the judge refuses; the stream is unusable after that and the
 * connection should be closed.
 */
export class FrameDecoder {
  private buf: Uint8Array = EMPTY;
  /** Valid bytes in buf. */
  private len = 0;
  private pos = 0;
  /** Whether buf is ours to append to (not a caller's chunk). */
  private owned = false;
  /** Offset in buf of the header the judge last passed; -1 when none. */
  private judgedAt = -1;

  constructor(
    readonly maxFrameSize = MAX_FRAME_SIZE,
    private readonly judge?: HeaderJudge,
  ) {
    if (maxFrameSize < HEADER_SIZE || maxFrameSize > MAX_FRAME_SIZE) {
      throw new RangeError(`maxFrameSize must be in [${HEADER_SIZE}, ${MAX_FRAME_SIZE}]`);
    }
  }

  /** Bytes received but not yet returned as a frame. */
  get buffered(): number {
    return this.len - this.pos;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const left = this.len - this.pos;
    if (left === 0) {
      // The common case: frames are read straight out of the caller's chunk.
      this.buf = chunk;
      this.len = chunk.length;
      this.pos = 0;
      this.owned = false;
      return;
    }
    if (this.owned && this.buf.length - this.len >= chunk.length) {
      // Appending past the valid bytes leaves earlier payload views intact, and keeps a
      // frame that trickles in byte by byte linear rather than quadratic to assemble.
      this.buf.set(chunk, this.len);
      this.len += chunk.length;
      return;
    }
    // A fresh buffer, never a reused one: earlier payload views must stay intact.
    const joined = new Uint8Array(Math.max(2 * (left + chunk.length), 256));
    joined.set(this.buf.subarray(this.pos, this.len));
    joined.set(chunk, left);
    this.buf = joined;
    this.len = left + chunk.length;
    if (this.judgedAt === this.pos) this.judgedAt = 0;
    else this.judgedAt = -1;
    this.pos = 0;
    this.owned = true;
  }

  next(): Frame | undefined {
    const buf = this.buf;
    const at = this.pos;
    const left = this.len - at;
    if (left < 2) return undefined;
    const size = buf[at]! | (buf[at + 1]! << 8);
    if (size < HEADER_SIZE || size > this.maxFrameSize) {
      throw new DecodeError(
        DecodeErrorCode.FrameSize,
        `frame size ${size} outside [${HEADER_SIZE}, ${this.maxFrameSize}]`,
      );
    }
    if (left < 4) return undefined;
    const opcode = buf[at + 2]! | (buf[at + 3]! << 8);
    if (this.judge && this.judgedAt !== at) {
      this.judge(opcode, size);
      this.judgedAt = at;
    }
    if (left < size) return undefined;
    const crc = buf[at + 4]! | (buf[at + 5]! << 8);
    const actual = crc16(buf, at + HEADER_SIZE, at + size);
    if (crc !== actual) {
      throw new DecodeError(
        DecodeErrorCode.BadCrc,
        `crc 0x${crc.toString(16)} does not match payload crc 0x${actual.toString(16)} (opcode ${opcode})`,
      );
    }
    this.pos = at + size;
    this.judgedAt = -1;
    if (this.pos === this.len) {
      this.buf = EMPTY;
      this.len = this.pos = 0;
      this.owned = false;
    }
    return new Frame(opcode, buf, at + HEADER_SIZE, at + size);
  }
}
