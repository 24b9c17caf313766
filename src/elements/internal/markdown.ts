/**
 * Markdown for model output: marked turns text into HTML with a renderer that never passes raw HTML
 * through, keeps only http/https/mailto links and loads images only from allowed hosts; DOMPurify
 * then sanitises that HTML again with a strict allowlist. Model output is hostile input
 * (relay-security.md §3a–3c): every rule here is enforced twice.
 *
 * `StreamingMarkdown` renders a reply while it grows: blocks (marked's top-level tokens) that are
 * finished are rendered once; only the last, growing block is rendered again on every delta.
 *
 * No DOM at import time; the DOM is used only inside calls (DOMPurify needs a window).
 */
import { Lexer, Marked } from 'marked';
import type { Links, Token, Tokens } from 'marked';
import DOMPurify from 'dompurify';
import type { DOMPurify as DOMPurifyInstance } from 'dompurify';

export interface MarkdownOptions {
  /** Hostnames (exact, case-insensitive) whose images may load. Everything else becomes a placeholder. */
  allowImageHosts?: readonly string[];
  /** Text of the placeholder for an image that was not loaded. */
  imageBlocked?: (host: string, alt: string) => string;
}

/** Protocols a link may use. */
export const LINK_PROTOCOLS: readonly string[] = ['http:', 'https:', 'mailto:'];
/** Protocols an image may load from (and only from an allowed host). */
export const IMAGE_PROTOCOLS: readonly string[] = ['http:', 'https:'];
/** `rel` of every rendered link. */
export const LINK_REL = 'noopener noreferrer nofollow';

const defaultImageBlocked = (host: string, alt: string) => (alt ? `Image "${alt}" from ${host} not loaded` : `Image from ${host} not loaded`);

// ---------------------------------------------------------------- URLs

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]);
}

let entityDecoder: HTMLTextAreaElement | null = null;
/** Decodes HTML character references (`jav&#x61;script:` → `javascript:`), as the browser would in an attribute. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  if (typeof document !== 'undefined') {
    // A textarea of an inert document decodes references without parsing tags or loading anything.
    entityDecoder ??= document.implementation.createHTMLDocument('').createElement('textarea');
    entityDecoder.innerHTML = text.replace(/</g, '&lt;');
    return entityDecoder.value;
  }
  return text.replace(/&#(x[0-9a-f]+|\d+);?/gi, (_, n: string) => {
    const code = n[0] === 'x' || n[0] === 'X' ? parseInt(n.slice(1), 16) : parseInt(n, 10);
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

/** Whether an image URL's host is in the allowlist (exact hostname match, case-insensitive). */
export function isImageHostAllowed(url: URL, allowImageHosts: readonly string[] | undefined): boolean {
  if (!allowImageHosts?.length || !IMAGE_PROTOCOLS.includes(url.protocol) || url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  return allowImageHosts.some((h) => h.trim().toLowerCase() === host);
}

/** Parses `allow-image-hosts="a.com b.com"` (spaces or commas) into hostnames. */
export function parseHostList(value: string | null | undefined): string[] {
  if (!value) return [];
  return value.split(/[\s,]+/).map((h) => h.trim().toLowerCase()).filter(Boolean);
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s<>()"']+/i;
// Whole link text that reads as a host, optionally with a path: `bank.com`, `www.bank.com/login`.
const HOST_TEXT = /^(?:[^\s/@:]+@)?((?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+\p{L}{2,}|\d{1,3}(?:\.\d{1,3}){3}|localhost)(?::\d+)?(?:[/?#]\S*)?$/iu;
// Endings that make `Node.js` or `README.md` read like hosts; link texts like these are file names.
const FILE_ENDINGS = new Set(['js', 'ts', 'mjs', 'cjs', 'jsx', 'tsx', 'json', 'md', 'py', 'rb', 'txt', 'html', 'css', 'yml', 'yaml', 'toml', 'lock']);

function comparableHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '').replace(/^www\./, '');
}

function hostShownBy(text: string): string | null {
  const trimmed = text.trim();
  const inText = URL_IN_TEXT.exec(trimmed);
  if (inText) {
    try {
      return new URL(inText[0]).hostname || null;
    } catch {
      return null;
    }
  }
  const m = HOST_TEXT.exec(trimmed);
  if (!m) return null;
  const tld = m[1].split('.').pop()!.toLowerCase();
  if (FILE_ENDINGS.has(tld)) return null;
  try {
    return new URL(`https://${m[1]}`).hostname; // IDN → punycode, as the address bar would show
  } catch {
    return null;
  }
}

/**
 * A link whose text shows one host while its `href` opens another (`[https://bank.com](https://evil.test)`),
 * or whose `href` hides the host behind user info (`https://bank.com@evil.test`). Returns the host the text
 * shows and the real one (punycode), or null when the link is what it says.
 */
export function spoofedLinkHost(text: string, href: string): { shown: string; real: string } | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return { shown: decodeURIComponent(url.username) || url.hostname, real: url.hostname };
  const shown = hostShownBy(text);
  if (!shown) return null;
  return comparableHost(shown) === comparableHost(url.hostname) ? null : { shown, real: url.hostname };
}

// ---------------------------------------------------------------- marked (first layer)

// The options of the render in progress; the renderer and the DOMPurify hooks read them (renders are synchronous).
let active: Required<MarkdownOptions> = { allowImageHosts: [], imageBlocked: defaultImageBlocked };

function hostOf(raw: string): string {
  try {
    return new URL(decodeEntities(raw).trim()).hostname;
  } catch {
    return '';
  }
}

let markedInstance: Marked | null = null;
function getMarked(): Marked {
  if (markedInstance) return markedInstance;
  markedInstance = new Marked({
    gfm: true,
    breaks: false,
    async: false,
    renderer: {
      // Raw HTML from the model is shown as text, never parsed.
      html({ text, block }: Tokens.HTML | Tokens.Tag): string {
        return block ? `<p>${escapeHtml(text.replace(/\n+$/, ''))}</p>\n` : escapeHtml(text);
      },
      link(this: { parser: { parseInline(tokens: Token[]): string } }, { href, title, tokens }: Tokens.Link): string {
        const inner = this.parser.parseInline(tokens);
        const url = safeUrl(href, LINK_PROTOCOLS);
        if (!url) return inner;
        const titleAttr = title ? ` title="${escapeHtml(decodeEntities(title))}"` : '';
        return `<a href="${escapeHtml(url.href)}"${titleAttr} target="_blank" rel="${LINK_REL}">${inner}</a>`;
      },
      image({ href, title, text }: Tokens.Image): string {
        const url = safeUrl(href, IMAGE_PROTOCOLS);
        const alt = decodeEntities(text);
        if (url && isImageHostAllowed(url, active.allowImageHosts)) {
          const titleAttr = title ? ` title="${escapeHtml(decodeEntities(title))}"` : '';
          return `<img src="${escapeHtml(url.href)}" alt="${escapeHtml(alt)}"${titleAttr} loading="lazy" referrerpolicy="no-referrer">`;
        }
        const host = url?.hostname ?? hostOf(href);
        return `<span class="parley-image-blocked">${escapeHtml(active.imageBlocked(host || '?', alt))}</span>`;
      },
      code({ text, lang, escaped }: Tokens.Code): string {
        const language = (lang ?? '').match(/^[\w+#.-]+/)?.[0];
        const cls = language ? ` class="language-${escapeHtml(language)}"` : '';
        const body = text.replace(/\n$/, '') + '\n';
        return `<pre><code${cls}>${escaped ? body : escapeHtml(body)}</code></pre>\n`;
      },
      checkbox({ checked }: Tokens.Checkbox): string {
        return `<span class="parley-task">${checked ? '☑' : '☐'}</span> `;
      },
    },
  });
  return markedInstance;
}

function lex(text: string, links: Links | null): Token[] & { links: Links } {
  const lexer = new Lexer(getMarked().defaults);
  if (links) Object.assign(lexer.tokens.links, links);
  return lexer.lex(text);
}

function parse(tokens: Token[]): string {
  return getMarked().parser(tokens) as string;
}

// ---------------------------------------------------------------- DOMPurify (second layer)

const ALLOWED_TAGS = [
  'a', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'img', 'li', 'ol', 'p', 'pre',
  's', 'span', 'strong', 'sub', 'sup', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul',
];
const ALLOWED_CLASS = /^(?:language-[\w+#.-]+|parley-image-blocked|parley-task)$/;
const ALLOWED_ATTR = ['href', 'title', 'alt', 'src', 'class', 'start', 'align', 'target', 'rel', 'loading', 'referrerpolicy'];

let purifier: DOMPurifyInstance | null = null;
function getPurifier(): DOMPurifyInstance | null {
  if (purifier) return purifier;
  if (typeof window === 'undefined') return null;
  // Our own instance, so our hooks never touch a DOMPurify the host page uses.
  purifier = DOMPurify(window);
  purifier.addHook('uponSanitizeAttribute', (_node, data) => {
    // Only the renderer's own classes: markup must not borrow the element's classes (UI redress).
    if (data.attrName === 'class') {
      data.attrValue = data.attrValue.split(/\s+/).filter((c) => ALLOWED_CLASS.test(c)).join(' ');
      if (!data.attrValue) data.keepAttr = false;
    }
  });
  purifier.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') {
      const href = node.getAttribute('href');
      if (href !== null && !safeUrl(href, LINK_PROTOCOLS)) node.removeAttribute('href');
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', LINK_REL);
    } else if (node.nodeName === 'IMG') {
      const src = node.getAttribute('src');
      const url = src === null ? null : safeUrl(src, IMAGE_PROTOCOLS);
      if (!url || !isImageHostAllowed(url, active.allowImageHosts)) node.removeAttribute('src');
      node.setAttribute('referrerpolicy', 'no-referrer');
    } else if (node.nodeName === 'PRE' || node.nodeName === 'TABLE') {
      // Code blocks and tables scroll sideways in a narrow panel: focusable, so a keyboard can scroll them.
      node.setAttribute('tabindex', '0');
    }
  });
  return purifier;
}

/** Sanitises HTML with the strict allowlist (tags above, no styles, no event handlers, http/https/mailto only). */
export function sanitizeHtml(html: string, options: MarkdownOptions = {}): string {
  const instance = getPurifier();
  if (!instance) return escapeHtml(html); // no DOM (server): show nothing that could be markup
  return withOptions(options, () => instance.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
    ALLOW_UNKNOWN_PROTOCOLS: false,
    RETURN_TRUSTED_TYPE: false,
  }) as string);
}

function withOptions<T>(options: MarkdownOptions, run: () => T): T {
  const previous = active;
  active = { allowImageHosts: options.allowImageHosts ?? [], imageBlocked: options.imageBlocked ?? defaultImageBlocked };
  try {
    return run();
  } finally {
    active = previous;
  }
}

function renderTokens(tokens: Token[], options: MarkdownOptions): string {
  const html = withOptions(options, () => parse(tokens));
  return html ? sanitizeHtml(html, options) : '';
}

/** Renders finished markdown to sanitised HTML. */
export function renderMarkdown(text: string, options: MarkdownOptions = {}): string {
  return renderTokens(withOptions(options, () => lex(normalise(text), null)), options);
}

function normalise(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

// ---------------------------------------------------------------- streaming

/** What changed in a streamed reply's rendering. */
export interface MarkdownUpdate {
  /** The text no longer continues what was rendered: drop all blocks and start again. */
  reset: boolean;
  /** Sanitised HTML of blocks that finished with this update, in order; append them after the earlier ones. */
  finished: string[];
  /** Earlier finished blocks rendered again because a reference definition they use arrived (`[r]: …`). */
  replaced: Array<{ index: number; html: string }>;
  /** Sanitised HTML of the growing last block ('' once final). */
  tail: string;
}

/**
 * Incremental renderer for one growing markdown text. Each `update` lexes only the text after the
 * last finished block: a block is finished once another block starts after it, so the per-delta cost
 * depends on the size of the last block, not on the length of the reply.
 */
export class StreamingMarkdown {
  private text = '';
  private stableEnd = 0;
  private links: Links = {};
  private finishedRaw: string[] = [];
  private lastTail = '';

  constructor(private readonly options: MarkdownOptions = {}) {}

  /** Offset in the text where the growing last block starts (what the next update will lex). */
  get tailStart(): number {
    return this.stableEnd;
  }

  /** Number of blocks rendered as finished so far. */
  get finishedCount(): number {
    return this.finishedRaw.length;
  }

  /** Feed the whole text so far; `final` when the reply is complete (the last block finishes too). */
  update(fullText: string, final = false): MarkdownUpdate {
    const text = normalise(fullText);
    let reset = false;
    if (!text.startsWith(this.text.slice(0, this.stableEnd))) {
      reset = true;
      this.stableEnd = 0;
      this.links = {};
      this.finishedRaw = [];
      this.lastTail = '';
    }
    this.text = text;
    const rest = text.slice(this.stableEnd);
    const tokens = withOptions(this.options, () => lex(rest, this.links));
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

    const finished: string[] = [];
    const replaced: MarkdownUpdate['replaced'] = [];
    if (split > 0) {
      const finishedLength = tokens.slice(0, split).reduce((n, t) => n + t.raw.length, 0);
      // Finished blocks must not resolve references against a definition still being streamed in the
      // tail (`[r]: https://ev` → `…il.test`): lex them on their own.
      const done = split === tokens.length ? tokens : withOptions(this.options, () => lex(rest.slice(0, finishedLength), this.links));
      const newLabels = Object.keys(done.links).filter((label) => !(label in this.links));
      this.links = { ...done.links };
      if (newLabels.length) {
        this.finishedRaw.forEach((raw, index) => {
          const lower = raw.toLowerCase();
          if (newLabels.some((label) => lower.includes(`[${label}]`))) {
            replaced.push({ index, html: renderTokens(withOptions(this.options, () => lex(raw, this.links)), this.options) });
          }
        });
      }
      for (const token of done) {
        if (token.type === 'space') continue;
        this.finishedRaw.push(token.raw);
        finished.push(renderTokens([token], this.options));
      }
      this.stableEnd += finishedLength;
    }
    const tailTokens = tokens.slice(split);
    const tail = tailTokens.length ? renderTokens(tailTokens, this.options) : '';
    this.lastTail = tail;
    return { reset, finished, replaced, tail };
  }

  /** HTML of the growing block as last rendered. */
  get tail(): string {
    return this.lastTail;
  }
}
