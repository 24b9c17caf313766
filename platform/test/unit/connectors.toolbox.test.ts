/**
 * Connector tools as a turn uses them, for a known caller: found by id or name, only when the caller
 * may see them, hidden when deactivated at one of the caller's levels, run with the caller's credentials.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Caller } from '../../src/http/caller.js';
import type { PlatformContext } from '../../src/http/context.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openConnectorToolbox } from '../../src/connectors/toolbox.js';
import { listMcpTools } from '../../src/connectors/mcp-session.js';
import { createConnectorStore, type ConnectorRecord } from '../../src/connectors/store.js';
import type { Db } from '../../src/store/db.js';
import { startDemoMcpServer, type DemoMcpServer } from '../../src/demo-mcp/server.js';
import { openPlatformDb } from './helpers.js';

const owner: Caller = { kind: 'user', userId: 'u-owner', organizationId: 'org', workspaceId: 'ws' };
const member: Caller = { kind: 'user', userId: 'u-member', organizationId: 'org', workspaceId: 'ws' };
const signal = new AbortController().signal;

let db: Db;
let ctx: PlatformContext;
let mcp: DemoMcpServer;
let locked: DemoMcpServer;

function record(id: string, name: string, server: string, visibility: ConnectorRecord['visibility'] = 'private'): ConnectorRecord {
  return {
    id, name, title: null, description: 'd', server, icon_url: null, system_prompt: null, visibility,
    organization_id: 'org', workspace_id: 'ws', creator_id: owner.userId, headers: null, global_headers: {},
    auth_methods: [{ method_type: 'none', headers: null }], auth_data: null, oauth2_server_metadata: null, oauth2_server_metadata_url: null,
    created_at: '2026-01-01T00:00:00.000000Z', modified_at: '2026-01-01T00:00:00.000000Z',
  };
}
const PRIVATE = '11111111-1111-4111-8111-111111111111';
const SHARED = '22222222-2222-4222-8222-222222222222';
const LOCKED = '33333333-3333-4333-8333-333333333333';

beforeAll(async () => {
  [db, mcp, locked] = await Promise.all([openPlatformDb(), startDemoMcpServer(), startDemoMcpServer({ bearerToken: 'k' })]);
  ctx = { db } as PlatformContext;
  const store = createConnectorStore(db);
  await store.create(record(PRIVATE, 'mine', mcp.url));
  await store.create(record(SHARED, 'team', mcp.url, 'shared_workspace'));
  await store.create(record(LOCKED, 'locked', locked.url, 'shared_workspace'));
  await store.putCredential(LOCKED, 'user', owner.userId, {
    name: 'k', title: null, authentication_type: 'bearer', is_default: true, creator_id: owner.userId, secrets: { bearer_token: 'k' },
    created_at: '2026-01-01T00:00:00.000000Z', modified_at: '2026-01-01T00:00:00.000000Z',
  });
});
afterAll(async () => {
  await db.close();
  await mcp.close();
  await locked.close();
});

describe('openConnectorToolbox', () => {
  it('offers the MCP tools as functions, by connector id or name, and runs them', async () => {
    const box = (await openConnectorToolbox(ctx, [{ type: 'connector', connector_id: 'mine' }], owner, signal))!;
    expect(box.functions.map((t) => t.type === 'function' && t.function.name)).toEqual(['get_order_status', 'list_orders']);
    const out = await box.run('get_order_status', '{"order_id":"1044"}');
    expect(out.connector).toBe('mine');
    expect(JSON.parse(out.text)).toMatchObject({ status: 'cancelled' });
    expect(out.info).toMatchObject({ connector_id: PRIVATE, is_error: false });
    const bad = await box.run('get_order_status', 'not json');
    expect(bad.info).toMatchObject({ is_error: true });
  });

  it('does not offer a function name twice', async () => {
    const fn = { type: 'function' as const, function: { name: 'list_orders', parameters: {} } };
    const box = (await openConnectorToolbox(ctx, [fn, { type: 'connector', connector_id: PRIVATE }, { type: 'connector', connector_id: SHARED }], owner, signal))!;
    expect(box.functions.map((t) => t.type === 'function' && t.function.name)).toEqual(['get_order_status']);
    expect(box.has('list_orders')).toBe(false);
  });

  it('hides private connectors from other users (404) and honours the caller’s own deactivation', async () => {
    await expect(openConnectorToolbox(ctx, [{ type: 'connector', connector_id: PRIVATE }], member, signal)).rejects.toMatchObject({ status: 404 });
    expect((await openConnectorToolbox(ctx, [{ type: 'connector', connector_id: 'team' }], member, signal))!.functions).toHaveLength(2);
    await createConnectorStore(db).setActive(SHARED, 'user', member.userId, false);
    expect((await openConnectorToolbox(ctx, [{ type: 'connector', connector_id: SHARED }], member, signal))!.functions).toHaveLength(0);
    expect((await openConnectorToolbox(ctx, [{ type: 'connector', connector_id: SHARED }], owner, signal))!.functions).toHaveLength(2);
  });

  it('uses the caller’s credentials, or the tool’s own authorization', async () => {
    expect((await openConnectorToolbox(ctx, [{ type: 'connector', connector_id: LOCKED }], owner, signal))!.functions).toHaveLength(2);
    // The member sees the shared connector but holds no credentials for it: the server refuses.
    await expect(openConnectorToolbox(ctx, [{ type: 'connector', connector_id: LOCKED }], member, signal)).rejects.toMatchObject({ status: 502 });
    const withKey = await openConnectorToolbox(ctx, [{ type: 'connector', connector_id: LOCKED, authorization: { type: 'api-key', value: 'k' } }], member, signal);
    expect(withKey!.functions).toHaveLength(2);
  });

  it('is null without connector tools', async () => {
    expect(await openConnectorToolbox(ctx, [], owner, signal)).toBeNull();
  });
});

describe('MCP sessions', () => {
  it('give up on a server that accepts but never answers (504, no hang)', async () => {
    const silent = createServer(() => { /* never answers */ });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    // The timeout is checked on fake timers: the request is given up when 300 ms of the client's clock have
    // passed (not the 10 s default), whatever the machine's speed. I/O stays real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let outcome: unknown;
      const listing = listMcpTools({ name: 'silent', url, headers: {} }, { timeoutMs: 300 }).then(() => 'answered', (err: unknown) => err);
      void listing.then((o) => { outcome = o; });
      // Wait (on real I/O turns, not the clock) until the request is out and its timer armed.
      for (let turns = 0; vi.getTimerCount() === 0; turns++) {
        if (turns > 100_000) throw new Error('the MCP client armed no timer');
        await new Promise((r) => setImmediate(r));
      }
      await vi.advanceTimersByTimeAsync(299);
      expect(outcome, 'still waiting at 299 ms').toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      // From here the fake clock stands still (a later timer, such as the 10 s default, never fires); the
      // session is closed on real I/O, awaited with a real safety net.
      vi.useRealTimers();
      let safetyNet: ReturnType<typeof setTimeout> | undefined;
      const settled = await Promise.race([listing, new Promise((r) => { safetyNet = setTimeout(() => r('still waiting'), 10_000); })]);
      clearTimeout(safetyNet);
      expect(settled, 'given up once 300 ms had passed').toMatchObject({ status: 504, body: { code: 'connector_timeout' } });
    } finally {
      vi.useRealTimers();
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });
});
