// Microphone capture in real Chromium with the fake microphone (test/browser/server/fake-mic.mjs: a
// Flite sentence of ~3 s, then 2.5 s of silence, looped): worklet resampling, levels, VAD, errors.
import { expect } from '@open-wc/testing';
import { MicCapture, VoiceActivityDetector, VoiceInputFailure, createVoiceInput, rms, type VoiceActivityEvent } from '../../src/audio/capture/index.js';
import { ParleyClient, RelaySession } from '../../src/client/index.js';

const VERBATIM = { echoCancellation: false, noiseSuppression: false, autoGainControl: false };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Replaces getUserMedia for one test (restored by the returned function). */
function replaceGetUserMedia(replacement: (original: MediaDevices['getUserMedia']) => MediaDevices['getUserMedia']): () => void {
  const devices = navigator.mediaDevices;
  const original = devices.getUserMedia.bind(devices);
  Object.defineProperty(devices, 'getUserMedia', { value: replacement(original), configurable: true, writable: true });
  return () => Object.defineProperty(devices, 'getUserMedia', { value: original, configurable: true, writable: true });
}

/** Seconds (in 16 kHz samples) of each silent stretch of `chunks` that has sound on both sides. */
function pausesBetweenSpeech(chunks: Int16Array[]): number[] {
  const pauses: number[] = [];
  let heard = false;
  let silent = 0;
  for (const chunk of chunks) {
    if (rms(chunk) < 0.001) {
      if (heard) silent += chunk.length;
    } else {
      if (silent) pauses.push(silent / 16000);
      silent = 0;
      heard = true;
    }
  }
  return pauses;
}

describe('MicCapture', () => {
  it('gives 50 ms chunks of 16 kHz s16: loud while the sentence plays, the pause as long as the file\'s; stop releases the microphone', async () => {
    const streams: MediaStream[] = [];
    const restore = replaceGetUserMedia((original) => async (constraints) => {
      const stream = await original(constraints);
      streams.push(stream);
      return stream;
    });
    const chunks: Int16Array[] = [];
    let capture: MicCapture;
    try {
      capture = await MicCapture.open({ ...VERBATIM, onChunk: (samples) => chunks.push(samples) });
    } finally {
      restore();
    }
    expect(capture.sampleRate).to.equal(16000);
    expect(capture.deviceSampleRate).to.be.at.least(16000);
    expect(capture.label).to.not.equal('');
    // Until the capture holds a whole pause of the loop, speech on both sides (within two loops, a safety net).
    for (let waited = 0; !pausesBetweenSpeech(chunks).length && waited < 12_000; waited += 100) await sleep(100);
    await capture.stop();
    expect(streams).to.have.length(1);
    expect(streams[0].getAudioTracks().every((track) => track.readyState === 'ended')).to.equal(true);

    expect(chunks.slice(0, -1).every((c) => c.length === 800)).to.equal(true);
    const levels = chunks.map(rms);
    expect(Math.max(...levels)).to.be.above(0.05); // speech (fox.wav peaks around -10 dBFS)
    // 16 kHz by the audio itself, not by a clock: the pause is the file's 2.5 s of silence plus the sentence's
    // own quiet ends (~0.2 s before, ~0.15 s after), so ~2.85 s of samples at 16 kHz, give or take a chunk each side.
    const [pause] = pausesBetweenSpeech(chunks);
    expect(pause, 'seconds of silence between two sentences, counted in samples at 16 kHz').to.be.within(2.65, 3.05);
    const chunksAfterStop = chunks.length;
    await sleep(200);
    expect(chunks.length).to.equal(chunksAfterStop);
  });

  it('the voice activity detector sees the sentence start and end within one loop', async () => {
    const vad = new VoiceActivityDetector(16000);
    const events: Array<VoiceActivityEvent & { at: number }> = [];
    const capture = await MicCapture.open({
      onChunk: (samples) => {
        const event = vad.push(samples);
        if (event) events.push({ ...event, at: performance.now() });
      },
    });
    const start = performance.now();
    while (!events.some((e) => e.type === 'speechend') && performance.now() - start < 7000) await sleep(50);
    await capture.stop();
    const types = events.map((e) => e.type);
    expect(types.slice(0, 2)).to.deep.equal(['speechstart', 'speechend']);
    const end = events[1] as Extract<VoiceActivityEvent, { type: 'speechend' }>;
    const begin = events[0] as Extract<VoiceActivityEvent, { type: 'speechstart' }>;
    expect((end.lastVoicedMs - begin.startMs) / 1000).to.be.within(1.5, 3.5); // the sentence is ~2.8 s
    expect(end.atMs - end.lastVoicedMs).to.be.within(800, 850);
  });

  it('maps getUserMedia failures to kinds with a message', async () => {
    for (const [name, kind] of [['NotAllowedError', 'permission-denied'], ['NotFoundError', 'no-microphone'], ['OverconstrainedError', 'no-microphone'], ['NotReadableError', 'microphone-busy']] as const) {
      const restore = replaceGetUserMedia(() => () => Promise.reject(new DOMException('refused by the test', name)));
      try {
        const failure = await MicCapture.open({ onChunk: () => {} }).then(() => null, (e: unknown) => e);
        expect(failure, name).to.be.instanceOf(VoiceInputFailure);
        expect((failure as VoiceInputFailure).kind, name).to.equal(kind);
        expect((failure as VoiceInputFailure).message.length, name).to.be.above(20);
      } finally {
        restore();
      }
    }
  });

  it('voice input with permission denied: start() rejects, an error event says permission-denied, no session is opened', async () => {
    const restore = replaceGetUserMedia(() => () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError')));
    const relayUrl = new URL('/api', location.href).href;
    const client = new ParleyClient({ baseUrl: relayUrl, session: new RelaySession({ relayUrl }) });
    const transcription = client.transcription!;
    const realtime = transcription.realtime;
    let realtimeCalls = 0;
    transcription.realtime = (options) => {
      realtimeCalls++;
      return realtime.call(transcription, options);
    };
    const voice = createVoiceInput({ client });
    const errors: string[] = [];
    voice.on('error', (error) => errors.push(error.kind));
    try {
      const failure = await voice.start().then(() => null, (e: unknown) => e);
      expect((failure as VoiceInputFailure).kind).to.equal('permission-denied');
      expect(errors).to.deep.equal(['permission-denied']);
      expect(voice.state).to.equal('error');
      expect(realtimeCalls).to.equal(0);
    } finally {
      restore();
      voice.dispose();
    }
  });
});
