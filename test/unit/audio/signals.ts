// Synthetic test signals for the capture unit tests (deterministic: seeded noise).

/** A sine of `frequency` Hz, `amplitude` (0..1 of full scale), `seconds` long, as float samples. */
export function sine(frequency: number, sampleRate: number, seconds: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(sampleRate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate);
  return out;
}

/** Seeded uniform white noise with the given RMS (0..1 of full scale). */
export function noise(sampleRate: number, seconds: number, rmsLevel: number, seed = 1): Float32Array {
  const out = new Float32Array(Math.round(sampleRate * seconds));
  let state = seed >>> 0 || 1;
  const scale = rmsLevel * Math.sqrt(3); // uniform in [-a, a] has RMS a/√3
  for (let i = 0; i < out.length; i++) {
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    out[i] = scale * ((state / 0xffffffff) * 2 - 1);
  }
  return out;
}

/** dBFS to an RMS of full scale. */
export function dbToRms(db: number): number {
  return 10 ** (db / 20);
}

/** Joins sample arrays of one kind (float or s16) end to end. */
export function concat<T extends Float32Array | Int16Array>(...parts: T[]): T {
  const Samples = (parts[0]?.constructor ?? Float32Array) as new (length: number) => T;
  const out = new Samples(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function add(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(Math.max(a.length, b.length));
  for (let i = 0; i < out.length; i++) out[i] = (a[i] ?? 0) + (b[i] ?? 0);
  return out;
}

/** Float samples to s16. */
export function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.round(Math.max(-1, Math.min(1, samples[i])) * 32767);
  return out;
}

/** Splits s16 samples into frames of `size` (the last may be shorter). */
export function frames(samples: Int16Array, size: number): Int16Array[] {
  const out: Int16Array[] = [];
  for (let i = 0; i < samples.length; i += size) out.push(samples.subarray(i, i + size));
  return out;
}

export function rmsOf(samples: Float32Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i] * samples[i];
  return Math.sqrt(sum / (to - from));
}
