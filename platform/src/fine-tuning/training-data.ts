/**
 * Training files of completion fine-tuning jobs: JSONL, one chat sample `{"messages": [...]}` per line, as the
 * platform's fine-tuning format. Every line is checked and the first bad one is named in the error, so a job
 * fails with a message a user can act on. Each assistant reply (text, `weight` not 0) that follows a user
 * message becomes one (prompt → reply) example of the adapter.
 */
import { contentText } from 'parley-kit/wire';
import { countTokens } from '../engines/text/tokenizer.js';
import { parseJsonDocument } from '../http/input-guard.js';

/** One thing the adapter learns: the user message and the assistant reply that answered it. */
export interface TrainingExample { prompt: string; reply: string }

/** What a training file holds. */
export interface TrainingSet {
  examples: TrainingExample[];
  /** Lines with a sample. */
  samples: number;
  /** Tokens of every message of every sample (the job's data tokens). */
  tokens: number;
}

/** A training file that cannot be used; the message names the file and the line. */
export class TrainingDataError extends Error {}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

type Message = Record<string, unknown>;

/** The text of a message's `content` (a string or text chunks), or an error. */
function messageText(content: unknown): string | { error: string } {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) return { error: 'content must be a string or a list of chunks' };
  for (const [i, chunk] of content.entries()) {
    if (typeof chunk !== 'object' || chunk === null || typeof (chunk as Message).type !== 'string') {
      return { error: `content[${i}] must be a chunk object with a "type"` };
    }
    if ((chunk as Message).type === 'text' && typeof (chunk as Message).text !== 'string') return { error: `content[${i}].text must be a string` };
  }
  return contentText(content as Parameters<typeof contentText>[0]);
}

/** The examples of one sample line, or why the line is not a usable chat sample. */
function sampleExamples(record: unknown): { examples: TrainingExample[]; tokens: number } | { error: string } {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return { error: 'it is not a JSON object' };
  const messages = (record as Message).messages;
  if (!Array.isArray(messages)) {
    return { error: 'it has no "messages" list (completion fine-tuning takes chat samples {"messages": [...]}, not pretraining text)' };
  }
  if (messages.length === 0) return { error: '"messages" is empty' };
  const examples: TrainingExample[] = [];
  let tokens = 0;
  let prompt: string | null = null;
  for (const [i, message] of messages.entries()) {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return { error: `messages[${i}] is not an object` };
    const role = (message as Message).role;
    if (typeof role !== 'string' || !ROLES.has(role)) return { error: `messages[${i}].role must be one of system, user, assistant, tool` };
    const text = messageText((message as Message).content);
    if (typeof text !== 'string') return { error: `messages[${i}]: ${text.error}` };
    const weight = (message as Message).weight;
    if (weight !== undefined && weight !== 0 && weight !== 1) return { error: `messages[${i}].weight must be 0 or 1` };
    tokens += countTokens(text);
    if (role === 'user') {
      if (!text.trim()) return { error: `messages[${i}] is a user message without text` };
      prompt = text;
    } else if (role === 'assistant' && text.trim() && prompt !== null) {
      if (weight !== 0) examples.push({ prompt, reply: text });
      prompt = null;
    }
  }
  if (!messages.some((m) => (m as Message).role === 'assistant')) return { error: 'it has no assistant message to learn from' };
  return { examples, tokens };
}

/** Reads a training file; throws {@link TrainingDataError} naming the first bad line. */
export function parseTrainingFile(bytes: Uint8Array, fileId: string): TrainingSet {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new TrainingDataError(`Training file ${fileId} is not UTF-8 text`);
  }
  const set: TrainingSet = { examples: [], samples: 0, tokens: 0 };
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    let record: unknown;
    try {
      record = parseJsonDocument(line);
    } catch {
      throw new TrainingDataError(`Training file ${fileId}, line ${i + 1}: not valid JSON`);
    }
    const sample = sampleExamples(record);
    if ('error' in sample) throw new TrainingDataError(`Training file ${fileId}, line ${i + 1}: ${sample.error}`);
    set.examples.push(...sample.examples);
    set.samples++;
    set.tokens += sample.tokens;
  }
  if (set.samples === 0) throw new TrainingDataError(`Training file ${fileId} has no samples`);
  return set;
}
