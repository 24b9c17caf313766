// The streamed dataset export (observability/jsonl.ts): pages of records encoded as one base64 data: URL
// inside a JSON answer, carried across pages 3 bytes at a time, decode to the records in order.
import { describe, expect, it } from 'vitest';
import { dataUrlJsonStream, decodeDataUrl } from '../../src/observability/jsonl.js';

async function* pagesOf<T>(pages: T[][]) { for (const p of pages) yield p; }

describe('dataUrlJsonStream', () => {
  it('encodes pages of any byte length as one data: URL whose lines are the records in order', async () => {
    const records = Array.from({ length: 47 }, (_, i) => ({ payload: { messages: [{ role: 'user', content: `é${'x'.repeat(i)}` }] }, properties: { i } }));
    const pages = [records.slice(0, 1), records.slice(1, 3), [], records.slice(3, 20), records.slice(20)];
    const text = await new Response(dataUrlJsonStream('file_url', pagesOf(pages))).text();
    const { file_url } = JSON.parse(text) as { file_url: string };
    expect(file_url).toMatch(/^data:application\/jsonl;base64,[A-Za-z0-9+/]*={0,2}$/);
    const lines = decodeDataUrl(file_url)!.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l))).toEqual(records);
  });

  it('an empty dataset is an empty data: URL', async () => {
    const text = await new Response(dataUrlJsonStream('file_url', pagesOf([]))).text();
    expect(JSON.parse(text)).toEqual({ file_url: 'data:application/jsonl;base64,' });
  });
});
