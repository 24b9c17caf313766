import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPlatform, type Platform } from '../../src/app.js';
import { createFile, getFile, listFiles, readFileBytes } from '../../src/files/store.js';
import { API_KEY, BASE, call, openPlatformDb, startPlatform } from './helpers.js';

const MEMBER_KEY = 'member-key';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const chat = (q: string) => JSON.stringify({ messages: [{ role: 'user', content: q }, { role: 'assistant', content: 'ok' }] });
const JSONL = `${chat('hello')}\n${chat('bye')}\n`;
const PDF = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x34, 0x0a, 0x00, 0xff, 0x10]);

function form(fields: Record<string, string | Blob | [Blob, string]>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (Array.isArray(v)) f.append(k, v[0], v[1]);
    else f.append(k, v);
  }
  return f;
}

async function upload(platform: Platform, fields: Record<string, string | Blob | [Blob, string]>, key = API_KEY) {
  return call(platform, '/v1/files', { method: 'POST', rawBody: form(fields), key });
}

describe('files API over HTTP', () => {
  let platform: Platform;
  beforeAll(async () => { platform = await startPlatform({ members: [{ apiKey: MEMBER_KEY, email: 'member@example.com' }] }); });
  afterAll(async () => { await platform.close(); });

  it('uploads a fine-tuning JSONL file and answers the real shape', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await upload(platform, { purpose: 'fine-tune', file: [new Blob([JSONL]), 'train.jsonl'] });
    const after = Math.floor(Date.now() / 1000);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'file', bytes: JSONL.length, filename: 'train.jsonl', purpose: 'fine-tune', sample_type: 'instruct',
      num_lines: 2, mimetype: 'application/jsonl', source: 'upload', expires_at: null, visibility: 'workspace',
      signature: createHash('md5').update(JSONL).digest('hex'),
    });
    expect(res.json.id).toMatch(UUID);
    expect(Number.isInteger(res.json.created_at)).toBe(true);
    expect(res.json.created_at, 'stamped while the request ran (unix seconds)').toBeGreaterThanOrEqual(before);
    expect(res.json.created_at).toBeLessThanOrEqual(after);
  });

  it('uploads an OCR document as ocr_input with the part’s type', async () => {
    const res = await upload(platform, { purpose: 'ocr', file: [new Blob([PDF], { type: 'application/pdf' }), 'scan.pdf'] });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ purpose: 'ocr', sample_type: 'ocr_input', num_lines: 0, mimetype: 'application/pdf', bytes: PDF.length });
  });

  it('downloads exactly the uploaded bytes as application/octet-stream', async () => {
    const up = await upload(platform, { purpose: 'ocr', file: [new Blob([PDF]), 'doc.pdf'] });
    const res = await platform.fetch(new Request(`${BASE}/v1/files/${up.json.id}/content`, { headers: { authorization: `Bearer ${API_KEY}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PDF);
  });

  it('retrieves with deleted:false, deletes, then answers 404 everywhere', async () => {
    const up = await upload(platform, { purpose: 'batch', file: [new Blob(['{"custom_id":"1","body":{"messages":[]}}\n']), 'b.jsonl'] });
    expect(up.json.sample_type).toBe('batch_request');
    const got = await call(platform, `/v1/files/${up.json.id}`);
    expect(got.json).toEqual({ ...up.json, deleted: false });
    const del = await call(platform, `/v1/files/${up.json.id}`, { method: 'DELETE' });
    expect(del.json).toEqual({ id: up.json.id, object: 'file', deleted: true });
    for (const path of ['', '/content', '/url']) {
      const res = await call(platform, `/v1/files/${up.json.id}${path}`);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ object: 'error', code: 'not_found' });
    }
    expect((await call(platform, `/v1/files/${up.json.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('lists newest first with filters, pages and a total', async () => {
    const p = await startPlatform();
    try {
      const a = await upload(p, { purpose: 'fine-tune', file: [new Blob([JSONL]), 'alpha.jsonl'] });
      const b = await upload(p, { purpose: 'ocr', file: [new Blob([PDF], { type: 'application/pdf' }), 'Beta-scan.pdf'] });
      const c = await upload(p, { purpose: 'ocr', file: [new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'gamma.png'] });
      const all = await call(p, '/v1/files');
      expect(all.json).toMatchObject({ object: 'list', total: 3 });
      expect(all.json.data.map((f: any) => f.id)).toEqual([c.json.id, b.json.id, a.json.id]);
      expect((await call(p, '/v1/files?purpose=ocr')).json.data.map((f: any) => f.id)).toEqual([c.json.id, b.json.id]);
      expect((await call(p, '/v1/files?search=beta')).json.data.map((f: any) => f.id)).toEqual([b.json.id]);
      expect((await call(p, '/v1/files?sample_type=instruct&sample_type=pretrain')).json.data.map((f: any) => f.id)).toEqual([a.json.id]);
      expect((await call(p, '/v1/files?mimetypes=image/png&mimetypes=application/pdf')).json.total).toBe(2);
      expect((await call(p, '/v1/files?source=repository')).json).toMatchObject({ data: [], total: 0 });
      const page = await call(p, '/v1/files?page=1&page_size=2&include_total=false');
      expect(page.json.data.map((f: any) => f.id)).toEqual([a.json.id]);
      expect(page.json.total).toBeNull();
      const bad = await call(p, '/v1/files?page=-1&page_size=0');
      expect(bad.status).toBe(422);
      expect(bad.json.detail.map((d: any) => d.loc)).toEqual([['query', 'page'], ['query', 'page_size']]);
    } finally {
      await p.close();
    }
  });

  it('keeps user-visibility files private to their uploader; workspace files are shared', async () => {
    const priv = await upload(platform, { purpose: 'ocr', visibility: 'user', file: [new Blob([PDF]), 'mine.pdf'] });
    const shared = await upload(platform, { purpose: 'ocr', file: [new Blob([PDF]), 'ours.pdf'] });
    expect(priv.json.visibility).toBe('user');
    expect((await call(platform, `/v1/files/${priv.json.id}`, { key: MEMBER_KEY })).status).toBe(404);
    expect((await call(platform, `/v1/files/${priv.json.id}/content`, { key: MEMBER_KEY })).status).toBe(404);
    expect((await call(platform, `/v1/files/${priv.json.id}`, { method: 'DELETE', key: MEMBER_KEY })).status).toBe(404);
    expect((await call(platform, `/v1/files/${shared.json.id}`, { key: MEMBER_KEY })).status).toBe(200);
    const ids = (await call(platform, '/v1/files?page_size=1000', { key: MEMBER_KEY })).json.data.map((f: any) => f.id);
    expect(ids).toContain(shared.json.id);
    expect(ids).not.toContain(priv.json.id);
  });

  it('rejects bad uploads with 422 details, other content types with 415', async () => {
    const noFile = await upload(platform, { purpose: 'ocr' });
    expect(noFile.status).toBe(422);
    expect(noFile.json.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'missing' });
    const textFile = await upload(platform, { purpose: 'ocr', file: 'not a file' });
    expect(textFile.json.detail[0].loc).toEqual(['body', 'file']);
    const badPurpose = await upload(platform, { purpose: 'training', file: [new Blob([JSONL]), 'a.jsonl'] });
    expect(badPurpose.status).toBe(422);
    expect(badPurpose.json.detail[0]).toMatchObject({ loc: ['body', 'purpose'], type: 'enum', input: 'training' });
    const badJsonl = await upload(platform, { purpose: 'fine-tune', file: [new Blob([`${chat('a')}\n{oops\n`]), 'a.jsonl'] });
    expect(badJsonl.status).toBe(422);
    expect(badJsonl.json.detail[0].msg).toMatch(/Line 2 is not valid JSON/);
    const binaryFineTune = await upload(platform, { file: [new Blob([PDF]), 'a.pdf'] }); // purpose defaults to fine-tune
    expect(binaryFineTune.status).toBe(422);
    const empty = await upload(platform, { purpose: 'ocr', file: [new Blob([]), 'e.pdf'] });
    expect(empty.json.detail[0].msg).toMatch(/empty/);
    const badExpiry = await upload(platform, { purpose: 'ocr', expiry: '-2', file: [new Blob([PDF]), 'a.pdf'] });
    expect(badExpiry.json.detail[0].loc).toEqual(['body', 'expiry']);
    const malformed = await call(platform, '/v1/files', { method: 'POST', rawBody: '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    expect(malformed.status).toBe(422);
    expect(malformed.json.detail[0].msg).toMatch(/Malformed multipart/);
    const json = await call(platform, '/v1/files', { body: { file: 'x' } });
    expect(json.status).toBe(415);
    expect(json.json).toMatchObject({ object: 'error', code: 'unsupported_media_type' });
  });

  describe('with the clock moved forward', () => {
    afterEach(() => { vi.useRealTimers(); });
    const later = (hours: number) => { vi.useFakeTimers({ toFake: ['Date'] }); vi.setSystemTime(Date.now() + hours * 3600_000); };

    it('hides a file once its expiry has passed', async () => {
      const up = await upload(platform, { purpose: 'ocr', expiry: '1', file: [new Blob([PDF]), 'short.pdf'] });
      expect(up.json.expires_at - up.json.created_at).toBe(3600);
      expect((await call(platform, `/v1/files/${up.json.id}`)).status).toBe(200);
      later(1.01);
      expect((await call(platform, `/v1/files/${up.json.id}`)).status).toBe(404);
      expect((await call(platform, `/v1/files/${up.json.id}/content`)).status).toBe(404);
      expect((await call(platform, '/v1/files?page_size=1000')).json.data.map((f: any) => f.id)).not.toContain(up.json.id);
    });

    it('refuses a signed URL after its expiry with 403', async () => {
      const up = await upload(platform, { purpose: 'ocr', file: [new Blob([PDF]), 'later.pdf'] });
      const url = new URL((await call(platform, `/v1/files/${up.json.id}/url?expiry=1`)).json.url);
      expect((await call(platform, url.pathname + url.search, { key: null })).status).toBe(200);
      later(1.01);
      const res = await call(platform, url.pathname + url.search, { key: null });
      expect(res.status).toBe(403);
      expect(res.json.message).toMatch(/expired/);
    });
  });

  describe('signed URLs', () => {
    let id: string;
    beforeAll(async () => { id = (await upload(platform, { purpose: 'ocr', file: [new Blob([PDF]), 'signed.pdf'] })).json.id; });

    it('serve the bytes without an API key until they expire', async () => {
      const before = Math.floor(Date.now() / 1000);
      const { json, status } = await call(platform, `/v1/files/${id}/url?expiry=2`);
      const after = Math.floor(Date.now() / 1000);
      expect(status).toBe(200);
      const url = new URL(json.url);
      expect(url.origin).toBe(BASE);
      const expires = Number(url.searchParams.get('expires'));
      expect(expires, 'two hours from when the URL was made').toBeGreaterThanOrEqual(before + 7200);
      expect(expires).toBeLessThanOrEqual(after + 7200);
      const res = await platform.fetch(new Request(json.url));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(PDF);
    });

    it('refuse forged and altered signatures with 403', async () => {
      const url = new URL((await call(platform, `/v1/files/${id}/url`)).json.url);
      const sig = url.searchParams.get('signature')!;
      const forged = new URL(url);
      forged.searchParams.set('signature', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
      const extended = new URL(url);
      extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      const backdated = new URL(url);
      backdated.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 10));
      const missing = new URL(url.origin + url.pathname);
      for (const u of [forged, extended, backdated, missing]) {
        const res = await call(platform, u.pathname + u.search, { key: null });
        expect(res.status).toBe(403);
        expect(res.json).toMatchObject({ object: 'error', code: 'forbidden' });
      }
      const bad = await call(platform, `/v1/files/${id}/url?expiry=0`);
      expect(bad.status).toBe(422);
    });

    it('stop working when the file is deleted', async () => {
      const url = (await call(platform, `/v1/files/${id}/url`)).json.url;
      await call(platform, `/v1/files/${id}`, { method: 'DELETE' });
      expect((await platform.fetch(new Request(url))).status).toBe(404);
    });
  });
});

describe('files store', () => {
  it('scopes files to their workspace and reads bytes for other areas', { timeout: 60_000 }, async () => {
    const db = await openPlatformDb();
    try {
      const ws1 = { workspaceId: 'ws-1', userId: 'u-1' };
      const ws2 = { workspaceId: 'ws-2', userId: 'u-1' };
      const bytes = new Uint8Array(2 * 1024 * 1024 + 17).map((_, i) => (i * 7) % 251); // several chunks
      const f = await createFile(db, ws1, { filename: 'big.bin', purpose: 'ocr', sampleType: 'ocr_input', mimetype: null, numLines: 0, visibility: 'workspace', expiryHours: null, bytes });
      expect(await getFile(db, ws2, f.id)).toBeUndefined();
      expect((await listFiles(db, ws2, { page: 0, pageSize: 10 })).total).toBe(0);
      expect(await readFileBytes(db, 'ws-2', f.id)).toBeUndefined();
      const read = await readFileBytes(db, 'ws-1', f.id);
      expect(read?.file.bytes).toBe(bytes.length);
      expect(Buffer.compare(read!.bytes, bytes)).toBe(0); // toEqual walks megabytes element by element
    } finally {
      await db.close();
    }
  });

  it('413s an upload over the maxFileBytes option while it streams', async () => {
    const small = await startPlatform({ maxFileBytes: 100_000 });
    try {
      const f = form({ purpose: 'ocr', file: [new Blob([new Uint8Array(200_000)]), 'big.pdf'] });
      const body = new Response(f).body!; // a stream: no content-length to trust
      const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': new Response(f).headers.get('content-type')! };
      const res = await small.fetch(new Request(`${BASE}/v1/files`, { method: 'POST', body, headers, duplex: 'half' } as RequestInit));
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ object: 'error', code: 'request_too_large', param: 'file' });
      const declared = await call(small, '/v1/files', { method: 'POST', rawBody: 'x', headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(10_000_000) } });
      expect(declared.status).toBe(413);
      const fits = await upload(small, { purpose: 'ocr', file: [new Blob([PDF]), 'small.pdf'] });
      expect(fits.status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('files durability', () => {
  it('keeps files, bytes and signed URLs across a reopen', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-files-'));
    try {
      let p = createPlatform({ apiKey: API_KEY, dataDir, onError: (e) => { throw e; } });
      const up = await upload(p, { purpose: 'ocr', file: [new Blob([PDF]), 'kept.pdf'] });
      const url = (await call(p, `/v1/files/${up.json.id}/url`)).json.url;
      await p.close();
      p = createPlatform({ apiKey: API_KEY, dataDir, onError: (e) => { throw e; } });
      try {
        expect((await call(p, `/v1/files/${up.json.id}`)).json).toEqual({ ...up.json, deleted: false });
        const res = await p.fetch(new Request(url));
        expect(res.status).toBe(200);
        expect(new Uint8Array(await res.arrayBuffer())).toEqual(PDF);
      } finally {
        await p.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
