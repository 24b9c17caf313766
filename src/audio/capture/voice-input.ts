/**
 * Voice input for the elements: microphone capture + level meter + voice activity detection + realtime
 * transcription, behind the `VoiceInputApi` contract (src/client/contracts.ts, "voice input").
 *
 * `start()` opens the microphone, then `client.transcription.realtime({ sampleRate: 16000 })`; audio
 * captured while the socket opens is kept and sent first, so the first words are not lost. Text deltas
 * become `partial` (the whole text so far), segments become `segment`; `stop()` sends `input_audio.end`
 * and resolves with the `transcription.done` text. In `utterance` mode the end of speech (VAD) stops it.
 *
 * Fallback: when the realtime session cannot be opened (a relay without the WebSocket route answers 404,
 * the socket fails, it is not open within 5 s, the server will not take 16 kHz s16), the 16 kHz PCM is recorded instead and, on
 * finishing, sent as a WAV through `client.transcription.transcribeStream()`; its deltas still give
 * `partial`. A connection lost mid-stream gives an `error` of kind `network`, and the text received so
 * far is kept in the last `partial` and in the `final` (state `error` afterwards).
 *
 * Timings for benchmarks (User Timing, no extra API): `parley-voice:speech-end` (startTime = when the last
 * voiced audio was captured), `parley-voice:speechend` (when the VAD decided, `endOfUtteranceMs` later),
 * `parley-voice:final` (the final text emitted) and the measure `parley-voice:speech-end-to-final`.
 * Events are emitted synchronously, so `performance.now()` in a listener is the event's time too.
 */
import type {
  TranscriptionApi, RealtimeTranscriptionSession, VoiceInputApi, VoiceInputEventMap, VoiceInputOptions, VoiceInputResult, VoiceInputState,
} from '../../client/contracts.js';
import { LatestRun, type RunToken } from '../../client/latest-run.js';
import type { RealtimeServerEvent, TranscriptionResponse, TranscriptionSegment } from '../../client/types.js';
import { rms, meterLevel, toDbfs } from './level.js';
import { CAPTURE_SAMPLE_RATE, MicCapture, type MicCaptureOptions } from './mic-capture.js';
import { VoiceActivityDetector } from './vad.js';
import { VoiceInputFailure, microphoneFailure, transcriptionFailure } from './voice-input-error.js';
import { encodeWav } from './wav.js';

/** What {@link createVoiceInput} needs from a microphone (the default is {@link MicCapture.open}). */
export interface VoiceInputMicrophone {
  stop(options?: { flush?: boolean }): Promise<void>;
}

/** Replaceable parts of {@link createVoiceInput}, for tests and hosts with their own audio source. */
export interface VoiceInputDependencies {
  /** Opens the microphone; chunks must be s16 mono at 16 kHz. Default {@link MicCapture.open}. */
  openMicrophone?: (options: MicCaptureOptions) => Promise<VoiceInputMicrophone>;
}

/** Names of the User Timing entries written by voice input. */
export const VOICE_TIMING = {
  speechStart: 'parley-voice:speechstart',
  speechEnd: 'parley-voice:speech-end',
  speechEndDetected: 'parley-voice:speechend',
  final: 'parley-voice:final',
  speechEndToFinal: 'parley-voice:speech-end-to-final',
} as const;

/** How long the realtime session may take to open before the file fallback is used instead. */
const REALTIME_OPEN_TIMEOUT_MS = 5000;

type Listener<K extends keyof VoiceInputEventMap> = (value: VoiceInputEventMap[K]) => void;

/**
 * Creates a voice input controller (nothing is opened until `start()`).
 * @example
 * const voice = createVoiceInput({ client, mode: 'utterance' });
 * voice.on('partial', (text) => (field.value = text));
 * button.onclick = () => voice.start();           // in the gesture: the browser asks for the microphone
 * voice.on('final', ({ text }) => send(text));
 */
export function createVoiceInput(options: VoiceInputOptions, dependencies: VoiceInputDependencies = {}): VoiceInputApi {
  return new VoiceInput(options, dependencies);
}

class VoiceInput implements VoiceInputApi {
  readonly #options: VoiceInputOptions;
  readonly #openMicrophone: (options: MicCaptureOptions) => Promise<VoiceInputMicrophone>;
  readonly #listeners = new Map<keyof VoiceInputEventMap, Set<Listener<never>>>();
  #state: VoiceInputState = 'idle';
  #disposed = false;
  /** A run per recording, made stale by cancel(): callbacks of an older recording do nothing. */
  readonly #recordings = new LatestRun();
  #abort: AbortController | null = null;
  #microphone: VoiceInputMicrophone | null = null;
  #session: RealtimeTranscriptionSession | null = null;
  /** Audio not sent to a realtime session (all of it in the file fallback). */
  #pending: Int16Array[] = [];
  #transport: 'connecting' | 'realtime' | 'file' = 'connecting';
  #samples = 0;
  #vad: VoiceActivityDetector | null = null;
  #text = '';
  #segments: TranscriptionSegment[] = [];
  #language: string | null = null;
  #failure: VoiceInputFailure | null = null;
  #ending = false;
  #starting: Promise<void> | null = null;
  #finishing: Promise<VoiceInputResult | null> | null = null;
  #noSpeechTimer: ReturnType<typeof setTimeout> | null = null;
  #lastVoicedAt: number | null = null;
  #caughtUp: Promise<void> = Promise.resolve();

  constructor(options: VoiceInputOptions, dependencies: VoiceInputDependencies) {
    this.#options = options;
    this.#openMicrophone = dependencies.openMicrophone ?? ((capture) => MicCapture.open(capture));
  }

  /** Whether the end of speech ends the recording (`utterance` mode, the default). */
  get #utterance(): boolean {
    return (this.#options.mode ?? 'utterance') === 'utterance';
  }

  get state(): VoiceInputState {
    return this.#state;
  }

  on<K extends keyof VoiceInputEventMap>(type: K, listener: Listener<K>): () => void {
    let set = this.#listeners.get(type);
    if (!set) this.#listeners.set(type, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  start(): Promise<void> {
    if (this.#disposed) return Promise.reject(new Error('This voice input was disposed'));
    if (this.#state === 'starting' || this.#state === 'listening' || this.#state === 'finishing') {
      return Promise.reject(new Error(`Voice input is already ${this.#state}; call stop() or cancel() first`));
    }
    this.#starting = this.#start(this.#recordings.next());
    return this.#starting;
  }

  async #start(recording: RunToken): Promise<void> {
    this.#reset();
    this.#setState('starting');
    const transcription = this.#options.client.transcription;
    if (!transcription) {
      throw this.#failStart(new VoiceInputFailure('unsupported', 'This client cannot transcribe speech (it has no `transcription` API); update parley-kit.'));
    }
    const abort = (this.#abort = new AbortController());
    let microphone: VoiceInputMicrophone;
    try {
      microphone = await this.#openMicrophone({
        onChunk: (samples) => this.#onChunk(recording, samples),
        onEnded: (failure) => this.#failMidway(recording, failure),
        echoCancellation: this.#options.echoCancellation,
        noiseSuppression: this.#options.noiseSuppression,
        autoGainControl: this.#options.autoGainControl,
        deviceId: this.#options.deviceId,
        sampleRate: CAPTURE_SAMPLE_RATE,
      });
    } catch (error) {
      if (!recording.current()) return;
      throw this.#failStart(microphoneFailure(error));
    }
    if (!recording.current()) {
      void microphone.stop({ flush: false });
      return;
    }
    this.#microphone = microphone;
    await this.#openSession(recording, transcription, abort.signal);
    if (!recording.current() || this.#state !== 'starting') return;
    this.#setState('listening');
    const timeout = this.#options.noSpeechTimeoutMs ?? 8000;
    if (this.#utterance && timeout > 0 && !this.#vad?.speaking) {
      this.#noSpeechTimer = setTimeout(() => void this.stop(), timeout);
    }
  }

  /** Opens the realtime session, or settles for the file fallback. */
  async #openSession(recording: RunToken, transcription: TranscriptionApi, signal: AbortSignal): Promise<void> {
    // A server that never answers the upgrade must not keep the user waiting: give up after a while.
    const opening = new AbortController();
    const timer = setTimeout(() => opening.abort(), REALTIME_OPEN_TIMEOUT_MS);
    const cancelOpening = () => opening.abort();
    signal.addEventListener('abort', cancelOpening, { once: true });
    let session: RealtimeTranscriptionSession;
    try {
      session = await transcription.realtime({
        sampleRate: CAPTURE_SAMPLE_RATE,
        signal: opening.signal,
        ...(this.#options.model ? { model: this.#options.model } : {}),
      });
    } catch {
      // No realtime route (404), no WebSocket, refused token, no answer…: transcribe the recording as a file instead.
      if (recording.current()) this.#transport = 'file';
      return;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', cancelOpening);
    }
    const format = session.info.audio_format;
    if (!recording.current() || format.encoding !== 'pcm_s16le' || format.sample_rate !== CAPTURE_SAMPLE_RATE) {
      session.close();
      if (recording.current()) this.#transport = 'file';
      return;
    }
    this.#session = session;
    this.#transport = 'realtime';
    for (const chunk of this.#pending.splice(0)) session.append(chunk);
    this.#read(recording, session);
  }

  /** Reads the session's events until it closes; `#caughtUp` settles once `transcription.done` was handled or reading stopped. */
  #read(recording: RunToken, session: RealtimeTranscriptionSession): void {
    let caughtUp!: () => void;
    this.#caughtUp = new Promise<void>((resolve) => { caughtUp = resolve; });
    void this.#readEvents(recording, session, caughtUp).finally(caughtUp);
  }

  async #readEvents(recording: RunToken, session: RealtimeTranscriptionSession, caughtUp: () => void): Promise<void> {
    let done = false;
    try {
      for await (const event of session) {
        if (!recording.current()) return;
        if (event.type === 'error') {
          const message = typeof event.error.message === 'string' ? event.error.message : JSON.stringify(event.error.message);
          this.#failMidway(recording, new VoiceInputFailure('platform', `Transcription failed: ${message}`, event));
          return;
        }
        this.#handle(event);
        if (event.type === 'transcription.done') {
          done = true;
          caughtUp();
        }
      }
    } catch (error) {
      if (!this.#ending) this.#failMidway(recording, transcriptionFailure(error));
      return;
    }
    if (!done && !this.#ending) {
      this.#failMidway(recording, new VoiceInputFailure('network', 'The connection to the transcription service closed before the text was complete.'));
    }
  }

  #handle(event: RealtimeServerEvent): void {
    switch (event.type) {
      case 'transcription.language':
        this.#language = event.audio_language;
        break;
      case 'transcription.text.delta':
        this.#text += event.text;
        this.#emit('partial', this.#text);
        break;
      case 'transcription.segment': {
        const { text, start, end, speaker_id } = event;
        const segment = { text, start, end, ...(speaker_id !== undefined ? { speaker_id } : {}) };
        this.#segments.push({ type: 'transcription_segment', ...segment });
        this.#emit('segment', segment);
        break;
      }
      default:
        break;
    }
  }

  #onChunk(recording: RunToken, samples: Int16Array): void {
    if (!recording.current()) return;
    this.#samples += samples.length;
    if (this.#transport === 'realtime' && this.#session && !this.#session.closed) this.#session.append(samples);
    else if (this.#transport !== 'realtime') this.#pending.push(samples);
    if (this.#state !== 'starting' && this.#state !== 'listening') return;
    this.#emit('level', meterLevel(toDbfs(rms(samples))));
    const vad = (this.#vad ??= new VoiceActivityDetector(CAPTURE_SAMPLE_RATE, { endOfUtteranceMs: this.#options.endOfUtteranceMs }));
    const event = vad.push(samples);
    if (!event) return;
    const now = performance.now();
    if (event.type === 'speechstart') {
      this.#clearNoSpeechTimer();
      mark(VOICE_TIMING.speechStart, now - (event.atMs - event.startMs));
      this.#emit('speechstart', undefined);
      return;
    }
    this.#lastVoicedAt = now - (event.atMs - event.lastVoicedMs);
    mark(VOICE_TIMING.speechEnd, this.#lastVoicedAt);
    mark(VOICE_TIMING.speechEndDetected, now);
    this.#emit('speechend', undefined);
    if (this.#utterance) void this.stop();
  }

  stop(): Promise<VoiceInputResult | null> {
    if (this.#finishing) return this.#finishing;
    if (this.#state !== 'starting' && this.#state !== 'listening') return Promise.resolve(null);
    this.#finishing = this.#finish(this.#recordings.now());
    return this.#finishing;
  }

  async #finish(recording: RunToken): Promise<VoiceInputResult | null> {
    await this.#starting?.catch(() => {});
    if (!recording.current()) return null;
    if (this.#state !== 'listening') {
      this.#finishing = null; // start() failed: nothing to finish
      return null;
    }
    this.#clearNoSpeechTimer();
    this.#setState('finishing');
    await this.#microphone?.stop();
    if (!recording.current()) return null;
    let response: TranscriptionResponse | null = null;
    // After a transport failure only the text received so far counts; after a microphone failure the audio
    // recorded so far is still transcribed.
    if (!this.#failure || this.#failure.kind === 'microphone-busy') {
      try {
        response = this.#transport === 'realtime' ? await this.#endSession() : await this.#transcribeRecording(recording);
      } catch (error) {
        if (!recording.current()) return null;
        this.#fail(transcriptionFailure(error));
      }
    }
    if (!recording.current()) return null;
    this.#session?.close();
    const text = (response?.text ?? this.#text).trim();
    const result: VoiceInputResult | null = text
      ? {
        text,
        segments: response?.segments.length ? response.segments : this.#segments,
        language: response?.language ?? this.#language,
        durationSeconds: this.#samples / CAPTURE_SAMPLE_RATE,
      }
      : null;
    if (result) {
      const now = performance.now();
      mark(VOICE_TIMING.final, now);
      if (this.#lastVoicedAt !== null && typeof performance.measure === 'function') {
        performance.measure(VOICE_TIMING.speechEndToFinal, { start: Math.max(0, this.#lastVoicedAt), end: now });
      }
      this.#emit('final', result);
    }
    this.#setState(this.#failure ? 'error' : 'idle');
    this.#finishing = null;
    return result;
  }

  async #endSession(): Promise<TranscriptionResponse> {
    this.#ending = true;
    const response = await this.#session!.end();
    await this.#caughtUp; // the deltas before `transcription.done` become partials before the final
    return response;
  }

  /** The file fallback: the recording as a WAV through the streamed file transcription. */
  async #transcribeRecording(recording: RunToken): Promise<TranscriptionResponse | null> {
    if (this.#samples === 0) return null;
    const pcm = new Int16Array(this.#samples);
    let offset = 0;
    for (const chunk of this.#pending.splice(0)) {
      pcm.set(chunk, offset);
      offset += chunk.length;
    }
    const file = new Blob([encodeWav(pcm, CAPTURE_SAMPLE_RATE)], { type: 'audio/wav' });
    const stream = this.#options.client.transcription!.transcribeStream(file, { filename: 'speech.wav', signal: this.#abort?.signal });
    for await (const event of stream) {
      if (!recording.current()) return null;
      this.#handle(event);
    }
    return stream.result;
  }

  cancel(): void {
    this.#recordings.cancel();
    this.#clearNoSpeechTimer();
    this.#abort?.abort();
    this.#session?.close();
    void this.#microphone?.stop({ flush: false });
    this.#microphone = null;
    this.#session = null;
    this.#finishing = null;
    if (this.#state !== 'idle') this.#setState('idle');
  }

  dispose(): void {
    this.cancel();
    this.#listeners.clear();
    this.#disposed = true;
  }

  #reset(): void {
    this.#microphone = null;
    this.#session = null;
    this.#pending = [];
    this.#transport = 'connecting';
    this.#samples = 0;
    this.#vad = null;
    this.#text = '';
    this.#segments = [];
    this.#language = null;
    this.#failure = null;
    this.#ending = false;
    this.#finishing = null;
    this.#lastVoicedAt = null;
    this.#caughtUp = Promise.resolve();
  }

  /** A failure before listening: error state, `error` event, and the failure for start() to reject with. */
  #failStart(failure: VoiceInputFailure): VoiceInputFailure {
    this.#abort?.abort();
    this.#fail(failure);
    this.#setState('error');
    return failure;
  }

  /** A failure while listening (socket lost, server error, microphone gone): finish with the text so far. */
  #failMidway(recording: RunToken, failure: VoiceInputFailure): void {
    if (!recording.current() || this.#failure) return;
    this.#fail(failure);
    if (this.#state === 'starting' || this.#state === 'listening') void this.stop();
  }

  #fail(failure: VoiceInputFailure): void {
    if (this.#failure) return;
    this.#failure = failure;
    this.#emit('error', failure.toJSON());
  }

  #clearNoSpeechTimer(): void {
    if (this.#noSpeechTimer !== null) clearTimeout(this.#noSpeechTimer);
    this.#noSpeechTimer = null;
  }

  #setState(state: VoiceInputState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#emit('state', state);
  }

  #emit<K extends keyof VoiceInputEventMap>(type: K, value: VoiceInputEventMap[K]): void {
    for (const listener of [...(this.#listeners.get(type) ?? [])]) {
      try {
        (listener as Listener<K>)(value);
      } catch (error) {
        setTimeout(() => {
          throw error; // a listener's bug is reported like an event handler's, without stopping the recording
        });
      }
    }
  }
}

/** A User Timing mark at `startTime` (not before the time origin), where the platform has User Timing. */
function mark(name: string, startTime: number): void {
  if (typeof performance.mark === 'function') performance.mark(name, { startTime: Math.max(0, startTime) });
}
