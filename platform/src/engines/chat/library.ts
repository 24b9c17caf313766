/**
 * The `document_library` built-in tool as chat engines see it: a function `document_library({query})` whose
 * result is JSON `{"query": "…", "results": [{"source": 1, "title": "…", "text": "…"}]}` (best passage first;
 * `source` numbers the references the platform adds to the reply, in that order). The platform runs the
 * search (libraries/search.ts); `parley-local` calls the tool once per user message when it is offered and
 * answers a result by quoting the passages found ({@link libraryReply}).
 */
import type { FunctionDefinition } from 'parley-kit/types';

/** The name of the built-in tool, of the function engines see and of the `tool.execution` entry. */
export const LIBRARY_TOOL_NAME = 'document_library';

/** A passage of a library search result. */
export interface LibraryResultPassage { source: number; title: string; text: string }

/** What the `document_library` function returns to the engine. */
export interface LibraryResult { query: string; results: LibraryResultPassage[] }

/** The function definition engines are offered for the libraries named (`names` describes them). */
export function libraryFunction(names: readonly string[]): FunctionDefinition {
  const which = names.length ? ` (${names.join(', ')})` : '';
  return {
    name: LIBRARY_TOOL_NAME,
    description: `Search the documents of the agent's libraries${which} and return the passages that best answer a query`,
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to look for, in the words of the question' } },
      required: ['query'],
    },
  };
}

/** The result text of a search (what the engine reads). */
export function libraryResultText(result: LibraryResult): string {
  return JSON.stringify(result);
}

/** The result of a `document_library` call, or null when the text is not one. */
export function parseLibraryResult(text: string): LibraryResult | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const { query, results } = value as Record<string, unknown>;
  if (typeof query !== 'string' || !Array.isArray(results)) return null;
  const passages = results.filter((r): r is LibraryResultPassage =>
    !!r && typeof r === 'object' && typeof r.title === 'string' && typeof r.text === 'string' && typeof r.source === 'number');
  return { query, results: passages };
}

/** Text shown as-is in markdown: specials escaped, on one line. */
function literal(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/[\\`*_[\]<>|~]/g, (c) => `\\${c}`).replace(/^#/, '\\#');
}

/** `parley-local`'s answer to library results: the passages quoted, best first, each with its source's title. */
export function libraryReply(results: readonly LibraryResult[]): { markdown: string; plain: string } {
  const passages = results.flatMap((r) => r.results);
  if (!passages.length) {
    const query = results.map((r) => r.query).filter(Boolean).join(' / ');
    return {
      markdown: `I searched the library for “${literal(query)}” and found nothing about it.`,
      plain: `I searched the library for "${query.replace(/\s+/g, ' ').trim()}" and found nothing about it.`,
    };
  }
  const md = passages.map((p) => `${p.text.split('\n').map((l) => `> ${literal(l)}`).join('\n')}\n\n— *${literal(p.title)}* [${p.source}]`);
  const plain = passages.map((p) => `${p.text.replace(/\s+/g, ' ').trim()} (${p.title})`);
  const lead = passages.length === 1 ? 'From the library:' : 'From the library, the passages that best answer this:';
  return { markdown: `${lead}\n\n${md.join('\n\n')}`, plain: plain.join(' ') };
}
