/**
 * Where the inner wire is declared, once, as the client protocol is in definePacket: each
 * record of a message (kind, name, direction, fields, a doc line), each message made of
 * records (its head and which records it carries), and each message that is one body (a
 * request, a reply, a border strip). Encode and decode, the TypeScript types, the handler
 * tables' types (a record without a handler fails to compile), docs/CLUSTER.md's wire tables
 * (tools/cluster-spec.ts) and the golden vectors (test/cluster/golden/) come from these.
 *
 * A message of records is `head · record*` to its end, each record `kind u8 · session ·
 * fields`: `session` is the gateway's id for a connection (a varint, unique within that
 * gateway only), declared here for every record.
 */
import { DecodeError, DecodeErrorCode } from '../../../shared/codec/errors.js';
import { varint } from '../../../shared/codec/fields.js';
import { Reader } from '../../../shared/codec/reader.js';
import { Writer } from '../../../shared/codec/writer.js';
import type { Route } from '../subjects.js';
import {
  group,
  type GroupField,
  type GroupIn,
  type GroupInPlace,
  type GroupOut,
  type WireField,
  type WireFields,
} from './fields.js';

/** Who sends it to whom. */
export const Dir = {
  g2z: 'gateway → zone host',
  z2g: 'zone host → gateway',
  z2z: 'zone host → zone host',
  g2g: 'gateway → gateway',
} as const;
export type Dir = keyof typeof Dir;

/** The fields every record starts with. */
const RECORD_HEAD = { session: varint } as const;
type WithSession<F extends WireFields> = typeof RECORD_HEAD & F;

export interface RecordDef<N extends string, F extends WireFields> {
  /** Unique within each message that carries the record. */
  readonly kind: number;
  readonly name: N;
  readonly dir: Dir;
  readonly doc: string;
  /** After `session`, which every record has. */
  readonly fields: F;
}

export interface InnerRecord<N extends string = string, F extends WireFields = WireFields> extends RecordDef<
  N,
  F
> {
  /** session then the declared fields. */
  readonly body: GroupField<WithSession<F>>;
  /**
   * Appends the record (kind · session · fields) to a message its stream began. A value the
   * wire refuses leaves the writer as it was, so the records before it still go.
   */
  write(w: Writer, value: RecordIn<InnerRecord<N, F>>): void;
}

/** A record as its handler gets it: `session` and the declared fields (bytes are views into the message). */
export type RecordOut<R> = R extends InnerRecord<string, infer F> ? GroupOut<WithSession<F>> : never;
/** A record as a visitor gets it: one object per record kind, refilled for each record; bytes as ranges of the message. */
export type RecordInPlace<R> = R extends InnerRecord<string, infer F> ? GroupInPlace<WithSession<F>> : never;
/** A record as a writer gives it. */
export type RecordIn<R> = R extends InnerRecord<string, infer F> ? GroupIn<WithSession<F>> : never;

export function defineRecord<const N extends string, const F extends WireFields>(
  def: RecordDef<N, F>,
): InnerRecord<N, F> {
  if (!Number.isInteger(def.kind) || def.kind < 1 || def.kind > 0xff)
    throw new Error(`${def.name}: kind must be in 1..255`);
  if ('session' in def.fields) throw new Error(`${def.name}: session is every record's already`);
  const body = group({ ...RECORD_HEAD, ...def.fields } as WithSession<F>);
  const kind = def.kind;
  return Object.freeze({
    ...def,
    body,
    write(w: Writer, value: GroupIn<WithSession<F>>) {
      const start = w.pos;
      try {
        w.u8(kind);
        body.write(w, value);
      } catch (err) {
        w.pos = start;
        throw err;
      }
    },
  });
}

export interface StreamDef<N extends string, H extends WireFields, R extends readonly InnerRecord[]> {
  readonly name: N;
  /** The routes (server/cluster/subjects.ts) it goes on. */
  readonly routes: readonly Route[];
  /** Where it goes, for the spec: "on `subject`" and what else a reader needs to know. */
  readonly subjects: readonly string[];
  readonly doc: string;
  /** Written once, before the records. */
  readonly head: H;
  readonly records: R;
}

export interface InnerStream<
  N extends string = string,
  H extends WireFields = WireFields,
  R extends readonly InnerRecord[] = readonly InnerRecord[],
> extends StreamDef<N, H, R> {
  readonly headField: WireField<GroupOut<H>, GroupIn<H>>;
  /** Rewinds `w` and writes the head: records follow. */
  begin(w: Writer, head: GroupIn<H>): void;
  /**
   * Reads the head, then calls each record's handler in order. Throws a DecodeError on bytes
   * that are not such a message (an unknown kind among them): the records before it were handled.
   */
  read(bytes: Uint8Array, handlers: StreamHandlers<InnerStream<N, H, R>>): void;
  /**
   * Reads as `read` does, for a hot path: no object is made per record. Each visitor gets its
   * record kind's one object, filled anew for every record of that kind (bytes fields as
   * ranges of the message, not views): it is valid only during the call; copy what you keep.
   */
  visit(bytes: Uint8Array, visitors: StreamVisitors<InnerStream<N, H, R>>): void;
}

/** What a reader does with each record kind of a message: every kind needs its handler. */
export type RecordHandlers<R extends readonly InnerRecord[], H extends WireFields> = {
  readonly [X in R[number] as X['name']]: (record: RecordOut<X>, head: GroupOut<H>) => void;
};
export type StreamHandlers<S> =
  S extends InnerStream<string, infer H, infer R>
    ? RecordHandlers<R, H> & {
        /** The message's head, before its records. */
        readonly begin?: (head: GroupOut<H>) => void;
      }
    : never;
/** What a hot reader does with each record kind (see InnerStream.visit): every kind needs its visitor. */
export type RecordVisitors<R extends readonly InnerRecord[], H extends WireFields> = {
  readonly [X in R[number] as X['name']]: (record: RecordInPlace<X>, head: GroupOut<H>) => void;
};
export type StreamVisitors<S> =
  S extends InnerStream<string, infer H, infer R>
    ? RecordVisitors<R, H> & {
        /** The message's head, before its records. */
        readonly begin?: (head: GroupOut<H>) => void;
      }
    : never;
/** The head of a message of records. */
export type HeadOf<S> = S extends InnerStream<string, infer H> ? GroupOut<H> : never;

export function defineStream<
  const N extends string,
  const H extends WireFields,
  const R extends readonly InnerRecord[],
>(def: StreamDef<N, H, R>): InnerStream<N, H, R> {
  const byKind: (InnerRecord | undefined)[] = [];
  for (const rec of def.records) {
    if (byKind[rec.kind])
      throw new Error(`${def.name}: kind ${rec.kind} is ${byKind[rec.kind]!.name}'s already`);
    byKind[rec.kind] = rec;
  }
  const headField = group(def.head);
  const name = def.name;
  /** Each record kind's one object for visit. */
  const inPlace: GroupInPlace<WithSession<WireFields>>[] = [];
  type Decode = (rec: R[number], r: Reader, kind: number) => unknown;
  const readNew: Decode = (rec, r) => rec.body.read(r);
  const readInPlace: Decode = (rec, r, kind) => {
    const o = (inPlace[kind] ??= rec.body.blank());
    rec.body.readInto(r, o);
    return o;
  };
  /** The head to `begin`, then each record, decoded by `decode`, to its kind's handler. */
  const each = (bytes: Uint8Array, handlers: object, decode: Decode): void => {
    const r = new Reader(bytes);
    const head = headField.read(r);
    const table = handlers as Record<string, (record: unknown, head: unknown) => void> & {
      begin?: (head: unknown) => void;
    };
    table.begin?.(head);
    while (r.remaining > 0) {
      const kind = r.u8();
      const rec = byKind[kind];
      if (!rec) throw new DecodeError(DecodeErrorCode.BadEnum, `${name}: record kind ${kind} unknown`);
      table[rec.name]!(decode(rec, r, kind), head);
    }
  };
  return Object.freeze({
    ...def,
    headField,
    begin(w: Writer, head: GroupIn<H>) {
      w.reset();
      headField.write(w, head);
    },
    read(bytes: Uint8Array, handlers: StreamHandlers<InnerStream<N, H, R>>) {
      each(bytes, handlers, readNew);
    },
    visit(bytes: Uint8Array, visitors: StreamVisitors<InnerStream<N, H, R>>) {
      each(bytes, visitors, readInPlace);
    },
  });
}

export interface BodyDef<N extends string, F extends WireFields> {
  readonly name: N;
  readonly dir: Dir;
  /** The route (server/cluster/subjects.ts) it goes on; none for a reply or a part of another message. */
  readonly route?: Route;
  /** Where it goes, for the spec: "on `subject`", "the reply to ...", "inside ...". */
  readonly subject: string;
  readonly doc: string;
  readonly fields: F;
  /** The value of its golden vector, where the one made from the field types would not show the layout. */
  readonly example?: GroupIn<F>;
}

export interface InnerBody<N extends string = string, F extends WireFields = WireFields>
  extends BodyDef<N, F>, WireField<GroupOut<F>, GroupIn<F>> {
  /** A fresh array holding the message. */
  encode(value: GroupIn<F>): Uint8Array;
  /** Reads a whole message; bytes after its last field are refused (ERR_OVERLONG). */
  decode(bytes: Uint8Array): GroupOut<F>;
}
export type BodyOut<B> = B extends InnerBody<string, infer F> ? GroupOut<F> : never;
export type BodyIn<B> = B extends InnerBody<string, infer F> ? GroupIn<F> : never;

const scratch = new Writer(1024);

export function defineBody<const N extends string, const F extends WireFields>(
  def: BodyDef<N, F>,
): InnerBody<N, F> {
  const field = group(def.fields);
  const name = def.name;
  return Object.freeze({
    ...def,
    spec: field.spec,
    write: field.write,
    read: field.read,
    encode(value: GroupIn<F>) {
      scratch.reset();
      field.write(scratch, value);
      return scratch.finish();
    },
    decode(bytes: Uint8Array) {
      const r = new Reader(bytes);
      const value = field.read(r);
      if (r.remaining !== 0)
        throw new DecodeError(DecodeErrorCode.Overlong, `${name}: ${r.remaining} byte(s) past its end`);
      return value;
    },
  });
}

/** A record of a message with its record's name as `kind`: for code that collects records (tests, tools). */
export type Tagged<S> =
  S extends InnerStream<string, WireFields, infer R>
    ? { [K in keyof R]: R[K] extends InnerRecord<infer N> ? { kind: N } & RecordOut<R[K]> : never }[number]
    : never;

/** Calls `each` with every record of a message, tagged with its record's name, and the message's head. */
export function readTagged<S extends InnerStream>(
  stream: S,
  bytes: Uint8Array,
  each: (record: Tagged<S>, head: HeadOf<S>) => void,
): void {
  const handlers: Record<string, (record: object, head: HeadOf<S>) => void> = {};
  for (const rec of stream.records)
    handlers[rec.name] = (record, head) => each({ kind: rec.name, ...record } as Tagged<S>, head);
  stream.read(bytes, handlers as never);
}
