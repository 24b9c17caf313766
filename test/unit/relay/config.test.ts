import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RelayConfigError, describeRelayConfig, policyOf, relayHelp, relayOptionsOf, resolveRelayConfig, type RelayConfigSources } from '../../../src/relay/config.js';

const KEY = 'sk-platform-SECRET-key';

/** Resolves a config from in-memory sources; `files` maps paths to their text. */
function resolve(flags: RelayConfigSources['flags'] = {}, env: Record<string, string> = {}, files: Record<string, string> = {}) {
  return resolveRelayConfig({
    flags, env,
    readFile: (path) => {
      if (!(path in files)) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      return files[path]!;
    },
  });
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RelayConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a RelayConfigError');
}

describe('relay config: defaults', () => {
  it('is locked down: conversations only, no agent, no model, no origin, no proxy trust, memory store', () => {
    const config = resolve();
    expect(config).toMatchObject({
      port: 8789, host: '127.0.0.1', upstream: 'https://api.mistral.ai', allowedOrigins: [], agents: [], models: [],
      scopes: ['conversations'], tokenTtlSeconds: 600, trustProxy: 0,
      sessionLimits: { requestsPerMinute: 30, burst: 10, concurrentStreams: 2 },
      addressLimits: { requestsPerMinute: 120, burst: 40, sessionsPerMinute: 20, sessionBurst: 10 },
    });
    expect(config.redisUrl).toBeUndefined();
    expect(config.publicOrigin).toBeUndefined();
    const lines = describeRelayConfig(config, 'in memory').join('\n');
    expect(lines).toMatch(/agents\s+\(none\)/);
    expect(lines).toMatch(/pages can open sessions but reach nothing/);
    expect(lines).toMatch(/not allowed\s+speech transcription ocr agents:read models:read/);
  });

  it('needs the platform key for relay options, and maps every setting onto createRelay', () => {
    expect(refusal(() => relayOptionsOf(resolve()))).toMatch(/PLATFORM_API_KEY/);
    const config = resolve({ agent: ['ag_1'], 'trust-proxy': '2', 'public-origin': 'https://chat.shop.example' }, { PLATFORM_API_KEY: KEY, PARLEY_OPERATOR_SECRET: 'o'.repeat(32) });
    const options = relayOptionsOf(config);
    expect(options).toMatchObject({
      upstream: { baseUrl: 'https://api.mistral.ai', apiKey: KEY }, trustProxy: 2, publicOrigin: 'https://chat.shop.example',
      policy: { scopes: ['conversations'], agents: ['ag_1'], models: [] }, operatorSecret: 'o'.repeat(32), tokenTtlSeconds: 600,
    });
    expect(policyOf(config).limits).toEqual({ requestsPerMinute: 30, burst: 10, concurrentStreams: 2 });
  });
});

describe('relay config: file, environment, flags', () => {
  const file = JSON.stringify({
    $schema: './relay.schema.json',
    port: 9000, upstream: 'https://platform.internal', allowedOrigins: ['https://shop.example'], publicOrigin: 'https://chat.shop.example',
    agents: ['ag_shop'], models: ['mistral-small-latest'], scopes: ['conversations', 'speech'], tokenTtlSeconds: 300,
    sessionLimits: { requestsPerMinute: 60, concurrentStreams: 3 }, addressLimits: { burst: 80 }, trustProxy: 1,
    redisUrl: 'redis://127.0.0.1:6379', platformApiKey: KEY, relaySecret: 'r'.repeat(32),
  });

  it('reads every setting from the file (--config or PARLEY_RELAY_CONFIG)', () => {
    for (const config of [resolve({ config: '/etc/relay.json' }, {}, { '/etc/relay.json': file }), resolve({}, { PARLEY_RELAY_CONFIG: '/etc/relay.json' }, { '/etc/relay.json': file })]) {
      expect(config).toMatchObject({
        port: 9000, upstream: 'https://platform.internal', allowedOrigins: ['https://shop.example'], publicOrigin: 'https://chat.shop.example',
        agents: ['ag_shop'], models: ['mistral-small-latest'], scopes: ['conversations', 'speech'], tokenTtlSeconds: 300, trustProxy: 1,
        sessionLimits: { requestsPerMinute: 60, burst: 10, concurrentStreams: 3 }, addressLimits: { requestsPerMinute: 120, burst: 80 },
        redisUrl: 'redis://127.0.0.1:6379', platformApiKey: KEY, relaySecret: 'r'.repeat(32),
      });
    }
  });

  it('flags override the environment, which overrides the file', () => {
    const files = { '/etc/relay.json': file };
    const env = { PORT: '9100', PARLEY_AGENTS: 'ag_env1, ag_env2', PARLEY_SESSION_RPM: '90', REDIS_URL: 'redis://env:6379', PARLEY_TRUST_PROXY: '2' };
    const fromEnv = resolve({ config: '/etc/relay.json' }, env, files);
    expect(fromEnv).toMatchObject({ port: 9100, agents: ['ag_env1', 'ag_env2'], sessionLimits: { requestsPerMinute: 90, concurrentStreams: 3 }, redisUrl: 'redis://env:6379', trustProxy: 2, models: ['mistral-small-latest'] });
    const fromFlags = resolve({ config: '/etc/relay.json', port: '9200', agent: ['ag_a', 'ag_b'], 'session-rpm': '120', redis: 'redis://flag:6379', 'trust-proxy': '0' }, env, files);
    expect(fromFlags).toMatchObject({ port: 9200, agents: ['ag_a', 'ag_b'], sessionLimits: { requestsPerMinute: 120 }, redisUrl: 'redis://flag:6379', trustProxy: 0, models: ['mistral-small-latest'] });
    // --config beats PARLEY_RELAY_CONFIG.
    expect(resolve({ config: '/etc/relay.json' }, { PARLEY_RELAY_CONFIG: '/nowhere.json' }, files).port).toBe(9000);
  });

  it('unknown keys are refused, naming the key and the file', () => {
    const files = { '/etc/a.json': '{"agnets":["ag_1"]}', '/etc/b.json': '{"sessionLimits":{"rpm":5}}', '/etc/c.json': '{"sessionLimits":5}' };
    expect(refusal(() => resolve({ config: '/etc/a.json' }, {}, files))).toMatch(/unknown key 'agnets' in the config file \/etc\/a\.json \(known here: .*agents/);
    expect(refusal(() => resolve({ config: '/etc/b.json' }, {}, files))).toMatch(/unknown key 'sessionLimits\.rpm' in the config file \/etc\/b\.json \(known here: requestsPerMinute, burst, concurrentStreams\)/);
    expect(refusal(() => resolve({ config: '/etc/c.json' }, {}, files))).toMatch(/sessionLimits must be an object, got 5/);
  });

  it('a missing, unreadable or non-JSON file is a clear refusal', () => {
    expect(refusal(() => resolve({ config: '/nope.json' }))).toMatch(/cannot read the config file \/nope\.json: ENOENT/);
    expect(refusal(() => resolve({ config: '/x.json' }, {}, { '/x.json': '{ port: 1 }' }))).toMatch(/the config file \/x\.json is not valid JSON/);
    // A secret typed without quotes is not quoted back.
    const unquoted = refusal(() => resolve({ config: '/y.json' }, {}, { '/y.json': '{"platformApiKey": sk-SECRET-abc}' }));
    expect(unquoted).toMatch(/^the config file \/y\.json is not valid JSON( \(near character \d+\))?$/);
    expect(unquoted).not.toContain('SECRET');
    expect(describeRelayConfig({ ...resolve(), upstream: 'https://user:pw-123@platform.example' }, 'memory').join('\n')).not.toContain('pw-123');
    expect(refusal(() => resolve({ config: '/x.json' }, {}, { '/x.json': '[1]' }))).toMatch(/must hold a JSON object/);
  });
});

describe('relay config: every value validated, with where it came from', () => {
  const cases: Array<[RelayConfigSources['flags'], Record<string, string>, Record<string, string>, RegExp]> = [
    [{ port: '70000' }, {}, {}, /^--port must be a whole number from 0 to 65535, got 70000$/],
    [{ port: 'eighty' }, {}, {}, /^--port must be a whole number from 0 to 65535, got "eighty"$/],
    [{}, { PORT: '-1' }, {}, /^PORT must be a whole number/],
    [{ upstream: 'ftp://x' }, {}, {}, /^--upstream must be an http\(s\) URL/],
    [{ 'allow-origin': ['https://shop.example/path'] }, {}, {}, /^--allow-origin must be origins like https:\/\/shop\.example, got \["https:\/\/shop\.example\/path"\]/],
    [{ 'public-origin': 'chat.example' }, {}, {}, /^--public-origin must be an origin/],
    [{ agent: ['ag$1'] }, {}, {}, /^--agent must be agent ids \(or '\*' for any\), got \["ag\$1"\]$/],
    [{ model: ['-m'] }, {}, {}, /^--model must be model names/],
    [{ scope: ['everything'] }, {}, {}, /^--scope must be scopes among conversations, speech, transcription, ocr, agents:read, models:read/],
    [{ 'token-ttl': '5' }, {}, {}, /^--token-ttl must be a whole number of seconds from 30 to 86400, got 5$/],
    [{ 'session-rpm': '0' }, {}, {}, /^--session-rpm must be a whole number from 1/],
    [{ 'session-streams': '1.5' }, {}, {}, /^--session-streams must be a whole number from 1 to 1000, got "1.5"$/],
    [{ 'trust-proxy': 'yes' }, {}, {}, /^--trust-proxy must be a whole number of proxy hops from 0 to 10, got "yes"$/],
    [{}, { PARLEY_TRUST_PROXY: '11' }, {}, /^PARLEY_TRUST_PROXY must be a whole number of proxy hops/],
    [{ redis: 'http://127.0.0.1:6379' }, {}, {}, /^--redis must be a redis:\/\/ or rediss:\/\/ URL/],
    [{ config: '/c.json' }, {}, { '/c.json': '{"trustProxy":"1"}' }, /^trustProxy in the config file \/c\.json must be a whole number of proxy hops from 0 to 10, got "1"$/],
    [{ config: '/c.json' }, {}, { '/c.json': '{"agents":"ag_1"}' }, /^agents in the config file \/c\.json must be agent ids/],
    [{ config: '/c.json' }, {}, { '/c.json': '{"addressLimits":{"burst":0}}' }, /^addressLimits\.burst in the config file \/c\.json must be a whole number from 1/],
  ];
  it.each(cases)('%o %o %o → %s', (flags, env, files, message) => {
    expect(refusal(() => resolve(flags, env, files))).toMatch(message);
  });

  it('secrets are never echoed: a short signing or operator secret is refused without its value', () => {
    const short = 'short-secret-value';
    for (const env of [{ PARLEY_RELAY_SECRET: short }, { PARLEY_OPERATOR_SECRET: short }]) {
      const message = refusal(() => resolve({}, env));
      expect(message).toMatch(/must be a string of 32 or more bytes( without whitespace)?, got something else \(not shown\)/);
      expect(message).not.toContain(short);
    }
    const spaced = 'a passphrase with spaces that is long enough';
    const message = refusal(() => resolve({}, { PARLEY_OPERATOR_SECRET: spaced }));
    expect(message).toMatch(/PARLEY_OPERATOR_SECRET must be a string of 32 or more bytes without whitespace, got something else \(not shown\)/);
    expect(message).not.toContain(spaced);
    const redis = refusal(() => resolve({ redis: 'http://user:hunter2@redis' }));
    expect(redis).not.toContain('hunter2');
  });

  it('the help documents every flag, environment variable and file key', () => {
    const help = relayHelp();
    for (const word of ['--config', '--port', '--host', '--upstream', '--allow-origin', '--public-origin', '--agent', '--model', '--scope', '--token-ttl',
      '--session-rpm', '--session-burst', '--session-streams', '--address-rpm', '--address-burst', '--address-sessions-rpm', '--address-session-burst',
      '--trust-proxy', '--redis', 'PLATFORM_API_KEY', 'PARLEY_RELAY_SECRET', 'PARLEY_OPERATOR_SECRET', 'PARLEY_RELAY_CONFIG', 'REDIS_URL',
      'PARLEY_TRUST_PROXY', 'sessionLimits.requestsPerMinute', 'addressLimits.sessionBurst', 'platformApiKey', 'operatorSecret']) {
      expect(help, word).toContain(word);
    }
    expect(help).toMatch(/never in flags/);
  });
});

describe('relay config: remote files', () => {
  it('are refused by default and allowed by the flag, the environment or the file; other words are refused', () => {
    expect(resolve().allowRemoteFiles).toBe(false);
    expect(relayOptionsOf({ ...resolve(), platformApiKey: KEY }).allowRemoteFiles).toBe(false);
    expect(resolve({ 'allow-remote-files': true }).allowRemoteFiles).toBe(true);
    expect(resolve({}, { PARLEY_ALLOW_REMOTE_FILES: 'yes' }).allowRemoteFiles).toBe(true);
    expect(resolve({}, { PARLEY_ALLOW_REMOTE_FILES: 'false' }).allowRemoteFiles).toBe(false);
    expect(resolve({ config: 'r.json' }, {}, { 'r.json': '{"allowRemoteFiles": true}' }).allowRemoteFiles).toBe(true);
    expect(refusal(() => resolve({}, { PARLEY_ALLOW_REMOTE_FILES: 'sometimes' }))).toMatch(/PARLEY_ALLOW_REMOTE_FILES must be true or false, got "sometimes"/);
    expect(refusal(() => resolve({ config: 'r.json' }, {}, { 'r.json': '{"allowRemoteFiles": "yes"}' }))).toMatch(/allowRemoteFiles in the config file r.json must be true or false/);
    expect(describeRelayConfig(resolve(), 'memory').join('\n')).toMatch(/remote files +refused/);
    expect(relayHelp()).toMatch(/--allow-remote-files +let pages name remote https files/);
  });
});

describe('relay config: feedback', () => {
  it('is off by default; the flag, the environment or the file name the dataset; a bad id is refused', () => {
    expect(resolve().feedbackDataset).toBeUndefined();
    expect(relayOptionsOf({ ...resolve(), platformApiKey: KEY }).feedback).toBeUndefined();
    expect(relayOptionsOf({ ...resolve({ 'feedback-dataset': 'ds_1' }), platformApiKey: KEY }).feedback).toEqual({ datasetId: 'ds_1' });
    expect(resolve({}, { PARLEY_FEEDBACK_DATASET: 'ds-2' }).feedbackDataset).toBe('ds-2');
    expect(resolve({ config: 'r.json' }, {}, { 'r.json': '{"feedbackDataset": "ds_3"}' }).feedbackDataset).toBe('ds_3');
    expect(refusal(() => resolve({ 'feedback-dataset': '../datasets' }))).toMatch(/--feedback-dataset must be a dataset id/);
    expect(describeRelayConfig(resolve(), 'memory').join('\n')).toMatch(/feedback +\(off/);
    expect(describeRelayConfig(resolve({ 'feedback-dataset': 'ds_1' }), 'memory').join('\n')).toMatch(/feedback +ratings written to dataset ds_1/);
    expect(relayHelp()).toMatch(/--feedback-dataset <value> +write each visitor's rating/);
  });
});

describe('relay config: resumable replies', () => {
  it('keep replies 300 s and 4 MiB by default; the flag, the environment and the file set them; nonsense is refused', () => {
    expect(resolve().resume).toEqual({ ttlSeconds: 300, maxBytesPerStream: 4 * 1024 * 1024 });
    expect(relayOptionsOf({ ...resolve({ 'resume-ttl': '60' }), platformApiKey: KEY }).resume).toEqual({ ttlSeconds: 60, maxBytesPerStream: 4 * 1024 * 1024 });
    expect(resolve({}, { PARLEY_RESUME_MAX_BYTES: '65536' }).resume.maxBytesPerStream).toBe(65536);
    expect(resolve({ config: 'r.json' }, {}, { 'r.json': '{"resume": {"ttlSeconds": 900}}' }).resume.ttlSeconds).toBe(900);
    expect(refusal(() => resolve({ 'resume-ttl': '0' }))).toMatch(/--resume-ttl must be a whole number of seconds from 1 to 86400/);
    expect(refusal(() => resolve({}, { PARLEY_RESUME_MAX_BYTES: 'lots' }))).toMatch(/PARLEY_RESUME_MAX_BYTES must be a whole number of bytes/);
    expect(describeRelayConfig(resolve({ 'resume-ttl': '45' }), 'memory').join('\n')).toMatch(/resumption +replies kept 45 s after they end, up to 4096 KB each/);
    expect(relayHelp()).toMatch(/--resume-ttl <n> +seconds a streamed reply is kept/);
  });
});

describe('the relay guide\'s config example', () => {
  it('is a valid config file, as printed under "Production deployment" (docs/guides/relay-and-production.md)', () => {
    const readme = readFileSync(new URL('../../../docs/guides/relay-and-production.md', import.meta.url), 'utf8');
    const section = readme.split('## Production deployment')[1]!.split('\n## ')[0]!;
    const example = /```json\n([\s\S]*?)```/.exec(section)![1]!;
    const config = resolve({ config: '/srv/relay.json' }, {}, { '/srv/relay.json': example });
    expect(config).toMatchObject({ allowedOrigins: ['https://shop.example'], publicOrigin: 'https://chat.shop.example', trustProxy: 1, redisUrl: 'redis://127.0.0.1:6379' });
    expect(config.scopes).toEqual(['conversations', 'speech', 'transcription']);
  });
});
