// The shop's pages as the shop agent's library, on `parley start` (the compiled CLI that `npm start` runs): a
// visitor on the shop page asks how long they have to return a lamp, in real Chromium through the real relay,
// and is answered from the returns page; the conversation's history holds the document_library execution and a
// tool_reference to the returns page, which the server serves. A second start on the same data finds the same
// library with the same four documents and gives the agent no second library tool.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from './harness/chromium.js';
import { parleyStartUrl } from './harness/parley-start.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const KEY = 'parley-dev-key';
const QUESTION = 'How long do I have to return a lamp?';

interface Started { child: ChildProcess; url: string; banner: string }

let dataDir: string;
let browser: Browser;
let server: Started | undefined;

/** `parley start` on a free port over `dataDir`; resolves with its URL once the banner is printed. */
function start(): Promise<Started> {
  const child = spawn(process.execPath, [join(ROOT, 'platform/bin/parley.js'), 'start', '--port', '0', '--data', dataDir, '--token-delay', '2'], {
    cwd: ROOT, env: { ...process.env, PLATFORM_API_KEY: '', PORT: '', PARLEY_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parleyStartUrl(child).then(({ url, banner }) => ({ child, url, banner }));
}

async function stop(s: Started | undefined) {
  if (s && s.child.exitCode === null) {
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
  }
}

/** A call to the local platform's API (same port, the dev key). */
async function api(path: string): Promise<any> {
  const res = await fetch(server!.url + path, { headers: { authorization: `Bearer ${KEY}` } });
  expect(res.status, path).toBe(200);
  return res.json();
}

const libraryLine = (banner: string) => banner.split('\n').find((l) => l.trim().startsWith('shop library'));

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/browser/agent-chat.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-library-'));
  server = await start();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stop(server);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the shop agent answers from the shop pages', () => {
  it('answers "how long do I have to return a lamp?" from the returns page, and cites it', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(server!.url + '/shop.html');
    await page.locator('agent-chat [part="launcher"]').click();
    const input = page.locator('agent-chat [part="input"]');
    await input.fill(QUESTION);
    await input.press('Enter');
    const reply = page.locator('agent-chat [part~="message-assistant"]', { hasText: 'You have 30 days from the day your lamp is delivered to return it' });
    await reply.waitFor({ timeout: 60_000 });
    await page.locator('agent-chat [part="send-button"]').waitFor({ timeout: 30_000 });
    // The reply shows its source: a numbered marker in the text and the collapsed Sources list naming the
    // returns page, its host and the passage; opened, the title links to the page.
    await expect.poll(() => reply.locator('sup.parley-source-marker').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const sources = reply.locator('[part="sources"]');
    await sources.waitFor({ timeout: 30_000 });
    expect(await sources.getAttribute('open')).toBeNull();
    await sources.locator('summary').click();
    const source = sources.locator('[part="source"]').first();
    await expect.poll(() => source.isVisible()).toBe(true);
    expect(await source.locator('.source-title').textContent()).toBe('Returns');
    expect(await source.locator('.source-host').textContent()).toBe(new URL(server!.url).hostname);
    expect(await source.locator('.source-description').textContent()).toContain('30 days');
    expect(await source.locator('a.source-title').getAttribute('href')).toBe(`${server!.url}/shop/returns`);
    expect(errors).toEqual([]);
    await page.close();

    // The conversation, as the platform stores it: the library search, then the reply citing the returns page.
    const { agentId } = await (await fetch(`${server!.url}/demo-config.json`)).json() as { agentId: string };
    const conversations = await api('/v1/conversations?page_size=20');
    let history: any[] = [];
    for (const c of conversations) {
      const entries = (await api(`/v1/conversations/${c.id}/history`)).entries;
      if (entries.some((e: any) => e.type === 'message.input' && JSON.stringify(e.content).includes(QUESTION))) history = entries;
    }
    expect(history.map((e) => e.type)).toEqual(['message.input', 'tool.execution', 'message.output']);
    expect(history[1]).toMatchObject({ name: 'document_library', agent_id: agentId });
    const message = history[2];
    expect(message.content[0].text).toContain('You have 30 days from the day your lamp is delivered to return it');
    const reference = message.content.find((c: any) => c.type === 'tool_reference');
    expect(reference).toMatchObject({ tool: 'document_library', title: 'Returns', url: `${server!.url}/shop/returns`, description: expect.stringContaining('30 days') });

    // The reference's URL is the shop's returns page.
    const returns = await fetch(reference.url);
    expect(returns.status).toBe(200);
    expect(await returns.text()).toContain('You have 30 days from the day your lamp is delivered to return it');
  }, 120_000);

  it('loads the library once: a second start finds the same four pages and one library tool', async () => {
    const first = libraryLine(server!.banner);
    expect(first, server!.banner).toBeDefined();
    const libraryId = first!.match(/[0-9a-f]{8}-[0-9a-f-]{27}/)![0];
    const before = (await api(`/v1/libraries/${libraryId}/documents`)).data.map((d: any) => d.id).sort();
    expect(before).toHaveLength(4);

    await stop(server);
    server = await start();
    expect(libraryLine(server.banner)).toContain(libraryId);
    const after = (await api(`/v1/libraries/${libraryId}/documents`)).data;
    expect(after.map((d: any) => d.id).sort()).toEqual(before);
    expect(after.every((d: any) => d.attributes.url.startsWith(`${server!.url}/shop/`))).toBe(true);
    expect((await api('/v1/libraries')).data.filter((l: any) => l.id === libraryId || l.name === 'Lumen Lamps shop pages')).toHaveLength(1);
    const { agentId } = await (await fetch(`${server.url}/demo-config.json`)).json() as { agentId: string };
    const agent = await api(`/v1/agents/${agentId}`);
    expect(agent.tools.filter((t: any) => t.type === 'document_library')).toEqual([{ type: 'document_library', library_ids: [libraryId] }]);
  }, 150_000);
});
