// A visitor on `parley start` (the compiled CLI that `npm start` runs after building): real
// Chromium, the real relay and local platform, one port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from './harness/chromium.js';
import { parleyStartUrl } from './harness/parley-start.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFakeMicWav } from '../browser/server/fake-mic.mjs';

const ROOT = join(import.meta.dirname, '../..');
let child: ChildProcess;
let url: string;
let dataDir: string;
let browser: Browser;
/** What `parley start` printed up to its URL (the banner is one write). */
let banner = '';

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/browser/agent-chat.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-'));
  child = spawn(process.execPath, [join(ROOT, 'platform/bin/parley.js'), 'start', '--port', '0', '--data', dataDir, '--token-delay', '2'], {
    cwd: ROOT, env: { ...process.env, PLATFORM_API_KEY: '', PORT: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  ({ url, banner } = await parleyStartUrl(child));
  // The microphone is a WAV file: a Flite sentence then silence, looped.
  browser = await launchChromium(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${writeFakeMicWav(ROOT)}`]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function send(page: Page, text: string) {
  const input = page.locator('agent-chat [part="input"]');
  await input.fill(text);
  await input.press('Enter');
}

const assistantReplies = (page: Page) => page.locator('agent-chat [part~="message-assistant"]');

describe('the built browser bundle', () => {
  it('holds no key, key variable name or server code', () => {
    const dir = join(ROOT, 'dist/browser');
    const files = readdirSync(dir).filter((f) => f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      for (const needle of ['parley-dev-key', 'parley-dev-admin-key', 'PLATFORM_API_KEY', 'PARLEY_API_KEY', 'PARLEY_RELAY_SECRET', 'PGlite', 'createRelay', 'createPlatform']) {
        expect(text.includes(needle), `${f} contains ${needle}`).toBe(false);
      }
    }
  });
});

describe('the start banner', () => {
  it('prints every demo agent id, the shop page\'s agent among them', async () => {
    const line = banner.split('\n').find((l) => l.trim().startsWith('demo agents'));
    expect(line, banner).toBeDefined();
    const ids = line!.match(/\bag_[0-9a-z]+/gi) ?? [];
    expect(ids).toHaveLength(3);
    const config = await (await fetch(`${url}/demo-config.json`)).json() as { agentId: string; ordersAgentId: string };
    expect(ids).toContain(config.agentId);
    expect(ids).toContain(config.ordersAgentId);
  });
});

describe('a visitor on npm start', () => {
  it('chats with the local agent, uses a page tool, and finds the conversation after a reload', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url + '/');
    await send(page, 'Show me some markdown');
    await expect.poll(async () => (await assistantReplies(page).count()), { timeout: 30_000 }).toBe(1);
    await page.locator('agent-chat [part~="message-assistant"] table').waitFor({ timeout: 30_000 });
    await page.locator('agent-chat [part="send-button"]').waitFor({ timeout: 30_000 });

    // The order-status tool is a JS function of the page; its answer goes back to the agent.
    await send(page, 'What is the status of order 1042?');
    await page.locator('agent-chat [part~="message-assistant"]', { hasText: 'shipped' }).waitFor({ timeout: 30_000 });

    await page.reload();
    await page.locator('agent-chat [part~="message-user"]', { hasText: 'Show me some markdown' }).waitFor({ timeout: 30_000 });
    await page.locator('agent-chat [part~="message-assistant"]', { hasText: 'shipped' }).waitFor({ timeout: 30_000 });
    // The reload may have cut the reply while it streamed (the text shows before it ends): the page resumes
    // it, and the box takes a new message once it has ended (the send button is back).
    await page.locator('agent-chat [part="send-button"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('agent-chat [part~="message-assistant"]', { hasText: 'shipped' }).count(), 'the resumed reply once').toBe(1);

    // And the conversation goes on after the reload (same relay session, resumed).
    await send(page, 'Thanks!');
    await expect.poll(async () => (await page.locator('agent-chat [part~="message-user"]').count()), { timeout: 30_000 }).toBe(3);
    await expect.poll(async () => (await page.locator('agent-chat [part~="message-assistant"]', { hasText: 'Thanks' }).count()), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('opens the shop assistant from the launcher and is handed to Billing', async () => {
    const page = await browser.newPage();
    await page.goto(url + '/shop.html');
    await page.locator('agent-chat [part="launcher"]').click();
    await expect.poll(() => page.evaluate(() => document.querySelector('agent-chat')!.shadowRoot!.activeElement?.getAttribute('part') ?? ''), { timeout: 10_000 }).toBe('input');
    await send(page, 'Please transfer me to Billing');
    await page.locator('agent-chat [part="handoff"]', { hasText: 'Billing' }).waitFor({ timeout: 30_000 });
    // Escape stops a reply that is still streaming; once it has finished, Escape closes the panel.
    await page.locator('agent-chat [part="send-button"]').waitFor({ timeout: 30_000 });
    await page.locator('agent-chat [part="input"]').focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => document.querySelector('agent-chat')!.shadowRoot!.activeElement?.getAttribute('part') ?? ''), { timeout: 10_000 }).toBe('launcher');
    await page.close();
  }, 90_000);

  it('speaks typed text with <speech-player>: first audio, then the end', async () => {
    const page = await browser.newPage();
    await page.goto(url + '/');
    await page.evaluate(() => {
      const w = window as unknown as { speech: string[] };
      w.speech = [];
      for (const type of ['parley-speech-first-audio', 'parley-speech-end', 'parley-speech-error']) {
        document.querySelector('speech-player')!.addEventListener(type, () => w.speech.push(type));
      }
    });
    await page.locator('#speech-text').fill('Hello from the shop. This sentence is spoken by the local engine.');
    await page.locator('speech-player [part="play-button"]').click();
    await expect.poll(() => page.evaluate(() => (window as unknown as { speech: string[] }).speech), { timeout: 30_000 })
      .toEqual(['parley-speech-first-audio', 'parley-speech-end']);
    await page.close();
  }, 60_000);

  it('writes down what is said into the microphone, and holds the chat by voice', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    const frames: string[] = [];
    const sockets: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('websocket', (ws) => {
      sockets.push(new URL(ws.url()).pathname);
      ws.on('framereceived', (f) => frames.push(String(f.payload)));
    });
    await page.goto(url + '/');

    // <audio-transcriber>: record, see the words while speaking, stop, keep them.
    const record = page.locator('audio-transcriber [part="record-button"]');
    await record.click();
    await page.locator('audio-transcriber [part="transcript"]', { hasText: 'fox' }).waitFor({ timeout: 30_000 });
    await record.click();
    await page.locator('audio-transcriber [part="transcript"] .entry', { hasText: 'lazy dog' }).waitFor({ timeout: 30_000 });

    // <agent-chat voice-input>: speak, the words are sent, the agent answers.
    await page.locator('agent-chat [part~="mic-button"]:not([disabled])').click();
    await page.locator('agent-chat [part~="message-user"]', { hasText: 'fox' }).waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await assistantReplies(page).count()), { timeout: 30_000 }).toBeGreaterThan(0);

    expect(sockets.every((p) => p === '/api/v1/audio/transcriptions/realtime')).toBe(true);
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    expect(frames.some((f) => f.includes('transcription.done'))).toBe(true);
    for (const f of frames) expect(f).not.toContain('parley-dev-key');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('reads a picture of a page on the documents page', async () => {
    const page = await browser.newPage();
    await page.goto(url + '/documents.html');
    await page.locator('doc-ocr-viewer input[type="file"]').setInputFiles(join(ROOT, 'test/fixtures/ocr/hello.png'));
    await page.locator('doc-ocr-viewer [part="page"]', { hasText: /parley/i }).waitFor({ timeout: 60_000 });
    await page.close();
  }, 90_000);

  // The browser suites test the elements from source; the bundle's Lit templates are minified at build
  // (vite.config.ts: CSS by Lightning CSS, HTML collapsed). axe on the built elements, in the states where
  // styles matter most, catches a minification that broke a rule, a contrast or a name.
  it('the built (minified) elements pass axe: chat with a reply, dark theme, phone-sized open launcher, a read document', async () => {
    const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
    const audit = async (page: Page, tags: string[]) => {
      await page.addScriptTag({ path: axePath });
      return page.evaluate(async (include) => {
        const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> } }).axe;
        const { violations } = await axe.run({ include: include.map((tag) => [tag]) }, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } });
        return violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
      }, tags);
    };
    const home = await browser.newPage();
    await home.goto(url + '/');
    await send(home, 'Write **bold** text, a list and `code`');
    await home.locator('agent-chat [part="send-button"]').waitFor({ timeout: 30_000 });
    expect(await assistantReplies(home).count()).toBeGreaterThan(0);
    expect(await audit(home, ['agent-chat', 'speech-player', 'audio-transcriber'])).toEqual([]);
    await home.evaluate(() => document.querySelectorAll('agent-chat, speech-player, audio-transcriber').forEach((el) => el.setAttribute('theme', 'dark')));
    expect(await audit(home, ['agent-chat', 'speech-player', 'audio-transcriber'])).toEqual([]);
    await home.close();

    const phone = await browser.newPage({ viewport: { width: 375, height: 740 } });
    await phone.goto(url + '/shop.html');
    await phone.locator('agent-chat [part="launcher"]').click();
    await phone.locator('agent-chat [part="input"]').waitFor({ timeout: 10_000 });
    expect(await audit(phone, ['agent-chat'])).toEqual([]);
    await phone.close();

    const docs = await browser.newPage();
    await docs.goto(url + '/documents.html');
    await docs.locator('doc-ocr-viewer input[type="file"]').setInputFiles(join(ROOT, 'test/fixtures/ocr/hello.png'));
    await docs.locator('doc-ocr-viewer [part="page"]', { hasText: /parley/i }).waitFor({ timeout: 60_000 });
    expect(await audit(docs, ['doc-ocr-viewer'])).toEqual([]);
    await docs.close();
  }, 120_000);

  it('tracks an order with a tool the platform runs over MCP (the demo connector)', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url + '/orders.html');
    await send(page, 'What is the status of order 1042?');
    // The answer quotes the demo MCP server's record (carrier and tracking number are only there).
    await page.locator('agent-chat [part~="message-assistant"]', { hasText: 'CE-88120042' }).waitFor({ timeout: 60_000 });
    const call = page.locator('agent-chat [part~="tool-call"]');
    await expect(call.count()).resolves.toBe(1);
    expect(await call.textContent()).toContain('get_order_status');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('never sends the platform key to the browser', async () => {
    const page = await browser.newPage();
    const bodies: string[] = [];
    page.on('response', async (r) => { try { bodies.push(await r.text()); } catch { /* redirects, aborted */ } });
    await page.goto(url + '/');
    await send(page, 'hello');
    await assistantReplies(page).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(300);
    expect(bodies.length).toBeGreaterThan(3);
    for (const body of bodies) expect(body).not.toContain('parley-dev-key');
    await page.close();
  }, 60_000);
});
