/**
 * The metrics subscriber of the world's domain events: what happened in the zones, counted
 * (deaths by kind, casts, hits, corrections by reason, chat). Tallied in plain maps per tick
 * and copied into counters only when /metrics is scraped, like the per-packet tallies.
 */
import { Counter } from 'prom-client';
import type { WorldEvent } from '../world/index.js';
import { registry } from './index.js';

const events = new Map<string, number>();
const corrections = new Map<string, number>();

function add(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function fromMap(map: Map<string, number>, label: string) {
  return function collect(this: Counter<string>): void {
    this.reset();
    for (const [key, n] of map) this.inc({ [label]: key }, n);
  };
}

new Counter({
  name: 'wyvern_world_events_total',
  help: 'Things that happened in the zones, by event (died_player and died_mob for deaths).',
  labelNames: ['event'],
  registers: [registry],
  collect: fromMap(events, 'event'),
});

new Counter({
  name: 'wyvern_move_corrections_total',
  help: 'Moves the server refused (the client was snapped back), by reason.',
  labelNames: ['reason'],
  registers: [registry],
  collect: fromMap(corrections, 'reason'),
});

/** Event types worth a series (the per-entity view and motion events are counted elsewhere, as records). */
const COUNTED: ReadonlySet<string> = new Set<WorldEvent['type']>([
  'died',
  'respawned',
  'entered',
  'castStarted',
  'castFailed',
  'castRefused',
  'spellLaunched',
  'spellHit',
  'said',
  'shouted',
  'chatRefused',
  'logoutStarted',
  'leveledUp',
]);

/** Counts one step's events. */
export function countWorldEvents(list: readonly WorldEvent[]): void {
  for (const e of list) {
    if (e.type === 'moveRefused') add(corrections, e.reason);
    else if (e.type === 'died') add(events, e.entity.kind === 'player' ? 'died_player' : 'died_mob');
    else if (COUNTED.has(e.type)) add(events, e.type);
  }
}

/** The tally so far for one event label (tests and status pages). */
export function worldEventCount(event: string): number {
  return events.get(event) ?? 0;
}

/** The tally so far of corrections for one reason. */
export function correctionCount(reason: string): number {
  return corrections.get(reason) ?? 0;
}
