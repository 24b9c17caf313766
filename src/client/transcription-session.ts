/**
 * The requests of one `<audio-transcriber>`: a recording from the microphone (voice input, realtime, words
 * while speaking) or an audio file (streamed, words as they are recognised), one at a time. It holds what
 * runs, the words and segments so far and the microphone's level; the latest start wins (a late answer of a
 * cancelled run is dropped), and a failure is sorted into a kind. Its hooks say what happened; the element
 * turns them into words, announcements and events. No DOM: the client and the microphone layer (src/audio/capture,
 * a chunk of its own) come from injected loaders.
 */
import type {
  ParleyClientApi, TranscriptionApi, TranscriptionEventStream, VoiceInputApi, VoiceInputError, VoiceInputErrorKind, VoiceInputOptions, VoiceInputResult,
} from './contracts.js';
import { NETWORK_ERROR, PlatformError, STREAM_ERROR, isOriginRefusal } from './errors.js';
import { LatestRun } from './latest-run.js';
import type { TranscriptionSegment } from './types.js';

/** Where a transcript came from. */
export type TranscriptionSource = 'microphone' | 'file';

/**
 * Why a transcription failed: the microphone kinds of voice input, plus `not-audio` (a file that is
 * not audio), `interrupted` (the stream broke; the text received so far is kept) and `not-available`
 * (the relay does not serve this page's origin: `parley-error` carries the details).
 */
export type TranscriptionErrorKind = VoiceInputErrorKind | 'not-audio' | 'interrupted' | 'not-available';

/** What runs: nothing, a recording (`starting`, `listening`, `finishing`) or a file. */
export type TranscriptionActivity = 'idle' | 'starting' | 'listening' | 'finishing' | 'file';

/** A finished (or interrupted) transcription: one recording or one file. */
export interface Transcription {
  source: TranscriptionSource;
  /** The file's name (`audio` for a Blob without one); null for the microphone. */
  fileName: string | null;
  text: string;
  segments: TranscriptionSegment[];
  language: string | null;
  /** The stream broke: `text` is what arrived before. */
  interrupted: boolean;
}

/** A failed transcription. */
export interface TranscriptionFailure {
  kind: TranscriptionErrorKind;
  /** The platform's or the browser's own words, for the site owner (`name: type` for a file that is not audio). */
  detail: string;
  /** What was thrown: for `not-available`, it carries the relay's refusal. */
  cause: unknown;
  /** The text heard before the failure (`interrupted`), or null when there was none. */
  kept: Transcription | null;
}

/** What the session tells its element. */
export interface TranscriptionHooks {
  /** Something shown changed: the activity, the words or segments so far, the level. */
  changed(): void;
  /** A file was taken (`name`) and is being sent. */
  fileTaken(name: string): void;
  /** Recording started (listening), or the file's transcription stream opened. */
  started(source: TranscriptionSource): void;
  /** The words so far (the whole text, not a delta). */
  partial(text: string): void;
  /** The recording is stopping: its final text is on its way. */
  finishing(): void;
  /** The recording stopped with nothing heard. */
  nothingHeard(): void;
  finished(transcription: Transcription): void;
  failed(failure: TranscriptionFailure): void;
  /** What ran was cancelled (nothing is added). */
  cancelled(): void;
}

/** What the session needs: where requests go, the microphone layer, and who is told. */
export interface TranscriptionSessionOptions {
  client(): Promise<ParleyClientApi>;
  /** Loads voice input's factory (`createVoiceInput` of src/audio/capture) on the first recording. */
  voiceInput(): Promise<(options: VoiceInputOptions) => VoiceInputApi>;
  hooks: TranscriptionHooks;
}

/** Options of a file's transcription (the element's attributes). */
export interface FileTranscriptionOptions {
  model?: string;
  /** e.g. `en`; empty lets the platform detect it. */
  language?: string;
  diarize?: boolean;
  /** Ask for timed segments (only without a language: the platform cannot give both, and the language wins). */
  timestamps?: boolean;
}

/** See the module comment. */
export class TranscriptionSession {
  readonly #options: TranscriptionSessionOptions;
  readonly #hooks: TranscriptionHooks;
  /** Every start, stop and cancel: late answers of an older activity are ignored. */
  readonly #runs = new LatestRun();
  #activity: TranscriptionActivity = 'idle';
  #liveText = '';
  #liveSegments: TranscriptionSegment[] = [];
  #level = 0;
  #voice: VoiceInputApi | null = null;
  #voiceListeners: Array<() => void> = [];
  #fileStream: TranscriptionEventStream | null = null;

  constructor(options: TranscriptionSessionOptions) {
    this.#options = options;
    this.#hooks = options.hooks;
  }

  get activity(): TranscriptionActivity {
    return this.#activity;
  }

  /** The words recognised so far in this recording or file. */
  get liveText(): string {
    return this.#liveText;
  }

  /** The segments recognised so far in this recording or file. */
  get liveSegments(): readonly TranscriptionSegment[] {
    return this.#liveSegments;
  }

  /** The microphone's level, 0–1, while recording. */
  get level(): number {
    return this.#level;
  }

  /**
   * Starts recording with the realtime `model` (default: the client's); the browser asks for the
   * microphone. Resolves true once listening, false when it failed or was cancelled first.
   */
  async startRecording(model = ''): Promise<boolean> {
    if (this.#activity !== 'idle') return false;
    const run = this.#runs.next();
    this.#liveText = '';
    this.#liveSegments = [];
    this.#set('starting');
    try {
      const [client, createVoiceInput] = await Promise.all([this.#options.client(), this.#options.voiceInput()]);
      if (!run.current()) return false;
      const voice = createVoiceInput({ client, mode: 'continuous', ...(model ? { model } : {}) });
      this.#voice = voice;
      this.#voiceListeners = [
        voice.on('level', (level) => {
          this.#level = level;
          this.#hooks.changed();
        }),
        voice.on('partial', (text) => this.#showPartial(text)),
        voice.on('segment', (s) => {
          this.#liveSegments = [...this.#liveSegments, { type: 'transcription_segment', ...s }];
          this.#hooks.changed();
        }),
        voice.on('error', (error) => {
          if (run.current()) this.#failRecording(error);
        }),
      ];
      await voice.start();
    } catch (error) {
      if (run.current()) this.#failRecording(asVoiceError(error));
      return false;
    }
    if (!run.current()) return false;
    this.#set('listening');
    this.#hooks.started('microphone');
    return true;
  }

  /** Stops recording; the final text is reported through `finished` (or `nothingHeard`). */
  async stopRecording(): Promise<void> {
    const voice = this.#voice;
    if (!voice || this.#activity !== 'listening') return;
    const run = this.#runs.now();
    this.#level = 0;
    this.#set('finishing');
    this.#hooks.finishing();
    let result: VoiceInputResult | null;
    try {
      result = await voice.stop();
    } catch (error) {
      if (run.current()) this.#failRecording(asVoiceError(error));
      return;
    }
    if (!run.current()) return;
    const heard = this.#liveText;
    const segments = this.#liveSegments;
    this.#releaseVoice();
    this.#set('idle');
    const text = (result?.text ?? heard).trim();
    if (!text) {
      this.#hooks.nothingHeard();
      return;
    }
    this.#hooks.finished({
      source: 'microphone', fileName: null, text, interrupted: false,
      segments: result?.segments.length ? result.segments : segments, language: result?.language ?? null,
    });
  }

  /** Transcribes an audio file, streamed: its words are reported as they are recognised. */
  async transcribeFile(file: Blob, options: FileTranscriptionOptions = {}): Promise<void> {
    if (this.#activity !== 'idle') return;
    const name = typeof File !== 'undefined' && file instanceof File ? file.name : 'audio';
    if (file.type && !/^(audio|video)\//.test(file.type)) {
      this.#hooks.failed({ kind: 'not-audio', detail: `${name}: ${file.type}`, cause: null, kept: null });
      return;
    }
    const run = this.#runs.next();
    this.#liveText = '';
    this.#liveSegments = [];
    this.#set('file');
    this.#hooks.fileTaken(name);
    let transcription: TranscriptionApi;
    try {
      transcription = transcriptionOf(await this.#options.client());
    } catch (error) {
      if (run.current()) this.#failFile(error, '', [], name);
      return;
    }
    if (!run.current()) return;
    const { model, language, diarize, timestamps } = options;
    const stream = transcription.transcribeStream(file, {
      ...(model ? { model } : {}),
      ...(language ? { language } : {}),
      ...(diarize ? { diarize: true } : {}),
      // The platform refuses a language together with timestamps: a language the user chose wins (the picker says so).
      ...(timestamps && !language ? { timestampGranularities: ['segment' as const] } : {}),
    });
    stream.result.catch(() => undefined); // awaited below; a failure is also thrown by the iteration
    this.#fileStream = stream;
    this.#hooks.started('file');
    let text = '';
    let detected: string | null = null;
    const segments: TranscriptionSegment[] = [];
    try {
      for await (const event of stream) {
        if (!run.current()) return;
        if (event.type === 'transcription.text.delta') {
          text += event.text;
          this.#showPartial(text);
        } else if (event.type === 'transcription.segment') {
          const { type: _event, ...segment } = event;
          segments.push({ type: 'transcription_segment', ...segment });
          this.#liveSegments = [...segments];
          this.#hooks.changed();
        } else if (event.type === 'transcription.language') detected = event.audio_language;
      }
      const result = await stream.result;
      if (!run.current()) return;
      this.#fileStream = null;
      this.#liveText = '';
      this.#liveSegments = [];
      this.#set('idle');
      this.#hooks.finished({
        source: 'file', fileName: name, interrupted: false, text: (result.text || text).trim(),
        segments: result.segments.length ? result.segments : segments, language: result.language ?? detected,
      });
    } catch (error) {
      if (run.current()) this.#failFile(error, text, segments, name);
    }
  }

  /** Stops whatever runs at once (a recording without its final text, or a file); nothing is reported but `cancelled`. */
  cancel(): void {
    const active = this.#activity !== 'idle';
    this.#runs.cancel();
    this.#fileStream?.abort();
    this.#fileStream = null;
    this.#releaseVoice();
    this.#set('idle');
    if (active) this.#hooks.cancelled();
  }

  #set(activity: TranscriptionActivity): void {
    this.#activity = activity;
    this.#hooks.changed();
  }

  #showPartial(text: string): void {
    this.#liveText = text;
    this.#hooks.changed();
    this.#hooks.partial(text);
  }

  #failRecording(error: VoiceInputError): void {
    const heard = this.#liveText.trim();
    const segments = this.#liveSegments;
    this.#runs.cancel();
    this.#releaseVoice();
    this.#set('idle');
    this.#hooks.failed({
      kind: refusesOrigin(error) ? 'not-available' : error.kind, detail: error.message, cause: error,
      kept: heard ? { source: 'microphone', fileName: null, text: heard, segments, language: null, interrupted: true } : null,
    });
  }

  #failFile(error: unknown, text: string, segments: TranscriptionSegment[], name: string): void {
    this.#runs.cancel();
    this.#fileStream = null;
    this.#liveText = '';
    this.#liveSegments = [];
    this.#set('idle');
    const e = PlatformError.from(error);
    const received = text.trim();
    const kind: TranscriptionErrorKind = isOriginRefusal(e) ? 'not-available'
      : received && (e.type === STREAM_ERROR || e.type === NETWORK_ERROR) ? 'interrupted'
        : e.type === NETWORK_ERROR ? 'network' : 'platform';
    this.#hooks.failed({
      kind, detail: e.message, cause: e,
      kept: received ? { source: 'file', fileName: name, text: received, segments, language: null, interrupted: true } : null,
    });
  }

  #releaseVoice(): void {
    for (const off of this.#voiceListeners) off();
    this.#voiceListeners = [];
    this.#voice?.cancel();
    this.#voice?.dispose();
    this.#voice = null;
    this.#liveText = '';
    this.#liveSegments = [];
    this.#level = 0;
  }
}

/** The client's transcription API, or a clear error when this client has none. */
function transcriptionOf(client: ParleyClientApi): TranscriptionApi {
  if (!client.transcription) {
    throw new PlatformError({ status: 0, type: 'client_error', code: null, retryAfter: null, message: 'this client cannot transcribe' });
  }
  return client.transcription;
}

/** A failure of voice input as the element shows it: voice input's own errors as they are, the rest by their kind. */
function asVoiceError(error: unknown): VoiceInputError {
  if (error && typeof error === 'object' && typeof (error as VoiceInputError).kind === 'string' && typeof (error as VoiceInputError).message === 'string') {
    return error as VoiceInputError;
  }
  const e = PlatformError.from(error);
  return { kind: e.type === NETWORK_ERROR ? 'network' : 'platform', message: e.message, cause: error };
}

/** Whether a voice input error is, or was caused by, the relay's refusal of this page's origin. */
function refusesOrigin(error: VoiceInputError): boolean {
  return isOriginRefusal(error) || isOriginRefusal(error.cause);
}
