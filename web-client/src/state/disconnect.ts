/** Words for a person when the connection to the server ends without them asking. */
import type { PayloadOf } from '../../../shared/protocol/define.js';
import type { Bye } from '../../../shared/protocol/session.js';

export type ByeValue = PayloadOf<typeof Bye>;

/**
 * `bye` is the server's Bye if one came (the server closed on purpose), `fatal` the message of
 * a fatal Error if one came, `reason` the transport's own account of the close.
 */
export function disconnectText(reason: string, bye?: ByeValue, fatal?: string): string {
  const said = bye?.message ? ` (${bye.message})` : '';
  switch (bye?.reason) {
    case 'shutdown':
      return 'The server is shutting down. Try again in a moment.';
    case 'takenOver':
      return 'This account has logged in somewhere else.';
    case 'kicked':
      return `The server removed you from the game${said}.`;
    case 'idle':
      return 'Disconnected after being idle for too long.';
    default:
      break;
  }
  if (fatal) return `The server closed the connection: ${fatal}`;
  return `Lost the connection to the server (${reason}).`;
}
