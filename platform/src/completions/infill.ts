/**
 * `parley-infill`: the local fill-in-the-middle model. The chat engines are chat models (their cards do not
 * claim `completion_fim`), so FIM gets its own small, deterministic and honest engine instead of a chat
 * reply dressed up as code. It is **not** a language model; it fills the gap only from what is on the page:
 *
 * 1. **Copy from context**: the longest tail of `prompt` (4–64 characters) that also occurs earlier in the
 *    prompt or in the suffix is continued with what followed that earlier occurrence, to the end of its line
 *    (`return a + b` … `return a` → ` + b`). This is how repetitive code is usually completed.
 * 2. **Close brackets**: brackets and quotes left open by prompt + copy and not closed at the start of the
 *    suffix are closed when the suffix is empty (nothing after the gap will close them).
 * 3. Text the suffix already starts with is not repeated; `stop` cuts the infill; `max_tokens` caps it
 *    (finish reason `length`). `min_tokens` cannot make it invent text: the infill may be shorter.
 *
 * An empty infill is a valid answer (the gap needs nothing that the context shows).
 */
import { modelCard } from '../engines/model-card.js';
import { ModelRegistry, type ModelEngine } from '../engines/model-registry.js';
import { countTokens, tokenize } from '../engines/text/tokenizer.js';
import type { ModelCard } from 'parley-kit/types';
import type { ChoiceEvent } from './choice.js';

/** The FIM model's card: the only local model that claims `completion_fim`. */
export const INFILL_MODEL_CARD: ModelCard = modelCard({
  id: 'parley-infill',
  created: 1735689600,
  ownedBy: 'mistralai',
  capabilities: { completion_fim: true },
  name: 'Parley local infill',
  description:
    'A deterministic local fill-in-the-middle stand-in, not a language model: it continues the code before the gap by ' +
    'copying what followed the same text elsewhere in the prompt or suffix, and closes brackets left open at the end ' +
    'of a file. It also answers to codestral-latest so FIM code written for the hosted platform runs offline.',
  aliases: ['codestral-latest', 'codestral-2508'],
});

/** The fill-in-the-middle models, found by id or alias (never resolvable as chat models). */
export class FimCatalog extends ModelRegistry<ModelEngine> {}

/** The FIM models of a platform: `parley-infill`. */
export const createFimCatalog = (): FimCatalog => new FimCatalog([{ models: () => [structuredClone(INFILL_MODEL_CARD)] }]);

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const CLOSERS = new Set(Object.values(OPENERS));
const QUOTES = new Set(['"', "'", '`']);

/** The text between `prompt` and `suffix` as the rules above find it (before `stop` and `max_tokens`). */
export function infillText(prompt: string, suffix: string): string {
  let middle = copyFromContext(prompt, suffix);
  // Drop the part of the copy the suffix already begins with.
  for (let j = middle.length; j > 0; j--) {
    if (suffix.startsWith(middle.slice(middle.length - j))) {
      middle = middle.slice(0, middle.length - j);
      break;
    }
  }
  if (suffix.trim() === '') middle += closers(prompt + middle);
  return middle;
}

function copyFromContext(prompt: string, suffix: string): string {
  const longest = Math.min(64, prompt.length);
  for (let k = longest; k >= 4; k--) {
    const tail = prompt.slice(prompt.length - k);
    if (!tail.trim()) continue;
    const inPrompt = prompt.lastIndexOf(tail, prompt.length - k - 1);
    const [source, at] = inPrompt >= 0 ? [prompt, inPrompt] : [suffix, suffix.indexOf(tail)];
    if (at < 0) continue;
    const rest = source.slice(at + k);
    const line = rest.slice(0, rest.includes('\n') ? rest.indexOf('\n') : rest.length);
    if (line.trim()) return line;
  }
  return '';
}

/** Closers for the brackets and quotes `text` leaves open, innermost first (quotes inside strings are skipped). */
function closers(text: string): string {
  const stack: string[] = [];
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      else if (ch === '\n' && quote !== '`') quote = null;
    } else if (QUOTES.has(ch)) quote = ch;
    else if (ch in OPENERS) stack.push(OPENERS[ch]);
    else if (CLOSERS.has(ch) && stack[stack.length - 1] === ch) stack.pop();
  }
  return (quote ?? '') + stack.reverse().join('');
}

/** Cut `text` before the first stop sequence. */
function beforeStop(text: string, stop: string | string[] | null | undefined): string {
  const stops = (typeof stop === 'string' ? [stop] : stop ?? []).filter((s) => s.length > 0);
  const cut = Math.min(text.length, ...stops.map((s) => text.indexOf(s)).filter((i) => i >= 0));
  return text.slice(0, cut);
}

/** One FIM choice as choice events: the infill token by token, then `done`. */
export async function* runInfill(req: {
  prompt: string;
  suffix: string;
  stop?: string | string[] | null;
  maxTokens?: number | null;
  signal: AbortSignal;
}): AsyncGenerator<ChoiceEvent> {
  const tokens = tokenize(beforeStop(infillText(req.prompt, req.suffix), req.stop));
  const limit = typeof req.maxTokens === 'number' ? req.maxTokens : tokens.length;
  const kept = tokens.slice(0, limit);
  for (const delta of kept) {
    if (req.signal.aborted) throw req.signal.reason;
    yield { kind: 'text', delta };
  }
  yield {
    kind: 'done',
    finishReason: tokens.length > limit ? 'length' : 'stop',
    toolCalls: null,
    promptTokens: countTokens(req.prompt) + countTokens(req.suffix),
    completionTokens: kept.length,
  };
}
