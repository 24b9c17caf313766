/**
 * Speech-to-text with Debian's CMU PocketSphinx (`pocketsphinx_continuous`, US English model), run as one
 * child process per request: s16le 16 kHz mono PCM is written to its stdin while it listens, and it prints
 * one line per utterance as its voice activity detection cuts them, followed (`-time yes`) by one
 * `word start end confidence` line per word, times in seconds from the start of the input.
 *
 * Install: `apt-get install -y --no-install-recommends pocketsphinx pocketsphinx-en-us`.
 * Cost: ≈0.7 s model load and ≈100 MB per process, real-time factor ≈0.4 on one core; at most
 * `maxConcurrent` processes run, `maxQueued` requests wait, more → busy (503 with Retry-After).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { modelCard } from '../model-card.js';
import {
  TranscriptionEngineBusyError,
  TranscriptionEngineUnavailableError,
  type RecognizedWord,
  type TranscriptionEngine,
  type TranscriptionJob,
  type Utterance,
} from './types.js';

export const POCKETSPHINX_INSTALL = 'apt-get install -y --no-install-recommends pocketsphinx pocketsphinx-en-us';

export interface PocketsphinxOptions {
  /** Executable name or path (default `pocketsphinx_continuous`, looked up on PATH). */
  binary?: string;
  /** Acoustic model directory that must exist (default Debian's `/usr/share/pocketsphinx/model/en-us/en-us`). */
  modelDir?: string;
  maxConcurrent?: number;
  maxQueued?: number;
  /** Extra command-line arguments (e.g. `['-hmm', dir, '-lm', file, '-dict', file]`). */
  args?: string[];
}

export const POCKETSPHINX_CARD = modelCard({
  id: 'parley-pocketsphinx',
  name: 'PocketSphinx (US English)',
  description: 'Local speech-to-text with CMU PocketSphinx (en-us), standing in for Voxtral Mini Transcribe. English only; word timestamps; no diarization.',
  ownedBy: 'mistralai',
  created: 1_700_000_000,
  capabilities: { audio_transcription: true },
  aliases: ['voxtral-mini-latest', 'voxtral-mini-2507'],
});

/**
 * The same engine behind the realtime WebSocket (`/v1/audio/transcriptions/realtime`), standing in for Voxtral Mini
 * Transcribe Realtime. Realtime only, like the real model: the file route refuses it.
 */
export const POCKETSPHINX_REALTIME_CARD = modelCard({
  id: 'parley-pocketsphinx-realtime',
  name: 'PocketSphinx realtime (US English)',
  description: 'Local streaming speech-to-text with CMU PocketSphinx (en-us) over the realtime WebSocket, standing in for Voxtral Mini Transcribe Realtime. English only; one segment per utterance as its voice activity detection cuts them.',
  ownedBy: 'mistralai',
  created: 1_700_000_000,
  capabilities: { audio_transcription_realtime: true },
  aliases: ['voxtral-mini-transcribe-realtime-2602', 'voxtral-mini-transcribe-realtime-latest'],
});

const FILLER = /^(<.*>|\[.*\]|\+\+.*\+\+)$/;
const WORD_LINE = /^(\S+) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)$/;

async function findExecutable(binary: string): Promise<boolean> {
  const candidates = binary.includes('/') ? [binary] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, binary));
  for (const file of candidates) {
    try { await access(file, constants.X_OK); return true; } catch { /* next */ }
  }
  return false;
}

/** Parses pocketsphinx `-time yes` output lines into utterances. */
export class PocketsphinxOutputParser {
  private current: { text: string; words: RecognizedWord[] } | null = null;

  /** Feeds one line; returns an utterance when the line completes one. */
  line(raw: string): Utterance | undefined {
    const line = raw.trim();
    const m = WORD_LINE.exec(line);
    if (m && this.current) {
      const token = m[1];
      if (token === '</s>') return this.finish();
      if (!FILLER.test(token)) {
        const conf = Number(m[4]);
        this.current.words.push({ word: token.replace(/\(\d+\)$/, ''), start: Number(m[2]), end: Number(m[3]), confidence: Number.isFinite(conf) ? conf : null });
      }
      return undefined;
    }
    const done = this.finish();
    this.current = { text: line, words: [] };
    return done;
  }

  /** Ends the input; returns the last utterance if one was open. */
  end(): Utterance | undefined {
    return this.finish();
  }

  private finish(): Utterance | undefined {
    const cur = this.current;
    this.current = null;
    if (!cur) return undefined;
    const text = cur.text.replace(/\s+/g, ' ').trim();
    if (!text) return undefined;
    const words = cur.words;
    return { text, start: words[0]?.start ?? 0, end: words[words.length - 1]?.end ?? 0, words };
  }
}

export function createPocketsphinxEngine(options: PocketsphinxOptions = {}): TranscriptionEngine {
  const binary = options.binary ?? 'pocketsphinx_continuous';
  const modelDir = options.modelDir ?? '/usr/share/pocketsphinx/model/en-us/en-us';
  const maxConcurrent = options.maxConcurrent ?? 2;
  const maxQueued = options.maxQueued ?? 8;
  let checked: Promise<void> | undefined;
  let running = 0;
  const waiting: Array<() => void> = [];

  async function check(): Promise<void> {
    if (!(await findExecutable(binary))) {
      throw new TranscriptionEngineUnavailableError(`Speech-to-text engine not installed: '${binary}' was not found. Install it with: ${POCKETSPHINX_INSTALL}`);
    }
    try {
      await access(modelDir);
    } catch {
      throw new TranscriptionEngineUnavailableError(`Speech-to-text model not installed: ${modelDir} is missing. Install it with: ${POCKETSPHINX_INSTALL}`);
    }
  }

  async function acquire(signal?: AbortSignal): Promise<void> {
    if (running < maxConcurrent) { running++; return; }
    if (waiting.length >= maxQueued) throw new TranscriptionEngineBusyError('Speech-to-text engine is busy; retry shortly');
    await new Promise<void>((resolve, reject) => {
      const go = () => { signal?.removeEventListener('abort', onAbort); resolve(); };
      const onAbort = () => { const i = waiting.indexOf(go); if (i >= 0) waiting.splice(i, 1); reject(signal?.reason ?? new Error('aborted')); };
      waiting.push(go);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    running++;
  }

  function release(): void {
    running--;
    waiting.shift()?.();
  }

  async function* transcribe(job: TranscriptionJob): AsyncGenerator<Utterance> {
    checked ??= check();
    try { await checked; } catch (err) { checked = undefined; throw err; }
    await acquire(job.signal);
    let child: ChildProcessWithoutNullStreams | undefined;
    const queue: Utterance[] = [];
    let finished = false;
    let failure: unknown;
    let wake: (() => void) | undefined;
    const notify = () => { const w = wake; wake = undefined; w?.(); };
    const kill = () => {
      const pid = child?.pid;
      if (pid === undefined) return;
      try { process.kill(-pid, 'SIGKILL'); } catch { /* already gone */ }
    };
    const onAbort = kill;
    try {
      // Node's stdio "pipes" are socket pairs, which pocketsphinx cannot open as /dev/stdin; `cat` turns the
      // socket into a real pipe. The process group (detached) is killed as a whole on abort.
      child = spawn('/bin/sh', ['-c', 'cat | "$0" "$@"', binary, '-infile', '/dev/stdin', '-logfn', '/dev/null', '-time', 'yes', ...(options.args ?? [])], {
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      const proc = child;
      job.signal?.addEventListener('abort', onAbort, { once: true });
      if (job.signal?.aborted) kill(); // aborted while it was starting
      const parser = new PocketsphinxOutputParser();
      let stderr = '';
      proc.stderr.on('data', (d: Buffer) => { if (stderr.length < 4000) stderr += d.toString(); });
      const lines = createInterface({ input: proc.stdout });
      lines.on('line', (l) => { const u = parser.line(l); if (u) { queue.push(u); notify(); } });
      const closed = new Promise<void>((resolve) => lines.once('close', resolve));
      proc.once('error', (err: NodeJS.ErrnoException) => {
        failure = err.code === 'ENOENT'
          ? new TranscriptionEngineUnavailableError(`Speech-to-text engine not installed: '${binary}' was not found. Install it with: ${POCKETSPHINX_INSTALL}`)
          : err;
        finished = true;
        notify();
      });
      proc.once('close', (code, sig) => {
        void closed.then(() => {
          const last = parser.end();
          if (last) queue.push(last);
          if (code !== 0 && !job.signal?.aborted && failure === undefined) {
            failure = new Error(`pocketsphinx exited with ${code ?? sig}${stderr ? `: ${stderr.trim().slice(0, 500)}` : ''}`);
          }
          finished = true;
          notify();
        });
      });
      proc.stdin.on('error', () => { /* the process ended early; its exit status tells why */ });
      void (async () => {
        try {
          for await (const chunk of job.audio) {
            if (job.signal?.aborted || proc.exitCode !== null) break;
            const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
            if (!proc.stdin.write(bytes)) await new Promise<void>((r) => { proc.stdin.once('drain', r); proc.once('close', r); });
          }
        } catch (err) {
          failure ??= err;
          kill();
        } finally {
          proc.stdin.end();
        }
      })();

      for (;;) {
        if (queue.length) { yield queue.shift()!; continue; }
        if (failure !== undefined) throw failure;
        if (finished) return;
        await new Promise<void>((r) => { wake = r; });
      }
    } finally {
      job.signal?.removeEventListener('abort', onAbort);
      if (child && child.exitCode === null && child.signalCode === null) kill();
      release();
    }
  }

  return {
    id: 'pocketsphinx',
    models: () => [POCKETSPHINX_CARD, POCKETSPHINX_REALTIME_CARD],
    async ready() {
      checked ??= check();
      try { await checked; } catch (err) { checked = undefined; throw err; }
    },
    transcribe,
  };
}
