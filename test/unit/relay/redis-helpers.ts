// A real redis-server for the Redis state store tests: started on a free loopback port in a temp
// dir, without persistence; stoppable and restartable on the same port (outage tests).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../browser/server/free-port.mjs';

export const REDIS_SERVER = '/usr/bin/redis-server';

/** A running redis-server. */
export interface RedisServer {
  url: string;
  port: number;
  /** Stops it (SIGTERM) and waits for the process to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence). */
  start(): Promise<void>;
  /** Stops it for good and removes its temp dir. */
  dispose(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing is answered. */
  pause(): void;
  /** Lets a paused process go on (SIGCONT). */
  resume(): void;
}

/** Starts redis-server; throws with the install command when it is missing. */
export async function startRedis(): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER)) throw new Error(`${REDIS_SERVER} is missing: install redis-server (apt-get install redis-server)`);
  const dir = mkdtempSync(join(tmpdir(), 'parley-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    const proc = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let output = '';
    proc.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
    proc.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
    await waitFor(async () => {
      if (proc.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
      return output.includes('Ready to accept connections') && await canConnect(port);
    }, 15_000, `redis-server on port ${port}`);
  };
  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    pause: () => { (child as ChildProcess | null)?.kill('SIGSTOP'); },
    resume: () => { (child as ChildProcess | null)?.kill('SIGCONT'); },
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { freePort } from '../../browser/server/free-port.mjs';

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** Polls `check` every 20 ms until true; throws after `ms` (a safety timeout, not a measurement). */
export async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
