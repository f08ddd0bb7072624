/**
 * Error codes carried by the Error packet. Codes are stable strings; `message` is what a
 * client shows a person. Decode errors (ERR_SHORT, ERR_BAD_CRC, ...) come from the codec.
 */
import { DecodeErrorCode } from '../codec/errors.js';

export const ErrorCode = {
  ...DecodeErrorCode,
  Version: 'ERR_VERSION',
  WrongState: 'ERR_WRONG_STATE',
  RateLimited: 'ERR_RATE_LIMITED',
  HandshakeTimeout: 'ERR_HANDSHAKE_TIMEOUT',
  ServerFull: 'ERR_SERVER_FULL',
  TooManyFromAddress: 'ERR_TOO_MANY_FROM_ADDRESS',
  Internal: 'ERR_INTERNAL',
  Shutdown: 'ERR_SHUTDOWN',
  SlowConsumer: 'ERR_SLOW_CONSUMER',
  AccountTaken: 'ERR_ACCOUNT_TAKEN',
  BadAccountName: 'ERR_BAD_ACCOUNT_NAME',
  BadLogin: 'ERR_BAD_LOGIN',
  LoginThrottled: 'ERR_LOGIN_THROTTLED',
  BadResume: 'ERR_BAD_RESUME',
  NameTaken: 'ERR_NAME_TAKEN',
  BadName: 'ERR_BAD_NAME',
  TooManyCharacters: 'ERR_TOO_MANY_CHARACTERS',
  NoSuchCharacter: 'ERR_NO_SUCH_CHARACTER',
  NoSuchPlayer: 'ERR_NO_SUCH_PLAYER',
  ChatTooLong: 'ERR_CHAT_TOO_LONG',
  BadVerifier: 'ERR_BAD_VERIFIER',
  TextMessage: 'ERR_TEXT_MESSAGE',
  LoginTimeout: 'ERR_LOGIN_TIMEOUT',
  IdleTimeout: 'ERR_IDLE_TIMEOUT',
  ZoneDown: 'ERR_ZONE_DOWN',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const messages: Record<ErrorCode, string> = {
  ERR_SHORT: 'The server received a truncated packet.',
  ERR_OVERLONG: 'The server received a packet with extra bytes.',
  ERR_STRING_TOO_LONG: 'A text field was too long.',
  ERR_BYTES_TOO_LONG: 'A binary field was too long.',
  ERR_LIST_TOO_LONG: 'A list had too many items.',
  ERR_BAD_ENUM: 'A packet held an unknown choice.',
  ERR_BAD_UTF8: 'A text field was not valid UTF-8.',
  ERR_BAD_BOOL: 'A packet held a bad flag.',
  ERR_BAD_VARINT: 'A packet held a malformed number.',
  ERR_BAD_NUMBER: 'A packet held a number that is not finite.',
  ERR_FRAME_SIZE: 'A frame had an impossible size.',
  ERR_BAD_CRC: 'A frame failed its checksum.',
  ERR_UNKNOWN_OPCODE: 'The server does not know that packet.',
  ERR_PARTIAL_FRAME: 'A message ended in the middle of a frame.',
  ERR_VERSION: 'This client speaks another protocol version than the server. Update the client.',
  ERR_WRONG_STATE: 'That request is not allowed right now.',
  ERR_RATE_LIMITED: 'Too many requests: slow down.',
  ERR_HANDSHAKE_TIMEOUT: 'The connection did not say hello in time.',
  ERR_SERVER_FULL: 'The server is full. Try again later.',
  ERR_TOO_MANY_FROM_ADDRESS: 'Too many connections from your address.',
  ERR_INTERNAL: 'The server hit an internal error.',
  ERR_SHUTDOWN: 'The server is shutting down.',
  ERR_SLOW_CONSUMER: 'The connection fell too far behind.',
  ERR_ACCOUNT_TAKEN: 'That account name is already registered.',
  ERR_BAD_ACCOUNT_NAME: 'Account names are 3 to 32 letters, digits or underscores.',
  ERR_BAD_LOGIN: 'Wrong account name or password.',
  ERR_LOGIN_THROTTLED: 'Too many failed logins. Wait and try again.',
  ERR_BAD_RESUME: 'The session could not be resumed. Log in again.',
  ERR_NAME_TAKEN: 'That character name is taken.',
  ERR_BAD_NAME: 'Character names are 3 to 16 letters.',
  ERR_TOO_MANY_CHARACTERS: 'This account has no free character slot.',
  ERR_NO_SUCH_CHARACTER: 'That character does not exist.',
  ERR_NO_SUCH_PLAYER: 'No player by that name is online.',
  ERR_CHAT_TOO_LONG: 'That message is too long.',
  ERR_BAD_VERIFIER: 'The client sent an unusable password verifier. Update the client.',
  ERR_TEXT_MESSAGE: 'The server accepts only binary WebSocket messages.',
  ERR_LOGIN_TIMEOUT: 'The connection did not log in in time.',
  ERR_IDLE_TIMEOUT: 'The connection was silent for too long.',
  ERR_ZONE_DOWN:
    'The server running your zone went down. You stay connected and are put back in the world, from your last save, as soon as it is back.',
};

/** Words for a person, for any code (unknown codes from a newer server included). */
export function errorMessage(code: string): string {
  return (messages as Record<string, string>)[code] ?? `The server refused the request (${code}).`;
}
