/**
 * Saving: a player's state is stored when the world says so (logout, disconnect), every
 * autosave interval for everyone in the world (one batched write), and at shutdown. A
 * character that is leaving cannot enter again until its save has been written, so a quick
 * reconnect never loads a stale row: the join waits here (waitUntilSaved), then reads the
 * row afresh.
 */
import type { Logger } from '../log.js';
import { storeSaveSeconds } from '../metrics/index.js';
import type { CharacterRecord, CharacterSave, CharacterSaver } from '../store/index.js';
import { savedCharacter, type SavedCharacter, type WorldEvent } from '../world/index.js';
import type { HostedZones } from './hosted-zones.js';
import type { ZoneRunner } from './zone-runner.js';

/** What saving reads of a seat (the seat book's Seat). */
export interface SavedSeat {
  readonly host: ZoneRunner;
  readonly playerId?: number;
  readonly spells: number[];
}

export interface SavingOptions {
  readonly saver: Pick<CharacterSaver, 'markDirty' | 'flush' | 'stop'>;
  readonly log: Logger;
  readonly autosaveMs: number;
}

/** Where saving finds the players: the zones, and the seats by the world's session id. */
export interface SavingSeats {
  values(): Iterable<SavedSeat>;
  seatOf(worldSession: number, playerId: number): SavedSeat | undefined;
}

export class Saving {
  /** Characters whose leave is being saved; entering again waits for it. */
  private readonly leaving = new Map<number, Promise<unknown>>();
  /** Characters that left since the last flush: they may not re-enter before it is written. */
  private leavingIds: number[] = [];
  private saveRequested = false;
  private autosaveTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly opts: SavingOptions,
    private readonly hosted: Pick<HostedZones, 'runAll' | 'isFenced'>,
    private readonly seats: SavingSeats,
  ) {}

  /** Autosaves everyone every autosaveMs from now on. */
  start(): void {
    this.autosaveTimer = setInterval(() => this.saveEveryone(), this.opts.autosaveMs);
    this.autosaveTimer.unref();
  }

  /** Stops autosaving and writes every player's state. */
  async stop(): Promise<void> {
    clearInterval(this.autosaveTimer);
    this.autosaveTimer = undefined;
    this.markEveryoneDirty();
    await this.opts.saver.stop();
  }

  /** A leave's save (logout, disconnect) to write at the end of this tick. */
  onSave(host: ZoneRunner, e: Extract<WorldEvent, { type: 'save' }>): void {
    const seat = this.seats.seatOf(e.sessionId, e.playerId);
    const spells = seat?.spells ?? host.world.players.get(e.playerId)?.spells ?? [];
    this.opts.saver.markDirty(toSave(e.character, host.name, spells));
    this.leavingIds.push(e.character.id);
    this.saveRequested = true;
  }

  /** Writes the tick's leaves, if it had any (at the end of a tick). */
  flushRequested(): void {
    if (this.saveRequested) {
      this.saveRequested = false;
      this.flushSaves();
    }
  }

  /** Marks everyone in the world dirty and writes them in one batch. */
  saveEveryone(): Promise<unknown> {
    this.markEveryoneDirty();
    return this.flushSaves();
  }

  async waitUntilSaved(characterId: number): Promise<void> {
    for (let pending = this.leaving.get(characterId); pending; pending = this.leaving.get(characterId)) {
      await pending.catch(() => undefined);
      if (this.leaving.get(characterId) === pending) this.leaving.delete(characterId);
    }
  }

  private flushSaves(): Promise<unknown> {
    const ids = this.leavingIds;
    this.leavingIds = [];
    const run = this.opts.saver.flush().then(
      (report) => {
        if (report.count > 0) storeSaveSeconds.observe(report.ms / 1000);
        return report;
      },
      (err: unknown) => {
        this.opts.log.error({ err }, 'saving characters failed; will retry');
      },
    );
    for (const id of ids) this.leaving.set(id, run);
    // Forget the wait once written, unless a newer save of the same character replaced it.
    void run.then(() => {
      for (const id of ids) if (this.leaving.get(id) === run) this.leaving.delete(id);
    });
    return run;
  }

  private markEveryoneDirty(): void {
    // Asked afresh: a process just woken from a stall may autosave before its next tick.
    this.hosted.runAll();
    for (const seat of this.seats.values()) {
      if (seat.playerId === undefined || this.hosted.isFenced(seat.host.name)) continue;
      const p = seat.host.world.players.get(seat.playerId);
      if (!p) continue;
      const saved = savedCharacter(seat.host.world, p);
      this.opts.saver.markDirty(toSave(saved, seat.host.name, seat.spells));
    }
  }
}

/** A stored character as the world takes it. */
export function toSaved(record: CharacterRecord): SavedCharacter {
  return {
    id: record.id,
    name: record.name,
    level: record.level,
    appearance: record.appearance,
    zone: record.zone,
    x: record.x,
    y: record.y,
    facing: record.facing,
    health: record.health,
    mana: record.mana,
    kills: record.kills,
    experience: record.experience,
  };
}

/** A world player's persistent state as the store writes it. */
export function toSave(c: SavedCharacter, zone: string, spells: number[]): CharacterSave {
  return {
    id: c.id,
    zone: c.zone ?? zone,
    x: c.x ?? 0,
    y: c.y ?? 0,
    facing: c.facing ?? 0,
    level: c.level,
    health: c.health ?? 0,
    mana: c.mana ?? 0,
    spells,
    kills: c.kills,
    experience: c.experience ?? 0,
  };
}
