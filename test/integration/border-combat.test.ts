/**
 * Combat across the border in one process, over real sockets: a player in Westmark casts at a
 * wolf of Eastmark standing across the line, which it sees as a ghost, until it dies. The
 * caster sees its spells land, the wolf's health fall and the wolf die, and is credited the
 * kill; a player in Eastmark watching the wolf sees the same hits, from the caster.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CombatEvent, PlayerStats, SpellFailed } from '../../shared/protocol/index.js';
import { twoZoneData } from '../helpers/border.js';
import {
  sleep,
  startGameClient,
  startWorldServer,
  walkTo,
  type GameClient,
  type WorldServer,
} from '../helpers/game-client.js';

/** Fireball: 1.5 s cast, 240 units, 28-42 damage; the wolf has 80 health or a little more. */
const FIREBALL = 1;

describe('combat across the border in one process', () => {
  let dataDir: string;
  let world: WorldServer;
  let caster: GameClient;
  let watcher: GameClient;

  beforeAll(async () => {
    dataDir = twoZoneData({ eastMob: { x: 680, y: 300 } });
    world = await startWorldServer({ DATA_DIR: dataDir });
    const ports = { tcpPort: world.server.tcpPort, httpPort: world.server.httpPort };
    caster = await startGameClient(ports, { transport: 'ws', name: 'Archer' });
    watcher = await startGameClient(ports, { transport: 'tcp', name: 'Warden' });
  });

  afterAll(async () => {
    caster?.close();
    watcher?.close();
    await world?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("kills a mob across the line: the hits land in the mob's zone and the kill is the caster's", async () => {
    // The watcher walks over into Eastmark, beyond the wolf.
    await walkTo(watcher, { x: 760, y: 240 });
    await walkTo(caster, { x: 560, y: 300 });
    const wolfId = await until(() => {
      for (const e of caster.client.world.entities.values()) if (e.kind === 'mob' && e.x > 600) return e.id;
      return undefined;
    });
    const since = { caster: caster.log.mark(), watcher: watcher.log.mark() };
    const dead = () => caster.client.world.get(wolfId)?.alive === false;
    for (let i = 0; i < 6 && !dead(); i++) {
      const at = caster.log.mark();
      caster.client.cast(FIREBALL, wolfId);
      await Promise.race([
        caster.log.expect(CombatEvent, {
          since: at,
          predicate: (c) => c.targetId === wolfId,
          timeoutMs: 4000,
        }),
        caster.log.expect(SpellFailed, { since: at, timeoutMs: 4000 }),
      ]);
      await sleep(150);
    }
    const hits = caster.log.all(CombatEvent, (c) => c.targetId === wolfId, since.caster);
    expect(caster.log.all(SpellFailed, () => true, since.caster)).toEqual([]);
    expect(hits.length).toBeGreaterThanOrEqual(2);
    expect(hits.every((c) => c.sourceId === caster.entityId && c.kind === 'damage')).toBe(true);
    await until(() => (dead() ? true : undefined));
    const stats = await caster.log.expect(PlayerStats, {
      since: since.caster,
      predicate: (s) => s.kills === 1,
    });
    expect(stats.kills).toBe(1);
    // The watcher, in the wolf's own zone, saw the same hits from the caster.
    const seen = watcher.log.all(CombatEvent, (c) => c.targetId === wolfId, since.watcher);
    expect(seen.map((c) => [c.sourceId, c.amount])).toEqual(hits.map((c) => [c.sourceId, c.amount]));
    expect(watcher.client.world.get(wolfId)?.alive ?? false).toBe(false);
  });
});

/** Polls `get` every 50 ms until it gives a value (10 s at most). */
async function until<T>(get: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = get();
    if (v !== undefined) return v;
    await sleep(50);
  }
  throw new Error('gave up waiting');
}
