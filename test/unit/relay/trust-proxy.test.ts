// Behind a real reverse proxy (nginx, appending the visitor's address to X-Forwarded-For), each visitor
// gets their own per-address bucket when the relay trusts one proxy hop, and all share the proxy's bucket
// when it trusts none. Visitors are told apart by their source address (127.0.0.2, 127.0.0.3: all of
// 127/8 is loopback on Linux).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, type ServedRelay } from '../../../src/relay/index.js';
import { ORIGIN, SECRET, UPSTREAM, UPSTREAM_KEY, fakeUpstream, json } from './helpers.js';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** `POST /session` from `localAddress`, with extra headers; the status. */
function session(url: string, localAddress: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = httpRequest({ host: u.hostname, port: u.port, path: '/session', method: 'POST', localAddress, agent: false,
      headers: { origin: ORIGIN, 'content-length': '0', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** nginx in front of `target` (its own process, generated config in a temp dir), as a site would run it. */
async function startNginx(target: string): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-trust-proxy-'));
  for (const d of ['client', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, d));
  const port = await freePort();
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  writeFileSync(join(dir, 'nginx.conf'), `${user}worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/client; proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${target};
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
`);
  const child: ChildProcess = spawn(NGINX!, ['-e', join(dir, 'error.log'), '-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
    const up = await new Promise<boolean>((resolve) => {
      const req = httpRequest(`${url}/`, { method: 'GET', agent: false }, (res) => { res.resume(); resolve(true); });
      req.on('error', () => resolve(false));
      req.end();
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error('nginx did not start listening within 20 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const running: Array<{ close(): Promise<void> } | { stop(): Promise<void> }> = [];
beforeAll(() => {
  if (!NGINX) throw new Error('nginx is not installed; install it with `apt-get install -y nginx` (CI installs it in .ci/run)');
});
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await ('stop' in r ? r.stop() : r.close());
});
afterAll(async () => {
  for (const r of running.splice(0)) await ('stop' in r ? r.stop() : r.close());
});

/** A relay behind nginx, two sessions per address per minute. */
async function relayBehindNginx(trustProxy: number | undefined) {
  const relay = createRelay({
    upstream: { baseUrl: UPSTREAM, apiKey: UPSTREAM_KEY, fetch: fakeUpstream(() => json({})).fetch },
    allowedOrigins: [ORIGIN], secret: SECRET, trustProxy,
    limits: { sessionsPerMinute: 1, sessionBurst: 2 },
  });
  const served: ServedRelay = await serveRelay(relay, { port: 0, hostname: '127.0.0.1' });
  running.push(served);
  const nginx = await startNginx(served.url);
  running.push(nginx);
  return nginx.url;
}

describe('--trust-proxy behind a real reverse proxy', () => {
  it('trusting one hop: each visitor has their own bucket, and a forged X-Forwarded-For does not buy a new one', async () => {
    const url = await relayBehindNginx(1);
    expect([await session(url, '127.0.0.2'), await session(url, '127.0.0.2'), await session(url, '127.0.0.2')]).toEqual([200, 200, 429]);
    // Another visitor is not affected by the first one's empty bucket.
    expect([await session(url, '127.0.0.3'), await session(url, '127.0.0.3')]).toEqual([200, 200]);
    // The first visitor claiming to be someone else: nginx appends the real address, which is the one believed.
    expect(await session(url, '127.0.0.2', { 'x-forwarded-for': '198.51.100.9' })).toBe(429);
  });

  it('trusting none (the default): every visitor shares the proxy’s bucket', async () => {
    const url = await relayBehindNginx(undefined);
    expect([await session(url, '127.0.0.2'), await session(url, '127.0.0.2')]).toEqual([200, 200]);
    expect(await session(url, '127.0.0.3')).toBe(429);
  });

  it('trusting two hops when only one proxy stands in front: the client-written entry is believed (why hops must match)', async () => {
    const url = await relayBehindNginx(2);
    // Documented hazard: with one hop too many, a client can pick its bucket. Each forged address gets a fresh one.
    for (const forged of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      expect([await session(url, '127.0.0.2', { 'x-forwarded-for': forged }), await session(url, '127.0.0.2', { 'x-forwarded-for': forged })]).toEqual([200, 200]);
    }
  });
});
