/** Field types and constants shared by several packet groups. */
import { t } from '../codec/index.js';

/** Bumped on any wire change; Hello with another version gets ERR_VERSION. */
export const PROTOCOL_VERSION = 7;

/**
 * Entity ids, unique across zones and hosts so a character keeps its id when handed to the
 * next zone: a player's id is its character id (below MOB_ID_BASE); a zone numbered n gives
 * its mobs MOB_ID_BASE + (n - 1) * MOB_IDS_PER_ZONE + 0, 1, ... With MAX_ZONES zones every
 * mob id stays under 2^21: three bytes as a varint, as with one zone.
 */
export const entityId = t.varint;
export const MOB_ID_BASE = 1 << 20;
export const MOB_IDS_PER_ZONE = 1 << 16;
export const MAX_ZONES = 16;

/** Zone coordinates are in [0, COORD_MAX]; entity records carry them quantized to 1/16 unit. */
export const COORD_MAX = 4096;
export const coord = t.quantized(0, COORD_MAX);

export const characterName = t.string(16);
export const accountName = t.string(32);
export const zoneName = t.string(32);
export const spellId = t.u16;

export const EntityKind = ['player', 'mob'] as const;
export type EntityKind = (typeof EntityKind)[number];
