// A site owner embedding <agent-chat> from `parley start --allow-origin`: the page is served by another
// server (another origin), loads the element bundle from parley start's /assets (as from a CDN) and talks
// to its relay cross-origin. A page on an origin not listed gets the readable refusal.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, get, type IncomingHttpHeaders, type Server } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from './harness/chromium.js';
import { parleyStartUrl } from './harness/parley-start.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'platform/bin/parley.js');
let child: ChildProcess;
let url: string;
let dataDir: string;
let browser: Browser;
let allowedPage: { server: Server; origin: string };
let refusedPage: { server: Server; origin: string };

/** A page server on a free loopback port; its page is filled in once parley start's URL is known. */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html><head><title>Shop</title>
<script type="module" src="${url}/assets/agent-chat.js"></script></head>
<body><agent-chat relay-url="${url}/api" model="parley-local" resume="none"></agent-chat></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { server, origin: `http://127.0.0.1:${address.port}` };
}

/** A GET with the bytes as sent (fetch would decode the content coding itself). */
function rawGet(target: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(target, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/browser/agent-chat.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  allowedPage = await pageServer();
  refusedPage = await pageServer();
  dataDir = mkdtempSync(join(tmpdir(), 'parley-embed-'));
  child = spawn(process.execPath, [CLI, 'start', '--port', '0', '--data', dataDir, '--token-delay', '2', '--allow-origin', allowedPage.origin], {
    cwd: ROOT, env: { ...process.env, PLATFORM_API_KEY: '', PORT: '', PARLEY_ALLOWED_ORIGINS: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  ({ url } = await parleyStartUrl(child));
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  await Promise.all([allowedPage, refusedPage].map((p) => p && new Promise((r) => p.server.close(r))));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('parley start --allow-origin', () => {
  it('serves the element bundles to any origin: CORS, revalidated entries, immutable hashed chunks, brotli', async () => {
    // identity both times: each coding has its own ETag, and fetch would otherwise ask for gzip/br.
    const entry = await fetch(`${url}/assets/agent-chat.js`, { headers: { origin: allowedPage.origin, 'accept-encoding': 'identity' } });
    expect(entry.status).toBe(200);
    expect(entry.headers.get('access-control-allow-origin')).toBe('*');
    expect(entry.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(entry.headers.get('x-content-type-options')).toBe('nosniff');
    expect(entry.headers.get('cache-control')).toBe('public, no-cache');
    const etag = entry.headers.get('etag')!;
    const source = await entry.text();
    const again = await fetch(`${url}/assets/agent-chat.js`, { headers: { 'if-none-match': etag, 'accept-encoding': 'identity' } });
    expect(again.status).toBe(304);

    // A chunk the entry imports: content-hashed, cached for good, sent with brotli to a browser that takes it.
    const chunk = /from"\.\/([\w.-]+-[\w-]{8}\.js)"/.exec(source)?.[1];
    expect(chunk, 'the entry imports a hashed chunk').toBeTruthy();
    const hashed = await rawGet(`${url}/assets/${chunk}`, { origin: refusedPage.origin, 'accept-encoding': 'gzip, deflate, br' });
    expect(hashed.status).toBe(200);
    expect(hashed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(hashed.headers['access-control-allow-origin']).toBe('*');
    expect(hashed.headers.vary).toBe('Accept-Encoding');
    expect(hashed.headers['content-encoding']).toBe('br');
    const plain = await rawGet(`${url}/assets/${chunk}`, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(brotliDecompressSync(hashed.body).equals(plain.body)).toBe(true);
    console.log(`[embed] ${chunk}: ${plain.body.length} bytes, ${hashed.body.length} with brotli`);
    expect((await fetch(`${url}/assets/../package.json`)).status).toBe(404);
    expect((await fetch(`${url}/assets/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
  });

  it('the relay opens sessions for the allowed origin, and refuses another one readably', async () => {
    const ok = await fetch(`${url}/api/session`, { method: 'POST', headers: { origin: allowedPage.origin, 'content-type': 'application/json' }, body: '{}' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(allowedPage.origin);
    expect((await ok.json()).token).toBeTruthy();
    const refused = await fetch(`${url}/api/session`, { method: 'POST', headers: { origin: refusedPage.origin, 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBe(refusedPage.origin);
    expect((await refused.json()).code).toBe('origin_not_allowed');
  });

  it('a page on the allowed origin embeds <agent-chat> from /assets and chats', async () => {
    const page = await browser.newPage();
    const failures: string[] = [];
    // A stream the client closes once the reply is complete shows as ERR_ABORTED; anything else (a CORS refusal) fails.
    page.on('requestfailed', (r) => { if (r.failure()?.errorText !== 'net::ERR_ABORTED') failures.push(`${r.url()} ${r.failure()?.errorText}`); });
    await page.goto(`${allowedPage.origin}/`);
    // The end of the turn as the page sees it: parley-reply-finished (the session turned ready after streaming).
    await page.evaluate(() => document.addEventListener('parley-reply-finished', () => {
      (window as unknown as { replyFinished: boolean }).replyFinished = true;
    }, { once: true }));
    const input = page.locator('agent-chat [part="input"]');
    await input.fill('Hello from the shop');
    await input.press('Enter');
    await page.locator('agent-chat [part~="message-assistant"]').first().waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => (window as unknown as { replyFinished?: boolean }).replyFinished === true, undefined, { timeout: 30_000 });
    expect(await page.locator('agent-chat [part="error"]').count()).toBe(0);
    expect((await page.locator('agent-chat [part~="message-assistant"]').first().textContent())!.trim().length).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    await page.close();
  });

  it('a page on an origin not allowed: the site owner reads why in the console, the visitor a neutral line', async () => {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    await page.goto(`${refusedPage.origin}/`);
    await page.evaluate(() => {
      (window as unknown as { parleyErrors: unknown[] }).parleyErrors = [];
      document.addEventListener('parley-error', (e) => (window as unknown as { parleyErrors: unknown[] }).parleyErrors.push((e as CustomEvent).detail.error.code));
    });
    const input = page.locator('agent-chat [part="input"]');
    await input.fill('Hello?');
    await input.press('Enter');
    const error = page.locator('agent-chat [part="error"]');
    await error.waitFor({ timeout: 30_000 });
    expect((await error.textContent())!.trim()).toBe('This assistant is not available on this page.');
    expect(await page.evaluate(() => (window as unknown as { parleyErrors: unknown[] }).parleyErrors)).toContain('origin_not_allowed');
    const note = consoleErrors.find((t) => t.includes('origin_not_allowed'));
    expect(note, consoleErrors.join(' | ')).toContain(refusedPage.origin);
    expect(note).toContain(`--allow-origin ${refusedPage.origin}`);
    await page.close();
  });

  it('refuses a malformed --allow-origin at start with a clear message', () => {
    const run = spawnSync(process.execPath, [CLI, 'start', '--port', '0', '--data', dataDir, '--allow-origin', 'https://shop.example/path'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--allow-origin needs an origin like https://shop.example");
  });

  it('refuses a malformed --public-origin at start with a clear message', () => {
    const run = spawnSync(process.execPath, [CLI, 'start', '--port', '0', '--data', dataDir, '--public-origin', 'devbox.lan:8787'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--public-origin needs an origin like http://devbox.lan:8787');
  });
});
