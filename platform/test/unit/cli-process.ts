// `parley platform` as users run it (the compiled CLI, bin/parley.js) in a child process on a free port, for the
// tests that need a real process (durability after SIGKILL, memory at start, several processes on PostgreSQL).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import WebSocket from 'ws';

export const CLI = join(import.meta.dirname, '../../bin/parley.js');

/** Fails with the command to run when the compiled CLI is missing. */
export function requireBuild(): void {
  if (!existsSync(join(import.meta.dirname, '../../dist/cli.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does) first');
}

/**
 * `parley platform --port 0 …args` with `env` added to this process's; resolves with its base URL once it
 * prints its banner (it is ready then), or rejects with what it printed when it exits first or does not start
 * within `timeoutMs` (generous: a fresh PGlite directory takes a minute and more on a loaded 2-core machine).
 * `nodeFlags` go to Node itself; with `--inspect=127.0.0.1:0` the answer has the inspector's URL (see {@link heldBytes}).
 */
export function startPlatformCli(
  env: Record<string, string>, args: string[] = [], track?: ChildProcess[], timeoutMs = 120_000, nodeFlags: string[] = [],
): Promise<{ child: ChildProcess; url: string; inspector?: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, CLI, 'platform', '--port', '0', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track?.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`platform did not start: ${out}`)), timeoutMs);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = out.match(/API base URL\s+(http:\/\/\S+)/);
      const inspector = out.match(/Debugger listening on (ws:\/\/\S+)/)?.[1];
      if (m) { clearTimeout(timer); resolve({ child, url: m[1], ...(inspector ? { inspector } : {}) }); }
    });
    child.stderr!.on('data', (d) => { out += d; });
    child.on('exit', (code) => { clearTimeout(timer); reject(Object.assign(new Error(`platform exited (${code}): ${out}`), { code, out })); });
  });
}

/** Ends the child with `signal` and waits for it to exit. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => { child.once('exit', () => resolve()); child.kill(signal); });
}

/** A process's resident memory now and at its peak (VmRSS, VmHWM of /proc/<pid>/status), in MiB. */
export function residentMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const m = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    if (!m) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(m[1]) / 1024;
  };
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * What a process started with `--inspect` holds, in bytes: its JS heap and the memory its objects own outside it
 * (buffers, WebAssembly memory), read through the inspector after two full garbage collections. Unlike the resident
 * set size, garbage not yet collected and memory the allocator keeps do not count: what is measured is retained.
 */
export async function heldBytes(inspector: string): Promise<number> {
  const socket = new WebSocket(inspector);
  await once(socket, 'open');
  type Answer = { id?: number; result?: { result?: { value?: string } }; error?: unknown };
  const waiting = new Map<number, (message: Answer) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Answer;
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  let next = 0;
  const call = (method: string, params: Record<string, unknown> = {}) => new Promise<Answer>((resolve) => {
    const id = ++next;
    waiting.set(id, resolve);
    socket.send(JSON.stringify({ id, method, params }));
  });
  try {
    await call('HeapProfiler.collectGarbage');
    await call('HeapProfiler.collectGarbage');
    const answer = await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const value = answer.result?.result?.value;
    if (!value) throw new Error(`the inspector did not answer: ${JSON.stringify(answer)}`);
    const usage = JSON.parse(value) as { heapUsed: number; external: number };
    return usage.heapUsed + usage.external;
  } finally {
    socket.close();
  }
}
