// The fake microphone of the browser tests: Chromium plays a WAV file as the microphone
// (`--use-file-for-fake-audio-capture`), looping it. We give it a Flite sentence followed by silence,
// so voice activity detection sees the utterance end before the loop says it again.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Words the fake microphone says (test/fixtures/transcription/fox.wav). */
export const FAKE_MIC_SENTENCE = 'The quick brown fox jumps over the lazy dog.';

/** Writes `<rootDir>/.test-results/fake-mic.wav` (fox.wav + `silenceSeconds` of silence) and returns its path. */
export function writeFakeMicWav(rootDir, silenceSeconds = 2.5) {
  const wav = readFileSync(join(rootDir, 'test/fixtures/transcription/fox.wav'));
  let offset = 12;
  let rate = 16000;
  let pcm;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === 'fmt ') rate = wav.readUInt32LE(offset + 12);
    if (id === 'data') { pcm = wav.subarray(offset + 8, offset + 8 + size); break; }
    offset += 8 + size + (size & 1);
  }
  if (!pcm) throw new Error('fox.wav has no data chunk');
  const silence = Buffer.alloc(Math.round(rate * silenceSeconds) * 2);
  const data = Buffer.concat([pcm, silence]);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0); header.writeUInt32LE(36 + data.length, 4); header.write('WAVE', 8);
  header.write('fmt ', 12); header.writeUInt32LE(16, 16); header.writeUInt16LE(1, 20); header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24); header.writeUInt32LE(rate * 2, 28); header.writeUInt16LE(2, 32); header.writeUInt16LE(16, 34);
  header.write('data', 36); header.writeUInt32LE(data.length, 40);
  const dir = join(rootDir, '.test-results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'fake-mic.wav');
  writeFileSync(file, Buffer.concat([header, data]));
  return file;
}
