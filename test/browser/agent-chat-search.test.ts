// <agent-chat>'s long histories and its search (issue 15, item 5): every message of a 1,000-message
// conversation is reached by scrolling and by the search the chat offers; the search is labelled, works
// from the keyboard (Enter, Shift+Enter, Escape), announces "n of m matches" politely, marks the current
// match and scrolls it into view; axe finds nothing wrong with it. A FakeSession drives the states.
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import '../../src/elements/agent-chat/define.js';
import type { CachedEntry } from '../../src/client/contracts.js';
import { FakeSession, reply, userMessage } from './helpers/fake-session.js';
import { axeViolations, isChromium } from './helpers/axe.js';

const WAIT = { timeout: 10_000, interval: 20 };

function history(pairs: number): CachedEntry[] {
  const entries: CachedEntry[] = [];
  for (let i = 0; i < pairs; i++) {
    entries.push(userMessage(`u${i}`, `Question number ${i}: what about item ${i}?`));
    entries.push(reply(`r${i}`, `Answer ${i}:\n\n- one point\n- another point with \`code\`\n\nA **closing** sentence for reply ${i}.`));
  }
  return entries;
}

async function chatWith(entries: CachedEntry[]) {
  const session = new FakeSession();
  const el = await fixture<AgentChat>(html`<agent-chat style="height: 480px" .session=${session}></agent-chat>`);
  session.set({ conversationId: 'long', entries });
  await el.updateComplete;
  const root = el.shadowRoot!;
  const q = <T extends HTMLElement = HTMLElement>(s: string) => root.querySelector<T>(s);
  const messages = () => [...root.querySelectorAll<HTMLElement>('[part~="message"]')];
  await waitUntil(() => messages().length === entries.length, 'every message in the transcript', WAIT);
  return { el, session, root, q, messages, transcript: q('.transcript')! };
}

/** Whether `el` shows at least in part inside the transcript's view. */
function inView(el: Element | null | undefined, transcript: HTMLElement): boolean {
  if (!el) return false;
  const a = el.getBoundingClientRect();
  const b = transcript.getBoundingClientRect();
  return a.height > 0 && a.bottom > b.top && a.top < b.bottom;
}

async function openSearch(c: Awaited<ReturnType<typeof chatWith>>): Promise<HTMLInputElement> {
  c.q<HTMLButtonElement>('[part~="search-button"]')!.click();
  await waitUntil(() => c.q('[part~="search-input"]'), 'the search field', WAIT);
  return c.q<HTMLInputElement>('[part~="search-input"]')!;
}

function type(field: HTMLInputElement, text: string): void {
  field.value = text;
  field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
}

function press(field: HTMLInputElement, key: string, shiftKey = false): void {
  field.dispatchEvent(new KeyboardEvent('keydown', { key, shiftKey, bubbles: true, composed: true, cancelable: true }));
}

describe('<agent-chat> long history and search', () => {
  it('reaches the first message of a 1,000-message history by scrolling; the newest is in view when it opens', async () => {
    const c = await chatWith(history(500));
    await waitUntil(() => inView(c.messages().at(-1), c.transcript), 'the newest message in view', WAIT);
    expect(c.q('[part~="show-earlier-button"]')).to.equal(null);
    // A reader scrolling up (the wheel, then the scroll it makes): to the top, again while the messages on
    // the way are laid out.
    await waitUntil(() => {
      c.transcript.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, bubbles: true, composed: true }));
      c.transcript.scrollTop = 0;
      return inView(c.messages()[0], c.transcript);
    }, 'the first message in view', WAIT);
    expect(c.messages()[0]!.textContent).to.contain('Question number 0:');
    // Having scrolled up, new frames do not pull the reader back to the end.
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    expect(inView(c.messages()[0], c.transcript)).to.equal(true);
  });

  it('back from the conversation list, a long conversation is all there again, its old replies as placeholders', async () => {
    const c = await chatWith(history(500));
    expect(c.messages().length, 'every message at once').to.equal(1000);
    c.q<HTMLButtonElement>('[part~="history-button"]')!.click();
    await waitUntil(() => c.q('[part~="conversation-list"]'), 'the conversation list', WAIT);
    expect(c.messages().length).to.equal(0);
    c.q<HTMLButtonElement>('[part~="history-button"]')!.click();
    await waitUntil(() => c.messages().length > 0, 'the transcript again', WAIT);
    expect(c.messages().length, 'every message again').to.equal(1000);
    expect(c.messages()[1]!.querySelector('.bubble.placeholder'), 'the oldest reply a placeholder again').to.not.equal(null);
    await waitUntil(() => inView(c.messages().at(-1), c.q('.transcript')!), 'the newest message in view', WAIT);
  });

  it('a reply streaming at the end of a long history: kept in view while it grows, until the reader scrolls up', async () => {
    const entries = history(300);
    const c = await chatWith(entries);
    const growing = (n: number) => reply('streaming', Array.from({ length: n }, (_, i) => `Line ${i} of the reply.`).join('\n\n'));
    c.session.set({ entries: [...entries, userMessage('uq', 'One more question'), growing(1)], status: 'streaming', streamingEntryId: 'streaming' });
    const tail = () => c.messages().at(-1)!;
    for (let n = 2; n <= 30; n += 4) {
      c.session.set({ entries: [...entries, userMessage('uq', 'One more question'), growing(n)] });
      await waitUntil(() => tail().textContent!.includes(`Line ${n - 1} of`) && inView(tail().querySelector('p:last-child'), c.transcript), `line ${n - 1} in view`, WAIT);
    }
    // The reader scrolls up a little: the growing reply no longer pulls the view down.
    c.transcript.dispatchEvent(new WheelEvent('wheel', { deltaY: -300, bubbles: true, composed: true }));
    c.transcript.scrollTop -= 300;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    // What the reader looks at: the message across the middle of the view (older replies near it may be
    // rendered in full meanwhile, and the browser's scroll anchoring keeps this one in place).
    const box = c.transcript.getBoundingClientRect();
    const middle = box.top + box.height / 2;
    const seen = c.messages().find((m) => { const r = m.getBoundingClientRect(); return r.top <= middle && r.bottom >= middle; })!;
    expect(seen, 'a message across the middle of the view').to.not.equal(undefined);
    const top = seen.getBoundingClientRect().top;
    for (let n = 34; n <= 60; n += 4) {
      c.session.set({ entries: [...entries, userMessage('uq', 'One more question'), growing(n)] });
      await waitUntil(() => tail().textContent!.includes(`Line ${n - 1} of`), `line ${n - 1} arrived`, WAIT);
    }
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    expect(Math.abs(seen.getBoundingClientRect().top - top), 'the reader stays where they scrolled to').to.be.below(2);
    expect(inView(tail().querySelector('p:last-child'), c.transcript), 'the end not pulled into view').to.equal(false);
  });

  it('a match in a placeholder reply is found as the reader will see it: the reply is rendered in full before it is marked', async () => {
    const c = await chatWith(history(500));
    const bubble = () => c.messages()[3]!.querySelector('.bubble')!;
    expect(bubble().classList.contains('placeholder'), 'reply 1 starts as a placeholder').to.equal(true);
    const field = await openSearch(c);
    const status = c.q('[part~="search-status"]')!;
    // "**closing** sentence" in the source: "closing sentence" once rendered.
    type(field, 'closing sentence for reply 1.');
    await waitUntil(() => status.textContent!.trim() === '1 of 1 match', `one match (${status.textContent})`, WAIT);
    const current = c.q('.message.search-current')!;
    expect(current).to.equal(c.messages()[3]);
    expect(bubble().classList.contains('placeholder'), 'rendered in full').to.equal(false);
    expect(bubble().querySelector('strong')?.textContent).to.equal('closing');
    await waitUntil(() => inView(current, c.transcript), 'the match scrolled into view', WAIT);
  });

  it('finds text in every message, counts the matches politely, goes next / previous with Enter and Shift+Enter and scrolls the match into view', async () => {
    const c = await chatWith(history(500));
    const button = c.q<HTMLButtonElement>('[part~="search-button"]')!;
    expect(button.getAttribute('aria-expanded')).to.equal('false');
    const field = await openSearch(c);
    expect(button.getAttribute('aria-expanded')).to.equal('true');
    await waitUntil(() => c.root.activeElement === field, 'focus in the search field', WAIT);
    expect(field.getAttribute('aria-label')).to.equal('Search messages');
    const status = c.q('[part~="search-status"]')!;
    expect(status.getAttribute('role')).to.equal('status');
    expect(status.getAttribute('aria-live')).to.equal('polite');

    // The first message (the oldest, far above the view): found by its text.
    type(field, 'question number 0:');
    await waitUntil(() => status.textContent!.trim() === '1 of 1 match', `one match (${status.textContent})`, WAIT);
    const current = () => c.q('.message.search-current');
    await waitUntil(() => inView(current(), c.transcript), 'the match scrolled into view', WAIT);
    expect(current()!.textContent).to.contain('Question number 0:');

    // Rendered markdown is searched as the reader sees it (**closing** is "closing"): one match per reply.
    type(field, 'closing sentence for reply 49');
    await waitUntil(() => /^\d of 11 matches$/.test(status.textContent!.trim()), `eleven matches (${status.textContent})`, WAIT);
    const position = () => Number(status.textContent!.trim().split(' ')[0]);
    const start = position();
    press(field, 'Enter');
    await waitUntil(() => position() === (start % 11) + 1, 'Enter: the next match', WAIT);
    press(field, 'Enter', true);
    await waitUntil(() => position() === start, 'Shift+Enter: the previous match', WAIT);
    // Around the end: the last match, then the first again.
    for (let i = position(); i < 11; i++) press(field, 'Enter');
    await waitUntil(() => position() === 11, 'the last match', WAIT);
    await waitUntil(() => inView(current(), c.transcript) && current()!.textContent!.includes('reply 499.'), 'the last match in view', WAIT);
    press(field, 'Enter');
    await waitUntil(() => position() === 1, 'Enter wraps to the first match', WAIT);
    await waitUntil(() => inView(current(), c.transcript) && current()!.textContent!.includes('reply 49.'), 'the first match in view', WAIT);
    // The buttons do the same.
    c.q<HTMLButtonElement>('[part~="search-previous-button"]')!.click();
    await waitUntil(() => position() === 11, 'the previous button wraps to the last match', WAIT);
    c.q<HTMLButtonElement>('[part~="search-next-button"]')!.click();
    await waitUntil(() => position() === 1, 'the next button', WAIT);

    type(field, 'no such words anywhere');
    await waitUntil(() => status.textContent!.trim() === 'No matches', 'no matches', WAIT);
    expect(current()).to.equal(null);
    expect(c.q<HTMLButtonElement>('[part~="search-next-button"]')!.disabled).to.equal(true);
  });

  it('marks the matches with the Custom Highlight API, and removes the marks when closed with Escape (focus back on the button)', async () => {
    const c = await chatWith(history(30));
    const field = await openSearch(c);
    type(field, 'another point');
    const status = c.q('[part~="search-status"]')!;
    await waitUntil(() => status.textContent!.trim().endsWith('of 30 matches'), `thirty matches (${status.textContent})`, WAIT);
    const highlights = (CSS as unknown as { highlights?: Map<string, Set<Range>> }).highlights;
    if (highlights) {
      expect(highlights.get('parley-search')!.size, 'the other matches').to.equal(29);
      expect(highlights.get('parley-search-current')!.size, 'the current match').to.equal(1);
      const [range] = [...highlights.get('parley-search-current')!];
      expect(range!.toString().toLowerCase()).to.equal('another point');
    }
    press(field, 'Escape');
    await waitUntil(() => !c.q('[part~="search"]'), 'the search closed', WAIT);
    expect(c.el.shadowRoot!.activeElement).to.equal(c.q('[part~="search-button"]'));
    expect(c.q('.message.search-current')).to.equal(null);
    if (highlights) expect(highlights.get('parley-search')!.size + highlights.get('parley-search-current')!.size).to.equal(0);
  });

  it('a chat taken out of the page takes its marks with it (the highlight registry is the page\'s)', async () => {
    const c = await chatWith(history(10));
    const field = await openSearch(c);
    type(field, 'another point');
    const status = c.q('[part~="search-status"]')!;
    await waitUntil(() => status.textContent!.trim().endsWith('of 10 matches'), `ten matches (${status.textContent})`, WAIT);
    const highlights = (CSS as unknown as { highlights?: Map<string, Set<Range>> }).highlights;
    if (highlights) expect(highlights.get('parley-search')!.size + highlights.get('parley-search-current')!.size).to.equal(10);
    c.el.remove();
    if (highlights) expect(highlights.get('parley-search')!.size + highlights.get('parley-search-current')!.size).to.equal(0);
  });

  it('has no axe violations with old replies shown as placeholders, and once they are rendered in full', async () => {
    const c = await chatWith(history(60));
    expect(c.q('.bubble.placeholder'), 'an old reply as a placeholder').to.not.equal(null);
    expect(await axeViolations(c.el)).to.deep.equal([]);
    await openSearch(c).then((field) => type(field, 'reply 0.'));
    await waitUntil(() => !c.q('.bubble.placeholder'), 'every reply rendered in full for the search', WAIT);
    expect(await axeViolations(c.el)).to.deep.equal([]);
  });

  it('has no axe violations with the search open and matches shown', async () => {
    const c = await chatWith(history(20));
    const field = await openSearch(c);
    type(field, 'answer 1');
    const status = c.q('[part~="search-status"]')!;
    await waitUntil(() => /of \d+ matches/.test(status.textContent!), 'matches', WAIT);
    await settledScroll(c.transcript);
    // Colour contrast is Chromium's to judge here (the same styles): in Firefox and WebKit, axe reads the colours
    // of an edit button near the transcript's edge against an accent-coloured background that is not behind it
    // (#545458 on #0b57d0, 1.18:1) on some runs, and not on others; Chromium's axe never does.
    expect(await axeViolations(c.el, isChromium ? [] : ['color-contrast'])).to.deep.equal([]);
  });
});

/** Resolves once `el`'s scroll position and height held still for three frames. */
async function settledScroll(el: HTMLElement): Promise<void> {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r(undefined)));
  let last = '';
  let still = 0;
  for (let i = 0; i < 300 && still < 3; i++) {
    await frame();
    const now = `${el.scrollTop}/${el.scrollHeight}`;
    still = now === last ? still + 1 : 0;
    last = now;
  }
}
