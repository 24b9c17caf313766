/**
 * A reply's sources (its `tool_reference` chunks) as `<agent-chat>` shows them: a numbered marker where each
 * stands in the text, and a collapsed "Sources" list under the reply with title, host, description and,
 * for a document, its page. Everything in a reference is model or tool output, so untrusted: text goes in
 * through Lit bindings, bidirectional-override characters are dropped, lengths are capped, links keep to
 * http(s) (the markdown renderer's rule, `safeUrl`) and favicons load only from the allowed image hosts.
 * Links open in a new tab without opener or referrer; the chat's link warning covers them as it covers the
 * reply's own links (`.sources` is watched like `.markdown`).
 *
 * A source is a document (no web address) when its URL is not http(s); its page comes from a numeric
 * `page` field of the chunk or a `#page=N` fragment of its URL.
 */
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type { OutputContentChunk, ToolReferenceChunk } from '../../client/types.js';
import { SOURCE_MARK_END, SOURCE_MARK_START, allowedImageUrl, safeUrl } from '../internal/markdown.js';
import type { ShownStrings } from './strings.js';
import type { replyActionsEnglish } from './reply-actions.strings.js';

/** The element's words with this module's English. */
type Words = ShownStrings & typeof replyActionsEnglish;

/** One source of a reply, cleaned for display. */
export interface Source {
  /** Its number (1-based), shown by its markers and in the list. */
  number: number;
  title: string;
  /** The http(s) address it links to, or null (a document, or an address of another kind). */
  url: string | null;
  /** The host of `url` ('' without one). */
  host: string;
  /** The favicon's address as given (checked against the allowed image hosts when shown). */
  favicon: string;
  description: string;
  /** The page of a document it quotes, from 1; null when it names none. */
  page: number | null;
}

/** A reply's text with its sources' markers in place, and its sources. */
export interface ReplySources {
  text: string;
  sources: Source[];
}

const MAX_TITLE = 200;
const MAX_DESCRIPTION = 300;
const MAX_SOURCES = 50;
const MAX_PAGE = 100_000;
/** Bidirectional embeddings, overrides and isolates, marks, and other invisible format and control characters. */
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ue000\ue001]/g;

/** Text of an untrusted field: a string only, hidden characters dropped, whitespace collapsed, at most `max` characters. */
export function cleanText(value: unknown, max: number): string {
  if (typeof value !== 'string') return '';
  const text = value.slice(0, max * 4).replace(HIDDEN, ' ').replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

function pageOf(chunk: ToolReferenceChunk & { page?: unknown }, url: URL | null): number | null {
  const raw = typeof chunk.page === 'number' ? chunk.page : Number(/^#page=(\d{1,6})$/.exec(url?.hash ?? '')?.[1] ?? NaN);
  return Number.isInteger(raw) && raw >= 1 && raw <= MAX_PAGE ? raw : null;
}

function sourceOf(chunk: ToolReferenceChunk, number: number): Source {
  let address: URL | null = null;
  try {
    address = typeof chunk.url === 'string' ? new URL(chunk.url) : null;
  } catch {
    address = null;
  }
  const url = typeof chunk.url === 'string' ? safeUrl(chunk.url, ['http:', 'https:']) : null;
  const host = url?.hostname ?? '';
  return {
    number,
    title: cleanText(chunk.title, MAX_TITLE) || host || cleanText(chunk.tool, MAX_TITLE),
    url: url?.href ?? null,
    host,
    favicon: typeof chunk.favicon === 'string' ? chunk.favicon : '',
    description: cleanText(chunk.description, MAX_DESCRIPTION),
    page: pageOf(chunk, address),
  };
}

const cache = new WeakMap<readonly OutputContentChunk[], ReplySources>();

/**
 * The sources of a reply's content and its text with a marker (markdown.ts) after the words each follows (before
 * the whitespace that ends them). The same source twice (same address, or same title and page) has one number.
 * Cached per content array (a reply's content is a new array whenever it grows).
 */
export function replySources(content: string | readonly OutputContentChunk[]): ReplySources {
  if (typeof content === 'string') return { text: content, sources: [] };
  const hit = cache.get(content);
  if (hit) return hit;
  const sources: Source[] = [];
  const numbers = new Map<string, number>();
  let text = '';
  for (const chunk of content) {
    if (chunk.type === 'text') text += chunk.text;
    else if (chunk.type === 'tool_reference') {
      const source = sourceOf(chunk, sources.length + 1);
      const key = source.url ?? `${source.title}\n${source.page ?? ''}`;
      let number = numbers.get(key);
      if (number === undefined && sources.length < MAX_SOURCES) {
        number = source.number;
        numbers.set(key, number);
        sources.push(source);
      }
      if (number !== undefined) {
        const end = /\s*$/.exec(text)!.index;
        // After a code fence the marker goes on the next line (on the fence's own line it would break it).
        const afterFence = /^ {0,3}(?:`{3,}|~{3,})[^\n]*$/.test(text.slice(text.lastIndexOf('\n', end - 1) + 1, end));
        text = `${text.slice(0, end)}${afterFence ? '\n' : ''}${SOURCE_MARK_START}${number}${SOURCE_MARK_END}${text.slice(end)}`;
      }
    }
  }
  const result = { text, sources };
  cache.set(content, result);
  return result;
}

/** The sources as a markdown list (what Copy adds under a reply's text). */
export function sourcesMarkdown(sources: readonly Source[], t: Words): string {
  if (!sources.length) return '';
  const lines = sources.map((s) => {
    const title = s.title.replace(/([\\[\]])/g, '\\$1');
    const where = [s.page ? t.sourcePage(s.page) : '', s.description].filter(Boolean).join(' — ');
    return `${s.number}. ${s.url ? `[${title}](<${s.url.replace(/[<>]/g, encodeURIComponent)}>)` : title}${where ? ` — ${where}` : ''}`;
  });
  return `\n\n${t.sources(sources.length)}\n\n${lines.join('\n')}`;
}

/** What the list needs from the chat. */
export interface SourcesViewOptions {
  /** Hosts whose images (favicons) may load. */
  imageHosts: readonly string[];
  /** Shows a document's page in the tied `<doc-ocr-viewer>`; absent when no viewer is tied to the chat. */
  openPage?: (source: Source) => void;
}

/** The collapsed Sources list under a reply (`sources` part); nothing when it has none. */
export function renderSourcesList(sources: readonly Source[], t: Words, options: SourcesViewOptions): TemplateResult | typeof nothing {
  if (!sources.length) return nothing;
  return html`<details part="sources" class="sources">
    <summary>${t.sources(sources.length)}</summary>
    <ol class="source-list">
      ${sources.map((s) => {
        const favicon = s.favicon ? allowedImageUrl(s.favicon, options.imageHosts) : null;
        return html`<li part="source" class="source" value=${s.number}>
          ${favicon ? html`<img class="favicon" src=${favicon} alt="" width="16" height="16" loading="lazy" referrerpolicy="no-referrer" />` : nothing}
          ${s.url
            ? html`<a class="source-title" href=${s.url} target="_blank" rel="noopener noreferrer nofollow"><bdi>${s.title}</bdi></a>`
            : html`<bdi class="source-title">${s.title}</bdi>`}
          ${s.host ? html`<span class="source-host">${s.host}</span>` : nothing}
          ${s.page ? html`<span class="source-page">${t.sourcePage(s.page)}</span>` : nothing}
          ${s.description ? html`<p class="source-description" dir="auto">${s.description}</p>` : nothing}
          ${s.page && options.openPage
            ? html`<button part="source-page-button" class="quiet" type="button" @click=${() => options.openPage!(s)}>${t.showInDocument(s.page)}</button>`
            : nothing}
        </li>`;
      })}
    </ol>
  </details>`;
}
