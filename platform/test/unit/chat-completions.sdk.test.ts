/**
 * SDK conformance: the official client's `chat`, `fim` and `agents` completions against the local platform.
 * The SDK checks status codes and content types exactly and validates every answer and stream chunk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mistral } from '@mistralai/mistralai';
import * as errors from '@mistralai/mistralai/models/errors';
import type { Platform } from '../../src/app.js';
import { startPlatform, weatherTool } from './helpers.js';
import { sdkFor } from './sdk.js';

let platform: Platform;
let client: Mistral;
const MODEL = 'mistral-small-latest';
const tool = weatherTool as { type: 'function'; function: { name: string; parameters: Record<string, unknown>; description?: string } };

beforeAll(async () => {
  platform = await startPlatform();
  client = sdkFor(platform);
});
afterAll(async () => {
  await platform.close();
});

/** Drains an SDK completion stream, checking every chunk is a known, well-formed CompletionChunk. */
async function collect(stream: AsyncIterable<{ data: { id: string; choices: Array<{ delta: { content?: unknown; toolCalls?: unknown }; finishReason: unknown }>; usage?: unknown } }>) {
  let text = '';
  const finish: unknown[] = [];
  let usage: unknown;
  let toolCalls: unknown;
  let count = 0;
  for await (const event of stream) {
    count++;
    expect(event.data.id).toMatch(/^[0-9a-f]{32}$/);
    for (const choice of event.data.choices) {
      if (typeof choice.delta.content === 'string') text += choice.delta.content;
      if (choice.delta.toolCalls) toolCalls = choice.delta.toolCalls;
      if (choice.finishReason) finish.push(choice.finishReason);
    }
    if (event.data.usage) usage = event.data.usage;
  }
  return { text, finish, usage, toolCalls, count };
}

describe('SDK chat', () => {
  it('chat.complete answers, and chat.stream drains to the same text', async () => {
    const messages = [{ role: 'system' as const, content: 'Be brief.' }, { role: 'user' as const, content: 'Hello from the SDK' }];
    const res = await client.chat.complete({ model: MODEL, messages, temperature: 0.2, randomSeed: 1 });
    expect(res.object).toBe('chat.completion');
    expect(res.choices[0].finishReason).toBe('stop');
    const content = res.choices[0].message?.content;
    expect(typeof content).toBe('string');
    expect(content).toContain('Hello from the SDK');
    expect(res.usage.totalTokens).toBe(res.usage.promptTokens + res.usage.completionTokens);

    const streamed = await collect(await client.chat.stream({ model: MODEL, messages, temperature: 0.2, randomSeed: 1 }));
    expect(streamed.text).toBe(content);
    expect(streamed.finish).toEqual(['stop']);
    expect(streamed.usage).toMatchObject({ promptTokens: res.usage.promptTokens, completionTokens: res.usage.completionTokens });
  });

  it('tool calls round trip through the SDK, and maxTokens ends with length', async () => {
    const ask = { role: 'user' as const, content: 'What is the weather in Paris?' };
    const first = await client.chat.complete({ model: MODEL, tools: [tool], toolChoice: 'auto', messages: [ask] });
    const message = first.choices[0].message!;
    expect(first.choices[0].finishReason).toBe('tool_calls');
    const call = message.toolCalls![0];
    expect(call.function.name).toBe('get_weather');
    const second = await client.chat.complete({
      model: MODEL,
      tools: [tool],
      messages: [ask, { role: 'assistant', content: message.content, toolCalls: message.toolCalls }, { role: 'tool', toolCallId: call.id, name: 'get_weather', content: '{"temperature": 18}' }],
    });
    expect(second.choices[0].finishReason).toBe('stop');
    expect(second.choices[0].message?.content).toContain('18');

    const streamed = await collect(await client.chat.stream({ model: MODEL, tools: [tool], messages: [ask] }));
    expect(streamed.finish).toEqual(['tool_calls']);
    expect(streamed.toolCalls).toMatchObject([{ function: { name: 'get_weather' } }]);

    const cut = await client.chat.complete({ model: MODEL, maxTokens: 2, messages: [ask] });
    expect(cut.choices[0].finishReason).toBe('length');
    expect(cut.usage.completionTokens).toBe(2);

    const json = await client.chat.complete({ model: MODEL, responseFormat: { type: 'json_object' }, messages: [ask] });
    expect(() => JSON.parse(json.choices[0].message?.content as string)).not.toThrow();
  });

  it('bad input is an HTTPValidationError; an unknown model a MistralError 400', async () => {
    await expect(client.chat.complete({ model: MODEL, temperature: 2, messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(errors.HTTPValidationError);
    const err = await client.chat.complete({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(errors.MistralError);
    expect((err as errors.MistralError).statusCode).toBe(400);
  });
});

describe('SDK fim', () => {
  it('fim.complete and fim.stream fill the middle', async () => {
    const request = { model: 'codestral-latest', prompt: 'def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a', suffix: '\n' };
    const res = await client.fim.complete(request);
    expect(res.choices[0]).toMatchObject({ finishReason: 'stop', message: { content: ' + b' } });
    const streamed = await collect(await client.fim.stream(request));
    expect(streamed.text).toBe(' + b');
    expect(streamed.finish).toEqual(['stop']);
  });
});

describe('SDK agents', () => {
  it('agents.complete and agents.stream answer with an agent made by beta.agents.create', async () => {
    const agent = await client.beta.agents.create({ model: MODEL, name: 'SDK completer', instructions: 'Answer briefly.', tools: [tool] });
    const res = await client.agents.complete({ agentId: agent.id, messages: [{ role: 'user', content: 'Hello agent' }] });
    expect(res.model).toBe(MODEL);
    expect(res.choices[0].finishReason).toBe('stop');
    expect(res.choices[0].message?.content).toContain('SDK completer');

    const streamed = await collect(await client.agents.stream({ agentId: agent.id, messages: [{ role: 'user', content: 'Hello agent' }] }));
    expect(streamed.text).toBe(res.choices[0].message?.content);

    const calls = await client.agents.complete({ agentId: agent.id, messages: [{ role: 'user', content: 'What is the weather in Rome?' }] });
    expect(calls.choices[0].finishReason).toBe('tool_calls');

    const missing = await client.agents.complete({ agentId: 'ag_00000000000000000000000000000000', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect((missing as errors.MistralError).statusCode).toBe(404);
  });
});
