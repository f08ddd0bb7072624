export {
  ClientStats,
  UNKNOWN_PACKET,
  WyvernClient,
  type AnyClientDef,
  type AnyServerDef,
  type ByePayload,
  type CharacterSummary,
  type ClientState,
  type EnterWorldResult,
  type ErrorPayload,
  type LoginResult,
  type PacketCounters,
  type PasswordLoginResult,
  type RegisteredPayload,
  type ResumeResult,
  type SpellBookPayload,
  type WaitForOptions,
  type WelcomePayload,
  type WhoListPayload,
  type WyvernClientOptions,
} from './client.js';
export { MemoryDeviceTokens, type DeviceTokenStore } from './device-tokens.js';
export { ClockSync, defaultNow, type ClockSample, type ClockSyncOptions, type Now } from './clock.js';
export { ClientErrorCode, WyvernError } from './errors.js';
export { loadSrp, makeVerifier, srpIdentity, startLogin, SALT_BYTES, type SrpProof } from './srp.js';
export {
  createMemoryTransportPair,
  ignoreBytes,
  ignoreClose,
  MemoryTransport,
  type ByteTransport,
} from './transport.js';
export {
  WebSocketTransport,
  type WebSocketConnectOptions,
  type WebSocketConstructorLike,
  type WebSocketLike,
} from './websocket-transport.js';
export * from './world-view.js';
export {
  backoffDelay,
  failover,
  reconnect,
  type ReconnectEvent,
  type ReconnectOptions,
  type Reconnected,
} from './reconnect.js';
export { MoveSender, angleBetween, type MoveState, type SendReason } from './move-sender.js';
