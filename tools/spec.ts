/**
 * Generates docs/PROTOCOL.md from the packet definitions (shared/protocol), the codec
 * (shared/codec), the motion constants (shared/game/motion.ts), the golden samples
 * (test/helpers/sample.ts) and the SRP library's defaults (tssrp6a), so the document
 * cannot drift from the code.
 *
 *   npx tsx tools/spec.ts           write docs/PROTOCOL.md
 *   npx tsx tools/spec.ts --check   exit 1 when the committed file differs from a fresh render
 *
 * The output is deterministic: no dates, no randomness (the SRP example uses fixed secrets).
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SRPClientSessionStep2, SRPParameters, SRPRoutines, SRPServerSessionStep1 } from 'tssrp6a';
import {
  crc16,
  describe,
  DecodeErrorCode,
  HEADER_SIZE,
  MAX_FRAME_SIZE,
  Writer,
} from '../shared/codec/index.js';
import type { Field, FieldSpec } from '../shared/codec/index.js';
import { CONFIG_OPTIONS } from '../server/config.js';
import { LOGIN_MESSAGE_SIZE } from '../server/dispatch/dispatcher.js';
import { LATENESS_WINDOW_MS, MAX_HOLD_MS } from '../server/world/timeline.js';
import { ENTITY_RADIUS } from '../shared/game/movement.js';
import {
  CLIENT_HEARTBEAT_MS,
  CLIENT_TURN_EPSILON,
  INPUT_GRACE_MS,
  INPUT_OVERDUE_MS,
  MAX_DEAD_RECKON_MS,
  MOTION_ERROR_UNITS,
  MOTION_HEARTBEAT_MS,
} from '../shared/game/motion.js';
import {
  ALIVE,
  ALL_STATES,
  Bye,
  CharacterCreated,
  CharacterDeleted,
  CharacterList,
  characterName,
  ConnState,
  COORD_MAX,
  CreateCharacter,
  DeleteCharacter,
  DespawnReason,
  EnterWorld,
  EnterWorldRequest,
  EntityKind,
  ErrorCode,
  ErrorPacket,
  errorMessage,
  groups,
  Hello,
  JUMP,
  AGE,
  BASE,
  SAME_ANGLE,
  ListCharacters,
  LoginChallenge,
  LoginOk,
  LoginProof,
  LoginQueue,
  LoginStart,
  LogoutCancel,
  LogoutCancelled,
  LogoutComplete,
  LogoutRequest,
  LogoutStarted,
  MAX_CHARACTERS,
  MAX_PATH_POINTS,
  MOB_ID_BASE,
  MoveAck,
  MoveInput,
  MOVING,
  HERE,
  ONE,
  packets,
  PlayerStats,
  Ping,
  Pong,
  PositionCorrection,
  PROTOCOL_VERSION,
  quantizeAngle,
  quantizeCoord,
  quantizeSpeed,
  RecordKind,
  Register,
  Registered,
  Resume,
  Resumed,
  SPEED,
  SpellBook,
  SpellStart,
  Cooldown,
  Welcome,
  WorldUpdate,
  markBase,
  writeRecord,
  ZoneInfo,
  ZoneChanged,
  SpellGo,
} from '../shared/protocol/index.js';
import type { EntityRecord, Packet } from '../shared/protocol/index.js';
import { renderInnerWire } from './cluster-spec.js';
import { renderC } from './gen/c.js';
import { renderPython } from './gen/python.js';
import { goldenFrame, hex } from './golden.js';
import { samplePacket } from '../test/helpers/sample.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const SPEC_PATH = resolve(ROOT, 'docs/PROTOCOL.md');

// ---------------------------------------------------------------------------------------
// Small formatting helpers

function hex4(n: number): string {
  return `0x${n.toString(16).padStart(4, '0')}`;
}

function cell(text: string | number): string {
  return String(text).replace(/\|/g, '\\|');
}

function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (const row of rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

function code(text: string): string {
  return `\`${text}\``;
}

function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

function packetLink(def: Packet): string {
  return `[${def.name}](#${anchor(def.name)})`;
}

function bigHex(n: bigint, indent: string): string {
  const digits = n.toString(16);
  const padded = digits.length % 2 === 0 ? digits : `0${digits}`;
  const lines: string[] = [];
  for (let at = 0; at < padded.length; at += 64) lines.push(padded.slice(at, at + 64));
  return lines.join(`\n${indent}`);
}

const DIRECTION = { c2s: 'client → server', s2c: 'server → client' } as const;

// ---------------------------------------------------------------------------------------
// Facts read from source comments: the field layout table and each group's module doc.

/** The rows of the "Wire layouts" table in the header comment of shared/codec/fields.ts. */
export function wireLayoutRows(): [string, string][] {
  const source = readFileSync(resolve(ROOT, 'shared/codec/fields.ts'), 'utf8');
  const header = source.slice(0, source.indexOf('*/'));
  const start = header.indexOf('Wire layouts');
  if (start < 0) throw new Error('shared/codec/fields.ts: the header comment has no "Wire layouts" table');
  const rows: [string, string][] = [];
  for (const line of header.slice(start).split('\n').slice(1)) {
    const text = line.replace(/^\s*\*\s?/, '').trim();
    if (text === '') continue;
    // The type column ends at the first run of two or more spaces; the layout may hold more.
    const gap = /\s{2,}/.exec(text);
    if (!gap) throw new Error(`shared/codec/fields.ts: cannot read wire layout line "${text}"`);
    rows.push([text.slice(0, gap.index), text.slice(gap.index).trim().replace(/\s+/g, ' ')]);
  }
  return rows;
}

const RECORDS_HEADING = 'Entity records (WorldUpdate)';

/**
 * The field types table: the rows of fields.ts's header comment, and a row for entity
 * records (whose layout shared/protocol/records.ts owns) when the comment has none.
 */
export function fieldTypeRows(): [string, string][] {
  const rows = wireLayoutRows();
  if (!rows.some(([types]) => types.split(' ').includes('records'))) {
    rows.push([
      'records',
      `blocks of entity records to the end of the payload, so always a packet's last field; see ${RECORDS_HEADING}`,
    ]);
  }
  return rows;
}

function moduleDoc(group: string): string {
  const source = readFileSync(resolve(ROOT, `shared/protocol/${group}.ts`), 'utf8');
  const match = /^\/\*\*([\s\S]*?)\*\//.exec(source);
  if (!match?.[1]) return '';
  return match[1]
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, '').trim())
    .filter((l) => l !== '')
    .join(' ');
}

// ---------------------------------------------------------------------------------------
// Field tables

function hasStruct(field: Field<unknown>): boolean {
  const s = field.spec;
  if (s.type === 'struct') return true;
  if (s.type === 'list' || s.type === 'optional') return hasStruct(s.of);
  return false;
}

/** The width of a list's count prefix, derived from its declared maxSize. */
function countWidth(field: Field<unknown>, s: Extract<FieldSpec, { type: 'list' }>): string {
  return field.maxSize - s.max * s.of.maxSize === 1 ? 'u8' : 'u16';
}

/** describe(), except that a struct is named, not spelled out (its fields get their own rows). */
function wireType(field: Field<unknown>): string {
  if (!hasStruct(field)) return describe(field);
  const s = field.spec;
  switch (s.type) {
    case 'struct':
      return 'struct';
    case 'list':
      return `list(max ${s.max}, ${countWidth(field, s)} count) of ${wireType(s.of)}`;
    case 'optional':
      return `optional(u8 flag) ${wireType(s.of)}`;
    default:
      return describe(field);
  }
}

function innerStruct(
  field: Field<unknown>,
  path: string,
): { path: string; field: Field<unknown> } | undefined {
  const s = field.spec;
  if (s.type === 'struct') return { path, field };
  if (s.type === 'list') return innerStruct(s.of, `${path}[]`);
  if (s.type === 'optional') return innerStruct(s.of, path);
  return undefined;
}

function fieldRows(name: string, field: Field<unknown>, rows: string[][]): void {
  if (field.spec.type === 'records') {
    const link = `[${RECORDS_HEADING}](#${anchor(RECORDS_HEADING)})`;
    rows.push([
      code(name),
      `${code('records')}: blocks to the end of the payload, see ${link}`,
      String(field.maxSize),
    ]);
    return;
  }
  rows.push([code(name), code(wireType(field)), String(field.maxSize)]);
  const inner = innerStruct(field, name);
  if (!inner || inner.field.spec.type !== 'struct') return;
  for (const [child, f] of Object.entries(inner.field.spec.fields))
    fieldRows(`${inner.path}.${child}`, f, rows);
}

function packetSection(def: Packet): string {
  const facts = [
    `- **Opcode** ${code(hex4(def.opcode))} (${def.opcode})`,
    `- **Direction** ${DIRECTION[def.dir]}`,
  ];
  if (def.dir === 'c2s') {
    facts.push(`- **Dispatch target** ${def.target}`);
    facts.push(`- **Accepted in** ${def.states.map(code).join(', ')}`);
    facts.push(`- **Rate class** ${def.rate ?? 'default'}`);
  } else {
    facts.push(`- **Delivery** ${def.delivery}`);
  }
  const out = [`### ${def.name}`, '', def.doc, '', ...facts, ''];
  const fields = Object.entries(def.fields);
  if (fields.length === 0) {
    out.push('No fields: the payload is empty.');
  } else {
    const rows: string[][] = [];
    for (const [name, f] of fields) fieldRows(name, f, rows);
    out.push(table(['Field', 'Wire type', 'Max bytes'], rows));
  }
  out.push('', `Payload at most ${def.maxSize} bytes; frame at most ${def.maxSize + HEADER_SIZE} bytes.`, '');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------
// Sections

function frameSection(): string {
  const check = crc16(new TextEncoder().encode('123456789'));
  if (check !== 0x29b1) throw new Error(`crc16 check value is 0x${check.toString(16)}, expected 0x29b1`);
  const empty = ListCharacters.encode({});
  return `## Frame

Every packet travels as one frame, on every transport:

${table(
  ['Offset', 'Size', 'Field', 'Meaning'],
  [
    [0, 2, 'size', `u16 LE: the whole frame in bytes, this ${HEADER_SIZE}-byte header included`],
    [2, 2, 'opcode', 'u16 LE: which packet (see the index below)'],
    [4, 2, 'crc', 'u16 LE: CRC-16/CCITT-FALSE of the payload'],
    [HEADER_SIZE, 'size − 6', 'payload', "the packet's fields, in declaration order"],
  ],
)}

- The header is ${HEADER_SIZE} bytes; a frame is at most ${MAX_FRAME_SIZE} bytes, so a payload is at most ${MAX_FRAME_SIZE - HEADER_SIZE} bytes. The server may be configured with a lower limit.
- CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no input or output reflection, no final XOR. Check value: the CRC of the ASCII bytes \`123456789\` is \`0x${check.toString(16).toUpperCase()}\`; the CRC of an empty payload is \`0xFFFF\`.
- The server judges each header as soon as its first 4 bytes (size and opcode) arrive, before it waits for the rest: an opcode nobody defined, or one only the server sends, is ${code(DecodeErrorCode.UnknownOpcode)}; a size below ${HEADER_SIZE}, above the limit, or above the largest frame of that packet (each packet's section gives it) is ${code(DecodeErrorCode.FrameSize)}; a packet the connection's state does not accept is ${code(ErrorCode.WrongState)}. So before login a connection can make the server hold at most one ${packetLink(Register)}-sized frame, and garbage is refused on its first bytes. A CRC mismatch, found once the frame is in, is ${code(DecodeErrorCode.BadCrc)}. Each is answered by an ${packetLink(ErrorPacket)} packet with \`fatal = true\`, then the connection is closed.
- Example: ${ListCharacters.name} has no fields, so its whole frame is \`${Array.from(empty, (b) => b.toString(16).padStart(2, '0')).join(' ')}\`.

### Transports

Both transports reach the same server and the same account, character and world: a client may use either, and a dropped connection may be resumed over the other (TCP to WebSocket or back; see [Resume](#4-resume-after-a-dropped-connection)).

- **TCP**: \`host:${option('TCP_PORT')}\` (the server's \`TCP_PORT\`; \`npm start\` listens on all addresses, \`HOST\`). Frames back to back on the byte stream. A read may return any part of any number of frames; keep the bytes of an incomplete frame until the rest arrives.
- **WebSocket**: \`ws://host:${option('HTTP_PORT')}/ws\`: the path \`/ws\` of the HTTP port (\`HTTP_PORT\`), the one that serves the browser client, \`/metrics\` and \`/healthz\`. No subprotocol and no extension is needed (the server does not compress). Binary messages only (a text message is ${code(ErrorCode.TextMessage)}). One message holds one or more whole frames, never part of one (a message that ends inside a frame is ${code(DecodeErrorCode.PartialFrame)}). Before login a message may hold at most ${LOGIN_MESSAGE_SIZE.toLocaleString('en')} bytes (two of the largest frames a client may send then); a longer message closes the connection with WebSocket close code 1009 (Message Too Big), at the latest once the message is whole (the \`ws\` engine as soon as the part that passes the bound arrives). Once logged in, a message may hold up to the server's \`WS_MAX_MESSAGE_SIZE\`.
- **TLS**: when the server is given \`TLS_CERT_FILE\` and \`TLS_KEY_FILE\`, its TCP port speaks TLS (the frames inside it, unchanged) and its HTTP port HTTPS, so the WebSocket URL is \`wss://host:${option('HTTP_PORT')}/ws\`. Without them both are plain.
`;
}

/** A server setting's default, as the configuration declares it. */
function option(env: string): string {
  const found = CONFIG_OPTIONS.find((o) => o.env === env);
  if (found?.default === undefined) throw new Error(`no default for ${env}`);
  return found.default;
}

function fieldTypesSection(): string {
  return `## Field types

Integers are little-endian. A payload is the packet's fields in declaration order with no padding and no field tags; it must be consumed exactly (bytes left over are ${code(DecodeErrorCode.Overlong)}, too few are ${code(DecodeErrorCode.Short)}).

${table(
  ['Type', 'Wire layout'],
  fieldTypeRows().map(([types, layout]) => [
    code(types),
    layout.replace(RECORDS_HEADING, `[${RECORDS_HEADING}](#${anchor(RECORDS_HEADING)})`),
  ]),
)}

Details a decoder must match:

- **varint**: 7 bits per byte, least significant group first, high bit set on every byte but the last. At most 5 bytes and at most 2^32 − 1; a longer varint, a larger value, or a non-shortest form (a last byte of 0 after the first) is ${code(DecodeErrorCode.BadVarint)}.
- **f32 / f64**: IEEE 754; NaN and ±infinity are ${code(DecodeErrorCode.BadNumber)}.
- **bool** and the **optional** flag: a byte other than 0 or 1 is ${code(DecodeErrorCode.BadBool)}.
- **string(max)**: the length counts UTF-8 bytes, not characters. A length above max is ${code(DecodeErrorCode.StringTooLong)}; malformed UTF-8 (overlong forms, surrogates, truncated sequences) is ${code(DecodeErrorCode.BadUtf8)}. A leading U+FEFF is an ordinary character of the string, not a byte order mark: keep it (many UTF-8 decoders drop it unless told not to).
- **bytes(max)** above max is ${code(DecodeErrorCode.BytesTooLong)}; **list(of, max)** with a count above max is ${code(DecodeErrorCode.ListTooLong)}. These checks happen on the prefix, before any item is read.
- **enum**: an index at or above the number of values is ${code(DecodeErrorCode.BadEnum)}. Values are only ever appended, so an index keeps its meaning.
- **quantized(min, max)**: encode \`q = round((v − min) × 65535 / (max − min))\` clamped to [0, 65535]; decode \`v = min + q × ((max − min) / 65535)\`. Here and in **angle**, \`round(v)\` is \`floor(v + 0.5)\` (JavaScript's Math.round: halves go up), not the half-to-even rounding of Python's \`round\` or C's \`rint\`. Positions in [entity records](#${anchor(RECORDS_HEADING)}) are quantized the same way over [0, ${COORD_MAX}], a step of ${COORD_MAX}/65535 ≈ 1/16 unit.
- **angle**: encode \`q = round(((v mod 2π) + 2π) mod 2π × 256 / 2π) mod 256\`; decode \`v = q × (2π / 256)\`, in [0, 2π). Radians as \`atan2(dy, dx)\`: from the zone's +x axis towards its +y axis.
- **records**: see [${RECORDS_HEADING}](#${anchor(RECORDS_HEADING)}). They are read until the payload ends, so bytes after the last block are not ${code(DecodeErrorCode.Overlong)} but the start of another block.
`;
}

/** `Packet.field`, refusing to render a field the packet does not have. */
function fieldRef(def: Packet, name: string): string {
  if (!(name in def.fields)) throw new Error(`${def.name} has no field ${name}`);
  return `[${def.name}](#${anchor(def.name)})\`.${name}\``;
}

function unitsSection(): string {
  const f = fieldRef;
  return `## Coordinates, units and clocks

**One plane.** Every position on the wire (${f(EnterWorld, 'x')}, ${f(MoveInput, 'x')}, ${f(PositionCorrection, 'x')}, entity records, a zone's walls and neighbours in ${packetLink(ZoneInfo)}) is a **world** coordinate: all zones lie side by side in one plane, each the rectangle ${f(ZoneInfo, 'x')}, \`y\`, \`width\`, \`height\` of it, and nothing translates at a border (walking from one zone into the next, x and y run on). The plane is [0, ${COORD_MAX}] on both axes (the range entity records can carry). x grows east, y grows south (down the screen, as the browser client draws it); angles are radians from the +x axis towards the +y axis, as \`atan2(dy, dx)\` gives them.

| What | Unit | Fields |
| --- | --- | --- |
| positions, sizes, distances | units (a character is ${2 * ENTITY_RADIUS} units across) | x, y, w, h, width, height, ${f(ZoneInfo, 'cellSize')} (the side of one square cell of the server's interest grid), ${f(EnterWorld, 'interestRadius')}, a spell's \`range\` |
| speeds | units per second | ${f(EnterWorld, 'speed')}, ${f(MoveInput, 'speed')}, a spawn record's and a motion record's \`speed\` (in 1/16 steps on the wire), a spell's \`projectileSpeed\` |
| angles | radians, [0, 2π), on the wire in 2π/256 steps | \`facing\`, \`angle\` |
| durations | milliseconds | ${f(ZoneInfo, 'respawnDelay')} (a dead player lies this long before standing up at the graveyard), ${f(LogoutStarted, 'delay')}, ${f(SpellStart, 'castTime')}, ${f(SpellGo, 'travelTime')}, ${f(Cooldown, 'remaining')}, a spell's \`castTime\` and \`cooldown\`, an entity record's \`age\`, a ${packetLink(WorldUpdate)} head's \`time\` |
| server times | ms on the server's clock (Unix epoch) | ${f(Welcome, 'serverTime')}, ${f(Pong, 'serverTime')}, ${f(EnterWorld, 'serverTime')}, ${f(ZoneChanged, 'serverTime')}, and each WorldUpdate's time (the sum of the heads from EnterWorld on) |
| client times | ms on the client's own clock | ${f(Ping, 'clientTime')} (echoed in Pong), ${f(MoveInput, 'clientTime')} |

**Clocks.** \`clientTime\` is any clock of the client's that counts milliseconds at the rate of real time and never goes back (a monotonic clock, or the Unix time in ms): it need not agree with the server's clock, whose offset from it the server learns. The server reads the time a move claims from the difference between two MoveInputs' \`clientTime\`s (a clock that runs fast is corrected with reason \`speed\`), and places each input on its own timeline by that input's \`clientTime\` plus an offset it learns from when inputs arrive ([step 7](#7-moving-prediction-and-reconciliation)). Use one clock for Ping and MoveInput, so that the offset from [Clock sync](#8-clock-sync) converts between it and the server's.

**Names.** An account name is 3 to 32 ASCII letters, digits or underscores, kept as typed and unique ignoring case (\`Alice\` and \`alice\` are one account, and SRP's identity is the name in lower case). A character name is 3 to 16 ASCII letters, nothing else (no digits, spaces or accents: ${code(ErrorCode.BadName)}), unique ignoring case, and the server stores it **re-cased**: the first letter upper case and the rest lower case, so \`aRWEN\` is created as \`Arwen\`; ${packetLink(CharacterCreated)} and every later packet carry the stored form.

**Big integers** (SRP's salt, verifier, A, B, M1 and M2) travel as unsigned big-endian bytes, and the server produces them without leading zero bytes. What a client registers is kept as sent: a salt registered with leading zero bytes comes back in ${packetLink(LoginChallenge)} with them, byte for byte. SRP reads every one of them as an integer, so a leading zero changes nothing there: \`x\` hashes \`bytes(s)\`, the salt's integer without its leading zeros (see [SRP-6a, exactly](#srp-6a-exactly)). A client that hashes the salt's bytes as they came must strip leading zeros first, or draw salts whose first byte is not 0.
`;
}

const STATE_MEANING: Record<ConnState, string> = {
  handshake: `connected; ${Hello.name} not yet accepted`,
  login: `${Welcome.name} sent; not yet authenticated (register, SRP login or resume)`,
  authenticated: 'logged in, at the character screen',
  inWorld: 'a character is in a zone',
};

function statesSection(): string {
  const rows = ALL_STATES.map((state) => [
    code(state),
    STATE_MEANING[state],
    packets
      .filter((p) => p.dir === 'c2s' && p.states.includes(state))
      .map(packetLink)
      .join(', '),
  ]);
  const transitions: [ConnState, string, ConnState][] = [
    [
      ConnState.Handshake,
      `client sends ${packetLink(Hello)}, server answers ${packetLink(Welcome)}`,
      ConnState.Login,
    ],
    [
      ConnState.Login,
      `server sends ${packetLink(LoginOk)} or ${packetLink(Resumed)}`,
      ConnState.Authenticated,
    ],
    [ConnState.Authenticated, `server sends ${packetLink(EnterWorld)}`, ConnState.InWorld],
    [ConnState.InWorld, `server sends ${packetLink(LogoutComplete)}`, ConnState.Authenticated],
  ];
  return `## Connection states

Each connection is in one state. A client packet is accepted only in the states its definition lists; in any other state it is ${code(ErrorCode.WrongState)}.

${table(['State', 'Meaning', 'Client packets accepted'], rows)}

What moves a connection from one state to the next:

${table(
  ['From', 'Event', 'To'],
  transitions.map(([from, event, to]) => [code(from), event, code(to)]),
)}

From any state, an ${packetLink(ErrorPacket)} with \`fatal = true\` or a ${packetLink(Bye)} ends the connection: the server closes it after sending.
`;
}

function packetsSection(): string {
  const groupOf = new Map<Packet, string>();
  for (const [group, mod] of Object.entries(groups)) {
    for (const v of Object.values(mod) as unknown[])
      if (packets.includes(v as Packet)) groupOf.set(v as Packet, group);
  }
  const index = table(
    ['Opcode', 'Name', 'Direction', 'Group', 'Target / delivery'],
    packets.map((p) => [
      code(hex4(p.opcode)),
      packetLink(p),
      DIRECTION[p.dir],
      groupOf.get(p) ?? '',
      p.dir === 'c2s' ? p.target : p.delivery,
    ]),
  );
  const sections = [
    `## Packets

Direction is from the sender's point of view. A client packet names its **dispatch target** (session: handled at once; zone: queued for the next tick of the client's zone; world: cross-zone), the **states** it is accepted in and a **rate class** (a token bucket per class and connection, full at the start; a packet that finds its bucket empty is a fatal ${code(ErrorCode.RateLimited)}, and the connection is closed; the server's defaults, in packets per second and burst: ${rateBudgets()}). The world adds a budget of its own to what a character says aloud (${code('say')} and ${code('zone')} lines of ChatSend): ${chatBudget()}; a line over it is refused with a non-fatal ${code(ErrorCode.RateLimited)} and the connection stays open. A server packet is **reliable** or **droppable**: droppable packets may be skipped for a client that has fallen behind, so a client must not depend on seeing every one of them.

In the field tables, rows named \`a[].b\` describe field \`b\` of one item of list \`a\`, and \`a.b\` field \`b\` of struct \`a\`; their max bytes are per item.

${index}
`,
  ];
  for (const [group, mod] of Object.entries(groups)) {
    const exported: unknown[] = Object.values(mod);
    const defs = packets.filter((p) => exported.includes(p));
    if (defs.length === 0) continue;
    const title = group[0]!.toUpperCase() + group.slice(1);
    const range = `${hex4(defs[0]!.opcode)}–${hex4(defs[defs.length - 1]!.opcode)}`;
    sections.push(`## ${title} packets (${range})\n\n${moduleDoc(group)}\n`);
    for (const def of defs) sections.push(packetSection(def));
  }
  return sections.join('\n');
}

// ---------------------------------------------------------------------------------------
// Entity records: WorldUpdate's body (shared/protocol/records.ts), its motion model
// (shared/game/motion.ts) and a worked example from the golden sample.

/** The bytes of one record written with this id delta. */
function recordBytes(r: EntityRecord, idDelta: number, base = false): Uint8Array {
  const w = new Writer(64);
  writeRecord(w, idDelta, r);
  const bytes = w.finish().slice();
  if (base) markBase(bytes, 0);
  return bytes;
}

/** "a" or "a–b": the sizes of the smallest and largest examples of a kind, 1-byte id delta. */
function sizeRange(...examples: EntityRecord[]): string {
  const sizes = examples.map((r) => recordBytes(r, 1).length);
  const min = Math.min(...sizes);
  const max = Math.max(...sizes);
  return min === max ? String(min) : `${min}–${max}`;
}

function flagHex(bit: number): string {
  return `0x${bit.toString(16)}`;
}

function tagHex(kind: number): string {
  return `0x${kind.toString(16).padStart(2, '0')}`;
}

function enumList(values: readonly string[]): string {
  return values.map((v, i) => `${i} ${v}`).join(', ');
}

const U32_MAX = 0xffffffff;

function nameMax(): number {
  const s = characterName.spec;
  if (s.type !== 'string') throw new Error('characterName is not a string field');
  return s.max;
}

function recordKindRows(): string[][] {
  const big = 'x'.repeat(nameMax());
  const move: EntityRecord = {
    kind: 'move',
    id: 1,
    x: 0,
    y: 0,
    angle: 0,
    moving: false,
    jump: false,
    speed: undefined,
  };
  const path = (n: number): EntityRecord => ({
    kind: 'path',
    id: 1,
    x: 0,
    y: 0,
    speed: undefined,
    waypoints: Array.from({ length: n }, () => ({ x: 0, y: 0 })),
  });
  const pathHere = (n: number): EntityRecord => ({
    kind: 'pathHere',
    id: 1,
    speed: undefined,
    waypoints: Array.from({ length: n }, () => ({ x: 0, y: 0 })),
  });
  const moveBy = (d: number, angle: number | undefined): EntityRecord => ({
    kind: 'moveBy',
    id: 1,
    dx: d,
    dy: d,
    angle,
    moving: true,
    speed: undefined,
  });
  const spawn = (name: string, health: number): EntityRecord => ({
    kind: 'spawn',
    id: 1,
    entity: 'player',
    template: 0,
    name,
    level: 1,
    health,
    maxHealth: health,
    speed: 0,
    appearance: 0,
    alive: true,
  });
  const health = (v: number): EntityRecord => ({ kind: 'health', id: 1, health: v, maxHealth: v });
  const respawn = (v: number): EntityRecord => ({
    kind: 'respawn',
    id: 1,
    x: 0,
    y: 0,
    health: v,
    maxHealth: v,
  });
  const row = (kind: keyof typeof RecordKind, flags: string, fields: string, bytes: string) => [
    code(kind[0]!.toLowerCase() + kind.slice(1)),
    code(tagHex(RecordKind[kind])),
    flags,
    fields,
    bytes,
  ];
  return [
    row(
      'Move',
      `${code(`MOVING ${flagHex(MOVING)}`)} walking (else standing); ${code(`JUMP ${flagHex(JUMP)}`)} a discontinuity: snap; ${code(`SPEED ${flagHex(SPEED)}`)} the speed field follows; ${code(`AGE ${flagHex(AGE)}`)} the age field follows`,
      'x coord · y coord · angle u8 [· speed u16 when SPEED] [· age varint when AGE: the state held this many ms before the frame’s time]',
      `${sizeRange(move)}; +2 with SPEED; +1–5 with AGE`,
    ),
    row(
      'Path',
      `${code(`HERE ${flagHex(HERE)}`)} from where the reference puts it (no x, y); ${code(`ONE ${flagHex(ONE)}`)} one waypoint (no count); ${code(`SPEED ${flagHex(SPEED)}`)} the speed field follows (else the spawn’s speed); ${code(`AGE ${flagHex(AGE)}`)} the age field follows`,
      `[x coord · y coord unless HERE] [· speed u16 when SPEED] [· count u8 unless ONE (at most ${MAX_PATH_POINTS})] · (x coord · y coord) × count [· age varint when AGE: the walk started this many ms before the frame’s time]`,
      `${sizeRange(pathHere(0))} (HERE, a stop); ${sizeRange(pathHere(1))} (HERE, ONE); ${sizeRange(path(1))} from x, y with one waypoint; up to ${sizeRange(path(MAX_PATH_POINTS))}; +2 with SPEED; +1–5 with AGE`,
    ),
    row(
      'Spawn',
      `${code(`ALIVE ${flagHex(ALIVE)}`)} alive (else a corpse)`,
      `entity u8 (${enumList(EntityKind)}) · template u16 (mob template, 0 for players) · name string(max ${nameMax()} bytes, u8 length) · level u8 · health varint · maxHealth varint · speed u16 · appearance u8`,
      sizeRange(spawn('', 0), spawn(big, U32_MAX)),
    ),
    row(
      'Despawn',
      'none',
      `reason u8 (${enumList(DespawnReason)})`,
      sizeRange({ kind: 'despawn', id: 1, reason: 'left' }),
    ),
    row('Health', 'none', 'health varint · maxHealth varint', sizeRange(health(0), health(U32_MAX))),
    row(
      'Death',
      'none',
      'killer varint (the killer’s id, 0 for none)',
      sizeRange({ kind: 'death', id: 1, killerId: 0 }, { kind: 'death', id: 1, killerId: U32_MAX }),
    ),
    row(
      'Respawn',
      'none',
      'x coord · y coord · health varint · maxHealth varint',
      sizeRange(respawn(0), respawn(U32_MAX)),
    ),
    row(
      'MoveBy',
      `${code(`MOVING ${flagHex(MOVING)}`)} walking (else standing); ${code(`SAME_ANGLE ${flagHex(SAME_ANGLE)}`)} the reference’s angle (no angle field); ${code(`SPEED ${flagHex(SPEED)}`)} the speed field follows; ${code(`AGE ${flagHex(AGE)}`)} the age field follows`,
      'dx zigzag · dy zigzag (coord steps from where the reference puts it at the state’s time) [· angle u8 unless SAME_ANGLE] [· speed u16 when SPEED] [· age varint when AGE: the state held this many ms before the frame’s time]',
      `${sizeRange(moveBy(0, undefined))} (within 4 units, same angle); ${sizeRange(moveBy(63, 0))} turning; up to ${sizeRange(moveBy(65535, 0))}`,
    ),
  ];
}

function num(v: number): string {
  return String(Math.round(v * 10_000) / 10_000);
}

function coordText(v: number): string {
  return `${code(`0x${quantizeCoord(v).toString(16).padStart(4, '0')}`)} (${num(v)})`;
}

/** What one record of the example says, in words, with the raw quantized values. */
function recordMeaning(r: EntityRecord): string {
  switch (r.kind) {
    case 'move': {
      const flags = [r.moving && 'MOVING', r.jump && 'JUMP', r.speed !== undefined && 'SPEED'].filter(
        Boolean,
      );
      const state = r.moving ? 'walking from' : 'standing at';
      const speed =
        r.speed === undefined
          ? r.moving
            ? ', at its spawn speed'
            : ''
          : `, speed ${code(String(quantizeSpeed(r.speed)))} (${num(r.speed)}/s)`;
      const age = r.age ? `, as it was ${r.age} ms before the frame's time` : '';
      return `move${flags.length ? ` (${flags.join(' | ')})` : ''}: ${state} x ${coordText(r.x)}, y ${coordText(r.y)}, angle ${code(String(quantizeAngle(r.angle)))} (${num(r.angle)} rad)${speed}${age}`;
    }
    case 'moveBy': {
      const flags = [
        r.moving && 'MOVING',
        r.angle === undefined && 'SAME_ANGLE',
        r.speed !== undefined && 'SPEED',
        r.age !== undefined && 'AGE',
      ].filter(Boolean);
      const when = r.age ? `${r.age} ms before the frame's time` : "at the frame's time";
      const angle =
        r.angle === undefined
          ? 'the same angle'
          : `angle ${code(String(quantizeAngle(r.angle)))} (${num(r.angle)} rad)`;
      return `moveBy${flags.length ? ` (${flags.join(' | ')})` : ''}: ${r.moving ? 'walking' : 'standing'} ${r.dx} and ${r.dy} coord steps from where its reference puts it ${when}, ${angle}`;
    }
    case 'path':
    case 'pathHere': {
      const here = r.kind === 'pathHere';
      const flags = [
        here && 'HERE',
        r.waypoints.length === 1 && 'ONE',
        r.speed !== undefined && 'SPEED',
        r.age !== undefined && 'AGE',
      ].filter(Boolean);
      const speed =
        r.speed === undefined
          ? 'at its spawn speed'
          : `at speed ${code(String(quantizeSpeed(r.speed)))} (${num(r.speed)}/s)`;
      const from = here
        ? 'from where its reference puts it'
        : `from x ${coordText(r.x)}, y ${coordText(r.y)}`;
      const when = r.age ? `, starting ${r.age} ms before the frame's time` : '';
      const through =
        r.waypoints.length === 0
          ? 'no waypoints: it stops there'
          : `through ${r.waypoints.length} waypoint${r.waypoints.length === 1 ? '' : 's'}: ${r.waypoints.map((p) => `(${num(p.x)}, ${num(p.y)})`).join(', ')}`;
      return `path${flags.length ? ` (${flags.join(' | ')})` : ''}: ${from} ${speed}${when}, ${through}`;
    }
    case 'spawn':
      return `spawn${r.alive ? ' (ALIVE)' : ''}: ${r.entity} ${JSON.stringify(r.name)}, template ${r.template}, level ${r.level}, health ${r.health}/${r.maxHealth}, speed ${code(String(quantizeSpeed(r.speed)))} (${num(r.speed)}/s), appearance ${r.appearance}`;
    case 'despawn':
      return `despawn: ${r.reason}`;
    case 'health':
      return `health: ${r.health}/${r.maxHealth}`;
    case 'death':
      return `death: killed by ${r.killerId}`;
    case 'respawn':
      return `respawn: at x ${coordText(r.x)}, y ${coordText(r.y)} with health ${r.health}/${r.maxHealth}`;
  }
}

function spaced(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
}

function varintBytes(v: number): Uint8Array {
  const w = new Writer(8);
  w.varint(v);
  return w.finish().slice();
}

/**
 * The golden WorldUpdate, byte by byte. Every row is re-encoded from the sample value; the
 * rows together must be exactly the golden frame, or the render fails.
 */
function worldUpdateExample(): string {
  const value = samplePacket(WorldUpdate);
  const frame = goldenFrame(WorldUpdate);
  const tickBytes = varintBytes(value.tick);
  const timeBytes = varintBytes(value.time);
  const head = frame.subarray(0, HEADER_SIZE + tickBytes.length + timeBytes.length);
  const rows: string[][] = [];
  let at = 0;
  const add = (bytes: Uint8Array, meaning: string) => {
    rows.push([String(at), code(spaced(bytes)), meaning]);
    at += bytes.length;
  };
  add(
    head.subarray(0, HEADER_SIZE),
    `header: size ${frame.length}, opcode ${hex4(WorldUpdate.opcode)}, CRC ${hex4(crc16(frame, HEADER_SIZE))} of the payload`,
  );
  add(tickBytes, `tick: ${value.tick} after the previous WorldUpdate's (or EnterWorld's)`);
  add(timeBytes, `time: ${value.time} ms after the previous WorldUpdate's (or EnterWorld's serverTime)`);
  const records = value.records;
  let blocks = 0;
  for (let i = 0; i < records.length;) {
    let j = i + 1;
    while (j < records.length && records[j]!.id >= records[j - 1]!.id) j++;
    let prev = 0;
    for (let k = i; k < j; k++) {
      const r = records[k]!;
      const first = k === i;
      add(
        recordBytes(r, r.id - prev, first),
        first
          ? `id ${r.id} (BASE: a block starts; delta from 0), ${recordMeaning(r)}`
          : `id ${r.id} (delta ${r.id - prev}), ${recordMeaning(r)}`,
      );
      prev = r.id;
    }
    blocks++;
    i = j;
  }
  const rebuilt = rows.map((r) => r[1]!.replace(/`/g, '')).join(' ');
  if (rebuilt !== spaced(frame))
    throw new Error('the WorldUpdate example does not add up to its golden frame');
  return `\`test/protocol/golden/${WorldUpdate.name}.hex\` (see [Golden vectors](#golden-vectors)), byte by byte: ${frame.length} bytes, ${records.length} records in ${blocks} blocks (the second starts where the id goes down, with a BASE record). Ids at or above ${MOB_ID_BASE} are mobs.

${table(['Offset', 'Bytes', 'Meaning'], rows)}

The whole frame: \`${hex(frame)}\`.`;
}

/** The frames of test/protocol/captured/WorldUpdate.hex (written by tools/capture-world-update.ts). */
function capturedFrames(): Uint8Array[] {
  const text = readFileSync(resolve(ROOT, 'test/protocol/captured/WorldUpdate.hex'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => Uint8Array.from(l.trim().match(/../g)!, (b) => parseInt(b, 16)));
}

/**
 * One captured WorldUpdate, byte by byte: each row is its record re-encoded from the decoded
 * value (BASE where the frame's tag has it), and the rows must add up to the frame.
 */
function capturedTable(frame: Uint8Array): { rows: string[][]; records: EntityRecord[] } {
  const value = WorldUpdate.decode(frame.subarray(HEADER_SIZE));
  const rows: string[][] = [];
  let at = 0;
  const add = (bytes: Uint8Array, meaning: string) => {
    rows.push([String(at), code(spaced(bytes)), meaning]);
    at += bytes.length;
  };
  add(
    frame.subarray(0, HEADER_SIZE),
    `header: size ${frame.length}, opcode ${hex4(WorldUpdate.opcode)}, CRC ${hex4(crc16(frame, HEADER_SIZE))} of the payload`,
  );
  add(varintBytes(value.tick), `tick: ${value.tick} after the previous WorldUpdate's (or EnterWorld's)`);
  add(
    varintBytes(value.time),
    `time: ${value.time} ms after the previous WorldUpdate's (or EnterWorld's serverTime)`,
  );
  let prev = 0;
  for (const r of value.records) {
    // The tag follows the id delta's varint: its last byte is the first without the high bit.
    let tagAt = at;
    while (frame[tagAt]! & 0x80) tagAt++;
    const base = (frame[tagAt + 1]! & BASE) !== 0;
    const delta = base ? r.id : r.id - prev;
    add(
      recordBytes(r, delta, base),
      base
        ? `id ${r.id} (BASE: a block starts), ${recordMeaning(r)}`
        : `id ${r.id} (delta ${delta}), ${recordMeaning(r)}`,
    );
    prev = r.id;
  }
  const rebuilt = rows.map((r) => r[1]!.replace(/`/g, '')).join(' ');
  if (rebuilt !== spaced(frame)) throw new Error('a captured WorldUpdate does not add up to its frame');
  return { rows, records: value.records };
}

function capturedExample(): string {
  const [entering, walking] = capturedFrames();
  if (!entering || !walking) throw new Error('test/protocol/captured/WorldUpdate.hex needs two frames');
  const first = capturedTable(entering);
  const second = capturedTable(walking);
  const spawns = first.records.filter((r) => r.kind === 'spawn').length;
  return `Two frames as a client received them from \`npm start\`'s world over TCP (\`test/protocol/captured/WorldUpdate.hex\`, captured by \`npx tsx tools/capture-world-update.ts\`): a watcher entered beside a player, Walker (id 1), who then set off east.

The watcher's first WorldUpdate after ${packetLink(EnterWorld)}: its head counts from EnterWorld's \`tick\` and \`serverTime\`. It holds what changed this tick in the cells the watcher now sees, as every observer of those cells gets it (here a wolf's new path, in its cell's motion block: a path record may come before the same entity's spawn in one frame), then a spawn block for each of the ${spawns} entities in view: a spawn record and its motion record (id delta 0), encoded once and copied to every client that gets the entity. Those motion records are the references later moveBy and HERE records are read against: a mob's path (with \`AGE\` when it set off before the frame) or standing \`move\`, the player's standing \`move\`.

${table(['Offset', 'Bytes', 'Meaning'], first.rows)}

A later frame, as Walker sets off: one moveBy against the standing reference the spawn gave. Where the reference puts Walker (standing: where it stood), plus dx and dy coord steps, is where it walks from, as it was \`age\` ms before the frame's time.

${table(['Offset', 'Bytes', 'Meaning'], second.rows)}`;
}

/** A walking player's moveBy of a coord step or two, 40 ms old, as the server writes it. */
function moveBySize(turning: boolean): number {
  return recordBytes(
    {
      kind: 'moveBy',
      id: 1,
      dx: 1,
      dy: -2,
      angle: turning ? 1 : undefined,
      moving: true,
      speed: undefined,
      age: 40,
    },
    1,
  ).length;
}

function moveSize(age: number): number {
  const r: EntityRecord = {
    kind: 'move',
    id: 1,
    x: 100,
    y: 100,
    angle: 0,
    moving: true,
    jump: false,
    speed: undefined,
  };
  if (age > 0) r.age = age;
  return recordBytes(r, 1).length;
}

function recordsSection(): string {
  const move = `${code('move')}`;
  return `## ${RECORDS_HEADING}

A ${packetLink(WorldUpdate)} carries, after its \`tick\` and \`time\`, everything the client learns about the entities in its view in that tick, as **entity records**. The server encodes each interest cell's records once per tick and copies the same bytes to every client that sees the cell, so the records come in self-contained **blocks**; a client reads records until the payload ends.

\`\`\`
payload := tick varint · time varint · record*
           (ticks and whole server ms since the previous WorldUpdate on the connection,
            the first since EnterWorld's tick and serverTime; usually 2 bytes)
record  := idDelta varint · tag u8 · the fields of the tag's kind
tag     := kind (low 3 bits) | BASE 0x08 | flags (high 4 bits)
block   := a run of records whose first has BASE
\`\`\`

- **Id delta coding.** A record whose tag has **BASE** (0x08) has id = idDelta; any other has id = the previous record's id + idDelta (the payload starts from 0). A block is a run of records starting with a BASE record: ids ascend within it, and a delta of 0 repeats the entity (a spawn, then its motion). A block depends on nothing before it, so blocks encoded apart are a valid body when concatenated: the server encodes each cell's block once and copies it to every observer, writing only its first id anew (without BASE, as a delta from the record before it) where the block follows records with lower ids, and an encoder starts a new block wherever an id goes down. A block costs nothing but its first record's id (no count, no length). An id past 2^32 − 1 is ${code(DecodeErrorCode.BadVarint)}.
- A payload of just the head (no records) is a valid, empty update. A flag a kind does not define, an entity kind or despawn reason out of range are ${code(DecodeErrorCode.BadEnum)}; a path of more than ${MAX_PATH_POINTS} waypoints is ${code(DecodeErrorCode.ListTooLong)}; a record cut short is ${code(DecodeErrorCode.Short)}.
- **Frames.** One WorldUpdate payload holds at most ${WorldUpdate.fields.records.maxSize} bytes of records; when a tick's records do not fit, the server sends more WorldUpdate frames for the same tick (their head says 0 and 0).
- **The head counts on.** The frame's tick and time are the previous WorldUpdate's plus the head's two varints; a client keeps the sum from EnterWorld on (a new EnterWorld starts it again). WorldUpdate frames are never dropped, so the sum never skips.

${table(['Kind', 'Tag', 'Flags', 'Fields after the tag', 'Bytes (1-byte id delta)'], recordKindRows())}

Any kind's tag may also carry BASE (0x08), which starts a block. A record with an id delta of 128 or more is 1 to 4 bytes longer (the varint). A player's movement state costs ${moveBySize(false)} to ${moveBySize(true)} bytes as a moveBy within a block (1-byte id delta): the server sends a player's state as it held when its input took effect, which is before the frame's time, so a moveBy nearly always carries AGE (1 byte for up to 127 ms, 2 up to 16,383): ${moveBySize(false)} bytes keeping the angle, ${moveBySize(true)} turning, 2 more with SPEED. An absolute move is ${moveSize(0)} bytes, ${moveSize(40)} or ${moveSize(400)} with AGE. An AGE of 0 means the same as no AGE (the server leaves the field out rather than send 0); a client must accept either.

**Quantization.** \`coord\` is a u16: \`q = round(v × 65535 / ${COORD_MAX})\` clamped to [0, 65535], decoded \`v = q × (${COORD_MAX} / 65535)\` (the [quantized](#field-types) type over [0, ${COORD_MAX}], about 1/16 unit). \`angle\` is the angle type: a u8 of 2π/256 steps. \`speed\` is a u16 of 1/16 unit per second: \`q = round(v × 16)\` clamped to [0, 65535], decoded \`v = q / 16\`. Health values are varints; names are at most ${nameMax()} bytes of UTF-8.

### Kinds

- **spawn**: an entity came into view (or into being) with its full state. In its block it is always followed by the same id's ${move} or ${code('path')} record (delta 0), which places it.
- **despawn**: the entity left the view (\`outOfRange\`), left the world (\`left\`), or its corpse decayed (\`corpse\`). Forget it.
- **health**, **death**, **respawn**: a change of health; a death (a dead mob stays as a corpse until its despawn, a dead player until its respawn); a dead player alive again at (x, y), the graveyard, with this health.
- ${move}, ${code('moveBy')} and **path**: the entity's **motion state**, below.

### Motion states

Movement is replicated as state, not as a stream of positions. A ${move} record says where the entity was at the frame's \`time\` and what it does from then on: without ${code('MOVING')}, it stands at (x, y) facing \`angle\`; with it, it walks from (x, y) along \`angle\` at \`speed\` units per second (the SPEED field's, else its spawn speed). A **path** record says a mob walks from (x, y) through the waypoints in order at \`speed\` (its spawn's without SPEED), starting at \`time\`, and stops at the last one. A mob that stops where it stands gets a standing ${move}.

- **Observers dead-reckon** from the newest state: a walker is at \`(x + cos(angle) · speed · dt, y + sin(angle) · speed · dt)\` with \`dt = (now − time) / 1000\` on the server's clock (see [Clock sync](#8-clock-sync)). Dead-reckon at most ${MAX_DEAD_RECKON_MS} ms past a state when drawing: a walker whose updates stall is held where it got to, not run on and pulled back. (The cap is for drawing only: reckoning a reference, below, has none.)
- A new state of the same entity replaces the old one; blend from where the entity is drawn to the new track over a short time rather than jumping. A ${code('JUMP')} state is a discontinuity (a teleport or a large correction): snap to it, do not blend. A respawn record places its entity anew, too.
- **References.** Each entity's **reference** is the state of its newest ${move}, ${code('moveBy')} or path record (a HERE path included), which server and client keep alike, in wire steps: position in coord steps, angle in angle steps, whether it walks, its speed in speed steps (the record's, else the spawn's) and the server time it held at (the frame's time, less ${code('age')} with AGE). A path reference also keeps its waypoints (coord steps). A ${code('moveBy')} gives a new state relative to where the reference puts the entity at the moveBy's own time, and a HERE path starts from there:
  - **A move reference** puts a standing entity at its position; a walker at \`q + round(c · speed / 16 · dt · 65535 / ${COORD_MAX})\` for each axis, with \`c\` the cosine (x) or sine (y) of \`angle · 2π / 256\` and \`dt = (time − t) / 1000\`, computed in IEEE doubles (no fused multiply-add), \`round(v) = floor(v + 0.5)\`, clamped to [0, 65535].
  - **A path reference** puts its entity \`left = speed / 16 · dt · 65535 / ${COORD_MAX}\` coord steps along its legs from (x, y) at t (nothing before t): for each leg from the point it starts at (x, y first, then each waypoint) to the next waypoint, \`len = sqrt(dx² + dy²)\` of the legs' whole-step dx, dy; while \`left < len\` the entity is on this leg at \`round(from + d · left / len)\` per axis, else \`left −= len\` and on to the next leg; past the last waypoint it stands there. It faces the angle step of the leg it is on, \`quantizeAngle(atan2(dy, dx))\`, or of the last leg once arrived (the reference's own angle before any leg with a length).
  - **No cap.** Reckoning a reference walks on for however long has passed since it held (clamped to the coordinate range): the ${MAX_DEAD_RECKON_MS} ms limit is for drawing, not for this.
  - **The numbers.** Use the cosine and sine of each angle step exactly as the server takes them: JavaScript's \`Math.cos\` and \`Math.sin\` of \`k × (2π / 256)\`. A C library's may differ in the last bit for a few steps (glibc's for 13 of the 256), which moves a reckoned position by one step now and then; the generated codecs carry the server's 256 pairs (\`wy_angle_cos\` and \`wy_angle_sin\` in \`clients/c/wyvern_packets.c\`, \`COS_STEPS\` and \`SIN_STEPS\` in \`clients/python/wyvern_client/constants.py\`). A leg's atan2 needs no table: dx and dy are whole coord steps, and no such vector points within 2.5 × 10⁻¹² rad of a boundary between two angle steps, so any atan2 good to an ulp gives the server's step (\`test/protocol/angle-steps.test.ts\` checks every leg there can be).
- **moveBy.** The new state as it held at its own time (the frame's time, less ${code('age')} with AGE: the server sends a player's state as it was when its input took effect): reckon where the reference puts the entity at that time, add \`dx\`, \`dy\` (zigzag varints: n is sent as \`2n\` when n ≥ 0, else \`−2n − 1\`) and clamp to [0, 65535] again; the angle is the record's, or with SAME_ANGLE the reference's (from a path reference: the angle step of the leg it was on). The result, held at that time, becomes the reference, a move reference (from a path too). The server sends moveBy only for players; mobs send paths and absolute moves.
- **HERE paths.** A path that starts where the entity's reference puts it at the path's time (the frame's time, less ${code('age')} with AGE): reckon that point and walk the waypoints from it. With no waypoints the entity stops there, a standing move reference facing as it walked.
- **Without a reference** (nothing but a spawn since the entity came into view: the client's own entity, which it predicts, or one whose spawn comes later in the same frame) a ${code('moveBy')} or HERE path is ignored. A spawn's motion record and a resync's records are references sent as they are (a walker's with AGE), so a client that just got an entity holds the same reference as every other.
- **Death and respawn** records leave references alone. A player that dies while walking is stopped: its death record comes in the frame's reliable block and a standing ${code('moveBy')} where the server had it when it fell in the same frame's motion block. A respawn record puts the player at the graveyard, standing, but its reference stays the one before: the player's next motion record is a ${code('moveBy')} from that old reference, whose \`dx\`, \`dy\` span the way to the graveyard (the varints carry any distance). A dead mob's next motion, if it ever moves again, is an absolute path or move.
- **Afresh.** After ${packetLink(EnterWorld)} (entering, or a resume), and after ${packetLink(ZoneChanged)}, forget every reference: the next WorldUpdate spawns everything in view with its reference. ${packetLink(Resumed)} never carries references over from the dropped connection.
- **The server re-sends** a player's state when it starts or stops, turns or changes speed (by a quantization step), when observers' dead reckoning of it would stray more than ${MOTION_ERROR_UNITS} units from where it is, and at least every ${MOTION_HEARTBEAT_MS} ms while it walks. A standing entity sends nothing until it moves; a quiet tick sends nothing at all.
- **Clients send** their own ${packetLink(MoveInput)} the same way: on start, stop and turn (a heading change above ${CLIENT_TURN_EPSILON} rad), and every ${CLIENT_HEARTBEAT_MS} ms while walking. A walker none of whose inputs has taken effect ${INPUT_OVERDUE_MS} ms after its newest on its timeline (below: a heartbeat and a send step; only a stall longer than any in its window makes one that late) is held by the server from then, where its newest state had carried it by then, which is where observers draw it: a stop stuck on the walker's link is walked past by at most that much, never on. The hold is decided ${INPUT_GRACE_MS} ms later and dated back (a client step that hitched is no stall). The inputs that come after the hold take effect at once, and the move checks start from where the client's newest input was, not from the hold.

**A client that falls behind** (its connection's send buffer over the server's soft limit) may have the **motion blocks** of a tick skipped: whole blocks, never part of one, and never the other records (spawns, despawns, health, deaths, respawns). Once it has caught up, the server sends it a **resync**: a ${move} or path record for every entity in its view (references, as for a spawn), in place of that tick's motion blocks. Until then, keep dead-reckoning from the states you have.

### Worked example

${worldUpdateExample()}

### A captured WorldUpdate

${capturedExample()}
`;
}

/** A server setting's default, in seconds, as text: "30 s". */
/** The world's budget for lines said aloud, from the shipped rules (data/rules.json). */
function chatBudget(): string {
  const rules = JSON.parse(readFileSync(resolve(ROOT, 'data/rules.json'), 'utf8')) as {
    chatPerSecond: number;
    chatBurst: number;
  };
  return `${rules.chatPerSecond} a second, burst ${rules.chatBurst} (\`chatPerSecond\` and \`chatBurst\` in \`data/rules.json\`)`;
}

/** The rate classes' default budgets, from the server's configuration. */
function rateBudgets(): string {
  const value = (env: string) => CONFIG_OPTIONS.find((o) => o.env === env)?.default ?? '?';
  return (['default', 'move', 'chat', 'auth'] as const)
    .map((c) => `${c} ${value(`RATE_${c.toUpperCase()}`)}/s, burst ${value(`RATE_${c.toUpperCase()}_BURST`)}`)
    .join('; ');
}

function seconds(env: string): string {
  const option = CONFIG_OPTIONS.find((o) => o.env === env);
  if (!option?.default) throw new Error(`no default for ${env}`);
  return `${Number(option.default) / 1000} s`;
}

function errorsSection(): string {
  const codecCodes = new Set<string>(Object.values(DecodeErrorCode));
  const rows = Object.values(ErrorCode).map((c) => [
    code(c),
    codecCodes.has(c) ? 'codec' : 'server',
    errorMessage(c),
  ]);
  return `## Error codes

An ${packetLink(ErrorPacket)} carries one of these codes. Codes are stable: never renamed or reused. \`codec\` codes come from decoding bytes; \`server\` codes from the rules of the game. The message is what a client shows a person; for a code it does not know (from a newer server) it shows "The server refused the request (CODE)."

${table(['Code', 'Origin', 'Message'], rows)}

${code(ErrorCode.LoginThrottled)} answers [LoginStart](#loginstart) or [LoginProof](#loginproof) after too many failed logins: from one address for one account (5 a minute by default), from one address for any accounts (20), or for one account from many addresses (10 different addresses lock it for every device that never logged in to it: a LoginStart bringing the \`deviceToken\` of an earlier LoginOk for the account is let through, and its failures count against that token, 5 a minute). An IPv6 address counts by its /64 (the server's \`IPV6_PREFIX_BITS\`). Its \`reason\` ends with \`retry-after=N\`: N whole seconds (at least 1) until this address may try this account again; wait that long before retrying. It reads the same whether or not the account exists.
`;
}

// ---------------------------------------------------------------------------------------
// SRP-6a, as tssrp6a's defaults compute it, with a worked example from fixed secrets.

/** RFC 5054 appendix B test secrets, reused here so the example is reproducible. */
export const EXAMPLE = {
  account: 'Alice',
  password: 'password123',
  salt: BigInt('0xBEB25379D1A8581EB5A727673A2441EE'),
  a: BigInt('0x60975527035CF2AD1989806F0407210BC81EDC04E2762A56AFD529DDDA2D4393'),
  b: BigInt('0xE487CB59D31AC550471E81F00F6928E01DDA08E974A004F49E61F5D105284D20'),
} as const;

interface SrpFacts {
  hashName: string;
  groupBits: string;
  N: bigint;
  g: bigint;
  padBytes: number;
  example: Record<'k' | 'x' | 'v' | 'A' | 'B' | 'u' | 'S' | 'M1' | 'M2', bigint>;
}

export async function srpFacts(): Promise<SrpFacts> {
  const params = new SRPParameters();
  const hashName = Object.entries(SRPParameters.H).find(([, h]) => h === params.H)?.[0];
  const groupBits = Object.entries(SRPParameters.PrimeGroup).find(([, g]) => g === params.primeGroup)?.[0];
  if (!hashName || !groupBits)
    throw new Error("tssrp6a's default hash or group is not one of its named ones");
  const routines = new SRPRoutines(params);
  const { N, g } = params.primeGroup;
  const I = EXAMPLE.account.toLowerCase();
  const k = await routines.computeK();
  const x = await routines.computeX(I, EXAMPLE.salt, EXAMPLE.password);
  const v = routines.computeVerifier(x);
  const A = routines.computeClientPublicValue(EXAMPLE.a);
  const B = (k * v + routines.computeClientPublicValue(EXAMPLE.b)) % N;
  const u = await routines.computeU(A, B);
  const S = routines.computeClientSessionKey(k, x, u, EXAMPLE.a, B);
  const M1 = await routines.computeClientEvidence(I, EXAMPLE.salt, A, B, S);
  // The library's own server and client sessions must agree with the example.
  const server = new SRPServerSessionStep1(routines, I, EXAMPLE.salt, v, EXAMPLE.b, B);
  if ((await server.sessionKey(A)) !== S) throw new Error('SRP example: server and client S differ');
  const M2 = await server.step2(A, M1);
  await new SRPClientSessionStep2(routines, A, M1, S).step3(M2);
  return {
    hashName,
    groupBits,
    N,
    g,
    padBytes: Math.trunc((params.NBits + 7) / 8),
    example: { k, x, v, A, B, u, S, M1, M2 },
  };
}

function hashLabel(name: string): string {
  return name.replace(/^SHA/, 'SHA-');
}

function srpSection(f: SrpFacts): string {
  const H = hashLabel(f.hashName);
  const hashBytes = Number(f.hashName.replace('SHA', '')) / 8 || 20;
  const e = f.example;
  const ind = '     ';
  const value = (name: string, n: bigint) => `${name.padEnd(3)}= ${bigHex(n, ind)}`;
  const saltField = Register.fields.salt.spec;
  const saltMax = saltField.type === 'bytes' ? saltField.max : 0;
  // tssrp6a's createVerifierAndSalt draws twice the hash length of salt unless told otherwise.
  const saltAdvice =
    2 * hashBytes > saltMax
      ? `; tssrp6a's ${code('createVerifierAndSalt')} draws ${2 * hashBytes} salt bytes unless told otherwise, which does not fit, so pass the length: ${code(`createVerifierAndSalt(routines, I, P, ${saltMax})`)}`
      : '';
  return `### SRP-6a, exactly

The server uses the \`tssrp6a\` 3.0.0 package with its default parameters; a native client must compute the same numbers. Its defaults are:

- **Group**: the ${f.groupBits}-bit group of RFC 5054 (appendix A), \`g = ${f.g}\`, N (hex):

  \`\`\`
  ${bigHex(f.N, '  ')}
  \`\`\`

- **Hash** \`H\`: ${H} (${hashBytes}-byte output).

Notation: \`|\` is concatenation. \`bytes(n)\` is the integer n as unsigned big-endian bytes **without leading zero bytes** (n = 0 is the single byte 00); \`PAD(n)\` is \`bytes(n)\` left-padded with zero bytes to ${f.padBytes} bytes, the length of N. \`int(h)\` reads a hash output as an unsigned big-endian integer. Every exponentiation is mod N.

| Value | Formula |
| --- | --- |
| identity \`I\` | the account name in lower case (\`"${EXAMPLE.account}"\` → \`"${EXAMPLE.account.toLowerCase()}"\`) |
| \`k\` | \`int(H(PAD(N) \\| PAD(g)))\` |
| \`x\` | \`int(H(bytes(s) \\| H(UTF-8(P))))\`: the salt and the password only; **\`I\` is not hashed** |
| \`v\` | \`g^x mod N\` (the verifier) |
| \`a\`, \`b\` | random, 1 ≤ a, b < N (tssrp6a draws ${f.padBytes} random bytes mod N, retrying on 0) |
| \`A\` | \`g^a mod N\` |
| \`B\` | \`(k·v + g^b) mod N\` |
| \`u\` | \`int(H(PAD(A) \\| PAD(B)))\` |
| \`S\` (client) | \`(B − (k·g^x mod N))^(a + u·x) mod N\` (computed as \`B + N − (k·g^x mod N)\` so the base stays positive) |
| \`S\` (server) | \`((v^u mod N)·A)^b mod N\` |
| \`M1\` | \`int(H(bytes(A) \\| bytes(B) \\| bytes(S)))\`: no H(N) xor H(g), no H(I), no salt, and S itself rather than H(S) |
| \`M2\` | \`int(H(bytes(A) \\| bytes(M1) \\| bytes(S)))\` (M1 as an integer: a hash that starts with zero bytes loses them here) |

Notes:

- The identity is passed to tssrp6a (it must not be empty) but its default routines use it in no formula: two accounts with the same password and salt would have the same verifier. The salt is random per account, so they do not.
- The password enters as its UTF-8 bytes, without Unicode normalisation.
- Every big integer on the wire (salt, verifier, A, B, M1, M2) is unsigned big-endian, and the server writes \`bytes(n)\`, without padding (an empty field reads as 0); a salt comes back in LoginChallenge exactly as it was registered, leading zero bytes included, and still enters \`x\` as \`bytes(s)\` (see [Big integers](#coordinates-units-and-clocks)). Read them as integers and compare integers, never byte strings: M1 or M2 is 63 bytes or shorter whenever its hash starts with a zero byte.
- Field limits: ${code('Register.salt')} holds at most ${saltMax} bytes${saltAdvice}. Verifier, A and B are at most ${f.padBytes} bytes in this group.
- The server refuses an A with \`A mod N = 0\`. A client must likewise refuse a B with \`B mod N = 0\`, as RFC 5054 requires (tssrp6a's own client does not check it).
- The client checks M2 before it trusts ${packetLink(LoginOk)}: a wrong M2 means the other side does not hold the verifier.
- S is used for the proofs only; nothing on the wire is encrypted with it. Use TLS (\`wss://\`) where confidentiality matters.

Worked example (fixed secrets from RFC 5054 appendix B; the results differ from the RFC's because the hash and formulas differ). Account \`"${EXAMPLE.account}"\` (I = \`"${EXAMPLE.account.toLowerCase()}"\`), password \`"${EXAMPLE.password}"\`, all values hex:

\`\`\`
${value('s', EXAMPLE.salt)}
${value('a', EXAMPLE.a)}
${value('b', EXAMPLE.b)}
${value('k', e.k)}
${value('x', e.x)}
${value('v', e.v)}
${value('A', e.A)}
${value('B', e.B)}
${value('u', e.u)}
${value('S', e.S)}
${value('M1', e.M1)}
${value('M2', e.M2)}
\`\`\`
`;
}

function nativeClientSection(srp: SrpFacts): string {
  const droppable = packets.filter((p) => p.dir === 's2c' && p.delivery === 'droppable');
  return `## Writing a native client

A client needs: the frame codec above (the golden vectors below check it), the field types, and SRP-6a. Every step below names the packets; their sections list the fields.

### 1. Connect and say hello

Open a TCP connection to \`host:${option('TCP_PORT')}\`, or a WebSocket to \`ws://host:${option('HTTP_PORT')}/ws\` and send binary messages (see [Transports](#transports); \`wss://\` and TLS on TCP when the server has a certificate). Send ${packetLink(Hello)} at once with \`protocolVersion = ${PROTOCOL_VERSION}\` and \`clientKind = "native"\`; a connection that stays silent is closed with ${code(ErrorCode.HandshakeTimeout)} (after ${seconds('HANDSHAKE_TIMEOUT_MS')} by default), another version gets ${code(ErrorCode.Version)}. A connection must be logged in ([LoginOk](#loginok) or [Resumed](#resumed)) within ${seconds('LOGIN_TIMEOUT_MS')} of connecting, or it is closed with ${code(ErrorCode.LoginTimeout)}; time its login spends waiting in the server's queue does not count. The server answers ${packetLink(Welcome)} (its name, tick rate, clock and your connection id) and the connection is in state \`login\`.

### 2. Register (once per account)

Compute a random salt \`s\` and the verifier \`v\` (see [SRP-6a, exactly](#srp-6a-exactly)) from the lower-cased account name and the password, and send ${packetLink(Register)}: \`account\`, \`salt = bytes(s)\`, \`verifier = bytes(v)\`. The password never leaves the client. Answers: ${packetLink(Registered)}, or an Error with ${code(ErrorCode.AccountTaken)} or ${code(ErrorCode.BadAccountName)} (${errorMessage(ErrorCode.BadAccountName).replace(/\.$/, '')}).

### 3. Log in with SRP-6a

1. Send ${packetLink(LoginStart)} with the account name and the \`deviceToken\` the last ${packetLink(LoginOk)} for this account gave this device (empty when none; keep the newest per account).
2. While the server's SRP workers are busy it may send ${packetLink(LoginQueue)} updates (position 1 is next); they are droppable, so only the newest matters.
3. ${packetLink(LoginChallenge)} brings \`salt\` and \`B\`. Refuse B ≡ 0 (mod N). Pick \`a\`, compute \`A\`, \`u\`, \`x\`, \`S\` and \`M1\`.
4. Send ${packetLink(LoginProof)} with \`A = bytes(A)\` and \`M1 = bytes(M1)\`.
5. ${packetLink(LoginOk)} brings \`M2\`: compute it yourself and close the connection if it differs. LoginOk also holds the account id and a \`resumeToken\`; the connection is now \`authenticated\`. A wrong password is ${code(ErrorCode.BadLogin)}; too many of them ${code(ErrorCode.LoginThrottled)}.

### 4. Resume after a dropped connection

After a new Hello/Welcome, over either transport (a connection dropped on TCP may resume over WebSocket and the other way round), send ${packetLink(Resume)} with the account name and the last \`resumeToken\` instead of logging in. ${packetLink(Resumed)} authenticates the connection and brings a fresh token; ${code(ErrorCode.BadResume)} means: log in again (nothing else changed). Each token works once, whether it is accepted or refused, and stays good for 5 minutes after the connection that received it closes; keep the newest one. Keep the \`deviceToken\` of the last ${packetLink(LoginOk)} too: when a resume is refused and you log in again, it lets the login through the lock that guessing from many addresses may have put on the account (it lasts 30 days from the login that gave it).

A character does not leave the world when its connection drops: it stays, standing where its last movement state put it, visible and attackable, for the server's linger time (\`LINGER_MS\`, 5 s by default, and at least \`COMBAT_LINGER_MS\`, 20 s, after it last dealt or took damage), then is saved and leaves as after a logout. A Resume within that time has \`characterId\` set in ${packetLink(Resumed)}: that character is this connection's again, without leaving anyone's view. Do not send ${packetLink(EnterWorldRequest)}; at the next tick the server sends, in order:

1. ${packetLink(ZoneInfo)}, ${packetLink(SpellBook)}, ${packetLink(EnterWorld)} (where the character stands now, its health and mana; its \`tick\` and \`serverTime\` are the base the next ${packetLink(WorldUpdate)} head counts from, as after entering) and ${packetLink(PlayerStats)};
2. the character's state: ${packetLink(SpellStart)} for a cast in progress (\`castTime\` is what is left of it), one ${packetLink(Cooldown)} per spell still cooling down, ${packetLink(LogoutStarted)} when a logout is under way;
3. a ${packetLink(WorldUpdate)} with a spawn (and motion state) for every entity in view: forget what you held before and build the view from it.

Motion references and the clock start afresh with this connection (\`seq\` of ${packetLink(MoveInput)} may start again at 1). With \`characterId = 0\` the character is not in the world (never was, or its time ran out and it was saved): list the characters and enter as usual. A login with the password while the character lingers takes it over the same way: ${packetLink(EnterWorldRequest)} for that character attaches the new connection to it, and the answer is the sequence above.

### 5. Characters

${packetLink(ListCharacters)} → ${packetLink(CharacterList)} (at most ${MAX_CHARACTERS}). ${packetLink(CreateCharacter)} → ${packetLink(CharacterCreated)} or an Error: ${code(ErrorCode.BadName)}, ${code(ErrorCode.NameTaken)}, ${code(ErrorCode.TooManyCharacters)}. ${packetLink(DeleteCharacter)} → ${packetLink(CharacterDeleted)}. Errors that only refuse a request have \`fatal = false\`; the connection stays open.

### 6. Enter the world

Send ${packetLink(EnterWorldRequest)} with a character id. The server answers ${packetLink(ZoneInfo)} (zone size and walls), ${packetLink(SpellBook)} and ${packetLink(EnterWorld)} (your own entity, speed, stats and interest radius); from EnterWorld on the connection is \`inWorld\`.

From then on, every tick that has something for you brings a batch that opens with a ${packetLink(WorldUpdate)}: the tick number, the server time the batch happened at, and the [entity records](#${anchor(RECORDS_HEADING)}) of your view (it may be empty when only other packets follow, and a full tick may take more than one WorldUpdate frame with the same tick). While another player is in your view a WorldUpdate comes every tick, empty when nothing changed (unless your connection has fallen behind): every state up to its time has then reached you, so draw players no later than the newest WorldUpdate's time, and hold them there when none comes (your link stalls) instead of walking them on past a stop still on its way. Then come your own packets of the tick: ${packetLink(MoveAck)}, ${packetLink(PlayerStats)}, combat, spell and chat packets. Keep a table of entities by id:

- a **spawn** record adds an entity with its full state, and the move or path record after it in its block places it;
- **move**, **moveBy** and **path** records replace its motion state (moveBy and HERE paths read against the entity's reference: see [Motion states](#motion-states)): draw it by dead reckoning from the newest state, blending to each new one and snapping on JUMP;
- **health**, **death** and **respawn** records update it; **despawn** removes it.

Entity ids are varints; players count up from 1 and mobs from ${MOB_ID_BASE}. A record may name your own entity (EnterWorld's \`entityId\`): take its health, death and respawn; your own position is yours to predict (step 7). Ignore records for any other id you hold no spawn for (an entity's spawn block carries its current state). [A captured WorldUpdate](#a-captured-worldupdate) takes apart, byte by byte, the first two a real client got.

${packetLink(WorldUpdate)} is reliable, but when your connection falls behind its motion blocks may be skipped, and you get the motion state of your whole view once you catch up; droppable packets (${droppable.map(packetLink).join(', ')}) can be skipped too. Keep the last known state and carry on.

### 7. Moving: prediction and reconciliation

Move your own character at once (prediction) and tell the server your **movement state** with ${packetLink(MoveInput)}: a new \`seq\` (counting up), where you are at \`clientTime\` (your clock), your heading (\`facing\`), whether you walk (\`moving\`) and how fast (\`speed\`, units per second; at most EnterWorld's \`speed\`, less when sliding along a wall). A faster \`speed\` is lowered to EnterWorld's, not refused. While standing (\`moving = false\`) \`speed\` is ignored: send 0; \`moving\` with a \`speed\` of 0 is standing. Send it when you start, stop or turn (a heading change above ${CLIENT_TURN_EPSILON} rad), and every ${CLIENT_HEARTBEAT_MS} ms while walking; a walker none of whose inputs comes ${INPUT_OVERDUE_MS} ms after its newest (a heartbeat and a send step) is held where observers had it then until its inputs come again (they then take effect at once, checked from your last accepted position, so an honest client is not corrected for its stall): send your heartbeats on time, or your character is held between them. Stamp each with the newest move epoch the server told you (${packetLink(EnterWorld)}'s \`moveEpoch\`, then each ${packetLink(PositionCorrection)}'s \`epoch\`). Keep every input the server has not yet acknowledged. The server places each input on its clock at \`clientTime\` plus the offset of your most delayed input of the last ${LATENESS_WINDOW_MS / 1000} s (chosen while you stand, kept through a walk), at most ${MAX_HOLD_MS} ms after it arrived: an input that came sooner waits for its time, so your moves take effect with the spacing you made them at and everyone who watches you sees you walk as you did, never past a stop. On a jittery or lossy link your MoveAck comes later by that hold; a cast or logout you send after moves still waiting takes effect after them.

- ${packetLink(MoveAck)}: the newest \`seq\` the server accepted. Forget inputs up to it.
- ${packetLink(PositionCorrection)}: the server put your character somewhere you did not walk it: an input was refused (too fast, out of bounds, into a wall, dead), or the server moved it itself (it died where the server had it, it stood up at the graveyard: \`respawn\`, it was teleported). Snap to its position and facing. It starts a new **move epoch**: put its \`epoch\` in every ${packetLink(MoveInput)} from now on. The server drops, unanswered, every input of an older epoch (made before you heard), so forget every input not yet acknowledged. For a refused input, replay the movement made after its \`seq\` from there and send where that puts you as a fresh state; for \`dead\`, \`respawn\` and \`teleport\` replay nothing (and send nothing while dead).

Stay within EnterWorld's \`speed\`, the zone bounds and the walls of ZoneInfo, and send no faster than the \`move\` rate class allows. Your character is a square of half-size ${ENTITY_RADIUS} units around its position: a position where that square overlaps a wall (an [obstacle](#zoneinfo) rectangle) is refused with reason \`obstacle\`, as is a move whose straight line from the previous position crosses a wall; one closer than ${ENTITY_RADIUS} units to the edge of the ground (the zone and the zones beside it) with \`bounds\`. Beside a wall at x = 450, x = 441.9 is accepted and 442.1 refused. To walk, step toward the goal and, where the step is refused by a wall, try its x part alone, then its y part alone (sliding along the wall).

### 8. Clock sync

Send ${packetLink(Ping)} with a \`seq\` and \`clientTime\` = your clock in ms. ${packetLink(Pong)} echoes them with the server's clock. When it arrives at \`now\`:

\`\`\`
rtt    = now - clientTime
offset = serverTime - (clientTime + rtt / 2)
server clock ≈ your clock + offset
\`\`\`

Once logged in, send something at least every ${seconds('IDLE_TIMEOUT_MS')} (the server's default idle timeout): a connection that stays silent that long is closed with ${code(ErrorCode.IdleTimeout)}. A Ping every few seconds keeps the clock fresh and the connection open.

Take a few samples and keep the offset of the one with the smallest rtt. Server times (WorldUpdate's \`time\`, from which motion states are dead-reckoned, and EnterWorld's \`serverTime\`) are on the server's clock.

### 9. Leaving

${packetLink(LogoutRequest)} starts a timer (${packetLink(LogoutStarted)} says how long); moving or ${packetLink(LogoutCancel)} stops it (${packetLink(LogoutCancelled)}). ${packetLink(LogoutComplete)} returns the connection to \`authenticated\`. ${packetLink(Bye)} and a fatal ${packetLink(ErrorPacket)} mean the server is closing the connection; show the error's message (see [Error codes](#error-codes)).

When the server shuts down, a request it has not finished (a login waiting for its SRP turn, say) and any request sent afterwards is refused with a non-fatal ${code(ErrorCode.Shutdown)} carrying the request's opcode; then ${packetLink(Bye)} with reason \`shutdown\` comes and the connection closes. Nothing was done for a refused request: send it again once the server is back.

${srpSection(srp)}
### Golden vectors

\`test/protocol/golden/<PacketName>.hex\` holds, for every packet, one whole frame (header included) of a fixed sample payload, for testing a codec in another language. Each file is text:

\`\`\`
# <Name> opcode 0x<opcode> <c2s|s2c>: <n>-byte frame = 6-byte header + <n − 6>-byte payload
# value: <the sample payload as one line of JSON>
<the frame as lowercase hex, 16 bytes per line, bytes separated by spaces>
\`\`\`

Lines starting with \`#\` are comments. In the JSON, \`bytes\` fields are lowercase hex strings and every number is the exact decoded value (f32 samples are exact in 32 bits; quantized and angle samples are the decoded value of their step, computed with the decode formulas above in double precision). A codec passes when, for every file, it decodes the frame (size, opcode, CRC) and the payload into the value, and encodes the value back into the same bytes. The samples use multi-byte UTF-8 strings, varints of two bytes, non-zero enum indices and lists of two items; ${WorldUpdate.name}'s holds a record of every kind in two blocks (taken apart in [Worked example](#worked-example)).
`;
}

// ---------------------------------------------------------------------------------------

export async function renderSpec(): Promise<string> {
  const srp = await srpFacts();
  const doc = [
    `# Wyvern protocol

Protocol version **${PROTOCOL_VERSION}**. This file is generated by \`npm run spec\` from the packet definitions in \`shared/protocol/\`, the codec in \`shared/codec/\`, the motion constants in \`shared/game/motion.ts\`, the golden samples and the defaults of the SRP library; do not edit it by hand (\`npm run spec:check\` fails when it is stale).

Contents: [Frame](#frame) · [Field types](#field-types) · [Coordinates, units and clocks](#coordinates-units-and-clocks) · [Connection states](#connection-states) · [Packets](#packets) · [${RECORDS_HEADING}](#${anchor(RECORDS_HEADING)}) · [Error codes](#error-codes) · [Writing a native client](#writing-a-native-client)
`,
    frameSection(),
    fieldTypesSection(),
    unitsSection(),
    statesSection(),
    packetsSection(),
    recordsSection(),
    errorsSection(),
    nativeClientSection(srp),
  ];
  return doc.join('\n').replace(/\n{3,}/g, '\n\n');
}

/**
 * Files generated from the same definitions beside PROTOCOL.md: the client libraries' codecs;
 * and from the inner wire's declarations, CLUSTER.md's wire tables and their golden vectors.
 */
export async function renderGenerated(): Promise<{ path: string; content: string }[]> {
  const srp = await srpFacts();
  return [...renderC(), ...renderPython({ ...srp, exampleInputs: EXAMPLE }), ...(await renderInnerWire())];
}

async function main(): Promise<void> {
  const rendered = await renderSpec();
  const generated = await renderGenerated();
  const files = [{ path: 'docs/PROTOCOL.md', content: rendered }, ...generated];
  if (process.argv.includes('--check')) {
    let stale = false;
    for (const f of files) {
      let committed: string | undefined;
      try {
        committed = readFileSync(resolve(ROOT, f.path), 'utf8');
      } catch {
        committed = undefined;
      }
      if (committed !== f.content) {
        const why = committed === undefined ? 'is missing' : 'is out of date with the packet definitions';
        console.error(`${f.path} ${why}. Run \`npm run spec\` and commit the result.`);
        stale = true;
      }
    }
    if (stale) process.exit(1);
    console.log(`docs/PROTOCOL.md and ${generated.length} generated files are up to date.`);
    return;
  }
  for (const f of files) {
    const path = resolve(ROOT, f.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.content);
    console.log(`wrote ${f.path}${f.path === 'docs/PROTOCOL.md' ? ` (${packets.length} packets)` : ''}`);
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) await main();
