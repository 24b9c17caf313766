// nginx in front of relays, in its own process (generated config in a temp dir), as a site would run it:
// the relay tests behind a real reverse proxy (trust-proxy.test.ts, drain.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-helpers.js';

export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

/** Throws with the install command when nginx is missing. */
export function requireNginx(): void {
  if (!NGINX) throw new Error('nginx is not installed; install it with `apt-get install -y nginx` (CI installs it in .ci/run)');
}

/** A running nginx. */
export interface Nginx { url: string; stop(): Promise<void> }

/**
 * nginx proxying every path to `targets` (one, or an `upstream` group of several, tried in turn), with
 * `X-Forwarded-For` appended; `location` adds directives to the proxied location.
 */
export async function startNginx(targets: string[], location = ''): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-nginx-'));
  for (const d of ['client', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, d));
  const port = await freePort();
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  const group = targets.length > 1;
  const servers = targets.map((t) => `    server ${new URL(t).host} max_fails=0;`).join('\n');
  writeFileSync(join(dir, 'nginx.conf'), `${user}worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/client; proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
${group ? `  upstream relays {\n${servers}\n    keepalive 8;\n  }\n` : ''}  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${group ? 'http://relays' : targets[0]};
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
${location}    }
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
