/**
 * `definePacket` is where a packet is declared, once: opcode, name, direction, dispatch
 * target, delivery, accepted connection states, a doc line and the fields. Everything else
 * (payload type, encode/decode, max size, the handler table's type, PROTOCOL.md, golden
 * vectors) is derived from it.
 */
import { crc16 } from '../codec/crc16.js';
import { DecodeError, DecodeErrorCode, EncodeError } from '../codec/errors.js';
import { struct, type Fields, type InferFields, type StructField } from '../codec/fields.js';
import { HEADER_SIZE, MAX_FRAME_SIZE, type Frame } from '../codec/frame.js';
import { Reader } from '../codec/reader.js';
import { Writer } from '../codec/writer.js';

/**
 * handshake: connected, Hello not yet accepted
 * login: Welcome sent, not yet authenticated (register, SRP login, resume)
 * authenticated: logged in, at the character screen
 * inWorld: a character is in a zone
 */
export const ConnState = {
  Handshake: 'handshake',
  Login: 'login',
  Authenticated: 'authenticated',
  InWorld: 'inWorld',
} as const;
export type ConnState = (typeof ConnState)[keyof typeof ConnState];
export const ALL_STATES: readonly ConnState[] = Object.values(ConnState);

/** session: handled at once; zone: queued for the next tick of the client's zone; world: cross-zone. */
export type Target = 'session' | 'zone' | 'world';
/** droppable packets may be skipped for a client that is behind; reliable ones never are. */
export type Delivery = 'reliable' | 'droppable';

interface CommonDef<N extends string, F extends Fields> {
  readonly opcode: number;
  readonly name: N;
  readonly doc: string;
  readonly fields: F;
}
export interface ClientPacketDef<
  N extends string,
  F extends Fields,
  T extends Target = Target,
> extends CommonDef<N, F> {
  readonly dir: 'c2s';
  /** Kept literal in each definition's type, so routing tables can be derived from it. */
  readonly target: T;
  readonly states: readonly ConnState[];
  /** Token-bucket class for rate limiting; see server config. */
  readonly rate?: RateClass;
}
export interface ServerPacketDef<N extends string, F extends Fields> extends CommonDef<N, F> {
  readonly dir: 's2c';
  readonly delivery: Delivery;
}

export type RateClass = 'default' | 'move' | 'chat' | 'auth';

export interface PacketCodec<F extends Fields> {
  readonly payload: StructField<InferFields<F>>;
  /** Largest payload in bytes; the frame adds HEADER_SIZE. */
  readonly maxSize: number;
  /** Decodes a whole payload; leftover bytes are ERR_OVERLONG. */
  decode(payload: Uint8Array): InferFields<F>;
  /** Decodes a received frame's payload in place (no view is made). */
  decodeFrame(frame: Frame): InferFields<F>;
  /** Decodes a whole payload into `into` (no object of its own); leftover bytes are ERR_OVERLONG. */
  decodeInto<O extends object>(payload: Uint8Array, into: O): O & InferFields<F>;
  /** Encodes one frame (header + payload) into a fresh array, for as many recipients as need it. */
  encode(value: InferFields<F>): Uint8Array;
  /** Appends one frame to a writer (for batching many frames into one buffer). */
  write(w: Writer, value: InferFields<F>): void;
}

export type ClientPacket<
  N extends string = string,
  F extends Fields = Fields,
  T extends Target = Target,
> = ClientPacketDef<N, F, T> & PacketCodec<F>;
export type ServerPacket<N extends string = string, F extends Fields = Fields> = ServerPacketDef<N, F> &
  PacketCodec<F>;
export type Packet = ClientPacket | ServerPacket;

/** The payload type of a packet definition. */
export type PayloadOf<P> = P extends PacketCodec<infer F> ? InferFields<F> : never;

const scratch = new Writer(MAX_FRAME_SIZE + 1);
const reader = new Reader();

function codec<F extends Fields>(opcode: number, name: string, fields: F): PacketCodec<F> {
  const payload = struct(fields);
  const maxSize = payload.maxSize;
  if (maxSize > MAX_FRAME_SIZE - HEADER_SIZE) {
    throw new Error(`${name}: payload can reach ${maxSize} bytes, above the frame limit`);
  }
  // Reserve room for the whole frame up front when it is small, so field writes never grow.
  const smallMax = maxSize <= 1024 ? maxSize : 0;
  // Each packet gets its own copy of the frame code (one Function per packet), so the calls
  // inside it see one payload codec each and V8 can inline them; a shared closure would see
  // every packet's codec at the same call site and stay generic.
  const overlong = (left: number): never => {
    throw new DecodeError(DecodeErrorCode.Overlong, `${name}: ${left} byte(s) after the last field`);
  };
  const frameCode = new Function(
    'payload',
    'crc16',
    'reader',
    'fail',
    `return {
      write(w, value) {
        const start = w.pos;
        w.ensure(${HEADER_SIZE + smallMax});
        w.pos += ${HEADER_SIZE};
        try {
          payload.write(w, value);
        } catch (e) {
          w.pos = start; // a refused value leaves the writer as it was, so a batch stays intact
          throw e;
        }
        const size = w.pos - start;
        if (size > ${MAX_FRAME_SIZE}) fail.tooLarge(size);
        const b = w.buf;
        const crc = crc16(b, start + ${HEADER_SIZE}, w.pos);
        b[start] = size;
        b[start + 1] = size >>> 8;
        b[start + 2] = ${opcode & 0xff};
        b[start + 3] = ${opcode >>> 8};
        b[start + 4] = crc;
        b[start + 5] = crc >>> 8;
      },
      read(r) {
        const value = payload.read(r);
        if (r.pos !== r.end) fail.overlong(r.end - r.pos);
        return value;
      },
      decodeFrame(frame) {
        const r = reader.reset(frame.bytes, frame.start, frame.end);
        const value = payload.read(r);
        if (r.pos !== r.end) fail.overlong(r.end - r.pos);
        return value;
      },
    };`,
  )(payload, crc16, reader, {
    tooLarge(size: number): never {
      throw new EncodeError(`${name}: frame of ${size} bytes is too large`);
    },
    overlong,
  }) as {
    write(w: Writer, value: InferFields<F>): void;
    read(r: Reader): InferFields<F>;
    decodeFrame(frame: Frame): InferFields<F>;
  };
  const write = frameCode.write;
  const read = frameCode.read;
  return {
    payload,
    maxSize,
    decode(bytes) {
      return read(reader.reset(bytes));
    },
    decodeFrame: frameCode.decodeFrame,
    decodeInto(bytes, into) {
      const r = reader.reset(bytes);
      const value = payload.readInto(r, into);
      if (r.pos !== r.end) overlong(r.end - r.pos);
      return value;
    },
    encode(value) {
      scratch.reset();
      write(scratch, value);
      return scratch.finish();
    },
    write,
  };
}

export function definePacket<const N extends string, const F extends Fields, const T extends Target>(
  def: ClientPacketDef<N, F, T>,
): ClientPacket<N, F, T>;
export function definePacket<const N extends string, const F extends Fields>(
  def: ServerPacketDef<N, F>,
): ServerPacket<N, F>;
export function definePacket(def: ClientPacketDef<string, Fields> | ServerPacketDef<string, Fields>): Packet {
  if (!Number.isInteger(def.opcode) || def.opcode < 1 || def.opcode > 0xffff) {
    throw new Error(`${def.name}: opcode must be in 1..65535`);
  }
  return Object.freeze({ ...def, ...codec(def.opcode, def.name, def.fields) }) as Packet;
}
