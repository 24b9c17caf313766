import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

/** What a handler may read of the Node request: socket address, raw request target. */
export interface NodeIncoming { url?: string; socket: { remoteAddress?: string } }

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
  { port = 0, hostname = '127.0.0.1' }: { port?: number; hostname?: string } = {},
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
    server.once('error', reject);
  });
}
