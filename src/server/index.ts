/**
 * What the relay and the local platform share on Node without importing each other: serving a
 * Web-standard fetch handler (WebSocket upgrades included), reading a body with a byte cap, and the flow
 * control of realtime WebSockets (a message-rate bucket, backpressure), request ids, and waiting with a deadline.
 * Exported as `parley-kit/server`.
 */
export { DEFAULT_SERVER_TIMEOUTS, serveFetch, type NodeIncoming, type ServedFetch, type ServerTimeouts, type UpgradeHandler } from './node-serve.js';
export { BodyTooLargeError, readCapped } from './read-capped.js';
export { DEFAULT_REALTIME_FLOOD_LIMITS, TokenBucket, createBackpressure, type BackpressureLimits, type FlowSocket, type RealtimeFloodLimits } from './socket-flow.js';
export { DEFAULT_DRAIN_MAX_BYTES, DEFAULT_MIN_BYTES_PER_SECOND, type BodyGuardOptions } from './body-guard.js';
export { requestIdFrom } from './request-id.js';
export { within } from './within.js';
