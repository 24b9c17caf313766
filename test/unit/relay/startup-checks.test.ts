// The start-up warnings of parley-relay (startup-checks.ts), from configs resolved as the CLI resolves them.
import { describe, expect, it } from 'vitest';
import { resolveRelayConfig } from '../../../src/relay/config.js';
import { startupWarnings } from '../../../src/relay/startup-checks.js';

const SECRET = 'a-signing-secret-of-32-bytes-or-more-0123';
const OPERATOR = 'an-operator-secret-of-32-bytes-or-more-0123';

function warnings(flags: Record<string, unknown>, env: Record<string, string> = {}): string[] {
  return startupWarnings(resolveRelayConfig({ flags, env: { PLATFORM_API_KEY: 'k', ...env } }));
}

describe('startupWarnings', () => {
  it('has nothing to say about the defaults, nor about Redis with both secrets', () => {
    expect(warnings({})).toEqual([]);
    expect(warnings({ redis: 'redis://127.0.0.1:6379' }, { PARLEY_RELAY_SECRET: SECRET, PARLEY_OPERATOR_SECRET: OPERATOR })).toEqual([]);
    expect(warnings({ 'metrics-port': '9464' })).toEqual([]);
  });

  it.each([
    [{ 'trust-proxy': '1' }, {}, /--trust-proxy: .*listens on 127\.0\.0\.1, so only a proxy on this machine/],
    [{ 'trust-proxy': '2', host: '0.0.0.0' }, {}, /--trust-proxy: .*2 proxy hops, and the relay listens on 0\.0\.0\.0.*--host 127\.0\.0\.1/],
    [{ 'allow-remote-files': true }, {}, /--allow-remote-files: pages may name any https file/],
    [{ redis: 'redis://127.0.0.1:6379' }, { PARLEY_OPERATOR_SECRET: OPERATOR }, /PARLEY_RELAY_SECRET is not: each instance signs with a random secret/],
    [{ redis: 'redis://127.0.0.1:6379' }, { PARLEY_RELAY_SECRET: SECRET }, /PARLEY_OPERATOR_SECRET is not: there is no operator endpoint/],
    [{ 'metrics-port': '9464', 'metrics-host': '0.0.0.0' }, {}, /--metrics-host 0\.0\.0\.0: the metrics port answers anyone/],
  ] as Array<[Record<string, unknown>, Record<string, string>, RegExp]>)('%o %o → one warning naming its fix', (flags, env, message) => {
    const said = warnings(flags, env);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(message);
    expect(said[0]).toMatch(/Fix: .+/);
  });

  it('never shows a secret', () => {
    const said = warnings({ redis: 'redis://:hunter2-password@10.0.0.5:6379', 'trust-proxy': '1', 'allow-remote-files': true }).join('\n');
    expect(said).not.toContain('hunter2');
  });
});
