/**
 * The token relay: mints short-lived scoped session tokens for pages and forwards an exact route
 * table to the platform with the server's key. See relay.ts for the URL layout.
 *
 * Everything portable comes from edge.ts (the same API for edge runtimes); this adds the Node-only
 * parts: the Node adapter and the Redis store.
 */
export * from './edge.js';
export { serveRelay, nodeRelayEnv, type ServeRelayOptions, type ServedRelay } from './node/node.js';
export type { RelayWatchOptions } from './node/watch.js';
export { drainServed, upgradeUnlessDraining, type ServedDrainOptions } from './node/drain-server.js';
export { createRedisStateStore, type RedisClientLike, type RedisStateStore, type RedisStateStoreOptions } from './state/redis-store.js';
