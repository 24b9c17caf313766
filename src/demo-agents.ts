/**
 * The demo's agents on the local platform, created once and found again by their metadata:
 * a shop assistant with a page-side tool (order status) that can hand off to a billing agent.
 */
type Fetch = (request: Request) => Promise<Response>;

interface DemoAgents { shopAgentId: string; billingAgentId: string }

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

export async function ensureDemoAgents(fetch: Fetch, apiKey: string, origin = 'http://platform.internal'): Promise<DemoAgents> {
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(new Request(origin + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }));
    if (!res.ok) throw new Error(`demo agents: ${path} answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const find = async (role: string): Promise<string | undefined> => {
    const list = await call(`/v1/agents?page_size=5&metadata=${encodeURIComponent(JSON.stringify({ parley_demo: role }))}`);
    return list[0]?.id;
  };
  const billingAgentId = (await find('billing')) ?? (await call('/v1/agents', {
    model: 'parley-local', name: 'Billing', description: 'Invoices, payments and refunds',
    instructions: 'You handle invoices, payments and refunds for Lumen Lamps.', metadata: { parley_demo: 'billing' },
  })).id;
  const shopAgentId = (await find('shop')) ?? (await call('/v1/agents', {
    model: 'parley-local', name: 'Lumen assistant', description: 'Answers questions about lamps and orders',
    instructions: 'You help visitors of the Lumen Lamps shop with products and orders.',
    tools: [ORDER_STATUS_TOOL], handoffs: [billingAgentId], metadata: { parley_demo: 'shop' },
  })).id;
  return { shopAgentId, billingAgentId };
}
