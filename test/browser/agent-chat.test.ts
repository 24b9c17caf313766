// <agent-chat> against the REAL relay and the local platform (mounted by web-test-runner.config.mjs at /api).
import { expect, fixture, html, waitUntil, oneEvent, nextFrame } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { pressWith } from './helpers/keys.js';
import '../../src/elements/agent-chat/define.js';
import type { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import { forgetClient } from '../../src/client/index.js';
import { axeViolations } from './helpers/axe.js';
import { harness } from './helpers/agent-chat-harness.js';

interface Fixtures { model: string; agents: { support: string; billing: string } }
let fixtures: Fixtures;

const RELAY = '/api';

/** The parts of the element the tests look at. */
function view(el: AgentChat) {
  const root = el.shadowRoot!;
  const q = <T extends Element = HTMLElement>(selector: string) => root.querySelector<T & Element>(selector) as (T & HTMLElement) | null;
  return {
    root,
    q,
    all: (selector: string) => [...root.querySelectorAll<HTMLElement>(selector)],
    input: () => q<HTMLTextAreaElement>('[part~="input"]')!,
    replies: () => [...root.querySelectorAll<HTMLElement>('[part~="message-assistant"] [part~="bubble"]')],
    userMessages: () => [...root.querySelectorAll<HTMLElement>('[part~="message-user"] [part~="bubble"]')].map((b) => b.textContent!.trim()),
    session: () => harness(el).session,
  };
}

async function createChat(template: ReturnType<typeof html>): Promise<AgentChat> {
  const el = await fixture<AgentChat>(template);
  await waitUntil(() => view(el).session(), 'the element created its chat session', { timeout: 5000 });
  return el;
}

function modelChat() {
  return createChat(html`<agent-chat relay-url=${RELAY} model=${fixtures.model} resume="none"></agent-chat>`);
}

async function typeAndSend(el: AgentChat, text: string) {
  const v = view(el);
  v.input().focus();
  await sendKeys({ type: text });
  await sendKeys({ press: 'Enter' });
}

async function idle(el: AgentChat, timeout = 10_000) {
  await waitUntil(() => {
    const status = view(el).session()?.state.status;
    return status === 'ready' || status === 'error';
  }, 'the turn ended', { timeout });
  await el.updateComplete;
}

/** Collects every event whose name starts with `parley-` that reaches `document` (so: bubbles + composed). */
function recordEvents() {
  const events: CustomEvent[] = [];
  const names = ['parley-message-sent', 'parley-reply-finished', 'parley-error', 'parley-conversation-changed', 'parley-open-changed'] as const;
  const listener = (e: Event) => events.push(e as CustomEvent);
  for (const name of names) document.addEventListener(name, listener);
  return {
    events,
    of: (name: string) => events.filter((e) => e.type === name),
    stop: () => names.forEach((name) => document.removeEventListener(name, listener)),
  };
}

before(async () => {
  fixtures = await (await fetch('/api-test/fixtures')).json();
  // Start from an empty history cache (nothing has opened it yet in this page).
  await new Promise((resolve) => {
    const req = indexedDB.deleteDatabase('parley-history');
    req.onsuccess = req.onerror = req.onblocked = resolve;
  });
});

describe('<agent-chat> with the real relay', () => {
  it('sends with Enter (Shift+Enter is a newline), streams markdown, keeps finished blocks and fires prefixed events', async () => {
    const recorder = recordEvents();
    const el = await modelChat();
    const v = view(el);
    v.input().focus();
    await sendKeys({ type: 'Show me a heading' });
    await pressWith('Shift', 'Enter');
    await sendKeys({ type: 'and a list please, in markdown' });
    expect(v.input().value).to.equal('Show me a heading\nand a list please, in markdown');
    expect(v.session()!.state.entries.length).to.equal(0);

    const finished = oneEvent(el, 'parley-reply-finished');
    await sendKeys({ press: 'Enter' });
    expect(v.input().value).to.equal('');

    // While streaming: once two blocks exist, the first is finished and must survive every later delta.
    await waitUntil(() => v.replies()[0]?.children.length >= 2, 'two blocks rendered while streaming', { timeout: 8000 });
    expect(v.session()!.state.status).to.equal('streaming');
    const first = v.replies()[0].firstElementChild!;
    const lengths: number[] = [];
    const sample = setInterval(() => lengths.push(v.replies()[0]?.textContent?.length ?? 0), 10);
    const event = await finished;
    clearInterval(sample);
    await el.updateComplete;

    expect(lengths.some((n, i) => i > 0 && n > lengths[i - 1]), 'text grew between samples').to.equal(true);
    expect(v.replies()[0].firstElementChild).to.equal(first);
    expect(first.isConnected).to.equal(true);
    expect(v.replies()[0].querySelector('h1, h2, h3, ul, ol')).to.not.equal(null);
    expect(event.detail.text.length).to.be.greaterThan(20);
    expect(event.detail.entryId).to.be.a('string');

    // The live region announced the finished reply (once, not per delta).
    const live = v.q('[role="status"][aria-live="polite"]')!;
    expect(live.textContent).to.contain('Reply:');

    recorder.stop();
    expect(recorder.of('parley-message-sent').map((e) => e.detail.text)).to.deep.equal(['Show me a heading\nand a list please, in markdown']);
    expect(recorder.of('parley-reply-finished').length).to.equal(1);
    expect(recorder.of('parley-conversation-changed').length).to.be.greaterThan(0);
    for (const e of recorder.events) {
      expect(e.type.startsWith('parley-')).to.equal(true);
      expect(e.bubbles && e.composed, `${e.type} bubbles and is composed`).to.equal(true);
    }
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('stops a streaming reply with Escape, says it was interrupted, and still says so after a reload', async () => {
    const el = await modelChat();
    const v = view(el);
    let finishedEvents = 0;
    el.addEventListener('parley-reply-finished', () => finishedEvents++);
    await typeAndSend(el, 'Show me everything you can do in markdown');
    await waitUntil(() => (v.replies()[0]?.textContent?.length ?? 0) > 20, 'the reply started', { timeout: 8000 });
    expect(v.q('[part~="stop-button"]')).to.not.equal(null);
    // After the stop the session reconciles with the server's copy of the cut reply (a few more words may have
    // been stored before the abort reached the engine): note when that history answer has come.
    let historyAnswered = false;
    const realFetch = window.fetch;
    window.fetch = async (input, init) => {
      const res = await realFetch(input, init);
      if (String(input instanceof Request ? input.url : input).includes('/history')) historyAnswered = true;
      return res;
    };
    try {
      await sendKeys({ press: 'Escape' });
      await el.updateComplete;
      expect(v.session()!.state.status).to.equal('ready');
      expect(v.q('[part~="stop-button"]')).to.equal(null);
      expect(v.q('[part~="send-button"]')).to.not.equal(null);
      expect(v.q('[part~="interrupted"]')?.textContent).to.contain('This reply was interrupted');
      await waitUntil(() => historyAnswered, 'the server copy was asked for', { timeout: 10_000 });
    } finally {
      window.fetch = realFetch;
    }
    // Once the server's copy is shown, nothing streams any more.
    const length = () => v.replies()[0].textContent!.length;
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await pause(100);
    const settled = length();
    await pause(400);
    expect(length()).to.equal(settled);
    expect(v.q('[part~="interrupted"]')?.textContent).to.contain('This reply was interrupted');
    expect(finishedEvents).to.equal(0);

    const conversationId = v.session()!.state.conversationId!;
    el.remove();
    forgetClient(new URL(RELAY, location.href).href);
    const again = await modelChat();
    const v2 = view(again);
    await v2.session()!.load(conversationId);
    await again.updateComplete;
    expect(v2.replies().length).to.equal(1);
    expect(v2.q('[part~="interrupted"]')?.textContent).to.contain('This reply was interrupted');
  });

  it('resumes after a reload: a new element lists the conversation and shows its entries', async () => {
    const first = await modelChat();
    await typeAndSend(first, 'Remember the word pineapple');
    await oneEvent(first, 'parley-reply-finished');
    await idle(first);
    const conversationId = view(first).session()!.state.conversationId;
    const replyText = view(first).replies()[0].textContent;
    first.remove();
    forgetClient(new URL(RELAY, location.href).href); // a reload starts without the page's client

    const el = await modelChat();
    const v = view(el);
    expect(v.replies().length).to.equal(0);
    v.q('[part~="history-button"]')!.click();
    await waitUntil(() => v.all('[part~="conversation-button"]').length > 0, 'the list shows saved conversations');
    const rows = v.all('[part~="conversation-button"]');
    const row = rows.find((b) => b.textContent!.includes('Remember the word pineapple'))!;
    expect(row, 'the conversation is listed by its first message').to.not.equal(undefined);
    const changed = oneEvent(el, 'parley-conversation-changed');
    row.click();
    expect((await changed).detail.conversationId).to.equal(conversationId);
    await waitUntil(() => v.replies().length === 1, 'the entries are shown');
    expect(v.userMessages()).to.deep.equal(['Remember the word pineapple']);
    expect(v.replies()[0].textContent).to.equal(replyText);
  });

  it('reopens the latest conversation by itself after a reload (resume="latest", the default)', async () => {
    const first = await modelChat();
    await typeAndSend(first, 'Remember the word mango');
    await oneEvent(first, 'parley-reply-finished');
    await idle(first);
    const conversationId = view(first).session()!.state.conversationId;
    first.remove();
    forgetClient(new URL(RELAY, location.href).href);

    const el = await createChat(html`<agent-chat relay-url=${RELAY} model=${fixtures.model}></agent-chat>`);
    const v = view(el);
    await waitUntil(() => v.replies().length === 1, 'the latest conversation is shown without a click');
    expect(v.session()!.state.conversationId).to.equal(conversationId);
    expect(v.userMessages()).to.deep.equal(['Remember the word mango']);
  });

  it('keeps showing its conversation when moved in the page (disconnected and connected again)', async () => {
    const el = await modelChat();
    const v = view(el);
    await typeAndSend(el, 'A conversation that moves');
    await oneEvent(el, 'parley-reply-finished');
    await idle(el);
    const id = v.session()!.state.conversationId;
    const oldSession = v.session();
    const parent = document.createElement('div');
    document.body.append(parent);
    try {
      parent.append(el);
      await waitUntil(() => v.session() && v.session() !== oldSession && v.replies().length === 1, 'the conversation is shown again');
      expect(v.session()!.state.conversationId).to.equal(id);
      expect(v.userMessages()).to.deep.equal(['A conversation that moves']);
    } finally {
      parent.remove();
    }
  });

  it('regenerates the last reply through a restart', async () => {
    const el = await modelChat();
    const v = view(el);
    await typeAndSend(el, 'Tell me about bananas');
    await oneEvent(el, 'parley-reply-finished');
    await idle(el);
    const before = v.session()!.state.conversationId;
    const finished = oneEvent(el, 'parley-reply-finished');
    v.q<HTMLButtonElement>('[part~="regenerate-button"]')!.click();
    await waitUntil(() => v.session()!.state.status !== 'ready', 'the regeneration started');
    expect(v.q('[part~="regenerate-button"]')).to.equal(null);
    await finished;
    await idle(el);
    expect(v.session()!.state.conversationId).to.not.equal(before);
    expect(v.userMessages()).to.deep.equal(['Tell me about bananas']);
    expect(v.replies().length).to.equal(1);
    expect(v.replies()[0].textContent).to.contain('bananas');
  });

  it('edits a user message and sends it again', async () => {
    const el = await modelChat();
    const v = view(el);
    await typeAndSend(el, 'First question about apples');
    await oneEvent(el, 'parley-reply-finished');
    await typeAndSend(el, 'Second question about pears');
    await oneEvent(el, 'parley-reply-finished');
    await idle(el);
    expect(v.userMessages().length).to.equal(2);

    const sent = oneEvent(el, 'parley-message-sent');
    v.all('[part~="edit-button"]')[1].click();
    await el.updateComplete;
    const editor = v.q<HTMLTextAreaElement>('.edit textarea')!;
    expect(v.root.activeElement).to.equal(editor);
    expect(editor.value).to.equal('Second question about pears');
    editor.select();
    await sendKeys({ type: 'Edited question about plums' });
    const finished = oneEvent(el, 'parley-reply-finished');
    await sendKeys({ press: 'Enter' });
    expect((await sent).detail).to.include({ text: 'Edited question about plums', kind: 'edit' });
    await finished;
    await idle(el);
    expect(v.userMessages()).to.deep.equal(['First question about apples', 'Edited question about plums']);
    expect(v.replies().length).to.equal(2);
    expect(v.replies()[1].textContent).to.contain('plums');
  });

  it('runs a page tool for a function call and shows the call, its arguments and result', async () => {
    const calls: unknown[] = [];
    const tools = {
      get_weather: (args: { city: string }) => {
        calls.push(args);
        return { city: args.city, temperature_c: 21, sky: 'sunny' };
      },
    };
    const el = await createChat(html`<agent-chat relay-url=${RELAY} agent-id=${fixtures.agents.support} handoff-execution="client" resume="none" .tools=${tools}></agent-chat>`);
    const v = view(el);
    await typeAndSend(el, 'What is the weather in Paris?');
    await oneEvent(el, 'parley-reply-finished');
    await idle(el);
    expect(calls.length).to.equal(1);
    expect(JSON.stringify(calls[0])).to.contain('Paris');
    const call = v.q<HTMLDetailsElement>('[part~="tool-call"]')!;
    expect(call.querySelector('summary')!.textContent).to.contain('Called get_weather');
    expect(call.open).to.equal(false);
    call.querySelector('summary')!.click();
    expect(call.open).to.equal(true);
    expect(call.textContent).to.contain('Paris');
    expect(call.textContent).to.contain('21');
    const last = v.replies().at(-1)!;
    expect(last.textContent).to.contain('get_weather');
    expect(last.textContent).to.contain('21');
    const types = v.session()!.state.entries.map((e) => e.type);
    expect(types).to.include.members(['function.call', 'function.result', 'message.output']);
  });

  it('shows a handoff to another agent', async () => {
    const el = await createChat(html`<agent-chat relay-url=${RELAY} agent-id=${fixtures.agents.support} resume="none"></agent-chat>`);
    const v = view(el);
    await typeAndSend(el, 'Please transfer me to Billing');
    await oneEvent(el, 'parley-reply-finished');
    await idle(el);
    expect(v.q('[part~="handoff"]')?.textContent).to.contain('Passed to the Billing agent');
    expect(v.q('[part~="title"]')!.textContent).to.equal('Billing');
  });

  it('shows an error in words and retries the turn', async () => {
    const el = await modelChat();
    const v = view(el);
    const failed = oneEvent(el, 'parley-error');
    await typeAndSend(el, '/fail');
    const error = (await failed).detail.error;
    expect(error.message).to.be.a('string');
    await idle(el);
    const alert = v.q('[part~="error"]')!;
    expect(alert.textContent).to.match(/problem|cut off|went wrong/);
    // Announced once, politely, through the live region (not an assertive alert).
    expect(alert.getAttribute('role')).to.equal(null);
    expect(v.root.querySelector('[role="status"][aria-live="polite"]')!.textContent).to.contain(alert.querySelector('p')!.textContent!.trim());
    // The local model fails `/fail` every time: the retry goes out and fails again.
    const again = oneEvent(el, 'parley-error');
    v.q<HTMLButtonElement>('[part~="retry-button"]')!.click();
    await waitUntil(() => v.session()!.state.status !== 'error', 'the retry started');
    await again;
    await idle(el);
    expect(v.q('[part~="error"]')).to.not.equal(null);
    expect(v.userMessages()).to.deep.equal(['/fail']);
  });

  it('starts a new conversation and deletes one from the list', async () => {
    const el = await modelChat();
    const v = view(el);
    await typeAndSend(el, 'A conversation to delete');
    await oneEvent(el, 'parley-reply-finished');
    await idle(el);
    const id = v.session()!.state.conversationId;
    v.q('[part~="new-button"]')!.click();
    await el.updateComplete;
    expect(v.session()!.state.conversationId).to.equal(null);
    expect(v.q('[part~="empty"]')).to.not.equal(null);
    expect(v.root.activeElement).to.equal(v.input());

    v.q('[part~="history-button"]')!.click();
    await waitUntil(() => v.all('[part~="delete-button"]').some((b) => b.getAttribute('aria-label')!.includes('A conversation to delete')));
    v.all('[part~="delete-button"]').find((b) => b.getAttribute('aria-label')!.includes('A conversation to delete'))!.click();
    await waitUntil(() => !v.all('[part~="delete-button"]').some((b) => b.getAttribute('aria-label')!.includes('A conversation to delete')), 'the row is gone');
    const list = await v.session()!.listConversations();
    expect(list.some((c) => c.id === id)).to.equal(false);
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('launcher mode: opens a panel, focuses the message box, Escape closes it and returns focus', async () => {
    const recorder = recordEvents();
    const el = await createChat(html`<agent-chat mode="launcher" relay-url=${RELAY} model=${fixtures.model} resume="none"></agent-chat>`);
    const v = view(el);
    const launcher = v.q<HTMLButtonElement>('[part~="launcher"]')!;
    const panel = v.q('[part~="panel"]')!;
    expect(panel.hidden).to.equal(true);
    expect(launcher.getAttribute('aria-expanded')).to.equal('false');
    expect(await axeViolations(el)).to.deep.equal([]);

    launcher.focus();
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    await nextFrame();
    expect(el.open).to.equal(true);
    expect(panel.hidden).to.equal(false);
    expect(launcher.getAttribute('aria-expanded')).to.equal('true');
    expect(v.root.activeElement).to.equal(v.input());

    await sendKeys({ type: 'Hello from the launcher' });
    await sendKeys({ press: 'Enter' });
    await oneEvent(el, 'parley-reply-finished');
    await idle(el);
    expect(await axeViolations(el)).to.deep.equal([]);

    v.input().focus();
    await sendKeys({ press: 'Escape' });
    await el.updateComplete;
    await nextFrame();
    expect(el.open).to.equal(false);
    expect(panel.hidden).to.equal(true);
    expect(v.root.activeElement).to.equal(launcher);
    recorder.stop();
    expect(recorder.of('parley-open-changed').map((e) => e.detail.open)).to.deep.equal([true, false]);
  });
});
