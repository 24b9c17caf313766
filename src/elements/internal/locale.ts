/**
 * Languages of the four elements. Each element's words come from a locale catalogue chosen by its
 * language: its own `lang` attribute, else the nearest ancestor's (across shadow roots), else
 * `<html lang>`, else `navigator.language`. A tag falls back along its prefixes and then to English, per
 * string: `fr-CA` → `fr` → `en`. The host's `strings` property still wins over any catalogue.
 *
 * English is built in (each element's strings.ts). Every other shipped language is its own module,
 * imported the first time an element needs it (a separate chunk in the CDN build, so the first load
 * carries English only); the element shows English until it arrives, then renders again.
 * `registerLocale()` adds a language, or replaces a shipped one, for all four elements.
 *
 * One MutationObserver, shared by every element, watches `lang` attributes (the document's, and each
 * element's own when it lives in a shadow root): a change re-renders the elements whose language changed.
 */
import type { AgentChatStrings } from '../agent-chat/strings.js';
import type { SpeechPlayerStrings } from '../speech-player/strings.js';
import type { AudioTranscriberStrings } from '../audio-transcriber/strings.js';
import type { DocOcrViewerStrings } from '../doc-ocr-viewer/strings.js';

/** Every string of every element in one language (what the shipped catalogues provide). */
export interface CompleteLocaleCatalogue {
  agentChat: AgentChatStrings;
  speechPlayer: SpeechPlayerStrings;
  audioTranscriber: AudioTranscriberStrings;
  docOcrViewer: DocOcrViewerStrings;
}

/** A language for `registerLocale()`: any element, any string may be left out (it falls back, in the end to English). */
export type LocaleCatalogue = { [P in keyof CompleteLocaleCatalogue]?: Partial<CompleteLocaleCatalogue[P]> };

/** Which element's part of a catalogue. */
export type LocalePart = keyof CompleteLocaleCatalogue;

/** What an element must be for its words to follow its language (a Lit element is). */
export interface LocaleHost extends HTMLElement {
  requestUpdate(): void;
}

// What a catalogue module needs, in one import (see locales/fr.ts).
export { chatErrorKind, speechErrorKind, speakerNumber } from './error-kinds.js';
export type { ChatErrorKind, SpeechErrorKind } from './error-kinds.js';
export { counter, numberIn, clock } from './locale-format.js';
export type { Counter, PluralForms } from './locale-format.js';

type Loader = () => Promise<{ default: LocaleCatalogue }>;

/**
 * The shipped languages, each its own module. Static `import()` calls, so bundlers (the CDN build
 * included) split each into a chunk loaded only when a page uses that language.
 */
const SHIPPED: Record<string, Loader> = {
  fr: () => import('../locales/fr.js'),
  de: () => import('../locales/de.js'),
  es: () => import('../locales/es.js'),
  ar: () => import('../locales/ar.js'),
};

/** Tags of the languages shipped with the kit, English included. */
export const shippedLocales: readonly string[] = ['en', ...Object.keys(SHIPPED)];

const registered = new Map<string, LocaleCatalogue>();
const loaded = new Map<string, LocaleCatalogue>();
const loading = new Map<string, Promise<void>>();
/** Bumped whenever a catalogue arrives or is registered: cached strings are rebuilt. */
let version = 0;

/** `fr_CA` / `FR-ca` → `fr-ca` (matching is case-insensitive). */
function normalize(tag: string): string {
  return tag.trim().replace(/_/g, '-').toLowerCase();
}

/** The tags to try, most specific first, English excluded: `zh-Hant-TW` → `zh-hant-tw`, `zh-hant`, `zh`. */
export function localeChain(tag: string): string[] {
  const parts = normalize(tag).split('-').filter(Boolean);
  const chain: string[] = [];
  for (let n = parts.length; n > 0; n--) {
    const t = parts.slice(0, n).join('-');
    if (t !== 'en') chain.push(t);
  }
  return chain;
}

/**
 * Adds a language, or replaces one (a shipped one included), for all four elements, and re-renders the
 * elements using it. Strings left out fall back to the language's shorter tag (`fr` for `fr-CA`), then
 * to English. Registering `en` changes the English words themselves.
 */
export function registerLocale(tag: string, catalogue: LocaleCatalogue): void {
  const key = normalize(tag);
  if (!key) throw new TypeError('registerLocale: the language tag is empty');
  if (!catalogue || typeof catalogue !== 'object') throw new TypeError('registerLocale: the catalogue must be an object');
  registered.set(key, catalogue);
  version++;
  refreshAll();
}

/** Loads a shipped language now (the elements load it by themselves when they need it); resolves when it is ready. */
export function loadLocale(tag: string): Promise<void> {
  return Promise.all(localeChain(tag).map(load)).then(() => undefined);
}

function load(key: string): Promise<void> {
  const loader = SHIPPED[key];
  if (!loader || registered.has(key) || loaded.has(key)) return Promise.resolve();
  let pending = loading.get(key);
  if (!pending) {
    pending = loader().then(
      (module) => {
        loaded.set(key, module.default);
        version++;
        refreshAll();
      },
      (error: unknown) => {
        // The chunk could not be fetched: English stays; a later element may try again.
        loading.delete(key);
        console.warn(`[parley] the "${key}" strings could not be loaded; showing English.`, error);
      },
    );
    loading.set(key, pending);
  }
  return pending;
}

function catalogueOf(key: string): LocaleCatalogue | undefined {
  return registered.get(key) ?? loaded.get(key);
}

/** The language of `host`: its own or nearest ancestor's non-empty `lang` (across shadow roots), `<html lang>`, or the browser's. */
export function languageOf(host: Element): string {
  let node: Element | null = host;
  while (node) {
    const withLang: Element | null = node.closest('[lang]:not([lang=""])');
    if (withLang) return withLang.getAttribute('lang')!;
    const root = node.getRootNode();
    node = root instanceof ShadowRoot ? root.host : null;
  }
  const page = typeof document !== 'undefined' ? document.documentElement.lang : '';
  if (page) return page;
  return typeof navigator !== 'undefined' && navigator.language ? navigator.language : 'en';
}

interface Cached {
  part: LocalePart;
  lang: string;
  overrides: unknown;
  version: number;
  value: unknown;
}

const cache = new WeakMap<Element, Cached>();
/** Elements that have asked for their words: re-rendered when their language changes or a catalogue arrives. */
const hosts = new Set<WeakRef<LocaleHost>>();
const tracked = new WeakSet<Element>();
let observer: MutationObserver | null = null;
let sweepAt = 64;

/** Re-renders every element whose words may have changed (a catalogue arrived or a `lang` changed). */
function refreshAll(): void {
  for (const ref of hosts) {
    const host = ref.deref();
    if (!host) {
      hosts.delete(ref);
      continue;
    }
    const cached = cache.get(host);
    if (cached && cached.version === version && cached.lang === languageOf(host)) continue;
    host.requestUpdate();
  }
}

function track(host: LocaleHost): void {
  if (tracked.has(host)) return;
  tracked.add(host);
  // Elements that were dropped leave dead references: swept now and then, not only when a language changes.
  if (hosts.size >= sweepAt) {
    for (const ref of hosts) if (!ref.deref()) hosts.delete(ref);
    sweepAt = Math.max(64, hosts.size * 2);
  }
  hosts.add(new WeakRef(host));
  if (typeof MutationObserver === 'undefined') return;
  if (!observer) {
    observer = new MutationObserver(refreshAll);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'], subtree: true });
  }
  // The document's subtree does not reach into shadow roots: an element inside one is watched itself.
  if (host.getRootNode() !== document) observer.observe(host, { attributes: true, attributeFilter: ['lang'] });
}

/** Copies the defined values of `from` over `into`. */
function assignDefined(into: Record<string, unknown>, from: object | null | undefined): void {
  if (!from) return;
  for (const [k, v] of Object.entries(from)) if (v !== undefined) into[k] = v;
}

/**
 * An element's words: English, then each language of its chain from the shortest tag to the most specific,
 * then the host's overrides. Without a host, English and the overrides. Cached per element.
 */
export function localize<P extends LocalePart>(
  host: LocaleHost | null | undefined,
  part: P,
  english: CompleteLocaleCatalogue[P],
  overrides: Partial<CompleteLocaleCatalogue[P]> | null | undefined,
): CompleteLocaleCatalogue[P] {
  if (!host) {
    if (!overrides && !registered.has('en')) return english;
    const out: Record<string, unknown> = { ...english };
    assignDefined(out, registered.get('en')?.[part]);
    assignDefined(out, overrides);
    return out as unknown as CompleteLocaleCatalogue[P];
  }
  track(host);
  const lang = languageOf(host);
  const cached = cache.get(host);
  if (cached && cached.part === part && cached.lang === lang && cached.overrides === overrides && cached.version === version) {
    return cached.value as CompleteLocaleCatalogue[P];
  }
  const chain = localeChain(lang);
  const out: Record<string, unknown> = { ...english };
  assignDefined(out, registered.get('en')?.[part]);
  for (let i = chain.length - 1; i >= 0; i--) {
    const key = chain[i]!;
    const catalogue = catalogueOf(key);
    if (catalogue) assignDefined(out, catalogue[part]);
    else void load(key);
  }
  assignDefined(out, overrides);
  const value = out as unknown as CompleteLocaleCatalogue[P];
  cache.set(host, { part, lang, overrides, version, value });
  return value;
}
