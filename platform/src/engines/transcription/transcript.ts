/**
 * A transcript built utterance by utterance, shared by the file route (`POST /v1/audio/transcriptions`) and the
 * realtime WebSocket so both join text, cut segments and count usage the same way.
 *
 * - Text: utterances joined with one space; each streamed `transcription.text.delta` after the first starts with it.
 * - Segments: `segment` → one per utterance (score = mean word confidence), `word` → one per word.
 * - usage: `prompt_audio_seconds` = audio length rounded up, `prompt_tokens` = 12.5 per audio second (Voxtral's
 *   80 ms audio tokens), `completion_tokens` = words of the text, `total_tokens` = sum.
 */
import type { TranscriptionResponse, TranscriptionSegment, TranscriptionUsage } from 'parley-kit/types';
import type { Utterance } from './types.js';

export type Granularity = 'segment' | 'word';

/** Which segments a transcript keeps: none unless a granularity is asked; `diarize` labels them `speaker_1`. */
export interface SegmentOptions { granularities: readonly Granularity[]; diarize: boolean }

const r3 = (n: number) => Math.round(n * 1000) / 1000;

/** The segments of one utterance for the granularities asked. */
export function segmentsOf(u: Utterance, options: SegmentOptions): TranscriptionSegment[] {
  if (!options.granularities.length) return [];
  const speaker_id = options.diarize ? 'speaker_1' : null;
  if (options.granularities.includes('word')) {
    return u.words.map((w) => ({ type: 'transcription_segment', text: w.word, start: r3(w.start), end: r3(w.end), score: w.confidence === null ? null : r3(w.confidence), speaker_id }));
  }
  const conf = u.words.map((w) => w.confidence).filter((c): c is number => c !== null);
  const score = conf.length ? r3(conf.reduce((a, b) => a + b, 0) / conf.length) : null;
  return [{ type: 'transcription_segment', text: u.text, start: r3(u.start), end: r3(u.end), score, speaker_id }];
}

/** usage of a transcription of `seconds` of audio that produced `text`. */
export function transcriptionUsage(seconds: number, text: string): TranscriptionUsage {
  const prompt = Math.ceil(seconds * 12.5);
  const completion = (text.match(/\S+/g) ?? []).length;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_audio_seconds: Math.ceil(seconds) };
}

/** The text and segments so far; `add` gives what to stream for the next utterance. */
export class Transcript {
  private readonly texts: string[] = [];
  private readonly segments: TranscriptionSegment[] = [];

  constructor(private readonly options: SegmentOptions) {}

  /** Adds an utterance; returns its text delta (with the joining space) and its new segments. */
  add(u: Utterance): { delta: string; segments: TranscriptionSegment[] } {
    const delta = this.texts.length ? ` ${u.text}` : u.text;
    const segments = segmentsOf(u, this.options);
    this.texts.push(u.text);
    this.segments.push(...segments);
    return { delta, segments };
  }

  /** The whole answer for `audioSeconds` of audio. */
  result(model: string, language: string | null, audioSeconds: number): TranscriptionResponse {
    const text = this.texts.join(' ');
    return { model, text, language, segments: [...this.segments], usage: transcriptionUsage(audioSeconds, text) };
  }
}
