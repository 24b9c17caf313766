// The platform's probes, request ids, metrics and access log, over real HTTP (a served platform).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { serveFetch, type ServedFetch } from '../../src/node.js';
import { ADMIN_KEY, API_KEY, startPlatform } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let platform: Platform | undefined;
let served: ServedFetch | undefined;
afterEach(async () => {
  await served?.close();
  if (platform) await platform.close().catch(() => {});
  platform = undefined;
  served = undefined;
});

async function servedPlatform(): Promise<string> {
  platform = await startPlatform();
  served = await serveFetch(platform.fetch);
  return served.url;
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

function sample(text: string, name: string): number {
  const escaped = name.replace(/[{}().*+?^$|[\]\\/]/g, '\\$&');
  return Number(new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

describe('platform /healthz and /readyz', () => {
  it('answer without a key; readiness is 503 in the error shape once the database is gone', async () => {
    const url = await servedPlatform();
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const traced = await fetch(`${url}/readyz`, { headers: { 'x-request-id': 'probe-7' } });
    expect(traced.headers.get('x-request-id')).toBe('probe-7');
    await traced.text();
    const ready = await fetch(`${url}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok' } });
    expect((await fetch(`${url}/readyz`, { method: 'POST' })).status).toBe(405);

    await platform!.close();
    // The last check is reused for a second: poll (a safety timeout, not a measurement).
    const deadline = Date.now() + 10_000;
    let res = await fetch(`${url}/readyz`);
    while (res.status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      res = await fetch(`${url}/readyz`);
    }
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      object: 'error', message: 'Not ready: the database cannot be reached', type: 'server_error', param: null, code: 'not_ready', checks: { database: 'failed' },
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});

describe('platform request ids, metrics and access log', () => {
  // One platform for these (starting one takes a while on a busy machine).
  const log: string[] = [];
  let shared: { platform: Platform; served: ServedFetch } | undefined;
  let url = '';
  beforeAll(async () => {
    const started = await startPlatform({ accessLog: (line) => log.push(line) });
    shared = { platform: started, served: await serveFetch(started.fetch) };
    url = shared.served.url;
  });
  afterAll(async () => {
    await shared?.served.close();
    await shared?.platform.close();
  });

  it('echoes a sane X-Request-Id and makes one otherwise, on answers and refusals alike', async () => {
    const echoed = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${API_KEY}`, 'x-request-id': 'relay-7c1e' } });
    expect(echoed.status).toBe(200);
    expect(echoed.headers.get('x-request-id')).toBe('relay-7c1e');
    for (const res of [
      await fetch(`${url}/v1/models`, { headers: { 'x-request-id': 'not sane' } }),
      await fetch(`${url}/v1/nowhere`, { headers: { authorization: `Bearer ${API_KEY}` } }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    }
  });

  it('metrics need the admin key and count requests by route pattern, method and status with their durations', async () => {
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const withApiKey = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(withApiKey.status).toBe(401);
    expect(await withApiKey.json()).toMatchObject({ object: 'error', code: 'unauthorized' });

    const before = await scrape(url);
    const ok = 'parley_platform_requests_total{route="/v1/models/:model_id",method="GET",status="200"}';
    expect(sample(before, ok)).toBe(0);
    const model = (await (await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()).data[0].id as string;
    expect((await fetch(`${url}/v1/models/${encodeURIComponent(model)}`, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(200);
    expect((await fetch(`${url}/v1/models/${encodeURIComponent(model)}`)).status).toBe(401);
    expect((await fetch(`${url}/v1/no/such/route`, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(404);

    const after = await scrape(url);
    const moved = (name: string) => sample(after, name) - sample(before, name);
    expect(moved(ok)).toBe(1);
    expect(moved('parley_platform_requests_total{route="/v1/models/:model_id",method="GET",status="401"}')).toBe(1);
    expect(moved('parley_platform_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    expect(moved('parley_platform_request_duration_seconds_count{route="/v1/models/:model_id",method="GET"}')).toBe(2);
    expect(after).not.toContain(model); // patterns, never raw paths
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('writes one JSON line per request, with no path, query, key or body', async () => {
    const from = log.length;
    const res = await fetch(`${url}/v1/conversations?secret_query=q-123`, {
      method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'x-request-id': 'from-the-relay' },
      body: JSON.stringify({ model: 'mistral-small-latest', inputs: 'a private question' }),
    });
    await res.text();
    await fetch(`${url}/v1/models`);
    expect(log.slice(from)).toHaveLength(2);
    const [first, second] = log.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({ request_id: 'from-the-relay', method: 'POST', route: '/v1/conversations', status: res.status });
    expect(Object.keys(first!).sort()).toEqual(['duration_ms', 'method', 'request_id', 'route', 'status', 'time']);
    expect(first!.duration_ms as number).toBeGreaterThan(0);
    expect(second).toMatchObject({ method: 'GET', route: '/v1/models', status: 401 });
    for (const secret of [API_KEY, ADMIN_KEY, 'q-123', 'private question']) expect(log.join('')).not.toContain(secret);
  });
});
