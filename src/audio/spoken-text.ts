/**
 * What a reply sounds like: markdown turned into plain words, and a growing reply cut into finished
 * sentences so speech can start while the reply still streams. Pure string work (no DOM).
 */

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&nbsp;': ' ' };

/**
 * Markdown to the plain text a voice should read: code blocks, images' addresses, link targets, HTML
 * tags, emphasis marks, heading/list/quote markers and table rules dropped; whitespace collapsed.
 */
export function speakableText(markdown: string): string {
  let t = markdown;
  t = t.replace(/(^|\n)\s{0,3}(```|~~~)[^\n]*\n[\s\S]*?(\n\s{0,3}\2[^\n]*(?=\n|$)|$)/g, '$1'); // fenced code (even unclosed)
  t = t.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1');
  t = t.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  t = t.replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1');
  t = t.replace(/<\/?[A-Za-z][^>]*>/g, ' ');
  t = t.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (m) => ENTITIES[m] ?? m);
  t = t.replace(/^[ \t]*([-*_][ \t]*){3,}$/gm, ' '); // horizontal rules
  t = t.replace(/^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$/gm, ' '); // table rules
  for (let i = 0; i < 3; i++) t = t.replace(/^[ \t]*(#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d{1,3}[.)][ \t]+)/gm, '');
  t = t.replace(/\|/g, ' ');
  t = t.replace(/\*\*|~~|`|\*/g, '');
  t = t.replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1');
  return t.replace(/\s+/g, ' ').trim();
}

const ABBREVIATIONS = new Set(['e.g', 'i.e', 'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'vs', 'etc', 'no', 'fig', 'approx', 'cf']);
const TERMINATORS = '.!?…。！？';
const CLOSERS = '.!?…)]"\'”’*_';

/**
 * Cuts a growing markdown reply into finished sentences. Call {@link push} with the whole text so far
 * each time it grows; it returns the sentences completed since the last call, already as speakable
 * text. {@link finish} returns what is left once the reply is complete. Code blocks are skipped.
 */
export class SentenceSplitter {
  /** Offset in the raw text up to which sentences were handed out. */
  #consumed = 0;
  readonly #minChars: number;

  /** @param minChars Sentences shorter than this are joined with the next (fewer, fuller requests). */
  constructor(minChars = 12) {
    this.#minChars = minChars;
  }

  /** Sentences finished in `text` (the whole reply so far) since the last call. */
  push(text: string): string[] {
    const out: string[] = [];
    let start = this.#consumed;
    let i = start;
    while (i < text.length) {
      const atLineStart = i === 0 || text[i - 1] === '\n';
      if (atLineStart && /^\s{0,3}(```|~~~)/.test(text.slice(i, i + 6))) {
        const fence = text.slice(i).match(/^\s{0,3}(```|~~~)/)![1];
        const close = text.indexOf(`\n${fence}`, i + 3);
        if (close < 0) break; // wait for the block to end
        const lineEnd = text.indexOf('\n', close + 1 + fence.length);
        if (lineEnd < 0) break;
        this.#emit(out, text.slice(start, i), true);
        i = start = lineEnd + 1;
        continue;
      }
      const c = text[i];
      let boundary = -1;
      if (c === '\n') boundary = i + 1;
      else if (TERMINATORS.includes(c)) {
        let j = i + 1;
        while (j < text.length && CLOSERS.includes(text[j])) j++;
        if (j >= text.length) break; // the next character decides
        if (/\s/.test(text[j]) && !(c === '.' && this.#abbreviationBefore(text, i))) boundary = j;
        i = j - 1;
      }
      i++;
      if (boundary > 0 && this.#emit(out, text.slice(start, boundary), false)) start = boundary;
    }
    this.#consumed = start;
    return out;
  }

  /** The rest of the reply once it is complete (including a last sentence without a full stop). */
  finish(text: string): string[] {
    const out = this.push(text);
    const rest = speakableText(text.slice(this.#consumed));
    this.#consumed = text.length;
    if (/[\p{L}\p{N}]/u.test(rest)) out.push(rest);
    return out;
  }

  /** Hands out a sentence when it is long enough (or `force`); returns whether the raw text was consumed. */
  #emit(out: string[], raw: string, force: boolean): boolean {
    const sentence = speakableText(raw);
    if (!/[\p{L}\p{N}]/u.test(sentence)) return true; // nothing to say: skip it
    if (sentence.length < this.#minChars && !force) return false;
    out.push(sentence);
    return true;
  }

  #abbreviationBefore(text: string, dot: number): boolean {
    const word = /([\p{L}.]+)$/u.exec(text.slice(Math.max(0, dot - 8), dot))?.[1] ?? '';
    return ABBREVIATIONS.has(word.toLowerCase()) || /^\p{Lu}$/u.test(word); // "J. Smith"
  }
}
