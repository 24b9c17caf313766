/**
 * A small MCP server for the shop demo: order status over MCP streamable HTTP, on loopback.
 * `parley start` runs it and points a connector of the local platform at it, so an agent with a
 * `connector` tool looks orders up through the platform, the way a hosted connector would.
 *
 * Stateless: every HTTP request gets a fresh server and transport (the SDK's stateless pattern), so
 * nothing accumulates between calls and any number of clients can use it at once.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { serveFetch } from 'parley-kit/server';
import { DEMO_ORDERS, findDemoOrder } from './orders.js';

/** Path the MCP endpoint is served at. */
export const DEMO_MCP_PATH = '/mcp';

export interface DemoMcpOptions {
  /** Port to listen on (0 picks a free one). */
  port?: number;
  /** Loopback by default; the server has no authentication unless `bearerToken` is set. */
  hostname?: string;
  /** When set, requests must carry `Authorization: Bearer <token>` (else 401), to exercise connector credentials. */
  bearerToken?: string;
}

export interface DemoMcpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string;
  close(): Promise<void>;
}

function orderServer(): McpServer {
  const server = new McpServer({ name: 'lumen-orders', version: '1.0.0' });
  server.registerTool('get_order_status', {
    title: 'Order status',
    description: 'Look up the status of a Lumen Lamps order by its order number: status, items, carrier, tracking and delivery date',
    inputSchema: { order_id: z.string().min(1).describe('The order number, e.g. 1042') },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async ({ order_id }) => {
    const order = findDemoOrder(order_id);
    if (!order) return { isError: true, content: [{ type: 'text', text: `No order with number ${order_id}` }] };
    return { content: [{ type: 'text', text: JSON.stringify(order) }] };
  });
  server.registerTool('list_orders', {
    title: 'List orders',
    description: 'List the order numbers of the demo shop with their status',
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async () => ({
    content: [{ type: 'text', text: JSON.stringify(DEMO_ORDERS.map((o) => ({ order_id: o.order_id, status: o.status }))) }],
  }));
  return server;
}

/** The demo MCP server as a Web-standard fetch handler (answers `/mcp`; 404 elsewhere). */
export function demoMcpHandler(options: Pick<DemoMcpOptions, 'bearerToken'> = {}): (request: Request) => Promise<Response> {
  return async (request) => {
    if (new URL(request.url).pathname !== DEMO_MCP_PATH) return new Response('Not found', { status: 404 });
    if (options.bearerToken && request.headers.get('authorization') !== `Bearer ${options.bearerToken}`) {
      return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized' }, id: null }, { status: 401 });
    }
    // Stateless servers have no standalone event stream or session to end.
    if (request.method !== 'POST') {
      return Response.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed' }, id: null }, { status: 405, headers: { allow: 'POST' } });
    }
    const server = orderServer();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  };
}

/** Starts the demo MCP server on loopback. */
export async function startDemoMcpServer(options: DemoMcpOptions = {}): Promise<DemoMcpServer> {
  const served = await serveFetch(demoMcpHandler(options), { port: options.port ?? 0, hostname: options.hostname ?? '127.0.0.1' });
  return { url: `${served.url}${DEMO_MCP_PATH}`, close: () => served.close() };
}
