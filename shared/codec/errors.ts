/**
 * Stable error codes for everything that can be wrong with bytes from the network.
 * They travel in Error packets and metrics labels, so a code is never renamed or reused.
 */
export const DecodeErrorCode = {
  /** The payload ended before a field was complete. */
  Short: 'ERR_SHORT',
  /** Bytes were left over after the last field. */
  Overlong: 'ERR_OVERLONG',
  StringTooLong: 'ERR_STRING_TOO_LONG',
  BytesTooLong: 'ERR_BYTES_TOO_LONG',
  ListTooLong: 'ERR_LIST_TOO_LONG',
  BadEnum: 'ERR_BAD_ENUM',
  BadUtf8: 'ERR_BAD_UTF8',
  BadBool: 'ERR_BAD_BOOL',
  /** A varint longer than 5 bytes, above 2^32-1, or not in its shortest form. */
  BadVarint: 'ERR_BAD_VARINT',
  /** NaN or an infinity where a finite number is required. */
  BadNumber: 'ERR_BAD_NUMBER',
  /** A frame's size field is below the header size or above the configured maximum. */
  FrameSize: 'ERR_FRAME_SIZE',
  BadCrc: 'ERR_BAD_CRC',
  UnknownOpcode: 'ERR_UNKNOWN_OPCODE',
  /** A WebSocket message ended in the middle of a frame. */
  PartialFrame: 'ERR_PARTIAL_FRAME',
} as const;
export type DecodeErrorCode = (typeof DecodeErrorCode)[keyof typeof DecodeErrorCode];

export class DecodeError extends Error {
  override readonly name = 'DecodeError';
  constructor(
    readonly code: DecodeErrorCode,
    message: string,
    /** The opcode of the frame at fault, when its header was read; 0 otherwise. */
    readonly opcode = 0,
  ) {
    super(message);
  }
}

/** A value that cannot be put on the wire: a bug on the sending side, never the peer's fault. */
export class EncodeError extends Error {
  override readonly name = 'EncodeError';
}
