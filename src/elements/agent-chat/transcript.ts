/**
 * What `<agent-chat>` shows of a conversation: its entries shaped into transcript rows (messages, function
 * calls with their results, handoffs). Pure functions over the session's entries: no DOM, no Lit.
 */
import { contentText } from '../../client/message-content.js';
import type { CachedEntry } from '../../client/contracts.js';
import type { FunctionResultEntry } from '../../client/types.js';

/**
 * One row of the transcript. `key` is stable for the row's lifetime: user messages are keyed by their
 * position, because the session renames their temporary ids once the server has stored them.
 */
export type TranscriptItem = { key: string } & (
  | { kind: 'user'; entry: CachedEntry & { type: 'message.input' }; text: string; attachments: MessageAttachment[] }
  | { kind: 'assistant'; entry: CachedEntry & { type: 'message.output' | 'message.input' }; text: string }
  /** A function call (with its result once it came, else null) or a tool execution (no result); JSON pretty-printed. */
  | { kind: 'call'; entry: CachedEntry & { type: 'function.call' | 'tool.execution' }; arguments: string; result: string | null }
  /** A function result whose call is not in the conversation. */
  | { kind: 'result'; entry: FunctionResultEntry; result: string }
  | { kind: 'handoff'; entry: CachedEntry & { type: 'agent.handoff' } });

/** The rows of a conversation's entries: a function result is shown inside its call when the call is there. */
export function transcriptItems(entries: readonly CachedEntry[]): TranscriptItem[] {
  const results = new Map<string, FunctionResultEntry>();
  const calls = new Set<string>();
  for (const entry of entries) {
    if (entry.type === 'function.result') results.set(entry.tool_call_id, entry);
    else if (entry.type === 'function.call') calls.add(entry.tool_call_id);
  }
  const items: TranscriptItem[] = [];
  let users = 0;
  for (const entry of entries) {
    const key = entry.id;
    switch (entry.type) {
      case 'message.input':
        items.push(entry.role === 'user'
          ? { key: `user-${users++}`, kind: 'user', entry, text: contentText(entry.content), attachments: attachmentsOf(entry.content) }
          : { key, kind: 'assistant', entry, text: contentText(entry.content) });
        break;
      case 'message.output':
        items.push({ key, kind: 'assistant', entry, text: contentText(entry.content) });
        break;
      case 'function.call': {
        const result = results.get(entry.tool_call_id);
        items.push({ key, kind: 'call', entry, arguments: callArguments(entry), result: result ? prettyJson(result.result) : null });
        break;
      }
      case 'tool.execution':
        items.push({ key, kind: 'call', entry, arguments: callArguments(entry), result: null });
        break;
      case 'function.result':
        if (!calls.has(entry.tool_call_id)) items.push({ key: `result-${entry.tool_call_id}`, kind: 'result', entry, result: prettyJson(entry.result) });
        break;
      case 'agent.handoff':
        items.push({ key, kind: 'handoff', entry });
        break;
    }
  }
  return items;
}

/** A file sent with a user message: an `image_url` or `document_url` chunk (`url` is a `data:` or remote URL). */
export interface MessageAttachment { kind: 'image' | 'document'; url: string; name: string }

/** The attachments of message content, in order. */
export function attachmentsOf(content: string | readonly { type: string }[]): MessageAttachment[] {
  const out: MessageAttachment[] = [];
  if (typeof content === 'string') return out;
  for (const chunk of content as Array<{ type: string; image_url?: unknown; document_url?: unknown; document_name?: unknown }>) {
    if (chunk.type === 'image_url') {
      const url = typeof chunk.image_url === 'string' ? chunk.image_url : (chunk.image_url as { url?: unknown } | null)?.url;
      if (typeof url === 'string') out.push({ kind: 'image', url, name: '' });
    } else if (chunk.type === 'document_url' && typeof chunk.document_url === 'string') {
      out.push({ kind: 'document', url: chunk.document_url, name: typeof chunk.document_name === 'string' ? chunk.document_name : '' });
    }
  }
  return out;
}

/** The latest reply of the current turn (after the last user message), or null when the turn has none yet. */
export function lastReply(items: readonly TranscriptItem[]): (TranscriptItem & { kind: 'assistant' }) | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.kind === 'user') break;
    if (item.kind === 'assistant' && item.entry.type === 'message.output') return item;
  }
  return null;
}

/** JSON indented for reading; any other text as it is. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

// `arguments` is a string on the wire; an object that arrives anyway is shown as JSON too.
function callArguments(entry: { arguments: unknown }): string {
  return prettyJson(typeof entry.arguments === 'string' ? entry.arguments : JSON.stringify(entry.arguments));
}
