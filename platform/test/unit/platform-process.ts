// The local platform as users run it (`parley platform`, the compiled CLI) in a child process: started on a
// free port, its resident memory read from /proc, stopped with a signal.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CLI = join(import.meta.dirname, '../../bin/parley.js');

export interface PlatformProcess {
  child: ChildProcess;
  /** The API base URL (`http://127.0.0.1:<port>`). */
  url: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Its resident set size in bytes (VmRSS). */
  rss(): number;
  /** Stops it (`SIGKILL` for a crash) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Fails with a clear message when the compiled CLI is missing. */
export function requireBuild(): void {
  if (!existsSync(join(import.meta.dirname, '../../dist/cli.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does) first');
}

/** Starts `parley platform --port 0 ...args` with `env` added; resolves once it prints its URL. */
export function startPlatformProcess(args: string[], env: Record<string, string>): Promise<PlatformProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'platform', '--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`platform did not start: ${out}`)), 150_000);
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = out.match(/API base URL\s+(http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({
          child, url: m[1]!, output: () => out, rss: () => rssOf(child.pid!),
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            await exited;
          },
        });
      }
    });
    child.stderr!.on('data', (d) => { out += d; });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`platform exited (${code}): ${out}`)); });
  });
}

/** The resident set size of process `pid`, in bytes. */
export function rssOf(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}
