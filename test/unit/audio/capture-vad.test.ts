import { describe, expect, test } from 'vitest';
import { VoiceActivityDetector, type VoiceActivityEvent, type VoiceActivityOptions } from '../../../src/audio/capture/vad.js';
import { add, concat, dbToRms, frames, noise, sine, toInt16 } from './signals.js';

const RATE = 16000;
const FRAME = 800; // 50 ms, what the capture posts

function run(signal: Float32Array, options?: VoiceActivityOptions, frameSize = FRAME): VoiceActivityEvent[] {
  const vad = new VoiceActivityDetector(RATE, options);
  const events: VoiceActivityEvent[] = [];
  for (const frame of frames(toInt16(signal), frameSize)) {
    const event = vad.push(frame);
    if (event) events.push(event);
  }
  return events;
}

const silence = (seconds: number) => new Float32Array(RATE * seconds);
/** A 200 Hz tone at `db` dBFS RMS. */
const tone = (seconds: number, db: number) => sine(200, RATE, seconds, dbToRms(db) * Math.SQRT2);

/** Speech-like: syllables of noise shaped by a raised-cosine envelope (200 ms on, 120 ms off), `db` at their peaks. */
function syllables(seconds: number, db: number, seed = 7): Float32Array {
  const carrier = noise(RATE, seconds, dbToRms(db), seed);
  const period = 0.32 * RATE;
  const on = 0.2 * RATE;
  for (let i = 0; i < carrier.length; i++) {
    const t = i % period;
    carrier[i] *= t < on ? Math.sin((Math.PI * t) / on) : 0;
  }
  return carrier;
}

describe('VoiceActivityDetector', () => {
  test('digital silence and steady background noise are not speech', () => {
    expect(run(silence(5))).toEqual([]);
    expect(run(noise(RATE, 10, dbToRms(-40)))).toEqual([]);
  });

  test('speech from the very first frame is found', () => {
    const events = run(concat(tone(1, -20), silence(1)));
    expect(events).toEqual([
      { type: 'speechstart', startMs: 0, atMs: 150 },
      { type: 'speechend', lastVoicedMs: 1000, atMs: 1800 },
    ]);
  });

  test('a tone burst in quiet noise: speech starts 150 ms into it and ends 800 ms after it', () => {
    const background = noise(RATE, 4, dbToRms(-60));
    const events = run(add(background, concat(silence(1), tone(1, -20), silence(2))));
    expect(events).toEqual([
      { type: 'speechstart', startMs: 1000, atMs: 1150 },
      { type: 'speechend', lastVoicedMs: 2000, atMs: 2800 },
    ]);
  });

  test('speech-like syllables with short gaps are one utterance', () => {
    const signal = add(noise(RATE, 5, dbToRms(-55), 9), concat(silence(0.5), syllables(2, -15), silence(2.5)));
    const events = run(signal);
    expect(events.map((e) => e.type)).toEqual(['speechstart', 'speechend']);
    const [start, end] = events as [Extract<VoiceActivityEvent, { type: 'speechstart' }>, Extract<VoiceActivityEvent, { type: 'speechend' }>];
    expect(start.startMs).toBeGreaterThanOrEqual(500);
    expect(start.startMs).toBeLessThan(700);
    expect(end.lastVoicedMs).toBeGreaterThan(2200);
    expect(end.lastVoicedMs).toBeLessThanOrEqual(2500);
    expect(end.atMs - end.lastVoicedMs).toBeGreaterThanOrEqual(800);
    expect(end.atMs - end.lastVoicedMs).toBeLessThan(850);
  });

  test('a pause longer than endOfUtteranceMs splits two utterances; a shorter one does not', () => {
    const two = concat(silence(0.5), syllables(1, -15), silence(1.2), syllables(1, -15), silence(1.5));
    expect(run(two).map((e) => e.type)).toEqual(['speechstart', 'speechend', 'speechstart', 'speechend']);
    expect(run(two, { endOfUtteranceMs: 1500 }).map((e) => e.type)).toEqual(['speechstart', 'speechend']);
  });

  test('endOfUtteranceMs sets when speech ends', () => {
    const events = run(concat(silence(1), tone(1, -20), silence(1)), { endOfUtteranceMs: 300 });
    expect(events.at(-1)).toEqual({ type: 'speechend', lastVoicedMs: 2000, atMs: 2300 });
  });

  test('a click (one loud frame) is not speech, nor is sound quieter than minSpeechDbfs', () => {
    expect(run(concat(silence(1), tone(0.05, -10), silence(1)))).toEqual([]);
    expect(run(concat(silence(1), tone(2, -56), silence(1)))).toEqual([]);
    expect(run(concat(silence(1), tone(2, -56), silence(1)), { minSpeechDbfs: -70 }).map((e) => e.type)).toEqual(['speechstart', 'speechend']);
  });

  test('speech over louder background noise is found above the adapted floor', () => {
    const background = noise(RATE, 6, dbToRms(-38), 5);
    const events = run(add(background, concat(silence(2), syllables(2, -12), silence(2))));
    expect(events.map((e) => e.type)).toEqual(['speechstart', 'speechend']);
  });

  test('a loud steady noise (sudden, or there from the start) becomes the floor: it ends as speech would, then stays quiet', () => {
    for (const signal of [concat(silence(1), noise(RATE, 30, dbToRms(-30), 11)), noise(RATE, 30, dbToRms(-30), 3)]) {
      const events = run(signal);
      expect(events.map((e) => e.type)).toEqual(['speechstart', 'speechend']);
      expect((events[1] as { atMs: number }).atMs).toBeLessThan(20_000);
    }
  });

  test('frames of any length count by their duration; an empty frame changes nothing', () => {
    const vad = new VoiceActivityDetector(RATE);
    expect(vad.push(new Int16Array(0))).toBeNull();
    expect(vad.timeMs).toBe(0);
    expect(vad.noiseFloorDb).toBeNull();
    const events = run(concat(silence(1), tone(1, -20), silence(1)), {}, 160); // 10 ms frames
    expect(events).toEqual([
      { type: 'speechstart', startMs: 1000, atMs: 1150 },
      { type: 'speechend', lastVoicedMs: 2000, atMs: 2800 },
    ]);
  });

  test('refuses a rate or an end of utterance that is not positive', () => {
    expect(() => new VoiceActivityDetector(0)).toThrow(RangeError);
    expect(() => new VoiceActivityDetector(RATE, { endOfUtteranceMs: 0 })).toThrow(RangeError);
  });
});
