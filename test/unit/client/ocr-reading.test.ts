// The OCR reading of <doc-ocr-viewer> without a DOM: a scripted `client.ocr.process` stands in for the
// relay (the real one: test/browser/doc-ocr-viewer.test.ts).
import { describe, expect, it, vi } from 'vitest';
import { OcrReading, ocrErrorKind, type OcrFailure, type OcrReadingHooks } from '../../../src/client/ocr-reading.js';
import { PlatformError } from '../../../src/client/errors.js';
import type { OcrOptions, ParleyClientApi } from '../../../src/client/contracts.js';
import type { OcrResponse } from '../../../src/client/types.js';

interface Call {
  document: Blob | string;
  options: OcrOptions;
  resolve(result: OcrResponse): void;
  reject(error: unknown): void;
}

const page = (index: number) => ({ index, markdown: `page ${index + 1}`, images: [], dimensions: null });
const answer = (pages: number): OcrResponse => ({ pages: Array.from({ length: pages }, (_, i) => page(i)), model: 'ocr', usage_info: { pages_processed: pages, doc_size_bytes: null } }) as unknown as OcrResponse;
const error = (status: number, code: string | null = null, type = 'invalid_request_error') => new PlatformError({ status, type, code, retryAfter: null, message: `platform says ${status}` });

function setup(client?: () => Promise<ParleyClientApi>) {
  const calls: Call[] = [];
  const process = (document: Blob | string, options: OcrOptions = {}) => new Promise<OcrResponse>((resolve, reject) => {
    calls.push({ document, options, resolve, reject });
    options.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
  });
  const log: string[] = [];
  const failures: OcrFailure[] = [];
  const hooks: OcrReadingHooks = {
    changed: () => {},
    started: (source, name) => log.push(`started:${source}:${name}`),
    progress: ({ pagesDone, pagesTotal }) => log.push(`progress:${pagesDone}/${pagesTotal}`),
    done: (result, name) => log.push(`done:${name}:${result.pages.length}`),
    failed: (failure) => { failures.push(failure); log.push(`failed:${failure.kind}`); },
    cancelled: () => log.push('cancelled'),
  };
  const reading = new OcrReading({ client: client ?? (async () => ({ ocr: { process } }) as unknown as ParleyClientApi), ...hooks });
  return { reading, calls, log, failures };
}

const until = (check: () => boolean) => vi.waitFor(() => expect(check()).toBe(true), { timeout: 2000, interval: 2 });
const pdf = () => new File([new Uint8Array(8)], 'report.pdf', { type: 'application/pdf' });

describe('OcrReading', () => {
  it('reads a document: started, progress, done, in that order, with the options given', async () => {
    const { reading, calls, log } = setup();
    const done = reading.read(pdf(), { model: 'ocr-x', includeImageBase64: false, batchSize: 2 });
    expect(reading.busy).toBe(true);
    expect(reading.name).toBe('report.pdf');
    await until(() => calls.length === 1);
    expect(calls[0]!.options).toMatchObject({ model: 'ocr-x', includeImageBase64: false, batchSize: 2 });
    calls[0]!.options.onProgress!({ pagesDone: 0, pagesTotal: 4 });
    calls[0]!.options.onProgress!({ pagesDone: 2, pagesTotal: 4 });
    expect(reading.progress).toEqual({ pagesDone: 2, pagesTotal: 4 });
    calls[0]!.resolve(answer(4));
    await done;
    expect(log).toEqual(['started:file:report.pdf', 'progress:0/4', 'progress:2/4', 'done:report.pdf:4']);
    expect(reading.busy).toBe(false);
  });

  it('reads a URL as such', async () => {
    const { reading, calls, log } = setup();
    const done = reading.read('https://example.test/scan.png');
    await until(() => calls.length === 1);
    expect(calls[0]!.document).toBe('https://example.test/scan.png');
    calls[0]!.resolve(answer(1));
    await done;
    expect(log).toEqual(['started:url:https://example.test/scan.png', 'done:https://example.test/scan.png:1']);
  });

  it('refuses a file that is not a PDF or an image without sending it', async () => {
    const { reading, calls, failures } = setup();
    await reading.read(new File(['text'], 'notes.txt', { type: 'text/plain' }));
    expect(failures).toEqual([{ kind: 'not-document', documentType: 'text/plain' }]);
    expect(calls).toHaveLength(0);
    expect(reading.busy).toBe(false);
  });

  it('the latest reading wins: a new one cancels the one in progress, whose late answer and progress are dropped', async () => {
    const { reading, calls, log } = setup();
    const first = reading.read(pdf());
    await until(() => calls.length === 1);
    const second = reading.read('https://example.test/b.pdf');
    expect(calls[0]!.options.signal!.aborted, 'the first request is aborted').toBe(true);
    await until(() => calls.length === 2);
    calls[0]!.options.onProgress!({ pagesDone: 1, pagesTotal: 1 });
    calls[0]!.resolve(answer(9));
    calls[1]!.resolve(answer(1));
    await Promise.all([first, second]);
    expect(log).toEqual(['started:file:report.pdf', 'cancelled', 'started:url:https://example.test/b.pdf', 'done:https://example.test/b.pdf:1']);
  });

  it('cancel aborts the request and says so once; cancelling nothing says nothing', async () => {
    const { reading, calls, log } = setup();
    reading.cancel();
    const done = reading.read(pdf());
    await until(() => calls.length === 1);
    reading.cancel();
    expect(reading.busy).toBe(false);
    expect(calls[0]!.options.signal!.aborted).toBe(true);
    await done;
    expect(log).toEqual(['started:file:report.pdf', 'cancelled']);
  });

  it('sorts a failure into its kind, with the error (the refused origin is the element’s to tell)', async () => {
    for (const [thrown, kind] of [
      [error(413), 'too-large'],
      [error(400, 'remote_file_not_allowed'), 'url-not-allowed'],
      [error(403, 'origin_not_allowed'), 'forbidden'],
      [PlatformError.network(new Error('offline')), 'network'],
    ] as const) {
      const { reading, calls, failures } = setup();
      const done = reading.read(pdf());
      await until(() => calls.length === 1);
      calls[0]!.reject(thrown);
      await done;
      expect(failures.map((f) => f.kind)).toEqual([kind]);
      expect(failures[0]).toMatchObject({ error: thrown });
      expect(reading.busy).toBe(false);
    }
  });

  it('a client that cannot be made fails the reading', async () => {
    const { reading, failures } = setup(async () => { throw error(0, null, 'client_error'); });
    await reading.read(pdf());
    expect(failures[0]).toMatchObject({ kind: 'other' });
  });
});

describe('ocrErrorKind', () => {
  it('sorts platform errors the same way for every language', () => {
    expect(ocrErrorKind(error(401))).toBe('forbidden');
    expect(ocrErrorKind(error(422))).toBe('rejected');
    expect(ocrErrorKind(error(429))).toBe('rate-limited');
    expect(ocrErrorKind(error(503))).toBe('busy');
    expect(ocrErrorKind(error(500, null, 'server_error'))).toBe('other');
  });
});
