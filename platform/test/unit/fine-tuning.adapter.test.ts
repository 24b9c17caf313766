// The pieces under a fine-tuned model: training-file checks, the example memory and its measured loss,
// the adapted chat engine, and the runtime models joining the chat registry (resolve, list, delete, reload).
import { describe, expect, it } from 'vitest';
import { ChatModelRegistry } from '../../src/engines/chat/registry.js';
import { createLocalChatEngine } from '../../src/engines/chat/local.js';
import type { ChatEngineEvent, ChatTurnRequest } from '../../src/engines/chat/types.js';
import { ExampleMemory, trainEpoch } from '../../src/fine-tuning/example-memory.js';
import { FineTunedModels } from '../../src/fine-tuning/fine-tuned-models.js';
import { TrainingDataError, parseTrainingFile } from '../../src/fine-tuning/training-data.js';
import { openPlatformDb } from './helpers.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const line = (messages: unknown[]) => JSON.stringify({ messages });

describe('training files', () => {
  it('turns each assistant reply after a user message into an example, skipping weight 0', () => {
    const set = parseTrainingFile(bytes([
      line([{ role: 'system', content: 'be brief' }, { role: 'user', content: 'a?' }, { role: 'assistant', content: 'A.' }, { role: 'user', content: [{ type: 'text', text: 'b?' }] }, { role: 'assistant', content: 'B.', weight: 0 }]),
      '',
      line([{ role: 'user', content: 'c?' }, { role: 'assistant', content: 'C.' }]),
    ].join('\n')), 'f');
    expect(set.examples).toEqual([{ prompt: 'a?', reply: 'A.' }, { prompt: 'c?', reply: 'C.' }]);
    expect(set.samples).toBe(2);
    expect(set.tokens).toBeGreaterThan(0);
  });

  it('names the file and line of the first bad sample', () => {
    const bad: Array<[string, string]> = [
      ['not json', 'line 2: not valid JSON'],
      ['{"text": "pretraining"}', 'line 2: it has no "messages" list'],
      [line([]), 'line 2: "messages" is empty'],
      [line([{ role: 'user', content: 'x' }, { role: 'assistant', content: 5 }]), 'line 2: messages[1]: content must be a string or a list of chunks'],
      [line([{ role: 'user', content: 'x' }, { role: 'assistant', content: 'y', weight: 2 }]), 'line 2: messages[1].weight must be 0 or 1'],
    ];
    for (const [second, message] of bad) {
      const text = `${line([{ role: 'user', content: 'ok' }, { role: 'assistant', content: 'fine' }])}\n${second}\n`;
      expect(() => parseTrainingFile(bytes(text), 'file-1')).toThrow(TrainingDataError);
      expect(() => parseTrainingFile(bytes(text), 'file-1')).toThrow(`Training file file-1, ${message}`);
    }
    expect(() => parseTrainingFile(bytes('\n\n'), 'empty')).toThrow('Training file empty has no samples');
  });
});

describe('example memory', () => {
  it('answers similar prompts with the remembered reply and leaves unrelated ones', () => {
    const memory = new ExampleMemory([{ prompt: 'When does the museum open on Sundays?', reply: 'At ten.' }]);
    expect(memory.answer('When does the museum open on Sundays?')).toBe('At ten.');
    expect(memory.answer('when does the museum open on sunday')).toBe('At ten.');
    expect(memory.answer('Translate this sentence into German')).toBeUndefined();
  });

  it('measures train loss per epoch: 0 once learnt, above 0 when the data contradicts itself', async () => {
    const consistent = [{ prompt: 'colour of the sky?', reply: 'Blue.' }, { prompt: 'colour of grass?', reply: 'Green.' }];
    const memory = new ExampleMemory();
    expect(memory.loss(consistent)).toBe(1);
    expect(await trainEpoch(memory, consistent)).toBe(0);
    const contradicting = [{ prompt: 'best season?', reply: 'Spring.' }, { prompt: 'best season?', reply: 'Autumn.' }];
    const torn = new ExampleMemory();
    expect(await trainEpoch(torn, contradicting)).toBe(0.5);
    expect(await trainEpoch(torn, contradicting)).toBe(0.5);
    expect(torn.examples).toHaveLength(2);
  });
});

async function collect(events: AsyncIterable<ChatEngineEvent>): Promise<{ text: string; usage?: ChatEngineEvent }> {
  let text = '';
  let usage: ChatEngineEvent | undefined;
  for await (const e of events) {
    if (e.kind === 'text') text += e.delta;
    if (e.kind === 'usage') usage = e;
  }
  return { text, usage };
}

const turn = (model: string, content: string, completionArgs: ChatTurnRequest['completionArgs'] = {}): ChatTurnRequest => ({
  model, instructions: null, tools: [], completionArgs, handoffs: [], agent: null, signal: new AbortController().signal,
  history: [{ object: 'entry', type: 'message.input', id: 'msg_1', created_at: '2026-01-01T00:00:00.000000Z', completed_at: null, role: 'user', content }],
});

describe('fine-tuned models in the chat registry', () => {
  it('resolves, lists, serves, deletes and reloads runtime models; built-in models win and cannot be deleted', async () => {
    const db = await openPlatformDb();
    try {
      const chat = new ChatModelRegistry([createLocalChatEngine()]);
      const models = new FineTunedModels(db, chat);
      chat.attach(models);
      const id = 'ft:mistral-small-latest:t:20260101:abcdef01';
      await models.add({
        record: { id, created: 1, owned_by: 'w', workspace_id: 'w', root: 'mistral-small-latest', root_version: 'parley-local', job: 'j', archived: false, name: null, description: 'd', max_context_length: 32768 },
        examples: [{ prompt: 'Where is the key?', reply: 'Under the mat.' }],
      });
      const resolved = chat.resolve(id);
      expect(resolved?.card).toMatchObject({ id, type: 'fine-tuned', root: 'mistral-small-latest', job: 'j' });
      expect(chat.models().map((m) => m.id)).toContain(id);
      const trained = await collect(resolved!.engine.run(turn(id, 'Where is the key?', { max_tokens: 2 })));
      expect(trained.text).toBe('Under the');
      expect(trained.usage).toMatchObject({ kind: 'usage', completionTokens: 2 });
      expect((await collect(resolved!.engine.run(turn(id, 'Where is the key?', { stop: 'mat' })))).text).toBe('Under the ');
      const fallback = await collect(resolved!.engine.run(turn(id, 'Where is the key?', { response_format: { type: 'json_object' } })));
      expect(JSON.parse(fallback.text)).toHaveProperty('reply');
      const other = await collect(resolved!.engine.run(turn(id, 'Describe a sunset')));
      expect(other.text).toBe((await collect(chat.resolve('parley-local')!.engine.run(turn('parley-local', 'Describe a sunset')))).text);

      const reloaded = new FineTunedModels(db, chat);
      await reloaded.load();
      expect(reloaded.resolve(id)?.card.id).toBe(id);

      expect(await chat.delete('parley-local')).toBe(false);
      expect(await chat.delete(id)).toBe(true);
      expect(chat.resolve(id)).toBeUndefined();
      const afterDelete = new FineTunedModels(db, chat);
      await afterDelete.load();
      expect(afterDelete.resolve(id)).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});
