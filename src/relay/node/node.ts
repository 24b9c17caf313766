/**
 * Node adapter: serves a relay on a port with `@hono/node-server`, passing each request's socket
 * address and raw request target to the relay (Web `Request`s have neither), and its WebSocket upgrades. A client that
 * disconnects aborts the request's signal, which cancels the upstream call.
 */
import { serveFetch, type ServerTimeouts } from '../../server/node-serve.js';
import { Readable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isEventStreamAnswer, writeEventStream } from './write-event-stream.js';
import { readIncomingBody } from './incoming-body.js';
import { createNodeUpstreamSend } from './upstream-client.js';
import { createRelayWatcher, type RelayWatchOptions } from './watch.js';
import type { UpstreamSend } from '../proxy/forward.js';
import type { RelayEnv } from '../proxy/client-address.js';
import type { Relay } from '../relay.js';
import type { DrainReport } from '../drain.js';
import { drainServed, upgradeUnlessDraining, type ServedDrainOptions } from './drain-server.js';

/** Where {@link serveRelay} listens. */
export interface ServeRelayOptions {
  /** Port (default 0: any free port). */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  hostname?: string;
  /**
   * Slow clients (defaults: headers within 20 s, the whole request within 300 s, idle keep-alive 4 s (+1 s by Node),
   * checked every second): a client sending headers at 1 byte/s is dropped after about 21 s. Slow
   * bodies are also cut by the relay itself (`createRelay({ bodyRate })`, 408).
   */
  timeouts?: ServerTimeouts;
  /** Metrics and the JSON access log (watch.ts; default neither). */
  watch?: RelayWatchOptions;
}

/** A relay listening on a port. */
export interface ServedRelay {
  url: string;
  port: number;
  /** Stops listening and ends open connections (open streams included). */
  close(): Promise<void>;
  /**
   * Graceful restart (drain-server.ts, drain.ts): stops listening, refuses new requests and upgrades with 503,
   * hands pages over to another instance (Redis) or lets their replies finish, ends what is left at
   * `timeoutMs`, then closes every connection. Resolves when done; the process may then exit.
   */
  drain(options: ServedDrainOptions): Promise<DrainReport>;
  /** True once {@link drain} was called. */
  readonly draining: boolean;
}

let upstreamSend: UpstreamSend | undefined;

/**
 * The relay env of a Node request: socket address, raw target, its body read straight from the socket,
 * with `outgoing` the client leaving (its response closing unfinished), and the upstream client of this
 * process (keep-alive `node:http`; used when the relay has no `upstream.fetch` of its own).
 */
export function nodeRelayEnv(incoming: { url?: string; socket: { remoteAddress?: string } }, outgoing?: ServerResponse): RelayEnv {
  upstreamSend ??= createNodeUpstreamSend();
  const env: RelayEnv = { clientIp: incoming.socket.remoteAddress, rawTarget: incoming.url, upstreamSend };
  if (incoming instanceof Readable) env.readBody = (limits) => readIncomingBody(incoming as IncomingMessage, limits);
  if (outgoing) env.onClientGone = (listener) => whenResponseCloses(outgoing, listener);
  return env;
}

/** Calls `listener` once if `outgoing` closes before it finished (the client left); returns the unlink. */
function whenResponseCloses(outgoing: ServerResponse, listener: () => void): () => void {
  if (outgoing.writableFinished) return () => {};
  if (outgoing.destroyed) {
    listener();
    return () => {};
  }
  const onClose = () => {
    if (!outgoing.writableFinished) listener();
  };
  outgoing.once('close', onClose);
  return () => outgoing.off('close', onClose);
}

/**
 * Serves `relay` over HTTP on Node, its realtime WebSocket included; resolves once listening. Event
 * streams are written here (write-event-stream.ts: their head leaves with the first event).
 */
export async function serveRelay(relay: Pick<Relay, 'fetch' | 'handleUpgrade'> & Partial<Pick<Relay, 'drain' | 'observeUpgrades'>>, options: ServeRelayOptions = {}): Promise<ServedRelay> {
  const watcher = options.watch && (options.watch.metrics || options.watch.accessLog) ? createRelayWatcher(options.watch) : undefined;
  let draining: Promise<DrainReport> | undefined;
  const served = await serveFetch(async (request, env) => {
    const outgoing = (env as { outgoing?: ServerResponse }).outgoing;
    const relayEnv = nodeRelayEnv(env.incoming, outgoing);
    const watched = watcher?.begin(request.method, (env.incoming as IncomingMessage).socket, outgoing, relayEnv);
    const response = await relay.fetch(request, relayEnv);
    watched?.(response);
    return outgoing && isEventStreamAnswer(response) ? writeEventStream(response, outgoing) : response;
  }, { ...options, upgrade: [upgradeUnlessDraining(watcher ? watcher.upgrade(relay.handleUpgrade, relay.observeUpgrades) : relay.handleUpgrade, () => draining !== undefined)] });
  return {
    url: served.url,
    port: served.port,
    close: served.close,
    drain: (drainOptions) => (draining ??= drainServed(served, relay, drainOptions)),
    get draining() {
      return draining !== undefined;
    },
  };
}
