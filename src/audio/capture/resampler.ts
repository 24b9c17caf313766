/**
 * Streaming band-limited resampler for the microphone: mono float32 at the device's rate in, mono
 * float32 at the transcription rate (16 kHz) out. A windowed-sinc low-pass (Blackman, cutoff at 0.45 ×
 * the lower rate, 12 zero crossings each side) is evaluated at each output instant from a polyphase
 * table, so nothing above the new Nyquist folds back into the speech band (naive decimation would).
 *
 * The class is self-contained on purpose (no imports, no module-level helpers, no `#private` fields, no field
 * initialisers that a down-levelling bundler would turn into helper calls):
 * the capture worklet embeds its source text (`CaptureResampler.toString()`), so the code unit-tested
 * in Node is the code that runs on the audio thread. The server has its own resampler
 * (src/platform/engines/speech/resample.ts); browser layers never import server code.
 */
export class CaptureResampler {
  /** Device rate. */
  readonly inRate: number;
  /** Output rate. */
  readonly outRate: number;
  /** Input samples kept on each side of an output instant. */
  private readonly half: number;
  /** Number of fractional positions in the table (exact for the usual rates, else a 1/512 grid). */
  private readonly phases: number;
  /** `phases` rows of `2 × half` taps, each row normalised to unit DC gain. */
  private readonly table: Float32Array;
  /** Input history: `history[0]` is absolute input index `historyStart`. */
  private history: Float32Array;
  private historyLength: number;
  private historyStart: number;
  private inputCount: number;
  /** Index of the next output sample. */
  private outIndex: number;

  constructor(inRate: number, outRate: number) {
    if (!(inRate > 0 && outRate > 0)) throw new RangeError(`Sample rates must be positive (got ${inRate} → ${outRate})`);
    this.inRate = inRate;
    this.outRate = outRate;
    this.inputCount = 0;
    this.outIndex = 0;
    let a = Math.round(inRate);
    let b = Math.round(outRate);
    while (b) [a, b] = [b, a % b];
    this.phases = Math.min(Math.round(outRate) / a, 512);
    const cutoff = (0.45 * Math.min(inRate, outRate)) / inRate; // cycles per input sample
    this.half = Math.ceil(6 / cutoff); // 12 zero crossings of the sinc on each side
    const width = 2 * this.half;
    this.table = new Float32Array(this.phases * width);
    for (let p = 0; p < this.phases; p++) {
      const frac = p / this.phases;
      let sum = 0;
      for (let k = 0; k < width; k++) {
        const x = k - this.half + 1 - frac; // distance from the output instant to the tap's input sample
        const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
        const window = Math.abs(x) >= this.half ? 0 : 0.42 + 0.5 * Math.cos((Math.PI * x) / this.half) + 0.08 * Math.cos((2 * Math.PI * x) / this.half);
        this.table[p * width + k] = sinc * window;
        sum += sinc * window;
      }
      for (let k = 0; k < width; k++) this.table[p * width + k] /= sum;
    }
    // Silence before the first sample, so the first output is aligned with the first input.
    this.history = new Float32Array(Math.max(4096, 4 * width));
    this.historyLength = this.half;
    this.historyStart = -this.half;
  }

  /** Adds input; returns the output samples that can be computed so far (possibly none). */
  push(input: Float32Array): Float32Array {
    this.append(input);
    this.inputCount += input.length;
    return this.produce(Number.POSITIVE_INFINITY);
  }

  /** Ends the stream: the output samples still owed for the input so far, as if silence followed. */
  flush(): Float32Array {
    const owed = Math.ceil((this.inputCount * this.outRate) / this.inRate) - this.outIndex;
    if (owed <= 0) return new Float32Array(0);
    this.append(new Float32Array(this.half + 1));
    return this.produce(owed);
  }

  private append(input: Float32Array): void {
    if (this.historyLength + input.length > this.history.length) {
      const grown = new Float32Array(Math.max(this.history.length * 2, this.historyLength + input.length));
      grown.set(this.history.subarray(0, this.historyLength));
      this.history = grown;
    }
    this.history.set(input, this.historyLength);
    this.historyLength += input.length;
  }

  /** Computes up to `limit` output samples whose taps all lie in the history. */
  private produce(limit: number): Float32Array {
    const width = 2 * this.half;
    const end = this.historyStart + this.historyLength;
    const out = new Float32Array(Math.min(limit, Math.ceil((this.historyLength * this.outRate) / this.inRate) + 1));
    let count = 0;
    while (count < out.length) {
      const position = (this.outIndex * this.inRate) / this.outRate;
      let base = Math.floor(position);
      let phase = Math.round((position - base) * this.phases);
      if (phase === this.phases) {
        base += 1;
        phase = 0;
      }
      const first = base - this.half + 1;
      if (first + width > end) break;
      let acc = 0;
      const offset = first - this.historyStart;
      const row = phase * width;
      for (let k = 0; k < width; k++) acc += this.table[row + k] * this.history[offset + k];
      out[count++] = acc;
      this.outIndex += 1;
    }
    // Drop the history no later output needs.
    const nextFirst = Math.floor((this.outIndex * this.inRate) / this.outRate) - this.half + 1;
    const drop = Math.max(0, Math.min(nextFirst - this.historyStart, this.historyLength));
    if (drop > 0) {
      this.history.copyWithin(0, drop, this.historyLength);
      this.historyLength -= drop;
      this.historyStart += drop;
    }
    return count === out.length ? out : out.slice(0, count);
  }
}
