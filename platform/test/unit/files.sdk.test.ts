import { describe, expect, it } from 'vitest';
import { withSdkPlatform } from './sdk.js';

const JSONL = '{"text":"The quick brown fox."}\n{"text":"Jumps over the lazy dog."}\n';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

describe('files API through the official SDK', () => {
  const t = withSdkPlatform();

  it('upload, list, retrieve, download, getSignedUrl, delete', async () => {
    const up = await t.sdk.files.upload({ file: { fileName: 'corpus.jsonl', content: new TextEncoder().encode(JSONL) }, purpose: 'fine-tune' });
    expect(up).toMatchObject({ object: 'file', sizeBytes: JSONL.length, filename: 'corpus.jsonl', purpose: 'fine-tune', sampleType: 'pretrain', numLines: 2, source: 'upload' });
    const img = await t.sdk.files.upload({ file: new File([PNG], 'pic.png', { type: 'image/png' }), purpose: 'ocr', visibility: 'user' });
    expect(img).toMatchObject({ sampleType: 'ocr_input', mimetype: 'image/png', visibility: 'user' });

    const list = await t.sdk.files.list({ purpose: 'ocr', mimetypes: ['image/png'] });
    expect(list.total).toBe(1);
    expect(list.data.map((f) => f.id)).toEqual([img.id]);
    expect((await t.sdk.files.list({ sampleType: ['pretrain'], search: 'corpus' })).data.map((f) => f.id)).toEqual([up.id]);

    const got = await t.sdk.files.retrieve({ fileId: up.id });
    expect(got).toMatchObject({ id: up.id, deleted: false, createdAt: up.createdAt });

    const stream = await t.sdk.files.download({ fileId: img.id });
    expect(new Uint8Array(await new Response(stream).arrayBuffer())).toEqual(PNG);

    const { url } = await t.sdk.files.getSignedUrl({ fileId: up.id, expiry: 1 });
    const viaUrl = await t.platform.fetch(new Request(url));
    expect(await viaUrl.text()).toBe(JSONL);

    expect(await t.sdk.files.delete({ fileId: up.id })).toEqual({ id: up.id, object: 'file', deleted: true });
    await expect(t.sdk.files.retrieve({ fileId: up.id })).rejects.toMatchObject({ statusCode: 404 });
  });

  it('surfaces validation errors as HTTP 422', async () => {
    await expect(t.sdk.files.upload({ file: { fileName: 'x.txt', content: new TextEncoder().encode('not jsonl') }, purpose: 'fine-tune' }))
      .rejects.toMatchObject({ statusCode: 422 });
  });
});
