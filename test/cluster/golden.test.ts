/**
 * The inner wire's golden vectors (test/cluster/golden/, written by `npm run spec` from the
 * declarations in server/cluster/wire.ts and border-wire.ts): each decodes into its value and
 * encodes back into the same bytes, so a change of layout shows up as a hex diff.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../shared/codec/errors.js';
import { innerWire } from '../../server/cluster/wire.js';
import {
  formatVector,
  hex,
  INNER_GOLDEN_DIR,
  innerValueJson,
  innerVectors,
  renderClusterDoc,
} from '../../tools/cluster-spec.js';
import { parseGolden } from '../../tools/golden.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIX = 'run `npm run spec` after a deliberate change of the inner wire and review the diff';
const vectors = innerVectors();

describe('inner wire golden vectors', () => {
  for (const v of vectors) {
    describe(v.path.split('/').at(-1)!, () => {
      const path = resolve(ROOT, v.path);
      const read = () => readFileSync(path, 'utf8');

      it('has a vector file', () => {
        expect(existsSync(path), `${v.path} is missing: ${FIX}`).toBe(true);
      });

      it('holds what its value encodes into', () => {
        expect(hex(parseGolden(read())), FIX).toBe(hex(v.bytes));
      });

      it('decodes into its value and encodes back into the same bytes', () => {
        const bytes = parseGolden(read());
        const value = v.decode(bytes);
        expect(value).toEqual(v.value);
        expect(hex(v.encode(value))).toBe(hex(bytes));
      });

      it('names the message and shows its value in its comment lines', () => {
        const [title, value] = read().split('\n');
        expect(title).toBe(`# ${v.title}`);
        expect(value).toBe(`# value: ${innerValueJson(v.decode(parseGolden(read())))}`);
        expect(read()).toBe(formatVector(v));
      });

      it('refuses the vector cut short at every length with a DecodeError, never another error', () => {
        const bytes = parseGolden(read());
        for (let n = 0; n < bytes.length; n++) {
          try {
            v.decode(bytes.subarray(0, n));
          } catch (err) {
            // A message of records cut after its head holds no record: the reader's own complaint.
            if (err instanceof Error && /records where one was written/.test(err.message)) continue;
            expect(err, `cut at ${n}`).toBeInstanceOf(DecodeError);
          }
        }
      });
    });
  }

  it('has a vector for every record and body, and none for anything else', () => {
    const names = innerWire.streams.flatMap((s) => s.records.map((r) => `${s.name}.${r.name}.hex`));
    names.push(...innerWire.bodies.map((b) => `${b.name}.hex`));
    expect(vectors.map((v) => v.path.split('/').at(-1)).sort()).toEqual([...names].sort());
    const files = readdirSync(resolve(ROOT, INNER_GOLDEN_DIR)).filter((f) => f.endsWith('.hex'));
    expect(files.sort(), FIX).toEqual([...names].sort());
  });

  it('shows a border strip with a player and a mob on a route, and a hand-off state with every number tag', () => {
    const strip = vectors.find((v) => v.path.endsWith('/BorderStrip.hex'))!;
    const kinds = (strip.value as { entities: { kind: string; route?: unknown }[] }).entities;
    expect(kinds.map((e) => [e.kind, e.route !== undefined])).toEqual([
      ['player', false],
      ['mob', true],
    ]);
    // The tag bytes: 0 (an f64 follows), 1 (+Infinity), 2 (-Infinity), 3 (none).
    const state = JSON.parse(
      readFileSync(resolve(ROOT, INNER_GOLDEN_DIR, 'HandoffState.hex'), 'utf8')
        .split('\n')[1]!
        .slice('# value: '.length),
    ) as Record<string, unknown>;
    const nums = Object.values(state).filter((x) => x === null || x === 'Infinity' || x === '-Infinity');
    expect(new Set(nums)).toEqual(new Set([null, 'Infinity', '-Infinity']));
  });
});

describe("CLUSTER.md's wire tables", () => {
  const doc = readFileSync(resolve(ROOT, 'docs/CLUSTER.md'), 'utf8');

  it('are as the declarations render them', () => {
    // Prettier may pad the tables; the check in `npm run spec:check` compares the formatted file.
    const squeeze = (s: string) => s.replace(/ +/g, ' ').replace(/-{3,}/g, '---');
    expect(squeeze(renderClusterDoc(doc))).toBe(squeeze(doc));
  });

  it('list every record with its kind and every body by name', () => {
    for (const s of innerWire.streams)
      for (const r of s.records) expect(doc).toMatch(new RegExp(`\\| ${r.kind} +\\| \`${r.name}\` +\\|`));
    for (const b of innerWire.bodies) expect(doc).toContain(`**${b.name}**`);
  });

  it('refuse a table for a message that does not exist, and a message without a table', () => {
    expect(() =>
      renderClusterDoc(`${doc}\n<!-- inner-wire: NoSuchMessage -->\n<!-- /inner-wire -->\n`),
    ).toThrow(/no inner-wire declaration called NoSuchMessage/);
    expect(() =>
      renderClusterDoc(doc.replace(/<!-- inner-wire: WhoReply -->[\s\S]*?<!-- \/inner-wire -->/, '')),
    ).toThrow(/no table for WhoReply/);
  });
});
