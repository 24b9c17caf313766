// The voice input controller with a scripted microphone and transcription client (the real capture and
// relay are covered by test/browser/voice-input.test.ts): states, VAD, buffering, fallback, failures.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createVoiceInput, VOICE_TIMING, type VoiceInputDependencies } from '../../../src/audio/capture/voice-input.js';
import type { MicCaptureOptions } from '../../../src/audio/capture/mic-capture.js';
import { VoiceInputFailure } from '../../../src/audio/capture/voice-input-error.js';
import { PlatformError } from '../../../src/client/errors.js';
import { EventQueue } from '../../../src/client/event-queue.js';
import type {
  ParleyClientApi, RealtimeTranscriptionOptions, RealtimeTranscriptionSession, TranscriptionApi, TranscriptionEventStream, VoiceInputApi, VoiceInputEventMap, VoiceInputOptions,
} from '../../../src/client/contracts.js';
import type { RealtimeServerEvent, TranscriptionResponse, TranscriptionStreamEvent } from '../../../src/client/types.js';
import { parseWavHeader } from '../../../src/audio/wav-decoder.js';
import { concat, dbToRms, frames, sine, toInt16 } from './signals.js';

const RATE = 16000;
const speech = (seconds: number) => toInt16(sine(200, RATE, seconds, dbToRms(-20) * Math.SQRT2));
const silence = (seconds: number) => new Int16Array(RATE * seconds);

function done(text: string): TranscriptionResponse & { type: 'transcription.done' } {
  return { type: 'transcription.done', model: 'm', text, language: 'en', segments: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
}

/** A realtime session whose server side the test scripts: `onEnd` says what the server answers to `end()`. */
class ScriptedSession implements RealtimeTranscriptionSession {
  readonly info = { request_id: 'r', model: 'rt', audio_format: { encoding: 'pcm_s16le' as const, sample_rate: 16000 } };
  readonly events = new EventQueue<RealtimeServerEvent>();
  readonly appended: Int16Array[] = [];
  closed = false;
  ended = false;
  onEnd: (session: ScriptedSession) => void = (s) => s.finish('');
  #done: { resolve: (r: TranscriptionResponse) => void; reject: (e: unknown) => void } | null = null;

  [Symbol.asyncIterator]() {
    // Each event a macrotask late: the reader lags behind end() as it may behind a busy socket.
    return { next: () => new Promise((r) => setTimeout(r, 0)).then(() => this.events.next()) };
  }
  append(pcm: Int16Array): void {
    if (this.closed) throw new Error('append after close');
    this.appended.push(pcm);
  }
  flush(): void {}
  end(): Promise<TranscriptionResponse> {
    this.ended = true;
    return new Promise((resolve, reject) => {
      this.#done = { resolve, reject };
      this.onEnd(this);
    });
  }
  /** The server sends `deltas`, then done with their text, and closes. */
  finish(...deltas: string[]): void {
    for (const text of deltas) this.events.push({ type: 'transcription.text.delta', text });
    const last = done(deltas.join(''));
    this.events.push(last);
    this.#done?.resolve(last);
    this.events.end();
  }
  /** The socket breaks. */
  breakDown(): void {
    const error = new PlatformError({ status: 0, type: 'network_error', code: null, message: 'socket closed (1006)', retryAfter: null });
    this.#done?.reject(error);
    this.events.fail(error);
  }
  close(): void {
    this.closed = true;
    this.events.end();
  }
  get samples(): number {
    return this.appended.reduce((n, c) => n + c.length, 0);
  }
}

class ScriptedMicrophone {
  options: MicCaptureOptions | null = null;
  stopped: { flush?: boolean } | null = null;
  readonly open: NonNullable<VoiceInputDependencies['openMicrophone']> = async (options) => {
    this.options = options;
    return { stop: async (o = {}) => { this.stopped = o; } };
  };
  /** Feeds audio in 50 ms chunks, as the capture worklet posts it. */
  say(samples: Int16Array): void {
    for (const chunk of frames(samples, 800)) this.options!.onChunk(chunk.slice());
  }
}

function scriptedClient(transcription: Partial<TranscriptionApi> | undefined): ParleyClientApi {
  return { baseUrl: 'http://relay.test', transcription } as unknown as ParleyClientApi;
}

function record(voice: VoiceInputApi) {
  const log: Array<[keyof VoiceInputEventMap, unknown]> = [];
  for (const type of ['state', 'speechstart', 'speechend', 'partial', 'segment', 'final', 'error'] as const) {
    voice.on(type, (value) => log.push([type, value]));
  }
  const levels: number[] = [];
  voice.on('level', (level) => levels.push(level));
  const of = <K extends keyof VoiceInputEventMap>(type: K) => log.filter(([t]) => t === type).map(([, v]) => v as VoiceInputEventMap[K]);
  return { log, levels, of };
}

function setup(options: Partial<VoiceInputOptions> = {}, transcription?: Partial<TranscriptionApi> | null) {
  const mic = new ScriptedMicrophone();
  const session = new ScriptedSession();
  const realtime = vi.fn(async (_options?: RealtimeTranscriptionOptions) => session);
  const client = scriptedClient(transcription === null ? undefined : transcription ?? { realtime });
  const voice = createVoiceInput({ client, ...options }, { openMicrophone: mic.open });
  return { mic, session, realtime, voice, events: record(voice) };
}

const until = (check: () => boolean) => vi.waitFor(() => expect(check()).toBe(true), { timeout: 2000, interval: 5 });

afterEach(() => {
  performance.clearMarks();
  performance.clearMeasures();
});

describe('createVoiceInput', () => {
  test('utterance: streams the audio, detects the end of speech, stops by itself and gives the final text', async () => {
    const { mic, session, realtime, voice, events } = setup({ mode: 'utterance' });
    session.onEnd = (s) => s.finish('the quick', ' brown fox');
    await voice.start();
    expect(realtime).toHaveBeenCalledWith(expect.objectContaining({ sampleRate: 16000 }));
    expect(voice.state).toBe('listening');
    const finalText = new Promise((resolve) => voice.on('final', resolve));
    mic.say(concat(silence(0.5), speech(1), silence(1)));
    expect(await finalText).toEqual({ text: 'the quick brown fox', segments: [], language: 'en', durationSeconds: 2.5 });
    expect(voice.state).toBe('idle');
    expect(events.of('state')).toEqual(['starting', 'listening', 'finishing', 'idle']);
    expect(events.of('partial')).toEqual(['the quick', 'the quick brown fox']);
    expect(events.log.map(([t]) => t).lastIndexOf('partial')).toBeLessThan(events.log.map(([t]) => t).indexOf('final'));
    expect(events.log.map(([t]) => t).filter((t) => t === 'speechstart' || t === 'speechend' || t === 'final')).toEqual(['speechstart', 'speechend', 'final']);
    expect(session.samples).toBe(2.5 * RATE);
    expect(session.ended).toBe(true);
    expect(mic.stopped).toEqual({});
    expect(events.levels).toHaveLength(50); // one per 50 ms chunk
    expect(Math.max(...events.levels)).toBeCloseTo((60 - 20) / 60, 1);
    expect(events.levels[0]).toBe(0);
    const [measure] = performance.getEntriesByName(VOICE_TIMING.speechEndToFinal);
    const [speechEnd] = performance.getEntriesByName(VOICE_TIMING.speechEnd);
    const [detected] = performance.getEntriesByName(VOICE_TIMING.speechEndDetected);
    const [final] = performance.getEntriesByName(VOICE_TIMING.final);
    expect(performance.getEntriesByName(VOICE_TIMING.speechEnd)).toHaveLength(1);
    // The measure spans from the last voiced audio (before the VAD's hangover ran out) to the final text.
    expect(measure.startTime).toBe(speechEnd.startTime);
    expect(measure.startTime + measure.duration).toBeCloseTo(final.startTime, 6);
    expect(speechEnd.startTime).toBeLessThan(detected.startTime);
    expect(detected.startTime).toBeLessThanOrEqual(final.startTime);
  });

  test('audio captured while the session opens is sent first, in order', async () => {
    const mic = new ScriptedMicrophone();
    const session = new ScriptedSession();
    let open!: (s: ScriptedSession) => void;
    const client = scriptedClient({ realtime: () => new Promise((resolve) => { open = resolve; }) });
    const voice = createVoiceInput({ client, mode: 'continuous' }, { openMicrophone: mic.open });
    const started = voice.start();
    await until(() => mic.options !== null);
    const early = speech(0.3);
    mic.say(early);
    expect(voice.state).toBe('starting');
    open(session);
    await started;
    mic.say(silence(0.2));
    expect(session.samples).toBe(0.5 * RATE);
    expect(Array.from(session.appended[0])).toEqual(Array.from(early.subarray(0, 800)));
    voice.cancel();
  });

  test('continuous: the end of speech does not stop it; stop() gives one final for the recording', async () => {
    const { mic, session, voice, events } = setup({ mode: 'continuous' });
    session.onEnd = (s) => s.finish('one', ' two');
    await voice.start();
    mic.say(concat(speech(1), silence(1.5), speech(1), silence(1)));
    expect(events.of('speechend')).toHaveLength(2);
    expect(voice.state).toBe('listening');
    const result = await voice.stop();
    expect(result?.text).toBe('one two');
    expect(result?.durationSeconds).toBe(4.5);
    expect(events.of('final')).toEqual([result]);
  });

  test('segments are passed on with their times', async () => {
    const { mic, session, voice, events } = setup({ mode: 'continuous' });
    await voice.start();
    mic.say(speech(0.5));
    session.events.push({ type: 'transcription.segment', text: 'hello', start: 0.1, end: 0.4 });
    await until(() => events.of('segment').length === 1);
    expect(events.of('segment')).toEqual([{ text: 'hello', start: 0.1, end: 0.4 }]);
    session.onEnd = (s) => s.finish('hello');
    expect((await voice.stop())?.segments).toEqual([{ type: 'transcription_segment', text: 'hello', start: 0.1, end: 0.4 }]);
  });

  test('nothing said: stop() resolves null and no final is emitted', async () => {
    const { mic, voice, events } = setup({ mode: 'continuous' });
    await voice.start();
    mic.say(silence(1));
    expect(await voice.stop()).toBeNull();
    expect(events.of('final')).toEqual([]);
    expect(voice.state).toBe('idle');
  });

  test('utterance: gives up after noSpeechTimeoutMs without speech', async () => {
    const { mic, voice, events } = setup({ mode: 'utterance', noSpeechTimeoutMs: 60 });
    await voice.start();
    mic.say(silence(0.5));
    await until(() => voice.state === 'idle');
    expect(mic.stopped).not.toBeNull();
    expect(events.of('final')).toEqual([]);
  });

  test('falls back to a WAV through transcribeStream when the realtime session cannot be opened', async () => {
    const mic = new ScriptedMicrophone();
    const sent: Blob[] = [];
    const transcribeStream = vi.fn((file: Blob): TranscriptionEventStream => {
      sent.push(file);
      const events: TranscriptionStreamEvent[] = [
        { type: 'transcription.language', audio_language: 'en' },
        { type: 'transcription.text.delta', text: 'lazy' },
        { type: 'transcription.text.delta', text: ' dog' },
        done('lazy dog'),
      ];
      return { async *[Symbol.asyncIterator]() { yield* events; }, result: Promise.resolve(done('lazy dog')), abort() {} };
    });
    const realtime = vi.fn(async () => {
      throw new PlatformError({ status: 404, type: 'invalid_request_error', code: null, message: 'Not Found', retryAfter: null });
    });
    const voice = createVoiceInput({ client: scriptedClient({ realtime, transcribeStream }), mode: 'utterance' }, { openMicrophone: mic.open });
    const events = record(voice);
    await voice.start();
    expect(voice.state).toBe('listening');
    const finalText = new Promise((resolve) => voice.on('final', resolve));
    const audio = concat(silence(0.2), speech(1), silence(1));
    mic.say(audio);
    expect(await finalText).toMatchObject({ text: 'lazy dog', language: 'en' });
    expect(events.of('partial')).toEqual(['lazy', 'lazy dog']);
    expect(events.of('error')).toEqual([]);
    const file = sent[0];
    expect(file.type).toBe('audio/wav');
    const bytes = new Uint8Array(await file.arrayBuffer());
    const header = parseWavHeader(bytes)!;
    expect(header.format.sampleRate).toBe(16000);
    expect(header.dataBytes).toBe(audio.length * 2);
    expect(new Int16Array(bytes.buffer.slice(44))).toEqual(audio);
  });

  test('a connection lost mid-stream: network error, the text so far is the final, state error', async () => {
    const { mic, session, voice, events } = setup({ mode: 'continuous' });
    await voice.start();
    mic.say(speech(0.5));
    session.events.push({ type: 'transcription.text.delta', text: 'the quick' });
    await until(() => events.of('partial').length === 1);
    const finalText = new Promise((resolve) => voice.on('final', resolve));
    session.breakDown();
    expect(await finalText).toMatchObject({ text: 'the quick' });
    expect(events.of('error')).toEqual([expect.objectContaining({ kind: 'network' })]);
    expect(events.of('error')[0].message).toContain('socket closed');
    expect(voice.state).toBe('error');
    expect(mic.stopped).not.toBeNull();
    expect(await voice.stop()).toBeNull(); // already over
  });

  test('a server error event is a platform error', async () => {
    const { mic, session, voice, events } = setup({ mode: 'continuous' });
    await voice.start();
    mic.say(speech(0.2));
    session.events.push({ type: 'error', error: { message: 'Audio format not supported', code: 4000 } });
    await until(() => voice.state === 'error');
    expect(events.of('error')).toEqual([expect.objectContaining({ kind: 'platform', message: expect.stringContaining('Audio format not supported') })]);
  });

  test('microphone permission denied: start() rejects with a permission-denied failure, error state', async () => {
    const client = scriptedClient({ realtime: vi.fn() });
    const voice = createVoiceInput({ client }, { openMicrophone: () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError')) });
    const events = record(voice);
    const failure = await voice.start().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(VoiceInputFailure);
    expect(failure).toMatchObject({ kind: 'permission-denied' });
    expect(events.of('error')).toEqual([expect.objectContaining({ kind: 'permission-denied', message: expect.stringMatching(/denied/) })]);
    expect(voice.state).toBe('error');
    expect(client.transcription!.realtime).not.toHaveBeenCalled();
  });

  test('a client without transcription: unsupported, before asking for the microphone', async () => {
    const { mic, voice } = setup({}, null);
    await expect(voice.start()).rejects.toMatchObject({ kind: 'unsupported', message: expect.stringContaining('transcription') });
    expect(mic.options).toBeNull();
  });

  test('cancel() stops at once: no final, microphone released without flush, session closed; start again works', async () => {
    const { mic, session, voice, events } = setup({ mode: 'continuous' });
    await voice.start();
    mic.say(speech(1));
    voice.cancel();
    expect(voice.state).toBe('idle');
    expect(mic.stopped).toEqual({ flush: false });
    expect(session.closed).toBe(true);
    expect(events.of('final')).toEqual([]);
    mic.say(speech(0.2)); // a late chunk of the cancelled recording is dropped
    expect(session.samples).toBe(RATE);
    await voice.start(); // a new recording (the scripted client hands out the same, closed, session: so the file fallback)
    expect(voice.state).toBe('listening');
    voice.cancel();
  });

  test('start() twice is refused; after dispose() nothing starts', async () => {
    const { voice } = setup({ mode: 'continuous' });
    await voice.start();
    await expect(voice.start()).rejects.toThrow(/already listening/);
    voice.dispose();
    expect(voice.state).toBe('idle');
    await expect(voice.start()).rejects.toThrow(/disposed/);
  });
});
