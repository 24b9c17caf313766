// The real relay in front of the local platform, mounted in the dev server at `/api` so the browser
// tests talk to them same-origin, SSE and the realtime WebSocket included. The platform listens on a
// loopback port of its own and the relay reaches it over real HTTP and WebSocket, as in production.
// Both come from their packages' dist/ (this file runs in Node as is).
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

async function loadDist(rootDir, path) {
  const file = join(rootDir, path);
  if (!existsSync(file)) {
    throw new Error(
      `Browser tests need the compiled relay and platform: ${file} is missing.\n` +
      'Run `npm run build` first (`npm test` builds before the browser tests).',
    );
  }
  return import(pathToFileURL(file).href);
}

async function platformJson(platform, apiKey, method, path, body) {
  const res = await platform.fetch(new Request(`http://platform.internal${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }));
  const json = await res.json();
  if (!res.ok) throw new Error(`fixture ${method} ${path} → ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Agents the tests talk to, created directly on the platform (a relay token may only read agents). */
async function createFixtures(platform, apiKey) {
  const billing = await platformJson(platform, apiKey, 'POST', '/v1/agents', {
    model: 'parley-local',
    name: 'Billing',
    description: 'Invoices, payments and refunds',
    instructions: 'You answer billing questions.',
  });
  const support = await platformJson(platform, apiKey, 'POST', '/v1/agents', {
    model: 'parley-local',
    name: 'Support',
    description: 'General help for customers',
    instructions: 'You help customers of the shop.',
    tools: [{
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    }],
    handoffs: [billing.id],
  });
  return { model: 'parley-local', agents: { support: support.id, billing: billing.id } };
}

function toWebRequest(ctx, origin, signal) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const hasBody = ctx.method !== 'GET' && ctx.method !== 'HEAD';
  return new Request(new URL(ctx.req.url, origin), {
    method: ctx.method,
    headers,
    body: hasBody ? Readable.toWeb(ctx.req) : undefined,
    duplex: hasBody ? 'half' : undefined,
    signal,
  });
}

/** Writes a Web Response to the Node response as it arrives (no buffering: SSE must stream). */
async function sendWebResponse(res, response, abort) {
  res.statusCode = response.status;
  const cookies = response.headers.getSetCookie?.() ?? [];
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie' || HOP_BY_HOP.has(name)) continue;
    res.setHeader(name, value);
  }
  if (cookies.length) res.setHeader('set-cookie', cookies);
  res.flushHeaders();
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const onClose = () => {
    if (!res.writableFinished) {
      abort();
      reader.cancel().catch(() => {});
    }
  };
  res.on('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (res.destroyed) break;
    }
  } catch {
    // the client went away, or the stream broke: nothing more to send
  } finally {
    res.off('close', onClose);
    if (!res.destroyed) res.end();
  }
}

/**
 * Two more relays in front of the same platform, each on a loopback port of its own at `127.0.0.1`, so
 * on another origin than the test page (`localhost`): one lists the page's origin (`allowed`), one does
 * not (`refused`). Cross-origin embedding is tested against them: real CORS, preflights included. A third
 * (`restricted`) serves the page but allows only the model `parley-local`, no agent, and transcriptions of 4 KB:
 * refusals retrying cannot fix (test/browser/refusals.test.ts).
 */
async function startCrossOriginRelays({ createRelay, serveFetch, platformUrl, apiKey, origin, policy }) {
  const servers = [];
  const urls = {};
  const restricted = { ...policy, agents: [], models: ['parley-local'] };
  for (const [name, allowedOrigins, relayPolicy, bodyLimits] of [['allowed', [origin], policy], ['refused', [], policy], ['restricted', [origin], restricted, { transcription: 4096 }]]) {
    const relay = createRelay({
      upstream: { baseUrl: platformUrl, apiKey }, basePath: '/api', allowedOrigins, bodyLimits,
      policy: relayPolicy, limits: { requestsPerMinute: 12000, burst: 2000, sessionsPerMinute: 1000, sessionBurst: 500 },
      onError: (error) => console.error(`[relay ${name}]`, error),
    });
    const server = await serveFetch(relay.fetch, { hostname: '127.0.0.1', port: 0, upgrade: [relay.handleUpgrade] });
    servers.push(server);
    urls[name] = `${server.url}/api`;
  }
  return { urls, close: () => Promise.all(servers.map((s) => s.close())) };
}

/**
 * The relay for @web/dev-server: `middleware` (Koa) sends `/api/…` to the relay (which forwards
 * `/api/v1/…` to the local platform with the API key) and answers `/api-test/fixtures` with the ids
 * of the test agents; `plugin` hands the dev server's WebSocket upgrades of the relay's realtime
 * path to the relay (the dev server keeps its own path; other upgrades are left alone).
 */
export async function createRelayServer({ rootDir, origin, tokenDelayMs = 5 }) {
  const { createPlatform } = await loadDist(rootDir, 'platform/dist/index.js');
  const { ALL_SCOPES, createRelay } = await loadDist(rootDir, 'dist/relay/index.js');
  const { serveFetch } = await loadDist(rootDir, 'dist/server/node-serve.js');
  const apiKey = `test-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  const platform = createPlatform({ apiKey, tokenDelayMs, onError: () => {} });
  await platform.ready();
  const platformServer = await serveFetch(platform.fetch, { upgrade: [platform.handleUpgrade] });
  const fixtures = await createFixtures(platform, apiKey);
  const relay = createRelay({
    upstream: { baseUrl: platformServer.url, apiKey },
    basePath: '/api',
    allowedOrigins: [origin],
    // Every scope, agent and model (the library default allows none); the suite opens many sessions and turns from one address within a minute.
    policy: { scopes: [...ALL_SCOPES], agents: ['*'], models: ['*'], limits: { requestsPerMinute: 6000, burst: 1000, concurrentStreams: 4 } },
    limits: { requestsPerMinute: 12000, burst: 2000, sessionsPerMinute: 1000, sessionBurst: 500 },
    onError: (error) => console.error('[relay]', error),
  });
  const crossOrigin = await startCrossOriginRelays({
    createRelay, serveFetch, platformUrl: platformServer.url, apiKey, origin,
    policy: { scopes: [...ALL_SCOPES], agents: ['*'], models: ['*'], limits: { requestsPerMinute: 6000, burst: 1000, concurrentStreams: 4 } },
  });

  async function middleware(ctx, next) {
    if (ctx.path === '/api-test/fixtures') {
      ctx.set('cache-control', 'no-store');
      ctx.body = { ...fixtures, crossOrigin: crossOrigin.urls };
      return;
    }
    if (ctx.path !== '/api' && !ctx.path.startsWith('/api/')) return next();
    const controller = new AbortController();
    const request = toWebRequest(ctx, origin, controller.signal);
    const response = await relay.fetch(request, { clientIp: ctx.req.socket.remoteAddress, rawTarget: ctx.req.url });
    ctx.respond = false; // Koa must not touch the answer: it is written as it streams
    await sendWebResponse(ctx.res, response, () => controller.abort());
  }

  const plugin = {
    name: 'parley-relay-upgrades',
    serverStart({ server }) {
      // relay.handleUpgrade returns false (and leaves the socket) for any path but its realtime one.
      server.on('upgrade', (request, socket, head) => relay.handleUpgrade(request, socket, head));
    },
    async serverStop() {
      await crossOrigin.close();
      await platformServer.close();
      await platform.close();
    },
  };
  return { middleware, plugin };
}
