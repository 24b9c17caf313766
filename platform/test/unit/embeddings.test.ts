/**
 * `POST /v1/embeddings` over HTTP and through the official SDK: shapes, dimensions, unit length, output
 * dtypes and encodings, limits, and the property the engine exists for — paraphrases are closer than
 * unrelated texts (fixture test/fixtures/embeddings/similarity.json).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as errors from '@mistralai/mistralai/models/errors';
import type { Platform } from '../../src/app.js';
import { hashedEmbedding } from '../../src/engines/embeddings/hashed.js';
import { quantize } from '../../src/engines/embeddings/output.js';
import { MAX_EMBEDDING_INPUTS } from '../../src/embeddings/routes.js';
import { call, startPlatform } from './helpers.js';
import { sdkFor } from './sdk.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/embeddings/similarity.json', import.meta.url), 'utf8')) as {
  paraphrases: Array<[string, string]>;
  unrelated: Array<[string, string]>;
};

let platform: Platform;

beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const embed = (body: Record<string, unknown>) => call(platform, '/v1/embeddings', { body: { model: 'mistral-embed', ...body } });
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const norm = (a: ArrayLike<number>) => Math.sqrt(dot(a, a));

describe('POST /v1/embeddings', () => {
  it('answers a list of 1024-dimensional unit vectors, one per input, in order', async () => {
    const res = await embed({ input: ['Embed this sentence.', 'As well as this one.'] });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ object: 'list', model: 'mistral-embed' });
    expect(res.json.id).toMatch(/^[0-9a-f]{32}$/);
    expect(res.json.data.map((d: any) => [d.object, d.index])).toEqual([['embedding', 0], ['embedding', 1]]);
    for (const d of res.json.data) {
      expect(d.embedding).toHaveLength(1024);
      expect(norm(d.embedding)).toBeCloseTo(1, 5);
    }
    expect(res.json.usage.prompt_tokens).toBeGreaterThan(0);
    expect(res.json.usage).toMatchObject({ completion_tokens: 0, total_tokens: res.json.usage.prompt_tokens });
    const single = await embed({ input: 'Embed this sentence.' });
    expect(single.json.data).toHaveLength(1);
    expect(single.json.data[0].embedding).toEqual(res.json.data[0].embedding);
  });

  it('is deterministic, honours output_dimension, and is served as parley-embed too', async () => {
    const a = await embed({ input: 'same text', output_dimension: 256 });
    const b = await call(platform, '/v1/embeddings', { body: { model: 'parley-embed', input: 'same text', output_dimension: 256 } });
    expect(a.json.data[0].embedding).toHaveLength(256);
    expect(b.json.data[0].embedding).toEqual(a.json.data[0].embedding);
    expect(norm(a.json.data[0].embedding)).toBeCloseTo(1, 5);
  });

  it('the embedding and infill models are listed and retrievable, and not as chat models', async () => {
    const ids = (await call(platform, '/v1/models')).json.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['parley-embed', 'parley-infill']));
    const embed = await call(platform, '/v1/models/mistral-embed');
    expect(embed.json).toMatchObject({ id: 'parley-embed', capabilities: { completion_chat: false } });
    expect((await call(platform, '/v1/models/codestral-latest')).json).toMatchObject({ id: 'parley-infill', capabilities: { completion_fim: true } });
    const chat = await call(platform, '/v1/chat/completions', { body: { model: 'mistral-embed', messages: [{ role: 'user', content: 'hi' }] } });
    expect(chat.status).toBe(400);
  });

  it('paraphrases are more similar than unrelated pairs (fixture)', async () => {
    const texts = [...new Set([...fixture.paraphrases.flat(), ...fixture.unrelated.flat()])];
    const res = await embed({ input: texts });
    const vectors = new Map<string, number[]>(texts.map((t, i) => [t, res.json.data[i].embedding]));
    const cos = ([x, y]: [string, string]) => dot(vectors.get(x)!, vectors.get(y)!);
    const paraphrase = fixture.paraphrases.map(cos);
    const unrelated = fixture.unrelated.map(cos);
    expect(Math.min(...paraphrase)).toBeGreaterThan(Math.max(...unrelated));
    expect(paraphrase.reduce((s, x) => s + x, 0) / paraphrase.length).toBeGreaterThan(0.3);
  });

  it('output dtypes: int8, uint8, binary and ubinary carry the float vector, base64 encodes the bytes', async () => {
    const input = 'Quantize this sentence, please.';
    const float = (await embed({ input, output_dimension: 64 })).json.data[0].embedding as number[];
    const int8 = (await embed({ input, output_dimension: 64, output_dtype: 'int8' })).json.data[0].embedding as number[];
    const uint8 = (await embed({ input, output_dimension: 64, output_dtype: 'uint8' })).json.data[0].embedding as number[];
    const binary = (await embed({ input, output_dimension: 64, output_dtype: 'binary' })).json.data[0].embedding as number[];
    const ubinary = (await embed({ input, output_dimension: 64, output_dtype: 'ubinary' })).json.data[0].embedding as number[];
    expect(int8.every((x) => Number.isInteger(x) && x >= -127 && x <= 127)).toBe(true);
    expect(Math.max(...int8.map(Math.abs))).toBe(127);
    expect(dot(int8, float) / norm(int8)).toBeGreaterThan(0.99);
    expect(uint8.every((x) => Number.isInteger(x) && x >= 0 && x <= 255)).toBe(true);
    expect(binary).toHaveLength(8);
    expect(ubinary.map((x) => x - 128)).toEqual(binary);
    const bits = ubinary.flatMap((byte) => Array.from({ length: 8 }, (_, j) => (byte >> (7 - j)) & 1));
    expect(bits).toEqual(float.map((x) => (x > 0 ? 1 : 0)));

    const b64 = (await embed({ input, output_dimension: 64, encoding_format: 'base64' })).json.data[0].embedding as string;
    const decoded = new Float32Array(new Uint8Array(Buffer.from(b64, 'base64')).buffer);
    expect(Array.from(decoded)).toEqual(float.map((x) => Math.fround(x)));
    const b64int8 = (await embed({ input, output_dimension: 64, output_dtype: 'int8', encoding_format: 'base64' })).json.data[0].embedding as string;
    expect(Array.from(new Int8Array(new Uint8Array(Buffer.from(b64int8, 'base64')).buffer))).toEqual(int8);
  });

  it('bad input: 422 for shape and limits, 400 for an unknown model or too many tokens', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ input: 42 }, 'body.input'],
      [{ input: [] }, 'body.input'],
      [{ input: Array(MAX_EMBEDDING_INPUTS + 1).fill('x') }, 'body.input'],
      [{ input: 'x', output_dimension: 0 }, 'body.output_dimension'],
      [{ input: 'x', output_dimension: 100_000 }, 'body.output_dimension'],
      [{ input: 'x', output_dimension: 12, output_dtype: 'binary' }, 'body.output_dimension'],
      [{ input: 'x', output_dtype: 'float16' }, 'body.output_dtype'],
      [{ input: 'x', encoding_format: 'hex' }, 'body.encoding_format'],
      [{ input: ['fine', '  ...  '] }, 'body.input.1'],
    ];
    for (const [body, loc] of cases) {
      const res = await embed(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.detail.map((d: any) => d.loc.join('.'))).toContain(loc);
    }
    const unknown = await call(platform, '/v1/embeddings', { body: { model: 'mistral-small-latest', input: 'x' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ object: 'error', type: 'invalid_model', param: 'model' });
    const long = await embed({ input: 'word '.repeat(9000) });
    expect(long.status).toBe(400);
    expect(long.json.message).toContain('8192');
  });
});

describe('hashed embedding engine', () => {
  it('vectors are unit length, and word order and accents matter as documented', () => {
    const v = hashedEmbedding('Café au lait', 1024);
    expect(norm(v)).toBeCloseTo(1, 5);
    expect(Array.from(hashedEmbedding('cafe au lait', 1024))).toEqual(Array.from(v));
    expect(dot(hashedEmbedding('dog bites man', 1024), hashedEmbedding('man bites dog', 1024))).toBeLessThan(0.999);
    expect(quantize(new Float32Array([0.5, -0.25, 0, 1, -1, 0.1, 0.2, -0.3]), 'ubinary')).toEqual([0b10010110]);
  });
});

describe('SDK embeddings', () => {
  it('embeddings.create parses, with dimensions, unit length and the similarity property', async () => {
    const client = sdkFor(platform);
    const [[a, b]] = fixture.paraphrases;
    const c = fixture.unrelated[0][1];
    const res = await client.embeddings.create({ model: 'mistral-embed', inputs: [a, b, c] });
    expect(res.object).toBe('list');
    expect(res.data).toHaveLength(3);
    const [va, vb, vc] = res.data.map((d) => d.embedding!);
    expect(va).toHaveLength(1024);
    expect(norm(va)).toBeCloseTo(1, 5);
    expect(dot(va, vb)).toBeGreaterThan(dot(va, vc));
    const small = await client.embeddings.create({ model: 'mistral-embed', inputs: 'short', outputDimension: 32, outputDtype: 'int8' });
    expect(small.data[0].embedding).toHaveLength(32);
    expect(res.usage.promptTokens).toBeGreaterThan(0);
    await expect(client.embeddings.create({ model: 'mistral-embed', inputs: [] })).rejects.toBeInstanceOf(errors.HTTPValidationError);
  });
});
