// Local platform on loopback, as users run it (`parley platform` in its own process, in-memory data dir on tmpfs-like temp):
// non-streamed conversation starts per second (zero pacing) and time to first SSE event p50/p99,
// with a bare authenticated GET /v1/models in the same run as the baseline the ratios are against; and its
// resident memory once ready on that fresh PGlite directory, as a ratio to issue 26's 300 MiB target.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const KEY = 'bench-key';
const CLI = join(import.meta.dirname, '../platform/bin/parley.js');

/** `parley platform` in its own process on a free port (zero token pacing); resolves once it listens. */
export function startPlatform(dataDir) {
  return startPlatformWith(['--data', dataDir]);
}

/** `parley platform` with `args` (e.g. `--database-url …`), as {@link startPlatform}. */
export function startPlatformWith(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'platform', '--port', '0', '--token-delay', '0', ...args], {
      env: { ...process.env, PARLEY_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/API base URL\s+(http:\/\/\S+)/);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`platform exited ${code}`)));
  });
}

/** Issue 26: `parley platform` on a fresh embedded data directory holds at most this once ready. */
const RSS_TARGET_MIB = 300;
/** A process's resident memory (VmRSS of /proc/<pid>/status), in MiB. */
const residentMiB = (pid) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)[1]) / 1024;

export const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
/** The p-th percentile of an ascending array. */
export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function rate(label, n, concurrency, once) {
  for (let i = 0; i < 20; i++) await once(); // warm up
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < n) await once();
  }));
  const seconds = (performance.now() - t0) / 1000;
  return n / seconds;
}

export async function benchPlatform() {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
  const { child, url } = await startPlatform(dataDir);
  const rssAtStart = residentMiB(child.pid);
  try {
    const models = await rate('models', 1000, 8, async () => {
      const r = await fetch(`${url}/v1/models`, { headers });
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`models ${r.status}`);
    });
    const starts = await rate('starts', 300, 8, async () => {
      const r = await fetch(`${url}/v1/conversations`, { method: 'POST', headers, body: JSON.stringify({ model: 'parley-local', inputs: 'Benchmark: say something short.' }) });
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`start ${r.status}`);
    });
    const getLatency = [];
    for (let i = 0; i < 220; i++) {
      const t0 = performance.now();
      const r = await fetch(`${url}/v1/models`, { headers });
      await r.arrayBuffer();
      if (i >= 20) getLatency.push(performance.now() - t0);
    }
    getLatency.sort((a, b) => a - b);
    const ttfe = [];
    const total = [];
    for (let i = 0; i < 220; i++) {
      const t0 = performance.now();
      const r = await fetch(`${url}/v1/conversations`, { method: 'POST', headers, body: JSON.stringify({ model: 'parley-local', inputs: 'Benchmark stream.', stream: true }) });
      const reader = r.body.getReader();
      const { value } = await reader.read();
      const first = performance.now() - t0;
      if (!new TextDecoder().decode(value).includes('event: conversation.response.started')) throw new Error('first event was not response.started');
      while (!(await reader.read()).done) { /* drain */ }
      if (i >= 20) { ttfe.push(first); total.push(performance.now() - t0); }
    }
    ttfe.sort((a, b) => a - b);
    total.sort((a, b) => a - b);
    const rssAfter = residentMiB(child.pid);
    return {
      'RSS once ready on a fresh PGlite data dir (MiB)': rssAtStart.toFixed(0),
      [`RSS once ready / ${RSS_TARGET_MIB} MiB target`]: (rssAtStart / RSS_TARGET_MIB).toFixed(2),
      'RSS after this benchmark\'s requests (MiB)': rssAfter.toFixed(0),
      'bare GET /v1/models per second (baseline)': models.toFixed(0),
      'non-streamed conversation starts per second': starts.toFixed(1),
      'starts / baseline ratio': (starts / models).toFixed(3),
      'time to first SSE event p50 (ms)': percentile(ttfe, 50).toFixed(2),
      'time to first SSE event p99 (ms)': percentile(ttfe, 99).toFixed(2),
      'whole streamed turn p50 (ms)': percentile(total, 50).toFixed(2),
      'bare GET /v1/models latency p50 (ms, baseline)': percentile(getLatency, 50).toFixed(2),
      'first SSE event / bare GET latency ratio (p50)': (percentile(ttfe, 50) / percentile(getLatency, 50)).toFixed(2),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
