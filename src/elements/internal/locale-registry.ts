/**
 * The languages at work in a page: the catalogues known (shipped ones once loaded, and registered ones), the
 * language of each element, and its words from them. An element's words: English (its strings.ts), then
 * each catalogue of its language's chain (`fr-CA` → `fr`), then the host's `strings` overrides.
 *
 * Every shipped language other than English is its own module, imported the first time an element needs it
 * (a separate chunk in the CDN build, so the first load carries English only); the element shows English
 * until it arrives, then renders again. One MutationObserver, shared by every element, watches `lang`
 * attributes (the document's, and each element's own when it lives in a shadow root): a change re-renders
 * the elements whose language changed.
 *
 * Typed without the elements' strings, which import `localize` from here: the catalogue's types and the
 * public `registerLocale` are in locale.ts, which imports both (no import circle).
 */

/** Which element's part of a catalogue (locale.ts's `CompleteLocaleCatalogue` has one of each). */
export type LocalePart = 'agentChat' | 'speechPlayer' | 'audioTranscriber' | 'docOcrViewer';

/** What an element must be for its words to follow its language (a Lit element is). */
export interface LocaleHost extends HTMLElement {
  requestUpdate(): void;
}

/** A language's catalogue as the registry holds it: parts by element, strings by name (locale.ts types it for pages). */
type Catalogue = { readonly [P in LocalePart]?: object };

type Loader = () => Promise<{ default: Catalogue }>;

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

const registered = new Map<string, Catalogue>();
const loaded = new Map<string, Catalogue>();
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

/** Adds or replaces the catalogue of `tag` (locale.ts `registerLocale`, which types it and says what it does). */
export function register(tag: string, catalogue: Catalogue): void {
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

function catalogueOf(key: string): Catalogue | undefined {
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
export function localize<T extends object>(
  host: LocaleHost | null | undefined,
  part: LocalePart,
  english: T,
  overrides: Partial<T> | null | undefined,
): T {
  if (!host) {
    if (!overrides && !registered.has('en')) return english;
    const out = { ...english } as Record<string, unknown>;
    assignDefined(out, registered.get('en')?.[part]);
    assignDefined(out, overrides);
    return out as unknown as T;
  }
  track(host);
  const lang = languageOf(host);
  const cached = cache.get(host);
  if (cached && cached.part === part && cached.lang === lang && cached.overrides === overrides && cached.version === version) {
    return cached.value as T;
  }
  const chain = localeChain(lang);
  const out = { ...english } as Record<string, unknown>;
  assignDefined(out, registered.get('en')?.[part]);
  for (let i = chain.length - 1; i >= 0; i--) {
    const key = chain[i]!;
    const catalogue = catalogueOf(key);
    if (catalogue) assignDefined(out, catalogue[part]);
    else void load(key);
  }
  assignDefined(out, overrides);
  const value = out as unknown as T;
  cache.set(host, { part, lang, overrides, version, value });
  return value;
}
