/**
 * Counting words in a language: `Intl.PluralRules` picks the form, `Intl.NumberFormat` writes the number.
 * `counter('fr')(3, { one: '# page', other: '# pages' })` → `3 pages`; `#` stands for the number.
 */

/** The forms of a counted phrase; `other` is required, the rest are used when the language has them. */
export type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

/** A function that writes `n` with the right form of a phrase in `lang`. */
export type Counter = (n: number, forms: PluralForms) => string;

/** A counter for `lang` (its rules and number format are made on first use). */
export function counter(lang: string): Counter {
  let rules: Intl.PluralRules | null = null;
  let format: Intl.NumberFormat | null = null;
  return (n, forms) => {
    rules ??= new Intl.PluralRules(lang);
    format ??= new Intl.NumberFormat(lang);
    const form = forms[rules.select(n)] ?? forms.other;
    return form.replace(/#/g, format.format(n));
  };
}

/** `n` written as numbers are in `lang` (`1 234` in French, `1.234` in German). */
export function numberIn(lang: string): (n: number) => string {
  let format: Intl.NumberFormat | null = null;
  return (n) => (format ??= new Intl.NumberFormat(lang)).format(n);
}

/** `m:ss` of a number of seconds (digits as they are: a clock reads the same in every shipped language). */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
