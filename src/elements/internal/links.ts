/**
 * The URL rules of the markdown renderer (markdown.ts), without the renderer: which links and images model
 * output may have, and links whose text shows another host than they open. `<agent-chat>` uses these from
 * its first load; the renderer and marked's lexer are loaded with the first reply shown.
 *
 * No DOM at import time.
 */

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

// ---------------------------------------------------------------- URLs

let inertDocument: Document | null = null;
/** A document without a browsing context: nothing created in it loads or runs until it is inserted into the page. */
export function inert(): Document {
  return (inertDocument ??= document.implementation.createHTMLDocument(''));
}

let entityDecoder: HTMLTextAreaElement | null = null;
/** Decodes HTML character references (`jav&#x61;script:` → `javascript:`), as the browser would in an attribute. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  if (typeof document !== 'undefined') {
    // A textarea of an inert document decodes references without parsing tags or loading anything.
    entityDecoder ??= inert().createElement('textarea');
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
