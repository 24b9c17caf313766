// Streamed speech in Debian Chromium over a throttled connection: underruns per minute of audio
// (target 0) and the time from request to the first scheduled sample. The local platform and the relay
// run in this process; the page loads the built <speech-player> (dist/browser) and plays a ~35 s text
// as `pcm` (and as 16-bit `wav` at 1 Mbps), throttled with CDP `Network.emulateNetworkConditions`. Run after `npm run build`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { createPlatform } from '@parley-kit/platform';
import { ALL_SCOPES, createRelay } from '../dist/relay/index.js';
import { ASSETS, servePage } from './page-server.mjs';

const TEXT = [
  'Welcome to the Parley speech benchmark.',
  'This paragraph is read aloud by the local platform and streamed to the browser as raw samples, while the connection is slowed down on purpose.',
  'Every piece of audio is scheduled right after the one before it, with a small safety margin, so that the listener hears one continuous voice.',
  'When a piece arrives after the moment it should already have been playing, the player counts an underrun, waits a little longer, and carries on.',
  'The goal is simple: no underruns at all, and the first sound as early as possible after the request.',
  'Thank you for listening to the end of this test.',
].join(' ');

const PAGE = `<!doctype html><html><body><speech-player relay-url="/api" format="pcm"></speech-player>
<script type="module" src="/assets/speech-player.js"></script></body></html>`;

/** Runs in the page: speaks TEXT and reports the player's figures. */
async function measure({ text, format }) {
  await customElements.whenDefined('speech-player');
  const el = document.querySelector('speech-player');
  el.format = format;
  const underrunTimes = [];
  let firstAudioMs = null;
  el.addEventListener('parley-speech-underrun', () => underrunTimes.push(el.playback.played));
  el.addEventListener('parley-speech-first-audio', (e) => { firstAudioMs = e.detail.latencyMs; });
  const ended = new Promise((resolve) => {
    el.addEventListener('parley-speech-end', (e) => resolve(e.detail), { once: true });
    el.addEventListener('parley-speech-error', (e) => resolve({ error: e.detail.error }), { once: true });
  });
  const t0 = performance.now();
  void el.speak(text);
  const end = await ended;
  return { ...end, firstAudioMs, wallSeconds: (performance.now() - t0) / 1000, lead: el.playback.scheduler.lead, underrunTimes };
}

async function run(browser, url, network) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await page.goto(url);
  await page.waitForFunction(() => customElements.get('speech-player'));
  if (network) {
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false, latency: network.latencyMs, downloadThroughput: network.kbps * 1000 / 8, uploadThroughput: network.kbps * 1000 / 8,
    });
  }
  try {
    return await page.evaluate(measure, { text: TEXT, format: network.format });
  } finally {
    await context.close();
  }
}

export async function benchAudio() {
  if (!existsSync(join(ASSETS, 'speech-player.js'))) throw new Error('dist/browser/speech-player.js is missing: run `npm run build` first');
  const apiKey = 'bench-audio-key';
  const platform = createPlatform({ apiKey, onError: () => {} });
  await platform.ready();
  const { server, origin } = await servePage(PAGE, (pageOrigin) => createRelay({
    upstream: { baseUrl: 'http://local-platform', apiKey, fetch: (r) => platform.fetch(r) },
    basePath: '/api',
    allowedOrigins: [pageOrigin],
    policy: { scopes: [...ALL_SCOPES], agents: ['*'], models: ['*'] },
  }));
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run', '--disable-quic',
      '--autoplay-policy=no-user-gesture-required'],
  });
  const figures = {};
  try {
    // pcm (float32, base64 in SSE) needs ~1.05 Mbps, so 1 Mbps is below its bit rate; 16-bit wav needs half.
    for (const network of [{ kbps: 2000, latencyMs: 100, format: 'pcm' }, { kbps: 1000, latencyMs: 100, format: 'pcm' }, { kbps: 1000, latencyMs: 100, format: 'wav' }]) {
      const r = await run(browser, `${origin}/`, network);
      const label = `${network.format}, ${network.kbps / 1000} Mbps, ${network.latencyMs} ms`;
      if (r.error) {
        figures[`${label}: error`] = `${r.error.status} ${r.error.message}`;
        continue;
      }
      const perMinute = r.underruns / (r.received / 60);
      figures[`${label}: underruns per minute of audio (target 0)`] = perMinute.toFixed(2);
      figures[`${label}: underruns / seconds of audio / wall seconds`] = `${r.underruns} / ${r.received.toFixed(1)} / ${r.wallSeconds.toFixed(1)}`;
      figures[`${label}: request → first scheduled sample (ms)`] = r.firstAudioMs?.toFixed(0) ?? 'n/a';
      figures[`${label}: jitter-buffer lead at the end (ms)`] = (r.lead * 1000).toFixed(0);
    }
  } finally {
    await browser.close();
    await server.close();
    await platform.close();
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [k, v] of Object.entries(await benchAudio())) process.stdout.write(`${k.padEnd(64)} ${v}\n`);
}
