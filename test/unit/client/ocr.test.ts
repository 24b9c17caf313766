// client.ocr over loopback HTTP: a small Hono OCR server (the local platform's route is another
// engineer's) that checks the request shape as the reference §6 states it, answers each requested page
// with its own text (in reverse order, to prove the merge sorts), and can fail on demand; plus one run
// through the real relay in front of it (scope `ocr`, model policy).
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ParleyClient } from '../../../src/client/client.js';
import { PlatformError } from '../../../src/client/errors.js';
import { countPdfPages } from '../../../src/client/ocr.js';
import { RelaySession } from '../../../src/client/session.js';
import type { OcrProgress, OcrRequest } from '../../../src/client/index.js';
import { createRelay, serveRelay, type ServedRelay } from '../../../src/relay/index.js';
import { OPEN_POLICY } from '../relay/helpers.js';
import { serveFetch, type ServedFetch } from '../../../src/server/node-serve.js';

const KEY = 'ocr-upstream-key';
const ORIGIN = 'https://docs.example';
const DOC_PAGES = 10;

/** A PDF whose page tree is stored as plain text (as small generators write it), `pages` pages. */
function plainPdf(pages: number): Uint8Array<ArrayBuffer> {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const objects = [
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    `2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj`,
    ...Array.from({ length: pages }, (_, i) => `${i + 3} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj`),
  ];
  return new Uint8Array(new TextEncoder().encode(`%PDF-1.4\n${objects.join('\n')}\ntrailer << /Root 1 0 R >>\n%%EOF\n`));
}

const requests: OcrRequest[] = [];
let failNext: Array<{ status: number; body: unknown; headers?: Record<string, string> }> = [];

function problem(message: string) {
  return { object: 'error', message, type: 'invalid_request_error', param: null, code: null };
}

/** Validates like the platform and answers page by page. */
const upstream = new Hono().post('/v1/ocr', async (c) => {
  if (c.req.header('authorization') !== `Bearer ${KEY}`) return c.json(problem('bad key'), 401);
  const failure = failNext.shift();
  if (failure) return c.json(failure.body as object, failure.status as 400, failure.headers);
  const body = await c.req.json<OcrRequest>();
  requests.push(body);
  const doc = body.document;
  if (typeof body.model !== 'string' || !doc) return c.json(problem('model and document are required'), 422);
  let pageCount = 1;
  if (doc.type === 'document_url') {
    if (!/^(?:https:\/\/|data:application\/pdf;base64,)/.test(doc.document_url)) return c.json(problem('document_url must be https or a PDF data URL'), 422);
    pageCount = doc.document_url.startsWith('data:') ? countPdfPages(Buffer.from(doc.document_url.split(',')[1]!, 'base64')) ?? 1 : 3;
  } else if (doc.type === 'image_url') {
    const url = typeof doc.image_url === 'string' ? doc.image_url : doc.image_url.url;
    if (!/^(?:https:\/\/|data:image\/[a-z]+;base64,)/.test(url)) return c.json(problem('image_url must be https or an image data URL'), 422);
  } else {
    return c.json(problem('unsupported document'), 422);
  }
  const pages = Array.isArray(body.pages) ? body.pages : Array.from({ length: pageCount }, (_, i) => i);
  if (pages.some((p) => p >= pageCount)) return c.json(problem('page out of range'), 422);
  return c.json({
    model: body.model,
    document_annotation: null,
    usage_info: { pages_processed: pages.length, doc_size_bytes: 1234 },
    pages: [...pages].reverse().map((index) => ({ index, markdown: `# Page ${index + 1}`, images: [], dimensions: { dpi: 200, height: 2200, width: 1700 } })),
  });
});

let server: ServedFetch;
let relay: ServedRelay;
let client: ParleyClient;

beforeAll(async () => {
  server = await serveFetch((request) => upstream.fetch(request));
  client = new ParleyClient({ baseUrl: server.url, getToken: async () => KEY, retry: { baseDelayMs: 5, maxDelayMs: 50 } });
});
afterAll(async () => {
  await relay?.close();
  await server.close();
});

function fresh(): void {
  requests.length = 0;
  failNext = [];
}

describe('client.ocr.process', () => {
  test('an image Blob is sent as an image_url data URL with the default model and options', async () => {
    fresh();
    const progress: OcrProgress[] = [];
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])], { type: 'image/png' });
    const result = await client.ocr.process(png, { includeImageBase64: true, tableFormat: 'html', imageMinSize: 10, onProgress: (p) => progress.push(p) });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toEqual({
      model: 'mistral-ocr-latest',
      document: { type: 'image_url', image_url: 'data:image/png;base64,iVBORwECAw==' },
      include_image_base64: true, table_format: 'html', image_min_size: 10,
    });
    expect(result.pages.map((p) => p.markdown)).toEqual(['# Page 1']);
    expect(progress).toEqual([{ pagesDone: 0, pagesTotal: null }, { pagesDone: 1, pagesTotal: 1 }]);
  });

  test('a PDF with a plain page tree is counted and sent in batches of 4; pages merge in order, usage sums', async () => {
    fresh();
    expect(countPdfPages(plainPdf(DOC_PAGES))).toBe(DOC_PAGES);
    const progress: OcrProgress[] = [];
    const file = new File([plainPdf(DOC_PAGES)], 'report.pdf', { type: 'application/pdf' });
    const result = await client.ocr.process(file, { onProgress: (p) => progress.push(p) });
    expect(requests.map((r) => r.pages)).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]);
    expect(requests[0]!.document).toMatchObject({ type: 'document_url', document_name: 'report.pdf' });
    expect((requests[0]!.document as { document_url: string }).document_url).toMatch(/^data:application\/pdf;base64,JVBERi0/);
    expect(result.pages.map((p) => p.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(result.pages[9]!.markdown).toBe('# Page 10');
    expect(result.usage_info).toEqual({ pages_processed: 10, doc_size_bytes: 1234 });
    expect(progress).toEqual([{ pagesDone: 0, pagesTotal: 10 }, { pagesDone: 4, pagesTotal: 10 }, { pagesDone: 8, pagesTotal: 10 }, { pagesDone: 10, pagesTotal: 10 }]);
  });

  test('the caller\'s pages and batch size decide the batches; an untyped PDF Blob is recognised', async () => {
    fresh();
    const result = await client.ocr.process(new Blob([plainPdf(DOC_PAGES)]), { pages: [9, 2, 5], batchSize: 2 });
    expect(requests.map((r) => r.pages)).toEqual([[9, 2], [5]]);
    expect(result.pages.map((p) => p.index)).toEqual([2, 5, 9]);
  });

  test('a PDF whose page tree cannot be read cheaply goes in one request', async () => {
    fresh();
    const progress: OcrProgress[] = [];
    const opaque = new Blob(['%PDF-1.7\n1 0 obj << /Type /ObjStm /N 12 >> stream\nxx\nendstream\n%%EOF'], { type: 'application/pdf' });
    expect(countPdfPages(new Uint8Array(await opaque.arrayBuffer()))).toBeNull();
    const result = await client.ocr.process(opaque, { onProgress: (p) => progress.push(p) });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.pages).toBeUndefined();
    expect(result.pages).toHaveLength(1);
    expect(progress.at(-1)).toEqual({ pagesDone: 1, pagesTotal: 1 });
  });

  test('URLs: images by extension as image_url, others as document_url; not-http is refused before sending', async () => {
    fresh();
    await client.ocr.process('https://files.example/scan.JPG?x=1');
    await client.ocr.process('https://files.example/paper', { pageCount: 3, batchSize: 2, documentName: 'paper' });
    expect(requests.map((r) => r.document)).toEqual([
      { type: 'image_url', image_url: 'https://files.example/scan.JPG?x=1' },
      { type: 'document_url', document_url: 'https://files.example/paper', document_name: 'paper' },
      { type: 'document_url', document_url: 'https://files.example/paper', document_name: 'paper' },
    ]);
    expect(requests.slice(1).map((r) => r.pages)).toEqual([[0, 1], [2]]);
    const bad = await client.ocr.process('javascript:alert(1)').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(PlatformError);
    expect((bad as PlatformError).type).toBe('invalid_request_error');
    expect(requests).toHaveLength(3);
  });

  test('a Blob that is neither PDF nor image is refused without a request', async () => {
    fresh();
    const bad = await client.ocr.process(new Blob(['hello'], { type: 'text/plain' })).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(PlatformError);
    expect((bad as PlatformError).message).toMatch(/text\/plain/);
    expect(requests).toHaveLength(0);
  });

  test('errors: 503 is retried before the answer; a 422 becomes a PlatformError; a failed batch fails the call', async () => {
    fresh();
    failNext = [{ status: 503, body: { ...problem('busy'), type: 'server_error' } }];
    const ok = await client.ocr.process('https://files.example/a.png');
    expect(ok.pages).toHaveLength(1);
    expect(failNext).toHaveLength(0);

    fresh();
    failNext = [{ status: 422, body: problem('Document is not readable') }];
    const bad = await client.ocr.process('https://files.example/a.png').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(PlatformError);
    expect((bad as PlatformError).status).toBe(422);
    expect((bad as PlatformError).message).toMatch(/not readable/);

    fresh();
    const range = await client.ocr.process(new Blob([plainPdf(2)], { type: 'application/pdf' }), { pages: [0, 1, 5], batchSize: 2 }).catch((e: unknown) => e);
    expect((range as PlatformError).status).toBe(422);
    expect(requests).toHaveLength(2); // the first batch was answered, the second refused
  });

  test('abort rejects with an AbortError', async () => {
    fresh();
    const controller = new AbortController();
    controller.abort();
    const error = await client.ocr.process('https://files.example/a.png', { signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
  });

  test('through the real relay: scope ocr, the key stays server-side', async () => {
    fresh();
    relay = await serveRelay(createRelay({
      upstream: { baseUrl: server.url, apiKey: KEY },
      basePath: '/api',
      allowedOrigins: [ORIGIN],
      secret: 'relay-test-secret-0123456789-abcdefghij',
      policy: OPEN_POLICY,
      onError: () => {},
    }));
    const pageFetch: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      request.headers.set('origin', ORIGIN);
      return fetch(request);
    };
    const relayUrl = `${relay.url}/api`;
    const viaRelay = new ParleyClient({ baseUrl: relayUrl, session: new RelaySession({ relayUrl, fetch: pageFetch }), fetch: pageFetch, retry: { retries: 0 } });
    const result = await viaRelay.ocr.process(new File([plainPdf(5)], 'five.pdf', { type: 'application/pdf' }));
    expect(result.pages.map((p) => p.markdown)).toEqual(['# Page 1', '# Page 2', '# Page 3', '# Page 4', '# Page 5']);
    expect(requests.map((r) => r.pages)).toEqual([[0, 1, 2, 3], [4]]);
  });
});
