/**
 * SDK conformance: the official `@mistralai/mistralai` client talks to the local platform's agents API
 * through its fetch handler. The SDK checks status codes and content types exactly and validates every
 * answer, so each call resolving (no ResponseValidationError / SDKError) is the assertion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mistral } from '@mistralai/mistralai';
import { HTTPClient } from '@mistralai/mistralai/lib/http.js';
import * as errors from '@mistralai/mistralai/models/errors';
import type { Platform } from '../../src/app.js';
import { call, startPlatform, weatherTool } from './helpers.js';

let platform: Platform;
let client: Mistral;
let model: string;

beforeAll(async () => {
  platform = await startPlatform();
  model = (await call(platform, '/v1/models')).json.data[0].id;
  client = new Mistral({
    apiKey: 'test-key',
    serverURL: 'http://local',
    httpClient: new HTTPClient({ fetcher: (input, init) => platform.fetch(new Request(input, init)) }),
  });
});
afterAll(async () => {
  await platform.close();
});

function expectKnownTools(tools: unknown[] | undefined) {
  for (const tool of tools ?? []) expect(tool).not.toHaveProperty('isUnknown');
}

describe('SDK beta.agents against the local platform', () => {
  it('runs every agents method', async () => {
    const tag = `sdk-${Date.now()}`;
    const helper = await client.beta.agents.create({ model, name: 'Helper' });
    const agent = await client.beta.agents.create({
      model,
      name: 'SDK agent',
      description: 'made by the SDK',
      instructions: 'Be helpful.',
      tools: [
        weatherTool as { type: 'function'; function: { name: string; parameters: Record<string, unknown>; description?: string } },
        { type: 'web_search' },
        { type: 'code_interpreter' },
        { type: 'image_generation' },
        { type: 'web_search_premium' },
        { type: 'document_library', libraryIds: ['lib-1'] },
        { type: 'connector', connectorId: 'conn-1', authorization: { type: 'api-key', value: 'k' } },
      ],
      completionArgs: { temperature: 0.2, maxTokens: 50, toolChoice: 'auto', responseFormat: { type: 'text' } },
      guardrails: [{ blockOnError: false, moderationLlmV1: { action: 'none' } }],
      handoffs: [helper.id],
      metadata: { tag },
      versionMessage: 'initial',
    });
    expect(agent).toMatchObject({ object: 'agent', name: 'SDK agent', version: 0, versions: [0], deploymentChat: false, source: 'api', versionMessage: 'initial', handoffs: [helper.id] });
    expect(agent.id).toMatch(/^ag_[0-9a-f]{32}$/);
    expect(agent.createdAt).toBeInstanceOf(Date);
    expect(agent.tools).toHaveLength(7);
    expectKnownTools(agent.tools);
    expect(agent.completionArgs).toMatchObject({ temperature: 0.2, maxTokens: 50, toolChoice: 'auto' });

    const updated = await client.beta.agents.update({
      agentId: agent.id,
      updateAgentRequest: { instructions: 'Be brief.', deploymentChat: true, versionMessage: 'shorter' },
    });
    expect(updated).toMatchObject({ version: 1, versions: [0, 1], instructions: 'Be brief.', deploymentChat: true });
    expectKnownTools(updated.tools);

    const current = await client.beta.agents.get({ agentId: agent.id });
    expect(current.version).toBe(1);
    const v0 = await client.beta.agents.get({ agentId: agent.id, agentVersion: 0 });
    expect(v0).toMatchObject({ version: 0, instructions: 'Be helpful.' });
    expectKnownTools(v0.tools);

    const alias = await client.beta.agents.createVersionAlias({ agentId: agent.id, alias: 'stable', version: 0 });
    expect(alias).toMatchObject({ alias: 'stable', version: 0 });
    expect(alias.createdAt).toBeInstanceOf(Date);
    const byAlias = await client.beta.agents.get({ agentId: agent.id, agentVersion: 'stable' });
    expect(byAlias.version).toBe(0);
    const aliases = await client.beta.agents.listVersionAliases({ agentId: agent.id });
    expect(aliases.map((a) => a.alias)).toEqual(['stable']);

    const listed = await client.beta.agents.list({ metadata: { tag }, pageSize: 10, sources: ['api'], deploymentChat: true });
    expect(listed.map((a) => a.id)).toEqual([agent.id]);
    const byName = await client.beta.agents.list({ name: 'Helper', id: helper.id, search: 'help', page: 0 });
    expect(byName.map((a) => a.id)).toEqual([helper.id]);

    const pages = await client.beta.agents.listPages({ metadata: { tag }, pageSize: 5 });
    expect(pages.result).toMatchObject({ object: 'list' });
    expect(pages.result.data.map((a) => a.id)).toEqual([agent.id]);
    expect(pages.result.nextPageToken ?? null).toBeNull();

    const switched = await client.beta.agents.updateVersion({ agentId: agent.id, version: 0 });
    expect(switched.version).toBe(0);

    const versions = await client.beta.agents.listVersions({ agentId: agent.id, page: 0, pageSize: 10 });
    expect(versions.map((v) => v.version)).toEqual([1, 0]);
    for (const v of versions) expectKnownTools(v.tools);
    const one = await client.beta.agents.getVersion({ agentId: agent.id, version: '1' });
    expect(one).toMatchObject({ version: 1, instructions: 'Be brief.' });

    await expect(client.beta.agents.deleteVersionAlias({ agentId: agent.id, alias: 'stable' })).resolves.toBeUndefined();
    expect(await client.beta.agents.listVersionAliases({ agentId: agent.id })).toEqual([]);

    await expect(client.beta.agents.delete({ agentId: agent.id })).resolves.toBeUndefined();
    await expect(client.beta.agents.delete({ agentId: helper.id })).resolves.toBeUndefined();
  });

  it('iterates listPages across pages with the cursor', async () => {
    const tag = `sdk-pages-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await client.beta.agents.create({ model, name: `p${i}`, metadata: { tag } })).id);
    const seen: string[] = [];
    let pages = 0;
    for await (const page of await client.beta.agents.listPages({ metadata: { tag }, pageSize: 2 })) {
      seen.push(...page.result.data.map((a) => a.id));
      if (++pages > 10) break;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(ids.reverse());
  });

  it('surfaces errors as the SDK expects: 404 as MistralError, 422 as HTTPValidationError', async () => {
    const notFound = await client.beta.agents.get({ agentId: 'ag_missing' }).catch((e) => e);
    expect(notFound).toBeInstanceOf(errors.MistralError);
    expect(notFound.statusCode).toBe(404);

    const agent = await client.beta.agents.create({ model, name: 'errs' });
    const badVersion = await client.beta.agents.get({ agentId: agent.id, agentVersion: 42 }).catch((e) => e);
    expect(badVersion.statusCode).toBe(404);
    const badAlias = await client.beta.agents.createVersionAlias({ agentId: agent.id, alias: 'x'.repeat(65), version: 0 }).catch((e) => e);
    expect(badAlias).toBeInstanceOf(errors.HTTPValidationError);
    expect(badAlias.statusCode).toBe(422);
    const badModel = await client.beta.agents.create({ model: 'nope', name: 'x' }).catch((e) => e);
    expect(badModel).toBeInstanceOf(errors.MistralError);
    expect(badModel.statusCode).toBe(400);
    const badPage = await client.beta.agents.listPages({ pageToken: 'garbled!' }).catch((e) => e);
    expect(badPage).toBeInstanceOf(errors.HTTPValidationError);
  });
});
