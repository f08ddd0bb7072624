/**
 * Every packet, checked once at load: opcodes and names are unique. Lookup by opcode is
 * an array index.
 */
import * as account from './account.js';
import * as character from './character.js';
import * as chat from './chat.js';
import type { ClientPacket, Packet, ServerPacket } from './define.js';
import * as entity from './entity.js';
import * as logout from './logout.js';
import * as movement from './movement.js';
import * as session from './session.js';
import * as spell from './spell.js';

/** Packet groups in spec order; each module's packet exports are its packets. */
export const groups = { session, account, character, movement, entity, chat, spell, logout } as const;

function isPacket(v: unknown): v is Packet {
  return typeof v === 'object' && v !== null && 'opcode' in v && 'dir' in v && 'decode' in v;
}

export const packets: readonly Packet[] = Object.values(groups)
  .flatMap((g) => Object.values(g).filter(isPacket))
  .sort((a, b) => a.opcode - b.opcode);

const byOpcodeTable: (Packet | undefined)[] = new Array(0x10000);
const byNameTable = new Map<string, Packet>();
for (const p of packets) {
  if (byOpcodeTable[p.opcode]) throw new Error(`opcode 0x${p.opcode.toString(16)} defined twice`);
  if (byNameTable.has(p.name)) throw new Error(`packet name ${p.name} defined twice`);
  byOpcodeTable[p.opcode] = p;
  byNameTable.set(p.name, p);
}

export function byOpcode(opcode: number): Packet | undefined {
  return byOpcodeTable[opcode];
}

export function byName(name: string): Packet | undefined {
  return byNameTable.get(name);
}

export const clientPackets = packets.filter((p): p is ClientPacket => p.dir === 'c2s');
export const serverPackets = packets.filter((p): p is ServerPacket => p.dir === 's2c');

type Exports = (typeof groups)[keyof typeof groups];
type ExportValues<M> = M extends unknown ? M[keyof M] : never;
type AnyPacket = ExportValues<Exports>;
/** Union of every client-to-server definition, each with its own literal name and fields. */
export type AnyClientPacket = Extract<AnyPacket, { dir: 'c2s' }>;
/** Union of every server-to-client definition. */
export type AnyServerPacket = Extract<AnyPacket, { dir: 's2c' }>;
export type ClientPacketName = AnyClientPacket['name'];
/** A client packet's definition by its name. */
export type ClientPacketByName<N extends ClientPacketName> = Extract<AnyClientPacket, { name: N }>;
/** The names of the client packets with dispatch target `T`, from their definitions. */
export type ClientPacketNameFor<T extends AnyClientPacket['target']> = Extract<
  AnyClientPacket,
  { target: T }
>['name'];
export type ServerPacketName = AnyServerPacket['name'];
