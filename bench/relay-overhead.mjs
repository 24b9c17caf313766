// Relay overhead against a mock upstream, in one run: the mock (plain node:http), the relay (serveRelay) with its
// state in memory and, when redis-server is installed, a second relay with its state in a Redis started here, a bare
// node:http proxy (no checks: the floor on Node) and, when installed, nginx (proxy_buffering off, keep-alive
// upstream), each in their own process, the load generator here. Figures: CPU per JSON request (process CPU time /
// requests served), throughput at 64 keep-alive connections, added time to a stream's first event, added
// per-event delivery. The relay's are printed as ratios to the bare proxy measured in the same run, each with its
// target (issue 26) and a ✓/✗ marker; nothing here fails a test.
//
// `npm run bench -- relay-overhead`, or `node bench/relay-overhead.mjs` after `npm run build`.
// PARLEY_BENCH_CPU_PROF=<dir> runs the relay with `node --cpu-prof` and writes its profile there.
// PARLEY_BENCH_RELAY_BEFORE=<dist dir> also measures another build of the relay (e.g. an older commit's
// `tsc` output) in the same run, interleaved, for a before/after table.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { percentile } from './platform.mjs';

const KEY = 'bench-upstream-key';
const ORIGIN = 'http://bench.example';
const CONNECTIONS = 64;
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));
const CLK_TCK = 100; // Linux USER_HZ
const now = () => performance.timeOrigin + performance.now();

/** Starts a bench child (bench/relay-overhead-child.mjs) and resolves with its URL once it listens. */
function startChild(args, nodeFlags = [], env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, join(import.meta.dirname, 'relay-overhead-child.mjs'), ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/READY (\S+)/);
      if (m) resolve({ url: m[1], pids: () => [child.pid], stop: () => stop(child) });
    });
    child.on('exit', (code) => reject(new Error(`bench child ${args[0]} exited ${code}`)));
  });
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', done);
    child.kill('SIGTERM');
  });
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** nginx in its own process (generated config in a temp dir, one worker, `daemon off`), proxying to `upstreamUrl`. */
async function startNginx(upstreamUrl) {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-nginx-'));
  const port = await freePort();
  const upstream = new URL(upstreamUrl).host;
  for (const d of ['client', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, d));
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  writeFileSync(join(dir, 'nginx.conf'), `${user}worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client; proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream mock { server ${upstream}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Authorization "Bearer ${KEY}";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
`);
  const child = spawn(NGINX, ['-e', join(dir, 'error.log'), '-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
    try {
      await send(new Agent(), 'GET', `${url}/ready`, {});
      break;
    } catch {
      if (i > 100) throw new Error('nginx did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    pids: () => [child.pid, ...childrenOf(child.pid)],
    stop: async () => {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** redis-server on a free loopback port (no persistence, temp dir), for the relay with its state in Redis. */
async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-redis-'));
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited ${child.exitCode}`);
    if (await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => { socket.end(); resolve(true); });
      socket.on('error', () => resolve(false));
    })) break;
    if (i > 200) throw new Error('redis-server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    pids: () => [child.pid],
    stop: async () => {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The fields of /proc/<pid>/stat after the command name (`fields[0]` is field 3, the state). */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function childrenOf(pid) {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (Number(statFields(name)[1]) === pid) out.push(Number(name));
    } catch { /* gone */ }
  }
  return out;
}

/** CPU time (user + system, ms) of processes, from /proc/<pid>/stat (NaN without Linux /proc). */
function cpuMs(pids) {
  if (!existsSync('/proc/self/stat')) return NaN;
  let ticks = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  }
  return (ticks / CLK_TCK) * 1000;
}

/** One request; resolves with status and body text. */
function send(agent, method, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A streamed request: resolves with the time to the first event and each event's delivery delay (receive − send stamp). */
function sendStream(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    let first;
    const delays = [];
    let buffered = '';
    const req = httpRequest(url, { method: 'POST', agent, headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (text) => {
        const at = now();
        buffered += text;
        let end;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const m = /"sent":([\d.]+)/.exec(frame);
          if (!m) continue;
          first ??= at - t0;
          delays.push(at - Number(m[1]));
        }
      });
      const own = /relay;dur=([\d.]+)/.exec(res.headers['server-timing'] ?? '');
      res.on('end', () => resolve({ first, delays, own: own ? Number(own[1]) : undefined }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Requests answered in `seconds` by `CONNECTIONS` keep-alive connections, and the target's CPU per request. */
async function load(target, seconds) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const body = JSON.stringify({ inputs: 'bench', stream: false });
  for (let i = 0; i < 200; i++) await send(agent, 'POST', target.jsonUrl, target.headers, body); // warm up
  let served = 0;
  const cpu0 = cpuMs(target.pids());
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < until) {
      const r = await send(agent, 'POST', target.jsonUrl, target.headers, body);
      if (r.status !== 200) throw new Error(`${target.name} answered ${r.status}: ${r.text}`);
      served++;
    }
  }));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = cpuMs(target.pids()) - cpu0;
  agent.destroy();
  return { served, elapsed, cpu };
}

async function streams(target, count, events, gapMs) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ inputs: 'bench', stream: true, bench_events: events, bench_gap_ms: gapMs });
  const firsts = [], delays = [], own = [];
  for (let i = 0; i < count; i++) {
    const r = await sendStream(agent, target.jsonUrl, target.headers, body);
    firsts.push(r.first);
    if (r.own !== undefined) own.push(r.own);
    delays.push(...r.delays.slice(1)); // the first event's delay is the first-event figure
  }
  agent.destroy();
  return { firsts, delays, own };
}

/** A session on a relay and a conversation it owns: the headers and path the bench calls. */
async function openConversation(url) {
  const agent = new Agent();
  const session = await send(agent, 'POST', `${url}/session`, { 'content-type': 'application/json', origin: ORIGIN }, '{}');
  if (session.status !== 200) throw new Error(`session: ${session.status} ${session.text}`);
  const headers = { authorization: `Bearer ${JSON.parse(session.text).token}`, 'content-type': 'application/json', origin: ORIGIN };
  const created = await send(agent, 'POST', `${url}/v1/conversations`, headers, JSON.stringify({ inputs: 'hello', stream: false }));
  if (created.status !== 200) throw new Error(`conversation start: ${created.status} ${created.text}`);
  agent.destroy();
  return { headers, path: `/v1/conversations/${JSON.parse(created.text).conversation_id}` };
}

const mark = (ok) => (ok ? '✓' : '✗');
const ms = (x) => x.toFixed(3);

/** Runs the whole measurement; returns the figures (label → text). */
export async function benchRelayOverhead({ seconds = 3, rounds = 2, warmSeconds = 5 } = {}) {
  const started = [];
  try {
    const upstream = await startChild(['upstream', KEY]);
    started.push(upstream);
    const profDir = process.env.PARLEY_BENCH_CPU_PROF;
    const relay = await startChild(['relay', upstream.url, KEY, ORIGIN], profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
    started.push(relay);
    const nginx = NGINX ? await startNginx(upstream.url) : undefined;
    if (nginx) started.push(nginx);
    const bare = await startChild(['bare-proxy', upstream.url, KEY]);
    started.push(bare);
    const redis = REDIS_SERVER ? await startRedis() : undefined;
    if (redis) started.push(redis);
    const relayRedis = redis ? await startChild(['relay', upstream.url, KEY, ORIGIN], [], { PARLEY_BENCH_REDIS_URL: redis.url }) : undefined;
    if (relayRedis) started.push(relayRedis);
    const beforeDist = process.env.PARLEY_BENCH_RELAY_BEFORE;
    const before = beforeDist ? await startChild(['relay', upstream.url, KEY, ORIGIN, beforeDist]) : undefined;
    if (before) started.push(before);

    const { headers: relayHeaders, path } = await openConversation(relay.url);
    const direct = { name: 'direct', jsonUrl: upstream.url + path, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, pids: upstream.pids };
    const targets = [direct, { name: 'relay', jsonUrl: relay.url + path, headers: relayHeaders, pids: relay.pids }];
    if (nginx) targets.push({ name: 'nginx', jsonUrl: nginx.url + path, headers: { 'content-type': 'application/json' }, pids: nginx.pids });
    targets.push({ name: 'bare', jsonUrl: bare.url + path, headers: { 'content-type': 'application/json' }, pids: bare.pids });
    if (relayRedis) {
      // The Redis server's CPU is the relay's too: it works for no one else here.
      const opened = await openConversation(relayRedis.url);
      targets.push({ name: 'redis', jsonUrl: relayRedis.url + opened.path, headers: opened.headers, pids: () => [...relayRedis.pids(), ...redis.pids()] });
    }
    if (before) targets.push({ name: 'before', jsonUrl: before.url + path, headers: (await openConversation(before.url)).headers, pids: before.pids });

    // Interleave targets in rounds so drift on the machine hits all alike.
    const totals = Object.fromEntries(targets.map((t) => [t.name, { served: 0, elapsed: 0, cpu: 0, firsts: [], delays: [], own: [] }]));
    // Steady state: the relay's JIT (V8 optimising hono, undici and the relay) takes several seconds of load
    // to settle, during which compilation alone costs more CPU than the requests; warm every target alike.
    for (const t of targets) await load(t, warmSeconds);
    for (let round = 0; round < rounds; round++) {
      for (const t of targets) {
        const r = await load(t, seconds);
        const sum = totals[t.name];
        sum.served += r.served; sum.elapsed += r.elapsed; sum.cpu += r.cpu;
      }
    }
    for (const t of targets) await streams(t, 100, 20, 0); // the stream path warmed too
    for (let round = 0; round < 4; round++) {
      for (const t of targets) {
        const first = await streams(t, 50, 1, 0);
        const per = await streams(t, 5, 20, 2);
        totals[t.name].firsts.push(...first.firsts);
        totals[t.name].own.push(...first.own);
        totals[t.name].delays.push(...per.delays);
      }
    }
    for (const sum of Object.values(totals)) {
      sum.rps = sum.served / sum.elapsed;
      sum.cpuPerRequest = sum.cpu / sum.served;
      sum.first50 = percentile(sum.firsts.sort((a, b) => a - b), 50);
      sum.delay50 = percentile(sum.delays.sort((a, b) => a - b), 50);
      sum.own50 = sum.own.length ? percentile(sum.own.sort((a, b) => a - b), 50) : undefined;
    }
    return report(totals);
  } finally {
    for (const s of started.reverse()) await s.stop();
  }
}

/** Issue 26's targets: the relay's figures as ratios to the bare Node proxy's in the same run. */
const TARGETS = {
  cpu: { label: 'CPU per JSON request', max: 1.5 },
  throughput: { label: 'throughput at 64 connections', min: 0.8 },
  first: { label: 'added first-event time p50', max: 1.5 },
  perEvent: { label: 'added per-event time p50', max: 1.2 },
};

/** The four ratios of a relay (`r`) to the bare proxy (`b`), direct (`d`) subtracted from the stream times. */
function ratios(r, b, d) {
  return {
    cpu: r.cpuPerRequest / b.cpuPerRequest,
    throughput: r.rps / b.rps,
    first: (r.first50 - d.first50) / (b.first50 - d.first50),
    perEvent: (r.delay50 - d.delay50) / (b.delay50 - d.delay50),
  };
}

/** `0.93× (target ≤ 1.5×) ✓`; a ratio to a bare-proxy time at or below direct's (noise) is no measure. */
function judged(key, value) {
  const t = TARGETS[key];
  if (!Number.isFinite(value) || value < 0) return `n/a: the bare proxy added no time in this run (a loaded machine?) ${mark(false)}`;
  const ok = t.max !== undefined ? value <= t.max : value >= t.min;
  return `${value.toFixed(2)}× (target ${t.max !== undefined ? '≤ ' + t.max : '≥ ' + t.min}×) ${mark(ok)}`;
}

/** One target's absolute figures: CPU ms/request, requests/s, added first-event and per-event p50 (ms). */
function absolute(x, d) {
  return `${ms(x.cpuPerRequest)} ms CPU/request, ${x.rps.toFixed(0)} requests/s (${(x.rps / d.rps).toFixed(3)} of direct), `
    + `+${ms(x.first50 - d.first50)} ms first event, +${ms(x.delay50 - d.delay50)} ms per event`;
}

function report(totals) {
  const { direct: d, relay: r, nginx: n, bare: b, redis: s, before: o } = totals;
  const out = {};
  const mem = ratios(r, b, d);
  for (const key of Object.keys(TARGETS)) out[`relay / bare Node proxy: ${TARGETS[key].label}`] = judged(key, mem[key]);
  if (s) {
    const red = ratios(s, b, d);
    for (const key of Object.keys(TARGETS)) out[`relay on Redis / bare Node proxy: ${TARGETS[key].label}`] = judged(key, red[key]);
  } else {
    out['relay on Redis'] = 'redis-server not installed (apt-get install redis-server)';
  }
  out['direct (the mock upstream itself)'] = `${ms(d.cpuPerRequest)} ms CPU/request, ${d.rps.toFixed(0)} requests/s, first event ${ms(d.first50)} ms, per event ${ms(d.delay50)} ms`;
  out['bare Node proxy (no checks; the floor on Node)'] = absolute(b, d);
  out['relay (state in memory)'] = absolute(r, d);
  if (s) out['relay (state in Redis; CPU includes redis-server)'] = absolute(s, d);
  out['nginx (reference)'] = n ? absolute(n, d) : 'not installed (apt-get install nginx)';
  out['relay own time to a stream\'s answer p50 (Server-Timing relay;dur, ms)'] = r.own50 === undefined ? 'n/a' : ms(r.own50);
  if (o) {
    out['relay before (PARLEY_BENCH_RELAY_BEFORE)'] = absolute(o, d);
    const old = ratios(o, b, d);
    for (const key of Object.keys(TARGETS)) out[`relay before / bare Node proxy: ${TARGETS[key].label}`] = judged(key, old[key]);
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await benchRelayOverhead();
  for (const [k, v] of Object.entries(figures)) process.stdout.write(`${k.padEnd(64)} ${v}\n`);
}
