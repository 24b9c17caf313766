/**
 * The demo's agents on the local platform, created once and found again by their metadata:
 * a shop assistant with a page-side tool (order status) and the shop's pages as a document library
 * (demo/library.ts) that can hand off to a billing agent, and an order tracker whose order lookups run
 * on the platform through a connector to the demo MCP server.
 */
type Fetch = (request: Request) => Promise<Response>;

interface DemoAgents { shopAgentId: string; billingAgentId: string }

interface DemoConnector { connectorId: string; ordersAgentId: string }

/** Name of the demo's connector (the demo MCP server of src/demo-mcp). */
export const DEMO_CONNECTOR_NAME = 'lumen_orders';

/** JSON calls to the local platform with its API key; `missingOk` turns a 404 into null. */
function platformClient(fetch: Fetch, apiKey: string, origin: string) {
  return async (method: string, path: string, body?: unknown, missingOk = false): Promise<any> => {
    const res = await fetch(new Request(origin + path, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }));
    if (missingOk && res.status === 404) return null;
    if (!res.ok) throw new Error(`demo setup: ${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
}

const ORDER_STATUS_TOOL = {
  type: 'function',
  function: {
    name: 'get_order_status',
    description: 'Look up the status of a customer order by its order number',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string', description: 'The order number, e.g. 1042' } },
      required: ['order_id'],
    },
  },
};

/** A page-side tool the shop page marks as needing the visitor's consent (`requiresApproval` in demo.js). */
const CANCEL_ORDER_TOOL = {
  type: 'function',
  function: {
    name: 'cancel_order',
    description: 'Cancel a customer order by its order number (the visitor is asked first)',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string', description: 'The order number, e.g. 1043' } },
      required: ['order_id'],
    },
  },
};

/** The shop agent's suggested first messages (`metadata.starters`, which `<agent-chat>` shows on an empty chat). */
const SHOP_STARTERS = ['What is the status of order 1042?', 'Please cancel order 1043', 'Which lamps do you sell?'];

export async function ensureDemoAgents(fetch: Fetch, apiKey: string, origin = 'http://platform.internal'): Promise<DemoAgents> {
  const request = platformClient(fetch, apiKey, origin);
  const billingAgentId = await ensureDemoAgent(request, 'billing', {
    model: 'parley-local', name: 'Billing', description: 'Invoices, payments and refunds',
    instructions: 'You handle invoices, payments and refunds for Lumen Lamps.',
  });
  const shopAgentId = await ensureDemoAgent(request, 'shop', {
    model: 'parley-local', name: 'Lumen assistant', description: 'Answers questions about lamps and orders',
    instructions: 'You help visitors of the Lumen Lamps shop with products and orders.',
    tools: [ORDER_STATUS_TOOL, CANCEL_ORDER_TOOL], handoffs: [billingAgentId], metadata: { starters: SHOP_STARTERS },
  });
  return { shopAgentId, billingAgentId };
}

/** The id of the demo agent tagged `parley_demo: role`, created from `agent` when there is none. */
async function ensureDemoAgent(request: ReturnType<typeof platformClient>, role: string, agent: Record<string, unknown>): Promise<string> {
  const metadata = { parley_demo: role };
  const list = await request('GET', `/v1/agents?page_size=5&metadata=${encodeURIComponent(JSON.stringify(metadata))}`);
  return list[0]?.id ?? (await request('POST', '/v1/agents', { ...agent, metadata: { ...(agent.metadata as object | undefined), ...metadata } })).id;
}

/**
 * Gives the agent a `document_library` tool over `libraryId` (the shop's pages, demo/library.ts) unless it has
 * one already: a new agent version, once.
 */
export async function ensureAgentLibrary(fetch: Fetch, apiKey: string, agentId: string, libraryId: string, origin = 'http://platform.internal'): Promise<void> {
  const request = platformClient(fetch, apiKey, origin);
  const agent = await request('GET', `/v1/agents/${agentId}`);
  const tools: Array<{ type: string; library_ids?: string[] }> = agent.tools ?? [];
  if (tools.some((t) => t.type === 'document_library' && t.library_ids?.includes(libraryId))) return;
  await request('PATCH', `/v1/agents/${agentId}`, { tools: [...tools.filter((t) => t.type !== 'document_library'), { type: 'document_library', library_ids: [libraryId] }] });
}

/**
 * The demo's connector to the demo MCP server at `mcpUrl` (shared with the workspace), and an agent
 * that uses it. The server listens on a new port at every start, so an existing connector is pointed
 * at the new URL; its id (and so the agent's tool) stays the same.
 */
export async function ensureDemoConnector(fetch: Fetch, apiKey: string, mcpUrl: string, origin = 'http://platform.internal'): Promise<DemoConnector> {
  const request = platformClient(fetch, apiKey, origin);
  const existing = await request('GET', `/v1/connectors/${DEMO_CONNECTOR_NAME}`, undefined, true);
  const connectorId: string = existing
    ? (existing.server === mcpUrl ? existing : await request('PATCH', `/v1/connectors/${existing.id}`, { protocol: 'mcp', server: mcpUrl })).id
    : (await request('POST', '/v1/connectors', {
      protocol: 'mcp', name: DEMO_CONNECTOR_NAME, title: 'Lumen orders', visibility: 'shared_workspace', server: mcpUrl,
      description: 'Order status of the Lumen Lamps shop (the demo MCP server started by parley start)',
    })).id;
  const ordersAgentId = await ensureDemoAgent(request, 'orders', {
    model: 'parley-local', name: 'Order tracker', description: 'Looks up Lumen Lamps orders through the lumen_orders connector',
    instructions: 'You answer questions about Lumen Lamps orders; look them up with the order tools.',
    tools: [{ type: 'connector', connector_id: connectorId }],
  });
  return { connectorId, ordersAgentId };
}
