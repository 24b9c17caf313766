/**
 * The token relay: mints short-lived scoped session tokens for pages and forwards an exact route
 * table to the platform with the server's key. See relay.ts for the URL layout.
 */
export { createRelay, type Relay, type RelayOptions } from './relay.js';
export { serveRelay, nodeRelayEnv, type ServeRelayOptions, type ServedRelay } from './node.js';
export type { RelayEnv, ClientAddressOptions } from './client-address.js';
export { addressKey, clientAddress, parseIp } from './client-address.js';
export type { AuthorizeDecision, AuthorizeHook, SessionRequestContext, SessionRequestKind } from './runtime.js';
export { ALL_SCOPES, ANY, DEFAULT_POLICY, DEFAULT_SESSION_LIMITS, type RelayPolicy, type RelayScope, type SessionLimits } from './policy.js';
export { DEFAULT_BODY_LIMITS, defaultRoutes, isCleanPath, type BodyKind, type BodyLimits, type ConversationRole, type RelayRoute } from './route-table.js';
export { DEFAULT_ADDRESS_LIMITS, type AddressLimits } from './limits.js';
export { DEFAULT_BODY_RATE_LIMITS, type BodyRateLimits } from './body-rate.js';
export {
  createMemoryStateStore, issuedBefore, type BucketSpec, type IssuedTo, type MemoryStateStoreOptions, type RelayStateStore, type Revocation, type TakeResult,
} from './state-store.js';
export { createRedisStateStore, type RedisClientLike, type RedisStateStore, type RedisStateStoreOptions } from './redis-store.js';
export { OPERATOR_REVOKE_PATH } from './operator.js';
export type { RelaySigningKey, SessionClaims } from './session-tokens.js';
export type { UpstreamOptions } from './forward.js';
export { RelayError } from './errors.js';
export { DEFAULT_REALTIME_LIMITS, type RealtimeLimits } from './realtime.js';
export type { TicketClaims } from './session-tokens.js';
