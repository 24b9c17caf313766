/**
 * The shop demo's document library: the shop's pages (returns, shipping, warranty, lamp care), markdown files of
 * the kit's `demo/shop-pages/`, loaded into a library of the local platform that the shop's agent searches with
 * its `document_library` tool. Idempotent: the library is found again by name, a page already uploaded with the
 * same content is the same document (the platform deduplicates by content), an edited page replaces the older
 * upload of the same file, and a page removed from the folder leaves the library.
 *
 * Each document's attributes name it for the references of the agent's replies: `title` (the page's first
 * heading) and `url` (`<site>/shop/<file name without .md>`, where `parley start` serves the page).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Fetch = (request: Request) => Promise<Response>;

/** The name the demo's library is found by. */
export const DEMO_LIBRARY_NAME = 'Lumen Lamps shop pages';

/** A page of the shop: its slug (file name without `.md`), title (first heading) and markdown. */
export interface ShopPage { slug: string; title: string; markdown: string }

/** The pages in `dir` (`*.md`, in name order). */
export function readShopPages(dir: string): ShopPage[] {
  return readdirSync(dir).filter((f) => f.endsWith('.md')).sort().map((file) => {
    const markdown = readFileSync(join(dir, file), 'utf8');
    const slug = file.slice(0, -3);
    const title = /^#\s+(.+)$/m.exec(markdown)?.[1].trim() ?? slug;
    return { slug, title, markdown };
  });
}

/** The page of `pages` with this slug (what `/shop/<slug>` serves), or undefined. */
export function shopPage(pages: readonly ShopPage[], slug: string): ShopPage | undefined {
  return pages.find((p) => p.slug === slug);
}

async function send(fetch: Fetch, apiKey: string, origin: string, method: string, path: string, body?: unknown): Promise<any> {
  const form = body instanceof FormData;
  const res = await fetch(new Request(origin + path, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined || form ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
  }));
  if (!res.ok) throw new Error(`demo setup: ${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

/**
 * The demo library with `pages` loaded, each titled and linked to `<siteUrl>/shop/<slug>`; resolves once every
 * page is processed (searchable), or throws after `timeoutMs`. Returns the library's id.
 */
export async function ensureDemoLibrary(
  fetch: Fetch, apiKey: string, pages: readonly ShopPage[], siteUrl: string,
  options: { origin?: string; timeoutMs?: number } = {},
): Promise<string> {
  const origin = options.origin ?? 'http://platform.internal';
  const api = (method: string, path: string, body?: unknown) => send(fetch, apiKey, origin, method, path, body);
  const found = await api('GET', `/v1/libraries?page_size=100&search=${encodeURIComponent(DEMO_LIBRARY_NAME)}`);
  const libraryId: string = found.data.find((l: { name: string }) => l.name === DEMO_LIBRARY_NAME)?.id
    ?? (await api('POST', '/v1/libraries', { name: DEMO_LIBRARY_NAME, description: 'The pages of the Lumen Lamps shop: returns, shipping, warranty and lamp care' })).id;
  const docs = `/v1/libraries/${libraryId}/documents`;

  const kept = new Set<string>();
  for (const page of pages) {
    const form = new FormData();
    form.append('file', new Blob([page.markdown], { type: 'text/markdown' }), `${page.slug}.md`);
    const doc = await api('POST', docs, form);
    kept.add(doc.id);
    const attributes = { title: page.title, url: `${siteUrl.replace(/\/+$/, '')}/shop/${page.slug}` };
    if (JSON.stringify(doc.attributes) !== JSON.stringify(attributes)) await api('PUT', `${docs}/${doc.id}`, { attributes });
  }
  const all = (await api('GET', `${docs}?page_size=100`)).data as Array<{ id: string }>;
  for (const doc of all) if (!kept.has(doc.id)) await api('DELETE', `${docs}/${doc.id}`);

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (const id of kept) {
    for (;;) {
      const status = await api('GET', `${docs}/${id}/status`);
      if (status.process_status === 'done') break;
      if (status.process_status === 'error') throw new Error(`demo setup: the shop page document ${id} could not be processed`);
      if (Date.now() > deadline) throw new Error('demo setup: the shop pages were not processed in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return libraryId;
}
