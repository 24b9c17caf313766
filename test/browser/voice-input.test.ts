// Voice input end to end: the fake microphone (a Flite "The quick brown fox jumps over the lazy dog.",
// then 2.5 s of silence, looped) → capture worklet → VAD → the REAL relay at /api → the local platform's
// realtime WebSocket (pocketsphinx). Also the file fallback when the WebSocket cannot be opened.
import { expect } from '@open-wc/testing';
import { VOICE_TIMING, createVoiceInput } from '../../src/audio/capture/index.js';
import { ParleyClient, RelaySession } from '../../src/client/index.js';
import type { VoiceInputApi, VoiceInputEventMap, VoiceInputResult } from '../../src/client/contracts.js';

const relayUrl = new URL('/api', location.href).href;

function record(voice: VoiceInputApi) {
  const log: Array<{ type: keyof VoiceInputEventMap; value: unknown; at: number }> = [];
  for (const type of ['state', 'speechstart', 'speechend', 'partial', 'segment', 'final', 'error'] as const) {
    voice.on(type, (value) => log.push({ type, value, at: performance.now() }));
  }
  let levels = 0;
  voice.on('level', () => levels++);
  return { log, levels: () => levels, of: (type: keyof VoiceInputEventMap) => log.filter((e) => e.type === type) };
}

function finalOf(voice: VoiceInputApi, timeoutMs: number): Promise<VoiceInputResult> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no final within ${timeoutMs} ms (state ${voice.state})`)), timeoutMs);
    voice.on('final', (result) => {
      clearTimeout(timer);
      resolve(result);
    });
    voice.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${error.kind}: ${error.message}`));
    });
  });
}

describe('voice input through the relay', function () {
  this.timeout(30_000);
  afterEach(() => {
    performance.clearMarks();
    performance.clearMeasures();
  });

  it('utterance mode: hears the sentence over the realtime WebSocket, stops by itself after it, gives the final text', async () => {
    const client = new ParleyClient({ baseUrl: relayUrl, session: new RelaySession({ relayUrl }) });
    const voice = createVoiceInput({ client, mode: 'utterance', echoCancellation: false, noiseSuppression: false, autoGainControl: false });
    const events = record(voice);
    const final = finalOf(voice, 20_000);
    await voice.start();
    expect(voice.state).to.equal('listening');
    const result = await final;
    expect(result.text.toLowerCase()).to.match(/fox/).and.to.match(/lazy/).and.to.match(/dog/);
    expect(result.durationSeconds).to.be.within(2, 8);
    expect(voice.state).to.equal('idle');
    const order = events.log.map((e) => e.type).filter((t) => t !== 'partial' && t !== 'segment');
    expect(order).to.deep.equal(['state', 'state', 'speechstart', 'speechend', 'state', 'final', 'state']);
    expect(events.of('state').map((e) => e.value)).to.deep.equal(['starting', 'listening', 'finishing', 'idle']);
    const partials = events.of('partial').map((e) => e.value as string);
    if (partials.length) expect(partials.at(-1)!.trim()).to.equal(result.text);
    expect(events.levels()).to.be.above(20); // ~20 a second while listening
    // The speech-end-to-final measure spans from the last voiced audio (before the VAD's hangover ran out)
    // to the final text; how long that takes is timed by `npm run bench`.
    const [measure] = performance.getEntriesByName(VOICE_TIMING.speechEndToFinal);
    const [speechEnd] = performance.getEntriesByName(VOICE_TIMING.speechEnd);
    const [detected] = performance.getEntriesByName(VOICE_TIMING.speechEndDetected);
    const [finalMark] = performance.getEntriesByName(VOICE_TIMING.final);
    expect(measure.startTime).to.equal(speechEnd.startTime);
    expect(measure.startTime + measure.duration).to.be.closeTo(finalMark.startTime, 0.001);
    expect(speechEnd.startTime, 'the last voiced audio, before').to.be.below(detected.startTime);
    expect(detected.startTime, 'the end of speech was detected, before').to.be.at.most(finalMark.startTime);
    voice.dispose();
  });

  it('falls back to a WAV file through the streamed transcription when the WebSocket cannot be opened', async () => {
    // A WebSocket class whose connection is refused (nothing listens on port 9), as with a relay without the route.
    class MissingRoute extends WebSocket {
      constructor(_url: string | URL, protocols?: string | string[]) {
        super('ws://127.0.0.1:9/v1/audio/transcriptions/realtime', protocols);
      }
    }
    const client = new ParleyClient({ baseUrl: relayUrl, session: new RelaySession({ relayUrl }), webSocket: MissingRoute });
    const voice = createVoiceInput({ client, mode: 'utterance', echoCancellation: false, noiseSuppression: false, autoGainControl: false });
    const events = record(voice);
    const final = finalOf(voice, 25_000);
    await voice.start();
    const result = await final;
    expect(result.text.toLowerCase()).to.match(/fox/).and.to.match(/dog/);
    expect(events.of('error')).to.deep.equal([]);
    expect(events.of('speechend')).to.have.length(1);
    expect(performance.getEntriesByName(VOICE_TIMING.speechEndToFinal)).to.have.length(1);
    voice.dispose();
  });

  it('continuous mode: keeps listening past the end of speech until stop()', async () => {
    const client = new ParleyClient({ baseUrl: relayUrl, session: new RelaySession({ relayUrl }) });
    const voice = createVoiceInput({ client, mode: 'continuous' });
    const events = record(voice);
    await voice.start();
    const start = performance.now();
    while (!events.of('speechend').length && performance.now() - start < 8000) await new Promise((r) => setTimeout(r, 50));
    expect(events.of('speechend')).to.have.length(1);
    expect(voice.state).to.equal('listening');
    const result = await voice.stop();
    expect(result?.text.toLowerCase()).to.match(/dog/);
    expect(voice.state).to.equal('idle');
    voice.dispose();
  });
});
