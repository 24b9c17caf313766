// The document_library tool in conversations: the search ranks the library's passages, the turn records a
// tool.execution entry (streamed as tool.execution.started / .done), the reply quotes the best passages and ends
// with tool_reference chunks (JSON and streamed, in history and messages), hostile document data stays data,
// and a library the caller cannot read is a 404 before anything is stored.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { passagesOf } from '../../src/libraries/search.js';
import { call, startPlatform, stream, weatherTool } from './helpers.js';

const MEMBER_KEY = 'member-key';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const page = (name: string) => readFileSync(new URL(`../../../demo/shop-pages/${name}.md`, import.meta.url), 'utf8');

let platform: Platform;
let libraryId: string;
let agentId: string;
const docs: Record<string, string> = {};

async function upload(libraryId: string, content: string, filename: string, key?: string) {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/markdown' }), filename);
  const res = await call(platform, `/v1/libraries/${libraryId}/documents`, { method: 'POST', rawBody: form, key });
  expect([200, 201]).toContain(res.status);
  return res.json.id as string;
}

async function processed(libraryId: string, documentId: string) {
  for (let i = 0; i < 600; i++) {
    const res = await call(platform, `/v1/libraries/${libraryId}/documents/${documentId}/status`);
    if (res.json.process_status === 'done') return;
    if (res.json.process_status === 'error') throw new Error(`processing failed: ${JSON.stringify(res.json)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('processing did not finish');
}

async function addPage(libraryId: string, name: string, title: string, url: string | null, content = page(name)) {
  const id = await upload(libraryId, content, `${name}.md`);
  const put = await call(platform, `/v1/libraries/${libraryId}/documents/${id}`, { method: 'PUT', body: { attributes: url ? { title, url } : { title } } });
  expect(put.status).toBe(200);
  await processed(libraryId, id);
  return id;
}

const textOf = (content: unknown) => (typeof content === 'string' ? content : (content as any[]).filter((c) => c.type === 'text').map((c) => c.text).join(''));
const refsOf = (content: unknown) => (typeof content === 'string' ? [] : (content as any[]).filter((c) => c.type === 'tool_reference'));

beforeAll(async () => {
  platform = await startPlatform({ members: [{ apiKey: MEMBER_KEY, email: 'member@example.com' }] });
  const lib = await call(platform, '/v1/libraries', { body: { name: 'Shop pages', description: 'The pages of the shop' } });
  libraryId = lib.json.id;
  docs.returns = await addPage(libraryId, 'returns', 'Returns', 'https://shop.example/shop/returns');
  docs.shipping = await addPage(libraryId, 'shipping', 'Shipping', 'https://shop.example/shop/shipping');
  docs.warranty = await addPage(libraryId, 'warranty', 'Warranty', 'https://shop.example/shop/warranty');
  docs.care = await addPage(libraryId, 'lamp-care', 'Lamp care', null);
  const agent = await call(platform, '/v1/agents', {
    body: { model: 'parley-local', name: 'Shop', instructions: 'Answer from the shop pages.', tools: [weatherTool, { type: 'document_library', library_ids: [libraryId] }] },
  });
  expect(agent.status).toBe(200);
  agentId = agent.json.id;
});
afterAll(() => platform.close());

describe('document_library search', () => {
  it('cuts chunks into passages without markdown markers or lone headings', () => {
    expect(passagesOf('# Returns\n\nYou have **30 days** to return it.\n\n- Keep the `box` please')).toEqual(['You have 30 days to return it.', 'Keep the box please']);
  });

  it.each([
    ['How long do I have to return a lamp?', 'Returns', /30 days from the day your lamp is delivered/],
    ['How much does shipping cost and how long does delivery take?', 'Shipping', /Delivery in France takes two to three/],
    ['Is the dimmer covered by the warranty?', 'Warranty', /electrical parts \(switch, dimmer/],
    ['How do I clean a paper shade?', 'Lamp care', /Paper shades are hand-folded/],
  ])('answers %j from the right page', async (question, title, passage) => {
    const res = await call(platform, '/v1/conversations', { body: { agent_id: agentId, inputs: question } });
    expect(res.status).toBe(200);
    const [exec, message] = res.json.outputs;
    expect(exec.info.results[0]).toMatchObject({ title, document_id: expect.any(String), library_id: libraryId });
    expect(refsOf(message.content)[0].title).toBe(title);
    expect(textOf(message.content)).toMatch(passage);
  });

  it('says it found nothing when no passage shares enough with the question, and cites nothing', async () => {
    const res = await call(platform, '/v1/conversations', { body: { agent_id: agentId, inputs: 'xylophone quartz zebra' } });
    expect(res.status).toBe(200);
    const [exec, message] = res.json.outputs;
    expect(exec).toMatchObject({ type: 'tool.execution', name: 'document_library' });
    expect(exec.info.results).toEqual([]);
    expect(refsOf(message.content)).toEqual([]);
    expect(textOf(message.content)).toMatch(/found nothing/);
  });

  it('leaves a function the message names to the client (the library is not searched)', async () => {
    const res = await call(platform, '/v1/conversations', { body: { agent_id: agentId, inputs: 'get weather for Lyon' } });
    expect(res.json.outputs.map((o: any) => o.type)).toEqual(['function.call']);
    expect(res.json.outputs[0].name).toBe('get_weather');
  });
});

describe('document_library in a turn', () => {
  it('records the tool.execution entry and ends the reply with tool_reference chunks (JSON, history, messages)', async () => {
    const res = await call(platform, '/v1/conversations', { body: { agent_id: agentId, inputs: 'How long do I have to return a lamp?' } });
    expect(res.status).toBe(200);
    expect(res.json.outputs.map((o: any) => o.type)).toEqual(['tool.execution', 'message.output']);
    const [exec, message] = res.json.outputs;
    expect(exec).toMatchObject({ object: 'entry', type: 'tool.execution', name: 'document_library', agent_id: agentId, model: 'parley-local' });
    expect(JSON.parse(exec.arguments)).toEqual({ query: 'How long do I have to return a lamp?' });
    expect(exec.completed_at).toEqual(expect.any(String));
    expect(exec.info).toMatchObject({ library_ids: [libraryId], query: 'How long do I have to return a lamp?' });

    expect(Array.isArray(message.content)).toBe(true);
    expect(message.content[0].type).toBe('text');
    expect(message.content[0].text).toContain('You have 30 days from the day your lamp is delivered to return it');
    const refs = refsOf(message.content);
    expect(refs[0]).toEqual({
      type: 'tool_reference', tool: 'document_library', title: 'Returns', url: 'https://shop.example/shop/returns',
      description: expect.stringContaining('You have 30 days'),
    });
    expect(new Set(refs.map((r: any) => r.title)).size).toBe(refs.length);
    expect(res.json.usage.connectors).toEqual({ document_library: 1 });

    const id = res.json.conversation_id;
    const history = await call(platform, `/v1/conversations/${id}/history`);
    expect(history.json.entries.map((e: any) => e.type)).toEqual(['message.input', 'tool.execution', 'message.output']);
    expect(history.json.entries[1]).toEqual(exec);
    expect(history.json.entries[2].content).toEqual(message.content);
    const messages = await call(platform, `/v1/conversations/${id}/messages`);
    expect(messages.json.messages.map((e: any) => e.type)).toEqual(['message.input', 'message.output']);
    expect(messages.json.messages[1].content).toEqual(message.content);

    // The next turn reads the chunked reply as history and searches again.
    const next = await call(platform, `/v1/conversations/${id}`, { body: { inputs: 'And is the delivery cost refunded?' } });
    expect(next.status).toBe(200);
    expect(next.json.outputs.map((o: any) => o.type)).toEqual(['tool.execution', 'message.output']);
    expect(refsOf(next.json.outputs[1].content)[0].title).toBe('Returns');
  });

  it('streams tool.execution.started / .done, the text, then one delta per tool_reference chunk', async () => {
    const { status, events } = await stream(platform, '/v1/conversations', { agent_id: agentId, inputs: 'How long do I have to return a lamp?' });
    expect(status).toBe(200);
    const types = events.map((e) => e.event);
    expect(types[0]).toBe('conversation.response.started');
    expect(types.at(-1)).toBe('conversation.response.done');
    for (const e of events) expect(e.data.type).toBe(e.event);
    const started = events.find((e) => e.event === 'tool.execution.started')!.data;
    const done = events.find((e) => e.event === 'tool.execution.done')!.data;
    expect(started).toMatchObject({ name: 'document_library', output_index: 0, agent_id: agentId });
    expect(JSON.parse(started.arguments)).toEqual({ query: 'How long do I have to return a lamp?' });
    expect(done).toMatchObject({ id: started.id, name: 'document_library', output_index: 0 });
    expect(done.info.results[0].title).toBe('Returns');
    expect(types.indexOf('tool.execution.done')).toBeLessThan(types.indexOf('message.output.delta'));

    const deltas = events.filter((e) => e.event === 'message.output.delta').map((e) => e.data);
    const text = deltas.filter((d) => typeof d.content === 'string');
    const chunks = deltas.filter((d) => typeof d.content !== 'string');
    expect(text.every((d) => d.content_index === 0 && d.output_index === 1)).toBe(true);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.map((d) => d.content_index)).toEqual(chunks.map((_, i) => i + 1));
    expect(deltas.indexOf(chunks[0])).toBe(text.length); // references come after the text
    expect(chunks[0].content).toMatchObject({ type: 'tool_reference', tool: 'document_library', title: 'Returns' });

    const history = await call(platform, `/v1/conversations/${events[0].data.conversation_id}/history`);
    const [, exec, message] = history.json.entries;
    expect(exec).toMatchObject({ id: started.id, type: 'tool.execution', name: 'document_library', info: done.info });
    expect(message.content).toEqual([{ type: 'text', text: text.map((d) => d.content).join('') }, ...chunks.map((d) => d.content)]);
  });

  it('passes hostile titles, URLs and passages through as data', async () => {
    const lib = (await call(platform, '/v1/libraries', { body: { name: '<b>Evil</b> "library"' } })).json;
    const hostile = '# <script>alert(1)</script>\n\nReturns of <img src=x onerror=alert(1)> lamps are [accepted](javascript:alert(1)) within 30 days.';
    const id = await upload(lib.id, hostile, '<img src=x onerror=alert(1)>.md');
    const put = await call(platform, `/v1/libraries/${lib.id}/documents/${id}`, {
      method: 'PUT', body: { attributes: { title: '<img src=x onerror=alert(1)>Returns', url: 'javascript:alert(document.cookie)' } },
    });
    expect(put.status).toBe(200);
    await processed(lib.id, id);
    const res = await call(platform, '/v1/conversations', {
      body: { model: 'parley-local', tools: [{ type: 'document_library', library_ids: [lib.id] }], inputs: 'Are returns of lamps accepted within 30 days?' },
    });
    expect(res.status).toBe(200);
    const message = res.json.outputs[1];
    const [ref] = refsOf(message.content);
    expect(ref).toMatchObject({ title: '<img src=x onerror=alert(1)>Returns', url: 'javascript:alert(document.cookie)' });
    expect(ref.description).toContain('<img src=x onerror=alert(1)>');
    // The quoted passage and title are markdown-escaped: no raw HTML tag and no live link in the reply text.
    const text = textOf(message.content);
    expect(text).not.toMatch(/(^|[^\\])<img|[^\\]\]\(javascript:/);
    expect(text).toContain('\\<img src=x onerror=alert(1)\\>');
  });
});

describe('document_library access', () => {
  it('refuses a library the caller cannot read with the API 404, storing nothing', async () => {
    const mine = (await call(platform, '/v1/libraries', { body: { name: 'Private', owner_type: 'User' } })).json;
    const before = (await call(platform, '/v1/conversations', { key: MEMBER_KEY })).json;
    for (const ids of [[mine.id], [UNKNOWN], ['not-a-uuid']]) {
      const res = await call(platform, '/v1/conversations', {
        key: MEMBER_KEY, body: { model: 'parley-local', tools: [{ type: 'document_library', library_ids: ids }], inputs: 'How long do I have to return a lamp?' },
      });
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ object: 'error', type: 'invalid_request_error', message: expect.stringContaining(ids[0]) });
      const streamed = await call(platform, '/v1/conversations', {
        key: MEMBER_KEY, body: { model: 'parley-local', stream: true, tools: [{ type: 'document_library', library_ids: ids }], inputs: 'Hi' },
      });
      expect(streamed.status).toBe(404);
    }
    expect((await call(platform, '/v1/conversations', { key: MEMBER_KEY })).json).toEqual(before);
    // The owner's key reads it.
    const own = await call(platform, '/v1/conversations', { body: { model: 'parley-local', tools: [{ type: 'document_library', library_ids: [mine.id] }], inputs: 'Hi there' } });
    expect(own.status).toBe(200);
  });

  it('refuses an empty library_ids list with a 422', async () => {
    const res = await call(platform, '/v1/conversations', { body: { model: 'parley-local', tools: [{ type: 'document_library', library_ids: [] }], inputs: 'Hi' } });
    expect(res.status).toBe(422);
  });
});
