/**
 * The metrics port: `GET /metrics` (Prometheus text format) on a port of its own, bound to 127.0.0.1 unless told
 * otherwise, so the relay's public port never shows them and no secret is needed to scrape. Anything else is 404.
 */
import { serveFetch, type ServedFetch } from '../../server/node-serve.js';

/** The metrics listener. */
export type ServedMetrics = ServedFetch;

/** Serves `scrape` at `GET /metrics` on `port` (0: any free port) and `hostname` (default 127.0.0.1). */
export function serveMetrics(
  scrape: () => Promise<{ contentType: string; body: string }>,
  { port = 0, hostname = '127.0.0.1' }: { port?: number; hostname?: string } = {},
): Promise<ServedMetrics> {
  return serveFetch(async (request) => {
    if (new URL(request.url).pathname !== '/metrics') return text(404, 'Not found: the metrics are at /metrics\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'Method not allowed\n', { allow: 'GET, HEAD' });
    try {
      const { contentType, body } = await scrape();
      return new Response(request.method === 'HEAD' ? null : body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
    } catch {
      return text(500, 'Metrics could not be collected\n');
    }
  }, { port, hostname });
}

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/plain', ...headers } });
}
