/**
 * The element bundles (parley-kit's dist/browser) as `parley start` serves them under `/assets/`: for
 * pages on any origin, cached as long as their names allow, compressed once.
 *
 * - CORS: `Access-Control-Allow-Origin: *` and `Cross-Origin-Resource-Policy: cross-origin`. These are
 *   public static files, the same for everyone and served without credentials (no cookies are read, no
 *   `Allow-Credentials`), so letting any page load them reveals nothing; who may *use* the relay is
 *   decided by the relay's own origin list, not here.
 * - Caching: a name with a content hash (`markdown-DKlbPNQe.js`, `vendor/pdfjs-D1Me-EVR.js`; see
 *   vite.config.ts) never changes content: `public, max-age=31536000, immutable`. Entries keep the
 *   stable names a CDN tag uses (`agent-chat.js`) and are revalidated on each use: `no-cache` with an
 *   ETag, so an unchanged file costs a 304.
 * - Compression: brotli or gzip by `Accept-Encoding` (`Vary: Accept-Encoding`), made on the first
 *   request for it and kept in memory with the file; nothing precompressed ships in the npm package.
 *   A file changed on disk (a rebuild while running) is read again.
 * - Only regular files inside the root: `..`, encoded separators, backslashes, NUL and dot-files are 404.
 */
import { readFile, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { extname, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { genericError } from '../http/errors.js';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** The cache policy of files whose name carries a content hash. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** The cache policy of stable names (entries): keep, but ask again each time (ETag → 304). */
export const REVALIDATE_CACHE = 'public, no-cache';

/** `[name]-[hash].js` as vite names chunks: eight base64url characters after a dash (the source map too). */
const HASHED_NAME = /-[A-Za-z0-9_-]{8}\.(?:js|css|wasm)(?:\.map)?$/;

/** Whether a bundle path carries vite's content hash (`markdown-DKlbPNQe.js`); entries (`agent-chat.js`) do not. */
export function isHashedName(path: string): boolean {
  return HASHED_NAME.test(path);
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.js', '.mjs', '.map', '.json', '.css', '.html', '.svg', '.txt']);
/** Smaller files gain too little from compression to be worth a second copy. */
const MIN_COMPRESS_BYTES = 1024;
/** Brotli's best quality costs seconds on the megabyte-sized pdf.js bundles; above this size a fast level is used. */
const BROTLI_MAX_QUALITY_BYTES = 256 * 1024;

type Coding = 'br' | 'gzip';

interface CachedFile {
  /** `size:mtime` of the file the bytes were read from. */
  version: string;
  body: Buffer;
  /** Strong ETag of the identity bytes (a content hash); encoded copies get a suffix. */
  etag: string;
  encoded: Partial<Record<Coding, Promise<Buffer>>>;
}

/** Options of {@link createAssetHandler}. */
export interface AssetHandlerOptions {
  /** The folder served (parley-kit's dist/browser). */
  root: string;
}

/**
 * A Web-standard handler for the bundle folder: `serve(request, path)` answers `path` (the part after
 * the mount point, e.g. `agent-chat.js` or `vendor/pdfjs-D1Me-EVR.js`).
 */
export function createAssetHandler(options: AssetHandlerOptions) {
  const root = resolve(options.root);
  const cache = new Map<string, CachedFile>();

  async function load(file: string): Promise<CachedFile | null> {
    let info;
    try {
      info = await stat(file);
    } catch {
      return null;
    }
    if (!info.isFile()) return null;
    const version = `${info.size}:${info.mtimeMs}`;
    const cached = cache.get(file);
    if (cached?.version === version) return cached;
    const body = await readFile(file);
    const entry: CachedFile = { version, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, encoded: {} };
    cache.set(file, entry);
    return entry;
  }

  return async function serve(request: Request, path: string): Promise<Response> {
    if (request.method === 'OPTIONS') return preflight();
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return assetError(405, 'Assets are read with GET or HEAD', 'method_not_allowed', { allow: 'GET, HEAD, OPTIONS' });
    }
    const relative = safeRelativePath(path);
    const file = relative ? resolve(root, ...relative.split('/')) : '';
    if (!relative || !file.startsWith(root + sep)) return assetError(404, 'No such asset', 'not_found');
    const entry = await load(file);
    if (!entry) return assetError(404, 'No such asset', 'not_found');

    const ext = extname(file).toLowerCase();
    const coding = COMPRESSIBLE.has(ext) && entry.body.length >= MIN_COMPRESS_BYTES ? chooseCoding(request.headers.get('accept-encoding')) : null;
    const etag = coding ? `${entry.etag.slice(0, -1)}-${coding}"` : entry.etag;
    const headers = new Headers({
      'content-type': CONTENT_TYPES[ext] ?? 'application/octet-stream',
      'cache-control': isHashedName(relative) ? IMMUTABLE_CACHE : REVALIDATE_CACHE,
      etag,
      vary: 'Accept-Encoding',
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'x-content-type-options': 'nosniff',
    });
    if (etagMatches(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });
    const body = coding ? await encode(entry, coding) : entry.body;
    if (coding) headers.set('content-encoding', coding);
    headers.set('content-length', String(body.length));
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length), { status: 200, headers });
  };
}

/** The encoded copy, made once per file version (concurrent requests share the work). */
function encode(entry: CachedFile, coding: Coding): Promise<Buffer> {
  let pending = entry.encoded[coding];
  if (!pending) {
    const size = entry.body.length;
    pending = coding === 'br'
      ? brotliAsync(entry.body, { params: {
        [zlib.BROTLI_PARAM_QUALITY]: size <= BROTLI_MAX_QUALITY_BYTES ? zlib.BROTLI_MAX_QUALITY : 5,
        [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
        [zlib.BROTLI_PARAM_SIZE_HINT]: size,
      } })
      : gzipAsync(entry.body, { level: 9 });
    entry.encoded[coding] = pending;
  }
  return pending;
}

/**
 * The coding to send for an `Accept-Encoding` value: brotli, else gzip, else none (identity). A coding
 * with `q=0` is refused; `*` stands for any coding not named.
 */
export function chooseCoding(acceptEncoding: string | null): Coding | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const weight = (coding: string) => q.get(coding) ?? q.get('*') ?? 0;
  if (weight('br') > 0 && weight('br') >= weight('gzip')) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return null;
}

/** Whether `If-None-Match` names `etag` (weak comparison, as for GET) or is `*`. */
function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/**
 * The decoded path when it is a plain relative path of names (no `..`, `.`-files, empty segments,
 * backslashes, NUL or encoded slashes), else null.
 */
export function safeRelativePath(path: string): string | null {
  if (/%2f|%5c|%00/i.test(path)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  const segments = decoded.replace(/^\/+/, '').split('/');
  if (!segments.length || segments.some((s) => !s || s.startsWith('.') || s.includes('\\') || s.includes('\0'))) return null;
  return segments.join('/');
}

/** Preflights are rare for assets (a module script's GET needs none) but answered the same permissive way. */
function preflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD',
      'access-control-max-age': '86400',
      'x-content-type-options': 'nosniff',
    },
  });
}

/** An error in the platform's (and relay's) shape (`{object:"error", message, type, param, code}`). */
function assetError(status: number, message: string, code: string, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(genericError(status, message, 'invalid_request_error', code).body), {
    status,
    headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store', ...extra },
  });
}
