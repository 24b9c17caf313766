// <agent-chat> on this page (http://localhost:<port>) with its relay on another origin (http://127.0.0.1:<port>):
// real CORS, preflights included (web-test-runner.config.mjs starts the two relays). One relay lists this
// page's origin; the other does not, and the site owner must learn why while the visitor sees a neutral line.
import { expect, fixture, html, waitUntil, oneEvent } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/elements/agent-chat/define.js';
import '../../src/elements/speech-player/define.js';
import '../../src/elements/audio-transcriber/define.js';
import '../../src/elements/doc-ocr-viewer/define.js';
import type { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import type { ParleyErrorDetail } from '../../src/elements/internal/events.js';

interface Fixtures { model: string; crossOrigin: { allowed: string; refused: string } }
let fixtures: Fixtures;

before(async () => {
  fixtures = await (await fetch('/api-test/fixtures')).json();
  expect(new URL(fixtures.crossOrigin.allowed).origin, 'the relay is on another origin').to.not.equal(location.origin);
});

const shadow = (el: Element) => el.shadowRoot!;

async function send(el: AgentChat, text: string) {
  shadow(el).querySelector<HTMLTextAreaElement>('[part~="input"]')!.focus();
  await sendKeys({ type: text });
  await sendKeys({ press: 'Enter' });
}

/** Collects console.error calls while `run` runs. */
async function consoleErrors(run: () => Promise<void>): Promise<string[]> {
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => { logged.push(args.map(String).join(' ')); };
  try {
    await run();
  } finally {
    console.error = original;
  }
  return logged;
}

describe('cross-origin embedding', () => {
  it('an allowed origin: the element opens a session on the other origin and chats', async () => {
    const el = await fixture<AgentChat>(html`<agent-chat relay-url=${fixtures.crossOrigin.allowed} model=${fixtures.model} resume="none"></agent-chat>`);
    const finished: CustomEvent[] = [];
    const errors: CustomEvent<ParleyErrorDetail>[] = [];
    el.addEventListener('parley-reply-finished', (e) => finished.push(e));
    el.addEventListener('parley-error', (e) => errors.push(e));
    await send(el, 'Say hello from the other origin');
    await waitUntil(() => finished.length || errors.length, 'the reply finished or failed', { timeout: 12_000 });
    expect(errors.map((e) => e.detail.error)).to.deep.equal([]);
    expect(finished[0]!.detail.text.length).to.be.greaterThan(0);
    expect(shadow(el).querySelector('[part~="message-assistant"] [part~="bubble"]')).to.not.equal(null);
  });

  it('the relay answers an allowed origin with its echo, and a refused one with a readable 403', async () => {
    const allowed = await fetch(`${fixtures.crossOrigin.allowed}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(allowed.status).to.equal(200);
    const refused = await fetch(`${fixtures.crossOrigin.refused}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    // Without the echo on the refusal this fetch would reject with a TypeError (a network error).
    expect(refused.status).to.equal(403);
    expect((await refused.json()).code).to.equal('origin_not_allowed');
  });

  it('a refused origin: parley-error with origin_not_allowed, a console error naming the fix, a neutral message', async () => {
    let el!: AgentChat;
    let detail!: ParleyErrorDetail;
    const logged = await consoleErrors(async () => {
      el = await fixture<AgentChat>(html`<agent-chat relay-url=${fixtures.crossOrigin.refused} model=${fixtures.model} resume="none"></agent-chat>`);
      const failed = oneEvent(el, 'parley-error');
      await send(el, 'Hello?');
      detail = (await failed).detail;
    });
    expect(detail.error.code).to.equal('origin_not_allowed');
    expect(detail.error.status).to.equal(403);
    const ownerNote = logged.find((line) => line.includes('origin_not_allowed'));
    expect(ownerNote, `console: ${logged.join(' | ')}`).to.be.a('string');
    expect(ownerNote).to.contain(location.origin);
    expect(ownerNote).to.contain(`--allow-origin ${location.origin}`);
    expect(ownerNote).to.contain('allowedOrigins');

    await waitUntil(() => shadow(el).querySelector('[part="error"]'), 'the error is shown', { timeout: 10_000 });
    const shown = shadow(el).querySelector('[part="error"]')!.textContent!.trim();
    expect(shown).to.equal('This assistant is not available on this page.');
    expect(shown).to.not.contain('connection');
    expect(shadow(el).querySelector('[part="retry-button"]'), 'no retry: it would be refused again').to.equal(null);
  });

  it('a refused origin: <speech-player> also fires parley-error and shows a neutral message', async () => {
    const el = await fixture(html`<speech-player relay-url=${fixtures.crossOrigin.refused} text="Hello there"></speech-player>`);
    const failed = oneEvent(el, 'parley-error');
    await consoleErrors(async () => {
      await (el as unknown as { speak(): Promise<void> }).speak();
    });
    expect((await failed).detail.error.code).to.equal('origin_not_allowed');
    await waitUntil(() => shadow(el).textContent!.includes('Speech is not available on this page.'), 'the neutral message is shown', { timeout: 10_000 });
    expect(shadow(el).querySelector('[part="error"]')!.textContent!.trim()).to.equal('Speech is not available on this page.');
  });

  it('a refused origin: <audio-transcriber> and <doc-ocr-viewer> fire parley-error and say so neutrally', async () => {
    const transcriber = await fixture(html`<audio-transcriber relay-url=${fixtures.crossOrigin.refused}></audio-transcriber>`);
    const transcriberFailed = oneEvent(transcriber, 'parley-error');
    const audio = new Blob([new Uint8Array(64)], { type: 'audio/wav' });
    await consoleErrors(() => (transcriber as unknown as { transcribeFile(file: Blob): Promise<void> }).transcribeFile(audio));
    expect((await transcriberFailed).detail.error.code).to.equal('origin_not_allowed');
    await waitUntil(() => shadow(transcriber).querySelector('[part="error"]'), 'the transcriber shows its error', { timeout: 10_000 });
    expect(shadow(transcriber).querySelector('[part="error"]')!.textContent!.trim()).to.equal('Transcription is not available on this page.');

    const viewer = await fixture(html`<doc-ocr-viewer relay-url=${fixtures.crossOrigin.refused}></doc-ocr-viewer>`);
    const viewerFailed = oneEvent(viewer, 'parley-error');
    const image = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], { type: 'image/png' });
    await consoleErrors(() => (viewer as unknown as { read(document: Blob): Promise<void> }).read(image));
    expect((await viewerFailed).detail.error.code).to.equal('origin_not_allowed');
    await waitUntil(() => shadow(viewer).querySelector('[part="error"]'), 'the viewer shows its error', { timeout: 10_000 });
    expect(shadow(viewer).querySelector('[part="error"]')!.textContent!.trim()).to.equal('Document reading is not available on this page.');
  });
});
