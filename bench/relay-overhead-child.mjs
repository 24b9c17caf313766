// Child processes of bench/relay-overhead.mjs, one role each (argv[2]):
//   upstream <key>               a mock platform on plain node:http: small JSON answers, and SSE answers of
//                                `bench_events` events `bench_gap_ms` apart, each stamped with its send time;
//   relay <upstream-url> <key> <origin> [dist]   the relay (serveRelay on loopback) in front of that mock
//                                         (from `dist`, another build's dist/ directory, for a before/after run;
//                                         with PARLEY_BENCH_REDIS_URL set, its state in that Redis);
//   bare-proxy <upstream-url> <key>       the least a Node proxy does (node:http in, keep-alive node:http out,
//                                         no checks): the floor of what the relay could cost on this runtime.
// Each prints `READY <url>` once listening, and exits on SIGTERM (so `--cpu-prof` writes its profile).
import { Agent, createServer, request as httpRequest } from 'node:http';

const [role, ...args] = process.argv.slice(2);
const now = () => performance.timeOrigin + performance.now();

/** The mock upstream: the conversation routes the bench calls, nothing else. */
function mockUpstream(key) {
  const conversation = JSON.stringify({
    object: 'conversation.response', conversation_id: 'conv_bench',
    outputs: [{ type: 'message.output', role: 'assistant', content: 'ok' }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  });
  return createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${key}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"unauthorized"}');
        return;
      }
      let body = {};
      try { body = JSON.parse(Buffer.concat(chunks).toString() || '{}'); } catch { /* empty */ }
      if (req.method === 'POST' && req.url.startsWith('/v1/conversations') && body.stream === true) {
        streamEvents(res, Number(body.bench_events) || 1, Number(body.bench_gap_ms) || 0);
        return;
      }
      if (req.method === 'POST' && req.url.startsWith('/v1/conversations')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(conversation) }).end(conversation);
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
    });
  });
}

/** Writes `count` SSE events, the first at once, then one every `gapMs`; each carries its send time. */
function streamEvents(res, count, gapMs) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let i = 0;
  const send = () => {
    if (res.destroyed) return;
    const data = JSON.stringify({ type: 'message.output.delta', conversation_id: 'conv_bench', content: 'token ', i, sent: now() });
    res.write(`event: message.output.delta\ndata: ${data}\n\n`);
    if (++i >= count) res.end();
    else setTimeout(send, gapMs);
  };
  send();
}

async function relay(upstreamUrl, key, origin, dist = new URL('../dist', import.meta.url).pathname) {
  const { ALL_SCOPES, createRelay, createRedisStateStore, serveRelay } = await import(`${dist}/relay/index.js`);
  const unlimited = 1e9;
  const redisUrl = process.env.PARLEY_BENCH_REDIS_URL;
  const store = redisUrl ? await createRedisStateStore({ url: redisUrl, keyPrefix: `bench${process.pid}:` }) : undefined;
  const r = createRelay({
    ...(store ? { store } : {}),
    upstream: { baseUrl: upstreamUrl, apiKey: key, ...(process.env.PARLEY_BENCH_GLOBAL_FETCH ? { fetch: (request) => fetch(request) } : {}) },
    allowedOrigins: [origin],
    policy: { scopes: [...ALL_SCOPES], agents: ['*'], models: ['*'], limits: { requestsPerMinute: unlimited, burst: unlimited, concurrentStreams: 1000 } },
    limits: { requestsPerMinute: unlimited, burst: unlimited, sessionsPerMinute: unlimited, sessionBurst: unlimited },
  });
  const served = await serveRelay(r);
  return { url: served.url, close: async () => { await served.close(); await store?.close(); } };
}

/** A bare pass-through proxy: headers copied, the key added, bodies piped both ways. */
function bareProxy(upstreamUrl, key) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const target = new URL(upstreamUrl);
  return createServer((req, res) => {
    const headers = { ...req.headers, host: target.host, authorization: `Bearer ${key}` };
    const out = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (up) => {
      res.writeHead(up.statusCode, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
}

/** Listens on a free loopback port, with long keep-alive (the load reuses its connections). */
async function listen(server) {
  server.keepAliveTimeout = 60_000;
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => { server.closeAllConnections(); server.close(); } };
}

let served;
if (role === 'upstream') {
  served = await listen(mockUpstream(args[0]));
} else if (role === 'bare-proxy') {
  served = await listen(bareProxy(args[0], args[1]));
} else if (role === 'relay') {
  served = await relay(args[0], args[1], args[2], args[3]);
} else {
  throw new Error(`unknown role ${role}`);
}
process.on('SIGTERM', async () => {
  await served.close();
  process.exit(0);
});
process.stdout.write(`READY ${served.url}\n`);
