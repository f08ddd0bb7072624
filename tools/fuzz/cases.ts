/**
 * What the fuzzer sends: each case is one connection brought to a stage (fresh, after
 * Hello, at the character screen, in the world) and then given a sequence of hostile
 * inputs. Case `i` of seed `s` is always the same bytes (its own PRNG), whatever the
 * concurrency or timing of the run.
 *
 * Frames come from a pool of valid frames for every client packet (payloads generated from
 * the packet definitions by fast-check, the same arbitraries the round-trip tests use), and
 * are then mutated:
 *
 *   frame: size u16 LE | opcode u16 LE | crc u16 LE | payload
 *   bit flip       1-3 random bits anywhere in the frame
 *   wrong size     the size field random, or off by a few bytes either way
 *   wrong crc      the crc field changed
 *   truncated      the frame cut short, the stream going on with the next frame
 *   opcode         a random opcode, or a server-to-client one
 *
 * Case kinds: random bytes; a run of frames (valid ones for the stage, valid ones for the
 * wrong stage, mutated ones); and over WebSocket a text message, a message sent as
 * continuation fragments, and an oversized message.
 */
import fc from 'fast-check';
import { crc16 } from '../../shared/codec/crc16.js';
import { HEADER_SIZE } from '../../shared/codec/frame.js';
import { mulberry32, randomInt, type Rng } from '../../shared/game/rng.js';
import type { ClientPacket, ConnState } from '../../shared/protocol/define.js';
import { clientPackets, serverPackets } from '../../shared/protocol/registry.js';
import { arbitraryPacket } from '../../test/helpers/arbitrary.js';

export type Stage = 'fresh' | 'login' | 'characters' | 'world';
export type FuzzTransport = 'tcp' | 'ws';
export type CaseKind = 'random-bytes' | 'frames' | 'wrong-state' | 'text' | 'fragmented' | 'oversized';

/** The connection state a stage leaves the server in. */
export const STAGE_STATE: Record<Stage, ConnState> = {
  fresh: 'handshake',
  login: 'login',
  characters: 'authenticated',
  world: 'inWorld',
};

export interface Message {
  readonly bytes: Uint8Array;
  /** Hostile units in it: frames (valid or mutated), random chunks, WebSocket messages. */
  readonly units: number;
  /** WebSocket: a text message. */
  readonly text?: boolean;
  /** WebSocket: sent as this many continuation fragments. */
  readonly fragments?: number;
}

export interface FuzzCase {
  readonly index: number;
  readonly transport: FuzzTransport;
  readonly stage: Stage;
  readonly kind: CaseKind;
  /** TCP: writes (a stream cut anywhere); WebSocket: messages. */
  readonly messages: Message[];
}

export type Mutation = 'bitflip' | 'size' | 'crc' | 'truncate' | 'opcode';
const MUTATIONS: readonly Mutation[] = ['bitflip', 'size', 'crc', 'truncate', 'opcode'];

/** Valid frames per client packet, by opcode. */
export type FramePool = ReadonlyMap<number, readonly Uint8Array[]>;

export function buildPool(seed: number, perPacket = 64): FramePool {
  const pool = new Map<number, Uint8Array[]>();
  for (const def of clientPackets) {
    const values = fc.sample(arbitraryPacket(def), { seed: seed + def.opcode, numRuns: perPacket });
    pool.set(
      def.opcode,
      values.map((v) => def.encode(v as never)),
    );
  }
  return pool;
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

function randomBytes(rng: Rng, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rng() * 256);
  return out;
}

function writeHeader(frame: Uint8Array, size: number, opcode: number, crc: number): void {
  frame[0] = size & 0xff;
  frame[1] = size >> 8;
  frame[2] = opcode & 0xff;
  frame[3] = opcode >> 8;
  frame[4] = crc & 0xff;
  frame[5] = crc >> 8;
}

export function mutate(rng: Rng, frame: Uint8Array, how: Mutation): Uint8Array {
  const out = frame.slice();
  switch (how) {
    case 'bitflip': {
      const flips = randomInt(rng, 1, 3);
      for (let i = 0; i < flips; i++) {
        const at = Math.floor(rng() * out.length);
        out[at]! ^= 1 << Math.floor(rng() * 8);
      }
      return out;
    }
    case 'size': {
      const size = out[0]! | (out[1]! << 8);
      const next = rng() < 0.5 ? randomInt(rng, 0, 0xffff) : Math.max(0, size + randomInt(rng, -4, 4));
      out[0] = next & 0xff;
      out[1] = (next >> 8) & 0xff;
      return out;
    }
    case 'crc':
      out[4]! ^= randomInt(rng, 1, 255);
      return out;
    case 'truncate':
      return out.subarray(0, randomInt(rng, 0, Math.max(0, out.length - 1)));
    case 'opcode': {
      const opcode = rng() < 0.5 ? randomInt(rng, 0, 0xffff) : pick(rng, serverPackets).opcode;
      writeHeader(out, out[0]! | (out[1]! << 8), opcode, crc16(out, HEADER_SIZE));
      return out;
    }
  }
}

export interface CaseMix {
  readonly transports: readonly FuzzTransport[];
}

/** Cuts a byte stream into writes of 1..max bytes. */
function chop(rng: Rng, bytes: Uint8Array, units: number, max: number): Message[] {
  const out: Message[] = [];
  let at = 0;
  while (at < bytes.length) {
    const n = Math.min(bytes.length - at, randomInt(rng, 1, max));
    out.push({ bytes: bytes.subarray(at, at + n), units: 0 });
    at += n;
  }
  if (out.length === 0) return [{ bytes, units }];
  // The units are counted once, on the first write.
  out[0] = { ...out[0]!, units };
  return out;
}

function framesFor(rng: Rng, pool: FramePool, defs: readonly ClientPacket[]): Uint8Array {
  const def = pick(rng, defs);
  return pick(rng, pool.get(def.opcode)!);
}

/**
 * Case `index`: its transport, stage and kind, and the bytes. `wsLimit` is the largest
 * WebSocket message the server takes, `loginLimit` the largest before login: an oversized
 * message is just over one of them.
 */
export function makeCase(
  seed: number,
  index: number,
  pool: FramePool,
  transports: readonly FuzzTransport[],
  limits: { ws: number; login: number },
): FuzzCase {
  const rng = mulberry32((seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0);
  const transport = pick(rng, transports);
  const r = rng();
  const stage: Stage = r < 0.3 ? 'fresh' : r < 0.55 ? 'login' : r < 0.7 ? 'characters' : 'world';
  const state = STAGE_STATE[stage];
  const accepted = clientPackets.filter((p) => p.states.includes(state));
  const refused = clientPackets.filter((p) => !p.states.includes(state));
  const k = rng();
  let kind: CaseKind;
  if (transport === 'ws' && k < 0.05) kind = 'text';
  else if (transport === 'ws' && k < 0.12) kind = 'fragmented';
  else if (transport === 'ws' && k < 0.15) kind = 'oversized';
  else if (k < 0.3) kind = 'random-bytes';
  else if (k < 0.4) kind = 'wrong-state';
  else kind = 'frames';

  const messages: Message[] = [];
  switch (kind) {
    case 'random-bytes': {
      const n = randomInt(rng, 1, 8);
      for (let i = 0; i < n; i++)
        messages.push({ bytes: randomBytes(rng, randomInt(rng, 1, 300)), units: 1 });
      break;
    }
    case 'text': {
      const text = new TextEncoder().encode(`{"op":"login","n":${index}}`);
      messages.push({ bytes: text, units: 1, text: true });
      break;
    }
    case 'fragmented': {
      // Whole, valid frames for the stage, delivered as 2-5 continuation fragments.
      const parts = Array.from({ length: randomInt(rng, 1, 3) }, () => framesFor(rng, pool, accepted));
      messages.push({ bytes: concat(parts), units: parts.length, fragments: randomInt(rng, 2, 5) });
      break;
    }
    case 'oversized': {
      const limit = rng() < 0.5 ? limits.login : limits.ws;
      messages.push({ bytes: randomBytes(rng, limit + randomInt(rng, 1, 64)), units: 1 });
      break;
    }
    case 'wrong-state':
    case 'frames': {
      // A run of frames: mostly valid for the stage, some for another stage, some mutated.
      const n = randomInt(rng, 1, 48);
      const mutationRate = kind === 'frames' ? randomInt(rng, 0, 40) / 100 : 0;
      const frames: Uint8Array[] = [];
      for (let i = 0; i < n; i++) {
        const wrong = kind === 'wrong-state' ? i === n - 1 || rng() < 0.2 : rng() < 0.05;
        let frame = framesFor(rng, pool, wrong && refused.length ? refused : accepted);
        if (rng() < mutationRate) frame = mutate(rng, frame, pick(rng, MUTATIONS));
        frames.push(frame);
      }
      if (transport === 'tcp') {
        messages.push(...chop(rng, concat(frames), frames.length, rng() < 0.3 ? 7 : 1500));
      } else {
        // One to three whole frames a message, as the protocol says (mutations aside).
        for (let i = 0; i < frames.length;) {
          const take = Math.min(frames.length - i, randomInt(rng, 1, 3));
          messages.push({ bytes: concat(frames.slice(i, i + take)), units: take });
          i += take;
        }
      }
      break;
    }
  }
  return { index, transport, stage, kind, messages };
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function hex(bytes: Uint8Array, max = 48): string {
  let s = '';
  for (let i = 0; i < Math.min(bytes.length, max); i++) s += bytes[i]!.toString(16).padStart(2, '0');
  return bytes.length > max ? `${s}…(${bytes.length} bytes)` : s;
}
