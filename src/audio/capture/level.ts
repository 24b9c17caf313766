/**
 * Input level of microphone frames: RMS, its dBFS value, and the 0..1 value a level meter shows
 * (dBFS mapped linearly from a floor to 0 dBFS, because loudness is heard in decibels, not amplitude).
 */

/** dBFS reported for digital silence (instead of -Infinity). */
export const SILENCE_DBFS = -100;

/** Root mean square of s16 samples, relative to full scale (0..1); 0 for an empty frame. */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
  return Math.sqrt(sum / samples.length) / 32768;
}

/** An RMS (0..1) in dBFS, never below {@link SILENCE_DBFS}. */
export function toDbfs(value: number): number {
  return value > 0 ? Math.max(SILENCE_DBFS, 20 * Math.log10(value)) : SILENCE_DBFS;
}

/** A dBFS value as a meter level: `floorDb` (default -60) and below → 0, 0 dBFS → 1, linear in between. */
export function meterLevel(dbfs: number, floorDb = -60): number {
  if (!(floorDb < 0)) throw new RangeError(`The meter floor must be below 0 dBFS (got ${floorDb})`);
  return Math.min(1, Math.max(0, (dbfs - floorDb) / -floorDb));
}
