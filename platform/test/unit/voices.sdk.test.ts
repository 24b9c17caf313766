import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withSdkPlatform } from './sdk.js';
import { parseWav } from './speech-audio.js';

const FOX = readFileSync(join(import.meta.dirname, '../../../test/fixtures/transcription/fox.wav'));

describe('custom voices through the official SDK', () => {
  const t = withSdkPlatform();

  it('create, list, get, update, getSampleAudio, delete, and speak with it', { timeout: 60_000 }, async () => {
    const v = await t.sdk.audio.voices.create({ name: 'Fox', slug: 'fox', languages: ['en-GB'], sampleAudio: FOX.toString('base64'), sampleFilename: 'fox.wav' });
    expect(v).toMatchObject({ name: 'Fox', slug: 'fox', languages: ['en-GB'], retentionNotice: 30 });
    expect(v.createdAt).toBeInstanceOf(Date);

    const list = await t.sdk.audio.voices.list({ type: 'custom' });
    expect(list.total).toBe(1);
    expect(list.items.map((x) => x.id)).toEqual([v.id]);
    expect((await t.sdk.audio.voices.get({ voiceId: v.id })).name).toBe('Fox');

    const up = await t.sdk.audio.voices.update({ voiceId: v.id, voiceUpdateRequest: { name: 'Fox 2', gender: 'female' } });
    expect(up).toMatchObject({ id: v.id, name: 'Fox 2', gender: 'female', slug: 'fox' });

    const sample = await t.sdk.audio.voices.getSampleAudio({ voiceId: v.id });
    const wav = parseWav(new Uint8Array(await new Response(sample).arrayBuffer()));
    expect(wav.samples.length).toBeGreaterThan(24000);

    const speech = await t.sdk.audio.speech.complete({ input: 'Hello there.', voiceId: v.id, responseFormat: 'wav' });
    expect('audioData' in speech && speech.audioData.length).toBeGreaterThan(100);

    expect((await t.sdk.audio.voices.delete({ voiceId: v.id })).id).toBe(v.id);
    await expect(t.sdk.audio.voices.get({ voiceId: v.id })).rejects.toMatchObject({ statusCode: 404 });
    const preset = (await t.sdk.audio.voices.list({ type: 'preset' })).items[0];
    await expect(t.sdk.audio.voices.delete({ voiceId: preset.id })).rejects.toMatchObject({ statusCode: 403 });
  });

  it('surfaces a bad sample as a 422 validation error', async () => {
    await expect(t.sdk.audio.voices.create({ name: 'Bad', sampleAudio: Buffer.from('no audio here').toString('base64') }))
      .rejects.toMatchObject({ name: 'HTTPValidationError' });
  });
});
