/**
 * Runs one zone: holds the inputs the gateways sent it (through the realm), steps the world at each
 * tick and hands the step's domain events to their subscribers, in this order: session
 * bindings (a new player's session before its first packets), the replication writer
 * (the outbox: records and packets), metrics, then saves and departures (after delivery, so
 * a leaving player still gets its last packets). The world itself stays a pure function of
 * (state, inputs, now, rng); the clock and the outbox are here, the sockets at the gateway.
 */
import {
  inputHoldSeconds,
  moveInputDelaySeconds,
  replicationBytes,
  replicationRecords,
} from '../metrics/index.js';
import { countWorldEvents } from '../metrics/world-events.js';
import { Outbox, type OutboxSink } from '../outbox/outbox.js';
import { step, type Rng, type World, type WorldEvent, type WorldInput } from '../world/index.js';

export interface ZoneRunnerHooks {
  /** A player entity now exists for this session (bind it, or send it away if gone). `sessionId` is the world's. */
  joined(zone: ZoneRunner, sessionId: number, playerId: number): void;
  /** A player's state to store (logout, disconnect). */
  save(zone: ZoneRunner, event: Extract<WorldEvent, { type: 'save' }>): void;
  /** The player entity is gone. */
  leftWorld(zone: ZoneRunner, event: Extract<WorldEvent, { type: 'leftWorld' }>): void;
  /** The player walked into the zone beside: it is that zone's to carry on (a ghost here). */
  handedOff(zone: ZoneRunner, event: Extract<WorldEvent, { type: 'handedOff' }>): void;
}

/** Every how many MoveInputs one's delay is observed. */
const DELAY_SAMPLE = 16;

export class ZoneRunner {
  private inputs: WorldInput[] = [];
  private moves = 0;
  /** When the players' input holds were last sampled. */
  private holdsAt = -Infinity;
  /** Player entity id -> where its bytes go. */
  private readonly sinks = new Map<number, OutboxSink>();
  readonly outbox: Outbox;
  /** The last tick's world step and its delivery to subscribers, in ms. */
  readonly timing = { stepMs: 0, deliverMs: 0 };

  constructor(
    readonly world: World,
    private readonly rng: Rng,
    private readonly hooks: ZoneRunnerHooks,
  ) {
    this.outbox = new Outbox();
  }

  /** From now on the player's packets go to `sink`. */
  bind(playerId: number, sink: OutboxSink): void {
    const player = this.world.players.get(playerId);
    if (!player) return;
    this.sinks.set(playerId, sink);
    this.outbox.add(player, sink);
  }

  unbind(playerId: number): void {
    this.sinks.delete(playerId);
    this.outbox.remove(playerId);
  }

  /** Where the player's bytes go, while it has a connection. */
  sinkOf(playerId: number): OutboxSink | undefined {
    return this.sinks.get(playerId);
  }

  get name(): string {
    return this.world.zone.name;
  }

  /** Queues an input for the next tick; inputs are applied in arrival order, never skipped. */
  queue(input: WorldInput): void {
    this.inputs.push(input);
  }

  get queued(): number {
    return this.inputs.length;
  }

  /**
   * One fixed tick at server time `now` (ms), which was due at `dueAt` (earlier when this
   * host's loop was busy: a long tick, a collection, a burst of logins).
   */
  tick(now: number, dueAt = now): void {
    // Whole ms: WorldUpdate heads carry time as ms counted on from EnterWorld's.
    now = Math.round(now);
    const inputs = this.inputs;
    this.inputs = [];
    for (const input of inputs) {
      // One move in DELAY_SAMPLE: an observation costs more than applying the move.
      if (input.type === 'move' && input.receivedAt !== undefined && ++this.moves % DELAY_SAMPLE === 0) {
        moveInputDelaySeconds.observe(Math.max(0, now - input.receivedAt) / 1000);
      }
      // A move read after this tick was due was held up by this host, not by its link: the
      // read waited for the same busy loop the tick did (server/world/timeline.ts).
      if (input.type === 'move' && input.receivedAt !== undefined && input.receivedAt > dueAt) {
        input.receivedAt = dueAt;
      }
    }
    const started = performance.now();
    const { events } = step(this.world, inputs, now, this.rng);
    const stepped = performance.now();
    const after: WorldEvent[] = [];
    for (const e of events) {
      if (e.type === 'joined') this.hooks.joined(this, e.sessionId, e.playerId);
      else if (e.type === 'save' || e.type === 'leftWorld' || e.type === 'handedOff') after.push(e);
    }
    this.outbox.deliver(events, this.world, this.world.tick, now);
    const stats = this.outbox.stats;
    replicationRecords.inc(stats.records);
    replicationBytes.inc({ stage: 'encoded' }, stats.encoded);
    replicationBytes.inc({ stage: 'written' }, stats.queued);
    if (stats.dropped > 0) replicationBytes.inc({ stage: 'skipped' }, stats.dropped);
    countWorldEvents(events);
    for (const e of after) {
      if (e.type === 'save') this.hooks.save(this, e);
      else if (e.type === 'leftWorld') this.hooks.leftWorld(this, e);
      else if (e.type === 'handedOff') this.hooks.handedOff(this, e);
    }
    if (now - this.holdsAt >= 1000) {
      this.holdsAt = now;
      for (const p of this.world.players.values()) inputHoldSeconds.observe(p.timeline.held / 1000);
    }
    this.timing.stepMs = stepped - started;
    this.timing.deliverMs = performance.now() - stepped;
  }
}
