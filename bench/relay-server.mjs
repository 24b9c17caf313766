// Bench fixture (a child process of bench/relay.mjs): the local platform served at /v1 directly and
// through the relay at /api, in one process, so both paths are measured in the same run.
import { createPlatform } from '@parley-kit/platform';
import { serveFetch } from 'parley-kit/server';
import { ALL_SCOPES, createRelay, nodeRelayEnv } from '../dist/relay/index.js';
import { KEY as apiKey } from './platform.mjs';

const platform = createPlatform({ apiKey });
await platform.ready();
const unlimited = 1e9;
const relay = createRelay({
  upstream: { baseUrl: 'http://local-platform', apiKey, fetch: platform.fetch },
  basePath: '/api',
  policy: { scopes: [...ALL_SCOPES], agents: ['*'], models: ['*'], limits: { requestsPerMinute: unlimited, burst: unlimited, concurrentStreams: 1000 } },
  limits: { requestsPerMinute: unlimited, burst: unlimited, sessionsPerMinute: unlimited, sessionBurst: unlimited },
});
const server = await serveFetch((request, env) => {
  const path = new URL(request.url).pathname;
  return path.startsWith('/api/') ? relay.fetch(request, nodeRelayEnv(env.incoming)) : platform.fetch(request);
});
process.stdout.write(`READY ${server.url}\n`);
process.on('SIGTERM', async () => { await server.close(); await platform.close(); process.exit(0); });
