/** The realtime WebSocket's audio input: the six encodings of the API → s16 16 kHz, split frames, resampling. */
import { describe, expect, it } from 'vitest';
import { RealtimeAudioDecoder } from '../../src/realtime/realtime-audio.js';
import type { RealtimeAudioEncoding } from 'parley-kit/types';

const at16k = (encoding: RealtimeAudioEncoding) => new RealtimeAudioDecoder({ encoding, sample_rate: 16000 });
const bytesOf = (write: (v: DataView) => void, length: number) => {
  const b = new Uint8Array(length);
  write(new DataView(b.buffer));
  return b;
};

describe('RealtimeAudioDecoder', () => {
  it('decodes s16le, s32le and f32le to the same s16 samples', () => {
    const values = [0, 0.5, -0.5, 0.25, -1];
    const s16 = bytesOf((v) => values.forEach((x, i) => v.setInt16(i * 2, Math.max(-32768, Math.round(x * 32768)), true)), 10);
    const s32 = bytesOf((v) => values.forEach((x, i) => v.setInt32(i * 4, Math.max(-2147483648, Math.round(x * 2147483648)), true)), 20);
    const f32 = bytesOf((v) => values.forEach((x, i) => v.setFloat32(i * 4, x, true)), 20);
    const expected = [0, 16384, -16384, 8192, -32768];
    for (const [encoding, bytes] of [['pcm_s16le', s16], ['pcm_s32le', s32], ['pcm_f32le', f32]] as const) {
      const out = [...at16k(encoding).push(bytes)];
      out.forEach((s, i) => expect(Math.abs(s - expected[i]), `${encoding}[${i}]`).toBeLessThanOrEqual(1));
    }
  });

  it('decodes half floats, clamping out-of-range and NaN samples', () => {
    // 1.0, 0.5, -0.25, 0, 2.0 (clamped), NaN (→ 0)
    const halves = [0x3c00, 0x3800, 0xb400, 0x0000, 0x4000, 0x7e00];
    const out = [...at16k('pcm_f16le').push(bytesOf((v) => halves.forEach((h, i) => v.setUint16(i * 2, h, true)), 12))];
    expect(out.map((s) => Math.round(s / 2))).toEqual([16384, 8192, -4096, 0, 16384, 0]);
  });

  it('decodes G.711 μ-law and A-law bytes', () => {
    // μ-law: 0xFF and 0x7F are ±0, 0x80 is +32124, 0x00 is -32124. A-law: 0xD5 is +8, 0x55 is -8, 0xAA is +32256.
    const mulaw = [...at16k('pcm_mulaw').push(Uint8Array.of(0xff, 0x80, 0x00))];
    [0, 32124, -32124].forEach((x, i) => expect(Math.abs(mulaw[i] - x)).toBeLessThanOrEqual(2));
    const alaw = [...at16k('pcm_alaw').push(Uint8Array.of(0xd5, 0x55, 0xaa))];
    expect(Math.abs(alaw[0] - 8)).toBeLessThanOrEqual(1);
    expect(Math.abs(alaw[1] + 8)).toBeLessThanOrEqual(1);
    expect(Math.abs(alaw[2] - 32256)).toBeLessThanOrEqual(2);
  });

  it('returns only the chunk\'s own samples when it is a view into a larger buffer (Node\'s pooled Buffers)', () => {
    // Small Buffers (base64 of a 50 ms append) share one pooled slab; the samples must come from the view alone.
    const pool = new Uint8Array(64).fill(0x7f);
    const view = bytesOf((v) => { v.setInt16(0, 1000, true); v.setInt16(2, -1000, true); }, 4);
    pool.set(view, 10);
    const chunk = Buffer.from(pool.buffer, 10, 4);
    expect([...at16k('pcm_s16le').push(chunk)]).toEqual([1000, -1000]);
    expect([...at16k('pcm_s16le').push(Buffer.from(Uint8Array.of(0x10, 0x00, 0xf0, 0xff).buffer))]).toEqual([16, -16]);
  });

  it('keeps a frame split across chunks until its last byte arrives', () => {
    const d = at16k('pcm_s32le');
    const whole = bytesOf((v) => { v.setInt32(0, 1 << 30, true); v.setInt32(4, -(1 << 30), true); }, 8);
    expect(d.push(whole.subarray(0, 3)).length).toBe(0);
    expect([...d.push(whole.subarray(3, 6))]).toEqual([16384]);
    expect(Math.abs(d.push(whole.subarray(6))[0] + 16384)).toBeLessThanOrEqual(1);
    expect(d.seconds).toBeCloseTo(2 / 16000, 9);
  });

  it('resamples 48 kHz to 16 kHz, one third of the samples, keeping a sine', () => {
    const d = new RealtimeAudioDecoder({ encoding: 'pcm_f32le', sample_rate: 48000 });
    const n = 48000;
    const bytes = bytesOf((v) => { for (let i = 0; i < n; i++) v.setFloat32(i * 4, 0.5 * Math.sin((2 * Math.PI * 440 * i) / 48000), true); }, n * 4);
    const parts = [d.push(bytes.subarray(0, 100_001)), d.push(bytes.subarray(100_001)), d.end()];
    const out = new Int16Array(parts.reduce((k, p) => k + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    expect(out.length).toBe(16000);
    expect(d.seconds).toBe(1);
    const peak = out.subarray(1000, 15000).reduce((m, s) => Math.max(m, Math.abs(s)), 0);
    expect(peak).toBeGreaterThan(0.48 * 32767);
    expect(peak).toBeLessThan(0.52 * 32767);
  });
});
