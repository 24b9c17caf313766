// Local speech-to-text (Debian pocketsphinx) through the local platform on loopback, in-process from dist/ with the
// realtime WebSocket wired the way the CLI does (`serveFetch(platform.fetch, { upgrade: [platform.handleUpgrade] })`):
// (a) real-time factor of `POST /v1/audio/transcriptions` (request wall time / audio duration, median of 3) on a
//     3 s fixture and on the three fixtures joined with 1 s gaps; each request starts its own pocketsphinx (≈0.7 s);
// (b) realtime WebSocket: time from sending the last audio chunk of an utterance (fox.wav sent in 100 ms chunks at
//     real-time pace, then silence at real-time pace, as a microphone would) to its `transcription.text.delta`,
//     p50 of 5 sessions; and the same with an `input_audio.flush` right after the speech (interleaved runs).
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { KEY, headers, percentile } from './platform.mjs';

const FIXTURES = new URL('../test/fixtures/transcription/', import.meta.url);
const RATE = 16000;
const CHUNK = RATE / 10; // 100 ms
const MODEL = 'voxtral-mini-transcribe-realtime-2602';

const median = (xs) => percentile([...xs].sort((a, b) => a - b), 50);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The 16 kHz s16 samples of a fixture (Flite writes a plain 44-byte header). */
const samplesOf = (name) => {
  const b = readFileSync(new URL(`${name}.wav`, FIXTURES));
  return new Int16Array(b.buffer.slice(b.byteOffset + 44, b.byteOffset + b.byteLength));
};

function wav(samples) {
  const out = Buffer.alloc(44 + samples.length * 2);
  out.write('RIFF', 0); out.writeUInt32LE(36 + samples.length * 2, 4); out.write('WAVEfmt ', 8);
  out.writeUInt32LE(16, 16); out.writeUInt16LE(1, 20); out.writeUInt16LE(1, 22); out.writeUInt32LE(RATE, 24);
  out.writeUInt32LE(RATE * 2, 28); out.writeUInt16LE(2, 32); out.writeUInt16LE(16, 34); out.write('data', 36);
  out.writeUInt32LE(samples.length * 2, 40);
  Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).copy(out, 44);
  return out;
}

const join = (...parts) => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
};

async function realTimeFactor(url, samples) {
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const form = new FormData();
    form.append('model', 'voxtral-mini-latest');
    form.append('file', new Blob([wav(samples)], { type: 'audio/wav' }), 'a.wav');
    const t0 = performance.now();
    const r = await fetch(`${url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: headers.authorization }, body: form });
    const body = await r.json();
    if (!r.ok || !body.text) throw new Error(`transcription ${r.status} ${JSON.stringify(body)}`);
    runs.push((performance.now() - t0) / 1000 / (samples.length / RATE));
  }
  return median(runs);
}

/** One realtime session: ms from the last speech chunk to the utterance's text delta. */
async function speechEndToText(wsUrl, speech, flush) {
  const ws = new WebSocket(`${wsUrl}?model=${MODEL}`, { headers: { authorization: `Bearer ${KEY}` } });
  let created;
  const createdP = new Promise((r) => { created = r; });
  let gotText;
  const textP = new Promise((r) => { gotText = r; });
  ws.on('message', (data) => {
    const e = JSON.parse(String(data));
    if (e.type === 'session.created') created();
    else if (e.type === 'transcription.text.delta') gotText(performance.now());
    else if (e.type === 'error') throw new Error(`realtime error ${JSON.stringify(e.error)}`);
  });
  await createdP;
  const send = (pcm) => ws.send(JSON.stringify({ type: 'input_audio.append', audio: Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64') }));
  const start = performance.now();
  let sent = 0;
  const paced = async (pcm) => {
    send(pcm);
    sent += pcm.length;
    await sleep(Math.max(0, start + (sent / RATE) * 1000 - performance.now()));
  };
  for (let i = 0; i < speech.length; i += CHUNK) await paced(speech.subarray(i, i + CHUNK));
  const speechEnd = performance.now();
  if (flush) ws.send(JSON.stringify({ type: 'input_audio.flush' }));
  let text;
  textP.then((t) => { text = t; });
  for (let i = 0; i < 30 && text === undefined; i++) await paced(new Int16Array(CHUNK)); // up to 3 s of silence
  await textP;
  ws.close();
  return text - speechEnd;
}

export async function benchTranscription() {
  const { createPlatform, servePlatform } = await import('@parley-kit/platform');
  const platform = createPlatform({ apiKey: KEY, onError: (e) => console.error(e) });
  await platform.ready();
  const server = await servePlatform(platform.fetch, { upgrade: [platform.handleUpgrade] });
  try {
    const fox = samplesOf('fox');
    const gap = new Int16Array(RATE);
    const long = join(fox, gap, samplesOf('call'), gap, samplesOf('weather'));
    await realTimeFactor(server.url, fox); // warm the page cache with the model files
    const rtfShort = await realTimeFactor(server.url, fox);
    const rtfLong = await realTimeFactor(server.url, long);

    // fox.wav ends with ≈0.16 s of Flite silence: the utterance ends at its last sample above 1 % of full scale.
    let last = fox.length - 1;
    while (last > 0 && Math.abs(fox[last]) < 328) last--;
    const speech = fox.subarray(0, Math.ceil((last + 1) / CHUNK) * CHUNK);
    const wsUrl = `${server.url.replace(/^http/, 'ws')}/v1/audio/transcriptions/realtime`;
    await speechEndToText(wsUrl, speech, true); // warm-up
    const paced = [];
    const flushed = [];
    for (let i = 0; i < 5; i++) {
      paced.push(await speechEndToText(wsUrl, speech, false));
      flushed.push(await speechEndToText(wsUrl, speech, true));
    }
    return {
      [`pocketsphinx real-time factor, HTTP route, ${(fox.length / RATE).toFixed(1)} s clip (incl. process start)`]: rtfShort.toFixed(3),
      [`pocketsphinx real-time factor, HTTP route, ${(long.length / RATE).toFixed(1)} s of audio (incl. process start)`]: rtfLong.toFixed(3),
      'realtime: end of speech → text delta, silence at real-time pace, p50 (ms)': median(paced).toFixed(0),
      'realtime: end of speech → text delta, input_audio.flush at once, p50 (ms)': median(flushed).toFixed(0),
      'realtime: flush / no-flush latency ratio (p50)': (median(flushed) / median(paced)).toFixed(2),
    };
  } finally {
    await platform.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [k, v] of Object.entries(await benchTranscription())) process.stdout.write(`${k.padEnd(84)} ${v}\n`);
}
