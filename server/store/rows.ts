/** Row <-> record mapping shared by both databases, derived from `characterStateColumns`. */
import {
  characterStateColumns,
  stateKeys,
  type Account,
  type CharacterRecord,
  type CharacterState,
  type ColumnSpec,
} from './types.js';

export const stateColumnNames = stateKeys.map((key) => characterStateColumns[key].column);

export const characterSelectList = [
  'id',
  'account_id',
  'name',
  'appearance',
  'created_at',
  'updated_at',
  ...stateColumnNames,
].join(', ');

/** The SQL parameter for one state field. Lists are stored as JSON text in both databases. */
export function stateParam(state: CharacterState, key: keyof CharacterState): unknown {
  const spec: ColumnSpec = characterStateColumns[key];
  const value = state[key];
  if (value === undefined || value === null) return null;
  return spec.kind === 'intList' ? JSON.stringify(value) : value;
}

export function stateParams(state: CharacterState): unknown[] {
  return stateKeys.map((key) => stateParam(state, key));
}

type Row = Record<string, unknown>;

/** PostgreSQL returns BIGINT as a string; ids and times stay far below 2^53. */
function int(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export function characterFromRow(row: Row): CharacterRecord {
  const record: Record<string, unknown> = {
    id: int(row.id),
    accountId: int(row.account_id),
    name: row.name,
    appearance: int(row.appearance),
    createdAt: int(row.created_at),
    updatedAt: int(row.updated_at),
  };
  for (const key of stateKeys) {
    const spec: ColumnSpec = characterStateColumns[key];
    const value = row[spec.column];
    if (value === null || value === undefined) record[key] = null;
    else if (spec.kind === 'intList') record[key] = JSON.parse(String(value)) as number[];
    else if (spec.kind === 'text') record[key] = String(value);
    else record[key] = int(value);
  }
  return record as unknown as CharacterRecord;
}

function bytes(value: unknown): Uint8Array {
  // Both drivers hand back a Buffer (possibly a slice of a shared pool): copy into a plain array.
  return new Uint8Array(value as Uint8Array);
}

export function accountFromRow(row: Row): Account {
  return {
    id: int(row.id),
    name: String(row.name),
    salt: bytes(row.salt),
    verifier: bytes(row.verifier),
    createdAt: int(row.created_at),
  };
}

/** One state per id, the last one given: a batch may mention a character twice. */
export function latestPerId<T extends { readonly id: number }>(batch: readonly T[]): T[] {
  const byId = new Map<number, T>();
  for (const state of batch) byId.set(state.id, state);
  return [...byId.values()];
}
