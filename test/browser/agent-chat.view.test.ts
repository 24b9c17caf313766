// <agent-chat> as a view over a session's state (an injected fake session): render cost, long
// histories, every entry kind, accessibility of every state, registration. The real flow is in
// agent-chat.test.ts.
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import { defineAgentChat } from '../../src/elements/agent-chat/define.js';
import type { CachedEntry } from '../../src/client/contracts.js';
import { renderMarkdownFragment } from '../../src/elements/internal/markdown.js';
import { TAIL_THROTTLE_CHARS } from '../../src/elements/internal/markdown-directive.js';
import { Lexer } from 'marked';
import { FakeSession, reply, userMessage } from './helpers/fake-session.js';
import { axeViolations } from './helpers/axe.js';

function view(el: AgentChat) {
  const root = el.shadowRoot!;
  return {
    root,
    q: <T extends HTMLElement = HTMLElement>(s: string) => root.querySelector<T>(s),
    all: (s: string) => [...root.querySelectorAll<HTMLElement>(s)],
  };
}

async function chatWith(session: FakeSession, attrs: { mode?: string; open?: boolean } = {}): Promise<AgentChat> {
  const el = await fixture<AgentChat>(html`<agent-chat .session=${session} mode=${attrs.mode ?? 'inline'} ?open=${attrs.open ?? false}></agent-chat>`);
  await el.updateComplete;
  return el;
}

/** A markdown reply of about `tokens` tokens (words and punctuation), with every block kind. */
function longMarkdown(tokens: number): string {
  const blocks = [
    '## Section heading\n\n',
    'A paragraph with **bold**, *emphasis*, `code` and a [link](https://docs.test/page) that goes on for a while to make it a realistic length of text.\n\n',
    '- first item with some words\n- second item with more words\n- third item\n\n',
    '```js\nconst answer = compute(42);\nconsole.log(answer);\n```\n\n',
    '| a | b |\n|---|---|\n| one | two |\n| three | four |\n\n',
    '> A quoted line of text from somewhere else.\n\n',
  ];
  let text = '';
  let i = 0;
  while ((text.match(/\s*[\p{L}\p{N}_]+|\s*[^\s\p{L}\p{N}_]/gu)?.length ?? 0) < tokens) text += blocks[i++ % blocks.length];
  return text;
}

/**
 * Counts the characters handed to marked's lexer (the real lexer still runs): how much markdown a render
 * parses, a measure of its work that does not depend on the machine's speed.
 */
function countLexing() {
  const lex = Lexer.prototype.lex;
  const calls: number[] = [];
  Lexer.prototype.lex = function (this: Lexer, src: string) {
    calls.push(src.length);
    return lex.call(this, src);
  };
  return {
    calls,
    /** Characters lexed since `from` (an earlier `calls.length`). */
    since: (from: number) => calls.slice(from).reduce((a, b) => a + b, 0),
    restore() { Lexer.prototype.lex = lex; },
  };
}

/** Replaces requestAnimationFrame with a queue the test flushes, so frame work happens where the test says. */
function manualFrames() {
  const queue = new Map<number, FrameRequestCallback>();
  let next = 0;
  const raf = window.requestAnimationFrame;
  const caf = window.cancelAnimationFrame;
  window.requestAnimationFrame = (callback) => {
    queue.set(++next, callback);
    return next;
  };
  window.cancelAnimationFrame = (handle) => {
    queue.delete(handle);
  };
  return {
    flush() {
      const callbacks = [...queue.values()];
      queue.clear();
      const now = performance.now();
      for (const callback of callbacks) callback(now);
    },
    restore() {
      window.requestAnimationFrame = raf;
      window.cancelAnimationFrame = caf;
    },
  };
}

describe('<agent-chat> view', () => {
  const TOKEN = /\s*[\p{L}\p{N}_]+|\s*[^\s\p{L}\p{N}_]|\s+/gu;
  const shapes: Array<[string, string]> = [
    ['mixed blocks', longMarkdown(5000)],
    ['one long list', Array.from({ length: 840 }, (_, i) => `- item number ${i} here\n`).join('')],
    ['one long code block', '```js\n' + Array.from({ length: 1250 }, (_, i) => `let v${i} = ${i};\n`).join('')],
    ['one long paragraph', Array.from({ length: 5000 }, (_, i) => `word${i}`).join(' ')],
  ];
  for (const [shape, text] of shapes) {
    // Render cost is bounded by structure, not timed (`npm run bench` times it): each delta parses only the
    // growing last block, and a last block longer than TAIL_THROTTLE_CHARS only once per frame; finished blocks
    // are inserted once and kept.
    it(`renders a 5,000-token streamed reply (${shape}) block by block: a delta parses only the growing last block, long ones once per frame; finished blocks kept`, async () => {
      const session = new FakeSession();
      const el = await chatWith(session);
      const deltas = text.match(TOKEN)!;
      expect(deltas.length).to.be.at.least(4000);
      const user = userMessage('u1', 'Write a long answer');
      session.set({ conversationId: 'c1', entries: [user], status: 'submitted' });
      await el.updateComplete;

      // Frames are driven by hand: one frame per 3 deltas (tokens every ~5 ms).
      const frames = manualFrames();
      const lexing = countLexing();
      let acc = '';
      let mostLexedInADelta = 0;
      let mostLexCallsInAFrame = 0;
      let framesThatParsed = 0;
      const finishedBlocks = new Set<Element>();
      try {
        for (let i = 0; i < deltas.length; i++) {
          acc += deltas[i];
          const before = lexing.calls.length;
          session.set({ entries: [user, reply('r1', acc, { completed_at: null })], streamingEntryId: 'r1', status: 'streaming' });
          await el.updateComplete;
          mostLexedInADelta = Math.max(mostLexedInADelta, lexing.since(before));
          if (i % 3 === 2) {
            const atFrame = lexing.calls.length;
            frames.flush();
            mostLexCallsInAFrame = Math.max(mostLexCallsInAFrame, lexing.calls.length - atFrame);
            if (lexing.calls.length > atFrame) framesThatParsed++;
          }
          const blocks = view(el).q('.markdown')!.children;
          for (let b = 0; b < blocks.length - 1; b++) finishedBlocks.add(blocks[b]!);
        }
        session.set({ entries: [user, reply('r1', acc)], streamingEntryId: null, status: 'ready' });
        await el.updateComplete;
        frames.flush();
      } finally {
        lexing.restore();
        frames.restore();
      }

      const bubble = view(el).q('.markdown')!;
      // Rendering block by block while streaming ends with the same content as rendering the whole text.
      const whole = document.createElement('div');
      whole.replaceChildren(renderMarkdownFragment(acc));
      expect(bubble.textContent!.replace(/\s+/g, '')).to.equal(whole.textContent!.replace(/\s+/g, ''));
      expect(bubble.children.length).to.equal(whole.children.length);
      expect(acc.length, 'the reply is far longer than one block is allowed to be').to.be.greaterThan(4 * TAIL_THROTTLE_CHARS);
      // A delta never parses more than the last block (and a long one not at all: it waits for the frame).
      expect(mostLexedInADelta, 'characters parsed by one delta').to.be.at.most(TAIL_THROTTLE_CHARS + 64);
      expect(mostLexCallsInAFrame, 'parses per frame').to.be.at.most(1);
      if (shape === 'mixed blocks') {
        expect(finishedBlocks.size, 'blocks finished while streaming').to.be.greaterThan(50);
        expect([...finishedBlocks].filter((b) => !bubble.contains(b)), 'finished blocks are never rendered again').to.have.length(0);
      } else {
        expect(framesThatParsed, 'the long block was drawn at frames').to.be.greaterThan(0);
      }
    });
  }

  it('opens a 1,000-message history with every message in the page at once: the newest replies parsed, older ones as plain-text placeholders rendered in full near the view; reopens it from the render cache', async () => {
    const entries: CachedEntry[] = [];
    for (let i = 0; i < 500; i++) {
      entries.push(userMessage(`u${i}`, `Question number ${i}`));
      entries.push(reply(`r${i}`, `Answer **${i}** with a list:\n\n- one\n- two\n\nAnd \`code\` plus a [link](https://docs.test/${i}).`));
    }
    const session = new FakeSession();
    const el = await chatWith(session);
    // How long opening takes is timed by `npm run bench`; here, what is parsed (the real parser still runs).
    const lexing = countLexing();
    const all = { timeout: 10_000, interval: 20 };
    try {
      session.set({ conversationId: 'long', entries });
      await el.updateComplete;
      const v = view(el);
      const messages = v.all('[part~="message"]');
      expect(messages.length, 'every message at once').to.equal(1000);
      expect(messages[0]!.textContent).to.contain('Question number 0');
      expect(messages.at(-1)!.textContent).to.contain('Answer 499');
      expect(v.q('[part~="show-earlier-button"]'), 'nothing waits behind a button').to.equal(null);
      // The oldest reply: its text as it is (in the page, for search and assistive technology), not parsed.
      const oldest = messages[1]!.querySelector('.bubble')!;
      expect(oldest.classList.contains('placeholder'), 'an old reply is a placeholder').to.equal(true);
      expect(oldest.textContent).to.contain('Answer **0** with a list');
      expect(messages.at(-1)!.querySelector('.bubble.placeholder'), 'the newest reply rendered in full').to.equal(null);
      expect(messages.at(-1)!.querySelector('.bubble li'), 'the newest reply as markdown').to.not.equal(null);
      expect(lexing.calls.length, 'only the newest replies parsed').to.be.above(0).and.below(100);

      // Scrolled to the top, the oldest reply is rendered in full.
      const transcript = v.q<HTMLElement>('.transcript')!;
      await waitUntil(() => {
        transcript.scrollTop = 0;
        return v.all('[part~="message"]')[1]!.querySelector('.bubble li');
      }, 'the oldest reply rendered in full near the view', all);
      expect(v.all('[part~="message"]')[1]!.querySelector('.bubble.placeholder')).to.equal(null);
      expect(lexing.calls.length, 'each reply parsed at most once').to.be.at.most(500);

      // Opening it again (another conversation in between) hits the per-entry render cache.
      session.set({ conversationId: 'other', entries: [] });
      await el.updateComplete;
      expect(v.all('[part~="message"]').length).to.equal(0);
      const beforeReopen = lexing.calls.length;
      session.set({ conversationId: 'long', entries });
      await el.updateComplete;
      expect(v.all('[part~="message"]').length, 'every message again').to.equal(1000);
      // The newest replies were parsed when first opened: not again.
      const newest = v.all('[part~="message"]').at(-1)!;
      expect(newest.querySelector('.bubble li')).to.not.equal(null);
      expect(lexing.calls.length - beforeReopen, 'nothing parsed again when reopened').to.equal(0);
    } finally {
      lexing.restore();
    }
  });

  it('shows every entry kind: user text as text, markdown replies, tool calls, handoffs, interrupted replies', async () => {
    const session = new FakeSession();
    const el = await chatWith(session);
    session.set({
      conversationId: 'c1',
      agentName: 'Billing',
      notice: 'Older conversations were removed from this device to free space.',
      entries: [
        userMessage('u1', 'Hi <b>there</b> **not bold**'),
        reply('r1', 'Hello **there**'),
        { object: 'entry', type: 'function.call', id: 'fc1', tool_call_id: 't1', name: 'get_weather', arguments: '{"city":"Paris"}', created_at: '', completed_at: '' } as CachedEntry,
        { object: 'entry', type: 'function.result', id: 'fr1', tool_call_id: 't1', result: '{"temperature_c":21}', created_at: '', completed_at: '' } as CachedEntry,
        { object: 'entry', type: 'tool.execution', id: 'te1', name: 'web_search', arguments: '{"q":"x"}', created_at: '', completed_at: '' } as CachedEntry,
        { object: 'entry', type: 'agent.handoff', id: 'h1', previous_agent_id: 'a', previous_agent_name: 'Support', next_agent_id: 'b', next_agent_name: 'Billing', created_at: '', completed_at: '' } as CachedEntry,
        reply('r2', 'Cut off mid', { interrupted: true, completed_at: null }),
      ],
    });
    await el.updateComplete;
    const v = view(el);
    const userBubble = v.q('[part~="message-user"] [part~="bubble"]')!;
    expect(userBubble.textContent).to.equal('Hi <b>there</b> **not bold**');
    expect(userBubble.querySelector('b, strong')).to.equal(null);
    expect(v.q('[part~="message-assistant"] strong')!.textContent).to.equal('there');
    const calls = v.all('[part~="tool-call"]');
    expect(calls.length).to.equal(2);
    expect(calls[0].querySelector('summary')!.textContent).to.contain('Called get_weather');
    expect(calls[0].textContent).to.contain('"city": "Paris"');
    expect(calls[0].textContent).to.contain('"temperature_c": 21');
    expect(calls[1].querySelector('summary')!.textContent).to.contain('Used web_search');
    expect(v.q('[part~="handoff"]')!.textContent).to.equal('Passed to the Billing agent');
    expect(v.q('[part~="interrupted"]')!.textContent).to.equal('This reply was interrupted.');
    expect(v.q('[part~="title"]')!.textContent).to.equal('Billing');
    expect(v.q('[part~="notice"]')!.textContent).to.contain('Older conversations');
    // Regenerate is offered on the last reply only.
    expect(v.all('[part~="regenerate-button"]').length).to.equal(1);
    expect(v.q('[data-entry-id="r2"] [part~="regenerate-button"]')).to.not.equal(null);
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('is accessible with an error, the edit form and the conversation list shown', async () => {
    const session = new FakeSession();
    session.conversations = [
      { id: 'c1', title: 'About invoices', agentId: null, model: 'm', createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-02T00:00:00Z' },
      { id: 'c2', title: '', agentId: null, model: 'm', createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z' },
    ];
    const el = await chatWith(session);
    session.set({
      conversationId: 'c1',
      entries: [userMessage('u1', 'Question'), reply('r1', 'Answer')],
      status: 'error',
      error: { status: 429, type: 'rate_limit_error', code: null, message: 'Rate limit exceeded', retryAfter: 12 },
    });
    await el.updateComplete;
    const v = view(el);
    expect(v.q('[part~="error"]')!.textContent).to.contain('Too many requests. Try again in 12 seconds.');
    v.q<HTMLButtonElement>('[part~="retry-button"]')!.click();
    expect(session.calls.at(-1)).to.deep.equal(['retry']);

    v.q<HTMLButtonElement>('[part~="edit-button"]')!.click();
    await el.updateComplete;
    expect(v.root.activeElement).to.equal(v.q('.edit textarea'));
    expect(await axeViolations(el)).to.deep.equal([]);
    v.q('.edit textarea')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await el.updateComplete;
    expect(v.q('.edit')).to.equal(null);
    expect(v.root.activeElement).to.equal(v.q('[part~="edit-button"]'));

    v.q<HTMLButtonElement>('[part~="history-button"]')!.click();
    await waitUntil(() => v.all('[part~="conversation-button"]').length === 2);
    expect(v.all('[part~="conversation-button"]')[1].textContent).to.contain('Untitled conversation');
    expect(v.q('[part~="conversation-button"][aria-current="true"]')!.textContent).to.contain('About invoices');
    expect(await axeViolations(el)).to.deep.equal([]);
    v.all('[part~="conversation-button"]')[1].click();
    await el.updateComplete;
    expect(session.calls.at(-1)).to.deep.equal(['load', 'c2']);
  });

  it('loads reply images only from the hosts in allow-image-hosts', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session} allow-image-hosts="img.allowed.test  other.test"></agent-chat>`);
    session.set({
      conversationId: 'c1',
      entries: [userMessage('u1', 'Show images'), reply('r1', '![cat](https://img.allowed.test/cat.png) ![secret](https://evil.test/?q=SECRET)')],
    });
    await el.updateComplete;
    const bubble = view(el).q('.markdown')!;
    expect([...bubble.querySelectorAll('img')].map((img) => img.getAttribute('src'))).to.deep.equal(['https://img.allowed.test/cat.png']);
    expect(bubble.querySelector('.parley-image-blocked')!.textContent).to.equal('Image "secret" from evil.test not loaded');
    // Changing the allowlist renders the reply again under the new rule.
    el.allowImageHosts = '';
    await el.updateComplete;
    expect(bubble.querySelectorAll('img').length).to.equal(0);
  });

  it('takes translated strings', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session} .strings=${{ send: 'Senden', inputLabel: 'Nachricht', emptyState: 'Frag etwas.' }}></agent-chat>`);
    const v = view(el);
    expect(v.q('[part~="send-button"]')!.textContent!.trim()).to.equal('Senden');
    expect(v.q('[part~="input"]')!.getAttribute('aria-label')).to.equal('Nachricht');
    expect(v.q('[part~="empty"]')!.textContent).to.equal('Frag etwas.');
  });

  it('offers header, empty and launcher-icon slots', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session}><h2 slot="header">Shop help</h2><p slot="empty">Ask about orders</p></agent-chat>`);
    const v = view(el);
    const header = v.q<HTMLSlotElement>('slot[name="header"]')!;
    const empty = v.q<HTMLSlotElement>('slot[name="empty"]')!;
    expect(header.assignedElements()[0].textContent).to.equal('Shop help');
    expect(empty.assignedElements()[0].textContent).to.equal('Ask about orders');
  });

  it('does not re-dispatch a reply as finished when the user stopped it', async () => {
    const session = new FakeSession();
    const el = await chatWith(session);
    let finished = 0;
    el.addEventListener('parley-reply-finished', () => finished++);
    const user = userMessage('u1', 'Hi');
    session.set({ conversationId: 'c1', entries: [user, reply('r1', 'Partial', { completed_at: null })], streamingEntryId: 'r1', status: 'streaming' });
    await el.updateComplete;
    view(el).q('[part~="transcript"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await el.updateComplete;
    expect(session.calls.at(-1)).to.deep.equal(['stop']);
    expect(finished).to.equal(0);
    expect(view(el).q('[part~="interrupted"]')).to.not.equal(null);
  });
});

describe('<agent-chat> registration', () => {
  it('define.ts is guarded against double definition; a subclass can take another tag', async () => {
    expect(customElements.get('agent-chat')).to.equal(AgentChat);
    defineAgentChat();
    // A second evaluation of the module (as a second bundle would do) does not throw.
    await import(/* @vite-ignore */ `../../src/elements/agent-chat/define.ts?copy=${Date.now()}`);
    expect(customElements.get('agent-chat')).to.equal(AgentChat);
    customElements.define('shop-chat', class extends AgentChat {});
    expect(document.createElement('shop-chat')).to.be.instanceOf(AgentChat);
  });
});
