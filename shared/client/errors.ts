/**
 * WyvernError: one error type for everything a client call can fail with, whether the
 * server refused (its Error packet's code) or the client gave up (a code of its own).
 * `message` is always words for a person; `reason` is the detail for logs.
 */
import { errorMessage } from '../protocol/errors.js';

/** Codes the client raises itself; never sent on the wire. */
export const ClientErrorCode = {
  /** The connection closed before the answer came. */
  Closed: 'ERR_CLOSED',
  /** No answer in time. */
  Timeout: 'ERR_TIMEOUT',
  /** LoginOk's M2 did not match: whoever answered does not know the account's verifier. */
  BadServerProof: 'ERR_BAD_SERVER_PROOF',
  /** The server sent bytes or a packet order this client cannot make sense of. */
  Protocol: 'ERR_PROTOCOL',
  /** The SRP computation failed (for example a malformed challenge). */
  Srp: 'ERR_SRP',
  /** The server stopped a logout (the character moved, fought or cancelled). */
  LogoutCancelled: 'ERR_LOGOUT_CANCELLED',
} as const;
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

const clientMessages: Record<ClientErrorCode, string> = {
  ERR_CLOSED: 'The connection to the server closed.',
  ERR_TIMEOUT: 'The server did not answer in time.',
  ERR_BAD_SERVER_PROOF: 'The server could not prove it knows this account: it may be an impostor.',
  ERR_PROTOCOL: 'The server sent something this client could not understand.',
  ERR_SRP: 'The login handshake failed.',
  ERR_LOGOUT_CANCELLED: 'The logout was cancelled: the character moved or is in a fight.',
};

function isClientCode(code: string): code is ClientErrorCode {
  return Object.prototype.hasOwnProperty.call(clientMessages, code);
}

export class WyvernError extends Error {
  override readonly name = 'WyvernError';
  constructor(
    /** A stable code: an ErrorCode from the server or a ClientErrorCode. */
    readonly code: string,
    /** Detail: the server's reason text, or what the client saw. */
    readonly reason: string,
    /** True when the connection is lost or about to be closed by the server. */
    readonly fatal: boolean,
    /** Opcode of the request the server refused; 0 when none. */
    readonly opcode = 0,
  ) {
    super(isClientCode(code) ? clientMessages[code] : errorMessage(code));
  }

  /** Whether the server sent this error (rather than the client raising it). */
  get fromServer(): boolean {
    return !isClientCode(this.code);
  }
}
