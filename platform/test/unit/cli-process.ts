// `parley platform` as users run it (the compiled CLI, bin/parley.js) in a child process on a free port, for the
// tests that need a real process (durability after SIGKILL, memory at start, several processes on PostgreSQL).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const CLI = join(import.meta.dirname, '../../bin/parley.js');

/** Fails with the command to run when the compiled CLI is missing. */
export function requireBuild(): void {
  if (!existsSync(join(import.meta.dirname, '../../dist/cli.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does) first');
}

/**
 * `parley platform --port 0 …args` with `env` added to this process's; resolves with its base URL once it
 * prints its banner (it is ready then), or rejects with what it printed when it exits first or does not start
 * within `timeoutMs` (generous: a fresh PGlite directory takes a minute and more on a loaded 2-core machine).
 */
export function startPlatformCli(
  env: Record<string, string>, args: string[] = [], track?: ChildProcess[], timeoutMs = 120_000,
): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'platform', '--port', '0', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track?.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`platform did not start: ${out}`)), timeoutMs);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = out.match(/API base URL\s+(http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve({ child, url: m[1] }); }
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
