#!/usr/bin/env node
// How long a client sending 1 byte per second holds a socket on a relay served with the DEFAULT options
// (serveRelay timeouts, createRelay bodyRate), and how long an idle keep-alive socket stays open.
// Takes about 25 s. Run after `npm run build`: `node bench/slow-clients.mjs`.
import { connect } from 'node:net';
import { ALL_SCOPES, ANY, createRelay, serveRelay } from '../dist/relay/index.js';
import { serveFetch } from '../dist/server/node-serve.js';

const ORIGIN = 'https://shop.example';

/** Opens a socket, writes `first`, then one byte of `rest` per second; resolves when the server closes it. */
function dribble(port, first, rest) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const started = performance.now();
    let sent = 0;
    let received = '';
    socket.on('data', (d) => { received += d.toString('latin1'); });
    socket.on('error', () => {});
    socket.write(first);
    const timer = setInterval(() => { if (sent < rest.length) socket.write(rest[sent++]); }, 1000);
    socket.on('close', () => {
      clearInterval(timer);
      const status = received.split('\r\n')[0] || '(no answer)';
      const code = /"code":"([a-z_]+)"/.exec(received)?.[1];
      resolve(`${((performance.now() - started) / 1000).toFixed(1)} s (${sent} bytes sent; ${status}${code ? ` ${code}` : ''})`);
    });
  });
}

/** Sends one request on a keep-alive socket; resolves with how long the idle socket stays open after the answer. */
function idleKeepAlive(port, token) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answered = 0;
    socket.on('data', () => { answered ||= performance.now(); });
    socket.write(`GET /api/v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    socket.on('close', () => resolve(`${((performance.now() - answered) / 1000).toFixed(1)} s after its answer`));
  });
}

export async function benchSlowClients() {
  const upstream = await serveFetch(async (request) => {
    await request.arrayBuffer();
    return new Response('{"object":"list","data":[]}', { headers: { 'content-type': 'application/json' } });
  });
  const relay = createRelay({
    upstream: { baseUrl: upstream.url, apiKey: 'sk-bench' }, basePath: '/api', secret: 'bench-secret-0123456789-abcdefghijklmnop',
    allowedOrigins: [ORIGIN], policy: { scopes: [...ALL_SCOPES], agents: [ANY], models: [ANY] },
  });
  const served = await serveRelay(relay);
  try {
    const session = await fetch(`${served.url}/api/session`, { method: 'POST', headers: { origin: ORIGIN } });
    const { token } = await session.json();
    const body = JSON.stringify({ inputs: 'x'.repeat(100) });
    const [headers, json, idle] = await Promise.all([
      dribble(served.port, '', `GET /api/v1/models HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(100)}\r\n\r\n`),
      dribble(served.port, `POST /api/v1/conversations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n`
        + `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, body),
      idleKeepAlive(served.port, token),
    ]);
    return {
      'headers at 1 byte/s: socket closed after': headers,
      'JSON body at 1 byte/s: socket closed after': json,
      'idle keep-alive socket: closed': idle,
    };
  } finally {
    await served.close();
    await upstream.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [k, v] of Object.entries(await benchSlowClients())) process.stdout.write(`${k.padEnd(48)} ${v}\n`);
}
