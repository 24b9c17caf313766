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

/**
 * A number of bytes as `lang` writes a file size: `512 byte`, `34 kB`, `31.5 MB` (binary units, one decimal
 * at most, through `Intl.NumberFormat`'s units: `31,5 Mo` in French).
 */
export function fileSizeIn(lang: string): (bytes: number) => string {
  return (bytes) => {
    const [value, unit] = bytes < 1024 ? [bytes, 'byte'] : bytes < 1024 * 1024 ? [bytes / 1024, 'kilobyte'] : [bytes / (1024 * 1024), 'megabyte'];
    return new Intl.NumberFormat(lang, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 }).format(value);
  };
}
