import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import type { ParleyClient } from '../../../src/client/client.js';
import { PlatformError } from '../../../src/client/errors.js';
import { Float32PcmDecoder } from '../../../src/audio/pcm-decoder.js';
import { WavStreamDecoder } from '../../../src/audio/wav-decoder.js';
import { collect, platformClient, startPlatform } from './helpers.js';

let platform: Platform;
let client: ParleyClient;

beforeAll(async () => {
  platform = await startPlatform();
  client = platformClient(platform);
});
afterAll(() => platform.close());

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

describe('client.speech against the local platform', () => {
  test('stream(pcm) yields float32 bytes that decode to audible 24 kHz speech, then usage', async () => {
    const stream = client.speech.stream({ input: 'Hello from the speech client test.', response_format: 'pcm' });
    const { events: chunks, error } = await collect(stream);
    expect(error).toBeNull();
    expect(chunks.length).toBeGreaterThan(1);
    const decoder = new Float32PcmDecoder();
    const samples = chunks.flatMap((c) => [...decoder.push(c)]);
    expect(decoder.pendingBytes).toBe(0);
    const seconds = samples.length / 24000;
    expect(seconds).toBeGreaterThan(0.8);
    expect(seconds).toBeLessThan(10);
    const rms = Math.sqrt(samples.reduce((s, v) => s + v * v, 0) / samples.length);
    expect(rms).toBeGreaterThan(0.01);
    const usage = await stream.usage;
    expect(usage).toMatchObject({ completion_tokens: samples.length });
  });

  test('stream(wav) concatenates to a WAV file read progressively; synthesize gives the whole file', async () => {
    const { events: chunks } = await collect(client.speech.stream({ input: 'Two formats.', response_format: 'wav' }));
    const wav = new WavStreamDecoder();
    const streamed = chunks.flatMap((c) => [...wav.push(c)]);
    expect(wav.sampleRate).toBe(24000);
    expect(streamed.length).toBeGreaterThan(2400);

    const whole = await client.speech.synthesize({ input: 'Two formats.', response_format: 'wav' });
    expect(whole.format).toBe('wav');
    expect(new TextDecoder().decode(whole.bytes.slice(0, 4))).toBe('RIFF');
    expect(whole.audio_data.length).toBeGreaterThan(100);
    // Same text, same voice: the same length of audio (within a few samples of engine jitter).
    expect(Math.abs(concat(chunks).length - whole.bytes.length)).toBeLessThan(whole.bytes.length * 0.02);
  });

  test('the default format is mp3', async () => {
    const whole = await client.speech.synthesize({ input: 'Default format.' });
    expect(whole.format).toBe('mp3');
    expect(whole.bytes.length).toBeGreaterThan(100);
  });

  test('a bad request is a PlatformError before any chunk', async () => {
    const { events, error } = await collect(client.speech.stream({ input: '   ', response_format: 'pcm' }));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).status).toBe(422);
    await expect(client.speech.synthesize({ input: 'x', voice_id: 'no-such-voice' })).rejects.toMatchObject({ status: 422 });
  });

  test('voices lists the preset voices', async () => {
    const list = await client.speech.voices({ limit: 100 });
    expect(list.items.length).toBeGreaterThan(0);
    expect(list.items[0]).toHaveProperty('id');
    expect(list.items[0]).toHaveProperty('name');
  });

  test('abort mid-stream ends the iteration quietly', async () => {
    const stream = client.speech.stream({ input: 'A long sentence that keeps going for a while so there is time to stop it. '.repeat(4), response_format: 'pcm' });
    let n = 0;
    for await (const _chunk of stream) {
      if (++n === 2) stream.abort();
    }
    expect(n).toBe(2);
    expect(await stream.usage).toBeNull();
  });
});
