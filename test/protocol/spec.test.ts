import { beforeAll, describe, expect, it } from 'vitest';
import type { Field, FieldSpec } from '../../shared/codec/index.js';
import {
  CLIENT_HEARTBEAT_MS,
  MAX_DEAD_RECKON_MS,
  MOTION_ERROR_UNITS,
  MOTION_HEARTBEAT_MS,
} from '../../shared/game/motion.js';
import { ErrorCode, packets, RecordKind, WorldUpdate } from '../../shared/protocol/index.js';
import { goldenFrame, hex } from '../../tools/golden.js';
import { fieldTypeRows, renderSpec } from '../../tools/spec.js';

let doc = '';
beforeAll(async () => {
  doc = await renderSpec();
});

function fieldTypesIn(field: Field<unknown>, into: Set<FieldSpec['type']>): void {
  const s = field.spec;
  into.add(s.type);
  if (s.type === 'list' || s.type === 'optional') fieldTypesIn(s.of, into);
  if (s.type === 'struct') for (const f of Object.values(s.fields)) fieldTypesIn(f, into);
}

describe('generated PROTOCOL.md', () => {
  it('has a section with the opcode of every packet', () => {
    const missing = packets.filter(
      (p) =>
        !doc.includes(`### ${p.name}\n`) || !doc.includes(`\`0x${p.opcode.toString(16).padStart(4, '0')}\``),
    );
    expect(missing.map((p) => p.name)).toEqual([]);
  });

  it('lists every error code', () => {
    const missing = Object.values(ErrorCode).filter((c) => !doc.includes(`| \`${c}\` |`));
    expect(missing).toEqual([]);
  });

  it('states the frame header and the CRC check value', () => {
    expect(doc).toContain('CRC-16/CCITT-FALSE');
    expect(doc).toContain('0x29B1');
    expect(doc).toContain('65535');
  });

  it('describes the wire layout of every field type a packet uses', () => {
    const used = new Set<FieldSpec['type']>();
    for (const p of packets) fieldTypesIn(p.payload as Field<unknown>, used);
    used.delete('struct'); // the payload itself
    const described = fieldTypeRows().flatMap(([types]) =>
      types.split(' ').map((ty) => ty.replace(/\(.*$/, '')),
    );
    expect([...used].filter((ty) => !described.includes(ty))).toEqual([]);
  });

  it('lays out every entity record kind with its tag', () => {
    expect(doc).toContain('## Entity records (WorldUpdate)');
    const missing = Object.entries(RecordKind).filter(
      ([kind, n]) =>
        !doc.includes(
          `| \`${kind[0]!.toLowerCase() + kind.slice(1)}\` | \`0x${n.toString(16).padStart(2, '0')}\` |`,
        ),
    );
    expect(missing).toEqual([]);
  });

  it('states the motion model with the numbers the code uses', () => {
    expect(doc).toContain('### Motion states');
    expect(doc).toContain(`more than ${MOTION_ERROR_UNITS} units`);
    expect(doc).toContain(`every ${MOTION_HEARTBEAT_MS} ms while it walks`);
    expect(doc).toContain(`every ${CLIENT_HEARTBEAT_MS} ms while walking`);
    expect(doc).toContain(`at most ${MAX_DEAD_RECKON_MS} ms past a state`);
    expect(doc).toMatch(/resync/);
  });

  it('takes the golden WorldUpdate apart byte by byte', () => {
    expect(doc).toContain('### Worked example');
    expect(doc).toContain(hex(goldenFrame(WorldUpdate)));
  });

  it('mentions none of the packets WorldUpdate replaced', () => {
    const gone = ['EntityMove', 'MobPath', 'WorldTick', 'EntitySpawn', 'EntityDespawn', 'HealthUpdate'];
    expect(gone.filter((name) => doc.includes(name))).toEqual([]);
    expect(doc).not.toMatch(/\[(Death|Respawn)\]\(#/);
  });

  it('walks a native client through login, the world and clock sync', () => {
    for (const heading of [
      '## Writing a native client',
      '### SRP-6a, exactly',
      '### Golden vectors',
      '### 8. Clock sync',
    ]) {
      expect(doc).toContain(heading);
    }
    expect(doc).toContain('offset = serverTime - (clientTime + rtt / 2)');
    expect(doc).toContain('SHA-512');
  });

  it('renders the same document every time (no dates, no randomness)', async () => {
    expect(await renderSpec()).toBe(doc);
  });

  it('links only to headings that exist', () => {
    const anchors = new Set(
      [...doc.matchAll(/^#+ (.+)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    const broken = [...doc.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!).filter((a) => !anchors.has(a));
    expect([...new Set(broken)]).toEqual([]);
  });
});
