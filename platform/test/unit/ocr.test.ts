/**
 * `POST /v1/ocr` end to end: pdfjs text layers and tesseract.js recognition on fixtures generated here
 * (pdfkit, @napi-rs/canvas), validation and limits, allowlisted fetches, and the official SDK parsing the answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { call, startPlatform } from './helpers.js';
import { sdkFor } from './sdk.js';
import { imageSize } from '../../src/engines/ocr/image-size.js';
import {
  EXPECTED_TEXT_MARKDOWN, HEADING, PARAGRAPHS, SCAN_LINES, TABLE, blankPdf, figurePdf, tablePdf, cer, dataUrl, encryptedPdf, plain, scannedPdf, textLayerPdf, textPng,
} from './ocr-fixtures.mjs';

const PATH = '/v1/ocr';
const SCAN_TEXT = SCAN_LINES.join(' ');

let platform: Platform;
let server: Server;
let host = '';
let hits = 0;
let textPdf: Uint8Array;

const ocr = (body: Record<string, unknown>) => call(platform, PATH, { body });
const MEMBER_KEY = 'member-key';

/** Uploads `bytes` through `POST /v1/files` (purpose ocr) and answers the file's id. */
async function uploadFile(bytes: Uint8Array, name: string, fields: Record<string, string> = {}, key?: string): Promise<string> {
  const form = new FormData();
  form.append('purpose', 'ocr');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  const res = await call(platform, '/v1/files', { method: 'POST', rawBody: form, key });
  expect(res.status, res.text).toBe(200);
  return res.json.id;
}
const pdfDoc = (bytes: Uint8Array) => ({ type: 'document_url', document_url: dataUrl(bytes) });

beforeAll(async () => {
  textPdf = await textLayerPdf();
  server = createServer((req, res) => {
    hits++;
    if (req.url === '/doc.pdf') { res.writeHead(200, { 'content-type': 'application/pdf' }); res.end(textPdf); return; }
    res.writeHead(404); res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  platform = await startPlatform({ ocrUrlAllowlist: [host], members: [{ apiKey: MEMBER_KEY, email: 'member@example.com' }] });
});

afterAll(async () => {
  await platform?.close();
  await new Promise((r) => server.close(r));
});

describe('POST /v1/ocr recognition', () => {
  it('turns a text-layer PDF into markdown with headings, paragraphs and lists, in the real response shape', async () => {
    const res = await ocr({ model: 'mistral-ocr-latest', document: pdfDoc(textPdf) });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['document_annotation', 'model', 'pages', 'usage_info']);
    expect(res.json.model).toBe('mistral-ocr-latest');
    expect(res.json.document_annotation).toBeNull();
    expect(res.json.usage_info).toEqual({ pages_processed: 1, doc_size_bytes: textPdf.byteLength });
    const [page] = res.json.pages;
    expect(page.index).toBe(0);
    expect(page.images).toEqual([]);
    expect(page.dimensions).toEqual({ dpi: 200, width: 1700, height: 2200 });
    expect(page.markdown).toBe(EXPECTED_TEXT_MARKDOWN);
  });

  it('recognises a scanned PDF page (no text layer) with character error rate under 2%', async () => {
    const res = await ocr({ model: 'mistral-ocr-2512', document: pdfDoc(await scannedPdf()) });
    expect(res.status, res.text).toBe(200);
    expect(res.json.pages).toHaveLength(1);
    expect(cer(SCAN_TEXT, plain(res.json.pages[0].markdown))).toBeLessThan(0.02);
  });

  it('recognises a PNG given as image_url with character error rate under 2%', async () => {
    const png = await textPng();
    const res = await ocr({ model: 'parley-ocr', document: { type: 'image_url', image_url: { url: dataUrl(png, 'image/png') } } });
    expect(res.status, res.text).toBe(200);
    const [page] = res.json.pages;
    expect(page.dimensions).toEqual({ dpi: 200, width: 1600, height: 290 });
    expect(res.json.usage_info).toEqual({ pages_processed: 1, doc_size_bytes: png.byteLength });
    expect(cer(SCAN_TEXT, plain(page.markdown))).toBeLessThan(0.02);
  });

  it('processes only the selected 0-based pages, as a string or an array', async () => {
    const doc = pdfDoc(await textLayerPdf(4));
    const res = await ocr({ model: 'mistral-ocr-latest', document: doc, pages: '1,3' });
    expect(res.status, res.text).toBe(200);
    expect(res.json.pages.map((p: any) => p.index)).toEqual([1, 3]);
    expect(res.json.pages.map((p: any) => p.markdown.split('\n')[0])).toEqual([`# ${HEADING} 1`, `# ${HEADING} 3`]);
    expect(res.json.usage_info.pages_processed).toBe(2);
    const arr = await ocr({ model: 'mistral-ocr-latest', document: doc, pages: [2] });
    expect(arr.json.pages.map((p: any) => p.index)).toEqual([2]);
    const out = await ocr({ model: 'mistral-ocr-latest', document: doc, pages: '2-4' });
    expect(out.status).toBe(422);
    expect(out.json.detail[0]).toMatchObject({ loc: ['body', 'pages'], type: 'value_error' });
    expect(out.json.detail[0].msg).toMatch(/Page 4 is out of range: the document has 4 pages/);
  });

  it('references images of a text-layer page where they sit, with boxes at 200 dpi and JPEG pixels when asked', async () => {
    const doc = pdfDoc(await figurePdf());
    const res = await ocr({ model: 'mistral-ocr-latest', document: doc });
    expect(res.status, res.text).toBe(200);
    const [page] = res.json.pages;
    expect(page.markdown).toBe(`# ${HEADING}\n\n${PARAGRAPHS[0]}\n\n![img-0.jpeg](img-0.jpeg)\n\n${PARAGRAPHS[1]}`);
    expect(page.images).toHaveLength(1);
    const img = page.images[0];
    expect(img).toMatchObject({ id: 'img-0.jpeg', image_base64: null, top_left_x: 200 });
    expect(img.bottom_right_x - img.top_left_x).toBeCloseTo(556, -1);
    expect(img.bottom_right_y - img.top_left_y).toBeCloseTo(370, -1);

    const withPixels = await ocr({ model: 'mistral-ocr-latest', document: doc, include_image_base64: true });
    const b64: string = withPixels.json.pages[0].images[0].image_base64;
    expect(b64).toMatch(/^data:image\/jpeg;base64,/);
    const jpeg = new Uint8Array(Buffer.from(b64.split(',')[1], 'base64'));
    expect(imageSize(jpeg)).toEqual({ width: img.bottom_right_x - img.top_left_x, height: img.bottom_right_y - img.top_left_y });

    for (const extra of [{ image_limit: 0 }, { image_min_size: 600 }]) {
      const none = await ocr({ model: 'mistral-ocr-latest', document: doc, ...extra });
      expect(none.json.pages[0].images).toEqual([]);
      expect(none.json.pages[0].markdown).toBe(`# ${HEADING}\n\n${PARAGRAPHS[0]}\n\n${PARAGRAPHS[1]}`);
    }
  });

  it('keeps aligned columns as a markdown table inline, or moves them to tables with table_format', async () => {
    const doc = pdfDoc(await tablePdf());
    const inline = '| Item | Qty | Price |\n| --- | --- | --- |\n| Apples | 3 | 1.20 |\n| Pears | 12 | 4.80 |';
    const res = await ocr({ model: 'mistral-ocr-latest', document: doc });
    expect(res.status, res.text).toBe(200);
    expect(res.json.pages[0].markdown).toBe(`${PARAGRAPHS[0]}\n\n${inline}\n\n${PARAGRAPHS[1]}`);
    expect(res.json.pages[0].tables).toBeUndefined();
    const md = await ocr({ model: 'mistral-ocr-latest', document: doc, table_format: 'markdown' });
    expect(md.json.pages[0].markdown).toBe(`${PARAGRAPHS[0]}\n\n[tbl-0.md](tbl-0.md)\n\n${PARAGRAPHS[1]}`);
    expect(md.json.pages[0].tables).toEqual([{ id: 'tbl-0.md', content: inline, format: 'markdown' }]);
    const html = await ocr({ model: 'mistral-ocr-latest', document: doc, table_format: 'html' });
    expect(html.json.pages[0].markdown).toContain('[tbl-0.html](tbl-0.html)');
    expect(html.json.pages[0].tables[0]).toEqual({
      id: 'tbl-0.html', format: 'html',
      content: `<table><tr>${TABLE[0].map((c) => `<th>${c}</th>`).join('')}</tr>${TABLE.slice(1).map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</table>`,
    });
  });

  it('reads a file of the files API given as document {type:"file", file_id}, PDF or PNG', async () => {
    const pdf = await ocr({ model: 'mistral-ocr-latest', document: { type: 'file', file_id: await uploadFile(textPdf, 'doc.pdf') } });
    expect(pdf.status, pdf.text).toBe(200);
    expect(pdf.json.pages[0].markdown).toBe(EXPECTED_TEXT_MARKDOWN);
    expect(pdf.json.usage_info).toEqual({ pages_processed: 1, doc_size_bytes: textPdf.byteLength });
    const png = await textPng();
    const image = await ocr({ model: 'mistral-ocr-latest', document: { type: 'file', file_id: await uploadFile(png, 'scan.png') } });
    expect(image.status, image.text).toBe(200);
    expect(cer(SCAN_TEXT, plain(image.json.pages[0].markdown))).toBeLessThan(0.02);
  });

  it('fetches a document_url from an allowlisted host', async () => {
    const res = await ocr({ model: 'mistral-ocr-latest', document: { type: 'document_url', document_url: `http://${host}/doc.pdf` } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.pages[0].markdown).toBe(EXPECTED_TEXT_MARKDOWN);
  });

  it('is parsed by the official SDK', async () => {
    const sdk = sdkFor(platform);
    const res = await sdk.ocr.process({ model: 'mistral-ocr-latest', document: { type: 'document_url', documentUrl: dataUrl(textPdf) } });
    expect(res.model).toBe('mistral-ocr-latest');
    expect(res.pages[0].markdown).toBe(EXPECTED_TEXT_MARKDOWN);
    expect(res.pages[0].dimensions).toEqual({ dpi: 200, width: 1700, height: 2200 });
    expect(res.usageInfo.pagesProcessed).toBe(1);
    const withParts = await sdk.ocr.process({
      model: 'mistral-ocr-latest', tableFormat: 'html', includeImageBase64: true,
      document: { type: 'document_url', documentUrl: dataUrl(await tablePdf()) },
    });
    expect(withParts.pages[0].tables?.[0]).toMatchObject({ id: 'tbl-0.html', format: 'html' });
    const image = await sdk.ocr.process({ model: 'mistral-ocr-latest', includeImageBase64: true, document: { type: 'document_url', documentUrl: dataUrl(await figurePdf()) } });
    expect(image.pages[0].images[0]).toMatchObject({ id: 'img-0.jpeg', topLeftX: 200 });
    expect(image.pages[0].images[0].imageBase64).toMatch(/^data:image\/jpeg;base64,/);
  });

  it('reads a file uploaded with files.upload through the official SDK', async () => {
    const sdk = sdkFor(platform);
    const file = await sdk.files.upload({ file: { fileName: 'doc.pdf', content: textPdf }, purpose: 'ocr' });
    const res = await sdk.ocr.process({ model: 'mistral-ocr-latest', document: { type: 'file', fileId: file.id } });
    expect(res.pages[0].markdown).toBe(EXPECTED_TEXT_MARKDOWN);
  });
});

describe('POST /v1/ocr bad input', () => {
  const detail = async (body: Record<string, unknown>) => {
    const res = await ocr(body);
    expect(res.status, res.text).toBe(422);
    return res.json.detail as Array<{ loc: unknown[]; msg: string; type: string }>;
  };

  it('422s a missing document, an unknown field and a bad pages type', async () => {
    expect(await detail({ model: 'mistral-ocr-latest' })).toEqual([{ loc: ['body', 'document'], msg: 'Field required', type: 'missing' }]);
    expect((await detail({ model: 'mistral-ocr-latest', document: pdfDoc(textPdf), colour: 1 }))[0]).toMatchObject({ loc: ['body', 'colour'], type: 'extra_forbidden' });
    expect((await detail({ model: 'mistral-ocr-latest', document: pdfDoc(textPdf), pages: [-1] }))[0].loc).toEqual(['body', 'pages', 0]);
  });

  it('400s an unknown or non-OCR model', async () => {
    for (const model of ['nope', 'mistral-small-latest', null]) {
      const res = await ocr({ model, document: pdfDoc(textPdf) });
      expect(res.status, res.text).toBe(400);
      expect(res.json).toMatchObject({ object: 'error', type: 'invalid_model', param: 'model' });
    }
  });

  it('422s corrupt, encrypted and unsupported documents with a message', async () => {
    const corrupt = await detail({ model: 'mistral-ocr-latest', document: pdfDoc(new TextEncoder().encode('%PDF-1.7\nthis is not really a pdf')) });
    expect(corrupt[0].msg).toMatch(/PDF cannot be read/);
    const locked = await detail({ model: 'mistral-ocr-latest', document: pdfDoc(await encryptedPdf()) });
    expect(locked[0].msg).toMatch(/encrypted/);
    const text = await detail({ model: 'mistral-ocr-latest', document: { type: 'document_url', document_url: 'data:text/plain;base64,aGVsbG8gd29ybGQ=' } });
    expect(text[0]).toMatchObject({ loc: ['body', 'document', 'document_url'] });
    expect(text[0].msg).toMatch(/not a supported file/);
    const broken = await detail({ model: 'mistral-ocr-latest', document: { type: 'image_url', image_url: dataUrl(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), 'image/png') } });
    expect(broken[0].msg).toMatch(/image cannot be decoded/);
    const huge = (await textPng()).slice(0, 200);
    new DataView(huge.buffer).setUint32(16, 20000);
    new DataView(huge.buffer).setUint32(20, 20000);
    expect((await detail({ model: 'mistral-ocr-latest', document: { type: 'image_url', image_url: dataUrl(huge, 'image/png') } }))[0].msg).toMatch(/20000×20000 pixels; at most 40 megapixels/);
    const truncated = (await textPng()).subarray(0, 200);
    const cut = await detail({ model: 'mistral-ocr-latest', document: { type: 'image_url', image_url: dataUrl(truncated, 'image/png') } });
    expect(cut[0].msg).toMatch(/image cannot be decoded/);
  });

  it('422s a document of more than 1,000 pages', async () => {
    const msg = (await detail({ model: 'mistral-ocr-latest', document: pdfDoc(await blankPdf(1001)) }))[0].msg;
    expect(msg).toMatch(/1001 pages; at most 1000/);
  });

  it('refuses URLs of hosts not on the allowlist without fetching anything', async () => {
    const before = hits;
    const other = `http://localhost:${host.split(':')[1]}/doc.pdf`;
    expect((await detail({ model: 'mistral-ocr-latest', document: { type: 'document_url', document_url: other } }))[0].msg).toMatch(/not on this platform's allowlist \(option ocrUrlAllowlist/);
    expect((await detail({ model: 'mistral-ocr-latest', document: { type: 'image_url', image_url: 'file:///etc/passwd' } }))[0].msg).toMatch(/valid http\(s\) URL/);
    expect(hits).toBe(before);
    const missing = await detail({ model: 'mistral-ocr-latest', document: { type: 'document_url', document_url: `http://${host}/missing.pdf` } });
    expect(missing[0].msg).toMatch(/Could not fetch document_url: HTTP 404/);
  });

  it('404s an unknown file id and another user\'s private file; 422s a stored file that is not a document', async () => {
    const unknown = await ocr({ model: 'mistral-ocr-latest', document: { type: 'file', file_id: '3f0b0c8e-0000-4000-8000-000000000000' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ object: 'error', message: "File '3f0b0c8e-0000-4000-8000-000000000000' not found", type: 'invalid_request_error', param: null, code: 'not_found' });
    const theirs = await uploadFile(textPdf, 'private.pdf', { visibility: 'user' }, MEMBER_KEY);
    expect((await ocr({ model: 'mistral-ocr-latest', document: { type: 'file', file_id: theirs } })).status).toBe(404);
    const text = await uploadFile(new TextEncoder().encode('hello world'), 'notes.txt');
    expect((await detail({ model: 'mistral-ocr-latest', document: { type: 'file', file_id: text } }))[0]).toMatchObject({ loc: ['body', 'document', 'file_id'], msg: expect.stringMatching(/not a supported file/) });
  });

  it('a caller that goes away mid-document stops the work quietly: no error reported, the engine free for the next', async () => {
    const errors: unknown[] = [];
    const own = await startPlatform({ onError: (e) => errors.push(e) });
    try {
      const abort = new AbortController();
      const pending = call(own, PATH, { body: { model: 'mistral-ocr-latest', document: pdfDoc(await scannedPdf(4)) }, signal: abort.signal });
      setTimeout(() => abort.abort(), 300);
      // Called in-process, the answer still arrives: 499 (client closed request), as speech and transcription answer.
      expect((await pending).status).toBe(499);
      const next = await call(own, PATH, { body: { model: 'mistral-ocr-latest', document: pdfDoc(textPdf) } });
      expect(next.status).toBe(200);
      expect(errors).toEqual([]);
    } finally {
      await own.close();
    }
  }, 60_000);

  it('413s a document over maxOcrBytes', async () => {
    const small = await startPlatform({ maxOcrBytes: 1000 });
    try {
      const res = await call(small, PATH, { body: { model: 'mistral-ocr-latest', document: pdfDoc(textPdf) } });
      expect(res.status).toBe(413);
      expect(res.json).toMatchObject({ object: 'error', code: 'request_too_large' });
      const form = new FormData();
      form.append('purpose', 'ocr');
      form.append('file', new Blob([textPdf as Uint8Array<ArrayBuffer>]), 'doc.pdf');
      const stored = await call(small, '/v1/files', { method: 'POST', rawBody: form });
      const byId = await call(small, PATH, { body: { model: 'mistral-ocr-latest', document: { type: 'file', file_id: stored.json.id } } });
      expect(byId.status).toBe(413);
      expect(byId.json).toMatchObject({ object: 'error', code: 'request_too_large', param: 'document' });
    } finally {
      await small.close();
    }
  });
});
