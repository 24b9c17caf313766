/**
 * The files API: upload, list, retrieve, download, signed URL, delete; durable (files/store.ts).
 *
 * - `POST /v1/files` (multipart: `file`*, `purpose` = fine-tune (default) | batch | ocr, `expiry` hours,
 *   `visibility` = workspace (default) | user) → the file. The cap (default {@link DEFAULT_MAX_FILE_BYTES},
 *   512 MB as the real service) is counted while the body streams → 413; not multipart → 415; malformed
 *   or a file that does not fit its purpose (files/describe.ts) → 422. The file streams into storage as it
 *   arrives (files/upload.ts): memory stays at a chunk or two, whatever the file's size.
 * - `GET /v1/files` (`page` from 0, `page_size` (=100, ≤1000), `include_total` (=true), `purpose`, and
 *   repeatable `sample_type`, `source`, `mimetypes`, `search` in the filename) → `{data, object:"list", total}`.
 * - `GET /v1/files/{id}` → the file with `deleted:false`; `DELETE` → `{id, object:"file", deleted:true}`.
 * - `GET /v1/files/{id}/content` → the bytes as `application/octet-stream` (streamed chunk by chunk).
 * - `GET /v1/files/{id}/url?expiry=<hours, =24, 1..168>` → `{url}`: a URL of this platform that serves
 *   the bytes without an API key until it expires (files/signed-url.ts); expired or forged → 403.
 * Files belong to the caller's workspace: another workspace's file is 404, as an unknown id.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import type { ValidationIssue } from 'parley-kit/types';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { forbidden, notFound, validationError } from '../http/errors.js';
import { validate } from '../http/validation.js';
import { streamMultipart, type StreamedForm } from '../http/multipart-stream.js';
import { FILE_PURPOSES, describeScanned } from './describe.js';
import { storeUpload, type StoredUpload } from './upload.js';
import { checkSignedUrl, signFileUrl, signedContentPath } from './signed-url.js';
import { deleteFile, fileChunks, getFile, getFileById, listFiles, urlSecret, type FileOwner, type FileRecord, type FileVisibility, type NewFileFields } from './store.js';

/** Largest upload accepted by default, in bytes (the real service's limit). */
export const DEFAULT_MAX_FILE_BYTES = 512 * 1024 * 1024;
/** Longest lifetime of a signed URL, in hours (a week). */
const MAX_URL_EXPIRY_HOURS = 168;

export interface FileRouteOptions {
  /** Cap on an uploaded file in bytes (413 above it); default {@link DEFAULT_MAX_FILE_BYTES}. */
  maxFileBytes?: number;
}

const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

const ListQuerySchema = z.object({
  page: z.coerce.number().int().min(0).default(0),
  page_size: z.coerce.number().int().min(1).max(1000).default(100),
  include_total: queryBool.default(true),
  purpose: z.string().optional(),
  search: z.string().optional(),
  sample_type: z.array(z.string()).optional(),
  source: z.array(z.string()).optional(),
  mimetypes: z.array(z.string()).optional(),
});

const UrlQuerySchema = z.object({ expiry: z.coerce.number().int().min(1).max(MAX_URL_EXPIRY_HOURS).default(24) });

const ownerOf = (c: Context): FileOwner => {
  const caller = callerOf(c);
  return { workspaceId: caller.workspaceId, userId: caller.userId };
};

const fileNotFound = (id: string) => notFound(`File '${id}' not found`);

/**
 * Checks the upload form's fields and the stored file (every problem is one 422 detail) and returns what the
 * store needs to finish it.
 */
function checkUpload(form: StreamedForm<StoredUpload>): NewFileFields {
  const issues: ValidationIssue[] = [];
  const text = (field: string): string | undefined => {
    if (form.otherFiles.includes(field)) { issues.push({ loc: ['body', field], msg: 'Input should be a valid string', type: 'string_type' }); return undefined; }
    const v = form.fields.get(field);
    return v === undefined || v === '' ? undefined : v.trim();
  };
  const purposeRaw = text('purpose') ?? 'fine-tune';
  const purpose = FILE_PURPOSES.find((p) => p === purposeRaw);
  if (!purpose) issues.push({ loc: ['body', 'purpose'], msg: `Input should be ${FILE_PURPOSES.map((p) => `'${p}'`).join(', ')}`, type: 'enum', input: purposeRaw });
  const visibilityRaw = text('visibility') ?? 'workspace';
  if (visibilityRaw !== 'workspace' && visibilityRaw !== 'user') issues.push({ loc: ['body', 'visibility'], msg: "Input should be 'workspace' or 'user'", type: 'enum', input: visibilityRaw });
  const expiryRaw = text('expiry');
  const expiry = expiryRaw === undefined || expiryRaw === 'null' ? null : Number(expiryRaw);
  if (expiry !== null && !(Number.isInteger(expiry) && expiry >= 1)) issues.push({ loc: ['body', 'expiry'], msg: 'Input should be a whole number of hours, at least 1', type: 'int_parsing', input: expiryRaw });

  const file = form.file;
  if (!file) {
    issues.push(form.fields.has('file')
      ? { loc: ['body', 'file'], msg: 'file should be an uploaded file (a multipart part with a filename), not a text field', type: 'value_error' }
      : { loc: ['body', 'file'], msg: 'Field required', type: 'missing' });
  } else if (file.result.bytes === 0) issues.push({ loc: ['body', 'file'], msg: 'The uploaded file is empty', type: 'value_error' });
  if (issues.length || !purpose || !file) throw validationError(issues);

  const filename = file.filename || 'upload';
  const described = describeScanned(purpose, filename, file.mimeType, file.result.facts);
  if ('error' in described) throw validationError([{ loc: ['body', 'file'], msg: described.error, type: 'value_error' }]);
  return { filename, purpose, sampleType: described.sampleType, mimetype: described.mimetype, numLines: described.numLines, visibility: visibilityRaw as FileVisibility, expiryHours: expiry };
}

/** The file's bytes as a streamed `application/octet-stream` answer. */
function contentResponse(ctx: PlatformContext, file: FileRecord): Response {
  const chunks = fileChunks(ctx.db, file.id);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() { await chunks.return(undefined); },
  });
  return new Response(body, {
    headers: {
      'content-type': 'application/octet-stream',
      'content-length': String(file.bytes),
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
    },
  });
}

export function fileRoutes(ctx: PlatformContext, options: FileRouteOptions = {}): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;

  // The file streams into storage as it arrives (files/upload.ts); it becomes visible once its fields are checked.
  app.post('/', async (c) => {
    const owner = ownerOf(c);
    let stored: StoredUpload | undefined;
    try {
      const form = await streamMultipart(c.req.raw, { maxFileBytes, route: 'POST /v1/files (fields file, purpose, expiry, visibility)', fileField: 'file' },
        async ({ chunks }) => (stored = await storeUpload(ctx.db, owner, chunks)));
      const fields = checkUpload(form);
      return c.json(await form.file!.result.finish(fields));
    } catch (err) {
      await stored?.discard().catch(() => {});
      throw err;
    }
  });

  app.get('/', async (c) => {
    const q = validate(ListQuerySchema, { ...c.req.query(), sample_type: c.req.queries('sample_type'), source: c.req.queries('source'), mimetypes: c.req.queries('mimetypes') }, ['query']);
    const { data, total } = await listFiles(ctx.db, ownerOf(c), {
      page: q.page, pageSize: q.page_size, purpose: q.purpose, search: q.search, sampleTypes: q.sample_type, sources: q.source, mimetypes: q.mimetypes,
    });
    return c.json({ data, object: 'list', total: q.include_total ? total : null });
  });

  app.get('/:file_id', async (c) => {
    const file = await getFile(ctx.db, ownerOf(c), c.req.param('file_id'));
    if (!file) throw fileNotFound(c.req.param('file_id'));
    return c.json({ ...file, deleted: false });
  });

  app.delete('/:file_id', async (c) => {
    const id = c.req.param('file_id');
    if (!(await deleteFile(ctx.db, ownerOf(c), id))) throw fileNotFound(id);
    return c.json({ id, object: 'file', deleted: true });
  });

  app.get('/:file_id/content', async (c) => {
    const file = await getFile(ctx.db, ownerOf(c), c.req.param('file_id'));
    if (!file) throw fileNotFound(c.req.param('file_id'));
    return contentResponse(ctx, file);
  });

  app.get('/:file_id/url', async (c) => {
    const q = validate(UrlQuerySchema, c.req.query(), ['query']);
    const file = await getFile(ctx.db, ownerOf(c), c.req.param('file_id'));
    if (!file) throw fileNotFound(c.req.param('file_id'));
    const expires = Math.floor(Date.now() / 1000) + q.expiry * 3600;
    const url = new URL(signedContentPath(file.id), c.req.url);
    url.searchParams.set('expires', String(expires));
    url.searchParams.set('signature', signFileUrl(await urlSecret(ctx.db), file.id, expires));
    return c.json({ url: url.href });
  });

  return app;
}

/** A file's signed URL (`/signed/files/…`, outside /v1): no API key; the signature is the proof. */
export function signedFileRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  app.get('/:file_id/content', async (c) => {
    const id = c.req.param('file_id');
    const refused = checkSignedUrl(await urlSecret(ctx.db), id, c.req.query('expires'), c.req.query('signature'));
    if (refused) throw forbidden(refused);
    const file = await getFileById(ctx.db, id);
    if (!file) throw fileNotFound(id);
    return contentResponse(ctx, file);
  });

  return app;
}
