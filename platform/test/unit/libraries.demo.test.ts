/**
 * What `parley start` loads for the shop demo: the shop's pages (demo/shop-pages/*.md) as a document library
 * that the shop agent searches. Loading twice changes nothing; an edited page replaces its older upload; the
 * agent gets its document_library tool once.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { ensureAgentLibrary, ensureDemoAgents } from '../../src/demo/agents.js';
import { DEMO_LIBRARY_NAME, ensureDemoLibrary, readShopPages, shopPage } from '../../src/demo/library.js';
import { API_KEY, call, startPlatform } from './helpers.js';

const PAGES_DIR = fileURLToPath(new URL('../../../demo/shop-pages', import.meta.url));
const SITE = 'http://localhost:8787';

let platform: Platform;
beforeAll(async () => { platform = await startPlatform(); });
afterAll(() => platform.close());

const documents = async (libraryId: string) => (await call(platform, `/v1/libraries/${libraryId}/documents?sort_by=name&sort_order=asc`)).json.data;

describe('the demo library', () => {
  it('reads the shop pages with their titles', () => {
    const pages = readShopPages(PAGES_DIR);
    expect(pages.map((p) => [p.slug, p.title])).toEqual([['lamp-care', 'Lamp care'], ['returns', 'Returns'], ['shipping', 'Shipping'], ['warranty', 'Warranty']]);
    expect(shopPage(pages, 'returns')?.markdown).toMatch(/^# Returns/);
    expect(shopPage(pages, '../package')).toBeUndefined();
  });

  it('loads the pages once, titled and linked, and gives the shop agent its library once', async () => {
    const pages = readShopPages(PAGES_DIR);
    const libraryId = await ensureDemoLibrary(platform.fetch, API_KEY, pages, SITE);
    const docs = await documents(libraryId);
    expect(docs.map((d: any) => [d.name, d.process_status, d.attributes])).toEqual([
      ['lamp-care.md', 'done', { title: 'Lamp care', url: `${SITE}/shop/lamp-care` }],
      ['returns.md', 'done', { title: 'Returns', url: `${SITE}/shop/returns` }],
      ['shipping.md', 'done', { title: 'Shipping', url: `${SITE}/shop/shipping` }],
      ['warranty.md', 'done', { title: 'Warranty', url: `${SITE}/shop/warranty` }],
    ]);

    // A second start (another port) finds the same library and documents, relinked.
    expect(await ensureDemoLibrary(platform.fetch, API_KEY, pages, 'http://127.0.0.1:9999/')).toBe(libraryId);
    const again = await documents(libraryId);
    expect(again.map((d: any) => d.id)).toEqual(docs.map((d: any) => d.id));
    expect(again[1].attributes.url).toBe('http://127.0.0.1:9999/shop/returns');
    expect((await call(platform, `/v1/libraries?search=${encodeURIComponent(DEMO_LIBRARY_NAME)}`)).json.data).toHaveLength(1);

    // An edited page replaces its older upload.
    const edited = pages.map((p) => (p.slug === 'returns' ? { ...p, markdown: `${p.markdown}\nGift cards cannot be returned.\n` } : p));
    await ensureDemoLibrary(platform.fetch, API_KEY, edited, SITE);
    const after = await documents(libraryId);
    expect(after.map((d: any) => d.name)).toEqual(['lamp-care.md', 'returns.md', 'shipping.md', 'warranty.md']);
    expect(after[1].id).not.toBe(docs[1].id);

    const { shopAgentId } = await ensureDemoAgents(platform.fetch, API_KEY);
    await ensureAgentLibrary(platform.fetch, API_KEY, shopAgentId, libraryId);
    await ensureAgentLibrary(platform.fetch, API_KEY, shopAgentId, libraryId);
    const agent = (await call(platform, `/v1/agents/${shopAgentId}`)).json;
    expect(agent.tools.filter((t: any) => t.type === 'document_library')).toEqual([{ type: 'document_library', library_ids: [libraryId] }]);
    expect(agent.tools.some((t: any) => t.type === 'function' && t.function.name === 'get_order_status')).toBe(true);
    expect(agent.version).toBe(1);

    const res = await call(platform, '/v1/conversations', { body: { agent_id: shopAgentId, inputs: 'How long do I have to return a lamp?' } });
    expect(res.status).toBe(200);
    const message = res.json.outputs.at(-1);
    expect(message.content[0].text).toContain('You have 30 days from the day your lamp is delivered to return it');
    expect(message.content.find((c: any) => c.type === 'tool_reference')).toMatchObject({ title: 'Returns', url: `${SITE}/shop/returns` });
  });
});
