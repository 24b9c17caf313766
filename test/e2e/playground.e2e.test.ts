// The playground (/playground under `parley start`) as a site owner uses it: make a dark, right-to-left launcher
// that speaks its replies, copy the embed code, paste it into a blank page served from another origin, run the
// relay command it printed (against this test's local platform) and chat on that page. Axe finds nothing on the
// playground, and neither page logs a console error.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startParley, type ParleyStart } from './harness/parley-start.js';
import { freePort } from '../browser/server/free-port.mjs';

let parley: ParleyStart;
let blank: { server: Server; origin: string; html: string };
let relayPort: number;
const relays: ChildProcess[] = [];
let tmp: string;

/** A page server on a free loopback port that serves `blank.html` (the pasted snippet) in an empty page. */
async function blankPageServer(): Promise<{ server: Server; origin: string; html: string }> {
  const state = { html: '' } as { server: Server; origin: string; html: string };
  state.server = createServer((req, res) => {
    if (req.url !== '/') { res.statusCode = 404; res.end(); return; }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>My shop</title></head><body><main><h1>My shop</h1></main>\n${state.html}</body></html>`);
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.origin = `http://127.0.0.1:${(state.server.address() as { port: number }).port}`;
  return state;
}

/** Runs a printed shell command line (in the kit's folder, where `npx parley-relay` is the kit's own bin) until it prints its URL. */
function runRelay(commandLine: string): Promise<{ child: ChildProcess; url: string }> {
  const env = { ...process.env, npm_config_offline: 'true' } as Record<string, string | undefined>;
  for (const name of ['PLATFORM_API_KEY', 'PLATFORM_BASE_URL', 'PORT', 'PARLEY_ALLOWED_ORIGINS', 'PARLEY_AGENTS', 'PARLEY_MODELS', 'PARLEY_SCOPES', 'PARLEY_RELAY_CONFIG', 'REDIS_URL']) delete env[name];
  const child = spawn('sh', ['-c', commandLine], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  relays.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the relay did not come up: ${out}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /Parley relay: (http:\/\/\S+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ child, url: m[1]! }); }
    });
    child.stderr!.on('data', (d) => { out += d; });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`the relay exited ${code}: ${out}`)); });
  });
}

async function stopRelay(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
}

/** Console errors and uncaught exceptions of `page`. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`); });
  return errors;
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const { violations } = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } });
    return violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

/** The pasted snippet in the blank page (the relay it printed running at `relayUrl`): open the launcher, send, get a streamed reply. */
async function chatsOnBlankPage(snippet: string, relayUrl: string): Promise<void> {
  expect(snippet).toContain(`relay-url="${relayUrl}"`);
  blank.html = snippet;
  const page = await parley.browser.newPage();
  const errors = watchErrors(page);
  await page.goto(`${blank.origin}/`);
  const chat = page.locator('agent-chat');
  expect(await chat.getAttribute('theme')).toBe('dark');
  expect(await chat.getAttribute('dir')).toBe('rtl');
  await page.evaluate(() => document.addEventListener('parley-reply-finished', () => {
    (window as unknown as { replyFinished: boolean }).replyFinished = true;
  }, { once: true }));
  await page.locator('agent-chat [part="launcher"]').click();
  const input = page.locator('agent-chat [part="input"]');
  await input.fill('Hello from my shop');
  await input.press('Enter');
  await page.waitForFunction(() => (window as unknown as { replyFinished?: boolean }).replyFinished === true, undefined, { timeout: 60_000 });
  expect(await page.locator('agent-chat [part="error"]').count()).toBe(0);
  expect((await page.locator('agent-chat [part~="message-assistant"]').first().textContent())!.trim().length).toBeGreaterThan(0);
  expect(await chat.evaluate((e) => getComputedStyle(e).getPropertyValue('--parley-color-accent').trim())).toBe('#ff8a00');
  expect(errors).toEqual([]);
  await page.close();
}

beforeAll(async () => {
  parley = await startParley();
  blank = await blankPageServer();
  relayPort = await freePort();
  tmp = mkdtempSync(join(tmpdir(), 'parley-playground-'));
}, 200_000);

afterAll(async () => {
  for (const child of relays) await stopRelay(child);
  await parley?.close();
  if (blank) await new Promise((r) => blank.server.close(r));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the playground', () => {
  let snippet = '';

  it('builds its controls from the manifest, updates the live element, validates JSON and passes axe', async () => {
    const context = await parley.browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: parley.url });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${parley.url}/playground`);
    await page.locator('body[data-ready="true"]').waitFor({ timeout: 30_000 });

    // Every attribute and settable property of <agent-chat> in the manifest has a control (labelled by its name).
    const manifest = await (await fetch(`${parley.url}/custom-elements.json`)).json() as { modules: { declarations?: { tagName?: string; attributes?: { name: string }[]; cssProperties?: { name: string }[] }[] }[] };
    const chat = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'agent-chat')!;
    for (const attribute of chat.attributes!) expect(await page.getByLabel(attribute.name, { exact: true }).count(), attribute.name).toBe(1);
    for (const property of ['tools (property)', 'strings (property)', 'toolDefinitions (property)', 'voiceOptions (property)']) {
      expect(await page.getByLabel(property, { exact: true }).count(), property).toBe(1);
    }
    for (const css of chat.cssProperties!) {
      expect(await page.locator(`#css-light${css.name.replace(/^-+/, '-')}`).count(), css.name).toBe(1);
      expect(await page.locator(`#css-dark${css.name.replace(/^-+/, '-')}`).count(), css.name).toBe(1);
    }

    // Another element: its own controls from the manifest, and it replaces the live element.
    await page.locator('#element-select').selectOption('speech-player');
    await page.locator('#preview-frame speech-player').waitFor();
    expect(await page.getByLabel('rate', { exact: true }).count()).toBe(1);
    expect(await page.getByLabel('mode', { exact: true }).count()).toBe(0);
    expect(await page.locator('#preview-frame agent-chat').count()).toBe(0);
    await page.locator('#element-select').selectOption('agent-chat');
    await page.locator('#preview-frame agent-chat').waitFor();

    // A dark, right-to-left launcher with speech, a dark accent colour, starters and a tool.
    await page.getByLabel('theme', { exact: true }).selectOption('dark');
    await page.getByLabel('mode', { exact: true }).selectOption('launcher');
    await page.getByLabel('speak-replies', { exact: true }).check();
    await page.locator('#page-dir').selectOption('rtl');
    await page.locator('#css-dark-parley-color-accent').fill('#ff8a00');
    const starters = page.getByLabel('starters', { exact: true });
    await starters.fill('["Where is my order?", 42');
    expect(await starters.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await starters.getAttribute('id')}-error`).textContent()).toContain('Not valid JSON');
    await starters.fill('["Where is my order?"]');
    expect(await starters.getAttribute('aria-invalid')).toBeNull();
    await page.getByLabel('tools (property)', { exact: true }).fill('{ "get_order_status": { "status": "shipped" } }');

    // The live element follows, talking to this server's relay.
    const live = page.locator('#preview-frame agent-chat');
    expect(await live.getAttribute('theme')).toBe('dark');
    expect(await live.getAttribute('mode')).toBe('launcher');
    expect(await live.getAttribute('dir')).toBe('rtl');
    expect(await live.getAttribute('speak-replies')).toBe('');
    expect(await live.getAttribute('relay-url')).toBe('/api');
    expect(await live.evaluate((e) => getComputedStyle(e).getPropertyValue('--parley-color-accent').trim())).toBe('#ff8a00');
    expect(await live.evaluate((e) => typeof (e as unknown as { tools: Record<string, () => unknown> }).tools.get_order_status)).toBe('function');
    await page.locator('input[name="page-width"][value="phone"]').check();
    expect(await page.locator('#preview-frame').evaluate((e) => e.clientWidth)).toBe(390);

    // The relay: this page's origin for the blank page, a free port, the bundle from this server (no CDN in tests).
    await page.locator('#relay-origin').fill(`${blank.origin}/path`);
    expect(await page.locator('#relay-origin-error').textContent()).toContain('An origin');
    expect(await page.locator('#copy-code').isDisabled()).toBe(true);
    await page.locator('#relay-origin').fill(blank.origin);
    await page.locator('#relay-port').fill(String(relayPort));
    const cdn = await page.locator('#embed-code').inputValue();
    const version = (await (await fetch(`${parley.url}/playground-config.json`)).json() as { version: string }).version;
    expect(cdn).toContain(`<script type="module" src="https://cdn.jsdelivr.net/npm/parley-kit@${version}/dist/browser/agent-chat.js"></script>`);
    await page.locator('input[name="script-source"][value="local"]').check();

    expect(await axeViolations(page)).toEqual([]);

    await page.locator('#copy-code').click();
    await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Copied the embed code.');
    snippet = await page.evaluate(() => navigator.clipboard.readText());
    expect(snippet).toBe(await page.locator('#embed-code').inputValue());
    expect(errors).toEqual([]);
    await context.close();

    expect(snippet).toContain(`<script type="module" src="${parley.url}/assets/agent-chat.js"></script>`);
    expect(snippet).toMatch(/<agent-chat relay-url="http:\/\/127\.0\.0\.1:\d+" [^>]*mode="launcher"[^>]* speak-replies[^>]* theme="dark"[^>]* dir="rtl"><\/agent-chat>/);
    expect(snippet).toContain('agent-chat[theme="dark"] {\n  --parley-color-accent: #ff8a00;\n}');
    expect(snippet).toContain('element.starters = ["Where is my order?"];');
    expect(snippet).toMatch(/element\.tools = \{\n {4}"get_order_status": \(args\) => \(\{"status":"shipped"\}\),/);
  });

  it('the copied code, pasted into a blank page on another origin next to the relay it printed, chats', async () => {
    expect(snippet, 'the first test copied the code').not.toBe('');
    const command = /^\s*(.*npx parley-relay --port .*)$/m.exec(snippet)?.[1];
    expect(command).toContain(`--port ${relayPort} --upstream ${parley.url} --allow-origin ${blank.origin}`);
    expect(command).toMatch(/--agent ag_\S+/);
    expect(command).toContain('--scope speech');
    const relay = await runRelay(command!);
    try {
      await chatsOnBlankPage(snippet, relay.url);
    } finally {
      await stopRelay(relay.child);
    }
  });

  it('the printed config file starts the same relay: the page chats through it too', async () => {
    const file = /relay\.json:\n\n([\s\S]*?)\n\n/.exec(snippet)?.[1];
    expect(file).toBeTruthy();
    const config = JSON.parse(file!) as { port: number; allowedOrigins: string[]; agents: string[]; scopes: string[] };
    expect(config).toMatchObject({ port: relayPort, allowedOrigins: [blank.origin] });
    expect(config.scopes).toEqual(expect.arrayContaining(['conversations', 'speech']));
    writeFileSync(join(tmp, 'relay.json'), file!);
    const command = /^\s*(.*npx parley-relay --config relay\.json)$/m.exec(snippet)?.[1];
    expect(command).toBeTruthy();
    const relay = await runRelay(command!.replace('relay.json', join(tmp, 'relay.json')));
    try {
      // Another origin than the one chosen is refused; the chosen one chats as with the flags.
      const refused = await fetch(`${relay.url}/session`, { method: 'POST', headers: { origin: parley.url, 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(403);
      await chatsOnBlankPage(snippet, relay.url);
    } finally {
      await stopRelay(relay.child);
    }
  });
});
