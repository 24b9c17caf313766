/**
 * The link rules `<agent-chat>` uses from its first load, without the markdown renderer: the image hosts
 * it is given, and links whose text shows another host than they open. The rules of the rendered markdown
 * itself (which links and images model output may have) are markdown.ts's, loaded with it and marked's
 * lexer with the first reply shown.
 *
 * No DOM at import time.
 */

export interface MarkdownOptions {
  /** Hostnames (exact, case-insensitive) whose images may load. Everything else becomes a placeholder. */
  allowImageHosts?: readonly string[];
  /** Text of the placeholder for an image that was not loaded. */
  imageBlocked?: (host: string, alt: string) => string;
  /** Accessible name of a copy button put in each code block (none without it); the page's click listener copies the block. */
  copyCode?: string;
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
