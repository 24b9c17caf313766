/**
 * Record-keeping never fails a completion: when the event cannot be written, the reply (JSON or stream)
 * goes out unchanged and the failure is reported.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { PlatformEnv } from '../../src/http/context.js';
import type { Db } from '../../src/store/db.js';
import { CompletionRecorder } from '../../src/observability/recorder.js';

const brokenDb = { query: () => Promise.reject(new Error('disk full')) } as unknown as Db;
const caller = { kind: 'user' as const, userId: 'u1', organizationId: 'o1', workspaceId: 'w1' };

function appWith(recorder: CompletionRecorder) {
  const app = new Hono<PlatformEnv>();
  app.use('*', async (c, next) => { c.set('caller', caller); await next(); });
  const body = { id: 'cmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1 } };
  app.post('/json', async (c) => {
    await recorder.completion(c, { messages: [{ role: 'user', content: 'Hi' }] }, 'parley-local', body);
    return c.json(body);
  });
  const sse = 'data: {"id":"cmpl-2","choices":[{"index":0,"delta":{"role":"assistant","content":"He"},"finish_reason":null}]}\n\n'
    + 'data: {"id":"cmpl-2","choices":[{"index":0,"delta":{"content":"llo"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\n'
    + 'data: [DONE]\n\n';
  app.post('/stream', (c) => recorder.stream(c, { messages: [{ role: 'user', content: 'Hi' }] }, 'parley-local', new Response(sse, { headers: { 'content-type': 'text/event-stream' } })));
  return { app, body, sse };
}

describe('completion events when the database fails', () => {
  it('answers the JSON completion and reports the failure', async () => {
    const reported: unknown[] = [];
    const { app, body } = appWith(new CompletionRecorder(brokenDb, (e) => reported.push(e)));
    const res = await app.fetch(new Request('http://platform.test/json', { method: 'POST' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(body);
    expect(reported).toHaveLength(1);
    expect((reported[0] as Error).message).toBe('disk full');
  });

  it('passes the stream through unchanged and reports the failure once it ends', async () => {
    const reported: unknown[] = [];
    const { app, sse } = appWith(new CompletionRecorder(brokenDb, (e) => reported.push(e)));
    const res = await app.fetch(new Request('http://platform.test/stream', { method: 'POST' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe(sse);
    expect(reported).toHaveLength(1);
  });

  it('records what a stream carried when the database works', async () => {
    const written: unknown[][] = [];
    const db = { query: async (_sql: string, params: unknown[]) => { written.push(params); return { rows: [] }; } } as unknown as Db;
    const { app } = appWith(new CompletionRecorder(db, (e) => { throw e; }));
    await (await app.fetch(new Request('http://platform.test/stream', { method: 'POST' }))).text();
    expect(written).toHaveLength(1);
    const event = written[0][5] as { correlation_id: string; response_messages: unknown[]; nb_output_tokens: number; extra_fields: Record<string, unknown> };
    expect(event).toMatchObject({ correlation_id: 'cmpl-2', response_messages: [{ role: 'assistant', content: 'Hello' }], nb_output_tokens: 1 });
    expect(event.extra_fields).toMatchObject({ stream: true, finish_reason: 'stop', user_id: 'u1', endpoint: '/stream' });
  });
});
