/**
 * The inner wire's generated files, from its declarations (server/cluster/wire.ts,
 * border-wire.ts): docs/CLUSTER.md's wire tables and the golden vectors in
 * test/cluster/golden/. Run by `npm run spec` (tools/spec.ts), checked by `npm run spec:check`.
 *
 * CLUSTER.md stays hand-written around the tables: each table sits between
 *   <!-- inner-wire: Name -->   and   <!-- /inner-wire -->
 * and is rewritten from the declaration called Name (`legend` is the list of layouts).
 *
 * A golden vector (text, LF):
 *   # <Message>[.<Record>] <from> → <to>, <where it goes>: <n> bytes
 *   # value: <the value as one line of JSON; bytes as lowercase hex, Infinity as a string>
 *   <the message as lowercase hex, 16 bytes per line>
 * A message of records holds its head and that one record.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { Writer } from '../shared/codec/writer.js';
import { Dir, type InnerBody, type InnerRecord, type InnerStream } from '../server/cluster/inner/define.js';
import { describeWire, type AnyWireField, type WireFields } from '../server/cluster/inner/fields.js';
import { innerWire } from '../server/cluster/wire.js';
import { sampleBody, sampleRecord, sampleWire } from '../test/helpers/wire-sample.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const CLUSTER_DOC = 'docs/CLUSTER.md';
export const INNER_GOLDEN_DIR = 'test/cluster/golden';
const BYTES_PER_LINE = 16;

// ---------------------------------------------------------------- golden vectors

/** One golden vector: what it holds and how to read it back and write it again. */
export interface InnerVector {
  /** Path from the project root. */
  path: string;
  title: string;
  value: unknown;
  bytes: Uint8Array;
  decode(bytes: Uint8Array): unknown;
  encode(value: unknown): Uint8Array;
}

const size = (bytes: Uint8Array) => `${bytes.length} byte${bytes.length === 1 ? '' : 's'}`;

function streamVector(stream: InnerStream, rec: InnerRecord): InnerVector {
  const encode = (value: unknown): Uint8Array => {
    const { head, record } = value as { head: never; record: never };
    const w = new Writer(64);
    stream.begin(w, head);
    rec.write(w, record);
    return w.finish();
  };
  const decode = (bytes: Uint8Array): unknown => {
    const got: { head: unknown; record: unknown }[] = [];
    const handlers: Record<string, (record: unknown, head: unknown) => void> = {};
    for (const r of stream.records) handlers[r.name] = (record, head) => got.push({ head, record });
    stream.read(bytes, handlers as never);
    if (got.length !== 1) throw new Error(`${stream.name}: ${got.length} records where one was written`);
    return got[0];
  };
  const value = { head: sampleWire(stream.headField), record: sampleRecord(rec) };
  const bytes = encode(value);
  return {
    path: `${INNER_GOLDEN_DIR}/${stream.name}.${rec.name}.hex`,
    title: `${stream.name}.${rec.name} ${Dir[rec.dir]}, ${stream.subjects.join(' and ')}: ${size(bytes)}`,
    value,
    bytes,
    decode,
    encode,
  };
}

function bodyVector(body: InnerBody): InnerVector {
  const value = sampleBody(body);
  const bytes = body.encode(value as never);
  return {
    path: `${INNER_GOLDEN_DIR}/${body.name}.hex`,
    title: `${body.name} ${Dir[body.dir]}, ${body.subject}: ${size(bytes)}`,
    value,
    bytes,
    decode: (b) => body.decode(b),
    encode: (v) => body.encode(v as never),
  };
}

export function innerVectors(): InnerVector[] {
  return [
    ...innerWire.streams.flatMap((s: InnerStream) => s.records.map((r) => streamVector(s, r))),
    ...innerWire.bodies.map((b: InnerBody) => bodyVector(b)),
  ];
}

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** One line of JSON: bytes as lowercase hex, infinities as strings (JSON has none). */
export function innerValueJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Uint8Array ? hex(v) : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v,
  );
}

export function formatVector(v: InnerVector): string {
  const lines = [`# ${v.title}`, `# value: ${innerValueJson(v.value)}`];
  for (let at = 0; at < v.bytes.length; at += BYTES_PER_LINE) {
    const row = v.bytes.subarray(at, at + BYTES_PER_LINE);
    lines.push(Array.from(row, (b) => b.toString(16).padStart(2, '0')).join(' '));
  }
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------- CLUSTER.md

/** A group whose fields are worth a line each, inside `f` (a group, a list or option of one, a conditional one). */
function innerGroup(f: AnyWireField): WireFields | undefined {
  const s = f.spec;
  if (s.type === 'group' || s.type === 'struct')
    return Object.keys(s.fields).length > 3 ? s.fields : undefined;
  if (
    s.type === 'array' ||
    s.type === 'list' ||
    s.type === 'maybe' ||
    s.type === 'optional' ||
    s.type === 'when'
  )
    return innerGroup(s.of);
  return undefined;
}

function header(name: string, f: AnyWireField): string {
  const s = f.spec;
  switch (s.type) {
    case 'array':
      return `${name}: count${s.count === 'u8' ? ' u8' : ''}, each`;
    case 'list':
      return `${name}: count ${s.max <= 0xff ? 'u8' : 'u16'}, each`;
    case 'maybe':
    case 'optional':
      return `${name}: u8 (0 none, 1 and then)`;
    case 'when':
      return `(${s.doc}) ${header(name, s.of)}`;
    default:
      return name;
  }
}

/** A body's layout: a line per field, the fields of a large group indented below it. */
function layoutLines(fields: WireFields, indent = ''): string[] {
  const lines: string[] = [];
  for (const [name, f] of Object.entries(fields)) {
    const inner = innerGroup(f);
    if (inner) {
      lines.push(`${indent}${header(name, f)}:`);
      lines.push(...layoutLines(inner, indent + '  '));
    } else lines.push(indent + describeWire(name, f));
  }
  return lines;
}

const code = (s: string) => `\`${s}\``;
const cell = (s: string) => s.replaceAll('|', '\\|');

/** The fields on one line; `none` when there are none. */
function fieldsLine(fields: WireFields, none = 'no bytes'): string {
  const parts = Object.entries(fields).map(([n, f]) => describeWire(n, f));
  return parts.length === 0 ? none : code(parts.join(' · '));
}

function streamBlock(s: InnerStream): string {
  const rows = s.records.map(
    (r) =>
      `| ${r.kind} | \`${r.name}\` | ${Dir[r.dir]} | ${cell(fieldsLine(r.fields, '-'))} | ${cell(r.doc)} |`,
  );
  return [
    `**${s.name}** ${s.subjects.join(' and ')}: ${fieldsLine(s.head)}, then records to the end, each \`kind u8 · session · fields\`. ${s.doc}`,
    '',
    '| kind | record | from → to | fields after `session` | meaning |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

function bodyBlock(b: InnerBody): string {
  const lines = layoutLines(b.fields);
  const lead = `**${b.name}** (${Dir[b.dir]}), ${b.subject}:`;
  if (lines.length <= 3) return `${lead} ${fieldsLine(b.fields)}. ${b.doc}`;
  return [`${lead} ${b.doc}`, '', '```', ...lines, '```'].join('\n');
}

const LEGEND = [
  'Integers are varints (unsigned LEB128, at most 5 bytes) unless a width is given; fixed widths are',
  'little-endian; `bool` is a u8, 0 or 1, and `angle u8` a heading in 256 steps (as in PROTOCOL.md).',
  '`str8` is a u8 length and UTF-8; `length · x` and `length u16 · x` are bytes',
  'after their length (read as views into the message, never copied); `num` is a time or amount',
  'that may be absent or infinite: a tag u8 (0 an f64 follows, 1 +Infinity, 2 -Infinity, 3 none);',
  "`count, each (...)` is a varint count and the items; a field in parentheses' condition is there",
  'only when it holds. Declared in `server/cluster/wire.ts` and `server/cluster/border-wire.ts`;',
  'this section is generated from them by `npm run spec`, and their golden vectors are in',
  '`test/cluster/golden/`.',
].join('\n');

/** The blocks CLUSTER.md may hold, by name. */
export function innerBlocks(): Map<string, string> {
  const blocks = new Map<string, string>([['legend', LEGEND]]);
  for (const s of innerWire.streams as readonly InnerStream[]) blocks.set(s.name, streamBlock(s));
  for (const b of innerWire.bodies as readonly InnerBody[]) blocks.set(b.name, bodyBlock(b));
  return blocks;
}

const BLOCK = /(<!-- inner-wire: (\w+) -->)[\s\S]*?(<!-- \/inner-wire -->)/g;

/** `doc` with every inner-wire block rewritten; throws on a block naming nothing declared, or a declaration with no block. */
export function renderClusterDoc(doc: string): string {
  const blocks = innerBlocks();
  const seen = new Set<string>();
  const out = doc.replace(BLOCK, (_all, open: string, name: string, close: string) => {
    const block = blocks.get(name);
    if (block === undefined) throw new Error(`${CLUSTER_DOC}: no inner-wire declaration called ${name}`);
    seen.add(name);
    return `${open}\n\n${block}\n\n${close}`;
  });
  const missing = [...blocks.keys()].filter((n) => !seen.has(n));
  if (missing.length > 0) throw new Error(`${CLUSTER_DOC} has no table for ${missing.join(', ')}`);
  return out;
}

/** CLUSTER.md with its tables from the declarations (formatted as the project formats markdown), and every golden vector. */
export async function renderInnerWire(): Promise<{ path: string; content: string }[]> {
  const path = resolve(ROOT, CLUSTER_DOC);
  const doc = renderClusterDoc(readFileSync(path, 'utf8'));
  const options = (await resolveConfig(path)) ?? {};
  const formatted = await format(doc, { ...options, filepath: path });
  return [
    { path: CLUSTER_DOC, content: formatted },
    ...innerVectors().map((v) => ({ path: v.path, content: formatVector(v) })),
  ];
}
