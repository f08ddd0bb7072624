/** Field types and constants shared by several packet groups. */
import { t } from '../codec/index.js';

/** Bumped on any wire change; Hello with another version gets ERR_VERSION. */
export const PROTOCOL_VERSION = 5;

/** Entity ids: players count up from 1, mobs from MOB_ID_BASE, so the two never meet. */
export const entityId = t.varint;
export const MOB_ID_BASE = 1 << 20;

/** Zone coordinates are in [0, COORD_MAX]; entity records carry them quantized to 1/16 unit. */
export const COORD_MAX = 4096;
export const coord = t.quantized(0, COORD_MAX);

export const characterName = t.string(16);
export const accountName = t.string(32);
export const zoneName = t.string(32);
export const spellId = t.u16;

export const EntityKind = ['player', 'mob'] as const;
export type EntityKind = (typeof EntityKind)[number];
