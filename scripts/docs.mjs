#!/usr/bin/env node
// `npm run docs`: the reference site as static files in dist/docs/ (publishable anywhere; `parley start` serves it
// under /docs/). One page per element made from custom-elements.json (scripts/manifest-model.mjs), the guides
// rendered from docs/guides/*.md (their one source), an index, and the pages' own style sheet and script (no inline
// script, for a strict CSP). The live examples load the CDN bundles from ../assets/ (where `parley start` serves
// dist/browser); `--assets <url>` points them elsewhere, e.g. where dist/browser is published.
//
// Markdown goes through marked with raw HTML escaped (never passed through), links and images kept to http(s),
// mailto, fragments and relative paths, and every text of the manifest escaped.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Marked } from 'marked';
import { ROOT, SECTIONS, elementModels, memberId } from './manifest-model.mjs';

/** The guides, in reading order: docs/guides/<slug>.md, each page titled by its first heading. */
export const GUIDES = ['embedding', 'relay-and-production', 'monitoring', 'languages', 'themes', 'voice', 'documents', 'react-and-vue', 'resumable-replies', 'local-platform'];

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

/** Text for HTML (element content and quoted attribute values). */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/** A link target a page may carry: http(s), mailto, a fragment or a relative path; null otherwise. */
function safeHref(href) {
  const raw = String(href ?? '').trim();
  if (/^(https?:|mailto:)/i.test(raw)) return raw;
  // A scheme of any other kind (javascript:, data:, vbscript:…) is refused; so are protocol-relative URLs.
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//') || /[\u0000-\u001f]/.test(raw)) return null;
  return raw;
}

/** An id for a heading's text (`## The relay` → `the-relay`). */
export function slug(text) {
  return String(text).toLowerCase().replace(/<[^>]*>/g, '').replace(/&[a-z#0-9]+;/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** marked, with raw HTML escaped, links and images checked, `guide.md` links pointing at the rendered pages. */
export function markdownRenderer() {
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      html({ text }) { return escapeHtml(text); },
      // A code block may scroll sideways: it takes focus so a keyboard can scroll it.
      code({ text, lang }) {
        const language = /^[\w-]+$/.test(lang ?? '') ? ` class="language-${lang}"` : '';
        return `<pre tabindex="0"><code${language}>${escapeHtml(text)}</code></pre>\n`;
      },
      heading({ tokens, depth, text }) {
        return `<h${depth} id="${escapeHtml(slug(text))}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link({ href, title, tokens }) {
        const body = this.parser.parseInline(tokens);
        const safe = safeHref(href);
        if (safe === null) return body;
        const target = safe.replace(/^([\w-]+)\.md(#|$)/, '$1.html$2');
        return `<a href="${escapeHtml(target)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${body}</a>`;
      },
      image({ href, text }) {
        const safe = safeHref(href);
        return safe === null ? escapeHtml(text) : `<img src="${escapeHtml(safe)}" alt="${escapeHtml(text)}">`;
      },
    },
  });
  return {
    block: (text) => marked.parse(text, { async: false }),
    inline: (text) => marked.parseInline(text, { async: false }),
  };
}

/** The elements every page's navigation lists: read once per build (buildDocs), not once per page. */
let navElements = [];

function page({ title, body, depth = 0, current }) {
  const up = '../'.repeat(depth);
  const nav = [['index.html', 'Overview'], ...navElements.map((e) => [`${e.tag}.html`, `<${e.tag}>`])]
    .map(([href, label]) => `<li><a href="${up}${href}"${href === current ? ' aria-current="page"' : ''}>${escapeHtml(label)}</a></li>`).join('');
  const guides = GUIDES.map((g) => `<li><a href="${up}guides/${g}.html"${`guides/${g}.html` === current ? ' aria-current="page"' : ''}>${escapeHtml(guideTitle(g))}</a></li>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Parley ${escapeHtml(VERSION)}</title>
<link rel="icon" href="${up}favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${up}docs.css">
<script type="module" src="${up}docs.js"></script>
</head>
<body>
<header class="site"><a href="${up}index.html"><strong>Parley</strong></a> <span>reference, version ${escapeHtml(VERSION)}</span></header>
<div class="layout">
<nav aria-label="Reference"><h2>Elements</h2><ul>${nav}</ul><h2>Guides</h2><ul>${guides}</ul></nav>
<main>
${body}
</main>
</div>
</body>
</html>
`;
}

const guideSources = new Map();
function guideSource(name) {
  if (!guideSources.has(name)) guideSources.set(name, readFileSync(join(ROOT, 'docs/guides', `${name}.md`), 'utf8'));
  return guideSources.get(name);
}
function guideTitle(name) {
  return /^#\s+(.+)$/m.exec(guideSource(name))?.[1].replace(/`/g, '') ?? name;
}

/** The live example of an element: markup that works against the relay `parley start` serves at /api. */
function liveExample(tag) {
  const attributes = {
    'agent-chat': 'relay-url="/api" model="parley-local" heading="Live example" style="height: 28rem"',
    'speech-player': 'relay-url="/api" text="Welcome to the Parley reference. This sentence is synthesised as you listen."',
    'audio-transcriber': 'relay-url="/api" heading="Live example"',
    'doc-ocr-viewer': 'relay-url="/api" heading="Live example"',
  }[tag] ?? 'relay-url="/api"';
  return `<${tag} ${attributes}></${tag}>`;
}

function tableOf(element, section, md) {
  const rows = element[section.key];
  const heading = `<h2 id="${section.anchor}">${section.title}</h2>`;
  if (rows.length === 0) return `<section>${heading}<p>None.</p></section>`;
  const columns = {
    attributes: [['Attribute', (r) => `<code>${escapeHtml(r.name)}</code>`], ['Type', (r) => `<code>${escapeHtml(r.type)}</code>`], ['Default', (r) => (r.default ? `<code>${escapeHtml(r.default)}</code>` : '')], ['Property', (r) => (r.property ? `<a href="#property-${escapeHtml(r.property)}"><code>${escapeHtml(r.property)}</code></a>` : '')]],
    properties: [['Property', (r) => `<code>${escapeHtml(r.name)}</code>${r.readonly ? ' <span class="tag">read-only</span>' : ''}`], ['Type', (r) => `<code>${escapeHtml(r.type)}</code>`], ['Default', (r) => (r.default ? `<code>${escapeHtml(r.default)}</code>` : '')], ['Attribute', (r) => (r.attribute ? `<a href="#attribute-${escapeHtml(r.attribute)}"><code>${escapeHtml(r.attribute)}</code></a>` : '')]],
    methods: [['Method', (r) => `<code>${escapeHtml(r.signature)}</code>`]],
    events: [['Event', (r) => `<code>${escapeHtml(r.name)}</code>`], ['Detail type', (r) => `<code>${escapeHtml(r.type)}</code>`]],
    slots: [['Slot', (r) => (r.name ? `<code>${escapeHtml(r.name)}</code>` : '(default)')]],
    parts: [['Part', (r) => `<code>${escapeHtml(r.name)}</code>`]],
    cssProperties: [['Custom property', (r) => `<code>${escapeHtml(r.name)}</code>`], ['Default', (r) => (r.default ? `<code>${escapeHtml(r.default)}</code>` : '')]],
  }[section.key];
  const head = [...columns.map(([title]) => title), 'Description'].map((t) => `<th scope="col">${t}</th>`).join('');
  const body = rows.map((r) => `<tr id="${escapeHtml(memberId(section, r.name))}">${columns.map(([, cell]) => `<td>${cell(r)}</td>`).join('')}<td>${md.inline(r.description)}</td></tr>`).join('\n');
  // The table scrolls sideways on a phone: a named region that takes focus, so a keyboard can scroll it.
  return `<section>${heading}
<div class="scroll" role="region" aria-labelledby="${section.anchor}" tabindex="0"><table><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table></div></section>`;
}

function elementPage(element, assets, md) {
  const example = liveExample(element.tag);
  const body = `<h1><code>&lt;${escapeHtml(element.tag)}&gt;</code></h1>
${element.summary ? `<p class="summary">${md.inline(element.summary)}</p>` : ''}
${element.description && element.description !== element.summary ? md.block(element.description) : ''}
<section>
<h2 id="example">Live example</h2>
<p>Loaded from the CDN bundle and talking to the relay at <code>/api</code> that <code>npm start</code> serves, in front of the
local platform${element.tag === 'agent-chat' ? ' (its model <code>parley-local</code>; on your site, give your <code>agent-id</code>)' : ''}. Its events are listed below as they fire.</p>
<pre tabindex="0"><code>${escapeHtml(`<script type="module" src="https://cdn.jsdelivr.net/npm/parley-kit@${VERSION}/dist/browser/${element.tag}.js"></script>\n${example}`)}</code></pre>
<div class="example" data-live-example data-events="${escapeHtml(element.events.map((e) => e.name).join(' '))}">
<script type="module" src="${escapeHtml(`${assets}${element.tag}.js`)}"></script>
${example}
<h3 id="event-log-title">Events fired</h3>
<ol class="event-log" aria-labelledby="event-log-title" aria-live="polite"></ol>
</div>
</section>
${SECTIONS.map((section) => tableOf(element, section, md)).join('\n')}`;
  return page({ title: `<${element.tag}>`, body, current: `${element.tag}.html` });
}

function indexPage(elements, md) {
  const body = `<h1>Parley reference</h1>
<p>Four embeddable elements, a token relay that keeps the platform key on your server, and a local platform to try them
offline. Each element's page lists every attribute, property, method, event, slot, part and CSS custom property from
<code>custom-elements.json</code>, with a live example.</p>
<h2 id="elements">Elements</h2>
<ul class="cards">${elements.map((e) => `<li><a href="${e.tag}.html"><code>&lt;${escapeHtml(e.tag)}&gt;</code></a>: ${md.inline(e.summary || e.description.split('\n')[0])}</li>`).join('\n')}</ul>
<h2 id="guides">Guides</h2>
<ul>${GUIDES.map((g) => `<li><a href="guides/${g}.html">${escapeHtml(guideTitle(g))}</a></li>`).join('\n')}</ul>`;
  return page({ title: 'Overview', body, current: 'index.html' });
}

/** Writes the site into `outdir` (emptied first); returns the paths written, relative to it. */
export function buildDocs(outdir = join(ROOT, 'dist/docs'), { assets = '../assets/' } = {}) {
  const md = markdownRenderer();
  const elements = elementModels();
  navElements = elements;
  const missing = readdirSync(join(ROOT, 'docs/guides')).filter((f) => f.endsWith('.md') && !GUIDES.includes(f.slice(0, -3)));
  if (missing.length) throw new Error(`docs/guides has pages not listed in GUIDES (scripts/docs.mjs): ${missing.join(', ')}`);
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, 'guides'), { recursive: true });
  const written = [];
  const write = (path, text) => { writeFileSync(join(outdir, path), text); written.push(path); };
  write('index.html', indexPage(elements, md));
  for (const element of elements) write(`${element.tag}.html`, elementPage(element, assets, md));
  for (const guide of GUIDES) write(`guides/${guide}.html`, page({ title: guideTitle(guide), body: md.block(guideSource(guide)), depth: 1, current: `guides/${guide}.html` }));
  for (const file of ['docs.css', 'docs.js', 'favicon.svg']) { copyFileSync(join(ROOT, 'docs/site', file), join(outdir, file)); written.push(file); }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, assets: { type: 'string' } } });
  const out = values.out ?? join(ROOT, 'dist/docs');
  const written = buildDocs(out, values.assets ? { assets: values.assets } : undefined);
  console.log(`docs: ${written.length} files in ${out}`);
}

