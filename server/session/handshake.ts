/**
 * Hello and Ping: the first exchange of every connection and the clock-sync probe.
 * Hello with the server's protocol version gets Welcome and moves the session to 'login';
 * any other version gets ERR_VERSION and the connection is closed.
 */
import { PROTOCOL_VERSION } from '../../shared/protocol/common.js';
import { Hello, Pong, Welcome } from '../../shared/protocol/session.js';
import type { SessionHandlers } from './handlers.js';

export interface HandshakeOptions {
  readonly serverName: string;
  readonly tickRate: number;
  /** Wall clock in ms; a parameter so tests can fix it. */
  readonly now?: () => number;
  readonly protocolVersion?: number;
}

export function handshakeHandlers(options: HandshakeOptions): SessionHandlers {
  const now = options.now ?? Date.now;
  const version = options.protocolVersion ?? PROTOCOL_VERSION;
  return {
    Hello({ session }, hello) {
      if (hello.protocolVersion !== version) {
        session.error(
          'ERR_VERSION',
          `server speaks protocol ${version}, client sent ${hello.protocolVersion}`,
          { fatal: true, opcode: Hello.opcode },
        );
        return;
      }
      session.client = { kind: hello.clientKind, name: hello.clientName };
      session.send(Welcome, {
        protocolVersion: version,
        serverName: options.serverName,
        tickRate: options.tickRate,
        serverTime: now(),
        connectionId: session.id,
      });
      session.state = 'login';
    },
    Ping({ session }, ping) {
      session.send(Pong, { seq: ping.seq, clientTime: ping.clientTime, serverTime: now() });
    },
  };
}
