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
export { createMemoryStateStore, type BucketSpec, type MemoryStateStoreOptions, type RelayStateStore, type TakeResult } from './state-store.js';
export type { RelaySigningKey, SessionClaims } from './session-tokens.js';
export type { UpstreamOptions } from './forward.js';
export { RelayError } from './errors.js';
export { DEFAULT_REALTIME_LIMITS, type RealtimeLimits } from './realtime.js';
export type { TicketClaims } from './session-tokens.js';
