// The element bundles as `parley start` serves them under /assets/: CORS for any page, immutable caching of
// hashed names, revalidation of entries, brotli/gzip by Accept-Encoding, and nothing outside the folder.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMMUTABLE_CACHE, chooseCoding, createAssetHandler, isHashedName, safeRelativePath } from '../../src/demo/assets.js';

let dir: string;
let root: string;
const ENTRY = `export const text = ${JSON.stringify('agent chat '.repeat(400))};\n`;
const CHUNK = `export const chunk = ${JSON.stringify('markdown chunk '.repeat(300))};\n`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-assets-'));
  root = join(dir, 'browser');
  mkdirSync(join(root, 'vendor'), { recursive: true });
  writeFileSync(join(root, 'agent-chat.js'), ENTRY);
  writeFileSync(join(root, 'agent-chat.js.map'), JSON.stringify({ version: 3, mappings: 'AAAA;'.repeat(400) }));
  writeFileSync(join(root, 'markdown-DKlbPNQe.js'), CHUNK);
  writeFileSync(join(root, 'vendor/pdfjs-D1Me-EVR.js'), 'export const pdf = 1;\n');
  writeFileSync(join(root, 'tiny.js'), 'export {};\n');
  writeFileSync(join(root, '.secret'), 'hidden');
  writeFileSync(join(dir, 'outside.txt'), 'outside the asset folder');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const get = (serve: ReturnType<typeof createAssetHandler>, path: string, headers: Record<string, string> = {}, method = 'GET') =>
  serve(new Request(`http://parley.test/assets/${path}`, { method, headers }), path);

describe('asset handler', () => {
  it('serves any origin without credentials, with the right type and nosniff', async () => {
    const serve = createAssetHandler({ root });
    const res = await get(serve, 'agent-chat.js', { origin: 'https://shop.example' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe(ENTRY);
    const map = await get(serve, 'agent-chat.js.map');
    expect(map.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const preflight = await get(serve, 'agent-chat.js', { origin: 'https://shop.example', 'access-control-request-method': 'GET' }, 'OPTIONS');
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('hashed names are immutable; entries revalidate with an ETag and answer 304 when unchanged', async () => {
    const serve = createAssetHandler({ root });
    for (const path of ['markdown-DKlbPNQe.js', 'vendor/pdfjs-D1Me-EVR.js']) {
      expect((await get(serve, path)).headers.get('cache-control'), path).toBe(IMMUTABLE_CACHE);
    }
    const entry = await get(serve, 'agent-chat.js');
    expect(entry.headers.get('cache-control')).toBe('public, no-cache');
    const etag = entry.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await get(serve, 'agent-chat.js', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('public, no-cache');
    expect(await again.text()).toBe('');
    expect((await get(serve, 'agent-chat.js', { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await get(serve, 'agent-chat.js', { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('sends brotli or gzip by Accept-Encoding, with Vary and a distinct ETag per coding', async () => {
    const serve = createAssetHandler({ root });
    const br = await get(serve, 'agent-chat.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    const brBytes = Buffer.from(await br.arrayBuffer());
    expect(brBytes.length).toBe(Number(br.headers.get('content-length')));
    expect(brBytes.length).toBeLessThan(ENTRY.length / 4);
    expect(brotliDecompressSync(brBytes).toString()).toBe(ENTRY);

    const gz = await get(serve, 'agent-chat.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(ENTRY);
    expect(new Set([br.headers.get('etag'), gz.headers.get('etag')]).size).toBe(2);
    // A brotli ETag does not validate the gzip copy.
    expect((await get(serve, 'agent-chat.js', { 'accept-encoding': 'gzip', 'if-none-match': br.headers.get('etag')! })).status).toBe(200);
    expect((await get(serve, 'agent-chat.js', { 'accept-encoding': 'br', 'if-none-match': br.headers.get('etag')! })).status).toBe(304);

    const refusedBr = await get(serve, 'agent-chat.js', { 'accept-encoding': 'br;q=0, gzip;q=0.5' });
    expect(refusedBr.headers.get('content-encoding')).toBe('gzip');
    const plain = await get(serve, 'agent-chat.js', { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(ENTRY);
    // Too small to be worth compressing: sent as is, still with Vary.
    const tiny = await get(serve, 'tiny.js', { 'accept-encoding': 'br' });
    expect(tiny.headers.get('content-encoding')).toBeNull();
    expect(tiny.headers.get('vary')).toBe('Accept-Encoding');
  });

  it('reads Accept-Encoding weights', () => {
    expect(chooseCoding(null)).toBeNull();
    expect(chooseCoding('')).toBeNull();
    expect(chooseCoding('gzip, br')).toBe('br');
    expect(chooseCoding('br;q=0.1, gzip;q=0.9')).toBe('gzip');
    expect(chooseCoding('*')).toBe('br');
    expect(chooseCoding('*;q=0')).toBeNull();
    expect(chooseCoding('deflate')).toBeNull();
  });

  it('HEAD gives the headers without a body; other methods are 405 in the error shape', async () => {
    const serve = createAssetHandler({ root });
    const head = await get(serve, 'agent-chat.js', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(ENTRY)));
    expect(await head.text()).toBe('');
    const post = await get(serve, 'agent-chat.js', {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
    expect((await post.json()).code).toBe('method_not_allowed');
  });

  it('refuses traversal, encoded separators, dot-files, folders and missing files with 404', async () => {
    const serve = createAssetHandler({ root });
    for (const path of ['../outside.txt', '%2e%2e/outside.txt', '..%2foutside.txt', 'vendor/../../outside.txt', 'vendor%2f..%2f..%2foutside.txt',
      '..\\outside.txt', '%5c..%5coutside.txt', '.secret', 'vendor', 'vendor/', '', 'missing.js', 'agent-chat.js%00.map', '%E0%A4%A']) {
      const res = await get(serve, path);
      expect(res.status, path).toBe(404);
      expect((await res.json()).code, path).toBe('not_found');
    }
    expect(safeRelativePath('vendor/pdfjs-D1Me-EVR.js')).toBe('vendor/pdfjs-D1Me-EVR.js');
    expect(safeRelativePath('a//b.js')).toBeNull();
  });

  it('a file rebuilt on disk is read again', async () => {
    const serve = createAssetHandler({ root });
    const path = join(root, 'speech-player.js');
    writeFileSync(path, 'export const v = 1;\n');
    const first = await get(serve, 'speech-player.js');
    expect(await first.text()).toBe('export const v = 1;\n');
    writeFileSync(path, 'export const v = 22;\n');
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    const second = await get(serve, 'speech-player.js', { 'if-none-match': first.headers.get('etag')! });
    expect(second.status).toBe(200);
    expect(await second.text()).toBe('export const v = 22;\n');
  });

  it('in the real build, the four entries and the microphone worklet keep stable names and every other script has a hashed one', () => {
    const kit = dirname(createRequire(import.meta.url).resolve('parley-kit/package.json'));
    const browser = join(kit, 'dist/browser');
    const files = readdirSync(browser, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js')).map((f) => f.split('\\').join('/'));
    expect(files.length, 'dist/browser is built (npm run build)').toBeGreaterThan(10);
    // The worklet is named by the capture code itself (MIC_WORKLET_FILE), so it is revalidated like the entries.
    const entries = ['agent-chat.js', 'speech-player.js', 'audio-transcriber.js', 'doc-ocr-viewer.js', 'parley-mic-worklet.js'];
    for (const entry of entries) {
      expect(files).toContain(entry);
      expect(isHashedName(entry), entry).toBe(false);
    }
    for (const file of files.filter((f) => !entries.includes(f))) expect(isHashedName(file), file).toBe(true);
  });
});

