/**
 * The lab page's side of the server's lab feed (server/lab/feed.ts): asks /lab/feed for the
 * area around a character again as soon as each answer comes, so it gets every tick once,
 * and keeps the newest snapshot and a short trail of each entity's true positions.
 */
import type { LabSnapshot as FeedSnapshot } from '../../../shared/protocol/lab-feed.js';

/** One entity as the server holds it, and one answer of the feed. */
export type {
  LabEntity as FeedEntity,
  LabSnapshot as FeedSnapshot,
} from '../../../shared/protocol/lab-feed.js';

/** How long each entity's trail of true positions is kept (ms of page time). */
const TRAIL_MS = 3000;
/** The area asked for around the character (units; within LAB_FEED_MAX_RADIUS). */
export const FEED_RADIUS = 450;

export type Fetch = (url: string) => Promise<{ status: number; text(): Promise<string> }>;

export class LabFeedClient {
  snapshot: FeedSnapshot | undefined;
  /** Page time the newest snapshot came. */
  receivedAt = 0;
  /** Why there is no feed, in words for a person; undefined while it flows. */
  error: string | undefined;
  /** Snapshots received. */
  count = 0;
  readonly trails = new Map<number, { x: number; y: number; at: number }[]>();
  /** Called with every snapshot, in order (the truth record takes each tick's). */
  onSnapshot: ((snap: FeedSnapshot) => void) | undefined;
  private stopped = false;

  constructor(
    /** The character to follow (undefined until it is in the world). */
    private readonly name: () => string | undefined,
    private readonly fetchText: Fetch = (url) => fetch(url),
    private readonly now: () => number = () => performance.now(),
  ) {}

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
  }

  private async loop(): Promise<void> {
    let after = -1;
    while (!this.stopped) {
      const name = this.name();
      if (!name) {
        await sleep(250);
        continue;
      }
      try {
        const res = await this.fetchText(
          `/lab/feed?name=${encodeURIComponent(name)}&radius=${FEED_RADIUS}&after=${after}`,
        );
        const body = await res.text();
        if (res.status !== 200) {
          this.error =
            res.status === 404 && body.includes('LAB_FEED')
              ? 'The server has its lab feed off (LAB_FEED=off): no server view.'
              : `The lab feed answered ${res.status}: ${body.slice(0, 160)}`;
          await sleep(1000);
          continue;
        }
        const snap = JSON.parse(body) as FeedSnapshot;
        after = snap.tick;
        this.accept(snap);
      } catch (err) {
        this.error = `No lab feed: ${err instanceof Error ? err.message : String(err)}`;
        await sleep(1000);
      }
    }
  }

  /** Takes one snapshot (the loop's, or a test's). */
  accept(snap: FeedSnapshot): void {
    const at = this.now();
    this.snapshot = snap;
    this.receivedAt = at;
    this.error = undefined;
    this.count++;
    const seen = new Set<number>();
    for (const e of snap.entities) {
      seen.add(e.id);
      let trail = this.trails.get(e.id);
      if (!trail) this.trails.set(e.id, (trail = []));
      trail.push({ x: e.x, y: e.y, at });
      while (trail.length > 0 && (trail[0] as { at: number }).at < at - TRAIL_MS) trail.shift();
    }
    for (const id of this.trails.keys()) if (!seen.has(id)) this.trails.delete(id);
    this.onSnapshot?.(snap);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((ok) => setTimeout(ok, ms));
}
