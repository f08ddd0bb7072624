/**
 * The session handler table: one entry per client packet whose target is 'session', keyed
 * by packet name and typed from the packet's definition. Each module (handshake, account,
 * characters, ...) builds a partial table from its own dependencies; `composeHandlers`
 * merges them and refuses a name handled twice or a packet that is not session-targeted.
 */
import type { PayloadOf } from '../../shared/protocol/define.js';
import { byName } from '../../shared/protocol/registry.js';
import type { AnyClientPacket, ClientPacketName } from '../../shared/protocol/registry.js';
import type { Logger } from '../log.js';
import type { Session } from './session.js';

export type ClientPacketByName<N extends ClientPacketName> = Extract<AnyClientPacket, { name: N }>;

export interface HandlerContext {
  readonly session: Session;
  /** Every open session by connection id (to find a player, or one logged in twice). */
  readonly sessions: ReadonlyMap<number, Session>;
  readonly log: Logger;
}

export type SessionHandler<N extends ClientPacketName> = (
  ctx: HandlerContext,
  payload: PayloadOf<ClientPacketByName<N>>,
) => void | Promise<void>;

export type SessionHandlers = { readonly [N in ClientPacketName]?: SessionHandler<N> };

/** Merges handler modules into one table. */
export function composeHandlers(...modules: SessionHandlers[]): SessionHandlers {
  const table: Record<string, unknown> = {};
  for (const module of modules) {
    for (const [name, handler] of Object.entries(module)) {
      if (handler === undefined) continue;
      const def = byName(name);
      if (!def || def.dir !== 'c2s') throw new Error(`session handler for ${name}: not a client packet`);
      if (def.target !== 'session') {
        throw new Error(`session handler for ${name}: its target is '${def.target}', not 'session'`);
      }
      if (name in table) throw new Error(`session handler for ${name} defined twice`);
      table[name] = handler;
    }
  }
  return Object.freeze(table) as SessionHandlers;
}
