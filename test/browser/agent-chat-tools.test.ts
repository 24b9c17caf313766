// Issue 24, items 6 and 8 in <agent-chat>: starters on an empty chat, client tools asking for consent,
// and the status line of a tool the platform runs. A FakeSession drives the states; axe checks each one.
import { expect, fixture, html, nextFrame, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import '../../src/elements/agent-chat/define.js';
import type { CachedEntry, ToolApprovalRequest } from '../../src/client/contracts.js';
import { FakeSession, reply, userMessage } from './helpers/fake-session.js';
import { axeViolations } from './helpers/axe.js';

/** A FakeSession that answers consent questions like the real one: the call leaves `approvals`. */
class ConsentSession extends FakeSession {
  decideToolCall(toolCallId: string, allow: boolean): boolean {
    const approvals = this.state.approvals ?? [];
    if (!approvals.some((r) => r.toolCallId === toolCallId)) return false;
    this.calls.push(['decide', toolCallId, allow]);
    this.set({ approvals: approvals.filter((r) => r.toolCallId !== toolCallId) });
    return true;
  }
}

const now = '2025-01-01T00:00:00.000Z';
const HOSTILE = '<img src=x onerror="window.__pwned=1"><b>bold</b>';

function call(id: string, name: string, args: string): CachedEntry {
  return { object: 'entry', type: 'function.call', id, tool_call_id: `call_${id}`, name, arguments: args, created_at: now, completed_at: now } as CachedEntry;
}

function execution(id: string, name: string, done: boolean): CachedEntry {
  return { object: 'entry', type: 'tool.execution', id, name, arguments: '{"order_id":"1042"}', info: {}, created_at: now, completed_at: done ? now : null } as CachedEntry;
}

async function settle(el: AgentChat): Promise<void> {
  await el.updateComplete;
  await nextFrame();
  await el.updateComplete;
}

const part = (el: AgentChat, name: string) => el.shadowRoot!.querySelector<HTMLElement>(`[part~="${name}"]`);
const parts = (el: AgentChat, name: string) => [...el.shadowRoot!.querySelectorAll<HTMLElement>(`[part~="${name}"]`)];

describe('<agent-chat> starters', () => {
  it('shows the starters property as a labelled group of buttons on an empty chat; Tab reaches them and Enter or Space sends one', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session} .starters=${['Where is my order?', 'What lamps do you sell?', '  ', 'Where is my order?']}></agent-chat>`);
    await settle(el);
    const group = part(el, 'starters')!;
    expect(group.getAttribute('role')).to.equal('group');
    expect(group.getAttribute('aria-label')).to.equal('Suggestions');
    const buttons = parts(el, 'starter');
    expect(buttons.map((b) => b.textContent!.trim())).to.deep.equal(['Where is my order?', 'What lamps do you sell?']);
    expect(await axeViolations(el)).to.deep.equal([]);

    // By keyboard: from the transcript, Tab goes to the first starter, Enter sends it.
    part(el, 'transcript')!.focus();
    await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement).to.equal(buttons[0]);
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => session.calls.some((c) => c[0] === 'send'));
    expect(session.calls.filter((c) => c[0] === 'send')).to.deep.equal([['send', 'Where is my order?']]);
    buttons[1].focus();
    await sendKeys({ press: ' ' });
    await waitUntil(() => session.calls.filter((c) => c[0] === 'send').length === 2);
    expect(session.calls.filter((c) => c[0] === 'send')[1]).to.deep.equal(['send', 'What lamps do you sell?']);
  });

  it('takes the attribute as a JSON array or a |-separated list; gone once the chat has messages', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session} starters='["Track 1042", "Returns | refunds"]'></agent-chat>`);
    await settle(el);
    expect(parts(el, 'starter').map((b) => b.textContent!.trim())).to.deep.equal(['Track 1042', 'Returns | refunds']);
    el.setAttribute('starters', 'One | Two|Three');
    await settle(el);
    expect(parts(el, 'starter').map((b) => b.textContent!.trim())).to.deep.equal(['One', 'Two', 'Three']);
    session.set({ conversationId: 'c1', entries: [userMessage('u1', 'One'), reply('r1', 'Hello')] });
    await settle(el);
    expect(part(el, 'starters')).to.equal(null);
  });

  it('shows a hostile starter as text', async () => {
    const el = await fixture<AgentChat>(html`<agent-chat .session=${new FakeSession()} .starters=${[HOSTILE]}></agent-chat>`);
    await settle(el);
    const button = part(el, 'starter')!;
    expect(button.textContent!.trim()).to.equal(HOSTILE);
    expect(button.querySelector('img, b')).to.equal(null);
  });
});

describe('<agent-chat> tool approvals', () => {
  async function asking(requests: ToolApprovalRequest[], entries: CachedEntry[]) {
    const session = new ConsentSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session}></agent-chat>`);
    await settle(el);
    // The visitor sent a message from the box: focus is in the chat when the call asks.
    part(el, 'input')!.focus();
    session.set({ conversationId: 'c1', entries, status: 'submitted', approvals: requests });
    await waitUntil(() => part(el, 'tool-approval'), 'the approval card renders (its module loads)');
    await settle(el);
    return { session, el };
  }

  it('shows the call and its arguments with Allow and Deny; focus moves to the card; announced; Allow by keyboard answers it and focus returns to the box', async () => {
    const args = '{"order_id":"1042","notify":true}';
    const { session, el } = await asking([{ toolCallId: 'call_a', name: 'cancel_order', arguments: args }], [userMessage('u1', 'Cancel 1042'), call('a', 'cancel_order', args)]);
    const card = part(el, 'tool-approval')!;
    expect(card.getAttribute('role')).to.equal('group');
    const label = el.shadowRoot!.getElementById(card.getAttribute('aria-labelledby')!)!;
    expect(label.textContent).to.equal('Allow cancel_order to run?');
    expect(card.querySelector('pre')!.textContent).to.equal(JSON.stringify(JSON.parse(args), null, 2));
    expect(el.shadowRoot!.activeElement).to.equal(card);
    expect(el.shadowRoot!.querySelector('[role="status"][aria-live="polite"]')!.textContent).to.contain('cancel_order asks for your permission to run.');
    expect(part(el, 'thinking')).to.equal(null); // the turn waits for the visitor, not for the model
    expect(await axeViolations(el)).to.deep.equal([]);

    // Tab: the arguments (scrollable), then Allow; Enter allows.
    await sendKeys({ press: 'Tab' });
    await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement).to.equal(part(el, 'allow-button'));
    await sendKeys({ press: 'Enter' });
    await settle(el);
    expect(session.calls.filter((c) => c[0] === 'decide')).to.deep.equal([['decide', 'call_a', true]]);
    expect(part(el, 'tool-approval')).to.equal(null);
    await waitUntil(() => el.shadowRoot!.activeElement === part(el, 'input'), 'focus back in the message box');
  });

  it('Deny by keyboard declines, announces it, and moves focus to the next waiting call', async () => {
    const { session, el } = await asking([
      { toolCallId: 'call_a', name: 'send_email', arguments: '{"to":"a@example.com"}' },
      { toolCallId: 'call_b', name: 'pay', arguments: '{"amount":5}' },
    ], [userMessage('u1', 'Do it'), call('a', 'send_email', '{"to":"a@example.com"}'), call('b', 'pay', '{"amount":5}')]);
    const cards = parts(el, 'tool-approval');
    expect(cards).to.have.length(2);
    part(el, 'deny-button')!.focus();
    await sendKeys({ press: ' ' });
    await settle(el);
    expect(session.calls.filter((c) => c[0] === 'decide')).to.deep.equal([['decide', 'call_a', false]]);
    expect(el.shadowRoot!.querySelector('[role="status"][aria-live="polite"]')!.textContent).to.contain('Declined: send_email did not run.');
    await waitUntil(() => el.shadowRoot!.activeElement === part(el, 'tool-approval'));
    expect(part(el, 'tool-approval')!.dataset.toolCallId).to.equal('call_b');
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('shows a hostile tool name and arguments as text, never as HTML', async () => {
    (window as unknown as { __pwned?: number }).__pwned = 0;
    const args = JSON.stringify({ html: HOSTILE, '</pre><script>window.__pwned=2</script>': 1 });
    const { el } = await asking([{ toolCallId: 'call_"x"<y>', name: HOSTILE, arguments: args }], [userMessage('u1', 'hi'), call('x', HOSTILE, args)]);
    const card = part(el, 'tool-approval')!;
    expect(card.querySelector('img, b, script')).to.equal(null);
    expect(card.textContent).to.contain(`Allow ${HOSTILE} to run?`);
    expect(card.querySelector('pre')!.textContent).to.contain('<script>window.__pwned=2</script>');
    expect(card.dataset.toolCallId).to.equal('call_"x"<y>');
    await nextFrame();
    expect((window as unknown as { __pwned?: number }).__pwned).to.equal(0);
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('in French, the card speaks French', async () => {
    const session = new ConsentSession();
    const el = await fixture<AgentChat>(html`<agent-chat lang="fr" .session=${session}></agent-chat>`);
    await waitUntil(() => part(el, 'input')?.getAttribute('placeholder') !== 'Write a message…', 'the French catalogue loads');
    session.set({ conversationId: 'c1', entries: [call('a', 'pay', '{}')], status: 'submitted', approvals: [{ toolCallId: 'call_a', name: 'pay', arguments: '{}' }] });
    await waitUntil(() => part(el, 'allow-button'));
    expect(part(el, 'allow-button')!.textContent!.trim()).to.equal('Autoriser');
    expect(part(el, 'deny-button')!.textContent!.trim()).to.equal('Refuser');
  });
});

describe('<agent-chat> server tool progress', () => {
  it('says what a running platform tool does (role=status), and nothing once it is done', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session}></agent-chat>`);
    session.set({ conversationId: 'c1', entries: [userMessage('u1', 'Where is 1042?'), execution('t1', 'get_order_status', false)], status: 'streaming' });
    await settle(el);
    const line = part(el, 'tool-progress')!;
    expect(line.getAttribute('role')).to.equal('status');
    expect(line.textContent!.trim()).to.equal('Running get_order_status…');
    expect(await axeViolations(el)).to.deep.equal([]);

    session.set({ entries: [userMessage('u1', 'Where is 1042?'), execution('t1', 'get_order_status', true), execution('t2', 'document_library', false)] });
    await settle(el);
    expect(part(el, 'tool-progress')!.textContent!.trim()).to.equal('Searching the documents…');

    session.set({ entries: [userMessage('u1', 'Where is 1042?'), execution('t1', 'get_order_status', true), execution('t2', 'document_library', true), reply('r1', 'Shipped')], status: 'ready' });
    await settle(el);
    expect(part(el, 'tool-progress')!.textContent!.trim()).to.equal('');
  });

  it('shows a hostile tool name as text; a cut execution of an earlier page is not "running"', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session}></agent-chat>`);
    session.set({ conversationId: 'c1', entries: [userMessage('u1', 'x'), execution('t1', HOSTILE, false)], status: 'streaming' });
    await settle(el);
    const line = part(el, 'tool-progress')!;
    expect(line.querySelector('img, b')).to.equal(null);
    expect(line.textContent!.trim()).to.equal(`Running ${HOSTILE}…`);
    session.set({ status: 'ready' });
    await settle(el);
    expect(part(el, 'tool-progress')!.textContent!.trim()).to.equal('');
  });
});
