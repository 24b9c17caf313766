// The stack the resumable-stream tests run against, as a site owner deploys it: the local platform
// (`parley platform`, slow tokens so a reply is still streaming when a test interrupts it), a real
// redis-server, two `parley-relay` processes on that Redis, and a front server of ours on one origin that
// serves the page and the element bundles (dist/browser under /assets) and proxies /api to relay A or B.
// The front server is the test's hand on the network: it switches the relay /api goes to and cuts every
// open socket (page ↔ front and front ↔ relay) on demand, as a dropped Wi-Fi or a load balancer restart would.
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { freePort } from '../../browser/server/free-port.mjs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';

export const ROOT = join(import.meta.dirname, '../../..');
export const REDIS_SERVER = '/usr/bin/redis-server';
const RELAY_SECRET = 'e2e-resume-relay-signing-secret-0123456789';

/** One request the front server passed to a relay. */
export interface ProxiedRequest {
  method: string;
  /** The path as the relay saw it (without /api). */
  path: string;
  /** 0 = relay A, 1 = relay B. */
  relay: number;
  /** The relay's status; undefined while no answer came. */
  status?: number;
  /** The request's Last-Event-ID header, if any. */
  lastEventId?: string;
}

export interface ResumeStack {
  /** The page's origin (the front server): `/` is the page, `/api` the relay, `/assets` the bundles. */
  origin: string;
  /** The relays' own URLs (A, B). */
  relays: string[];
  /** The platform's base URL (…/v1). */
  platformUrl: string;
  /** Sends /api to relay `index` from now on (0 = A, 1 = B); open connections stay where they are. */
  useRelay(index: number): void;
  /** Destroys every open socket: the page's connections to the front and the front's to the relays. Returns how many. */
  cut(): number;
  /** Every request proxied so far, in order. */
  log: ProxiedRequest[];
  stop(): Promise<void>;
}

/** Spawns a command and resolves with the first match of `pattern` in its output. */
function start(children: ChildProcess[], args: string[], pattern: RegExp, env: Record<string, string> = {}): Promise<RegExpMatchArray> {
  const child = spawn(args[0]!, args.slice(1), { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d;
      const m = out.match(pattern);
      if (m) { clearTimeout(timer); resolve(m); }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${args.join(' ')} exited ${code}: ${out}`)); });
  });
}


const TYPES: Record<string, string> = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.map': 'application/json' };

/** The page: one <agent-chat> on the relay behind /api; `?resume=none` starts a new conversation. */
function page(resume: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script type="module" src="/assets/agent-chat.js"></script></head>
<body><main><agent-chat relay-url="/api" model="parley-local" resume="${resume === 'none' ? 'none' : 'latest'}"></agent-chat></main></body></html>`;
}

/**
 * Starts the stack. `tokenDelayMs` paces the local model's tokens. Fails with the install command when
 * redis-server or the build is missing.
 */
export async function startResumeStack(options: { tokenDelayMs: number }): Promise<ResumeStack> {
  if (!existsSync(join(ROOT, 'dist/browser/agent-chat.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  if (!existsSync(join(ROOT, 'dist/relay/cli.js'))) throw new Error('dist/relay is missing: run `npm run build` first (npm test does)');
  if (!existsSync(REDIS_SERVER)) throw new Error(`${REDIS_SERVER} is missing: install it with \`apt-get install -y redis-server\``);
  const children: ChildProcess[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-resume-e2e-'));
  const sockets = new Set<Socket>();
  const log: ProxiedRequest[] = [];
  let target = 0;
  let relays: string[] = [];

  // The front server first: the relays need its origin.
  const browserDir = join(ROOT, 'dist/browser');
  const front: Server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://front');
    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) return proxy(req, res, url);
    if (url.pathname.startsWith('/assets/')) return asset(res, url.pathname.slice('/assets/'.length));
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(page(url.searchParams.get('resume') ?? 'latest'));
      return;
    }
    res.writeHead(404).end();
  });
  front.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function asset(res: ServerResponse, path: string): void {
    const file = join(browserDir, normalize(decodeURIComponent(path)).replace(/^(\.\.[/\\])+/, ''));
    if (!file.startsWith(browserDir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  }

  function proxy(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const relay = new URL(relays[target]!);
    const path = (url.pathname.slice('/api'.length) || '/') + url.search;
    const header = req.headers['last-event-id'];
    const entry: ProxiedRequest = { method: req.method!, path, relay: target, ...(typeof header === 'string' ? { lastEventId: header } : {}) };
    log.push(entry);
    const headers = { ...req.headers, host: relay.host };
    delete headers.connection;
    const upstream = request({ host: relay.hostname, port: relay.port, method: req.method, path, headers, agent: false }, (answer) => {
      entry.status = answer.statusCode;
      res.writeHead(answer.statusCode!, answer.headers);
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('socket', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    upstream.on('error', () => res.destroy());
    req.on('error', () => upstream.destroy());
    res.on('close', () => { if (!res.writableFinished) upstream.destroy(); });
    req.pipe(upstream);
  }

  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;

  const stop = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => front.close(resolve));
    await Promise.all(children.filter((c) => c.exitCode === null).map((c) => {
      c.kill('SIGTERM');
      return new Promise((r) => c.once('exit', r));
    }));
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const redisPort = await freePort();
    await start(children, [REDIS_SERVER, '--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dataDir], /Ready to accept connections/);
    const [, platformUrl] = await start(children, [process.execPath, join(ROOT, 'platform/bin/parley.js'), 'platform', '--port', '0', '--data', join(dataDir, 'platform'), '--token-delay', String(options.tokenDelayMs)],
      /Parley local platform: (http:\/\/\S+?\/v1)/, { PARLEY_API_KEY: '', PARLEY_ADMIN_KEY: '', DATABASE_URL: '' });
    const relayArgs = ['--port', '0', '--upstream', platformUrl!.replace(/\/v1$/, ''), '--redis', `redis://127.0.0.1:${redisPort}`, '--allow-origin', origin,
      '--model', 'parley-local', '--session-streams', '8', '--session-rpm', '6000', '--session-burst', '500', '--address-rpm', '60000', '--address-burst', '5000'];
    const env = { PLATFORM_API_KEY: 'parley-dev-key', PARLEY_RELAY_SECRET: RELAY_SECRET, REDIS_URL: '', PLATFORM_BASE_URL: '', PARLEY_ALLOWED_ORIGINS: '' };
    relays = await Promise.all([0, 1].map(async () => (await start(children, [process.execPath, join(ROOT, 'bin/parley-relay.js'), ...relayArgs], /Parley relay: (http:\/\/\S+)/, env))[1]!));
    return {
      origin,
      relays,
      platformUrl: platformUrl!,
      useRelay(index) { target = index; },
      cut() {
        const n = sockets.size;
        for (const s of sockets) s.destroy();
        return n;
      },
      log,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
