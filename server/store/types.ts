/**
 * Persistence behind one interface. Two implementations: SQLite (embedded default,
 * `sqlite.ts`) and PostgreSQL (`postgres.ts`); `openStore(url)` in `index.ts` picks one.
 *
 * A character's saved state is declared once, in `characterStateColumns`: adding a field to
 * `CharacterState` without a column entry is a type error, and the SQL for save and load in
 * both databases is derived from that table. A new field also needs a numbered migration that
 * adds its column (see `migrations.ts`).
 */

export interface Account {
  readonly id: number;
  /** As registered (display form). */
  readonly name: string;
  /** SRP salt and verifier exactly as the client sent them. */
  readonly salt: Uint8Array;
  readonly verifier: Uint8Array;
  readonly createdAt: number;
}

export interface NewAccount {
  readonly name: string;
  readonly salt: Uint8Array;
  readonly verifier: Uint8Array;
}

/** What the world changes and the saver writes. */
export interface CharacterState {
  zone: string;
  x: number;
  y: number;
  /** Radians. */
  facing: number;
  level: number;
  health: number;
  mana: number;
  /** null: derived from level by the world. */
  maxHealth?: number | null;
  maxMana?: number | null;
  /** Known spell ids. */
  spells: number[];
  kills: number;
  /** Experience into the current level. */
  experience: number;
}

/** A whole state for one character, as handed to `saveCharacters`. */
export interface CharacterSave extends CharacterState {
  readonly id: number;
}

export interface NewCharacter extends CharacterState {
  readonly accountId: number;
  /** Already validated and formatted (see server/session/names.ts). */
  readonly name: string;
  readonly appearance: number;
}

export interface CharacterRecord extends CharacterSave {
  readonly accountId: number;
  readonly name: string;
  readonly appearance: number;
  maxHealth: number | null;
  maxMana: number | null;
  /** Unix ms. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type ColumnKind = 'text' | 'int' | 'real' | 'intList';
export interface ColumnSpec {
  readonly column: string;
  readonly kind: ColumnKind;
  readonly nullable?: boolean;
}

/** The one table that maps saved state to columns. Order is the column order in the SQL. */
export const characterStateColumns = {
  zone: { column: 'zone', kind: 'text' },
  x: { column: 'x', kind: 'real' },
  y: { column: 'y', kind: 'real' },
  facing: { column: 'facing', kind: 'real' },
  level: { column: 'level', kind: 'int' },
  health: { column: 'health', kind: 'int' },
  mana: { column: 'mana', kind: 'int' },
  maxHealth: { column: 'max_health', kind: 'int', nullable: true },
  maxMana: { column: 'max_mana', kind: 'int', nullable: true },
  spells: { column: 'spells', kind: 'intList' },
  kills: { column: 'kills', kind: 'int' },
  experience: { column: 'experience', kind: 'int' },
} as const satisfies { readonly [K in keyof Required<CharacterState>]: ColumnSpec };

export type StateKey = keyof typeof characterStateColumns;
export const stateKeys = Object.keys(characterStateColumns) as StateKey[];

export interface SaveResult {
  /** Characters written. */
  readonly saved: number;
  /** Ids that no longer exist (deleted meanwhile); skipped, not an error. */
  readonly missing: readonly number[];
}

export interface CreateCharacterOptions {
  /** Refuse with StoreError 'limit' when the account already has this many characters. */
  readonly maxPerAccount?: number;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Throws StoreError 'taken' when the name exists ignoring case. */
  createAccount(account: NewAccount): Promise<Account>;
  /** Case-insensitive. */
  findAccount(name: string): Promise<Account | undefined>;
  listCharacters(accountId: number): Promise<CharacterRecord[]>;
  /** Throws StoreError 'taken' (name exists ignoring case) or 'limit' (see options). */
  createCharacter(character: NewCharacter, options?: CreateCharacterOptions): Promise<CharacterRecord>;
  /** False when no such character belongs to that account. */
  deleteCharacter(accountId: number, characterId: number): Promise<boolean>;
  getCharacter(id: number): Promise<CharacterRecord | undefined>;
  /** All or nothing, in one transaction. Throws StoreError 'invalid' before writing on a bad state. */
  saveCharacters(batch: readonly CharacterSave[]): Promise<SaveResult>;
  close(): Promise<void>;
}

export const StoreErrorCode = {
  /** A unique name (account or character) is in use, ignoring case. */
  Taken: 'taken',
  /** The account has no free character slot. */
  Limit: 'limit',
  /** A value the schema cannot hold (non-finite number, wrong type). */
  Invalid: 'invalid',
  /** The database is newer than this code, or a migration failed. */
  Schema: 'schema',
} as const;
export type StoreErrorCode = (typeof StoreErrorCode)[keyof typeof StoreErrorCode];

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Lower-case key for the case-insensitive unique names. */
export function nameKey(name: string): string {
  return name.toLowerCase();
}

/**
 * Checks a state before any write, so a bad value fails the batch up front with a clear
 * message instead of half-way through a transaction.
 */
export function checkState(state: CharacterState & { id?: number }): void {
  const where = state.id === undefined ? 'character' : `character ${state.id}`;
  if (state.id !== undefined && !Number.isSafeInteger(state.id)) {
    throw new StoreError('invalid', `${where}: id must be an integer`);
  }
  for (const key of stateKeys) {
    const spec: ColumnSpec = characterStateColumns[key];
    const value: unknown = state[key];
    if (value === undefined || value === null) {
      if (spec.nullable) continue;
      throw new StoreError('invalid', `${where}: ${key} is missing`);
    }
    const ok =
      spec.kind === 'text'
        ? typeof value === 'string'
        : spec.kind === 'real'
          ? typeof value === 'number' && Number.isFinite(value)
          : spec.kind === 'int'
            ? Number.isSafeInteger(value)
            : Array.isArray(value) && value.every((v) => Number.isSafeInteger(v));
    if (!ok) throw new StoreError('invalid', `${where}: ${key} is not a valid ${spec.kind}`);
  }
}
