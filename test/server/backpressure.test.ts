/**
 * The gateway's soft-limit reports (server/gateway/backpressure.ts): after each batch a BEHIND
 * record goes to the zone host for each connection whose verdict changed, and only then.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Writer } from '../../shared/codec/writer.js';
import { readTagged, type Tagged } from '../../server/cluster/inner/define.js';
import { ZoneInputs } from '../../server/cluster/wire.js';
import { Backpressure } from '../../server/gateway/backpressure.js';
import type { PlacementState } from '../../server/gateway/placement.js';
import type { Placement } from '../../server/gateway/placements.js';

/** A placement whose connection is behind while `conn.over` is set. */
function placement(id: number, state: PlacementState = { kind: 'inWorld' }) {
  const conn = { over: false, behind: () => conn.over };
  const p = {
    session: { id, conn },
    character: {
      accountId: id,
      characterId: id,
      name: `P${id}`,
      zone: 'greenvale',
      entityId: id,
      listed: true,
    },
    state,
    host: 'zh',
    behind: false,
  };
  return { p: p as unknown as Placement, conn };
}

describe('backpressure reports', () => {
  let w: Writer;
  let current: Set<Placement>;
  let backpressure: Backpressure;

  /** The records written since the last call. */
  function sent(): Tagged<typeof ZoneInputs>[] {
    const out: Tagged<typeof ZoneInputs>[] = [];
    readTagged(ZoneInputs, w.finish(), (r) => out.push(r));
    w = new Writer(64);
    ZoneInputs.begin(w, { gateway: 'g', epoch: 0, to: 0, seq: 0 });
    return out;
  }

  beforeEach(() => {
    w = new Writer(64);
    ZoneInputs.begin(w, { gateway: 'g', epoch: 0, to: 0, seq: 0 });
    current = new Set();
    backpressure = new Backpressure({ outbox: { inputs: () => w }, current: (p) => current.has(p) });
  });

  it('reports a connection once when a write puts it behind, and once when it drains, with no write', () => {
    const a = placement(1);
    current.add(a.p);
    a.conn.over = true;
    backpressure.wrote(a.p);
    backpressure.reportBehind();
    expect(sent()).toEqual([{ kind: 'Behind', session: 1, behind: true }]);
    // Still behind, written to again and not: nothing new to tell.
    backpressure.wrote(a.p);
    backpressure.reportBehind();
    backpressure.reportBehind();
    expect(sent()).toEqual([]);
    a.conn.over = false;
    backpressure.reportBehind();
    expect(sent()).toEqual([{ kind: 'Behind', session: 1, behind: false }]);
    backpressure.reportBehind();
    expect(sent()).toEqual([]);
  });

  it('checks only the connections written to this batch and those behind', () => {
    const a = placement(1);
    const b = placement(2);
    current.add(a.p).add(b.p);
    a.conn.over = true;
    b.conn.over = true;
    backpressure.wrote(b.p);
    backpressure.reportBehind();
    expect(sent()).toEqual([{ kind: 'Behind', session: 2, behind: true }]);
  });

  it('tells nothing of a placement that left, or whose zone is down, and stops checking it', () => {
    const a = placement(1);
    const down = placement(2, { kind: 'zoneDown', hadEntity: true });
    current.add(a.p).add(down.p);
    a.conn.over = true;
    down.conn.over = true;
    backpressure.wrote(a.p);
    backpressure.wrote(down.p);
    backpressure.reportBehind();
    expect(sent()).toEqual([{ kind: 'Behind', session: 1, behind: true }]);
    current.delete(a.p);
    a.conn.over = false;
    backpressure.reportBehind();
    expect(sent()).toEqual([]);
    // Back with a new placement for the same session: its verdict starts afresh.
    const again = placement(1);
    current.add(again.p);
    backpressure.wrote(again.p);
    backpressure.reportBehind();
    expect(sent()).toEqual([]);
  });
});
