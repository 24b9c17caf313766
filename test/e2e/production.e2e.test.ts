// The relay in production, as a site owner deploys it: a real redis-server, the local platform as the
// upstream, two `parley-relay` processes on that Redis behind one port (a round-robin TCP balancer), the
// element bundle on a "CDN" origin and the page on a third origin. A visitor chats in Chromium; the
// operator revokes the session; the open streams on both instances end and the token is refused by both.
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, connect, type Server as TcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { type Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from './harness/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const REDIS = '/usr/bin/redis-server';
const RELAY_SECRET = 'e2e-relay-signing-secret-0123456789abcdef';
const OPERATOR_SECRET = 'e2e-operator-secret-0123456789abcdefghij';

const children: ChildProcess[] = [];
const servers: Array<Server | TcpServer> = [];
let dataDir: string;
let browser: Browser;
let relays: string[] = [];
let balancer: string;
let pageOrigin: string;

/** Spawns a command and resolves with the first match of `pattern` in its output. */
function start(args: string[], pattern: RegExp, env: Record<string, string> = {}): Promise<RegExpMatchArray> {
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

function listen(server: Server | TcpServer): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/browser/agent-chat.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  if (!existsSync(REDIS)) throw new Error('redis-server not found: apt-get install -y redis-server');
  dataDir = mkdtempSync(join(tmpdir(), 'parley-prod-e2e-'));

  const redisPort = await listen(createTcpServer()).then(async (port) => {
    await new Promise((r) => (servers.pop() as TcpServer).close(r));
    return port;
  });
  await start([REDIS, '--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dataDir], /Ready to accept connections/);

  // Slow tokens, so a reply is still streaming when the operator revokes the session.
  const [, platformUrl] = await start([process.execPath, join(ROOT, 'platform/bin/parley.js'), 'platform', '--port', '0', '--data', join(dataDir, 'platform'), '--token-delay', '150'],
    /Parley local platform: (http:\/\/\S+?)\/v1/, { PARLEY_API_KEY: '', PARLEY_ADMIN_KEY: '' });

  // The page: on its own origin (localhost), loading the element from the CDN origin.
  const page = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html lang="en"><title>Shop</title><main>
      <agent-chat relay-url="${balancer}" model="parley-local" resume="none"></agent-chat></main>
      <script type="module" src="${cdn}/agent-chat.js"></script>`);
  });
  const pagePort = await listen(page);
  pageOrigin = `http://localhost:${pagePort}`;

  // The CDN: parley-kit's dist/browser as jsDelivr would serve it (CORS for any page).
  const browserDir = join(ROOT, 'dist/browser');
  const cdnServer = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url!, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(browserDir, path);
    res.setHeader('access-control-allow-origin', '*');
    if (!file.startsWith(browserDir) || !existsSync(file) || !statSync(file).isFile()) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', TYPES[extname(file)] ?? 'application/octet-stream');
    createReadStream(file).pipe(res);
  });
  const cdn = `http://127.0.0.1:${await listen(cdnServer)}`;

  // Two relay instances on one Redis.
  const relayArgs = ['--port', '0', '--upstream', platformUrl!, '--redis', `redis://127.0.0.1:${redisPort}`,
    '--allow-origin', pageOrigin, '--model', 'parley-local', '--session-streams', '4'];
  const env = { PLATFORM_API_KEY: 'parley-dev-key', PARLEY_RELAY_SECRET: RELAY_SECRET, PARLEY_OPERATOR_SECRET: OPERATOR_SECRET };
  relays = await Promise.all([0, 1].map(async () => {
    const [, url] = await start([process.execPath, join(ROOT, 'bin/parley-relay.js'), ...relayArgs], /Parley relay: (http:\/\/\S+)/, env);
    return url!;
  }));

  // One port in front of both: connections alternate between the instances.
  let next = 0;
  const lb = createTcpServer((socket) => {
    const target = new URL(relays[next++ % relays.length]!);
    const upstream = connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    const close = () => { socket.destroy(); upstream.destroy(); };
    socket.on('error', close);
    upstream.on('error', close);
    socket.on('close', close);
    upstream.on('close', close);
  });
  balancer = `http://127.0.0.1:${await listen(lb)}`;

  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const s of servers) (s as Server).closeAllConnections?.();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await Promise.all(children.filter((c) => c.exitCode === null).map((c) => {
    c.kill('SIGTERM');
    return new Promise((r) => c.once('exit', r));
  }));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Opens a streamed conversation directly on one instance with the page's token; resolves when the stream ends. */
async function openStream(relay: string, token: string): Promise<{ firstEvent: Promise<void>; ended: Promise<{ text: string; at: number }> }> {
  const response = await fetch(`${relay}/v1/conversations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: pageOrigin, accept: 'text/event-stream' },
    body: JSON.stringify({ model: 'parley-local', inputs: 'Tell me a long story about a lighthouse keeper and the sea.', stream: true }),
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  let text = '';
  let gotFirst!: () => void;
  const firstEvent = new Promise<void>((r) => { gotFirst = r; });
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (text.includes('\n\n')) gotFirst();
      }
    } catch { /* a cut connection ends the stream too */ }
    return { text, at: Date.now() };
  })();
  return { firstEvent, ended };
}

describe('two relay instances on one Redis, behind one port, embedded from another origin', () => {
  it('a visitor chats; the operator revokes the session; both instances cut it off', { timeout: 180_000 }, async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    let session: { token: string; session_id: string } | undefined;
    page.on('response', (r) => {
      // The page's first session (after the revocation the element may open a new one).
      if (!session && r.url() === `${balancer}/session` && r.request().method() === 'POST' && r.status() === 200) {
        r.json().then((body) => { session ??= body; }, () => {});
      }
    });
    await page.goto(`${pageOrigin}/`);

    const input = page.locator('agent-chat [part="input"]');
    await input.fill('Hello there');
    await input.press('Enter');
    const replies = page.locator('agent-chat [part~="message-assistant"]');
    await expect.poll(async () => replies.count(), { timeout: 60_000 }).toBe(1);
    await page.locator('agent-chat [part="send-button"]').waitFor({ timeout: 60_000 });
    expect((await replies.first().innerText()).trim().length).toBeGreaterThan(0);
    expect(session?.session_id).toMatch(/^ses_/);

    // The same token works on both instances (shared signing secret, shared ownership).
    for (const relay of relays) {
      const list = await fetch(`${relay}/v1/conversations`, { headers: { authorization: `Bearer ${session!.token}`, origin: pageOrigin } });
      expect(list.status, relay).toBe(200);
    }

    // A reply streaming in the page, and one stream open on each instance.
    await page.evaluate(() => {
      const w = window as unknown as { errors: Array<{ code?: string; at: number }> };
      w.errors = [];
      document.querySelector('agent-chat')!.addEventListener('parley-error', (e) => {
        w.errors.push({ code: (e as CustomEvent).detail?.error?.code, at: Date.now() });
      });
    });
    await input.fill('Tell me a long story about a lighthouse keeper and the sea.');
    await input.press('Enter');
    await expect.poll(async () => (await replies.count()) >= 2 && (await replies.nth(1).innerText()).trim().length > 0, { timeout: 30_000 }).toBe(true);
    const streams = await Promise.all(relays.map((r) => openStream(r, session!.token)));
    await Promise.all(streams.map((s) => s.firstEvent));

    // The operator revokes through the balancer (either instance).
    const revokedAt = Date.now();
    const revoked = await fetch(`${balancer}/operator/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR_SECRET}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: session!.session_id }),
    });
    expect(revoked.status).toBe(200);

    const ends = await Promise.all(streams.map((s) => s.ended));
    for (const end of ends) expect(end.text).not.toMatch(/conversation\.response\.done/);
    await expect.poll(() => page.evaluate(() => (window as unknown as { errors: unknown[] }).errors.length), { timeout: 30_000 }).toBeGreaterThan(0);
    const pageEnd = await page.evaluate(() => (window as unknown as { errors: Array<{ at: number }> }).errors[0]!.at);
    console.log(`operator revoke sent → streams ended after ${ends.map((e) => e.at - revokedAt).join(' ms, ')} ms (direct, instances A and B); the page's stream after ${pageEnd - revokedAt} ms`);

    // The revoked token is refused by both instances.
    for (const relay of relays) {
      const list = await fetch(`${relay}/v1/conversations`, { headers: { authorization: `Bearer ${session!.token}`, origin: pageOrigin } });
      expect(list.status, relay).toBe(401);
    }
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
