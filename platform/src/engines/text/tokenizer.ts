/**
 * The platform's tokenizer: `parley-local` streams one of these tokens per text event, and the usage the platform
 * counts itself (chat, completions, embeddings, classifiers, libraries, fine-tuning) is in these tokens.
 */
import type { ConversationEntry } from 'parley-kit/types';
import { contentText } from 'parley-kit/wire';

// A token is a run of letters/digits/underscore or one other non-space character, with the whitespace
// before it attached; trailing whitespace at the end of the text is a token of its own. Tokens
// concatenate back to the exact input.
const TOKEN_RE = /\s*[\p{L}\p{N}\p{M}_]+|\s*[^\s\p{L}\p{N}\p{M}_]|\s+/gu;

/** Split text into `parley-local` tokens (words and single punctuation marks, leading whitespace attached). `tokenize(t).join('') === t`. */
export function tokenize(text: string): string[] {
  return text.match(TOKEN_RE) ?? [];
}

/** Number of `parley-local` tokens in `text` (see {@link tokenize}). */
export function countTokens(text: string): number {
  if (!text) return 0;
  TOKEN_RE.lastIndex = 0;
  let n = 0;
  while (TOKEN_RE.exec(text) !== null) n++;
  TOKEN_RE.lastIndex = 0;
  return n;
}

/** The text of a history entry that counts as prompt: message text, a call's name and arguments, a result. */
function entryText(entry: ConversationEntry): string {
  switch (entry.type) {
    case 'message.input':
    case 'message.output':
      return contentText(entry.content, true);
    case 'function.call':
    case 'tool.execution':
      return `${entry.name} ${typeof entry.arguments === 'string' ? entry.arguments : JSON.stringify(entry.arguments)}`;
    case 'function.result':
      return entry.result;
    default:
      return '';
  }
}

/** Prompt tokens of a turn: tokens of the instructions plus the tokens of every history entry's text. */
export function countPromptTokens(instructions: string | null | undefined, history: readonly ConversationEntry[]): number {
  let n = countTokens(instructions ?? '');
  for (const entry of history) n += countTokens(entryText(entry));
  return n;
}
