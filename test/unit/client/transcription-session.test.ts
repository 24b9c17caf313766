// The transcription session of <audio-transcriber> without a DOM: a scripted voice input and a scripted
// file stream stand in for the microphone and the relay (the real ones: test/browser/audio-transcriber.test.ts).
import { describe, expect, it, vi } from 'vitest';
import { TranscriptionSession, type TranscriptionHooks } from '../../../src/client/transcription-session.js';
import { PlatformError } from '../../../src/client/errors.js';
import { EventQueue } from '../../../src/client/event-queue.js';
import type {
  ParleyClientApi, TranscribeOptions, TranscriptionEventStream, VoiceInputApi, VoiceInputError, VoiceInputEventMap, VoiceInputOptions, VoiceInputResult,
} from '../../../src/client/contracts.js';
import type { TranscriptionResponse, TranscriptionStreamEvent } from '../../../src/client/types.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

/** A voice input whose microphone and server the test scripts. */
class ScriptedVoice implements VoiceInputApi {
  state: VoiceInputApi['state'] = 'idle';
  readonly listeners = new Map<string, Set<(value: never) => void>>();
  readonly starting = deferred<void>();
  readonly stopping = deferred<VoiceInputResult | null>();
  cancelled = false;
  disposed = false;
  constructor(readonly options: VoiceInputOptions) {}
  on<K extends keyof VoiceInputEventMap>(type: K, listener: (value: VoiceInputEventMap[K]) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener as (value: never) => void);
    return () => set.delete(listener as (value: never) => void);
  }
  emit<K extends keyof VoiceInputEventMap>(type: K, value: VoiceInputEventMap[K]): void {
    for (const listener of this.listeners.get(type) ?? []) (listener as (value: VoiceInputEventMap[K]) => void)(value);
  }
  start(): Promise<void> {
    return this.starting.promise;
  }
  stop(): Promise<VoiceInputResult | null> {
    return this.stopping.promise;
  }
  cancel(): void {
    this.cancelled = true;
  }
  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}

/** A file transcription stream whose events and result the test scripts. */
class ScriptedStream implements TranscriptionEventStream {
  readonly events = new EventQueue<TranscriptionStreamEvent>();
  readonly done = deferred<TranscriptionResponse>();
  readonly result = this.done.promise;
  aborted = false;
  constructor(readonly file: Blob, readonly options: TranscribeOptions | undefined) {
    this.result.catch(() => undefined);
  }
  [Symbol.asyncIterator]() {
    return { next: () => this.events.next() };
  }
  abort(): void {
    this.aborted = true;
    this.events.end();
  }
  /** The server sends `deltas` and is done with their text. */
  finish(...deltas: string[]): void {
    for (const text of deltas) this.events.push({ type: 'transcription.text.delta', text });
    this.events.end();
    this.done.resolve({ model: 'm', text: deltas.join(''), language: 'en', segments: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } });
  }
  /** The connection breaks after `deltas`. */
  breakAfter(...deltas: string[]): void {
    for (const text of deltas) this.events.push({ type: 'transcription.text.delta', text });
    const error = PlatformError.stream('The stream ended early');
    this.events.fail(error);
    this.done.reject(error);
  }
}

function setup(options: { client?: () => Promise<ParleyClientApi> } = {}) {
  const log: string[] = [];
  const voices: ScriptedVoice[] = [];
  const streams: ScriptedStream[] = [];
  const transcription = {
    transcribeStream: (file: Blob, o?: TranscribeOptions) => {
      const stream = new ScriptedStream(file, o);
      streams.push(stream);
      return stream;
    },
  };
  const client = { baseUrl: 'http://relay.test', transcription } as unknown as ParleyClientApi;
  const failures: Parameters<TranscriptionHooks['failed']>[0][] = [];
  const finished: Parameters<TranscriptionHooks['finished']>[0][] = [];
  const hooks: TranscriptionHooks = {
    changed: () => {},
    notice: (notice) => log.push(notice),
    fileTaken: (name) => log.push(`file:${name}`),
    started: (source) => log.push(`started:${source}`),
    partial: (text) => log.push(`partial:${text}`),
    finished: (t) => { finished.push(t); log.push(`finished:${t.text}`); },
    failed: (f) => { failures.push(f); log.push(`failed:${f.kind}`); },
  };
  const session = new TranscriptionSession({
    client: options.client ?? (async () => client),
    voiceInput: async () => (o) => {
      const voice = new ScriptedVoice(o);
      voices.push(voice);
      return voice;
    },
    ...hooks,
  });
  return { session, log, voices, streams, failures, finished };
}

const until = (check: () => boolean) => vi.waitFor(() => expect(check()).toBe(true), { timeout: 2000, interval: 2 });
const audio = (name = 'call.wav') => new File([new Uint8Array(8)], name, { type: 'audio/wav' });

describe('TranscriptionSession: files', () => {
  it('streams a file: taken, started, the growing text, then finished; events in that order', async () => {
    const { session, log, streams, finished } = setup();
    const done = session.transcribeFile(audio(), { language: 'fr', diarize: true });
    expect(session.activity).toBe('file');
    await until(() => streams.length === 1);
    expect(streams[0]!.options).toEqual({ language: 'fr', diarize: true });
    streams[0]!.finish('call me', ' back');
    await done;
    expect(log).toEqual(['file:call.wav', 'started:file', 'partial:call me', 'partial:call me back', 'finished:call me back']);
    expect(finished[0]).toMatchObject({ source: 'file', fileName: 'call.wav', interrupted: false, language: 'en' });
    expect(session.activity).toBe('idle');
    expect(session.liveText).toBe('');
  });

  it('asks for timed segments only without a language (the platform cannot give both)', async () => {
    const { session, streams } = setup();
    void session.transcribeFile(audio(), { timestamps: true });
    await until(() => streams.length === 1);
    expect(streams[0]!.options).toEqual({ timestampGranularities: ['segment'] });
    session.cancel();
    void session.transcribeFile(audio(), { timestamps: true, language: 'en' });
    await until(() => streams.length === 2);
    expect(streams[1]!.options).toEqual({ language: 'en' });
  });

  it('refuses a file that is not audio without sending it', async () => {
    const { session, log, streams, failures } = setup();
    await session.transcribeFile(new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    expect(log).toEqual(['failed:not-audio']);
    expect(failures[0]).toMatchObject({ kind: 'not-audio', detail: 'notes.txt: text/plain', kept: null });
    expect(streams).toHaveLength(0);
    expect(session.activity).toBe('idle');
  });

  it('keeps the text received before the stream broke, as interrupted', async () => {
    const { session, streams, failures } = setup();
    const done = session.transcribeFile(audio());
    await until(() => streams.length === 1);
    streams[0]!.breakAfter('call me');
    await done;
    expect(failures).toHaveLength(1);
    expect(failures[0]!.kind).toBe('interrupted');
    expect(failures[0]!.kept).toMatchObject({ source: 'file', text: 'call me', interrupted: true });
  });

  it('sorts failures: nothing received is platform or network; the cause goes with it (the refused origin is the element’s to tell)', async () => {
    const refused = new PlatformError({ status: 403, type: 'invalid_request_error', code: 'origin_not_allowed', retryAfter: null, message: 'no' });
    for (const [thrown, kind] of [
      [new PlatformError({ status: 422, type: 'invalid_request_error', code: null, retryAfter: null, message: 'no-such-model' }), 'platform'],
      [PlatformError.network(new Error('offline')), 'network'],
      [refused, 'platform'],
    ] as const) {
      const { session, failures } = setup({ client: async () => { throw thrown; } });
      await session.transcribeFile(audio());
      expect(failures[0]!.kind).toBe(kind);
      expect(failures[0]!.cause).toBe(thrown);
      expect(failures[0]!.kept).toBe(null);
    }
  });

  it('cancel stops the stream at once; its late words and end are dropped', async () => {
    const { session, log, streams } = setup();
    const done = session.transcribeFile(audio());
    await until(() => streams.length === 1);
    session.cancel();
    expect(streams[0]!.aborted).toBe(true);
    streams[0]!.finish('too late');
    await done;
    expect(log).toEqual(['file:call.wav', 'started:file', 'cancelled']);
    expect(session.activity).toBe('idle');
  });

  it('takes one file at a time', async () => {
    const { session, streams } = setup();
    void session.transcribeFile(audio('a.wav'));
    await session.transcribeFile(audio('b.wav'));
    await until(() => streams.length === 1);
    expect((streams[0]!.file as File).name).toBe('a.wav');
  });
});

describe('TranscriptionSession: the microphone', () => {
  it('records: listening, started, partials, finishing, then the final text', async () => {
    const { session, log, voices, finished } = setup();
    const started = session.startRecording('rt-model');
    expect(session.activity).toBe('starting');
    await until(() => voices.length === 1);
    expect(voices[0]!.options).toMatchObject({ mode: 'continuous', model: 'rt-model' });
    voices[0]!.starting.resolve();
    expect(await started).toBe(true);
    expect(session.activity).toBe('listening');
    voices[0]!.emit('level', 0.5);
    expect(session.level).toBe(0.5);
    voices[0]!.emit('partial', 'the quick');
    voices[0]!.emit('segment', { text: 'the quick', start: 0, end: 1 });
    expect(session.liveSegments).toHaveLength(1);
    const stopped = session.stopRecording();
    expect(session.activity).toBe('finishing');
    expect(session.level).toBe(0);
    voices[0]!.stopping.resolve({ text: 'the quick brown fox', segments: [], language: 'en', durationSeconds: 2 });
    await stopped;
    expect(log).toEqual(['listening', 'started:microphone', 'partial:the quick', 'finishing', 'finished:the quick brown fox']);
    expect(finished[0]).toMatchObject({ source: 'microphone', fileName: null, language: 'en', segments: [{ text: 'the quick' }] });
    expect(voices[0]!.disposed).toBe(true);
    expect(session.activity).toBe('idle');
  });

  it('says when nothing was heard', async () => {
    const { session, log, voices } = setup();
    const started = session.startRecording();
    await until(() => voices.length === 1);
    voices[0]!.starting.resolve();
    await started;
    const stopped = session.stopRecording();
    voices[0]!.stopping.resolve(null);
    await stopped;
    expect(log).toEqual(['listening', 'started:microphone', 'finishing', 'nothingHeard']);
  });

  it('a refused microphone fails with voice input’s kind; a cancelled start reports nothing late', async () => {
    const { session, log, voices } = setup();
    const denied = session.startRecording();
    await until(() => voices.length === 1);
    voices[0]!.starting.reject({ kind: 'permission-denied', message: 'denied' } satisfies VoiceInputError);
    expect(await denied).toBe(false);
    expect(log).toEqual(['failed:permission-denied']);

    const cancelled = session.startRecording();
    await until(() => voices.length === 2);
    session.cancel();
    expect(voices[1]!.cancelled).toBe(true);
    voices[1]!.starting.resolve();
    expect(await cancelled).toBe(false);
    expect(log).toEqual(['failed:permission-denied', 'cancelled']);
    expect(session.activity).toBe('idle');
  });

  it('a failure while listening keeps what was heard, with voice input’s error as its cause', async () => {
    const { session, voices, failures } = setup();
    const started = session.startRecording();
    await until(() => voices.length === 1);
    voices[0]!.starting.resolve();
    await started;
    voices[0]!.emit('partial', 'the quick');
    const refusal = new PlatformError({ status: 403, type: 'invalid_request_error', code: 'origin_not_allowed', retryAfter: null, message: 'no' });
    const error = { kind: 'platform' as const, message: 'refused', cause: refusal };
    voices[0]!.emit('error', error);
    expect(failures[0]).toMatchObject({ kind: 'platform', detail: 'refused', cause: error, kept: { source: 'microphone', text: 'the quick', interrupted: true } });
    expect(session.activity).toBe('idle');
    // The old recording's late events change nothing.
    voices[0]!.emit('error', { kind: 'network', message: 'late' });
    expect(failures).toHaveLength(1);
  });
});
