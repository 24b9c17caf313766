/**
 * Node adapter: serves a relay on a port with `@hono/node-server`, passing each request's socket
 * address and raw request target to the relay (Web `Request`s have neither), and its WebSocket upgrades. A client that
 * disconnects aborts the request's signal, which cancels the upstream call.
 */
import { serveFetch } from '../server/node-serve.js';
import type { RelayEnv } from './client-address.js';
import type { Relay } from './relay.js';

/** Where {@link serveRelay} listens. */
export interface ServeRelayOptions {
  /** Port (default 0: any free port). */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  hostname?: string;
}

/** A relay listening on a port. */
export interface ServedRelay {
  url: string;
  port: number;
  /** Stops listening and ends open connections (open streams included). */
  close(): Promise<void>;
}

/** The relay env of a Node request: socket address and raw target. */
export function nodeRelayEnv(incoming: { url?: string; socket: { remoteAddress?: string } }): RelayEnv {
  return { clientIp: incoming.socket.remoteAddress, rawTarget: incoming.url };
}

/** Serves `relay` over HTTP on Node, its realtime WebSocket included; resolves once listening. */
export function serveRelay(relay: Pick<Relay, 'fetch' | 'handleUpgrade'>, options: ServeRelayOptions = {}): Promise<ServedRelay> {
  return serveFetch((request, env) => relay.fetch(request, nodeRelayEnv(env.incoming)), { ...options, upgrade: [relay.handleUpgrade] });
}
