/**
 * The metrics port: `GET /metrics` (Prometheus text format) on a port of its own, bound to 127.0.0.1 unless told
 * otherwise, so the relay's public port never shows them and no secret is needed to scrape. Anything else is 404.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The metrics listener. */
export interface ServedMetrics {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves `scrape` at `GET /metrics` on `port` (0: any free port) and `hostname` (default 127.0.0.1). */
export function serveMetrics(
  scrape: () => Promise<{ contentType: string; body: string }>,
  { port = 0, hostname = '127.0.0.1' }: { port?: number; hostname?: string } = {},
): Promise<ServedMetrics> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n');
      return;
    }
    scrape().then(({ contentType, body }) => {
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body);
    }, () => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics could not be collected\n');
    });
  });
  server.keepAliveTimeout = 65_000; // scrapers keep their connection between scrapes
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      const info = server.address() as AddressInfo;
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
      });
    });
  });
}
