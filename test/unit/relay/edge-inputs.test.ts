/**
 * The relay's input checks in workerd (Miniflare from npm, no `nodejs_compat`), real HTTP all the way
 * (test → workerd → a Node upstream): a transcription form scanned as it streams (audio passes, HTML
 * and a forbidden model are refused), a stalled upload cut with 408 and the upstream upload aborted,
 * OCR `data:` documents, and the key scrubbed from the answer's body and headers.
 *
 * Needs `npm run build` (the relay's dist/, bundled as a Worker would be).
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, SECRET, within } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WORKER = fileURLToPath(new URL('../../fixtures/edge/inputs-worker.js', import.meta.url));
const KEY = 'sk-edge-inputs-KEY-5b8e21c4f0';

/** What the upstream got of one request. */
interface Upload { bytes: number; complete: boolean; aborted: boolean; done: Promise<void> }

let upstream: Server;
const uploads: Upload[] = [];
let mf: Miniflare;
let base: string;
let token: string;

beforeAll(async () => {
  if (!existsSync(`${ROOT}dist/relay/edge.js`)) throw new Error('The edge test needs the built package: dist/relay/edge.js is missing. Run `npm run build` first.');
  upstream = createServer((req, res) => {
    let finish!: () => void;
    const upload: Upload = { bytes: 0, complete: false, aborted: false, done: new Promise((r) => { finish = r; }) };
    uploads.push(upload);
    req.on('data', (d: Buffer) => { upload.bytes += d.length; });
    req.on('end', () => {
      upload.complete = true;
      finish();
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-request-id', `req-${KEY}`);
      res.end(JSON.stringify({ text: 'ok', echo: req.headers.authorization }));
    });
    req.on('close', () => { if (!upload.complete) upload.aborted = true; finish(); });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const built = await build({
    entryPoints: [WORKER], absWorkingDir: ROOT, bundle: true, write: false, format: 'esm',
    platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['module', 'main'], logLevel: 'silent',
  });
  mf = new Miniflare({
    modules: true, script: built.outputFiles[0]!.text, compatibilityDate: '2025-09-01',
    bindings: {
      PLATFORM_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, PLATFORM_API_KEY: KEY, RELAY_SECRET: SECRET, ALLOWED_ORIGIN: ORIGIN,
    },
  });
  base = new URL('/api', await mf.ready).href;
  const session = await fetch(`${base}/session`, { method: 'POST', headers: { origin: ORIGIN } });
  expect(session.status).toBe(200);
  token = ((await session.json()) as { token: string }).token;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await new Promise((resolve) => upstream?.close(resolve));
});

const form = (model: string, file: string) => `--b\r\nContent-Disposition: form-data; name="model"\r\n\r\n${model}\r\n`
  + `--b\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n${file}\r\n--b--\r\n`;
const WAV = `RIFF\0\0\0\0WAVEfmt ${'x'.repeat(100_000)}`;

function transcribe(body: BodyInit): Promise<Response> {
  return fetch(`${base}/v1/audio/transcriptions`, {
    method: 'POST', body, headers: { origin: ORIGIN, authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=b' },
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
}

describe('input checks in workerd', () => {
  it('audio streams through whole; the key is scrubbed from the answer body and headers', async () => {
    const before = uploads.length;
    const body = form('voxtral-mini-latest', WAV);
    const res = await transcribe(body);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).not.toContain(KEY); // the relay's own id (watch.ts)
    const text = await res.text();
    expect(text).toContain('Bearer [redacted]');
    expect(text).not.toContain(KEY);
    expect(uploads[before]).toMatchObject({ bytes: body.length, complete: true });
  });

  it('HTML named .wav → 415 and a forbidden model → 403, with no upstream call', async () => {
    const before = uploads.length;
    const html = await transcribe(form('voxtral-mini-latest', `<!DOCTYPE html><html>${'x'.repeat(1000)}`));
    expect(html.status).toBe(415);
    expect(await html.json()).toMatchObject({ object: 'error', code: 'unsupported_file_type' });
    const model = await transcribe(form('voxtral-large', WAV));
    expect(model.status).toBe(403);
    expect(await model.json()).toMatchObject({ code: 'model_not_allowed' });
    expect(uploads.length).toBe(before);
  });

  it('an upload that stalls after the file starts → 408, and the upstream upload is aborted', async () => {
    const before = uploads.length;
    const head = new TextEncoder().encode(form('voxtral-mini-latest', WAV).slice(0, 400));
    const stalled = new ReadableStream<Uint8Array>({ start(controller) { controller.enqueue(head); } });
    const res = await transcribe(stalled);
    expect(res.status).toBe(408);
    expect(await res.json()).toMatchObject({ object: 'error', code: 'request_timeout' });
    const upload = uploads[before]!;
    await within(upload.done, 10_000, 'the upstream request to end');
    expect(upload).toMatchObject({ complete: false, aborted: true });
  });

  it('OCR: a data: PDF passes; HTML declared as a PDF → 415; a remote URL → 403', async () => {
    const ocr = (document_url: string) => fetch(`${base}/v1/ocr`, {
      method: 'POST',
      headers: { origin: ORIGIN, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'voxtral-mini-latest', document: { type: 'document_url', document_url } }),
    });
    expect((await ocr(`data:application/pdf;base64,${btoa('%PDF-1.4\n%%EOF\n')}`)).status).toBe(200);
    expect((await ocr(`data:application/pdf;base64,${btoa('<html><body>x</body></html>')}`)).status).toBe(415);
    expect((await ocr('https://example.com/a.pdf')).status).toBe(403);
  });
});
