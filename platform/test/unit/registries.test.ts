/**
 * v2 registries over plain HTTP: prompts and skills share their behaviour, so most tests run for both
 * kinds; kind-specific rules (prompt title/description, skill assets, skill metadata = sharing only)
 * have their own tests. Durability across a reopen is at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { ISO_Z, call, startPlatform } from './helpers.js';

const MEMBER_KEY = 'member-key';
const OTHER_KEY = 'other-member-key';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let platform: Platform;

beforeAll(async () => {
  platform = await startPlatform({ members: [{ apiKey: MEMBER_KEY, email: 'member@example.com' }, { apiKey: OTHER_KEY, email: 'other@example.com' }] });
});
afterAll(async () => {
  await platform.close();
});

const req = (path: string, options: Parameters<typeof call>[2] = {}) => call(platform, path, options);
const locs = (json: any): string[] => json.detail.map((d: any) => d.loc.join('.'));
let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Date.now()}`;

interface Kind {
  col: 'prompts' | 'skills';
  definition: (n: number) => Record<string, unknown>;
  /** The same definition as `definition(n)` once the platform has filled in defaults. */
  normalised: (n: number) => Record<string, unknown>;
}

const PROMPT: Kind = {
  col: 'prompts',
  definition: (n) => ({ content: `Hello {{name}} #${n}`, variables: [{ name: 'name' }] }),
  normalised: (n) => ({ content: `Hello {{name}} #${n}`, variables: [{ name: 'name' }] }),
};
const SKILL: Kind = {
  col: 'skills',
  definition: (n) => ({ description: `Use for task ${n}`, body: `Step ${n}`, assets: { 'scripts/run.sh': { textContent: 'echo hi', isExecutable: true } } }),
  normalised: (n) => ({ description: `Use for task ${n}`, body: `Step ${n}`, assets: { 'scripts/run.sh': { textContent: 'echo hi', isExecutable: true } } }),
};

async function create(kind: Kind, body: Record<string, unknown> = {}, key?: string) {
  const res = await req(`/v2/${kind.col}`, { body: { name: unique(kind.col), definition: kind.definition(1), ...body }, key });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json;
}

describe.each([PROMPT, SKILL])('/v2/$col', (kind) => {
  it('creates an object at version 1 with every field set', async () => {
    const name = unique('create');
    const res = await req(`/v2/${kind.col}`, { body: { name, definition: kind.definition(1), notes: 'first', aliases: ['production', 'stable'], sharingScope: 'workspace' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toMatchObject({ name, definition: kind.normalised(1), version: 1, latestVersion: 1, notes: 'first', aliases: ['production', 'stable'], sharingScope: 'workspace' });
    expect(res.json.id).toMatch(UUID);
    expect(res.json.createdAt).toMatch(ISO_Z);
    expect(res.json.updatedAt).toBe(res.json.createdAt);
  });

  it('needs an API key', async () => {
    const res = await req(`/v2/${kind.col}`, { key: null });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ object: 'error', type: 'authentication_error' });
  });

  it('defaults: private scope, no notes, no aliases', async () => {
    const made = await create(kind);
    expect(made.sharingScope).toBe('private');
    expect(made.aliases).toEqual([]);
    expect(made).not.toHaveProperty('notes');
    const unspecified = await create(kind, { sharingScope: 'sharing_scope_unspecified' });
    expect(unspecified.sharingScope).toBe('private');
  });

  it('rejects bad create bodies with 422 at each field', async () => {
    const missing = await req(`/v2/${kind.col}`, { body: {} });
    expect(missing.status).toBe(422);
    expect(locs(missing.json)).toEqual(expect.arrayContaining(['body.name', 'body.definition']));
    const bad = await req(`/v2/${kind.col}`, { body: { name: '', definition: kind.definition(1), sharingScope: 'public', aliases: ['ok', 'has space', 'ok'], extra: 1 } });
    expect(bad.status).toBe(422);
    expect(locs(bad.json)).toEqual(expect.arrayContaining(['body.name', 'body.sharingScope', 'body.aliases.1', 'body.extra']));
    const notJson = await req(`/v2/${kind.col}`, { rawBody: '{nope', headers: { 'content-type': 'application/json' }, method: 'POST' });
    expect(notJson.status).toBe(422);
    expect(notJson.json.detail[0].type).toBe('json_invalid');
  });

  it('a name is unique in the workspace: 409', async () => {
    const made = await create(kind);
    const again = await req(`/v2/${kind.col}`, { body: { name: made.name, definition: kind.definition(2) } });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'conflict', param: 'name' });
  });

  it('gets by id, version and alias; unknown ones are 404', async () => {
    const made = await create(kind, { aliases: ['v1'] });
    const v2 = await req(`/v2/${kind.col}/${made.id}/versions`, { body: { definition: kind.definition(2), notes: 'second', aliases: ['next'] } });
    expect(v2.json).toEqual({ version: 2, deduplicated: false });

    const latest = await req(`/v2/${kind.col}/${made.id}`);
    expect(latest.json).toMatchObject({ id: made.id, version: 2, latestVersion: 2, notes: 'second', aliases: ['next'], definition: kind.normalised(2) });
    expect(latest.json.updatedAt > made.updatedAt).toBe(true);
    expect(latest.json.createdAt).toBe(made.createdAt);
    const byNumber = await req(`/v2/${kind.col}/${made.id}?version=1`);
    expect(byNumber.json).toMatchObject({ version: 1, latestVersion: 2, aliases: ['v1'], definition: kind.normalised(1) });
    const byAlias = await req(`/v2/${kind.col}/${made.id}?alias=v1`);
    expect(byAlias.json.version).toBe(1);
    const byPath = await req(`/v2/${kind.col}/${made.id}/versions/2`);
    expect(byPath.json).toMatchObject({ version: 2, notes: 'second' });

    for (const path of [`/v2/${kind.col}/nope`, `/v2/${kind.col}/${made.id}?version=9`, `/v2/${kind.col}/${made.id}?alias=missing`, `/v2/${kind.col}/${made.id}/versions/9`, `/v2/${kind.col}/nope/versions`]) {
      const res = await req(path);
      expect(res.status, path).toBe(404);
      expect(res.json).toMatchObject({ object: 'error', code: 'not_found' });
    }
    const both = await req(`/v2/${kind.col}/${made.id}?version=1&alias=v1`);
    expect(both.status).toBe(422);
    expect(locs(both.json)).toEqual(['query.alias']);
    const badVersion = await req(`/v2/${kind.col}/${made.id}?version=one`);
    expect(badVersion.status).toBe(422);
    expect(locs(badVersion.json)).toEqual(['query.version']);
    const badPath = await req(`/v2/${kind.col}/${made.id}/versions/x`);
    expect(badPath.status).toBe(422);
    expect(locs(badPath.json)).toEqual(['path.version']);
  });

  it('a version equal to the latest is deduplicated, but the aliases still move onto it', async () => {
    const made = await create(kind);
    const same = await req(`/v2/${kind.col}/${made.id}/versions`, { body: { definition: kind.definition(1), notes: 'ignored' } });
    expect(same.json).toEqual({ version: 1, deduplicated: true });
    const changed = await req(`/v2/${kind.col}/${made.id}/versions`, { body: { definition: kind.definition(2) } });
    expect(changed.json).toEqual({ version: 2, deduplicated: false });
    // Equal to version 1 but not to the latest (2): a new version.
    const back = await req(`/v2/${kind.col}/${made.id}/versions`, { body: { definition: kind.definition(1), aliases: ['prod'] } });
    expect(back.json).toEqual({ version: 3, deduplicated: false });
    const again = await req(`/v2/${kind.col}/${made.id}/versions`, { body: { definition: kind.normalised(1), aliases: ['latest-good'] } });
    expect(again.json).toEqual({ version: 3, deduplicated: true });
    const v3 = await req(`/v2/${kind.col}/${made.id}/versions/3`);
    expect(v3.json.aliases).toEqual(['latest-good', 'prod']);
    const versions = await req(`/v2/${kind.col}/${made.id}/versions`);
    expect(versions.json.data.map((v: any) => v.version)).toEqual([3, 2, 1]);
    expect(versions.json.data[2]).not.toHaveProperty('notes');
  });

  it('an alias is unique per object: putting it on another version moves it', async () => {
    const made = await create(kind, { aliases: ['production'] });
    await req(`/v2/${kind.col}/${made.id}/versions`, { body: { definition: kind.definition(2), aliases: ['production'] } });
    expect((await req(`/v2/${kind.col}/${made.id}?alias=production`)).json.version).toBe(2);
    expect((await req(`/v2/${kind.col}/${made.id}/versions/1`)).json.aliases).toEqual([]);

    const moved = await req(`/v2/${kind.col}/${made.id}/versions/1`, { method: 'PATCH', body: { aliases: { values: ['production', 'old'] } } });
    expect(moved.status).toBe(200);
    expect(moved.json).toMatchObject({ version: 1, aliases: ['old', 'production'] });
    expect((await req(`/v2/${kind.col}/${made.id}/versions/2`)).json.aliases).toEqual([]);

    // The same alias on another object is independent.
    const other = await create(kind, { aliases: ['production'] });
    expect((await req(`/v2/${kind.col}/${other.id}?alias=production`)).json.version).toBe(1);
    expect((await req(`/v2/${kind.col}/${made.id}?alias=production`)).json.version).toBe(1);
  });

  it('updates a version\'s notes and aliases; an empty alias list clears them, an absent one keeps them', async () => {
    const made = await create(kind, { notes: 'n1', aliases: ['a', 'b'] });
    const notes = await req(`/v2/${kind.col}/${made.id}/versions/1`, { method: 'PATCH', body: { notes: 'changed' } });
    expect(notes.json).toMatchObject({ notes: 'changed', aliases: ['a', 'b'] });
    const cleared = await req(`/v2/${kind.col}/${made.id}/versions/1`, { method: 'PATCH', body: { notes: null, aliases: {} } });
    expect(cleared.json.aliases).toEqual([]);
    expect(cleared.json).not.toHaveProperty('notes');
    const bad = await req(`/v2/${kind.col}/${made.id}/versions/1`, { method: 'PATCH', body: { aliases: ['a'], definition: {} } });
    expect(bad.status).toBe(422);
    expect(locs(bad.json)).toEqual(expect.arrayContaining(['body.aliases', 'body.definition']));
    const missing = await req(`/v2/${kind.col}/${made.id}/versions/5`, { method: 'PATCH', body: { notes: 'x' } });
    expect(missing.status).toBe(404);
  });

  it('deletes an object with its versions: {} then 404', async () => {
    const made = await create(kind);
    const del = await req(`/v2/${kind.col}/${made.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({});
    expect((await req(`/v2/${kind.col}/${made.id}`)).status).toBe(404);
    expect((await req(`/v2/${kind.col}/${made.id}`, { method: 'DELETE' })).status).toBe(404);
    // Its name is free again.
    expect((await req(`/v2/${kind.col}`, { body: { name: made.name, definition: kind.definition(1) } })).status).toBe(200);
  });

  it('field masks keep only the named fields (camelCase, snake_case, nested, comma-separated)', async () => {
    const made = await create(kind, { aliases: ['x'] });
    const field = kind.col === 'prompts' ? 'content' : 'body';
    const masked = await req(`/v2/${kind.col}/${made.id}?fields=id&fields=sharing_scope,latestVersion&fields=definition.${field}`);
    expect(masked.status).toBe(200);
    expect(masked.json).toEqual({ id: made.id, sharingScope: 'private', latestVersion: 1, definition: { [field]: (kind.normalised(1) as any)[field] } });
    const version = await req(`/v2/${kind.col}/${made.id}/versions/1?fields=aliases`);
    expect(version.json).toEqual({ aliases: ['x'] });
    const unknown = await req(`/v2/${kind.col}/${made.id}?fields=id&fields=nope`);
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0]).toMatchObject({ loc: ['query', 'fields', 1], input: 'nope' });
  });

  it('the metadata update changes the sharing scope', async () => {
    const made = await create(kind);
    const shared = await req(`/v2/${kind.col}/${made.id}`, { method: 'PATCH', body: { sharingScope: 'workspace' } });
    expect(shared.status).toBe(200);
    expect(shared.json).toMatchObject({ sharingScope: 'workspace', version: 1 });
    expect(shared.json.updatedAt > made.updatedAt).toBe(true);
    const unspecified = await req(`/v2/${kind.col}/${made.id}`, { method: 'PATCH', body: { sharingScope: 'sharing_scope_unspecified' } });
    expect(unspecified.json.sharingScope).toBe('workspace');
    const empty = await req(`/v2/${kind.col}/${made.id}`, { method: 'PATCH', body: {} });
    expect(empty.json.updatedAt).toBe(shared.json.updatedAt);
    const notObject = await req(`/v2/${kind.col}/${made.id}`, { method: 'PATCH', body: [] });
    expect(notObject.status).toBe(422);
    const bad = await req(`/v2/${kind.col}/${made.id}`, { method: 'PATCH', body: { sharingScope: 'everyone' } });
    expect(bad.status).toBe(422);
    const missing = await req(`/v2/${kind.col}/nope`, { method: 'PATCH', body: { sharingScope: 'workspace' } });
    expect(missing.status).toBe(404);
  });
});

describe('kind-specific rules', () => {
  it('prompts: title and description are set at creation and by the metadata update', async () => {
    const made = await create(PROMPT, { title: 'Greeting', description: 'Says hello' });
    expect(made).toMatchObject({ title: 'Greeting', description: 'Says hello', versionCreatedAt: made.createdAt });
    expect(made.createdBy).toMatch(UUID);
    const patched = await req(`/v2/prompts/${made.id}`, { method: 'PATCH', body: { title: 'Hi', description: null } });
    expect(patched.json.title).toBe('Hi');
    expect(patched.json).not.toHaveProperty('description');
    const bad = await req(`/v2/prompts/${made.id}`, { method: 'PATCH', body: { name: 'renamed', definition: { content: 'x' } } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d: any) => [d.loc.join('.'), d.type])).toEqual([['body.name', 'extra_forbidden'], ['body.definition', 'extra_forbidden']]);
    expect(bad.json.detail[1].msg).toMatch(/create a version/);
  });

  it('skills: the metadata update accepts only the sharing scope', async () => {
    const made = await create(SKILL);
    expect(made).not.toHaveProperty('title');
    expect(made).not.toHaveProperty('createdBy');
    const bad = await req(`/v2/skills/${made.id}`, { method: 'PATCH', body: { title: 'T', sharingScope: 'workspace' } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'title'], type: 'extra_forbidden', msg: expect.stringMatching(/accepts only sharingScope/) })]);
    expect((await req(`/v2/skills/${made.id}`)).json.sharingScope).toBe('private');
    const noTitle = await req('/v2/skills', { body: { name: unique('s'), definition: {}, title: 'x' } });
    expect(noTitle.status).toBe(422);
    expect(locs(noTitle.json)).toEqual(['body.title']);
  });

  it('skills: assets hold exactly one of rawContent (base64) or textContent, under relative paths', async () => {
    const ok = await create(SKILL, { definition: { assets: { 'data/blob.bin': { rawContent: 'aGVsbG8=' } } } });
    expect(ok.definition).toEqual({ description: '', body: '', assets: { 'data/blob.bin': { rawContent: 'aGVsbG8=', isExecutable: false } } });
    const bad = await req('/v2/skills', {
      body: {
        name: unique('s'),
        definition: { assets: { '../escape': { textContent: 'x' }, both: { textContent: 'x', rawContent: 'eA==' }, neither: {}, notb64: { rawContent: '***' } } },
      },
    });
    expect(bad.status).toBe(422);
    expect(locs(bad.json)).toEqual(expect.arrayContaining(['body.definition.assets.../escape', 'body.definition.assets.both', 'body.definition.assets.neither', 'body.definition.assets.notb64.rawContent']));
  });

  it('prompts: the definition needs content; sorting skills by title is refused', async () => {
    const bad = await req('/v2/prompts', { body: { name: unique('p'), definition: { variables: [{ name: 'x' }] } } });
    expect(bad.status).toBe(422);
    expect(locs(bad.json)).toEqual(['body.definition.content']);
    const byTitle = await req('/v2/skills?sort_by=title');
    expect(byTitle.status).toBe(422);
    expect(byTitle.json.detail[0]).toMatchObject({ loc: ['query', 'sort_by'], msg: expect.stringMatching(/no title/) });
  });
});

describe('listing', () => {
  let ids: string[] = [];
  let owner: Platform;
  const list = (query: string) => call(owner, `/v2/prompts?${query}`);

  beforeAll(async () => {
    // A platform of its own, so the listing holds exactly these prompts.
    owner = await startPlatform();
    ids = [];
    const names = ['delta', 'alpha', 'echo', 'charlie', 'bravo'];
    const titles = ['D', null, 'E', 'C', 'B'];
    for (const [i, name] of names.entries()) {
      const res = await call(owner, '/v2/prompts', { body: { name, title: titles[i] ?? undefined, definition: { content: name }, aliases: i % 2 === 0 ? ['even'] : [] } });
      ids.push(res.json.id);
    }
    // Touch alpha last so last_modified_at differs from created_at order.
    await call(owner, `/v2/prompts/${ids[1]}`, { method: 'PATCH', body: { description: 'touched' } });
  });
  afterAll(async () => {
    await owner.close();
  });

  const names = (res: any) => res.json.data.map((p: any) => p.name);

  it('defaults to newest first', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['bravo', 'charlie', 'echo', 'alpha', 'delta']);
    expect(res.json.nextPageToken).toBe('');
  });

  it('sorts by every field, both directions, with the enum names and their REST aliases', async () => {
    expect(names(await list('sort.field=list_sort_field_name'))).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(names(await list('sort_by=name&sort_direction=desc'))).toEqual(['echo', 'delta', 'charlie', 'bravo', 'alpha']);
    expect(names(await list('sort.field=list_sort_field_name&sort.direction=list_sort_direction_desc'))).toEqual(['echo', 'delta', 'charlie', 'bravo', 'alpha']);
    expect(names(await list('sort_by=created_at&sort_direction=asc'))).toEqual(['delta', 'alpha', 'echo', 'charlie', 'bravo']);
    expect(names(await list('sort.field=list_sort_field_last_modified_at'))).toEqual(['alpha', 'bravo', 'charlie', 'echo', 'delta']);
    expect(names(await list('sort_by=last_modified_at&sort.direction=list_sort_direction_asc'))).toEqual(['delta', 'echo', 'charlie', 'bravo', 'alpha']);
    // Untitled sorts as empty, first ascending.
    expect(names(await list('sort_by=title'))).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(names(await list('sort_by=title&sort_direction=desc'))).toEqual(['echo', 'delta', 'charlie', 'bravo', 'alpha']);
    expect(names(await list('sort.field=list_sort_field_unspecified&sort.direction=list_sort_direction_unspecified'))).toEqual(['bravo', 'charlie', 'echo', 'alpha', 'delta']);
  });

  it('rejects unknown or conflicting sort values with 422', async () => {
    const bad = await list('sort_by=size&sort_direction=up');
    expect(bad.status).toBe(422);
    expect(locs(bad.json)).toEqual(['query.sort_by', 'query.sort_direction']);
    const conflict = await list('sort.field=list_sort_field_name&sort_by=title');
    expect(conflict.status).toBe(422);
    expect(conflict.json.detail[0].msg).toMatch(/disagrees/);
  });

  it('pages with pageSize and pageToken, under any sort, without repeats or gaps', async () => {
    for (const sort of ['', 'sort_by=name', 'sort_by=title&sort_direction=desc', 'sort_by=last_modified_at&sort_direction=asc']) {
      const all = names(await list(sort));
      const seen: string[] = [];
      let token = '';
      let pages = 0;
      do {
        const res = await list(`${sort}&pageSize=2${token ? `&pageToken=${token}` : ''}`);
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        seen.push(...names(res));
        token = res.json.nextPageToken;
        pages++;
      } while (token);
      expect(seen, sort).toEqual(all);
      expect(pages).toBe(3);
    }
  });

  it('a page token survives an insert and is refused for another sort or when forged', async () => {
    const first = await list('sort_by=name&pageSize=2');
    expect(names(first)).toEqual(['alpha', 'bravo']);
    await call(owner, '/v2/prompts', { body: { name: 'aardvark', definition: { content: 'late' } } });
    const second = await list(`sort_by=name&pageSize=2&pageToken=${first.json.nextPageToken}`);
    expect(names(second)).toEqual(['charlie', 'delta']);
    const mismatch = await list(`sort_by=title&pageSize=2&pageToken=${first.json.nextPageToken}`);
    expect(mismatch.status).toBe(422);
    expect(locs(mismatch.json)).toEqual(['query.pageToken']);
    for (const token of ['garbage!', 'eyJ2IjoyfQ']) {
      const forged = await list(`pageToken=${encodeURIComponent(token)}`);
      expect(forged.status).toBe(422);
      expect(forged.json.detail[0].msg).toMatch(/Invalid page token/);
    }
    const huge = await list('pageSize=5000');
    expect(huge.status).toBe(200);
    expect(huge.json.data).toHaveLength(6);
    const negative = await list('pageSize=-1');
    expect(negative.status).toBe(422);
    expect(locs(negative.json)).toEqual(['query.pageSize']);
  });

  it('filters by alias (each at its aliased version) and applies field masks to every item', async () => {
    await call(owner, `/v2/prompts/${ids[0]}/versions`, { body: { definition: { content: 'delta v2' } } });
    const res = await list('alias=even&sort_by=name&fields=name,version');
    expect(res.json.data).toEqual([{ name: 'bravo', version: 1 }, { name: 'delta', version: 1 }, { name: 'echo', version: 1 }]);
    const latest = await list('sort_by=name&fields=name&fields=version');
    expect(latest.json.data.find((p: any) => p.name === 'delta')).toEqual({ name: 'delta', version: 2 });
  });
});

describe('caller scoping', () => {
  it('private objects are visible only to their creator; workspace ones to the workspace', async () => {
    const mine = await create(PROMPT, { sharingScope: 'private' });
    const shared = await create(PROMPT, { sharingScope: 'workspace' });
    expect((await req(`/v2/prompts/${mine.id}`, { key: MEMBER_KEY })).status).toBe(404);
    expect((await req(`/v2/prompts/${mine.id}/versions`, { key: MEMBER_KEY })).status).toBe(404);
    expect((await req(`/v2/prompts/${mine.id}`, { key: MEMBER_KEY, method: 'DELETE' })).status).toBe(404);
    expect((await req(`/v2/prompts/${shared.id}`, { key: MEMBER_KEY })).status).toBe(200);

    const listed = await req('/v2/prompts?pageSize=1000&fields=id', { key: MEMBER_KEY });
    const seen = listed.json.data.map((p: any) => p.id);
    expect(seen).toContain(shared.id);
    expect(seen).not.toContain(mine.id);

    const theirs = await create(PROMPT, {}, MEMBER_KEY);
    expect((await req(`/v2/prompts/${theirs.id}`)).status).toBe(404);
    expect((await req(`/v2/prompts/${theirs.id}`, { key: OTHER_KEY })).status).toBe(404);
  });

  it('workspace readers cannot write; writers can add versions; only the creator shares or deletes', async () => {
    const read = await create(SKILL, { sharingScope: 'workspace' });
    const write = await create(SKILL, { sharingScope: 'workspace', workspaceRelation: 'writer' });
    const denied = await req(`/v2/skills/${read.id}/versions`, { key: MEMBER_KEY, body: { definition: SKILL.definition(2) } });
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({ object: 'error', code: 'forbidden' });
    expect((await req(`/v2/skills/${read.id}/versions/1`, { key: MEMBER_KEY, method: 'PATCH', body: { notes: 'x' } })).status).toBe(403);

    const added = await req(`/v2/skills/${write.id}/versions`, { key: MEMBER_KEY, body: { definition: SKILL.definition(2), aliases: ['member'] } });
    expect(added.json).toEqual({ version: 2, deduplicated: false });
    expect((await req(`/v2/skills/${write.id}`, { key: MEMBER_KEY, method: 'PATCH', body: { sharingScope: 'private' } })).status).toBe(403);
    expect((await req(`/v2/skills/${write.id}`, { key: MEMBER_KEY, method: 'DELETE' })).status).toBe(403);
    expect((await req(`/v2/skills/${write.id}`, { method: 'DELETE' })).json).toEqual({});
  });

  it('names are unique per workspace and kind: a prompt and a skill may share one', async () => {
    const name = unique('shared-name');
    await create(PROMPT, { name });
    await create(SKILL, { name });
  });
});

describe('durability', () => {
  it('objects, versions, aliases and sharing survive a close and reopen', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-registries-'));
    try {
      const first = await startPlatform({ dataDir });
      const made = await call(first, '/v2/prompts', { body: { name: 'kept', title: 'Kept', definition: { content: 'v1' }, aliases: ['prod'], sharingScope: 'workspace' } });
      await call(first, `/v2/prompts/${made.json.id}/versions`, { body: { definition: { content: 'v2' }, notes: 'second', aliases: ['prod'] } });
      const skill = await call(first, '/v2/skills', { body: { name: 'kept', definition: { body: 'b' } } });
      await first.close();

      const second = await startPlatform({ dataDir });
      try {
        const got = await call(second, `/v2/prompts/${made.json.id}?alias=prod`);
        expect(got.json).toMatchObject({ name: 'kept', title: 'Kept', version: 2, latestVersion: 2, notes: 'second', aliases: ['prod'], sharingScope: 'workspace', createdAt: made.json.createdAt });
        expect((await call(second, `/v2/prompts/${made.json.id}/versions`)).json.data.map((v: any) => v.version)).toEqual([2, 1]);
        expect((await call(second, `/v2/skills/${skill.json.id}`)).json.definition.body).toBe('b');
        expect((await call(second, `/v2/prompts/${made.json.id}/versions`, { body: { definition: { content: 'v2' } } })).json).toEqual({ version: 2, deduplicated: true });
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
