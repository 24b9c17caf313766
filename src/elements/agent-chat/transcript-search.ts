/**
 * The search `<agent-chat>` offers over the open conversation, loaded the first time the search is opened
 * (it is not part of the chat's first load). It finds every occurrence of the query, ignoring case, in the
 * messages' text as the reader sees it (the bubbles' DOM text: markdown as rendered, not its source). Every
 * message of the conversation is in the transcript (`content-visibility: auto` keeps the off-screen ones
 * cheap), so the search reaches all of them. Replies far from the view may still be placeholders (their
 * markdown source as plain text, `.bubble.placeholder`): they are rendered in full first (the chat's
 * `renderInFull`, once), so every reply is searched as the reader will see it. The matches are marked with
 * the CSS Custom Highlight API
 * where the browser has it (`::highlight(parley-search)`, the current one `parley-search-current`), the
 * current match's message carries the class `search-current`, and it is scrolled into the middle of the
 * transcript (the transcript only, never the page around the chat).
 */

const ALL = 'parley-search';
const CURRENT = 'parley-search-current';
/** Frames spent at most re-centring a match while the messages around it take their real sizes (content-visibility). */
const SETTLE_FRAMES = 60;
/** Frames the match must stay centred (inside its message's box) before the reveal counts as done. */
const STABLE_FRAMES = 2;

interface Match {
  message: HTMLElement;
  range: Range;
}

type HighlightCtor = new (...ranges: Range[]) => Set<Range>;
type HighlightRegistry = Map<string, Set<Range>>;

/** The page's highlight registry and a highlight of `name` in it (shared by every chat on the page; each adds and removes its own ranges). */
function highlight(name: string): Set<Range> | null {
  const registry = (globalThis.CSS as unknown as { highlights?: HighlightRegistry } | undefined)?.highlights;
  const Highlight = (globalThis as unknown as { Highlight?: HighlightCtor }).Highlight;
  if (!registry || !Highlight) return null;
  let h = registry.get(name);
  if (!h) {
    h = new Highlight();
    registry.set(name, h);
  }
  return h;
}

/** Regular-expression source matching `text` literally. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The occurrences of `pattern` in the text nodes under `bubble`, as ranges (a match may span nodes: `**bold** text`). */
function rangesIn(bubble: Element, pattern: RegExp): Range[] {
  const nodes: Text[] = [];
  const starts: number[] = [];
  let text = '';
  const walker = bubble.ownerDocument.createTreeWalker(bubble, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    nodes.push(node);
    starts.push(text.length);
    text += node.data;
  }
  const ranges: Range[] = [];
  pattern.lastIndex = 0;
  let nodeIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (!m[0]) {
      pattern.lastIndex++;
      continue;
    }
    const end = m.index + m[0].length;
    while (nodeIndex < nodes.length - 1 && starts[nodeIndex + 1] <= m.index) nodeIndex++;
    let last = nodeIndex;
    while (last < nodes.length - 1 && starts[last + 1] < end) last++;
    const range = bubble.ownerDocument.createRange();
    range.setStart(nodes[nodeIndex], m.index - starts[nodeIndex]);
    range.setEnd(nodes[last], end - starts[last]);
    ranges.push(range);
  }
  return ranges;
}

const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));

/** See the module comment. One per chat; `transcript` gives its scrolling list of messages when it is shown. */
export class TranscriptSearch {
  readonly #transcript: () => HTMLElement | null;
  readonly #renderInFull: (messages: HTMLElement[]) => Promise<void>;
  #matches: Match[] = [];
  #index = -1;
  #marked: HTMLElement | null = null;
  #scrolling = 0;

  /**
   * `transcript` gives the chat's scrolling list of messages when it is shown; `renderInFull` renders
   * placeholder replies (their `.message` elements) in full and resolves once they are.
   */
  constructor(transcript: () => HTMLElement | null, renderInFull: (messages: HTMLElement[]) => Promise<void> = async () => {}) {
    this.#transcript = transcript;
    this.#renderInFull = renderInFull;
  }

  /** Number of matches of the last query. */
  get total(): number {
    return this.#matches.length;
  }

  /** 1-based position of the current match (0 when there is none). */
  get current(): number {
    return this.#index + 1;
  }

  /**
   * Finds `query` in every message. The current match becomes the first one in or below the top of the
   * transcript's view (as a browser's find does), else the first one. Placeholders are rendered in full before.
   */
  async find(query: string): Promise<void> {
    this.#unmark();
    this.#matches = [];
    this.#index = -1;
    const needle = query.trim();
    if (!this.#transcript() || !needle) return;
    // A placeholder's source is not what the reader sees (`**bold**`, `&amp;`, a link's address): render first.
    const placeholders = [...this.#transcript()?.querySelectorAll<HTMLElement>('.message > .bubble.placeholder') ?? []];
    if (placeholders.length) await this.#renderInFull(placeholders.map((bubble) => bubble.parentElement!));
    const transcript = this.#transcript();
    if (!transcript) return;
    const pattern = new RegExp(literal(needle), 'giu');
    for (const message of transcript.querySelectorAll<HTMLElement>('.message')) {
      const bubble = message.querySelector('.bubble');
      if (!bubble) continue;
      for (const range of rangesIn(bubble, pattern)) this.#matches.push({ message, range });
    }
    if (!this.#matches.length) return;
    const top = transcript.getBoundingClientRect().top;
    const first = this.#matches.findIndex((m) => m.message.getBoundingClientRect().bottom > top);
    this.#index = Math.max(0, first);
    this.#mark();
  }

  /** Moves to the next match (`step` 1) or the previous one (-1), wrapping around. */
  move(step: 1 | -1): void {
    if (!this.#matches.length) return;
    this.#unmark();
    this.#index = (this.#index + step + this.#matches.length) % this.#matches.length;
    this.#mark();
  }

  /**
   * Scrolls the current match into the middle of the transcript, again over frames while the messages
   * around it are laid out with their real sizes. Resolves once it has stayed in place for a few frames
   * (or another scroll replaced it, or the frames ran out).
   *
   * A message skipped by `content-visibility: auto` has a box of its intrinsic size, and the geometry of
   * the text inside it may be stale (Chromium lays out the skipped contents on demand, not where that box
   * sits): until the match's rectangle lies inside its message's box, the message's box is what is centred.
   */
  async reveal(): Promise<void> {
    const match = this.#matches[this.#index];
    const transcript = this.#transcript();
    if (!match || !transcript) return;
    const run = ++this.#scrolling;
    let stable = 0;
    for (let i = 0; i < SETTLE_FRAMES && run === this.#scrolling; i++) {
      if (!match.message.isConnected) return;
      const box = transcript.getBoundingClientRect();
      const own = match.range.getBoundingClientRect();
      const outer = match.message.getBoundingClientRect();
      const laidOut = own.height > 0 && own.top >= outer.top - 1 && own.bottom <= outer.bottom + 1;
      const rect = laidOut ? own : outer;
      const offset = rect.top + rect.height / 2 - (box.top + box.height / 2);
      // Centred, or as near as the transcript's ends allow (a match in the first or last screenful).
      const room = offset > 0 ? transcript.scrollHeight - transcript.clientHeight - transcript.scrollTop : transcript.scrollTop;
      const settled = laidOut && (Math.abs(offset) < 2 || room < 1);
      stable = settled ? stable + 1 : 0;
      if (stable >= STABLE_FRAMES) return;
      if (!settled) transcript.scrollTop += offset;
      await frame();
    }
  }

  /** Removes the marks (the search closed). */
  clear(): void {
    this.#unmark();
    this.#matches = [];
    this.#index = -1;
    this.#scrolling++;
  }

  #mark(): void {
    const all = highlight(ALL);
    if (all) for (const m of this.#matches) all.add(m.range);
    const match = this.#matches[this.#index];
    if (!match) return;
    all?.delete(match.range);
    highlight(CURRENT)?.add(match.range);
    this.#marked = match.message;
    match.message.classList.add('search-current');
  }

  #unmark(): void {
    const all = highlight(ALL);
    const current = highlight(CURRENT);
    for (const m of this.#matches) {
      all?.delete(m.range);
      current?.delete(m.range);
    }
    this.#marked?.classList.remove('search-current');
    this.#marked = null;
  }
}
