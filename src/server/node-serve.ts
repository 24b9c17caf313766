import { serve } from '@hono/node-server';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

/** What a handler may read of the Node request: socket address, raw request target. */
export interface NodeIncoming { url?: string; socket: { remoteAddress?: string } }

/**
 * Handles an HTTP upgrade (WebSocket). Returns true when it took the socket; false leaves it to the
 * next handler, and an upgrade nobody takes is answered 404 and closed.
 */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

/** A handler listening on a port. */
export interface ServedFetch {
  url: string;
  port: number;
  /** Stops listening and ends open connections (open streams included). */
  close(): Promise<void>;
}

/**
 * Serves a Web-standard fetch handler on Node (shared by the platform, the relay and `parley start`);
 * resolves with the bound URL once listening. The handler also gets `{ incoming }`, the Node request.
 */
export function serveFetch(
  fetch: (request: Request, env: { incoming: NodeIncoming }) => Promise<Response> | Response,
  { port = 0, hostname = '127.0.0.1', upgrade = [] }: { port?: number; hostname?: string; upgrade?: UpgradeHandler[] } = {},
): Promise<ServedFetch> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: (request, env) => fetch(request, env as { incoming: NodeIncoming }), port, hostname }, (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          // Open SSE streams would hold the server open; end them.
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
      });
    });
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      for (const handler of upgrade) if (handler(request, socket, head)) return;
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    server.once('error', reject);
  });
}
