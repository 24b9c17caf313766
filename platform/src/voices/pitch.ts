/**
 * Median fundamental frequency (pitch) of speech, by normalised autocorrelation: the audio is resampled to
 * 8 kHz, cut into 40 ms frames every 20 ms, and each loud enough frame whose autocorrelation peak (60–400 Hz)
 * is strong is voiced; the answer is the median of the voiced frames' pitches. Used to bind a custom voice to
 * the local engine's voice variant closest to its sample (voices/binding.ts).
 */
import { Resampler } from '../engines/speech/resample.js';

const RATE = 8000;
const FRAME = 320; // 40 ms
const HOP = 160; // 20 ms
const MIN_HZ = 60;
const MAX_HZ = 400;
/** Normalised autocorrelation a frame needs to count as voiced. */
const VOICED = 0.6;
/** Analyse at most this much audio (enough for a stable median, bounded work). */
const MAX_SECONDS = 30;

/** Pitch estimate of a recording. */
export interface PitchEstimate {
  /** Median pitch of the voiced frames in Hz, or null when none is voiced (silence, noise, music without a clear pitch). */
  medianHz: number | null;
  voicedFrames: number;
}

/** Estimates the median pitch of mono float32 audio at `sampleRate`. */
export function estimatePitch(samples: Float32Array, sampleRate: number): PitchEstimate {
  const input = samples.subarray(0, Math.min(samples.length, sampleRate * MAX_SECONDS));
  let x: Float32Array;
  if (sampleRate === RATE) x = input;
  else {
    const r = new Resampler(sampleRate, RATE);
    const head = r.push(input);
    const tail = r.flush();
    x = new Float32Array(head.length + tail.length);
    x.set(head);
    x.set(tail, head.length);
  }

  const energies: number[] = [];
  for (let at = 0; at + FRAME <= x.length; at += HOP) {
    let e = 0;
    for (let i = at; i < at + FRAME; i++) e += x[i] * x[i];
    energies.push(e);
  }
  const loudest = Math.max(0, ...energies);
  const minLag = Math.floor(RATE / MAX_HZ);
  const maxLag = Math.ceil(RATE / MIN_HZ);
  const pitches: number[] = [];
  energies.forEach((energy, f) => {
    if (energy < loudest * 0.05 || energy === 0) return; // silence and breath
    const at = f * HOP;
    const corr = new Float64Array(maxLag + 2);
    for (let lag = minLag - 1; lag <= maxLag + 1; lag++) {
      let num = 0, e1 = 0, e2 = 0;
      for (let i = at; i < at + FRAME && i + lag < x.length; i++) {
        num += x[i] * x[i + lag];
        e1 += x[i] * x[i];
        e2 += x[i + lag] * x[i + lag];
      }
      corr[lag] = e1 && e2 ? num / Math.sqrt(e1 * e2) : 0;
    }
    let best = -1;
    for (let lag = minLag; lag <= maxLag; lag++) if (best < 0 || corr[lag] > corr[best]) best = lag;
    if (corr[best] < VOICED) return;
    // Prefer the shortest lag almost as strong as the best (avoids picking a multiple of the period: octave errors).
    for (let lag = minLag; lag < best; lag++) {
      if (corr[lag] >= 0.9 * corr[best] && corr[lag] >= corr[lag - 1] && corr[lag] >= corr[lag + 1]) { best = lag; break; }
    }
    const [a, b, c] = [corr[best - 1], corr[best], corr[best + 1]];
    const shift = a - 2 * b + c === 0 ? 0 : (0.5 * (a - c)) / (a - 2 * b + c); // parabolic peak
    pitches.push(RATE / (best + Math.max(-0.5, Math.min(0.5, shift))));
  });
  if (!pitches.length) return { medianHz: null, voicedFrames: 0 };
  pitches.sort((p, q) => p - q);
  const mid = pitches.length >> 1;
  const medianHz = pitches.length % 2 ? pitches[mid] : (pitches[mid - 1] + pitches[mid]) / 2;
  return { medianHz, voicedFrames: pitches.length };
}
