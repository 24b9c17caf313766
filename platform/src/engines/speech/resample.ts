/**
 * Streaming band-limited resampler (windowed sinc, polyphase) for mono float32 audio.
 * Exact rational ratio (22050 → 24000 is 147:160), 32 taps per phase, Blackman window, cutoff at
 * 0.45 × the lower of the two rates, each phase normalised to unit DC gain.
 * `push` returns what can be produced so far; `flush` pads with silence and returns the rest, so the
 * output has exactly ceil(inputLength × out / in) samples, aligned with the input (no added delay).
 */
export class Resampler {
  private static readonly HALF = 16;
  private readonly step: number; // input samples per output sample = step / phases
  private readonly phases: number;
  private readonly table: Float32Array[];
  private buf: Float32Array;
  private bufLen: number;
  /** Absolute input index of buf[0]. */
  private bufStart: number;
  private inputCount = 0;
  private outIndex = 0;

  constructor(readonly inRate: number, readonly outRate: number) {
    const g = gcd(inRate, outRate);
    this.step = inRate / g;
    this.phases = outRate / g;
    const half = Resampler.HALF;
    const cutoff = (0.45 * Math.min(inRate, outRate)) / inRate; // in cycles per input sample
    this.table = [];
    for (let p = 0; p < this.phases; p++) {
      const frac = p / this.phases;
      const taps = new Float32Array(2 * half);
      let sum = 0;
      for (let k = 0; k < 2 * half; k++) {
        const x = k - half + 1 - frac; // distance from the output instant to input sample (ipos - half + 1 + k)
        const s = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
        const w = 0.42 + 0.5 * Math.cos((Math.PI * x) / half) + 0.08 * Math.cos((2 * Math.PI * x) / half);
        taps[k] = Math.abs(x) >= half ? 0 : s * w;
        sum += taps[k];
      }
      for (let k = 0; k < taps.length; k++) taps[k] /= sum;
      this.table.push(taps);
    }
    // Silence before the first sample: HALF zeros at negative indices.
    this.buf = new Float32Array(4096);
    this.bufLen = half;
    this.bufStart = -half;
  }

  push(input: Float32Array): Float32Array {
    this.append(input);
    this.inputCount += input.length;
    return this.produce(this.inputCount);
  }

  flush(): Float32Array {
    this.append(new Float32Array(Resampler.HALF + 1));
    return this.produce(this.inputCount, true);
  }

  private append(input: Float32Array): void {
    if (this.bufLen + input.length > this.buf.length) {
      const next = new Float32Array(Math.max(this.buf.length * 2, this.bufLen + input.length));
      next.set(this.buf.subarray(0, this.bufLen));
      this.buf = next;
    }
    this.buf.set(input, this.bufLen);
    this.bufLen += input.length;
  }

  /** Produces output samples whose filter window lies inside the received input. */
  private produce(available: number, final = false): Float32Array {
    const half = Resampler.HALF;
    const totalOut = final ? Math.ceil((this.inputCount * this.phases) / this.step) : Infinity;
    const out: number[] = [];
    for (;;) {
      if (this.outIndex >= totalOut) break;
      const num = this.outIndex * this.step;
      const ipos = Math.floor(num / this.phases);
      const phase = num - ipos * this.phases;
      const last = ipos + half; // newest input sample needed
      if (!final && last >= available) break;
      const first = ipos - half + 1;
      const taps = this.table[phase];
      const base = first - this.bufStart;
      let acc = 0;
      for (let k = 0; k < taps.length; k++) acc += (this.buf[base + k] ?? 0) * taps[k];
      out.push(acc > 1 ? 1 : acc < -1 ? -1 : acc);
      this.outIndex++;
    }
    // Drop input no longer needed by any future output.
    const nextIpos = Math.floor((this.outIndex * this.step) / this.phases);
    const keepFrom = nextIpos - half + 1 - this.bufStart;
    if (keepFrom > 0 && keepFrom <= this.bufLen) {
      this.buf.copyWithin(0, keepFrom, this.bufLen);
      this.bufLen -= keepFrom;
      this.bufStart += keepFrom;
    }
    return Float32Array.from(out);
  }
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
