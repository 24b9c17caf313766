/**
 * The reference site `npm run docs` writes (scripts/docs.mjs): every member of custom-elements.json on its
 * element's page, every guide of docs/guides rendered, and markdown rendered without raw HTML or unsafe links.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ES modules shared with the command line (npm run docs).
import { GUIDES, buildDocs, markdownRenderer } from '../../../scripts/docs.mjs';
// @ts-expect-error -- see above.
import { SECTIONS, elementModels, memberId } from '../../../scripts/manifest-model.mjs';

interface Member { name: string }
interface Section { key: string; id: string; anchor: string; title: string }
type Element = Record<string, Member[]> & { tag: string };

const ROOT = join(import.meta.dirname, '../../..');
let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'parley-docs-'));
  buildDocs(out);
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The rows of the table under `<h2 id="…s">` on a page, by row id, with the row's text. */
function rowsOf(html: string, section: Section): Map<string, string> {
  const start = html.indexOf(`<h2 id="${section.anchor}">`);
  expect(start, `${section.title} section`).toBeGreaterThan(-1);
  const end = html.indexOf('</section>', start);
  const rows = new Map<string, string>();
  for (const m of html.slice(start, end).matchAll(/<tr id="([^"]+)">([\s\S]*?)<\/tr>/g)) rows.set(m[1]!, m[2]!);
  return rows;
}

describe('npm run docs', () => {
  const elements = elementModels() as Element[];

  it('knows the four elements from the manifest', () => {
    expect(elements.map((e) => e.tag)).toEqual(['agent-chat', 'audio-transcriber', 'doc-ocr-viewer', 'speech-player']);
  });

  it.each(elements.map((e) => [e.tag, e]))('puts every member of <%s> on its page, each in its own section', (tag, element) => {
    const html = readFileSync(join(out, `${tag}.html`), 'utf8');
    let members = 0;
    for (const section of SECTIONS as Section[]) {
      const rows = rowsOf(html, section);
      const expected = element[section.key]!;
      expect([...rows.keys()], `${tag} ${section.title}`).toEqual(expected.map((m) => memberId(section, m.name)));
      for (const member of expected) {
        // The name as the page shows it (escaped like any text).
        const shown = member.name.replace(/&/g, '&amp;').replace(/</g, '&lt;');
        if (member.name) expect(rows.get(memberId(section, member.name)), `${tag} ${section.title} ${member.name}`).toContain(shown);
        members += 1;
      }
    }
    // The live example loads the element's own bundle.
    expect(html).toContain(`<script type="module" src="../assets/${tag}.js"></script>`);
    expect(html).toMatch(new RegExp(`<${tag} relay-url="/api"`));
    expect(members).toBeGreaterThan(50);
  });

  it('renders every guide of docs/guides, linked from the index', () => {
    const sources = readdirSync(join(ROOT, 'docs/guides')).map((f) => f.replace(/\.md$/, '')).sort();
    expect([...GUIDES].sort()).toEqual(sources);
    const index = readFileSync(join(out, 'index.html'), 'utf8');
    for (const guide of GUIDES) {
      expect(index).toContain(`href="guides/${guide}.html"`);
      const html = readFileSync(join(out, `guides/${guide}.html`), 'utf8');
      expect(html).toMatch(/<main>\s*<h1 id=/);
      // Links between guides point at the rendered pages.
      expect(html).not.toMatch(/href="[\w-]+\.md/);
    }
    expect(readFileSync(join(out, 'guides/relay-and-production.html'), 'utf8')).toContain('id="production-deployment"');
  });

  it('pages carry no inline script or inline event handler (a strict CSP)', () => {
    for (const file of ['index.html', 'agent-chat.html', 'guides/embedding.html']) {
      const html = readFileSync(join(out, file), 'utf8');
      expect(html.match(/<script(?![^>]*\ssrc=)[^>]*>/g) ?? []).toEqual([]);
      expect(html).not.toMatch(/\son[a-z]+=/);
    }
  });
});

describe('markdown of the docs', () => {
  const md = markdownRenderer();

  it('escapes raw HTML instead of passing it through', () => {
    const html = md.block('Hello <img src=x onerror="alert(1)"> and\n\n<script>alert(2)</script>\n');
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain('&lt;script&gt;');
  });

  it('keeps links to http(s), mailto, fragments and relative pages, and drops other schemes', () => {
    expect(md.inline('[a](https://example.com/x)')).toBe('<a href="https://example.com/x">a</a>');
    expect(md.inline('[b](relay-and-production.md#the-relay)')).toBe('<a href="relay-and-production.html#the-relay">b</a>');
    expect(md.inline('[c](javascript:alert(1))')).toBe('c');
    expect(md.inline('[d](JaVaScRiPt:alert(1))')).toBe('d');
    expect(md.inline('![e](data:image/png;base64,AAAA)')).toBe('e');
  });
});
