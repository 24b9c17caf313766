// client.transcription in Chromium against the REAL relay (mounted at /api by the dev server, its
// realtime WebSocket included) in front of the real local platform (pocketsphinx).
import { expect } from '@open-wc/testing';
import { PlatformError, getClient } from '../../src/client/index.js';
import type { RealtimeServerEvent, TranscriptionStreamEvent } from '../../src/client/types.js';
import { wavS16 } from './helpers/wav.js';

const RELAY = '/api';
const FOX = '/test/fixtures/transcription/fox.wav';
const REALTIME = 'voxtral-mini-transcribe-realtime-2602';

async function fixture(): Promise<Blob> {
  const res = await fetch(FOX);
  expect(res.ok).to.equal(true);
  return res.blob();
}

function expectFox(text: string): void {
  const lower = text.toLowerCase();
  for (const word of ['fox', 'lazy', 'dog']) expect(lower, text).to.contain(word);
}

/** A relay session token and a realtime ticket, fetched as a page would without the client. */
async function ticket(): Promise<string> {
  const session = await (await fetch(`${RELAY}/session`, { method: 'POST' })).json() as { token: string };
  const res = await fetch(`${RELAY}/v1/client/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ purpose: 'realtime', model: REALTIME }),
  });
  expect(res.status).to.equal(201);
  return ((await res.json()) as { client_secret: { value: string } }).client_secret.value;
}

/** Opens a socket on the relay's realtime path: the first message, or the close when it was refused. */
function firstMessage(protocols: string[]): Promise<{ opened: boolean; message?: RealtimeServerEvent; code?: number; socket: WebSocket }> {
  const socket = new WebSocket(new URL(`${RELAY}/v1/audio/transcriptions/realtime?model=${REALTIME}`, location.href).href.replace(/^http/, 'ws'), protocols);
  let opened = false;
  return new Promise((resolve) => {
    socket.onopen = () => { opened = true; };
    socket.onmessage = (event) => resolve({ opened, message: JSON.parse(event.data as string), socket });
    socket.onclose = (event) => resolve({ opened, code: event.code, socket });
  });
}

describe('client.transcription in the browser, through the relay', () => {
  it('transcribe: a fetched WAV gives the fox sentence', async () => {
    const result = await getClient(RELAY).transcription.transcribe(await fixture());
    expectFox(result.text);
    expect(result.model).to.be.a('string');
  });

  it('transcribeStream: deltas as they come, then done; result is the same text', async () => {
    const stream = getClient(RELAY).transcription.transcribeStream(await fixture());
    const events: TranscriptionStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events[0]!.type).to.equal('transcription.language');
    expect(events.some((e) => e.type === 'transcription.text.delta')).to.equal(true);
    expect(events.at(-1)!.type).to.equal('transcription.done');
    expectFox((await stream.result).text);
  });

  it('a bad model is a PlatformError with the status', async () => {
    const error = await getClient(RELAY).transcription.transcribe(await fixture(), { model: 'no-such-model' }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(PlatformError);
    expect((error as PlatformError).status).to.equal(400);
  });

  it('realtime: streams the PCM of fox.wav over the relay WebSocket and gets the words back', async () => {
    const { sampleRate, samples } = wavS16(new Uint8Array(await (await fixture()).arrayBuffer()));
    const session = await getClient(RELAY).transcription.realtime({ sampleRate });
    expect(session.info.audio_format.sample_rate).to.equal(sampleRate);
    const events: RealtimeServerEvent[] = [];
    const reading = (async () => { for await (const e of session) events.push(e); })();
    const chunk = sampleRate / 10;
    for (let i = 0; i < samples.length; i += chunk) session.append(samples.subarray(i, i + chunk));
    session.append(new Int16Array(sampleRate / 2)); // half a second of silence ends the utterance
    const done = await session.end();
    await reading;
    expectFox(done.text);
    expect(events.map((e) => e.type)).to.include('transcription.text.delta');
    expect(events.at(-1)!.type).to.equal('transcription.done');
    expect(session.closed).to.equal(true);
  });

  it('a realtime ticket opens one socket: a second try with it, or a forged one, never opens', async () => {
    const value = await ticket();
    const first = await firstMessage(['realtime', value]);
    expect(first.opened).to.equal(true);
    expect(first.message?.type).to.equal('session.created');
    first.socket.close();
    const again = await firstMessage(['realtime', value]);
    expect(again.opened).to.equal(false);
    expect(again.code).to.equal(1006);
    const forged = await firstMessage(['realtime', `${value.slice(0, -4)}AAAA`]);
    expect(forged.opened).to.equal(false);
  });
});
