/**
 * The requests of one `<audio-transcriber>`: a recording from the microphone (voice input, realtime, words
 * while speaking) or an audio file (streamed, words as they are recognised), one at a time. It holds what
 * runs, the words and segments so far and the microphone's level; the latest start wins (a late answer of a
 * cancelled run is dropped), and a failure is sorted into a kind. Its hooks say what happened; the element
 * turns them into words, announcements and events. No DOM: the client and the microphone layer (src/audio/capture,
 * a chunk of its own) come from injected loaders.
 */
import type {
  ParleyClientApi, TranscriptionEventStream, VoiceInputApi, VoiceInputError, VoiceInputErrorKind, VoiceInputOptions, VoiceInputResult,
} from './contracts.js';
import { NETWORK_ERROR, PlatformError, STREAM_ERROR, refusalKind } from './errors.js';
import { LatestRun, type RunToken } from './latest-run.js';
import type { TranscriptionSegment, TranscriptionSegmentEvent } from './types.js';

/** Where a transcript came from. */
export type TranscriptionSource = 'microphone' | 'file';

/**
 * Why a transcription failed: the microphone kinds of voice input, plus `not-audio` (a file that is
 * not audio, or one the relay or platform refuses by type), `too-large` (a file over the relay's or the
 * platform's size limit), `interrupted` (the stream broke; the text received so far is kept) and `not-available`
 * (the relay does not serve this page's origin, or refuses the model or scope: the console names the setting).
 */
export type TranscriptionErrorKind = VoiceInputErrorKind | 'not-audio' | 'too-large' | 'interrupted' | 'not-available';

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

/**
 * A failed transcription. Its kind is never `not-available`: whether `cause` is the relay's refusal of the page's
 * origin is the element's to see, as it tells the page (`parley-error`) and the visitor differently.
 */
export interface TranscriptionFailure {
  kind: Exclude<TranscriptionErrorKind, 'not-available'>;
  /** The platform's or the browser's own words, for the site owner (`name: type` for a file that is not audio). */
  detail: string;
  /** What was thrown (the relay's refusal of the page's origin, maybe, or what caused it). */
  cause: unknown;
  /** The text heard before the failure (`interrupted`), or null when there was none. */
  kept: Transcription | null;
}

/**
 * What to tell the visitor: recording started (`listening`), it is stopping and its final text is on its
 * way (`finishing`), it stopped with nothing heard (`nothingHeard`), or what ran was cancelled.
 */
export type TranscriptionNotice = 'listening' | 'finishing' | 'nothingHeard' | 'cancelled';

/** What the session tells its element. */
export interface TranscriptionHooks {
  /** Something shown changed: the activity, the words or segments so far, the level. */
  changed(): void;
  notice(notice: TranscriptionNotice): void;
  /** A file was taken (`name`) and is being sent. */
  fileTaken(name: string): void;
  /** Recording started (listening), or the file's transcription stream opened. */
  started(source: TranscriptionSource): void;
  /** The words so far (the whole text, not a delta). */
  partial(text: string): void;
  finished(transcription: Transcription): void;
  failed(failure: TranscriptionFailure): void;
}

/** What the session needs: where requests go, the microphone layer, and whom to tell (its hooks). */
export interface TranscriptionSessionOptions extends TranscriptionHooks {
  client(): Promise<ParleyClientApi>;
  /** Loads voice input's factory (`createVoiceInput` of src/audio/capture) on the first recording. */
  voiceInput(): Promise<(options: VoiceInputOptions) => VoiceInputApi>;
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
  readonly #hooks: TranscriptionSessionOptions;
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
    this.#hooks = options;
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
    const run = this.#begin('starting');
    try {
      const [client, createVoiceInput] = await Promise.all([this.#hooks.client(), this.#hooks.voiceInput()]);
      if (!run.current()) return false;
      const voice = createVoiceInput({ client, mode: 'continuous', ...(model ? { model } : {}) });
      this.#voice = voice;
      this.#voiceListeners = [
        voice.on('level', (level) => {
          this.#level = level;
          this.#hooks.changed();
        }),
        voice.on('partial', (text) => this.#showPartial(text)),
        voice.on('segment', (segment) => this.#addSegment(segment)),
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
    this.#hooks.notice('listening');
    this.#hooks.started('microphone');
    return true;
  }

  /** Stops recording; the final text is reported through `finished` (or the `nothingHeard` notice). */
  async stopRecording(): Promise<void> {
    const voice = this.#voice;
    if (!voice || this.#activity !== 'listening') return;
    const run = this.#runs.now();
    this.#level = 0;
    this.#set('finishing');
    this.#hooks.notice('finishing');
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
    this.#end();
    const text = (result?.text ?? heard).trim();
    if (!text) {
      this.#hooks.notice('nothingHeard');
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
    const name = (file as File).name || 'audio';
    if (file.type && !/^(audio|video)\//.test(file.type)) {
      this.#hooks.failed({ kind: 'not-audio', detail: `${name}: ${file.type}`, cause: null, kept: null });
      return;
    }
    const run = this.#begin('file');
    this.#hooks.fileTaken(name);
    try {
      const { transcription } = await this.#hooks.client();
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
      let detected: string | null = null;
      for await (const event of stream) {
        if (!run.current()) return;
        if (event.type === 'transcription.text.delta') this.#showPartial(this.#liveText + event.text);
        else if (event.type === 'transcription.segment') this.#addSegment(event);
        else if (event.type === 'transcription.language') detected = event.audio_language;
      }
      const result = await stream.result;
      if (!run.current()) return;
      const text = this.#liveText;
      const segments = this.#liveSegments;
      this.#end();
      this.#hooks.finished({
        source: 'file', fileName: name, interrupted: false, text: (result.text || text).trim(),
        segments: result.segments.length ? result.segments : segments, language: result.language ?? detected,
      });
    } catch (error) {
      if (!run.current()) return;
      const e = PlatformError.from(error);
      const received = this.#liveText.trim() !== '';
      // A refused type or size cannot be helped by trying again: the visitor is told which (client/errors.ts refusalKind).
      const refused = refusalKind(e);
      const kind = refused === 'type' ? 'not-audio' : refused === 'too-large' ? 'too-large'
        : received && (e.type === STREAM_ERROR || e.type === NETWORK_ERROR) ? 'interrupted' : e.type === NETWORK_ERROR ? 'network' : 'platform';
      this.#fail(kind, e.message, e, name);
    }
  }

  /** Stops whatever runs at once (a recording without its final text, or a file); nothing is reported but the `cancelled` notice. */
  cancel(): void {
    const active = this.#activity !== 'idle';
    this.#runs.cancel();
    this.#fileStream?.abort();
    this.#end();
    if (active) this.#hooks.notice('cancelled');
  }

  /** Starts a recording or a file: every earlier one is stale, and nothing is heard yet. */
  #begin(activity: TranscriptionActivity): RunToken {
    const run = this.#runs.next();
    this.#liveText = '';
    this.#liveSegments = [];
    this.#set(activity);
    return run;
  }

  /** Ends what ran (the caller made it stale, or reports its end): the file stream, the microphone and the live words go. */
  #end(): void {
    this.#fileStream = null;
    this.#releaseVoice();
    this.#set('idle');
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

  /** A segment of voice input, or a file stream's `transcription.segment` event, as a transcription segment. */
  #addSegment(segment: Omit<TranscriptionSegment, 'type'> | TranscriptionSegmentEvent): void {
    this.#liveSegments = [...this.#liveSegments, { ...segment, type: 'transcription_segment' }];
    this.#hooks.changed();
  }

  #failRecording(error: VoiceInputError): void {
    this.#fail(error.kind, error.message, error, null);
  }

  /** Ends what ran with a failure; the words heard so far are kept, as interrupted. */
  #fail(kind: TranscriptionFailure['kind'], detail: string, cause: unknown, fileName: string | null): void {
    const text = this.#liveText.trim();
    const segments = this.#liveSegments;
    this.#runs.cancel();
    this.#end();
    this.#hooks.failed({
      kind, detail, cause,
      kept: text ? { source: fileName === null ? 'microphone' : 'file', fileName, text, segments, language: null, interrupted: true } : null,
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

/** A failure of voice input as the element shows it: voice input's own errors as they are, the rest by their kind. */
function asVoiceError(error: unknown): VoiceInputError {
  if (error && typeof error === 'object' && typeof (error as VoiceInputError).kind === 'string' && typeof (error as VoiceInputError).message === 'string') {
    return error as VoiceInputError;
  }
  const e = PlatformError.from(error);
  return { kind: e.type === NETWORK_ERROR ? 'network' : 'platform', message: e.message, cause: error };
}
