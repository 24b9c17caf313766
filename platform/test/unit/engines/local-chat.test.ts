import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { LOCAL_CHAT_MODEL_ALIASES, createLocalChatEngine } from '../../../src/engines/chat/local.js';
import { fillJsonSchema } from '../../../src/engines/chat/json-schema-filler.js';
import { countPromptTokens, countTokens, tokenize } from '../../../src/engines/text/tokenizer.js';
import type { Tool } from 'parley-kit/types';
import type { HandoffTarget } from '../../../src/engines/chat/types.js';
import {
  assistantEntry, callEntry, collect, fnTool, handoffEntry, request, resultEntry, userEntry,
} from './helpers.js';

const engine = createLocalChatEngine();

/** Validate a value against a JSON schema with zod's JSON-schema reader. */
function expectValid(schema: Record<string, unknown>, value: unknown): void {
  const result = z.fromJSONSchema(schema as never).safeParse(value);
  if (!result.success) throw new Error(`${JSON.stringify(value)} is not valid for ${JSON.stringify(schema)}: ${result.error.message}`);
  // zod does not enforce `required` under allOf etc.; double-check required keys of plain objects ourselves
  checkRequired(schema, value, schema);
}
function checkRequired(schema: Record<string, unknown>, value: unknown, root: Record<string, unknown>): void {
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref.slice(2).split('/').reduce<unknown>((n, k) => (n as Record<string, unknown>)[k], root) as Record<string, unknown>;
    checkRequired(target, value, root);
    return;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of (schema.required as string[] | undefined) ?? []) expect(value, `required ${key}`).toHaveProperty(key);
    const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const [k, v] of Object.entries(value)) if (props[k]) checkRequired(props[k], v, root);
  }
  if (Array.isArray(value) && schema.items && typeof schema.items === 'object') {
    for (const v of value) checkRequired(schema.items as Record<string, unknown>, v, root);
  }
}

const weatherTool = fnTool('get_weather', 'Get the current weather for a city', {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
  required: ['city'],
  additionalProperties: false,
});
const orderTool = fnTool('lookup_order', 'Look up the shipping status of a customer order', {
  type: 'object',
  properties: { order_id: { type: 'string' }, include_items: { type: 'boolean' } },
  required: ['order_id'],
});
const currencyTool = fnTool('convert_currency', 'Convert an amount of money using exchange rates', {
  type: 'object',
  properties: { amount: { type: 'number', exclusiveMinimum: 0 }, from: { type: 'string', pattern: '^[A-Z]{3}$', default: 'EUR' }, to: { type: 'string', pattern: '^[A-Z]{3}$', default: 'USD' } },
  required: ['amount', 'from', 'to'],
});
const tools: Tool[] = [weatherTool, orderTool, currencyTool];
const params = (t: Tool): Record<string, unknown> => (t.type === 'function' ? t.function.parameters : {});

describe('tokenizer', () => {
  it('splits into words and punctuation with leading spaces, losslessly', () => {
    expect(tokenize('Hello, world!')).toEqual(['Hello', ',', ' world', '!']);
    expect(tokenize('  two  spaces \n')).toEqual(['  two', '  spaces', ' \n']);
    for (const s of ['', 'a', 'héllo wörld — ok?', '日本語 テキスト', 'emoji 👍🏽 ok', '```ts\ncode\n```', 'tab\there', 'x  ']) {
      expect(tokenize(s).join('')).toBe(s);
      expect(countTokens(s)).toBe(tokenize(s).length);
    }
    expect(countTokens('')).toBe(0);
    expect(countTokens('one two three')).toBe(3);
  });
});

describe('parley-local model card', () => {
  it('is honest about what it is', () => {
    const cards = engine.models();
    expect(cards).toHaveLength(1);
    const card = cards[0];
    expect(card).toMatchObject({
      id: 'parley-local', object: 'model', type: 'base', owned_by: 'mistralai', max_context_length: 32768,
      deprecation: null, deprecation_replacement_model: null,
    });
    expect(Number.isInteger(card.created)).toBe(true);
    expect(card.aliases).toEqual(['mistral-small-latest', 'mistral-medium-latest', 'mistral-large-latest']);
    expect([...LOCAL_CHAT_MODEL_ALIASES]).toEqual(card.aliases);
    const trueCaps = Object.entries(card.capabilities).filter(([, v]) => v).map(([k]) => k).sort();
    expect(trueCaps).toEqual(['completion_chat', 'function_calling', 'vision']);
    expect(Object.keys(card.capabilities)).toHaveLength(14);
    expect(card.description).toMatch(/deterministic/i);
    expect(card.description).toMatch(/not a language model/i);
    expect(card.description).toMatch(/mistral-small-latest/);
    // a copy each time: callers cannot mutate the engine's card
    card.aliases.push('x');
    expect(engine.models()[0].aliases).toHaveLength(3);
  });
});

describe('parley-local default replies', () => {
  it('is deterministic and independent of entry ids and timestamps', async () => {
    const a = await collect(engine, request('Hello there, how are you?'));
    const b = await collect(engine, request('Hello there, how are you?'));
    const other = await collect(createLocalChatEngine(), request([{ ...userEntry('Hello there, how are you?'), id: 'msg_other', created_at: '2030-05-05T00:00:00Z' }]));
    expect(a.events).toEqual(b.events);
    expect(other.events).toEqual(a.events);
    const c = await collect(engine, request('Something else entirely'));
    expect(c.text).not.toBe(a.text);
  });

  it('responds to the content of the message: quote, word count, question', async () => {
    const r = await collect(engine, request('Hello there, how are you?'));
    expect(r.error).toBeUndefined();
    expect(r.text).toContain('> Hello there, how are you?');
    expect(r.text).toContain('**5 words**');
    expect(r.text).toMatch(/question/);
    expect(r.text).toMatch(/deterministic stand-in/);
    const one = await collect(engine, request('Bonjour'));
    expect(one.text).toContain('**1 word**');
    expect(one.text).not.toMatch(/question/);
    // short: a few sentences
    expect(r.text.length).toBeLessThan(700);
  });

  it('mentions the agent name and the start of its instructions', async () => {
    const r = await collect(engine, request('hi', { agent: { id: 'ag_1', name: 'Concierge' }, instructions: 'You are a concierge for the Grand Hotel. Be brief and polite at all times, whatever happens.' }));
    expect(r.text).toContain('**Concierge**');
    expect(r.text).toContain('You are a concierge for the Grand Hotel.');
    const none = await collect(engine, request('hi'));
    expect(none.text).not.toMatch(/instructions begin/);
  });

  it('streams one token per text delta and reports consistent usage', async () => {
    const r = await collect(engine, request('Count my words please', { instructions: 'Be nice.' }));
    expect(r.textDeltas.length).toBeGreaterThan(10);
    for (const d of r.textDeltas) expect(tokenize(d)).toEqual([d]);
    expect(r.events.at(-1)?.kind).toBe('usage');
    expect(r.events.filter((e) => e.kind === 'usage')).toHaveLength(1);
    expect(r.usage).toEqual({ promptTokens: countTokens('Be nice.') + countTokens('Count my words please'), completionTokens: r.textDeltas.length });
    expect(r.usage!.completionTokens).toBe(countTokens(r.text));
  });

  it('counts prompt tokens over instructions and all history text', async () => {
    const history = [userEntry('first question here'), assistantEntry('an answer, with punctuation.'), userEntry('second one')];
    const r = await collect(engine, request(history, { instructions: 'Sys prompt' }));
    expect(r.usage!.promptTokens).toBe(countTokens('Sys prompt') + 3 + countTokens('an answer, with punctuation.') + 2);
    expect(countPromptTokens('Sys prompt', history)).toBe(r.usage!.promptTokens);
    const longer = await collect(engine, request([...history, assistantEntry('x y'), userEntry('third message now')], { instructions: 'Sys prompt' }));
    expect(longer.usage!.promptTokens - r.usage!.promptTokens).toBe(2 + 3);
  });

  it('random_seed varies the wording deterministically', async () => {
    const texts = new Set<string>();
    for (let seed = 0; seed < 4; seed++) {
      const a = await collect(engine, request('seeded message', { completionArgs: { random_seed: seed } }));
      const b = await collect(engine, request('seeded message', { completionArgs: { random_seed: seed } }));
      expect(a.text).toBe(b.text);
      texts.add(a.text);
    }
    expect(texts.size).toBeGreaterThan(1);
  });

  it('handles messages without text and conversations without a user message', async () => {
    const img = await collect(engine, request([userEntry([{ type: 'image_url', image_url: 'https://example.com/cat.png' }])]));
    expect(img.text).toMatch(/no text/);
    expect(img.text).toMatch(/1 attachment/);
    const empty = await collect(engine, request([]));
    expect(empty.error).toBeUndefined();
    expect(empty.text).toMatch(/no user message/);
  });
});

describe('parley-local markdown demonstrations', () => {
  const heading = /^#{1,6} \S/m;
  const bullet = /^- \S/m;
  const numbered = /^1\. \S/m;
  const fence = /^```[a-z]+\n[\s\S]+?\n```$/m;
  const table = /^\|.*\|\n\|[-:| ]+\|\n(\|.*\|\n?)+/m;
  const link = /\[[^\]]+\]\(https?:\/\/[^)\s]+\)/;

  it('renders every element when asked for markdown', async () => {
    const r = await collect(engine, request('Show me what markdown you can render'));
    for (const re of [heading, bullet, numbered, fence, table, link]) expect(r.text).toMatch(re);
    expect(r.text).toMatch(/\*\*[^*]+\*\*/);
    expect(r.text).toMatch(/^> /m);
  });

  it('renders only what was asked for', async () => {
    const t = await collect(engine, request('can you make a table?'));
    expect(t.text).toMatch(table);
    expect(t.text).not.toMatch(fence);
    expect(t.text).not.toMatch(heading);
    expect(t.text).toContain('| 5 | table | 5 |');

    const c = await collect(engine, request('give me a code snippet'));
    expect(c.text).toMatch(fence);
    expect(c.text).not.toMatch(table);

    const l = await collect(engine, request('a bulleted list please'));
    expect(l.text).toMatch(bullet);
    expect(l.text).toMatch(numbered);
    expect(l.text).not.toMatch(fence);

    const h = await collect(engine, request('show me some headings'));
    expect(h.text).toMatch(/^# /m);
    expect(h.text).toMatch(/^### /m);

    const k = await collect(engine, request('send me a link'));
    expect(k.text).toMatch(link);
  });

  it('keeps a code block closed even when the message contains backticks', async () => {
    const r = await collect(engine, request('code for ```rm -rf``` and a | pipe in a table'));
    const fences: string[] = r.text.match(/^`{3,}/gm) ?? [];
    expect(fences.length).toBe(2);
    expect(fences[0].length).toBeGreaterThan(3);
    const rows = r.text.split('\n').filter((l) => l.startsWith('|'));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(5); // 3 cells, well-formed
  });
});

describe('parley-local function calls', () => {
  it('calls a tool named in the message with schema-valid arguments streamed in pieces', async () => {
    const r = await collect(engine, request("What's the weather in New York in fahrenheit for the next 3 days?", { tools }));
    expect(r.text).toBe('');
    expect(r.calls).toHaveLength(1);
    const call = r.calls[0];
    expect(call.name).toBe('get_weather');
    expect(call.toolCallId).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(call.pieces).toBeGreaterThan(1);
    const args = JSON.parse(call.arguments);
    expect(args).toEqual({ city: 'New York', unit: 'fahrenheit', days: 3 });
    expectValid(params(weatherTool), args);
    expect(r.usage!.completionTokens).toBe(countTokens(call.arguments));
    expect(r.events.at(-1)?.kind).toBe('usage');
  });

  it('matches tool names with underscores written as spaces, and derives ids from the conversation', async () => {
    const r1 = await collect(engine, request('please get weather for Paris', { tools }));
    const r2 = await collect(engine, request('please get weather for Paris', { tools }));
    expect(r1.calls.map((c) => c.name)).toEqual(['get_weather']);
    expect(JSON.parse(r1.calls[0].arguments).city).toBe('Paris');
    expect(r2.calls[0].toolCallId).toBe(r1.calls[0].toolCallId);
    const later = await collect(engine, request([userEntry('hi'), assistantEntry('hello'), userEntry('please get weather for Paris')], { tools }));
    expect(later.calls[0].toolCallId).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(later.calls[0].toolCallId).not.toBe(r1.calls[0].toolCallId);
  });

  it('matches by distinctive words of the description', async () => {
    const r = await collect(engine, request('What is the exchange rate for 250 money units from GBP to JPY?', { tools }));
    expect(r.calls.map((c) => c.name)).toEqual(['convert_currency']);
    const args = JSON.parse(r.calls[0].arguments);
    expectValid(params(currencyTool), args);
    expect(args).toEqual({ amount: 250, from: 'GBP', to: 'JPY' });
    const order = await collect(engine, request('Where is my order 12345? include items', { tools }));
    expect(order.calls.map((c) => c.name)).toEqual(['lookup_order']);
    expect(JSON.parse(order.calls[0].arguments)).toEqual({ order_id: '12345', include_items: true });
  });

  it('calls every tool named explicitly, each with its own id', async () => {
    const r = await collect(engine, request('get_weather in Paris, then lookup_order "A-77" without items', { tools }));
    expect(r.calls.map((c) => c.name)).toEqual(['get_weather', 'lookup_order']);
    expect(new Set(r.calls.map((c) => c.toolCallId)).size).toBe(2);
    expect(JSON.parse(r.calls[0].arguments)).toEqual({ city: 'Paris' });
    expect(JSON.parse(r.calls[1].arguments)).toEqual({ order_id: 'A-77', include_items: false });
  });

  it('does not call tools for unrelated messages, nor when tool_choice is none', async () => {
    const r = await collect(engine, request('Tell me a joke about cats', { tools }));
    expect(r.calls).toHaveLength(0);
    expect(r.text).not.toBe('');
    const none = await collect(engine, request('get_weather in Paris', { tools, completionArgs: { tool_choice: 'none' } }));
    expect(none.calls).toHaveLength(0);
    expect(none.text).toContain('get_weather in Paris');
    const builtIn = await collect(engine, request('search the web for the weather', { tools: [{ type: 'web_search' }] }));
    expect(builtIn.calls).toHaveLength(0);
  });

  it('forces a call with the best-matching tool when tool_choice is any or required', async () => {
    for (const choice of ['any', 'required'] as const) {
      const r = await collect(engine, request('hello there', { tools, completionArgs: { tool_choice: choice } }));
      expect(r.calls.map((c) => c.name)).toEqual(['get_weather']); // tie → first tool
      expectValid(params(weatherTool), JSON.parse(r.calls[0].arguments));
      const best = await collect(engine, request('my parcel has not arrived, what is its shipping status?', { tools, completionArgs: { tool_choice: choice } }));
      expect(best.calls.map((c) => c.name)).toEqual(['lookup_order']);
    }
  });

  it('fills a range of schemas with valid arguments', async () => {
    const schemas: Array<{ name: string; text: string; schema: Record<string, unknown>; check?: (v: any) => void }> = [
      {
        name: 'create_event',
        text: 'Please create_event "Team lunch" in Berlin with high priority for alice@example.com on 2025-03-14',
        schema: {
          type: 'object',
          properties: {
            title: { type: 'string', minLength: 1 },
            date: { type: 'string', format: 'date' },
            attendees: {
              type: 'array', minItems: 1,
              items: { type: 'object', properties: { email: { type: 'string', format: 'email' }, optional: { type: 'boolean' } }, required: ['email'] },
            },
            location: { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string' } }, required: ['city'] },
            priority: { type: 'string', enum: ['low', 'normal', 'high'] },
            tags: { type: 'array', items: { type: 'string' } },
          },
          required: ['title', 'date', 'attendees', 'location', 'priority'],
        },
        check: (v) => {
          expect(v.title).toBe('Team lunch');
          expect(v.date).toBe('2025-03-14');
          expect(v.priority).toBe('high');
          expect(v.attendees[0].email).toBe('alice@example.com');
          expect(v.location.city).toBe('Berlin');
        },
      },
      {
        name: 'roll_dice',
        text: 'roll dice please',
        schema: { type: 'object', properties: { count: { type: 'integer', minimum: 2, maximum: 10 }, sides: { type: 'integer', exclusiveMinimum: 3, multipleOf: 2 } }, required: ['count', 'sides'] },
        check: (v) => expect(v).toEqual({ count: 2, sides: 4 }),
      },
      {
        name: 'set_volume',
        text: 'set volume to 250 and mute: false',
        schema: { type: 'object', properties: { level: { type: 'number', minimum: 0, maximum: 100, multipleOf: 0.5 }, mute: { type: 'boolean' } }, required: ['level', 'mute'] },
        check: (v) => expect(v).toEqual({ level: 100, mute: false }),
      },
      {
        name: 'tag_items',
        text: 'tag items with colours: red, green and blue',
        schema: {
          type: 'object',
          properties: {
            tags: { type: 'array', items: { type: 'string' }, minItems: 1, uniqueItems: true },
            colours: { type: 'array', items: { type: 'string', enum: ['red', 'green', 'blue', 'black'] }, uniqueItems: true },
            ids: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 3 },
          },
          required: ['tags', 'colours', 'ids'],
        },
        check: (v) => {
          expect(v.colours).toEqual(['red', 'green', 'blue']);
          expect(v.ids).toHaveLength(2);
        },
      },
      {
        name: 'save_note',
        text: 'save note: remember the milk',
        schema: {
          $defs: { Meta: { type: 'object', properties: { pinned: { type: 'boolean' }, id: { type: 'string', format: 'uuid' } }, required: ['pinned', 'id'] } },
          type: 'object',
          properties: {
            text: { type: 'string', maxLength: 12 },
            summary: { anyOf: [{ type: 'string', minLength: 40 }, { type: 'null' }] },
            kind: { type: ['string', 'null'], enum: ['todo', 'idea', null] },
            meta: { $ref: '#/$defs/Meta' },
            pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
            fixed: { const: 'v1' },
          },
          required: ['text', 'summary', 'kind', 'meta', 'pair', 'fixed'],
        },
        check: (v) => {
          expect(v.text).toHaveLength(12);
          expect(v.fixed).toBe('v1');
        },
      },
      {
        name: 'no_params',
        text: 'run no params',
        schema: { type: 'object', properties: {} },
        check: (v) => expect(v).toEqual({}),
      },
    ];
    for (const { name, text, schema, check } of schemas) {
      const r = await collect(engine, request(text, { tools: [fnTool(name, '', schema)] }));
      expect(r.calls.map((c) => c.name), text).toEqual([name]);
      const args = JSON.parse(r.calls[0].arguments);
      expectValid(schema, args);
      check?.(args);
    }
  });

  it('fillJsonSchema stays valid for many schema/text combinations', () => {
    const schemas: Array<Record<string, unknown>> = [
      params(weatherTool), params(orderTool), params(currencyTool),
      { type: 'object', properties: { n: { type: 'integer', minimum: -5, maximum: -1 } }, required: ['n'] },
      { type: 'object', properties: { s: { type: 'string', minLength: 3, maxLength: 5 } }, required: ['s'] },
      { type: 'array', items: { type: 'number', minimum: 1.5 }, minItems: 3, uniqueItems: true },
      { type: 'object', properties: { when: { type: 'string', format: 'date-time' }, site: { type: 'string', format: 'uri' }, at: { type: 'string', format: 'time' } }, required: ['when', 'site', 'at'] },
      { type: 'object', properties: { nested: { type: 'object', properties: { deeper: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] } }, required: ['deeper'] } }, required: ['nested'] },
      { type: 'string', enum: ['a', 'b'] },
      { type: 'boolean' },
      { type: 'null' },
    ];
    const texts = ['', 'hello', 'weather in Rome for 2 days in celsius', 'order #99 at https://shop.example/x?y=1, ok', 'from EUR to USD: 12.5', '"quoted" and -3 and 7', 'ÜBER straße 5 at 2024-02-29T10:30'];
    for (const schema of schemas) {
      for (const text of texts) {
        const value = fillJsonSchema(schema, text);
        expectValid(schema, value);
        expect(fillJsonSchema(schema, text)).toEqual(value);
      }
    }
  });
});

describe('parley-local function results', () => {
  const history = (result: string) => [
    userEntry('weather in Paris'),
    callEntry('abcABC123', 'get_weather', '{"city":"Paris"}'),
    resultEntry('abcABC123', result),
  ];

  it('replies using a flat JSON result as a list', async () => {
    const r = await collect(engine, request(history('{"temperature":21,"conditions":"sunny"}'), { tools }));
    expect(r.calls).toHaveLength(0);
    expect(r.text).toContain('The `get_weather` tool returned:');
    expect(r.text).toContain('- **temperature**: 21');
    expect(r.text).toContain('- **conditions**: sunny');
  });

  it('renders nested JSON in a code block and plain text as a quote', async () => {
    const nested = await collect(engine, request(history('{"forecast":[{"day":1,"t":20},{"day":2,"t":18}]}'), { tools }));
    expect(nested.text).toMatch(/```json\n\{\n {2}"forecast": \[/);
    const plain = await collect(engine, request(history('It is raining.'), { tools }));
    expect(plain.text).toContain('> It is raining.');
  });

  it('replies with text even when tool_choice is any, and covers parallel results', async () => {
    const r = await collect(engine, request([
      userEntry('get_weather in Paris and lookup_order 5'),
      callEntry('aaaaaaaa1', 'get_weather', '{"city":"Paris"}'),
      callEntry('bbbbbbbb2', 'lookup_order', '{"order_id":"5"}'),
      resultEntry('aaaaaaaa1', '"sunny"'),
      resultEntry('bbbbbbbb2', '{"status":"shipped"}'),
    ], { tools, completionArgs: { tool_choice: 'any' } }));
    expect(r.calls).toHaveLength(0);
    expect(r.text).toContain('The `get_weather` tool returned: **sunny**');
    expect(r.text).toContain('The `lookup_order` tool returned:');
    expect(r.text).toContain('- **status**: shipped');
  });

  it('wraps the follow-up in JSON in json_object mode', async () => {
    const r = await collect(engine, request(history('{"temperature":21}'), { completionArgs: { response_format: { type: 'json_object' } } }));
    const v = JSON.parse(r.text);
    expect(v.reply).toContain('get_weather');
    expect(v.reply).toContain('21');
  });
});

describe('parley-local handoffs', () => {
  const targets: HandoffTarget[] = [
    { id: 'ag_billing', name: 'Billing Agent', description: 'Handles invoices, payments and refunds' },
    { id: 'ag_tech', name: 'Tech Support', description: 'Fixes bugs and technical problems' },
  ];
  const triage = { id: 'ag_triage', name: 'Triage' };

  it('hands off to an agent named in the request, and nothing else', async () => {
    const r = await collect(engine, request('Please transfer me to the billing agent', { handoffs: targets, agent: triage, tools }));
    expect(r.events).toEqual([{ kind: 'handoff', agentId: 'ag_billing' }]);
    const tech = await collect(engine, request('can I speak with TECH SUPPORT?', { handoffs: targets, agent: triage }));
    expect(tech.events).toEqual([{ kind: 'handoff', agentId: 'ag_tech' }]);
    const byId = await collect(engine, request('hand me over to ag_tech', { handoffs: targets, agent: triage }));
    expect(byId.handoffs).toEqual(['ag_tech']);
  });

  it('matches agents by words of their description', async () => {
    const r = await collect(engine, request('I want to talk to someone about a refund', { handoffs: targets, agent: triage }));
    expect(r.handoffs).toEqual(['ag_billing']);
  });

  it('does not hand off without a request, to an unknown agent, or to itself', async () => {
    const mention = await collect(engine, request('the billing agent was helpful', { handoffs: targets, agent: triage }));
    expect(mention.handoffs).toEqual([]);
    const unknown = await collect(engine, request('transfer me to the sales team', { handoffs: targets, agent: triage }));
    expect(unknown.handoffs).toEqual([]);
    const self = await collect(engine, request('transfer me to the billing agent', { handoffs: targets, agent: { id: 'ag_billing', name: 'Billing Agent' } }));
    expect(self.handoffs).toEqual([]);
    expect(self.text).toContain('**Billing Agent**');
  });

  it('does not hand off again after a handoff for the same user message, and greets as the new agent', async () => {
    const r = await collect(engine, request([
      userEntry('transfer me to billing or tech support'),
      handoffEntry(triage, { id: 'ag_billing', name: 'Billing Agent' }),
    ], { handoffs: [targets[1], { id: 'ag_triage', name: 'Triage', description: null }], agent: { id: 'ag_billing', name: 'Billing Agent' } }));
    expect(r.handoffs).toEqual([]);
    expect(r.text).toContain('handed over from **Triage**');
    expect(r.text).toContain('**Billing Agent**');
  });
});

describe('parley-local completion args', () => {
  const text = 'Stop sequences should cut this reply somewhere';
  const full = async () => (await collect(engine, request(text))).text;

  it('cuts before the first stop sequence, across token boundaries', async () => {
    const all = await full();
    const i = all.indexOf('**7 words**');
    expect(i).toBeGreaterThan(0);
    const stop = '7 wor'; // spans the "7" and " words" tokens
    const r = await collect(engine, request(text, { completionArgs: { stop } }));
    expect(r.text).toBe(all.slice(0, all.indexOf(stop)));
    expect(r.usage!.completionTokens).toBe(r.textDeltas.length);
    const arr = await collect(engine, request(text, { completionArgs: { stop: ['zzz-never', 'wrote', '7 words'] } }));
    expect(arr.text).toBe(all.slice(0, all.indexOf('wrote')));
    const atStart = await collect(engine, request(text, { completionArgs: { stop: all.slice(0, 3) } }));
    expect(atStart.text).toBe('');
    expect(atStart.usage!.completionTokens).toBe(0);
  });

  it('caps completion tokens with max_tokens', async () => {
    const all = await full();
    const r = await collect(engine, request(text, { completionArgs: { max_tokens: 5 } }));
    expect(r.textDeltas).toHaveLength(5);
    expect(r.text).toBe(tokenize(all).slice(0, 5).join(''));
    expect(r.usage!.completionTokens).toBe(5);
    const zero = await collect(engine, request(text, { completionArgs: { max_tokens: 0 } }));
    expect(zero.textDeltas).toHaveLength(0);
    expect(zero.usage).toEqual({ promptTokens: countTokens(text), completionTokens: 0 });
  });

  it('produces one valid JSON object for json_object', async () => {
    for (const msg of ['hello world', 'show me markdown with a table', 'he said "quote" \\ back\nslash', '']) {
      const r = await collect(engine, request(msg, { completionArgs: { response_format: { type: 'json_object' } } }));
      const v = JSON.parse(r.text);
      expect(typeof v).toBe('object');
      expect(Array.isArray(v)).toBe(false);
      expect(typeof v.reply).toBe('string');
      expect(v.words).toBe(msg.split(/\s+/).filter((w) => /\w/.test(w)).length);
    }
  });

  it('produces a value valid for a json_schema', async () => {
    const schema = {
      type: 'object',
      properties: {
        answer: { type: 'string' },
        sentiment: { type: 'string', enum: ['positive', 'neutral', 'negative'] },
        confidence: { type: 'number', minimum: 0, maximum: 1 },
        keywords: { type: 'array', items: { type: 'string' }, minItems: 1 },
      },
      required: ['answer', 'sentiment', 'confidence', 'keywords'],
      additionalProperties: false,
    };
    const r = await collect(engine, request('I feel negative about "Mondays", 80 percent sure', {
      completionArgs: { response_format: { type: 'json_schema', json_schema: { name: 'analysis', schema } } },
    }));
    const v = JSON.parse(r.text);
    expectValid(schema, v);
    expect(v.sentiment).toBe('negative');
    expect(v.confidence).toBe(1);
    expect(v.answer).toMatch(/You wrote/);
  });
});

describe('parley-local failure hook and pacing', () => {
  it('throws on purpose after a few tokens when the message is /fail', async () => {
    for (const msg of ['/fail', '  /fail \n']) {
      const r = await collect(engine, request(msg));
      expect(r.textDeltas.length).toBeGreaterThanOrEqual(3);
      expect(r.error).toBeInstanceOf(Error);
      expect((r.error as Error).message).toMatch(/failed on purpose/);
      expect(r.usage).toBeNull();
    }
    const notQuite = await collect(engine, request('/fail please'));
    expect(notQuite.error).toBeUndefined();
  });

  // Pacing is checked on fake timers: token n+1 is due exactly tokenDelayMs after token n, whatever the machine.
  it('waits tokenDelayMs between tokens', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const slow = createLocalChatEngine({ tokenDelayMs: 20 });
      const seen: string[] = [];
      const done = collect(slow, request('pace me', { completionArgs: { max_tokens: 6 } }), (e) => { if (e.kind === 'text') seen.push(e.delta); });
      await vi.advanceTimersByTimeAsync(0);
      expect(seen, 'the first token at once').toHaveLength(1);
      for (let n = 2; n <= 6; n++) {
        await vi.advanceTimersByTimeAsync(19);
        expect(seen, `token ${n} not before 20 ms`).toHaveLength(n - 1);
        await vi.advanceTimersByTimeAsync(1);
        expect(seen, `token ${n} at 20 ms`).toHaveLength(n);
      }
      await vi.runAllTimersAsync();
      const r = await done;
      expect(r.textDeltas).toEqual(seen);
      expect(r.usage).not.toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops promptly when the request is aborted', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const slow = createLocalChatEngine({ tokenDelayMs: 1000 });
      const controller = new AbortController();
      let settled = false;
      const done = collect(slow, request('a long enough message to stream slowly', { signal: controller.signal }));
      void done.then(() => { settled = true; });
      await vi.advanceTimersByTimeAsync(30); // the first token is out; the engine waits for the second
      expect(settled).toBe(false);
      controller.abort();
      await vi.advanceTimersByTimeAsync(0); // pending promises only: the clock does not move
      expect(settled, 'the run ended on the abort, not when the next token fell due').toBe(true);
      expect(vi.getTimerCount(), 'the pacing timer was cleared').toBe(0);
      const r = await done;
      expect(r.textDeltas).toHaveLength(1);
      expect((r.error as Error).name).toBe('AbortError');
      expect(r.usage).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('throws at once for an already-aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await collect(engine, request('hi', { signal: controller.signal }));
    expect(r.events).toHaveLength(0);
    expect((r.error as Error).name).toBe('AbortError');
  });
});
