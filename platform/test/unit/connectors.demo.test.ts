/**
 * What `parley start` sets up for the shop demo: the demo MCP server behind a shared connector, and an
 * agent whose order lookups the platform runs through it. Restarting moves the server to a new port;
 * the connector keeps its id and follows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { DEMO_CONNECTOR_NAME, ensureDemoConnector } from '../../src/demo/agents.js';
import { startDemoMcpServer, type DemoMcpServer } from '../../src/demo-mcp/server.js';
import { API_KEY, call, startPlatform } from './helpers.js';

let platform: Platform;
let first: DemoMcpServer;
let second: DemoMcpServer;

beforeAll(async () => {
  [platform, first, second] = await Promise.all([
    startPlatform({ members: [{ apiKey: 'member-key', email: 'member@example.com' }] }),
    startDemoMcpServer(),
    startDemoMcpServer(),
  ]);
});
afterAll(async () => {
  await platform.close();
  await first.close();
  await second.close();
});

describe('demo connector', () => {
  it('creates the connector and the order tracker once, and follows the server to a new URL', async () => {
    const a = await ensureDemoConnector(platform.fetch, API_KEY, first.url);
    const connector = (await call(platform, `/v1/connectors/${DEMO_CONNECTOR_NAME}`)).json;
    expect(connector).toMatchObject({ id: a.connectorId, server: first.url, visibility: 'shared_workspace' });
    // Shared with the workspace: members use it too.
    expect((await call(platform, `/v1/connectors/${DEMO_CONNECTOR_NAME}/tools`, { key: 'member-key' })).status).toBe(200);

    const b = await ensureDemoConnector(platform.fetch, API_KEY, second.url);
    expect(b).toEqual(a);
    expect((await call(platform, `/v1/connectors/${a.connectorId}`)).json.server).toBe(second.url);
    const all = (await call(platform, '/v1/connectors')).json.items.filter((c: any) => c.name === DEMO_CONNECTOR_NAME);
    expect(all).toHaveLength(1);

    const res = await call(platform, '/v1/conversations', { body: { agent_id: a.ordersAgentId, inputs: 'Where is my order 1041?' } });
    expect(res.status).toBe(200);
    expect(res.json.outputs[0]).toMatchObject({ type: 'tool.execution', name: 'get_order_status', arguments: '{"order_id":"1041"}' });
    expect(res.json.outputs[1].content).toContain('delivered');
    expect(res.json.usage.connectors).toEqual({ [DEMO_CONNECTOR_NAME]: 1 });
  });
});
