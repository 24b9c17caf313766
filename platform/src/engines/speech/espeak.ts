/**
 * espeak-ng speech engine: `@echogarden/espeak-ng-emscripten` (GPL-3.0, an optional dependency loaded
 * lazily) in one warm worker thread, reused across requests with a small FIFO queue.
 *
 * The emscripten `synthesize` call is synchronous and hands out Int16 chunks at 22050 Hz every ~100 ms
 * of audio through a callback; the worker posts each chunk as it comes (transferring its buffer), so the
 * first chunk reaches the request long before synthesis ends. Abort: the worker cannot read messages
 * while `synthesize` runs, so cancellation goes through a SharedArrayBuffer flag the callback checks
 * (returning true stops espeak). The main thread resamples to 24 kHz float32 (cheap: 32 taps/sample).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ModelCard } from 'parley-kit/types';
import { modelCard } from '../model-card.js';
import { Resampler } from './resample.js';
import { presetVoice } from './voices.js';
import {
  SPEECH_SAMPLE_RATE,
  SpeechEngineBusyError,
  SpeechEngineUnavailableError,
  type PresetVoice,
  type SpeechEngine,
  type SynthesisRequest,
} from './types.js';

export const ESPEAK_PACKAGE = '@echogarden/espeak-ng-emscripten';
export const ESPEAK_INSTALL_HINT = `npm install ${ESPEAK_PACKAGE}`;

export interface EspeakEngineOptions {
  /** Module to load instead of the package (tests: a missing name to check the 503 path). */
  moduleSpecifier?: string;
  /** Speaking rate in words per minute (espeak default 175). */
  rate?: number;
  /** Requests allowed to wait behind the running one before answering 503 (default 32). */
  maxQueue?: number;
}

/** The worker's source, run with `eval: true` so it works the same from `src` (vitest) and `dist`. */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const abortFlag = new Int32Array(workerData.abortBuffer);
let worker;
(async () => {
  try {
    const mod = await import(workerData.moduleUrl);
    const instance = await mod.default();
    worker = new instance.eSpeakNGWorker();
    parentPort.postMessage({ type: 'ready', sampleRate: worker.samplerate });
  } catch (err) {
    parentPort.postMessage({ type: 'failed', message: String(err && err.stack || err) });
  }
})();
parentPort.on('message', (msg) => {
  if (msg.type !== 'synth') return;
  const { id, text, voice, rate } = msg;
  try {
    if (worker.set_voice(voice) !== 0) throw new Error('espeak-ng has no voice ' + voice);
    worker.set_rate(rate);
    let aborted = false;
    worker.synthesize(text, (samples) => {
      if (Atomics.load(abortFlag, 0) === id) { aborted = true; return true; }
      if (samples && samples.length) {
        const copy = new Int16Array(samples);
        parentPort.postMessage({ type: 'chunk', id, samples: copy }, [copy.buffer]);
      }
      return false;
    });
    parentPort.postMessage({ type: 'done', id, aborted });
  } catch (err) {
    parentPort.postMessage({ type: 'error', id, message: String(err && err.message || err) });
  }
});
`;

type WorkerMessage =
  | { type: 'ready'; sampleRate: number }
  | { type: 'failed'; message: string }
  | { type: 'chunk'; id: number; samples: Int16Array }
  | { type: 'done'; id: number; aborted: boolean }
  | { type: 'error'; id: number; message: string };

interface Job {
  id: number;
  text: string;
  voice: string;
  onChunk(samples: Int16Array): void;
  onEnd(error?: Error): void;
  started: boolean;
}

const ESPEAK_VOICES: PresetVoice[] = [
  presetVoice({ slug: 'en-us-male', name: 'English (US), male', languages: ['en-US'], gender: 'male', engineVoice: 'en-us', description: 'espeak-ng American English, default variant' }),
  presetVoice({ slug: 'en-us-female', name: 'English (US), female', languages: ['en-US'], gender: 'female', engineVoice: 'en-us+f3', description: 'espeak-ng American English, female variant f3' }),
  presetVoice({ slug: 'en-gb-male', name: 'English (UK), male', languages: ['en-GB'], gender: 'male', engineVoice: 'en', description: 'espeak-ng British English, default variant' }),
  presetVoice({ slug: 'en-gb-female', name: 'English (UK), female', languages: ['en-GB'], gender: 'female', engineVoice: 'en+f2', description: 'espeak-ng British English, female variant f2' }),
  presetVoice({ slug: 'fr-fr-male', name: 'French (France), male', languages: ['fr-FR'], gender: 'male', engineVoice: 'fr', description: 'espeak-ng French, default variant' }),
  presetVoice({ slug: 'fr-fr-female', name: 'French (France), female', languages: ['fr-FR'], gender: 'female', engineVoice: 'fr+f3', description: 'espeak-ng French, female variant f3' }),
  presetVoice({ slug: 'de-de-male', name: 'German, male', languages: ['de-DE'], gender: 'male', engineVoice: 'de', description: 'espeak-ng German, default variant' }),
  presetVoice({ slug: 'es-es-male', name: 'Spanish (Spain), male', languages: ['es-ES'], gender: 'male', engineVoice: 'es', description: 'espeak-ng Castilian Spanish, default variant' }),
  presetVoice({ slug: 'es-419-female', name: 'Spanish (Latin America), female', languages: ['es-419'], gender: 'female', engineVoice: 'es-419+f2', description: 'espeak-ng Latin American Spanish, female variant f2' }),
  presetVoice({ slug: 'it-it-male', name: 'Italian, male', languages: ['it-IT'], gender: 'male', engineVoice: 'it', description: 'espeak-ng Italian, default variant' }),
];

const ESPEAK_CARD = modelCard({
  id: 'parley-espeak',
  name: 'Parley eSpeak NG (local)',
  description:
    'Local text-to-speech with eSpeak NG formant synthesis (GPL-3.0, compiled to JavaScript), running offline in a worker thread. ' +
    'Robotic but fast and intelligible; 24 kHz mono output. Stand-in for Voxtral TTS: same API, not the same voice quality, no voice cloning.',
  ownedBy: 'mistralai',
  created: 1767225600,
  capabilities: { audio_speech: true },
  aliases: ['voxtral-mini-tts-latest', 'voxtral-mini-tts-2603'],
  maxContextLength: 4096,
});

export function createEspeakSpeechEngine(options: EspeakEngineOptions = {}): SpeechEngine {
  return new EspeakSpeechEngine(options);
}

class EspeakSpeechEngine implements SpeechEngine {
  private worker: Worker | undefined;
  private starting: Promise<void> | undefined;
  private sourceRate = 22050;
  private readonly abortFlag = new Int32Array(new SharedArrayBuffer(4));
  private readonly queue: Job[] = [];
  private current: Job | undefined;
  private nextId = 1;

  constructor(private readonly options: EspeakEngineOptions) {}

  models(): ModelCard[] { return [ESPEAK_CARD]; }
  voices(): PresetVoice[] { return ESPEAK_VOICES; }

  ready(): Promise<void> {
    this.starting ??= this.start().catch((err) => {
      this.starting = undefined; // a later request may try again (e.g. after installing the package)
      throw err;
    });
    return this.starting;
  }

  private async start(): Promise<void> {
    const specifier = this.options.moduleSpecifier ?? ESPEAK_PACKAGE;
    let moduleUrl: string;
    try {
      moduleUrl = pathToFileURL(createRequire(import.meta.url).resolve(specifier)).href;
    } catch {
      throw new SpeechEngineUnavailableError(
        `The local text-to-speech engine is not installed: run \`${ESPEAK_INSTALL_HINT}\` (espeak-ng, GPL-3.0, an optional dependency of parley-kit)`,
      );
    }
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { moduleUrl, abortBuffer: this.abortFlag.buffer } });
    worker.unref();
    await new Promise<void>((resolve, reject) => {
      const onMessage = (msg: WorkerMessage) => {
        if (msg.type === 'ready') {
          this.sourceRate = msg.sampleRate;
          worker.off('error', onError);
          resolve();
        } else if (msg.type === 'failed') {
          void worker.terminate();
          reject(new SpeechEngineUnavailableError(`The espeak-ng engine failed to start: ${msg.message.split('\n')[0]}`));
        }
      };
      const onError = (err: Error) => reject(new SpeechEngineUnavailableError(`The espeak-ng worker failed: ${err.message}`));
      worker.on('message', onMessage);
      worker.once('error', onError);
    });
    worker.on('message', (msg: WorkerMessage) => this.onMessage(msg));
    worker.on('error', (err) => this.onWorkerGone(err));
    worker.on('exit', (code) => this.onWorkerGone(new Error(`espeak-ng worker exited with code ${code}`)));
    this.worker = worker;
  }

  private onMessage(msg: WorkerMessage): void {
    const job = this.current;
    if (!job || !('id' in msg) || msg.id !== job.id) return;
    if (msg.type === 'chunk') job.onChunk(msg.samples);
    else if (msg.type === 'done' || msg.type === 'error') {
      this.current = undefined;
      job.onEnd(msg.type === 'error' ? new Error(msg.message) : undefined);
      this.pump();
    }
  }

  private onWorkerGone(err: Error): void {
    if (!this.worker) return;
    this.worker = undefined;
    this.starting = undefined;
    const jobs = [this.current, ...this.queue.splice(0)].filter((j): j is Job => !!j);
    this.current = undefined;
    for (const job of jobs) job.onEnd(err);
  }

  private pump(): void {
    if (this.current || !this.worker) return;
    const job = this.queue.shift();
    if (!job) return;
    this.current = job;
    job.started = true;
    this.worker.postMessage({ type: 'synth', id: job.id, text: job.text, voice: job.voice, rate: this.options.rate ?? 175 });
  }

  private cancel(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      job.onEnd();
    } else if (this.current === job) {
      Atomics.store(this.abortFlag, 0, job.id); // the worker's callback stops espeak; 'done' frees the engine
    }
  }

  async *synthesize(request: SynthesisRequest): AsyncGenerator<Float32Array> {
    await this.ready();
    if (request.signal?.aborted) return;
    if (this.queue.length >= (this.options.maxQueue ?? 32)) throw new SpeechEngineBusyError('The speech engine is busy; retry shortly');

    const resampler = new Resampler(this.sourceRate, SPEECH_SAMPLE_RATE);
    const ready: Float32Array[] = [];
    let ended = false;
    let failure: Error | undefined;
    let wake: (() => void) | undefined;
    const notify = () => { const w = wake; wake = undefined; w?.(); };

    const job: Job = {
      id: this.nextId++,
      text: request.text,
      voice: request.voice.engineVoice,
      started: false,
      onChunk(samples) {
        const f = new Float32Array(samples.length);
        for (let i = 0; i < samples.length; i++) f[i] = samples[i] / 32768;
        const out = resampler.push(f);
        if (out.length) ready.push(out);
        notify();
      },
      onEnd(error) {
        failure = error;
        if (!error) {
          const tail = resampler.flush();
          if (tail.length) ready.push(tail);
        }
        ended = true;
        notify();
      },
    };
    const onAbort = () => this.cancel(job);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    this.queue.push(job);
    this.pump();
    try {
      for (;;) {
        while (ready.length) {
          if (request.signal?.aborted) return;
          yield ready.shift()!;
        }
        if (ended) break;
        await new Promise<void>((resolve) => { wake = resolve; });
      }
      if (failure && !request.signal?.aborted) throw failure;
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      if (!ended) this.cancel(job); // consumer stopped early (return/throw): free the engine
    }
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.starting = undefined;
    if (worker) await worker.terminate();
  }
}
