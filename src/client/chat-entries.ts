/**
 * Pure functions over a conversation's entries as a chat shows them: applying stream events,
 * and reconciling what the page saw with what the server stored. No I/O; arrays are never mutated.
 */
import type { CachedEntry } from './contracts.js';
import { contentText } from './message-content.js';
import type {
  ConversationEntry, ConversationEvent, InputContentChunk, InputEntry, MessageOutputEntry, OutputContentChunk,
} from './types.js';
import { isLocalId, localId, nowIso } from './local-ids.js';

export { LOCAL_ID_PREFIX, isLocalId, localId, nowIso } from './local-ids.js';

/** Entries the caller sends (a user message, a function result); everything else is produced by the agent. */
export function isInputEntry(entry: ConversationEntry): boolean {
  return entry.type === 'message.input' || entry.type === 'function.result';
}

/** A page-made entry as the input it was sent as. */
export function toInput(entry: CachedEntry): InputEntry {
  if (entry.type === 'function.result') return { type: 'function.result', tool_call_id: entry.tool_call_id, result: entry.result };
  if (entry.type === 'message.input') return { role: entry.role, content: entry.content };
  throw new Error(`Entry '${entry.id}' of type ${entry.type} is not an input`);
}

/** A conversation's title: its first user message on one line, shortened. */
export function titleOf(entries: readonly ConversationEntry[], max = 80): string {
  const first = entries.find((e) => e.type === 'message.input' && e.role === 'user');
  const text = first && first.type === 'message.input' ? contentText(first.content).replace(/\s+/g, ' ').trim() : '';
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

/** Orders entries by `created_at` (ISO times: string order is time order), for `Array.prototype.sort`. */
export function byCreatedAt(a: { created_at: string }, b: { created_at: string }): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0;
}


/** The result of applying one event: the new entries and the entry that changed (null when none did). */
export interface Applied {
  entries: CachedEntry[];
  changed: CachedEntry | null;
}

/**
 * Applies one stream event: deltas grow the entry with that id (created on its first delta),
 * handoffs build an `agent.handoff` entry. Events that carry no entry change nothing here.
 */
export function applyEvent(entries: CachedEntry[], event: ConversationEvent): Applied {
  const created_at = event.created_at ?? nowIso();
  switch (event.type) {
    case 'message.output.delta':
      return upsert(entries, event.id, () => ({
        object: 'entry', type: 'message.output', id: event.id, role: 'assistant', content: '',
        agent_id: event.agent_id ?? null, model: event.model ?? null, created_at, completed_at: null,
      }), (entry) => (entry.type === 'message.output' ? { ...entry, content: appendContent(entry.content, event.content) } : entry));
    case 'function.call.delta':
      return upsert(entries, event.id, () => ({
        object: 'entry', type: 'function.call', id: event.id, tool_call_id: event.tool_call_id, name: event.name, arguments: '',
        agent_id: event.agent_id ?? null, model: event.model ?? null, created_at, completed_at: null,
      }), (entry) => {
        if (entry.type !== 'function.call') return entry;
        const next = { ...entry, arguments: entry.arguments + (event.arguments ?? '') };
        if (event.confirmation_status !== undefined) next.confirmation_status = event.confirmation_status;
        return next;
      });
    case 'tool.execution.started':
      return upsert(entries, event.id, () => ({
        object: 'entry', type: 'tool.execution', id: event.id, name: event.name, arguments: '', info: {},
        agent_id: event.agent_id ?? null, model: event.model ?? null, created_at, completed_at: null,
      }), (entry) => (entry.type === 'tool.execution' ? { ...entry, arguments: event.arguments ?? '' } : entry));
    case 'tool.execution.delta':
      return upsert(entries, event.id, () => ({
        object: 'entry', type: 'tool.execution', id: event.id, name: event.name, arguments: '', info: {}, created_at, completed_at: null,
      }), (entry) => (entry.type === 'tool.execution' ? { ...entry, arguments: entry.arguments + (event.arguments ?? '') } : entry));
    case 'tool.execution.done':
      return upsert(entries, event.id, () => ({
        object: 'entry', type: 'tool.execution', id: event.id, name: event.name, arguments: '', info: {}, created_at, completed_at: null,
      }), (entry) => (entry.type === 'tool.execution' ? { ...entry, info: event.info ?? {}, completed_at: created_at } : entry));
    case 'agent.handoff.started':
      return upsert(entries, event.id, () => ({
        object: 'entry', type: 'agent.handoff', id: event.id, previous_agent_id: event.previous_agent_id,
        previous_agent_name: event.previous_agent_name, next_agent_id: '', next_agent_name: '', created_at, completed_at: null,
      }), (entry) => entry);
    case 'agent.handoff.done':
      return upsert(entries, event.id, () => ({
        object: 'entry', type: 'agent.handoff', id: event.id, previous_agent_id: '', previous_agent_name: '',
        next_agent_id: '', next_agent_name: '', created_at, completed_at: null,
      }), (entry) => (entry.type === 'agent.handoff'
        ? { ...entry, next_agent_id: event.next_agent_id, next_agent_name: event.next_agent_name, completed_at: created_at }
        : entry));
    default:
      return { entries, changed: null };
  }
}

function upsert(
  entries: CachedEntry[],
  id: string,
  create: () => CachedEntry,
  update: (entry: CachedEntry) => CachedEntry,
): Applied {
  // The entry being streamed is nearly always the last one.
  let index = -1;
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].id === id) {
      index = i;
      break;
    }
  }
  const changed = update(index < 0 ? create() : entries[index]);
  const next = entries.slice();
  if (index < 0) next.push(changed);
  else next[index] = changed;
  return { entries: next, changed };
}

/** Appends a delta (a string or one chunk) to message content; a chunk turns string content into chunks. */
export function appendContent(content: MessageOutputEntry['content'], delta: string | OutputContentChunk): MessageOutputEntry['content'] {
  if (typeof delta === 'string') {
    if (typeof content === 'string') return content + delta;
    return appendChunk(content, { type: 'text', text: delta });
  }
  const chunks: OutputContentChunk[] = typeof content === 'string' ? (content ? [{ type: 'text', text: content }] : []) : content;
  return appendChunk(chunks, delta);
}

function appendChunk(chunks: OutputContentChunk[], chunk: OutputContentChunk): OutputContentChunk[] {
  const last = chunks[chunks.length - 1];
  if (chunk.type === 'text' && last?.type === 'text') return [...chunks.slice(0, -1), { type: 'text', text: last.text + chunk.text }];
  return [...chunks, chunk];
}

/** Sets `completed_at` on the listed entries that have none. */
export function completeEntries(entries: CachedEntry[], ids: ReadonlySet<string>, at = nowIso()): CachedEntry[] {
  return entries.map((e) => (ids.has(e.id) && !e.completed_at ? { ...e, completed_at: at } : e));
}

/** Marks one entry as cut off before it finished. */
export function markInterrupted(entries: CachedEntry[], id: string | null): { entries: CachedEntry[]; changed: CachedEntry | null } {
  if (!id) return { entries, changed: null };
  const index = entries.findIndex((e) => e.id === id);
  if (index < 0 || entries[index].interrupted) return { entries, changed: null };
  const changed = { ...entries[index], interrupted: true };
  const next = entries.slice();
  next[index] = changed;
  return { entries: next, changed };
}

/** A cached conversation whose last entry is an unfinished reply: that reply was cut (reload, lost connection). */
export function markCutReply(entries: CachedEntry[]): CachedEntry[] {
  const last = entries[entries.length - 1];
  if (!last || isInputEntry(last) || last.completed_at || last.interrupted) return entries;
  return [...entries.slice(0, -1), { ...last, interrupted: true }];
}

/** A message the visitor writes, as the page shows it until the server names it. */
export function userEntry(content: string | InputContentChunk[]): CachedEntry {
  const now = nowIso();
  return { object: 'entry', type: 'message.input', id: localId(), role: 'user', content, prefix: false, created_at: now, completed_at: now };
}

/** The last entry the agent produced (not an input), if any. */
export function lastReply(entries: readonly CachedEntry[]): CachedEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (!isInputEntry(entries[i])) return entries[i];
  return undefined;
}

/** The agent speaking after the last handoff in `entries`, if any. */
export function agentNameIn(entries: readonly ConversationEntry[]): string | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.type === 'agent.handoff' && e.next_agent_name) return e.next_agent_name;
  }
  return null;
}

/** Entries as they were at a stored resume point: the reply being streamed carries on (not marked cut). */
export function resumable(entries: CachedEntry[], entryId: string | null): CachedEntry[] {
  return entries.map((e) => {
    if (e.id !== entryId || !e.interrupted) return e;
    const { interrupted: _, ...rest } = e;
    return rest as CachedEntry;
  });
}

/** What identifies an entry the page made before the server named it. */
function signature(entry: ConversationEntry): string {
  switch (entry.type) {
    case 'message.input':
      return `input:${entry.role}:${contentText(entry.content)}`;
    case 'function.result':
      return `result:${entry.tool_call_id}:${entry.result}`;
    case 'message.output':
      return `output:${contentText(entry.content)}`;
    case 'function.call':
      return `call:${entry.tool_call_id}`;
    default:
      return `${entry.type}:${entry.id}`;
  }
}

/** The outcome of {@link reconcileEntries}. */
export interface Reconciled {
  entries: CachedEntry[];
  /** Temporary ids that the server's history named, mapped to the server's ids. */
  renamed: Map<string, string>;
}

/** What {@link dropLocalTwins} and {@link reconcileEntries} know besides the entries. */
export interface TwinOptions {
  /** Temporary ids already matched to a server id (a session's earlier reconciliations). */
  aliases?: ReadonlyMap<string, string>;
  /** Temporary ids that may never have reached the server (unsent, waiting): never taken for twins. */
  keep?: ReadonlySet<string>;
}

/**
 * Removes page-made entries whose server copy is already in the list (issue 16, tabs): a tab streaming a
 * turn stores and broadcasts its inputs under temporary ids once the server has them, so another tab (or
 * the store, written by both) can hold the server's copy and the page's side by side. A temporary entry
 * is a twin when an alias names an entry present, or when, looking back from it within its turn (over
 * inputs and the reply still streaming, up to the last reply that ended or was cut), a server-named entry
 * of the same kind and content is found that no other twin took. `renamed` maps the twins dropped.
 */
export function dropLocalTwins(entries: readonly CachedEntry[], options: TwinOptions = {}): Reconciled {
  const { aliases, keep } = options;
  if (!entries.some((e) => isLocalId(e.id) && !keep?.has(e.id))) return { entries: entries.slice(), renamed: new Map() };
  const ids = new Set(entries.map((e) => e.id));
  const renamed = new Map<string, string>();
  const claimed = new Set<number>();
  for (let j = 0; j < entries.length; j++) {
    const entry = entries[j];
    if (!isLocalId(entry.id) || keep?.has(entry.id)) continue;
    const alias = aliases?.get(entry.id);
    if (alias && ids.has(alias)) {
      renamed.set(entry.id, alias);
      continue;
    }
    const sig = signature(entry);
    for (let k = j - 1; k >= 0; k--) {
      const e = entries[k];
      if (isLocalId(e.id)) continue;
      if (!claimed.has(k) && signature(e) === sig) {
        claimed.add(k);
        renamed.set(entry.id, e.id);
        break;
      }
      if (!isInputEntry(e) && (e.completed_at || e.interrupted)) break; // an earlier turn's reply: no twin beyond it
    }
  }
  return { entries: entries.filter((e) => !renamed.has(e.id)), renamed };
}

/**
 * The server's history, as the chat should show it:
 * - the server's entries in the server's order (its content wins), keeping the page's `interrupted` marks by id
 *   (unless the server has a finished, different version of that entry);
 * - the page's temporary-id entries are matched, in order, to server entries of the same kind and content
 *   (that is how a user message learns its server id);
 * - page entries the server does not have (a reply still being saved after a stop, a message that never
 *   reached the server) are kept after them, so nothing the user saw disappears;
 * - a temporary entry next to its own server copy (see {@link dropLocalTwins}) is dropped, never shown twice.
 */
export function reconcileEntries(local: readonly CachedEntry[], server: readonly ConversationEntry[], options: TwinOptions = {}): Reconciled {
  const localById = new Map(local.map((e) => [e.id, e]));
  const serverIds = new Set(server.map((e) => e.id));
  const renamed = new Map<string, string>();
  const claimed = new Set<number>();
  let from = 0;
  for (const entry of local) {
    if (!isLocalId(entry.id)) continue;
    const sig = signature(entry);
    for (let i = from; i < server.length; i++) {
      if (claimed.has(i) || localById.has(server[i].id)) continue;
      if (signature(server[i]) === sig) {
        claimed.add(i);
        renamed.set(entry.id, server[i].id);
        from = i + 1;
        break;
      }
    }
  }
  // A temporary entry left unmatched beside its own server copy is that copy (see dropLocalTwins), not a message of its own.
  const twins = dropLocalTwins(local, { aliases: options.aliases, keep: new Set([...options.keep ?? [], ...renamed.keys()]) });
  local = twins.entries;
  const cut = new Map<string, CachedEntry>();
  for (const e of local) if (e.interrupted) cut.set(renamed.get(e.id) ?? e.id, e);
  // A reply cut here stays marked unless the server finished it after all (it kept going after a reload).
  const stillCut = (e: ConversationEntry, seen: CachedEntry) => !e.completed_at || signature(e) === signature(seen);
  const entries: CachedEntry[] = server.map((e) => {
    const seen = cut.get(e.id);
    return seen && stillCut(e, seen) ? { ...e, interrupted: true } : e;
  });
  for (const e of local) if (!serverIds.has(e.id) && !renamed.has(e.id)) entries.push(e);
  for (const [from, to] of twins.renamed) renamed.set(from, to);
  return { entries, renamed };
}
