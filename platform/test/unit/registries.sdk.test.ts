/**
 * SDK conformance: the official `@mistralai/mistralai` client (`beta.prompts.*`, `beta.skills.*`)
 * against the local platform. The SDK checks status codes and content types exactly and validates
 * every answer with zod, so each call resolving is itself an assertion; the values are checked too.
 */
import { describe, expect, it } from 'vitest';
import * as errors from '@mistralai/mistralai/models/errors';
import { withSdkPlatform } from './sdk.js';

const t = withSdkPlatform();

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('SDK beta.prompts against the local platform', () => {
  it('runs every prompts method', async () => {
    const prompt = await t.sdk.beta.prompts.create({
      name: 'sdk-greeting',
      title: 'Greeting',
      description: 'Says hello',
      definition: { content: 'Hello {{name}}', variables: [{ name: 'name' }] },
      notes: 'first',
      sharingScope: 'workspace',
      aliases: ['production'],
      workspaceRelation: 'writer',
    });
    expect(prompt).toMatchObject({ name: 'sdk-greeting', title: 'Greeting', version: 1, latestVersion: 1, aliases: ['production'], sharingScope: 'workspace', notes: 'first' });
    expect(prompt.createdAt).toBeInstanceOf(Date);
    expect(prompt.versionCreatedAt).toBeInstanceOf(Date);
    const id = prompt.id!;

    const v2 = await t.sdk.beta.prompts.createVersion(id, { definition: { content: 'Hi {{name}}', variables: [{ name: 'name' }] }, notes: 'shorter', aliases: ['production'] });
    expect(v2).toEqual({ version: 2, deduplicated: false });
    const dedup = await t.sdk.beta.prompts.createVersion(id, { definition: { content: 'Hi {{name}}', variables: [{ name: 'name' }] } });
    expect(dedup).toEqual({ version: 2, deduplicated: true });

    expect((await t.sdk.beta.prompts.get({ promptId: id })).version).toBe(2);
    expect((await t.sdk.beta.prompts.get({ promptId: id, version: 1 })).definition?.content).toBe('Hello {{name}}');
    expect((await t.sdk.beta.prompts.get({ promptId: id, alias: 'production' })).version).toBe(2);
    const masked = await t.sdk.beta.prompts.get({ promptId: id, fields: ['name', 'latestVersion'] });
    expect(masked).toEqual({ name: 'sdk-greeting', latestVersion: 2 });

    const v1 = await t.sdk.beta.prompts.getVersion({ promptId: id, version: 1, fields: ['version', 'notes'] });
    expect(v1).toEqual({ version: 1, notes: 'first' });

    const versions = await t.sdk.beta.prompts.listVersions({ promptId: id });
    expect(versions.data?.map((v) => [v.version, v.aliases])).toEqual([[2, ['production']], [1, []]]);
    expect(versions.data?.[0].createdAt).toBeInstanceOf(Date);

    const moved = await t.sdk.beta.prompts.updateVersionMetadata(id, 1, { notes: 'original', aliases: { values: ['production', 'legacy'] } });
    expect(moved).toMatchObject({ version: 1, notes: 'original', aliases: ['legacy', 'production'] });

    const meta = await t.sdk.beta.prompts.updateMetadata(id, { title: 'Hello', sharingScope: 'private' });
    expect(meta).toMatchObject({ title: 'Hello', sharingScope: 'private', version: 2 });

    await t.sdk.beta.prompts.create({ name: 'sdk-another', definition: { content: 'x' } });
    await t.sdk.beta.prompts.create({ name: 'sdk-third', definition: { content: 'y' } });
    const byName: string[] = [];
    for await (const page of await t.sdk.beta.prompts.list({ pageSize: 2, sortBy: 'name', sortDirectionQueryParameter1: 'asc' })) {
      byName.push(...(page.result.data ?? []).map((p) => p.name!));
    }
    expect(byName).toEqual(['sdk-another', 'sdk-greeting', 'sdk-third']);
    const enumSorted = await t.sdk.beta.prompts.list({ sortField: 'list_sort_field_name', sortDirectionQueryParameter: 'list_sort_direction_desc', fields: ['name'] });
    expect(enumSorted.result.data).toEqual([{ name: 'sdk-third' }, { name: 'sdk-greeting' }, { name: 'sdk-another' }]);
    const aliased = await t.sdk.beta.prompts.list({ alias: 'legacy' });
    expect(aliased.result.data?.map((p) => [p.name, p.version])).toEqual([['sdk-greeting', 1]]);

    expect(await t.sdk.beta.prompts.delete({ promptId: id })).toEqual({});
    const gone = await rejection(t.sdk.beta.prompts.get({ promptId: id }));
    expect(gone).toBeInstanceOf(errors.MistralError);
    expect((gone as errors.MistralError).statusCode).toBe(404);
  });

  // The registry operations declare no 422 schema, so the SDK reports any 4xx as a MistralError with the body.
  it('bad input comes back as a 422 MistralError carrying the detail list', async () => {
    const bad = await rejection(t.sdk.beta.prompts.create({ name: '', definition: { content: 'x' } }));
    expect(bad).toBeInstanceOf(errors.MistralError);
    expect((bad as errors.MistralError).statusCode).toBe(422);
    expect(JSON.parse((bad as errors.MistralError).body).detail[0].loc).toEqual(['body', 'name']);
    const badToken = await rejection(t.sdk.beta.prompts.list({ pageToken: 'not-a-token' }));
    expect((badToken as errors.MistralError).statusCode).toBe(422);
    expect(JSON.parse((badToken as errors.MistralError).body).detail[0].loc).toEqual(['query', 'pageToken']);
  });
});

describe('SDK beta.skills against the local platform', () => {
  it('runs every skills method', async () => {
    const skill = await t.sdk.beta.skills.create({
      name: 'sdk-skill',
      definition: { description: 'Use to deploy', body: 'Run deploy.sh', assets: { 'deploy.sh': { textContent: '#!/bin/sh', isExecutable: true }, 'logo.png': { rawContent: 'iVBORw0KGgo=' } } },
      notes: 'first',
      aliases: ['stable'],
    });
    expect(skill).toMatchObject({ name: 'sdk-skill', version: 1, latestVersion: 1, aliases: ['stable'], sharingScope: 'private' });
    expect(skill.definition?.assets?.['deploy.sh']).toEqual({ textContent: '#!/bin/sh', isExecutable: true });
    expect(skill.definition?.assets?.['logo.png']).toEqual({ rawContent: 'iVBORw0KGgo=', isExecutable: false });
    const id = skill.id!;

    expect(await t.sdk.beta.skills.createVersion(id, { definition: { description: 'Use to deploy', body: 'Run deploy.sh --fast' }, aliases: ['stable'] })).toEqual({ version: 2, deduplicated: false });
    expect(await t.sdk.beta.skills.createVersion(id, { definition: { body: 'Run deploy.sh --fast', description: 'Use to deploy', assets: {} } })).toEqual({ version: 2, deduplicated: true });
    expect((await t.sdk.beta.skills.get({ skillId: id, alias: 'stable' })).version).toBe(2);
    expect((await t.sdk.beta.skills.get({ skillId: id, version: 1, fields: ['definition.description'] }))).toEqual({ definition: { description: 'Use to deploy' } });
    expect((await t.sdk.beta.skills.getVersion({ skillId: id, version: 2 })).definition?.body).toBe('Run deploy.sh --fast');
    expect((await t.sdk.beta.skills.listVersions({ skillId: id })).data?.map((v) => v.version)).toEqual([2, 1]);
    expect(await t.sdk.beta.skills.updateVersionMetadata(id, 2, { notes: 'fast', aliases: { values: [] } })).toMatchObject({ version: 2, notes: 'fast', aliases: [] });
    expect(await t.sdk.beta.skills.updateMetadata(id, { sharingScope: 'workspace', workspaceRelation: 'reader' })).toMatchObject({ sharingScope: 'workspace' });

    const pages: string[][] = [];
    for await (const page of await t.sdk.beta.skills.list({ pageSize: 1 })) pages.push((page.result.data ?? []).map((s) => s.name!));
    expect(pages).toEqual([['sdk-skill']]);

    expect(await t.sdk.beta.skills.delete({ skillId: id })).toEqual({});
    const gone = await rejection(t.sdk.beta.skills.listVersions({ skillId: id }));
    expect((gone as errors.MistralError).statusCode).toBe(404);
  });
});
