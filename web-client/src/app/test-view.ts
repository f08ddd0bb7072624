/**
 * window.__wyvern: a read-only view of what the page shows, for end-to-end tests and for
 * anyone curious in the console. Every read is taken when asked; positions are rounded to
 * hundredths of a unit.
 */
import type { NetStats } from '../state/net-stats.js';
import { noticeText } from '../state/notices.js';
import type { ClientWorld, EntityState } from '../state/world.js';
import type { WorldRenderer } from '../render/renderer.js';
import type { Sound } from '../ui/sound.js';
import type { Screen } from './screens.js';

export interface Live {
  world: ClientWorld;
  stats: NetStats;
  renderer: WorldRenderer;
  screen: Screen;
  sound: Sound;
}

const round = (n: number) => Math.round(n * 100) / 100;

export function exposeForTests(live: () => Live): void {
  const view = {};
  Object.defineProperties(view, Object.getOwnPropertyDescriptors(worldReads(live)));
  Object.defineProperties(view, Object.getOwnPropertyDescriptors(pageReads(live)));
  Object.defineProperty(window, '__wyvern', {
    value: Object.freeze(view),
    configurable: false,
    writable: false,
  });
}

/** What the world holds: the own character, the others, targets, casts, chat, notices. */
function worldReads(live: () => Live) {
  return {
    get screen() {
      return live().screen;
    },
    get selfId() {
      return live().world.self?.id;
    },
    get self() {
      return selfRead(live().world, performance.now());
    },
    /** Level-up bursts drawn now (the own character's and others'). */
    get levelUps() {
      return live().world.levelUps.map((e) => ({ entityId: e.entityId, level: e.level }));
    },
    get entities() {
      const { world } = live();
      const now = performance.now();
      return [...world.entities.values()].map((e) => entityRead(world, e, now));
    },
    get targetId() {
      return live().world.targetId;
    },
    get castBars() {
      const now = performance.now();
      return [...live().world.casts.values()].map((c) => ({
        casterId: c.casterId,
        spellId: c.spellId,
        targetId: c.targetId,
        progress: c.castTime > 0 ? Math.min(1, (now - c.startedAt) / c.castTime) : 1,
      }));
    },
    get combatTexts() {
      return live().world.combatTexts.map((c) => ({
        targetId: c.targetId,
        amount: c.amount,
        kind: c.kind,
        crit: c.crit,
      }));
    },
    get chat() {
      return live().world.chat.map((c) => ({ channel: c.channel, from: c.from, to: c.to, text: c.text }));
    },
    get notices() {
      return live().world.notices.map(noticeText);
    },
    /** The own character's newest corrections (PositionCorrection), oldest first. */
    get corrections() {
      return live().world.corrections.map((c) => ({ reason: c.reason, x: round(c.x), y: round(c.y) }));
    },
    get respawnIn() {
      return live().world.respawnIn(performance.now());
    },
  };
}

/** What the page around the world shows: sound, the canvas and its layout, the figures. */
function pageReads(live: () => Live) {
  return {
    /** Sound cues played, oldest first (the newest 50). */
    get sounds() {
      return [...live().sound.played];
    },
    get muted() {
      return live().sound.muted;
    },
    /** The part of the canvas the HUD leaves clear, and the camera's zoom. */
    get clearBox() {
      return live().renderer.clearBox;
    },
    get zoom() {
      return live().renderer.zoom;
    },
    get stats() {
      return live().stats.snapshot(performance.now());
    },
    get framesRendered() {
      return live().renderer.framesRendered;
    },
    get renderer() {
      return live().renderer.rendererName;
    },
    /** Where entity `id` is drawn, in canvas pixels (CSS pixels of the page). */
    screenPosition(id: number) {
      const { world, renderer } = live();
      const e = world.entities.get(id);
      if (!e) return undefined;
      const p = world.drawnPosition(e, performance.now());
      const s = renderer.toScreen(p.x, p.y);
      return { x: round(s.x), y: round(s.y) };
    },
    get labelBoxes() {
      return live().renderer.labelBoxes();
    },
    get minimapBox() {
      return live().renderer.minimapBox;
    },
  };
}

function selfRead(world: ClientWorld, now: number) {
  const me = world.selfEntity();
  if (!me) return undefined;
  const p = world.drawnPosition(me, now);
  return {
    id: me.id,
    name: me.name,
    x: round(p.x),
    y: round(p.y),
    health: me.health,
    maxHealth: me.maxHealth,
    alive: me.alive,
    level: me.level,
    experience: world.stats?.experience ?? 0,
    experienceNeeded: world.stats?.experienceNeeded ?? 0,
  };
}

function entityRead(world: ClientWorld, e: EntityState, now: number) {
  const p = world.drawnPosition(e, now);
  const raw = world.serverPosition(e, now);
  return {
    id: e.id,
    kind: e.kind,
    name: e.name,
    level: e.level,
    x: round(p.x),
    y: round(p.y),
    serverX: round(raw.x),
    serverY: round(raw.y),
    health: e.health,
    maxHealth: e.maxHealth,
    alive: e.alive,
  };
}
