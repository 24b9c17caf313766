// parley-local and the document_library tool: it searches once per user message when the tool is offered (after
// named function tools and the markdown demonstration), and answers the result by quoting the passages found.
import { describe, expect, it } from 'vitest';
import { createLocalChatEngine } from '../../../src/engines/chat/local.js';
import { LIBRARY_TOOL_NAME, libraryFunction, libraryResultText } from '../../../src/engines/chat/library.js';
import { callEntry, collect, fnTool, request, resultEntry, userEntry } from './helpers.js';

const engine = createLocalChatEngine();
const library = { type: 'function' as const, function: libraryFunction(['Shop pages']) };
const weather = fnTool('get_weather', 'Get the current weather for a city', { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });

describe('parley-local with a document_library tool', () => {
  it('searches the library with the user message as the query, with the same call id every time', async () => {
    const req = request('How long do I have to return a lamp?', { tools: [library] });
    const a = await collect(engine, req);
    const b = await collect(engine, req);
    expect(a.calls).toHaveLength(1);
    expect(a.calls[0].name).toBe(LIBRARY_TOOL_NAME);
    expect(JSON.parse(a.calls[0].arguments)).toEqual({ query: 'How long do I have to return a lamp?' });
    expect(b.calls[0].toolCallId).toBe(a.calls[0].toolCallId);
  });

  it('leaves the library alone with tool_choice none, for a named function tool, or for the markdown demonstration', async () => {
    expect((await collect(engine, request('How long do I have to return a lamp?', { tools: [library], completionArgs: { tool_choice: 'none' } }))).calls).toEqual([]);
    const named = await collect(engine, request('get weather for Lyon', { tools: [library, weather] }));
    expect(named.calls.map((c) => c.name)).toEqual(['get_weather']);
    const md = await collect(engine, request('Show me a table', { tools: [library] }));
    expect(md.calls).toEqual([]);
    expect(md.text).toContain('|');
  });

  it('quotes the passages of the result, best first, with their titles and source numbers', async () => {
    const result = libraryResultText({
      query: 'How long do I have to return a lamp?',
      results: [
        { source: 1, title: 'Returns', text: 'You have 30 days from the day your lamp is delivered to return it.' },
        { source: 2, title: 'Warranty *2 years*', text: 'Every lamp carries a <b>two-year</b> warranty.' },
      ],
    });
    const history = [userEntry('How long do I have to return a lamp?'), callEntry('abc123def', LIBRARY_TOOL_NAME, '{"query":"x"}'), resultEntry('abc123def', result)];
    const out = await collect(engine, request(history, { tools: [library] }));
    expect(out.calls).toEqual([]);
    expect(out.text).toContain('> You have 30 days from the day your lamp is delivered to return it.\n\n— *Returns* [1]');
    expect(out.text.indexOf('30 days')).toBeLessThan(out.text.indexOf('two-year'));
    expect(out.text).toContain('\\<b\\>two-year\\</b\\>');
    expect(out.text).toContain('*Warranty \\*2 years\\** [2]');
  });

  it('says nothing was found for an empty result, and treats a result that is not a search result as any tool result', async () => {
    const empty = [userEntry('zebra?'), callEntry('abc123def', LIBRARY_TOOL_NAME, '{}'), resultEntry('abc123def', libraryResultText({ query: 'zebra?', results: [] }))];
    expect((await collect(engine, request(empty, { tools: [library] }))).text).toContain('I searched the library for “zebra?” and found nothing about it.');
    const odd = [userEntry('zebra?'), callEntry('abc123def', LIBRARY_TOOL_NAME, '{}'), resultEntry('abc123def', 'not json')];
    expect((await collect(engine, request(odd, { tools: [library] }))).text).toContain('The `document_library` tool returned:');
  });
});
