// The 16-bit samples of a PCM WAV file (the transcription fixtures), for tests that stream them as
// realtime audio. Pure code: used by the Chromium tests and the Node client tests alike.

/** Sample rate, channel count and the interleaved s16 samples of a 16-bit PCM WAV. */
export function wavS16(bytes: Uint8Array): { sampleRate: number; channels: number; samples: Int16Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a WAV file');
  let sampleRate = 0;
  let channels = 0;
  for (let at = 12; at + 8 <= bytes.length;) {
    const size = view.getUint32(at + 4, true);
    if (tag(at) === 'fmt ') {
      if (view.getUint16(at + 8, true) !== 1 || view.getUint16(at + 22, true) !== 16) throw new Error('not 16-bit PCM');
      channels = view.getUint16(at + 10, true);
      sampleRate = view.getUint32(at + 12, true);
    } else if (tag(at) === 'data') {
      const length = Math.min(size, bytes.length - at - 8) >> 1;
      const samples = new Int16Array(length);
      for (let i = 0; i < length; i++) samples[i] = view.getInt16(at + 8 + i * 2, true);
      return { sampleRate, channels, samples };
    }
    at += 8 + size + (size & 1);
  }
  throw new Error('WAV without data');
}
