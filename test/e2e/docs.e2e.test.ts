// The reference site as a site owner opens it: `parley start` serving dist/docs at /docs/ (npm run build writes it),
// in Chromium. Every manifest member is on its element's page (as rendered), the live example's element runs against
// the real relay, axe finds nothing and the console stays free of errors.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startParley, type ParleyStart } from './harness/parley-start.js';
// @ts-expect-error -- a plain ES module shared with the command line (npm run docs).
import { SECTIONS, elementModels, memberId } from '../../scripts/manifest-model.mjs';

interface Section { key: string; id: string; anchor: string; title: string }
type Element = Record<string, { name: string }[]> & { tag: string };

let parley: ParleyStart;
/** examples/plain-html as its own site: files served on another loopback port (another origin than the relay's). */
let site: Server;
let siteOrigin: string;
beforeAll(async () => {
  site = createServer((req, res) => {
    const file = { '/': 'index.html', '/index.html': 'index.html', '/app.js': 'app.js' }[new URL(req.url ?? '/', 'http://x').pathname];
    if (!file) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8' });
    res.end(readFileSync(join(ROOT, 'examples/plain-html', file)));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  parley = await startParley(['--allow-origin', siteOrigin]);
});
afterAll(async () => {
  await parley?.close();
  await new Promise((resolve) => site?.close(resolve));
});

/** A page of the docs with its console errors and uncaught exceptions collected. */
async function open(path: string): Promise<{ page: Page; errors: string[] }> {
  const page = await parley.browser.newPage();
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${String(e)}`));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`); });
  const response = await page.goto(parley.url + path, { waitUntil: 'load' });
  expect(response?.status(), path).toBe(200);
  return { page, errors };
}

async function axe(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const { violations } = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
    return violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
}

describe('the reference site under parley start', () => {
  it('/docs redirects to the index, which links every element page and guide', async () => {
    const { page, errors } = await open('/docs');
    expect(new URL(page.url()).pathname).toBe('/docs/');
    const links = await page.locator('main a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).getAttribute('href')));
    expect(links).toEqual(expect.arrayContaining(['agent-chat.html', 'speech-player.html', 'audio-transcriber.html', 'doc-ocr-viewer.html', 'guides/embedding.html', 'guides/relay-and-production.html']));
    // Every link of the index and of the navigation resolves.
    const hrefs = await page.locator('a[href]').evaluateAll((as) => [...new Set(as.map((a) => (a as HTMLAnchorElement).href))]);
    for (const href of hrefs) expect((await page.request.get(href)).status(), href).toBe(200);
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it.each((elementModels() as Element[]).map((e) => [e.tag, e]))('the <%s> page shows every member of the manifest and a live element', async (tag, element) => {
    const { page, errors } = await open(`/docs/${tag}.html`);
    // The live example is the real element, defined by its CDN bundle from /assets/.
    await page.waitForFunction((t) => customElements.get(t) !== undefined && document.querySelector(`[data-live-example] ${t}`)?.shadowRoot !== null, tag);
    for (const section of SECTIONS as Section[]) {
      const ids = await page.locator(`section:has(> h2#${section.anchor}) tbody tr`).evaluateAll((rows) => rows.map((r) => r.id));
      expect(ids, `${tag} ${section.title}`).toEqual(element[section.key]!.map((m) => memberId(section, m.name)));
      for (const member of element[section.key]!) {
        if (!member.name) continue;
        const first = await page.locator(`#${memberId(section, member.name)} td`).first().textContent();
        expect(first, `${tag} ${section.title} ${member.name}`).toContain(member.name);
      }
    }
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the live <agent-chat> answers through the relay, and its events are listed as text', async () => {
    const { page, errors } = await open('/docs/agent-chat.html');
    const chat = page.locator('[data-live-example] agent-chat');
    await chat.locator('[part="input"]').fill('Hello from the reference page');
    await chat.locator('[part="input"]').press('Enter');
    await chat.locator('[part~="message-assistant"]').first().waitFor({ timeout: 30_000 });
    const log = page.locator('.event-log');
    await log.locator('li', { hasText: 'parley-reply-finished' }).waitFor({ timeout: 30_000 });
    expect(await log.locator('li').first().textContent()).toMatch(/^parley-/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a guide renders from docs/guides with its sections, and passes axe', async () => {
    const { page, errors } = await open('/docs/guides/relay-and-production.html');
    expect(await page.locator('h1').textContent()).toBe('The relay and production');
    expect(await page.locator('h2#production-deployment').count()).toBe(1);
    expect(await page.locator('main pre code').count()).toBeGreaterThan(2);
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('examples/plain-html on another origin: its CDN tag loads the bundle, its tool answers the agent and its handler shows the reply', async () => {
    const page = await parley.browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${String(e)}`));
    // The CDN, answered from this build's bundles (what the CDN serves for this version): nothing leaves loopback.
    const cdn = /^https:\/\/cdn\.jsdelivr\.net\/npm\/parley-kit@([^/]+)\/dist\/browser\/(.+)$/;
    const asked: string[] = [];
    await page.route(cdn, async (route) => {
      const [, version, path] = cdn.exec(route.request().url())!;
      asked.push(`${version} ${path}`);
      await route.fulfill({ response: await route.fetch({ url: `${parley.url}/assets/${path}` }) });
    });
    await page.goto(siteOrigin + '/');
    expect(asked[0]).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version} agent-chat.js`);
    const chat = page.locator('agent-chat');
    await page.waitForFunction(() => customElements.get('agent-chat') !== undefined);
    // The site owner's relay and agent: here the relay `parley start --allow-origin` runs, and the local model.
    await page.evaluate((relay) => {
      const el = document.querySelector('agent-chat')!;
      el.setAttribute('relay-url', relay);
      el.setAttribute('model', 'parley-local');
      // Counts the calls of the example's own tool (app.js), which still answers them.
      const chatEl = el as HTMLElement & { tools: Record<string, (args: unknown) => unknown> };
      const tool = chatEl.tools.get_order_status!;
      (window as unknown as { toolCalls: unknown[] }).toolCalls = [];
      chatEl.tools = { get_order_status: (args) => { const result = tool(args); (window as unknown as { toolCalls: unknown[] }).toolCalls.push(result); return result; } };
    }, `${parley.url}/api`);
    await page.evaluate(() => (document.querySelector('agent-chat') as HTMLElement & { show(): void }).show());
    await chat.locator('[part="input"]').fill('What is the status of order 1042?');
    await chat.locator('[part="input"]').press('Enter');
    await page.locator('#last-reply', { hasText: 'Last reply: ' }).waitFor({ timeout: 60_000 });
    expect(await chat.locator('[part~="message-assistant"]').count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => (window as unknown as { toolCalls: unknown[] }).toolCalls)).toEqual([{ order_id: '1042', status: 'shipped' }]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
