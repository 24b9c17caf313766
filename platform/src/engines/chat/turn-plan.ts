/**
 * The turn planner of `parley-local`: what the turn does, in order: follow up on function results, fail on purpose,
 * hand off to a named agent, call the tools a message names, or reply (JSON, markdown or the default reply).
 */
import type { ConversationEntry, FunctionDefinition } from 'parley-kit/types';
import { contentText } from 'parley-kit/wire';
import { fillJsonSchema, isSchema, type Schema } from './json-schema-filler.js';
import { LIBRARY_TOOL_NAME, libraryReply, parseLibraryResult } from './library.js';
import { defaultReply, jsonText, markdownReply, markdownWants, resultReply, type UserMessage } from './replies.js';
import type { Embed } from './passages.js';
import { readingReply, shiftSources, type CitedSource } from './reading.js';
import { shortId } from './stable-hash.js';
import type { ChatTurnRequest, HandoffTarget } from './types.js';
import {
  countHits, distinctiveWords, GENERIC_NAME_WORDS, identifierWords, mentionIndex, phraseRegExp, stem, stemSet, STOPWORDS,
} from './words.js';

/** The message that makes `parley-local` fail on purpose mid-stream. */
export const LOCAL_FAIL_TRIGGER = '/fail';

/**
 * What a turn does: stream text (and the sources it quotes, each once the text up to its `end` is out), call
 * functions, hand off, or stream a little text and fail.
 */
export type Plan =
  | { kind: 'text'; text: string; sources?: CitedSource[] }
  | { kind: 'calls'; calls: Array<{ name: string; arguments: string; toolCallId: string }> }
  | { kind: 'handoff'; agentId: string }
  | { kind: 'fail'; text: string };

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
  const defs = request.tools.flatMap((t) => (t.type === 'function' && t.function.name !== LIBRARY_TOOL_NAME ? [t.function] : []));
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

/** Whether the message names one of the function tools (and tools may be called). */
function namesTool(request: ChatTurnRequest, user: UserMessage): boolean {
  if ((request.completionArgs?.tool_choice ?? 'auto') === 'none') return false;
  const defs = request.tools.flatMap((t) => (t.type === 'function' ? [t.function] : []));
  return matchTools(user.text, defs).some((m) => m.explicitAt >= 0);
}

/** A call of the `document_library` tool with the user's message as the query, when the tool is offered. */
function planLibraryCall(request: ChatTurnRequest, user: UserMessage): Plan | null {
  if ((request.completionArgs?.tool_choice ?? 'auto') === 'none' || !user.text.trim()) return null;
  if (!request.tools.some((t) => t.type === 'function' && t.function.name === LIBRARY_TOOL_NAME)) return null;
  const args = JSON.stringify({ query: user.text.trim() });
  return { kind: 'calls', calls: [{ name: LIBRARY_TOOL_NAME, arguments: args, toolCallId: shortId(`${conversationKey(request)}\u0002library`) }] };
}

/** Decide the turn (the rules, in order, are the table in local.ts); `embed` ranks the passages of read attachments. */
export function planTurn(request: ChatTurnRequest, embed?: Embed): Plan {
  const history = request.history;
  const format = request.completionArgs?.response_format ?? null;
  const json = format?.type === 'json_object' || format?.type === 'json_schema' ? format : null;
  const user = lastUserMessage(history);
  const asText = (reply: { markdown: string; plain: string }): Extract<Plan, { kind: 'text' }> => ({ kind: 'text', text: json ? jsonText(json, user, reply.plain) : reply.markdown });

  // 1. follow up on function results
  const results: Array<{ tool_call_id: string; result: string }> = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const e = history[i];
    if (e.type !== 'function.result') break;
    results.unshift(e);
  }
  if (results.length) {
    // results of the document_library tool are answered with the passages found
    const names = new Map(history.flatMap((e) => (e.type === 'function.call' ? [[e.tool_call_id, e.name] as const] : [])));
    const found = results.map((r) => (names.get(r.tool_call_id) === LIBRARY_TOOL_NAME ? parseLibraryResult(r.result) : null));
    if (found.every((f) => f !== null)) return asText(libraryReply(found));
    return asText(resultReply(request, results));
  }

  // 2. the failure hook
  if (user && user.text.trim() === LOCAL_FAIL_TRIGGER) {
    return { kind: 'fail', text: 'Starting a reply that is about to fail on purpose' };
  }

  const since = user ? history.slice(user.index + 1) : [];
  const handoffEntry = [...since].reverse().find((e) => e.type === 'agent.handoff');
  const handedFrom = handoffEntry && handoffEntry.type === 'agent.handoff' ? handoffEntry.previous_agent_name : null;
  /** The reply quoting the read attachments (reading.ts) with its sources (not in JSON), or null. */
  const readAttachments = (u: UserMessage): Plan | null => {
    const reading = embed && request.documents?.length ? readingReply(request.documents, u.text, embed, u.attachments > 0, !json && request.cites === true) : null;
    if (!reading) return null;
    const head = handedFrom ? `You've been handed over from **${handedFrom}**.\n\n` : '';
    const plan = asText({ markdown: `${head}${reading.markdown}`, plain: handedFrom ? `You've been handed over from ${handedFrom}. ${reading.plain}` : reading.plain });
    return reading.sources.length ? { ...plan, sources: shiftSources(reading.sources, head.length) } : plan;
  };

  if (user) {
    // 3. handoffs (once per user message, never to self)
    if (request.handoffs.length && !handoffEntry) {
      const target = chooseHandoff(user.text, request.handoffs, request.agent?.id ?? null);
      if (target) return { kind: 'handoff', agentId: target.id };
    }
    // 4. a message with attachments: quote the passages closest to its question (unless it names a tool)
    if (user.attachments && !namesTool(request, user)) {
      const reading = readAttachments(user);
      if (reading) return reading;
    }
    // 5. function calls (once per user message)
    const called = since.some((e) => e.type === 'function.call');
    if (!called) {
      const calls = planCalls(request, user);
      if (calls) return calls;
    }
    // 6. a question about earlier attachments: quote them when a passage shares its words
    if (!user.attachments) {
      const reading = readAttachments(user);
      if (reading) return reading;
    }
    // 7. JSON / markdown / document library search / default
    if (!json) {
      const wants = markdownWants(user.text);
      if (wants) {
        const md = markdownReply(user, wants, /(?<![\p{L}])markdown(?![\p{L}])/iu.test(user.text));
        return { kind: 'text', text: handedFrom ? `You've been handed over from **${handedFrom}**.\n\n${md}` : md };
      }
    }
    const search = called ? null : planLibraryCall(request, user);
    if (search) return search;
  }
  return asText(defaultReply(request, user, handedFrom));
}
