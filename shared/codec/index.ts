export { crc16 } from './crc16.js';
export { DecodeError, DecodeErrorCode, EncodeError } from './errors.js';
export * as t from './fields.js';
export { describe } from './fields.js';
export type { Field, FieldSpec, Fields, Infer, InferFields } from './fields.js';
export { Frame, FrameDecoder, HEADER_SIZE, MAX_FRAME_SIZE } from './frame.js';
export { Reader } from './reader.js';
export { Writer } from './writer.js';
