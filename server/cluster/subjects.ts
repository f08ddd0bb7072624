/**
 * Every subject the two roles talk on, built in one place. A subject is a branded string made
 * only by these helpers, so a typo'd or hand-built subject does not compile, and each id in it
 * is checked to be one subject token.
 *
 *   wyvern.zone.<zone>.in      gateway -> the zone's host: the zone's inputs (MoveInput, casts,
 *                              say; joins and leaves), one subscriber: the host holding the zone
 *   wyvern.gw.<gateway>.tick   zone host -> gateway: one message per tick carrying every
 *                              session's bytes for that gateway
 *   wyvern.gw.<gateway>.direct anyone -> one gateway: messages for one of its sessions
 *                              (a session taken over elsewhere)
 *   wyvern.gw.<gateway>.whisper  gateway -> the gateway holding a whisper's target (the
 *                              registry's char.<name>): request/reply
 *   wyvern.host.<host>.who     gateway -> one zone host: the players in its zones
 *                              (request/reply; a gateway asks every live host)
 *   wyvern.zone.<zone>.border  the host of a neighbour zone -> the zone's host: the
 *                              neighbour's border strip, one message per tick
 *   wyvern.zone.<zone>.handoff the host of a neighbour zone -> the zone's host: a player
 *                              walked across (request/reply: taken or refused)
 */

declare const routeOf: unique symbol;

export const Route = {
  ZoneInput: 'zoneInput',
  GatewayTick: 'gatewayTick',
  GatewayDirect: 'gatewayDirect',
  GatewayWhisper: 'gatewayWhisper',
  HostWho: 'hostWho',
  ZoneBorder: 'zoneBorder',
  ZoneHandoff: 'zoneHandoff',
} as const;
export type Route = (typeof Route)[keyof typeof Route];

/** A concrete subject on one route (no wildcards): what publish and request take. */
export type Subject<R extends Route = Route> = string & { readonly [routeOf]: R; readonly pattern?: never };
/** A subject with wildcards over one route: what subscribe also takes. */
export type SubjectPattern<R extends Route = Route> = string & {
  readonly [routeOf]: R;
  readonly pattern: true;
};

const ROOT = 'wyvern';
/** One subject token: no dots, spaces or wildcards, short enough to read in a log. */
const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

export class SubjectError extends Error {
  readonly code = 'ERR_BAD_SUBJECT_TOKEN';
  constructor(what: string, value: string) {
    super(`${what} ${JSON.stringify(value)} is not a subject token (1-64 of A-Z a-z 0-9 _ -)`);
    this.name = 'SubjectError';
  }
}

/** Checks an id that goes into a subject or a registry key; throws SubjectError if it cannot. */
export function checkToken(what: string, value: string): string {
  if (!TOKEN.test(value)) throw new SubjectError(what, value);
  return value;
}

/** The id a zone goes by on the bus and in the registry: its name, lower-cased ("Greenvale" -> "greenvale"). */
export function zoneId(name: string): string {
  return checkToken('zone', name.toLowerCase());
}

export const Subjects = {
  zoneInput: (zone: string) => `${ROOT}.zone.${checkToken('zone', zone)}.in` as Subject<'zoneInput'>,
  zoneBorder: (zone: string) => `${ROOT}.zone.${checkToken('zone', zone)}.border` as Subject<'zoneBorder'>,
  zoneHandoff: (zone: string) => `${ROOT}.zone.${checkToken('zone', zone)}.handoff` as Subject<'zoneHandoff'>,
  gatewayTick: (gateway: string) =>
    `${ROOT}.gw.${checkToken('gateway', gateway)}.tick` as Subject<'gatewayTick'>,
  gatewayDirect: (gateway: string) =>
    `${ROOT}.gw.${checkToken('gateway', gateway)}.direct` as Subject<'gatewayDirect'>,
  gatewayWhisper: (gateway: string) =>
    `${ROOT}.gw.${checkToken('gateway', gateway)}.whisper` as Subject<'gatewayWhisper'>,
  hostWho: (host: string) => `${ROOT}.host.${checkToken('zone host', host)}.who` as Subject<'hostWho'>,

  /** Every zone's inputs (a monitor, or a host that runs every zone). */
  everyZoneInput: `${ROOT}.zone.*.in` as SubjectPattern<'zoneInput'>,
} as const;
