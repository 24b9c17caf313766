/**
 * SDK conformance: the official `@mistralai/mistralai` client's `classifiers` calls against the local platform.
 * The SDK checks status codes and content types exactly and validates every answer with zod, so each call
 * resolving is itself an assertion; the values are checked on top.
 */
import { describe, expect, it } from 'vitest';
import * as errors from '@mistralai/mistralai/models/errors';
import { MODERATION_CATEGORIES } from '../../src/engines/classifier/types.js';
import { withSdkPlatform } from './sdk.js';

const t = withSdkPlatform();

const model = 'mistral-moderation-latest';

describe('SDK classifiers against the local platform', () => {
  it('moderate: texts → categories and categoryScores', async () => {
    const res = await t.sdk.classifiers.moderate({ model, inputs: ['Such a lovely day today, isn\'t it?', 'Card 4111 1111 1111 1111 exp 12/27'] });
    expect(res.model).toBe(model);
    expect(res.results).toHaveLength(2);
    expect(Object.keys(res.results[0].categoryScores ?? {})).toEqual([...MODERATION_CATEGORIES]);
    expect(res.results[0].categories?.pii).toBe(false);
    expect(res.results[1].categories?.pii).toBe(true);
  });

  it('moderateChat: one conversation and a list of conversations', async () => {
    const conversation = [
      { role: 'user' as const, content: 'Hi!' },
      { role: 'assistant' as const, content: 'Hello, how can I help?' },
      { role: 'user' as const, content: 'I want to end my life.' },
    ];
    const one = await t.sdk.classifiers.moderateChat({ model, inputs: conversation });
    expect(one.results).toHaveLength(1);
    expect(one.results[0].categories?.selfharm).toBe(true);
    const many = await t.sdk.classifiers.moderateChat({ model, inputs: [conversation, [{ role: 'user', content: 'What is 2 + 2?' }]] });
    expect(many.results.map((r) => r.categories?.selfharm)).toEqual([true, false]);
  });

  it('classify: texts → a target per category with label scores', async () => {
    const res = await t.sdk.classifiers.classify({ model, inputs: 'Should I sue my employer for wrongful termination?' });
    expect(res.results).toHaveLength(1);
    expect(Object.keys(res.results[0])).toEqual([...MODERATION_CATEGORIES]);
    expect(res.results[0].law.scores.flagged).toBeGreaterThan(0.5);
  });

  it('classifyChat: one chat and a list of chats', async () => {
    const chat = { messages: [{ role: 'user' as const, content: 'How much insulin should I inject before dinner?' }] };
    const one = await t.sdk.classifiers.classifyChat({ model, input: chat });
    expect(one.results[0].health.scores.flagged).toBeGreaterThan(0.5);
    const many = await t.sdk.classifiers.classifyChat({ model, input: [chat, { messages: [{ role: 'user', content: 'Good night!' }] }] });
    expect(many.results.map((r) => r.health.scores.flagged > 0.5)).toEqual([true, false]);
  });

  it('surfaces an unknown model as a 400 error and bad input as HTTPValidationError', async () => {
    const unknown = await t.sdk.classifiers.moderate({ model: 'nope', inputs: 'hello' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(errors.MistralError);
    expect((unknown as errors.MistralError).statusCode).toBe(400);
    const invalid = await t.sdk.classifiers.moderate({ model, inputs: [] }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(errors.HTTPValidationError);
  });

  it('lists and retrieves the moderation model card as a known base card', async () => {
    const list = await t.sdk.models.list();
    const card = list.data?.find((m) => m.id === 'parley-moderation');
    expect(card).toBeDefined();
    expect(card).not.toHaveProperty('isUnknown');
    expect(card?.type).toBe('base');
    const one = await t.sdk.models.retrieve({ modelId: 'mistral-moderation-2411' });
    expect(one).not.toHaveProperty('isUnknown');
    expect(one.id).toBe('parley-moderation');
    expect(one.capabilities.moderation).toBe(true);
  });
});
