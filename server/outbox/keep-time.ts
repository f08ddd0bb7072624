/**
 * A client that sees another player gets a WorldUpdate every tick, empty when nothing in its
 * view changed: its render clock then knows that every state up to this tick has come, so
 * it draws players up to now and holds them there while its own link stalls, instead of
 * walking one on past a stop (or standing one still past a start) that is still on its way.
 * A player's states come only when its course changes (or once a second), so without this
 * a quiet tick and a stalled link look the same. A client that sees no other player gets
 * nothing: mob paths say where they go ahead of time.
 */
import type { World } from '../world/index.js';
import type { WorldUpdateFrames } from './frames.js';
import type { StepClock } from './messages.js';
import type { Recipients } from './recipient.js';

export class KeepTime {
  /** Per cell, the stamp of the tick keep last found a player there, and how many (up to 2). */
  private stampedAt = new Int32Array(0);
  private playerCount = new Uint8Array(0);
  /** Counts the stamps (not the tick: a tick number may come twice, from another world). */
  private stampNow = 0;

  constructor(
    private readonly clock: StepClock,
    private readonly recipients: Recipients,
    private readonly frames: WorldUpdateFrames,
  ) {}

  /** Opens a WorldUpdate for each recipient not yet written this tick that sees another player. */
  keep(world: World): void {
    if (world.players.size + world.ghosts.size < 2) return;
    this.stampPlayers(world);
    const now = this.stampNow;
    const stampedAt = this.stampedAt;
    const count = this.playerCount;
    for (const r of this.recipients.byId.values()) {
      if ((r.tick === this.clock.tick && r.opened) || r.conn.closed) continue;
      const own = r.player.cell;
      for (const cell of r.player.viewCells) {
        // Another player there: two or more, or one that is not the recipient itself.
        if (stampedAt[cell] !== now || (count[cell] === 1 && cell === own)) continue;
        // Not to one that is behind: its motion was skipped, so all is not heard.
        const t = this.recipients.touch(r.player.id);
        if (t && t.frameStart < 0 && !t.behind && !t.resync) this.frames.open(t);
        break;
      }
    }
  }

  /**
   * Stamps each cell that holds a player (or a neighbour's player shown here as a ghost) anew
   * this tick, and counts them there up to 2 (a ghost counts as 2: it is never the recipient),
   * so keep asks each view cell one lookup instead of searching its lists.
   */
  private stampPlayers(world: World): void {
    const cells = world.playerGrid.cells.length;
    if (this.stampedAt.length !== cells || this.stampNow === 0x7fffffff) {
      this.stampedAt = new Int32Array(cells);
      this.playerCount = new Uint8Array(cells);
      this.stampNow = 0;
    }
    this.stampNow++;
    for (const p of world.players.values()) this.stamp(p.cell, 1);
    for (const g of world.ghosts.values()) if (g.entity.kind === 'player') this.stamp(g.entity.cell, 2);
  }

  private stamp(cell: number, n: number): void {
    if (cell < 0) return;
    if (this.stampedAt[cell] !== this.stampNow) {
      this.stampedAt[cell] = this.stampNow;
      this.playerCount[cell] = 0;
    }
    this.playerCount[cell] = Math.min(2, this.playerCount[cell]! + n);
  }
}
