/**
 * `markdown(text, options)`: a Lit element directive that renders model output into the element it is
 * placed on, as DOM nodes built from markdown tokens (markdown.ts; no HTML string is parsed). While
 * `streaming`, finished blocks are inserted once and kept (same DOM nodes across deltas); only the growing
 * last block is replaced. Finished text is rendered in one go, cached per entry id (a copy of the nodes).
 *
 * The renderer (markdown.ts, with marked's lexer: most of `<agent-chat>`'s weight) is a separate chunk,
 * loaded when the first text is to be shown: a chat that shows no reply yet does not load it. Until it is
 * loaded the text is shown as it is; `markdownLoading()` tells when the waiting texts have been rendered.
 */
import { noChange } from 'lit';
import { Directive, PartType, directive } from 'lit/directive.js';
import type { ElementPart, PartInfo } from 'lit/directive.js';
import type * as Markdown from './markdown.js';
import type { MarkdownOptions } from './links.js';

type MarkdownModule = typeof Markdown;
let renderer: MarkdownModule | null = null;
let loading: Promise<MarkdownModule> | null = null;
// Directives whose text waits for the renderer.
const waiting = new Set<MarkdownDirective>();

/** Loads the renderer once; the texts waiting for it are rendered before the promise settles. */
export function loadMarkdown(): Promise<MarkdownModule> {
  loading ??= import('./markdown.js').then((module) => {
    renderer = module;
    const ready = [...waiting];
    waiting.clear();
    for (const d of ready) d.resume();
    return module;
  }, (error: unknown) => {
    loading = null; // the next text tries again
    throw error;
  });
  return loading;
}

/** While texts wait for the renderer: a promise settled once they are rendered (or the load failed). */
export function markdownLoading(): Promise<unknown> | null {
  return !renderer && loading ? loading.catch(() => undefined) : null;
}

/**
 * Markdown as a reader reads it, whitespace collapsed (the source text while the renderer is not loaded);
 * with `limit`, at least its first `limit` characters (only the blocks needed are rendered).
 */
export function markdownPlainText(text: string, limit = Infinity): string {
  return (renderer ? renderer.renderMarkdownText(text, limit) : text).replace(/\s+/g, ' ').trim();
}

export interface MarkdownDirectiveOptions extends MarkdownOptions {
  /** The text is still growing. */
  streaming: boolean;
  /** Key of the finished text in the render cache (an entry id); omit to skip the cache. */
  cacheKey?: string;
}

const CACHE_LIMIT = 2000;
/**
 * A growing block longer than this (a long list, a long code block) is rendered at most once per
 * animation frame instead of once per delta: its cost grows with its length, and deltas arriving
 * within one frame would not be seen anyway. Shorter blocks render on every delta.
 */
export const TAIL_THROTTLE_CHARS = 3000;
// Rendered nodes of finished entries (copied for each use), so reopening a long history does not parse every entry again.
const renderCache = new Map<string, { text: string; hosts: string; nodes: DocumentFragment }>();

function cachedRender(text: string, options: MarkdownDirectiveOptions, hosts: string): DocumentFragment {
  const key = options.cacheKey;
  if (key) {
    const hit = renderCache.get(key);
    if (hit && hit.text === text && hit.hosts === hosts) {
      renderCache.delete(key);
      renderCache.set(key, hit); // most recently used last
      return hit.nodes.cloneNode(true) as DocumentFragment;
    }
  }
  const nodes = renderer!.renderMarkdownFragment(text, options);
  if (!key) return nodes;
  renderCache.set(key, { text, hosts, nodes });
  if (renderCache.size > CACHE_LIMIT) renderCache.delete(renderCache.keys().next().value!);
  return nodes.cloneNode(true) as DocumentFragment;
}

function toNodes(fragment: DocumentFragment): ChildNode[] {
  return [...fragment.childNodes];
}

class MarkdownDirective extends Directive {
  #text: string | null = null;
  #streaming = false;
  #hosts = '';
  #stream: Markdown.StreamingMarkdown | null = null;
  #blocks: ChildNode[][] = [];
  #tail: ChildNode[] = [];
  #tailSource = '';
  #frame = 0;
  #pending: { element: Element; text: string } | null = null;
  #waitingFor: { element: Element; text: string; options: MarkdownDirectiveOptions } | null = null;

  constructor(partInfo: PartInfo) {
    super(partInfo);
    if (partInfo.type !== PartType.ELEMENT) throw new Error('markdown() must be used on an element: <div ${markdown(text, options)}></div>');
  }

  render(_text: string, _options: MarkdownDirectiveOptions): unknown {
    return noChange;
  }

  override update(part: ElementPart, [text, options]: [string, MarkdownDirectiveOptions]): unknown {
    const element = part.element;
    if (!renderer) {
      // The source as text until the renderer is loaded (see the module comment).
      if (element.textContent !== text) element.textContent = text;
      this.#waitingFor = { element, text, options };
      waiting.add(this);
      loadMarkdown().catch(() => {}); // failed: the text stays as it is until the next update
      return noChange;
    }
    // Everything but the text that changes the nodes: a change renders again (and keys the cache).
    const hosts = `${(options.allowImageHosts ?? []).join(' ')}\n${options.copyCode ?? ''}`;
    if (hosts !== this.#hosts) {
      this.#hosts = hosts;
      this.#text = null;
      this.#stream = null;
    }
    if (text === this.#text && options.streaming === this.#streaming) return noChange;
    const wasStreaming = this.#stream !== null;
    this.#text = text;
    this.#streaming = options.streaming;

    if (!options.streaming && !wasStreaming) {
      element.replaceChildren(cachedRender(text, options, hosts));
      return noChange;
    }
    if (!this.#stream) {
      this.#stream = new renderer.StreamingMarkdown(options);
      this.#blocks = [];
      this.#tail = [];
      this.#tailSource = '';
      element.replaceChildren();
    }
    const large = text.length - this.#stream.tailStart > TAIL_THROTTLE_CHARS;
    if (options.streaming && large && typeof requestAnimationFrame === 'function') {
      this.#pending = { element, text };
      this.#frame ||= requestAnimationFrame(() => {
        this.#frame = 0;
        const pending = this.#pending;
        this.#pending = null;
        if (pending && this.#stream) this.#apply(pending.element, this.#stream, pending.text, false);
      });
      return noChange;
    }
    if (this.#frame) cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.#pending = null;
    this.#apply(element, this.#stream, text, !options.streaming);
    return noChange;
  }

  /** The renderer is loaded: renders the latest text it was given. */
  resume(): void {
    const args = this.#waitingFor;
    this.#waitingFor = null;
    if (args) this.update({ element: args.element } as ElementPart, [args.text, args.options]);
  }

  #apply(element: Element, stream: Markdown.StreamingMarkdown, text: string, final: boolean): void {
    const update = stream.update(text, final);
    if (update.reset) {
      this.#blocks = [];
      this.#tail = [];
      this.#tailSource = '';
      element.replaceChildren();
    }
    for (const { index, nodes: fragment } of update.replaced) {
      const old = this.#blocks[index];
      const nodes = toNodes(fragment);
      const anchor = old.length ? old[0] : this.#nextNodeAfterBlock(index);
      for (const node of nodes) element.insertBefore(node, anchor);
      for (const node of old) node.remove();
      this.#blocks[index] = nodes;
    }
    const before = this.#tail[0] ?? null;
    for (const fragment of update.finished) {
      const nodes = toNodes(fragment);
      for (const node of nodes) element.insertBefore(node, before);
      this.#blocks.push(nodes);
    }
    // The same source renders the same nodes, unless blocks finished (a reference definition among them).
    if (update.tailSource !== this.#tailSource || update.finished.length || update.replaced.length || update.reset) {
      for (const node of this.#tail) node.remove();
      this.#tail = toNodes(update.tail);
      element.append(update.tail);
      this.#tailSource = update.tailSource;
    }
  }

  #nextNodeAfterBlock(index: number): ChildNode | null {
    for (let i = index + 1; i < this.#blocks.length; i++) if (this.#blocks[i].length) return this.#blocks[i][0];
    return this.#tail[0] ?? null;
  }
}

/** Renders markdown into the element it is placed on (see the module comment). */
export const markdown = directive(MarkdownDirective);
