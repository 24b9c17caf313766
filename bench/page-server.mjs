// The loopback server of the browser benchmarks (audio, voice): one page at `/`, the built elements
// (dist/browser) under `/assets/`, and `/api` (HTTP and WebSocket upgrades) through a relay that only
// allows this server's origin, which is why the relay is made here once the origin is known.
import { existsSync, readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { serveFetch } from 'parley-kit/server';
import { nodeRelayEnv } from '../dist/relay/index.js';

export const ASSETS = join(import.meta.dirname, '../dist/browser');

/** Serves `page` and the assets; `makeRelay(origin)` builds the relay mounted at `/api`. Resolves to the server and its origin. */
export async function servePage(page, makeRelay) {
  let relay = null;
  const server = await serveFetch((request, env) => {
    const path = new URL(request.url).pathname;
    if (path === '/api' || path.startsWith('/api/')) return relay.fetch(request, nodeRelayEnv(env.incoming));
    if (path === '/') return new Response(page, { headers: { 'content-type': 'text/html' } });
    if (path.startsWith('/assets/')) {
      const file = normalize(join(ASSETS, path.slice('/assets/'.length)));
      if (file.startsWith(ASSETS) && existsSync(file)) {
        return new Response(readFileSync(file), { headers: { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'application/octet-stream' } });
      }
    }
    return new Response('not found', { status: 404 });
  }, { upgrade: [(req, socket, head) => relay.handleUpgrade(req, socket, head)] });
  const origin = new URL(server.url).origin;
  relay = makeRelay(origin);
  return { server, origin };
}
