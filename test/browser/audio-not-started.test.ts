// A browser whose AudioContexts never start (Firefox with no audio output device keeps every context
// suspended: resume() neither resolves nor fails). This file makes Chromium do the same, before any of the
// elements' audio code is loaded: the page's AudioContext is a subclass that suspends itself at once and whose
// resume() never settles (the kit's own code is untouched). Each element must say so in words and fire its
// error event with a kind, and the player must not stay "playing" at 0:00.
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';

const Native = window.AudioContext;
class NeverStartingAudioContext extends Native {
  constructor(options?: AudioContextOptions) {
    super(options);
    void super.suspend();
  }

  override resume(): Promise<void> {
    return new Promise(() => {});
  }
}
window.AudioContext = NeverStartingAudioContext;
after(() => { window.AudioContext = Native; });

await import('../../src/elements/agent-chat/define.js');
await import('../../src/elements/speech-player/define.js');
await import('../../src/elements/audio-transcriber/define.js');

let model: string;
before(async () => {
  ({ model } = await (await fetch('/api-test/fixtures')).json());
});

const RELAY = '/api';
const shadow = (el: Element) => el.shadowRoot!;
const errorText = (el: Element) => shadow(el).querySelector('[part~="error"]')?.textContent?.trim() ?? '';

describe('an AudioContext that does not start', function () {
  // The first press loads the audio code (the microphone's capture and its worklet file) through the dev server.
  this.timeout(45_000);
  it('the test page\'s contexts really stay suspended', async () => {
    const context = new AudioContext();
    void context.resume();
    await new Promise((r) => setTimeout(r, 200));
    expect(context.state).to.equal('suspended');
    await context.close();
  });

  it('<speech-player>: "No sound can be played on this device", parley-speech-error with audio_not_started, not left playing', async () => {
    const el = await fixture<HTMLElement & { speak(): Promise<void>; status: string }>(html`<speech-player relay-url=${RELAY} text="Hello there, this is a test."></speech-player>`);
    const codes: (string | null)[] = [];
    el.addEventListener('parley-speech-error', (e) => codes.push((e as CustomEvent).detail.error.code));
    void el.speak();
    await waitUntil(() => errorText(el) !== '', 'the player says why', { timeout: 40_000 });
    expect(errorText(el)).to.equal('No sound can be played on this device.');
    expect(codes).to.deep.equal(['audio_not_started']);
    expect(el.status).to.equal('error');
    expect(shadow(el).textContent).to.not.contain('Playing');
  });

  it('<audio-transcriber> microphone: "The microphone could not start", kind audio-not-started', async () => {
    const el = await fixture(html`<audio-transcriber relay-url=${RELAY}></audio-transcriber>`);
    const kinds: string[] = [];
    el.addEventListener('parley-transcription-error', (e) => kinds.push((e as CustomEvent).detail.kind));
    shadow(el).querySelector<HTMLButtonElement>('[part~="record-button"]')!.click();
    await waitUntil(() => errorText(el) !== '', 'the transcriber says why', { timeout: 40_000 });
    expect(errorText(el)).to.equal('The microphone could not start.');
    expect(kinds).to.deep.equal(['audio-not-started']);
  });

  it('<agent-chat> voice in: "The microphone could not start"', async () => {
    const el = await fixture(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" voice-input></agent-chat>`);
    await waitUntil(() => shadow(el).querySelector('[part~="mic-button"]'), 'the microphone button', { timeout: 10_000 });
    shadow(el).querySelector<HTMLButtonElement>('[part~="mic-button"]')!.click();
    await waitUntil(() => errorText(el) !== '', 'the chat says why', { timeout: 40_000 });
    expect(errorText(el)).to.contain('The microphone could not start.');
  });

  it('<agent-chat> speaking replies: "No sound can be played on this device", parley-speech-error, no retry', async () => {
    const el = await fixture(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" speak-replies></agent-chat>`);
    const codes: (string | null)[] = [];
    el.addEventListener('parley-speech-error', (e) => codes.push((e as CustomEvent).detail.error.code));
    shadow(el).querySelector<HTMLTextAreaElement>('[part~="input"]')!.focus();
    await sendKeys({ type: 'Say something short.' });
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => errorText(el) !== '', 'the chat says why', { timeout: 40_000 });
    expect(errorText(el)).to.equal('No sound can be played on this device.');
    expect(codes).to.include('audio_not_started');
    expect(shadow(el).querySelector('[part="retry-button"]'), 'no retry').to.equal(null);
  });
});
