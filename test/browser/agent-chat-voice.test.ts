// <agent-chat> voice in against the REAL relay, local platform and Chromium's fake microphone (it says
// "The quick brown fox jumps over the lazy dog." then 2.5 s of silence, looped): the microphone button,
// hands-free turns, errors, keyboard and accessibility. The barge-in logic is also driven directly with
// a VoiceInput double through VoiceComposer's host (its documented seam), where timing is exact.
import { expect, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { VoiceComposer } from '../../src/elements/agent-chat/voice-composer.js';
import { LatestRun } from '../../src/client/latest-run.js';
import type { VoiceComposerHost } from '../../src/elements/agent-chat/voice-composer.js';
import type {
  VoiceInputApi, VoiceInputError, VoiceInputEventMap, VoiceInputResult, VoiceInputState,
} from '../../src/client/contracts.js';
import { axeViolations } from './helpers/axe.js';
import {
  HEARD, RELAY, VERBATIM, chat, handsFreeButton, input, harness, mic, prepareVoiceChat, q, status, userMessages,
} from './helpers/voice-chat.js';

let model = '';

before(async function () {
  this.timeout(60_000);
  model = await prepareVoiceChat();
});

describe('<agent-chat> voice in (real microphone path)', function () {
  // A safety net, not a measure: once, right after the unit suite, three of these timed out at 30 s.
  this.timeout(60_000);

  it('has no voice controls unless voice-input is set', async () => {
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none"></agent-chat>`);
    expect(q(el, '[part~="mic-button"]')).to.equal(null);
    expect(q(el, '[part~="hands-free-button"]')).to.equal(null);
  });

  it('the microphone button listens, shows the words live in the message box, sends them when the speaker stops, and a reply arrives', async () => {
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" .voiceOptions=${VERBATIM} voice-input></agent-chat>`);
    expect(mic(el).getAttribute('aria-pressed')).to.equal('false');
    expect(mic(el).getAttribute('aria-label')).to.equal('Speak a message');
    // Every value the element writes into the message box (partials may come moments before the final).
    const drafts: string[] = [];
    const value = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!;
    Object.defineProperty(input(el), 'value', {
      configurable: true,
      get() { return value.get!.call(this); },
      set(text: string) { drafts.push(text); value.set!.call(this, text); },
    });
    const started = oneEvent(el, 'parley-voice-start');
    const final = oneEvent(el, 'parley-voice-final');
    const sent = oneEvent(el, 'parley-message-sent');
    const finished = oneEvent(el, 'parley-reply-finished');
    mic(el).click();
    expect((await started).detail.handsFree).to.equal(false);
    await el.updateComplete;
    expect(mic(el).getAttribute('aria-pressed')).to.equal('true');
    expect(mic(el).getAttribute('aria-label')).to.equal('Stop listening');
    expect(status(el)).to.equal('Listening…');
    const { detail } = await final;
    expect(detail.text).to.match(HEARD);
    expect((await sent).detail.text).to.equal(detail.text);
    // Sent at once: the words in the box came from the partials.
    expect(drafts.some((d) => HEARD.test(d)), 'the words heard showed in the message box').to.equal(true);
    expect((await finished).detail.text.length).to.be.above(0);
    await el.updateComplete;
    expect(userMessages(el).at(-1)).to.match(HEARD);
    expect(input(el).value).to.equal('');
    expect(mic(el).getAttribute('aria-pressed')).to.equal('false');
    expect(status(el)).to.equal('');
  });

  it('voice-autosend="false" leaves the words in the message box for editing', async () => {
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" .voiceOptions=${VERBATIM} voice-input voice-autosend="false"></agent-chat>`);
    const final = oneEvent(el, 'parley-voice-final');
    mic(el).click();
    const { detail } = await final;
    await el.updateComplete;
    expect(input(el).value).to.equal(detail.text);
    expect(input(el).value).to.match(HEARD);
    expect(userMessages(el)).to.deep.equal([]);
    expect(harness(el).session!.state.status).to.equal('ready');
  });

  it('pressing the button again stops listening and uses what was heard; Escape cancels and drops it', async () => {
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" .voiceOptions=${VERBATIM} voice-input voice-autosend="false"></agent-chat>`);
    // Escape while listening (mid-sentence): nothing heard is kept, nothing is sent.
    input(el).value = 'typed before';
    input(el).dispatchEvent(new Event('input'));
    const finals: string[] = [];
    el.addEventListener('parley-voice-final', (e) => finals.push(e.detail.text));
    mic(el).click();
    await waitUntil(() => mic(el).getAttribute('aria-pressed') === 'true', 'listening', { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 1500));
    mic(el).focus();
    await sendKeys({ press: 'Escape' });
    await el.updateComplete;
    expect(mic(el).getAttribute('aria-pressed')).to.equal('false');
    expect(input(el).value).to.equal('typed before');
    await new Promise((r) => setTimeout(r, 3000));
    expect(input(el).value).to.equal('typed before');
    expect(finals).to.deep.equal([]);
    expect(userMessages(el)).to.deep.equal([]);

    // Press, then press again mid-sentence: what was heard so far is used (after what was typed).
    const final = oneEvent(el, 'parley-voice-final');
    mic(el).click();
    await waitUntil(() => mic(el).getAttribute('aria-pressed') === 'true', 'listening', { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 2000));
    mic(el).click();
    const { detail } = await final;
    expect(detail.text.startsWith('typed before ')).to.equal(true);
    await el.updateComplete;
    expect(input(el).value).to.equal(detail.text);
    expect(mic(el).getAttribute('aria-pressed')).to.equal('false');
  });

  describe('microphone refused', () => {
    let original: MediaDevices['getUserMedia'];
    beforeEach(() => {
      original = navigator.mediaDevices.getUserMedia;
      navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
    });
    afterEach(() => {
      navigator.mediaDevices.getUserMedia = original;
    });

    it('permission denied: says what to do and turns hands-free off; "Try again" listens again once allowed', async () => {
      const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" .voiceOptions=${VERBATIM} voice-input></agent-chat>`);
      const changes: boolean[] = [];
      el.addEventListener('parley-hands-free-changed', (e) => changes.push(e.detail.on));
      handsFreeButton(el).click();
      await waitUntil(() => q(el, '[part~="error"]'), 'error shown', { timeout: 10_000 });
      expect(changes).to.deep.equal([true, false]);
      expect(el.hasAttribute('hands-free')).to.equal(false);
      const error = q(el, '[part~="error"]')!;
      expect(error.getAttribute('role')).to.equal(null); // announced politely through the live region
      expect(el.shadowRoot!.querySelector('[role="status"][aria-live="polite"]')!.textContent).to.contain('Microphone access was denied');
      expect(error.textContent).to.contain('Microphone access was denied');
      expect(error.textContent).to.contain('Allow the microphone for this site');
      expect(handsFreeButton(el).getAttribute('aria-pressed')).to.equal('false');
      expect(mic(el).getAttribute('aria-pressed')).to.equal('false');
      expect(status(el)).to.equal('');
      expect(await axeViolations(el)).to.deep.equal([]);

      navigator.mediaDevices.getUserMedia = original; // the user allowed it
      const started = oneEvent(el, 'parley-voice-start');
      q<HTMLButtonElement>(el, '[part~="retry-button"]')!.click();
      await started;
      await el.updateComplete;
      expect(q(el, '[part~="error"]')).to.equal(null);
      expect(mic(el).getAttribute('aria-pressed')).to.equal('true');
      mic(el).focus();
      await sendKeys({ press: 'Escape' });
      await el.updateComplete;
      expect(mic(el).getAttribute('aria-pressed')).to.equal('false');
    });
  });

  it('is accessible inline and in launcher mode, idle and listening', async () => {
    const inline = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" .voiceOptions=${VERBATIM} voice-input></agent-chat>`);
    expect(await axeViolations(inline)).to.deep.equal([]);
    const started = oneEvent(inline, 'parley-voice-start');
    mic(inline).focus();
    await sendKeys({ press: 'Enter' }); // keyboard starts it too
    await started;
    await inline.updateComplete;
    expect(await axeViolations(inline)).to.deep.equal([]);
    await sendKeys({ press: 'Escape' });
    await inline.updateComplete;
    expect(mic(inline).getAttribute('aria-pressed')).to.equal('false');

    const launcher = await chat(html`<agent-chat mode="launcher" open relay-url=${RELAY} model=${model} resume="none" .voiceOptions=${VERBATIM} voice-input></agent-chat>`);
    expect(await axeViolations(launcher)).to.deep.equal([]);
    handsFreeButton(launcher).focus();
    await sendKeys({ press: ' ' });
    await waitUntil(() => status(launcher) === 'Listening…', 'listening', { timeout: 5000 });
    expect(await axeViolations(launcher)).to.deep.equal([]);
    // Escape ends hands-free first; a second Escape closes the panel.
    await sendKeys({ press: 'Escape' });
    await launcher.updateComplete;
    expect(launcher.handsFree).to.equal(false);
    expect(launcher.open).to.equal(true);
  });
});

/** A VoiceInput whose events the test fires. */
class VoiceInputDouble implements VoiceInputApi {
  state: VoiceInputState = 'idle';
  readonly listeners = new Map<string, Set<(value: never) => void>>();
  started = false;
  cancelled = false;
  disposed = false;
  async start(): Promise<void> {
    this.started = true;
    this.fire('state', 'listening');
  }
  async stop(): Promise<VoiceInputResult | null> {
    return null;
  }
  cancel(): void {
    this.cancelled = true;
  }
  on<K extends keyof VoiceInputEventMap>(type: K, listener: (value: VoiceInputEventMap[K]) => void): () => void {
    const set = this.listeners.get(type) ?? new Set();
    this.listeners.set(type, set);
    set.add(listener as (value: never) => void);
    return () => set.delete(listener as (value: never) => void);
  }
  dispose(): void {
    this.disposed = true;
  }
  fire<K extends keyof VoiceInputEventMap>(type: K, value: VoiceInputEventMap[K]): void {
    if (type === 'state') this.state = value as VoiceInputState;
    for (const listener of this.listeners.get(type) ?? []) (listener as (v: VoiceInputEventMap[K]) => void)(value);
  }
}

const result = (text: string): VoiceInputResult => ({ text, segments: [], language: 'en', durationSeconds: 1 });

function composerWithDoubles() {
  const inputs: VoiceInputDouble[] = [];
  const calls: string[] = [];
  const box = { value: '' }; // the message box
  const host: VoiceComposerHost = {
    openInput: async () => {
      const input = new VoiceInputDouble();
      inputs.push(input);
      return input;
    },
    started: () => calls.push('started'),
    draft: () => box.value,
    setDraft: (text) => {
      box.value = text;
      calls.push(`heard:${text}`);
    },
    said: (text) => {
      box.value = '';
      calls.push(`said:${text}`);
      return true;
    },
    bargeIn: () => calls.push('bargeIn'),
    failed: (error: VoiceInputError) => calls.push(`failed:${error.kind}`),
    level: () => {},
    changed: () => {},
  };
  const composer = new VoiceComposer(host, new LatestRun());
  const opened = async (n: number) => waitUntil(() => inputs.length >= n && inputs[n - 1].started, `microphone ${n} started`);
  return { composer, inputs, calls, opened, box };
}

describe('VoiceComposer turns (VoiceInput double)', () => {
  it('barge-in: while the reply is spoken the microphone listens, and speech starting silences the reply and becomes the next turn', async () => {
    const { composer, inputs, calls, opened } = composerWithDoubles();
    composer.setHandsFree(true);
    await opened(1);
    expect(composer.phase).to.equal('listening');
    inputs[0].fire('partial', 'hello');
    inputs[0].fire('final', result('hello there'));
    expect(calls).to.deep.equal(['started', 'heard:hello', 'said:hello there']);
    expect(composer.phase).to.equal('thinking');
    expect(inputs[0].disposed).to.equal(true);

    composer.replySpeaking(true);
    expect(composer.phase).to.equal('speaking');
    await opened(2);
    inputs[1].fire('partial', 'ignored while the reply plays'); // not the user's turn yet: not written to the box
    inputs[1].fire('speechstart', undefined);
    expect(composer.phase).to.equal('listening');
    expect(calls.slice(3)).to.deep.equal(['bargeIn', 'started', 'heard:ignored while the reply plays']);
    composer.replySpeaking(false); // the silenced reply reports its end: still listening to the user
    composer.replyEnded(false);
    expect(composer.phase).to.equal('listening');
    inputs[1].fire('final', result('stop please'));
    expect(calls.at(-1)).to.equal('said:stop please');
    expect(composer.phase).to.equal('thinking');

    // A reply read to its end without barge-in: the watch becomes the next turn's microphone.
    composer.replySpeaking(true);
    await opened(3);
    composer.replySpeaking(false);
    expect(composer.phase).to.equal('listening');
    expect(inputs.length).to.equal(3);
    composer.setHandsFree(false);
    expect(composer.phase).to.equal('off');
    expect(inputs[2].cancelled && inputs[2].disposed).to.equal(true);
  });

  it('a reply that is not spoken (no text, no voice) goes straight back to listening; errors leave hands-free', async () => {
    const { composer, inputs, calls, opened } = composerWithDoubles();
    composer.setHandsFree(true);
    await opened(1);
    inputs[0].fire('final', result('hi'));
    composer.replyEnded(false);
    expect(composer.phase).to.equal('listening');
    await opened(2);
    inputs[1].fire('error', { kind: 'network', message: 'lost' });
    expect(calls.at(-1)).to.equal('failed:network');
    expect(composer.phase).to.equal('off');
    expect(composer.handsFree).to.equal(false);
    inputs[1].fire('final', result('late'));
    expect(calls.at(-1)).to.equal('failed:network');
  });

  it('one utterance (microphone button): nothing said ends quietly; the end of the utterance is used once; words go after typed text', async () => {
    const { composer, inputs, calls, opened, box } = composerWithDoubles();
    composer.listen();
    await opened(1);
    inputs[0].fire('state', 'idle'); // gave up: no speech
    await waitUntil(() => composer.phase === 'off', 'off');
    expect(calls).to.deep.equal(['started']);
    composer.listen();
    await opened(2);
    inputs[1].fire('final', result('once'));
    inputs[1].fire('state', 'idle');
    await new Promise((r) => setTimeout(r, 10));
    expect(calls).to.deep.equal(['started', 'started', 'said:once']);
    expect(composer.phase).to.equal('off');

    box.value = 'typed';
    composer.listen();
    await opened(3);
    inputs[2].fire('partial', 'and said');
    expect(box.value).to.equal('typed and said');
    composer.cancel(true); // Escape: what was heard is dropped
    expect(box.value).to.equal('typed');
    expect(inputs[2].cancelled).to.equal(true);
    composer.listen();
    await opened(4);
    inputs[3].fire('partial', 'more');
    inputs[3].fire('final', result('more words'));
    expect(calls.at(-1)).to.equal('said:typed more words');
  });
});
