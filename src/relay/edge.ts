/**
 * The relay for edge runtimes (Cloudflare Workers / workerd, Vercel Edge, any host of Web-standard
 * `fetch` handlers): everything of `parley-kit/relay` that runs on Web APIs alone, without the Node
 * adapter (`serveRelay`, `nodeRelayEnv`) and the Redis store (its client needs TCP sockets). `parley-kit/relay`
 * resolves here under the `workerd`, `worker` and `edge-light` export conditions; `parley-kit/relay/edge`
 * names it directly. No `nodejs_compat` is needed: the realtime WebSocket (`relay.handleUpgrade`) is
 * Node only and loads `ws` on its first upgrade, which never happens here.
 *
 * ```ts
 * import { createRelay, type Relay } from 'parley-kit/relay';
 * let relay: Relay | undefined;
 * export default {
 *   fetch(request: Request, env: { PLATFORM_API_KEY: string; RELAY_SECRET: string }, ctx: { waitUntil(p: Promise<unknown>): void }) {
 *     relay ??= createRelay({
 *       upstream: { baseUrl: 'https://api.mistral.ai', apiKey: env.PLATFORM_API_KEY },
 *       secret: env.RELAY_SECRET, allowedOrigins: ['https://shop.example'], policy: { agents: ['ag_…'] },
 *     });
 *     // waitUntil: a resumable reply whose visitor left is read to its end (workerd would cut it).
 *     return relay.fetch(request, { clientIp: request.headers.get('cf-connecting-ip') ?? undefined, waitUntil: (p) => ctx.waitUntil(p) });
 *   },
 * };
 * ```
 */
export { createRelay, type Relay, type RelayOptions } from './relay.js';
export type { RelayEnv, ClientAddressOptions } from './proxy/client-address.js';
export { addressKey, clientAddress, parseIp } from './proxy/client-address.js';
export type { AuthorizeDecision, AuthorizeHook, FeedbackOptions, RealtimeLimits, SessionRequestContext, SessionRequestKind } from './runtime.js';
export { ALL_SCOPES, ANY, DEFAULT_POLICY, DEFAULT_SESSION_LIMITS, type RelayPolicy, type RelayScope, type SessionLimits } from './sessions/policy.js';
export { DEFAULT_BODY_LIMITS, defaultRoutes, isCleanPath, type BodyKind, type BodyLimits, type ConversationRole, type RelayRoute } from './proxy/route-table.js';
export { ATTACHMENT_TYPES, DEFAULT_ATTACHMENT_LIMITS, type AttachmentLimits } from './uploads/attachments.js';
export { DEFAULT_ADDRESS_LIMITS, type AddressLimits } from './proxy/limits.js';
export { DEFAULT_BODY_RATE_LIMITS, type BodyRateLimits } from './proxy/body-rate.js';
export {
  createMemoryStateStore, issuedBefore, type BucketSpec, type IssuedTo, type MemoryStateStoreOptions, type RelayStateStore, type Revocation, type TakeResult,
} from './state/state-store.js';
export { OPERATOR_REVOKE_PATH } from './sessions/operator.js';
export type { RelaySigningKey, SessionClaims, TicketClaims } from './sessions/session-tokens.js';
export type { UpstreamOptions } from './proxy/forward.js';
export { RelayError } from './errors.js';
export { DEFAULT_REALTIME_LIMITS } from './realtime.js';
export type { DrainOptions, DrainReport } from './drain.js';
