/**
 * The gateway's answer to Who, merged from the zone hosts' lists (mergeWho in
 * server/gateway/world-requests.ts): zone by zone in the world's order, each host's order
 * kept within a zone, a capped list and a full count.
 */
import { describe, expect, it } from 'vitest';
import { mergeWho } from '../../server/gateway/world-requests.js';

const WORLD = ['Greenvale', 'Ashmoor', 'Northmoor'];
const player = (name: string, zone: string, level = 1) => ({ name, level, zone });
const list = (players: ReturnType<typeof player>[], total = players.length) => ({ total, players });

describe('the merged who list', () => {
  it("lists the players zone by zone in the world's order, keeping each host's order within a zone", () => {
    const north = list([player('Nia', 'Northmoor'), player('Ana', 'Greenvale'), player('Bob', 'Greenvale')]);
    const south = list([player('Cyd', 'Greenvale'), player('Ash', 'Ashmoor')]);
    expect(mergeWho([north, south], WORLD).players.map((p) => p.name)).toEqual([
      'Ana',
      'Bob',
      'Cyd',
      'Ash',
      'Nia',
    ]);
  });

  it('puts the players of a zone the world does not name after all the others', () => {
    const merged = mergeWho([list([player('Eve', 'Elsewhere'), player('Nia', 'Northmoor')])], WORLD);
    expect(merged.players.map((p) => p.zone)).toEqual(['Northmoor', 'Elsewhere']);
  });

  it('lists at most the cap and counts every player of every host, listed or not', () => {
    const many = (zone: string, n: number) =>
      Array.from({ length: n }, (_, i) => player(`${zone}${i}`, zone));
    // A host lists at most 200 of its own too: its total says how many it has.
    const a = list(many('Northmoor', 150), 420);
    const b = list(many('Greenvale', 150));
    const merged = mergeWho([a, b], WORLD, 200);
    expect(merged.total).toBe(570);
    expect(merged.players).toHaveLength(200);
    expect(merged.players[0]).toEqual(player('Greenvale0', 'Greenvale'));
    expect(merged.players.at(-1)).toEqual(player('Northmoor49', 'Northmoor'));
  });

  it('is empty, counting nobody, when no host answered', () => {
    expect(mergeWho([], WORLD)).toEqual({ total: 0, players: [] });
  });
});
