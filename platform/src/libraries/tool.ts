/**
 * The `document_library` tool in a conversation: `{type:"document_library", library_ids}` offers the engine one
 * function, `document_library({query})` (engines/chat/library.ts), that the platform runs like a connector tool:
 * a call becomes a `tool.execution` entry named `document_library`, the search (search.ts) its result, and the
 * documents of the passages found become `tool_reference` chunks of the reply (turns.ts).
 *
 * - Every library must be readable by the caller (any role: its user, a workspace of theirs, its organization);
 *   an unknown library, or one the caller has no role in, is a 404 naming it, before the turn starts.
 * - Several `document_library` tools are searched as one; a client function named `document_library` is
 *   shadowed by the built-in tool.
 * - A reference names its document by the document's `title` attribute (else its file name) and links to its
 *   `url` attribute when it has one (set with `PUT /v1/libraries/{id}/documents/{id}`); the description is the
 *   passage. These are data: whoever renders them applies its own link and text rules.
 */
import type { Tool, ToolReferenceChunk } from 'parley-kit/types';
import type { Caller } from '../http/caller.js';
import type { PlatformContext } from '../http/context.js';
import { notFound } from '../http/errors.js';
import { LIBRARY_TOOL_NAME, libraryFunction, libraryResultText, type LibraryResult } from '../engines/chat/library.js';
import type { ConnectorToolbox, ConnectorToolOutcome } from '../connectors/toolbox.js';
import { principalOf } from './principal.js';
import { searchLibraries, type LibraryPassage } from './search.js';
import { getLibrary, type LibraryRecord } from './store.js';

type LibraryTool = Extract<Tool, { type: 'document_library' }>;

/** Passages a search returns to the engine. */
const MAX_PASSAGES = 3;
/** A reference's description (the passage) is cut to this many characters. */
const DESCRIPTION_CHARS = 300;

function attribute(passage: LibraryPassage, key: string): string | null {
  const value = passage.attributes?.[key];
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

/** The source a passage is cited as. */
function titleOf(passage: LibraryPassage): string {
  return attribute(passage, 'title') ?? passage.documentName;
}

/** One `tool_reference` chunk per document, in the order of its best passage. */
export function referencesOf(passages: readonly LibraryPassage[]): ToolReferenceChunk[] {
  const byDocument = new Map<string, ToolReferenceChunk>();
  for (const p of passages) {
    if (byDocument.has(p.documentId)) continue;
    const url = attribute(p, 'url');
    byDocument.set(p.documentId, { type: 'tool_reference', tool: LIBRARY_TOOL_NAME, title: titleOf(p), ...(url ? { url } : {}), description: cut(p.text, DESCRIPTION_CHARS) });
  }
  return [...byDocument.values()];
}

/**
 * The libraries of the `document_library` tools among `tools` (null when there is none), each readable by
 * `caller`; throws a 404 PlatformHttpError naming the first that is unknown or that the caller has no role in.
 * Streamed turns call it before their first event, so a refused turn stores nothing.
 */
export async function readableLibraries(ctx: PlatformContext, tools: readonly Tool[], caller: Caller): Promise<LibraryRecord[] | null> {
  const declared = tools.filter((t): t is LibraryTool => t.type === 'document_library');
  if (!declared.length) return null;
  const principal = await principalOf(ctx, caller);
  const libraries: LibraryRecord[] = [];
  for (const id of new Set(declared.flatMap((t) => t.library_ids))) {
    const found = await getLibrary(ctx.db, principal, id);
    if (!found) throw notFound(`Library '${id}' (a document_library tool of this conversation) not found`);
    libraries.push(found.library);
  }
  return libraries;
}

/**
 * The document libraries among `tools`, checked for `caller`, as a toolbox of one function; null when `tools`
 * has no `document_library` tool. Throws a 404 PlatformHttpError for a library the caller cannot read.
 */
export async function openLibraryToolbox(ctx: PlatformContext, tools: readonly Tool[], caller: Caller): Promise<ConnectorToolbox | null> {
  const readable = await readableLibraries(ctx, tools, caller);
  if (!readable) return null;
  const ids = readable.map((l) => l.id);
  const names = readable.map((l) => l.name);

  return {
    functions: [{ type: 'function', function: libraryFunction(names) }],
    has: (name) => name === LIBRARY_TOOL_NAME,
    close: async () => {},
    async run(_name, argumentsJson): Promise<ConnectorToolOutcome> {
      let query = '';
      try {
        const args: unknown = argumentsJson.trim() ? JSON.parse(argumentsJson) : {};
        const q = args && typeof args === 'object' ? (args as Record<string, unknown>).query : undefined;
        if (typeof q === 'string') query = q;
      } catch {
        // not JSON: searched as an empty query, which finds nothing
      }
      const passages = await searchLibraries(ctx, ids, query, MAX_PASSAGES);
      const references = referencesOf(passages);
      const result: LibraryResult = { query, results: passages.map((p) => ({ source: sourceIndex(passages, p), title: titleOf(p), text: p.text })) };
      return {
        connector: LIBRARY_TOOL_NAME,
        text: libraryResultText(result),
        references,
        info: {
          library_ids: ids,
          query,
          results: passages.map((p) => ({ library_id: p.libraryId, document_id: p.documentId, title: titleOf(p), score: Math.round(p.score * 1000) / 1000 })),
        },
      };
    },
  };
}

/** The 1-based number of the passage's document among the documents of `passages` (the reference order). */
function sourceIndex(passages: readonly LibraryPassage[], passage: LibraryPassage): number {
  const documents = [...new Set(passages.map((p) => p.documentId))];
  return documents.indexOf(passage.documentId) + 1;
}
