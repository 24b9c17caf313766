#!/usr/bin/env node
// One visitor floods the relay's realtime WebSocket with a million one-byte text frames (first with its
// replies unread, then read), against the built `parley-relay` (bin/parley-relay.js → dist/) run as a
// child process in front of a realtime stand-in, while another visitor asks for a session over HTTP.
// Prints the relay's RSS (start, peak, after the close), its CPU seconds and how the flood ended.
// Run after `npm run build` (or `npx tsc -p .`): `node bench/realtime-flood.mjs` or
// `npm run bench -- realtime-flood`. The test test/unit/relay/realtime-flood.test.ts uses these helpers.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket, WebSocketServer } from 'ws';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const FLOOD_ORIGIN = 'https://shop.example';
export const FLOOD_MODEL = 'voxtral-mini-transcribe-realtime-2602';
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** A realtime platform stand-in on loopback: `session.created` on connect, everything else read and dropped. */
export async function startRealtimeStandIn() {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => wss.once('listening', resolve));
  const sockets = new Set();
  wss.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.send(JSON.stringify({ type: 'session.created', session: { request_id: 'req_flood', model: FLOOD_MODEL, audio_format: { encoding: 'pcm_s16le', sample_rate: 16000 } } }));
  });
  return {
    url: `http://127.0.0.1:${wss.address().port}`,
    /** Upstream sockets still open. */
    open: () => sockets.size,
    close: () => new Promise((resolve) => {
      for (const s of wss.clients) s.terminate();
      wss.close(() => resolve());
    }),
  };
}

/** Starts `parley-relay` (built) as a child process in front of `upstreamUrl`; resolves once it listens. */
export async function startRelayProcess(upstreamUrl, extraArgs = []) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(PORT|REDIS_URL|PLATFORM_API_KEY|PLATFORM_BASE_URL|PARLEY_.*)$/.test(k)) env[k] = v;
  const child = spawn(process.execPath, [join(ROOT, 'bin/parley-relay.js'), '--port', '0', '--upstream', upstreamUrl,
    '--allow-origin', FLOOD_ORIGIN, '--model', FLOOD_MODEL, '--scope', 'transcription',
    '--address-sessions-rpm', '100000', '--address-session-burst', '100000', '--address-rpm', '100000', '--address-burst', '100000', ...extraArgs], {
    env: { ...env, PLATFORM_API_KEY: 'sk-flood-bench', PARLEY_RELAY_SECRET: 'flood-bench-secret-0123456789-abcdefgh' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const found = /Parley relay: (http:\/\/\S+)/.exec(out);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`parley-relay exited (${code}): ${err}`)));
  });
  return {
    url,
    pid: child.pid,
    stderr: () => err,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

/** The process's resident set now and at its peak (bytes), and its CPU time (seconds), from /proc. */
export function processStats(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { rss: kb('VmRSS'), peakRss: kb('VmHWM'), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
}

/** A new visitor's session token (`POST /session` from the allowed origin); the answer's status too. */
export async function visitorSession(relayUrl) {
  const res = await fetch(`${relayUrl}/session`, { method: 'POST', headers: { origin: FLOOD_ORIGIN } });
  const body = await res.json();
  return { status: res.status, token: body.token };
}

/** Opens a realtime socket as a page would: a session, a ticket, then the upgrade; resolves when open. */
export async function openRealtimeSocket(relayUrl) {
  const { token } = await visitorSession(relayUrl);
  const res = await fetch(`${relayUrl}/v1/client/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, origin: FLOOD_ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify({ purpose: 'realtime', model: FLOOD_MODEL }),
  });
  if (res.status !== 201) throw new Error(`ticket: ${res.status} ${await res.text()}`);
  const ticket = (await res.json()).client_secret.value;
  const socket = new WebSocket(`${relayUrl.replace(/^http/, 'ws')}/v1/audio/transcriptions/realtime?model=${FLOOD_MODEL}`, ['realtime', ticket], { origin: FLOOD_ORIGIN });
  const received = { messages: 0, bytes: 0 };
  socket.on('message', (data) => {
    received.messages++;
    received.bytes += data.length;
  });
  const closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  socket.on('error', () => {});
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('unexpected-response', (_req, r) => reject(new Error(`upgrade refused: ${r.statusCode}`)));
  });
  return { socket, received, closed };
}

/** One masked text frame of `text` (under 126 bytes), as a page sends it. */
function maskedFrame(text) {
  const payload = Buffer.from(text);
  const mask = [1, 2, 3, 4];
  return Buffer.from([0x81, 0x80 | payload.length, ...mask, ...payload.map((b, i) => b ^ mask[i % 4])]);
}

/**
 * Writes `frames` masked text frames of `text` (default one byte, `x`: invalid) straight to the socket,
 * 64 KB at a time (as fast as the relay takes them), until all are written, the socket closes, or the
 * relay stops taking them for `stallMs`. With `read: false` the page does not read its replies while it
 * floods (it reads them after, to learn the close code). Resolves with the frames written and how the
 * socket closed.
 */
export async function floodSocket(opened, { frames = 1_000_000, read = true, stallMs = 3000, text = 'x' } = {}) {
  const { socket, closed } = opened;
  const raw = socket._socket;
  const FRAME = maskedFrame(text);
  const perChunk = Math.floor(65536 / FRAME.length);
  const chunk = Buffer.concat(Array.from({ length: perChunk }, () => FRAME));
  if (!read) socket.pause();
  let ended = false;
  void closed.then(() => { ended = true; });
  let sent = 0;
  let stalled = false;
  while (sent < frames && !ended && socket.readyState === WebSocket.OPEN) {
    const n = Math.min(perChunk, frames - sent);
    const ok = raw.write(n === perChunk ? chunk : chunk.subarray(0, n * FRAME.length));
    sent += n;
    if (!ok) {
      const drained = await Promise.race([
        new Promise((resolve) => raw.once('drain', () => resolve(true))),
        closed.then(() => false),
        new Promise((resolve) => setTimeout(() => resolve(false), stallMs)),
      ]);
      if (!drained) {
        stalled = !ended;
        break;
      }
    }
  }
  if (!read) socket.resume();
  const how = await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve(null), 60_000))]);
  if (!how) socket.terminate();
  return { sent, stalled, close: how ?? { code: 0, reason: 'still open after 60 s' } };
}

/**
 * The whole measure: one flood with replies read or unread, an unrelated visitor's `POST /session` while
 * it runs, and the relay's figures (peak RSS: the kernel's high-water mark, VmHWM).
 */
export async function measureFlood({ read = true, frames = 1_000_000, text = 'x' } = {}) {
  const upstream = await startRealtimeStandIn();
  const relay = await startRelayProcess(upstream.url);
  try {
    const start = processStats(relay.pid);
    const page = await openRealtimeSocket(relay.url);
    const flooding = floodSocket(page, { frames, read, text });
    const other = (async () => {
      await new Promise((r) => setTimeout(r, 50));
      const t0 = performance.now();
      const { status } = await visitorSession(relay.url);
      return { status, ms: performance.now() - t0 };
    })();
    const [flood, unrelated] = await Promise.all([flooding, other]);
    const during = processStats(relay.pid);
    await new Promise((r) => setTimeout(r, 2000));
    const after = processStats(relay.pid);
    return {
      sent: flood.sent, close: flood.close, received: page.received, unrelated,
      startRss: start.rss, peakRss: during.peakRss, afterRss: after.rss,
      cpuSeconds: after.cpuSeconds - start.cpuSeconds, upstreamOpen: upstream.open(),
    };
  } finally {
    await relay.stop();
    await upstream.close();
  }
}

const MiB = (n) => `${(n / 1048576).toFixed(0)} MiB`;

export async function benchRealtimeFlood() {
  const figures = {};
  for (const [read, text, label] of [[false, 'x', 'invalid, replies unread'], [true, 'x', 'invalid, replies read'], [true, '{"type":"input_audio.flush"}', 'valid flush, replies read']]) {
    const m = await measureFlood({ read, text });
    figures[`${label}: frames written, close`] = `${m.sent} of 1000000; ${m.close.code} ${m.close.reason}`;
    figures[`${label}: relay RSS start / peak / 2 s after the close`] = `${MiB(m.startRss)} / ${MiB(m.peakRss)} / ${MiB(m.afterRss)}`;
    figures[`${label}: relay CPU seconds`] = m.cpuSeconds.toFixed(2);
    figures[`${label}: unrelated POST /session during the flood`] = `${m.unrelated.status} in ${m.unrelated.ms.toFixed(0)} ms`;
    figures[`${label}: replies the page got, upstream sockets left open`] = `${m.received.messages} (${m.received.bytes} bytes), ${m.upstreamOpen}`;
  }
  return figures;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [k, v] of Object.entries(await benchRealtimeFlood())) process.stdout.write(`${k.padEnd(64)} ${v}\n`);
}
