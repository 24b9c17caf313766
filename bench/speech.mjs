// Local text-to-speech on loopback (`parley platform` in its own process, as users run it):
// time to first audio from the request for streamed `pcm` vs non-streamed JSON `mp3` (p50 over 20 runs each,
// same text, same run, after warm-up) and their ratio; and the espeak-ng engine's real-time factor
// (synthesis time / audio duration, worker + resampling to 24 kHz) on a ~10 s text, in-process from dist/.
import { headers, startPlatform } from './platform.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TEXT = 'Your order has shipped and should arrive on Thursday. Reply to this message if you need anything else.';
const TEN_SECONDS = 'The local platform speaks with eSpeak NG, a compact formant synthesiser. It runs in a worker thread, ' +
  'so the server keeps answering other requests while it talks. Audio leaves in small chunks as soon as they are made.';


const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

/** ms from sending the request to the first audio bytes the client holds. */
async function firstAudioStreamedPcm(url) {
  const t0 = performance.now();
  const r = await fetch(`${url}/v1/audio/speech`, { method: 'POST', headers, body: JSON.stringify({ input: TEXT, response_format: 'pcm', stream: true }) });
  if (!r.ok) throw new Error(`speech ${r.status}`);
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let first;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (first === undefined && /"audio_data":"[^"]+"/.test(text)) first = performance.now() - t0;
  }
  if (first === undefined) throw new Error('no audio delta');
  return first;
}

async function firstAudioJsonMp3(url) {
  const t0 = performance.now();
  const r = await fetch(`${url}/v1/audio/speech`, { method: 'POST', headers, body: JSON.stringify({ input: TEXT, response_format: 'mp3' }) });
  const body = await r.json();
  if (!r.ok || !body.audio_data) throw new Error(`speech ${r.status}`);
  return performance.now() - t0;
}

async function realTimeFactor() {
  const { createEspeakSpeechEngine } = await import('@parley-kit/platform');
  const engine = createEspeakSpeechEngine();
  const voice = engine.voices()[0];
  try {
    for await (const _ of engine.synthesize({ text: 'Warm up.', voice })) { /* warm */ }
    const runs = [];
    let seconds = 0;
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      let samples = 0;
      for await (const chunk of engine.synthesize({ text: TEN_SECONDS, voice })) samples += chunk.length;
      runs.push((performance.now() - t0) / 1000 / (samples / 24000));
      seconds = samples / 24000;
    }
    return { rtf: median(runs), seconds };
  } finally {
    await engine.close();
  }
}

export async function benchSpeech() {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-speech-'));
  const { child, url } = await startPlatform(dataDir);
  try {
    for (let i = 0; i < 3; i++) { await firstAudioStreamedPcm(url); await firstAudioJsonMp3(url); } // engine start, JIT
    const pcm = [];
    const mp3 = [];
    for (let i = 0; i < 20; i++) { // interleaved so both see the same machine state
      pcm.push(await firstAudioStreamedPcm(url));
      mp3.push(await firstAudioJsonMp3(url));
    }
    const { rtf, seconds } = await realTimeFactor();
    return {
      'time to first audio, streamed pcm p50 (ms)': median(pcm).toFixed(2),
      'time to first audio, JSON mp3 p50 (ms)': median(mp3).toFixed(2),
      'JSON mp3 / streamed pcm first-audio ratio (p50)': (median(mp3) / median(pcm)).toFixed(1),
      [`espeak-ng real-time factor on ${seconds.toFixed(1)} s of speech (synthesis / audio)`]: rtf.toFixed(4),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [k, v] of Object.entries(await benchSpeech())) process.stdout.write(`${k.padEnd(72)} ${v}\n`);
}
