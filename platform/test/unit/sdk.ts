import { Mistral } from '@mistralai/mistralai';
import { HTTPClient } from '@mistralai/mistralai/lib/http.js';
import { afterAll, beforeAll } from 'vitest';
import type { Platform, PlatformOptions } from '../../src/app.js';
import { API_KEY, BASE, startPlatform } from './helpers.js';

/** The official SDK, unmodified, talking to the platform's fetch handler directly (as the API key's user unless `apiKey` says). */
export function sdkFor(platform: Platform, serverURL = BASE, apiKey = API_KEY): Mistral {
  const httpClient = new HTTPClient({ fetcher: (input, init) => platform.fetch(input instanceof Request ? input : new Request(input, init)) });
  return new Mistral({ apiKey, serverURL, httpClient });
}

/** Drains an SDK event stream; fails on any event the SDK could not recognise. */
export async function drain(stream: AsyncIterable<{ event: string; data: any }>) {
  const events: Array<{ event: string; data: any }> = [];
  for await (const e of stream) {
    if (e.data?.isUnknown || e.data?.type === 'UNKNOWN') throw new Error(`SDK saw an unknown event: ${JSON.stringify(e.data.raw ?? e.data)}`);
    events.push(e);
  }
  return events;
}

/** For one test file or describe block: an in-memory platform and the SDK over it, started before all tests and closed after. */
export function withSdkPlatform(options: Partial<PlatformOptions> = {}): { readonly platform: Platform; readonly sdk: Mistral } {
  const env = {} as { platform: Platform; sdk: Mistral };
  beforeAll(async () => {
    env.platform = await startPlatform(options);
    env.sdk = sdkFor(env.platform);
  });
  afterAll(async () => {
    await env.platform.close();
  });
  return env;
}
