/**
 * The gateway's reading of the registry's zone claims (server/gateway/zone-claims.ts): which
 * claim changes put a zone's sessions waiting, which bring them back and how (a resync from
 * the host that kept running, a new JOIN for a new host), and the JOIN repeated until the new
 * host answers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Placement, PlacementBook, PlacementContext } from '../../server/gateway/placements.js';
import type { PlacementEvent } from '../../server/gateway/placement.js';
import { silentLogger } from '../../server/log.js';
import { ZoneClaims } from '../../server/gateway/zone-claims.js';

/** A placement as driveAll's filter sees it: its zone and whether its connection is closing. */
const placed = (id: number, zone: string, closing = false) =>
  ({ session: { id, closing }, character: { zone } }) as unknown as Placement;

describe('zone claims', () => {
  let placements: Placement[];
  /** What the book was asked: each event with the sessions it was for, and lingering dropped. */
  let asked: string[];
  /** How many placements take each event (the rest refuse it). */
  let takes: (event: PlacementEvent) => number;
  let closed: boolean;
  let claims: ZoneClaims;
  const A = { id: 'zh-a', instance: 'one' };
  const B = { id: 'zh-b', instance: 'one' };

  beforeEach(() => {
    vi.useFakeTimers();
    placements = [placed(1, 'greenvale'), placed(2, 'ashmoor'), placed(3, 'greenvale')];
    asked = [];
    takes = (event) => (event.type === 'rejoinDue' ? 0 : 1);
    closed = false;
    const book: Pick<PlacementBook, 'dropLingeringIn' | 'driveAll'> = {
      dropLingeringIn: (zone) => asked.push(`dropLingering ${zone}`),
      driveAll: (where, event, ctx: PlacementContext = {}) => {
        const ids = placements.filter(where).map((p) => p.session.id);
        const extra = event.type === 'zoneUp' ? `(${event.sameHost ? 'sameHost' : 'newHost'})` : '';
        asked.push(`${event.type}${extra}${ctx.news ? ' news' : ''} ${ids.join(',')}`);
        return ids.length === 0 ? 0 : takes(event);
      },
    };
    claims = new ZoneClaims({ book, log: silentLogger, closed: () => closed });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('changes nothing when a zone is first claimed, or claimed again by the same host', () => {
    claims.zoneClaim('greenvale', A);
    claims.zoneClaim('greenvale', A);
    expect(asked).toEqual([]);
    expect(claims.isDown('greenvale')).toBe(false);
  });

  it("puts a zone's sessions waiting once when its claim lapses, and drops what lingered there", () => {
    claims.zoneClaim('greenvale', A);
    claims.zoneClaim('greenvale', undefined);
    claims.zoneClaim('greenvale', undefined);
    expect(asked).toEqual(['dropLingering greenvale', 'zoneDown news 1,3']);
    expect(claims.isDown('greenvale')).toBe(true);
    expect(claims.isDown('ashmoor')).toBe(false);
  });

  it('asks for a resync when the host that lost the claim takes it back', () => {
    claims.zoneClaim('greenvale', A);
    claims.zoneClaim('greenvale', undefined);
    asked.length = 0;
    claims.zoneClaim('greenvale', A);
    expect(asked).toEqual(['zoneUp(sameHost) 1,3']);
    expect(claims.isDown('greenvale')).toBe(false);
  });

  it('enters the sessions anew when a new host, or a restart of the same one, claims the zone', () => {
    claims.zoneClaim('greenvale', A);
    claims.zoneClaim('greenvale', undefined);
    claims.zoneClaim('greenvale', { id: 'zh-a', instance: 'two' });
    claims.zoneClaim('ashmoor', A);
    claims.zoneClaim('ashmoor', undefined);
    claims.zoneClaim('ashmoor', B);
    expect(asked.filter((a) => a.startsWith('zoneUp'))).toEqual(['zoneUp(newHost) 1,3', 'zoneUp(newHost) 2']);
  });

  it('takes a claim passing straight to another host as a loss and a return at once', () => {
    claims.zoneClaim('greenvale', A);
    claims.zoneClaim('greenvale', B);
    expect(asked).toEqual(['dropLingering greenvale', 'zoneDown news 1,3', 'zoneUp(newHost) 1,3']);
    expect(claims.isDown('greenvale')).toBe(false);
  });

  it('repeats the JOIN of sessions still rejoining, not of closing ones, until none is left', () => {
    placements.push(placed(4, 'greenvale', true));
    let rejoining = 2;
    takes = (event) => (event.type === 'rejoinDue' ? rejoining : 1);
    claims.zoneClaim('greenvale', A);
    claims.zoneClaim('greenvale', B);
    asked.length = 0;
    vi.advanceTimersByTime(250);
    vi.advanceTimersByTime(250);
    expect(asked).toEqual(['rejoinDue 1,3', 'rejoinDue 1,3']);
    rejoining = 0;
    vi.advanceTimersByTime(250);
    vi.advanceTimersByTime(5000);
    expect(asked).toEqual(['rejoinDue 1,3', 'rejoinDue 1,3', 'rejoinDue 1,3']);
  });

  it('stops repeating the JOIN when the zone goes down again, after 40 tries, or once closed', () => {
    takes = () => 1;
    claims.zoneClaim('greenvale', A);
    claims.zoneClaim('greenvale', B);
    vi.advanceTimersByTime(250 * 100);
    expect(asked.filter((a) => a.startsWith('rejoinDue'))).toHaveLength(40);
    asked.length = 0;
    claims.zoneClaim('greenvale', undefined);
    claims.zoneClaim('greenvale', A);
    claims.zoneClaim('greenvale', undefined);
    vi.advanceTimersByTime(250 * 10);
    expect(asked.filter((a) => a.startsWith('rejoinDue'))).toEqual([]);
    claims.zoneClaim('greenvale', B);
    closed = true;
    vi.advanceTimersByTime(250 * 10);
    expect(asked.filter((a) => a.startsWith('rejoinDue'))).toEqual([]);
    claims.zoneClaim('greenvale', undefined);
    expect(asked.at(-1)).toBe('zoneUp(newHost) 1,3');
  });
});
