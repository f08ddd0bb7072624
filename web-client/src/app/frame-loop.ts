/**
 * One animation frame of the page, in order: the held keys' direction through prediction to
 * movement states (the shared send policy decides, the SDK numbers and sends one MoveInput
 * sequence), the world's pruning, the selected target kept with the saved session, the
 * pings, the netcode figures, the draw, then the HUD (every HUD_INTERVAL_MS) and the netcode
 * panel (every PANEL_INTERVAL_MS), which need not follow every frame.
 */
import type { WyvernClient } from '../../../shared/client/client.js';
import { PingPace, type Connection } from '../net/connection.js';
import type { LinkLabTransport } from '../net/link-lab-transport.js';
import type { NetStats, NetStatsSnapshot } from '../state/net-stats.js';
import type { ClientWorld } from '../state/world.js';
import type { Box, WorldRenderer } from '../render/renderer.js';

export const HUD_INTERVAL_MS = 100;
export const PANEL_INTERVAL_MS = 250;
/** Longest step a frame advances prediction by (a tab in the background sends no frames). */
const MAX_FRAME_MS = 100;

export interface FrameSide {
  world: ClientWorld;
  stats: NetStats;
  renderer: Pick<WorldRenderer, 'draw' | 'rendererName' | 'hudBoxes'>;
  hud: { update(world: ClientWorld, now: number): void };
  panel: { update(s: NetStatsSnapshot, extra: Record<string, string>): void };
  inWorld(): boolean;
  /** The client the page plays through (the server's or the demo's). */
  client(): WyvernClient | undefined;
  /** The server connection, if any (its client may have just closed). */
  connection(): Connection | undefined;
  /** The link lab the page's bytes go through now. */
  lab(): LinkLabTransport | undefined;
  /** Where the held keys walk (undefined: not walking by keys now). */
  direction(): { x: number; y: number } | undefined;
  /** Keeps the selected target with the saved session. */
  rememberTarget(targetId: number | undefined): void;
  /** The round trip when there is no server to measure it (the demo's link lab). */
  assumedRtt(): number | undefined;
  /** The page's panels over the canvas, for the camera to frame the fight clear of them. */
  coveringBoxes(): Box[];
}

export class FrameLoop {
  private last: number;
  private hudAt = 0;
  private panelAt = 0;
  private readonly pings = new PingPace();

  constructor(
    private readonly side: FrameSide,
    now: number,
  ) {
    this.last = now;
  }

  frame(now: number): void {
    const { side } = this;
    const dt = Math.min(MAX_FRAME_MS, now - this.last);
    this.last = now;
    const client = side.client();
    if (side.inWorld() && client) {
      side.world.frame(side.direction(), dt, client.clock.now(), (s) =>
        client.sendMove(s.x, s.y, s.facing, s.moving, s.speed),
      );
    }
    side.world.prune(now);
    const connection = side.connection();
    if (side.inWorld() && connection) side.rememberTarget(side.world.targetId);
    if (connection) this.pings.update(connection.client);
    this.measure(connection);
    side.renderer.draw(side.world, now);
    if (side.inWorld()) this.updatePanels(now);
  }

  private measure(connection: Connection | undefined): void {
    const { world, stats } = this.side;
    const self = world.self;
    stats.entitiesInView = Math.max(0, world.entities.size - (self ? 1 : 0));
    stats.interpolationDelayMs = world.toggles.interpolation ? world.clock.delayMs : 0;
    stats.jitterMs = world.clock.jitterMs;
    stats.correctedMoves = self?.predictor.corrections ?? 0;
    stats.pendingMoves = self?.predictor.pending.length ?? 0;
    stats.rttMs = connection?.client.clock.lastRtt ?? this.side.assumedRtt();
  }

  private updatePanels(now: number): void {
    const { side } = this;
    if (now - this.hudAt >= HUD_INTERVAL_MS) {
      this.hudAt = now;
      side.hud.update(side.world, now);
      side.renderer.hudBoxes = side.coveringBoxes();
    }
    if (now - this.panelAt >= PANEL_INTERVAL_MS) {
      this.panelAt = now;
      const lab = side.lab();
      side.panel.update(side.stats.snapshot(now), {
        renderer: side.renderer.rendererName,
        link: lab ? `${lab.up.size + lab.down.size} held · ${lab.up.lost + lab.down.lost} resent` : '–',
      });
    }
  }
}
