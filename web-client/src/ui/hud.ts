/**
 * The in-world HUD (DOM over the canvas): own and target frames, the action bar with spells
 * on keys 1-5 (cooldowns and mana; the slot pointed at or last used is the one whose range
 * the world rings), the own cast bar, notices (repeats merged), the chat box (timestamped,
 * scrollable history), and a death screen counting down to the respawn.
 */
import { MAX_CHAT_BYTES } from '../../../shared/protocol/chat.js';
import { chatBytesLeft, parseChat, type ChatCommand } from '../../../shared/client/chat-command.js';
import { CAST_BLOCK_TEXT, castBlock } from '../state/can-cast.js';
import { chatSpeaker, chatTime, type ChatLine } from '../state/chat-log.js';
import { noticeText } from '../state/notices.js';
import type { ClientWorld } from '../state/world.js';
import { h, fill } from './dom.js';

export interface HudActions {
  cast(slot: number): void;
  /** A chat line as the shared parser read it (never an error: the box keeps those to be fixed). */
  chat(command: ChatCommand): void;
  /** Who `/r` answers. */
  replyTo(): string | undefined;
  /** The pointer rests on a slot (undefined: left the bar): the world rings that spell's range. */
  preview(slot: number | undefined): void;
}

/** A new character knows five spells: every one gets a key. */
export const ACTION_SLOTS = 5;

/** The chat box shows how many bytes are left once fewer than this are. */
const CHAT_BYTES_WARNING = 40;

export class Hud {
  readonly root: HTMLElement;
  readonly chatInput: HTMLInputElement;
  private readonly self = h('div.frame.self-frame');
  private readonly target = h('div.frame.target-frame');
  private readonly bar = h('div.action-bar');
  private readonly castBar = h('div.cast-bar');
  private readonly notices = h('div.notices');
  private readonly chatLog = h('div.chat-log');
  private readonly chatHint = h('div.chat-hint', { hidden: true });
  private readonly death = h('div.death-overlay', { hidden: true, role: 'alert' });
  private readonly slots: {
    root: HTMLButtonElement;
    name: HTMLElement;
    cd: HTMLElement;
    cost: HTMLElement;
  }[] = [];
  private lastChat: unknown;
  private noticesShown = '';

  constructor(private readonly actions: HudActions) {
    // No maxLength: the limit is in bytes, and a cut line would lose text without a word.
    this.chatInput = h('input.chat-input', {
      name: 'chat',
      placeholder: 'Enter to chat · /z · /w name · /r',
    });
    this.chatInput.addEventListener('input', () => this.showBytesLeft());
    this.chatInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        const line = this.chatInput.value;
        const cmd = parseChat(line, { replyTo: this.actions.replyTo() });
        if (cmd.kind === 'error') {
          // Kept in the box to be fixed, not thrown away.
          this.chatHint.textContent = cmd.message;
          this.chatHint.hidden = false;
          this.chatHint.classList.add('error');
        } else {
          this.chatInput.value = '';
          this.showBytesLeft();
          this.chatInput.blur();
          if (cmd.kind !== 'none') this.actions.chat(cmd);
        }
      } else if (e.key === 'Escape') {
        this.chatInput.blur();
      }
      e.stopPropagation();
    });
    for (let i = 0; i < ACTION_SLOTS; i++) {
      const name = h('span.spell-name');
      const cd = h('span.cooldown');
      const cost = h('span.cost');
      const root = h(
        'button.slot',
        { type: 'button', title: '', onclick: () => this.actions.cast(i) },
        h('span.key', {}, String(i + 1)),
        name,
        cost,
        cd,
      );
      root.addEventListener('pointerenter', () => this.actions.preview(i));
      root.addEventListener('pointerleave', () => this.actions.preview(undefined));
      this.slots.push({ root, name, cd, cost });
      this.bar.append(root);
    }
    this.root = h(
      'div.hud',
      {},
      this.self,
      this.target,
      this.notices,
      h('div.bottom', {}, this.castBar, this.bar),
      h('div.chat', {}, this.chatLog, this.chatHint, this.chatInput),
      this.death,
    );
  }

  private showBytesLeft(): void {
    const left = chatBytesLeft(this.chatInput.value);
    this.chatHint.classList.toggle('error', left < 0);
    this.chatHint.hidden = left >= CHAT_BYTES_WARNING;
    this.chatHint.textContent =
      left < 0
        ? `${-left} bytes too long (at most ${MAX_CHAT_BYTES}; an accented letter counts 2)`
        : `${left} bytes left`;
  }

  update(world: ClientWorld, now: number): void {
    const me = world.selfEntity();
    const self = world.self;
    const stats = world.stats;
    if (me && self) {
      fill(
        this.self,
        h('div.title', {}, `${me.name}`, h('span.level', {}, ` level ${me.level}`)),
        meter('health', me.health, me.maxHealth),
        meter('mana', stats?.mana ?? 0, stats?.maxMana ?? 0),
        experienceBar(stats?.experience ?? 0, stats?.experienceNeeded ?? 0),
        h('div.small', {}, `kills ${stats?.kills ?? 0}${me.alive ? '' : ' · dead'}`),
      );
    }
    const respawnIn = world.respawnIn(now);
    this.death.hidden = respawnIn === undefined;
    if (respawnIn !== undefined) {
      const seconds = Math.ceil(respawnIn / 1000);
      fill(
        this.death,
        h('div.title', {}, 'You died'),
        h(
          'div.countdown',
          {},
          seconds > 0
            ? `You return to life at the graveyard in ${seconds} s`
            : 'Returning to life at the graveyard…',
        ),
      );
    }
    const t = world.targetId !== undefined ? world.entities.get(world.targetId) : undefined;
    this.target.hidden = !t;
    if (t) {
      fill(
        this.target,
        h('div.title', {}, t.name, h('span.level', {}, ` ${t.level}${t.kind === 'mob' ? '' : ' · player'}`)),
        meter('health', t.health, t.maxHealth),
        h('div.small', {}, t.alive ? '' : 'dead'),
      );
    }
    for (let i = 0; i < ACTION_SLOTS; i++) {
      const slot = this.slots[i];
      if (!slot) continue;
      const spell = world.spells[i];
      slot.root.disabled = !spell;
      slot.name.textContent = spell?.name ?? '';
      slot.cost.textContent = spell ? `${spell.manaCost}` : '';
      const left = spell ? world.cooldownLeft(spell.id, now) : 0;
      slot.cd.textContent = left > 0 ? (left / 1000).toFixed(1) : '';
      slot.root.classList.toggle('cooling', left > 0);
      slot.root.classList.toggle('no-mana', !!spell && !!stats && stats.mana < spell.manaCost);
      slot.root.classList.toggle('selected', i === world.selectedSlot);
      const blocked = spell && me && stats ? this.castBlock(world, spell, left, now) : undefined;
      slot.root.classList.toggle('unusable', blocked !== undefined);
      if (blocked) slot.root.dataset['blocked'] = blocked;
      else delete slot.root.dataset['blocked'];
      slot.root.title = spell ? (blocked ? `${spell.name}: ${CAST_BLOCK_TEXT[blocked]}` : spell.name) : '';
      slot.root.style.setProperty(
        '--spell',
        spell ? `#${spell.colour.toString(16).padStart(6, '0')}` : '#444',
      );
    }
    const cast = self ? world.casts.get(self.id) : undefined;
    this.castBar.hidden = !cast;
    if (cast) {
      const f = cast.castTime > 0 ? Math.min(1, (now - cast.startedAt) / cast.castTime) : 1;
      fill(
        this.castBar,
        h('div.fill', { style: { width: `${(f * 100).toFixed(1)}%` } }),
        h('span', {}, world.spell(cast.spellId)?.name ?? 'Casting'),
      );
    }
    const notices = world.notices.map(noticeText);
    if (notices.join('\n') !== this.noticesShown) {
      this.noticesShown = notices.join('\n');
      fill(this.notices, ...notices.map((t) => h('div', {}, t)));
    }
    const lastLine = world.chat[world.chat.length - 1];
    if (lastLine !== this.lastChat) {
      this.lastChat = lastLine;
      // Someone reading back up the history is left there; at the bottom, the log follows.
      const log = this.chatLog;
      const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
      fill(log, ...world.chat.map(chatLine));
      if (atBottom) log.scrollTop = log.scrollHeight;
    }
  }
  /** Why `spell` cannot be cast now, from where the page draws the caster and its target. */
  private castBlock(
    world: ClientWorld,
    spell: ClientWorld['spells'][number],
    cooldownLeft: number,
    now: number,
  ): ReturnType<typeof castBlock> {
    const me = world.selfEntity()!;
    const t = world.targetId !== undefined ? world.entities.get(world.targetId) : undefined;
    return castBlock({
      spell,
      caster: { ...world.drawnPosition(me, now), id: me.id, alive: me.alive, mana: world.stats?.mana ?? 0 },
      cooldownLeft,
      target: t && { ...world.drawnPosition(t, now), id: t.id, kind: t.kind, alive: t.alive },
      walls: world.zone?.obstacles ?? [],
    });
  }
}

function meter(kind: 'health' | 'mana', value: number, max: number): HTMLElement {
  const f = max > 0 ? Math.max(0, Math.min(1, value / max)) : 0;
  return h(
    `div.meter.${kind}`,
    {},
    h('div.fill', { style: { width: `${(f * 100).toFixed(1)}%` } }),
    h('span', {}, `${value} / ${max}`),
  );
}

/** The experience into this level, of what it needs; full and marked at the highest level. */
function experienceBar(value: number, needed: number): HTMLElement {
  const f = needed > 0 ? Math.max(0, Math.min(1, value / needed)) : 1;
  return h(
    'div.meter.experience',
    { title: 'Experience to the next level' },
    h('div.fill', { style: { width: `${(f * 100).toFixed(1)}%` } }),
    h('span', {}, needed > 0 ? `XP ${value} / ${needed}` : 'Highest level'),
  );
}

function chatLine(c: ChatLine): HTMLElement {
  return h(`div.line.${c.channel}`, {}, h('time.at', {}, chatTime(c.time)), ' ', chatSpeaker(c), c.text);
}
