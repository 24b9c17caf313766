import { describe, expect, it } from 'vitest';
import { Resampler } from '../../src/engines/speech/resample.js';
import { FlacEncoder } from '../../src/engines/speech/flac.js';
import { createEncoder } from '../../src/engines/speech/encoders.js';
import { oggCrc } from '../../src/engines/speech/ogg-opus.js';
import { uuidV5 } from '../../src/engines/speech/voices.js';
import { decodeFlac, decodeMp3, decodeOpus, parsePcm, parseWav, rms } from './speech-audio.js';

const sine = (n: number, freq: number, rate: number, amp = 0.5) => Float32Array.from({ length: n }, (_, i) => amp * Math.sin((2 * Math.PI * freq * i) / rate));

/** Frequency of a clean tone by counting upward zero crossings. */
function toneFrequency(x: Float32Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < x.length; i++) if (x[i - 1] < 0 && x[i] >= 0) crossings++;
  return (crossings * rate) / x.length;
}

async function encodeAll(format: 'pcm' | 'wav' | 'mp3' | 'opus' | 'flac', audio: Float32Array, chunk = 2400) {
  const enc = await createEncoder(format);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < audio.length; i += chunk) parts.push(enc.push(audio.subarray(i, i + chunk)));
  parts.push(enc.end());
  return { streamed: Buffer.concat(parts), whole: enc.finalize(Buffer.concat(parts)) };
}

describe('Resampler', () => {
  it('turns 22050 Hz into 24000 Hz with the exact length, the same pitch and amplitude', () => {
    const input = sine(22050, 440, 22050);
    const r = new Resampler(22050, 24000);
    const out = Buffer.concat([r.push(input), r.flush()].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));
    const y = new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4);
    expect(y.length).toBe(Math.ceil((22050 * 24000) / 22050));
    expect(toneFrequency(y.subarray(100, 23900), 24000)).toBeCloseTo(440, -1);
    expect(rms(y.subarray(200, 23800))).toBeCloseTo(0.5 / Math.SQRT2, 2);
    // Aligned: output sample n is the input at time n/24000.
    for (const n of [1000, 5000, 12345]) expect(y[n]).toBeCloseTo(0.5 * Math.sin((2 * Math.PI * 440 * n) / 24000), 2);
  });

  it('gives the same samples whatever the chunking', () => {
    const input = sine(10000, 1000, 22050);
    const one = new Resampler(22050, 24000);
    const a = [...one.push(input), ...one.flush()];
    const many = new Resampler(22050, 24000);
    const b: number[] = [];
    for (let i = 0; i < input.length; i += 777) b.push(...many.push(input.subarray(i, i + 777)));
    b.push(...many.flush());
    expect(b.length).toBe(a.length);
    for (let i = 0; i < a.length; i++) expect(b[i]).toBeCloseTo(a[i], 6);
  });

  it('attenuates content above the output band when downsampling', () => {
    const r = new Resampler(48000, 24000);
    const y = [...r.push(sine(48000, 15000, 48000)), ...r.flush()];
    expect(rms(Float32Array.from(y.slice(100, -100)))).toBeLessThan(0.01);
  });
});

describe('encoders', () => {
  const audio = Float32Array.from(sine(24000 * 2, 300, 24000, 0.4), (x, i) => x + 0.2 * Math.sin((2 * Math.PI * 1234 * i) / 24000));

  it('flac is lossless, decodes at 24 kHz, and streams with an unknown-length STREAMINFO', async () => {
    const { streamed, whole } = await encodeAll('flac', audio);
    const d = await decodeFlac(whole);
    expect(d.sampleRate).toBe(24000);
    expect(d.samples.length).toBe(audio.length);
    for (let i = 0; i < audio.length; i += 97) expect(d.samples[i]).toBeCloseTo(Math.round(audio[i] * 32767) / 32767, 6);
    expect(whole.length).toBeLessThan(audio.length * 2 * 0.8);
    const s = await decodeFlac(streamed);
    expect(s.samples.length).toBe(audio.length);
  });

  it('flac codes silence, noise and short blocks losslessly', async () => {
    const enc = new FlacEncoder(24000);
    const input = new Int16Array(5000);
    for (let i = 2048; i < 4096; i++) input[i] = Math.round((Math.random() * 2 - 1) * 32767);
    input[4999] = -32768;
    const file = enc.finalize(Buffer.concat([enc.push(input.subarray(0, 3000)), enc.push(input.subarray(3000)), enc.end()]));
    const d = await decodeFlac(file);
    expect(Array.from(d.samples, (x) => Math.round(x * 32767))).toEqual(Array.from(input));
  });

  it('mp3 decodes at 24 kHz with the tone energy', async () => {
    const { whole } = await encodeAll('mp3', audio);
    const d = await decodeMp3(whole);
    expect(d.sampleRate).toBe(24000);
    expect(Math.abs(d.samples.length - audio.length)).toBeLessThan(3000);
    expect(rms(d.samples)).toBeGreaterThan(rms(audio) * 0.8);
    expect(rms(d.samples)).toBeLessThan(rms(audio) * 1.2);
  });

  it('opus is Ogg Opus with a 24 kHz input rate, the right length and energy', async () => {
    const { whole } = await encodeAll('opus', audio);
    const d = await decodeOpus(whole);
    expect(d.header).toMatchObject({ inputSampleRate: 24000, channels: 1, preSkip: 312 });
    expect(d.sampleRate).toBe(48000);
    expect(Math.abs(d.samples.length / 48000 - audio.length / 24000)).toBeLessThan(0.03);
    expect(rms(d.samples)).toBeGreaterThan(rms(audio) * 0.7);
    expect(rms(d.samples)).toBeLessThan(rms(audio) * 1.3);
    expect(oggCrc(new TextEncoder().encode('123456789'))).toBe(0x89a1897f);
  });

  it('wav and pcm carry 24 kHz mono samples', async () => {
    const wav = await encodeAll('wav', audio);
    expect(parseWav(wav.streamed, { streamed: true }).samples.length).toBe(audio.length);
    const w = parseWav(wav.whole);
    expect(w.header).toMatchObject({ format: 1, channels: 1, sampleRate: 24000, bits: 16, blockAlign: 2, byteRate: 48000 });
    const pcm = await encodeAll('pcm', audio);
    expect(parsePcm(pcm.whole).samples).toEqual(audio);
  });

  it('empty audio still makes valid files', async () => {
    expect(parseWav((await encodeAll('wav', new Float32Array(0))).whole).samples.length).toBe(0);
    expect((await decodeFlac((await encodeAll('flac', new Float32Array(0))).whole)).samples.length).toBe(0);
    expect((await decodeOpus((await encodeAll('opus', new Float32Array(0))).whole)).header?.inputSampleRate).toBe(24000);
  });
});

describe('voice ids', () => {
  it('are RFC 4122 v5 UUIDs, deterministic', () => {
    // Known vector: uuid v5 of "www.example.com" in the DNS namespace.
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(uuidV5('en-us-male')).toBe(uuidV5('en-us-male'));
  });
});
