/**
 * Any input, a clear answer: every route of the app (enumerated from the app itself) gets generated junk —
 * hostile path ids and query values (NUL, control characters, unpaired surrogates, huge strings, `..`),
 * JSON bodies (deep nesting, NUL strings and keys, wrong types, huge numbers, invalid UTF-8, top-level
 * arrays…), wrong content types and multipart forms with hostile field and file names — and must answer
 * below 500, every 4xx in one of the platform's error shapes. Fixed seed, so a failure replays.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { ADMIN_KEY, BASE, call, startPlatform, weatherTool } from './helpers.js';
import { startPlatformWithRoutes } from './platform-routes.js';

const MODEL = 'parley-local';
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
/** Generated cases per route (on top of the fixed hostile cases and the seed sweep); ~200 routes, FUZZ_RUNS=200 for a long run. */
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 16);

// ---------------------------------------------------------------------------------------------- requests

interface Body { bytes: Uint8Array | string; contentType?: string }
interface Case { params: Record<string, string>; query: Array<[string, string]>; body?: Body; key?: string | null }

let sent = 0;
const statuses = new Map<number, number>();
const unexpected: unknown[] = [];

/** Percent-encodes a path segment or query part, unpaired surrogates as their (invalid) CESU-8 bytes. */
function encode(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    out += code >= 0xd800 && code <= 0xdfff
      ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('')
      : encodeURIComponent(ch);
  }
  return out;
}

function urlOf(path: string, c: Case): string {
  const filled = path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encode(c.params[name] ?? 'x'));
  const query = c.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  return `${BASE}${filled}${query ? `?${query}` : ''}`;
}

async function send(platform: Platform, method: string, path: string, c: Case) {
  const headers: Record<string, string> = {};
  if (c.key !== null) headers.authorization = `Bearer ${c.key ?? ADMIN_KEY}`;
  if (c.body?.contentType) headers['content-type'] = c.body.contentType;
  const hasBody = c.body !== undefined && method !== 'GET' && method !== 'HEAD';
  const init: RequestInit = { method, headers, body: hasBody ? (c.body!.bytes as BodyInit) : undefined };
  const errorsBefore = unexpected.length;
  sent++;
  const response = await platform.fetch(new Request(urlOf(path, c), init));
  const text = await response.text();
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  return { status: response.status, text, contentType: response.headers.get('content-type') ?? '', errors: unexpected.slice(errorsBefore) };
}

/** One of the platform's error bodies: 422 detail list, generic error, or the observability error. */
function isErrorShape(json: any): boolean {
  if (json === null || typeof json !== 'object') return false;
  if (Array.isArray(json.detail)) {
    return json.detail.every((d: any) => Array.isArray(d.loc) && typeof d.msg === 'string' && typeof d.type === 'string');
  }
  if (json.detail && typeof json.detail === 'object') return typeof json.detail.message === 'string' && 'error_code' in json.detail;
  return json.object === 'error' && typeof json.message === 'string' && typeof json.type === 'string';
}

function check(res: Awaited<ReturnType<typeof send>>, label: string) {
  const why = `${label} → ${res.status} ${res.text.slice(0, 300)} ${res.errors.map((e) => (e instanceof Error ? e.stack : String(e))).join('\n')}`;
  expect(res.status, why).toBeLessThan(500);
  expect(res.errors, why).toEqual([]);
  if (res.status >= 400 && res.status !== 499) {
    expect(res.contentType, why).toMatch(/^application\/json/);
    expect(isErrorShape(JSON.parse(res.text)), why).toBe(true);
    // Error answers never echo unbounded input.
    expect(res.text.length, why).toBeLessThan(16_000);
  }
}

// ---------------------------------------------------------------------------------------------- junk

const text = (s: string): Body => ({ bytes: s, contentType: 'application/json' });
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

const hostileText = fc.oneof(
  fc.constantFrom(
    '\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800', '..', '.', '%', '%00', '\u0001\u001f\u007f', '\n', ' ', '',
    'null', '0', '-1', '1e400', "'; drop table x;--", '\u202e', '😀', 'ü', '../../etc/passwd', 'a'.repeat(3000), 'é'.repeat(10_000), '\u0000'.repeat(100),
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ maxLength: 12 }),
);
const hostileNumber = fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, 2 ** 63, -0, 0.5, -1, 0, 2 ** 31, -(2 ** 31) - 1, 5e-324);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileText, { maxLength: 3 }),
  fc.dictionary(hostileText, hostileText, { maxKeys: 3 }),
  fc.array(fc.dictionary(fc.constantFrom('role', 'content', 'type', 'text', 'name', 'id'), hostileText, { maxKeys: 3 }), { maxLength: 2 }),
);

const INVALID_UTF8: Body = { bytes: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), contentType: 'application/json' };

/** JSON texts no JSON.stringify makes: huge numbers, deep nesting, escapes of NUL and lone surrogates, broken JSON. */
const RAW_BODIES: Body[] = [
  { bytes: '' }, text(''), text(' '), text('null'), text('[]'), text('[1,2]'), text('"str"'), text('42'), text('{'), text('{"a":}'),
  text(deepArray(10_000)), text(deepObject(10_000)), text(`{"model":${deepArray(5000)}}`), text(`{"a":"${'['.repeat(100)}"}`),
  text('{"model":1e400,"name":123456789012345678901234567890}'), text('{"a":"\\u0000"}'), text('{"\\u0000":1}'), text('{"a":"\\ud800"}'),
  text('{"name":"\\udfff\\ud800"}'), text('{"a":1,"a":2}'), text('{"__proto__":{"x":1}}'),
  INVALID_UTF8,
  { bytes: new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), contentType: 'application/json' },
  { bytes: '{"model":"x"}', contentType: 'text/plain' },
  { bytes: 'model=x&name=%00', contentType: 'application/x-www-form-urlencoded' },
  { bytes: '--x\r\n', contentType: 'multipart/form-data' },
  { bytes: '--x\r\n', contentType: 'multipart/form-data; boundary=x' },
  { bytes: '{}', contentType: 'application/json; charset=utf-16' },
];

/** A multipart body built byte by byte, so names may hold anything (NUL, quotes, CR/LF). */
function multipart(parts: Array<{ name: string; filename?: string; value: string }>): Body {
  const b = 'fuzzBoundary7MA4YWxk';
  const chunks = parts.map((p) => `--${b}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}\r\n${p.filename !== undefined ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n${p.value}\r\n`);
  return { bytes: new TextEncoder().encode(`${chunks.join('')}--${b}--\r\n`), contentType: `multipart/form-data; boundary=${b}` };
}
const multipartBody = fc.array(
  fc.record({
    name: fc.oneof(fc.constantFrom('file', 'purpose', 'model', 'language', 'file_url', 'visibility', 'expiry'), hostileText),
    filename: fc.option(fc.oneof(fc.constantFrom('a.txt', 'a.jsonl', 'a.wav'), hostileText), { nil: undefined }),
    value: fc.oneof(fc.constantFrom('fine-tune', 'batch', MODEL, 'hello'), hostileText),
  }),
  { maxLength: 4 },
).map(multipart);

/** What the sweep puts in each leaf of a seed body. */
const SWEEP: unknown[] = ['é'.repeat(20_000), 1e308, -(2 ** 53) - 2, 2 ** 31, -1, 0.5, true, [], {}, null, 'swept value'];

/** Numbers JSON.stringify never writes, put in each leaf as raw JSON text. */
const RAW_NUMBERS = ['1e400', '-1e400', '123456789012345678901234567890', '-0', '1E-400'];
const RAW_MARK = '__raw_number__';

/** Every leaf path of a JSON value. */
function leaves(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.length ? value.flatMap((v, i) => leaves(v, [...path, i])) : [path];
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length ? entries.flatMap(([k, v]) => leaves(v, [...path, k])) : [path];
  }
  return [path];
}

function replaceAt(value: unknown, path: Array<string | number>, next: unknown): unknown {
  if (!path.length) return next;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[path[0]] = replaceAt(copy[path[0]], path.slice(1), next);
  return copy;
}

const COMMON_KEYS = ['model', 'name', 'id', 'input', 'inputs', 'messages', 'content', 'description', 'metadata', 'file_id', 'agent_id', 'page', 'page_size', 'stream', 'store', 'tools', 'definition', 'email', 'payload', 'properties', 'version', 'alias', 'instructions', 'max_tokens'];

/** A valid-looking body for the route with one or two leaves swapped for junk, or keys added. */
function mutatedBody(seed: unknown): fc.Arbitrary<Body> {
  const paths = leaves(seed);
  return fc.record({
    swaps: fc.array(fc.tuple(fc.nat(paths.length - 1), hostileValue), { maxLength: 2 }),
    extra: fc.array(fc.tuple(fc.constantFrom(...COMMON_KEYS), hostileValue), { maxLength: 2 }),
  }).map(({ swaps, extra }) => {
    let value = seed;
    for (const [i, junk] of swaps) value = replaceAt(value, paths[i], junk);
    if (value && typeof value === 'object' && !Array.isArray(value)) value = { ...value, ...Object.fromEntries(extra) };
    return text(JSON.stringify(value));
  });
}

// ---------------------------------------------------------------------------------------------- the routes

/** Valid-looking bodies, so that junk also reaches past the schemas into the stores. */
function seedBodies(ids: Record<string, string>): Record<string, unknown> {
  const messages = [{ role: 'user', content: 'hello' }];
  const judge = {
    name: 'Judge', description: 'd', model_name: MODEL, instructions: 'i', tools: [],
    output: { type: 'CLASSIFICATION', options: [{ value: 'a', description: 'b' }] },
  };
  return {
    'POST /v1/conversations': { model: MODEL, inputs: 'hello', store: true, instructions: 'Be brief', completion_args: { max_tokens: 8, temperature: 0.2 }, metadata: { k: 'v' } },
    'POST /v1/conversations/:id': { inputs: [{ role: 'user', content: 'more' }], store: true },
    'POST /v1/conversations/:id/restart': { inputs: 'again', from_entry_id: ids.entry ?? 'x' },
    'POST /v1/agents': { model: MODEL, name: 'fuzz', instructions: 'i', tools: [weatherTool], completion_args: { temperature: 0.3, max_tokens: 10 }, metadata: { a: 1 } },
    'PATCH /v1/agents/:agent_id': { name: 'fuzz 2', description: 'd', tools: [weatherTool], handoffs: [] },
    'POST /v1/chat/completions': { model: MODEL, messages, max_tokens: 5, tools: [weatherTool], response_format: { type: 'text' } },
    'POST /v1/agents/completions': { agent_id: ids.agent_id, messages, max_tokens: 5 },
    'POST /v1/fim/completions': { model: 'parley-infill', prompt: 'def f(', suffix: '):', max_tokens: 5 },
    'POST /v1/embeddings': { model: 'parley-embed', input: ['a', 'b'] },
    'POST /v1/moderations': { model: 'parley-moderation', input: ['x'] },
    'POST /v1/classifications': { model: 'parley-moderation', input: 'x' },
    'POST /v1/chat/moderations': { model: 'parley-moderation', input: [messages] },
    'POST /v1/chat/classifications': { model: 'parley-moderation', input: [{ messages }] },
    'POST /v1/libraries': { name: 'lib', description: 'd', chunk_size: 100 },
    'PATCH /v1/libraries/:library_id': { name: 'lib 2', description: 'd2' },
    'PUT /v1/libraries/:library_id/documents/:document_id': { name: 'doc 2', attributes: { a: 'b' } },
    'PUT /v1/libraries/:library_id/share': { level: 'Viewer', share_with_uuid: '00000000-0000-4000-8000-000000000000', share_with_type: 'User' },
    'POST /v1/observability/datasets': { name: 'ds', description: 'd' },
    'POST /v1/observability/datasets/:dataset_id/records': { payload: { messages }, properties: { a: 1 } },
    'POST /v1/observability/judges': judge,
    'PUT /v1/observability/judges/:judge_id': { ...judge, name: 'Judge two' },
    'PATCH /v1/observability/datasets/:dataset_id': { name: 'dataset two', description: 'x' },
    'PUT /v1/observability/dataset-records/:dataset_record_id/payload': { payload: { messages } },
    'PUT /v1/observability/dataset-records/:dataset_record_id/properties': { properties: { a: 'b', n: 1 } },
    'POST /v1/observability/dataset-records/bulk-delete': { dataset_record_ids: ['00000000-0000-4000-8000-000000000000'] },
    'PATCH /v2/prompts/:prompt_id': { title: 't', description: 'd', sharingScope: 'workspace' },
    'POST /v2/prompts/:prompt_id/versions': { definition: { content: 'Hello again {{name}}', variables: [{ name: 'name' }] }, notes: 'n', aliases: ['next'] },
    'PATCH /v1/admin/users/:user_id': { first_name: 'A', last_name: 'B' },
    'POST /v2/prompts': { name: 'p', definition: { content: 'Hello {{name}}', variables: [{ name: 'name' }] }, aliases: ['prod'] },
    'POST /v2/skills': { name: 's', definition: { description: 'Use it', body: 'Step', assets: { 'run.sh': { textContent: 'echo hi', isExecutable: true } } } },
    'POST /v1/admin/users': [{ email: 'fuzz@example.com', first_name: 'F', last_name: 'Z', role_names: ['member'] }],
    'POST /v1/admin/users-invite': { emails: ['inv@example.com'] },
    'POST /v1/admin/roles': { name: 'r', permissions: ['ManageOrganization'] },
    'POST /v1/admin/user-groups': { name: 'g', description: 'd' },
    'POST /v1/admin/rate-limit': { requests_per_second: 5, tokens_limits_by_model: [{ model: MODEL, tokens_per_minute: 1000, tokens_per_month: 100000 }] },
    'POST /v1/admin/spend-limit': { amount: 10, no_monthly_limit: false },
    'POST /v1/batch/jobs': { input_files: [ids.file_id], endpoint: '/v1/chat/completions', model: MODEL, metadata: { a: 'b' } },
    'POST /v1/fine_tuning/jobs': { model: MODEL, training_files: [{ file_id: ids.file_id, weight: 1 }], hyperparameters: { training_steps: 1, learning_rate: 0.0001 }, suffix: 'fz' },
    'POST /v1/connectors': { name: 'conn', description: 'd', server: 'http://127.0.0.1:9/mcp' },
    'POST /v1/audio/voices': { name: 'v', sample_audio: 'AAAA', sample_filename: 'a.wav' },
  };
}

/** Real ids for path parameters (so junk bodies reach past the lookups), created before the walk. */
async function createResources(platform: Platform): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  const post = async (path: string, body: unknown) => (await call(platform, path, { body, key: ADMIN_KEY })).json ?? {};
  const conversation = await post('/v1/conversations', { model: MODEL, inputs: 'hello' });
  ids.id = conversation.conversation_id;
  ids.entry = conversation.outputs?.[0]?.id;
  ids.agent_id = (await post('/v1/agents', { model: MODEL, name: 'fuzz agent' })).id;
  const form = new FormData();
  form.set('purpose', 'fine-tune');
  form.set('file', new File(['{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}\n'], 'a.jsonl'));
  ids.file_id = (await call(platform, '/v1/files', { rawBody: form, key: ADMIN_KEY })).json?.id;
  ids.library_id = (await post('/v1/libraries', { name: 'fuzz lib' })).id;
  const doc = new FormData();
  doc.set('file', new File(['hello world'], 'a.txt', { type: 'text/plain' }));
  ids.document_id = (await call(platform, `/v1/libraries/${ids.library_id}/documents`, { rawBody: doc, key: ADMIN_KEY })).json?.id;
  ids.dataset_id = (await post('/v1/observability/datasets', { name: 'fuzz ds', description: 'd' })).id;
  ids.dataset_record_id = (await post(`/v1/observability/datasets/${ids.dataset_id}/records`, { payload: { messages: [{ role: 'user', content: 'hi' }] } })).id;
  ids.judge_id = (await post('/v1/observability/judges', {
    name: 'Fuzz judge', description: 'd', model_name: MODEL, instructions: 'i', tools: [], output: { type: 'CLASSIFICATION', options: [{ value: 'a', description: 'b' }] },
  })).id;
  ids.user_id = Object.values((await post('/v1/admin/users', [{ email: 'member@example.com', first_name: 'M', last_name: 'B' }])).email_to_user_id ?? {})[0] as string;
  ids.prompt_id = (await post('/v2/prompts', { name: 'fuzz-prompt', definition: { content: 'Hi' } })).id;
  ids.skill_id = (await post('/v2/skills', { name: 'fuzz-skill', definition: { description: 'Use it', body: 'Step', assets: { 'run.sh': { textContent: 'echo hi', isExecutable: true } } } })).id;
  ids.model_id = MODEL;
  ids.version = '1';
  ids.consumer_scope = 'user';
  return Object.fromEntries(Object.entries(ids).filter(([, v]) => typeof v === 'string'));
}

/** The fuzzed admin routes may set rate and spend limits; lifted again so the walk goes on past 429s. */
async function liftLimits(platform: Platform) {
  expect((await call(platform, '/v1/admin/rate-limit', { body: { requests_per_second: 1_000_000, tokens_limits_by_model: null }, key: ADMIN_KEY })).status).toBe(200);
  expect((await call(platform, '/v1/admin/spend-limit', { body: { amount: null, no_monthly_limit: true }, key: ADMIN_KEY })).status).toBe(200);
}

const QUERY_NAMES = [
  'page', 'page_size', 'limit', 'offset', 'q', 'model', 'after', 'before', 'order', 'status', 'fields', 'version', 'alias', 'expires', 'signature',
  'type_filter', 'metadata', 'search', 'sample_type', 'created_after', 'dry_run', 'filters_attributes', 'query_filters', 'cursor', 'page_token', 'pageToken',
];
const b64 = (s: string) => Buffer.from(s).toString('base64url');
/** Query values that are JSON (metadata filters) or base64url JSON (page tokens) holding what the rules refuse. */
const jsonQueryValue = fc.constantFrom(
  '{"a":"\\u0000"}', '{"\\u0000":"x"}', '{"a":["\\ud800"]}', deepArray(1000), `{"a":${deepObject(500)}}`, '{"a":1e400}', '[]', 'null',
  b64('{"v":1,"k":"\\u0000","i":"\\u0000","f":"createdAt","d":"desc","a":null}'), b64('{"v":1,"s":1e400}'), b64('{"offset":"\\u0000"}'),
  b64('{"offset":1e300}'), b64(deepArray(3000)), b64('{"v":1,"s":"\\ud800"}'),
);

function caseFor(method: string, path: string, ids: Record<string, string>, seeds: Record<string, unknown>): fc.Arbitrary<Case> {
  const names = [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  const param = (name: string) => (ids[name] ? fc.oneof({ arbitrary: fc.constant(ids[name]), weight: 3 }, { arbitrary: hostileText, weight: 2 }, { arbitrary: fc.uuid(), weight: 1 }) : fc.oneof(hostileText, fc.uuid()));
  const params = fc.record(Object.fromEntries(names.map((n) => [n, param(n)])) as Record<string, fc.Arbitrary<string>>);
  const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_NAMES), hostileText), fc.oneof(hostileText, hostileNumber.map(String), jsonQueryValue)), { maxLength: 3 });
  const seed = seeds[`${method} ${path}`] ?? {};
  const body = method === 'GET' ? fc.constant(undefined) : fc.oneof(
    { arbitrary: mutatedBody(seed), weight: 4 },
    { arbitrary: fc.constantFrom(...RAW_BODIES), weight: 2 },
    { arbitrary: hostileValue.map((v) => text(JSON.stringify(v))), weight: 1 },
    { arbitrary: multipartBody, weight: path.includes('files') || path.includes('documents') || path.includes('transcriptions') ? 3 : 1 },
  );
  return fc.record({ params, query, body });
}

/** The cases every route gets whatever the generator picks. */
function fixedCases(path: string, method: string): Case[] {
  const params = (value: string) => Object.fromEntries([...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => [m[1], value]));
  const none: Array<[string, string]> = [];
  const bodies = method === 'GET' ? [undefined] : [text(deepArray(10_000)), text(deepObject(10_000)), text('{"name":"a\\u0000b","model":"\\ud800"}'), INVALID_UTF8, multipart([{ name: 'fi\u0000le', filename: 'a\u0000.txt', value: 'x' }, { name: 'purpose', value: '\u0000' }])];
  return [
    { params: params('a\u0000b'), query: none },
    { params: params('\ud800'), query: none },
    { params: params('x'.repeat(5000)), query: none },
    { params: params('..'), query: [['page', '\u0000'], ['q', '\udc00'], ['\u0000', 'x']] },
    ...['{"a":"\\u0000","\\ud800":"b"}', `{"a":${deepArray(100)}}`].map((json): Case => ({
      params: params('x'),
      query: ['metadata', 'filters_attributes', 'query_filters'].map((name): [string, string] => [name, json])
        .concat(['pageToken', 'page_token', 'cursor'].map((name): [string, string] => [name, b64(json.replace('{', '{"v":1,"s":1,"offset":0,"k":"\\u0000","i":"\\u0000","f":"createdAt","d":"desc","a":null,'))])),
    })),
    ...bodies.map((body) => ({ params: params('x'), query: none, body })),
    { params: params('x'), query: none, key: null },
    { params: params('x'), query: none, key: 'wrong\u00ffkey' },
  ];
}

// ---------------------------------------------------------------------------------------------- tests

describe('every route answers junk with a 4xx in the error shape, never a 500', () => {
  let platform: Platform;
  let ids: Record<string, string> = {};
  let seeds: Record<string, unknown> = {};
  let routes: Array<{ method: string; path: string }> = [];

  beforeAll(async () => {
    let all: Array<{ method: string; path: string }>;
    ({ platform, routes: all } = await startPlatformWithRoutes({ onError: (e) => unexpected.push(e) }));
    // Deletions last, so the other routes still find the resources created for them.
    routes = all.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    // `/api/admin/*` forwards to `/v1/admin/*` (a wildcard route, so not in the list).
    routes.splice(routes.findIndex((r) => r.method === 'DELETE'), 0, { method: 'GET', path: '/api/admin/users/:user_id' }, { method: 'PATCH', path: '/api/admin/user-groups/:group_uuid' });
    ids = await createResources(platform);
    seeds = seedBodies(ids);
    console.log(`fuzz: real ids for ${Object.keys(ids).join(', ')}`);
  });
  afterAll(async () => {
    console.log(`fuzz: ${sent} requests over ${routes.length} routes; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    await platform?.close();
  });

  it('walks every route of the app', async () => {
    expect(routes.length).toBeGreaterThan(150);
    for (const [index, { method, path }] of routes.entries()) {
      for (const c of fixedCases(path, method)) check(await send(platform, method, path, c), `${method} ${path} ${JSON.stringify(c).slice(0, 300)}`);
      await fc.assert(
        fc.asyncProperty(caseFor(method, path, ids, seeds), async (c) => {
          check(await send(platform, method, path, c), `${method} ${path} ${JSON.stringify(c).slice(0, 300)}`);
        }),
        { numRuns: RUNS_PER_ROUTE, seed: SEED + index, endOnFailure: true },
      );
      // Every leaf of the valid-looking body, one at a time: a long string, extreme numbers, a wrong type.
      const seed = seeds[`${method} ${path}`];
      if (seed !== undefined) {
        for (const leaf of leaves(seed)) {
          for (const junk of SWEEP) {
            const c: Case = { params: ids, query: [], body: text(JSON.stringify(replaceAt(seed, leaf, junk))) };
            check(await send(platform, method, path, c), `${method} ${path} ${leaf.join('.')} = ${JSON.stringify(junk).slice(0, 40)}`);
          }
          for (const raw of RAW_NUMBERS) {
            const c: Case = { params: ids, query: [], body: text(JSON.stringify(replaceAt(seed, leaf, RAW_MARK)).replace(`"${RAW_MARK}"`, raw)) };
            check(await send(platform, method, path, c), `${method} ${path} ${leaf.join('.')} = ${raw}`);
          }
        }
      }
      if (path.startsWith('/v1/admin/')) await liftLimits(platform);
    }
  }, 240_000);
});

describe('after a restart', () => {
  it('reads and continues a conversation with deep-ish input stored before the restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'parley-fuzz-'));
    try {
      const nested = JSON.parse(deepObject(40));
      let platform = await startPlatform({ dataDir });
      const started = await call(platform, '/v1/conversations', {
        body: { model: MODEL, inputs: 'hello', metadata: { nested }, completion_args: { response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'object', properties: { a: nested } } } } } },
      });
      expect(started.status).toBe(200);
      const id = started.json.conversation_id;
      let schema: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < 25; i++) schema = { type: 'object', properties: { inner: schema } };
      const tool = { type: 'function', function: { name: 'deep', description: 'A deeply nested argument', parameters: { type: 'object', properties: { arg: schema } } } };
      const agent = await call(platform, '/v1/agents', { body: { model: MODEL, name: 'deep agent', tools: [tool], metadata: { nested } } });
      expect(agent.status).toBe(200);
      const tooDeep = await call(platform, `/v1/conversations/${id}`, { rawBody: `{"inputs":"x","metadata":${deepObject(10_000)}}`, headers: { 'content-type': 'application/json' } });
      expect(tooDeep.status).toBe(422);
      await platform.close();

      platform = await startPlatform({ dataDir });
      for (const path of [`/v1/conversations/${id}`, `/v1/conversations/${id}/history`, `/v1/conversations/${id}/messages`, '/v1/conversations']) {
        expect((await call(platform, path)).status, path).toBe(200);
      }
      const appended = await call(platform, `/v1/conversations/${id}`, { body: { inputs: [{ role: 'user', content: 'again', prefix: false }] } });
      expect(appended.status).toBe(200);
      const restarted = await call(platform, `/v1/conversations/${id}/restart`, { body: { inputs: 'from the start', from_entry_id: started.json.outputs[0].id } });
      expect(restarted.status).toBe(200);
      const viaAgent = await call(platform, '/v1/conversations', { body: { agent_id: agent.json.id, inputs: 'use the deep tool' } });
      expect(viaAgent.status).toBe(200);
      expect((await call(platform, `/v1/agents/${agent.json.id}`)).json.tools[0].function.parameters).toEqual(tool.function.parameters);
      const nul = await call(platform, `/v1/conversations/${id}`, { body: { inputs: 'a\u0000b' } });
      expect(nul.status).toBe(422);
      expect(nul.json.detail[0].loc).toEqual(['body', 'inputs']);
      await platform.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
