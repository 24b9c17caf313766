/**
 * Microphone capture: `getUserMedia` → the browser's AudioContext at the device's own rate → the capture
 * worklet (downmix, band-limited resampling to 16 kHz) → s16 mono chunks of 50 ms on the main thread.
 * `stop()` hands over the last partial chunk, stops the tracks (the browser's recording indicator goes off)
 * and closes the context. Failures are {@link VoiceInputFailure}s with a kind.
 *
 * The browser's own Web Audio, not standardized-audio-context (no longer used by the kit): that library loads
 * every worklet module back from a `blob:` URL it writes, which a strict Content-Security-Policy refuses.
 * Here the module is the file the build ships beside this one ({@link MIC_WORKLET_FILE}), so `script-src
 * 'self'` (or the CDN's host) is enough. AudioWorklet, which the capture needs, is in every engine the kit
 * supports (Chromium 66, Firefox 76, Safari 14.1); the bugs the library works around for it do not touch
 * this processor (it transfers only its own buffers, and skips empty inputs).
 */
import { CAPTURE_PROCESSOR_NAME, MIC_WORKLET_FILE, captureWorkletSource, type CaptureChunkMessage, type CaptureProcessorOptions } from './capture-worklet.js';
import { VoiceInputFailure, microphoneFailure } from './voice-input-error.js';
import { audioStarted } from '../audio-start.js';

/** Rate of the chunks by default: what the realtime transcription expects. */
export const CAPTURE_SAMPLE_RATE = 16000;

export interface MicCaptureOptions {
  /** Receives each chunk of s16 mono PCM at {@link MicCapture.sampleRate}, in order. */
  onChunk: (samples: Int16Array) => void;
  /** The microphone went away while recording (unplugged, or revoked); capture has stopped. */
  onEnded?: (failure: VoiceInputFailure) => void;
  /** Default true. */
  echoCancellation?: boolean;
  /** Default true. */
  noiseSuppression?: boolean;
  /** Default true. */
  autoGainControl?: boolean;
  /** A `deviceId` from `enumerateDevices()` (required exactly: an absent device is a `no-microphone` failure). */
  deviceId?: string;
  /** Rate of the chunks, Hz (default 16000). */
  sampleRate?: number;
  /** Length of a chunk, ms (default 50). */
  chunkMs?: number;
}

/** How long `stop()` waits for the worklet's last partial chunk before closing anyway. */
const FLUSH_TIMEOUT_MS = 250;

/** One microphone recording; create it with {@link MicCapture.open} (inside a user gesture). */
export class MicCapture {
  /** Rate of the chunks, Hz. */
  readonly sampleRate: number;
  /** Rate the device (and the AudioContext) runs at, Hz. */
  readonly deviceSampleRate: number;
  /** Label of the microphone track (empty until permission is granted in some browsers). */
  readonly label: string;
  readonly #stream: MediaStream;
  readonly #context: AudioContext;
  readonly #source: MediaStreamAudioSourceNode;
  readonly #node: AudioWorkletNode;
  #flushed: (() => void) | null = null;
  #stopping: Promise<void> | null = null;

  private constructor(stream: MediaStream, context: AudioContext, source: MediaStreamAudioSourceNode, node: AudioWorkletNode, sampleRate: number, options: MicCaptureOptions) {
    this.#stream = stream;
    this.#context = context;
    this.#source = source;
    this.#node = node;
    this.sampleRate = sampleRate;
    this.deviceSampleRate = context.sampleRate;
    this.label = stream.getAudioTracks()[0]?.label ?? '';
    node.port.onmessage = ({ data }: MessageEvent<CaptureChunkMessage>) => {
      if (data.samples.length > 0) options.onChunk(data.samples);
      if (data.last) this.#flushed?.();
    };
    for (const track of stream.getAudioTracks()) {
      track.addEventListener('ended', () => {
        if (this.#stopping) return;
        void this.stop({ flush: false });
        options.onEnded?.(new VoiceInputFailure('microphone-busy', 'The microphone stopped (it was disconnected or access was revoked).'));
      }, { once: true });
    }
  }

  /** Whether `stop()` was called. */
  get stopped(): boolean {
    return this.#stopping !== null;
  }

  /**
   * Asks for the microphone and starts capturing. Call it inside a user gesture: the AudioContext is
   * created before the permission prompt so that the gesture still counts for it.
   * @throws {VoiceInputFailure} `unsupported`, `permission-denied`, `no-microphone`, `microphone-busy` or `audio-not-started`.
   */
  static async open(options: MicCaptureOptions): Promise<MicCapture> {
    const sampleRate = options.sampleRate ?? CAPTURE_SAMPLE_RATE;
    const chunkSamples = Math.max(1, Math.round((sampleRate * (options.chunkMs ?? 50)) / 1000));
    if (typeof navigator === 'undefined' || !navigator.mediaDevices?.getUserMedia) {
      throw new VoiceInputFailure('unsupported', 'This browser cannot use a microphone here (it needs a secure page: HTTPS or localhost).');
    }
    let context: AudioContext;
    try {
      context = new globalThis.AudioContext({ latencyHint: 'interactive' });
    } catch (error) {
      throw new VoiceInputFailure('unsupported', 'This browser cannot process audio (no Web Audio).', error);
    }
    if (!context.audioWorklet || typeof globalThis.AudioWorkletNode !== 'function') {
      void context.close().catch(() => {});
      throw new VoiceInputFailure('unsupported', 'This browser cannot process microphone audio (no AudioWorklet).');
    }
    void context.resume().catch(() => {}); // allowed in the gesture; never awaited (it waits for one otherwise)
    let stream: MediaStream | null = null;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: {
          echoCancellation: options.echoCancellation ?? true,
          noiseSuppression: options.noiseSuppression ?? true,
          autoGainControl: options.autoGainControl ?? true,
          ...(options.deviceId ? { deviceId: { exact: options.deviceId } } : {}),
        },
      });
      // Granted, but the context may never start (no sound device): checked below, once the graph is built, so
      // waiting for it does not delay the worklet's loading.
      if (context.state !== 'running') void context.resume().catch(() => {});
      const started = audioStarted(context);
      await loadCaptureWorklet(context);
      const processorOptions: CaptureProcessorOptions = { outputRate: sampleRate, chunkSamples };
      const node = new AudioWorkletNode(context, CAPTURE_PROCESSOR_NAME, {
        numberOfInputs: 1,
        numberOfOutputs: 0,
        channelCount: 1,
        channelCountMode: 'explicit',
        channelInterpretation: 'speakers',
        processorOptions,
      });
      const source = context.createMediaStreamSource(stream);
      const capture = new MicCapture(stream, context, source, node, sampleRate, options);
      source.connect(node);
      if (!(await started)) throw new VoiceInputFailure('audio-not-started', 'The microphone could not start.');
      return capture;
    } catch (error) {
      for (const track of stream?.getTracks() ?? []) track.stop();
      void context.close().catch(() => {});
      throw microphoneFailure(error);
    }
  }

  /**
   * Stops capturing: with `flush` (default) the last partial chunk is delivered first. Releases the
   * tracks and closes the context; calling it again returns the same promise.
   */
  stop({ flush = true }: { flush?: boolean } = {}): Promise<void> {
    this.#stopping ??= this.#stop(flush);
    return this.#stopping;
  }

  async #stop(flush: boolean): Promise<void> {
    if (flush && this.#context.state === 'running') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FLUSH_TIMEOUT_MS);
        this.#flushed = () => {
          clearTimeout(timer);
          resolve();
        };
        this.#node.port.postMessage('flush');
      });
    }
    this.#node.port.onmessage = null;
    this.#source.disconnect();
    for (const track of this.#stream.getTracks()) track.stop();
    await this.#context.close().catch(() => {});
  }
}

/** URL of the worklet file shipped beside this module, or null where the module has no URL to resolve it against. */
function shippedWorkletUrl(): string | null {
  try {
    return new URL(/* @vite-ignore */ `./${MIC_WORKLET_FILE}`, import.meta.url).href;
  } catch {
    return null;
  }
}

/**
 * Registers the capture processor in `context`: from the file shipped beside this module; where that file is
 * missing (a bundler that moved this module and left the file behind) from a `blob:` URL of the same source,
 * which a strict Content-Security-Policy refuses (then the failure says what to allow).
 */
async function loadCaptureWorklet(context: AudioContext): Promise<void> {
  const shipped = shippedWorkletUrl();
  if (shipped) {
    try {
      await context.audioWorklet.addModule(shipped);
      return;
    } catch {
      // not served beside this module: the source text below
    }
  }
  const url = URL.createObjectURL(new Blob([captureWorkletSource()], { type: 'text/javascript' }));
  try {
    await context.audioWorklet.addModule(url);
  } catch (error) {
    throw new VoiceInputFailure('unsupported', `The microphone processor could not be loaded: serve ${MIC_WORKLET_FILE} beside the kit's scripts, or let the Content-Security-Policy allow blob: in script-src.`, error);
  } finally {
    URL.revokeObjectURL(url);
  }
}
