/**
 * The demo MCP server (shop orders) as any MCP client sees it: real streamable HTTP on a loopback port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoMcpServer, type DemoMcpServer } from '../../src/demo-mcp/server.js';
import { DEMO_ORDERS, findDemoOrder } from '../../src/demo-mcp/orders.js';

let open: DemoMcpServer;
let locked: DemoMcpServer;

beforeAll(async () => {
  [open, locked] = await Promise.all([startDemoMcpServer({ port: 0 }), startDemoMcpServer({ bearerToken: 'sesame' })]);
});
afterAll(async () => {
  await open.close();
  await locked.close();
});

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'demo-mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe('demo MCP server', () => {
  it('listens on loopback and serves /mcp', () => {
    expect(open.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('lists its order tools with input schemas', async () => {
    const client = await connect(open.url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['get_order_status', 'list_orders']);
      expect(tools[0].inputSchema).toMatchObject({ type: 'object', required: ['order_id'], properties: { order_id: { type: 'string' } } });
      expect(tools[0].annotations?.readOnlyHint).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('answers order status deterministically, with an error result for unknown orders', async () => {
    const client = await connect(open.url);
    try {
      const known = await client.callTool({ name: 'get_order_status', arguments: { order_id: '#1042' } });
      expect(known.isError ?? false).toBe(false);
      expect(JSON.parse((known.content as Array<{ text: string }>)[0].text)).toEqual(findDemoOrder('1042'));
      const unknown = await client.callTool({ name: 'get_order_status', arguments: { order_id: '7' } });
      expect(unknown.isError).toBe(true);
      const bad = await client.callTool({ name: 'get_order_status', arguments: { order_id: 42 } });
      expect(bad.isError).toBe(true);
      const all = await client.callTool({ name: 'list_orders', arguments: {} });
      expect(JSON.parse((all.content as Array<{ text: string }>)[0].text)).toEqual(DEMO_ORDERS.map((o) => ({ order_id: o.order_id, status: o.status })));
    } finally {
      await client.close();
    }
  });

  it('with a bearer token, refuses requests without it (401) and serves those with it', async () => {
    await expect(connect(locked.url)).rejects.toThrow(/401|Unauthorized/);
    const client = await connect(locked.url, { authorization: 'Bearer sesame' });
    try {
      expect((await client.listTools()).tools).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('answers 405 to GET (stateless: no event stream) and 404 off /mcp', async () => {
    expect((await fetch(open.url)).status).toBe(405);
    expect((await fetch(open.url.replace('/mcp', '/other'), { method: 'POST' })).status).toBe(404);
  });
});
