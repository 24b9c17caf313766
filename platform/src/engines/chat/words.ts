/**
 * How `parley-local` reads words: identifier words (`getWeather` → get, weather), mentions of a name in a message,
 * light stems, and the stopwords and generic name words that never decide which tool or agent is meant.
 */

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Words of an identifier: `get_weather`, `getWeather`, `get-weather` → `['get', 'weather']`. */
export function identifierWords(name: string): string[] {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** A case-insensitive regexp matching the words in sequence, separated by spaces, `_`, `-` or nothing. */
export function phraseRegExp(words: readonly string[], flags = 'iu'): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${words.map(escapeRegExp).join('[\\s_-]*')}(?![\\p{L}\\p{N}])`, flags);
}

/** Index of the first mention of `phrase` (identifier words, case-insensitive) in `text`, or -1. */
export function mentionIndex(text: string, phrase: string): number {
  const words = identifierWords(phrase);
  if (words.length === 0) return -1;
  const m = phraseRegExp(words).exec(text);
  return m ? m.index : -1;
}

export function stem(word: string): string {
  let w = word.toLowerCase().replace(/['’]s$/u, '');
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  return w;
}

export function textWords(text: string): string[] {
  return text.split(/[^\p{L}\p{N}'’]+/u).filter(Boolean);
}

export const STOPWORDS = new Set([
  'a', 'an', 'the', 'and', 'or', 'but', 'of', 'to', 'in', 'on', 'at', 'by', 'for', 'with', 'from', 'into', 'onto', 'about',
  'as', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'it', 'its', 'this', 'that', 'these', 'those', 'there', 'here',
  'you', 'your', 'yours', 'we', 'our', 'they', 'their', 'them', 'he', 'she', 'his', 'her', 'i', 'me', 'my', 'mine',
  'can', 'could', 'would', 'should', 'will', 'shall', 'may', 'might', 'must', 'do', 'does', 'did', 'done', 'have', 'has', 'had',
  'what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'some', 'any', 'all', 'each', 'every', 'such',
  'then', 'than', 'also', 'only', 'other', 'more', 'most', 'very', 'just', 'not', 'no', 'yes', 'please', 'like', 'want',
  'need', 'given', 'specified', 'specific', 'current', 'using', 'use', 'used', 'user', 'users', 'information', 'info',
  'data', 'value', 'values', 'optional', 'required', 'function', 'tool', 'call', 'calls', 'request', 'based', 'returns',
  'return', 'get', 'gets', 'set', 'sets', 'list', 'lists', 'make', 'makes', 'handle', 'handles', 'question', 'questions',
  'help', 'helps', 'anything', 'something', 'everything', 'thing', 'things', 'someone', 'about',
]);
/** Identifier words too generic to signal which tool or agent the user means. */
export const GENERIC_NAME_WORDS = new Set([
  'get', 'set', 'list', 'create', 'update', 'delete', 'remove', 'fetch', 'find', 'make', 'do', 'run', 'call', 'send', 'add',
  'check', 'show', 'read', 'write', 'lookup', 'look', 'up', 'by', 'for', 'to', 'the', 'a', 'an', 'of', 'and', 'or', 'id',
  'agent', 'assistant', 'bot', 'helper', 'expert', 'specialist', 'tool', 'function', 'api', 'v1', 'v2', 'new', 'current',
]);

export function distinctiveWords(text: string | null | undefined, exclude: ReadonlySet<string> = STOPWORDS, minLength = 4): Set<string> {
  const out = new Set<string>();
  if (!text) return out;
  for (const w of textWords(text)) {
    const lower = w.toLowerCase();
    if (lower.length < minLength || exclude.has(lower) || STOPWORDS.has(lower) || /^\p{N}+$/u.test(lower)) continue;
    out.add(stem(lower));
  }
  return out;
}

export function countHits(words: ReadonlySet<string>, inText: ReadonlySet<string>): number {
  let n = 0;
  for (const w of words) if (inText.has(w)) n++;
  return n;
}

export function stemSet(text: string): Set<string> {
  return new Set(textWords(text).map(stem));
}

/** `text` on one line: runs of whitespace become one space, ends trimmed. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
