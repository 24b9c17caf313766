import { describe, expect, it } from 'vitest';
import { api, fakeUpstream, json, makeRelay, openSession, within } from './helpers.js';
import { DEFAULT_BODY_LIMITS } from '../../../src/relay/proxy/route-table.js';

const KB = 1024;

/**
 * A request body that yields `chunkBytes` chunks until `totalBytes` (or forever), reporting cancellation;
 * with `multipart`, the first chunk opens a WAV file part of boundary `abc` and the last one closes the form.
 */
function chunkedBody(chunkBytes: number, totalBytes = Infinity, { multipart = false } = {}) {
  const encoder = new TextEncoder();
  const opening = encoder.encode('--abc\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF\0\0\0\0WAVEfmt ');
  const closing = encoder.encode('\r\n--abc--\r\n');
  let sent = 0;
  let cancelled!: () => void;
  const wasCancelled = new Promise<void>((r) => { cancelled = r; });
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      const chunk = new Uint8Array(chunkBytes).fill(0x20);
      if (multipart && sent === 0) chunk.set(opening);
      if (multipart && sent + chunkBytes >= totalBytes) chunk.set(closing, chunkBytes - closing.length);
      sent += chunkBytes;
      controller.enqueue(chunk);
    },
    cancel() { cancelled(); },
  });
  return { stream, wasCancelled, sent: () => sent };
}

async function setup(limits = {}) {
  const upstream = fakeUpstream(async (req) => {
    await req.arrayBuffer();
    return json({ conversation_id: 'conv_1', text: 'ok' });
  });
  const relay = makeRelay(upstream.fetch, { bodyLimits: limits });
  const { token } = await openSession(relay);
  return { upstream, relay, token };
}

describe('content types (415)', () => {
  it('POST with text/plain, form encoding, none, or multipart on a JSON route → 415, no upstream call', async () => {
    const { relay, token, upstream } = await setup();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', null]) {
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      const res = await api(relay, '/v1/conversations', { token, rawBody: '{"model":"m","inputs":"x"}', headers });
      expect(res.status, String(type)).toBe(415);
      expect(await res.json()).toMatchObject({ object: 'error', code: 'unsupported_media_type' });
    }
    expect(upstream.calls).toHaveLength(0);
  });

  it('the transcription route takes multipart only', async () => {
    const { relay, token } = await setup();
    expect((await api(relay, '/v1/audio/transcriptions', { token, body: { model: 'x' } })).status).toBe(415);
    const form = new FormData();
    form.set('model', 'voxtral-mini-latest');
    form.set('file', new Blob([new TextEncoder().encode('RIFF\0\0\0\0WAVEfmt '), new Uint8Array(100)], { type: 'audio/wav' }), 'a.wav');
    const req = new Request('http://x/', { method: 'POST', body: form });
    const res = await api(relay, '/v1/audio/transcriptions', { token, rawBody: await req.arrayBuffer(), headers: { 'content-type': req.headers.get('content-type')! } });
    expect(res.status).toBe(200);
  });
});

describe('body caps (413), counted while the body streams', () => {
  it('Content-Length over the cap → 413 before reading, no upstream call', async () => {
    const { relay, token, upstream } = await setup({ speech: 64 * KB });
    const body = chunkedBody(KB);
    const res = await api(relay, '/v1/audio/speech', { token, rawBody: body.stream, headers: { 'content-type': 'application/json', 'content-length': String(64 * KB + 1) } });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'request_too_large' });
    expect(body.sent()).toBeLessThanOrEqual(2 * KB);
    expect(upstream.calls).toHaveLength(0);
  });

  it('a chunked JSON body growing past the cap → 413 once the cap is passed, no upstream call, the body stops being read', async () => {
    const { relay, token, upstream } = await setup();
    const body = chunkedBody(64 * KB);
    const res = await api(relay, '/v1/conversations', { token, rawBody: body.stream, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    await within(body.wasCancelled, 5_000, 'request body cancel');
    // The cap leaves room for attachments (1 MB of text + the base64 of 20 MB): reading stops there.
    expect(body.sent()).toBeLessThanOrEqual(DEFAULT_BODY_LIMITS.conversations + 128 * KB);
    expect(upstream.calls).toHaveLength(0);
  });

  it('a chunked multipart upload growing past the cap → 413 and the upstream request is aborted', async () => {
    let upstreamAborted = false;
    const upstream = fakeUpstream(async (req) => {
      req.signal.addEventListener('abort', () => { upstreamAborted = true; });
      await req.arrayBuffer(); // reading errors when the relay cuts the body
      return json({ text: 'never' });
    });
    const relay = makeRelay(upstream.fetch, { bodyLimits: { transcription: 100 * KB } });
    const { token } = await openSession(relay);
    const body = chunkedBody(16 * KB, Infinity, { multipart: true });
    const res = await api(relay, '/v1/audio/transcriptions', { token, rawBody: body.stream, headers: { 'content-type': 'multipart/form-data; boundary=abc' } });
    expect(res.status).toBe(413);
    expect(upstream.calls).toHaveLength(1);
    expect(upstreamAborted).toBe(true);
    await within(body.wasCancelled, 5_000, 'request body cancel');
    expect(body.sent()).toBeLessThanOrEqual(100 * KB + 32 * KB);
  });

  it('a multipart upload within the cap streams through whole', async () => {
    let received = 0;
    const upstream = fakeUpstream(async (req) => { received = (await req.arrayBuffer()).byteLength; return json({ text: 'ok' }); });
    const relay = makeRelay(upstream.fetch, { bodyLimits: { transcription: 100 * KB } });
    const { token } = await openSession(relay);
    const body = chunkedBody(10 * KB, 90 * KB, { multipart: true });
    const res = await api(relay, '/v1/audio/transcriptions', { token, rawBody: body.stream, headers: { 'content-type': 'multipart/form-data; boundary=abc' } });
    expect(res.status).toBe(200);
    expect(received).toBe(90 * KB);
  });

  it('bodies up to the cap pass; one byte more does not', async () => {
    const { relay, token, upstream } = await setup({ speech: 1000 });
    const fit = JSON.stringify({ input: 'x'.repeat(1000 - 12) });
    expect(fit.length).toBe(1000);
    expect((await api(relay, '/v1/audio/speech', { token, rawBody: fit, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    const over = JSON.stringify({ input: 'x'.repeat(1000 - 11) });
    expect((await api(relay, '/v1/audio/speech', { token, rawBody: over, headers: { 'content-type': 'application/json' } })).status).toBe(413);
    expect(upstream.calls).toHaveLength(1);
  });

  it('Content-Length with Transfer-Encoding → 400; a malformed Content-Length → 400', async () => {
    const { relay, token, upstream } = await setup();
    const both = await api(relay, '/v1/conversations', { token, rawBody: '{}', headers: { 'content-type': 'application/json', 'content-length': '2', 'transfer-encoding': 'chunked' } });
    expect(both.status).toBe(400);
    const bad = await api(relay, '/v1/conversations', { token, rawBody: '{}', headers: { 'content-type': 'application/json', 'content-length': '-1' } });
    expect(bad.status).toBe(400);
    expect(upstream.calls).toHaveLength(0);
  });
});

describe('malformed JSON (400), and the relay keeps answering', () => {
  it.each([
    ['invalid JSON', '{"model": "m", '],
    ['not an object', '["model"]'],
    ['a string', '"hello"'],
    ['null', 'null'],
    ['invalid UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])],
    ['model not a string', '{"model": 5, "inputs": "x"}'],
    ['agent_id not a string', '{"agent_id": {"$ne": 1}, "inputs": "x"}'],
  ])('%s → 400', async (_name, raw) => {
    const { relay, token, upstream } = await setup();
    const res = await api(relay, '/v1/conversations', { token, rawBody: raw as BodyInit, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ object: 'error', type: 'invalid_request_error' });
    expect(upstream.calls).toHaveLength(0);
    expect((await api(relay, '/v1/models', { token })).status).toBe(200);
  });

  it('deep nesting within the cap does not crash the relay', async () => {
    const { relay, token } = await setup();
    const deep = `{"model":"m","inputs":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const res = await api(relay, '/v1/conversations', { token, rawBody: deep, headers: { 'content-type': 'application/json' } });
    expect([200, 400]).toContain(res.status);
    expect((await api(relay, '/v1/models', { token })).status).toBe(200);
  });

  it('a 10 MB JSON string → 413 (text is held to 1 MB; only attachments use the rest of the cap)', async () => {
    const { relay, token } = await setup();
    const res = await api(relay, '/v1/conversations', { token, rawBody: JSON.stringify({ model: 'm', inputs: 'x'.repeat(10 * 1024 * KB) }), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
  });
});
