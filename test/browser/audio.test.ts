// The audio layer (the browser's own Web Audio) in Chromium: gapless joins rendered offline, first-sample latency, underruns, stop.
import { expect } from '@open-wc/testing';
import { AudioDeltaScheduler } from '../../src/audio/audio-delta-scheduler.js';
import { SpeechPlayback, type FirstAudioDetail } from '../../src/audio/speech-playback.js';

const RATE = 24000;

function sine(n: number, freq = 440, rate = RATE, amp = 0.5): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = amp * Math.sin((2 * Math.PI * freq * i) / rate);
  return out;
}

function f32bytes(samples: Float32Array): Uint8Array {
  return new Uint8Array(samples.buffer.slice(samples.byteOffset, samples.byteOffset + samples.byteLength));
}

/** Largest step between neighbouring samples over [from, to), and the longest run of exact zeros. */
function continuity(data: Float32Array, from: number, to: number) {
  let maxStep = 0;
  let zeroRun = 0;
  let longestZeros = 0;
  for (let i = from; i < to; i++) {
    if (i > from) maxStep = Math.max(maxStep, Math.abs(data[i] - data[i - 1]));
    zeroRun = data[i] === 0 ? zeroRun + 1 : 0;
    longestZeros = Math.max(longestZeros, zeroRun);
  }
  return { maxStep, longestZeros };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('AudioDeltaScheduler', () => {
  it('joins uneven chunks of a sine without gaps or clicks (rendered offline)', async () => {
    for (const contextRate of [RATE, 48000]) {
      const total = RATE; // one second at 24 kHz
      const signal = sine(total);
      const context = new OfflineAudioContext({ numberOfChannels: 1, length: Math.ceil(contextRate * 1.2), sampleRate: contextRate });
      const scheduler = new AudioDeltaScheduler(context, context.destination);
      const sizes = [480, 1201, 77, 2400, 3, 960, 5000, 333, 7];
      let offset = 0;
      let first = null as null | { start: number };
      for (let i = 0; offset < total; i++) {
        const n = Math.min(sizes[i % sizes.length], total - offset);
        const chunk = scheduler.enqueue(signal.slice(offset, offset + n), RATE);
        first ??= chunk;
        offset += n;
      }
      expect(scheduler.underruns).to.equal(0);
      const rendered = (await context.startRendering()).getChannelData(0);
      const startFrame = Math.round(first!.start * contextRate);
      const endFrame = startFrame + contextRate - 2;
      const { maxStep, longestZeros } = continuity(rendered, startFrame + 2, endFrame);
      // A 440 Hz sine of amplitude 0.5 moves at most 2π·440·0.5/rate per sample; a gap or an overlap would jump far more.
      const smooth = (2 * Math.PI * 440 * 0.5) / contextRate;
      expect(maxStep, `largest step at ${contextRate} Hz`).to.be.below(smooth * 1.2);
      expect(longestZeros, `silence inside the sine at ${contextRate} Hz`).to.be.below(2);
      // Before the first chunk: silence (the lead); and the sine's energy is all there.
      expect(rendered[Math.max(0, startFrame - 10)]).to.equal(0);
      let sum = 0;
      for (let i = startFrame; i < endFrame; i++) sum += rendered[i] * rendered[i];
      expect(Math.sqrt(sum / (endFrame - startFrame))).to.be.closeTo(0.5 / Math.SQRT2, 0.01);
    }
  });

  it('counts a chunk that arrives after its slot as an underrun and restarts with a longer lead', async () => {
    const context = new AudioContext({ sampleRate: RATE });
    try {
      await context.resume();
      const scheduler = new AudioDeltaScheduler(context, context.destination);
      const a = scheduler.enqueue(sine(480), RATE)!; // 20 ms
      expect(a.first).to.equal(true);
      const b = scheduler.enqueue(sine(480), RATE)!;
      expect(b.start).to.equal(a.end);
      // Wait on the audio clock itself (a busy machine may run it behind the wall clock): past the end of b, the next chunk is late.
      for (let waited = 0; context.currentTime <= b.end && waited < 10_000; waited += 20) await sleep(20);
      const late = scheduler.enqueue(sine(480), RATE)!;
      expect(late.underrun).to.equal(true);
      expect(scheduler.underruns).to.equal(1);
      expect(late.lead).to.be.greaterThan(a.lead);
      // After the run is marked ended, a new chunk after silence is a fresh start, not an underrun.
      scheduler.endRun();
      await scheduler.whenDrained();
      const next = scheduler.enqueue(sine(480), RATE)!;
      expect(next.first).to.equal(true);
      expect(scheduler.underruns).to.equal(1);
      scheduler.stop();
    } finally {
      await context.close();
    }
  });
});

describe('SpeechPlayback', () => {
  it('schedules the first delta as it arrives, before reading the next, with the 50 ms jitter-buffer lead', async () => {
    let first: FirstAudioDetail | null = null;
    const playback = new SpeechPlayback({ onFirstAudio: (d) => { first = d; } });
    playback.unlock();
    const arrived: number[] = [];
    async function* deltas() {
      const audio = f32bytes(sine(RATE / 2));
      for (let i = 0; i < audio.length; i += 4801) { // cuts through samples
        await sleep(5);
        arrived.push(performance.now());
        yield audio.slice(i, i + 4801);
      }
    }
    const fed = await playback.feed(deltas(), 'pcm');
    expect(fed.seconds).to.be.closeTo(0.5, 0.001);
    const f = first as FirstAudioDetail | null;
    expect(f).to.not.equal(null);
    // By order, not by clock (how soon: `npm run bench`): the first chunk scheduled is the first delta (the
    // playback stamps its arrival a tick after the generator yields it), scheduled before the next delta was read.
    expect(f!.chunk.arrivedAt).to.be.at.least(arrived[0]!);
    expect(f!.chunk.scheduledAt).to.be.at.least(f!.chunk.arrivedAt);
    expect(f!.chunk.scheduledAt, 'scheduled before the second delta arrived').to.be.below(arrived[1]!);
    // From scheduling to the first sample sounding, on the audio clock: the jitter-buffer lead.
    expect(f!.leadMs).to.be.at.most(50.5);
    await playback.finish();
    expect(playback.played).to.be.closeTo(0.5, 0.01);
    expect(playback.underruns).to.equal(0);
    await playback.dispose();
  });

  it('stop() silences at once and cancels the stream being read; pause suspends the context', async () => {
    const playback = new SpeechPlayback();
    let returned = false;
    let yielded = 0;
    const source: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]() {
        return {
          next: async () => {
            await sleep(10);
            yielded++;
            return { value: f32bytes(sine(2400)), done: false };
          },
          return: async () => {
            returned = true;
            return { value: undefined, done: true };
          },
        };
      },
    };
    const feeding = playback.feed(source, 'pcm');
    await sleep(100);
    await playback.pause();
    expect(playback.context.state).to.equal('suspended');
    expect(playback.state).to.equal('paused');
    await playback.resume();
    expect(playback.context.state).to.equal('running');
    expect(playback.scheduler.active).to.equal(true);
    playback.stop();
    expect(playback.scheduler.active).to.equal(false);
    expect(returned).to.equal(true);
    const result = await feeding;
    expect(result.stopped).to.equal(true);
    const count = yielded;
    await sleep(50);
    expect(yielded).to.equal(count); // nothing read after stop
    await playback.dispose();
  });
});
