import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { HEX32, ISO_Z, call, startPlatform, weatherTool } from './helpers.js';

let platform: Platform;
let model: string;
/** A tag unique to this file's run; list tests filter on it so other agents don't interfere. */
let run = 0;

beforeAll(async () => {
  platform = await startPlatform();
  const models = await call(platform, '/v1/models');
  expect(models.status).toBe(200);
  model = models.json.data[0].id;
});
afterAll(async () => {
  await platform.close();
});

const req = (path: string, options: Parameters<typeof call>[2] = {}) => call(platform, path, options);

async function createAgent(body: Record<string, unknown> = {}) {
  const res = await req('/v1/agents', { body: { model, name: 'Helper', ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json;
}

function locs(json: any): string[] {
  return json.detail.map((d: any) => d.loc.join('.'));
}

describe('auth', () => {
  it('401 without a key or with a wrong key', async () => {
    for (const key of [null, 'wrong']) {
      const res = await req('/v1/agents', { key });
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ object: 'error', type: 'authentication_error' });
    }
    const withHeader = await req('/v1/agents', { key: null, headers: { 'x-api-key': 'test-key' } });
    expect(withHeader.status).toBe(200);
  });
});

describe('POST /v1/agents', () => {
  it('creates an agent with every field kept', async () => {
    const body = {
      model,
      name: 'Weather bot',
      description: 'Answers weather questions',
      instructions: 'Be brief.',
      tools: [weatherTool, { type: 'web_search' }, { type: 'document_library', library_ids: ['lib1'] }],
      completion_args: { temperature: 0.3, max_tokens: 100, tool_choice: 'auto', stop: ['END'] },
      guardrails: [{ block_on_error: true, moderation_llm_v1: { action: 'block' } }],
      metadata: { team: 'weather', n: 1 },
      version_message: 'first',
    };
    const res = await req('/v1/agents', { body });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const a = res.json;
    expect(a.id).toMatch(new RegExp(`^ag_${HEX32}$`));
    expect(a).toMatchObject({
      object: 'agent', model, name: 'Weather bot', version: 0, versions: [0], deployment_chat: false, source: 'api',
      description: body.description, instructions: body.instructions, tools: body.tools, completion_args: body.completion_args,
      guardrails: body.guardrails, metadata: body.metadata, version_message: 'first', handoffs: null,
    });
    expect(a.created_at).toMatch(ISO_Z);
    expect(a.updated_at).toMatch(ISO_Z);
  });

  it('fills defaults for a minimal agent', async () => {
    const a = await createAgent();
    expect(a).toMatchObject({ instructions: null, tools: [], completion_args: {}, guardrails: null, description: null, handoffs: null, metadata: null, version_message: null });
  });

  it('keeps handoffs to existing agents and rejects unknown ones with 422', async () => {
    const target = await createAgent({ name: 'Target' });
    const a = await createAgent({ handoffs: [target.id] });
    expect(a.handoffs).toEqual([target.id]);
    const bad = await req('/v1/agents', { body: { model, name: 'x', handoffs: [target.id, 'ag_nope'] } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0]).toMatchObject({ loc: ['body', 'handoffs', 1], input: 'ag_nope' });
    expect(bad.json.detail[0].msg).toContain('ag_nope');
    const empty = await req('/v1/agents', { body: { model, name: 'x', handoffs: [] } });
    expect(empty.status).toBe(422);
    expect(locs(empty.json)).toEqual(['body.handoffs']);
  });

  it('rejects an unknown model with 400 naming it', async () => {
    const res = await req('/v1/agents', { body: { model: 'no-such-model', name: 'x' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ object: 'error', type: 'invalid_model', param: 'model', code: '1500' });
    expect(res.json.message).toContain('no-such-model');
  });

  it('422 for missing fields, wrong types and extra fields', async () => {
    let res = await req('/v1/agents', { body: {} });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual(expect.arrayContaining([
      expect.objectContaining({ loc: ['body', 'model'], type: 'missing' }),
      expect.objectContaining({ loc: ['body', 'name'], type: 'missing' }),
    ]));

    res = await req('/v1/agents', { body: { model, name: 5, tools: 'x', metadata: [] } });
    expect(res.status).toBe(422);
    expect(locs(res.json)).toEqual(expect.arrayContaining(['body.name', 'body.tools', 'body.metadata']));
    expect(res.json.detail.find((d: any) => d.loc[1] === 'name')).toMatchObject({ type: 'string_type', input: 5 });

    res = await req('/v1/agents', { body: { model, name: 'x', colour: 'red' } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ loc: ['body', 'colour'], type: 'extra_forbidden' });

    res = await req('/v1/agents', { body: { model, name: '' } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_too_short' });

    res = await req('/v1/agents', { body: { model, name: 'x', tools: [{ type: 'teleport' }] } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc.slice(0, 3)).toEqual(['body', 'tools', 0]);

    res = await req('/v1/agents', { body: { model, name: 'x', tools: [{ type: 'function', function: { name: 'bad name!', parameters: {} } }] } });
    expect(res.status).toBe(422);

    res = await req('/v1/agents', { body: { model, name: 'x', completion_args: { temperature: 3 } } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ loc: ['body', 'completion_args', 'temperature'], type: 'less_than_equal' });

    res = await req('/v1/agents', { body: { model, name: 'x', completion_args: { foo: 1 } } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ loc: ['body', 'completion_args', 'foo'], type: 'extra_forbidden' });

    res = await req('/v1/agents', { body: { model, name: 'x', version_message: 'y'.repeat(501) } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ loc: ['body', 'version_message'], type: 'string_too_long' });

    res = await req('/v1/agents', { body: [1, 2] });
    expect(res.status).toBe(422);

    res = await req('/v1/agents', { body: null });
    expect(res.status).toBe(422);
  });

  it('422 for bad or missing JSON', async () => {
    for (const rawBody of ['{"model":', '', 'not json']) {
      const res = await req('/v1/agents', { method: 'POST', rawBody, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(422);
      expect(res.json.detail[0]).toMatchObject({ loc: ['body', 0], type: 'json_invalid' });
    }
  });

  it('413 for a body over the limit', async () => {
    const small = await startPlatform({ maxJsonBytes: 2048 });
    try {
      const res = await call(small, '/v1/agents', { body: { model, name: 'x', instructions: 'z'.repeat(5000) } });
      expect(res.status).toBe(413);
      expect(res.json).toMatchObject({ object: 'error', code: 'request_too_large' });
      // A streamed body (no content-length) is cut off while it is read.
      const streamed = await small.fetch(new Request('http://local/v1/agents', {
        method: 'POST',
        body: new Blob([JSON.stringify({ model, name: 'x', instructions: 'z'.repeat(5000) })]).stream(),
        headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
        duplex: 'half',
      } as RequestInit));
      expect(streamed.status).toBe(413);
      const patch = await call(small, '/v1/agents/ag_x', { method: 'PATCH', body: { instructions: 'z'.repeat(5000) } });
      expect(patch.status).toBe(413);
    } finally {
      await small.close();
    }
  });
});

describe('GET /v1/agents/{id}', () => {
  it('answers the current version, a version number or an alias', async () => {
    const a = await createAgent({ instructions: 'v0' });
    await req(`/v1/agents/${a.id}`, { method: 'PATCH', body: { instructions: 'v1' } });
    let res = await req(`/v1/agents/${a.id}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ version: 1, versions: [0, 1], instructions: 'v1' });
    res = await req(`/v1/agents/${a.id}?agent_version=0`);
    expect(res.json).toMatchObject({ version: 0, versions: [0, 1], instructions: 'v0' });
    await req(`/v1/agents/${a.id}/aliases?alias=stable&version=0`, { method: 'PUT' });
    res = await req(`/v1/agents/${a.id}?agent_version=stable`);
    expect(res.status).toBe(200);
    expect(res.json.version).toBe(0);
  });

  it('404 for unknown agents, versions and aliases, naming them', async () => {
    const a = await createAgent();
    let res = await req('/v1/agents/ag_00000000000000000000000000000000');
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ object: 'error' });
    expect(res.json.message).toContain('ag_00000000000000000000000000000000');
    res = await req(`/v1/agents/${a.id}?agent_version=7`);
    expect(res.status).toBe(404);
    expect(res.json.message).toContain('Version 7');
    res = await req(`/v1/agents/${a.id}?agent_version=canary`);
    expect(res.status).toBe(404);
    expect(res.json.message).toContain("'canary'");
    res = await req(`/v1/agents/${a.id}?agent_version=99999999999999`);
    expect(res.status).toBe(404);
    res = await req(`/v1/agents/${a.id}?agent_version=`);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['query', 'agent_version']);
  });
});

describe('PATCH /v1/agents/{id}', () => {
  it('makes a new current version, keeping what the patch leaves out', async () => {
    const a = await createAgent({ instructions: 'keep', metadata: { a: 1 }, description: 'd', version_message: 'init' });
    const res = await req(`/v1/agents/${a.id}`, { method: 'PATCH', body: { name: 'Renamed', description: null, deployment_chat: true, version_message: 'rename' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: a.id, version: 1, versions: [0, 1], name: 'Renamed', instructions: 'keep', metadata: { a: 1 },
      description: null, deployment_chat: true, version_message: 'rename', created_at: a.created_at,
    });
    expect(res.json.updated_at > a.updated_at).toBe(true);
    const again = await req(`/v1/agents/${a.id}`, { method: 'PATCH', body: {} });
    expect(again.json).toMatchObject({ version: 2, versions: [0, 1, 2], name: 'Renamed', version_message: null });
  });

  it('rejects bad input without making a version', async () => {
    const a = await createAgent();
    const other = await createAgent({ name: 'Other' });
    const cases: Array<[unknown, number]> = [
      [{ name: 7 }, 422],
      [{ colour: 'red' }, 422],
      [{ deployment_chat: 'yes' }, 422],
      [{ tools: [{ type: 'function' }] }, 422],
      [{ handoffs: ['ag_missing'] }, 422],
      [{ handoffs: [a.id] }, 422],
      [{ model: 'no-such-model' }, 400],
    ];
    for (const [body, status] of cases) {
      const res = await req(`/v1/agents/${a.id}`, { method: 'PATCH', body });
      expect(res.status, JSON.stringify(body)).toBe(status);
    }
    const raw = await req(`/v1/agents/${a.id}`, { method: 'PATCH', rawBody: '{oops', headers: { 'content-type': 'application/json' } });
    expect(raw.status).toBe(422);
    expect((await req(`/v1/agents/${a.id}`)).json.versions).toEqual([0]);

    const ok = await req(`/v1/agents/${a.id}`, { method: 'PATCH', body: { handoffs: [other.id], model } });
    expect(ok.status).toBe(200);
    expect(ok.json.handoffs).toEqual([other.id]);
    const cleared = await req(`/v1/agents/${a.id}`, { method: 'PATCH', body: { handoffs: null } });
    expect(cleared.json.handoffs).toBeNull();
  });

  it('404 for an unknown agent', async () => {
    const res = await req('/v1/agents/ag_missing', { method: 'PATCH', body: { name: 'x' } });
    expect(res.status).toBe(404);
  });
});

describe('PATCH /v1/agents/{id}/version', () => {
  it('switches the current version', async () => {
    const a = await createAgent({ instructions: 'zero' });
    await req(`/v1/agents/${a.id}`, { method: 'PATCH', body: { instructions: 'one' } });
    const res = await req(`/v1/agents/${a.id}/version?version=0`, { method: 'PATCH' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ version: 0, versions: [0, 1], instructions: 'zero' });
    expect((await req(`/v1/agents/${a.id}`)).json.version).toBe(0);
    // An update after switching starts from the current version and numbers after the highest.
    const next = await req(`/v1/agents/${a.id}`, { method: 'PATCH', body: { name: 'two' } });
    expect(next.json).toMatchObject({ version: 2, versions: [0, 1, 2], instructions: 'zero' });
  });

  it('422 for a missing or non-integer version; 404 for unknown ones', async () => {
    const a = await createAgent();
    for (const q of ['', '?version=abc', '?version=1.5', '?version=']) {
      const res = await req(`/v1/agents/${a.id}/version${q}`, { method: 'PATCH' });
      expect(res.status, q).toBe(422);
      expect(res.json.detail[0].loc).toEqual(['query', 'version']);
    }
    for (const v of ['3', '-1', '99999999999']) {
      const res = await req(`/v1/agents/${a.id}/version?version=${v}`, { method: 'PATCH' });
      expect(res.status, v).toBe(404);
    }
    expect((await req('/v1/agents/ag_missing/version?version=0', { method: 'PATCH' })).status).toBe(404);
  });
});

describe('versions', () => {
  it('lists versions newest first with paging, and gets one', async () => {
    const a = await createAgent({ name: 'n0' });
    for (let i = 1; i <= 3; i++) await req(`/v1/agents/${a.id}`, { method: 'PATCH', body: { name: `n${i}` } });
    let res = await req(`/v1/agents/${a.id}/versions`);
    expect(res.status).toBe(200);
    expect(res.json.map((v: any) => [v.version, v.name])).toEqual([[3, 'n3'], [2, 'n2'], [1, 'n1'], [0, 'n0']]);
    res = await req(`/v1/agents/${a.id}/versions?page=1&page_size=2`);
    expect(res.json.map((v: any) => v.version)).toEqual([1, 0]);
    res = await req(`/v1/agents/${a.id}/versions?page=5&page_size=2`);
    expect(res.json).toEqual([]);

    res = await req(`/v1/agents/${a.id}/versions/1`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ version: 1, name: 'n1', versions: [0, 1, 2, 3] });
    await req(`/v1/agents/${a.id}/aliases?alias=old&version=0`, { method: 'PUT' });
    expect((await req(`/v1/agents/${a.id}/versions/old`)).json.version).toBe(0);
    expect((await req(`/v1/agents/${a.id}/versions/9`)).status).toBe(404);
    expect((await req(`/v1/agents/${a.id}/versions/nope`)).status).toBe(404);
    expect((await req('/v1/agents/ag_missing/versions/0')).status).toBe(404);
  });

  it('validates paging and the agent', async () => {
    const a = await createAgent();
    for (const q of ['page_size=101', 'page_size=0', 'page=-1', 'page=x']) {
      const res = await req(`/v1/agents/${a.id}/versions?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.json.detail[0].loc[0]).toBe('query');
    }
    expect((await req(`/v1/agents/${a.id}/versions?page_size=100`)).status).toBe(200);
    expect((await req('/v1/agents/ag_missing/versions')).status).toBe(404);
  });
});

describe('aliases', () => {
  it('creates, re-points, lists and deletes aliases', async () => {
    const a = await createAgent();
    await req(`/v1/agents/${a.id}`, { method: 'PATCH', body: { name: 'v1' } });
    expect((await req(`/v1/agents/${a.id}/aliases`)).json).toEqual([]);

    let res = await req(`/v1/agents/${a.id}/aliases?alias=prod&version=0`, { method: 'PUT' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ alias: 'prod', version: 0, created_at: expect.stringMatching(ISO_Z), updated_at: expect.stringMatching(ISO_Z) });
    const created = res.json;
    res = await req(`/v1/agents/${a.id}/aliases?alias=prod&version=1`, { method: 'PUT' });
    expect(res.json).toMatchObject({ alias: 'prod', version: 1, created_at: created.created_at });
    await req(`/v1/agents/${a.id}/aliases?alias=beta&version=1`, { method: 'PUT' });

    res = await req(`/v1/agents/${a.id}/aliases`);
    expect(res.status).toBe(200);
    expect(res.json.map((x: any) => [x.alias, x.version])).toEqual([['prod', 1], ['beta', 1]]);
    expect((await req(`/v1/agents/${a.id}?agent_version=prod`)).json.name).toBe('v1');

    res = await req(`/v1/agents/${a.id}/aliases?alias=prod`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await req(`/v1/agents/${a.id}/aliases?alias=prod`, { method: 'DELETE' })).status).toBe(404);
    expect((await req(`/v1/agents/${a.id}?agent_version=prod`)).status).toBe(404);
    expect((await req(`/v1/agents/${a.id}/aliases`)).json.map((x: any) => x.alias)).toEqual(['beta']);
  });

  it('validates alias and version', async () => {
    const a = await createAgent();
    const bad = [
      'version=0', // alias missing
      'alias=x', // version missing
      'alias=&version=0',
      `alias=${'a'.repeat(65)}&version=0`,
      'alias=12&version=0', // numbers name versions
      'alias=x&version=one',
      'alias=x&version=0.5',
    ];
    for (const q of bad) {
      const res = await req(`/v1/agents/${a.id}/aliases?${q}`, { method: 'PUT' });
      expect(res.status, q).toBe(422);
      expect(res.json.detail[0].loc[0]).toBe('query');
    }
    expect((await req(`/v1/agents/${a.id}/aliases?alias=${'a'.repeat(64)}&version=0`, { method: 'PUT' })).status).toBe(200);
    expect((await req(`/v1/agents/${a.id}/aliases?alias=x&version=4`, { method: 'PUT' })).status).toBe(404);
    expect((await req(`/v1/agents/${a.id}/aliases?alias=x&version=-2`, { method: 'PUT' })).status).toBe(404);
    expect((await req('/v1/agents/ag_missing/aliases?alias=x&version=0', { method: 'PUT' })).status).toBe(404);
    expect((await req('/v1/agents/ag_missing/aliases')).status).toBe(404);
    expect((await req(`/v1/agents/${a.id}/aliases`, { method: 'DELETE' })).status).toBe(422);
    expect((await req('/v1/agents/ag_missing/aliases?alias=x', { method: 'DELETE' })).status).toBe(404);
  });
});

describe('DELETE /v1/agents/{id}', () => {
  it('deletes with 204 and an empty body', async () => {
    const a = await createAgent();
    await req(`/v1/agents/${a.id}/aliases?alias=x&version=0`, { method: 'PUT' });
    const res = await req(`/v1/agents/${a.id}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await req(`/v1/agents/${a.id}`)).status).toBe(404);
    expect((await req(`/v1/agents/${a.id}/aliases`)).status).toBe(404);
    expect((await req(`/v1/agents/${a.id}`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('listing', () => {
  async function seed(n: number) {
    const tag = `run-${++run}-${Date.now()}`;
    const made = [];
    for (let i = 0; i < n; i++) {
      made.push(await createAgent({ name: `${tag}-${i}`, metadata: { tag, i }, description: i === 1 ? 'Knows about the OCEAN' : null }));
    }
    return { tag, made, meta: encodeURIComponent(JSON.stringify({ tag })) };
  }

  it('GET /v1/agents: bare array, newest first, page and page_size', async () => {
    const { made, meta } = await seed(5);
    let res = await req(`/v1/agents?metadata=${meta}`);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json)).toBe(true);
    expect(res.json.map((a: any) => a.id)).toEqual(made.map((a) => a.id).reverse());
    res = await req(`/v1/agents?metadata=${meta}&page=1&page_size=2`);
    expect(res.json.map((a: any) => a.id)).toEqual([made[2].id, made[1].id]);
    res = await req(`/v1/agents?metadata=${meta}&page=9&page_size=2`);
    expect(res.json).toEqual([]);
    res = await req('/v1/agents?page_size=1000');
    expect(res.status).toBe(200);
  });

  it('filters by name, search, id, metadata, sources and deployment_chat', async () => {
    const { tag, made, meta } = await seed(3);
    const ids = (json: any) => json.map((a: any) => a.id);
    expect(ids((await req(`/v1/agents?name=${tag}-2`)).json)).toEqual([made[2].id]);
    expect(ids((await req(`/v1/agents?search=${tag}`)).json)).toHaveLength(3);
    expect(ids((await req(`/v1/agents?search=ocean&metadata=${meta}`)).json)).toEqual([made[1].id]);
    expect(ids((await req(`/v1/agents?id=${made[0].id}`)).json)).toEqual([made[0].id]);
    const m1 = encodeURIComponent(JSON.stringify({ tag, i: 1 }));
    expect(ids((await req(`/v1/agents?metadata=${m1}`)).json)).toEqual([made[1].id]);
    expect(ids((await req(`/v1/agents?metadata=${meta}&sources=api`)).json)).toHaveLength(3);
    expect(ids((await req(`/v1/agents?metadata=${meta}&sources=playground&sources=agent_builder_v1`)).json)).toEqual([]);
    expect(ids((await req(`/v1/agents?metadata=${meta}&deployment_chat=false`)).json)).toHaveLength(3);
    await req(`/v1/agents/${made[0].id}`, { method: 'PATCH', body: { deployment_chat: true } });
    expect(ids((await req(`/v1/agents?metadata=${meta}&deployment_chat=true`)).json)).toEqual([made[0].id]);
  });

  it('422 for bad list parameters', async () => {
    const bad = [
      'page=-1', 'page=x', 'page_size=0', 'page_size=1001', 'page_size=2.5',
      'metadata=%7Bbad', 'metadata=%5B1%5D', 'metadata=3',
      'sources=web', 'deployment_chat=maybe',
    ];
    for (const q of bad) {
      for (const path of ['/v1/agents', '/v1/agents/pages']) {
        if (path.endsWith('pages') && q.startsWith('page=')) continue;
        const res = await req(`${path}?${q}`);
        expect(res.status, `${path}?${q}`).toBe(422);
        expect(res.json.detail[0].loc[0]).toBe('query');
      }
    }
  });

  it('GET /v1/agents/pages walks pages with an opaque token', async () => {
    const { made, meta } = await seed(5);
    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const res = await req(`/v1/agents/pages?metadata=${meta}&page_size=2${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.json.object).toBe('list');
      seen.push(...res.json.data.map((a: any) => a.id));
      token = res.json.next_page_token;
      pages++;
    } while (token && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(made.map((a) => a.id).reverse());

    const exact = await req(`/v1/agents/pages?metadata=${meta}&page_size=5`);
    expect(exact.json.data).toHaveLength(5);
    expect(exact.json.next_page_token).toBeNull();

    for (const garbled of ['garbage!!', 'Zm9v', 'eyJ2IjoyfQ', '%00']) {
      const res = await req(`/v1/agents/pages?page_token=${garbled}`);
      expect(res.status, garbled).toBe(422);
      expect(res.json.detail[0].loc).toEqual(['query', 'page_token']);
    }
  });
});

describe('unknown routes', () => {
  it('404 JSON for a method/path the API lacks', async () => {
    const res = await req('/v1/agents/x/y/z');
    expect(res.status).toBe(404);
    expect(res.json.object).toBe('error');
  });
});
