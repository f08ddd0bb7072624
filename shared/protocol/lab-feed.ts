/**
 * The netcode lab's feed: the JSON the server's /lab/feed answers with (server/lab/feed.ts)
 * and the lab page reads (web-client/src/net/lab-feed.ts). Plain HTTP beside the game, not
 * part of the binary protocol.
 */

/** The widest area around a character the feed answers for (units). */
export const LAB_FEED_MAX_RADIUS = 600;

/** One entity as the server holds it. */
export interface LabEntity {
  id: number;
  kind: 'player' | 'mob';
  name: string;
  x: number;
  y: number;
  /**
   * Server ms at which the entity was at x, y: a player's newest accepted input's own time
   * on the server's timeline (what its motion state is dated), the tick's time for a mob.
   */
  at: number;
  /**
   * How long the server holds this player's inputs beyond its least delayed one's, so they
   * take effect with the spacing they were made at (server/world/timeline.ts): what watchers
   * pay, in ms of delay, for its link's jitter and stalls. 0 for a mob.
   */
  held: number;
  facing: number;
  moving: boolean;
  alive: boolean;
  speed: number;
}

/** Everything within `radius` of a character after one tick. */
export interface LabSnapshot {
  tick: number;
  time: number;
  zone: string;
  center: { x: number; y: number };
  radius: number;
  entities: LabEntity[];
}
