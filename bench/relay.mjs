// Relay overhead: time to first byte of a streamed conversation start and non-streamed throughput,
// through the relay (/api) against the platform directly (/v1), same process, same run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { headers as direct, percentile } from './platform.mjs';

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, 'relay-server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/READY (\S+)/);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`bench server exited ${code}`)));
  });
}

async function ttfb(url, headers, n, own = []) {
  const samples = [];
  for (let i = 0; i < n + 20; i++) {
    const t0 = performance.now();
    const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ model: 'parley-local', inputs: 'bench', stream: true }) });
    const reader = r.body.getReader();
    await reader.read();
    const first = performance.now() - t0;
    const timing = /relay;dur=([\d.]+)/.exec(r.headers.get('server-timing') ?? '');
    if (timing && i >= 20) own.push(Number(timing[1]));
    while (!(await reader.read()).done) { /* drain */ }
    if (!r.ok) throw new Error(`${url} answered ${r.status}`);
    if (i >= 20) samples.push(first);
  }
  return samples.sort((a, b) => a - b);
}

async function throughput(url, headers, n, concurrency) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < n) {
      const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ model: 'parley-local', inputs: 'bench' }) });
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`${url} answered ${r.status}`);
    }
  }));
  return n / ((performance.now() - t0) / 1000);
}

export async function benchRelay() {
  const { child, url } = await startServer();
  try {
    const session = await (await fetch(`${url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: url }, body: '{}' })).json();
    const relayed = { authorization: `Bearer ${session.token}`, 'content-type': 'application/json', origin: url };
    // Interleave the two paths in rounds so drift on the machine hits both alike.
    const d = [], r = [], own = [];
    for (let round = 0; round < 4; round++) {
      d.push(...await ttfb(`${url}/v1/conversations`, direct, 50));
      r.push(...await ttfb(`${url}/api/v1/conversations`, relayed, 50, own));
    }
    d.sort((a, b) => a - b); r.sort((a, b) => a - b); own.sort((a, b) => a - b);
    const tDirect = await throughput(`${url}/v1/conversations`, direct, 300, 8);
    const tRelay = await throughput(`${url}/api/v1/conversations`, relayed, 300, 8);
    return {
      'TTFB direct p50 / p99 (ms)': `${percentile(d, 50).toFixed(2)} / ${percentile(d, 99).toFixed(2)}`,
      'TTFB through relay p50 / p99 (ms)': `${percentile(r, 50).toFixed(2)} / ${percentile(r, 99).toFixed(2)}`,
      'relay added TTFB, difference of p50 / p99 (ms)': `${(percentile(r, 50) - percentile(d, 50)).toFixed(2)} / ${(percentile(r, 99) - percentile(d, 99)).toFixed(2)}`,
      'relay own time before first byte p50 / p99 (Server-Timing, ms, target p99 ≤ 5)': `${percentile(own, 50).toFixed(2)} / ${percentile(own, 99).toFixed(2)}`,
      'starts/s direct / through relay': `${tDirect.toFixed(1)} / ${tRelay.toFixed(1)}`,
      'relay throughput ratio (relay / direct)': (tRelay / tDirect).toFixed(3),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((res) => child.once('exit', res));
  }
}
