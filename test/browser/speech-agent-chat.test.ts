// <agent-chat> voice out against the REAL relay and local platform: read aloud, auto-speak while
// the reply streams, barge-in.
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/elements/agent-chat/define.js';
import type { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import { harness } from './helpers/agent-chat-harness.js';

const RELAY = '/api';
let model = '';

const q = <T extends HTMLElement>(el: AgentChat, selector: string) => el.shadowRoot!.querySelector<T>(selector);
const busy = (el: AgentChat) => harness(el).busy;

async function chat(template: ReturnType<typeof html>): Promise<AgentChat> {
  const el = await fixture<AgentChat>(template);
  await waitUntil(() => harness(el).session, 'session created', { timeout: 5000 });
  return el;
}

async function send(el: AgentChat, text: string) {
  q<HTMLTextAreaElement>(el, '[part~="input"]')!.focus();
  await sendKeys({ type: text });
  await sendKeys({ press: 'Enter' });
}

before(async function () {
  // The chat loads its audio code on the first press that needs it; the dev server serves that code as
  // hundreds of modules (one chunk in the build), which can take longer than a test: loaded here first.
  this.timeout(120_000);
  model = (await (await fetch('/api-test/fixtures')).json()).model;
  await import('../../src/audio/reply-speaker.js');
});

describe('<agent-chat> voice out', () => {
  it('reads a finished reply aloud from its button, and stops it from the same button', async () => {
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none"></agent-chat>`);
    const finished = oneEvent(el, 'parley-reply-finished');
    await send(el, 'Hello there');
    await finished;
    await el.updateComplete;
    const button = () => q<HTMLButtonElement>(el, '[part~="read-aloud-button"]')!;
    expect(button().textContent!.trim()).to.equal('Read aloud');
    const first = oneEvent(el, 'parley-speech-first-audio');
    button().click();
    await first;
    await el.updateComplete;
    expect(button().textContent!.trim()).to.equal('Stop reading');
    expect(harness(el).speaker!.playback.scheduler.active).to.equal(true);
    button().click();
    await el.updateComplete;
    expect(harness(el).speaker!.playback.scheduler.active).to.equal(false);
    expect(button().textContent!.trim()).to.equal('Read aloud');
  });

  it('speak-replies starts speaking before the reply finishes; typing stops the voice at once (barge-in)', async () => {
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" speak-replies></agent-chat>`);
    const first = oneEvent(el, 'parley-speech-first-audio');
    await send(el, 'Show me some markdown with a list, a table and a heading');
    const { detail } = await first;
    expect(busy(el), 'the reply is still streaming when the first audio is scheduled').to.equal(true);
    expect(detail.latencyMs, 'scheduled after it was asked for (how soon: `npm run bench`)').to.be.greaterThan(0);
    const playback = harness(el).speaker!.playback;
    await waitUntil(() => playback.played > 0.05, 'audio is playing', { timeout: 5000 });
    // Barge-in: typing in the composer silences it and cancels the synthesis.
    q<HTMLTextAreaElement>(el, '[part~="input"]')!.focus();
    await sendKeys({ type: 'w' });
    expect(playback.scheduler.active).to.equal(false);
    expect(harness(el).speakingId).to.equal(null);
    const played = playback.played;
    await new Promise((r) => setTimeout(r, 200));
    expect(playback.played).to.equal(played);
    if (busy(el)) el.stop();
    await waitUntil(() => !busy(el), 'turn ended');
  });

  it('sending a new message stops the reply being read', async () => {
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none"></agent-chat>`);
    const finished = oneEvent(el, 'parley-reply-finished');
    await send(el, 'Tell me something');
    await finished;
    await el.updateComplete;
    const first = oneEvent(el, 'parley-speech-first-audio');
    q<HTMLButtonElement>(el, '[part~="read-aloud-button"]')!.click();
    await first;
    const playback = harness(el).speaker!.playback;
    expect(playback.scheduler.active).to.equal(true);
    const textarea = q<HTMLTextAreaElement>(el, '[part~="input"]')!;
    textarea.value = 'Next question';
    textarea.dispatchEvent(new Event('input'));
    expect(playback.scheduler.active).to.equal(false);
    q<HTMLFormElement>(el, 'form[part~="composer"]')!.requestSubmit();
    expect(playback.scheduler.active).to.equal(false);
    await waitUntil(() => !busy(el), 'turn ended', { timeout: 10_000 });
  });
});
