/**
 * `markdown(text, options)`: a Lit element directive that renders model output into the element it is
 * placed on. While `streaming`, finished blocks are inserted once and kept (same DOM nodes across deltas);
 * only the growing last block is replaced. Finished text is rendered in one go, cached per entry id.
 */
import { noChange } from 'lit';
import { Directive, PartType, directive } from 'lit/directive.js';
import type { ElementPart, PartInfo } from 'lit/directive.js';
import { StreamingMarkdown, renderMarkdown } from './markdown.js';
import type { MarkdownOptions } from './markdown.js';

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
// Rendered HTML of finished entries, so reopening a long history does not parse every entry again.
const renderCache = new Map<string, { text: string; hosts: string; html: string }>();

function cachedRender(text: string, options: MarkdownDirectiveOptions, hosts: string): string {
  const key = options.cacheKey;
  if (key) {
    const hit = renderCache.get(key);
    if (hit && hit.text === text && hit.hosts === hosts) {
      renderCache.delete(key);
      renderCache.set(key, hit); // most recently used last
      return hit.html;
    }
  }
  const html = renderMarkdown(text, options);
  if (key) {
    renderCache.set(key, { text, hosts, html });
    if (renderCache.size > CACHE_LIMIT) renderCache.delete(renderCache.keys().next().value!);
  }
  return html;
}

function toNodes(element: Element, html: string): ChildNode[] {
  if (!html) return [];
  // A template's content is inert until inserted: nothing loads while parsing.
  const template = element.ownerDocument.createElement('template');
  template.innerHTML = html;
  return [...template.content.childNodes];
}

class MarkdownDirective extends Directive {
  private text: string | null = null;
  private streaming = false;
  private hosts = '';
  private stream: StreamingMarkdown | null = null;
  private blocks: ChildNode[][] = [];
  private tail: ChildNode[] = [];
  private tailHtml = '';
  private frame = 0;
  private pending: { element: Element; text: string } | null = null;

  constructor(partInfo: PartInfo) {
    super(partInfo);
    if (partInfo.type !== PartType.ELEMENT) throw new Error('markdown() must be used on an element: <div ${markdown(text, options)}></div>');
  }

  render(_text: string, _options: MarkdownDirectiveOptions): unknown {
    return noChange;
  }

  override update(part: ElementPart, [text, options]: [string, MarkdownDirectiveOptions]): unknown {
    const element = part.element;
    const hosts = (options.allowImageHosts ?? []).join(' ');
    if (hosts !== this.hosts) {
      this.hosts = hosts;
      this.text = null;
      this.stream = null;
    }
    if (text === this.text && options.streaming === this.streaming) return noChange;
    const wasStreaming = this.stream !== null;
    this.text = text;
    this.streaming = options.streaming;

    if (!options.streaming && !wasStreaming) {
      element.replaceChildren(...toNodes(element, cachedRender(text, options, hosts)));
      return noChange;
    }
    if (!this.stream) {
      this.stream = new StreamingMarkdown(options);
      this.blocks = [];
      this.tail = [];
      this.tailHtml = '';
      element.replaceChildren();
    }
    const large = text.length - this.stream.tailStart > TAIL_THROTTLE_CHARS;
    if (options.streaming && large && typeof requestAnimationFrame === 'function') {
      this.pending = { element, text };
      this.frame ||= requestAnimationFrame(() => {
        this.frame = 0;
        const pending = this.pending;
        this.pending = null;
        if (pending && this.stream) this.apply(pending.element, this.stream, pending.text, false);
      });
      return noChange;
    }
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.pending = null;
    this.apply(element, this.stream, text, !options.streaming);
    return noChange;
  }

  private apply(element: Element, stream: StreamingMarkdown, text: string, final: boolean): void {
    const update = stream.update(text, final);
    if (update.reset) {
      this.blocks = [];
      this.tail = [];
      this.tailHtml = '';
      element.replaceChildren();
    }
    for (const { index, html } of update.replaced) {
      const old = this.blocks[index];
      const nodes = toNodes(element, html);
      const anchor = old.length ? old[0] : this.nextNodeAfterBlock(index);
      for (const node of nodes) element.insertBefore(node, anchor);
      for (const node of old) node.remove();
      this.blocks[index] = nodes;
    }
    const before = this.tail[0] ?? null;
    for (const html of update.finished) {
      const nodes = toNodes(element, html);
      for (const node of nodes) element.insertBefore(node, before);
      this.blocks.push(nodes);
    }
    if (update.tail !== this.tailHtml) {
      for (const node of this.tail) node.remove();
      this.tail = toNodes(element, update.tail);
      element.append(...this.tail);
      this.tailHtml = update.tail;
    }
  }

  private nextNodeAfterBlock(index: number): ChildNode | null {
    for (let i = index + 1; i < this.blocks.length; i++) if (this.blocks[i].length) return this.blocks[i][0];
    return this.tail[0] ?? null;
  }
}

/** Renders markdown into the element it is placed on (see the module comment). */
export const markdown = directive(MarkdownDirective);
