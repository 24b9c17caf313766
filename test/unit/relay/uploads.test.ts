// Uploads checked by their bytes: the transcription form as it streams (audio magic numbers, the
// model field against the session, no stored or remote files), OCR `data:` documents (PDF or image).
import { describe, expect, it } from 'vitest';
import { UPSTREAM_KEY, api, fakeUpstream, json, makeRelay, openSession } from './helpers.js';
import type { RelayOptions } from '../../../src/relay/index.js';

const encoder = new TextEncoder();
const bytes = (...parts: Array<string | number[]>) => new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));

/** First bytes of each audio container the relay lets through, padded to look like a file. */
const AUDIO: Record<string, Uint8Array<ArrayBuffer>> = {
  wav: bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt ', [16, 0, 0, 0, 1, 0, 1, 0]),
  rf64: bytes('RF64', [0xff, 0xff, 0xff, 0xff], 'WAVEds64'),
  'mp3 (ID3)': bytes('ID3', [4, 0, 0, 0, 0, 0, 0]),
  'mp3 (frame)': bytes([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]),
  ogg: bytes('OggS', [0, 2, 0, 0, 0, 0, 0, 0, 0, 0], 'OpusHead'),
  flac: bytes('fLaC', [0, 0, 0, 0x22]),
  webm: bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81]),
  m4a: bytes([0, 0, 0, 0x20], 'ftypM4A ', [0, 0, 0, 0]),
  aac: bytes([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc]),
  aiff: bytes('FORM', [0, 0, 0, 0], 'AIFFCOMM'),
};

/** Files that are not audio, whatever their name and declared type say. */
const NOT_AUDIO: Record<string, Uint8Array<ArrayBuffer>> = {
  html: encoder.encode('<!DOCTYPE html><html><script>alert(1)</script></html>'),
  exe: bytes('MZ', [0x90, 0, 3, 0, 0, 0, 4, 0], 'This program cannot be run in DOS mode'),
  pdf: encoder.encode('%PDF-1.7\n%âãÏÓ\n'),
  zip: bytes('PK', [3, 4, 20, 0, 0, 0]),
  text: encoder.encode('just some text that is long enough'),
  empty: new Uint8Array(0),
};

/** A multipart body built by the platform's own FormData encoder: bytes and content type. */
async function form(fields: Array<[string, string | Blob, string?]>): Promise<{ body: Uint8Array<ArrayBuffer>; type: string }> {
  const data = new FormData();
  for (const [name, value, filename] of fields) {
    if (typeof value === 'string') data.append(name, value);
    else data.append(name, value, filename);
  }
  const request = new Request('http://x/', { method: 'POST', body: data });
  return { body: new Uint8Array(await request.arrayBuffer()), type: request.headers.get('content-type')! };
}

const wavFile = (padding = 100) => new Blob([AUDIO.wav!, new Uint8Array(padding)], { type: 'audio/wav' });

/** What the fake platform got: the whole body, or that reading it failed. */
interface Received { bytes?: Uint8Array; failed?: boolean }

async function setup(options: Partial<RelayOptions> = {}) {
  const received: Received[] = [];
  const upstream = fakeUpstream(async (req) => {
    const got: Received = {};
    received.push(got);
    try {
      got.bytes = new Uint8Array(await req.arrayBuffer());
    } catch {
      got.failed = true;
      throw new TypeError('body read failed');
    }
    return json({ text: 'ok' });
  });
  const relay = makeRelay(upstream.fetch, options);
  const { token } = await openSession(relay);
  const send = (body: BodyInit, type: string) => api(relay, '/v1/audio/transcriptions', { token, rawBody: body, headers: { 'content-type': type } });
  const ocr = (body: unknown) => api(relay, '/v1/ocr', { token, body });
  return { upstream, received, relay, token, send, ocr };
}

async function expectError(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(await res.json()).toMatchObject({ object: 'error', code, param: null });
}

/** A request body streamed in `size` chunks, reporting whether it was cancelled. */
function streamed(data: Uint8Array, size: number) {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= data.length) return controller.close();
      controller.enqueue(data.slice(at, at + size));
      at += size;
    },
  });
}

describe('transcription uploads, judged by their first bytes', () => {
  it.each(Object.keys(AUDIO))('%s passes, the body reaches the platform unchanged', async (kind) => {
    const { send, received } = await setup();
    const { body, type } = await form([['model', 'voxtral-mini-latest'], ['file', new Blob([AUDIO[kind]!, new Uint8Array(64)]), 'a.bin']]);
    const res = await send(body, type);
    expect(res.status).toBe(200);
    expect(received[0]!.bytes).toEqual(body);
  });

  it.each(Object.keys(NOT_AUDIO))('%s named a.wav (audio/wav) → 415 unsupported_file_type, no upstream call', async (kind) => {
    const { send, upstream } = await setup();
    const { body, type } = await form([['model', 'voxtral-mini-latest'], ['file', new Blob([NOT_AUDIO[kind]!], { type: 'audio/wav' }), 'a.wav']]);
    await expectError(await send(body, type), 415, 'unsupported_file_type');
    expect(upstream.calls).toHaveLength(0);
  });

  it('the file first in a slowly streamed body: refused as soon as its first bytes are seen', async () => {
    const { send, upstream } = await setup();
    const html = new Blob([NOT_AUDIO.html!, new Uint8Array(200 * 1024)], { type: 'audio/wav' });
    const { body, type } = await form([['file', html, 'a.wav'], ['model', 'voxtral-mini-latest']]);
    await expectError(await send(streamed(body, 7), type), 415, 'unsupported_file_type');
    expect(upstream.calls).toHaveLength(0);
  });
});

describe('the form fields of a transcription', () => {
  const policy = { models: ['voxtral-mini-latest'] };

  it('a model the session may not use, before the file → 403 model_not_allowed, no upstream call', async () => {
    const { send, upstream } = await setup({ policy });
    const { body, type } = await form([['model', 'voxtral-large'], ['file', wavFile(), 'a.wav']]);
    await expectError(await send(body, type), 403, 'model_not_allowed');
    expect(upstream.calls).toHaveLength(0);
    const ok = await form([['model', 'voxtral-mini-latest'], ['file', wavFile(), 'a.wav']]);
    expect((await send(ok.body, ok.type)).status).toBe(200);
  });

  it('the model after the file → 403, and the platform never gets the complete body', async () => {
    const { send, upstream, received } = await setup({ policy });
    const { body, type } = await form([['file', wavFile(300 * 1024), 'a.wav'], ['model', 'voxtral-large']]);
    await expectError(await send(streamed(body, 16 * 1024), type), 403, 'model_not_allowed');
    expect(upstream.calls).toHaveLength(1);
    expect(received[0]!.failed).toBe(true);
    expect(received[0]!.bytes).toBeUndefined();
  });

  it('the model after the file in the very last chunk → 403, the closing boundary is never forwarded', async () => {
    const { send, received } = await setup({ policy });
    const { body, type } = await form([['file', wavFile(64 * 1024), 'a.wav'], ['model', 'voxtral-large']]);
    const res = await send(streamed(body, body.length - 200), type);
    await expectError(res, 403, 'model_not_allowed');
    expect(received.every((r) => r.failed && !r.bytes)).toBe(true);
  });

  it('file_id → 403; file_url → 403 unless remote files are allowed', async () => {
    const { send, upstream } = await setup();
    const byId = await form([['model', 'voxtral-mini-latest'], ['file_id', 'file_123']]);
    await expectError(await send(byId.body, byId.type), 403, 'file_id_not_allowed');
    const byUrl = await form([['model', 'voxtral-mini-latest'], ['file_url', 'http://169.254.169.254/latest/meta-data']]);
    await expectError(await send(byUrl.body, byUrl.type), 403, 'remote_file_not_allowed');
    expect(upstream.calls).toHaveLength(0);

    const open = await setup({ allowRemoteFiles: true });
    const remote = await form([['model', 'voxtral-mini-latest'], ['file_url', 'https://cdn.example/a.mp3']]);
    expect((await open.send(remote.body, remote.type)).status).toBe(200);
    expect(open.received[0]!.bytes).toEqual(remote.body);
  });
});

describe('a forbidden model smuggled past the relay\'s reading of the form', () => {
  const wav = 'RIFF\0\0\0\0WAVEfmt \0\0\0\0';
  const lead = '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nvoxtral-mini-latest\r\n';
  const file = `--b\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n${wav}\r\n--b--\r\n`;
  it.each([
    ['in a preamble without CRLF', `junk--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nvoxtral-large\r\n${file}`],
    ['as a second name', `${lead}--b\r\nContent-Disposition: form-data; name="language"; name="model"\r\n\r\nvoxtral-large\r\n${file}`],
    ['as an encoded name*', `${lead}--b\r\nContent-Disposition: form-data; name="language"; name*=utf-8''model\r\n\r\nvoxtral-large\r\n${file}`],
    ['behind a bare CR', `${lead}--b\r\nContent-Disposition: form-data; name="language"\r\nX-A: 1\rXContent-Disposition: form-data; name="model"\r\n\r\nvoxtral-large\r\n${file}`],
    ['behind a backslash-quote', `${lead}--b\r\nContent-Disposition: form-data; filename="x\\"; name="model"\r\n\r\nvoxtral-large\r\n${file}`],
    ['in a second Content-Disposition', `${lead}--b\r\nContent-Disposition: form-data; name="language"\r\nContent-Disposition: form-data; name="model"\r\n\r\nvoxtral-large\r\n${file}`],
  ])('%s → refused; the platform never reads a form with that model', async (_, body) => {
    const models: string[] = [];
    const upstream = fakeUpstream(async (req) => {
      const form = await req.formData(); // the platform's parser (undici)
      models.push(...form.getAll('model').map(String));
      return json({ text: 'ok' });
    });
    const relay = makeRelay(upstream.fetch, { policy: { models: ['voxtral-mini-latest'] } });
    const { token } = await openSession(relay);
    const res = await api(relay, '/v1/audio/transcriptions', { token, rawBody: body, headers: { 'content-type': 'multipart/form-data; boundary=b' } });
    expect([400, 403]).toContain(res.status);
    expect(models).not.toContain('voxtral-large');
  });
});

describe('malformed forms → 400 invalid_multipart, bounded', () => {
  it('no boundary, no opening boundary, no closing boundary', async () => {
    const { send, upstream, received } = await setup();
    await expectError(await send('x', 'multipart/form-data'), 400, 'invalid_multipart');
    await expectError(await send('garbage '.repeat(2000), 'multipart/form-data; boundary=abc'), 400, 'invalid_multipart');
    expect(upstream.calls).toHaveLength(0);
    const { body, type } = await form([['model', 'voxtral-mini-latest'], ['file', wavFile(), 'a.wav']]);
    await expectError(await send(body.subarray(0, body.length - 20), type), 400, 'invalid_multipart');
    expect(received.every((r) => !r.bytes)).toBe(true);
  });

  it('a part header block over 8 KB, more than 256 parts, a part without a name', async () => {
    const { send, upstream } = await setup();
    const big = `--b\r\nContent-Disposition: form-data; name="model"\r\nX-Pad: ${'p'.repeat(9000)}\r\n\r\nm\r\n--b--\r\n`;
    await expectError(await send(big, 'multipart/form-data; boundary=b'), 400, 'invalid_multipart');
    const many = `${'--b\r\nContent-Disposition: form-data; name="context_bias"\r\n\r\nword\r\n'.repeat(300)}--b--\r\n`;
    await expectError(await send(many, 'multipart/form-data; boundary=b'), 400, 'invalid_multipart');
    const nameless = '--b\r\nContent-Disposition: form-data\r\n\r\nm\r\n--b--\r\n';
    await expectError(await send(nameless, 'multipart/form-data; boundary=b'), 400, 'invalid_multipart');
    expect(upstream.calls).toHaveLength(0);
  });

  it('a boundary split across chunks at every position still parses', async () => {
    const { body, type } = await form([['model', 'voxtral-mini-latest'], ['file', wavFile(40), 'a.wav'], ['language', 'en']]);
    const { send, received } = await setup();
    for (let size = 1; size <= 70; size += 3) {
      const res = await send(streamed(body, size), type);
      expect(res.status, `chunks of ${size}`).toBe(200);
    }
    expect(received.every((r) => r.bytes && r.bytes.length === body.length)).toBe(true);
  });
});

const b64 = (data: Uint8Array) => btoa(String.fromCharCode(...data));
const PDF = encoder.encode('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n');
const PNG = bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d], 'IHDR');
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10], 'JFIF');

describe('OCR documents', () => {
  const doc = (document: unknown) => ({ model: 'mistral-ocr-latest', document });

  it('data: PDFs and images pass, matching their field and declared type', async () => {
    const { ocr, upstream } = await setup();
    for (const document of [
      { type: 'document_url', document_url: `data:application/pdf;base64,${b64(PDF)}` },
      { type: 'image_url', image_url: `data:image/png;base64,${b64(PNG)}` },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${b64(JPEG)}` } },
      { type: 'document_url', document_url: `data:image/jpeg;base64,${b64(JPEG)}` },
      { type: 'document_url', document_url: `data:application/octet-stream;base64,${b64(PDF)}` },
    ]) {
      expect((await ocr(doc(document))).status, JSON.stringify(document).slice(0, 60)).toBe(200);
    }
    expect(upstream.calls).toHaveLength(5);
  });

  it('HTML declared as a PDF, a PDF as an image, a PNG declared as a PDF → 415, no upstream call', async () => {
    const { ocr, upstream } = await setup();
    const html = encoder.encode('<html><body onload="x()">hi</body></html>');
    for (const document of [
      { type: 'document_url', document_url: `data:application/pdf;base64,${b64(html)}` },
      { type: 'image_url', image_url: `data:image/png;base64,${b64(PDF)}` },
      { type: 'document_url', document_url: `data:application/pdf;base64,${b64(PNG)}` },
      { type: 'image_url', image_url: `data:image/svg+xml;base64,${b64(encoder.encode('<svg onload="x()"/>'))}` },
    ]) {
      await expectError(await ocr(doc(document)), 415, 'unsupported_file_type');
    }
    expect(upstream.calls).toHaveLength(0);
  });

  it('a data: URL that is not base64 → 400; an unknown document type → 400', async () => {
    const { ocr, upstream } = await setup();
    await expectError(await ocr(doc({ type: 'document_url', document_url: 'data:application/pdf,%25PDF-1.4' })), 400, 'invalid_document');
    await expectError(await ocr(doc({ type: 'document_url', document_url: 'data:application/pdf;base64,%%%%' })), 400, 'invalid_document');
    await expectError(await ocr(doc({ type: 'something_url', something_url: 'x' })), 400, 'invalid_document');
    expect(upstream.calls).toHaveLength(0);
  });

  it('remote URLs → 403 unless allowed (the platform would fetch them); stored files → 403 always', async () => {
    const { ocr, upstream } = await setup();
    await expectError(await ocr(doc({ type: 'document_url', document_url: 'https://example.com/a.pdf' })), 403, 'remote_file_not_allowed');
    await expectError(await ocr(doc({ type: 'image_url', image_url: 'http://127.0.0.1:6379/' })), 403, 'remote_file_not_allowed');
    await expectError(await ocr(doc({ type: 'file', file_id: 'file_1' })), 403, 'file_id_not_allowed');
    expect(upstream.calls).toHaveLength(0);

    const open = await setup({ allowRemoteFiles: true });
    expect((await open.ocr(doc({ type: 'document_url', document_url: 'https://example.com/a.pdf' }))).status).toBe(200);
    await expectError(await open.ocr(doc({ type: 'image_url', image_url: 'http://example.com/a.png' })), 400, 'invalid_document');
    await expectError(await open.ocr(doc({ type: 'file', file_id: 'file_1' })), 403, 'file_id_not_allowed');
    expect(open.upstream.calls).toHaveLength(1);
  });

  it('error messages never carry the key', async () => {
    const { ocr } = await setup();
    const res = await ocr(doc({ type: 'document_url', document_url: `data:application/pdf;base64,${b64(encoder.encode('<html>'))}` }));
    expect(await res.text()).not.toContain(UPSTREAM_KEY);
  });
});

describe('transcription uploads and the stream cap', () => {
  it('an upload holds one of the session stream slots whatever Accept says (the form field `stream` decides upstream)', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    const upstream = fakeUpstream(async (req) => {
      await req.arrayBuffer();
      await held;
      return new Response('event: transcription.done\ndata: {"type":"transcription.done","text":"ok"}\n\n', { headers: { 'content-type': 'text/event-stream' } });
    });
    const relay = makeRelay(upstream.fetch, { policy: { limits: { requestsPerMinute: 60, burst: 10, concurrentStreams: 1 } } });
    const { token } = await openSession(relay);
    const { body, type } = await form([['model', 'voxtral-mini-latest'], ['stream', 'true'], ['file', wavFile(), 'a.wav']]);
    const send = () => api(relay, '/v1/audio/transcriptions', { token, rawBody: body, headers: { 'content-type': type, accept: 'application/json' } });
    const first = send();
    await expect.poll(() => upstream.calls.length).toBe(1);
    await expectError(await send(), 429, 'too_many_streams');
    release();
    const answer = await first;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('transcription.done');
    // The slot is free again once the first upload's answer has ended.
    const again = await send();
    expect(again.status).toBe(200);
    await again.text();
  });
});
