/**
 * `POST /v1/ocr` of the local platform (reference §6).
 *
 * - Body: OCRRequest (additionalProperties false → unknown fields 422 `extra_forbidden`). `model` is an OCR model
 *   id or alias (`mistral-ocr-latest`…); anything else → 400 `invalid_model`.
 * - `document`: `document_url` / `image_url` as `data:` URLs (base64 PDF or image) or http(s) URLs of hosts on the
 *   `ocrUrlAllowlist` option (default none → 422); `file` → a file of the files API visible to the caller (unknown → 404).
 *   See ./document-input.ts.
 * - Limits: `maxOcrBytes` (default 50 MB → 413), 1,000 pages (422). Corrupt, encrypted or unsupported → 422.
 * - `pages`: 0-based `"0,2-4"` or `[0,2,3,4]`; out of range → 422. `include_image_base64`, `image_limit` and
 *   `image_min_size` (px at 200 dpi) apply to images drawn on text-layer pages; `table_format` moves tables
 *   found in text layers to the page's `tables` (see engines/ocr/local.ts). Annotation formats, headers/footers, blocks
 *   and confidence scores are accepted and not produced (`document_annotation` is null).
 * - Answer: `{pages:[{index, markdown, images, dimensions}], model, document_annotation, usage_info}`.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { OcrResponse } from 'parley-kit/types';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { isoNow } from '../http/ids.js';
import { callerClosedRequest, engineUnavailable, invalidField, invalidModel } from '../http/errors.js';
import { jsonObject, nullable } from '../http/schemas.js';
import { readJson } from '../http/validation.js';
import { readFileBytes } from '../files/store.js';
import { readDocument } from './document-input.js';
import { selectPages } from '../engines/ocr/pages.js';
import { InvalidDocumentError, OcrEngineUnavailableError } from '../engines/ocr/types.js';

/** Most pages one request may have (as the real service). */
export const MAX_OCR_PAGES = 1000;
/** Room for the JSON around a base64 document. */
const JSON_OVERHEAD = 64 * 1024;

const OcrResponseFormatSchema = z.object({ type: z.string(), json_schema: nullable(jsonObject) });

/** `POST /v1/ocr` (OCRRequest, additionalProperties false). */
const OcrRequestSchema = z.strictObject({
  model: z.string().min(1).nullable(),
  id: z.string().optional(),
  document: z.discriminatedUnion('type', [
    z.object({ type: z.literal('document_url'), document_url: z.string().min(1), document_name: nullable(z.string()) }),
    z.object({ type: z.literal('image_url'), image_url: z.union([z.string().min(1), z.object({ url: z.string().min(1), detail: nullable(z.string()) })]) }),
    z.object({ type: z.literal('file'), file_id: z.string().min(1) }),
  ]),
  pages: nullable(z.union([z.string(), z.array(z.number().int().min(0))])),
  include_image_base64: nullable(z.boolean()),
  image_limit: nullable(z.number().int().min(0)),
  image_min_size: nullable(z.number().int().min(0)),
  bbox_annotation_format: nullable(OcrResponseFormatSchema),
  document_annotation_format: nullable(OcrResponseFormatSchema),
  document_annotation_prompt: nullable(z.string()),
  table_format: nullable(z.enum(['markdown', 'html'])),
  extract_header: z.boolean().optional(),
  extract_footer: z.boolean().optional(),
  include_blocks: z.boolean().optional(),
  confidence_scores_granularity: nullable(z.enum(['word', 'page', 'block'])),
});

function documentError(err: unknown): unknown {
  if (err instanceof InvalidDocumentError) return invalidField(['body', 'document'], err.message, 'value_error');
  if (err instanceof OcrEngineUnavailableError) return engineUnavailable(err.message);
  return err;
}

export function ocrRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const { maxBytes, urlAllowlist } = ctx.ocrInput;

  app.post('/', async (c) => {
    const body = await readJson(c, OcrRequestSchema, Math.ceil((maxBytes * 4) / 3) + JSON_OVERHEAD);
    const resolved = body.model === null ? undefined : ctx.ocr.resolve(body.model);
    if (!resolved?.card.capabilities.ocr) throw invalidModel(String(body.model), { kind: 'an OCR model', capability: 'ocr' });
    const caller = callerOf(c);
    const readFile = async (id: string) => (await readFileBytes(ctx.db, caller.workspaceId, id, caller.userId))?.bytes;
    const input = await readDocument(body.document, { maxBytes, urlAllowlist, signal: c.req.raw.signal, readFile });
    try {
      const pickPages = (count: number) => {
        if (count > MAX_OCR_PAGES) throw invalidField(['body', 'document'], `The document has ${count} pages; at most ${MAX_OCR_PAGES} pages can be processed in one request`, 'value_error');
        const pages = selectPages(body.pages, count);
        if (typeof pages === 'string') throw invalidField(['body', 'pages'], pages, 'value_error', body.pages);
        return pages;
      };
      const images = { includeBase64: body.include_image_base64 ?? false, limit: body.image_limit ?? null, minSize: body.image_min_size ?? null };
      const result = await resolved.engine.process({ input, selectPages: pickPages, images, tableFormat: body.table_format ?? null, signal: c.req.raw.signal });
      await ctx.usage.record({ userId: caller.userId, workspaceId: caller.workspaceId, model: resolved.card.id, endpoint: 'ocr', promptTokens: 0, completionTokens: 0, unit: 'pages', quantity: result.length, at: isoNow() });
      return c.json({
        pages: result,
        model: body.model!,
        document_annotation: null,
        usage_info: { pages_processed: result.length, doc_size_bytes: input.bytes.byteLength },
      } satisfies OcrResponse);
    } catch (err) {
      // The caller went away: nothing to answer and nothing to report.
      if (c.req.raw.signal.aborted) return callerClosedRequest();
      throw documentError(err);
    }
  });

  return app;
}
