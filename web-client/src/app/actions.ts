/**
 * What the player does in the world, whichever way it was asked (a key, a click on the action
 * bar or the canvas, a line typed in the chat box): cast a slot's spell, say, whisper or ask
 * who is online (the line read by the shared chat-command parser), pick or drop a target.
 * Each goes to the server through the client the page plays through, or becomes a notice
 * saying why it could not.
 */
import type { WhoListPayload, WyvernClient } from '../../../shared/client/client.js';
import { parseChat, type ChatCommand } from '../../../shared/client/chat-command.js';
import { CastSpell, ChatSend, Whisper } from '../../../shared/protocol/index.js';
import type { ClientWorld } from '../state/world.js';
import { errorText } from '../ui/dom.js';

/** How near a click must be to an entity (world units) to pick it. */
export const PICK_RADIUS = 20;

export interface ActionSide {
  world: ClientWorld;
  /** The client the page plays through now (the server's or the demo's). */
  client(): WyvernClient | undefined;
  /** Asks the server who is online; undefined where there is nobody to ask (the demo). */
  who(): Promise<WhoListPayload> | undefined;
  /** The page clock (ms). */
  now(): number;
}

export class Actions {
  constructor(private readonly side: ActionSide) {}

  /** Casts the spell in action slot `slot` (0-based) at the target; a heal with no player targeted heals oneself. */
  cast(slot: number): void {
    const { world } = this.side;
    const spell = world.spells[slot];
    const self = world.self;
    if (!spell || !self) return;
    world.selectedSlot = slot;
    let targetId = world.targetId;
    if (spell.kind === 'heal') {
      const t = targetId !== undefined ? world.entities.get(targetId) : undefined;
      if (!t || t.kind !== 'player') targetId = self.id;
    }
    if (targetId === undefined) {
      world.notice('Select a target first (click it or press Tab).', this.side.now());
      return;
    }
    this.side.client()?.send(CastSpell, { spellId: spell.id, targetId });
  }

  /** A typed chat line: said, whispered, a command, or a notice of what is wrong with it. */
  chat(line: string): void {
    this.command(parseChat(line, { replyTo: this.side.world.chatLog.replyTo }));
  }

  /** A chat line as the shared parser read it (the chat box reads each line once). */
  command(cmd: ChatCommand): void {
    const { world } = this.side;
    switch (cmd.kind) {
      case 'say':
      case 'zone':
        this.side.client()?.send(ChatSend, { channel: cmd.kind, text: cmd.text });
        break;
      case 'whisper':
        this.side.client()?.send(Whisper, { to: cmd.to, text: cmd.text });
        break;
      case 'who':
        this.who();
        break;
      case 'error':
        world.notice(cmd.message, this.side.now());
        break;
      case 'none':
        break;
    }
  }

  /** Tab: the next target, mobs in sight first. */
  nextTarget(): void {
    this.side.world.cycleTarget(this.side.now());
  }

  clearTarget(): void {
    this.side.world.targetId = undefined;
  }

  /** A click at world point (x, y): the entity there becomes the target, or none. */
  pick(x: number, y: number): void {
    const { world } = this.side;
    world.targetId = world.entityAt(x, y, PICK_RADIUS, this.side.now());
  }

  /** The online list, as a system line in the chat. */
  private who(): void {
    const { world } = this.side;
    const asked = this.side.who();
    if (!asked) {
      world.notice('Nobody else is online in the demo.', this.side.now());
      return;
    }
    asked
      .then((w) => {
        const players = w.players.map((p) => `${p.name} (${p.level}, ${p.zone})`).join(', ');
        world.apply(
          {
            name: 'ChatMessage',
            value: { channel: 'system', fromId: 0, from: '', to: '', text: `${w.total} online: ${players}` },
          },
          this.side.now(),
        );
      })
      .catch((err: unknown) => world.notice(errorText(err), this.side.now()));
  }
}
