/**
 * The text replies of `parley-local`: what a tool returned, the markdown demonstration (headings, lists, code,
 * tables, links), the default reply that describes the message, and JSON-mode replies.
 */
import type { ResponseFormat } from 'parley-kit/types';
import { fillJsonSchema, isSchema } from './json-schema-filler.js';
import { pick } from './stable-hash.js';
import type { ChatTurnRequest } from './types.js';
import { collapse, textWords } from './words.js';

/** The last user message: its text, how many non-text chunks it has, and where it is in the history. */
export interface UserMessage { text: string; attachments: number; index: number }

function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

function wordCount(text: string): number {
  return textWords(text).length;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
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

export function resultReply(request: ChatTurnRequest, results: Array<{ tool_call_id: string; result: string }>): { markdown: string; plain: string } {
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

export function markdownWants(text: string): Set<MarkdownPart> | null {
  if (/(?<![\p{L}])markdown(?![\p{L}])/iu.test(text)) return new Set(Object.keys(MARKDOWN_WANTS) as MarkdownPart[]);
  const wants = new Set<MarkdownPart>();
  for (const [part, re] of Object.entries(MARKDOWN_WANTS) as Array<[MarkdownPart, RegExp]>) if (re.test(text)) wants.add(part);
  return wants.size ? wants : null;
}

function escapeCell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

export function markdownReply(user: UserMessage, wants: Set<MarkdownPart>, all: boolean): string {
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

export function defaultReply(request: ChatTurnRequest, user: UserMessage | null, handedFrom: string | null): { markdown: string; plain: string } {
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

export function jsonText(format: ResponseFormat, user: UserMessage | null, plainReply: string): string {
  if (format.type === 'json_schema' && format.json_schema && isSchema(format.json_schema.schema)) {
    return JSON.stringify(fillJsonSchema(format.json_schema.schema, user?.text ?? '', { reply: plainReply }), null, 2);
  }
  return JSON.stringify({ reply: plainReply, words: wordCount(user?.text ?? '') }, null, 2);
}
