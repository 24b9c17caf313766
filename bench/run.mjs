#!/usr/bin/env node
// `npm run bench`: every benchmark, each printing its figures and ratios measured in this one run.
// Run after `npm run build` (the npm script does).
import { benchPlatform } from './platform.mjs';
import { benchPlatformDb } from './platform-db.mjs';
import { benchRelay } from './relay.mjs';
import { benchRelayOverhead } from './relay-overhead.mjs';
import { benchRealtimeFlood } from './realtime-flood.mjs';
import { benchElement } from './element.mjs';
import { benchSpeech } from './speech.mjs';
import { benchAudio } from './audio.mjs';
import { benchTranscription } from './transcription.mjs';
import { benchVoice } from './voice.mjs';
import { benchOcr } from './ocr.mjs';
import { benchApi } from './api.mjs';
import { benchInstall } from './install.mjs';

const only = process.argv[2];
const benches = [
  ['install', 'what npm install parley-kit adds to an empty project', benchInstall],
  ['platform', 'local platform on loopback', benchPlatform],
  ['platform-db', 'conversation starts on PGlite, on PostgreSQL, and with two processes on one PostgreSQL', benchPlatformDb],
  ['relay', 'relay overhead against the platform directly', benchRelay],
  ['relay-overhead', 'relay overhead against a mock upstream, as ratios to a bare Node proxy (issue 26 targets), in memory and on Redis', benchRelayOverhead],
  ['realtime-flood', "a million one-byte frames on the relay's realtime socket (parley-relay as a child process)", benchRealtimeFlood],
  ['element', '<agent-chat> rendering and size (Chromium)', benchElement],
  ['speech', 'speech synthesis in the local platform', benchSpeech],
  ['audio', 'streamed speech played in Chromium over a throttled connection', benchAudio],
  ['transcription', 'speech-to-text in the local platform (pocketsphinx, HTTP and realtime WebSocket)', benchTranscription],
  ['voice', 'voice input in Chromium: end of speech to final text in <agent-chat>', benchVoice],
  ['ocr', 'OCR in the local platform (pdfjs text layers, tesseract.js pool)', benchOcr],
  ['api', 'the rest of the local API: an MCP tool turn, moderation and embedding throughput', benchApi],
];
for (const [key, name, run] of benches) {
  if (only && key !== only) continue;
  process.stdout.write(`\n## ${name}\n`);
  const figures = await run();
  for (const [k, v] of Object.entries(figures)) process.stdout.write(`${k.padEnd(64)} ${v}\n`);
}
