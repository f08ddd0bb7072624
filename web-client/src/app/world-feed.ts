/**
 * Where every packet the page gets goes, in order: the netcode figures (a WorldUpdate's tick),
 * the world, the sound cues; and, after a reload, the target selected before it, selected
 * again once the resumed view has it.
 */
import type { NetStats } from '../state/net-stats.js';
import type { ClientWorld, Incoming } from '../state/world.js';

export class WorldFeed {
  /** The target selected before a reload: selected again once it is in view. */
  private pendingTarget: number | undefined;

  constructor(
    private readonly world: ClientWorld,
    private readonly stats: NetStats,
    private readonly cue: (p: Incoming) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  readonly apply = (p: Incoming): void => {
    if (p.name === 'WorldUpdate') this.stats.recordTick(p.value.tick, p.value.time);
    this.world.apply(p, this.now());
    this.cue(p);
    if (p.name === 'WorldUpdate' && this.pendingTarget !== undefined) {
      // The first WorldUpdate after a resume spawns everything in view.
      if (this.world.entities.has(this.pendingTarget)) this.world.targetId = this.pendingTarget;
      this.pendingTarget = undefined;
    }
  };

  /** Selects `id` at the next WorldUpdate if it is in view then (undefined: nothing to restore). */
  restoreTarget(id: number | undefined): void {
    this.pendingTarget = id;
  }
}
