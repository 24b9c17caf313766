/**
 * The microphone worklet, as source text: on the audio thread it downmixes each 128-frame block to mono,
 * resamples it to the transcription rate with {@link CaptureResampler} (embedded from its own source, so
 * the unit-tested code is the code that runs) and posts s16 chunks of a fixed length to the main thread,
 * transferring their buffers. The build writes this text to {@link MIC_WORKLET_FILE} beside the modules that
 * load it (dist/browser/ for the CDN bundles, dist/audio/capture/ for the npm build: scripts/mic-worklet.mjs),
 * and the capture loads that file, falling back to a `blob:` URL of the same text where it is missing.
 *
 * Content Security Policy: `audioWorklet.addModule()` requests have the destination `audioworklet`, which
 * CSP governs with `script-src-elem` (falling back to `script-src`, then `default-src`), not `worker-src`:
 * the shipped file needs only the scripts' own origin there.
 */
import { CaptureResampler } from './resampler.js';

/** The worklet module's file name, beside the capture's own module. */
export const MIC_WORKLET_FILE = 'parley-mic-worklet.js';

/** Name the processor is registered under. */
export const CAPTURE_PROCESSOR_NAME = 'parley-mic-capture';

/** `processorOptions` of the capture node. */
export interface CaptureProcessorOptions {
  /** Rate of the posted chunks (Hz). */
  outputRate: number;
  /** Samples per posted chunk. */
  chunkSamples: number;
}

/**
 * Messages from the processor: `{ samples, last }` (`last` answers a `'flush'` message: the partial
 * chunk, after which the processor stops).
 */
export interface CaptureChunkMessage {
  samples: Int16Array;
  last: boolean;
}

/** The worklet module's source text. */
export function captureWorkletSource(): string {
  return `const CaptureResampler = (${CaptureResampler.toString()});
class MicCaptureProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const { outputRate, chunkSamples } = options.processorOptions;
    this.resampler = new CaptureResampler(sampleRate, outputRate);
    this.chunkSamples = chunkSamples;
    this.chunk = new Int16Array(chunkSamples);
    this.filled = 0;
    this.mono = new Float32Array(128);
    this.running = true;
    this.port.onmessage = (event) => {
      if (event.data !== 'flush' || !this.running) return;
      this.running = false;
      this.write(this.resampler.flush());
      this.send(true);
    };
  }
  write(samples) {
    for (let i = 0; i < samples.length; i++) {
      const s = Math.max(-1, Math.min(1, samples[i]));
      this.chunk[this.filled++] = Math.round(s < 0 ? s * 32768 : s * 32767);
      if (this.filled === this.chunkSamples) this.send(false);
    }
  }
  send(last) {
    const samples = this.filled === this.chunkSamples ? this.chunk : this.chunk.slice(0, this.filled);
    this.port.postMessage({ samples, last }, [samples.buffer]);
    this.chunk = new Int16Array(this.chunkSamples);
    this.filled = 0;
  }
  process(inputs) {
    const channels = inputs[0];
    if (!this.running) return false;
    if (!channels || channels.length === 0 || channels[0].length === 0) return true;
    const frames = channels[0].length;
    if (this.mono.length !== frames) this.mono = new Float32Array(frames);
    this.mono.set(channels[0]);
    for (let c = 1; c < channels.length; c++) for (let i = 0; i < frames; i++) this.mono[i] += channels[c][i];
    if (channels.length > 1) for (let i = 0; i < frames; i++) this.mono[i] /= channels.length;
    this.write(this.resampler.push(this.mono));
    return true;
  }
}
registerProcessor(${JSON.stringify(CAPTURE_PROCESSOR_NAME)}, MicCaptureProcessor);
`;
}
