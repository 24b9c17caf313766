/**
 * Personal data found by pattern in raw text (digits and punctuation intact): e-mail addresses, phone numbers,
 * payment card numbers (Luhn checksum), IBANs (ISO 13616 mod-97 checksum), US social security numbers and
 * street addresses. Checksums keep order numbers and dates from passing for cards and accounts.
 */

/** One kind of personal data and the evidence it adds to the `pii` category. */
export interface PiiFinding {
  kind: 'email' | 'phone' | 'card' | 'iban' | 'ssn' | 'address';
  weight: number;
}

// Every quantifier is bounded or anchored by a lookbehind, so scanning stays linear on long runs of letters or digits.
const EMAIL = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){0,8}\.\p{L}{2,24}/gu;
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g;
// Upper case only: with case folded, ordinary words joined by single spaces would take the shape of an IBAN.
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;
const SSN = /(?<!\d)\d{3}-\d{2}-\d{4}(?!\d)/g;
const PHONE = /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){1,4}(?![\w-])/g;
// Capitalised street names only, so "2 eggs on the way" is not an address.
const ADDRESS = /\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?:[Ss]treet|St|[Aa]venue|Ave|[Rr]oad|Rd|[Bb]oulevard|Blvd|[Ll]ane|Ln|[Dd]rive|Dr|[Cc]ourt|Ct|Way|Place|Pl)\b/g;

function digits(s: string): string {
  return s.replace(/\D/g, '');
}

/** Luhn checksum of a card number. */
export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616 IBAN checksum: the rearranged number, letters as 10..35, is 1 mod 97. */
export function ibanValid(iban: string): boolean {
  const s = iban.replace(/\s/g, '').toUpperCase();
  if (s.length < 15 || s.length > 34) return false;
  let rest = 0;
  for (const ch of s.slice(4) + s.slice(0, 4)) {
    const v = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rest = (rest * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}

/**
 * Whether a run of digit groups reads as a phone number rather than an order number, a version or a list of years:
 * 9 to 15 digits, and an international or area-code prefix, or four or more groups, or a last group of 3+ digits
 * after a first group that is not a year.
 */
function phoneLike(s: string): boolean {
  const n = digits(s).length;
  if (n < 9 || n > 15) return false;
  if (/^[+(]/.test(s)) return true;
  const groups = s.split(/[ .-]/);
  if (groups.length >= 4) return true;
  return groups[groups.length - 1].length >= 3 && !/^(?:19|20)\d\d$/.test(groups[0]);
}

/**
 * The personal data found in `text`. Each span counts once, under the first (most specific) kind that accepts it;
 * an IBAN-shaped span is claimed even with a bad checksum, so its digits are not then read as a phone number.
 */
export function findPii(text: string): PiiFinding[] {
  const found: PiiFinding[] = [];
  const claimed = new Uint8Array(text.length);
  const scan = (re: RegExp, kind: PiiFinding['kind'], weight: number, accept: (s: string) => boolean = () => true, claimInvalid = false) => {
    for (const m of text.matchAll(re)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      if (claimed.subarray(start, end).includes(1)) continue;
      const valid = accept(m[0]);
      if (valid || claimInvalid) claimed.fill(1, start, end);
      if (valid) found.push({ kind, weight });
    }
  };
  scan(EMAIL, 'email', 5);
  scan(IBAN, 'iban', 5.5, ibanValid, true);
  scan(CARD, 'card', 5.5, (s) => luhnValid(digits(s)));
  scan(SSN, 'ssn', 5);
  scan(PHONE, 'phone', 4.5, phoneLike);
  scan(ADDRESS, 'address', 4);
  return found;
}
