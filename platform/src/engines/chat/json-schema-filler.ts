/**
 * The JSON-schema filler of `parley-local`: a value valid for a schema, filled from the words of a message. It makes
 * function-call arguments (a tool's `parameters`) and `response_format` `json_schema` replies.
 */
import { shortId } from './stable-hash.js';
import { collapse, escapeRegExp, GENERIC_NAME_WORDS, identifierWords, mentionIndex, stem, STOPWORDS, textWords } from './words.js';

/** A JSON schema (or part of one) as plain JSON. */
export type Schema = Record<string, unknown>;
interface Filled { value: unknown; found: boolean }

/** Options of {@link fillJsonSchema}. */
export interface FillJsonSchemaOptions {
  /** Value for string fields named like a reply (`reply`, `answer`, `response`, `summary`, `analysis`…). */
  reply?: string;
  /** Words never used as extracted names (e.g. the tool's own name words). */
  avoidWords?: readonly string[];
}

interface FillContext {
  root: Schema;
  text: string;
  reply: string | undefined;
  numbers: Array<{ value: number; index: number }>;
  usedNumbers: Set<number>;
  quoted: string[];
  placeCapitals: string[];
  capitals: string[];
  topics: string[];
  usedStrings: Set<string>;
}

const SENTENCE_STARTERS = new Set([
  'what', "what's", 'whats', 'where', "where's", 'when', 'who', 'why', 'how', 'can', 'could', 'would', 'will', 'should',
  'please', 'get', 'show', 'tell', 'give', 'find', 'is', 'are', 'do', 'does', 'did', 'i', "i'm", "i'd", 'hi', 'hello', 'hey',
  'the', 'a', 'an', 'my', 'let', "let's", 'check', 'send', 'set', 'make', 'add', 'look', 'search', 'call', 'use', 'run',
  'thanks', 'ok', 'okay', 'yes', 'no', 'and', 'but', 'or', 'in', 'for', 'of', 'at', 'from', 'to', 'on', 'about', 'list',
  'create', 'book', 'open', 'fetch', 'compute', 'calculate', 'convert', 'translate', 'it', 'this', 'that',
]);
const FILLER_TAIL = new Set(['please', 'today', 'now', 'tomorrow', 'thanks', 'right', 'asap', 'then', 'again']);

function buildFillContext(root: Schema, text: string, options: FillJsonSchemaOptions): FillContext {
  const avoid = new Set((options.avoidWords ?? []).map((w) => w.toLowerCase()));
  const numbers: FillContext['numbers'] = [];
  for (const m of text.matchAll(/(?<![\p{L}\p{N}_.])-?\d+(?:\.\d+)?/gu)) numbers.push({ value: Number(m[0]), index: m.index ?? 0 });
  const quoted: string[] = [];
  for (const m of text.matchAll(/"([^"\n]+)"|“([^”\n]+)”|(?<![\p{L}\p{N}])'([^'\n]+)'(?![\p{L}\p{N}])|`([^`\n]+)`/gu)) {
    const q = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? '').trim();
    if (q) quoted.push(q);
  }
  const cleanRun = (run: string): string => {
    const words = run.split(/\s+/);
    while (words.length && (SENTENCE_STARTERS.has(words[0].toLowerCase()) || avoid.has(words[0].toLowerCase()))) words.shift();
    while (words.length && avoid.has(words[words.length - 1].toLowerCase())) words.pop();
    return words.join(' ').replace(/['’]s$/u, '').replace(/[-'’]+$/u, '');
  };
  const CAP = "\\p{Lu}[\\p{L}\\p{N}'’-]*";
  const placeCapitals: string[] = [];
  const PREP = '[Ii]n|[Ff]or|[Oo]f|[Aa]t|[Ff]rom|[Tt]o|[Nn]ear|[Cc]alled|[Nn]amed|[Oo]n|[Aa]bout';
  for (const m of text.matchAll(new RegExp(`(?<![\\p{L}\\p{N}])(?:${PREP})\\s+(${CAP}(?:\\s+${CAP})*)`, 'gu'))) {
    const c = cleanRun(m[1]);
    if (c) placeCapitals.push(c);
  }
  const capitals: string[] = [];
  for (const m of text.matchAll(new RegExp(`${CAP}(?:\\s+${CAP})*`, 'gu'))) {
    const c = cleanRun(m[0]);
    if (c && !/^\p{N}/u.test(c)) capitals.push(c);
  }
  const topics: string[] = [];
  for (const m of text.matchAll(/(?<![\p{L}\p{N}])(?:for|about|on|regarding|of|in)\s+([^.,;:!?\n"“]+)/giu)) {
    const words = m[1].trim().split(/\s+/).slice(0, 6);
    while (words.length && (FILLER_TAIL.has(words[words.length - 1].toLowerCase()) || STOPWORDS.has(words[words.length - 1].toLowerCase()))) words.pop();
    while (words.length && STOPWORDS.has(words[0].toLowerCase())) words.shift();
    const t = words.join(' ');
    if (t) topics.push(t);
  }
  return { root, text, reply: options.reply, numbers, usedNumbers: new Set(), quoted, placeCapitals, capitals, topics, usedStrings: new Set() };
}

/**
 * Produce a JSON value valid for a JSON schema, filling strings, numbers and booleans from `text`
 * where it can (quoted strings, capitalised names after "in"/"for"/…, `name: value`, numbers near the
 * property's name or in order of appearance, enum members mentioned in the text) and with type-correct
 * defaults otherwise (`default`, the first enum member, `minimum` or 0, `false`, one array item).
 * Supports `type` (also as an array), `properties`/`required` (optional properties only when the text
 * supplies them), `items`/`prefixItems`, `minItems`/`maxItems`/`uniqueItems`, `enum`, `const`,
 * `anyOf`/`oneOf`/`allOf`, local `$ref`s, numeric bounds and `multipleOf`, string lengths and common
 * `format`s. Deterministic.
 */
export function fillJsonSchema(schema: Record<string, unknown>, text: string, options: FillJsonSchemaOptions = {}): unknown {
  const ctx = buildFillContext(schema, text, options);
  return fill(schema, ctx, undefined, 0).value;
}

/** Whether `v` is a JSON object, as a schema is. */
export function isSchema(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function resolveRef(ref: string, root: Schema): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return isSchema(node) ? node : undefined;
}

function schemaTypes(schema: Schema): string[] {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  if (isSchema(schema.properties) || schema.required !== undefined || schema.additionalProperties !== undefined) return ['object'];
  if (schema.items !== undefined || schema.prefixItems !== undefined) return ['array'];
  if (schema.minimum !== undefined || schema.maximum !== undefined || schema.multipleOf !== undefined) return ['number'];
  return ['string'];
}

function mergeAllOf(schema: Schema, ctx: FillContext): Schema {
  const parts = (schema.allOf as unknown[]).filter(isSchema).map((s) => (typeof s.$ref === 'string' ? resolveRef(s.$ref, ctx.root) ?? {} : s));
  const merged: Schema = { ...schema };
  delete merged.allOf;
  const properties: Record<string, unknown> = { ...(isSchema(schema.properties) ? schema.properties : {}) };
  const required = new Set<string>(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const part of parts) {
    for (const [k, v] of Object.entries(part)) {
      if (k === 'properties' && isSchema(v)) Object.assign(properties, v);
      else if (k === 'required' && Array.isArray(v)) for (const r of v) required.add(String(r));
      else if (!(k in merged)) merged[k] = v;
    }
  }
  if (Object.keys(properties).length) merged.properties = properties;
  if (required.size) merged.required = [...required];
  return merged;
}

function fill(schemaIn: unknown, ctx: FillContext, name: string | undefined, depth: number): Filled {
  if (!isSchema(schemaIn)) return { value: fillString({}, ctx, name).value, found: false };
  let schema = schemaIn;
  if (depth > 12) return { value: null, found: false };
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, ctx.root);
    if (target) {
      const rest = { ...schema };
      delete rest.$ref;
      return fill({ ...target, ...rest }, ctx, name, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf)) schema = mergeAllOf(schema, ctx);
  if ('const' in schema) return { value: schema.const, found: true };
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fillEnum(schema.enum, ctx);
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  if (branches && branches.length > 0) {
    const base = { ...schema };
    delete base.anyOf;
    delete base.oneOf;
    const candidates = branches.filter(isSchema).map((b) => ({ ...base, ...b }));
    const nonNull = candidates.filter((b) => !(b.type === 'null' || (Array.isArray(b.type) && b.type.length === 1 && b.type[0] === 'null')));
    for (const b of nonNull) {
      const r = fill(b, ctx, name, depth + 1);
      if (r.found) return r;
    }
    if (nonNull.length) return fill(nonNull[0], ctx, name, depth + 1);
    return { value: null, found: false };
  }
  const types = schemaTypes(schema);
  const type = types.find((t) => t !== 'null') ?? 'null';
  switch (type) {
    case 'object': return fillObject(schema, ctx, depth);
    case 'array': return fillArray(schema, ctx, name, depth);
    case 'integer': return fillNumber(schema, ctx, name, true);
    case 'number': return fillNumber(schema, ctx, name, false);
    case 'boolean': return fillBoolean(schema, ctx, name);
    case 'null': return { value: null, found: false };
    default: return fillString(schema, ctx, name);
  }
}

function fillEnum(members: unknown[], ctx: FillContext): Filled {
  let best: { value: unknown; index: number } | null = null;
  for (const member of members) {
    let index = -1;
    if (typeof member === 'string') index = mentionIndex(ctx.text, member);
    else if (typeof member === 'number') index = ctx.numbers.find((n) => n.value === member)?.index ?? -1;
    else if (typeof member === 'boolean') index = mentionIndex(ctx.text, String(member));
    if (index >= 0 && (best === null || index < best.index)) best = { value: member, index };
  }
  return best ? { value: best.value, found: true } : { value: members[0], found: false };
}

function fillObject(schema: Schema, ctx: FillContext, depth: number): Filled {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const values = new Map<string, unknown>();
  let found = false;
  // required properties first, so they get the first pick of what the text offers
  for (const key of Object.keys(properties)) {
    if (!required.includes(key)) continue;
    const r = fill(properties[key], ctx, key, depth + 1);
    values.set(key, r.value);
    found ||= r.found;
  }
  for (const key of Object.keys(properties)) {
    if (required.includes(key)) continue;
    const r = fill(properties[key], ctx, key, depth + 1);
    if (r.found) {
      values.set(key, r.value);
      found = true;
    }
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) if (values.has(key)) out[key] = values.get(key);
  for (const key of required) {
    if (key in out) continue;
    const extra = isSchema(schema.additionalProperties) ? schema.additionalProperties : {};
    out[key] = fill(extra, ctx, key, depth + 1).value;
  }
  return { value: out, found };
}

function singular(name: string | undefined): string | undefined {
  if (!name) return name;
  return stem(name);
}

function fillArray(schema: Schema, ctx: FillContext, name: string | undefined, depth: number): Filled {
  const minItems = typeof schema.minItems === 'number' ? Math.max(0, Math.ceil(schema.minItems)) : 0;
  const maxItems = typeof schema.maxItems === 'number' ? Math.max(0, Math.floor(schema.maxItems)) : Infinity;
  const unique = schema.uniqueItems === true;
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : null;
  if (tuple) {
    const values = tuple.slice(0, Math.max(Math.min(tuple.length, maxItems), minItems)).map((s, i) => fill(s, ctx, `${name ?? 'item'}${i}`, depth + 1));
    return { value: values.map((v) => v.value), found: values.some((v) => v.found) };
  }
  let items: Schema = isSchema(schema.items) ? schema.items : {};
  if (typeof items.$ref === 'string') items = resolveRef(items.$ref, ctx.root) ?? items;
  const clampCount = (n: number): number => Math.min(Math.max(n, minItems), maxItems);

  // enum items: every member mentioned in the text, in order of mention
  if (Array.isArray(items.enum) && items.enum.length > 0) {
    const mentioned = items.enum
      .map((m) => ({ m, i: typeof m === 'string' ? mentionIndex(ctx.text, m) : typeof m === 'number' ? ctx.numbers.find((n) => n.value === m)?.index ?? -1 : -1 }))
      .filter((x) => x.i >= 0)
      .sort((a, b) => a.i - b.i)
      .map((x) => x.m);
    const pool = [...mentioned, ...items.enum.filter((m) => !mentioned.includes(m))];
    const count = clampCount(Math.max(mentioned.length, 1));
    const value: unknown[] = [];
    for (let i = 0; i < count; i++) value.push(pool[i % pool.length]);
    return { value, found: mentioned.length > 0 };
  }

  // string items without a format: a quoted list or a "label: a, b and c" list
  const itemTypes = schemaTypes(items);
  if (itemTypes[0] === 'string' && items.format === undefined && items.pattern === undefined) {
    let list = ctx.quoted.filter((q) => !ctx.usedStrings.has(q));
    if (list.length < 2) {
      const colon = /:\s*([^.!?\n]+)/u.exec(ctx.text);
      const parts = colon ? colon[1].split(/\s*(?:,|;|\band\b|\bor\b)\s*/u).map((p) => p.trim()).filter(Boolean) : [];
      if (parts.length >= 2) list = parts;
    }
    if (list.length > 0) {
      const value = list.slice(0, clampCount(list.length)).map((s) => constrainString(items, s));
      while (value.length < minItems) value.push(constrainString(items, `${value[0] ?? 'item'} ${value.length + 1}`));
      for (const v of value) ctx.usedStrings.add(v);
      return { value: unique ? dedupe(value) : value, found: true };
    }
  }

  const count = clampCount(1);
  const value: unknown[] = [];
  let found = false;
  for (let i = 0; i < count; i++) {
    const r = fill(items, ctx, singular(name), depth + 1);
    value.push(r.value);
    found ||= r.found;
  }
  return { value: unique ? dedupe(value) : value, found };
}

function dedupe(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.map((v, i) => {
    let key = JSON.stringify(v);
    if (!seen.has(key)) { seen.add(key); return v; }
    let candidate: unknown = v;
    if (typeof v === 'string') candidate = `${v} ${i + 1}`;
    else if (typeof v === 'number') candidate = v + i;
    key = JSON.stringify(candidate);
    seen.add(key);
    return candidate;
  });
}

function numericBounds(schema: Schema, integer: boolean): { min: number; max: number } {
  let min = -Infinity;
  let max = Infinity;
  const step = integer ? 1 : 0.01;
  if (typeof schema.minimum === 'number') min = schema.minimum;
  if (typeof schema.maximum === 'number') max = schema.maximum;
  if (typeof schema.exclusiveMinimum === 'number') min = Math.max(min, integer ? Math.floor(schema.exclusiveMinimum) + 1 : schema.exclusiveMinimum + step);
  else if (schema.exclusiveMinimum === true && Number.isFinite(min)) min = integer ? Math.floor(min) + 1 : min + step;
  if (typeof schema.exclusiveMaximum === 'number') max = Math.min(max, integer ? Math.ceil(schema.exclusiveMaximum) - 1 : schema.exclusiveMaximum - step);
  else if (schema.exclusiveMaximum === true && Number.isFinite(max)) max = integer ? Math.ceil(max) - 1 : max - step;
  if (integer) { min = Math.ceil(min); max = Math.floor(max); }
  return { min, max };
}

function constrainNumber(schema: Schema, value: number, integer: boolean): number {
  const { min, max } = numericBounds(schema, integer);
  let v = integer ? Math.round(value) : value;
  v = Math.min(Math.max(v, min), max);
  const m = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : null;
  if (m !== null) {
    const fix = (x: number): number => Number(x.toPrecision(12));
    let k = Math.round(v / m);
    if (fix(k * m) < min) k = Math.ceil(min / m);
    if (fix(k * m) > max) k = Math.floor(max / m);
    v = fix(k * m);
  }
  if (Object.is(v, -0)) v = 0;
  return v;
}

function nameRegexSource(name: string): string | null {
  const words = identifierWords(name);
  if (words.length === 0) return null;
  return words.map(escapeRegExp).join('[\\s_-]*');
}

function fillNumber(schema: Schema, ctx: FillContext, name: string | undefined, integer: boolean): Filled {
  const take = (value: number): Filled => ({ value: constrainNumber(schema, value, integer), found: true });
  const NUM = '(-?\\d+(?:\\.\\d+)?)';
  if (name) {
    const sources = new Set<string>();
    const full = nameRegexSource(name);
    if (full) sources.add(full);
    const words = identifierWords(name).filter((w) => !GENERIC_NAME_WORDS.has(w) && w.length >= 3);
    if (words.length) sources.add(escapeRegExp(stem(words[words.length - 1])));
    for (const src of sources) {
      const after = new RegExp(`(?<![\\p{L}\\p{N}])${src}\\w*\\s*(?:[:=]|is|of|to|at|as)?\\s*${NUM}`, 'iu').exec(ctx.text);
      const before = new RegExp(`(?<![\\p{L}\\p{N}_.])${NUM}\\s*${src}`, 'iu').exec(ctx.text);
      for (const m of [after, before]) {
        if (!m) continue;
        const at = (m.index ?? 0) + m[0].lastIndexOf(m[1]);
        const entry = ctx.numbers.findIndex((n) => n.index === at);
        if (entry >= 0) ctx.usedNumbers.add(entry);
        return take(Number(m[1]));
      }
    }
  }
  const next = ctx.numbers.findIndex((_, i) => !ctx.usedNumbers.has(i));
  if (next >= 0) {
    ctx.usedNumbers.add(next);
    return take(ctx.numbers[next].value);
  }
  if (typeof schema.default === 'number') return { value: constrainNumber(schema, schema.default, integer), found: false };
  const { min, max } = numericBounds(schema, integer);
  const base = Number.isFinite(min) ? min : Number.isFinite(max) && max < 0 ? max : 0;
  return { value: constrainNumber(schema, base, integer), found: false };
}

function fillBoolean(schema: Schema, ctx: FillContext, name: string | undefined): Filled {
  if (name) {
    const src = nameRegexSource(name);
    if (src) {
      const explicit = new RegExp(`(?<![\\p{L}\\p{N}])${src}\\s*(?:[:=]|is|to)\\s*(true|false|yes|no|on|off)(?![\\p{L}\\p{N}])`, 'iu').exec(ctx.text);
      if (explicit) return { value: /^(true|yes|on)$/i.test(explicit[1]), found: true };
    }
    const words = identifierWords(name).filter((w) => !GENERIC_NAME_WORDS.has(w) && w.length >= 3);
    const candidates = [src, ...(words.length ? [escapeRegExp(stem(words[words.length - 1]))] : [])].filter((s): s is string => !!s);
    for (const c of candidates) {
      const m = new RegExp(`(?<![\\p{L}\\p{N}])${c}`, 'iu').exec(ctx.text);
      if (!m) continue;
      const before = ctx.text.slice(Math.max(0, m.index - 30), m.index).toLowerCase().split(/\s+/).slice(-4).join(' ');
      const negated = /\b(no|not|don't|dont|do not|without|never|disable|exclude|skip|false)\b/.test(before);
      return { value: !negated, found: true };
    }
  }
  return { value: typeof schema.default === 'boolean' ? schema.default : false, found: false };
}

const QUERY_NAMES = /^(q|query|queries|search|search_?query|keywords?|terms?|topic|subject|title)$/i;
const TEXT_NAMES = /^(text|message|content|body|prompt|input|note|notes|comment|question|description|sentence|phrase)$/i;
const REPLY_NAMES = /^(reply|answer|response|summary|output|result|analysis|explanation|reasoning)$/i;
const ID_NAMES = { test: (k: string): boolean => /(^|[_-])(id|ids|number|no|code|sku|ref|reference|key|uid)$|^(id|identifier)$/i.test(k) || /[a-z](Id|ID|Number|Code|Ref)$/.test(k) };
const PLACE_NAMES = /(city|location|place|country|region|destination|address|town|area|origin|venue)/i;
const PERSON_NAMES = /(^name$|person|recipient|assignee|owner|author|contact|customer|user_?name|first_?name|last_?name)/i;

function fillString(schema: Schema, ctx: FillContext, name: string | undefined): Filled {
  const take = (value: string, found = true): Filled => {
    const v = constrainString(schema, value);
    if (found) ctx.usedStrings.add(v);
    return { value: v, found };
  };
  const fresh = (list: readonly string[]): string | undefined => list.find((s) => !ctx.usedStrings.has(s) && matchesPattern(schema, s));
  const fmt = typeof schema.format === 'string' ? schema.format : undefined;
  const key = name ?? '';

  // formats
  if (fmt === 'email' || /e-?mail/i.test(key)) {
    const m = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/u.exec(ctx.text);
    if (m) return take(m[0]);
    if (fmt === 'email') return take('user@example.com', false);
  }
  if (fmt === 'uri' || fmt === 'url' || fmt === 'iri' || fmt === 'uri-reference' || /^(url|uri|link|href|website)$/i.test(key)) {
    const m = /https?:\/\/[^\s<>"')\]]+/u.exec(ctx.text);
    if (m) return take(m[0].replace(/[.,;:!?]+$/u, ''));
    if (fmt) return take('https://example.com/', false);
  }
  if (fmt === 'date' || fmt === 'date-time' || /(^|_)date$/i.test(key)) {
    const m = /\b(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?))?/u.exec(ctx.text);
    if (fmt === 'date-time') return m ? take(`${m[1]}T${m[2] ? (m[2].length === 5 ? `${m[2]}:00` : m[2]) : '00:00:00'}Z`) : take('2025-01-01T00:00:00Z', false);
    if (m) return take(m[1]);
    if (fmt === 'date') return take('2025-01-01', false);
  }
  if (fmt === 'time') {
    const m = /\b(\d{2}):(\d{2})(?::(\d{2}))?\b/u.exec(ctx.text);
    return m ? take(`${m[1]}:${m[2]}:${m[3] ?? '00'}Z`) : take('12:00:00Z', false);
  }
  if (fmt === 'uuid') {
    const h = shortId(ctx.text, 32).toLowerCase().replace(/[^0-9a-f]/g, (c) => (c.charCodeAt(0) % 16).toString(16));
    return take(`${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`, false);
  }
  if (fmt === 'ipv4') return take('127.0.0.1', false);
  if (fmt === 'ipv6') return take('::1', false);
  if (fmt === 'hostname' || fmt === 'idn-hostname') return take('example.com', false);

  // `name: value`, `name = value`, `name is value`
  if (name) {
    const src = nameRegexSource(name);
    if (src) {
      const m = new RegExp(`(?<![\\p{L}\\p{N}])${src}\\s*(?:[:=]|\\bis\\b)\\s*(?:"([^"]+)"|'([^']+)'|([^\\s,;.!?]+))`, 'iu').exec(ctx.text);
      const v = m ? (m[1] ?? m[2] ?? m[3]) : undefined;
      if (v && matchesPattern(schema, v)) return take(v);
    }
  }
  if (REPLY_NAMES.test(key) && ctx.reply) return take(ctx.reply);

  const quoted = fresh(ctx.quoted);
  const whole = collapse(ctx.text);
  if (TEXT_NAMES.test(key)) return quoted ? take(quoted) : whole ? take(whole) : fallbackString(schema, ctx, key);
  if (QUERY_NAMES.test(key)) {
    const v = quoted ?? fresh(ctx.topics);
    return v ? take(v) : whole ? take(whole) : fallbackString(schema, ctx, key);
  }
  if (ID_NAMES.test(key)) {
    const ids = [...ctx.text.matchAll(/(?<![\p{L}\p{N}_-])[\p{L}\p{N}_-]*\p{N}[\p{L}\p{N}_-]*/gu)].map((m) => m[0].replace(/^-+|-+$/g, ''));
    const v = quoted ?? fresh(ids);
    if (v) return take(v);
  }
  if (PLACE_NAMES.test(key)) {
    const v = fresh(ctx.placeCapitals) ?? quoted ?? fresh(ctx.capitals) ?? fresh(ctx.topics);
    if (v) return take(v);
  } else if (PERSON_NAMES.test(key)) {
    const v = quoted ?? fresh(ctx.capitals) ?? fresh(ctx.placeCapitals);
    if (v) return take(v);
  } else {
    const v = quoted ?? fresh(ctx.placeCapitals) ?? fresh(ctx.capitals) ?? fresh(ctx.topics);
    if (v) return take(v);
  }
  return fallbackString(schema, ctx, key);
}

function fallbackString(schema: Schema, ctx: FillContext, key: string): Filled {
  if (typeof schema.default === 'string') return { value: constrainString(schema, schema.default), found: false };
  if (Array.isArray(schema.examples) && typeof schema.examples[0] === 'string') return { value: constrainString(schema, schema.examples[0]), found: false };
  const whole = collapse(ctx.text);
  if (whole && matchesPattern(schema, whole)) return { value: constrainString(schema, whole), found: false };
  const words = textWords(ctx.text).filter((w) => matchesPattern(schema, w));
  if (words.length) return { value: constrainString(schema, words[0]), found: false };
  return { value: constrainString(schema, whole || key || 'example'), found: false };
}

function matchesPattern(schema: Schema, value: string): boolean {
  if (typeof schema.pattern !== 'string') return true;
  try {
    return new RegExp(schema.pattern, 'u').test(value);
  } catch {
    return true;
  }
}

function constrainString(schema: Schema, value: string): string {
  let chars = Array.from(value);
  if (typeof schema.maxLength === 'number' && chars.length > schema.maxLength) chars = chars.slice(0, Math.max(0, Math.floor(schema.maxLength)));
  let out = chars.join('');
  if (typeof schema.maxLength === 'number' && out !== out.trimEnd() && Array.from(out.trimEnd()).length >= (typeof schema.minLength === 'number' ? schema.minLength : 0)) out = out.trimEnd();
  if (typeof schema.minLength === 'number') {
    const missing = Math.ceil(schema.minLength) - Array.from(out).length;
    if (missing > 0) out += (out ? '.' : 'x').repeat(missing);
  }
  return out;
}
