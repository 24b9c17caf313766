/**
 * `parley-local`: a deterministic local stand-in for a chat model, for offline development and tests.
 *
 * It is **not** a language model: it understands nothing, uses no randomness and no network. The same
 * request always produces the same output (`completion_args.random_seed` only picks among fixed
 * wordings). It exists so that a chat UI can exercise every path it renders without a real model:
 *
 * | Situation (checked in this order) | What it produces |
 * |---|---|
 * | The history ends with `function.result` entries | A markdown message quoting each result (`The \`get_weather\` tool returned: …`): flat JSON objects as a list, other JSON in a ```json block, plain text as a quote. Always text, even when `tool_choice` is `any`, so tool loops end. |
 * | The last user message is exactly `/fail` (trimmed) | A few text tokens, then the turn throws an `Error` ("parley-local failed on purpose …"). A test hook for mid-stream failures. |
 * | `handoffs` is non-empty and the last user message asks to be transferred / handed (over/off/to) / to speak, talk or chat with / connected, switched, routed, escalated to an agent named in `handoffs` (its name or id, case-insensitive; or words of its description) | One `handoff` event and nothing else. Never to the current agent, and never twice after the same user message (no ping-pong). |
 * | `function` tools are present, `tool_choice` is not `none`, and the last user message names a tool (`get_weather`, `get weather`, `getWeather`), one of its distinctive name words (`weather`), or two distinctive words of its description; or `tool_choice` is `any`/`required` (then the best-scoring tool is called regardless) | `function_call` events with 9-char alphanumeric ids derived from a hash of the conversation, arguments streamed in a few pieces. Arguments are JSON valid for the tool's `parameters` schema, filled from the message text (see {@link fillJsonSchema}). Several tools named explicitly in one message → several calls. |
 * | `response_format` is `json_object` | One JSON object `{"reply": "...", "words": n}`. |
 * | `response_format` is `json_schema` | A JSON value valid for the schema, filled from the message text. |
 * | The message mentions `markdown` (everything), `table`, `code`/`snippet`, `list`/`bullet`/`numbered`, `heading`/`header`, `link`/`url` | A markdown demonstration with the requested elements. |
 * | Anything else | A short markdown reply that quotes the message, counts its words and mentions the agent name and the start of the instructions. |
 *
 * `completion_args.stop` cuts text before the first stop sequence and `max_tokens` caps the number of
 * text tokens (these limits apply to text, including JSON-mode text; function-call arguments are always
 * emitted whole so they stay valid JSON). Text is streamed one token per `text` event (see
 * {@link tokenize}); `usage` counts prompt tokens over the instructions and the text of every history
 * entry ({@link countPromptTokens}) and completion tokens over what was yielded.
 */
import { modelCard } from '../model-card.js';
import type {
  ConversationEntry,
  FunctionDefinition,
  ModelCard,
  ResponseFormat,
} from 'parley-kit/types';
import { contentText } from '../text/message-content.js';
import { countPromptTokens, countTokens, tokenize } from '../text/tokenizer.js';
import type { ChatEngine, ChatEngineEvent, ChatTurnRequest, HandoffTarget } from './types.js';

/** Model id served by {@link createLocalChatEngine}. */
export const LOCAL_CHAT_MODEL_ID = 'parley-local';
/** Ids of the hosted platform that also resolve to `parley-local`, so code written for it runs offline. */
export const LOCAL_CHAT_MODEL_ALIASES: readonly string[] = ['mistral-small-latest', 'mistral-medium-latest', 'mistral-large-latest'];
/** The message that makes `parley-local` fail on purpose mid-stream. */
export const LOCAL_FAIL_TRIGGER = '/fail';

export interface LocalChatEngineOptions {
  /** Milliseconds to wait between streamed tokens (default 0). The wait stops as soon as the request is aborted. */
  tokenDelayMs?: number;
}

// ---------------------------------------------------------------- small helpers

function hash32(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // final avalanche so that similar inputs give unrelated ids
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A deterministic alphanumeric id of `length` characters derived from `key`. */
function shortId(key: string, length = 9): string {
  let state = hash32(key, 0x9e3779b9);
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out += ALPHANUM[((t ^ (t >>> 14)) >>> 0) % ALPHANUM.length];
  }
  return out;
}

function pick<T>(options: readonly T[], key: string, seed: number): T {
  const i = (hash32(key) + Math.abs(Math.trunc(seed))) % options.length;
  return options[i];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Words of an identifier: `get_weather`, `getWeather`, `get-weather` → `['get', 'weather']`. */
function identifierWords(name: string): string[] {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** A case-insensitive regexp matching the words in sequence, separated by spaces, `_`, `-` or nothing. */
function phraseRegExp(words: readonly string[], flags = 'iu'): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${words.map(escapeRegExp).join('[\\s_-]*')}(?![\\p{L}\\p{N}])`, flags);
}

/** Index of the first mention of `phrase` (identifier words, case-insensitive) in `text`, or -1. */
function mentionIndex(text: string, phrase: string): number {
  const words = identifierWords(phrase);
  if (words.length === 0) return -1;
  const m = phraseRegExp(words).exec(text);
  return m ? m.index : -1;
}

function stem(word: string): string {
  let w = word.toLowerCase().replace(/['’]s$/u, '');
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  return w;
}

function textWords(text: string): string[] {
  return text.split(/[^\p{L}\p{N}'’]+/u).filter(Boolean);
}

const STOPWORDS = new Set([
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
const GENERIC_NAME_WORDS = new Set([
  'get', 'set', 'list', 'create', 'update', 'delete', 'remove', 'fetch', 'find', 'make', 'do', 'run', 'call', 'send', 'add',
  'check', 'show', 'read', 'write', 'lookup', 'look', 'up', 'by', 'for', 'to', 'the', 'a', 'an', 'of', 'and', 'or', 'id',
  'agent', 'assistant', 'bot', 'helper', 'expert', 'specialist', 'tool', 'function', 'api', 'v1', 'v2', 'new', 'current',
]);

function distinctiveWords(text: string | null | undefined, exclude: ReadonlySet<string> = STOPWORDS, minLength = 4): Set<string> {
  const out = new Set<string>();
  if (!text) return out;
  for (const w of textWords(text)) {
    const lower = w.toLowerCase();
    if (lower.length < minLength || exclude.has(lower) || STOPWORDS.has(lower) || /^\p{N}+$/u.test(lower)) continue;
    out.add(stem(lower));
  }
  return out;
}

function countHits(words: ReadonlySet<string>, inText: ReadonlySet<string>): number {
  let n = 0;
  for (const w of words) if (inText.has(w)) n++;
  return n;
}

function stemSet(text: string): Set<string> {
  return new Set(textWords(text).map(stem));
}

function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function wordCount(text: string): number {
  return textWords(text).length;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

// ---------------------------------------------------------------- JSON schema filling

type Schema = Record<string, unknown>;
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

function isSchema(v: unknown): v is Schema {
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

// ---------------------------------------------------------------- planning a turn

type Plan =
  | { kind: 'text'; text: string }
  | { kind: 'calls'; calls: Array<{ name: string; arguments: string; toolCallId: string }> }
  | { kind: 'handoff'; agentId: string }
  | { kind: 'fail'; text: string };

interface UserMessage { text: string; attachments: number; index: number }

function lastUserMessage(history: readonly ConversationEntry[]): UserMessage | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const e = history[i];
    if (e.type === 'message.input' && e.role === 'user') {
      const attachments = typeof e.content === 'string' ? 0 : e.content.filter((c) => c.type !== 'text' && c.type !== 'thinking').length;
      return { text: contentText(e.content), attachments, index: i };
    }
  }
  return null;
}

/** A stable digest of what was said, for ids and wording choices (entry ids and timestamps excluded). */
function conversationKey(request: ChatTurnRequest): string {
  const parts = request.history.map((e) => {
    switch (e.type) {
      case 'message.input': return `in:${e.role}:${contentText(e.content, true)}`;
      case 'message.output': return `out:${contentText(e.content, true)}`;
      case 'function.call': return `call:${e.tool_call_id}:${e.name}:${typeof e.arguments === 'string' ? e.arguments : JSON.stringify(e.arguments)}`;
      case 'function.result': return `result:${e.tool_call_id}:${e.result}`;
      case 'tool.execution': return `exec:${e.name}:${e.arguments}`;
      case 'agent.handoff': return `handoff:${e.previous_agent_id}>${e.next_agent_id}`;
      default: return '';
    }
  });
  return `${request.agent?.id ?? ''}\u0000${request.instructions ?? ''}\u0000${parts.join('\u0001')}`;
}

const TRANSFER_RE = /(?<![\p{L}])(?:transfer\w*|hand(?:ed|ing)?(?:\s+me)?\s+(?:off|over|to)|hand-?off|speak\s+(?:to|with)|talk\s+(?:to|with)|chat\s+with|connect\s+me|put\s+me\s+through|switch\s+(?:me\s+)?(?:over\s+)?to|pass\s+me|route\s+me|redirect\s+me|forward\s+me|escalat\w*)(?![\p{L}])/iu;

function chooseHandoff(text: string, handoffs: readonly HandoffTarget[], selfId: string | null): HandoffTarget | null {
  if (!TRANSFER_RE.test(text)) return null;
  const inText = stemSet(text);
  let best: { target: HandoffTarget; score: number } | null = null;
  for (const target of handoffs) {
    if (selfId !== null && target.id === selfId) continue;
    let score = 0;
    if (target.id && text.toLowerCase().includes(target.id.toLowerCase())) score += 100;
    if (mentionIndex(text, target.name) >= 0) score += 100;
    const nameWords = new Set(identifierWords(target.name).filter((w) => !GENERIC_NAME_WORDS.has(w) && w.length >= 3).map(stem));
    score += 10 * countHits(nameWords, inText);
    score += countHits(distinctiveWords(target.description, GENERIC_NAME_WORDS), inText);
    if (score > 0 && (best === null || score > best.score)) best = { target, score };
  }
  return best?.target ?? null;
}

interface ToolMatch { def: FunctionDefinition; score: number; explicitAt: number; qualifies: boolean; order: number }

function matchTools(text: string, defs: readonly FunctionDefinition[]): ToolMatch[] {
  const inText = stemSet(text);
  return defs.map((def, order) => {
    const words = identifierWords(def.name);
    const m = words.length ? phraseRegExp(words).exec(text) : null;
    const explicitAt = m ? m.index : -1;
    const nameWords = new Set(words.filter((w) => !GENERIC_NAME_WORDS.has(w) && w.length >= 3 && !STOPWORDS.has(w)).map(stem));
    const nameHits = countHits(nameWords, inText);
    const descWords = distinctiveWords(def.description, GENERIC_NAME_WORDS);
    for (const w of nameWords) descWords.delete(w);
    const descHits = countHits(descWords, inText);
    const score = (explicitAt >= 0 ? 100 : 0) + 10 * nameHits + descHits;
    return { def, score, explicitAt, qualifies: explicitAt >= 0 || nameHits >= 1 || descHits >= 2, order };
  });
}

function planCalls(request: ChatTurnRequest, user: UserMessage): Plan | null {
  const choice = request.completionArgs?.tool_choice ?? 'auto';
  if (choice === 'none') return null;
  const defs = request.tools.flatMap((t) => (t.type === 'function' ? [t.function] : []));
  if (defs.length === 0) return null;
  const forced = choice === 'any' || choice === 'required';
  const matches = matchTools(user.text, defs);
  const explicit = matches.filter((m) => m.explicitAt >= 0).sort((a, b) => a.explicitAt - b.explicitAt);
  let chosen: Array<{ def: FunctionDefinition; text: string }>;
  if (explicit.length >= 2) {
    chosen = explicit.map((m, i) => ({
      def: m.def,
      text: user.text.slice(i === 0 ? 0 : m.explicitAt, i + 1 < explicit.length ? explicit[i + 1].explicitAt : undefined),
    }));
  } else {
    const ranked = [...matches].sort((a, b) => b.score - a.score || a.order - b.order);
    const best = ranked[0];
    if (!best.qualifies && !forced) return null;
    chosen = [{ def: best.def, text: user.text }];
  }
  const key = conversationKey(request);
  return {
    kind: 'calls',
    calls: chosen.map(({ def, text }, i) => {
      const parameters = isSchema(def.parameters) ? def.parameters : {};
      const root: Schema = Object.keys(parameters).length ? parameters : { type: 'object', properties: {} };
      const args = fillJsonSchema(root, text, { avoidWords: identifierWords(def.name) });
      return { name: def.name, arguments: JSON.stringify(args ?? {}), toolCallId: shortId(`${key}\u0002${i}\u0002${def.name}`) };
    }),
  };
}

function describeResult(result: string): { markdown: string; plain: string; parsed: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(result);
  } catch {
    const t = truncate(result.trim(), 400);
    const quoted = t ? t.split('\n').map((l) => `> ${l}`).join('\n') : '> *(an empty result)*';
    return { markdown: `\n\n${quoted}`, plain: t || '(empty)', parsed: result };
  }
  const plain = truncate(JSON.stringify(parsed), 300);
  if (parsed === null || typeof parsed !== 'object') {
    return { markdown: ` **${typeof parsed === 'string' ? truncate(parsed, 300) : String(parsed)}**.`, plain, parsed };
  }
  const entries = Array.isArray(parsed) ? [] : Object.entries(parsed as Record<string, unknown>);
  const flat = !Array.isArray(parsed) && entries.length > 0 && entries.length <= 12 && entries.every(([, v]) => v === null || typeof v !== 'object');
  if (flat) {
    return { markdown: `\n\n${entries.map(([k, v]) => `- **${k}**: ${typeof v === 'string' ? truncate(v, 200) : String(v)}`).join('\n')}`, plain, parsed };
  }
  let pretty = JSON.stringify(parsed, null, 2);
  const lines = pretty.split('\n');
  if (lines.length > 40) pretty = `${lines.slice(0, 40).join('\n')}\n…`;
  const fence = codeFence(pretty);
  return { markdown: `\n\n${fence}json\n${pretty}\n${fence}`, plain, parsed };
}

function codeFence(code: string): string {
  let longest = 0;
  for (const m of code.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function resultReply(request: ChatTurnRequest, results: Array<{ tool_call_id: string; result: string }>): { markdown: string; plain: string } {
  const names = new Map<string, string>();
  for (const e of request.history) if (e.type === 'function.call') names.set(e.tool_call_id, e.name);
  const md: string[] = [];
  const plain: string[] = [];
  for (const r of results) {
    const name = names.get(r.tool_call_id);
    const label = name ? `The \`${name}\` tool` : `The tool call \`${r.tool_call_id}\``;
    const d = describeResult(r.result);
    md.push(`${label} returned:${d.markdown}`);
    plain.push(`${name ? `The ${name} tool` : `The tool call ${r.tool_call_id}`} returned: ${d.plain}`);
  }
  const closing = pick(
    ['I am a deterministic stand-in, so that is the result as-is.', 'That is what came back; I pass it on without interpreting it.', 'Shown as received; a real model would interpret it for you.'],
    results.map((r) => r.result).join('\n'),
    request.completionArgs?.random_seed ?? 0,
  );
  return { markdown: `${md.join('\n\n')}\n\n${closing}`, plain: plain.join(' ') };
}

const MARKDOWN_WANTS = {
  headings: /(?<![\p{L}])(?:headings?|headers?|titles?)(?![\p{L}])/iu,
  lists: /(?<![\p{L}])(?:lists?|bullets?|bulleted|bullet\s+points?|numbered)(?![\p{L}])/iu,
  code: /(?<![\p{L}])(?:code|snippets?|codeblocks?)(?![\p{L}])/iu,
  table: /(?<![\p{L}])tables?(?![\p{L}])/iu,
  link: /(?<![\p{L}])(?:links?|urls?|hyperlinks?)(?![\p{L}])/iu,
} as const;
type MarkdownPart = keyof typeof MARKDOWN_WANTS;

function markdownWants(text: string): Set<MarkdownPart> | null {
  if (/(?<![\p{L}])markdown(?![\p{L}])/iu.test(text)) return new Set(Object.keys(MARKDOWN_WANTS) as MarkdownPart[]);
  const wants = new Set<MarkdownPart>();
  for (const [part, re] of Object.entries(MARKDOWN_WANTS) as Array<[MarkdownPart, RegExp]>) if (re.test(text)) wants.add(part);
  return wants.size ? wants : null;
}

function escapeCell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

function markdownReply(user: UserMessage, wants: Set<MarkdownPart>, all: boolean): string {
  const text = collapse(user.text);
  const words = textWords(text);
  const n = words.length;
  const h = wants.has('headings');
  const out: string[] = [];
  const section = (title: string, body: string): void => {
    out.push(h ? `## ${title}\n\n${body}` : body);
  };
  if (h) out.push('# Markdown demo');
  out.push(all
    ? `Here is **every** element I can render, built from your message of ${plural(n, 'word')}: *emphasis*, **strong**, \`inline code\` and ~~strikethrough~~.\n\n> A blockquote: “${escapeCell(truncate(text, 80))}”`
    : `Here is the formatting you asked for, built from your message of ${plural(n, 'word')}.`);
  if (h && !all && wants.size === 1) {
    out.push('### A third-level heading\n\nHeadings go from `#` (largest) to `######` (smallest).');
  }
  if (wants.has('lists')) {
    const longest = words.reduce((a, w) => (w.length > a.length ? w : a), '');
    section('Lists', [
      `- **Words:** ${n}`,
      `- **Characters:** ${Array.from(text).length}`,
      `- **Longest word:** ${longest ? `\`${longest}\`` : '*(none)*'}`,
      '',
      '1. Read your message',
      '2. Count its words',
      '3. Format this reply',
    ].join('\n'));
  }
  if (wants.has('code')) {
    const code = `const message = ${JSON.stringify(text)};\nconst words = message.split(/\\s+/).filter(Boolean);\nconsole.log(words.length); // ${n}`;
    const fence = codeFence(code);
    section('Code', `${fence}typescript\n${code}\n${fence}`);
  }
  if (wants.has('table')) {
    const rows = words.slice(0, 5).map((w, i) => `| ${i + 1} | ${escapeCell(w)} | ${Array.from(w).length} |`);
    if (rows.length === 0) rows.push('| 1 | *(no words)* | 0 |');
    section('Table', ['| # | Word | Letters |', '|---:|:---|---:|', ...rows].join('\n'));
  }
  if (wants.has('link')) {
    section('Links', 'Read the [CommonMark help](https://commonmark.org/help/) for more syntax, or see <https://spec.commonmark.org/>.');
  }
  return out.join('\n\n');
}

function instructionsExcerpt(instructions: string | null): string | null {
  const t = collapse(instructions ?? '');
  return t ? truncate(t, 80) : null;
}

function defaultReply(request: ChatTurnRequest, user: UserMessage | null, handedFrom: string | null): { markdown: string; plain: string } {
  const seed = request.completionArgs?.random_seed ?? 0;
  const agent = request.agent?.name ?? null;
  const excerpt = instructionsExcerpt(request.instructions);
  const who = agent ? `I'm **${agent}**, running on \`parley-local\`` : "I'm `parley-local`";
  const whoPlain = agent ? `I'm ${agent}, running on parley-local` : "I'm parley-local";
  const lines: string[] = [];
  const plain: string[] = [];
  if (handedFrom) {
    lines.push(`You've been handed over from **${handedFrom}**.`);
    plain.push(`You've been handed over from ${handedFrom}.`);
  }
  const text = collapse(user?.text ?? '');
  if (!user) {
    lines.push(`Hello! ${who}, a deterministic stand-in rather than a language model. There is no user message to respond to yet.`);
    plain.push(`Hello! ${whoPlain}, a deterministic stand-in rather than a language model. There is no user message to respond to yet.`);
  } else if (!text) {
    const att = user.attachments ? ` (it has ${plural(user.attachments, 'attachment')}, which I cannot look at)` : '';
    lines.push(`Your last message has no text${att}. ${who}, a deterministic stand-in rather than a language model.`);
    plain.push(`Your last message has no text${att}. ${whoPlain}, a deterministic stand-in rather than a language model.`);
  } else {
    const n = wordCount(text);
    const opener = pick(['Got it.', 'Message received.', 'Thanks for your message.', 'Here is what I heard.'], text, seed);
    const question = /\?\s*$/u.test(text);
    const quote = truncate(text, 160);
    lines.push(`${opener} You wrote:\n\n> ${quote}`);
    lines.push(`That is **${plural(n, 'word')}**${question ? ' and a question' : ''}. ${who}, a deterministic stand-in that describes messages instead of understanding them${question ? ', so I cannot really answer' : ''}.`);
    plain.push(`${opener} You wrote "${quote}" (${plural(n, 'word')}${question ? ', a question' : ''}). ${whoPlain}, a deterministic stand-in, not a language model.`);
  }
  if (excerpt) {
    lines.push(`My instructions begin: *“${excerpt}”*`);
    plain.push(`My instructions begin: "${excerpt}"`);
  }
  lines.push('Ask for *markdown*, a *table*, *code*, a *list* or a *heading* to see formatting; name a tool to get a function call; send `/fail` to see an error mid-reply.');
  return { markdown: lines.join('\n\n'), plain: plain.join(' ') };
}

function jsonText(format: ResponseFormat, user: UserMessage | null, plainReply: string): string {
  if (format.type === 'json_schema' && format.json_schema && isSchema(format.json_schema.schema)) {
    return JSON.stringify(fillJsonSchema(format.json_schema.schema, user?.text ?? '', { reply: plainReply }), null, 2);
  }
  return JSON.stringify({ reply: plainReply, words: wordCount(user?.text ?? '') }, null, 2);
}

function planTurn(request: ChatTurnRequest): Plan {
  const history = request.history;
  const format = request.completionArgs?.response_format ?? null;
  const json = format?.type === 'json_object' || format?.type === 'json_schema' ? format : null;
  const user = lastUserMessage(history);
  const asText = (reply: { markdown: string; plain: string }): Plan => ({ kind: 'text', text: json ? jsonText(json, user, reply.plain) : reply.markdown });

  // 1. follow up on function results
  const results: Array<{ tool_call_id: string; result: string }> = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const e = history[i];
    if (e.type !== 'function.result') break;
    results.unshift(e);
  }
  if (results.length) return asText(resultReply(request, results));

  // 2. the failure hook
  if (user && user.text.trim() === LOCAL_FAIL_TRIGGER) {
    return { kind: 'fail', text: 'Starting a reply that is about to fail on purpose' };
  }

  const since = user ? history.slice(user.index + 1) : [];
  const handoffEntry = [...since].reverse().find((e) => e.type === 'agent.handoff');
  const handedFrom = handoffEntry && handoffEntry.type === 'agent.handoff' ? handoffEntry.previous_agent_name : null;

  if (user) {
    // 3. handoffs (once per user message, never to self)
    if (request.handoffs.length && !handoffEntry) {
      const target = chooseHandoff(user.text, request.handoffs, request.agent?.id ?? null);
      if (target) return { kind: 'handoff', agentId: target.id };
    }
    // 4. function calls (once per user message)
    if (!since.some((e) => e.type === 'function.call')) {
      const calls = planCalls(request, user);
      if (calls) return calls;
    }
    // 5. JSON / markdown / default
    if (!json) {
      const wants = markdownWants(user.text);
      if (wants) {
        const md = markdownReply(user, wants, /(?<![\p{L}])markdown(?![\p{L}])/iu.test(user.text));
        return { kind: 'text', text: handedFrom ? `You've been handed over from **${handedFrom}**.\n\n${md}` : md };
      }
    }
  }
  return asText(defaultReply(request, user, handedFrom));
}

/** Cut `text` before the first occurrence of any stop sequence. */
function applyStop(text: string, stop: string | string[] | null | undefined): string {
  const stops = (typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop : []).filter((s) => typeof s === 'string' && s.length > 0);
  let cut = text.length;
  for (const s of stops) {
    const i = text.indexOf(s);
    if (i >= 0 && i < cut) cut = i;
  }
  return text.slice(0, cut);
}

function limitTokens(tokens: string[], maxTokens: number | null | undefined): string[] {
  if (typeof maxTokens !== 'number' || !Number.isFinite(maxTokens)) return tokens;
  return tokens.slice(0, Math.max(0, Math.floor(maxTokens)));
}

/** Split JSON text into a few pieces along token boundaries. */
function argumentPieces(json: string): string[] {
  const tokens = tokenize(json);
  const count = Math.min(4, Math.max(1, Math.ceil(tokens.length / 3)));
  const size = Math.ceil(tokens.length / count);
  const pieces: string[] = [];
  for (let i = 0; i < tokens.length; i += size) pieces.push(tokens.slice(i, i + size).join(''));
  return pieces.length ? pieces : [json];
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

// ---------------------------------------------------------------- the engine

const LOCAL_MODEL_CARD: ModelCard = modelCard({
  id: LOCAL_CHAT_MODEL_ID,
  created: 1735689600,
  ownedBy: 'parley',
  capabilities: { completion_chat: true, function_calling: true },
  name: 'Parley local stand-in',
  description:
    'A deterministic local stand-in for offline development, not a language model: it describes your message instead of ' +
    'understanding it, demonstrates markdown when asked, calls function tools you name, hands off to agents you ask for and ' +
    'fails on purpose on "/fail". It also answers to mistral-small-latest, mistral-medium-latest and mistral-large-latest so ' +
    'code written for the hosted platform runs offline.',
  aliases: [...LOCAL_CHAT_MODEL_ALIASES],
});

/**
 * Create the `parley-local` chat engine: a deterministic stand-in (no ML, no randomness, no network)
 * that exercises every path a chat UI renders. See the module documentation for its rules.
 *
 * Test hook: when the last user message is exactly `/fail` (after trimming), the engine streams a few
 * text tokens and then throws `Error("parley-local failed on purpose …")`, so UIs can exercise
 * mid-stream failures.
 *
 * Pacing: with `tokenDelayMs` > 0 it waits that long between tokens; aborting `request.signal` stops
 * the generator promptly by throwing the signal's reason (an `AbortError` `DOMException` by default).
 */
export function createLocalChatEngine(options: LocalChatEngineOptions = {}): ChatEngine {
  const delay = Math.max(0, options.tokenDelayMs ?? 0);

  async function* run(request: ChatTurnRequest): AsyncGenerator<ChatEngineEvent> {
    const { signal } = request;
    if (signal.aborted) throw abortReason(signal);
    const plan = planTurn(request);
    const promptTokens = countPromptTokens(request.instructions, request.history);
    let completionTokens = 0;
    let first = true;
    const pace = async (): Promise<void> => {
      if (!first && delay > 0) await sleep(delay, signal);
      first = false;
      if (signal.aborted) throw abortReason(signal);
    };
    const args = request.completionArgs ?? {};

    switch (plan.kind) {
      case 'handoff':
        await pace();
        yield { kind: 'handoff', agentId: plan.agentId };
        return;
      case 'calls':
        for (const call of plan.calls) {
          for (const piece of argumentPieces(call.arguments)) {
            await pace();
            completionTokens += countTokens(piece);
            yield { kind: 'function_call', toolCallId: call.toolCallId, name: call.name, argumentsDelta: piece };
          }
        }
        break;
      case 'fail': {
        for (const token of limitTokens(tokenize(plan.text), args.max_tokens)) {
          await pace();
          completionTokens++;
          yield { kind: 'text', delta: token };
        }
        await pace();
        throw new Error(
          `parley-local failed on purpose: the last user message was "${LOCAL_FAIL_TRIGGER}", the test hook for mid-stream errors ` +
            `(after ${completionTokens} tokens).`,
        );
      }
      case 'text':
        for (const token of limitTokens(tokenize(applyStop(plan.text, args.stop)), args.max_tokens)) {
          await pace();
          completionTokens++;
          yield { kind: 'text', delta: token };
        }
        break;
    }
    if (signal.aborted) throw abortReason(signal);
    yield { kind: 'usage', promptTokens, completionTokens };
  }

  return {
    models: () => [structuredClone(LOCAL_MODEL_CARD)],
    run,
  };
}
