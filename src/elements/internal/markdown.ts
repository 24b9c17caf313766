/**
 * Markdown for model output, which is hostile input (relay-security.md §3a–3c). marked's lexer turns
 * the text into tokens; the DOM is built from those tokens with `createElement` and text nodes, from
 * an allowlist of elements and attributes. No HTML string is ever parsed, so there is nothing for a
 * sanitiser to clean: raw HTML in the text becomes text, links keep to http/https/mailto (target
 * _blank, rel noopener noreferrer nofollow), images load only from allowed hosts (no referrer), and
 * classes are only the renderer's own. The built nodes then pass an allowlist check (`enforceAllowlist`)
 * that removes whatever a mistake in the builder could let through: every rule is enforced twice.
 * Nodes are built in an inert document, so nothing loads before they are inserted into the page.
 *
 * `StreamingMarkdown` renders a reply while it grows: blocks (marked's top-level tokens) that are
 * finished are rendered once; only the last, growing block is rendered again on every delta.
 *
 * No DOM at import time; the DOM is used only inside calls.
 */
import { Lexer, getDefaults } from 'marked';
import type { Links, MarkedToken, Token, Tokens } from 'marked';
import type { MarkdownOptions } from './links.js';
import { escapedHtml } from './trusted-html.js';

const defaultImageBlocked = (host: string, alt: string) => (alt ? `Image "${alt}" from ${host} not loaded` : `Image from ${host} not loaded`);

export type { MarkdownOptions } from './links.js';

// ---------------------------------------------------------------- URLs

/** Protocols a link may use. */
const LINK_PROTOCOLS: readonly string[] = ['http:', 'https:', 'mailto:'];
/** Protocols an image may load from (and only from an allowed host). */
const IMAGE_PROTOCOLS: readonly string[] = ['http:', 'https:'];
/** `rel` of every rendered link. */
const LINK_REL = 'noopener noreferrer nofollow';

let inertDocument: Document | null = null;
/** A document without a browsing context: nothing created in it loads or runs until it is inserted into the page. */
function inert(): Document {
  return (inertDocument ??= document.implementation.createHTMLDocument(''));
}

let entityDecoder: HTMLTextAreaElement | null = null;
/** Decodes HTML character references (`jav&#x61;script:` → `javascript:`), as the browser would in an attribute. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  // A textarea of an inert document decodes references without parsing tags or loading anything; under
  // Trusted Types through the kit's policy (trusted-html.ts), which escapes `<` itself.
  const html = typeof document !== 'undefined' ? escapedHtml(text) : null;
  if (html !== null) {
    entityDecoder ??= inert().createElement('textarea');
    entityDecoder.innerHTML = html as string;
    return entityDecoder.value;
  }
  // No DOM, or a page whose trusted-types directive refuses the kit's policy: numeric references and the
  // few named ones that matter here (a named reference left as it is cannot turn a URL into javascript:).
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp|colon|tab|newline);?/gi, (_, n: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', colon: ':', tab: '\t', newline: '\n' };
    if (n[0] !== '#') return named[n.toLowerCase()]!;
    const code = n[1] === 'x' || n[1] === 'X' ? parseInt(n.slice(2), 16) : parseInt(n.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\uFFFD';
  });
}

/**
 * The URL a markdown destination really points to, if it is absolute and uses one of `protocols`;
 * otherwise null. Entities are decoded and the WHATWG parser is used, so obfuscations such as
 * `jav&#x61;script:`, `java\tscript:` or upper case do not slip through.
 */
export function safeUrl(raw: string, protocols: readonly string[] = LINK_PROTOCOLS): URL | null {
  const decoded = decodeEntities(raw).trim();
  let url: URL;
  try {
    url = new URL(decoded);
  } catch {
    return null; // relative or malformed: not rendered as a link
  }
  return protocols.includes(url.protocol) ? url : null;
}

/** An image URL (e.g. a source's favicon) if it is http(s) and from an allowed host, else null. */
export function allowedImageUrl(raw: string, allowImageHosts: readonly string[] | undefined): string | null {
  const url = safeUrl(raw, IMAGE_PROTOCOLS);
  return url && isImageHostAllowed(url, allowImageHosts) ? url.href : null;
}

/** Whether an image URL's host is in the allowlist (exact hostname match, case-insensitive). */
function isImageHostAllowed(url: URL, allowImageHosts: readonly string[] | undefined): boolean {
  if (!allowImageHosts?.length || !IMAGE_PROTOCOLS.includes(url.protocol) || url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  return allowImageHosts.some((h) => h.trim().toLowerCase() === host);
}

// ---------------------------------------------------------------- tokens → DOM (first layer)

// The options of the render in progress (renders are synchronous).
let active: Required<MarkdownOptions> = { allowImageHosts: [], imageBlocked: defaultImageBlocked, copyCode: '' };

/**
 * Where a reply's source N stands in its text: `SOURCE_MARK_START` N `SOURCE_MARK_END` (private-use characters, which
 * markdown leaves alone); rendered as a numbered marker, `<sup class="parley-source-marker">[N]</sup>`.
 */
export const SOURCE_MARK_START = '\uE000';
export const SOURCE_MARK_END = '\uE001';
// A source marker, and any stray marker character.
const SOURCE_MARK = new RegExp(`${SOURCE_MARK_START}(\\d{1,3})${SOURCE_MARK_END}`, 'g');
const MARK_CHARS = new RegExp(`[${SOURCE_MARK_START}${SOURCE_MARK_END}]`, 'g');

/** Code's text: source markers and stray marker characters dropped (a marker has no place in code). */
function unmarked(text: string): string {
  return text.replace(SOURCE_MARK, '').replace(MARK_CHARS, '');
}

/** Appends text, its source markers as `<sup class="parley-source-marker">[N]</sup>`. */
function appendText(parent: ParentNode, text: string): void {
  if (!text.includes(SOURCE_MARK_START)) {
    parent.append(text.replace(MARK_CHARS, ''));
    return;
  }
  let at = 0;
  for (const match of text.matchAll(SOURCE_MARK)) {
    parent.append(text.slice(at, match.index).replace(MARK_CHARS, ''));
    const sup = add(parent, 'sup');
    sup.className = 'parley-source-marker';
    sup.textContent = `[${match[1]}]`;
    at = match.index + match[0].length;
  }
  parent.append(text.slice(at).replace(MARK_CHARS, ''));
}

function hostOf(raw: string): string {
  try {
    return new URL(decodeEntities(raw).trim()).hostname;
  } catch {
    return '';
  }
}

function lex(text: string, links: Links | null): Token[] & { links: Links } {
  // Fresh defaults: a page's own `marked.use(…)` or `setOptions` (the npm build shares marked) change nothing here.
  const lexer = new Lexer({ ...getDefaults(), gfm: true, breaks: false, pedantic: false });
  if (links) Object.assign(lexer.tokens.links, links);
  return lexer.lex(text);
}

/** Appends `<tag>` to `parent` and returns it. */
function add<K extends keyof HTMLElementTagNameMap>(parent: ParentNode, tag: K): HTMLElementTagNameMap[K] {
  const node = (parent.ownerDocument ?? (parent as Document)).createElement(tag);
  parent.append(node);
  return node;
}

function taskBox(parent: ParentNode, checked: boolean | undefined): void {
  const box = add(parent, 'span');
  box.className = 'parley-task';
  box.textContent = checked ? '☑' : '☐';
  parent.append(' ');
}

/** Block tokens into `parent`. */
function blocks(parent: ParentNode, tokens: readonly Token[]): void {
  for (const token of tokens as readonly MarkedToken[]) {
    switch (token.type) {
      case 'space':
      case 'def':
        break;
      case 'paragraph':
        inline(add(parent, 'p'), token.tokens);
        break;
      case 'heading':
        inline(add(parent, `h${Math.min(6, Math.max(1, token.depth))}` as 'h1'), token.tokens);
        break;
      case 'code': {
        const pre = add(parent, 'pre');
        // Code blocks and tables scroll sideways in a narrow panel: focusable, so a keyboard can scroll them.
        pre.tabIndex = 0;
        if (active.copyCode) {
          // No text of its own (its name is an attribute): the block's text stays the code's.
          const copy = add(pre, 'button');
          copy.type = 'button';
          copy.className = 'parley-copy-code';
          copy.setAttribute('aria-label', active.copyCode);
          copy.title = active.copyCode;
        }
        const code = add(pre, 'code');
        const language = (token.lang ?? '').match(/^[\w+#.-]+/)?.[0];
        if (language) code.className = `language-${language}`;
        code.textContent = unmarked(token.text.replace(/\n$/, '')) + '\n';
        break;
      }
      case 'blockquote':
        blocks(add(parent, 'blockquote'), token.tokens);
        break;
      case 'list': {
        const list = add(parent, token.ordered ? 'ol' : 'ul');
        const start = Number(token.start);
        if (token.ordered && Number.isInteger(start) && start !== 1) list.setAttribute('start', String(start));
        for (const item of token.items) blocks(add(list, 'li'), item.tokens);
        break;
      }
      case 'checkbox':
        taskBox(parent, token.checked);
        break;
      case 'table': {
        const table = add(parent, 'table');
        table.tabIndex = 0;
        const row = (into: ParentNode, cells: Tokens.TableCell[], tag: 'th' | 'td') => {
          const tr = add(into, 'tr');
          for (const cell of cells) {
            const td = add(tr, tag);
            if (cell.align) td.setAttribute('align', cell.align);
            inline(td, cell.tokens);
          }
        };
        row(add(table, 'thead'), token.header, 'th');
        if (token.rows.length) {
          const body = add(table, 'tbody');
          for (const cells of token.rows) row(body, cells, 'td');
        }
        break;
      }
      case 'hr':
        add(parent, 'hr');
        break;
      case 'html':
        // Raw HTML from the model is shown as text, never parsed.
        add(parent, 'p').textContent = token.text.replace(/\n+$/, '');
        break;
      case 'text':
        if (token.tokens) inline(parent, token.tokens);
        else parent.append(decodeEntities(token.text));
        break;
      default:
        // A token this renderer does not know (a page's marked extension): its source, as text.
        if ((token as Token).raw) parent.append((token as Token).raw);
    }
  }
}

/** Inline tokens into `parent`. */
function inline(parent: ParentNode, tokens: readonly Token[] | undefined): void {
  for (const token of (tokens ?? []) as readonly MarkedToken[]) {
    switch (token.type) {
      case 'text':
        if ('tokens' in token && token.tokens) inline(parent, token.tokens);
        // Named references (`&amp;`, `&copy;`) are left in text tokens for the browser to decode; text inside raw
        // `<pre>` is left alone.
        else appendText(parent, 'escaped' in token && token.escaped ? token.text : decodeEntities(token.text));
        break;
      case 'escape':
      case 'codespan':
        if (token.type === 'codespan') add(parent, 'code').textContent = unmarked(token.text);
        else appendText(parent, token.text);
        break;
      case 'html':
        // Raw HTML from the model is shown as text, never parsed.
        parent.append(token.text);
        break;
      case 'strong':
      case 'em':
      case 'del':
        inline(add(parent, token.type), token.tokens);
        break;
      case 'br':
        add(parent, 'br');
        break;
      case 'checkbox':
        taskBox(parent, token.checked);
        break;
      case 'link': {
        const url = safeUrl(token.href, LINK_PROTOCOLS);
        if (!url) {
          inline(parent, token.tokens); // relative, unknown or dangerous: the text only
          break;
        }
        const a = add(parent, 'a');
        a.href = url.href;
        if (token.title) a.title = decodeEntities(token.title);
        a.target = '_blank';
        a.rel = LINK_REL;
        inline(a, token.tokens);
        break;
      }
      case 'image': {
        const url = safeUrl(token.href, IMAGE_PROTOCOLS);
        const alt = decodeEntities(token.text);
        if (url && isImageHostAllowed(url, active.allowImageHosts)) {
          const img = add(parent, 'img');
          img.referrerPolicy = 'no-referrer';
          img.loading = 'lazy';
          img.alt = alt;
          if (token.title) img.title = decodeEntities(token.title);
          img.src = url.href;
        } else {
          const span = add(parent, 'span');
          span.className = 'parley-image-blocked';
          span.textContent = active.imageBlocked(url?.hostname || hostOf(token.href) || '?', alt);
        }
        break;
      }
      default:
        if ((token as Token).raw) parent.append((token as Token).raw);
    }
  }
}

// ---------------------------------------------------------------- allowlist check (second layer)

const ALLOWED_TAGS = new Set([
  'A', 'BLOCKQUOTE', 'BR', 'CODE', 'DEL', 'EM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'IMG', 'LI', 'OL', 'P', 'PRE',
  'S', 'SPAN', 'STRONG', 'SUB', 'SUP', 'TABLE', 'TBODY', 'TD', 'TH', 'THEAD', 'TR', 'UL',
]);
const ALLOWED_CLASS = /^(?:language-[\w+#.-]+|parley-image-blocked|parley-task|parley-source-marker|parley-copy-code)$/;
const ALLOWED_ATTR = new Set(['href', 'title', 'alt', 'src', 'class', 'start', 'align', 'target', 'rel', 'loading', 'referrerpolicy', 'tabindex']);

/**
 * Removes from `root` every element outside the allowlist (its text stays), every attribute outside it,
 * classes other than the renderer's own, links to other protocols than http/https/mailto, and images from
 * hosts not allowed; links open in a new tab without opener or referrer, images load without referrer,
 * code blocks and tables are focusable. The builder above already does all of this.
 */
export function enforceAllowlist(root: ParentNode, options: MarkdownOptions = {}): void {
  for (const node of [...root.querySelectorAll('*')]) {
    // The renderer's own copy button (empty, in a code block, only when asked for), as it builds it.
    if (node.nodeName === 'BUTTON' && options.copyCode && node.className === 'parley-copy-code' && node.parentNode?.nodeName === 'PRE' && !node.childNodes.length) {
      for (const name of node.getAttributeNames()) if (!['type', 'class', 'aria-label', 'title'].includes(name)) node.removeAttribute(name);
      node.setAttribute('type', 'button');
      node.setAttribute('aria-label', options.copyCode);
      node.setAttribute('title', options.copyCode);
      continue;
    }
    if (!ALLOWED_TAGS.has(node.nodeName) || node.namespaceURI !== 'http://www.w3.org/1999/xhtml') {
      // Its text is kept (as text); anything inside it is dropped with it.
      node.replaceWith(node.textContent ?? '');
      continue;
    }
    for (const name of node.getAttributeNames()) {
      if (!ALLOWED_ATTR.has(name)) node.removeAttribute(name);
    }
    const classes = node.getAttribute('class')?.split(/\s+/).filter((c) => ALLOWED_CLASS.test(c)).join(' ');
    if (classes) node.setAttribute('class', classes);
    else node.removeAttribute('class');
    node.removeAttribute('tabindex');
    if (node.nodeName === 'A') {
      const href = node.getAttribute('href');
      if (href !== null && !safeUrl(href, LINK_PROTOCOLS)) node.removeAttribute('href');
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', LINK_REL);
    } else if (node.nodeName === 'IMG') {
      const src = node.getAttribute('src');
      const url = src === null ? null : safeUrl(src, IMAGE_PROTOCOLS);
      if (!url || !isImageHostAllowed(url, options.allowImageHosts)) node.removeAttribute('src');
      node.setAttribute('referrerpolicy', 'no-referrer');
    } else if (node.nodeName === 'PRE' || node.nodeName === 'TABLE') {
      node.setAttribute('tabindex', '0');
    }
  }
}

function withOptions<T>(options: MarkdownOptions, run: () => T): T {
  const previous = active;
  active = { allowImageHosts: options.allowImageHosts ?? [], imageBlocked: options.imageBlocked ?? defaultImageBlocked, copyCode: options.copyCode ?? '' };
  try {
    return run();
  } finally {
    active = previous;
  }
}

function renderTokens(tokens: Token[], options: MarkdownOptions): DocumentFragment {
  const fragment = inert().createDocumentFragment();
  withOptions(options, () => blocks(fragment, tokens));
  enforceAllowlist(fragment, options);
  return fragment;
}

/**
 * Renders finished markdown to DOM nodes (in a fragment of an inert document: insert them where they
 * belong; images start loading then).
 */
export function renderMarkdownFragment(text: string, options: MarkdownOptions = {}): DocumentFragment {
  return renderTokens(lex(normalise(text), null), options);
}

/**
 * The text a reader reads in finished markdown (the rendered blocks' text, a space between blocks), built
 * block by block only until it is `limit` characters long: an announcement of the first words of a long
 * reply does not build the nodes of all of it.
 */
export function renderMarkdownText(text: string, limit = Infinity): string {
  let out = '';
  for (const token of lex(normalise(text), null)) {
    if (out.length >= limit) break;
    if (token.type === 'space') continue;
    out += `${readableText(renderTokens([token], {}))} `;
  }
  return out;
}

// Elements after whose text a reader pauses (`textContent` would run list items and cells together).
const TEXT_BREAK = /^(?:P|LI|H[1-6]|PRE|BLOCKQUOTE|TR|TD|TH|BR|HR)$/;

function readableText(node: Node): string {
  let out = '';
  for (const child of node.childNodes) {
    if (child.nodeType === 3) out += (child as Text).data;
    else {
      out += readableText(child);
      if (TEXT_BREAK.test(child.nodeName)) out += ' ';
    }
  }
  return out;
}

function normalise(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

// ---------------------------------------------------------------- streaming

/** What changed in a streamed reply's rendering. */
export interface MarkdownUpdate {
  /** The text no longer continues what was rendered: drop all blocks and start again. */
  reset: boolean;
  /** Nodes of the blocks that finished with this update, in order; append them after the earlier ones. */
  finished: DocumentFragment[];
  /** Earlier finished blocks rendered again because a reference definition they use arrived (`[r]: …`). */
  replaced: Array<{ index: number; nodes: DocumentFragment }>;
  /** Nodes of the growing last block (empty once final), built when first read: an unchanged tail is not built again. */
  readonly tail: DocumentFragment;
  /** Markdown source of the growing last block ('' once final): the same source renders the same nodes. */
  tailSource: string;
}

/**
 * Incremental renderer for one growing markdown text. Each `update` lexes only the text after the
 * last finished block: a block is finished once another block starts after it, so the per-delta cost
 * depends on the size of the last block, not on the length of the reply.
 */
export class StreamingMarkdown {
  #text = '';
  #stableEnd = 0;
  #links: Links = {};
  #finishedRaw: string[] = [];
  #lastTailSource = '';

  readonly #options: MarkdownOptions;

  constructor(options: MarkdownOptions = {}) {
    this.#options = options;
  }

  /** Offset in the text where the growing last block starts (what the next update will lex). */
  get tailStart(): number {
    return this.#stableEnd;
  }

  /** Number of blocks rendered as finished so far. */
  get finishedCount(): number {
    return this.#finishedRaw.length;
  }

  /** Feed the whole text so far; `final` when the reply is complete (the last block finishes too). */
  update(fullText: string, final = false): MarkdownUpdate {
    const text = normalise(fullText);
    let reset = false;
    if (!text.startsWith(this.#text.slice(0, this.#stableEnd))) {
      reset = true;
      this.#stableEnd = 0;
      this.#links = {};
      this.#finishedRaw = [];
      this.#lastTailSource = '';
    }
    this.#text = text;
    const rest = text.slice(this.#stableEnd);
    const tokens = withOptions(this.#options, () => lex(rest, this.#links));
    let split = tokens.length;
    if (!final) {
      split = 0;
      for (let i = tokens.length - 1; i >= 0; i--) {
        if (tokens[i].type !== 'space') {
          split = i;
          break;
        }
      }
      // Everything must be accounted for before a block may be called finished.
      if (tokens.map((t) => t.raw).join('') !== rest) split = 0;
    }

    const finished: DocumentFragment[] = [];
    const replaced: MarkdownUpdate['replaced'] = [];
    if (split > 0) {
      const finishedLength = tokens.slice(0, split).reduce((n, t) => n + t.raw.length, 0);
      // Finished blocks must not resolve references against a definition still being streamed in the
      // tail (`[r]: https://ev` → `…il.test`): lex them on their own.
      const done = split === tokens.length ? tokens : withOptions(this.#options, () => lex(rest.slice(0, finishedLength), this.#links));
      const newLabels = Object.keys(done.links).filter((label) => !(label in this.#links));
      this.#links = { ...done.links };
      if (newLabels.length) {
        this.#finishedRaw.forEach((raw, index) => {
          const lower = raw.toLowerCase();
          if (newLabels.some((label) => lower.includes(`[${label}]`))) {
            replaced.push({ index, nodes: renderTokens(withOptions(this.#options, () => lex(raw, this.#links)), this.#options) });
          }
        });
      }
      for (const token of done) {
        if (token.type === 'space') continue;
        this.#finishedRaw.push(token.raw);
        finished.push(renderTokens([token], this.#options));
      }
      this.#stableEnd += finishedLength;
    }
    const tailTokens = tokens.slice(split);
    this.#lastTailSource = tailTokens.map((t) => t.raw).join('');
    let tail: DocumentFragment | null = null;
    const options = this.#options;
    return {
      reset, finished, replaced, tailSource: this.#lastTailSource,
      get tail() {
        return (tail ??= renderTokens(tailTokens, options));
      },
    };
  }

  /** Markdown source of the growing block as last rendered. */
  get tailSource(): string {
    return this.#lastTailSource;
  }
}
