/**
 * Serving a Web-standard fetch handler on Node (`@hono/node-server`), with slow-client timeouts and
 * WebSocket upgrade handlers: what the local platform, `parley start` and the relay's Node adapter share.
 */
import { serve } from '@hono/node-server';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { guardBodies, type BodyGuardOptions } from './body-guard.js';

/** What a handler may read of the Node request: socket address, raw request target. */
export interface NodeIncoming { url?: string; socket: { remoteAddress?: string } }

/**
 * Handles an HTTP upgrade (WebSocket). Returns true when it took the socket; false leaves it to the
 * next handler, and an upgrade nobody takes is answered 404 and closed.
 */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

/**
 * How long a Node server waits for clients (slowloris guards; Node's own defaults are 60 s for
 * headers, 300 s for the request and a 30 s check interval, which let a 1 byte/s client hold a
 * socket for 90 s).
 */
export interface ServerTimeouts {
  /** Time to receive a request's headers; the socket is closed after it (default 20 000 ms). */
  headersTimeoutMs?: number;
  /** Time to receive a whole request, body included (default 300 000 ms: a 25 MB upload on a slow line). */
  requestTimeoutMs?: number;
  /**
   * Time an idle keep-alive socket stays open between requests (default 4 000 ms; Node closes the
   * socket about 1 s after it, so an idle socket is gone after about 5 s).
   */
  keepAliveTimeoutMs?: number;
  /** How often those timeouts are checked (default 1 000 ms; Node's own is 30 s). */
  timeoutCheckIntervalMs?: number;
}

/**
 * Defaults of {@link ServerTimeouts}: a client sending headers at 1 byte/s is dropped after about
 * 21 s, an idle keep-alive socket after about 5 s.
 */
export const DEFAULT_SERVER_TIMEOUTS: Required<ServerTimeouts> = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 4_000,
  timeoutCheckIntervalMs: 1_000,
};

/** A handler listening on a port. */
export interface ServedFetch {
  url: string;
  port: number;
  /** Stops listening and ends open connections (open streams included). */
  close(): Promise<void>;
  /**
   * Stops taking connections and closes the idle keep-alive ones, leaving those with an answer under way;
   * resolves once every connection has closed (see {@link closeIdle}).
   */
  stopListening(): Promise<void>;
  /** Closes the keep-alive connections idle now (after {@link stopListening}: those whose answer has ended since). */
  closeIdle(): void;
}

/**
 * Serves a Web-standard fetch handler on Node (shared by the platform, the relay and `parley start`);
 * resolves with the bound URL once listening. The handler also gets `{ incoming }`, the Node request.
 * `bodies`: how refused and stalled request bodies are handled (body-guard.ts).
 */
export function serveFetch(
  fetch: (request: Request, env: { incoming: NodeIncoming }) => Promise<Response> | Response,
  { port = 0, hostname = '127.0.0.1', upgrade = [], timeouts = {}, bodies }: { port?: number; hostname?: string; upgrade?: UpgradeHandler[]; timeouts?: ServerTimeouts; bodies?: BodyGuardOptions } = {},
): Promise<ServedFetch> {
  // Refused bodies are drained before their answer; with `bodies` timeouts, stalled bodies get a 408 (body-guard.ts).
  const handler = guardBodies(fetch as Parameters<typeof guardBodies>[0], bodies);
  const t = { ...DEFAULT_SERVER_TIMEOUTS, ...definedOnly(timeouts) };
  const serverOptions = {
    headersTimeout: t.headersTimeoutMs,
    requestTimeout: t.requestTimeoutMs,
    keepAliveTimeout: t.keepAliveTimeoutMs,
    connectionsCheckingInterval: t.timeoutCheckIntervalMs,
  };
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: (request, env) => handler(request, env as Parameters<typeof handler>[1]), port, hostname, serverOptions }, (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      let stopped: Promise<void> | undefined;
      const closeIdle = () => (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        stopListening: () => (stopped ??= new Promise<void>((done) => {
          server.close(() => done());
          closeIdle();
        })),
        closeIdle,
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          // Open SSE streams would hold the server open; end them.
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
      });
    });
    // Also set as properties: not every Node version takes all of them as createServer options.
    Object.assign(server, { headersTimeout: t.headersTimeoutMs, requestTimeout: t.requestTimeoutMs, keepAliveTimeout: t.keepAliveTimeoutMs });
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      for (const take of upgrade) if (take(request, socket, head)) return;
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    server.once('error', reject);
  });
}

/** The fields of `options` that are set (an explicit `undefined` keeps the default). */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}
