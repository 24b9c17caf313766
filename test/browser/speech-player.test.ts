// <speech-player> and streamed speech against the REAL relay and local platform (mounted at /api).
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import '../../src/elements/speech-player/define.js';
import type { SpeechPlayer } from '../../src/elements/speech-player/speech-player.js';
import { ParleyClient, RelaySession } from '../../src/client/index.js';
import type { ParleyClientApi, SpeechAudioStream } from '../../src/client/index.js';
import { sharedClient } from '../../src/elements/internal/shared-client.js';
import { SpeechPlayback } from '../../src/audio/speech-playback.js';
import { axeViolations } from './helpers/axe.js';
import { watchAudioContexts } from './helpers/audio-contexts.js';

const RELAY = '/api';
const LONG = 'This is a long text for the speech player test, long enough to keep the stream open while the test pauses, resumes and stops it. '.repeat(3);

function parts(el: SpeechPlayer) {
  const q = <T extends HTMLElement = HTMLElement>(part: string) => el.shadowRoot!.querySelector<T>(`[part~="${part}"]`);
  return {
    play: () => q<HTMLButtonElement>('play-button')!,
    stop: () => q<HTMLButtonElement>('stop-button')!,
    voicePicker: () => q('voice-picker'),
    rate: () => q<HTMLSelectElement>('rate-select')!,
    status: () => el.shadowRoot!.querySelector('[role="status"]')!.textContent!.trim(),
    error: () => q('error'),
  };
}

/** Records the speech streams `client` makes (the player's requests), until `restore()`. */
function watchSpeechStreams(client: ParleyClientApi) {
  const speech = client.speech;
  const stream = speech.stream;
  const made: SpeechAudioStream[] = [];
  speech.stream = (...args) => {
    const result = stream.apply(speech, args);
    made.push(result);
    return result;
  };
  return { made, restore: () => { speech.stream = stream; } };
}

describe('<speech-player> through the relay', () => {
  it('has no audio code until the first play; the press makes and starts an AudioContext inside the click, and the player plays into it', async () => {
    const el = await fixture<SpeechPlayer>(html`<speech-player relay-url=${RELAY} text="Hello from a lazy player."></speech-player>`);
    expect(el.playback, 'no audio layer before a press').to.equal(null);
    const { made, restore } = watchAudioContexts();
    try {
      const first = oneEvent(el, 'parley-speech-first-audio');
      const end = oneEvent(el, 'parley-speech-end');
      parts(el).play().click();
      expect(made.length, 'made inside the click').to.equal(1);
      await first;
      expect(el.playback!.context as unknown, 'the player plays into the context the press started').to.equal(made[0]);
      // Running once its sound device has opened (Firefox resumes it a moment after the first audio is queued).
      await waitUntil(() => made[0]!.state === 'running', 'the context running', { timeout: 10_000 });
      expect((await end).detail.received).to.be.greaterThan(0);
    } finally {
      restore();
    }
  });

  it('speaks its text: start, first audio, end; progress reaches what was received', async () => {
    const el = await fixture<SpeechPlayer>(html`<speech-player relay-url=${RELAY} text="Hello. This is the speech player."></speech-player>`);
    const events: string[] = [];
    for (const name of ['parley-speech-start', 'parley-speech-first-audio', 'parley-speech-end'] as const) el.addEventListener(name, () => events.push(name));
    const first = oneEvent(el, 'parley-speech-first-audio');
    const end = oneEvent(el, 'parley-speech-end');
    parts(el).play().click();
    const { detail: firstAudio } = await first;
    expect(firstAudio.latencyMs, 'scheduled after it was asked for (how soon: `npm run bench`)').to.be.greaterThan(0);
    expect(el.status).to.equal('playing');
    const { detail } = await end;
    expect(detail.stopped).to.equal(false);
    expect(detail.received).to.be.greaterThan(0.5);
    expect(detail.underruns).to.equal(0);
    expect(events).to.deep.equal(['parley-speech-start', 'parley-speech-first-audio', 'parley-speech-end']);
    expect(el.status).to.equal('ended');
    await el.updateComplete;
    expect(parts(el).status()).to.contain('Finished');
  });

  it('speaks the slotted text when there is no text attribute, with a voice slug and the mp3 format', async () => {
    const el = await fixture<SpeechPlayer>(html`<speech-player relay-url=${RELAY} format="mp3" voice="en-us-female">Slotted words.</speech-player>`);
    const start = oneEvent(el, 'parley-speech-start');
    const end = oneEvent(el, 'parley-speech-end');
    void el.speak();
    expect((await start).detail.text).to.equal('Slotted words.');
    expect((await end).detail.received).to.be.greaterThan(0.3);
  });

  it('paused at once, before its audio code has loaded: the audio that arrives waits, silent, until resumed', async () => {
    const el = await fixture<SpeechPlayer>(html`<speech-player relay-url=${RELAY} .text=${LONG}></speech-player>`);
    parts(el).play().click();
    parts(el).play().click(); // pause, in the same task: the audio code is not there yet
    expect(el.status).to.equal('paused');
    await waitUntil(() => el.playback !== null && el.playback.received > 0, 'audio received while paused', { timeout: 20_000 });
    expect(el.status).to.equal('paused');
    expect(el.playback!.context.state).to.equal('suspended');
    expect(el.playback!.played).to.equal(0);
    parts(el).play().click(); // resume
    await waitUntil(() => el.playback!.played > 0, 'playing once resumed', { timeout: 20_000 });
    expect(el.status).to.equal('playing');
    el.stop();
  });

  it('pauses, resumes and stops mid-stream; the request is cancelled', async () => {
    const el = await fixture<SpeechPlayer>(html`<speech-player relay-url=${RELAY} .text=${LONG}></speech-player>`);
    const streams = watchSpeechStreams(await sharedClient(RELAY));
    const first = oneEvent(el, 'parley-speech-first-audio');
    parts(el).play().click();
    await first;
    streams.restore();
    const stream = streams.made[0] as unknown as { aborted: boolean };
    parts(el).play().click(); // pause
    await waitUntil(() => el.playback!.context.state === 'suspended', 'context suspended');
    expect(el.status).to.equal('paused');
    const frozen = el.playback!.played;
    await new Promise((r) => setTimeout(r, 150));
    expect(el.playback!.played).to.equal(frozen);
    parts(el).play().click(); // resume
    await waitUntil(() => el.playback!.context.state === 'running', 'context running');
    expect(el.status).to.equal('playing');
    await waitUntil(() => el.playback!.played > frozen, 'playing again');
    const end = oneEvent(el, 'parley-speech-end');
    parts(el).stop().click();
    const { detail } = await end;
    expect(detail.stopped).to.equal(true);
    expect(el.status).to.equal('stopped');
    expect(stream.aborted).to.equal(true);
    expect(el.playback!.scheduler.active).to.equal(false);
  });

  it('is accessible (axe), labels its controls, and fills the voice picker from GET /v1/audio/voices', async () => {
    const el = await fixture<SpeechPlayer>(html`<speech-player relay-url=${RELAY} text="Hi" voice="en-us-female"></speech-player>`);
    await waitUntil(() => parts(el).voicePicker() !== null, 'the voice picker appears', { timeout: 5000 });
    const select = el.shadowRoot!.querySelector<HTMLSelectElement>('[part~="voice-select"]')!;
    expect(select.options.length).to.be.greaterThan(1);
    expect(select.selectedOptions[0].value).to.match(/^[0-9a-f-]{36}$/); // the slug was resolved to the voice's id
    expect(parts(el).rate().closest('label')!.textContent).to.contain('Speed');
    expect(await axeViolations(el)).to.deep.equal([]);
    parts(el).rate().value = '1.25';
    parts(el).rate().dispatchEvent(new Event('change'));
    expect(el.rate).to.equal(1.25);
    await el.updateComplete;
    // No audio code before the first play: the speed waits for it, and applies once it is loaded.
    expect(el.playback, 'the audio code is not loaded yet').to.equal(null);
    const first = oneEvent(el, 'parley-speech-first-audio');
    parts(el).play().click();
    await first;
    expect(el.playback!.rate).to.equal(1.25);
    el.stop();
  });

  it('hides the voice picker when the voices cannot be listed', async () => {
    const el = await fixture<SpeechPlayer>(html`<speech-player relay-url="/api-test/no-relay-here" text="Hi"></speech-player>`);
    await new Promise((r) => setTimeout(r, 300));
    await el.updateComplete;
    expect(parts(el).voicePicker() === null, 'no voice picker').to.equal(true);
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('reports a refused request as parley-speech-error, shown in words', async () => {
    const el = await fixture<SpeechPlayer>(html`<speech-player relay-url=${RELAY} text="Hi" voice="no-such-voice"></speech-player>`);
    const error = oneEvent(el, 'parley-speech-error');
    void el.speak();
    const { detail } = await error;
    expect(detail.error.status).to.equal(422);
    await el.updateComplete;
    expect(parts(el).error()!.textContent).to.contain('not accepted');
    // The platform's own words go to the event (and the console), not to the visitor.
    expect(parts(el).error()!.textContent).to.not.contain(detail.error.message);
    expect(el.status).to.equal('error');
  });
});

describe('stopping a streamed synthesis', () => {
  it('closes the connection: the relay frees the stream slot each time (6 stops on a 4-stream session, no 429)', async () => {
    // Retries off: a stream slot still held by an unclosed connection would fail the next request at once.
    const relayUrl = new URL(RELAY, location.href).href;
    const client = new ParleyClient({ baseUrl: relayUrl, session: new RelaySession({ relayUrl }), retry: { retries: 0 } });
    for (let i = 0; i < 6; i++) {
      let firstAudio!: () => void;
      const heard = new Promise<void>((r) => { firstAudio = r; });
      const playback = new SpeechPlayback({ onFirstAudio: () => firstAudio() });
      const stream = client.speech.stream({ input: LONG, response_format: 'pcm' });
      const feeding = playback.feed(stream, 'pcm');
      await heard;
      const receivedAtStop = playback.received;
      playback.stop();
      expect((await feeding).stopped).to.equal(true);
      expect((stream as unknown as { aborted: boolean }).aborted).to.equal(true);
      expect(playback.received).to.equal(0);
      expect(receivedAtStop).to.be.below(30); // stopped long before the whole text arrived
      await playback.dispose();
      await new Promise((r) => setTimeout(r, 30));
    }
    const playback = new SpeechPlayback();
    const result = await playback.play(client.speech.stream({ input: 'Still works.', response_format: 'pcm' }), 'pcm');
    expect(result.seconds).to.be.greaterThan(0.3);
    await playback.dispose();
  });
});
