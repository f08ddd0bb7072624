/**
 * Facts about packets that end in entity records (WorldUpdate), for the generic per-packet
 * tests. A records field reads records until the payload ends, so a payload cut between two
 * records is not short: it is a whole payload holding the records before the cut.
 */
import type { EntityRecord, Packet, PayloadOf } from '../../shared/protocol/index.js';
import { HEADER_SIZE } from '../../shared/codec/index.js';

/** The name of the packet's records field, if it has one. */
export function recordsFieldOf(def: Packet): string | undefined {
  return Object.keys(def.fields).find((name) => def.fields[name]!.spec.type === 'records');
}

/** Records split into blocks as they go on the wire: a new block wherever the id goes down. */
export function splitBlocks(records: readonly EntityRecord[]): EntityRecord[][] {
  const blocks: EntityRecord[][] = [];
  for (const [i, r] of records.entries()) {
    if (i === 0 || r.id < records[i - 1]!.id) blocks.push([]);
    blocks[blocks.length - 1]!.push(r);
  }
  return blocks;
}

/**
 * The payload lengths, short of the whole payload of `value`, at which its prefix is itself
 * a whole payload (a cut between records, or right before the first), each with the value it
 * decodes to. Empty for a packet without records.
 */
export function wholeBlockPrefixes<P extends Packet>(def: P, value: PayloadOf<P>): Map<number, unknown> {
  const out = new Map<number, unknown>();
  const name = recordsFieldOf(def);
  if (name === undefined) return out;
  const records = (value as Record<string, EntityRecord[]>)[name]!;
  for (let n = 0; n < records.length; n++) {
    const shorter = { ...value, [name]: records.slice(0, n) };
    out.set(def.encode(shorter as never).length - HEADER_SIZE, shorter);
  }
  return out;
}
