import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { openTestDb } from './helpers.js';
import { AgentStoreError, createAgentStore, type AgentStore } from '../../src/agents/store.js';
import { isoNow, newId } from '../../src/http/ids.js';

let db: Db;
let store: AgentStore;

beforeAll(async () => {
  db = await openTestDb();
  store = createAgentStore(db);
});
afterAll(async () => {
  await db.close();
});

const make = (name = 'a', extra: Record<string, unknown> = {}) =>
  store.create({ id: newId('ag'), createdAt: isoNow(), name, model: 'm', ...extra });

async function kindOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof AgentStoreError) return err.kind;
    throw err;
  }
}

describe('agent store', () => {
  it('creates at version 0 and updates to new current versions', async () => {
    const a = await make('first', { instructions: 'be nice', metadata: { team: 'x' }, version_message: 'v0' });
    expect(a).toMatchObject({ object: 'agent', version: 0, versions: [0], name: 'first', instructions: 'be nice', source: 'api', deployment_chat: false, version_message: 'v0' });
    const b = await store.update(a.id, { updatedAt: isoNow(), description: 'desc' });
    expect(b).toMatchObject({ version: 1, versions: [0, 1], instructions: 'be nice', description: 'desc', metadata: { team: 'x' }, version_message: null });
    const c = await store.update(a.id, { updatedAt: isoNow(), instructions: null, name: null, deployment_chat: true });
    expect(c).toMatchObject({ version: 2, name: 'first', instructions: null, deployment_chat: true });
    expect((await store.get(a.id))!.version).toBe(2);
    expect(c.created_at).toBe(a.created_at);
    expect(c.updated_at > b.updated_at).toBe(true);
  });

  it('getVersion accepts numbers, numeric strings and aliases; null on misses', async () => {
    const a = await make();
    await store.update(a.id, { updatedAt: isoNow(), name: 'renamed' });
    expect((await store.getVersion(a.id, 0))!.name).toBe('a');
    expect((await store.getVersion(a.id, '1'))!.name).toBe('renamed');
    await store.putAlias(a.id, 'prod', 0);
    expect((await store.getVersion(a.id, 'prod'))!.version).toBe(0);
    expect(await store.getVersion(a.id, 7)).toBeNull();
    expect(await store.getVersion(a.id, 'nope')).toBeNull();
    expect(await store.getVersion('ag_missing', 0)).toBeNull();
    expect(await store.getVersion(a.id, 99999999999)).toBeNull();
    expect(await store.get('ag_missing')).toBeNull();
  });

  it('resolve says what is missing', async () => {
    const a = await make();
    expect(await kindOf(store.resolve('ag_missing'))).toBe('agent_not_found');
    expect(await kindOf(store.resolve('ag_missing', 'prod'))).toBe('agent_not_found');
    expect(await kindOf(store.resolve(a.id, 3))).toBe('version_not_found');
    expect(await kindOf(store.resolve(a.id, -1))).toBe('version_not_found');
    expect(await kindOf(store.resolve(a.id, 'beta'))).toBe('alias_not_found');
  });

  it('switches versions and keeps aliases', async () => {
    const a = await make();
    await store.update(a.id, { updatedAt: isoNow(), name: 'v1' });
    const back = await store.setCurrentVersion(a.id, 0);
    expect(back.version).toBe(0);
    expect((await store.get(a.id))!.name).toBe('a');
    expect(await kindOf(store.setCurrentVersion(a.id, 5))).toBe('version_not_found');
    expect(await kindOf(store.setCurrentVersion(a.id, 2 ** 40))).toBe('version_not_found');
    expect(await kindOf(store.setCurrentVersion('ag_x', 0))).toBe('agent_not_found');

    const al = await store.putAlias(a.id, 'stable', 0);
    expect(al).toMatchObject({ alias: 'stable', version: 0 });
    const moved = await store.putAlias(a.id, 'stable', 1);
    expect(moved.version).toBe(1);
    expect(moved.created_at).toBe(al.created_at);
    expect(moved.updated_at > al.updated_at).toBe(true);
    expect(await kindOf(store.putAlias(a.id, 'x', 9))).toBe('version_not_found');
    expect((await store.listAliases(a.id)).map((x) => x.alias)).toEqual(['stable']);
    await store.deleteAlias(a.id, 'stable');
    expect(await kindOf(store.deleteAlias(a.id, 'stable'))).toBe('alias_not_found');
    expect(await kindOf(store.listAliases('ag_x'))).toBe('agent_not_found');
  });

  it('checks handoffs inside the transaction and writes nothing on a miss', async () => {
    const target = await make('target');
    const ok = await make('src', { handoffs: [target.id] });
    expect(ok.handoffs).toEqual([target.id]);
    const id = newId('ag');
    const err = await store.create({ id, createdAt: isoNow(), name: 'bad', model: 'm', handoffs: [target.id, 'ag_nope'] }).catch((e) => e);
    expect(err).toBeInstanceOf(AgentStoreError);
    expect(err.subject).toEqual(['ag_nope']);
    expect(await store.get(id)).toBeNull();
    expect(await kindOf(store.update(ok.id, { updatedAt: isoNow(), handoffs: ['ag_zz'] }))).toBe('handoff_not_found');
    expect((await store.get(ok.id))!.versions).toEqual([0]);
  });

  it('lists with filters, offsets and cursors; deletes cascade', async () => {
    const tag = newId('ag');
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await make(`list-${tag}-${i}`, { metadata: { tag, i }, description: i === 2 ? 'Special ONE' : null }));
    const all = await store.list({ metadata: { tag } }, { offset: 0, limit: 10 });
    expect(all.agents.map((a) => a.name)).toEqual(made.map((a) => a.name).reverse());
    expect(all.next).toBeNull();
    const p1 = await store.list({ metadata: { tag } }, { limit: 2, after: null });
    expect(p1.agents).toHaveLength(2);
    const p2 = await store.list({ metadata: { tag } }, { limit: 2, after: p1.next });
    const p3 = await store.list({ metadata: { tag } }, { limit: 2, after: p2.next });
    expect(p3.next).toBeNull();
    expect([...p1.agents, ...p2.agents, ...p3.agents].map((a) => a.id)).toEqual(all.agents.map((a) => a.id));
    expect((await store.list({ search: 'special one' }, { offset: 0, limit: 10 })).agents.map((a) => a.id)).toContain(made[2].id);
    expect((await store.list({ name: made[3].name }, { offset: 0, limit: 10 })).agents.map((a) => a.id)).toEqual([made[3].id]);
    expect((await store.list({ id: made[1].id }, { offset: 0, limit: 10 })).agents).toHaveLength(1);
    expect((await store.list({ metadata: { tag, i: 4 } }, { offset: 0, limit: 10 })).agents.map((a) => a.id)).toEqual([made[4].id]);
    expect((await store.list({ metadata: { tag }, sources: ['playground'] }, { offset: 0, limit: 10 })).agents).toHaveLength(0);
    expect((await store.list({ metadata: { tag }, deploymentChat: true }, { offset: 0, limit: 10 })).agents).toHaveLength(0);

    await store.putAlias(made[0].id, 'x', 0);
    expect(await store.delete(made[0].id)).toBe(true);
    expect(await store.delete(made[0].id)).toBe(false);
    const { rows } = await db.query('select 1 from agent_aliases where agent_id = $1 union all select 1 from agent_versions where agent_id = $1', [made[0].id]);
    expect(rows).toHaveLength(0);
  });

  it('lists versions newest first with paging', async () => {
    const a = await make();
    for (let i = 1; i <= 4; i++) await store.update(a.id, { updatedAt: isoNow(), name: `n${i}` });
    const page = await store.listVersions(a.id, { offset: 1, limit: 2 });
    expect(page.map((v) => v.version)).toEqual([3, 2]);
    expect(page[0].versions).toEqual([0, 1, 2, 3, 4]);
    expect(await kindOf(store.listVersions('ag_x', { offset: 0, limit: 2 }))).toBe('agent_not_found');
  });
});
