/**
 * Text → comparable word stems for the lexicon classifier: Unicode folding (compatibility forms, accents),
 * lower case, leetspeak undone, letters stretched past two cut back to two, contractions joined ("don't" → "dont"), and a small
 * suffix-stripping stemmer so "killing", "killed" and "kills" meet "kill". The lexicon goes through the same
 * functions, so a phrase matches whatever inflection the stemmer folds together.
 */

const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's' };

/** Folds a text to lower-case ASCII-ish letters: NFKD, combining marks dropped, curly apostrophes made straight. */
export function foldText(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').replace(/[\u2018\u2019\u02bc`]/g, "'").toLowerCase();
}

/** Undoes leetspeak ("k1ll" → "kill"). */
function unLeet(word: string): string {
  return word.replace(/[0-9@$]/g, (ch) => LEET[ch] ?? ch);
}

/** A light English stemmer: plural, -ing, -ed, final e and y, doubled final consonant. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && /(?:ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('y')) w = `${w.slice(0, -1)}i`;
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  if (w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz|ff)$/.test(w)) w = w.slice(0, -1);
  return w;
}

/**
 * Splits a folded word: leetspeak (digits or `@`/`$` between letters, "k1ll") is undone; otherwise letters and
 * digits are separate words ("400mg" → "400", "mg").
 */
function splitWord(word: string): string[] {
  if (/\p{L}[0-9@$]+\p{L}/u.test(word)) return [unLeet(word)];
  return word.match(/\p{L}+|\p{N}+/gu) ?? [];
}

/** The word stems of a text, in order ("I'm k1lllling it" → ["im", "kill", "it"]). */
export function stems(text: string): string[] {
  const words = foldText(text).replace(/(\p{L})'(\p{L})/gu, '$1$2').match(/[\p{L}\p{N}@$]+/gu) ?? [];
  return words.flatMap(splitWord).map((w) => stem(w.replace(/(\p{L})\1{2,}/gu, '$1$1')));
}
