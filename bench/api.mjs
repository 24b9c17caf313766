// The rest of the local API, on loopback against `parley platform` in its own process:
// - a conversation turn whose agent calls one MCP tool through a connector (demo MCP server), against the
//   same turn with the tool answered by the page (function call, then function.result appended): the cost of
//   the platform running the tool itself;
// - moderation texts and embedding inputs per second, against bare GET /v1/models in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoMcpServer } from '@parley-kit/platform/demo-mcp';
import { findDemoOrder } from '@parley-kit/platform/demo-mcp/orders';
import { headers, percentile, startPlatform } from './platform.mjs';

const QUESTION = 'What is the status of order 1042?';

async function post(url, path, body) {
  const r = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = await r.json();
  if (!r.ok) throw new Error(`${path} ${r.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Median time of `n` runs of `once` after 5 warm-up runs. */
async function medianMs(n, once) {
  for (let i = 0; i < 5; i++) await once();
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await once();
    times.push(performance.now() - t0);
  }
  return percentile(times.sort((a, b) => a - b), 50);
}

/** Items per second over `rounds` requests of `batch` items each (concurrency 4). */
async function itemsPerSecond(rounds, batch, once) {
  await once();
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next++ < rounds) await once();
  }));
  return (rounds * batch) / ((performance.now() - t0) / 1000);
}

export async function benchApi() {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-api-'));
  const mcp = await startDemoMcpServer({ port: 0, hostname: '127.0.0.1' });
  const { child, url } = await startPlatform(dataDir);
  try {
    const connector = await post(url, '/v1/connectors', { name: 'bench_orders', description: 'Demo orders', server: mcp.url, protocol: 'mcp' });
    const viaMcp = await post(url, '/v1/agents', { model: 'parley-local', name: 'MCP tracker', tools: [{ type: 'connector', connector_id: connector.id }] });
    const tools = (await (await fetch(`${url}/v1/connectors/${connector.id}/tools`, { headers })).json());
    const orderTool = (Array.isArray(tools) ? tools : tools.tools ?? tools.data).find((t) => t.name === 'get_order_status');
    const viaPage = await post(url, '/v1/agents', {
      model: 'parley-local', name: 'Page tracker',
      tools: [{ type: 'function', function: { name: 'get_order_status', description: orderTool.description, parameters: orderTool.inputSchema } }],
    });

    const mcpTurn = await medianMs(40, async () => {
      const res = await post(url, '/v1/conversations', { agent_id: viaMcp.id, inputs: QUESTION, store: false });
      if (!res.outputs.some((o) => o.type === 'tool.execution')) throw new Error('the MCP agent ran no tool');
    });
    const pageTurn = await medianMs(40, async () => {
      const first = await post(url, '/v1/conversations', { agent_id: viaPage.id, inputs: QUESTION });
      const call = first.outputs.find((o) => o.type === 'function.call');
      if (!call) throw new Error('the page agent called no function');
      // The page answers from the same data the MCP server serves.
      const result = JSON.stringify(findDemoOrder(JSON.parse(call.arguments).order_id ?? '1042'));
      await post(url, `/v1/conversations/${first.conversation_id}`, { inputs: [{ type: 'function.result', tool_call_id: call.tool_call_id, result }] });
    });

    const modelsPerSecond = await itemsPerSecond(300, 1, async () => { await (await fetch(`${url}/v1/models`, { headers })).arrayBuffer(); });
    const texts = Array.from({ length: 16 }, (_, i) => `Message ${i}: my card 4111 1111 1111 1111 expired, can I sue the bank or should I just cancel it?`);
    const moderated = await itemsPerSecond(100, texts.length, () => post(url, '/v1/moderations', { model: 'mistral-moderation-latest', input: texts }));
    const embedded = await itemsPerSecond(100, texts.length, () => post(url, '/v1/embeddings', { model: 'mistral-embed', input: texts }));

    return {
      'conversation turn, tool run by the platform over MCP, p50 (ms)': mcpTurn.toFixed(1),
      'same, tool answered by the page (call + result round trip), p50 (ms)': pageTurn.toFixed(1),
      'MCP turn / page-tool round trip ratio': (mcpTurn / pageTurn).toFixed(2),
      'bare GET /v1/models per second (baseline)': modelsPerSecond.toFixed(0),
      'moderated texts per second (16 per request)': moderated.toFixed(0),
      'embedded texts per second (16 per request)': embedded.toFixed(0),
      'moderated texts / baseline requests ratio': (moderated / modelsPerSecond).toFixed(2),
      'embedded texts / baseline requests ratio': (embedded / modelsPerSecond).toFixed(2),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await mcp.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
