/**
 * `POST /v1/embeddings` on the embedding engines (default: `parley-embed`, hashed lexical features).
 * Inputs are capped per request (count, tokens per input, tokens per batch) with clear 4xx answers.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { callerOf } from '../http/caller.js';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { countTokens } from '../engines/text/tokenizer.js';
import { words } from '../engines/embeddings/hashed.js';
import { quantize, toBase64 } from '../engines/embeddings/output.js';
import { badRequest, invalidField, invalidModel } from '../http/errors.js';
import { completionId, isoNow } from '../http/ids.js';
import { readJson } from '../http/validation.js';

/** Most texts in one request. */
export const MAX_EMBEDDING_INPUTS = 512;
/** Most tokens in one text (the model's context length). */
export const MAX_EMBEDDING_INPUT_TOKENS = 8192;
/** Most tokens in one request, all texts together. */
export const MAX_EMBEDDING_BATCH_TOKENS = 65536;

const EmbeddingRequestSchema = z.object({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1).max(MAX_EMBEDDING_INPUTS)]),
  output_dimension: z.int().min(8).nullable().optional(),
  output_dtype: z.enum(['float', 'int8', 'uint8', 'binary', 'ubinary']).optional(),
  encoding_format: z.enum(['float', 'base64']).optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});


/** The embeddings route, on the platform's embedding model catalog (`ctx.embeddings`). */
export function embeddingRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();

  app.post('/', async (c) => {
    const body = await readJson(c, EmbeddingRequestSchema, ctx.limits.maxJsonBytes);
    const resolved = ctx.embeddings.resolve(body.model);
    if (!resolved) throw invalidModel(body.model, { kind: 'an embedding model' });
    const { engine, card } = resolved;
    const texts = typeof body.input === 'string' ? [body.input] : body.input;
    const single = typeof body.input === 'string';
    const loc = (i: number) => (single ? ['body', 'input'] : ['body', 'input', i]);

    let promptTokens = 0;
    texts.forEach((text, i) => {
      if (words(text).length === 0) throw invalidField(loc(i), `${card.id} embeds words: the input has no letters or digits`, 'value_error', text);
      const tokens = countTokens(text);
      if (tokens > MAX_EMBEDDING_INPUT_TOKENS) {
        throw badRequest(`Input ${i} has ${tokens} tokens; the most ${card.id} takes in one input is ${MAX_EMBEDDING_INPUT_TOKENS}`, 'input');
      }
      promptTokens += tokens;
    });
    if (promptTokens > MAX_EMBEDDING_BATCH_TOKENS) {
      throw badRequest(`Too many tokens in the batch: ${promptTokens}; the most is ${MAX_EMBEDDING_BATCH_TOKENS}. Send fewer inputs per request`, 'input');
    }
    const dimension = body.output_dimension ?? engine.dimension(card.id);
    if (dimension > engine.maxDimension) {
      throw invalidField(['body', 'output_dimension'], `Input should be less than or equal to ${engine.maxDimension}`, 'less_than_equal', dimension);
    }
    const dtype = body.output_dtype ?? 'float';
    if ((dtype === 'binary' || dtype === 'ubinary') && dimension % 8 !== 0) {
      throw invalidField(['body', 'output_dimension'], `output_dtype '${dtype}' packs 8 dimensions per byte: output_dimension must be a multiple of 8`, 'value_error', dimension);
    }
    const base64 = body.encoding_format === 'base64';

    const data = engine.embed(texts, dimension).map((vector, index) => {
      const values = quantize(vector, dtype);
      return { object: 'embedding', embedding: base64 ? toBase64(values, dtype) : values, index };
    });
    const caller = callerOf(c);
    await ctx.usage.record({ userId: caller.userId, workspaceId: caller.workspaceId, model: card.id, endpoint: 'embeddings', promptTokens, completionTokens: 0, at: isoNow() });
    return c.json({
      id: completionId(),
      object: 'list',
      model: body.model,
      data,
      usage: { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens },
    });
  });

  return app;
}
